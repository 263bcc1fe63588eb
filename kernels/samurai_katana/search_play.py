"""Samurai & Katana's fast path with search players: the loop of `play.play_chunk`, where a
seat whose budget is positive decides by `search.mcts_choose` (ISMCTS, hooks in
`search_hooks.py`) and the others by `players.choose`. Compiled apart from `play_chunk`,
so the ordinary fast path does not compile the search.

Each search decision draws from its own stream, keyed (`decision_key`) by the run's seed,
the playout, the searching player's stream lane (which travels with the player under
--mirror) and the number of decisions taken so far in the playout: the same decisions for
the same seed on any number of threads and any chunk size, in the fast path and in the
Python handle (`simcli replay`).
"""

import numpy as np

from kernels import search
from kernels.control import stopped
from kernels.jit import kernel
from kernels.ref import deref, ref
from kernels.samurai_katana import players as P
from kernels.samurai_katana import rules as R
from kernels.samurai_katana import search_hooks as H
from kernels.samurai_katana.play import game_row, run

MCTS = 2  # policy code of a searching seat (after players.RANDOM, GREEDY)
MAX_ACTIONS = 1024  # room for the actions the search considers at one decision


def new_workspace(st, forbid: np.ndarray, max_budget: int, top_k: int, table,
                  sizes: dict, params: tuple = H.PARAMS) -> search.Workspace:
    """A search's memory for a chunk of games on states like `st` (trees of up to
    `max_budget` simulations, a scratch state with its own aggregates; the search's
    settings `params`, search_hooks.PR_* order)."""
    scratch = H.new_scratch(st, forbid, top_k, table, sizes, params)
    return search.new_workspace(max_budget, scratch, MAX_ACTIONS, R.MAX_P)


@kernel
def decision_key(st, seat, k):
    """The 'seat' key of the search stream of `seat`'s decision number k (from 0) of the
    playout: its player's stream lane plus (MAX_P + 1) x k."""
    return st.lane[seat] + (R.MAX_P + 1) * k


@kernel
def search_choose(root, ws, forbid, seed, playout, k, budget, c, rollout, max_rollout):
    """The search's action for the seat to act of root.st, its decision number k of the
    playout (budget: simulations)."""
    st = root.st
    search.seed_search(ws, seed, playout, decision_key(st, R.to_move(st), k))
    return search.mcts_choose(root, ws, forbid, budget, c, rollout, max_rollout)


@kernel
def play_chunk_search(st, ws, forbid, seed, first, count, rows, budget, c, rollout,
                      max_rollout):
    """Play games first .. first+count-1 of the run keyed by `seed` (np.uint64), adding their
    statistics to st.aggs; rows is (count, N_ROW) or (0, N_ROW). Per seat (after rotation):
    budget (MAX_P,) int64 simulations per decision (0: the seat plays its policy st.pol), c
    (MAX_P,) float64 exploration, rollout (MAX_P,) int64 rollout policy codes; max_rollout >
    0 cuts rollouts short (search.mcts_choose). ws: new_workspace. Returns the playouts
    played (fewer when stopped: kernels.control)."""
    keep = rows.shape[0] > 0
    sc = ws.scratch
    root = ref(H.SearchState(deref(st), sc.ban, sc.top_k, sc.prm, sc.pool, sc.cand, sc.cval,
                              sc.ckey))
    for g in range(count):
        if stopped(ws.stop):
            return g
        playout = first + g
        R.setup(st, seed, playout)
        k = 0
        while not R.is_over(st):
            if stopped(ws.stop):
                return g
            seat = R.to_move(st)
            if budget[seat] > 0:
                a = search_choose(root, ws, forbid, seed, playout, k, budget[seat], c[seat],
                                  rollout[seat], max_rollout)
            else:
                a = P.choose(st, forbid)
            R.apply(st, a)
            k += 1
        if keep:
            game_row(st, rows[g])
    return count


@kernel
def decide(st, ws, forbid, seed, playout, decisions, budget, c, rollout, max_rollout):
    """The search's action for the seat to act of st, in playout `playout` after
    `decisions` decisions (per seat: budget, c, rollout), on the root play_chunk_search
    makes (a search decision of the handle: run_search)."""
    seat = R.to_move(st)
    sc = ws.scratch
    root = ref(H.SearchState(deref(st), sc.ban, sc.top_k, sc.prm, sc.pool, sc.cand,
                              sc.cval, sc.ckey))
    return search_choose(root, ws, forbid, seed, playout, decisions, budget[seat], c[seat],
                         rollout[seat], max_rollout)


run_search = search.search_entry(__name__, play_chunk_search, decide, run)
