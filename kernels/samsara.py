"""Samsara: two lanes of 24 hollows round a board of 24 double fields, 12 neutral marbles.

A position is one int64 key: bit h (0..47) is hollow h = lane * 24 + cell (lane 0 the
round lane, the round player's = seat 0; lane 1 the square lane, seat 1; cell 0..23 is the
sheet's cell 1..24), and bits 48-50 / 51-53 hold the two scoring tracks (goals scored).
Marbles are alike, so a turn is the key it leaves. Hollow h and PARTNER[h] form one double
field (round cell k with square cell 12+k and back).

`step[c, d]` (built from the arc rule) is where d pips take a marble from cell c of its
lane: another cell, GOAL (exact entry), or -1 (overshoot, or the arc's own pip).
"""

import numpy as np
from numba import njit

from kernels.config import JIT, NO_ALLOC
from kernels.rng import below, die, new_state, seed_stream

# Policies
RANDOM = 0
GREEDY = 1
LOOKAHEAD = 2

LANE = 24
N_HOLLOW = 48
GOAL = 24
GOAL_SHIFT = 48
HOLLOWS = (1 << N_HOLLOW) - 1
SOUTH = ((1 << 36) - 1) ^ ((1 << 12) - 1)  # round 13-24 and square 1-12: seat 0's side
MAX_SEQ = 1400  # 2 orders x 24 x 24 two-die sequences, + 24 whole moves, + slack
MAX_MARBLES = 12

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
M_SWAP_GAMES = 3
M_SWAP_TURNS = 4
M_CAPPED = 5  # playouts (as seated) with a game stopped by the safety cap
N_MISC = 6

# Row columns (for --save-games)
R_WINNER = 0
R_TURNS = 1
R_GOALS0 = 2
R_GOALS1 = 3
R_END = 4
R_G2_WINNER = 5
R_G2_TURNS = 6
R_G2_GOALS0 = 7
R_G2_GOALS1 = 8
R_G2_END = 9
R_POINTS0 = 10
R_POINTS1 = 11
R_MATCH_WINNER = 12
R_SWAP_WINNER = 13
N_ROW = 14

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
    for h in range(N_HOLLOW):
        if (key >> h) & 1:
            pos[n] = h
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
    n = _singles(key, pos, n_m, mover, hi, step, pi, V, pe, base, keys, vals, 0)
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


@njit(**NO_ALLOC)
def start_key(start_cells):
    """The start position: the start cells filled on both lanes, no goals."""
    key = np.int64(0)
    for i in range(start_cells.shape[0]):
        key |= np.int64(1) << start_cells[i]
        key |= np.int64(1) << (LANE + start_cells[i])
    return key


@njit(**NO_ALLOC)
def play_game(state, key, starter, pol, step, pi, V, pe, script, keys, vals, rkeys, rvals,
              pos, pos2, cand, cval, trace, out):
    """Play one game from `key` with `starter` to move; returns its end code (E_*).

    out[0] winner (-1 none), out[1] turns, out[2] final key, out[3] turns where only one
    die could be played, out[4 + 2 * mover + owner] goals a mover put into a goal. Dice
    come from `script` (rows a, b) while it lasts, then from the stream. trace, when it has
    rows, receives (key before, mover, a, b, key after) per turn.
    """
    win = pi[PI_WIN]
    match = pi[PI_MATCH]
    player = starter
    turns = 0
    singles = 0
    for i in range(4, 8):
        out[i] = 0
    extra = False
    end = E_CAPPED
    winner = -1
    while True:
        if turns >= pi[PI_MAX_TURNS]:
            end = E_CAPPED
            break
        if turns < script.shape[0]:
            a = script[turns, 0]
            b = script[turns, 1]
        else:
            a = die(state, 6)
            b = die(state, 6)
        n_m = fill_pos(key, pos)
        n, full = sequences(key, pos, n_m, player, a, b, step, pi, V, pe, keys, vals)
        if n == 0:
            end = E_MOKSHA
            break
        p = pol[player]
        if p == RANDOM:
            idx = pick_random(state, keys, n)
        elif p == GREEDY:
            idx = pick_best(state, keys, vals, n)
        else:
            idx = pick_lookahead(state, player, keys, vals, n, step, pi, V, pe, pos2, rkeys,
                                 rvals, cand, cval)
        before = key
        key = keys[idx]
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
def play_playout(state, pol, key0, step, pi, V, pe, script, keys, vals, rkeys, rvals, pos,
                 pos2, cand, cval, trace, out, pts, mpts, wins, starts, game_wins, ends,
                 game_len, length, goals, goal_moves, loser, points, diff, misc, row, swapped):
    """One playout: a single game, or a two-game match (start player alternating).

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
        end = play_game(state, key0, starter, pol, step, pi, V, pe, script, keys, vals,
                        rkeys, rvals, pos, pos2, cand, cval, trace, out)
        winner = out[0]
        turns = out[1]
        key = out[2]
        total_turns += turns
        capped = capped or end == E_CAPPED
        if swapped:
            misc[M_SWAP_GAMES] += 1
            misc[M_SWAP_TURNS] += turns
        else:
            misc[M_GAMES] += 1
            misc[M_TURNS] += turns
            misc[M_SINGLE_DIE] += out[3]
            record_game(gi, end, winner, key, starter, turns, out, starts, game_wins, ends,
                        game_len, goals, goal_moves, loser)
        game_points(end, winner, key, starter, pi, pts)
        mpts[0] += pts[0]
        mpts[1] += pts[1]
        if match == 0:
            result = winner
        base = 0 if gi == 0 else R_G2_WINNER
        row[base + R_WINNER] = winner
        row[base + R_TURNS] = turns
        row[base + R_GOALS0] = goals_of(key, 0)
        row[base + R_GOALS1] = goals_of(key, 1)
        row[base + R_END] = end
    if match == 1:
        if mpts[0] > mpts[1]:
            result = 0
        elif mpts[1] > mpts[0]:
            result = 1
        row[R_POINTS0] = mpts[0]
        row[R_POINTS1] = mpts[1]
        row[R_MATCH_WINNER] = result
    else:
        for c in range(R_G2_WINNER, R_MATCH_WINNER + 1):
            row[c] = -1
    if not swapped:
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
    row, row2, pol2)."""
    return (np.zeros(MAX_SEQ, np.int64), np.zeros(MAX_SEQ, np.int64),
            np.zeros(MAX_SEQ, np.int64), np.zeros(MAX_SEQ, np.int64),
            np.zeros(MAX_MARBLES, np.int64), np.zeros(MAX_MARBLES, np.int64),
            np.zeros(max(1, top_k), np.int64), np.zeros(max(1, top_k), np.int64),
            np.zeros(8, np.int64), np.zeros(2, np.int64), np.zeros(2, np.int64),
            np.zeros(N_ROW, np.int64), np.zeros(N_ROW, np.int64), np.zeros(2, np.int64))


@njit(**JIT)
def play_chunk(seed, first, count, pol, start_cells, step, pi, V, pe, wins, starts, game_wins,
               ends, game_len, length, goals, goal_moves, loser, points, diff, misc, swap, pair,
               rows):
    """Play playouts first .. first+count-1 of the run keyed by `seed`; add their statistics.

    In single games whose two seats play different policies, each seed is played again
    with the seats swapped (into `swap`: seat 0 wins, seat 1 wins, draws; `pair`: histogram
    of the first seat's policy's half-points over the two games, 0..4). `rows` is
    (count, N_ROW) or (0, N_ROW).
    """
    (keys, vals, rkeys, rvals, pos, pos2, cand, cval, out, pts, mpts, row, row2,
     pol2) = new_buffers(pi[PI_TOP_K])
    state = new_state(6)
    key0 = start_key(start_cells)
    script = np.zeros((0, 2), np.int64)
    trace = np.zeros((0, 5), np.int64)
    keep = rows.shape[0] > 0
    pol2[0] = pol[1]
    pol2[1] = pol[0]
    replay = pol[0] != pol[1] and pi[PI_MATCH] == 0
    for g in range(count):
        seed_stream(state, seed, first + g)
        r1 = play_playout(state, pol, key0, step, pi, V, pe, script, keys, vals, rkeys,
                          rvals, pos, pos2, cand, cval, trace, out, pts, mpts, wins, starts,
                          game_wins, ends, game_len, length, goals, goal_moves, loser, points,
                          diff, misc, row, False)
        row[R_SWAP_WINNER] = -2
        if replay:
            seed_stream(state, seed, first + g)
            r2 = play_playout(state, pol2, key0, step, pi, V, pe, script, keys, vals, rkeys,
                              rvals, pos, pos2, cand, cval, trace, out, pts, mpts, wins,
                              starts, game_wins, ends, game_len, length, goals, goal_moves,
                              loser, points, diff, misc, row2, True)
            swap[2 if r2 < 0 else r2] += 1
            # half-points of the first seat's policy: seat 0 as seated, seat 1 swapped
            hp = (2 if r1 == 0 else (1 if r1 < 0 else 0)) + (2 if r2 == 1 else (
                1 if r2 < 0 else 0))
            pair[hp] += 1
            row[R_SWAP_WINNER] = r2
        if keep:
            rows[g, :] = row


@njit(**JIT)
def play_traced(seed, index, pol, start_cells, step, pi, V, pe, script, n_trace, starter):
    """Play one game from the start position and return (end, out, trace) for checking
    rules and invariants: trace rows are (key before, mover, a, b, key after)."""
    keys, vals, rkeys, rvals, pos, pos2, cand, cval, out = new_buffers(pi[PI_TOP_K])[:9]
    state = new_state(6)
    seed_stream(state, seed, index)
    trace = np.full((n_trace, 5), -1, np.int64)
    end = play_game(state, start_key(start_cells), starter, pol, step, pi, V, pe, script,
                    keys, vals, rkeys, rvals, pos, pos2, cand, cval, trace, out)
    return end, out.copy(), trace


@njit(**JIT)
def play_from(seed, index, key, starter, pol, step, pi, V, pe, script):
    """Play one game from position `key` with `starter` to move; returns (end, out, points)."""
    keys, vals, rkeys, rvals, pos, pos2, cand, cval, out, pts = new_buffers(pi[PI_TOP_K])[:10]
    state = new_state(6)
    seed_stream(state, seed, index)
    trace = np.zeros((0, 5), np.int64)
    end = play_game(state, key, starter, pol, step, pi, V, pe, script, keys, vals, rkeys,
                    rvals, pos, pos2, cand, cval, trace, out)
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
