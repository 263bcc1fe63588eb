"""Sixteen Samurai options for `simcli value` (issue 16): the battle cards and the abilities
as options, forbid honoured by the fast path, a card removed from the content (an ability
cannot be), battle-card copies as content, and a planted card found first by restricted
play."""

from pathlib import Path

import numpy as np
import polars as pl

from kernels.sixteen_samurai import rules as KR
from kernels.sixteen_samurai.stats import Ability, Battle, BattleStat
from simcli.games.sixteen_samurai import BATTLE_CARDS, OPTION_NAMES, SixteenSamurai
from simcli.value import run_value

GAME = SixteenSamurai()
CONTENT = GAME.load_content(GAME.content_path(None))
ABILITY_OPTIONS = range(len(Battle), len(Battle) + len(Ability))


def test_options_are_the_kernels_battle_cards_then_abilities():
    assert [o.lower() for o in GAME.options] == list(KR.OPTIONS)
    assert GAME.options == OPTION_NAMES == (*BATTLE_CARDS, "Power", "Speed", "Armor", "Karma")
    assert [KR.OPTIONS[KR.OPT_ABILITY + a] for a in Ability] == [a.name.lower()
                                                                 for a in Ability]
    assert GAME.value_n > 0


def test_option_of_a_declaration_is_its_ability():
    h = GAME.new_game(seed=2, playout=1, players=3, seats=("greedy",) * 3)
    phases = set()
    while not h.is_over():
        ph = h.phase()
        if ph in ("declare", "final declare"):
            phases.add(ph)
            assert [h.option_of(a) for a in h.legal_actions()] == [
                int(KR.OPT_ABILITY) + a for a in range(4)]
        elif ph == "field":
            for a in h.legal_actions():
                assert h.option_of(a) == (-1, int(KR.NINJUTSU), int(KR.UMA))[a % 3]
        h.step()
    assert phases == {"declare", "final declare"}


def run(prep, n=300, forbid=None, seed=4):
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, seed, 0, n, aggs, None, forbid=forbid)
    return aggs


def test_run_chunk_honours_forbidden_battle_cards():
    prep = GAME.prepare(CONTENT, 2, ("greedy", "random"), GAME.resolve_rules([]))
    base = run(prep)["battle"][:, BattleStat.PLAYED_GAMES]
    assert (base > 0).all()
    for o in range(len(Battle)):
        forbid = np.zeros((2, len(GAME.options)), np.bool_)
        forbid[:, o] = True
        played = run(prep, forbid=forbid)["battle"][:, BattleStat.PLAYED_GAMES]
        assert played[o] == 0 and played.sum() > 0


def test_run_chunk_honours_forbidden_abilities():
    """Every seat forbidden one ability: no round (either phase) is declared in it, and
    the others still are; forbidding nothing leaves the results as they were."""
    prep = GAME.prepare(CONTENT, 3, ("greedy", "random", "greedy"), GAME.resolve_rules([]))
    plain = run(prep)
    assert (plain["decl_ab"][:, :, 0] > 0).all()
    none = run(prep, forbid=np.zeros((3, len(GAME.options)), np.bool_))
    assert all((plain[k] == none[k]).all() for k in plain)
    for o in ABILITY_OPTIONS:
        forbid = np.zeros((3, len(GAME.options)), np.bool_)
        forbid[:, o] = True
        declared = run(prep, forbid=forbid)["decl_ab"][:, :, 0]  # (phase, ability)
        a = o - int(KR.OPT_ABILITY)
        assert declared[:, a].sum() == 0
        assert (np.delete(declared, a, axis=1) > 0).all()


def test_remove_option_takes_every_copy_out_of_every_clan():
    for o in range(len(Battle)):
        reduced = GAME.remove_option(CONTENT, o)
        assert reduced is not None and GAME.options[o] in reduced.name
        assert reduced.data.battle[o] == 0 and sum(reduced.data.battle) == len(Battle) - 1
        prep = GAME.prepare(reduced, 3, ("random",) * 3, GAME.resolve_rules([]))
        battle = run(prep)["battle"]
        assert battle[o, BattleStat.PLAYED_GAMES] == 0
        assert battle[o, BattleStat.UNUSED_AT_END] == 0  # never dealt
        others = [b for b in range(len(Battle)) if b != o]
        assert (battle[others, BattleStat.PLAYED_GAMES] > 0).all()
    for o in ABILITY_OPTIONS:  # declaring an ability cannot be taken out of the game
        assert GAME.remove_option(CONTENT, o) is None
    assert CONTENT.data.battle == (1,) * len(Battle)  # the loaded content is untouched


def with_battle(tmp_path: Path, name: str, uma_value: int = 7, **copies: int) -> Path:
    """The standard content with [battle] copies and Uma's value changed."""
    text = CONTENT.path.read_text(encoding="utf-8").replace(
        "uma_value = 7", f"uma_value = {uma_value}", 1)
    for card, k in copies.items():
        old = f"\n{card} = 1 "
        assert text.count(old) == 1
        text = text.replace(old, f"\n{card} = {k} ", 1)
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_remove_option_of_copies_keeps_the_other_cards(tmp_path):
    content = GAME.load_content(with_battle(tmp_path, "copies", uma=3, bushido=2))
    assert content.data.battle == (1, 3, 1, 2, 1)
    reduced = GAME.remove_option(content, int(KR.UMA))
    assert reduced.data.battle == (1, 0, 1, 2, 1)


def overall(folder: Path) -> pl.DataFrame:
    df = pl.read_csv(folder / "tables" / "restricted.csv").filter(pl.col("seat") == "overall")
    return df.sort("value", descending=True)


def test_value_finds_a_planted_card_first(tmp_path):
    """Three Uma per clan showing 9 on eight-sided dice (it beats every roll): restricted
    play ranks Uma first of the nine options, its interval above the next one's. With
    the printed content (one Uma showing 7) Uma is not first (Ronin is). Removal rows
    exist for the battle cards only (an ability cannot be removed)."""
    args = dict(players=2, policy="greedy", n=800, seed=3, threads=1, rules=[], force=True)
    planted = with_battle(tmp_path, "planted", uma_value=9, uma=3)
    plant = overall(run_value("sixteen-samurai", content=str(planted), out=tmp_path / "b",
                              **args).folder)
    assert plant.height == len(GAME.options)
    assert plant["option"][0] == "Uma" and plant["verdict"][0] == "worth using"
    assert plant["ci_low"][0] > plant["ci_high"][1]  # ahead of the next beyond doubt
    res = run_value("sixteen-samurai", content=None, out=tmp_path / "a", **args)
    base = overall(res.folder)
    assert base["option"][0] != "Uma"
    values = dict(zip(base["option"], base["value"], strict=True))
    assert plant["value"][0] > values["Uma"] + 0.1
    assert set(res.removal["option"].to_list()) == set(BATTLE_CARDS)


def test_value_skips_the_cards_the_content_leaves_out(tmp_path):
    """A content without Ninjutsu or Medicine: those two are not valued (no restricted or
    removal rows, not in the Holm family) and the manifest names them."""
    path = with_battle(tmp_path, "fewer", ninjutsu=0, medicine=0)
    content = GAME.load_content(path)
    assert [GAME.option_in_game(content, o) for o in range(len(GAME.options))] == [
        False, True, True, True, False, True, True, True, True]
    res = run_value("sixteen-samurai", content=str(path), out=tmp_path / "v", players=2,
                    policy="greedy", n=60, seed=1, threads=1, rules=[], force=True)
    valued = {"Uma", "Ronin", "Bushido", "Power", "Speed", "Armor", "Karma"}
    assert set(res.restricted["option"].to_list()) == valued
    assert set(res.removal["option"].to_list()) == {"Uma", "Ronin", "Bushido"}
    assert res.manifest["options_not_in_game"] == ["Ninjutsu", "Medicine"]
