"""Samsara's players: each chooses one of the legal actions of the seat to act.

Samsara is a game of perfect information: a player sees the whole position, the goals and
its own roll; only future dice are unknown, and no player reads them (a player's random
choices come from its own stream, which also rolls its dice, after the roll). The turns
come from the rules (`rules.list_current`, `rules.sample_current`); a player only values
and picks them.

- random: uniform over the distinct legal turns (positions). A full turn is drawn by the
  rules' rejection sampler without listing the turns; after TRIES rejected proposals (or
  when no order plays both dice) the turns are listed and one distinct position drawn.
- greedy: the turn whose position it values most (ties drawn at random); a decided game
  is worth +-PE_WIN, each goal PE_GOAL, each marble values[seat, hollow].
- lookahead: greedy's State.pi[PI_TOP_K] best turns, each valued by the opponent's greedy
  reply averaged over its 21 rolls; the best of them.

`forbid[seat, option]` (rules.OPTIONS) lists what a seat may not play: a player never
chooses a turn whose `rules.option_of` is forbidden to it, unless every legal turn is
(then the set cannot be honoured and is ignored for that turn; Moksha is never forbidden).
"""

import numpy as np
from numba import njit

from kernels.bits import trailing_zeros
from kernels.config import NO_ALLOC
from kernels.rng import below
from kernels.samsara import rules as R
from kernels.samsara.stats import Misc

# Policies (State.pol)
RANDOM = 0
GREEDY = 1
LOOKAHEAD = 2

# Evaluation weights (State.pe, int64); the marble values are State.values[seat, hollow]
PE_GOAL = 0
PE_WIN = 1
N_PE = 2

TRIES = 64  # random policy: proposals drawn before listing the turns instead


@njit(**NO_ALLOC)
def allowed(st, ban, k):
    """Whether turn k (a position or an action) is not forbidden by `ban` to the seat to
    act."""
    opt = R.option_of(st, k)
    return opt < 0 or not ban[opt]


@njit(**NO_ALLOC)
def honoured(st, ban, keys, n):
    """Whether `ban` forbids anything and leaves some listed turn allowed."""
    banned = False
    for o in range(ban.shape[0]):
        banned = banned or ban[o]
    if not banned:
        return False
    for i in range(n):  # noqa: SIM110 (a plain loop for numba)
        if allowed(st, ban, keys[i]):
            return True
    return False


@njit(**NO_ALLOC)
def choose(st, forbid):
    """The action the seat to act chooses under its policy (st.pol), never one whose
    option forbid[seat] forbids (unless every legal turn is forbidden)."""
    seat = st.player[0]
    state = st.rng[st.lane[seat]]
    ban = forbid[seat]
    p = st.pol[seat]
    if p == RANDOM:
        return random_turn(st, state, ban)
    n, full = R.list_current(st)
    if n == 0:
        return np.int64(R.MOKSHA)
    banned = honoured(st, ban, st.keys, n)
    key = st.key[0]
    value_turns(st, seat, key, st.keys, st.scored, n, st.vals)
    if p == GREEDY:
        i = pick_best(st, state, n, ban, banned)
    else:
        i = pick_lookahead(st, state, seat, n, ban, banned)
    return R.turn_action(st.keys[i], full)


# --- random -----------------------------------------------------------------------------

@njit(**NO_ALLOC)
def random_turn(st, state, ban):
    """A turn drawn uniformly among the distinct allowed positions."""
    banned = False
    for o in range(ban.shape[0]):
        banned = banned or ban[o]
    for _ in range(TRIES if banned else 1):
        k = R.sample_current(st, state, np.int64(TRIES))
        if k < 0:
            break
        if not banned or allowed(st, ban, k):
            return k
    n, full = R.list_current(st)
    if n == 0:
        return np.int64(R.MOKSHA)
    st.aggs.misc[Misc.FALLBACK] += 1
    banned = honoured(st, ban, st.keys, n)
    while True:
        i = below(state, n)
        if R.is_first(st.keys, i) and (not banned or allowed(st, ban, st.keys[i])):
            return R.turn_action(st.keys[i], full)


# --- greedy -----------------------------------------------------------------------------

@njit(**NO_ALLOC)
def base_value(st, seat, key):
    """Greedy's value of position `key` to `seat`, before the turn is valued."""
    v = st.pe[PE_GOAL] * (R.goals_of(key, seat) - R.goals_of(key, 1 - seat))
    x = key & R.HOLLOWS
    while x:
        v += st.values[seat, trailing_zeros(x)]
        x &= x - 1
    return v


@njit(**NO_ALLOC, inline="always")
def turn_value(st, seat, key, k, scored, base):
    """Greedy's value to `seat` of the turn from `key` to position k that scored `scored`
    (rules' code): +-PE_WIN when it decides the game, else `base` (base_value of key) plus
    the marbles' change and PE_GOAL per goal entered (for seat, or against it)."""
    pe = st.pe
    if scored >= R.DECIDED0:
        owner = 0 if scored & R.DECIDED0 else 1
        return pe[PE_WIN] if owner == seat else -pe[PE_WIN]
    v = base
    gone = key & ~k & R.HOLLOWS
    while gone:
        v -= st.values[seat, trailing_zeros(gone)]
        gone &= gone - 1
    came = k & ~key & R.HOLLOWS
    while came:
        v += st.values[seat, trailing_zeros(came)]
        came &= came - 1
    e0 = scored & 3
    e1 = (scored >> 2) & 3
    return v + pe[PE_GOAL] * (e0 - e1 if seat == 0 else e1 - e0)


@njit(**NO_ALLOC)
def value_turns(st, seat, key, keys, scored, n, vals):
    """vals[i]: greedy's value to `seat` of listed turn i from `key`."""
    base = base_value(st, seat, key)
    for i in range(n):
        vals[i] = turn_value(st, seat, key, keys[i], scored[i], base)


@njit(**NO_ALLOC)
def pick_best(st, state, n, ban, banned):
    """Index of a best-valued listed turn (st.vals); ties drawn uniformly among distinct
    positions; only allowed turns when `banned`."""
    keys = st.keys
    vals = st.vals
    best = vals[0]
    first = True
    for i in range(n):
        if banned and not allowed(st, ban, keys[i]):
            continue
        if first or vals[i] > best:
            best = vals[i]
            first = False
    ties = 0
    for i in range(n):
        if vals[i] == best and is_choice(st, ban, banned, i):
            ties += 1
    r = below(state, ties) if ties > 1 else 0
    for i in range(n):
        if vals[i] == best and is_choice(st, ban, banned, i):
            if r == 0:
                return i
            r -= 1
    return 0


@njit(**NO_ALLOC, inline="always")
def is_choice(st, ban, banned, i):
    """Whether listed turn i is the first of its position and allowed."""
    return R.is_first(st.keys, i) and (not banned or allowed(st, ban, st.keys[i]))


# --- lookahead --------------------------------------------------------------------------

@njit(**NO_ALLOC)
def reply_value(st, key, seat):
    """Expected greedy value, for `seat` who just moved, of position `key` after the
    opponent's greedy reply: sum over the 21 rolls of weight (1 or 2, of 36) x value."""
    opp = 1 - seat
    n_m = R.fill_pos(key, st.pos2)
    base = base_value(st, opp, key)
    total = 0
    for a in range(1, 7):
        for b in range(a, 7):
            w = 1 if a == b else 2
            n, _full = R.list_turns(key, st.pos2, n_m, opp, a, b, st.step, st.pi, st.rkeys,
                                    st.rscored)
            if n == 0:
                continue  # Moksha: a draw, worth 0
            best = turn_value(st, opp, key, st.rkeys[0], st.rscored[0], base)
            for i in range(1, n):
                v = turn_value(st, opp, key, st.rkeys[i], st.rscored[i], base)
                if v > best:
                    best = v
            total -= w * best  # the evaluation is antisymmetric between the players
    return total


@njit(**NO_ALLOC)
def top_turns(st, n, k_max, ban, banned):
    """The indices of up to k_max best-valued distinct allowed turns into st.cand (best
    first); returns their number."""
    keys = st.keys
    vals = st.vals
    cand = st.cand
    nc = 0
    for _ in range(k_max):
        bi = -1
        for i in range(n):
            if bi >= 0 and vals[i] <= vals[bi]:
                continue
            if banned and not allowed(st, ban, keys[i]):
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
    return nc


@njit(**NO_ALLOC)
def pick_lookahead(st, state, seat, n, ban, banned):
    """Index of the turn with the best average greedy value after the opponent's greedy
    reply to each of its 21 rolls, among the PI_TOP_K best turns by greedy value; a turn
    that wins is taken at once (pick_best)."""
    pe = st.pe
    vals = st.vals
    best_now = -pe[PE_WIN] - 1
    for i in range(n):
        if (not banned or allowed(st, ban, st.keys[i])) and vals[i] > best_now:
            best_now = vals[i]
    if best_now >= pe[PE_WIN]:
        return pick_best(st, state, n, ban, banned)
    nc = top_turns(st, n, min(st.pi[R.PI_TOP_K], st.cand.shape[0]), ban, banned)
    cand = st.cand
    cval = st.cval
    for c in range(nc):
        if vals[cand[c]] <= -pe[PE_WIN]:
            cval[c] = -36 * pe[PE_WIN]
        else:
            cval[c] = reply_value(st, st.keys[cand[c]], seat)
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
