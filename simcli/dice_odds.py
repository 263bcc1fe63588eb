"""Exact Sixteen Samurai battle odds by enumeration, vectorized with numpy.

Only each pool's two highest dice matter, so a pool is described by `td[code, t1, t2]`, the
chance of each (highest, second highest) pair (t2 = 0 for a single die). For player 0 at
(m, v), every rival falls in one of five categories: out (highest die below m), single
(one die showing m), lower / equal / higher (m with a second die below, equal to, above v);
rivals whose highest die beats m end player 0's chance and are dropped. Player 0's share of
the win follows from the categories alone, so the whole table is one tensor contraction.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from kernels.dice import MAX_DICE, MAX_PLAYERS, NCODES, UMA

N_CAT = 5  # out, single, lower, equal, higher


def top_distribution(faces: int, uma: int) -> np.ndarray:
    """td[code, t1, t2]: chance that a pool shows these two highest dice (enumeration)."""
    v = max(faces, uma)
    td = np.zeros((NCODES, v + 1, v + 1))
    for k in range(1, MAX_DICE + 1):
        rolls = np.array(list(itertools.product(range(1, faces + 1), repeat=k)))
        rolls.sort(axis=1)
        t1 = rolls[:, -1]
        t2 = rolls[:, -2] if k > 1 else np.zeros(len(rolls), np.int64)
        np.add.at(td[k], (t1, t2), 1.0 / len(rolls))
    td[UMA, uma, uma] = 1.0
    return td


def _categories(td: np.ndarray) -> np.ndarray:
    """cat[code, m, v, category]: where a rival of this pool falls against a player at (m, v)."""
    size = td.shape[1]
    cat = np.zeros((NCODES, size, size, N_CAT))
    cat[0, :, :, 0] = 1.0  # no such player: always out
    below = np.concatenate([np.zeros((NCODES, 1)), np.cumsum(td.sum(axis=2), axis=1)[:, :-1]],
                           axis=1)  # chance the highest die is below m
    u = np.arange(size)
    for m in range(1, size):
        for v in range(size):
            sec = td[1:, m, :]  # second-die distribution at highest die m
            cat[1:, m, v, 0] = below[1:, m]
            cat[1:, m, v, 1] = sec[:, 0]
            cat[1:, m, v, 2] = sec[:, (u > 0) & (u < v)].sum(axis=1)
            cat[1:, m, v, 3] = sec[:, (u > 0) & (u == v)].sum(axis=1)
            cat[1:, m, v, 4] = sec[:, (u > 0) & (u > v)].sum(axis=1)
    return cat


def _shares() -> np.ndarray:
    """share[i_single, c1, c2, c3]: player 0's share of the win given rivals' categories."""
    share = np.zeros((2, N_CAT, N_CAT, N_CAT))
    for me_single in (0, 1):
        for cats in itertools.product(range(N_CAT), repeat=3):
            group = sum(c > 0 for c in cats)
            if me_single or 1 in cats:
                share[(me_single, *cats)] = 1.0 / (1 + group)
            elif 4 not in cats:
                share[(me_single, *cats)] = 1.0 / (1 + sum(c == 3 for c in cats))
    return share


@lru_cache(maxsize=8)
def tables(faces: int, uma: int) -> tuple[np.ndarray, np.ndarray]:
    """(td, T): T[c0, c1, c2, c3] is the chance that pool c0 beats pools c1..c3 (0: none)."""
    td = top_distribution(faces, uma)
    cat = _categories(td)
    size = td.shape[1]
    share_v = _shares()[(np.arange(size) == 0).astype(int)]  # indexed by player 0's v
    table = np.einsum("amv,bmvi,cmvj,dmvk,vijk->abcd", td, cat, cat, cat, share_v,
                      optimize=True)
    table[:, 0, 0, 0] = 1.0
    table[0] = 0.0
    return td, table


def win_chances(codes: list[int], faces: int, uma: int) -> list[float]:
    """Each player's exact chance of winning a battle of these pools (2-4 players)."""
    _, table = tables(faces, uma)
    out = []
    for i, c in enumerate(codes):
        rivals = [x for j, x in enumerate(codes) if j != i] + [0] * (MAX_PLAYERS - len(codes))
        out.append(float(table[(c, *rivals)]))
    return out
