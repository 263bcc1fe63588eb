"""What the content-file tests share: a game's standard file with one edit, the one-line
error loading it gives, and the line a text is on."""

from pathlib import Path

import pytest

from simcli.errors import UserError


def edited(game, tmp_path: Path, old: str, new: str, count: int = 1) -> Path:
    """A copy of `game`'s standard content file in tmp_path with `old` (which must be
    there) replaced by `new` (the first `count` times)."""
    text = game.content_path(None).read_text()
    assert old in text, old
    path = tmp_path / "edited.toml"
    path.write_text(text.replace(old, new, count))
    return path


def content_error(game, path: Path) -> str:
    """The UserError message `game` gives loading content file `path` (it must fail)."""
    with pytest.raises(UserError) as exc:
        game.load_content(path)
    return str(exc.value)


def line_of(path: Path, needle: str) -> int:
    """The first line of file `path` (1-based) that contains `needle`."""
    for i, line in enumerate(path.read_text().splitlines(), start=1):
        if needle in line:
            return i
    raise AssertionError(needle)
