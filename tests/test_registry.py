"""The game registry: one game's command loads only that game; every game is listed."""

import json
import subprocess
import sys

import pytest

from simcli.errors import UserError
from simcli.registry import GAMES, get_game

# What a run with the default (non-search) policies imports, in a fresh interpreter.
PROBE = """
import json, sys
from simcli.registry import get_game
g = get_game(sys.argv[1])
g.prepare(g.load_content(g.content_path(None)), g.default_players,
          (g.default_policy,) * g.default_players, g.resolve_rules([]))
print(json.dumps(sorted(m for m in sys.modules if m.startswith("kernels."))))
"""


@pytest.mark.parametrize("name", ["sixteen-samurai", "samsara", "samurai-card-game",
                                  "samurai-sword", "samurai-katana"])
def test_one_game_loads_neither_other_games_nor_the_search(name):
    out = subprocess.run([sys.executable, "-c", PROBE, name], capture_output=True,
                         text=True, check=True).stdout
    loaded = json.loads(out)
    package = "kernels." + name.replace("-", "_")
    assert any(m.startswith(package) for m in loaded)
    others = [m for m in loaded if m.count(".") >= 1 and m.split(".")[1] in
              {g.replace("-", "_") for g in GAMES if g != name}]
    assert others == []
    assert "kernels.search" not in loaded and not any("search" in m for m in loaded)


def test_get_game_and_games_share_one_instance_per_game():
    for name, game in GAMES.items():
        assert get_game(name) is game


def test_unknown_game_lists_the_known_ones():
    with pytest.raises(UserError, match="unknown game 'chess'; known games: sixteen-samurai"):
        get_game("chess")
    with pytest.raises(UserError, match="unknown game 'base'"):
        get_game("base")
