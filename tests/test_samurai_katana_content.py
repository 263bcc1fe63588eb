"""Samurai & Katana content: the shipped map and deck, and the errors a broken file gets."""


import numpy as np
import pytest

from kernels import katana_combat as KC
from simcli.errors import UserError
from simcli.games.samurai_katana import SamuraiKatana
from tests.content_edits import content_error, edited, line_of

GAME = SamuraiKatana()
STANDARD = GAME.content_path(None)


def test_standard_content_follows_the_rulebook_and_the_sheet():
    c = GAME.load_content(STANDARD)
    board, deck, numbers = c.data.board, c.data.deck, c.data.numbers
    assert c.assumed and board.assumed and deck.assumed.all()
    assert int(deck.counts.sum()) == 55
    assert len(board.province_ids) == 8 and 35 <= len(board.ids) <= 45
    honor = dict(zip(board.province_ids, board.province_honor.tolist(), strict=True))
    assert honor["kinai"] == 5 and honor["tokaido"] == 3
    # 19 city markers: 7 major including Kyoto, 12 minor; Kyoto is in Kinai
    assert (board.city_cp == 2).sum() == 7 and (board.city_cp == 1).sum() == 12
    assert board.city_name[board.kyoto] == "Kyoto"
    assert board.province_ids[board.province[board.kyoto]] == "kinai"
    # every card the rulebook names is in the deck
    for name in ("Shogunal Justice", "Ikko Ikki Uprising", "Hokke Sect", "Nichiren Sect",
                 "Insult", "Plot", "Tsunami", "Alliance", "Ninja", "Scorched Earth",
                 "Tea Ceremony", "No Theatre", "Wako Pirates"):
        assert name in deck.names
    # the rulebook's numbers
    assert (numbers.hand, numbers.start_koku, numbers.castles) == (5, 5, 3)
    assert (numbers.castle_cost, numbers.kyoto_castle_cost) == (4, 6)
    assert numbers.samurai == (20, 20, 18, 15)
    assert numbers.minor_cities == (3, 3, 2, 2) and numbers.extra_samurai == (4, 4, 3, 3)
    # links are symmetric in the CSR arrays too
    links = {(t, int(board.adj_to[e]), int(board.adj_sea[e])) for t in range(len(board.ids))
             for e in range(board.adj_start[t], board.adj_start[t + 1])}
    assert all((b, a, s) in links for a, b, s in links)
    assert np.array_equal(np.bincount(board.province), [4, 6, 8, 6, 4, 5, 5, 6])


def test_six_players_draw_every_city_but_kyoto():
    prep = GAME.prepare(GAME.load_content(STANDARD), 6, ("random",) * 6,
                        GAME.resolve_rules([]))
    assert len(prep.majors) == 6 and len(prep.minors) == 12


def at(path, entry_id):
    """'line N' of the entry with this id."""
    return f"line {line_of(path, f'id = {chr(34)}{entry_id}{chr(34)}')}"


def test_asymmetric_adjacency_is_rejected_naming_the_entry(tmp_path):
    # Dewa forgets Mutsu; Mutsu still lists Dewa
    path = edited(GAME, tmp_path, 'land = ["mutsu", "echigo"], sea = []',
                  'land = ["echigo"], sea = []')
    msg = content_error(GAME, path)
    assert "asymmetric adjacency" in msg and "'mutsu'" in msg and "'dewa'" in msg
    assert at(path, "mutsu") in msg


def test_land_link_listed_as_sea_at_the_other_end_is_asymmetric(tmp_path):
    path = edited(GAME, tmp_path, 'land = ["mutsu", "echigo"], sea = []',
                  'land = ["echigo"], sea = ["mutsu"]')
    msg = content_error(GAME, path)
    assert "asymmetric adjacency" in msg and "sea neighbour" in msg


def test_unknown_territory_is_rejected(tmp_path):
    path = edited(GAME, tmp_path, 'land = ["mutsu", "echigo"], sea = []',
                  'land = ["mutsu", "echigo", "ezo"], sea = []')
    msg = content_error(GAME, path)
    assert "territory 'dewa'" in msg and "'ezo' is not a territory" in msg
    assert at(path, "dewa") in msg


def test_province_without_territories_is_rejected(tmp_path):
    saikaido = '{ id = "saikaido", name = "Saikaido", honor = 3, assumed = true },'
    path = edited(GAME, tmp_path, saikaido,
                  saikaido + '\n  { id = "ezo", name = "Ezo", honor = 2, assumed = true },')
    msg = content_error(GAME, path)
    assert "province 'ezo' has no territories" in msg
    assert at(path, "ezo") in msg


def test_disconnected_map_is_rejected(tmp_path):
    # cut Sado's two sea links at both ends
    text = STANDARD.read_text()
    text = text.replace('sea = ["kaga", "echigo"]', 'sea = []')
    text = text.replace('land = ["hida", "echizen", "etchu"], sea = ["sado"]',
                        'land = ["hida", "echizen", "etchu"], sea = []')
    text = text.replace('land = ["shinano", "kozuke", "mutsu", "dewa", "etchu"], sea = ["sado"]',
                        'land = ["shinano", "kozuke", "mutsu", "dewa", "etchu"], sea = []')
    path = tmp_path / "island.toml"
    path.write_text(text)
    msg = content_error(GAME, path)
    assert "not connected" in msg and "'sado'" in msg
    assert at(path, "sado") in msg


@pytest.mark.parametrize(("old", "new", "words", "where"), [
    ('territory = "settsu", size = "major"', 'territory = "osaka-bay", size = "major"',
     ["city 'Osaka'", "unknown territory 'osaka-bay'", "map.cities[1].territory"], None),
    ('territory = "settsu", size = "major"', 'territory = "yamato", size = "major"',
     ["city 'Nara'", "territory 'yamato' already holds Osaka"], 'name = "Nara"'),
    ('size = "major", kyoto = true', 'size = "major"', ["no city is marked kyoto"],
     "cities = ["),
    ('terrain = "mountain", land = ["mutsu", "echigo"]', 'terrain = "hills", land = ["mutsu", '
     '"echigo"]', ["map.territories[17].terrain", "Invalid enum value 'hills'"], None),
    ('province = "kinai", terrain = "plain", land = ["yamashiro", "izumi", "ise", "kii"]',
     'province = "kansai", terrain = "plain", land = ["yamashiro", "izumi", "ise", "kii"]',
     ["territory 'yamato'", "unknown province 'kansai'"], None),
    ('kind = "special", effect = "fan", amount = 3', 'kind = "event", effect = "fan", amount = 3',
     ["card 'Ambush'", "effect 'fan' belongs on a special card"], None),
    ('name = "Ashigaru", count = 7, value = 1', 'name = "Ashigaru", count = 7, value = 12',
     ["field 'deck.cards[0].value'", "Expected `int` <= 9"], None),
    ('kind = "anytime", effect = "ninja"', 'kind = "anytime", effect = "teleport"',
     ["deck.cards[21].effect", "Invalid enum value 'teleport'"], None),
    ("castle_cost = 4", "castle_cost = -4", ["field 'numbers.castle_cost'", ">= 0"], None),
    ("samurai = { 3 = 20, 4 = 20, 5 = 18, 6 = 15 }", "samurai = { 3 = 20, 4 = 20 }",
     ["field 'numbers.samurai'", "missing required field `5`"], None),
    ('game = "samurai-katana"', 'game = "samsara"', ["content is for 'samsara'"], None),
    ('kind = "anytime", effect = "ninja"', 'kind = "anytime", effect = "ninja", power = 3',
     ["field 'deck.cards[21].power'", "unknown field `power`"], None),
    ("tax_mountain = 1", "tax_mountain = 1\ntax_river = 3",
     ["field 'numbers.tax_river'", "unknown field `tax_river`"], "tax_river = 3"),
    ('name = "Ashigaru", count = 7, value = 1', 'name = "Ashigaru", count = "seven", value = 1',
     ["field 'deck.cards[0].count'", "Expected `int`, got `str`"], None),
    ('{ id = "dewa", name = "Dewa",', '{ id = "dewa", nom = "Dewa",',
     ["field 'map.territories[17].nom'", "unknown field `nom`"], None),
])
def test_bad_entries_are_named_with_their_real_line(tmp_path, old, new, words, where):
    path = edited(GAME, tmp_path, old, new)
    msg = content_error(GAME, path)
    for w in words:
        assert w in msg, msg
    needle = where or new.split("\n")[-1]
    assert f"line {line_of(path, needle)}:" in msg, msg
    assert "\n" not in msg


def test_the_schema_reads_the_standard_file_as_the_old_validators_did():
    """Every field of the shipped file reaches the game (names, counts, costs, flags)."""
    c = GAME.load_content(STANDARD)
    deck = c.data.deck
    i = deck.names.index("Ikko Ikki Uprising")  # count 2, value 4, swords 1, cost 2
    assert deck.kinds[i] == "event" and deck.effects[i] == "uprising"
    assert int(deck.counts[i]) == 2 and deck.table[i, KC.CC_VALUE] == 4
    assert deck.table[i, KC.CC_SWORDS] == 1 and deck.table[i, KC.CC_COST] == 2
    assert deck.table[i, KC.CC_EFFECT] == KC.E_UPRISING and deck.table[i, KC.CC_AMOUNT] == 0
    j = deck.names.index("Ambush")  # a special: fan 3, no cost
    assert deck.kinds[j] == "special" and int(deck.counts[j]) == 1
    assert deck.table[j, KC.CC_AMOUNT] == 3 and deck.table[j, KC.CC_COST] == 0
    assert c.name == "standard" and c.version == "1" and c.description.startswith("Recon")
    board = c.data.board
    dewa = board.ids.index("dewa")
    assert board.names[dewa] == "Dewa" and board.mountain[dewa]
    assert board.province_names[board.province[dewa]] == "Tosando"


def test_malformed_and_missing_files(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[map\n")
    assert "malformed TOML" in content_error(GAME, bad)
    assert "cannot read content file" in content_error(GAME, tmp_path / "missing.toml")
    empty = tmp_path / "empty.toml"
    empty.write_text('[content]\ngame = "samurai-katana"\n')
    assert "missing required field `map`" in content_error(GAME, empty)


def test_too_few_cities_for_the_player_count(tmp_path):
    path = edited(GAME, tmp_path, '{ name = "Hakata", territory = "chikuzen", size = "major", '
                  'assumed = true },', "")
    content = GAME.load_content(path)
    GAME.prepare(content, 5, ("random",) * 5, GAME.resolve_rules([]))  # 5 majors are enough
    with pytest.raises(UserError, match="5 major cities"):
        GAME.prepare(content, 6, ("random",) * 6, GAME.resolve_rules([]))
