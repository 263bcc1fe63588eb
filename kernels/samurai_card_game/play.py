"""Samurai: The Card Game fast path: whole games in one compiled loop, their statistics
added to the state's aggregates as the rules count them, and the --save-games row."""


from enum import IntEnum

import numpy as np

from kernels.control import stopped
from kernels.jit import kernel
from kernels.samurai_card_game.players import choose
from kernels.samurai_card_game.rules import (
    N_SHAPES,
    apply,
    is_over,
    legal_actions,
    outcome,
    setup,
    visible_villages,
)
from kernels.samurai_card_game.stats import MAX_P

# Columns of a game's row (for --save-games)
R_WINNER = 0  # -1: shared victory or nobody
R_SHARED_MASK = 1
R_TURNS = 2
R_END = 3
R_PLACED = 4
R_SCORED = 5
R_MARKERS = 6  # 12 columns: seat * 3 + shape (-1 for absent seats)
R_DOMINATED = 18  # 4 columns: shapes dominated per seat (-1 for absent seats)
N_ROW = 22


@kernel
def game_row(st, row):
    """A finished game's --save-games row."""
    P = st.cfg[0].players
    c = st.cnt[0]
    row[R_WINNER] = c.winner
    row[R_SHARED_MASK] = c.win_mask
    row[R_TURNS] = c.turns
    row[R_END] = c.end
    row[R_PLACED] = c.nv
    row[R_SCORED] = c.scored
    for q in range(MAX_P):
        for s in range(N_SHAPES):
            row[R_MARKERS + q * 3 + s] = st.taken[q, s] if q < P else -1
        row[R_DOMINATED + q] = st.ndom[q] if q < P else -1


@kernel
def play_chunk(st, forbid, stop, seed, first, count, rows):
    """Play games first .. first+count-1 of the run keyed by `seed` into st.aggs; `rows`
    is (count, N_ROW) to keep each game's row, or (0, N_ROW). Returns the games played
    (fewer than count when the stop flag, kernels.control, was set)."""
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


class Call(IntEnum):
    """What `run` does: the fast path, or one call of the Python handle."""

    PLAY = 0  # play_chunk from game a, count games (rows: one row each, or none)
    SETUP = 1  # set up game a
    LEGAL = 2  # fills out with the legal actions, returns how many
    APPLY = 3  # applies action a
    CHOOSE = 4  # returns the action the seat to act chooses (forbid honoured)
    ROW = 5  # fills out with the finished game's row
    OUTCOME = 6  # fills fout with 1.0 for each winning seat
    VISIBLE = 7  # returns how many village cards the seat to act sees


@kernel
def run(st, forbid, stop, call, seed, a, count, rows, out, fout):
    """The game's one compiled entry from Python (kernels/jit.py): `call` (Call) on state
    st, so that the fast path, `simcli replay` and the rule tests run (and cache) one
    compiled library."""
    if call == Call.PLAY:
        return play_chunk(st, forbid, stop, seed, a, count, rows)
    if call == Call.SETUP:
        setup(st, seed, a)
    elif call == Call.LEGAL:
        return legal_actions(st, out)
    elif call == Call.APPLY:
        apply(st, a)
    elif call == Call.CHOOSE:
        return choose(st, forbid)
    elif call == Call.ROW:
        game_row(st, out)
    elif call == Call.OUTCOME:
        outcome(st, fout)
    elif call == Call.VISIBLE:
        return np.int64(visible_villages(st))
    return np.int64(0)
