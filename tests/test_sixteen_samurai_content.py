"""The Sixteen Samurai content file against its schema (simcli/content.py): every wrong
type, unknown key or out-of-range value is one line of error naming the file's line and
the field."""

import pytest

from simcli.errors import UserError
from simcli.games.sixteen_samurai import SixteenSamurai

GAME = SixteenSamurai()
STANDARD = GAME.content_path(None)
OKU = '{ name = "Oku the Plain", power = 1, speed = 1, armor = 3, karma = 1'


@pytest.mark.parametrize(("old", "new", "line_of", "field"), [
    # wrong types
    (OKU, OKU.replace("power = 1", 'power = "one"'), "Oku the Plain",
     "roster.samurai[3].power"),
    ("faces = 8", 'faces = "8"', "faces =", "dice.faces"),
    ("hand = 5", "hand = 5.0", "hand =", "clan.hand"),
    ("assumed = true\n", "assumed = 1\n", "assumed = 1", "content.assumed"),
    (OKU, OKU.replace('"Oku the Plain"', "7"), "name = 7", "roster.samurai[3].name"),
    # unknown keys
    ("uma_value = 7", "uma_value = 7\nsides = 6", "sides =", "dice.sides"),
    (OKU, OKU + ", colour = 1", "Oku the Plain", "roster.samurai[3].colour"),
    ("[clan]", "[extra]\nx = 1\n\n[clan]", "[extra]", "extra"),
    ('name = "standard"', 'name = "standard"\nauthor = "me"', "author =", "content.author"),
    # out of range
    ("uma_value = 7", "uma_value = 0", "uma_value =", "dice.uma_value"),
    ("size = 16", "size = 33", "size =", "clan.size"),
    (OKU, OKU.replace("power = 1", "power = 5"), "Oku the Plain", "roster.samurai[3].power"),
    (OKU, OKU.replace("speed = 1", "speed = 0"), "Oku the Plain", "roster.samurai[3].speed"),
    ("faces = 8", "faces = 1", "faces =", "dice.faces"),
    # [battle]: copies of each battle card
    ("\numa = 1 ", "\numa = -1 ", "uma = -1", "battle.uma"),
    ("\nronin = 1 ", "\nronin = 11 ", "ronin = 11", "battle.ronin"),
    ("\nbushido = 1 ", '\nbushido = "two" ', 'bushido = "two"', "battle.bushido"),
    ("\nmedicine = 1 ", "\nmedicine = 1.0 ", "medicine = 1.0", "battle.medicine"),
    ("\nninjutsu = 1 ", "\nninjutsu = 1\nshuriken = 2 ", "shuriken =", "battle.shuriken"),
])
def test_each_bad_value_is_one_line_naming_its_line(tmp_path, old, new, line_of, field):
    text = STANDARD.read_text()
    assert text.count(old) >= 1
    edited = text.replace(old, new, 1)
    path = tmp_path / "roster.toml"
    path.write_text(edited)
    with pytest.raises(UserError) as exc:
        GAME.load_content(path)
    msg = str(exc.value)
    line = next(i for i, t in enumerate(edited.splitlines(), 1) if line_of in t)
    assert "\n" not in msg
    assert msg.startswith(f"{path} line {line}: field '{field}'"), msg


def test_the_cross_field_checks_name_their_line(tmp_path):
    text = STANDARD.read_text()
    path = tmp_path / "roster.toml"
    path.write_text(text.replace('"Irie the Spectator"', '"Fobus Dustwalker"', 1))
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "Irie the Spectator" in t)
    with pytest.raises(UserError, match=rf"line {line}: field 'roster.samurai\[1\].name': "
                                        r"samurai 'Fobus Dustwalker' appears twice"):
        GAME.load_content(path)
    path.write_text(text.replace('game = "sixteen-samurai"', 'game = "samsara"', 1))
    with pytest.raises(UserError, match=r"line \d+: field 'content.game': content is for "
                                        r"'samsara'"):
        GAME.load_content(path)
