"""Samsara: two lanes of 24 hollows round a board of 24 double fields, 12 neutral marbles.

A position is one int64 key: bit h (0..47) is hollow h = lane * 24 + cell (lane 0 the
round lane, the round player's = seat 0; lane 1 the square lane, seat 1; cell 0..23 is the
sheet's cell 1..24), and bits 48-50 / 51-53 hold the two scoring tracks (goals scored).
Marbles are alike, so a turn is the key it leaves. Hollow h and PARTNER[h] form one double
field (round cell k with square cell 12+k and back).

`step[c, d]` (built from the arc rule) is where d pips take a marble from cell c of its
lane: another cell, GOAL (exact entry), or -1 (overshoot, or the arc's own pip).

Luck: each player has its own random stream (its dice and its choices), lane j of
`kernels.rng.seed_lanes` for player j; in rotation r player j sits at seat (j + r) % 2, so
a mirrored pair of games deals each player the same dice from either seat.

The random policy is uniform over the distinct positions a legal turn can leave. It is
drawn without listing the turns (`sample_turn`): a two-die sequence is proposed uniformly
from a fixed proposal set, and a legal one leaving position k is kept with probability
1 / (number of legal sequences leaving k), which `multiplicity` counts from the few first
moves that can lead to k. Every distinct position is then equally likely. After TRIES
rejected proposals (rare: few legal turns) the turns are listed and one drawn exactly.
"""

import numpy as np
from numba import njit

from kernels.bits import trailing_zeros
from kernels.config import JIT, NO_ALLOC
from kernels.rng import below, die, new_states, next_u64, seed_lanes

# Policies
RANDOM = 0
GREEDY = 1
LOOKAHEAD = 2

LANE = 24
N_HOLLOW = 48
GOAL = 24
GOAL_SHIFT = 48
HOLLOWS = (1 << N_HOLLOW) - 1
LANE_MASK = (1 << LANE) - 1
SOUTH = ((1 << 36) - 1) ^ ((1 << 12) - 1)  # round 13-24 and square 1-12: seat 0's side
MAX_SEQ = 1400  # 2 orders x 24 x 24 two-die sequences, + 24 whole moves, + slack
MAX_MARBLES = 12
TRIES = 64  # random policy: proposals drawn before listing the turns instead
MAX_CAND = 128  # random policy: first moves that may lead to a position (<= 96)
LANES = 2  # random streams per playout: one per player
SIX = np.int64(6)  # die faces, typed int64 (a literal 6 would compile helpers again)

# Integer parameters (pi)
PI_OPP_GOAL = 0  # 1: a marble may enter the opponent's goal and scores for its owner
PI_REENTRY_BOTH = 1  # 1: re-enter on the first double field with both halves empty
PI_WHOLE = 2  # 1: one marble moved by both dice makes one move of their sum
PI_SINGLE = 3  # no order plays both dice: 0 play either, 1 the higher, 2 Moksha
PI_MATCH = 4  # 1: competition rules (two-game match)
PI_WIN = 5  # goals that bring the scoring marble to the centre
PI_MOKSHA_POINTS = 6
PI_MAX_TURNS = 7  # safety cap per game
PI_TOP_K = 8  # lookahead: candidate turns examined
PI_MARBLES = 9
N_PI = 10

# Evaluation parameters (pe, int64): the marble values are the table V[player, hollow]
PE_GOAL = 0
PE_WIN = 1
N_PE = 2

# How a game ended
E_DIRECT = 0  # a scoring marble reached the centre and the game ended at once
E_EXTRA_FAIL = 1  # match: the start player reached it; the other's extra turn did not
E_BOTH = 2  # match: both reached it; marbles on each side decide
E_MOKSHA = 3
E_CAPPED = 4
N_END = 5

# Per-game statistics (gs)
N_LEN = 600  # length histogram bins in turns (last: that many or more)
N_PTS = 49  # match points 0..48 per seat

# misc counters
M_TURNS = 0  # turns played (one player's move)
M_GAMES = 1  # games played (two per match)
M_SINGLE_DIE = 2  # turns where only one die could be played
M_CAPPED = 3  # playouts with a game stopped by the safety cap
M_FALLBACK = 4  # random turns drawn from the listed turns after TRIES rejected proposals
N_MISC = 5

# Row columns (for --save-games and the mirror): the playout's winning seat (the game's in
# single games, the match's in competition; -1 a draw), then per game (winner, turns,
# goals of seat 0, goals of seat 1, end code), then match points (-1 in single games).
R_WINNER = 0
R_GAME1 = 1
R_GAME2 = 6
G_WINNER = 0
G_TURNS = 1
G_GOALS0 = 2
G_GOALS1 = 3
G_END = 4
R_POINTS0 = 11
R_POINTS1 = 12
N_ROW = 13

PARTNER = np.array([(1 - h // LANE) * LANE + (h % LANE + 12) % LANE for h in range(N_HOLLOW)],
                   np.int64)


@njit(**NO_ALLOC, inline="always")
def goals_of(key, player):
    """Goals scored by `player` (0 round, 1 square)."""
    return (key >> (GOAL_SHIFT + 3 * player)) & 7


@njit(**NO_ALLOC)
def popcount(x):
    """Number of set bits of a non-negative int64."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(**NO_ALLOC)
def fill_pos(key, pos):
    """Write the occupied hollows of `key` into pos (ascending); returns their number."""
    n = 0
    x = key & HOLLOWS
    while x:
        pos[n] = trailing_zeros(x)
        x &= x - 1
        n += 1
    return n


@njit(**NO_ALLOC)
def re_entry(rest, lane, both):
    """Hollow where a marble that scored in `lane`'s goal comes back: the lowest cell 1-12
    of that lane whose hollow is empty (both: whose double field is empty); -1 if none."""
    base = lane * LANE
    for c in range(12):
        h = base + c
        if (rest >> h) & 1:
            continue
        if both and (rest >> PARTNER[h]) & 1:
            continue
        return h
    return -1


@njit(**NO_ALLOC, inline="always")
def move_one(key, origin, start, d, mover, step, pi):
    """Move the marble on hollow `origin` d pips, counting along the lane of `start`
    (origin itself, or its partner when the double field is full).

    Returns (new key or -1 if illegal, landing hollow, owner of the goal scored or -1).
    """
    lane = start // LANE
    t = step[start - lane * LANE, d]
    if t < 0:
        return -1, -1, -1
    rest = key & ~(np.int64(1) << origin)
    if t == GOAL:
        if lane != mover and pi[PI_OPP_GOAL] == 0:
            return -1, -1, -1
        if goals_of(rest, lane) < pi[PI_WIN]:
            rest += np.int64(1) << (GOAL_SHIFT + 3 * lane)
        back = re_entry(rest, lane, pi[PI_REENTRY_BOTH])
        if back < 0:
            return -1, -1, -1
        return rest | (np.int64(1) << back), back, lane
    th = lane * LANE + t
    if (rest >> th) & 1:
        th = PARTNER[th]
        if (rest >> th) & 1:
            return -1, -1, -1
    return rest | (np.int64(1) << th), th, -1


@njit(**NO_ALLOC, inline="always")
def _value(v, owner, mover, won, pe):
    if owner < 0:
        return v
    if won:
        return pe[PE_WIN] if owner == mover else -pe[PE_WIN]
    return v + pe[PE_GOAL] if owner == mover else v - pe[PE_GOAL]


@njit(**NO_ALLOC)
def _singles(key, pos, n_m, mover, d, step, pi, V, pe, base, keys, vals, n):
    """Append every legal move of one die; returns the new count."""
    Vm = V[mover]
    for i in range(n_m):
        o = pos[i]
        for s in range(2):
            start = o
            if s == 1:
                start = PARTNER[o]
                if not (key >> start) & 1:
                    break
            k1, l1, own = move_one(key, o, start, d, mover, step, pi)
            if k1 < 0:
                continue
            won = own >= 0 and goals_of(k1, own) == pi[PI_WIN] and goals_of(key, own) < pi[
                PI_WIN]
            keys[n] = k1
            vals[n] = _value(base + Vm[l1] - Vm[o], own, mover, won, pe)
            n += 1
    return n


@njit(**NO_ALLOC)
def sequences(key, pos, n_m, mover, a, b, step, pi, V, pe, keys, vals):
    """Every legal turn with dice (a, b), as the keys it leaves and the mover's evaluation
    of each; a position reached by several orders or marbles appears several times.

    Both dice are played when some order allows it; a die move that brings a scoring marble
    to the centre ends the turn at once. Otherwise one die (rule PI_SINGLE). Returns
    (count, whether both dice were played); count 0 is Moksha.
    """
    Vm = V[mover]
    base = pe[PE_GOAL] * (goals_of(key, mover) - goals_of(key, 1 - mover))
    for i in range(n_m):
        base += Vm[pos[i]]
    win = pi[PI_WIN]
    whole = pi[PI_WHOLE]
    n = 0
    for order in range(2):
        if order == 1 and a == b:
            break
        d1 = a if order == 0 else b
        d2 = b if order == 0 else a
        for i in range(n_m):
            o = pos[i]
            for s in range(2):
                start = o
                if s == 1:
                    start = PARTNER[o]
                    if not (key >> start) & 1:
                        break
                k1, l1, own1 = move_one(key, o, start, d1, mover, step, pi)
                if k1 < 0:
                    continue
                v1 = base + Vm[l1] - Vm[o]
                if own1 >= 0:
                    if goals_of(k1, own1) == win and goals_of(key, own1) < win:
                        keys[n] = k1  # the game is decided: the turn ends at once
                        vals[n] = _value(v1, own1, mover, True, pe)
                        n += 1
                        continue
                    v1 = _value(v1, own1, mover, False, pe)
                pos[i] = l1
                for j in range(n_m):
                    if whole and j == i and own1 < 0:
                        continue  # one marble's two dice are one move (below)
                    o2 = pos[j]
                    rest = k1 & ~(np.int64(1) << o2)
                    start2 = o2
                    for s2 in range(2):
                        if s2 == 1:
                            start2 = PARTNER[o2]
                            if not (k1 >> start2) & 1:
                                break
                        lane2 = 1 if start2 >= LANE else 0
                        t = step[start2 - lane2 * LANE, d2]
                        if t < 0:
                            continue
                        if t == GOAL:
                            k2, l2, own2 = move_one(k1, o2, start2, d2, mover, step, pi)
                            if k2 < 0:
                                continue
                            won = goals_of(k2, own2) == win and goals_of(k1, own2) < win
                            keys[n] = k2
                            vals[n] = _value(v1 + Vm[l2] - Vm[o2], own2, mover, won, pe)
                            n += 1
                            continue
                        th = lane2 * LANE + t
                        if (rest >> th) & 1:
                            th = PARTNER[th]
                            if (rest >> th) & 1:
                                continue
                        keys[n] = rest | (np.int64(1) << th)
                        vals[n] = v1 + Vm[th] - Vm[o2]
                        n += 1
                pos[i] = o
    if whole:
        n = _singles(key, pos, n_m, mover, a + b, step, pi, V, pe, base, keys, vals, n)
    if n > 0 or pi[PI_SINGLE] == 2:
        return n, True
    hi = max(a, b)
    lo = min(a, b)
    n = _singles(key, pos, n_m, mover, hi, step, pi, V, pe, base, keys, vals, np.int64(0))
    if lo != hi and (n == 0 or pi[PI_SINGLE] == 0):
        n = _singles(key, pos, n_m, mover, lo, step, pi, V, pe, base, keys, vals, n)
    return n, False


@njit(**NO_ALLOC)
def is_first(keys, i):
    """Whether keys[i] does not occur before index i."""
    k = keys[i]
    for j in range(i):  # noqa: SIM110 (a plain loop for numba)
        if keys[j] == k:
            return False
    return True


@njit(**NO_ALLOC)
def pick_random(state, keys, n):
    """Index of a turn drawn uniformly among the distinct keys of keys[:n]."""
    while True:
        i = below(state, n)
        if is_first(keys, i):
            return i


@njit(**NO_ALLOC)
def pick_best(state, keys, vals, n):
    """Index of a best-valued turn; ties drawn uniformly among distinct positions."""
    best = vals[0]
    for i in range(1, n):
        if vals[i] > best:
            best = vals[i]
    ties = 0
    for i in range(n):
        if vals[i] == best and is_first(keys, i):
            ties += 1
    r = below(state, ties) if ties > 1 else 0
    for i in range(n):
        if vals[i] == best and is_first(keys, i):
            if r == 0:
                return i
            r -= 1
    return 0


@njit(**NO_ALLOC)
def reply_value(key, pos, mover, step, pi, V, pe, rkeys, rvals):
    """Expected evaluation, for the player who just moved, of the position `key` after the
    opponent's greedy reply: sum over the 21 rolls of weight (1 or 2, of 36) x value."""
    opp = 1 - mover
    n_m = fill_pos(key, pos)
    total = 0
    for a in range(1, 7):
        for b in range(a, 7):
            w = 1 if a == b else 2
            n, _full = sequences(key, pos, n_m, opp, a, b, step, pi, V, pe, rkeys, rvals)
            if n == 0:
                continue  # Moksha: a draw, worth 0
            best = rvals[0]
            for i in range(1, n):
                if rvals[i] > best:
                    best = rvals[i]
            total -= w * best  # the evaluation is antisymmetric between the players
    return total


@njit(**NO_ALLOC)
def pick_lookahead(state, mover, keys, vals, n, step, pi, V, pe, pos2, rkeys, rvals, cand,
                   cval):
    """Index of the turn with the best average greedy evaluation after the opponent's
    greedy reply to each of its 21 rolls, among the PI_TOP_K best turns by greedy value."""
    best_now = vals[0]
    for i in range(1, n):
        if vals[i] > best_now:
            best_now = vals[i]
    if best_now >= pe[PE_WIN]:
        return pick_best(state, keys, vals, n)
    k_max = min(pi[PI_TOP_K], cand.shape[0])
    nc = 0
    for _ in range(k_max):
        bi = -1
        for i in range(n):
            if bi >= 0 and vals[i] <= vals[bi]:
                continue
            taken = False
            for c in range(nc):
                if keys[cand[c]] == keys[i]:
                    taken = True
                    break
            if not taken:
                bi = i
        if bi < 0:
            break
        cand[nc] = bi
        nc += 1
    for c in range(nc):
        k = keys[cand[c]]
        if vals[cand[c]] <= -pe[PE_WIN]:
            cval[c] = -36 * pe[PE_WIN]
        else:
            cval[c] = reply_value(k, pos2, mover, step, pi, V, pe, rkeys, rvals)
    best = cval[0]
    for c in range(1, nc):
        if cval[c] > best:
            best = cval[c]
    ties = 0
    for c in range(nc):
        if cval[c] == best:
            ties += 1
    r = below(state, ties) if ties > 1 else 0
    for c in range(nc):
        if cval[c] == best:
            if r == 0:
                return cand[c]
            r -= 1
    return cand[0]


@njit(**JIT)
def move_table(step):
    """Die moves by table: tgt[0, d, h] is the hollow a marble counting d pips (1-12) from
    hollow h reaches along h's lane before any lane change, -2 for an exact goal entry, -1
    for an overshoot or the arc's own pip; tgt[1, d, t] the hollow from which d pips reach
    t that way (-1 none); tgt[1, d, N_HOLLOW] the mask of hollows from which d pips enter a
    goal exactly."""
    tgt = np.full((2, 13, N_HOLLOW + 1), -1, np.int64)
    for d in range(1, 13):
        tgt[1, d, N_HOLLOW] = 0
        for h in range(N_HOLLOW):
            lane = h // LANE
            t = step[h - lane * LANE, d]
            if t == GOAL:
                tgt[0, d, h] = -2
                tgt[1, d, N_HOLLOW] |= np.int64(1) << h
            elif t >= 0:
                tgt[0, d, h] = lane * LANE + t
                tgt[1, d, lane * LANE + t] = h
    return tgt


@njit(**NO_ALLOC, inline="always")
def partner_mask(x):
    """The partners of the hollows of mask x (round k <-> square 12+k, square k <-> round
    12+k): each lane's 24 bits rotated by 12 and moved to the other lane."""
    x0 = x & LANE_MASK
    x1 = (x >> LANE) & LANE_MASK
    r0 = ((x0 << 12) | (x0 >> 12)) & LANE_MASK
    r1 = ((x1 << 12) | (x1 >> 12)) & LANE_MASK
    return r1 | (r0 << LANE)


@njit(**NO_ALLOC)
def goal_move(key, origin, start, d, mover, step, pi):
    """move_one for an exact goal entry (rare: kept out of line)."""
    return move_one(key, origin, start, d, mover, step, pi)


@njit(**NO_ALLOC, inline="always")
def die_move(key, origin, start, d, mover, step, pi, tgt):
    """move_one with the target from the table: (new key or -1, landing hollow, owner of
    the goal scored or -1). The target lies d pips past the start on the start's lane, so
    it is not the origin (the start itself, or the start's partner on the other lane), and
    its partner is the origin only if the target were the start: the key itself says
    which hollows are free."""
    t = tgt[0, d, start]
    if t >= 0:
        if (key >> t) & 1:
            t = PARTNER[t]
            if (key >> t) & 1:
                return np.int64(-1), -1, -1
        return (key & ~(np.int64(1) << origin)) | (np.int64(1) << t), t, -1
    if t == -1:
        return np.int64(-1), -1, -1
    return goal_move(key, origin, start, d, mover, step, pi)


@njit(**NO_ALLOC, inline="always")
def wins_now(before, after, owner, win):
    """Whether a die move that scored in `owner`'s goal brought its track to the centre."""
    return owner >= 0 and goals_of(after, owner) == win and goals_of(before, owner) < win


@njit(**NO_ALLOC, inline="always")
def from_first(k, key, o1, start1, d1, d2, mover, step, pi, tgt):
    """How many listed sequences that begin by moving the marble on o1 d1 pips from start1
    leave k: the first move alone when it wins, else the second die's moves (from the
    second marble's hollow or its partner) that turn the first move's key into k."""
    k1, land1, own1 = die_move(key, o1, start1, d1, mover, step, pi, tgt)
    if k1 < 0:
        return 0
    if wins_now(key, k1, own1, pi[PI_WIN]):
        return 1 if k1 == k else 0
    rem = k1 & ~k & HOLLOWS
    if rem == 0 or rem & (rem - 1):
        return 0  # k1 and k differ in more than one marble
    o2 = trailing_zeros(rem)
    if pi[PI_WHOLE] and o2 == land1 and own1 < 0:
        return 0  # one marble's two dice are one move
    c = 0
    p = PARTNER[o2]
    for s in range(2):  # the second marble from its hollow, or from its full partner
        start2 = o2 if s == 0 else p
        if s == 1 and not (k1 >> p) & 1:
            break
        if die_move(k1, o2, start2, d2, mover, step, pi, tgt)[0] == k:
            c += 1
    return c


@njit(**NO_ALLOC)
def multiplicity(k, key, a, b, mover, step, pi, tgt, cand):
    """How many of the sequences `sequences` lists with both dice (and, under PI_WHOLE, the
    whole moves of a + b) leave position k.

    Only a few first moves can lead to k. A first marble that is not back on its hollow
    in k emptied it; one that is must have been replaced by the second marble, so k then
    empties one hollow only (the second marble's) and fills one (where the first marble
    went). So the candidates are the moves of the marbles whose hollows k empties, and,
    when k empties one hollow and fills one, the moves of other marbles that land on the
    filled one (found with the reverse table; goal entries land through re-entry, so those
    are tried too). Should k not empty and fill one hollow each, or two each, every marble
    is tried. The candidates (origin, start, dice order, or n_ord for a whole move) are
    listed in `cand`, then followed in one loop (one inlined copy of the move code instead
    of one per case keeps compiling short).
    """
    occ = key & HOLLOWS
    kh = k & HOLLOWS
    gone = occ & ~kh
    came = kh & ~occ
    odd = gone == 0 or came == 0 or (gone & (gone - 1) == 0) != (came & (came - 1) == 0)
    n_ord = 1 if a == b else 2
    kinds = n_ord + pi[PI_WHOLE]
    nc = 0
    x = occ if odd else gone
    while x:  # first moves of the marbles that left
        o1 = trailing_zeros(x)
        x &= x - 1
        p = PARTNER[o1]
        for s in range(2):
            start1 = o1 if s == 0 else p
            if s == 1 and not (occ >> p) & 1:
                break
            for order in range(kinds):
                cand[nc] = o1 | (start1 << 6) | (order << 12)
                nc += 1
    if not odd and gone & (gone - 1) == 0:
        r = trailing_zeros(gone)  # one marble left; another may have moved onto `came`
        t = trailing_zeros(came)
        for order in range(n_ord):
            d1 = a if order == 0 else b
            for which in range(3):  # start reaching t, its (full) partner, or a goal
                if which == 0:
                    y = tgt[1, d1, t]
                    y = 0 if y < 0 else np.int64(1) << y
                elif which == 1:
                    y = tgt[1, d1, PARTNER[t]]
                    y = 0 if y < 0 or not (occ >> PARTNER[t]) & 1 else np.int64(1) << y
                else:
                    y = tgt[1, d1, N_HOLLOW]
                y &= occ
                while y:
                    s = trailing_zeros(y)
                    y &= y - 1
                    if s != r:
                        cand[nc] = s | (s << 6) | (order << 12)
                        nc += 1
                    p = PARTNER[s]
                    if p != r and (occ >> p) & 1:
                        cand[nc] = p | (s << 6) | (order << 12)
                        nc += 1
    m = 0
    for i in range(nc):
        c = cand[i]
        o1 = c & 63
        start1 = (c >> 6) & 63
        order = c >> 12
        if order == n_ord:  # a whole move of a + b
            if die_move(key, o1, start1, a + b, mover, step, pi, tgt)[0] == k:
                m += 1
        else:
            m += from_first(k, key, o1, start1, a if order == 0 else b,
                            b if order == 0 else a, mover, step, pi, tgt)
    return m


_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1) << np.uint64(32)
_S32 = np.uint64(32)


@njit(**NO_ALLOC, inline="always")
def below2(state, n, m):
    """Independent uniform integers in [0, n) and [0, m) (1 <= n, m < 2**32), exactly:
    Lemire's method on each 32-bit half of one 64-bit draw; a half that would be biased is
    drawn again with rng.below."""
    x = next_u64(state)
    un = np.uint64(n)
    um = np.uint64(m)
    p = (x >> _S32) * un
    q = (x & _MASK32) * um
    i = np.int64(p >> _S32)
    j = np.int64(q >> _S32)
    if (p & _MASK32) < un and (p & _MASK32) < (_TWO32 - un) % un:
        i = below(state, n)
    if (q & _MASK32) < um and (q & _MASK32) < (_TWO32 - um) % um:
        j = below(state, m)
    return i, j


@njit(**NO_ALLOC, inline="always")
def nth_bit(x, q):
    """Index of the q-th (from 0) set bit of x, or -1."""
    for _ in range(q):
        x &= x - 1
    if x == 0:
        return -1
    return trailing_zeros(x)


@njit(**NO_ALLOC, inline="always")
def swapped_leaves(k, key, o1, start1, d1, o2, start2, d2, mover, step, pi, tgt):
    """Whether the same two marble moves in the other order (the second marble's die first)
    are a listed sequence that also leaves k."""
    if start2 != o2 and not (key >> start2) & 1:
        return False
    k2, _land, own = die_move(key, o2, start2, d2, mover, step, pi, tgt)
    if k2 < 0 or wins_now(key, k2, own, pi[PI_WIN]):
        return False  # illegal, or that first move would end the turn
    if start1 != o1 and not (k2 >> start1) & 1:
        return False
    return die_move(k2, o1, start1, d1, mover, step, pi, tgt)[0] == k


@njit(**NO_ALLOC)
def sample_turn(state, key, pos, n_m, mover, a, b, step, pi, tgt, cand, tries):
    """A position drawn uniformly among the distinct positions a turn playing both dice can
    leave (the full turns of `sequences`), or -1 after `tries` rejected proposals.

    A proposal is (first die move f, second start r), uniform over rows x width. Rows are
    the dice orders (one for a double; under PI_WHOLE a third for a whole move of a + b)
    times the starts of a move: each marble from its own hollow (q < n_m), or the marble
    whose partner is the q - n_m th hollow of a full double field. r picks the second
    die's start the same way on the position after the first move (at most 2 more full
    hollows). A first move that wins, and a whole move, are one proposal each (r = 0).
    A legal sequence leaving k is kept with probability 1 / multiplicity(k), so every
    distinct k is equally likely. When the same two moves in the other order also leave k
    (multiplicity >= 2), half such proposals are dropped at once and the rest kept with
    probability 2 / multiplicity(k): the same 1 / m, with fewer counts.
    """
    occ = key & HOLLOWS
    full = occ & partner_mask(occ)
    starts = n_m + popcount(full)
    n_ord = 1 if a == b else 2
    rows = (n_ord + pi[PI_WHOLE]) * starts
    width = starts + 2
    two = np.int64(2)
    for _ in range(tries):
        f, r = below2(state, rows, width)
        order = 0
        while f >= starts:
            f -= starts
            order += 1
        if f < n_m:
            o1 = pos[f]
            start1 = o1
        else:
            start1 = nth_bit(full, f - n_m)
            o1 = PARTNER[start1]
        alone = order == n_ord  # a whole move of a + b
        d1 = a + b if alone else (a if order == 0 else b)
        d2 = b if order == 0 else a
        k1, land1, own1 = die_move(key, o1, start1, d1, mover, step, pi, tgt)
        if k1 < 0:
            continue
        if alone or wins_now(key, k1, own1, pi[PI_WIN]):
            if r != 0:
                continue  # one proposal: a whole move, or a first die that wins
            k = k1
        else:
            if r < n_m:
                o2 = pos[r]
                if o2 == o1:
                    o2 = land1
                start2 = o2
            else:
                start2 = nth_bit(k1 & partner_mask(k1), r - n_m)
                if start2 < 0:
                    continue
                o2 = PARTNER[start2]
            same = o2 == land1  # the first die's marble again
            if same and pi[PI_WHOLE] and own1 < 0:
                continue  # one marble's two dice are one move (the whole-move row)
            k = die_move(k1, o2, start2, d2, mover, step, pi, tgt)[0]
            if k < 0:
                continue
            if not same and swapped_leaves(k, key, o1, start1, d1, o2, start2, d2, mover,
                                           step, pi, tgt):
                if below(state, two) == 0:
                    continue
                if below(state, multiplicity(k, key, a, b, mover, step, pi, tgt, cand)) < 2:
                    return k
                continue
        m = multiplicity(k, key, a, b, mover, step, pi, tgt, cand)
        if m == 1 or below(state, m) == 0:
            return k
    return -1


@njit(**NO_ALLOC)
def start_key(start_cells):
    """The start position: the start cells filled on both lanes, no goals."""
    key = np.int64(0)
    for i in range(start_cells.shape[0]):
        key |= np.int64(1) << start_cells[i]
        key |= np.int64(1) << (LANE + start_cells[i])
    return key


@njit(**NO_ALLOC)
def play_game(states, lane, key, starter, pol, step, pi, V, pe, script, keys, vals, rkeys,
              rvals, pos, pos2, cand, cval, tgt, trace, out):
    """Play one game from `key` with seat `starter` to move; returns its end code (E_*).

    Seat s plays policy pol[s] with the random stream states[lane[s]] (its dice and its
    choices). out[0] winning seat (-1 none), out[1] turns, out[2] final key, out[3] turns
    where only one die could be played, out[4 + 2 * mover + owner] goals a mover put into a
    goal, out[8] random turns drawn from the listed turns. Dice come from `script` (rows a,
    b) while it lasts, then from the mover's stream. trace, when it has rows, receives (key
    before, mover, a, b, key after) per turn.
    """
    win = pi[PI_WIN]
    match = pi[PI_MATCH]
    player = starter
    turns = 0
    singles = 0
    fallback = 0
    for i in range(4, 8):
        out[i] = 0
    extra = False
    end = E_CAPPED
    winner = -1
    while True:
        if turns >= pi[PI_MAX_TURNS]:
            end = E_CAPPED
            break
        state = states[lane[player]]
        if turns < script.shape[0]:
            a = script[turns, 0]
            b = script[turns, 1]
        else:
            a = die(state, SIX)
            b = die(state, SIX)
        n_m = fill_pos(key, pos)
        p = pol[player]
        after = np.int64(-1)
        full = True
        if p == RANDOM:
            after = sample_turn(state, key, pos, n_m, player, a, b, step, pi, tgt, cand,
                                np.int64(TRIES))
        if after < 0:
            n, full = sequences(key, pos, n_m, player, a, b, step, pi, V, pe, keys, vals)
            if n == 0:
                end = E_MOKSHA
                break
            if p == RANDOM:
                fallback += 1
                idx = pick_random(state, keys, n)
            elif p == GREEDY:
                idx = pick_best(state, keys, vals, n)
            else:
                idx = pick_lookahead(state, player, keys, vals, n, step, pi, V, pe, pos2,
                                     rkeys, rvals, cand, cval)
            after = keys[idx]
        before = key
        key = after
        if turns < trace.shape[0]:
            trace[turns, 0] = before
            trace[turns, 1] = player
            trace[turns, 2] = a
            trace[turns, 3] = b
            trace[turns, 4] = key
        turns += 1
        if not full:
            singles += 1
        g0 = goals_of(key, 0)
        g1 = goals_of(key, 1)
        out[4 + 2 * player] += g0 - goals_of(before, 0)
        out[5 + 2 * player] += g1 - goals_of(before, 1)
        if extra:
            if goals_of(key, 1 - starter) >= win:
                end = E_BOTH
            else:
                end = E_EXTRA_FAIL
                winner = starter
            break
        if (g0 >= win and goals_of(before, 0) < win) or (g1 >= win and goals_of(before, 1)
                                                          < win):
            w = 0 if g0 >= win else 1
            if match == 1 and w == starter:
                extra = True
                player = 1 - starter
                continue
            end = E_DIRECT
            winner = w
            break
        player = 1 - player
    if end == E_BOTH:
        side0 = popcount(key & SOUTH)
        side1 = popcount(key & HOLLOWS) - side0
        if side0 != side1:
            winner = 0 if side0 > side1 else 1
    out[0] = winner
    out[1] = turns
    out[2] = key
    out[3] = singles
    out[8] = fallback
    return end


@njit(**NO_ALLOC)
def game_points(end, winner, key, starter, pi, pts):
    """Competition points of one game into pts[0], pts[1]."""
    pts[0] = 0
    pts[1] = 0
    win = pi[PI_WIN]
    if end == E_MOKSHA:
        pts[0] = pi[PI_MOKSHA_POINTS]
        pts[1] = pi[PI_MOKSHA_POINTS]
    elif end == E_DIRECT or end == E_EXTRA_FAIL:  # noqa: SIM109
        pts[winner] = win - goals_of(key, 1 - winner)
    elif end == E_BOTH:
        side0 = popcount(key & SOUTH)
        side1 = popcount(key & HOLLOWS) - side0
        if side0 > side1:
            pts[0] = side0 - side1
        elif side1 > side0:
            pts[1] = side1 - side0


@njit(**NO_ALLOC)
def record_game(gi, end, winner, key, starter, turns, out, starts, game_wins, ends,
                game_len, goals, goal_moves, loser):
    """Add one game's statistics (gi: its number in the match)."""
    if winner < 0:
        starts[2] += 1
        game_wins[gi, 2] += 1
    else:
        starts[0 if winner == starter else 1] += 1
        game_wins[gi, winner] += 1
    for m in range(2):
        for o in range(2):
            goal_moves[m, o] += out[4 + 2 * m + o]
    ends[end] += 1
    game_len[min(turns, N_LEN - 1)] += 1
    g0 = goals_of(key, 0)
    g1 = goals_of(key, 1)
    goals[0, g0] += 1
    goals[1, g1] += 1
    if winner >= 0 and end != E_CAPPED:
        loser[goals_of(key, 1 - winner)] += 1


@njit(**NO_ALLOC)
def play_playout(states, lane, pol, key0, step, pi, V, pe, script, keys, vals, rkeys, rvals,
                 pos, pos2, cand, cval, tgt, trace, out, pts, mpts, wins, starts,
                 game_wins, ends, game_len, length, goals, goal_moves, loser, points, diff,
                 misc, row):
    """One playout: a single game (seat 0 starts), or a two-game match (seat 0 starts the
    first, seat 1 the second). Statistics are by seat; row receives the playout's row.

    Returns the playout's winning seat, or -1 for a draw (Moksha, drawn match, cap).
    """
    match = pi[PI_MATCH]
    n_games = 2 if match == 1 else 1
    mpts[0] = 0
    mpts[1] = 0
    total_turns = 0
    result = -1
    capped = False
    for gi in range(n_games):
        starter = gi
        end = play_game(states, lane, key0, starter, pol, step, pi, V, pe, script, keys, vals,
                        rkeys, rvals, pos, pos2, cand, cval, tgt, trace, out)
        winner = out[0]
        turns = out[1]
        key = out[2]
        total_turns += turns
        capped = capped or end == E_CAPPED
        misc[M_GAMES] += 1
        misc[M_TURNS] += turns
        misc[M_SINGLE_DIE] += out[3]
        misc[M_FALLBACK] += out[8]
        record_game(gi, end, winner, key, starter, turns, out, starts, game_wins, ends,
                    game_len, goals, goal_moves, loser)
        game_points(end, winner, key, starter, pi, pts)
        mpts[0] += pts[0]
        mpts[1] += pts[1]
        if match == 0:
            result = winner
        base = R_GAME1 if gi == 0 else R_GAME2
        row[base + G_WINNER] = winner
        row[base + G_TURNS] = turns
        row[base + G_GOALS0] = goals_of(key, 0)
        row[base + G_GOALS1] = goals_of(key, 1)
        row[base + G_END] = end
    if match == 1:
        if mpts[0] > mpts[1]:
            result = 0
        elif mpts[1] > mpts[0]:
            result = 1
        row[R_POINTS0] = mpts[0]
        row[R_POINTS1] = mpts[1]
    else:
        for c in range(R_GAME2, N_ROW):
            row[c] = -1
    row[R_WINNER] = result
    misc[M_CAPPED] += capped
    wins[2 if result < 0 else result] += 1
    length[min(total_turns, N_LEN - 1)] += 1
    if match == 1:
        points[0, min(mpts[0], N_PTS - 1)] += 1
        points[1, min(mpts[1], N_PTS - 1)] += 1
        diff[max(0, min(mpts[0] - mpts[1] + N_PTS - 1, 2 * N_PTS - 2))] += 1
    return result


@njit(**JIT)
def new_buffers(top_k):
    """Scratch arrays: (keys, vals, rkeys, rvals, pos, pos2, cand, cval, out, pts, mpts,
    row); cand serves the lookahead's candidate turns and the random sampler's candidate
    first moves (never both in one turn)."""
    return (np.zeros(MAX_SEQ, np.int64), np.zeros(MAX_SEQ, np.int64),
            np.zeros(MAX_SEQ, np.int64), np.zeros(MAX_SEQ, np.int64),
            np.zeros(MAX_MARBLES, np.int64), np.zeros(MAX_MARBLES, np.int64),
            np.zeros(max(MAX_CAND, top_k), np.int64), np.zeros(max(1, top_k), np.int64),
            np.zeros(9, np.int64), np.zeros(2, np.int64), np.zeros(2, np.int64),
            np.zeros(N_ROW, np.int64))


@njit(**JIT)
def seat_lanes(pol, rotation):
    """(policy per seat, random stream per seat) when player j (policy pol[j], stream j)
    sits at seat (j + rotation) % 2."""
    seat_pol = np.zeros(2, np.int64)
    lane = np.zeros(2, np.int64)
    for s in range(2):
        j = (s - rotation) % 2
        seat_pol[s] = pol[j]
        lane[s] = j
    return seat_pol, lane


@njit(**JIT)
def play_chunk(seed, first, count, pol, start_cells, step, pi, V, pe, wins, starts, game_wins,
               ends, game_len, length, goals, goal_moves, loser, points, diff, misc, rows,
               rotation):
    """Play playouts first .. first+count-1 of the run keyed by `seed`; add their statistics.

    `pol` lists the players' policies; in `rotation` r player j (its policy and its own
    random stream, lane j of the playout) sits at seat (j + r) % 2. Statistics are by seat.
    `rows` is (count, N_ROW) or (0, N_ROW).
    """
    (keys, vals, rkeys, rvals, pos, pos2, cand, cval, out, pts, mpts,
     row) = new_buffers(pi[PI_TOP_K])
    states = new_states(6, LANES)
    seat_pol, lane = seat_lanes(pol, rotation)
    tgt = move_table(step)
    key0 = start_key(start_cells)
    script = np.zeros((0, 2), np.int64)
    trace = np.zeros((0, 5), np.int64)
    keep = rows.shape[0] > 0
    for g in range(count):
        seed_lanes(states, seed, first + g)
        play_playout(states, lane, seat_pol, key0, step, pi, V, pe, script, keys, vals, rkeys,
                     rvals, pos, pos2, cand, cval, tgt, trace, out, pts, mpts, wins,
                     starts, game_wins, ends, game_len, length, goals, goal_moves, loser,
                     points, diff, misc, row)
        if keep:
            rows[g, :] = row


@njit(**JIT)
def play_traced(seed, index, pol, lane, start_cells, step, pi, V, pe, script, n_trace,
                starter):
    """Play one game from the start position with seat s playing pol[s] on stream lane[s]
    of playout (seed, index); returns (end, out, trace) for checking rules and invariants:
    trace rows are (key before, mover, a, b, key after)."""
    keys, vals, rkeys, rvals, pos, pos2, cand, cval, out = new_buffers(pi[PI_TOP_K])[:9]
    states = new_states(6, LANES)
    seed_lanes(states, seed, index)
    trace = np.full((n_trace, 5), -1, np.int64)
    end = play_game(states, lane, start_key(start_cells), starter, pol, step, pi, V, pe,
                    script, keys, vals, rkeys, rvals, pos, pos2, cand, cval, move_table(step),
                    trace, out)
    return end, out.copy(), trace


@njit(**JIT)
def play_from(seed, index, key, starter, pol, step, pi, V, pe, script):
    """Play one game from position `key` with `starter` to move (seat s on stream s);
    returns (end, out, points)."""
    keys, vals, rkeys, rvals, pos, pos2, cand, cval, out, pts = new_buffers(pi[PI_TOP_K])[:10]
    states = new_states(6, LANES)
    seed_lanes(states, seed, index)
    lane = np.arange(2)
    trace = np.zeros((0, 5), np.int64)
    end = play_game(states, lane, key, starter, pol, step, pi, V, pe, script, keys, vals,
                    rkeys, rvals, pos, pos2, cand, cval, move_table(step), trace, out)
    game_points(end, out[0], out[2], starter, pi, pts)
    return end, out.copy(), pts.copy()


@njit(**JIT)
def turn_keys(key, mover, a, b, step, pi, V, pe):
    """The distinct positions a legal turn with dice (a, b) can leave (sorted), and whether
    both dice are played. Empty: Moksha."""
    keys = np.zeros(MAX_SEQ, np.int64)
    vals = np.zeros(MAX_SEQ, np.int64)
    pos = np.zeros(MAX_MARBLES, np.int64)
    n_m = fill_pos(key, pos)
    n, full = sequences(key, pos, n_m, mover, a, b, step, pi, V, pe, keys, vals)
    return np.unique(keys[:n]), full


@njit(**JIT)
def turn_counts(key, mover, a, b, step, pi, V, pe):
    """For checking the random sampler: the distinct positions of the full turns (both dice)
    that `sequences` lists, how many listed sequences leave each, and what `multiplicity`
    counts for each. All empty when no order plays both dice."""
    keys = np.zeros(MAX_SEQ, np.int64)
    vals = np.zeros(MAX_SEQ, np.int64)
    pos = np.zeros(MAX_MARBLES, np.int64)
    tgt = move_table(step)
    cand = np.zeros(MAX_CAND, np.int64)
    n_m = fill_pos(key, pos)
    n, full = sequences(key, pos, n_m, mover, a, b, step, pi, V, pe, keys, vals)
    if not full:
        n = 0
    distinct = np.unique(keys[:n])
    listed = np.zeros(distinct.shape[0], np.int64)
    counted = np.zeros(distinct.shape[0], np.int64)
    for u in range(distinct.shape[0]):
        for i in range(n):
            if keys[i] == distinct[u]:
                listed[u] += 1
        counted[u] = multiplicity(distinct[u], key, a, b, mover, step, pi, tgt, cand)
    return distinct, listed, counted


@njit(**JIT)
def sample_turns(seed, key, mover, a, b, step, pi, count, tries):
    """`count` draws of sample_turn from one position (-1: gave up after `tries`)."""
    pos = np.zeros(MAX_MARBLES, np.int64)
    states = new_states(6, 1)
    seed_lanes(states, seed, 0)
    n_m = fill_pos(key, pos)
    tgt = move_table(step)
    cand = np.zeros(MAX_CAND, np.int64)
    out = np.zeros(count, np.int64)
    for i in range(count):
        out[i] = sample_turn(states[0], key, pos, n_m, mover, a, b, step, pi, tgt, cand,
                             tries)
    return out
