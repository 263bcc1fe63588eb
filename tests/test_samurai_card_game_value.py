"""Samurai: The Card Game: clustered intervals of the rates counted within games (per
contest, per turn, per play), and `simcli value` (restricted play, removal) finding a
planted overpowered card."""

from __future__ import annotations

import numpy as np
import pytest

from kernels.samurai_card_game.stats import (
    MISC_PAIRS,
    RATIO_PAIRS,
    CardGroup,
    Cross,
    KindRatio,
    MiscRatio,
)
from tests.test_samurai_card_game_rules import CONTENT, GAME


@pytest.mark.parametrize(("players", "seats", "rules"), [
    (3, ("random",) * 3, ("chain=on",)),
    (4, ("greedy", "random", "greedy", "random"), ()),
])
def test_per_game_sums_equal_those_of_games_played_one_by_one(players, seats, rules):
    """kind_sq, group_sq and misc_sq of a chunk equal the sums over its games, each played
    alone, of y_g^2, x_g^2 and x_g * y_g; the chunk's other aggregates are unchanged."""
    prep = GAME.prepare(CONTENT, players, seats, GAME.resolve_rules(list(rules)))
    n = 40
    chunk = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 9, 0, n, chunk, None)
    kinds = CONTENT.data.kind_symbol
    group = (kinds == 3).astype(int)
    want_k = np.zeros_like(chunk["kind_sq"])
    want_g = np.zeros_like(chunk["group_sq"])
    want_m = np.zeros_like(chunk["misc_sq"])
    total = GAME.new_aggregates(prep)
    for g in range(n):
        one = GAME.new_aggregates(prep)
        GAME.run_chunk(prep, 9, g, 1, one, None)
        for name in total:
            total[name] += one[name]
        for r, (ys, xs) in zip(KindRatio, RATIO_PAIRS, strict=True):
            y = one["kinds"][:, ys]
            x = one["kinds"][:, xs]
            want_k[:, r] += np.stack([y * y, x * x, x * y], axis=1)
            for cg in CardGroup:
                yg, xg = y[group == cg].sum(), x[group == cg].sum()
                want_g[cg, r] += [yg * yg, xg * xg, xg * yg]
        for r, (ys, xs) in zip(MiscRatio, MISC_PAIRS, strict=True):
            y, x = one["misc"][ys], one["misc"][xs]
            want_m[r] += [y * y, x * x, x * y]
    assert (chunk["kind_sq"] == want_k).all() and (chunk["group_sq"] == want_g).all()
    assert (chunk["misc_sq"] == want_m).all()
    assert chunk["misc_sq"][MiscRatio.TIED, Cross.XX] > chunk["misc"][MISC_PAIRS[0][1]]
    for name in chunk:
        assert (chunk[name] == total[name]).all(), name
