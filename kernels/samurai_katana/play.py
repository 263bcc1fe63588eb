"""Samurai & Katana fast path: whole games in one compiled loop, reduced to the statistics
the rules count (kernels/README.md); and the entry points of the Python handle."""

from enum import IntEnum

import numpy as np

from kernels.control import stopped
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
def play_chunk(st, forbid, stop, seed, first, count, rows):
    """Play games first .. first+count-1 of the run keyed by `seed`, adding their statistics
    to st.aggs; `rows` is (count, N_ROW) to receive one row per game, or (0, N_ROW).
    Returns the games played (fewer than count when the stop flag, kernels.control, was
    set)."""
    keep = rows.shape[0] > 0
    for g in range(count):
        if stopped(stop):
            return g
        setup(st, seed, first + g)
        while not is_over(st):
            apply(st, choose(st, forbid))
        if keep:
            game_row(st, rows[g])
    return count


# --- the Python handle's calls (simcli/games/samurai_katana/handle.py) ---
class Call(IntEnum):
    """What `run` does: one call of the Python handle, or the fast path."""

    TO_MOVE = 0  # returns the seat to act
    LEGAL = 1  # fills out with the legal actions, returns their number
    APPLY = 2  # applies action a
    CHOOSE = 3  # returns the action the seat to act chooses (forbid honoured)
    OPTION = 4  # returns the option action a uses (-1: none)
    ROW = 5  # fills out with the finished game's row
    OUTCOME = 6  # fills out (as floats x 1) with 1 for each winning seat
    PLAY = 7  # play_chunk from game a, count games (rows: one row each, or none)
    SETUP = 8  # set up game a of the run keyed by seed


@kernel
def run(st, forbid, stop, call, seed, a, count, rows, out, fout):
    """The game's one compiled entry from Python (kernels/jit.py): `call` (Call) on state
    st, so that the fast path, `simcli replay` and the rule tests run (and cache) one
    compiled library."""
    if call == Call.PLAY:
        return play_chunk(st, forbid, stop, seed, a, count, rows)
    if call == Call.SETUP:
        setup(st, seed, a)
        return np.int64(0)
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
