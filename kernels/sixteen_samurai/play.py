"""Sixteen Samurai fast path: whole games in one compiled loop, reduced to the statistics
the rules count (kernels/README.md); and the entry points of the Python handle."""

from enum import IntEnum

import numpy as np

from kernels.control import stopped
from kernels.jit import kernel
from kernels.sixteen_samurai.players import choose
from kernels.sixteen_samurai.rules import (
    MAX_P,
    apply,
    is_over,
    legal_actions,
    option_of,
    setup,
    to_move,
)


class Row(IntEnum):
    """Columns of a game's --save-games row."""

    WINNER = 0
    CC_ROUNDS = 1
    FB_ROUNDS = 2
    FB_PLAYERS = 3
    CLAN_TOTAL_0 = 4  # one per seat (-1 for absent seats)
    CLAN_TOTAL_1 = 5
    CLAN_TOTAL_2 = 6
    CLAN_TOTAL_3 = 7
    HALL_0 = 8  # Hall of Honor size at the Final Battle, one per seat (-1: absent)
    HALL_1 = 9
    HALL_2 = 10
    HALL_3 = 11
    ROUNDS = 12  # both phases


ROW_COLUMNS = tuple(m.name.lower() for m in Row)
N_ROW = len(Row)


@kernel
def game_row(st, row):
    """Fill a finished game's --save-games row."""
    row[Row.WINNER] = st.champion[0]
    row[Row.CC_ROUNDS] = st.rnd[0]
    row[Row.FB_ROUNDS] = st.frnd[0]
    row[Row.FB_PLAYERS] = st.fb_players[0]
    row[Row.ROUNDS] = st.rnd[0] + st.frnd[0]
    for p in range(MAX_P):
        here = p < st.players[0]
        row[Row.CLAN_TOTAL_0 + p] = st.clan_tot[p] if here else -1
        row[Row.HALL_0 + p] = st.hall_fb[p] if here else -1


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


# --- the Python handle's calls (simcli/games/sixteen_samurai/handle.py) ---
class Call(IntEnum):
    """What `run` does: one call of the Python handle, or the fast path."""

    TO_MOVE = 0  # returns the seat to act
    LEGAL = 1  # fills out with the legal actions, returns their number
    APPLY = 2  # applies action a
    CHOOSE = 3  # returns the action the seat to act chooses (forbid honoured)
    OPTION = 4  # returns the option action a uses (-1: none)
    ROW = 5  # fills out with the finished game's row
    PLAY = 6  # play_chunk from game a, count games (rows: one row each, or none)
    SETUP = 7  # set up game a of the run keyed by seed


@kernel
def run(st, forbid, stop, call, seed, a, count, rows, out, fout):
    """The game's one compiled entry from Python (kernels/jit.py): `call` (Call) on state
    st, so that the fast path, `simcli replay` and the rule tests run (and cache) one
    compiled library (fout: unused here)."""
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
    return to_move(st)
