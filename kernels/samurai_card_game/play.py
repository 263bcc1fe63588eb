"""Samurai: The Card Game fast path: whole games in one compiled loop, their statistics
added to the state's aggregates as the rules count them, and the --save-games row."""


from kernels.jit import kernel
from kernels.samurai_card_game.players import choose
from kernels.samurai_card_game.rules import N_SHAPES, apply, is_over, setup
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
def play_chunk(st, seed, first, count, rows, forbid):
    """Play games first .. first+count-1 of the run keyed by `seed` into st.aggs; `rows`
    is (count, N_ROW) to keep each game's row, or (0, N_ROW)."""
    keep = rows.shape[0] > 0
    for g in range(count):
        setup(st, seed, first + g)
        while not is_over(st):
            apply(st, choose(st, forbid))
        if keep:
            game_row(st, rows[g])


@kernel
def py_game_row(st, row):
    """game_row, from Python."""
    game_row(st, row)
