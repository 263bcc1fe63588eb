"""Does a verdict hold for stronger play? The search player is played on every seat at a
budget B and at 4B on the same deals; each seat's win rate at 4B minus at B, paired by
deal, with its 95% interval. The verdict holds at 4x the budget when no seat's rate moves
beyond its interval; otherwise it still moves with skill, and by how much is stated.

The number of deals is fixed (the same seed gives the same figures on any machine), set
so that a 5-point change in a seat's rate would be seen (paired interval half-width about
5 points or less); the text says the smallest change the run could show."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from reports.sections import pts_text
from reports.stats import paired_difference_of, paired_difference_p
from simcli import engine
from simcli.games.base import Game
from simcli.value import won_matrix

DEALS = 600  # paired deals: a seat's change of 5 points has a half-width near 4-5 points
FACTOR = 4


def stronger(policy: str) -> str | None:
    """The same search player at FACTOR times its budget ('mcts:400' -> 'mcts:1600'); None
    for a policy without a budget."""
    name, _, budget = policy.partition(":")
    first = budget.split(":")[0]
    if not first.isdigit():
        return None
    rest = budget[len(first):]
    return f"{name}:{FACTOR * int(first)}{rest}"


def seat_outcomes(game: Game, content: Any, players: int, policy: str, rules: dict,
                  seed: int, n: int, threads: int,
                  progress: engine.Progress | None) -> np.ndarray:
    """won[g, s] in [0, 1]: seat s's share of deal g's win (in a team game: 1 when its team
    won), every seat playing `policy`."""
    prep = game.prepare(content, players, (policy,) * players, rules)
    won = won_matrix(game, prep, seed, n, threads, None, progress)
    return (won > 0).astype(float) if game.team_game else won


def convergence(game: Game, players: int, policy: str, seed: int, threads: int,
                progress: engine.Progress | None, n: int = DEALS,
                rules: dict | None = None, content: Any = None) -> dict[str, Any]:
    """Seat rates at `policy` and at FACTOR times its budget on the same n deals; the
    paired change per seat; whether the verdict holds; the sentence saying so."""
    strong = stronger(policy)
    if strong is None:
        return {"checked": False, "text": f"{policy} has no search budget to raise: "
                                          f"convergence with skill is not checked."}
    content = content if content is not None else game.load_content(game.content_path(None))
    rules = rules if rules is not None else game.resolve_rules([])
    base = seat_outcomes(game, content, players, policy, rules, seed, n, threads, progress)
    more = seat_outcomes(game, content, players, strong, rules, seed, n, threads, progress)
    seats = []
    for s in range(players):
        e = paired_difference_of(more[:, s], base[:, s])
        seats.append({"seat": s + 1, "rate": float(base[:, s].mean()),
                      "rate_stronger": float(more[:, s].mean()), "change": e.value,
                      "ci_low": e.lo, "ci_high": e.hi,
                      "p_value": paired_difference_p(more[:, s], base[:, s])})
    moved = [r for r in seats if r["ci_low"] > 0 or r["ci_high"] < 0]
    half = max((r["ci_high"] - r["ci_low"]) / 2 for r in seats)
    what = "team" if game.team_game else "seat"
    can = (f" (n = {n:,} deals, paired; the smallest change this can show is about "
           f"{100 * half:.0f} points)")
    if moved:
        text = (f"The verdict still moves with skill: from {policy} to {strong} on every "
                f"seat{can}, " + "; ".join(
                    f"seat {r['seat']}: {pts_text(r['change'], r['ci_low'], r['ci_high'])}"
                    for r in moved) + ".")
    else:
        big = max(seats, key=lambda r: abs(r["change"]))
        text = (f"The verdict holds at {FACTOR}x the search budget: from {policy} to {strong} "
                f"on every seat{can}, no {what} rate moves beyond its paired 95% interval "
                f"(largest: seat {big['seat']}, "
                f"{pts_text(big['change'], big['ci_low'], big['ci_high'])}).")
    return {"checked": True, "policy": policy, "stronger": strong, "deals": n,
            "holds": not moved, "smallest_change_shown": half, "seats": seats,
            "text": text}


def not_checked(game: Game, policy: str, seconds_per_game: float, threads: int) -> str:
    """The sentence a study prints when it did not check convergence: the command that
    would, and about how long it takes at the speed the study measured."""
    strong = stronger(policy)
    if strong is None or not math.isfinite(seconds_per_game):
        return ""
    minutes = seconds_per_game * DEALS * (1 + FACTOR) / max(threads, 1) / 60
    return (f"Whether the verdict holds for stronger play is not checked here: `simcli "
            f"study --games {game.name} --converge` plays {policy} and {strong} on the same "
            f"{DEALS:,} deals (about {max(1, round(minutes))} min here) and says whether any "
            f"seat's rate moves.")
