"""Samurai Sword's fast path: whole games in one compiled loop, reduced to the integer
statistics of `stats.TABLE`, and a finished game's --save-games row."""

from enum import IntEnum

import numpy as np

from kernels.control import stopped
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
def play_chunk(st, forbid, stop, seed, first, count, rows):
    """Play playouts first .. first+count-1 of the run keyed by `seed`, adding their
    statistics to st.aggs; rows (count, N_ROW) receive one row per game, or are (0, N_ROW).
    Returns the games played (fewer than count when the stop flag, kernels.control, was
    set)."""
    keep = rows.shape[0] > 0
    for g in range(count):
        if stopped(stop):
            return g
        R.setup(st, seed, first + g)
        while not R.is_over(st):
            R.apply(st, choose(st, forbid))
        if keep:
            game_row(st, rows[g])
    return count


class Call(IntEnum):
    """What `run` does: the fast path, or one call of the Python handle."""

    PLAY = 0  # play_chunk from playout a, count playouts (rows: one row each, or none)
    SETUP = 1  # set up playout a
    TO_MOVE = 2  # returns the seat that must decide (-1 over)
    LEGAL = 3  # fills out with the legal actions, returns how many
    APPLY = 4  # applies action a
    CHOOSE = 5  # returns the action the seat to act chooses (forbid honoured)
    IS_OVER = 6  # returns 1 when the game is over
    ROW = 7  # fills out with the finished game's row
    OUTCOME = 8  # fills fout with 1.0 for each winning seat
    OBSERVE = 9  # fills out with what seat a sees (rules.observe), returns its length
    PARTS = 10  # out[0..2] = (card type, seat, option) of play action a


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
        return np.int64(R.to_move(st))
    elif call == Call.LEGAL:
        return np.int64(R.legal_actions(st, out))
    elif call == Call.APPLY:
        R.apply(st, a)
    elif call == Call.CHOOSE:
        return np.int64(choose(st, forbid))
    elif call == Call.IS_OVER:
        return np.int64(R.is_over(st))
    elif call == Call.ROW:
        game_row(st, out)
    elif call == Call.OUTCOME:
        R.outcome(st, fout)
    elif call == Call.OBSERVE:
        return np.int64(R.observe(st, a, out))
    elif call == Call.PARTS:
        t, q, o = R.action_parts(st, a)
        out[0] = t
        out[1] = q
        out[2] = o
    return np.int64(0)


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
