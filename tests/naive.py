"""Slow, obviously correct references the kernels are checked against."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

UMA = "uma"


def contenders(rolls: list[list[int]]) -> list[int]:
    """Players still in contention after the rulebook's comparison of dice.

    Highest single die wins; tied players compare their second die; a tie that remains,
    or any tied player having rolled only one die, goes to a tiebreaker among them.
    """
    srt = [sorted(r, reverse=True) for r in rolls]
    best = max(r[0] for r in srt)
    tied = [i for i, r in enumerate(srt) if r[0] == best]
    if len(tied) == 1:
        return tied
    if any(len(srt[i]) == 1 for i in tied):
        return tied
    best2 = max(srt[i][1] for i in tied)
    return [i for i in tied if srt[i][1] == best2]


def outcomes(pool, faces: int = 8, uma_value: int = 7):
    """(sorted dice, Fraction probability) for every distinct roll of a pool."""
    if pool == UMA:
        yield [uma_value, uma_value], Fraction(1)
        return
    total = faces**pool
    for combo in itertools.combinations_with_replacement(range(1, faces + 1), pool):
        ways = math.factorial(pool)
        for v in set(combo):
            ways //= math.factorial(combo.count(v))
        yield list(combo), Fraction(ways, total)


def exact_win_chances(pools, faces: int = 8, uma_value: int = 7) -> list[Fraction]:
    """Each player's exact chance of winning one battle, by enumerating every roll.

    A tiebreaker among k players is symmetric, so each of them wins it with chance 1/k.
    """
    chances = [Fraction(0)] * len(pools)
    for joint in itertools.product(*(list(outcomes(p, faces, uma_value)) for p in pools)):
        prob = Fraction(1)
        for _, p in joint:
            prob *= p
        c = contenders([d for d, _ in joint])
        for i in c:
            chances[i] += prob / len(c)
    return chances


def contenders_tops(tops) -> list[int]:
    """contenders() for pools given by (highest die, second die or 0, dice rolled)."""
    best = max(t[0] for t in tops)
    tied = [i for i, t in enumerate(tops) if t[0] == best]
    if len(tied) == 1 or any(tops[i][2] == 1 for i in tied):
        return tied
    best2 = max(tops[i][1] for i in tied)
    return [i for i in tied if tops[i][1] == best2]


def share_after_reroll(p: int, q: int, tops, td, faces: int = 8) -> float:
    """p's expected share of the round if q rerolls its dice (td: chance of each
    (highest, second) pair of a pool), by enumerating q's new dice."""
    total = 0.0
    k = tops[q][2]
    for a in range(1, faces + 1):
        for b in range(0, a + 1):
            w = td[k, a, b]
            if w:
                new = list(tops)
                new[q] = (a, b, k)
                c = contenders_tops(new)
                if p in c:
                    total += w / len(c)
    return total


def greedy_bushido_target(p: int, tops, td, faces: int, margin: float):
    """Greedy's Bushido choice for p holding only Bushido: the seat (p itself or one in
    contention) whose reroll raises p's share most, by more than `margin`; -1 to keep the
    card; None when two candidates (or a gain and the margin) are too close to call."""
    c = contenders_tops(tops)
    mine = 1.0 / len(c) if p in c else 0.0
    if mine == 1.0:
        return -1
    gains = [(share_after_reroll(p, q, tops, td, faces) - mine, q)
             for q in range(len(tops)) if q == p or q in c]
    values = sorted([g for g, _ in gains] + [margin])
    if any(b - a < 1e-9 for a, b in itertools.pairwise(values)):
        return None
    best = max(gains)
    return best[1] if best[0] > margin else -1
