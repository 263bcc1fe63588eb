"""Sixteen Samurai fast path: whole games in one compiled loop, reduced to the statistics
the rules count (kernels/README.md); and the entry points of the Python handle."""

from enum import IntEnum

import numpy as np

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


# --- the Python handle's calls (simcli/games/sixteen_samurai.py) --------------------------
class Call(IntEnum):
    """What `handle_call` does."""

    TO_MOVE = 0  # returns the seat to act
    LEGAL = 1  # fills out with the legal actions, returns their number
    APPLY = 2  # applies action a
    CHOOSE = 3  # returns the action the seat to act chooses (forbid honoured)
    OPTION = 4  # returns the option action a uses (-1: none)
    ROW = 5  # fills out with the finished game's row


@kernel
def handle_start(st, seed, playout):
    """Set up playout `playout` of the run keyed by `seed` (as play_chunk does)."""
    setup(st, seed, playout)


@kernel
def handle_call(st, call, a, out, forbid):
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
    return to_move(st)
