"""Samurai Sword's options for `simcli value` (issue 16): the forbid wiring of run_chunk,
removing a card kind from the content, and a planted overpowered card found as the most
valuable option."""

import numpy as np
import pytest

from kernels.samurai_sword import rules as K
from kernels.samurai_sword.stats import Misc
from simcli.errors import UserError
from simcli.games.samurai_sword import OPTION_NAMES, SamuraiSword
from simcli.value import run_value

GAME = SamuraiSword()
CONTENT = GAME.load_content(GAME.content_path(None))
C = CONTENT.data
RULES = GAME.resolve_rules([])


def test_options_are_the_kernels_forbid_columns_in_words():
    assert GAME.options == OPTION_NAMES and len(GAME.options) == K.N_OPTIONS
    assert [o.lower().replace(" ", "_") for o in GAME.options[:13]] == [
        "weapon", "parry", "geisha", "diversion", "battle_cry", "tea_ceremony", "jujutsu",
        "breathing", "daimyo", "focus", "armor", "fast_draw", "bushido"]
    assert K.OPTIONS[K.OPT_NOBUNAGA] == "nobunaga" and K.OPTIONS[K.OPT_IEYASU] == "ieyasu"


def chunk(forbid, seats=("heuristic",) * 4, n=400, content=CONTENT):
    prep = GAME.prepare(content, len(seats), tuple(seats), RULES)
    aggs = GAME.new_aggregates(prep)
    rows = np.zeros((n, len(GAME.row_columns)), np.int64)
    GAME.run_chunk(prep, 5, 0, n, aggs, rows, forbid=forbid)
    return aggs, rows


def test_forbid_none_is_nothing_forbidden_and_a_denied_seat_never_uses_the_option():
    a, ra = chunk(None)
    b, rb = chunk(np.zeros((4, K.N_OPTIONS), np.bool_))
    assert all(np.array_equal(a[k], b[k]) for k in a) and np.array_equal(ra, rb)
    deny = np.zeros((4, K.N_OPTIONS), np.bool_)
    deny[:, K.WEAPON] = True  # nobody may play a Weapon
    c, _ = chunk(deny)
    weapons = C.effects == K.WEAPON
    assert a["cards"][weapons].sum() > 0 and c["cards"][weapons].sum() == 0
    assert c["misc"][Misc.ATTACKS] == 0
    deny = np.zeros((4, K.N_OPTIONS), np.bool_)
    deny[0, K.WEAPON] = deny[0, K.PARRY] = True  # the Shogun alone fights with nothing
    d, _ = chunk(deny)
    shogun = a["team"][0, 1:].sum(), d["team"][0, 1:].sum()
    assert shogun[1] < shogun[0]
    with pytest.raises(UserError, match="forbid"):
        chunk(np.zeros((4, 3), np.bool_))


def test_remove_option_takes_every_card_of_that_kind_out():
    for o in range(K.N_OPTIONS):
        reduced = GAME.remove_option(CONTENT, o)
        if o == K.WEAPON or o >= K.OPT_NOBUNAGA:
            assert reduced is None
            continue
        kind = C.effects == o
        assert (reduced.data.copies[kind] == 0).all()
        assert np.array_equal(reduced.data.copies[~kind], C.copies[~kind])
        assert OPTION_NAMES[o] in reduced.name and CONTENT.data.copies[kind].sum() > 0
    without = GAME.remove_option(CONTENT, K.BATTLE_CRY)
    a, _ = chunk(None, content=without)
    assert a["cards"][C.effects == K.BATTLE_CRY].sum() == 0
    assert a["misc"][Misc.BATTLE_CRY_WOUNDS] + a["misc"][Misc.BATTLE_CRY_PARRIES] == 0


def planted(tmp_path):
    """The printed deck with one kind of Weapon left (2 Bokken) and 30 Battle Cries."""
    lines = []
    for line in GAME.content_path(None).read_text().splitlines():
        if 'effect = "weapon"' in line and '"Bokken"' not in line:
            continue
        line = line.replace('"Bokken", effect = "weapon", difficulty = 1, damage = 1, '
                            'copies = 6', '"Bokken", effect = "weapon", difficulty = 1, '
                            'damage = 1, copies = 2')
        lines.append(line.replace('"Battle Cry", effect = "battle_cry", copies = 4',
                                  '"Battle Cry", effect = "battle_cry", copies = 30'))
    path = tmp_path / "planted.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def top_option(tmp_path, content, name):
    res = run_value("samurai-sword", players=4, policy="heuristic", n=300, seed=3, threads=1,
                    rules=[], content=content, out=tmp_path / name, force=False)
    overall = res.restricted.filter(res.restricted["seat"] == "overall").sort(
        "value", descending=True)
    return overall.row(0, named=True), res


def test_value_finds_a_planted_overpowered_card(tmp_path):
    path = planted(tmp_path)
    assert 'copies = 30' in path.read_text() and "Daikyu" not in path.read_text()
    best, res = top_option(tmp_path, str(path), "planted")
    assert best["option"] == "Battle Cry" and best["verdict"] == "worth using"
    assert best["ci_low"] > 0.05
    assert (res.folder / "report.md").exists() and res.removal.height > 0
    standard, _ = top_option(tmp_path, None, "standard")
    assert standard["option"] != "Battle Cry"  # the plant, not the game, made it dominant
