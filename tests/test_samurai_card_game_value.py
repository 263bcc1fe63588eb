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
            want_k[:, r] += np.stack([y * y, x * x, x * y, y, x], axis=1)
            for cg in CardGroup:
                yg, xg = y[group == cg].sum(), x[group == cg].sum()
                want_g[cg, r] += [yg * yg, xg * xg, xg * yg, yg, xg]
        for r, (ys, xs) in zip(MiscRatio, MISC_PAIRS, strict=True):
            y, x = one["misc"][ys], one["misc"][xs]
            want_m[r] += [y * y, x * x, x * y, y, x]
    assert (chunk["kind_sq"] == want_k).all() and (chunk["group_sq"] == want_g).all()
    assert (chunk["misc_sq"] == want_m).all()
    assert chunk["misc_sq"][MiscRatio.TIED, Cross.XX] > chunk["misc"][MISC_PAIRS[0][1]]
    for name in chunk:
        assert (chunk[name] == total[name]).all(), name


# --- simcli value: options, forbidden sets, removal, a planted card -----------------------

PLANTED_SET = '''[player_set]
cards = [
  { symbol = "helmet", influence = 2, count = COUNT2 },
  { symbol = "helmet", influence = 3, count = 1 },
  { symbol = "helmet", influence = 4, count = 1 },
  { symbol = "buddha", influence = 2, count = COUNT2 },
  { symbol = "buddha", influence = 3, count = 1 },
  { symbol = "buddha", influence = 4, count = 1 },
  { symbol = "rice", influence = 2, count = COUNT2 },
  { symbol = "rice", influence = 3, count = 1 },
  { symbol = "rice", influence = 4, count = 1 },
  { symbol = "samurai", influence = SAMURAI, count = SAMURAIS },
]
remove_4p = [{ symbol = "helmet", influence = 2, count = 1 }]

'''


def content_file(tmp_path, name: str, count2: int, samurai: int, samurais: int):
    """The standard file with a 13-card set: symbol cards 2, 3, 4 (count2 copies of each
    2) and `samurais` samurai cards of influence `samurai`."""
    text = GAME.content_path(None).read_text()
    head, tail = text.split("[player_set]")[0], "[villages]" + text.split("[villages]")[1]
    body = (PLANTED_SET.replace("COUNT2", str(count2)).replace("SAMURAIS", str(samurais))
            .replace("SAMURAI,", f"{samurai},"))
    path = tmp_path / f"{name}.toml"
    path.write_text(head + body + tail)
    return path


def test_the_game_declares_its_options_and_passes_forbid_to_the_players():
    """run_chunk hands `forbid` to the players: all False plays as without; seat 1 denied
    samurai cards (played only when its hand holds nothing else) wins far less often."""
    prep = GAME.prepare(CONTENT, 3, ("greedy",) * 3, GAME.resolve_rules([]))
    assert GAME.options == ("helmet card", "buddha card", "rice card", "samurai card")
    plain, none, denied = (GAME.new_aggregates(prep) for _ in range(3))
    GAME.run_chunk(prep, 4, 0, 400, plain, None)
    GAME.run_chunk(prep, 4, 0, 400, none, None, forbid=np.zeros((3, 4), np.bool_))
    ban = np.zeros((3, 4), np.bool_)
    ban[0, 3] = True
    GAME.run_chunk(prep, 4, 0, 400, denied, None, forbid=ban)
    assert all((plain[k] == none[k]).all() for k in plain)
    assert denied["wins"][0] < 0.6 * plain["wins"][0]
    assert denied["wins"][1:3].sum() > plain["wins"][1:3].sum()


@pytest.mark.parametrize("players", [3, 4])
def test_removing_an_option_takes_every_card_of_its_symbol_out(players):
    for o, name in enumerate(GAME.options):
        reduced = GAME.remove_option(CONTENT, o)
        assert name in reduced.name
        prep = GAME.prepare(reduced, players, ("random",) * players, GAME.resolve_rules([]))
        symbols = {(int(c) >> 2) & 3 for c in prep.setc}
        assert symbols == {0, 1, 2, 3} - {o}
        kept = CONTENT.data.kind_count[CONTENT.data.kind_symbol != o].sum()
        removed4 = CONTENT.data.kind_remove_4p[CONTENT.data.kind_symbol != o].sum()
        assert len(prep.setc) == kept - (removed4 if players == 4 else 0)
        aggs = GAME.new_aggregates(prep)
        GAME.run_chunk(prep, 1, 0, 20, aggs, None)
        assert aggs["outcome"].sum() == 20
    assert GAME.remove_option(CONTENT, 4) is None


def test_value_finds_a_planted_overpowered_card(tmp_path):
    """Three samurai cards of influence 15 in a 13-card set: denying them costs a player
    far more than denying any symbol, and `simcli value` ranks them first; with a single
    samurai 1 instead (the control), the samurai card is the least valuable option."""
    import polars as pl

    from simcli.value import run_value

    def overall(path, out):
        res = run_value("samurai-card-game", players=2, policy="greedy", n=400, seed=3,
                        threads=1, rules=[], content=str(path), out=out, force=False)
        return res.restricted.filter(pl.col("seat") == "overall").sort("value",
                                                                       descending=True)

    planted = overall(content_file(tmp_path, "planted", 1, 15, 3), tmp_path / "p")
    assert planted["option"][0] == "samurai card"
    assert planted["ci_low"][0] > planted["ci_high"][1]  # ahead of the next beyond doubt
    assert planted["verdict"][0] == "worth using"
    control = overall(content_file(tmp_path, "control", 2, 1, 1), tmp_path / "c")
    assert control["option"][-1] == "samurai card"
    assert (tmp_path / "p" / "report.md").exists()


def test_own_metrics_carry_clustered_intervals():
    """The game's own catalogue metrics: end reasons per game; per-contest rates with the
    clustered interval, wider than a Wilson interval over contests (contests of one game
    are not independent)."""
    from reports.stats import rate
    from simcli.analysis import metrics_of

    prep = GAME.prepare(CONTENT, 4, ("greedy",) * 4, GAME.resolve_rules([]))
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 2, 0, 300, aggs, None)
    rows = {r["metric"]: r for r in metrics_of(GAME, aggs, 4).iter_rows(named=True)}
    assert set(GAME.own_metric_names) <= set(rows)
    sam = CONTENT.data.kind_symbol == 3
    won, contests = aggs["kinds"][sam, 2].sum(), aggs["kinds"][sam, 1].sum()
    r = rows["samurai.contest_win_share"]
    assert r["value"] == pytest.approx(won / contests) and r["n"] == contests
    wilson = rate(won, contests)
    assert r["ci_high"] - r["ci_low"] > wilson.hi - wilson.lo
    assert rows["end.markers"]["value"] > 0.9
    for name in GAME.own_metric_names:
        assert rows[name]["ci_low"] <= rows[name]["value"] <= rows[name]["ci_high"]
