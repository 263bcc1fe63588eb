"""Samurai & Katana report: its own sections (start draw, Emperor catch-up, Honor sources,
provinces, campaign battles, cards, the exact combat odds with heatmaps); the seat and length
sections come from reports/sections.py."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from reports import charts as C
from reports import sections as S
from reports.fairness import seat_fairness
from reports.stats import mean_from_moments, rate, ratio_rate
from reports.summary import Chart, LongTable, Summary

MIN_CLANS = 200  # start-draw groups smaller than this are left out of findings and charts
TERRAINS = ((False, False), (False, True), (True, False), (True, True))


def battle_rate(att: int, n: int, sq: np.ndarray, games: int):
    """The attacker's share of `n` battles, its interval clustered by game (several battles
    per game): ratio_rate from the per-game sums of squares sq = (yy, xx, xy) of attacker
    wins y and battles x (the kernel's stats.Moment order)."""
    return ratio_rate(att, n, int(sq[0]), int(sq[1]), int(sq[2]), games)


def _ci(value: float, lo: float, hi: float) -> str:
    return f"{S.pct(value)} (95% CI {S.pct(lo)}-{S.pct(hi)})"


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

def _rates(long: LongTable, section: str, metric: str, key: str, labels: list,
           counts: np.ndarray, min_n: int = 1, fair: float | None = None) -> pl.DataFrame:
    """One row per label with n >= min_n: the count, how many won and the rate's interval
    (counts[i] = (n, won))."""
    rows = []
    for i, label in enumerate(labels):
        n, won = int(counts[i, 0]), int(counts[i, 1])
        if n >= min_n:
            e = rate(won, n)
            long.add(section, metric, str(label), e)
            rows.append({key: label, "n": n, "win_rate": e.value, "ci_low": e.lo,
                         "ci_high": e.hi, **({"fair": fair} if fair is not None else {})})
    schema = {key: pl.Int64 if labels and isinstance(labels[0], int) else pl.Utf8,
              "n": pl.Int64, "win_rate": pl.Float64, "ci_low": pl.Float64,
              "ci_high": pl.Float64, **({"fair": pl.Float64} if fair is not None else {})}
    return pl.DataFrame(rows, schema=schema)


def _per_game(long: LongTable, section: str, names: list, sums, squares, games: int,
              prefix: str = "") -> dict[str, list]:
    """Means per game with their intervals, as columns."""
    cols: dict[str, list] = {f"{prefix}per_game": [], f"{prefix}ci_low": [],
                             f"{prefix}ci_high": []}
    for i, name in enumerate(names):
        e = mean_from_moments(float(sums[i]), float(squares[i]), games)
        long.add(section, f"{prefix}per_game", name, e)
        for col, v in zip(cols, (e.value, e.lo, e.hi), strict=True):
            cols[col].append(v)
    return cols


def own_tables(s: dict, long: LongTable) -> dict[str, pl.DataFrame]:
    """The game's own tables: start draw, catch-up, Honor sources, provinces, battles,
    cards, odds, other counts."""
    games, players = s["games"], s["players"]
    major = s["start_major"]
    idx = [i for i in range(len(major["n"])) if major["n"][i] > 0]
    src = s["sources"]
    names = src["name"]
    wins = int(np.sum(s["wins"]))
    pv = s["provinces"]
    turns = int((s["lengths"] * np.arange(len(s["lengths"]))).sum())
    b = s["battles"]
    c = s["cards"]
    o = s["odds"]
    held = [rate(int(pv[k][i]), turns if k == "turns_held" else games)
            for k in ("turns_held", "ever", "end", "winner") for i in range(len(pv["name"]))]
    for i, name in enumerate(pv["name"]):
        long.add("provinces", "held_by_winner_at_end", name, held[3 * len(pv["name"]) + i])
    NP = len(pv["name"])
    terr = []
    for c_, m_ in TERRAINS:
        cm = (int(c_), int(m_))
        n = int(b["n"][cm])
        att = battle_rate(int(b["att"][cm]), n, b["sq"][cm], games)
        long.add("battles", "attacker_win_rate", terrain_label(*cm), att)
        terr.append({"terrain": terrain_label(*cm), "battles": n, "per_game": n / games,
                     "attacker_win_rate": att.value, "ci_low": att.lo, "ci_high": att.hi,
                     "tie_rate": int(b["tie"][cm]) / n if n else math.nan,
                     "emptied_rate": int(b["empty"][cm]) / n if n else math.nan,
                     "attacker_losses_mean": int(b["la"][cm]) / n if n else math.nan,
                     "defender_losses_mean": int(b["ld"][cm]) / n if n else math.nan})
    return {
        "start_income": _rates(long, "start_draw", "win_rate_by_income", "start_income",
                               list(range(len(s["start_income"]))), s["start_income"]),
        "start_major": _rates(long, "start_draw", "win_rate_by_major_city", "major_city",
                              [f"{major['city'][i]} ({major['territory'][i]})" for i in idx],
                              np.stack([major["n"], major["won"]], axis=1)[idx]),
        "start_cluster": _rates(long, "start_draw", "win_rate_by_cluster",
                                "cities_in_one_province", list(range(len(s["start_cluster"]))),
                                s["start_cluster"]),
        "catch_up": _rates(long, "catch_up", "emperor_win_rate", "turn",
                           list(range(len(s["catch_up"]))), s["catch_up"], 50, 1 / players
                           ).filter(pl.col("turn") >= 1),
        "honor_sources": pl.DataFrame({
            "source": names, "kind": ["gain" if g else "loss" for g in src["gain"]],
            **_per_game(long, "honor_sources", names, src["sum"], src["sq"], games),
            **_per_game(long, "honor_sources", names, src["win_sum"],
                        src["win_sq"], wins, "winner_"),
            "winner_share_of_gains": [int(src["win_sum"][i]) / max(1, sum(
                int(src["win_sum"][j]) for j in range(len(names)) if src["gain"][j]))
                if src["gain"][i] else None for i in range(len(names))]}),
        "provinces": pl.DataFrame({
            "province": pv["name"], "honor": [int(h) for h in pv["honor"]],
            "territories": [int(t) for t in pv["territories"]],
            "share_of_turns_held": [e.value for e in held[:NP]],
            "games_held_some_turn": [e.value for e in held[NP:2 * NP]],
            "held_at_end": [e.value for e in held[2 * NP:3 * NP]],
            "winner_holds_at_end": [e.value for e in held[3 * NP:]],
            "winner_ci_low": [e.lo for e in held[3 * NP:]],
            "winner_ci_high": [e.hi for e in held[3 * NP:]]}),
        "battles": pl.DataFrame(terr),
        "cards": pl.DataFrame({"card": c["name"], "kind": c["kind"],
                               "copies": [int(x) for x in c["count"]],
                               **{f"{k}_per_game": np.asarray(c[k]) / games
                                  for k in ("power", "combat", "countered")}}),
        "odds": pl.DataFrame([
            {"terrain": terrain_label(*cm), "attacker": a, "defender": d,
             **{k: float(o[key][a, d, int(cm[0]), int(cm[1])]) for k, key in (
                 ("attacker_win", "win"), ("tie", "tie"), ("attacker_losses", "attacker_losses"),
                 ("defender_losses", "defender_losses"), ("empty", "empty"))}}
            for cm in TERRAINS for a in range(1, o["max_size"] + 1)
            for d in range(0 if cm[0] else 1, o["max_size"] + 1)]),
        "other": pl.DataFrame([{"figure": k.replace("_", " ") + " per game", "value": v / games}
                               for k, v in s["misc"].items()]),
    }


# --- findings, charts, the summary -----------------------------------------------------------

def province_reading(rules: dict[str, str]) -> str:
    """The sentence naming the Province Honor reading when the default `every-turn` is in
    force (it decides most wins); empty under `once`. A rules dict without the option takes
    its default."""
    if rules.get("province-honor", "every-turn") != "every-turn":
        return ""
    return ("Reading in force: province-honor=every-turn - a complete province pays its "
            "Honor at the end of every activation of its owner, not once when completed "
            "(--rule province-honor=once). It makes games much shorter and decides most "
            "wins: every finding below depends on it.")


def findings(s: dict, seats: list[str], fair, t: dict[str, pl.DataFrame], content: dict,
             target: int, rules: dict[str, str] | None = None) -> list[str]:
    """Plain-language statements, each with its interval; the Province Honor reading first
    when it is the default one."""
    out = []
    reading = province_reading(rules or {})
    if reading:
        src = t["honor_sources"].filter(pl.col("source") == "provinces")
        ln = t["lengths"].row(0, named=True)
        share = S.pct(src.row(0, named=True)["winner_share_of_gains"]) if src.height else "-"
        out.append(f"{reading} Measured here: provinces give winners {share} of their Honor "
                   f"gains; games last {ln['mean_turns']:.2f} turns on average.")
    out += S.seat_findings(fair)
    if len(set(seats)) > 1:
        out.append(f"Seats play different policies ({', '.join(seats)}): read the seat rates "
                   f"as policy strength as much as seat effects.")
    out.append("Seat 1 is the first Emperor and places its starting samurai first.")
    inc = t["start_income"].filter(pl.col("n") >= MIN_CLANS)
    if inc.height >= 2:
        lo, hi = inc.row(0, named=True), inc.row(inc.height - 1, named=True)
        out.append(f"Start draw: clans starting with {lo['start_income']} koku of taxes win "
                   f"{_ci(lo['win_rate'], lo['ci_low'], lo['ci_high'])}, those with "
                   f"{hi['start_income']} win {_ci(hi['win_rate'], hi['ci_low'], hi['ci_high'])}"
                   f" (every clan starts with the same clan points, so income and place are "
                   f"what the blind draw changes).")
    maj = t["start_major"].filter(pl.col("n") >= MIN_CLANS).sort("win_rate", descending=True)
    if maj.height >= 2:
        b, w = maj.row(0, named=True), maj.row(maj.height - 1, named=True)
        out.append(f"Best starting major city: {b['major_city']} "
                   f"{_ci(b['win_rate'], b['ci_low'], b['ci_high'])}; worst: {w['major_city']} "
                   f"{_ci(w['win_rate'], w['ci_low'], w['ci_high'])}.")
    cu = t["catch_up"].filter(pl.col("turn") == s["catch_up_turn"])
    if cu.height:
        r = cu.row(0, named=True)
        out.append(f"Emperor catch-up: the clan with fewest Honor after turn {r['turn']} goes "
                   f"on to win {_ci(r['win_rate'], r['ci_low'], r['ci_high'])} of the "
                   f"{r['n']:,} games that reach it, against {S.pct(r['fair'])} for an even "
                   f"chance.")
    ln = t["lengths"].row(0, named=True)
    out.append(f"A game lasts {ln['mean_turns']:.2f} turns on average (95% CI "
               f"{ln['ci_low']:.2f}-{ln['ci_high']:.2f}, sd {ln['sd']:.2f}) to pass {target} "
               f"Honor; {s['capped']} of {ln['games']:,} games reached the safety cap.")
    src = t["honor_sources"].filter(pl.col("winner_share_of_gains") > 0).sort(
        "winner_share_of_gains", descending=True)
    if src.height:
        out.append("Where winners' Honor comes from: " + ", ".join(
            f"{r['source']} {S.pct(r['winner_share_of_gains'])}"
            for r in src.iter_rows(named=True)) + ".")
    r = t["provinces"].sort("winner_holds_at_end", descending=True).row(0, named=True)
    held = _ci(r["winner_holds_at_end"], r["winner_ci_low"], r["winner_ci_high"])
    out.append(f"The province winners hold most often at the end is {r['province']} (worth "
               f"{r['honor']}): {held} of games.")
    n = int(s["battles"]["n"].sum())
    if n:
        att = battle_rate(int(s["battles"]["att"].sum()), n, s["battles"]["sq_all"],
                          s["games"])
        out.append(f"{n / s['games']:.1f} battles per game; attackers win "
                   f"{_ci(att.value, att.lo, att.hi)} of them (they choose when to attack).")
    if content.get("assumed"):
        out.append(f"The map and deck '{content['name']}' are reconstructed (assumed), not "
                   f"the printed game; city, province and card findings depend on them. Run "
                   f"with --content to use the real ones.")
    return out


def _charts(s: dict, fair, t: dict[str, pl.DataFrame], target: int) -> list[Chart]:
    """The seat and length charts (shared) and the game's own."""
    share = 1.0 / s["players"]
    inc = t["start_income"].filter(pl.col("n") >= MIN_CLANS)
    maj = t["start_major"].filter(pl.col("n") >= MIN_CLANS)
    cu, src, pv = t["catch_up"], t["honor_sources"], t["provinces"]
    seats = S.seat_chart(fair, f"Seat win rates ({s['games']:,} games; seat 1 first Emperor)")
    out = [
        Chart("combat_odds", "Combat odds heatmaps: attacker win chance by army sizes, per "
              "terrain case (exact, strongest cards on both sides)",
              lambda p: odds_grid_chart(p, s["odds"]["win"], s["odds"]["max_size"])),
        Chart("seat_win_rates", seats.caption, seats.draw),
        S.length_chart({"turns": s["lengths"]}, f"Game length ({s['games']:,} games)", "turns"),
        Chart("honor_sources", "The winner's Honor per game by source, with 95% intervals",
              lambda p: C.bars_with_ci(p, src["source"].to_list(), src["winner_per_game"],
                                       src["winner_ci_low"], src["winner_ci_high"],
                                       title="The winner's Honor by source, per game (95% CI)",
                                       ylabel="Honor per game", percent=False)),
        Chart("provinces", "Province held whole by the winner at the end, with 95% intervals",
              lambda p: C.bars_with_ci(p, pv["province"].to_list(), pv["winner_holds_at_end"],
                                       pv["winner_ci_low"], pv["winner_ci_high"],
                                       title="Games whose winner holds the province whole at "
                                             "the end (95% CI)", ylabel="games (%)")),
    ]
    if inc.height >= 2:
        out.append(Chart("start_income", "Win rate by starting clan income, with 95% "
                         "intervals", lambda p: C.line_with_band(
                             p, inc["start_income"], inc["win_rate"], inc["ci_low"],
                             inc["ci_high"], reference=share, ref_label="fair share",
                             title=f"Win rate by starting tax income (95% CI; groups of "
                                   f"{MIN_CLANS}+ clans)",
                             xlabel="koku per turn from the starting territories",
                             ylabel="win rate (%)")))
    if maj.height >= 2:
        out.append(Chart("start_major_city", "Win rate by starting major city, with 95% "
                         "intervals", lambda p: C.bars_with_ci(
                             p, maj["major_city"].to_list(), maj["win_rate"], maj["ci_low"],
                             maj["ci_high"], title="Win rate by starting major city (95% CI)",
                             ylabel="win rate (%)", reference=share, ref_label="fair share")))
    if cu.height >= 2:
        out.append(Chart("emperor_catch_up", "How often the last-placed clan after turn k wins, "
                         "with 95% intervals", lambda p: C.line_with_band(
                             p, cu["turn"], cu["win_rate"], cu["ci_low"], cu["ci_high"],
                             reference=share, ref_label="even chance",
                             title="Emperor catch-up: the last-placed clan after turn k wins",
                             xlabel="turn k", ylabel="win rate (%)")))
    if s["trace"].max() > 0:
        out.append(Chart("honor_over_turns", "Honor over turns in sample games",
                         lambda p: honor_traces_chart(p, s["trace"], target)))
    return out


SECTIONS = [
    ("Seats", "seats", "Win rate per seat (seat 1 is the first Emperor and draws and places "
     "first) against the fair share; exact binomial p-values, Holm-adjusted across seats; "
     "final Honor with its interval; offices held per game."),
    ("Start draw: income", "start_income", "Win rate by the koku the starting territories "
     "yield per turn (every clan starts with the same clan points)."),
    ("Start draw: major city", "start_major", "Win rate by the major city drawn."),
    ("Start draw: clustering", "start_cluster", "Win rate by the most starting cities a clan "
     "has in one province."),
    ("Emperor catch-up", "catch_up", "How often the clan named Emperor after turn k (the "
     "fewest Honor) wins the game, among the games that reach turn k."),
    ("Game length", "lengths", "Turns per game."),
    ("Honor sources", "honor_sources", "Honor gained and lost per game by source, for all "
     "clans together and for the winner (mean with 95% interval)."),
    ("Provinces", "provinces", "Share of clan-turns a province is held whole, games in which "
     "someone held it whole at the end of some turn, and games whose winner holds it."),
    ("Campaign battles", "battles", "Battles by terrain: attacker win rate (95% interval), "
     "ties, emptied territories, mean losses."),
    ("Cards", "cards", "How often each card is played for its power and in combat, per game."),
    ("Combat odds (exact)", "odds", "Every army size pair and terrain case, both sides holding "
     "5 random cards and playing their strongest (exact enumeration)."),
    ("Other figures", "other", "Actions, moves, purchases, reactions and eliminations per "
     "game."),
]


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Samurai & Katana run."""
    seats = list(manifest["seats"])
    target = int(manifest["rules"].get("target-honor", 25))
    games, players, st = s["games"], s["players"], s["seat"]
    long = LongTable()
    fair = seat_fairness(np.asarray(s["wins"]), games)
    honor = [mean_from_moments(float(st["honor"][k]), float(st["honor_sq"][k]), games)
             for k in range(players)]
    for k, e in enumerate(honor):
        long.add("seats", "final_honor", f"seat {k + 1}", e)
    extra = {"final_honor": [e.value for e in honor],
             "emperor_turns_per_game": list(st["emperor_turns"] / games),
             "shogun_turns_per_game": list(st["shogun_turns"] / games),
             "eliminated_rate": list(st["eliminated"] / games)}
    tables = {"seats": S.seat_table(fair, seats, long, extra),
              "lengths": S.length_table({"turns": s["lengths"]}, "turns", long),
              **own_tables(s, long)}
    headline = [{"figure": f"seat {r.seat} win rate ({seats[r.seat - 1]})",
                 "value": S.pct(r.rate.value),
                 "95% interval": f"{S.pct(r.rate.lo)} - {S.pct(r.rate.hi)}",
                 "note": "differs from fair (99%)" if r.flagged else
                 f"fair {S.pct(fair.fair_share)}"} for r in fair.seats]
    ln = tables["lengths"].row(0, named=True)
    headline.append({"figure": "game length (turns)", "value": f"{ln['mean_turns']:.2f}",
                     "95% interval": f"{ln['ci_low']:.2f} - {ln['ci_high']:.2f}",
                     "note": f"sd {ln['sd']:.2f}"})
    cu = tables["catch_up"].filter(pl.col("turn") == s["catch_up_turn"])
    if cu.height:
        r = cu.row(0, named=True)
        headline.append({"figure": f"last place after turn {r['turn']} wins",
                         "value": S.pct(r["win_rate"]),
                         "95% interval": f"{S.pct(r['ci_low'])} - {S.pct(r['ci_high'])}",
                         "note": f"even chance {S.pct(r['fair'])}"})
    json = {k: tables[k].to_dicts() for k in ("seats", "lengths", "catch_up", "honor_sources",
                                               "provinces", "battles")}
    return Summary(
        title=f"{manifest['game_title']}: balance report ({players} players)",
        headline=pl.DataFrame(headline), tables=tables, long=long.frame(),
        findings=findings(s, seats, fair, tables, manifest["content"], target,
                          manifest["rules"]),
        charts=_charts(s, fair, tables, target), sections=SECTIONS, json=json,
    )
