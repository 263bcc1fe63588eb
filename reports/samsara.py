"""Samsara report: what is the game's own (start player, endings, goals, the loser's
progress, match points, where the skill gap is measured); the seat table, findings and
chart and the length table and chart come from reports.sections.

Rates counted several times per playout (turns; the two games of a match) have intervals
clustered by playout (reports.stats.ratio_rate on the kernel's per-playout sums).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from reports import charts as C
from reports import sections as SEC
from reports.fairness import seat_fairness
from reports.sections import pct as _pct
from reports.stats import Estimate, binomial_p, distribution, mean_from_moments, rate, ratio_rate
from reports.summary import Chart, LongTable, Summary

FLAG_LEVEL = 0.01  # flagged when significant at the 99% level
# the clustered rates of each game ending, in the order of the `ends` figures
END_CLUSTERS = ("end_direct", "end_extra_fail", "end_both", "end_moksha", "end_capped")
MATCH_ONLY = ("start player first, extra turn fails", "both at the centre: sides compared")
SKILL_COMMANDS = (
    ("--mirror", "each player's win rate over both seatings of every seed, each player "
     "keeping its own dice (paired interval)", "simcli run samsara --seats {a},{b} --mirror"),
    ("simcli skill", "each non-random policy against random from both seats on the same "
     "seeds", "simcli skill samsara"),
)


def clustered(s: dict, name: str, y: float, x: float) -> Estimate:
    """A rate counted several times per playout: y of x, its interval clustered by
    playout (ratio_rate on the kernel's per-playout sums clusters[name] = yy, xx, xy)."""
    yy, xx, xy = (float(v) for v in s["clusters"][name])
    return ratio_rate(y, x, yy, xx, xy, s["playouts"])


def clustered_p(s: dict, name: str, y: float, x: float, null: float) -> float:
    """Two-sided p-value of a clustered rate against `null` (cluster-robust standard
    error, normal approximation: the games of a match are not independent)."""
    yy, xx, xy = (float(v) for v in s["clusters"][name])
    g = s["playouts"]
    if x <= 0 or g < 2:
        return math.nan
    r = y / x
    var = max(yy - 2 * r * xy + r * r * xx, 0.0) / (g * (g - 1)) / (x / g) ** 2
    if var <= 0:
        return 0.0 if r != null else 1.0
    return math.erfc(abs(r - null) / math.sqrt(var) / math.sqrt(2))


def _ci(e: Estimate) -> str:
    return f"{_pct(e.value)} (95% CI {_pct(e.lo)}-{_pct(e.hi)})"


def _row(name: str, e: Estimate, **extra: Any) -> dict[str, Any]:
    return {"figure": name, "value": e.value, "ci_low": e.lo, "ci_high": e.hi, "n": e.n,
            **extra}


def seat_policy(s: dict, seats: list[str], seat: int) -> str:
    """The policy that played a seat: both, in turn, in a mirrored run with mixed seats."""
    rotated = s["mirror"] and seats[0] != seats[1]
    return f"{seats[0]} / {seats[1]} (rotated)" if rotated else seats[seat]


def seat_table(s: dict, seats: list[str], fair, long: LongTable) -> pl.DataFrame:
    """The shared seat table (fair share, gap, 99% flag) with each seat's role, and a row
    of draws (Moksha, drawn matches)."""
    roles = [f"starts game {k + 1}" if s["match"] else ("start player", "second player")[k]
             for k in range(2)]
    table = SEC.seat_table(fair, [seat_policy(s, seats, k) for k in range(2)], long,
                           {"role": roles})
    d = rate(s["draws"], s["playouts"])
    long.add("seats", "draw_rate", "", d)
    draw = pl.DataFrame([{"seat": 0, "policy": "-", "role": "draw", "wins": s["draws"],
                          "games": s["playouts"], "win_rate": d.value, "ci_low": d.lo,
                          "ci_high": d.hi}])
    return pl.concat([table, draw], how="diagonal_relaxed")


def start_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Start player against second player over every game (both games of a match; their
    intervals clustered by match)."""
    k, k2 = s["start_wins"], s["second_wins"]
    games, decisive = k + k2 + s["game_draws"], k + k2
    if s["match"]:
        start, second = (clustered(s, "start_wins", k, games),
                         clustered(s, "second_wins", k2, games))
        share = clustered(s, "start_decisive", k, decisive)
        p = clustered_p(s, "start_decisive", k, decisive, 0.5)
    else:
        start, second, share = rate(k, games), rate(k2, games), rate(k, decisive)
        p = binomial_p(k, decisive, 0.5)
    flag = "" if not p < FLAG_LEVEL else (
        "start player favoured (99%)" if share.value > 0.5 else "second player favoured (99%)")
    long.add("start_player", "win_rate", "start player", start)
    long.add("start_player", "win_rate", "second player", second)
    long.add("start_player", "share_of_decisive_games", "start player", share, flag)
    rows = [_row("start player wins", start, p_value=None, flag=""),
            _row("second player wins", second, p_value=None, flag=""),
            _row("start player's share of decisive games", share, p_value=p, flag=flag)]
    return pl.DataFrame(rows, schema={"figure": pl.Utf8, "value": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "n": pl.Int64, "p_value": pl.Float64, "flag": pl.Utf8})


def outcome_table(s: dict, long: LongTable) -> pl.DataFrame:
    """How games ended, and the turns where only one die could be played (per turn)."""
    rows = []
    for i, (name, k) in enumerate(s["ends"].items()):
        if s["match"] or name not in MATCH_ONLY:
            e = clustered(s, END_CLUSTERS[i], k, s["games"]) if s["match"] else rate(
                k, s["games"])
            long.add("outcomes", "share_of_games", name, e)
            rows.append({"ending": name, "games": k, "share": e.value, "ci_low": e.lo,
                         "ci_high": e.hi, "n": s["games"]})
    e = clustered(s, "single_die", s["single_die_turns"], s["turns"])
    long.add("outcomes", "share_of_turns", "only one die playable", e)
    rows.append({"ending": "turns where only one die could be played",
                 "games": s["single_die_turns"], "share": e.value, "ci_low": e.lo,
                 "ci_high": e.hi, "n": s["turns"]})
    return pl.DataFrame(rows)


def goal_table(s: dict, seats: list[str], long: LongTable) -> pl.DataFrame:
    """Goals on each scoring track at the end of a game, and who moved them in."""
    rows = []
    for seat in range(2):
        d = distribution(s["goals"][seat])
        long.add("goals", "goals_at_end_mean", f"seat {seat + 1}", d.mean)
        rows.append({"seat": seat + 1, "policy": seat_policy(s, seats, seat),
                     "mean_goals": d.mean.value, "ci_low": d.mean.lo, "ci_high": d.mean.hi,
                     "games": d.n, "goals_in_own_goal": int(s["goal_moves"][seat, seat]),
                     "goals_given_to_opponent": int(s["goal_moves"][seat, 1 - seat])})
    return pl.DataFrame(rows)


def loser_table(s: dict, long: LongTable) -> pl.DataFrame:
    """How far the loser's scoring marble got (goals) in games someone won."""
    hist = s["loser_goals"]
    n = int(hist.sum())
    rows = []
    for g, k in enumerate(hist):
        e = rate(k, n)
        long.add("loser", "share_of_decided_games", f"{g} goals", e)
        rows.append({"loser_goals": g, "fields_from_centre": s["goals_to_win"] - g,
                     "games": int(k), "share": e.value, "ci_low": e.lo, "ci_high": e.hi,
                     "n": n})
    return pl.DataFrame(rows)


def match_table(s: dict, seats: list[str], long: LongTable) -> pl.DataFrame:
    """Competition points per seat over a match (two games), and match results."""
    rows, pts = [], s["points"]
    values = np.arange(pts.shape[1], dtype=float)
    for seat in range(2):
        m = mean_from_moments(float((pts[seat] * values).sum()),
                              float((pts[seat] * values**2).sum()), int(pts[seat].sum()))
        long.add("match", "points_mean", f"seat {seat + 1}", m)
        w = rate(s["wins"][seat], s["playouts"])
        rows.append({"seat": seat + 1, "policy": seat_policy(s, seats, seat),
                     "mean_points": m.value, "ci_low": m.lo, "ci_high": m.hi,
                     "match_wins": int(s["wins"][seat]), "match_win_rate": w.value,
                     "win_ci_low": w.lo, "win_ci_high": w.hi, "matches": s["playouts"]})
    d = rate(s["draws"], s["playouts"])
    long.add("match", "draw_rate", "", d)
    rows.append({"seat": 0, "policy": "-", "match_wins": s["draws"], "match_win_rate": d.value,
                 "win_ci_low": d.lo, "win_ci_high": d.hi, "matches": s["playouts"]})
    return pl.DataFrame(rows, infer_schema_length=None)


def skill_table(s: dict, seats: list[str]) -> pl.DataFrame:
    """Where the skill gap of the two seats' policies is measured (a run plays each seed
    once, so its seat figures mix policy and seat)."""
    a, b = seats
    return pl.DataFrame([{"policy": a, "against": b, "how": how, "measure": measure,
                          "command": command.format(a=a, b=b), "in_this_run":
                          "yes: see Mirrored seats" if how == "--mirror" and s["mirror"]
                          else "no"} for how, measure, command in SKILL_COMMANDS])


def findings(s: dict, seats: list[str], t: dict, fair, content: dict) -> list[str]:
    """Plain-language statements with their intervals."""
    start, st = t["start_player"].row(0, named=True), t["start_player"].row(2, named=True)
    mixed = seats[0] != seats[1] and not s["mirror"] and not s["match"]
    verdict = "significant" if st["flag"] else "not significant"
    out = [f"The start player wins {_pct(start['value'])} (95% CI {_pct(start['ci_low'])}-"
           f"{_pct(start['ci_high'])}) of the {'games of each match' if s['match'] else 'games'}"
           f" and takes {_pct(st['value'])} (95% CI {_pct(st['ci_low'])}-"
           f"{_pct(st['ci_high'])}) of the decisive ones: {verdict} at 99% (p = "
           f"{st['p_value']:.2g})" + (f"; the seats play different policies ({seats[0]} "
                                       f"starts), so this mixes policy and seat" if mixed
                                       else "") + ".",
           *SEC.seat_findings(fair)]
    one = t["outcomes"].row(-1, named=True)
    out.append(f"Moksha (no legal move, a draw) ends {_ci(rate(s['moksha'], s['games']))} "
               f"of games; only one die could be played in {_pct(one['share'])} of turns.")
    ln = t["length"].row(0, named=True)
    out.append(f"A game lasts {ln['mean_turns']:.1f} turns on average (95% CI "
               f"{ln['ci_low']:.1f}-{ln['ci_high']:.1f}, sd {ln['sd']:.1f}, median "
               f"{ln.get('p50', float('nan')):.0f}).")
    lo = t["loser_progress"]
    if lo["n"].sum():
        mean = float((lo["loser_goals"] * lo["games"]).sum() / lo["games"].sum())
        out.append(f"The loser's scoring marble had {mean:.2f} goals on average when the "
                   f"game was decided (of {s['goals_to_win']}).")
    if s["match"]:
        r0, r1, rd = (t["match"].row(i, named=True) for i in range(3))
        out.append(f"Competition rules: seat 1 wins {_pct(r0['match_win_rate'])} of matches "
                   f"and seat 2 {_pct(r1['match_win_rate'])} (draws "
                   f"{_pct(rd['match_win_rate'])}); mean points {r0['mean_points']:.2f} vs "
                   f"{r1['mean_points']:.2f}.")
    if s["mirror"] and seats[0] != seats[1]:
        out.append(f"Mirrored run: every seed was played with {seats[0]} and {seats[1]} in "
                   f"each seat, each keeping its own dice; the seat figures pool both "
                   f"seatings, and the skill gap is each player's paired win rate in the "
                   f"Mirrored seats table.")
    elif seats[0] != seats[1]:
        out.append(f"Skill gap: not measured by this run, which plays each seed once with "
                   f"{seats[0]} in seat 1; for the paired gap run `simcli run samsara --seats "
                   f"{seats[0]},{seats[1]} --mirror` or `simcli skill samsara`.")
    if s["capped"]:
        out.append(f"{s['capped']} games hit the safety cap on turns and count as draws.")
    if content.get("assumed"):
        out.append(f"The board '{content['name']}' is reconstructed (the rulebook's figures "
                   f"are missing); results depend on that reconstruction.")
    return out


def _charts(s: dict, seats: list[str], t: dict, fair, lengths: dict) -> list[Chart]:
    lo = t["loser_progress"]

    def loser(path: Path) -> None:
        v = lo["share"].to_numpy()
        C.bars_with_ci(path, [str(g) for g in lo["loser_goals"]], v,
                       np.minimum(lo["ci_low"].to_numpy(), v),
                       np.maximum(lo["ci_high"].to_numpy(), v),
                       title="How far the loser's scoring marble got",
                       ylabel="share of decided games (%)")

    def points(path: Path) -> None:
        C.histograms(path, {f"seat {k + 1} ({seats[k]})": s["points"][k] for k in range(2)},
                     title="Match points", xlabel="points in a match")

    out = [SEC.seat_chart(fair, f"Seat win rates ({'matches' if s['match'] else 'games'})"),
           SEC.length_chart(lengths, "Game length", "turns")]
    if lo["n"].sum():
        out.append(Chart("loser_progress", "Loser's goals when the game was decided, 95% "
                         "intervals", loser))
    if s["match"]:
        out.append(Chart("match_points", "Match point distribution per seat", points))
    return out


SECTIONS = [
    ("Seats", "seats", "Win rate per seat against its fair share, with draws."),
    ("Start player", "start_player", "Start player against second player over every game "
     "(both games of a match, intervals clustered by match); test of the start player's "
     "share of decisive games against one half, flagged at 99%."),
    ("Outcomes", "outcomes", "How games ended, and how often a roll could be played with one "
     "die only (per turn, interval clustered by playout)."),
    ("Game length", "length", "Turns (one player's move) per game and per match."),
    ("Goals", "goals", "Goals on each scoring track at the end, and goals each seat moved "
     "into its own goal or the opponent's."),
    ("Loser's progress", "loser_progress", "Goals the loser had scored when someone won."),
]


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Samsara run."""
    seats = list(manifest["seats"])
    long = LongTable()
    unit = "matches" if s["match"] else "games"
    fair = seat_fairness(s["wins"], s["playouts"])
    lengths = {"game": s["game_length"], **({"match": s["length"]} if s["match"] else {})}
    t = {"seats": seat_table(s, seats, fair, long), "start_player": start_table(s, long),
         "outcomes": outcome_table(s, long),
         "length": SEC.length_table(lengths, "turns", long),
         "goals": goal_table(s, seats, long), "loser_progress": loser_table(s, long)}
    sections = list(SECTIONS)
    if s["match"]:
        t["match"] = match_table(s, seats, long)
        sections.append(("Match", "match", "Competition points per seat and match results "
                         "(their distribution: chart Match points)."))
    if seats[0] != seats[1]:
        t["skill"] = skill_table(s, seats)
        sections.append(("Skill gap", "skill", "Where the gap between the two policies is "
                         "measured: with --mirror every seed is played once per seating, each "
                         "player keeping its own dice, and the Mirrored seats table gives each "
                         "player's paired win rate."))
    draws = "drawn matches" if s["match"] else "Moksha"
    headline = [{"figure": f"seat {r['seat']} win rate ({r['policy']}, {r['role']})"
                 if r["seat"] else f"draws ({draws})", "value": _pct(r["win_rate"]),
                 "95% interval": f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}",
                 "note": f"{r['games']:,} {unit}" if r["seat"] else ""}
                for r in t["seats"].iter_rows(named=True)]
    sp = t["start_player"].row(2, named=True)
    ln = t["length"].row(0, named=True)
    headline += [{"figure": "start player's share of decisive games", "value": _pct(sp["value"]),
                  "95% interval": f"{_pct(sp['ci_low'])} - {_pct(sp['ci_high'])}",
                  "note": sp["flag"] or "no significant start-player edge (99%)"},
                 {"figure": "game length (turns)", "value": f"{ln['mean_turns']:.1f}",
                  "95% interval": f"{ln['ci_low']:.1f} - {ln['ci_high']:.1f}",
                  "note": f"sd {ln['sd']:.1f}"}]
    json = {k: (t[k].to_dicts() if k in t else None) for k in
            ("seats", "start_player", "outcomes", "length", "goals", "match", "skill")}
    return Summary(title=f"{manifest['game_title']}: balance report ({unit})",
                   headline=pl.DataFrame(headline), tables=t, long=long.frame(),
                   findings=findings(s, seats, t, fair, manifest["content"]),
                   charts=_charts(s, seats, t, fair, lengths), sections=sections, json=json)
