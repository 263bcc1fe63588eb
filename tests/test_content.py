"""Roster content: the shipped file and the errors a malformed one gets."""

import pytest

from simcli.errors import UserError
from simcli.games.sixteen_samurai import SixteenSamurai
from tests.content_edits import content_error, edited

GAME = SixteenSamurai()
STANDARD = GAME.content_path(None)


def test_standard_roster_matches_the_rulebook():
    c = GAME.load_content(STANDARD)
    r = c.data
    assert len(r.names) == 70 and c.assumed
    counts = {t: int((r.totals == t).sum()) for t in (6, 7, 8, 9, 10)}
    assert counts == {6: 6, 7: 16, 8: 11, 9: 24, 10: 13}  # unmarked block 8, Kalia 10
    assert ((r.ratings >= 1) & (r.ratings <= 4)).all()
    printed = {n for n, a in zip(r.names, r.assumed, strict=True) if not a}
    assert printed == {"Kalia Cindertrap", "Fobus Dustwalker"}
    assert (r.faces, r.uma_value, r.clan_size, r.hand_size) == (8, 7, 16, 5)


def test_bad_rating_names_line_and_field(tmp_path):
    path = edited(GAME, tmp_path, '"Oku the Plain", power = 1', '"Oku the Plain", power = 5')
    msg = content_error(GAME, path)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "Oku the Plain" in t)
    assert f"line {line}" in msg and "'roster.samurai[3].power'" in msg
    assert "Oku the Plain" in msg


def test_wrong_total_is_reported(tmp_path):
    msg = content_error(GAME, edited(GAME, tmp_path, "karma = 2, total = 6, assumed = false",
                                     "karma = 2, total = 7, assumed = false"))
    assert "'roster.samurai[0].total'" in msg and "Fobus Dustwalker" in msg


def test_malformed_toml_names_the_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[content]\nname = "x"\n[dice\nfaces = 8\n')
    msg = content_error(GAME, path)
    assert "malformed TOML" in msg and "line 3" in msg


def test_duplicate_and_missing_fields(tmp_path):
    path = edited(GAME, tmp_path, '"Irie the Spectator"', '"Fobus Dustwalker"')
    assert "twice" in content_error(GAME, path)
    assert "'dice.faces'" in content_error(GAME, edited(GAME, tmp_path, "faces = 8", "faces = 1"))
    path = tmp_path / "empty.toml"
    path.write_text("[content]\nname='x'\n[dice]\nfaces=8\numa_value=7\n[clan]\nsize=16\nhand=5\n")
    assert "required field `roster`" in content_error(GAME, path)


def test_unreadable_and_unknown_content(tmp_path):
    assert "cannot read" in content_error(GAME, tmp_path)  # a folder, not a file
    with pytest.raises(UserError, match="neither a shipped content"):
        GAME.content_path(str(tmp_path / "nope.toml"))


def test_small_roster_is_refused_for_many_players(tmp_path):
    text = STANDARD.read_text()
    lines = text.splitlines()
    keep = [ln for ln in lines if "{ name" not in ln]
    cards = [ln for ln in lines if "{ name" in ln][:40]
    idx = keep.index("samurai = [") + 1
    path = tmp_path / "small.toml"
    path.write_text("\n".join(keep[:idx] + cards + keep[idx:]))
    c = GAME.load_content(path)
    GAME.prepare(c, 2, ("greedy", "greedy"), GAME.resolve_rules([]))
    with pytest.raises(UserError, match="40 samurai; 3 players draft 48"):
        GAME.prepare(c, 3, ("greedy",) * 3, GAME.resolve_rules([]))
