"""Samurai: The Card Game's fast path with search players: the loop of `play.play_chunk`,
where a seat whose budget is positive decides by `search.mcts_choose` (information-set
MCTS, `search_hooks`) and the others by `players.choose`. Compiled apart from
`play_chunk`, so the ordinary fast path does not compile the search.

Each search decision draws from its own stream, keyed (`decision_lane`) by the run's seed,
the playout, the searching player's stream lane (which travels with the player under
--mirror) and the decision's place in the playout (cards played so far, and the villages
placed in this turn): the same decisions for the same seed on any number of threads and
any chunk size.
"""

import numpy as np

from kernels import search
from kernels.control import stopped
from kernels.jit import kernel
from kernels.ref import deref, ref
from kernels.samurai_card_game import players as P
from kernels.samurai_card_game import rules as R
from kernels.samurai_card_game import search_hooks as H
from kernels.samurai_card_game.play import game_row, run
from kernels.samurai_card_game.stats import MAX_P

MCTS = 2  # policy code of a searching seat (after players.RANDOM, GREEDY)
STEPS = 16  # decision slots per turn in decision_lane: the card, then each placement


def new_workspace(st, forbid: np.ndarray, max_budget: int, top_k: int, table,
                  sizes: dict) -> search.Workspace:
    """A search's memory for a chunk of playouts on states like `st` (trees of up to
    `max_budget` simulations, a scratch state with its own aggregates)."""
    scratch = H.new_scratch(st, forbid, top_k, table, sizes)
    return search.new_workspace(max_budget, scratch, H.max_actions(st), MAX_P)


@kernel
def decision_lane(st, seat):
    """The 'seat' key of the search stream of `seat`'s decision at this point of the
    playout: its player's stream lane plus MAX_P x the decision's index (cards played x
    STEPS, plus 1 + villages placed while placing)."""
    c = st.cnt[0]
    step = 0 if c.phase == R.PLAY else 1 + min(c.placed, STEPS - 2)
    return st.seat[seat].lane + MAX_P * (c.turns * STEPS + step)


@kernel
def search_choose(root, ws, forbid, seed, playout, budget, c, rollout, max_rollout):
    """The search's rules action for the seat to act of root.st (budget: simulations)."""
    st = root.st
    seat = st.cnt[0].cur
    search.seed_search(ws, seed, playout, decision_lane(st, seat))
    a = search.mcts_choose(root, ws, forbid, budget, c, rollout, max_rollout)
    return H.rules_action(st, a)


@kernel
def play_chunk_search(st, ws, forbid, seed, first, count, rows, budget, c, rollout,
                      max_rollout):
    """Play games first .. first+count-1 of the run keyed by `seed` (np.uint64) into st.aggs; rows
    is (count, N_ROW) or (0, N_ROW). Per seat (after rotation): budget (MAX_P,) int64
    simulations per decision (0: the seat plays its policy), c (MAX_P,) float64 exploration,
    rollout (MAX_P,) int64 rollout policy codes; max_rollout > 0 cuts rollouts short
    (search.mcts_choose). ws: new_workspace (its scratch holds top_k). Returns the playouts
    played (fewer when stopped: kernels.control)."""
    keep = rows.shape[0] > 0
    sc = ws.scratch
    root = ref(H.SearchState(deref(st), sc.ban, sc.top_k, sc.acts, sc.vals, sc.pool))
    for g in range(count):
        if stopped(ws.stop):
            return g
        playout = first + g
        R.setup(st, seed, playout)
        while not R.is_over(st):
            if stopped(ws.stop):
                return g
            seat = st.cnt[0].cur
            if budget[seat] > 0:
                a = search_choose(root, ws, forbid, seed, playout, budget[seat], c[seat],
                                  rollout[seat], max_rollout)
            else:
                a = P.choose(st, forbid)
            R.apply(st, a)
        if keep:
            game_row(st, rows[g])
    return count


@kernel
def decide(st, ws, forbid, seed, playout, decisions, budget, c, rollout, max_rollout):
    """The search's action for the seat to act of st, in playout `playout` after
    `decisions` decisions (per seat: budget, c, rollout), on the root play_chunk_search
    makes (a search decision of the handle: run_search)."""
    seat = st.cnt[0].cur
    sc = ws.scratch
    root = ref(H.SearchState(deref(st), sc.ban, sc.top_k, sc.acts, sc.vals, sc.pool))
    return search_choose(root, ws, forbid, seed, playout, budget[seat], c[seat], rollout[seat],
                         max_rollout)


run_search = search.search_entry(__name__, play_chunk_search, decide, run)
