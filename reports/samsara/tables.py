"""Samsara report tables: seats, start player, outcomes, goals,
loser's progress, matches and the skill gap."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from reports import sections as SEC
from reports.stats import Estimate, binomial_p, distribution, mean_from_moments, rate, ratio_rate
from reports.summary import LongTable

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
