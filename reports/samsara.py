"""Samsara report: start player, Moksha, length, goals, match points, skill gap."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from reports import charts as C
from reports.stats import Estimate, binomial_p, distribution, mean_from_moments, rate
from reports.summary import Chart, LongTable, Summary

FLAG_LEVEL = 0.01  # flagged when significant at the 99% level


def _pct(x: float | None) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


def _ci(e: Estimate) -> str:
    return f"{_pct(e.value)} (95% CI {_pct(e.lo)}-{_pct(e.hi)})"


def _unit(s: dict) -> str:
    return "matches" if s["match"] else "games"


def seat_table(s: dict, seats: list[str], long: LongTable) -> pl.DataFrame:
    """Win and draw rate per seat over the playouts (single games or matches)."""
    n = s["playouts"]
    rows = []
    for seat in range(2):
        e = rate(s["wins"][seat], n)
        long.add("seats", "win_rate", f"seat {seat + 1}", e)
        role = (f"starts game {seat + 1}" if s["match"] else
                ("start player" if seat == 0 else "second player"))
        rows.append({"seat": seat + 1, "policy": seats[seat], "role": role,
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
    for name, k in s["ends"].items():
        if not s["match"] and name in ("start player first, extra turn fails",
                                       "both at the centre: sides compared"):
            continue
        e = rate(k, games)
        long.add("outcomes", "share_of_games", name, e)
        rows.append({"ending": name, "games": k, "share": e.value, "ci_low": e.lo,
                     "ci_high": e.hi, "n": games})
    e = rate(s["single_die_turns"], s["turns"])
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
        rows.append({"per": what, "mean_turns": d.mean.value, "ci_low": d.mean.lo,
                     "ci_high": d.mean.hi, "sd": d.sd, **d.quantiles, "min": d.min,
                     "max": d.max, "n": d.n})
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
        rows.append({"seat": seat + 1, "policy": seats[seat], "mean_goals": d.mean.value,
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
        rows.append({"seat": seat + 1, "policy": seats[seat], "mean_points": m.value,
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


def skill_table(s: dict, seats: list[str], long: LongTable) -> pl.DataFrame:
    """Policy against policy with the seats swapped on the same seeds (single games), or
    over whole matches (competition, where the start already alternates)."""
    a, b = seats
    rows = []
    if s["match"]:
        n = s["playouts"]
        w = rate(s["wins"][0], n)
        long.add("skill", "match_win_rate", f"{a} vs {b}", w)
        rows.append({"policy": a, "against": b, "measure": "match win rate", "value": w.value,
                     "ci_low": w.lo, "ci_high": w.hi, "n": n})
        return pl.DataFrame(rows)
    pairs = s["pair_half_points"]
    n = int(pairs.sum())
    hp = np.arange(5, dtype=float)
    paired = mean_from_moments(float((pairs * hp).sum()) / 4,
                               float((pairs * hp**2).sum()) / 16, n)
    # the pair-based normal interval collapses when every pair ends alike: widen it to a
    # Wilson interval over the 2n games (half-points rounded) whenever that is wider
    games = rate(round(float((pairs * hp).sum()) / 2), 2 * n)
    score = Estimate(paired.value, min(paired.lo, games.lo), max(paired.hi, games.hi), n)
    long.add("skill", "paired_score", f"{a} vs {b}", score)
    rows.append({"policy": a, "against": b,
                 "measure": "score per game over both seatings (win 1, draw 1/2)",
                 "value": score.value, "ci_low": score.lo, "ci_high": score.hi, "n": n})
    as_seated = rate(s["wins"][0], s["playouts"])
    swapped = rate(s["swap_wins"][1], s["swap_games"])
    long.add("skill", "win_rate_as_start_player", a, as_seated)
    long.add("skill", "win_rate_as_second_player", a, swapped)
    rows.append({"policy": a, "against": b, "measure": "win rate as start player",
                 "value": as_seated.value, "ci_low": as_seated.lo, "ci_high": as_seated.hi,
                 "n": s["playouts"]})
    rows.append({"policy": a, "against": b, "measure": "win rate as second player (swapped)",
                 "value": swapped.value, "ci_low": swapped.lo, "ci_high": swapped.hi,
                 "n": s["swap_games"]})
    return pl.DataFrame(rows)


def pairing_table(s: dict, seats: list[str]) -> pl.DataFrame:
    """Seat results for each policy pairing played: as seated, and swapped when it was."""
    rows = []
    pairings = [(f"{seats[0]} (start) vs {seats[1]}", s["wins"], s["draws"], s["playouts"])]
    if not s["match"] and s["swap_games"]:
        pairings.append((f"{seats[1]} (start) vs {seats[0]}", s["swap_wins"], s["swap_draws"],
                         s["swap_games"]))
    for label, wins, draws, n in pairings:
        row: dict[str, Any] = {"pairing": label, "n": n}
        for name, k in (("seat_1", wins[0]), ("seat_2", wins[1]), ("draw", draws)):
            e = rate(k, n)
            row[f"{name}_rate"] = e.value
            row[f"{name}_ci_low"] = e.lo
            row[f"{name}_ci_high"] = e.hi
        rows.append(row)
    return pl.DataFrame(rows)


def findings(s: dict, seats: list[str], t: dict[str, pl.DataFrame], content: dict) -> list[str]:
    """Plain-language statements with their intervals."""
    out = []
    st = t["start_player"].row(2, named=True)
    start = t["start_player"].row(0, named=True)
    mixed = seats[0] != seats[1]
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
    if mixed:
        sk = t["skill"].row(0, named=True)
        out.append(f"Skill gap: {seats[0]} against {seats[1]} scores {_pct(sk['value'])} "
                   f"(95% CI {_pct(sk['ci_low'])}-{_pct(sk['ci_high'])}) as {sk['measure']}.")
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
        tables["skill"] = skill_table(s, seats, long)
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
        sk = tables["skill"].row(0, named=True)
        headline.append({"figure": f"skill gap: {seats[0]} vs {seats[1]}",
                         "value": _pct(sk["value"]),
                         "95% interval": f"{_pct(sk['ci_low'])} - {_pct(sk['ci_high'])}",
                         "note": sk["measure"]})
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
        ("Policy pairings", "pairings", "Seat results for each pairing played (seats swapped "
         "on the same seeds when the two seats play different single-game policies)."),
    ]
    if s["match"]:
        sections += [
            ("Match", "match", "Competition points per seat and match results."),
            ("Match points", "match_points", "Distribution of a seat's points in a match."),
        ]
    if "skill" in tables:
        sections.append(("Skill gap", "skill", "The first seat's policy against the second's: "
                         "in single games its score over both seatings of each seed (the "
                         "interval treats the pair of games as one observation); in "
                         "competition its match win rate. Its interval is the wider of a "
                         "normal interval over the pairs and a Wilson interval over the games."))
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
