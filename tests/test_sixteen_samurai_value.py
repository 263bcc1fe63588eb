"""Sixteen Samurai options for `simcli value` (issue 16): the battle cards as options,
forbid honoured by the fast path, a card removed from the content, and a planted card
found by restricted play."""

from pathlib import Path

import numpy as np
import polars as pl

from kernels.sixteen_samurai import rules as KR
from kernels.sixteen_samurai.stats import BattleStat
from simcli.games.sixteen_samurai import BATTLE_CARDS, SixteenSamurai
from simcli.value import run_value

GAME = SixteenSamurai()
CONTENT = GAME.load_content(GAME.content_path(None))


def test_options_are_the_kernels_battle_cards():
    assert [o.lower() for o in GAME.options] == list(KR.OPTIONS)
    assert GAME.options == BATTLE_CARDS and GAME.value_n > 0


def run(prep, n=300, forbid=None):
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 4, 0, n, aggs, None, forbid=forbid)
    return aggs


def test_run_chunk_honours_forbid():
    prep = GAME.prepare(CONTENT, 2, ("greedy", "random"), GAME.resolve_rules([]))
    base = run(prep)["battle"][:, BattleStat.PLAYED_GAMES]
    assert (base > 0).all()
    for o in range(len(GAME.options)):
        forbid = np.zeros((2, len(GAME.options)), np.bool_)
        forbid[:, o] = True
        played = run(prep, forbid=forbid)["battle"][:, BattleStat.PLAYED_GAMES]
        assert played[o] == 0 and played.sum() > 0


def test_remove_option_takes_the_card_out_of_every_clan():
    for o in range(len(GAME.options)):
        reduced = GAME.remove_option(CONTENT, o)
        assert reduced is not None and GAME.options[o] in reduced.name
        prep = GAME.prepare(reduced, 3, ("random",) * 3, GAME.resolve_rules([]))
        battle = run(prep)["battle"]
        assert battle[o, BattleStat.PLAYED_GAMES] == 0
        assert battle[o, BattleStat.UNUSED_AT_END] == 0  # never dealt
        others = [b for b in range(len(GAME.options)) if b != o]
        assert (battle[others, BattleStat.PLAYED_GAMES] > 0).all()
    assert CONTENT.data.battle == (True,) * 5  # the loaded content is untouched


def overall(folder: Path) -> dict[str, float]:
    df = pl.read_csv(folder / "tables" / "restricted.csv").filter(pl.col("seat") == "overall")
    return dict(zip(df["option"].to_list(), df["value"].to_list(), strict=True))


def test_value_finds_a_planted_card(tmp_path):
    """Uma planted at 9 on eight-sided dice (it beats every roll): restricted play finds
    it worth far more than at the printed 7, ahead of the other before-rolling card and of
    Bushido. (Ronin stays first: stolen after the roll, it swings a round both ways.)"""
    text = CONTENT.path.read_text(encoding="utf-8")
    planted = tmp_path / "planted.toml"
    planted.write_text(text.replace("uma_value = 7", "uma_value = 9", 1), encoding="utf-8")
    args = dict(players=2, policy="greedy", n=1500, seed=3, threads=1, rules=[], force=True)
    base = overall(run_value("sixteen-samurai", content=None, out=tmp_path / "a", **args)
                   .folder)
    plant = overall(run_value("sixteen-samurai", content=str(planted), out=tmp_path / "b",
                              **args).folder)
    assert plant["Uma"] > base["Uma"] + 0.02
    assert plant["Uma"] > max(plant["Ninjutsu"], plant["Bushido"])
    assert base["Uma"] < max(base["Ninjutsu"], base["Bushido"])  # not so at the printed 7
