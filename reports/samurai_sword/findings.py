"""Samurai Sword report findings: plain-language statements with their intervals."""

from __future__ import annotations

import polars as pl

from reports import sections as SEC
from reports.samurai_sword.tables import MIN_GAMES, pct
from reports.stats import (
    Estimate,
    distribution,
)


def findings(s: dict, seats: list[str], t: dict[str, pl.DataFrame], content: dict) -> list[str]:
    """Plain-language statements a designer can act on, each with its interval."""
    P = s["players"]
    out = [f"Seats play different policies ({', '.join(seats)}; seat 1 is the Shogun): the "
           f"figures measure the policies as much as the game."] if len(set(seats)) > 1 else []
    teams = t["teams"]
    out.append(f"With {P} players the teams win: " + "; ".join(
        f"{r['team']} {SEC.ci_text(Estimate(r['win_rate'], r['ci_low'], r['ci_high'], 0))}"
        for r in teams.iter_rows(named=True)) + f" (an equal share would be "
        f"{pct(teams['equal_share'][0])} each).")
    flagged = teams.filter(pl.col("flag") != "")
    if flagged.height:
        out.append("Teams whose win rate differs from an equal share at the 99% level: "
                   + ", ".join(flagged["team"].to_list()) + ".")
    ends = t["ends"].filter(pl.col("games") > 0).sort("games", descending=True)
    out.append("Games end by: " + "; ".join(f"{r['end']} {pct(r['share'])}"
                                            for r in ends.iter_rows(named=True)) + ".")
    ln = t["lengths"].row(0, named=True)
    rs = distribution(s["reshuffles"]).mean
    out.append(f"A game lasts {ln['mean_turns']:.1f} turns on average (95% CI "
               f"{ln['ci_low']:.1f}-{ln['ci_high']:.1f}, sd {ln['sd']:.1f}, about "
               f"{ln['mean_turns'] / P:.1f} rounds) with {rs.value:.2f} deck reshuffles.")
    ch = t["characters"].filter(pl.col("player_games") >= MIN_GAMES)
    if ch.height >= 2:
        top, low = ch.row(0, named=True), ch.row(ch.height - 1, named=True)
        out.append(f"Strongest character: {top['character']} (its team wins "
                   f"{SEC.ci_text(Estimate(top['win_rate'], top['ci_low'], top['ci_high'], 0))}); "
                   f"weakest: {low['character']} ("
                   f"{SEC.ci_text(Estimate(low['win_rate'], low['ci_low'], low['ci_high'], 0))}); "
                   f"the average player wins {pct(top['average_player'])}.")
        fl = ch.filter(pl.col("flag") != "")
        out.append("Characters differing from the average player at the 99% level: " + ", ".join(
            f"{r['character']} ({100 * r['edge']:+.1f} pts)" for r in fl.iter_rows(named=True))
            + "." if fl.height else "No character differs from the average player at the "
            "99% level.")
    sr = t["seat_roles"].filter((pl.col("flag") != "") & (pl.col("games") >= MIN_GAMES))
    out.append("Seat effects within a role (99%): " + "; ".join(
        f"{r['role']} in seat {r['seat']} {100 * r['edge']:+.1f} pts"
        for r in sr.iter_rows(named=True)) + "." if sr.height else "No seat changes a "
        "role's win rate at the 99% level (seat 1 is always the Shogun).")
    if content.get("assumed"):
        out.append(f"Content '{content['name']}' is marked assumed; results depend on it.")
    return out
