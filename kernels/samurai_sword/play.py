"""Samurai Sword's fast path: whole games in one compiled loop, reduced to the integer
statistics of `stats.TABLE`, and a finished game's --save-games row."""

import numpy as np

from kernels.jit import kernel
from kernels.samurai_sword import rules as R
from kernels.samurai_sword.players import choose
from kernels.samurai_sword.stats import End

# --save-games row columns
R_WINNER = np.int64(0)  # the lone winning seat, -1 when a team of several won (or no one)
R_TEAM = np.int64(1)
R_MASK = np.int64(2)  # bit s: seat s's team won
R_END = np.int64(3)
R_TURNS = np.int64(4)
R_RESHUFFLES = np.int64(5)
R_SCORE = np.int64(6)  # 3 columns: Shogun team, Ninjas, Ronin (NO_SCORE: absent, unscored)
R_DEADLY = np.int64(9)
R_ROLE = np.int64(10)  # 7 columns: role per seat (-1 absent)
R_CHAR = np.int64(17)  # 7 columns: character per seat (-1 absent)
N_ROW = np.int64(24)
NO_SCORE = np.int64(-99)


@kernel
def play_chunk(st, seed, first, count, forbid, rows):
    """Play playouts first .. first+count-1 of the run keyed by `seed`, adding their
    statistics to st.aggs; rows (count, N_ROW) receive one row per game, or are (0, N_ROW)."""
    keep = rows.shape[0] > 0
    for g in range(count):
        R.setup(st, seed, first + g)
        while not R.is_over(st):
            R.apply(st, choose(st, forbid))
        if keep:
            game_row(st, rows[g])


@kernel(inline=True)
def game_row(st, row):
    """Fill a finished game's row: winner, team, seats mask, end, turns, reshuffles, team
    scores, Deadly Strike team, role and character per seat."""
    fill_row(st.seats, st.game, row)


@kernel
def fill_row(seats, game, row):
    """game_row, from the seats and the game record."""
    g = game[0]
    win = g.win
    scored = g.end != End.CAP and g.end != End.SWORDMASTER
    mask = 0
    lone = -1
    for s in range(g.players):
        if win >= 0 and seats[s].team == win:
            mask |= 1 << s
            lone = s
    row[R_WINNER] = lone if win >= 0 and g.team_size[win] == 1 else -1
    row[R_TEAM] = win
    row[R_MASK] = mask
    row[R_END] = g.end
    row[R_TURNS] = g.turns
    row[R_RESHUFFLES] = g.reshuffles
    for tm in range(R.N_TEAM):
        row[R_SCORE + tm] = g.team_score[tm] if scored and g.team_size[tm] > 0 else NO_SCORE
    row[R_DEADLY] = g.deadly
    for s in range(R.MAX_P):
        row[R_ROLE + s] = seats[s].role if s < g.players else -1
        row[R_CHAR + s] = seats[s].char if s < g.players else -1
