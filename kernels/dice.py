"""Sixteen Samurai dice resolution, shared by the game kernel and `simcli odds`.

A pool is a code: 1-4 means that many dice, UMA means "rolled" two dice showing the Uma
value. Only each player's two highest dice matter, so a roll is kept as (top1, top2, ndice),
top2 = 0 when a single die was rolled.
"""

import numpy as np
from numba import njit

from kernels.config import JIT
from kernels.rng import die, new_state, roll_top2, seed_stream

MAX_DICE = 4
UMA = 5
NCODES = 6
MAX_PLAYERS = 4


@njit(**JIT)
def top_group(t1, t2, nd, part, n):
    """Bitmask of the players still in contention after comparing the first and second die.

    One bit set: that player wins outright. Several: they go to the tiebreaker roll.
    A tie on the highest die involving a one-die roll goes to the tiebreaker at once.
    """
    kmax = 0
    for p in range(n):
        kmax = max(kmax, (t1[p] * 256 + t2[p]) * part[p])
    best = kmax >> 8
    first = 0
    second = 0
    single = 0
    for p in range(n):
        hit = (t1[p] == best) & part[p]
        first |= hit << p
        single |= hit & (nd[p] == 1)
        second |= (((t1[p] * 256 + t2[p]) == kmax) & part[p]) << p
    return first if single else second


@njit(**JIT)
def popcount(mask):
    """Number of set bits."""
    c = 0
    while mask:
        mask &= mask - 1
        c += 1
    return c


@njit(**JIT)
def lowest_bit(mask):
    """Index of the lowest set bit (mask > 0)."""
    i = 0
    while not (mask >> i) & 1:
        i += 1
    return i


@njit(**JIT)
def tiebreak(state, mask, n, faces):
    """Tied players roll one die each, highest wins, repeated among those still tied."""
    while popcount(mask) > 1:
        hi = 0
        new = 0
        for p in range(n):
            if (mask >> p) & 1:
                r = die(state, faces)
                if r > hi:
                    hi = r
                    new = 1 << p
                elif r == hi:
                    new |= 1 << p
        mask = new
    return lowest_bit(mask)


@njit(**JIT)
def resolve(state, t1, t2, nd, part, n, faces):
    """Winner of a battle from the rolled tops; returns (winner, 1 if a tiebreaker was rolled)."""
    mask = top_group(t1, t2, nd, part, n)
    if mask & (mask - 1) == 0:
        return lowest_bit(mask), 0
    return tiebreak(state, mask, n, faces), 1


@njit(**JIT)
def shares(t1, t2, nd, part, n, out):
    """Each player's chance of winning from the current tops (1, 1/|tied group| or 0)."""
    mask = top_group(t1, t2, nd, part, n)
    c = popcount(mask)
    for p in range(n):
        out[p] = 1.0 / c if (mask >> p) & 1 else 0.0


@njit(**JIT)
def roll_code(state, code, faces, uma):
    """Roll a pool code; return (top1, top2, ndice)."""
    if code == UMA:
        return uma, uma, 2
    a, b = roll_top2(state, code, faces)
    return a, b, code


@njit(**JIT)
def odds_chunk(seed, first, count, codes, faces, uma, wins, tiebreaks):
    """Monte Carlo battles of the given pools; adds wins per pool and tiebreaker count."""
    n = codes.shape[0]
    state = new_state(faces)
    t1 = np.zeros(n, np.int64)
    t2 = np.zeros(n, np.int64)
    nd = np.zeros(n, np.int64)
    part = np.ones(n, np.bool_)
    for p in range(n):
        t1[p], t2[p], nd[p] = roll_code(state, codes[p], faces, uma)
    for g in range(count):
        seed_stream(state, seed, first + g)
        for p in range(n):
            if codes[p] != UMA:
                t1[p], t2[p] = roll_top2(state, codes[p], faces)
        mask = top_group(t1, t2, nd, part, n)
        if mask & (mask - 1):
            tiebreaks[0] += 1
            wins[tiebreak(state, mask, n, faces)] += 1
        else:
            wins[lowest_bit(mask)] += 1


@njit(**JIT)
def top_distribution(faces, uma):
    """td[code, t1, t2]: chance that a pool shows these two highest dice (by enumeration)."""
    v = max(faces, uma)
    td = np.zeros((NCODES, v + 1, v + 1))
    dice = np.zeros(MAX_DICE, np.int64)
    for k in range(1, MAX_DICE + 1):
        total = faces**k
        w = 1.0 / total
        for idx in range(total):
            x = idx
            for j in range(k):
                dice[j] = x % faces + 1
                x //= faces
            a = 0
            b = 0
            for j in range(k):
                d = dice[j]
                if d > a:
                    b = a
                    a = d
                elif d > b:
                    b = d
            td[k, a, b] += w
    td[UMA, uma, uma] = 1.0
    return td


@njit(**JIT)
def win_probability(i, codes, n, td):
    """Exact chance that player i wins a battle of the pools `codes` (tiebreaker included)."""
    v_max = td.shape[1] - 1
    ci = codes[i]
    total = 0.0
    below = np.zeros(n)
    dp = np.zeros((n, 2, n, 2))
    new = np.zeros((n, 2, n, 2))
    for m in range(1, v_max + 1):
        for j in range(n):
            s = 0.0
            for a in range(1, m):
                for b in range(0, a + 1):
                    s += td[codes[j], a, b]
            below[j] = s
        for v in range(0, m + 1):
            p_i = td[ci, m, v]
            if p_i == 0.0:
                continue
            dp[:] = 0.0
            dp[0, 0, 0, 0] = 1.0
            for j in range(n):
                if j == i:
                    continue
                cj = codes[j]
                new[:] = 0.0
                for g in range(n - 1):
                    for hs in range(2):
                        for c in range(n - 1):
                            for h in range(2):
                                w = dp[g, hs, c, h]
                                if w == 0.0:
                                    continue
                                new[g, hs, c, h] += w * below[j]
                                new[g + 1, 1, c, h] += w * td[cj, m, 0]
                                for u in range(1, m + 1):
                                    pu = td[cj, m, u]
                                    if pu == 0.0:
                                        continue
                                    if u == v:
                                        new[g + 1, hs, c + 1, h] += w * pu
                                    elif u > v:
                                        new[g + 1, hs, c, 1] += w * pu
                                    else:
                                        new[g + 1, hs, c, h] += w * pu
                dp[:] = new
            share = 0.0
            for g in range(n):
                for hs in range(2):
                    for c in range(n):
                        for h in range(2):
                            w = dp[g, hs, c, h]
                            if w == 0.0:
                                continue
                            if v == 0 or hs == 1:
                                share += w / (1 + g)
                            elif h == 0:
                                share += w / (1 + c)
            total += p_i * share
    return total


@njit(**JIT)
def win_table(td):
    """T[c0, c1, c2, c3]: chance that pool c0 beats pools c1..c3 (0 = no such player)."""
    table = np.zeros((NCODES, NCODES, NCODES, NCODES))
    codes = np.zeros(MAX_PLAYERS, np.int64)
    for c0 in range(1, NCODES):
        for c1 in range(NCODES):
            for c2 in range(NCODES):
                for c3 in range(NCODES):
                    n = 1
                    codes[0] = c0
                    if c1 > 0:
                        codes[n] = c1
                        n += 1
                    if c2 > 0:
                        codes[n] = c2
                        n += 1
                    if c3 > 0:
                        codes[n] = c3
                        n += 1
                    table[c0, c1, c2, c3] = win_probability(0, codes[:n], n, td)
    return table
