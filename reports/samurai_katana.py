"""Samurai & Katana report: seats, start draw, Emperor catch-up, length, Honor sources,
provinces, campaign battles, cards, and the exact combat odds with heatmaps."""

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

FLAG_LEVEL = 0.01
MIN_CLANS = 200  # start-draw groups smaller than this are left out of findings and charts
TERRAINS = ((False, False), (False, True), (True, False), (True, True))


def _pct(x: float) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


def _ci(e: Estimate) -> str:
    return f"{_pct(e.value)} (95% CI {_pct(e.lo)}-{_pct(e.hi)})"


def terrain_label(castle: bool, mountain: bool) -> str:
    """'plain', 'mountain', 'castle', 'castle in mountains'."""
    if castle:
        return "castle in mountains" if mountain else "castle"
    return "mountain" if mountain else "plain"


def terrain_slug(castle: bool, mountain: bool) -> str:
    """File-name form of terrain_label."""
    return terrain_label(castle, mountain).replace(" ", "_")


# --- heatmaps ---------------------------------------------------------------------------

def _heat(ax, matrix: np.ndarray, rows: list[int], cols: list[int], title: str) -> None:
    """One attacker-by-defender heatmap of win chances (in %), each cell labelled."""
    im = ax.imshow(matrix * 100, origin="lower", cmap="RdYlGn", vmin=0, vmax=100,
                   aspect="auto")
    ax.set_xticks(range(len(cols)), [str(c) for c in cols])
    ax.set_yticks(range(len(rows)), [str(r) for r in rows])
    ax.set_xlabel("defending samurai")
    ax.set_ylabel("attacking samurai")
    ax.set_title(title, fontsize=9)
    for i in range(len(rows)):
        for j in range(len(cols)):
            v = matrix[i, j]
            if not math.isnan(v):
                ax.text(j, i, f"{100 * v:.0f}", ha="center", va="center", fontsize=6.5)
    return im


def odds_heatmap(path: Path, frame: pl.DataFrame, castle: bool, mountain: bool) -> None:
    """Heatmap of the attacker's win chance for one terrain case of an odds table (rows as
    written by `simcli odds --table`), with the sampling precision in the title."""
    part = frame.filter((pl.col("castle") == castle) & (pl.col("mountain") == mountain))
    rows = sorted(set(part["attacker"].to_list()))
    cols = sorted(set(part["defender"].to_list()))
    m = np.full((len(rows), len(cols)), np.nan)
    for r in part.iter_rows(named=True):
        m[rows.index(r["attacker"]), cols.index(r["defender"])] = r["attacker_win"]
    n = int(part["battles"].max())
    if n:
        hw = float((part["attacker_win_ci_high"] - part["attacker_win_ci_low"]).max()) / 2
        note = f"{n:,} battles; 95% CI within ±{100 * hw:.2f} pts"
    else:
        note = "exact (enumeration of every hand)"
    fig = Figure(figsize=(6.0, 4.8), dpi=100)
    ax = fig.add_subplot()
    im = _heat(ax, m, rows, cols, f"Attacker win chance (%), {terrain_label(castle, mountain)}"
               f"\n{note}")
    fig.colorbar(im, ax=ax, label="attacker win (%)")
    fig.tight_layout()
    FigureCanvasAgg(fig).print_png(path)


def odds_grid_chart(path: Path, win: np.ndarray, max_size: int) -> None:
    """The four terrain cases of the exact odds grid win[a, d, castle, mountain] side by
    side."""
    fig = Figure(figsize=(11.0, 8.6), dpi=100)
    im = None
    for k, (c, m) in enumerate(TERRAINS):
        ax = fig.add_subplot(2, 2, k + 1)
        cols = list(range(0 if c else 1, max_size + 1))
        rows = list(range(1, max_size + 1))
        mat = np.array([[win[a, d, int(c), int(m)] for d in cols] for a in rows])
        im = _heat(ax, mat, rows, cols, f"{terrain_label(c, m)} (exact)")
    fig.colorbar(im, ax=fig.axes, label="attacker win (%)", shrink=0.8)
    fig.suptitle("Attacker win chance by army sizes, both sides playing their strongest cards")
    FigureCanvasAgg(fig).print_png(path)


def honor_traces_chart(path: Path, trace: np.ndarray, target: int) -> None:
    """Honor after each turn for a sample of games (one panel per game)."""
    games = [g for g in range(trace.shape[0]) if trace[g].max() > 0][:6]
    fig = Figure(figsize=(11.0, 6.2), dpi=100)
    for k, g in enumerate(games):
        ax = fig.add_subplot(2, 3, k + 1)
        for seat in range(trace.shape[1]):
            t = trace[g, seat]
            turns = np.nonzero(t)[0]
            if len(turns):
                ax.plot(turns + 1, t[turns] - 1, marker="o", ms=2, label=f"seat {seat + 1}")
        ax.axhline(target, color="#C44E52", linestyle="--", linewidth=1)
        ax.set_title(f"game {g}", fontsize=9)
        ax.set_xlabel("turn")
        ax.set_ylabel("Honor")
        if k == 0:
            ax.legend(fontsize=7)
    fig.suptitle(f"Honor after each turn: {len(games)} sample games (run's first games; "
                 f"dashed: target {target})")
    fig.tight_layout()
    FigureCanvasAgg(fig).print_png(path)


# --- tables -----------------------------------------------------------------------------

def seat_table(s: dict, seats: list[str], long: LongTable) -> pl.DataFrame:
    """Seat win rates against the fair share (Holm-adjusted flags), offices and Honor."""
    games, players = s["games"], s["players"]
    fair = 1.0 / players
    raw = [binomial_p(s["wins"][k], games, fair) for k in range(players)]
    adjusted = holm(raw)
    st = s["seat"]
    rows = []
    for k in range(players):
        e = rate(s["wins"][k], games)
        flag = "differs from fair (99%)" if adjusted[k] < FLAG_LEVEL else ""
        honor = mean_from_moments(float(st["honor"][k]), float(st["honor_sq"][k]), games)
        long.add("seats", "win_rate", f"seat {k + 1}", e, flag)
        long.add("seats", "final_honor", f"seat {k + 1}", honor)
        rows.append({
            "seat": k + 1, "policy": seats[k], "wins": int(s["wins"][k]), "games": games,
            "win_rate": e.value, "ci_low": e.lo, "ci_high": e.hi, "fair": fair,
            "p_value": raw[k], "p_adjusted": adjusted[k], "flag": flag,
            "final_honor": honor.value, "final_honor_ci_low": honor.lo,
            "final_honor_ci_high": honor.hi,
            "emperor_turns_per_game": st["emperor_turns"][k] / games if games else math.nan,
            "shogun_turns_per_game": st["shogun_turns"][k] / games if games else math.nan,
            "eliminated_rate": rate(st["eliminated"][k], games).value,
        })
    return pl.DataFrame(rows)


def _group_table(counts: np.ndarray, key: str, labels: list, long: LongTable, metric: str
                 ) -> pl.DataFrame:
    rows = []
    for i, label in enumerate(labels):
        n, won = int(counts[i, 0]), int(counts[i, 1])
        if n == 0:
            continue
        e = rate(won, n)
        long.add("start_draw", metric, str(label), e)
        rows.append({key: label, "clans": n, "win_rate": e.value, "ci_low": e.lo,
                     "ci_high": e.hi})
    return pl.DataFrame(rows, schema={key: pl.Int64 if isinstance(labels[0], int) else pl.Utf8,
                                      "clans": pl.Int64, "win_rate": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64})


def start_tables(s: dict, long: LongTable) -> dict[str, pl.DataFrame]:
    """Win rate by starting tax income, by the major city drawn, and by how many starting
    cities share one province."""
    inc = s["start_income"]
    major = s["start_major"]
    idx = [i for i in range(len(major["n"])) if major["n"][i] > 0]
    by_city = np.stack([major["n"][idx], major["won"][idx]], axis=1) if idx else np.zeros(
        (0, 2), np.int64)
    city_labels = [f"{major['city'][i]} ({major['territory'][i]})" for i in idx]
    return {
        "start_income": _group_table(inc, "start_income", list(range(len(inc))), long,
                                     "win_rate_by_income"),
        "start_major": _group_table(by_city, "major_city", city_labels or ["none"], long,
                                    "win_rate_by_major_city") if idx else pl.DataFrame(),
        "start_cluster": _group_table(s["start_cluster"], "cities_in_one_province",
                                      list(range(len(s["start_cluster"]))), long,
                                      "win_rate_by_cluster"),
    }


def catch_up_table(s: dict, long: LongTable) -> pl.DataFrame:
    """How often the Emperor named after turn k (the clan with fewest Honor) wins."""
    c = s["catch_up"]
    fair = 1.0 / s["players"]
    rows = []
    for k in range(1, c.shape[0]):
        n = int(c[k, 0])
        if n < 50:
            continue
        e = rate(int(c[k, 1]), n)
        long.add("catch_up", "emperor_win_rate", str(k), e)
        rows.append({"turn": k, "games": n, "emperor_win_rate": e.value, "ci_low": e.lo,
                     "ci_high": e.hi, "fair": fair})
    return pl.DataFrame(rows, schema={"turn": pl.Int64, "games": pl.Int64,
                                      "emperor_win_rate": pl.Float64, "ci_low": pl.Float64,
                                      "ci_high": pl.Float64, "fair": pl.Float64})


def length_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Game length in turns."""
    d = distribution(s["lengths"])
    long.add("length", "turns_mean", "", d.mean)
    return pl.DataFrame([{**d.columns(mean="mean_turns"), "capped": s["capped"]}])


def sources_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Honor gained and lost per game by source: all clans together and the winner."""
    src = s["sources"]
    games = s["games"]
    wins = int(np.sum(s["wins"]))
    gains = sum(int(src["sum"][i]) for i in range(len(src["name"])) if src["gain"][i])
    wgains = sum(int(src["win_sum"][i]) for i in range(len(src["name"])) if src["gain"][i])
    rows = []
    for i, name in enumerate(src["name"]):
        allc = mean_from_moments(float(src["sum"][i]), float(src["sq"][i]), games)
        win = mean_from_moments(float(src["win_sum"][i]), float(src["win_sq"][i]), wins)
        long.add("honor_sources", "per_game_all_clans", name, allc)
        long.add("honor_sources", "per_game_winner", name, win)
        rows.append({
            "source": name, "kind": "gain" if src["gain"][i] else "loss",
            "per_game_all_clans": allc.value, "ci_low": allc.lo, "ci_high": allc.hi,
            "per_game_winner": win.value, "winner_ci_low": win.lo, "winner_ci_high": win.hi,
            "share_of_gains": int(src["sum"][i]) / gains if src["gain"][i] and gains else None,
            "winner_share_of_gains": int(src["win_sum"][i]) / wgains
            if src["gain"][i] and wgains else None,
        })
    return pl.DataFrame(rows)


def province_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Province control: share of turns held whole, games held at some point, at the end,
    and by the winner."""
    pv = s["provinces"]
    games = s["games"]
    turns = int((s["lengths"] * np.arange(len(s["lengths"]))).sum())
    rows = []
    for i, name in enumerate(pv["name"]):
        ever = rate(int(pv["ever"][i]), games)
        end = rate(int(pv["end"][i]), games)
        winner = rate(int(pv["winner"][i]), games)
        held = rate(int(pv["turns_held"][i]), turns)
        long.add("provinces", "held_at_some_turn", name, ever)
        long.add("provinces", "held_by_winner_at_end", name, winner)
        long.add("provinces", "share_of_turns_held", name, held)
        rows.append({
            "province": name, "honor": int(pv["honor"][i]),
            "territories": int(pv["territories"][i]), "share_of_turns_held": held.value,
            "held_ci_low": held.lo, "held_ci_high": held.hi, "games_held_some_turn": ever.value,
            "ever_ci_low": ever.lo, "ever_ci_high": ever.hi, "held_at_end": end.value,
            "winner_holds_at_end": winner.value, "winner_ci_low": winner.lo,
            "winner_ci_high": winner.hi,
        })
    return pl.DataFrame(rows)


def battle_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Campaign battles by terrain: attacker wins, ties, emptied territories, losses."""
    b = s["battles"]
    games = s["games"]
    rows = []
    for c, m in TERRAINS:
        n = int(b["n"][int(c), int(m)])
        label = terrain_label(c, m)
        att = rate(int(b["att"][int(c), int(m)]), n)
        tie = rate(int(b["tie"][int(c), int(m)]), n)
        emp = rate(int(b["empty"][int(c), int(m)]), n)
        long.add("battles", "attacker_win_rate", label, att)
        long.add("battles", "tie_rate", label, tie)
        rows.append({
            "terrain": label, "battles": n, "per_game": n / games if games else math.nan,
            "attacker_win_rate": att.value, "ci_low": att.lo, "ci_high": att.hi,
            "tie_rate": tie.value, "emptied_rate": emp.value,
            "attacker_losses_mean": int(b["la"][int(c), int(m)]) / n if n else math.nan,
            "defender_losses_mean": int(b["ld"][int(c), int(m)]) / n if n else math.nan,
        })
    return pl.DataFrame(rows)


def card_table(s: dict) -> pl.DataFrame:
    """Per card: plays for its power and in combat, per game, and times countered."""
    c = s["cards"]
    games = s["games"] or 1
    return pl.DataFrame([{
        "card": name, "kind": c["kind"][i], "copies": int(c["count"][i]),
        "power_plays_per_game": int(c["power"][i]) / games,
        "combat_plays_per_game": int(c["combat"][i]) / games,
        "countered_per_game": int(c["countered"][i]) / games,
    } for i, name in enumerate(c["name"])])


def odds_table(s: dict) -> pl.DataFrame:
    """The exact combat odds grid the report's heatmaps show."""
    o = s["odds"]
    rows = []
    for c, m in TERRAINS:
        for a in range(1, o["max_size"] + 1):
            for d in range(0 if c else 1, o["max_size"] + 1):
                idx = (a, d, int(c), int(m))
                rows.append({"terrain": terrain_label(c, m), "attacker": a, "defender": d,
                             "attacker_win": float(o["win"][idx]), "tie": float(o["tie"][idx]),
                             "attacker_losses": float(o["attacker_losses"][idx]),
                             "defender_losses": float(o["defender_losses"][idx]),
                             "empty": float(o["empty"][idx])})
    return pl.DataFrame(rows)


def other_table(s: dict) -> pl.DataFrame:
    """Counts per game: actions, moves, purchases, eliminations and returns, reactions."""
    games = s["games"] or 1
    return pl.DataFrame([{"figure": k.replace("_", " ") + " per game", "value": v / games}
                         for k, v in s["misc"].items()])


# --- findings and charts ----------------------------------------------------------------

def findings(s: dict, seats: list[str], t: dict[str, pl.DataFrame], content: dict,
             target: int) -> list[str]:
    """Plain-language statements, each with its interval."""
    out = []
    players = s["players"]
    fair = 1.0 / players
    st = t["seats"]
    mixed = len(set(seats)) > 1
    flagged = st.filter(pl.col("flag") != "")
    if mixed:
        best = st.sort("win_rate", descending=True).row(0, named=True)
        out.append(f"Seats play different policies ({', '.join(seats)}); the best seat, "
                   f"{best['seat']} ({best['policy']}), wins "
                   f"{_ci(rate(best['wins'], best['games']))} against a fair {_pct(fair)}.")
    elif flagged.height == 0:
        out.append(f"No seat differs from a fair {_pct(fair)} at the 99% level (seat 1 is the "
                   f"first Emperor; rates {', '.join(_pct(v) for v in st['win_rate'])}).")
    else:
        for r in flagged.iter_rows(named=True):
            out.append(f"Seat {r['seat']} wins {_ci(rate(r['wins'], r['games']))} against a "
                       f"fair {_pct(fair)} (adjusted p = {r['p_adjusted']:.2g}); seat 1 is the "
                       f"first Emperor and places its starting samurai first.")
    inc = t["start_income"].filter(pl.col("clans") >= MIN_CLANS)
    if inc.height >= 2:
        lo, hi = inc.row(0, named=True), inc.row(inc.height - 1, named=True)
        out.append(f"Start draw: clans starting with {lo['start_income']} koku of taxes win "
                   f"{_ci(Estimate(lo['win_rate'], lo['ci_low'], lo['ci_high'], lo['clans']))}"
                   f", those with {hi['start_income']} win "
                   f"{_ci(Estimate(hi['win_rate'], hi['ci_low'], hi['ci_high'], hi['clans']))}"
                   f" (every clan starts with the same clan points, so income and place are "
                   f"what the blind draw changes).")
    maj = t["start_major"]
    if maj.height >= 2:
        maj = maj.filter(pl.col("clans") >= MIN_CLANS).sort("win_rate", descending=True)
        if maj.height >= 2:
            b, w = maj.row(0, named=True), maj.row(maj.height - 1, named=True)
            out.append(f"Best starting major city: {b['major_city']} ({_pct(b['win_rate'])}, "
                       f"95% CI {_pct(b['ci_low'])}-{_pct(b['ci_high'])}); worst: "
                       f"{w['major_city']} ({_pct(w['win_rate'])}, 95% CI {_pct(w['ci_low'])}-"
                       f"{_pct(w['ci_high'])}).")
    cu = t["catch_up"].filter(pl.col("turn") == s["catch_up_turn"])
    if cu.height:
        r = cu.row(0, named=True)
        out.append(f"Emperor catch-up: the clan with fewest Honor after turn {r['turn']} goes "
                   f"on to win {_pct(r['emperor_win_rate'])} (95% CI {_pct(r['ci_low'])}-"
                   f"{_pct(r['ci_high'])}) of the {r['games']:,} games that reach it, against "
                   f"{_pct(fair)} for an even chance.")
    ln = t["lengths"].row(0, named=True)
    out.append(f"A game lasts {ln['mean_turns']:.2f} turns on average (95% CI "
               f"{ln['ci_low']:.2f}-{ln['ci_high']:.2f}, sd {ln['sd']:.2f}) to pass {target} "
               f"Honor; {ln['capped']} of {ln['games']:,} games reached the safety cap.")
    src = t["honor_sources"].filter(pl.col("kind") == "gain").sort("winner_share_of_gains",
                                                                   descending=True)
    if src.height:
        out.append("Where winners' Honor comes from: " + ", ".join(
            f"{r['source']} {_pct(r['winner_share_of_gains'] or 0)}"
            for r in src.iter_rows(named=True) if (r["winner_share_of_gains"] or 0) > 0) + ".")
    pv = t["provinces"].sort("winner_holds_at_end", descending=True)
    if pv.height:
        r = pv.row(0, named=True)
        out.append(f"The province winners hold most often at the end is {r['province']} "
                   f"(worth {r['honor']}): {_pct(r['winner_holds_at_end'])} of games (95% CI "
                   f"{_pct(r['winner_ci_low'])}-{_pct(r['winner_ci_high'])}).")
    n = int(s["battles"]["n"].sum())
    if n:
        att = rate(int(s["battles"]["att"].sum()), n)
        out.append(f"{n / s['games']:.1f} battles per game; attackers win {_ci(att)} of them "
                   f"(they choose when to attack).")
    if content.get("assumed"):
        out.append(f"The map and deck '{content['name']}' are reconstructed (assumed), not "
                   f"the printed game; city, province and card findings depend on them. Run "
                   f"with --content to use the real ones.")
    return out


def _charts(s: dict, t: dict[str, pl.DataFrame], target: int) -> list[Chart]:
    st = t["seats"]
    fair = 1.0 / s["players"]
    inc = t["start_income"].filter(pl.col("clans") >= MIN_CLANS)
    maj = t["start_major"].filter(pl.col("clans") >= MIN_CLANS) if t["start_major"].height \
        else t["start_major"]
    cu = t["catch_up"]
    src = t["honor_sources"]
    pv = t["provinces"]

    def seats(path: Path) -> None:
        C.bars_with_ci(path, [f"{r['seat']}\n{r['policy']}" for r in st.iter_rows(named=True)],
                       st["win_rate"], st["ci_low"], st["ci_high"],
                       title=f"Seat win rates ({s['games']:,} games; seat 1 first Emperor)",
                       ylabel="win rate (%)", reference=fair, ref_label="fair share")

    def odds(path: Path) -> None:
        odds_grid_chart(path, s["odds"]["win"], s["odds"]["max_size"])

    def income(path: Path) -> None:
        C.line_with_band(path, inc["start_income"], inc["win_rate"], inc["ci_low"],
                         inc["ci_high"], reference=fair, ref_label="fair share",
                         title=f"Win rate by starting tax income (95% CI; groups of "
                               f"{MIN_CLANS}+ clans)",
                         xlabel="koku per turn from the starting territories",
                         ylabel="win rate (%)")

    def cities(path: Path) -> None:
        C.bars_with_ci(path, maj["major_city"].to_list(), maj["win_rate"], maj["ci_low"],
                       maj["ci_high"], title="Win rate by starting major city (95% CI)",
                       ylabel="win rate (%)", reference=fair, ref_label="fair share")

    def catch(path: Path) -> None:
        C.line_with_band(path, cu["turn"], cu["emperor_win_rate"], cu["ci_low"], cu["ci_high"],
                         reference=fair, ref_label="even chance",
                         title="Emperor catch-up: the last-placed clan after turn k wins",
                         xlabel="turn k", ylabel="win rate (%)")

    def length(path: Path) -> None:
        C.histograms(path, {"turns": s["lengths"]},
                     title=f"Game length ({s['games']:,} games)", xlabel="turns")

    def sources(path: Path) -> None:
        C.bars_with_ci(path, src["source"].to_list(), src["per_game_winner"],
                       src["winner_ci_low"], src["winner_ci_high"],
                       title="The winner's Honor by source, per game (95% CI)",
                       ylabel="Honor per game", percent=False)

    def provinces(path: Path) -> None:
        C.bars_with_ci(path, pv["province"].to_list(), pv["winner_holds_at_end"],
                       pv["winner_ci_low"], pv["winner_ci_high"],
                       title="Games whose winner holds the province whole at the end (95% CI)",
                       ylabel="games (%)")

    def traces(path: Path) -> None:
        honor_traces_chart(path, s["trace"], target)

    out = [
        Chart("combat_odds", "Combat odds heatmaps: attacker win chance by army sizes, per "
              "terrain case (exact, strongest cards on both sides)", odds),
        Chart("seat_win_rates", "Seat win rates with 95% intervals", seats),
        Chart("length", "Game length in turns", length),
        Chart("honor_sources", "The winner's Honor per game by source, with 95% intervals",
              sources),
        Chart("provinces", "Province held whole by the winner at the end, with 95% intervals",
              provinces),
    ]
    if inc.height >= 2:
        out.append(Chart("start_income", "Win rate by starting clan income, with 95% "
                         "intervals", income))
    if maj.height >= 2:
        out.append(Chart("start_major_city", "Win rate by starting major city, with 95% "
                         "intervals", cities))
    if cu.height >= 2:
        out.append(Chart("emperor_catch_up", "How often the last-placed clan after turn k wins, "
                         "with 95% intervals", catch))
    if s["trace"].max() > 0:
        out.append(Chart("honor_over_turns", "Honor over turns in sample games", traces))
    return out


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Samurai & Katana run."""
    seats = list(manifest["seats"])
    target = int(manifest["rules"].get("target-honor", 25))
    long = LongTable()
    tables = {"seats": seat_table(s, seats, long), **start_tables(s, long),
              "catch_up": catch_up_table(s, long), "lengths": length_table(s, long),
              "honor_sources": sources_table(s, long), "provinces": province_table(s, long),
              "battles": battle_table(s, long), "cards": card_table(s), "odds": odds_table(s),
              "other": other_table(s)}
    st = tables["seats"]
    ln = tables["lengths"].row(0, named=True)
    headline = [{"figure": f"seat {r['seat']} win rate ({r['policy']})",
                 "value": _pct(r["win_rate"]),
                 "95% interval": f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}",
                 "note": r["flag"] or f"fair {_pct(r['fair'])}"} for r in st.iter_rows(named=True)]
    headline.append({"figure": "game length (turns)", "value": f"{ln['mean_turns']:.2f}",
                     "95% interval": f"{ln['ci_low']:.2f} - {ln['ci_high']:.2f}",
                     "note": f"sd {ln['sd']:.2f}"})
    cu = tables["catch_up"].filter(pl.col("turn") == s["catch_up_turn"])
    if cu.height:
        r = cu.row(0, named=True)
        headline.append({"figure": f"last place after turn {r['turn']} wins",
                         "value": _pct(r["emperor_win_rate"]),
                         "95% interval": f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}",
                         "note": f"even chance {_pct(r['fair'])}"})
    sections = [
        ("Seats", "seats", "Win rate per seat (seat 1 is the first Emperor and draws and places "
         "first) against the fair share; exact binomial p-values, Holm-adjusted across seats; "
         "final Honor with its interval; offices held per game."),
        ("Start draw: income", "start_income", "Win rate by the koku the starting territories "
         "yield per turn (every clan starts with the same clan points)."),
        ("Start draw: major city", "start_major", "Win rate by the major city drawn."),
        ("Start draw: clustering", "start_cluster", "Win rate by the most starting cities a "
         "clan has in one province."),
        ("Emperor catch-up", "catch_up", "How often the clan named Emperor after turn k (the "
         "fewest Honor) wins the game, among the games that reach turn k."),
        ("Game length", "lengths", "Turns per game."),
        ("Honor sources", "honor_sources", "Honor gained and lost per game by source, for all "
         "clans together and for the winner (mean with 95% interval)."),
        ("Provinces", "provinces", "Share of clan-turns a province is held whole, games in "
         "which someone held it whole at the end of some turn, and games whose winner holds "
         "it at the end."),
        ("Campaign battles", "battles", "Battles by terrain: attacker win rate (95% interval), "
         "ties, emptied territories, mean losses."),
        ("Cards", "cards", "How often each card is played for its power and in combat, per "
         "game."),
        ("Combat odds (exact)", "odds", "Every army size pair and terrain case, both sides "
         "holding 5 random cards and playing their strongest (exact enumeration)."),
        ("Other figures", "other", "Actions, moves, purchases, reactions and eliminations per "
         "game."),
    ]
    json = {"seats": st.to_dicts(), "lengths": tables["lengths"].to_dicts(),
            "catch_up": tables["catch_up"].to_dicts(),
            "honor_sources": tables["honor_sources"].to_dicts(),
            "provinces": tables["provinces"].to_dicts(), "battles": tables["battles"].to_dicts()}
    return Summary(
        title=f"{manifest['game_title']}: balance report ({manifest['players']} players)",
        headline=pl.DataFrame(headline), tables=tables, long=long.frame(),
        findings=findings(s, seats, tables, manifest["content"], target),
        charts=_charts(s, tables, target), sections=sections, json=json,
    )
