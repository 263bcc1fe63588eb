"""Samurai: The Card Game report findings: plain-language statements with their intervals."""

from __future__ import annotations

import numpy as np

from reports import sections as S
from reports.samurai_card_game.tables import MIN_CONTESTS, WHY, clustered
from reports.stats import Estimate, rate


def findings(s: dict, fair, seats: list[str], t: dict, content: dict,
             rules: dict[str, str]) -> list[str]:
    """Plain-language statements a designer can act on, each with its interval."""
    games = s["games"]
    best = t["seats"].sort("win_rate", descending=True).row(0, named=True)
    out = S.seat_findings(fair, "outright win rate") if len(set(seats)) == 1 else [
        f"Seats play different policies ({', '.join(seats)}); seat {best['seat']} "
        f"({best['policy']}) wins outright {S.ci_text(rate(best['wins'], games), 'games')}: "
        f"this measures "
        f"the policies as much as the seats."]
    oc, ends = s["outcome"], s["ends"]
    out.append(f"Games with an outright winner: {S.ci_text(rate(oc['outright'], games), 'games')}"
               f"; shared "
               f"victories (a tie that remains): {S.ci_text(rate(oc['shared'], games))}; no "
               f"winner (nobody dominates any shape, counted apart from shared victories): "
               f"{S.ci_text(rate(oc['no winner'], games))}.")
    said = "; ".join(f"{WHY[name]} in {S.ci_text(rate(k, games))}" for name, k in ends.items()
                     if k or name != "blocked")
    out.append(f"The game ends (after the turn; several can hold at once; n = {games:,} games):"
               f" {said}.")
    ln = t["lengths"].row(0, named=True)
    mean = Estimate(ln["mean_per_game"], ln["ci_low"], ln["ci_high"], games)
    out.append(f"A game lasts {S.mean_text(mean, 1, 'games')} turns on average (sd "
               f"{ln['sd']:.1f}).")
    ks = s["kinds"]
    is_sam = np.array([x == "samurai" for x in ks["symbol"]])
    enough = ks["contests"] >= MIN_CONTESTS
    if (enough & is_sam).any() and (enough & ~is_sam).any():
        sw, yw = (clustered(ks["contests_won"][m].sum(), ks["contests"][m].sum(),
                            s["group_sq"][g, 0], games)
                  for g, m in ((1, is_sam), (0, ~is_sam)))
        out.append(f"Samurai cards: their owner takes {S.ci_text(sw, 'contests')} of the "
                   f"markers of the "
                   f"scorings they count in, against {S.ci_text(yw, 'contests')} for symbol "
                   f"cards (a samurai "
                   f"counts in every symbol of a village, a symbol card in one).")
    if s["misc"]["turns_opening_3"] == 0 and rules.get("chain") == "off":
        out.append("No play opened three cells: without chaining a card can open at most "
                   "two, so see-next and see-all show the player the same villages.")
    if content.get("assumed"):
        out.append(f"The content '{content['name']}' is assumed (player set and village deck "
                   f"make-up reconstructed); card-level findings depend on it. Run with "
                   f"--content to use the real cards.")
    return out
