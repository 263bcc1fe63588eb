"""Counter-based random streams: Philox4x32-10, keyed by the seed, one counter block per
(playout, lane).

Every draw is Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
SC 2011) of the 128-bit counter (block, lane, playout low, playout high) under the 64-bit key
`seed`. For a fixed key Philox is a bijection of the counter, so two streams of different
(playout, lane) never share a single output block: no stream is a window of another,
however long a run is. The same (seed, playout, lane) gives the same numbers whatever
thread, chunk, backend or machine plays the playout. Each block gives two 64-bit draws.

A stream's state is a small uint64 array (STATE_SIZE words): [block counter, bits per die,
key, playout, lane, spare draw, spare flag]. Dice with a power-of-two number of faces are
cut from one 64-bit draw (an eight-sided die costs 3 bits); other dice use an unbiased
bounded draw each. Code outside this module uses only its functions, never the words.
"""

import numpy as np

from kernels.jit import kernel

_M0 = np.uint64(0xD2511F53)  # Philox4x32 multipliers and Weyl key increments
_M1 = np.uint64(0xCD9E8D57)
_W0 = np.uint64(0x9E3779B9)
_W1 = np.uint64(0xBB67AE85)
_MASK32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_TWO32 = np.uint64(1) << np.uint64(32)

STATE_SIZE = 7
_BLOCK, _BITS, _KEY, _PLAYOUT, _LANE, _SPARE, _HAS_SPARE = 0, 1, 2, 3, 4, 5, 6
STREAM_LANE = 0xFFFFFFFF  # the lane of seed_stream's single stream per playout


@kernel(inline=True)
def _round(c0, c1, c2, c3, k0, k1):
    """One Philox4x32 round."""
    p0 = _M0 * c0
    p1 = _M1 * c2
    return (((p1 >> _S32) ^ c1 ^ k0) & _MASK32, p1 & _MASK32,
            ((p0 >> _S32) ^ c3 ^ k1) & _MASK32, p0 & _MASK32)


@kernel(inline=True)
def _bump(k0, k1):
    """The key schedule between rounds."""
    return (k0 + _W0) & _MASK32, (k1 + _W1) & _MASK32


@kernel(inline=True)
def philox(c0, c1, c2, c3, key):
    """Philox4x32-10 of the counter (c0, c1, c2, c3), 32-bit words in uint64, under the
    64-bit key: the block as two 64-bit words. The ten rounds are written out (a loop is
    not unrolled by numba and runs about ten times slower)."""
    k0 = key & _MASK32
    k1 = key >> _S32
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    k0, k1 = _bump(k0, k1)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    k0, k1 = _bump(k0, k1)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    k0, k1 = _bump(k0, k1)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    k0, k1 = _bump(k0, k1)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    k0, k1 = _bump(k0, k1)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    k0, k1 = _bump(k0, k1)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    k0, k1 = _bump(k0, k1)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    k0, k1 = _bump(k0, k1)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    k0, k1 = _bump(k0, k1)
    c0, c1, c2, c3 = _round(c0, c1, c2, c3, k0, k1)
    return (c0 << _S32) | c1, (c2 << _S32) | c3


@kernel
def die_bits(faces):
    """Bits a die with `faces` sides is cut from: log2(faces) for a power of two, else 0
    (such a die takes a bounded draw of its own)."""
    bits = 0
    if faces > 0 and faces & (faces - 1) == 0:
        while (1 << bits) < faces:
            bits += 1
    return bits


@kernel(alloc=True)
def new_state(faces):
    """A stream state for dice with `faces` sides (not yet keyed)."""
    state = np.zeros(STATE_SIZE, np.uint64)
    state[_BITS] = np.uint64(die_bits(faces))
    return state


@kernel
def seed_lane(state, seed, index, lane):
    """Point `state` at stream (seed, playout index, lane), at its first draw."""
    state[_BLOCK] = np.uint64(0)
    state[_KEY] = np.uint64(seed)
    state[_PLAYOUT] = np.uint64(index)
    state[_LANE] = np.uint64(lane) & _MASK32
    state[_HAS_SPARE] = np.uint64(0)


@kernel
def seed_stream(state, seed, index):
    """Point `state` at the single stream keyed by (seed, index)."""
    seed_lane(state, seed, index, STREAM_LANE)


@kernel(alloc=True)
def new_states(faces, lanes):
    """`lanes` stream states (rows) for dice with `faces` sides."""
    one = new_state(faces)
    states = np.zeros((lanes, STATE_SIZE), np.uint64)
    for i in range(lanes):
        states[i, :] = one
    return states


def stream_states(faces: int, lanes: int) -> np.ndarray:
    """`new_states(faces, lanes)` for Python callers, made with numpy: the same array, and
    no compiled entry (numba's allocation code and its error messages cost about a CPU
    second cold)."""
    states = np.zeros((lanes, STATE_SIZE), np.uint64)
    states[:, _BITS] = np.uint64(die_bits.py_func(faces))
    return states


@kernel
def seed_lanes(states, seed, index):
    """Key row l of `states` to the stream (seed, index, lane l): independent streams of one
    playout, e.g. one per player plus one shared."""
    for lane in range(states.shape[0]):
        seed_lane(states[lane], seed, index, lane)


@kernel
def next_u64(state):
    """Next 64 random bits of the stream."""
    if state[_HAS_SPARE]:
        state[_HAS_SPARE] = np.uint64(0)
        return state[_SPARE]
    block = state[_BLOCK]
    playout = state[_PLAYOUT]
    a, b = philox(block & _MASK32, state[_LANE], playout & _MASK32, playout >> _S32,
                  state[_KEY])
    state[_BLOCK] = block + np.uint64(1)
    state[_SPARE] = b
    state[_HAS_SPARE] = np.uint64(1)
    return a


@kernel
def stream_block(seed, index, lane, block):
    """Draws 2 * block and 2 * block + 1 of stream (seed, index, lane), computed directly
    (a kernel may compute the next playout's first block ahead, while it plays this one)."""
    return philox(np.uint64(block) & _MASK32, np.uint64(lane) & _MASK32,
                  np.uint64(index) & _MASK32, np.uint64(index) >> _S32, np.uint64(seed))


@kernel
def stream_at(state, seed, index, lane, used, second):
    """Point `state` at stream (seed, index, lane) after its first `used` draws (0-2), drawn
    outside with stream_block(..., 0), whose second draw is `second`."""
    seed_lane(state, seed, index, lane)
    if used == 1:
        state[_BLOCK] = np.uint64(1)
        state[_SPARE] = second
        state[_HAS_SPARE] = np.uint64(1)
    elif used == 2:
        state[_BLOCK] = np.uint64(1)


@kernel
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


@kernel
def uniform01(state):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def shuffle(state, a, n):
    """Fisher-Yates shuffle of a[0:n] in place."""
    for i in range(n - 1, 0, -1):
        j = below(state, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t



@kernel
def die(state, faces):
    """One die roll, 1..faces."""
    bits = state[_BITS]
    if bits > 0:
        return np.int64(next_u64(state) & np.uint64(faces - 1)) + 1
    return below(state, faces) + 1


@kernel
def top2_of(x, k, bits):
    """(highest, second highest or 0 when k == 1) of k dice with 2**bits faces cut from the
    64-bit draw x, as roll_top2 cuts them (k * bits <= 64)."""
    t1 = 0
    t2 = 0
    mask = (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    for _ in range(k):
        d = np.int64(x & mask) + 1
        x = x >> np.uint64(bits)
        t2 = max(t2, min(t1, d))
        t1 = max(t1, d)
    return t1, t2


@kernel
def roll_top2(state, k, faces):
    """Roll k dice; return (highest, second highest or 0 when k == 1)."""
    t1 = 0
    t2 = 0
    bits = state[_BITS]
    if bits > 0 and k * np.int64(bits) <= 64:
        return top2_of(next_u64(state), k, np.int64(bits))
    for _ in range(k):
        d = below(state, faces) + 1
        t2 = max(t2, min(t1, d))
        t1 = max(t1, d)
    return t1, t2


@kernel
def peek_die(state, k, faces, i):
    """Die i (from 0) of the k dice the next roll_top2(state, k, faces) rolls, for a game
    log; the stream does not move (its three moving words are put back)."""
    block = state[_BLOCK]
    spare = state[_SPARE]
    has_spare = state[_HAS_SPARE]
    bits = state[_BITS]
    d = 0
    if bits > 0 and k * np.int64(bits) <= 64:
        mask = (np.uint64(1) << bits) - np.uint64(1)
        d = np.int64((next_u64(state) >> (np.uint64(i) * bits)) & mask) + 1
    else:
        for _ in range(i + 1):
            d = below(state, faces) + 1
    state[_BLOCK] = block
    state[_SPARE] = spare
    state[_HAS_SPARE] = has_spare
    return d


def rotation_lanes(P: int, pol: np.ndarray, rotation: int, size: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(policy per seat, stream lane per seat) when player j, with policy pol[j] and its own
    stream lane j, sits at seat (j + rotation) % P; arrays of length `size`. Plain numpy:
    a state is made in Python, and a compiled entry for it would cost a cold compile."""
    seat_pol = np.zeros(size, np.int64)
    lane = np.zeros(size, np.int64)
    for s in range(P):
        j = (s - rotation) % P
        seat_pol[s] = pol[j]
        lane[s] = j
    return seat_pol, lane
