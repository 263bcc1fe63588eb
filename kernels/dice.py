"""Sixteen Samurai dice resolution, shared by the game kernel and `simcli odds`.

A pool is a code: 1-4 means that many dice, UMA means "rolled" two dice showing the Uma
value. Only each player's two highest dice matter, so a roll is kept as (top1, top2, ndice),
top2 = 0 when a single die was rolled.
"""

import numpy as np

from kernels.jit import kernel
from kernels.rng import (
    STREAM_LANE,
    die,
    die_bits,
    new_states,
    roll_top2,
    seed_stream,
    stream_at,
    stream_block,
    top2_of,
)

MAX_DICE = 4
UMA = 5
NCODES = 6
MAX_PLAYERS = 4


@kernel
def top_group_with(t1, t2, nd, part, n, q, a, b):
    """Bitmask of the players still in contention after comparing the first and second die,
    player q's dice read as (a, b) instead of (t1[q], t2[q]) (q = -1: none replaced).

    One bit set: that player wins outright. Several: they go to the tiebreaker roll.
    A tie on the highest die involving a one-die roll goes to the tiebreaker at once.
    """
    kmax = 0
    for p in range(n):
        x = a * 256 + b if p == q else t1[p] * 256 + t2[p]
        kmax = max(kmax, x * part[p])
    best = kmax >> 8
    first = 0
    second = 0
    single = 0
    for p in range(n):
        x = a * 256 + b if p == q else t1[p] * 256 + t2[p]
        hit = ((x >> 8) == best) & part[p]
        first |= hit << p
        single |= hit & (nd[p] == 1)
        second |= ((x == kmax) & part[p]) << p
    return first if single else second


@kernel
def top_group(t1, t2, nd, part, n):
    """Bitmask of the players still in contention after comparing the first and second die
    (see top_group_with)."""
    return top_group_with(t1, t2, nd, part, n, np.int64(-1), np.int64(0), np.int64(0))


@kernel
def popcount(mask):
    """Number of set bits."""
    c = 0
    while mask:
        mask &= mask - 1
        c += 1
    return c


@kernel
def lowest_bit(mask):
    """Index of the lowest set bit (mask > 0)."""
    i = 0
    while not (mask >> i) & 1:
        i += 1
    return i


@kernel
def tiebreak_round(states, lanes, mask, n, faces, rolls):
    """One tiebreaker roll: each tied player p rolls one die (rolls[p]) from its stream
    states[lanes[p]]; returns the players tied on the highest roll."""
    hi = 0
    new = 0
    for p in range(n):
        if (mask >> p) & 1:
            r = die(states[lanes[p]], faces)
            rolls[p] = r
            if r > hi:
                hi = r
                new = 1 << p
            elif r == hi:
                new |= 1 << p
    return new


@kernel
def tiebreak_lanes(states, lanes, mask, n, faces, rolls):
    """Tiebreaker rolls among the tied players until one is highest; returns the winner."""
    while mask & (mask - 1):
        mask = tiebreak_round(states, lanes, mask, n, faces, rolls)
    return lowest_bit(mask)


@kernel
def roll_code(state, code, faces, uma):
    """Roll a pool code; return (top1, top2, ndice)."""
    if code == UMA:
        return uma, uma, 2
    a, b = roll_top2(state, code, faces)
    return a, b, code


@kernel
def _odds_loop(states, lanes, seed, first, count, codes, faces, t1, t2, nd, part, rolls, wins,
               tiebreaks):
    n = codes.shape[0]
    state = states[0]
    for g in range(count):
        seed_stream(state, seed, first + g)
        for p in range(n):
            if codes[p] != UMA:
                t1[p], t2[p] = roll_top2(state, codes[p], faces)
        mask = top_group(t1, t2, nd, part, n)
        if mask & (mask - 1):
            tiebreaks[0] += 1
            wins[tiebreak_lanes(states, lanes, mask, n, faces, rolls)] += 1
        else:
            wins[lowest_bit(mask)] += 1


@kernel(inline=True)
def _first_wins(a1, a2, b1, b2, tied, states, lanes, faces, rolls):
    """Whether the first of two pools wins, from their two highest dice (a1, a2) and (b1,
    b2): the highest die, then the second; `tied` pools roll the tiebreaker from states."""
    if tied:
        return tiebreak_lanes(states, lanes, np.int64(3), np.int64(2), faces, rolls) == 0
    if a1 != b1:
        return a1 > b1
    return a2 > b2


@kernel
def _odds_pair(states, lanes, seed, first, count, c0, c1, faces, uma, wins, tiebreaks,
               rolls):
    """_odds_loop for two pools, the dice kept in registers (the same draws, the same
    comparison as top_group)."""
    state = states[0]
    bits = die_bits(faces)
    if bits > 0 and max(c0, c1) * bits <= 64:
        _odds_pair_ahead(states, lanes, seed, first, count, c0, c1, faces, uma, bits, wins,
                         tiebreaks, rolls)
        return
    single = c0 == 1 or c1 == 1  # a tie on the highest die goes to the tiebreaker at once
    a1 = uma
    a2 = uma
    b1 = uma
    b2 = uma
    w0 = 0
    w1 = 0
    ties = 0
    for g in range(count):
        seed_stream(state, seed, first + g)
        if c0 != UMA:
            a1, a2 = roll_top2(state, c0, faces)
        if c1 != UMA:
            b1, b2 = roll_top2(state, c1, faces)
        tied = a1 == b1 and (single or a2 == b2)
        if tied:
            ties += 1
        if _first_wins(a1, a2, b1, b2, tied, states, lanes, faces, rolls):
            w0 += 1
        else:
            w1 += 1
    wins[0] += w0
    wins[1] += w1
    tiebreaks[0] += ties


@kernel
def _odds_pair_ahead(states, lanes, seed, first, count, c0, c1, faces, uma, bits, wins,
                     tiebreaks, rolls):
    """_odds_pair for dice with 2**bits faces: the same draws, the next battle's first random
    block computed while this one is compared (it does not depend on the outcome)."""
    single = c0 == 1 or c1 == 1
    a1 = uma
    a2 = uma
    b1 = uma
    b2 = uma
    w0 = 0
    w1 = 0
    ties = 0
    x0, x1 = stream_block(seed, first, STREAM_LANE, 0)
    for g in range(count):
        y0 = x0
        y1 = x1
        x0, x1 = stream_block(seed, first + g + 1, STREAM_LANE, 0)
        used = 0
        if c0 != UMA:
            a1, a2 = top2_of(y0, c0, bits)
            used = 1
        if c1 != UMA:
            b1, b2 = top2_of(y1 if used else y0, c1, bits)
            used += 1
        tied = a1 == b1 and (single or a2 == b2)
        if tied:
            ties += 1
            stream_at(states[0], seed, first + g, STREAM_LANE, used, y1)
        if _first_wins(a1, a2, b1, b2, tied, states, lanes, faces, rolls):
            w0 += 1
        else:
            w1 += 1
    wins[0] += w0
    wins[1] += w1
    tiebreaks[0] += ties


@kernel(alloc=True)
def odds_chunk(seed, first, count, codes, faces, uma, wins, tiebreaks):
    """Monte Carlo battles of the given pools; adds wins per pool and tiebreaker count."""
    n = codes.shape[0]
    states = new_states(faces, 1)  # one stream: every die of a battle, tiebreaks included
    lanes = np.zeros(n, np.int64)
    t1 = np.zeros(n, np.int64)
    t2 = np.zeros(n, np.int64)
    nd = np.zeros(n, np.int64)
    rolls = np.zeros(n, np.int64)
    part = np.ones(n, np.bool_)
    if n == 2:
        _odds_pair(states, lanes, seed, first, count, codes[0], codes[1], faces, uma, wins,
                   tiebreaks, rolls)
        return
    for p in range(n):
        t1[p], t2[p], nd[p] = roll_code(states[0], codes[p], faces, uma)
    _odds_loop(states, lanes, seed, first, count, codes, faces, t1, t2, nd, part, rolls, wins,
               tiebreaks)
