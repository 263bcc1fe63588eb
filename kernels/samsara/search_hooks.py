"""Samsara's implementation of the search hooks of `kernels/search.py`.

The search works on a `SearchState`: a Samsara `rules.State` together with the forbidden
options of each seat and the search's own settings. The root wraps the real state of the
playout (read, never changed, by the search); the workspace's scratch wraps a state of its
own, made by `new_scratch`, with its own scratch aggregates (the simulated games' statistics
never reach the run's) and an empty game log. Each simulation copies the real position into
the scratch (`clone`) and reseeds the scratch's dice streams from the search's own stream
(`determinize`): Samsara has perfect information, so only the future dice are unknown and
they are sampled afresh in every simulation (open-loop MCTS with chance by sampling).

Choices of the search:
- A draw (Moksha, a drawn match, the safety cap) is worth 0.5 to each seat in the search's
  rewards (`outcome`), half a win, where the rules' outcome gives neither seat a win.
- `top_k > 0` restricts the turns the search considers at every node to the top_k best by
  greedy's valuation (distinct positions, honouring the forbidden set); 0 considers every
  legal turn.
- Rollouts play both seats by the rollout policy (random, greedy or lookahead) through the
  players' own functions, honouring each seat's forbidden options.
- `evaluate` (used only when rollouts are cut short) maps greedy's position value for seat 0
  through a logistic curve (EVAL_SPREAD evaluation units make odds of e to 1).
"""

from collections import namedtuple

import numpy as np

from kernels import search
from kernels.jit import kernel
from kernels.samsara import players as P
from kernels.samsara import rules as R
from kernels.samsara.stats import Aggregates
from kernels.stat_table import as_tuple, zeros

SearchState = namedtuple("SearchState", ["st", "ban", "top_k"])
"""What the search sees: st (rules.State), ban (2, rules.N_OPTIONS) bool the options each
seat may never use, top_k (1,) int64 the turns considered per node (0: every legal turn)."""

EVAL_SPREAD = 40_000.0  # evaluate: greedy evaluation units per unit of log-odds


def wrap(st, ban: np.ndarray, top_k: int) -> SearchState:
    """The search's view of state `st` with forbidden options `ban` (seat, option)."""
    return SearchState(st, ban, np.array([top_k], np.int64))


def new_scratch(st, ban: np.ndarray, top_k: int, table, sizes: dict) -> SearchState:
    """A scratch state for searches on states like `st` (same parameters and seats): its
    own position, streams, buffers and zeroed aggregates (statistics table `table`, sizes
    `sizes`), and no game log."""
    aggs = as_tuple(Aggregates, zeros(table, sizes))
    scratch = st._replace(
        key=st.key.copy(), player=st.player.copy(), dice=st.dice.copy(),
        turns=st.turns.copy(), ply=st.ply.copy(), game=st.game.copy(),
        starter=st.starter.copy(), extra=st.extra.copy(), capped=st.capped.copy(),
        points=st.points.copy(), winner=st.winner.copy(), game_end=st.game_end.copy(),
        game_winner=st.game_winner.copy(), game_turns=st.game_turns.copy(),
        game_key=st.game_key.copy(), pol=st.pol.copy(), lane=st.lane.copy(),
        rng=st.rng.copy(), log=np.zeros((0, st.log.shape[1]), np.int64),
        log_n=np.zeros(1, np.int64), aggs=aggs,
        pos=st.pos.copy(), keys=st.keys.copy(), vals=st.vals.copy(), pos2=st.pos2.copy(),
        rkeys=st.rkeys.copy(), rvals=st.rvals.copy(), cand=st.cand.copy(),
        cval=st.cval.copy(), moves=st.moves.copy())
    return wrap(scratch, ban, top_k)


# --- the hooks' bodies ------------------------------------------------------------------

@kernel
def clone_state(dst, src):
    """Copy the position and progress of the playout in `src` into `dst`."""
    d = dst.st
    s = src.st
    d.key[0] = s.key[0]
    d.player[0] = s.player[0]
    d.dice[0] = s.dice[0]
    d.dice[1] = s.dice[1]
    d.turns[0] = s.turns[0]
    d.ply[0] = s.ply[0]
    d.game[0] = s.game[0]
    d.starter[0] = s.starter[0]
    d.extra[0] = s.extra[0]
    d.capped[0] = s.capped[0]
    d.winner[0] = s.winner[0]
    for i in range(2):
        d.points[i] = s.points[i]
        d.game_end[i] = s.game_end[i]
        d.game_winner[i] = s.game_winner[i]
        d.game_turns[i] = s.game_turns[i]
        d.game_key[i] = s.game_key[i]
        d.lane[i] = s.lane[i]
    for r in range(s.rng.shape[0]):
        for w in range(s.rng.shape[1]):
            d.rng[r, w] = s.rng[r, w]


@kernel
def search_legal(ss, out):
    """The turns the search considers for the seat to act: every legal turn, or the top_k
    best by greedy's valuation among the allowed ones (MOKSHA alone when none is legal)."""
    st = ss.st
    k_max = ss.top_k[0]
    if k_max <= 0:
        return R.legal_actions(st, out)
    if st.player[0] < 0:
        return 0
    key = st.key[0]
    seat = st.player[0]
    n_m = R.fill_pos(key, st.pos)
    base = P.base_value(st.values[seat], st.pe, seat, key)
    n, full = R.list_turns(key, st.pos, n_m, seat, st.dice[0], st.dice[1], st.step, st.pi,
                           st.weights[seat], base, st.keys, st.vals)
    if n == 0:
        out[0] = R.MOKSHA
        return 1
    ban = ss.ban[seat]
    n = P.restrict(st, ban, n, full)
    banned = P.honoured(ban, st.keys, n, key, seat)
    nc = P.top_turns(st.keys, st.vals, n, st.cand, min(k_max, st.cand.shape[0]), ban,
                     banned, key, seat)
    for i in range(nc):
        out[i] = R.turn_action(st.keys[st.cand[i]], full)
    return nc


@kernel
def search_outcome(ss, out):
    """Each seat's reward of a finished playout: 1 a win, 0 a loss, 0.5 each a draw."""
    w = ss.st.winner[0]
    for s in range(2):
        out[s] = 0.5 if w < 0 else (1.0 if w == s else 0.0)


@kernel
def rollout_turn(ss, policy):
    """The turn the seat to act plays under rollout policy `policy` (players.RANDOM,
    GREEDY or LOOKAHEAD), honouring its forbidden options."""
    st = ss.st
    st.pol[st.player[0]] = policy
    return P.choose(st, ss.ban)


@kernel
def search_evaluate(ss, out):
    """Each seat's estimated chance of winning the position (greedy's value, logistic)."""
    st = ss.st
    v = P.base_value(st.values[0], st.pe, R.ROUND, st.key[0])
    p0 = 1.0 / (1.0 + np.exp(-v / EVAL_SPREAD))
    out[0] = p0
    out[1] = 1.0 - p0


@kernel
def search_determinize(ss, player, stream):
    """Perfect information: a determinization only reseeds chance."""
    search.reseed(ss.st.rng, stream)


@kernel
def search_to_move(ss):
    """The seat to act (search hook `to_move`)."""
    return ss.st.player[0]


@kernel
def search_is_over(ss):
    """Whether the game has ended (search hook `is_over`)."""
    return ss.st.player[0] < 0


@kernel
def search_option(ss, action):
    """The option an action uses as the seat to act's forbid table sees it (search hook
    `option_of`; players.option_against: a turn that enters a goal and needs a lane
    change is filtered out when either option is forbidden)."""
    st = ss.st
    return P.option_against(ss.ban[st.player[0]], st, action)


# --- the search's hooks for this game's state ---------------------------------------------

# fixed_root: a determinization only reseeds the dice streams, and search_legal reads no
# stream, so the root's turns are the same in every simulation (listed once per decision).
search.register_hooks(
    SearchState,
    rules=R,
    fixed_root=True,
    clone=clone_state,
    determinize=search_determinize,
    to_move=search_to_move,
    legal_actions=search_legal,
    is_over=search_is_over,
    outcome=search_outcome,
    rollout_action=rollout_turn,
    option_of=search_option,
    evaluate=search_evaluate,
)
