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
