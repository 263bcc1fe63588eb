"""Content-file fuzzing for every game: a shipped content file with one value replaced by
a value of another type, removed, or joined by an unknown key either loads and prepares a
run, or is refused with a one-line UserError; never another exception."""

import random
import tomllib

import pytest
import tomlkit

from simcli.errors import UserError
from simcli.registry import GAMES

CASES = 60
ODD_VALUES = ([1, 2], "text", -3, 0, 10**30, 2.5, True, {"a": 1}, [], "", [{"x": 1}])


def paths(doc, prefix=()):
    """Every (path, value) in a parsed TOML document, nested tables and arrays included."""
    if isinstance(doc, dict):
        items = doc.items()
    elif isinstance(doc, list):
        items = enumerate(doc)
    else:
        return
    for key, value in items:
        here = (*prefix, key)
        yield here, value
        yield from paths(value, here)


def mutate(doc, rng):
    """The document with one random change (in place)."""
    where, _ = rng.choice(list(paths(doc)))
    parent = doc
    for key in where[:-1]:
        parent = parent[key]
    last = where[-1]
    kind = rng.random()
    if kind < 0.7:
        parent[last] = rng.choice(ODD_VALUES)
    elif kind < 0.85 and isinstance(parent, dict):
        del parent[last]
    elif isinstance(parent, dict):
        parent["unknown_key_x"] = 1
    else:
        parent.append(rng.choice(ODD_VALUES))
    return doc


@pytest.mark.parametrize("name", sorted(GAMES))
def test_mutated_content_is_loaded_or_refused_in_one_line(name, tmp_path):
    game = GAMES[name]
    source = game.content_path(None).read_text(encoding="utf-8")
    rng = random.Random(name)
    refused = 0
    for case in range(CASES):
        doc = mutate(tomllib.loads(source), rng)
        path = tmp_path / f"c{case}.toml"
        path.write_text(tomlkit.dumps(doc), encoding="utf-8")
        try:
            content = game.load_content(path)
            game.prepare(content, game.default_players,
                         (game.default_policy,) * game.default_players,
                         game.resolve_rules([]))
        except UserError as exc:
            refused += 1
            assert "\n" not in str(exc).strip(), str(exc)
        # any other exception fails the test, with its traceback
    assert refused > CASES // 3  # most changes break a schema: the check is not a no-op
