"""Samurai Sword's fast path with search players: the loop of `play.play_chunk`, where a
seat whose budget is positive decides by `search.mcts_choose` (ISMCTS, hooks in
`search_hooks.py`) and the others by `players.choose`. Compiled apart from `play_chunk`,
so the ordinary fast path does not compile the search.

Each search decision draws from its own stream, keyed (`decision_lane`) by the run's seed,
the playout, the searching player's stream lane (which travels with the player under
--mirror) and the index of the decision in the playout (every decision of every seat
counts): the same decisions for the same seed on any number of threads and any chunk
size, in the fast path and in `simcli replay`.
"""

import numpy as np

from kernels import search
from kernels.control import stopped
from kernels.jit import kernel
from kernels.ref import deref, ref
from kernels.samurai_sword import players as P
from kernels.samurai_sword import rules as R
from kernels.samurai_sword import search_hooks as H
from kernels.samurai_sword.play import game_row, run

MCTS = np.int64(2)  # policy code of a searching seat (after players.RANDOM, HEURISTIC)


def new_workspace(st, forbid: np.ndarray, max_budget: int, knob: np.ndarray, table,
                  sizes: dict) -> search.Workspace:
    """A search's memory for a chunk of playouts on states like `st` (trees of up to
    `max_budget` simulations, a scratch state with its own aggregates, settings `knob`:
    search_hooks.knobs)."""
    scratch = H.new_scratch(st, forbid, knob, table, sizes)
    return search.new_workspace(max_budget, scratch, st.legal.shape[0], int(R.MAX_P))


@kernel
def decision_lane(st, seat, decision):
    """The 'seat' key of the search stream of `seat`'s decision number `decision` (from 0,
    counting every seat's decisions) of the playout: its player's stream lane plus
    MAX_P x the decision number."""
    return st.seats[seat].lane + R.MAX_P * decision


@kernel
def search_choose(root, ws, forbid, seed, playout, decision, budget, c, rollout,
                  max_rollout):
    """The search's action for the seat to act of root.st (budget: simulations)."""
    st = root.st
    seat = st.game[0].to_act
    search.seed_search(ws, seed, playout, decision_lane(st, seat, decision))
    return search.mcts_choose(root, ws, forbid, budget, c, rollout, max_rollout)


@kernel
def play_chunk_search(st, ws, forbid, seed, first, count, rows, budget, c, rollout,
                      max_rollout):
    """Play playouts first .. first+count-1 of the run keyed by `seed` (np.uint64), adding their
    statistics to st.aggs; rows is (count, N_ROW) or (0, N_ROW). Per seat (after rotation):
    budget (MAX_P,) int64 simulations per decision (0: the seat plays its policy), c
    (MAX_P,) float64 exploration, rollout (MAX_P,) int64 rollout policy codes; max_rollout >
    0 cuts rollouts short (search.mcts_choose). ws: new_workspace. Returns the playouts
    played (fewer when stopped: kernels.control)."""
    keep = rows.shape[0] > 0
    root = ref(H.SearchState(deref(st), forbid, ws.scratch.knobs))
    for g in range(count):
        if stopped(ws.stop):
            return g
        playout = first + g
        R.setup(st, seed, playout)
        decision = np.int64(0)
        while not R.is_over(st):
            if stopped(ws.stop):
                return g
            seat = st.game[0].to_act
            if budget[seat] > 0:
                a = search_choose(root, ws, forbid, seed, playout, decision, budget[seat],
                                  c[seat], rollout[seat], max_rollout)
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
    seat = st.game[0].to_act
    root = ref(H.SearchState(deref(st), forbid, ws.scratch.knobs))
    return search_choose(root, ws, forbid, seed, playout, decisions, budget[seat], c[seat],
                         rollout[seat], max_rollout)


run_search = search.search_entry(__name__, play_chunk_search, decide, run)
