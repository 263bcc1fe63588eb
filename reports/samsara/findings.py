"""Samsara report findings: plain-language statements with their intervals."""

from __future__ import annotations

from reports import sections as SEC
from reports.stats import Estimate, mean_from_moments, rate


def _est(row: dict) -> Estimate:
    return Estimate(row["share" if "share" in row else "value"], row["ci_low"],
                    row["ci_high"], int(row.get("n") or 0))


def _match(row: dict) -> Estimate:
    return Estimate(row["match_win_rate"], row["win_ci_low"], row["win_ci_high"],
                    int(row["matches"]))


def findings(s: dict, seats: list[str], t: dict, fair, content: dict) -> list[str]:
    """Plain-language statements with their intervals."""
    start, st = t["start_player"].row(0, named=True), t["start_player"].row(2, named=True)
    mixed = seats[0] != seats[1] and not s["mirror"] and not s["match"]
    verdict = "significant" if st["flag"] else "not significant"
    of = "matches" if s["match"] else "games"
    out = [f"The start player wins {SEC.ci_text(_est(start), of)} of the "
           f"{'games of each match' if s['match'] else 'games'} and takes "
           f"{SEC.ci_text(_est(st))} of the decisive ones: {verdict} at 99% (p "
           f"{SEC.p_words(st['p_value'])})" + (
               f"; the seats play different policies ({seats[0]} starts), so this mixes "
               f"policy and seat" if mixed else "") + ".",
           *SEC.seat_findings(fair)]
    one = t["outcomes"].row(-1, named=True)
    out.append(f"Moksha (no legal move, a draw) ends "
               f"{SEC.ci_text(rate(s['moksha'], s['games']), 'games')} of games; only one die "
               f"could be played in {SEC.ci_text(_est(one), 'turns')} of turns.")
    ln = t["length"].row(0, named=True)
    mean = Estimate(ln["mean_turns"], ln["ci_low"], ln["ci_high"], ln["games"])
    out.append(f"A game lasts {SEC.mean_text(mean, 1, 'games')} turns on average (sd "
               f"{ln['sd']:.1f}, median {ln.get('p50', float('nan')):.0f}).")
    lo = t["loser_progress"]
    if lo["n"].sum():
        g, k = lo["loser_goals"].to_numpy().astype(float), lo["games"].to_numpy().astype(float)
        goals = mean_from_moments(float((g * k).sum()), float((g * g * k).sum()), int(k.sum()))
        out.append(f"The loser's scoring marble had {SEC.mean_text(goals, 2, 'games')} goals "
                   f"on average when the game was decided (of {s['goals_to_win']}).")
    if s["match"]:
        r0, r1, rd = (t["match"].row(i, named=True) for i in range(3))
        p0, p1 = (Estimate(r["mean_points"], r["ci_low"], r["ci_high"], r["matches"])
                  for r in (r0, r1))
        out.append(f"Competition rules: seat 1 wins {SEC.ci_text(_match(r0), 'matches')} of "
                   f"matches and seat 2 {SEC.ci_text(_match(r1))} (draws "
                   f"{SEC.ci_text(_match(rd))}); mean points {SEC.mean_text(p0)} vs "
                   f"{SEC.mean_text(p1)}.")
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
