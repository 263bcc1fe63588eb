"""Samurai: The Card Game report: seats, outcomes, end reasons, eliminations, markers,
length, card kinds (value of samurai cards), where villages are scored."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from reports import charts as C
from reports.stats import Estimate, binomial_p, distribution, holm, mean_from_moments, rate
from reports.summary import Chart, LongTable, Summary

FLAG_LEVEL = 0.01  # seats are flagged when they differ from fair at the 99% level
MIN_CONTESTS = 200  # card kinds with fewer contests are left out of findings


def _pct(x: float) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


def _ci(e: Estimate) -> str:
    return f"{_pct(e.value)} (95% CI {_pct(e.lo)}-{_pct(e.hi)})"


def _whiskers(value, lo, hi) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interval bounds that contain the value (at 0% or 100% the closed-form Wilson bound
    can miss it by a rounding error, which matplotlib rejects as a negative whisker)."""
    v, lo, hi = (np.asarray(a, float) for a in (value, lo, hi))
    return v, np.minimum(lo, v), np.maximum(hi, v)


def seat_table(s: dict, seats: list[str], long: LongTable) -> pl.DataFrame:
    """Outright win rate per seat against an equal share of the outright wins (Holm-adjusted
    exact binomial tests), shared victories and eliminations per seat."""
    games, players = s["games"], s["players"]
    outright = int(np.sum(s["wins"]))
    fair = outright / (players * games) if games else math.nan
    raw = [binomial_p(s["wins"][q], games, fair) if games and 0 < fair < 1 else 1.0
           for q in range(players)]
    adjusted = holm(raw)
    rows = []
    for q in range(players):
        e = rate(s["wins"][q], games)
        sh = rate(s["shared"][q], games)
        el = rate(s["eliminated"][q], games)
        flag = "differs from fair (99%)" if adjusted[q] < FLAG_LEVEL else ""
        long.add("seats", "win_rate", f"seat {q + 1}", e, flag)
        long.add("seats", "shared_victory_rate", f"seat {q + 1}", sh)
        long.add("seats", "eliminated_rate", f"seat {q + 1}", el)
        rows.append({
            "seat": q + 1, "policy": seats[q], "wins": int(s["wins"][q]), "games": games,
            "win_rate": e.value, "ci_low": e.lo, "ci_high": e.hi, "fair": fair,
            "p_value": raw[q], "p_adjusted": adjusted[q], "flag": flag,
            "shared_victories": int(s["shared"][q]), "shared_rate": sh.value,
            "shared_ci_low": sh.lo, "shared_ci_high": sh.hi,
            "eliminated_rate": el.value, "eliminated_ci_low": el.lo,
            "eliminated_ci_high": el.hi,
        })
    return pl.DataFrame(rows)


def outcome_table(s: dict, long: LongTable) -> pl.DataFrame:
    """How games are decided: outright winner, shared victory, nobody; and by which branch
    of the winner rule."""
    games = s["games"]
    rows = []
    for name, k in s["outcome"].items():
        e = rate(k, games)
        long.add("outcomes", "share", name, e)
        rows.append({"kind": "outcome", "case": name, "games": int(k), "share": e.value,
                     "ci_low": e.lo, "ci_high": e.hi})
    for name, k in s["winby"].items():
        e = rate(k, games)
        long.add("outcomes", "decided_by", name, e)
        rows.append({"kind": "decided by", "case": name, "games": int(k), "share": e.value,
                     "ci_low": e.lo, "ci_high": e.hi})
    return pl.DataFrame(rows)


def end_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Share of games each end condition held in (several can hold at once), then each
    combination."""
    games = s["games"]
    rows = []
    for name, k in s["ends"].items():
        e = rate(k, games)
        long.add("ends", "reason_share", name, e)
        rows.append({"kind": "reason", "end": name, "games": int(k), "share": e.value,
                     "ci_low": e.lo, "ci_high": e.hi})
    for name, k in s["end_combos"].items():
        e = rate(k, games)
        long.add("ends", "combination_share", name, e)
        rows.append({"kind": "combination", "end": name, "games": int(k), "share": e.value,
                     "ci_low": e.lo, "ci_high": e.hi})
    return pl.DataFrame(rows, schema={"kind": pl.Utf8, "end": pl.Utf8, "games": pl.Int64,
                                      "share": pl.Float64, "ci_low": pl.Float64,
                                      "ci_high": pl.Float64})


def marker_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Markers per game by seat and shape (mean with interval), and how often each seat
    dominates 0-3 shapes."""
    games = s["games"]
    rows = []
    for q in range(s["players"]):
        row: dict[str, Any] = {"seat": q + 1}
        total_sum = 0.0
        for i, shape in enumerate(s["shapes"]):
            m = mean_from_moments(float(s["markers_sum"][q, i]), float(s["markers_sq"][q, i]),
                                  games)
            long.add("markers", f"mean_{shape}", f"seat {q + 1}", m)
            row[f"{shape}_mean"] = m.value
            row[f"{shape}_ci_low"] = m.lo
            row[f"{shape}_ci_high"] = m.hi
            total_sum += float(s["markers_sum"][q, i])
        row["total_mean"] = total_sum / games if games else math.nan
        for k in range(4):
            e = rate(s["dominated"][q, k], games)
            long.add("markers", f"dominates_{k}_shapes", f"seat {q + 1}", e)
            row[f"dominates_{k}"] = e.value
        rows.append(row)
    return pl.DataFrame(rows)


def length_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Game length in turns, villages placed and villages scored: mean with interval, sd,
    quantiles."""
    rows = []
    for what, key in (("turns", "length"), ("villages placed", "villages_placed"),
                      ("villages scored", "villages_scored")):
        d = distribution(s[key])
        long.add("length", "mean", what, d.mean)
        rows.append({"figure": what, **d.columns()})
    return pl.DataFrame(rows)


def card_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Per kind of card: how often its owner took the marker of a scoring it counted in, the
    owner's share of the markers of the villages it touched, and how often its plays were
    by the eventual outright winner."""
    k = s["kinds"]
    rows = []
    for i, name in enumerate(k["card"]):
        cw = rate(k["contests_won"][i], k["contests"][i])
        tw = rate(k["touched_won"][i], k["touched_markers"][i])
        pw = rate(k["plays_by_winner"][i], k["played"][i])
        long.add("cards", "contest_win_share", name, cw)
        long.add("cards", "touched_marker_share", name, tw)
        long.add("cards", "plays_by_winner", name, pw)
        rows.append({
            "card": name, "symbol": k["symbol"][i], "influence": int(k["influence"][i]),
            "assumed": bool(k["assumed"][i]), "played": int(k["played"][i]),
            "contests": int(k["contests"][i]), "contest_win_share": cw.value,
            "contest_ci_low": cw.lo, "contest_ci_high": cw.hi,
            "touched_markers": int(k["touched_markers"][i]), "touched_share": tw.value,
            "touched_ci_low": tw.lo, "touched_ci_high": tw.hi,
            "plays_by_winner": pw.value, "winner_ci_low": pw.lo, "winner_ci_high": pw.hi,
        })
    return pl.DataFrame(rows)


def other_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Ties, substitutes, discarded tied markers, openings per play, chained villages,
    openings left empty."""
    m = s["misc"]
    games = s["games"]
    turns = m["turns"]
    items = [
        ("symbol scorings tied (marker to nobody)", rate(m["tied_contests"], m["contests"])),
        ("games in which substitute markers were needed",
         rate(m["games_with_substitutes"], games)),
        ("plays that opened 1 cell", rate(m["turns_opening_1"], turns)),
        ("plays that opened 2 cells", rate(m["turns_opening_2"], turns)),
        ("plays that opened 3 cells", rate(m["turns_opening_3"], turns)),
    ]
    for label, e in items:
        long.add("other", label, "", e)
    rows = [{"figure": k, "value": e.value, "ci_low": e.lo, "ci_high": e.hi, "n": e.n}
            for k, e in items]
    per_game = [
        ("substitute markers per game", m["substitute_markers"]),
        ("tied markers discarded per game", m["tied_markers_discarded"]),
        ("villages placed by a chain per game", m["villages_chained"]),
        ("openings left empty (village deck out) per game", m["openings_unfilled"]),
        ("villages scored outside the heatmap per game", m["scored_outside_heatmap"]),
    ]
    rows += [{"figure": k, "value": v / games if games else math.nan, "ci_low": None,
              "ci_high": None, "n": games} for k, v in per_game]
    return pl.DataFrame(rows, schema={"figure": pl.Utf8, "value": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "n": pl.Int64})


def heatmap(path: Path, heat: np.ndarray, *, title: str) -> None:
    """Villages scored per cell of the grid around the first village (share of all scored
    in the window); card cells and cells never scored are blank."""
    heat = np.asarray(heat, float)
    r = (heat.shape[0] - 1) // 2
    total = heat.sum()
    data = np.where(heat > 0, heat / total * 100 if total else heat, np.nan)
    fig = Figure(figsize=(5.6, 4.8), dpi=100)
    fig.subplots_adjust(left=0.12, right=0.92, top=0.9, bottom=0.12)
    ax = fig.add_subplot()
    im = ax.imshow(data, origin="lower", cmap="viridis", extent=(-r - 0.5, r + 0.5,
                                                                  -r - 0.5, r + 0.5))
    fig.colorbar(im, ax=ax, label="% of villages scored")
    ax.plot([0], [0], marker="+", color="red", ms=10)
    ax.set_title(title)
    ax.set_xlabel("x (first village at 0, 0)")
    ax.set_ylabel("y")
    FigureCanvasAgg(fig).print_png(path)


def findings(s: dict, seats: list[str], t: dict[str, pl.DataFrame], content: dict,
             rules: dict[str, str]) -> list[str]:
    """Plain-language statements a designer can act on, each with its interval."""
    out = []
    games = s["games"]
    st = t["seats"]
    flagged = st.filter(pl.col("flag") != "")
    if len(set(seats)) > 1:
        best = st.sort("win_rate", descending=True).row(0, named=True)
        out.append(
            f"Seats play different policies ({', '.join(seats)}); the best seat, "
            f"{best['seat']} ({best['policy']}), wins outright "
            f"{_ci(rate(best['wins'], games))}: this measures the policies as much as the "
            f"seats.")
    else:
        if flagged.height == 0:
            out.append(f"No seat's outright win rate differs from an equal share of the "
                       f"outright wins ({_pct(st['fair'][0])}) at the 99% level (seat win "
                       f"rates {', '.join(_pct(v) for v in st['win_rate'])}).")
        for r in flagged.iter_rows(named=True):
            out.append(f"Seat {r['seat']} wins outright {_ci(rate(r['wins'], games))} against "
                       f"an equal share of {_pct(r['fair'])} (adjusted p = "
                       f"{r['p_adjusted']:.2g}): significant at 99%.")
    oc = s["outcome"]
    out.append(f"Games with an outright winner: {_ci(rate(oc['outright'], games))}; shared "
               f"victories (a tie that remains): {_ci(rate(oc['shared'], games))}; no "
               f"winner (nobody dominates any shape, counted apart from shared victories): "
               f"{_ci(rate(oc['no winner'], games))}.")
    ends = s["ends"]
    out.append("The game ends because a marker supply ran out in "
               f"{_ci(rate(ends['markers'], games))} of games, because the last village was "
               f"placed in {_ci(rate(ends['villages'], games))}, because every card was played "
               f"in {_ci(rate(ends['cards'], games))}"
               + (f", and with no legal cell left in {_ci(rate(ends['blocked'], games))}"
                  if ends["blocked"] else "") + ".")
    ln = t["lengths"].row(0, named=True)
    out.append(f"A game lasts {ln['mean']:.1f} turns on average (sd {ln['sd']:.1f}).")
    cards = t["cards"].filter(pl.col("contests") >= MIN_CONTESTS)
    sam = cards.filter(pl.col("symbol") == "samurai")
    sym = cards.filter(pl.col("symbol") != "samurai")
    if sam.height and sym.height:
        ks = s["kinds"]
        is_sam = np.array([x == "samurai" for x in ks["symbol"]])
        sw = rate(int(ks["contests_won"][is_sam].sum()), int(ks["contests"][is_sam].sum()))
        yw = rate(int(ks["contests_won"][~is_sam].sum()), int(ks["contests"][~is_sam].sum()))
        out.append(f"Samurai cards: their owner takes {_ci(sw)} of the markers of the "
                   f"scorings they count in, against {_ci(yw)} for symbol cards (a samurai "
                   f"counts in every symbol of a village, a symbol card in one).")
    m = s["misc"]
    if m["turns_opening_3"] == 0 and rules.get("chain") == "off":
        out.append("No play opened three cells: without chaining a card can open at most "
                   "two, so see-next and see-all show the player the same villages.")
    if content.get("assumed"):
        out.append(f"The content '{content['name']}' is assumed (player set and village deck "
                   f"make-up reconstructed); card-level findings depend on it. Run with "
                   f"--content to use the real cards.")
    return out


def _charts(s: dict, t: dict[str, pl.DataFrame]) -> list[Chart]:
    st = t["seats"]
    en = t["ends"].filter(pl.col("kind") == "reason")
    cards = t["cards"].filter(pl.col("contests") > 0)
    mk = t["markers"]

    def seats(path: Path) -> None:
        C.bars_with_ci(path, [f"{r['seat']}\n{r['policy']}" for r in st.iter_rows(named=True)],
                       *_whiskers(st["win_rate"], st["ci_low"], st["ci_high"]),
                       title="Seat outright win rates", ylabel="win rate (%)",
                       reference=st["fair"][0], ref_label="equal share of outright wins")

    def ends(path: Path) -> None:
        C.bars_with_ci(path, en["end"].to_list(),
                       *_whiskers(en["share"], en["ci_low"], en["ci_high"]),
                       title="End reasons (several can hold at once)",
                       ylabel="games (%)")

    def markers(path: Path) -> None:
        groups = {f"seat {r['seat']}": (
            [r[f"{sh}_mean"] for sh in s["shapes"]], [r[f"{sh}_ci_low"] for sh in s["shapes"]],
            [r[f"{sh}_ci_high"] for sh in s["shapes"]]) for r in mk.iter_rows(named=True)}
        labels = [f"{a} ({b})" for a, b in zip(s["shapes"], s["shape_markers"], strict=True)]
        C.grouped_bars_with_ci(path, labels, groups, title="Markers per game by seat",
                               ylabel="markers (mean)", percent=False)

    def lengths(path: Path) -> None:
        C.histograms(path, {"turns": s["length"], "villages placed": s["villages_placed"],
                            "villages scored": s["villages_scored"]},
                     title="Game length", xlabel="count per game")

    def card_value(path: Path) -> None:
        C.bars_with_ci(path, cards["card"].to_list(),
                       *_whiskers(cards["contest_win_share"], cards["contest_ci_low"],
                                  cards["contest_ci_high"]),
                       title="Scorings a card counted in that its owner won",
                       ylabel="marker taken (%)")

    def heat(path: Path) -> None:
        heatmap(path, s["heat"], title="Where villages are scored")

    out = [
        Chart("seat_win_rates", "Seat outright win rates with 95% intervals", seats),
        Chart("end_reasons", "End reasons with 95% intervals", ends),
        Chart("markers", "Markers per game by seat and shape with 95% intervals", markers),
        Chart("length", "Game length: turns, villages placed and scored", lengths),
    ]
    if cards.height:
        out.append(Chart("card_value", "Value of each kind of card: share of the scorings it "
                         "counted in won by its owner, with 95% intervals", card_value))
    if np.asarray(s["heat"]).sum() > 0:
        out.append(Chart("village_heatmap", "Where villages are scored on the grid (all "
                         "games; first village at the centre)", heat))
    return out


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Samurai: The Card Game run."""
    seats = list(manifest["seats"])
    long = LongTable()
    tables = {
        "seats": seat_table(s, seats, long),
        "outcomes": outcome_table(s, long),
        "ends": end_table(s, long),
        "markers": marker_table(s, long),
        "lengths": length_table(s, long),
        "cards": card_table(s, long),
        "other": other_table(s, long),
    }
    games = s["games"]
    st = tables["seats"]
    headline_rows = [
        {"figure": f"seat {r['seat']} win rate ({r['policy']})", "value": _pct(r["win_rate"]),
         "95% interval": f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}",
         "note": r["flag"] or f"equal share {_pct(r['fair'])}"}
        for r in st.iter_rows(named=True)
    ]
    for name in ("shared", "no winner"):
        e = rate(s["outcome"][name], games)
        headline_rows.append({
            "figure": "shared victory" if name == "shared" else "no winner (nobody dominates)",
            "value": _pct(e.value), "95% interval": f"{_pct(e.lo)} - {_pct(e.hi)}",
            "note": "share of games"})
    for name, k in s["ends"].items():
        if k:
            e = rate(k, games)
            headline_rows.append({"figure": f"ends by {name}", "value": _pct(e.value),
                                  "95% interval": f"{_pct(e.lo)} - {_pct(e.hi)}",
                                  "note": "share of games"})
    ln = tables["lengths"].row(0, named=True)
    headline_rows.append({"figure": "game length (turns)", "value": f"{ln['mean']:.2f}",
                          "95% interval": f"{ln['ci_low']:.2f} - {ln['ci_high']:.2f}",
                          "note": f"sd {ln['sd']:.2f}"})
    json = {
        "seats": st.to_dicts(),
        "outcomes": tables["outcomes"].to_dicts(),
        "ends": tables["ends"].to_dicts(),
        "lengths": tables["lengths"].to_dicts(),
        "markers": tables["markers"].to_dicts(),
        "cards": tables["cards"].to_dicts(),
    }
    sections = [
        ("Seats", "seats", "Outright win rate per seat (seat 1 plays first) against an equal "
         "share of the games won outright; p-value of an exact two-sided binomial test, "
         "Holm-adjusted across seats (the flag uses the adjusted value). Shared victories "
         "and eliminations (no shape dominated) per seat."),
        ("Outcomes", "outcomes", "How games are decided: an outright winner, a shared "
         "victory, or no winner (no player dominates a shape; not a shared victory); and "
         "which branch of the winner "
         "rule decided them."),
        ("End reasons", "ends", "Share of games in which each end condition held after the "
         "last turn (a marker supply empty, the last village placed, every card played, or "
         "no legal cell), and each combination."),
        ("Markers", "markers", "Markers per game by seat and shape (mean with 95% interval) "
         "and how often each seat dominates 0, 1, 2 or 3 shapes."),
        ("Game length", "lengths", "Turns (cards played), villages placed and villages "
         "scored per game: mean with 95% interval, sd, quantiles."),
        ("Cards", "cards", "Per kind of card: the share of the scorings it counted in "
         "(a samurai in every symbol of the village, a symbol card in its own) whose marker "
         "its owner took; its owner's share of all markers the villages it touched paid; and "
         "the share of its plays made by the eventual outright winner."),
        ("Other figures", "other", "Ties, substitute markers, discarded tied markers, cells "
         "opened per play, chained villages, openings left empty."),
    ]
    return Summary(
        title=f"{manifest['game_title']}: balance report ({manifest['players']} players)",
        headline=pl.DataFrame(headline_rows),
        tables=tables,
        long=long.frame(),
        findings=findings(s, seats, tables, manifest["content"], manifest.get("rules", {})),
        charts=_charts(s, tables),
        sections=sections,
        json=json,
    )
