"""Samsara report: start player, Moksha, length, goals, match points.

The skill gap (one policy against another with the seats swapped on the same seeds) is
not played here: `--mirror` plays every seed once per seating, each player keeping its own
dice, and the generic mirrored-seat table gives each player's paired win rate; `simcli
skill samsara` measures each policy against random from both seats.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from reports import charts as C
from reports.stats import (
    Estimate,
    binomial_p,
    distribution,
    mean_from_moments,
    rate,
    ratio_rate,
)
from reports.summary import Chart, LongTable, Summary

FLAG_LEVEL = 0.01  # flagged when significant at the 99% level
# the clustered rates of each game ending, in the order of the `ends` figures
END_CLUSTERS = ("end_direct", "end_extra_fail", "end_both", "end_moksha", "end_capped")


def _pct(x: float | None) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


def _ci(e: Estimate) -> str:
    return f"{_pct(e.value)} (95% CI {_pct(e.lo)}-{_pct(e.hi)})"


def clustered(s: dict, name: str, y: float, x: float) -> Estimate:
    """A rate counted several times per playout (turns; the games of a match): y of x,
    with the ratio estimator's interval clustered by playout (reports.stats.ratio_rate
    from the kernel's per-playout sums `clusters[name]` = (yy, xx, xy))."""
    yy, xx, xy = (float(v) for v in s["clusters"][name])
    return ratio_rate(y, x, yy, xx, xy, s["playouts"])


def clustered_p(s: dict, name: str, y: float, x: float, null: float) -> float:
    """Two-sided p-value of a clustered rate against `null`: its cluster-robust standard
    error, normal approximation (the games of a match are not independent)."""
    yy, xx, xy = (float(v) for v in s["clusters"][name])
    g = s["playouts"]
    if x <= 0 or g < 2:
        return math.nan
    r = y / x
    var = max(yy - 2 * r * xy + r * r * xx, 0.0) / (g * (g - 1)) / (x / g) ** 2
    if var <= 0:
        return 0.0 if r != null else 1.0
    return math.erfc(abs(r - null) / math.sqrt(var) / math.sqrt(2))


def _unit(s: dict) -> str:
    return "matches" if s["match"] else "games"


def _rotated(s: dict, seats: list[str]) -> bool:
    """Whether the seats held different policies in turn (a mirrored run, mixed seats)."""
    return s["mirror"] and seats[0] != seats[1]


def seat_policy(s: dict, seats: list[str], seat: int) -> str:
    """The policy that played a seat: both, in turn, in a mirrored run with mixed seats."""
    return f"{seats[0]} / {seats[1]} (rotated)" if _rotated(s, seats) else seats[seat]


def seat_table(s: dict, seats: list[str], long: LongTable) -> pl.DataFrame:
    """Win and draw rate per seat over the playouts (single games or matches)."""
    n = s["playouts"]
    rows = []
    for seat in range(2):
        e = rate(s["wins"][seat], n)
        long.add("seats", "win_rate", f"seat {seat + 1}", e)
        role = (f"starts game {seat + 1}" if s["match"] else
                ("start player" if seat == 0 else "second player"))
        rows.append({"seat": seat + 1, "policy": seat_policy(s, seats, seat), "role": role,
                     "wins": int(s["wins"][seat]), "playouts": n, "win_rate": e.value,
                     "ci_low": e.lo, "ci_high": e.hi})
    d = rate(s["draws"], n)
    long.add("seats", "draw_rate", "", d)
    rows.append({"seat": 0, "policy": "-", "role": "draw", "wins": s["draws"], "playouts": n,
                 "win_rate": d.value, "ci_low": d.lo, "ci_high": d.hi})
    return pl.DataFrame(rows)


def start_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Start player against second player over every game played (both games of a match)."""
    games = s["start_wins"] + s["second_wins"] + s["game_draws"]
    decisive = s["start_wins"] + s["second_wins"]
    if s["match"]:  # two games per playout: intervals clustered by match
        start = clustered(s, "start_wins", s["start_wins"], games)
        second = clustered(s, "second_wins", s["second_wins"], games)
        share = clustered(s, "start_decisive", s["start_wins"], decisive)
        p = clustered_p(s, "start_decisive", s["start_wins"], decisive, 0.5)
    else:
        start = rate(s["start_wins"], games)
        second = rate(s["second_wins"], games)
        share = rate(s["start_wins"], decisive)
        p = binomial_p(s["start_wins"], decisive, 0.5)
    flag = "start player favoured (99%)" if p < FLAG_LEVEL and share.value > 0.5 else (
        "second player favoured (99%)" if p < FLAG_LEVEL else "")
    long.add("start_player", "win_rate", "start player", start)
    long.add("start_player", "win_rate", "second player", second)
    long.add("start_player", "share_of_decisive_games", "start player", share, flag)
    rows = [
        {"figure": "start player wins", "value": start.value, "ci_low": start.lo,
         "ci_high": start.hi, "n": games, "p_value": None, "flag": ""},
        {"figure": "second player wins", "value": second.value, "ci_low": second.lo,
         "ci_high": second.hi, "n": games, "p_value": None, "flag": ""},
        {"figure": "start player's share of decisive games", "value": share.value,
         "ci_low": share.lo, "ci_high": share.hi, "n": decisive, "p_value": p, "flag": flag},
    ]
    return pl.DataFrame(rows, schema={"figure": pl.Utf8, "value": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "n": pl.Int64, "p_value": pl.Float64, "flag": pl.Utf8})


def outcome_table(s: dict, long: LongTable) -> pl.DataFrame:
    """How games ended (Moksha, centre reached, competition branches, safety cap)."""
    games = s["games"]
    rows = []
    for i, (name, k) in enumerate(s["ends"].items()):
        if not s["match"] and name in ("start player first, extra turn fails",
                                       "both at the centre: sides compared"):
            continue
        e = clustered(s, END_CLUSTERS[i], k, games) if s["match"] else rate(k, games)
        long.add("outcomes", "share_of_games", name, e)
        rows.append({"ending": name, "games": k, "share": e.value, "ci_low": e.lo,
                     "ci_high": e.hi, "n": games})
    e = clustered(s, "single_die", s["single_die_turns"], s["turns"])  # per turn
    long.add("outcomes", "share_of_turns", "only one die playable", e)
    rows.append({"ending": "turns where only one die could be played",
                 "games": s["single_die_turns"], "share": e.value, "ci_low": e.lo,
                 "ci_high": e.hi, "n": s["turns"]})
    return pl.DataFrame(rows)


def length_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Length in turns (one player's move): per game, and per match in competition."""
    rows = []
    series = [("game", s["game_length"])]
    if s["match"]:
        series.append(("match", s["length"]))
    for what, hist in series:
        d = distribution(hist)
        long.add("length", "turns_mean", what, d.mean)
        rows.append({"per": what, **d.columns(mean="mean_turns", count="n")})
    return pl.DataFrame(rows)


def goal_table(s: dict, seats: list[str], long: LongTable) -> pl.DataFrame:
    """Goals on each scoring track at the end of a game, and who moved them in."""
    rows = []
    gm = s["goal_moves"]
    for seat in range(2):
        d = distribution(s["goals"][seat])
        long.add("goals", "goals_at_end_mean", f"seat {seat + 1}", d.mean)
        own = int(gm[seat, seat])
        for_opp = int(gm[seat, 1 - seat])
        rows.append({"seat": seat + 1, "policy": seat_policy(s, seats, seat),
                     "mean_goals": d.mean.value,
                     "ci_low": d.mean.lo, "ci_high": d.mean.hi, "games": d.n,
                     "goals_in_own_goal": own, "goals_given_to_opponent": for_opp})
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
    """Competition points per seat over a match (two games)."""
    rows = []
    n = s["playouts"]
    pts = s["points"]
    values = np.arange(pts.shape[1], dtype=float)
    for seat in range(2):
        m = mean_from_moments(float((pts[seat] * values).sum()),
                              float((pts[seat] * values**2).sum()), int(pts[seat].sum()))
        long.add("match", "points_mean", f"seat {seat + 1}", m)
        w = rate(s["wins"][seat], n)
        rows.append({"seat": seat + 1, "policy": seat_policy(s, seats, seat),
                     "mean_points": m.value,
                     "ci_low": m.lo, "ci_high": m.hi, "match_wins": int(s["wins"][seat]),
                     "match_win_rate": w.value, "win_ci_low": w.lo, "win_ci_high": w.hi,
                     "matches": n})
    d = rate(s["draws"], n)
    long.add("match", "draw_rate", "", d)
    rows.append({"seat": 0, "policy": "-", "mean_points": None, "ci_low": None,
                 "ci_high": None, "match_wins": s["draws"], "match_win_rate": d.value,
                 "win_ci_low": d.lo, "win_ci_high": d.hi, "matches": n})
    return pl.DataFrame(rows)


def points_table(s: dict) -> pl.DataFrame:
    """Distribution of match points per seat (share of matches)."""
    pts = s["points"]
    top = int(np.nonzero(pts.sum(axis=0))[0].max(initial=0))
    rows = []
    for v in range(top + 1):
        row: dict[str, Any] = {"points": v}
        for seat in range(2):
            e = rate(pts[seat, v], int(pts[seat].sum()))
            row[f"seat_{seat + 1}_share"] = e.value
            row[f"seat_{seat + 1}_ci_low"] = e.lo
            row[f"seat_{seat + 1}_ci_high"] = e.hi
        rows.append(row)
    return pl.DataFrame(rows)


SKILL_COMMANDS = (
    ("--mirror", "each player's win rate over both seatings of every seed, each player "
     "keeping its own dice (paired interval)", "simcli run samsara --seats {a},{b} --mirror"),
    ("simcli skill", "each non-random policy against random from both seats on the same "
     "seeds", "simcli skill samsara"),
)


def skill_table(s: dict, seats: list[str]) -> pl.DataFrame:
    """Where the skill gap of the two seats' policies is measured (this run plays each seed
    once, so its seat figures mix policy and seat)."""
    a, b = seats
    rows = []
    for how, measure, command in SKILL_COMMANDS:
        here = how == "--mirror" and s["mirror"]
        rows.append({"policy": a, "against": b, "how": how, "measure": measure,
                     "command": command.format(a=a, b=b),
                     "in_this_run": "yes: see Mirrored seats" if here else "no"})
    return pl.DataFrame(rows)


def pairing_table(s: dict, seats: list[str]) -> pl.DataFrame:
    """Seat results of the pairing played (both seatings pooled in a mirrored run)."""
    if _rotated(s, seats):
        label = f"{seats[0]} and {seats[1]} in each seat (mirrored)"
    else:
        label = f"{seats[0]} (start) vs {seats[1]}"
    row: dict[str, Any] = {"pairing": label, "n": s["playouts"]}
    for name, k in (("seat_1", s["wins"][0]), ("seat_2", s["wins"][1]), ("draw", s["draws"])):
        e = rate(k, s["playouts"])
        row[f"{name}_rate"] = e.value
        row[f"{name}_ci_low"] = e.lo
        row[f"{name}_ci_high"] = e.hi
    return pl.DataFrame([row])


def findings(s: dict, seats: list[str], t: dict[str, pl.DataFrame], content: dict) -> list[str]:
    """Plain-language statements with their intervals."""
    out = []
    st = t["start_player"].row(2, named=True)
    start = t["start_player"].row(0, named=True)
    mixed = seats[0] != seats[1] and not s["mirror"]
    games_word = "games of each match" if s["match"] else "games"
    verdict = (f"significant at 99% (p = {st['p_value']:.2g})" if st["flag"] else
               f"not significant at 99% (p = {st['p_value']:.2g})")
    out.append(
        f"The start player wins {_pct(start['value'])} (95% CI {_pct(start['ci_low'])}-"
        f"{_pct(start['ci_high'])}) of the {games_word} and takes {_pct(st['value'])} "
        f"(95% CI {_pct(st['ci_low'])}-{_pct(st['ci_high'])}) of the decisive ones: "
        f"{verdict}" + (f"; the seats play different policies ({seats[0]} starts), so this "
                        f"mixes policy and seat" if mixed and not s["match"] else "") + ".")
    mk = rate(s["moksha"], s["games"])
    out.append(f"Moksha (no legal move, a draw) ends {_ci(mk)} of games; only one die could "
               f"be played in {_pct(s['single_die_turns'] / s['turns'] if s['turns'] else None)}"
               f" of turns.")
    ln = t["length"].row(0, named=True)
    out.append(f"A game lasts {ln['mean_turns']:.1f} turns on average (95% CI "
               f"{ln['ci_low']:.1f}-{ln['ci_high']:.1f}, sd {ln['sd']:.1f}, median "
               f"{ln.get('p50', float('nan')):.0f}).")
    lo = t["loser_progress"]
    if lo["n"].sum():
        mean_loser = float((lo["loser_goals"] * lo["games"]).sum() / lo["games"].sum())
        out.append(f"The loser's scoring marble had {mean_loser:.2f} goals on average when "
                   f"the game was decided (of {s['goals_to_win']}).")
    if s["match"]:
        mt = t["match"]
        r0, r1 = mt.row(0, named=True), mt.row(1, named=True)
        out.append(f"Competition rules: seat 1 wins {_pct(r0['match_win_rate'])} of matches "
                   f"and seat 2 {_pct(r1['match_win_rate'])} (draws "
                   f"{_pct(mt.row(2, named=True)['match_win_rate'])}); mean points "
                   f"{r0['mean_points']:.2f} vs {r1['mean_points']:.2f}.")
    if _rotated(s, seats):
        out.append(f"Mirrored run: every seed was played with {seats[0]} and {seats[1]} in "
                   f"each seat, each keeping its own dice; the seat figures above pool both "
                   f"seatings, and the skill gap is each player's paired win rate in the "
                   f"Mirrored seats table.")
    elif seats[0] != seats[1]:
        out.append(f"Skill gap: not measured by this run, which plays each seed once with "
                   f"{seats[0]} in seat 1; for the paired gap run `simcli run samsara --seats "
                   f"{seats[0]},{seats[1]} --mirror` (each player's win rate over both "
                   f"seatings of every seed) or `simcli skill samsara` (each policy against "
                   f"random from both seats).")
    if s["capped"]:
        out.append(f"{s['capped']} games hit the safety cap on turns and count as draws.")
    if content.get("assumed"):
        out.append(f"The board '{content['name']}' is reconstructed (the rulebook's figures "
                   f"are missing); results depend on that reconstruction.")
    return out


def _charts(s: dict, seats: list[str], t: dict[str, pl.DataFrame]) -> list[Chart]:
    pr = t["pairings"]
    lo = t["loser_progress"]

    def seat_rates(path: Path) -> None:
        groups = {}
        for name, label in (("seat_1", "seat 1 (start) wins"), ("seat_2", "seat 2 wins"),
                            ("draw", "draws")):
            if s["match"]:
                label = label.replace(" (start)", "")
            groups[label] = (pr[f"{name}_rate"], pr[f"{name}_ci_low"], pr[f"{name}_ci_high"])
        C.grouped_bars_with_ci(path, pr["pairing"].to_list(), groups,
                               title=f"Seat results per policy pairing ({_unit(s)})",
                               ylabel="share (%)")

    def lengths(path: Path) -> None:
        series = {"per game": s["game_length"]}
        if s["match"]:
            series["per match"] = s["length"]
        C.histograms(path, series, title="Game length", xlabel="turns")

    def loser(path: Path) -> None:
        v = lo["share"].to_numpy()
        C.bars_with_ci(path, [str(g) for g in lo["loser_goals"]], v,
                       np.minimum(lo["ci_low"].to_numpy(), v),
                       np.maximum(lo["ci_high"].to_numpy(), v),
                       title="How far the loser's scoring marble got",
                       ylabel="share of decided games (%)")

    def points(path: Path) -> None:
        C.histograms(path, {f"seat {seat + 1} ({seats[seat]})": s["points"][seat]
                            for seat in range(2)},
                     title="Match points", xlabel="points in a match")

    out = [
        Chart("seat_win_rates", "Seat win and draw rates per policy pairing, 95% intervals",
              seat_rates),
        Chart("length", "Game length distribution (turns)", lengths),
    ]
    if lo["n"].sum():
        out.append(Chart("loser_progress", "Loser's goals when the game was decided, 95% "
                         "intervals", loser))
    if s["match"]:
        out.append(Chart("match_points", "Match point distribution per seat", points))
    return out


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Samsara run."""
    seats = list(manifest["seats"])
    long = LongTable()
    tables = {
        "seats": seat_table(s, seats, long),
        "start_player": start_table(s, long),
        "outcomes": outcome_table(s, long),
        "length": length_table(s, long),
        "goals": goal_table(s, seats, long),
        "loser_progress": loser_table(s, long),
        "pairings": pairing_table(s, seats),
    }
    if s["match"]:
        tables["match"] = match_table(s, seats, long)
        tables["match_points"] = points_table(s)
    if seats[0] != seats[1]:
        tables["skill"] = skill_table(s, seats)
    st = tables["seats"]
    headline = [
        {"figure": f"seat {r['seat']} win rate ({r['policy']}, {r['role']})",
         "value": _pct(r["win_rate"]), "95% interval": f"{_pct(r['ci_low'])} - "
         f"{_pct(r['ci_high'])}", "note": f"{r['playouts']:,} {_unit(s)}"}
        for r in st.iter_rows(named=True) if r["seat"]
    ]
    d = st.row(2, named=True)
    headline.append({"figure": f"draws ({'drawn matches' if s['match'] else 'Moksha'})",
                     "value": _pct(d["win_rate"]),
                     "95% interval": f"{_pct(d['ci_low'])} - {_pct(d['ci_high'])}",
                     "note": ""})
    sp = tables["start_player"].row(2, named=True)
    headline.append({"figure": "start player's share of decisive games",
                     "value": _pct(sp["value"]),
                     "95% interval": f"{_pct(sp['ci_low'])} - {_pct(sp['ci_high'])}",
                     "note": sp["flag"] or "no significant start-player edge (99%)"})
    ln = tables["length"].row(0, named=True)
    headline.append({"figure": "game length (turns)", "value": f"{ln['mean_turns']:.1f}",
                     "95% interval": f"{ln['ci_low']:.1f} - {ln['ci_high']:.1f}",
                     "note": f"sd {ln['sd']:.1f}"})
    if "skill" in tables:
        headline.append({"figure": f"skill gap: {seats[0]} vs {seats[1]}",
                         "value": "paired" if s["mirror"] else "not played",
                         "95% interval": "see Mirrored seats" if s["mirror"] else "-",
                         "note": "each player's paired win rate" if s["mirror"] else
                         "run with --mirror, or simcli skill samsara"})
    json = {
        "seats": st.to_dicts(), "start_player": tables["start_player"].to_dicts(),
        "outcomes": tables["outcomes"].to_dicts(), "length": tables["length"].to_dicts(),
        "goals": tables["goals"].to_dicts(), "pairings": tables["pairings"].to_dicts(),
        "match": tables["match"].to_dicts() if "match" in tables else None,
        "skill": tables["skill"].to_dicts() if "skill" in tables else None,
    }
    sections = [
        ("Seats", "seats", f"Win rate per seat over the {_unit(s)} played, with draws."),
        ("Start player", "start_player", "Start player against second player over every "
         "game (both games of a match); exact two-sided binomial test of the start player's "
         "share of decisive games against one half, flagged at 99%."),
        ("Outcomes", "outcomes", "How games ended, and how often a roll could be played with "
         "one die only."),
        ("Game length", "length", "Turns (one player's move) per game and per match: mean "
         "with 95% interval, sd and quantiles."),
        ("Goals", "goals", "Goals on each scoring track at the end, and goals each seat moved "
         "into its own goal or (with opponent-goal=scores-for-owner) the opponent's."),
        ("Loser's progress", "loser_progress", "Goals the loser had scored when someone won."),
        ("Policy pairings", "pairings", "Seat results of the pairing played (in a mirrored "
         "run both seatings of every seed, pooled by seat)."),
    ]
    if s["match"]:
        sections += [
            ("Match", "match", "Competition points per seat and match results."),
            ("Match points", "match_points", "Distribution of a seat's points in a match."),
        ]
    if "skill" in tables:
        sections.append(("Skill gap", "skill", "Where the gap between the two policies is "
                         "measured: a run plays each seed once, so its seat figures mix policy "
                         "and seat. With --mirror every seed is played once per seating, each "
                         "player keeping its own dice and choices, and the Mirrored seats "
                         "table gives each player's paired win rate with its interval "
                         "(matches in competition: players change seats for the whole match)."))
    unit = "matches" if s["match"] else "games"
    return Summary(
        title=f"{manifest['game_title']}: balance report ({unit})",
        headline=pl.DataFrame(headline),
        tables=tables,
        long=long.frame(),
        findings=findings(s, seats, tables, manifest["content"]),
        charts=_charts(s, seats, tables),
        sections=sections,
        json=json,
    )
