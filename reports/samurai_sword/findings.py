"""Samurai Sword report findings: plain-language statements with their intervals."""

from __future__ import annotations

import polars as pl

from reports import sections as SEC
from reports.samurai_sword.tables import MIN_GAMES, pct
from reports.stats import (
    Estimate,
    distribution,
    rate,
)


def _est(r: dict, n: str = "player_games") -> Estimate:
    return Estimate(r["win_rate"], r["ci_low"], r["ci_high"], int(r[n]))


def _average(s: dict) -> Estimate:
    """The average player's team win rate (every player-game of every character)."""
    ch = s["chars"]
    return rate(int(ch[:, :, 1].sum()), int(ch[:, :, 0].sum()))


def _edge(r: dict, reference: float, n: str = "player_games") -> str:
    """A win rate's edge over a reference rate (estimated on far more games, taken as
    known), in points with its interval."""
    return SEC.pts_text(r["win_rate"] - reference, r["ci_low"] - reference,
                        r["ci_high"] - reference, int(r[n]), n.replace("_", "-"))


def findings(s: dict, seats: list[str], t: dict[str, pl.DataFrame], content: dict) -> list[str]:
    """Plain-language statements a designer can act on, each with its interval."""
    P = s["players"]
    out = [f"Seats play different policies ({', '.join(seats)}; seat 1 is the Shogun): the "
           f"figures measure the policies as much as the game."] if len(set(seats)) > 1 else []
    teams = t["teams"]
    out.append(f"With {P} players (n = {s['games']:,} games) the teams win: " + "; ".join(
        f"{r['team']} {SEC.ci_text(Estimate(r['win_rate'], r['ci_low'], r['ci_high'], 0))}"
        for r in teams.iter_rows(named=True)) + f" (an equal share would be "
        f"{pct(teams['equal_share'][0])} each).")
    flagged = teams.filter(pl.col("flag") != "")
    if flagged.height:
        out.append("Teams whose win rate differs from an equal share at the 99% level: "
                   + ", ".join(flagged["team"].to_list()) + ".")
    ends = t["ends"].filter(pl.col("games") > 0).sort("games", descending=True)
    out.append(f"Games end by (n = {s['games']:,} games): " + "; ".join(
        f"{r['end']} {SEC.ci_text(Estimate(r['share'], r['ci_low'], r['ci_high'], 0))}"
        for r in ends.iter_rows(named=True)) + ".")
    ln = t["lengths"].row(0, named=True)
    rs = distribution(s["reshuffles"]).mean
    mean = Estimate(ln["mean_turns"], ln["ci_low"], ln["ci_high"], ln["games"])
    out.append(f"A game lasts {SEC.mean_text(mean, 1, 'games')} turns on average (sd "
               f"{ln['sd']:.1f}; {P} turns make a round) with {SEC.mean_text(rs)} deck "
               f"reshuffles.")
    ch = t["characters"].filter(pl.col("player_games") >= MIN_GAMES)
    if ch.height >= 2:
        top, low = ch.row(0, named=True), ch.row(ch.height - 1, named=True)
        avg = float(top["average_player"])
        out.append(f"Strongest character: {top['character']} (its team wins "
                   f"{SEC.ci_text(_est(top), 'player-games')}); weakest: {low['character']} "
                   f"({SEC.ci_text(_est(low), 'player-games')}); the average player wins "
                   f"{SEC.ci_text(_average(s), 'player-games')}.")
        fl = ch.filter(pl.col("flag") != "")
        out.append("Characters differing from the average player at the 99% level: " + ", ".join(
            f"{r['character']} ({_edge(r, avg)})" for r in fl.iter_rows(named=True))
            + "." if fl.height else "No character differs from the average player at the "
            "99% level.")
    sr = t["seat_roles"].filter((pl.col("flag") != "") & (pl.col("games") >= MIN_GAMES))
    out.append("Seat effects within a role (99%): " + "; ".join(
        f"{r['role']} in seat {r['seat']} {_edge(r, r['role_average'], 'games')}"
        for r in sr.iter_rows(named=True)) + "." if sr.height else "No seat changes a "
        "role's win rate at the 99% level (seat 1 is always the Shogun).")
    if content.get("assumed"):
        out.append(f"Content '{content['name']}' is marked assumed; results depend on it.")
    return out
