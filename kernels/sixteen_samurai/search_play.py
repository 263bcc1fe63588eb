"""Sixteen Samurai's fast path with search players: the loop of `play.play_chunk`, where a
seat whose budget is positive decides by `search_choose` (by default `lookahead_choose`,
a flat information-set search with paired samples at the root; `search.mcts_choose`, the
ISMCTS tree, with search_hooks.METHOD = 0) and the others by `players.choose`. Compiled
apart from `play_chunk`, so the ordinary fast path does not compile the search.

Each search decision draws from its own stream, keyed (`decision_lane`) by the run's seed,
the playout, the searching player's stream lane (which travels with the player under
--mirror) and the number of decisions taken so far in the playout: the same decisions for
the same seed on any number of threads and any chunk size.
"""

import numpy as np

from kernels import search
from kernels.control import stopped
from kernels.jit import kernel
from kernels.ref import deref, ref
from kernels.rng import next_u64, seed_lane
from kernels.sixteen_samurai import players as P
from kernels.sixteen_samurai import rules as R
from kernels.sixteen_samurai import search_hooks as H
from kernels.sixteen_samurai.play import game_row, run

MCTS = 2  # policy code of a searching seat (after players.RANDOM, GREEDY)
MAX_ACTIONS = H.MAX_ACTIONS  # legal actions buffer


def new_workspace(st, forbid: np.ndarray, max_budget: int, draft_k: int, table,
                  sizes: dict) -> search.Workspace:
    """A search's memory for a chunk of playouts on states like `st` (trees of up to
    `max_budget` simulations, a scratch state with its own aggregates)."""
    scratch = H.new_scratch(st, forbid, draft_k, table, sizes)
    return search.new_workspace(max_budget, scratch, MAX_ACTIONS, R.MAX_P)


@kernel
def decision_lane(st, seat, decision):
    """The 'seat' key of the search stream of `seat`'s decision number `decision` (from 0,
    every seat's decisions counted) of the playout: its player's stream lane plus
    MAX_P x decision."""
    return st.lane[seat] + R.MAX_P * decision


@kernel
def _mean(tree, action):
    """Mean reward of the root's child for `action` (-1.0 when it was never visited)."""
    ch = tree.child[0]
    while ch >= 0:
        if tree.action[ch] == action and tree.visits[ch] > 0:
            return tree.reward[ch] / tree.visits[ch]
        ch = tree.sibling[ch]
    return -1.0


@kernel
def _root_actions(st, ss, forbid, acts):
    """The searcher's candidate actions at the root (legal, allowed; in the draft the
    draft_k strongest samurai left): their number."""
    p = st.actor[0]
    n = R.legal_actions(st, acts)
    k = ss.cfg[H.CFG_DRAFT_K]
    if st.phase[0] == R.DRAFT and 0 < k < n:
        return k
    m = 0
    for i in range(n):
        o = R.option_of(st, acts[i])
        if o < 0 or not forbid[p, o]:
            acts[m] = acts[i]
            m += 1
    return m if m > 0 else n


@kernel
def _sample(root, ws, action, key, k, me, rollout, horizon):
    """Sample k of the root's determinizations (keyed by `key` and k only, so every root
    action meets the same deal and dice): the searcher takes `action`, every seat then plays
    the rollout policy until `horizon` more rounds have begun (or the game ends); returns
    the searcher's fitted value there."""
    sc = ws.scratch
    seed_lane(ws.stream[0], key, np.int64(k), np.int64(0))
    search.clone(sc, root)
    search.determinize(sc, me, ws.stream[0])
    st = sc.st
    stop = st.turn[0] + horizon
    search.apply(sc, action)
    steps = 1
    while st.phase[0] != R.OVER and st.turn[0] < stop and steps < 2000:
        search.apply(sc, H.rollout_choice(sc, rollout))
        steps += 1
    ws.moves[0] += steps
    return H.fitted_value(sc, me)


@kernel
def lookahead_choose(root, ws, forbid, budget, rollout):
    """Paired lookahead at the root (the default method, H.METHOD = 1): each candidate
    action is scored on the same K = budget / actions (at least 4) determinizations with the
    same dice (common random numbers: sample k is keyed by the decision's stream and k
    alone), each played by the rollout policy until the cfg horizon's next round starts (a
    Final Battle decision: cfg fb horizon; 0 plays to the end) and scored by
    `H.fitted_value`; in the draft one sample (no chance before the first round). The
    rollout policy's own choice is played unless another action's mean paired gain over it
    exceeds prm[4] (Z) paired standard errors (the largest such margin wins). So the
    comparison of two actions is a paired difference on the same deals and dice, not a
    difference of two noisy means.
    The stream must be keyed for this decision."""
    st = root.st
    me = st.actor[0]
    acts = ws.acts
    n = _root_actions(st, root, forbid, acts)
    if n <= 1:
        return acts[0]
    search.clone(ws.scratch, root)
    search.determinize(ws.scratch, me, ws.stream[0])
    base = H.rollout_choice(ws.scratch, rollout)
    ib = 0
    for i in range(n):
        if acts[i] == base:
            ib = i
    key = next_u64(ws.stream[0])
    K = max(budget // n, 4)
    if st.phase[0] == R.DRAFT:  # no chance before the first round: one sample is exact
        K = 1
    acc = ws.scratch.acc  # per action: sum of values, of paired gains, of their squares
    for i in range(n):
        for j in range(4):
            acc[i, j] = 0.0
    horizon = root.cfg[H.CFG_HORIZON]
    if st.phase[0] == R.FB_DECLARE or st.phase[0] == R.FB_FIELD:
        horizon = root.cfg[H.CFG_FB_HORIZON]
        if horizon == 0:
            horizon = 1 << 20
    for k in range(K):
        for i in range(n):
            acc[i, 3] = _sample(root, ws, acts[i], key, k, me, rollout, horizon)
        for i in range(n):
            d = acc[i, 3] - acc[ib, 3]
            acc[i, 0] += acc[i, 3]
            acc[i, 1] += d
            acc[i, 2] += d * d
    best = ib
    best_gain = 0.0
    for i in range(n):
        if i == ib:
            continue
        mean = acc[i, 1] / K
        var = max(acc[i, 2] / K - mean * mean, 0.0) / max(K - 1, 1)
        gain = mean - root.prm[4] * np.sqrt(var)
        if mean > 0.0 and gain > best_gain:
            best_gain = gain
            best = i
    return acts[best]


@kernel
def search_choose(root, ws, forbid, seed, playout, decision, budget, c, rollout,
                  max_rollout):
    """The search's action for the seat to act of root.st (budget: simulations), at the
    playout's decision number `decision`: the most visited action, unless its mean reward
    beats that of the rollout policy's own choice (in a determinization) by no more than
    the margin root.prm[3] (0: always the most visited). In a phase the searcher does not
    search (root.cfg[CFG_PHASES]) it plays the rollout policy's choice."""
    st = root.st
    seat = st.actor[0]
    for cfg in (root.cfg, ws.scratch.cfg):  # (the same arrays in the fast path)
        cfg[H.CFG_ME] = seat
        cfg[H.CFG_ROLLOUT] = rollout
    search.seed_search(ws, seed, playout, decision_lane(st, seat, decision))
    if not (root.cfg[H.CFG_PHASES] >> st.phase[0]) & 1:  # a phase it does not search
        search.clone(ws.scratch, root)
        search.determinize(ws.scratch, seat, ws.stream[0])
        return H.rollout_choice(ws.scratch, rollout)
    if root.cfg[H.CFG_METHOD] == 1:
        return lookahead_choose(root, ws, forbid, budget, rollout)
    a = search.mcts_choose(root, ws, forbid, budget, c, rollout, max_rollout)
    margin = root.prm[3]
    if margin <= 0.0 or ws.tree.used[0] <= 1:
        return a
    search.clone(ws.scratch, root)
    search.determinize(ws.scratch, seat, ws.stream[0])
    base = H.rollout_choice(ws.scratch, rollout)
    if base != a and _mean(ws.tree, a) - _mean(ws.tree, base) <= margin:
        return base
    return a


@kernel
def play_chunk_search(st, ws, forbid, seed, first, count, rows, budget, c, rollout,
                      max_rollout):
    """Play playouts first .. first+count-1 of the run keyed by `seed` (np.uint64), adding their
    statistics to st.aggs; rows is (count, N_ROW) or (0, N_ROW). Per seat (after rotation):
    budget (MAX_P,) int64 simulations per decision (0: the seat plays its policy st.pol), c
    (MAX_P,) float64 exploration, rollout (MAX_P,) int64 rollout policy codes; max_rollout >
    0 cuts rollouts short (search.mcts_choose). ws: new_workspace. Returns the playouts
    played (fewer when stopped: kernels.control)."""
    keep = rows.shape[0] > 0
    sc = ws.scratch
    root = ref(H.SearchState(deref(st), forbid, sc.cfg, sc.prm, sc.buf, sc.w, sc.acc,
                              sc.fx))
    for g in range(count):
        if stopped(ws.stop):
            return g
        playout = first + g
        R.setup(st, seed, playout)
        decision = 0
        while not R.is_over(st):
            if stopped(ws.stop):
                return g
            seat = st.actor[0]
            if budget[seat] > 0:
                a = search_choose(root, ws, forbid, seed, playout, np.int64(decision),
                                  budget[seat], c[seat], rollout[seat], max_rollout)
            else:
                a = P.choose(st, forbid)
            R.apply(st, a)
            decision += 1
        if keep:
            game_row(st, rows[g])
    return count


@kernel
def decide(st, ws, forbid, seed, playout, decisions, budget, c, rollout, max_rollout):
    """The search's action for the seat to act of st, in playout `playout` after
    `decisions` decisions (per seat: budget, c, rollout), on the root play_chunk_search
    makes (a search decision of the handle: run_search)."""
    seat = st.actor[0]
    sc = ws.scratch
    root = ref(H.SearchState(deref(st), forbid, sc.cfg, sc.prm, sc.buf, sc.w, sc.acc,
                              sc.fx))
    return search_choose(root, ws, forbid, seed, playout, decisions, budget[seat], c[seat],
                         rollout[seat], max_rollout)


run_search = search.search_entry(__name__, play_chunk_search, decide, run)
