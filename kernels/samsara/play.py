"""Samsara's fast path: whole playouts in one compiled loop, and a finished playout's row.

Row columns (--save-games; `simcli.games.samsara.Samsara.row_columns`): the playout's
winning seat (the game's in single games, the match's in competition; -1 a draw), then per
game (winner, turns, goals of seat 0, goals of seat 1, End code), then the match points
(-1 in single games, as is every game-2 column).
"""

from enum import IntEnum

import numpy as np

from kernels.control import stopped
from kernels.jit import kernel
from kernels.samsara import players as P
from kernels.samsara import rules as R

R_WINNER = 0
R_GAME1 = 1
R_GAME2 = 6
G_WINNER = 0
G_TURNS = 1
G_GOALS0 = 2
G_GOALS1 = 3
G_END = 4
R_POINTS0 = 11
R_POINTS1 = 12
N_ROW = 13


def no_forbid() -> np.ndarray:
    """The forbidden options of the fast path: none, for either seat."""
    return np.zeros((2, R.N_OPTIONS), np.bool_)


@kernel(inline=True)
def game_row(st, row):
    """Fill the --save-games row of the finished playout in `st`."""
    row[R_WINNER] = st.winner[0]
    for g in range(2):
        base = R_GAME1 if g == 0 else R_GAME2
        if st.game_end[g] < 0:
            for c in range(5):
                row[base + c] = -1
            continue
        key = st.game_key[g]
        row[base + G_WINNER] = st.game_winner[g]
        row[base + G_TURNS] = st.game_turns[g]
        row[base + G_GOALS0] = R.goals_of(key, R.ROUND)
        row[base + G_GOALS1] = R.goals_of(key, R.SQUARE)
        row[base + G_END] = st.game_end[g]
    match = st.pi[R.PI_MATCH] == 1
    row[R_POINTS0] = st.points[0] if match else -1
    row[R_POINTS1] = st.points[1] if match else -1


@kernel
def play_chunk(st, forbid, stop, seed, first, count, rows):
    """Play playouts first .. first+count-1 of the run keyed by `seed` (np.uint64), adding
    their statistics to st.aggs; rows is (count, N_ROW) or (0, N_ROW). Returns how many were
    played: fewer than count when the stop flag (kernels.control) was set."""
    keep = rows.shape[0] > 0
    for g in range(count):
        if stopped(stop):
            return g
        R.setup(st, seed, first + g)
        while not R.is_over(st):
            R.apply(st, P.choose(st, forbid))
        if keep:
            game_row(st, rows[g])
    return count


class Call(IntEnum):
    """What `run` does: the fast path, or one call of the Python handle."""

    PLAY = 0  # play_chunk from playout a, count playouts (rows: one row each, or none)
    SETUP = 1  # set up playout a
    TO_MOVE = 2  # returns the seat to act (-1 over)
    LEGAL = 3  # fills out with the legal actions, returns how many
    APPLY = 4  # applies action a
    CHOOSE = 5  # returns the action the seat to act chooses (forbid honoured)
    IS_OVER = 6  # returns 1 when the playout is over
    OUTCOME = 7  # fills fout with 1.0 for each winning seat
    OBSERVE = 8  # fills out with the observation (rules.OBS_*)
    OPTION = 9  # returns the option action a uses (-1 none)
    ROW = 10  # fills out with the finished playout's row
    MOVES = 11  # fills st.moves with action a's die moves, returns how many
    SET_POSITION = 12  # position out[0] with out[1] to move in game out[2], extra out[3]
    SET_DICE = 13  # the seat to act's roll is out[0], out[1]


@kernel
def run(st, forbid, stop, call, seed, a, count, rows, out, fout):
    """The game's one compiled entry from Python (kernels/jit.py): `call` (Call) on state
    st, so that the fast path, `simcli replay` and the rule tests run (and cache) one
    compiled library."""
    if call == Call.PLAY:
        return play_chunk(st, forbid, stop, seed, a, count, rows)
    if call == Call.SETUP:
        R.setup(st, seed, a)
    elif call == Call.TO_MOVE:
        return R.to_move(st)
    elif call == Call.LEGAL:
        return R.legal_actions(st, out)
    elif call == Call.APPLY:
        R.apply(st, a)
    elif call == Call.CHOOSE:
        return P.choose(st, forbid)
    elif call == Call.IS_OVER:
        return np.int64(R.is_over(st))
    elif call == Call.OUTCOME:
        R.outcome(st, fout)
    elif call == Call.OBSERVE:
        R.observe(st, out)
    elif call == Call.OPTION:
        return R.option_of(st, a)
    elif call == Call.ROW:
        game_row(st, out)
    elif call == Call.MOVES:
        return R.turn_moves(st, a)
    elif call == Call.SET_POSITION:
        R.set_position(st, out[0], out[1], out[2], out[3])
    elif call == Call.SET_DICE:
        R.set_dice(st, out[0], out[1])
    return np.int64(0)
