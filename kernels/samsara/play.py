"""Samsara's fast path: whole playouts in one compiled loop, and a finished playout's row.

Row columns (--save-games; `simcli.games.samsara.Samsara.row_columns`): the playout's
winning seat (the game's in single games, the match's in competition; -1 a draw), then per
game (winner, turns, goals of seat 0, goals of seat 1, End code), then the match points
(-1 in single games, as is every game-2 column).
"""

import numpy as np

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
def play_chunk(st, forbid, seed, first, count, rows):
    """Play playouts first .. first+count-1 of the run keyed by `seed` (np.uint64), adding
    their statistics to st.aggs; rows is (count, N_ROW) or (0, N_ROW)."""
    keep = rows.shape[0] > 0
    for g in range(count):
        R.setup(st, seed, first + g)
        while not R.is_over(st):
            R.apply(st, P.choose(st, forbid))
        if keep:
            game_row(st, rows[g])
