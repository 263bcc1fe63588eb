"""Samsara's players: each chooses one of the legal actions of the seat to act.

Samsara is a game of perfect information: a player sees the whole position, the goals and
its own roll; only future dice are unknown, and no player reads them (a player's random
choices come from its own stream, which also rolls its dice, after the roll). The turns
come from the rules (`rules.list_turns`, `rules.sample_turn`); a player only values and
picks them.

- random: uniform over the distinct legal turns (positions). A full turn is drawn by the
  rules' rejection sampler without listing the turns; after TRIES rejected proposals (or
  when no order plays both dice) the turns are listed and one distinct position drawn.
- greedy: the turn whose position it values most (ties drawn at random): a decided game
  is worth +-PE_WIN, each goal PE_GOAL, each marble values[seat, hollow]; the rules' turn
  listing adds these weights up as it lists (`weights_of`).
- lookahead: greedy's State.pi[PI_TOP_K] best turns, each valued by the opponent's greedy
  reply averaged over its 21 rolls; the best of them.

`forbid[seat, option]` (rules.OPTIONS) lists what a seat may not play: a player never
chooses a turn that uses an option forbidden to it (`permitted`: its goal option,
`rules.turn_option`, and, when lane-change is forbidden, whether its position can be
reached without a lane change, `rules.lane_free`; a turn may use two options), unless
every legal turn does (then the set cannot be honoured and is ignored for that turn; Moksha
is never forbidden). A lane-change ban is applied by dropping the turns that need one from
the listing (`restrict`) before the player values them; should that leave nothing, lane
changes are allowed for the turn (a forced move, as the rules would play it) and the goal
options are still honoured when they can be.
"""

import numpy as np

from kernels.bits import trailing_zeros
from kernels.jit import kernel
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


def weights_of(values: np.ndarray, pe: np.ndarray, opponent_scores: bool = True
               ) -> np.ndarray:
    """weights[seat]: greedy's listing weights for `seat` (rules.W_*): its marble values,
    +-PE_GOAL per goal entry for it or against it (an entry into the opponent's goal is
    worth nothing when it scores nothing: opponent_scores False), +-PE_WIN for a decided
    game."""
    w = np.zeros((2, R.N_W), np.int64)
    for seat in range(2):
        w[seat, :R.N_HOLLOW] = values[seat]
        for owner in range(2):
            sign = 1 if owner == seat else -1
            scores = owner == seat or opponent_scores
            w[seat, R.W_ENTER + owner] = sign * pe[PE_GOAL] if scores else 0
            w[seat, R.W_DECIDE + owner] = sign * pe[PE_WIN]
    return w


@kernel(inline=True)
def choose(st, forbid):
    """The action the seat to act chooses under its policy (st.pol), never one whose
    option forbid[seat] forbids (unless every legal turn is forbidden)."""
    seat = st.player[0]
    state = st.rng[st.lane[seat]]
    if st.pol[seat] == RANDOM:
        return random_turn(st, state, forbid[seat])
    return valued_turn(st, state, forbid[seat])


# --- forbidden options ------------------------------------------------------------------

@kernel
def allowed(ban, key, mover, k):
    """Whether turn k (a position or an action) of `mover` from `key` is not forbidden."""
    opt = R.turn_option(key, mover, k)
    return opt < 0 or not ban[opt]


@kernel
def permitted(st, ban, k, full):
    """Whether turn k (a position or an action) of the seat to act uses no option `ban`
    forbids: its goal option, and a lane change when lane-change is forbidden (full: the
    roll plays both dice)."""
    key = st.key[0]
    mover = st.player[0]
    if not allowed(ban, key, mover, k):
        return False
    return not ban[R.OPT_LANE_CHANGE] or R.lane_free(k, key, mover, st.dice[0], st.dice[1],
                                                     full, st.step, st.pi, st.tgt)


@kernel
def restrict(st, ban, n, full):
    """When `ban` forbids lane changes: keep in st.keys / st.vals[:n] (the listed turns of
    the seat to act, full: both dice played) only the turns `ban` permits, in their order;
    returns their number. Returns n, the listing untouched, when lane changes are not
    forbidden or no listed turn is permitted (the ban is then ignored for this turn)."""
    if not ban[R.OPT_LANE_CHANGE]:
        return n
    keys = st.keys
    vals = st.vals
    m = 0
    for i in range(n):  # a kept turn is never overwritten: m <= i
        if permitted(st, ban, keys[i], full):
            keys[m] = keys[i]
            vals[m] = vals[i]
            m += 1
    return m if m > 0 else n


@kernel
def option_against(ban, st, a):
    """The option of action `a` of the seat to act as a filter holding forbid table `ban`
    (that seat's) must see it: OPT_LANE_CHANGE when `ban` forbids lane changes and `a`
    needs one (even if it enters a goal), else its goal option (rules.turn_option) or -1.
    Lane changes are looked for only when forbidden (the filter only asks whether the
    option is forbidden); kernels/search.py's filter reads this (search_hooks)."""
    if ban[R.OPT_LANE_CHANGE] and R.needs_lane_change(st, a):
        return np.int64(R.OPT_LANE_CHANGE)
    return R.turn_option(st.key[0], st.player[0], a)


@kernel
def bans_any(ban):
    """Whether `ban` forbids any option."""
    banned = False
    for o in range(ban.shape[0]):
        banned = banned or ban[o]
    return banned


@kernel
def honoured(ban, keys, n, key, mover):
    """Whether `ban` forbids anything and leaves some listed turn allowed (otherwise the
    set is ignored for this turn)."""
    if not bans_any(ban):
        return False
    for i in range(n):  # noqa: SIM110 (a plain loop for numba)
        if allowed(ban, key, mover, keys[i]):
            return True
    return False


@kernel
def is_choice(keys, i, ban, banned, key, mover):
    """Whether listed turn i is the first of its position and allowed."""
    return R.is_first(keys, i) and (not banned or allowed(ban, key, mover, keys[i]))


# --- random -----------------------------------------------------------------------------

@kernel(inline=True)
def random_turn(st, state, ban):
    """A turn drawn uniformly among the distinct allowed positions."""
    key = st.key[0]
    mover = st.player[0]
    a = st.dice[0]
    b = st.dice[1]
    n_m = R.fill_pos(key, st.pos)
    banned = bans_any(ban)
    for _ in range(TRIES if banned else 1):
        k = R.sample_turn(state, key, st.pos, n_m, mover, a, b, st.step, st.pi, st.tgt,
                          st.cand, np.int64(TRIES))
        if k < 0:
            break
        if not banned or permitted(st, ban, k, True):
            return k
    n, full = R.list_turns(key, st.pos, n_m, mover, a, b, st.step, st.pi, st.weights[mover],
                           np.int64(0), st.keys, st.vals)
    if n == 0:
        return np.int64(R.MOKSHA)
    st.aggs.misc[Misc.FALLBACK] += 1
    n = restrict(st, ban, n, full)
    i = pick_random(state, st.keys, n, ban, honoured(ban, st.keys, n, key, mover), key,
                    mover)
    return R.turn_action(st.keys[i], full)


@kernel
def pick_random(state, keys, n, ban, banned, key, mover):
    """Index of a listed turn drawn uniformly among the distinct (allowed) positions."""
    while True:
        i = below(state, n)
        if is_choice(keys, i, ban, banned, key, mover):
            return i


# --- greedy -----------------------------------------------------------------------------

@kernel(inline=True)
def valued_turn(st, state, ban):
    """The greedy or lookahead choice of the seat to act (st.pol)."""
    key = st.key[0]
    seat = st.player[0]
    n_m = R.fill_pos(key, st.pos)
    base = base_value(st.values[seat], st.pe, seat, key)
    n, full = R.list_turns(key, st.pos, n_m, seat, st.dice[0], st.dice[1], st.step, st.pi,
                           st.weights[seat], base, st.keys, st.vals)
    if n == 0:
        return np.int64(R.MOKSHA)
    n = restrict(st, ban, n, full)
    banned = honoured(ban, st.keys, n, key, seat)
    if st.pol[seat] == GREEDY:
        i = pick_best(state, st.keys, st.vals, n, ban, banned, key, seat)
    else:
        i = pick_lookahead(st, state, n, ban, banned)
    return R.turn_action(st.keys[i], full)


@kernel
def base_value(values, pe, seat, key):
    """Greedy's value of position `key` to `seat` (values: that seat's marble values)."""
    v = pe[PE_GOAL] * (R.goals_of(key, seat) - R.goals_of(key, 1 - seat))
    x = key & R.HOLLOWS
    while x:
        v += values[trailing_zeros(x)]
        x &= x - 1
    return v


@kernel
def pick_best(state, keys, vals, n, ban, banned, key, mover):
    """Index of a best-valued listed turn; ties drawn uniformly among distinct positions;
    only allowed turns when `banned`."""
    best = vals[0]
    first = True
    for i in range(n):
        if banned and not allowed(ban, key, mover, keys[i]):
            continue
        if first or vals[i] > best:
            best = vals[i]
            first = False
    ties = np.int64(0)
    for i in range(n):
        if vals[i] == best and is_choice(keys, i, ban, banned, key, mover):
            ties += 1
    r = below(state, ties) if ties > 1 else 0
    for i in range(n):
        if vals[i] == best and is_choice(keys, i, ban, banned, key, mover):
            if r == 0:
                return i
            r -= 1
    return 0


# --- lookahead --------------------------------------------------------------------------

@kernel(inline=True)
def reply_value(key, seat, pos, step, pi, values, pe, weights, rkeys, rvals):
    """Expected greedy value, for `seat` who just moved, of position `key` after the
    opponent's greedy reply: sum over the 21 rolls of weight (1 or 2, of 36) x value."""
    opp = 1 - seat
    n_m = R.fill_pos(key, pos)
    base = base_value(values[opp], pe, opp, key)
    total = 0
    for a in range(1, 7):
        for b in range(a, 7):
            w = 1 if a == b else 2
            n, _full = R.list_turns(key, pos, n_m, opp, a, b, step, pi, weights[opp], base,
                                    rkeys, rvals)
            if n == 0:
                continue  # Moksha: a draw, worth 0
            best = rvals[0]
            for i in range(1, n):
                if rvals[i] > best:
                    best = rvals[i]
            total -= w * best  # the evaluation is antisymmetric between the players
    return total


@kernel
def top_turns(keys, vals, n, cand, k_max, ban, banned, key, mover):
    """The indices of up to k_max best-valued distinct allowed turns into cand (best
    first); returns their number."""
    nc = 0
    for _ in range(k_max):
        bi = -1
        for i in range(n):
            if bi >= 0 and vals[i] <= vals[bi]:
                continue
            if banned and not allowed(ban, key, mover, keys[i]):
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


@kernel
def pick_lookahead(st, state, n, ban, banned):
    """Index of the turn with the best average greedy value after the opponent's greedy
    reply to each of its 21 rolls, among the PI_TOP_K best turns by greedy value; a turn
    that wins is taken at once (pick_best)."""
    key = st.key[0]
    seat = st.player[0]
    pe = st.pe
    keys = st.keys
    vals = st.vals
    best_now = -pe[PE_WIN] - 1
    for i in range(n):
        if (not banned or allowed(ban, key, seat, keys[i])) and vals[i] > best_now:
            best_now = vals[i]
    if best_now >= pe[PE_WIN]:
        return pick_best(state, keys, vals, n, ban, banned, key, seat)
    cand = st.cand
    cval = st.cval
    nc = top_turns(keys, vals, n, cand, min(st.pi[R.PI_TOP_K], cand.shape[0]), ban, banned,
                   key, seat)
    for c in range(nc):
        if vals[cand[c]] <= -pe[PE_WIN]:
            cval[c] = -36 * pe[PE_WIN]
        else:
            cval[c] = reply_value(keys[cand[c]], seat, st.pos2, st.step, st.pi, st.values,
                                  pe, st.weights, st.rkeys, st.rvals)
    best = cval[0]
    for c in range(1, nc):
        if cval[c] > best:
            best = cval[c]
    ties = np.int64(0)
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
