"""Samsara's rules: the state of a playout and every rule, once.

Board. Two lanes of 24 hollows run round a board of 24 double fields; 12 neutral marbles
move on them and either player may move any marble. Hollow h = lane * 24 + cell, lane 0
the round lane (seat 0's, the round player) and lane 1 the square lane (seat 1); cell
0..23 is the sheet's cell 1..24, ending in the lane owner's goal. Hollow h and PARTNER[h]
form one double field (round cell k with square cell 12+k, and back).

Position key. A position is one int64: bit h (0..47) set when hollow h holds a marble,
bits 48-50 and 51-53 the goals of seat 0 and seat 1 (their scoring tracks). Marbles are
alike, so a turn is identified by the position it leaves.

`step[c, d]` (built from the arc rule by the game's declaration) is where d pips take a
marble from cell c of its lane: another cell, GOAL (an exact goal entry), or -1 (an
overshoot, or a stop on the arc's own pip).

Action encoding (flat int64). A player's action is its whole turn:
- a turn: the key of the position it leaves (bits 0-53), plus ONE_DIE (bit 56) when no
  order plays both dice and one die is played (the rule `single-die`);
- MOKSHA (bit 57): the only action when no turn is legal; the game ends at once, drawn.
Dice are chance: each turn's roll is drawn inside `apply` (and `setup`) from the stream of
the player about to move, before that player chooses (logged as a roll event).

A turn plays both dice when some order allows it (each die one move, either order, same
or different marble; a die move that brings a scoring marble to the centre ends the turn
at once; under `same-marble=whole-move` one marble moved by both dice makes one move of
their sum); otherwise one die (rule PI_SINGLE); a roll with no legal turn is Moksha.

Options (OPTIONS, option_of): a turn may enter the mover's goal, the opponent's goal, or
need a lane change (no die sequence of the roll leaves its position without one:
lane_free); option_of names one, goals first.

Competition (PI_MATCH): a playout is a match of two games, seat 0 starting the first and
seat 1 the second; when the start player's track reaches the centre first on its own turn,
the other player has one more turn (the turns are then even; a goal the other player
scores for the start player under opponent-goal=scores-for-owner ends the game at once);
a Moksha in that extra turn ends the game in a 4-4 draw as the rulebook prints it
("regardless of the scoring track"), or with PI_EXTRA_WIN leaves the start player alone at
the centre (End.EXTRA_FAIL); points per game as the competition rules say.

Random streams: lane j of `kernels.rng.seed_lanes` is player j's (its dice and its random
choices); in rotation r player j sits at seat (j + r) % 2 (`State.lane`), so a mirrored
pair of playouts deals each player the same dice from either seat.
"""

from collections import namedtuple

import numpy as np

from kernels import events as ev
from kernels import rng as streams
from kernels.bits import trailing_zeros
from kernels.jit import kernel
from kernels.rng import below, die, next_u64, seed_lanes
from kernels.samsara.stats import N_LEN, N_PTS, Cluster, End, Misc, Moment, Outcome, Start

LANE = 24
N_HOLLOW = 48
GOAL = 24  # step table: an exact goal entry
GOAL_SHIFT = 48
HOLLOWS = (1 << N_HOLLOW) - 1
LANE_MASK = (1 << LANE) - 1
KEY_MASK = (1 << 54) - 1
SOUTH = ((1 << 36) - 1) ^ ((1 << 12) - 1)  # round 13-24 and square 1-12: seat 0's side
ONE_DIE = 1 << 56  # action flag: a turn that plays one die only
MOKSHA = 1 << 57  # action: no legal turn, the game ends drawn
MAX_SEQ = 1400  # 2 orders x 24 x 24 two-die sequences, + 24 whole moves, + slack
MAX_MARBLES = 12
MAX_CAND = 128  # sampler: first moves that may lead to a position (<= 96)
LANES = 2  # random streams per playout: one per player
SIX = np.int64(6)  # die faces, typed int64 (a literal 6 would compile helpers again)
ROUND = np.int64(0)  # seat 0, the round player (typed int64, as SIX)
SQUARE = np.int64(1)  # seat 1, the square player
N_OBS = 8  # length of an observation vector (OBS_*)

# Rule parameters (State.pi, int64), set by the game's declaration
PI_OPP_GOAL = 0  # opponent's goal: 0 forbidden, 1 allowed and scores for its owner,
#                   2 allowed and scores nothing (OPP_*)
PI_REENTRY_BOTH = 1  # 1: re-enter on the first double field with both halves empty
PI_WHOLE = 2  # 1: one marble moved by both dice makes one move of their sum
PI_SINGLE = 3  # no order plays both dice: 0 play either, 1 the higher, 2 Moksha
PI_MATCH = 4  # 1: competition rules (two-game match)
PI_WIN = 5  # goals that bring the scoring marble to the centre
PI_MOKSHA_POINTS = 6
PI_MAX_TURNS = 7  # safety cap per game
PI_TOP_K = 8  # lookahead: candidate turns examined
PI_MARBLES = 9
PI_EXTRA_WIN = 10  # 1: a Moksha in a match's extra turn leaves the start player the winner
N_PI = 11

# PI_OPP_GOAL values
OPP_FORBIDDEN = 0
OPP_SCORES_FOR_OWNER = 1
OPP_SCORES_NOTHING = 2

# Weights a caller gives the turn listing (list_turns): w[h] per hollow h holding a marble,
# w[W_ENTER + s] per entry into seat s's goal, w[W_DECIDE + s] the whole worth of a
# sequence that brings seat s's track to the centre (the game is decided).
W_ENTER = N_HOLLOW
W_DECIDE = N_HOLLOW + 2
N_W = N_HOLLOW + 4

# Options a player can be forbidden (`players.choose(st, forbid)`): option_of(st, a)
# reports ONE option per turn, in this order of precedence: opponent-goal, own-goal,
# lane-change. A turn that enters a goal and needs a lane change reports its goal option;
# the players (players.permitted) and the search (search_hooks.search_option) still check
# every option such a turn uses against the forbid table.
OPTIONS = ("own-goal", "opponent-goal", "lane-change")
OPT_OWN_GOAL = 0  # a turn that enters the mover's own goal (and not the opponent's)
OPT_OPPONENT_GOAL = 1  # a turn that enters the opponent's goal (opponent-goal rule)
OPT_LANE_CHANGE = 2  # a turn whose position no die sequence of the roll reaches without a
#                      lane change (at the start of a die's move or at its end)
N_OPTIONS = 3

# Event kinds of the game log (kind 0 is the players' decisions, kernels.events)
EV_GAME = 1  # a game starts: a = game (0, 1), b = start seat, c = start position key
EV_ROLL = 2  # the player to move rolled: a, b = the two dice
EV_GOAL = 3  # a scoring track moved: a = its seat, b = goals now, c = goals to win
EV_EXTRA = 4  # match: a = start seat at the centre first, b = seat given one more turn
EV_END = 5  # a game ended: a = End code, b = winning seat or -1, c / d = marbles on
#             seat 0's / seat 1's side of the board
EV_POINTS = 6  # match: a game's points: a / b = seat 0 / 1, c / d = match totals so far
EV_RESULT = 7  # the playout ended: a = winning seat or -1, b = turns, c / d = match points
#                (-1 in a single game)

# Observation vector (observe): the whole position is public; only future dice are not
OBS_KEY = 0  # position key
OBS_TO_MOVE = 1  # seat to move, -1 when over
OBS_DIE_A = 2
OBS_DIE_B = 3
OBS_GAME = 4  # game of the playout (0, 1)
OBS_STARTER = 5  # start seat of the current game
OBS_EXTRA = 6  # 1 during a match's extra turn
OBS_TURNS = 7  # turns played in the current game

PARTNER = np.array([(1 - h // LANE) * LANE + (h % LANE + 12) % LANE for h in range(N_HOLLOW)],
                   np.int64)

State = namedtuple("State", [
    # --- the position and the playout's progress ---
    "key",  # (1,) int64: the position key (module docstring)
    "player",  # (1,) int64: seat to act (0 round, 1 square); -1 once the playout is over
    "dice",  # (2,) int64: the roll of the seat to act, faces 1-6 (a, b)
    "turns",  # (1,) int64: turns played in the current game
    "ply",  # (1,) int64: turns played in the playout (both games of a match)
    "game",  # (1,) int64: the current game of the playout: 0, or 1 (a match's second)
    "starter",  # (1,) int64: seat that started the current game
    "extra",  # (1,) int64: 1 while a match's extra turn is played
    "capped",  # (1,) int64: 1 when a game of the playout hit the safety cap
    "points",  # (2,) int64: competition points of each seat so far in the match
    "winner",  # (1,) int64: the playout's winning seat (-1 a draw), once over
    "game_end",  # (2,) int64: each game's End code (-1 not played)
    "game_winner",  # (2,) int64: each game's winning seat (-1 none)
    "game_turns",  # (2,) int64: each game's length in turns
    "game_key",  # (2,) int64: each game's final position key
    "pc",  # (len(Cluster),) int64: this playout's y_g of each clustered rate (stats.Cluster)
    # --- the run's parameters (read only) ---
    "start",  # (1,) int64: the start position key
    "step",  # (24, 13) int64: step[c, d] as in the module docstring
    "tgt",  # (2, 13, 49) int64: move_table(step)
    "pi",  # (N_PI,) int64: rule parameters PI_*
    "pol",  # (2,) int64: the policy of each seat (players.RANDOM ...)
    "lane",  # (2,) int64: the random stream lane of each seat
    "values",  # (2, 48) int64: values[seat, h], a marble on h to that seat (greedy)
    "pe",  # (players.N_PE,) int64: evaluation weights of greedy and lookahead
    "weights",  # (2, N_W) int64: weights[seat], greedy's listing weights (players)
    # --- random streams, game log and statistics ---
    "rng",  # (LANES, rng.STATE_SIZE) uint64: one stream per player
    "log",  # (E, 7) int64: the event buffer (kernels.events; E = 0 in the fast path)
    "log_n",  # (1,) int64: events written (or counted)
    "aggs",  # stats.Aggregates: the statistics the rules and players add to
    # --- scratch: turn listings of the rules and the players' evaluations ---
    "pos",  # (MAX_MARBLES,) int64: occupied hollows of the position being listed
    "keys",  # (MAX_SEQ,) int64: positions of the listed die sequences
    "vals",  # (MAX_SEQ,) int64: the weighted value of each listed sequence
    "pos2",  # (MAX_MARBLES,) int64: lookahead: hollows of a position after a turn
    "rkeys",  # (MAX_SEQ,) int64: lookahead: the opponent's listed replies
    "rvals",  # (MAX_SEQ,) int64: lookahead: the weighted value of each reply
    "cand",  # (max(MAX_CAND, top_k),) int64: sampler's first moves; lookahead's picks
    "cval",  # (max(1, top_k),) int64: lookahead: value of each candidate
    "moves",  # (2, 5) int64: turn_moves: one die move per row
])


def new_state(start_cells: np.ndarray, step: np.ndarray, pi: np.ndarray, values: np.ndarray,
              pe: np.ndarray, weights: np.ndarray, policies: np.ndarray, rotation: int, aggs,
              log_capacity: int = 0) -> State:
    """A state for playouts of one run, allocated once: player j (policy policies[j],
    stream lane j) sits at seat (j + rotation) % 2; `aggs` receives the statistics;
    values, pe and weights are the players' (players.weights_of)."""
    if pi[PI_MAX_TURNS] < 1:
        raise ValueError("the safety cap on turns must allow at least one turn")
    z = np.zeros
    lane = np.array([(s - rotation) % 2 for s in range(2)], np.int64)
    seat_pol = np.asarray(policies, np.int64)[lane]
    log, log_n = ev.new_log(log_capacity)
    top_k = int(pi[PI_TOP_K])
    start = np.array([start_key(start_cells)], np.int64)
    return State(
        key=start.copy(), player=np.full(1, -1, np.int64), dice=z(2, np.int64),
        turns=z(1, np.int64), ply=z(1, np.int64), game=z(1, np.int64),
        starter=z(1, np.int64), extra=z(1, np.int64), capped=z(1, np.int64),
        points=z(2, np.int64), winner=np.full(1, -1, np.int64),
        game_end=np.full(2, -1, np.int64), game_winner=np.full(2, -1, np.int64),
        game_turns=z(2, np.int64), game_key=z(2, np.int64), pc=z(len(Cluster), np.int64),
        start=start, step=np.ascontiguousarray(step, np.int64),
        tgt=move_table(np.ascontiguousarray(step, np.int64)),
        pi=np.ascontiguousarray(pi, np.int64), pol=seat_pol, lane=lane,
        values=np.ascontiguousarray(values, np.int64), pe=np.ascontiguousarray(pe, np.int64),
        weights=np.ascontiguousarray(weights, np.int64),
        rng=streams.stream_states(6, LANES),
        log=log, log_n=log_n, aggs=aggs,
        pos=z(MAX_MARBLES, np.int64), keys=z(MAX_SEQ, np.int64), vals=z(MAX_SEQ, np.int64),
        pos2=z(MAX_MARBLES, np.int64), rkeys=z(MAX_SEQ, np.int64),
        rvals=z(MAX_SEQ, np.int64), cand=z(max(MAX_CAND, top_k), np.int64),
        cval=z(max(1, top_k), np.int64), moves=z((2, 5), np.int64),
    )


# --- the board and one die's move -------------------------------------------------------

@kernel
def goals_of(key, seat):
    """Goals scored by `seat` (0 round, 1 square)."""
    return (key >> (GOAL_SHIFT + 3 * seat)) & 7


@kernel
def popcount(x):
    """Number of set bits of a non-negative int64."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@kernel
def fill_pos(key, pos):
    """Write the occupied hollows of `key` into pos (ascending); returns their number."""
    n = 0
    x = key & HOLLOWS
    while x:
        pos[n] = trailing_zeros(x)
        x &= x - 1
        n += 1
    return n


def start_key(start_cells: np.ndarray) -> int:
    """The start position: the start cells (0-based lane cells) filled on both lanes, no
    goals."""
    key = 0
    for c in start_cells:
        key |= (1 << int(c)) | (1 << (LANE + int(c)))
    return key


@kernel
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


@kernel(inline=True)
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
        scores = True
        if lane != mover:
            if pi[PI_OPP_GOAL] == OPP_FORBIDDEN:
                return -1, -1, -1
            scores = pi[PI_OPP_GOAL] == OPP_SCORES_FOR_OWNER
        if scores and goals_of(rest, lane) < pi[PI_WIN]:
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


def move_table(step: np.ndarray) -> np.ndarray:
    """Die moves by table: tgt[0, d, h] is the hollow a marble counting d pips (1-12) from
    hollow h reaches along h's lane before any lane change, -2 for an exact goal entry, -1
    for none; tgt[1, d, t] is the hollow from which d pips reach t (-1 none), and
    tgt[1, d, N_HOLLOW] the mask of hollows from which d pips enter their lane's goal
    exactly."""
    tgt = np.full((2, 13, N_HOLLOW + 1), -1, np.int64)
    for d in range(1, 13):
        tgt[1, d, N_HOLLOW] = 0
        for h in range(N_HOLLOW):
            lane = h // LANE
            t = int(step[h - lane * LANE, d])
            if t == GOAL:
                tgt[0, d, h] = -2
                tgt[1, d, N_HOLLOW] |= 1 << h
            elif t >= 0:
                tgt[0, d, h] = lane * LANE + t
                tgt[1, d, lane * LANE + t] = h
    return tgt


@kernel
def partner_mask(x):
    """The partners of the hollows of mask x (round k <-> square 12+k, square k <-> round
    12+k): each lane's 24 bits rotated by 12 and moved to the other lane."""
    x0 = x & LANE_MASK
    x1 = (x >> LANE) & LANE_MASK
    r0 = ((x0 << 12) | (x0 >> 12)) & LANE_MASK
    r1 = ((x1 << 12) | (x1 >> 12)) & LANE_MASK
    return r1 | (r0 << LANE)


@kernel
def goal_move(key, origin, start, d, mover, step, pi):
    """move_one for an exact goal entry (rare: kept out of line)."""
    return move_one(key, origin, start, d, mover, step, pi)


@kernel(inline=True)
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


@kernel
def wins_now(before, after, owner, win):
    """Whether a die move that scored in `owner`'s goal brought its track to the centre."""
    return owner >= 0 and goals_of(after, owner) == win and goals_of(before, owner) < win


# --- the turns a roll allows: listed -----------------------------------------------------

@kernel(inline=True)
def goal_worth(v, owner, decided, w):
    """The weighted value after a goal entry into `owner`'s goal worth v before it."""
    return w[W_DECIDE + owner] if decided else v + w[W_ENTER + owner]


@kernel
def _singles(key, pos, n_m, mover, d, step, pi, w, v0, keys, vals, n):
    """Append every legal move of one die; returns the new count."""
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
            keys[n] = k1
            v = v0 + w[l1] - w[o]
            vals[n] = v if own < 0 else goal_worth(v, own, wins_now(key, k1, own, pi[PI_WIN]), w)
            n += 1
    return n


@kernel
def list_turns(key, pos, n_m, mover, a, b, step, pi, w, v0, keys, vals):
    """Every legal die sequence with dice (a, b): the key each leaves in keys[i]; a
    position reached by several orders or marbles appears several times. pos[:n_m] are the
    occupied hollows (fill_pos).

    vals[i] is v0 changed by the sequence under the caller's weights w (W_*): + w[h] for
    each hollow a marble ends on, - w[h] for each it leaves, + w[W_ENTER + s] per entry
    into seat s's goal; a sequence that brings seat s's track to the centre is worth
    w[W_DECIDE + s] (players value turns this way; any weights will do).

    Both dice are played when some order allows it; a die move that brings a scoring marble
    to the centre ends the turn at once. Otherwise one die (rule PI_SINGLE). Returns
    (count, whether both dice were played); count 0 is Moksha.
    """
    win = pi[PI_WIN]
    whole = pi[PI_WHOLE]
    n = np.int64(0)
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
                v1 = v0 + w[l1] - w[o]
                if own1 >= 0:
                    if goals_of(k1, own1) == win and goals_of(key, own1) < win:
                        keys[n] = k1  # the game is decided: the turn ends at once
                        vals[n] = w[W_DECIDE + own1]
                        n += 1
                        continue
                    v1 += w[W_ENTER + own1]
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
                            vals[n] = goal_worth(v1 + w[l2] - w[o2], own2, won, w)
                            n += 1
                            continue
                        th = lane2 * LANE + t
                        if (rest >> th) & 1:
                            th = PARTNER[th]
                            if (rest >> th) & 1:
                                continue
                        keys[n] = rest | (np.int64(1) << th)
                        vals[n] = v1 + w[th] - w[o2]
                        n += 1
                pos[i] = o
    if whole:
        n = _singles(key, pos, n_m, mover, a + b, step, pi, w, v0, keys, vals, n)
    if n > 0 or pi[PI_SINGLE] == 2:
        return n, True
    hi = max(a, b)
    lo = min(a, b)
    n = _singles(key, pos, n_m, mover, hi, step, pi, w, v0, keys, vals, np.int64(0))
    if lo != hi and (n == 0 or pi[PI_SINGLE] == 0):
        n = _singles(key, pos, n_m, mover, lo, step, pi, w, v0, keys, vals, n)
    return n, False


@kernel
def turn_action(k, full):
    """The action of a listed turn leaving position k (full: both dice were played)."""
    return k if full else k | ONE_DIE


@kernel
def is_first(keys, i):
    """Whether keys[i] does not occur before index i."""
    k = keys[i]
    for j in range(i):  # noqa: SIM110 (a plain loop for numba)
        if keys[j] == k:
            return False
    return True


@kernel
def legal_actions(st, out):
    """Fill out[:n] with the legal actions of the seat to act (distinct turns, in the order
    they are first listed; MOKSHA alone when none); returns n (0 once the playout is over).
    `out` holds at least MAX_SEQ actions."""
    if st.player[0] < 0:
        return 0
    key = st.key[0]
    p = st.player[0]
    n, full = list_turns(key, st.pos, fill_pos(key, st.pos), p, st.dice[0], st.dice[1],
                         st.step, st.pi, st.weights[p], np.int64(0), st.keys, st.vals)
    if n == 0:
        out[0] = MOKSHA
        return 1
    m = 0
    for i in range(n):
        if is_first(st.keys, i):
            out[m] = turn_action(st.keys[i], full)
            m += 1
    return m


@kernel
def turn_option(key, mover, a):
    """The option (OPT_*) that action `a` of `mover` from position `key` uses, or -1 (a
    plain turn, or Moksha: never forbidden). A turn entering both goals counts as
    opponent-goal."""
    if a & MOKSHA:
        return -1
    if goals_of(a, 1 - mover) > goals_of(key, 1 - mover):
        return OPT_OPPONENT_GOAL
    if goals_of(a, mover) > goals_of(key, mover):
        return OPT_OWN_GOAL
    return -1


@kernel
def option_of(st, a):
    """The option (OPT_*) action `a` of the seat to act uses, or -1: its goal option
    (turn_option) if it enters a goal, else OPT_LANE_CHANGE if it needs a lane change
    (needs_lane_change), else -1."""
    o = turn_option(st.key[0], st.player[0], a)
    if o >= 0 or a & MOKSHA:
        return o
    return OPT_LANE_CHANGE if needs_lane_change(st, a) else np.int64(-1)


# --- lane changes: can a turn be played without one? --------------------------------------

@kernel(inline=True)
def lane_move(key, origin, d, mover, step, pi, tgt):
    """die_move without a lane change: the marble on `origin` counts d pips along its own
    lane and lands on that lane's hollow, which must be empty (or enters a goal exactly).
    Returns (new key or -1, landing hollow, owner of the goal scored or -1)."""
    t = tgt[0, d, origin]
    if t >= 0:
        if (key >> t) & 1:
            return np.int64(-1), -1, -1  # the landing would change lanes (or is illegal)
        return (key & ~(np.int64(1) << origin)) | (np.int64(1) << t), t, -1
    if t == -1:
        return np.int64(-1), -1, -1
    return goal_move(key, origin, origin, d, mover, step, pi)


@kernel
def lane_free_single(k, key, mover, d, step, pi, tgt):
    """Whether one die of d pips, moved without a lane change, takes `key` to k."""
    x = key & HOLLOWS
    while x:
        o = trailing_zeros(x)
        x &= x - 1
        if lane_move(key, o, d, mover, step, pi, tgt)[0] == k:
            return True
    return False


@kernel
def has_single(key, mover, d, step, pi):
    """Whether some marble can legally move d pips (lane changes allowed)."""
    x = key & HOLLOWS
    while x:
        o = trailing_zeros(x)
        x &= x - 1
        if move_one(key, o, o, d, mover, step, pi)[0] >= 0:
            return True
        p = PARTNER[o]
        if (key >> p) & 1 and move_one(key, o, p, d, mover, step, pi)[0] >= 0:
            return True
    return False


@kernel
def lane_free(k, key, mover, a, b, full, step, pi, tgt):
    """Whether a turn of `mover` with dice (a, b) from `key` can leave position k (bits
    0-53 are read) by a die sequence that changes no lane: no die's move starts from the
    partner hollow, none ends on the partner of an occupied hollow. full: the roll plays
    both dice (list_turns' second result); else one die, as PI_SINGLE allows.

    A lane-free sequence moves marble o1 to its lane's hollow t1, then marble o2 (any
    other, or o1 again from t1) to its lane's next hollow; the position it leaves differs
    from the first move's in o2 alone, so the second marble is found, not searched."""
    k &= KEY_MASK
    if not full:
        hi = max(a, b)
        lo = min(a, b)
        if lane_free_single(k, key, mover, hi, step, pi, tgt):
            return True
        if lo == hi or (pi[PI_SINGLE] != 0 and has_single(key, mover, hi, step, pi)):
            return False  # the lower die is not a legal turn
        return lane_free_single(k, key, mover, lo, step, pi, tgt)
    whole = pi[PI_WHOLE]
    for order in range(1 if a == b else 2):
        d1 = a if order == 0 else b
        d2 = b if order == 0 else a
        x = key & HOLLOWS
        while x:
            o1 = trailing_zeros(x)
            x &= x - 1
            k1, l1, own1 = lane_move(key, o1, d1, mover, step, pi, tgt)
            if k1 < 0:
                continue
            if wins_now(key, k1, own1, pi[PI_WIN]):
                if k1 == k:
                    return True  # the game is decided: the turn ends at once
                continue
            rem = k1 & ~k & HOLLOWS
            if rem == 0 or rem & (rem - 1):
                continue
            o2 = trailing_zeros(rem)
            if whole and o2 == l1 and own1 < 0:
                continue  # one marble's two dice are one move (below)
            if lane_move(k1, o2, d2, mover, step, pi, tgt)[0] == k:
                return True
    if whole:
        return lane_free_single(k, key, mover, a + b, step, pi, tgt)
    return False


@kernel
def needs_lane_change(st, a):
    """Whether action `a` (a legal turn) of the seat to act cannot be played with its
    roll without a lane change (False for MOKSHA)."""
    if a & MOKSHA:
        return False
    return not lane_free(a, st.key[0], st.player[0], st.dice[0], st.dice[1],
                         not (a & ONE_DIE), st.step, st.pi, st.tgt)


# --- the turns a roll allows: counted and drawn uniformly (random play) ------------------

@kernel(inline=True)
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


@kernel
def multiplicity(k, key, a, b, mover, step, pi, tgt, cand):
    """How many of the sequences `list_turns` lists with both dice (and, under PI_WHOLE, the
    whole moves of a + b) leave position k.

    Only a few first moves can lead to k. A first marble that is not back on its hollow
    in k emptied it; one that is must have been replaced by the second marble, so k then
    empties one hollow only (the second marble's) and fills one (where the first marble
    went). So the candidates are the moves of the marbles whose hollows k empties, and,
    when k empties one hollow and fills one, the moves of other marbles that land on the
    filled one (found with the reverse table; goal entries land through re-entry, so those
    are tried too). Should k not empty and fill one hollow each, or two each, every marble
    is tried. The candidates are listed in `cand`, then followed in one loop.
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


@kernel(inline=True)
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


@kernel
def nth_bit(x, q):
    """Index of the q-th (from 0) set bit of x, or -1."""
    for _ in range(q):
        x &= x - 1
    if x == 0:
        return -1
    return trailing_zeros(x)


@kernel(inline=True)
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


@kernel
def sample_turn(state, key, pos, n_m, mover, a, b, step, pi, tgt, cand, tries):
    """A position drawn uniformly among the distinct positions a turn playing both dice can
    leave (the full turns of `list_turns`), from random stream `state`, or -1 after `tries`
    rejected proposals; pos[:n_m] are the occupied hollows.

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


# --- one turn explained (for the game log) -----------------------------------------------

@kernel
def _put_move(moves, row, d, origin, start, landing, owner):
    """Write one die move into moves[row] (turn_moves' layout)."""
    moves[row, 0] = d
    moves[row, 1] = origin
    moves[row, 2] = start
    moves[row, 3] = landing
    moves[row, 4] = owner


@kernel
def _one_move_to(st, key, d, target, row, skip):
    """Find one die move of d pips from `key`, of a marble not on hollow `skip`, that
    leaves `target`; writes st.moves[row] and returns True, or False."""
    mover = st.player[0]
    x = key & HOLLOWS
    while x:
        o = trailing_zeros(x)
        x &= x - 1
        if o == skip:
            continue
        for s in range(2):
            start = o if s == 0 else PARTNER[o]
            if s == 1 and not (key >> start) & 1:
                break
            k1, l1, own = move_one(key, o, start, d, mover, st.step, st.pi)
            if k1 == target and k1 >= 0:
                _put_move(st.moves, row, d, o, start, l1, own)
                return True
    return False


@kernel
def turn_moves(st, a):
    """One die sequence of the seat to act's roll that plays action `a` (a legal turn),
    into st.moves rows (pips, origin hollow, start hollow, landing hollow, goal owner or
    -1); returns the number of die moves (0 for MOKSHA)."""
    if a & MOKSHA:
        return 0
    key = st.key[0]
    target = a & KEY_MASK
    d_a = st.dice[0]
    d_b = st.dice[1]
    if a & ONE_DIE:
        for d in (max(d_a, d_b), min(d_a, d_b)):
            if _one_move_to(st, key, d, target, np.int64(0), np.int64(-1)):
                return 1
        return 0
    whole = st.pi[PI_WHOLE]
    if whole and _one_move_to(st, key, d_a + d_b, target, np.int64(0), np.int64(-1)):
        return 1
    mover = st.player[0]
    for order in range(2):
        d1 = d_a if order == 0 else d_b
        d2 = d_b if order == 0 else d_a
        x = key & HOLLOWS
        while x:
            o = trailing_zeros(x)
            x &= x - 1
            for s in range(2):
                start = o if s == 0 else PARTNER[o]
                if s == 1 and not (key >> start) & 1:
                    break
                k1, l1, own = move_one(key, o, start, d1, mover, st.step, st.pi)
                if k1 < 0:
                    continue
                _put_move(st.moves, 0, d1, o, start, l1, own)
                if wins_now(key, k1, own, st.pi[PI_WIN]):
                    if k1 == target:
                        return 1
                    continue
                skip = l1 if whole and own < 0 else -1  # whole-move: not the same marble
                if _one_move_to(st, k1, d2, target, np.int64(1), skip):
                    return 2
    return 0


# --- the game's flow ---------------------------------------------------------------------
# The functions of one turn are inlined into the fast path's loop: a call that passes the
# state costs as much as a short rule (numba passes each of its arrays field by field).

@kernel(inline=True)
def to_move(st):
    """The seat to act, -1 when the playout is over."""
    return st.player[0]


@kernel(inline=True)
def is_over(st):
    """Whether the playout (the game, or both games of a match) is over."""
    return st.player[0] < 0


@kernel(inline=True)
def setup(st, seed, playout):
    """Key the streams to playout `playout` of the run keyed by `seed`, set up the first
    game and roll the first player's dice."""
    seed_lanes(st.rng, seed, playout)
    st.ply[0] = 0
    st.capped[0] = 0
    st.winner[0] = -1
    for s in range(2):
        st.points[s] = 0
        st.game_end[s] = -1
        st.game_winner[s] = -1
        st.game_turns[s] = 0
        st.game_key[s] = 0
    for c in range(st.pc.shape[0]):
        st.pc[c] = 0
    start_game(st, np.int64(0))
    roll(st)


@kernel(inline=True)
def apply(st, a):
    """The seat to act plays action `a` (a legal action); the game then advances to the
    next decision (rolling its dice) or the end of the playout."""
    if a & MOKSHA:
        end = np.int64(End.MOKSHA)
        winner = np.int64(-1)
        if st.extra[0]:  # a Moksha in the extra turn: a draw as printed, or (option) a
            st.aggs.misc[Misc.EXTRA_MOKSHA] += 1  # failed extra turn, the start player wins
            if st.pi[PI_EXTRA_WIN] == 1:
                end = np.int64(End.EXTRA_FAIL)
                winner = st.starter[0]
    else:
        end, winner = play_turn(st, a)
        if end < 0 and st.turns[0] >= st.pi[PI_MAX_TURNS]:
            end = np.int64(End.CAPPED)  # the safety cap, checked before the next roll
    if end >= 0:
        finish_game(st, end, winner)
    advance(st)


@kernel(inline=True)
def start_game(st, g):
    """Game g of the playout begins from the start position, seat g to move."""
    st.key[0] = st.start[0]
    st.game[0] = g
    st.starter[0] = g
    st.player[0] = g
    st.turns[0] = 0
    st.extra[0] = 0
    ev.emit(st.log, st.log_n, st.ply[0] + 1, np.int64(-1), np.int64(EV_GAME), g, g,
            st.start[0], np.int64(0))


@kernel(inline=True)
def advance(st):
    """After a turn: the next game of a match or the end of the playout once a game has
    ended, else the roll of the seat to act."""
    if st.player[0] < 0:
        if st.pi[PI_MATCH] == 1 and st.game[0] == 0:
            start_game(st, np.int64(1))
        else:
            finish_playout(st)
            return
    roll(st)


@kernel(inline=True)
def roll(st):
    """The seat to act rolls both dice from its own stream."""
    p = st.player[0]
    state = st.rng[st.lane[p]]
    st.dice[0] = die(state, SIX)
    st.dice[1] = die(state, SIX)
    ev.emit(st.log, st.log_n, st.ply[0] + 1, p, np.int64(EV_ROLL), st.dice[0], st.dice[1],
            np.int64(0), np.int64(0))


@kernel(inline=True)
def play_turn(st, a):
    """The position after the turn; goals, the centre and the extra turn of a match.
    Returns (End code, winning seat) when the turn ends the game, else (-1, -1)."""
    mover = st.player[0]
    before = st.key[0]
    key = a & KEY_MASK
    st.key[0] = key
    st.turns[0] += 1
    st.ply[0] += 1
    st.aggs.misc[Misc.TURNS] += 1
    if a & ONE_DIE:
        st.aggs.misc[Misc.SINGLE_DIE] += 1
        st.pc[Cluster.SINGLE_DIE] += 1
    win = st.pi[PI_WIN]
    for s in range(2):
        d = goals_of(key, s) - goals_of(before, s)
        if d:
            st.aggs.goal_moves[mover, s] += d
            ev.emit(st.log, st.log_n, st.ply[0], mover, np.int64(EV_GOAL), s, goals_of(key, s),
                    win, np.int64(0))
    starter = st.starter[0]
    if st.extra[0]:
        if goals_of(key, 1 - starter) >= win:
            return np.int64(End.BOTH), np.int64(-1)
        return np.int64(End.EXTRA_FAIL), starter
    g0 = goals_of(key, ROUND)
    g1 = goals_of(key, SQUARE)
    reached0 = g0 >= win and goals_of(before, ROUND) < win
    if reached0 or (g1 >= win and goals_of(before, SQUARE) < win):
        w = 0 if g0 >= win else 1
        # the extra turn evens the turns: only when the start player reached the centre
        # on its own turn (not through a goal the other player scored for it)
        if st.pi[PI_MATCH] == 1 and w == starter and mover == starter:
            st.extra[0] = 1
            st.player[0] = 1 - starter
            ev.emit(st.log, st.log_n, st.ply[0], mover, np.int64(EV_EXTRA), starter,
                    1 - starter, np.int64(0), np.int64(0))
            return np.int64(-1), np.int64(-1)
        return np.int64(End.DIRECT), w
    st.player[0] = 1 - mover
    return np.int64(-1), np.int64(-1)


@kernel
def sides(key):
    """Marbles on seat 0's and on seat 1's long side of the board."""
    side0 = popcount(key & SOUTH)
    return side0, popcount(key & HOLLOWS) - side0


@kernel
def game_points(end, winner, key, pi):
    """Competition points (seat 0, seat 1) of one game ended by End code `end`."""
    win = pi[PI_WIN]
    if end == End.MOKSHA:
        return pi[PI_MOKSHA_POINTS], pi[PI_MOKSHA_POINTS]
    if end == End.DIRECT or end == End.EXTRA_FAIL:
        lead = win - goals_of(key, 1 - winner)
        return (lead, np.int64(0)) if winner == 0 else (np.int64(0), lead)
    if end == End.BOTH:
        side0, side1 = sides(key)
        return max(side0 - side1, 0), max(side1 - side0, 0)
    return np.int64(0), np.int64(0)


@kernel(inline=True)
def finish_game(st, end, winner):
    """The current game ends (End code `end`): its winner, statistics and points."""
    g = st.game[0]
    key = st.key[0]
    side0, side1 = sides(key)
    if end == End.BOTH and side0 != side1:
        winner = 0 if side0 > side1 else 1
    st.game_end[g] = end
    st.game_winner[g] = winner
    st.game_turns[g] = st.turns[0]
    st.game_key[g] = key
    if end == End.CAPPED:
        st.capped[0] = 1
    record_game(st.aggs, g, end, winner, key, st.starter[0], st.turns[0])
    if winner >= 0:
        st.pc[Cluster.START_WINS if winner == st.starter[0] else Cluster.SECOND_WINS] += 1
    st.pc[Cluster.END_DIRECT + end] += 1
    ev.emit(st.log, st.log_n, st.ply[0], np.int64(-1), np.int64(EV_END), end, winner, side0,
            side1)
    if st.pi[PI_MATCH] == 1:
        p0, p1 = game_points(end, winner, key, st.pi)
        st.points[0] += p0
        st.points[1] += p1
        ev.emit(st.log, st.log_n, st.ply[0], np.int64(-1), np.int64(EV_POINTS), p0, p1,
                st.points[0], st.points[1])
    st.player[0] = -1


@kernel(inline=True)
def record_game(aggs, g, end, winner, key, starter, turns):
    """Add one game's statistics (g: its number in the playout)."""
    if winner < 0:
        aggs.starts[Start.DRAW] += 1
        aggs.game_wins[g, Outcome.DRAW] += 1
    else:
        aggs.starts[Start.START_PLAYER if winner == starter else Start.SECOND_PLAYER] += 1
        aggs.game_wins[g, winner] += 1
    aggs.ends[end] += 1
    aggs.game_len[min(turns, N_LEN - 1)] += 1
    aggs.goals[0, goals_of(key, ROUND)] += 1
    aggs.goals[1, goals_of(key, SQUARE)] += 1
    if winner >= 0 and end != End.CAPPED:
        aggs.loser[goals_of(key, 1 - winner)] += 1
    aggs.misc[Misc.GAMES] += 1


@kernel(inline=True)
def finish_playout(st):
    """The playout is over: its winner (the game's, or the match's on points) and the
    playout's statistics."""
    aggs = st.aggs
    match = st.pi[PI_MATCH] == 1
    result = st.game_winner[0]
    p0 = st.points[0]
    p1 = st.points[1]
    if match:
        result = 0 if p0 > p1 else (1 if p1 > p0 else -1)
        aggs.points[0, min(p0, N_PTS - 1)] += 1
        aggs.points[1, min(p1, N_PTS - 1)] += 1
        aggs.diff[max(0, min(p0 - p1 + N_PTS - 1, 2 * N_PTS - 2))] += 1
    aggs.wins[Outcome.DRAW if result < 0 else result] += 1
    aggs.length[min(st.ply[0], N_LEN - 1)] += 1
    aggs.misc[Misc.CAPPED] += st.capped[0]
    record_clusters(st)
    st.winner[0] = result
    st.player[0] = -1
    ev.emit(st.log, st.log_n, st.ply[0], np.int64(-1), np.int64(EV_RESULT), result,
            st.ply[0], p0 if match else np.int64(-1), p1 if match else np.int64(-1))


@kernel(inline=True)
def add_cluster(clusters, c, y, x):
    """Add one playout's y_g and x_g of clustered rate c (stats.Cluster)."""
    clusters[c, Moment.YY] += y * y
    clusters[c, Moment.XX] += x * x
    clusters[c, Moment.XY] += x * y


@kernel
def record_clusters(st):
    """Add the finished playout's per-playout sums of the clustered rates."""
    cl = st.aggs.clusters
    pc = st.pc
    games = st.game[0] + 1
    add_cluster(cl, Cluster.SINGLE_DIE, pc[Cluster.SINGLE_DIE], st.ply[0])
    add_cluster(cl, Cluster.START_WINS, pc[Cluster.START_WINS], games)
    add_cluster(cl, Cluster.SECOND_WINS, pc[Cluster.SECOND_WINS], games)
    add_cluster(cl, Cluster.START_DECISIVE, pc[Cluster.START_WINS],
                pc[Cluster.START_WINS] + pc[Cluster.SECOND_WINS])
    for c in range(Cluster.END_DIRECT, Cluster.END_CAPPED + 1):
        add_cluster(cl, c, pc[c], games)


@kernel
def set_position(st, key, player, game, extra):
    """Hand-built position (tests, tools): `key` with `player` to move in game `game` of
    the playout (its start seat is `game`), in a match's extra turn when `extra` is 1; the
    roll is drawn as in play."""
    st.key[0] = key
    st.game[0] = game
    st.starter[0] = game
    st.player[0] = player
    st.turns[0] = 0
    st.extra[0] = extra
    roll(st)


@kernel
def set_dice(st, a, b):
    """Replace the roll of the seat to act (hand-built positions and rulebook examples)."""
    st.dice[0] = a
    st.dice[1] = b


@kernel
def outcome(st, out):
    """out[s] = 1.0 for the winning seat of the playout (none on a draw), else 0."""
    for s in range(2):
        out[s] = 1.0 if st.winner[0] == s else 0.0


@kernel
def observe(st, out):
    """What every player sees (a perfect-information game): the OBS_* vector."""
    out[OBS_KEY] = st.key[0]
    out[OBS_TO_MOVE] = st.player[0]
    out[OBS_DIE_A] = st.dice[0]
    out[OBS_DIE_B] = st.dice[1]
    out[OBS_GAME] = st.game[0]
    out[OBS_STARTER] = st.starter[0]
    out[OBS_EXTRA] = st.extra[0]
    out[OBS_TURNS] = st.turns[0]
