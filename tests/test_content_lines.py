"""The shared content reader: limits, the real line of every key, schema errors."""

import os
from typing import Annotated

import msgspec
import pytest

from simcli.content import dotted, key_lines, read_document
from simcli.errors import UserError

TEXT = b'''# a comment
[content]
game = "x"   # trailing
name = "t"

[dice]
faces = 8

[roster]
samurai = [
  { name = "A", power = 2 },
  # a comment between elements
  { name = "B", power = "strong" },
]

[[province]]
name = "Kinai"
links = ["a",
         "b"]

[[province]]
name = "Tokaido"
"quoted key" = 1
dotted.key = 2
'''


def test_every_key_has_its_line():
    lines = key_lines(TEXT)
    assert lines[("content", "game")] == 3 and lines[("dice", "faces")] == 7
    assert lines[("roster", "samurai", 0)] == 11 and lines[("roster", "samurai", 1)] == 13
    assert lines[("roster", "samurai", 1, "power")] == 13
    assert lines[("province", 0, "name")] == 17 and lines[("province", 1, "name")] == 22
    assert lines[("province", 0, "links", 1)] == 19
    assert lines[("province", 1, "quoted key")] == 23
    assert lines[("province", 1, "dotted", "key")] == 24


class Samurai(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    power: Annotated[int, msgspec.Meta(ge=1, le=4)]


class Roster(msgspec.Struct, forbid_unknown_fields=True):
    samurai: list[Samurai]


def test_schema_errors_name_the_line_and_field(tmp_path):
    path = tmp_path / "c.toml"
    path.write_bytes(TEXT)
    doc = read_document(path)
    with pytest.raises(UserError, match=r"c.toml line 13: field 'roster.samurai\[1\].power': "
                                        r"Expected `int`, got `str`"):
        doc.convert(Roster, ("roster",))
    path.write_bytes(TEXT.replace(b'"strong"', b'3, colour = 1'))
    with pytest.raises(UserError, match=r"line 13: field 'roster.samurai\[1\].colour': "
                                        r"Object contains unknown field"):
        read_document(path).convert(Roster, ("roster",))


def test_limits_and_odd_files(tmp_path):
    with pytest.raises(UserError, match="not a regular file"):
        read_document(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match="not a regular file"):
        read_document(fifo)
    big = tmp_path / "big.toml"
    big.write_bytes(b"# " + b"x" * (9 * 1024 * 1024))
    with pytest.raises(UserError, match="limit"):
        read_document(big)
    with pytest.raises(UserError, match="cannot read"):
        read_document(tmp_path / "missing.toml")


def test_dotted_names():
    assert dotted(("roster", "samurai", 3, "power")) == "roster.samurai[3].power"
