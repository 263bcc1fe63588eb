"""Samurai: The Card Game report: what is the game's own (outcomes with games nobody wins
apart from shared victories, end reasons, markers, card kinds, where villages are scored);
the seat table, length table and their charts come from reports.sections."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from reports import charts as C
from reports import sections as S
from reports.fairness import seat_fairness
from reports.stats import Estimate, mean_from_moments, rate, ratio_rate
from reports.summary import Chart, LongTable, Summary

SECTIONS = {  # key: (title, what the table shows)
    "seats": ("Seats", "Outright win rate per seat (seat 1 plays first) against the fair "
              "share (reports.fairness); shared victories and eliminations per seat."),
    "outcomes": ("Outcomes and end reasons", "Outright winner, shared victory (a tie that "
                 "remains) or no winner (nobody dominates: not a shared victory); the winner "
                 "rule's branch; end reasons (several can hold) and their combinations."),
    "markers": ("Markers", "Markers per game by seat and shape; shapes dominated per seat."),
    "lengths": ("Game length", "Turns (cards played), villages placed and scored per game."),
    "cards": ("Cards", "Per kind of card: scorings it counted in won by its owner; its "
              "owner's share of the markers of the villages it touched; its plays by the "
              "outright winner. Intervals clustered by game (ratio estimator)."),
    "other": ("Other figures", "Ties per scoring and cells opened per play (clustered by "
              "game), substitutes, discarded tied markers, chains, openings left empty."),
}
WHY = {"markers": "a marker supply ran out", "villages": "the last village was placed",
       "cards": "every card was played", "blocked": "no legal cell was left"}
MIN_CONTESTS = 200  # card kinds with fewer contests are left out of findings
# per kind of card: (column prefix, successes, observations), the rows of kind_sq (KindRatio)
CARD_RATES = (("contest_win", "contests_won", "contests"),
              ("touched_marker", "touched_won", "touched_markers"),
              ("plays_by_winner", "plays_by_winner", "played"))


def _ci(e: Estimate) -> str:
    return f"{S.pct(e.value)} (95% CI {S.pct(e.lo)}-{S.pct(e.hi)})"


def clustered(y: float, x: float, sq: np.ndarray, games: int) -> Estimate:
    """A rate counted several times per game, with its clustered interval (sq: the
    per-game sums y^2, x^2, x*y)."""
    return ratio_rate(float(y), float(x), float(sq[0]), float(sq[1]), float(sq[2]), games)


def share_rows(long: LongTable, kind: str, counts: dict[str, int], games: int) -> list:
    """One row per case: games and share of games with its Wilson interval."""
    rows = []
    for name, k in counts.items():
        e = rate(k, games)
        long.add("outcomes", kind, name, e)
        rows.append({"kind": kind, "case": name, "games": int(k), "share": e.value,
                     "ci_low": e.lo, "ci_high": e.hi})
    return rows


def marker_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Markers per game by seat and shape (mean with interval), and how often each seat
    dominates 0-3 shapes."""
    games = s["games"]
    rows = []
    for q in range(s["players"]):
        row: dict[str, Any] = {"seat": q + 1}
        for i, shape in enumerate(s["shapes"]):
            m = mean_from_moments(float(s["markers_sum"][q, i]), float(s["markers_sq"][q, i]),
                                  games)
            long.add("markers", f"mean_{shape}", f"seat {q + 1}", m)
            row.update({f"{shape}_mean": m.value, f"{shape}_ci_low": m.lo,
                        f"{shape}_ci_high": m.hi})
        row["total_mean"] = float(s["markers_sum"][q].sum()) / games if games else np.nan
        for k in range(4):
            e = rate(s["dominated"][q, k], games)
            long.add("markers", f"dominates_{k}_shapes", f"seat {q + 1}", e)
            row[f"dominates_{k}"] = e.value
        rows.append(row)
    return pl.DataFrame(rows)


def card_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Per kind of card: its CARD_RATES with intervals clustered by game."""
    k, games = s["kinds"], s["games"]
    rows = []
    for i, name in enumerate(k["card"]):
        row = {"card": name, "symbol": k["symbol"][i], "influence": int(k["influence"][i]),
               "assumed": bool(k["assumed"][i]), "played": int(k["played"][i]),
               "contests": int(k["contests"][i]), "touched_markers": int(k["touched_markers"][i])}
        for r, (tag, y, x) in enumerate(CARD_RATES):
            e = clustered(k[y][i], k[x][i], s["kind_sq"][i, r], games)
            long.add("cards", f"{tag}_share", name, e)
            row.update({f"{tag}_share": e.value, f"{tag}_ci_low": e.lo, f"{tag}_ci_high": e.hi})
        rows.append(row)
    return pl.DataFrame(rows)


def other_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Ties per contest and cells opened per play (clustered by game), games needing
    substitutes, and per-game counts."""
    m, games, sq = s["misc"], s["games"], s["misc_sq"]
    items = [
        ("symbol scorings tied (marker to nobody)",
         clustered(m["tied_contests"], m["contests"], sq[0], games)),
        ("games in which substitute markers were needed",
         rate(m["games_with_substitutes"], games)),
        *((f"plays that opened {k} cell{'s' * (k > 1)}",
           clustered(m[f"turns_opening_{k}"], m["turns"], sq[k], games)) for k in (1, 2, 3)),
    ]
    for label, e in items:
        long.add("other", label, "", e)
    rows = [{"figure": k, "value": e.value, "ci_low": e.lo, "ci_high": e.hi, "n": e.n}
            for k, e in items]
    for key in ("substitute_markers", "tied_markers_discarded", "villages_chained",
                "openings_unfilled", "scored_outside_heatmap"):
        rows.append({"figure": f"{key.replace('_', ' ')} per game", "ci_low": None,
                     "value": m[key] / games if games else np.nan, "ci_high": None, "n": games})
    return pl.DataFrame(rows, schema={"figure": pl.Utf8, "value": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "n": pl.Int64})


def heatmap(path: Path, heat: np.ndarray, *, title: str) -> None:
    """Share of the villages scored per cell around the first village (blank: never)."""
    heat = np.asarray(heat, float)
    r = (heat.shape[0] - 1) // 2
    total = heat.sum()
    data = np.where(heat > 0, heat / total * 100 if total else heat, np.nan)
    fig = Figure(figsize=(5.6, 4.8), dpi=100)
    ax = fig.add_subplot()
    im = ax.imshow(data, origin="lower", cmap="viridis", extent=(-r - .5, r + .5, -r - .5, r + .5))
    fig.colorbar(im, ax=ax, label="% of villages scored")
    ax.plot([0], [0], marker="+", color="red", ms=10)
    ax.set(title=title, xlabel="x (first village at 0, 0)", ylabel="y")
    FigureCanvasAgg(fig).print_png(path)


def findings(s: dict, fair, seats: list[str], t: dict, content: dict,
             rules: dict[str, str]) -> list[str]:
    """Plain-language statements a designer can act on, each with its interval."""
    games = s["games"]
    best = t["seats"].sort("win_rate", descending=True).row(0, named=True)
    out = S.seat_findings(fair, "outright win rate") if len(set(seats)) == 1 else [
        f"Seats play different policies ({', '.join(seats)}); seat {best['seat']} "
        f"({best['policy']}) wins outright {_ci(rate(best['wins'], games))}: this measures "
        f"the policies as much as the seats."]
    oc, ends = s["outcome"], s["ends"]
    out.append(f"Games with an outright winner: {_ci(rate(oc['outright'], games))}; shared "
               f"victories (a tie that remains): {_ci(rate(oc['shared'], games))}; no "
               f"winner (nobody dominates any shape, counted apart from shared victories): "
               f"{_ci(rate(oc['no winner'], games))}.")
    said = "; ".join(f"{WHY[name]} in {_ci(rate(k, games))}" for name, k in ends.items()
                     if k or name != "blocked")
    out.append(f"The game ends (after the turn; several can hold at once): {said}.")
    ln = t["lengths"].row(0, named=True)
    out.append(f"A game lasts {ln['mean_per_game']:.1f} turns on average (sd {ln['sd']:.1f}).")
    ks = s["kinds"]
    is_sam = np.array([x == "samurai" for x in ks["symbol"]])
    enough = ks["contests"] >= MIN_CONTESTS
    if (enough & is_sam).any() and (enough & ~is_sam).any():
        sw, yw = (clustered(ks["contests_won"][m].sum(), ks["contests"][m].sum(),
                            s["group_sq"][g, 0], games)
                  for g, m in ((1, is_sam), (0, ~is_sam)))
        out.append(f"Samurai cards: their owner takes {_ci(sw)} of the markers of the "
                   f"scorings they count in, against {_ci(yw)} for symbol cards (a samurai "
                   f"counts in every symbol of a village, a symbol card in one).")
    if s["misc"]["turns_opening_3"] == 0 and rules.get("chain") == "off":
        out.append("No play opened three cells: without chaining a card can open at most "
                   "two, so see-next and see-all show the player the same villages.")
    if content.get("assumed"):
        out.append(f"The content '{content['name']}' is assumed (player set and village deck "
                   f"make-up reconstructed); card-level findings depend on it. Run with "
                   f"--content to use the real cards.")
    return out


def _charts(s: dict, fair, t: dict[str, pl.DataFrame], series: dict) -> list[Chart]:
    en = t["outcomes"].filter(pl.col("kind") == "end reason")
    cards = t["cards"].filter(pl.col("contests") > 0)
    mk = t["markers"]

    def markers(path: Path) -> None:
        groups = {f"seat {r['seat']}": tuple([r[f"{sh}_{c}"] for sh in s["shapes"]]
                                             for c in ("mean", "ci_low", "ci_high"))
                  for r in mk.iter_rows(named=True)}
        labels = [f"{a} ({b})" for a, b in zip(s["shapes"], s["shape_markers"], strict=True)]
        C.grouped_bars_with_ci(path, labels, groups, title="Markers per game by seat",
                               ylabel="markers (mean)", percent=False)

    def card_value(path: Path) -> None:
        C.bars_with_ci(path, cards["card"].to_list(), cards["contest_win_share"],
                       cards["contest_win_ci_low"], cards["contest_win_ci_high"],
                       title="Scorings a card counted in that its owner won",
                       ylabel="marker taken (%)")

    out = [S.seat_chart(fair, "Seat outright win rates"),
           Chart("end_reasons", "End reasons with 95% intervals", lambda path: C.bars_with_ci(
               path, en["case"].to_list(), en["share"], en["ci_low"], en["ci_high"],
               title="End reasons (several can hold at once)", ylabel="games (%)")),
           Chart("markers", "Markers per game by seat and shape with 95% intervals", markers),
           S.length_chart(series, "Game length: turns, villages placed and scored",
                          "count per game")]
    if cards.height:
        out.append(Chart("card_value", "Each kind of card: share of the scorings it counted "
                         "in won by its owner (95% intervals clustered by game)", card_value))
    if np.asarray(s["heat"]).sum() > 0:
        out.append(Chart("village_heatmap", "Where villages are scored (first village at the "
                         "centre)", lambda path: heatmap(path, s["heat"], title="Where "
                                                         "villages are scored")))
    return out


def _head(figure: str, value: float, lo: float, hi: float, note: str) -> dict[str, str]:
    return {"figure": figure, "value": S.pct(value),
            "95% interval": f"{S.pct(lo)} - {S.pct(hi)}", "note": note}


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Samurai: The Card Game run."""
    seats, games, players = list(manifest["seats"]), s["games"], s["players"]
    long = LongTable()
    fair = seat_fairness(np.asarray(s["wins"]), games)
    extra = {"shared_victories": [int(v) for v in s["shared"]],
             "shared_rate": [rate(v, games).value for v in s["shared"]],
             "eliminated_rate": [rate(v, games).value for v in s["eliminated"]]}
    for q, what in ((q, w) for q in range(players) for w in ("shared", "eliminated")):
        long.add("seats", f"{what}_rate", f"seat {q + 1}", rate(s[what][q], games))
    series = {"turns": s["length"], "villages placed": s["villages_placed"],
              "villages scored": s["villages_scored"]}
    outcomes = [row for kind, key in (("outcome", "outcome"), ("decided by", "winby"),
                                      ("end reason", "ends"), ("end combination", "end_combos"))
                for row in share_rows(long, kind, s[key], games)]
    tables = {"seats": S.seat_table(fair, seats, long, extra),
              "outcomes": pl.DataFrame(outcomes), "markers": marker_table(s, long),
              "lengths": S.length_table(series, "per_game", long),
              "cards": card_table(s, long), "other": other_table(s, long)}
    head = [_head(f"seat {r['seat']} win rate ({r['policy']})", r["win_rate"], r["ci_low"],
                  r["ci_high"], r["flag"] or f"fair share {S.pct(r['fair'])}")
            for r in tables["seats"].iter_rows(named=True)]
    head += [_head(r["case"] if r["kind"] == "outcome" else f"ends by {r['case']}",
                   r["share"], r["ci_low"], r["ci_high"], "share of games")
             for r in tables["outcomes"].filter(pl.col("kind").is_in(["outcome", "end reason"])
                                                & (pl.col("games") > 0)).iter_rows(named=True)]
    ln = tables["lengths"].row(0, named=True)
    head.append({"figure": "game length (turns)", "value": f"{ln['mean_per_game']:.2f}",
                 "95% interval": f"{ln['ci_low']:.2f} - {ln['ci_high']:.2f}",
                 "note": f"sd {ln['sd']:.2f}"})
    sections = [(title, key, text) for key, (title, text) in SECTIONS.items()]
    return Summary(
        title=f"{manifest['game_title']}: balance report ({players} players)",
        headline=pl.DataFrame(head), tables=tables, long=long.frame(),
        findings=findings(s, fair, seats, tables, manifest["content"],
                          manifest.get("rules", {})),
        charts=_charts(s, fair, tables, series), sections=sections,
        json={name: tables[name].to_dicts() for name in ("seats", "outcomes", "lengths",
                                                         "markers", "cards")},
    )
