"""Counter-based random streams: one SplitMix64 stream per (seed, playout index).

A stream's state is a small uint64 array [counter, bits per die], so the same
(seed, index) pair gives the same numbers whatever thread, chunk or machine plays the
playout. Dice with a power-of-two number of faces are cut from one 64-bit draw (an
eight-sided die costs 3 bits); other dice use an unbiased bounded draw each.
"""

import numpy as np
from numba import njit

from kernels.config import JIT

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1) << np.uint64(32)


@njit(**JIT)
def mix64(z):
    """SplitMix64 finaliser: a bijective 64-bit mix."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


STATE_SIZE = 2


@njit(**JIT)
def new_state(faces):
    """A stream state for dice with `faces` sides (not yet keyed)."""
    state = np.zeros(STATE_SIZE, np.uint64)
    bits = 0
    if faces > 0 and faces & (faces - 1) == 0:
        while (1 << bits) < faces:
            bits += 1
    state[1] = np.uint64(bits)
    return state


@njit(**JIT)
def seed_stream(state, seed, index):
    """Point `state` at the stream keyed by (seed, index)."""
    state[0] = mix64(mix64(np.uint64(seed)) ^ mix64(np.uint64(index) + GOLDEN))


_LANE = np.uint64(0xD1B54A32D192ED03)


@njit(**JIT)
def new_states(faces, lanes):
    """`lanes` stream states (rows) for dice with `faces` sides."""
    one = new_state(faces)
    states = np.zeros((lanes, STATE_SIZE), np.uint64)
    for i in range(lanes):
        states[i, :] = one
    return states


@njit(**JIT)
def seed_lanes(states, seed, index):
    """Key row l of `states` to the stream (seed, index, lane l): independent streams of one
    playout, e.g. one per player plus one shared."""
    base = mix64(mix64(np.uint64(seed)) ^ mix64(np.uint64(index) + GOLDEN))
    for lane in range(states.shape[0]):
        states[lane, 0] = mix64(base ^ ((np.uint64(lane) + np.uint64(1)) * _LANE))


@njit(**JIT)
def seed_lane(state, seed, index, lane):
    """Point `state` at stream (seed, index, lane): the row `lane` of seed_lanes, alone."""
    base = mix64(mix64(np.uint64(seed)) ^ mix64(np.uint64(index) + GOLDEN))
    state[0] = mix64(base ^ ((np.uint64(lane) + np.uint64(1)) * _LANE))


@njit(**JIT)
def next_u64(state):
    """Next 64 random bits of the stream."""
    state[0] = state[0] + GOLDEN
    return mix64(state[0])


@njit(**JIT)
def below(state, n):
    """Uniform integer in [0, n) for 1 <= n < 2**32, without bias (Lemire's method)."""
    un = np.uint64(n)
    m = (next_u64(state) >> _S32) * un
    low = m & _MASK32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            m = (next_u64(state) >> _S32) * un
            low = m & _MASK32
    return np.int64(m >> _S32)


@njit(**JIT)
def uniform01(state):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(**JIT)
def shuffle(state, a, n):
    """Fisher-Yates shuffle of a[0:n] in place."""
    for i in range(n - 1, 0, -1):
        j = below(state, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t



@njit(**JIT)
def die(state, faces):
    """One die roll, 1..faces."""
    bits = state[1]
    if bits > 0:
        return np.int64(next_u64(state) & np.uint64(faces - 1)) + 1
    return below(state, faces) + 1


@njit(**JIT)
def roll_top2(state, k, faces):
    """Roll k dice; return (highest, second highest or 0 when k == 1)."""
    t1 = 0
    t2 = 0
    bits = state[1]
    if bits > 0 and k * np.int64(bits) <= 64:
        x = next_u64(state)
        mask = np.uint64(faces - 1)
        for _ in range(k):
            d = np.int64(x & mask) + 1
            x = x >> bits
            t2 = max(t2, min(t1, d))
            t1 = max(t1, d)
        return t1, t2
    for _ in range(k):
        d = below(state, faces) + 1
        t2 = max(t2, min(t1, d))
        t1 = max(t1, d)
    return t1, t2


@njit(**JIT)
def rotation_lanes(P, pol, rotation, size):
    """(policy per seat, stream lane per seat) when player j, with policy pol[j] and its own
    stream lane j, sits at seat (j + rotation) % P; arrays of length `size`."""
    seat_pol = np.zeros(size, np.int64)
    lane = np.zeros(size, np.int64)
    for s in range(P):
        j = (s - rotation) % P
        seat_pol[s] = pol[j]
        lane[s] = j
    return seat_pol, lane
