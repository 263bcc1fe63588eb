"""Samurai & Katana fast path: whole games in one compiled loop, reduced to the statistics
the rules count (kernels/README.md); and the entry points of the Python handle."""

from enum import IntEnum

import numpy as np

from kernels.jit import kernel
from kernels.samurai_katana.players import choose
from kernels.samurai_katana.rules import (
    N_ROW,
    apply,
    is_over,
    legal_actions,
    option_of,
    outcome,
    setup,
    to_move,
)


@kernel
def game_row(st, row):
    """Fill a finished game's --save-games row (rules.R_*: winner, turns, completed,
    Honor, clan points and starting income per seat)."""
    for c in range(N_ROW):
        row[c] = st.row[c]


@kernel
def play_chunk(st, seed, first, count, forbid, rows):
    """Play games first .. first+count-1 of the run keyed by `seed`, adding their statistics
    to st.aggs; `rows` is (count, N_ROW) to receive one row per game, or (0, N_ROW)."""
    keep = rows.shape[0] > 0
    for g in range(count):
        setup(st, seed, first + g)
        while not is_over(st):
            apply(st, choose(st, forbid))
        if keep:
            game_row(st, rows[g])


# --- the Python handle's calls (simcli/games/samurai_katana.py) --------------------------
class Call(IntEnum):
    """What `handle_call` does."""

    TO_MOVE = 0  # returns the seat to act
    LEGAL = 1  # fills out with the legal actions, returns their number
    APPLY = 2  # applies action a
    CHOOSE = 3  # returns the action the seat to act chooses (forbid honoured)
    OPTION = 4  # returns the option action a uses (-1: none)
    ROW = 5  # fills out with the finished game's row
    OUTCOME = 6  # fills out (as floats x 1) with 1 for each winning seat


@kernel
def handle_start(st, seed, playout):
    """Set up playout `playout` of the run keyed by `seed` (as play_chunk does)."""
    setup(st, seed, playout)


@kernel
def handle_call(st, call, a, out, forbid, fout):
    """One rules or players call for the Python handle: the same compiled code as the fast
    path, one entry point so that it compiles once."""
    if call == Call.LEGAL:
        return legal_actions(st, out)
    if call == Call.APPLY:
        apply(st, a)
        return np.int64(0)
    if call == Call.CHOOSE:
        return choose(st, forbid)
    if call == Call.OPTION:
        return option_of(st, a)
    if call == Call.ROW:
        game_row(st, out)
        return np.int64(0)
    if call == Call.OUTCOME:
        outcome(st, fout)
        return np.int64(0)
    return to_move(st)
