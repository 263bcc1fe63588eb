"""Samsara report findings: plain-language statements with their intervals."""

from __future__ import annotations

from reports import sections as SEC
from reports.sections import pct as _pct
from reports.stats import rate


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
    out.append(f"Moksha (no legal move, a draw) ends {SEC.ci_text(rate(s['moksha'], s['games']))} "
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
