"""The games simcli knows, by command-line name: every Game subclass in simcli.games.

Game `NAME` lives in module `simcli.games.NAME_WITH_UNDERSCORES`; `get_game` imports only
that module (a command about one game does not load the other four games' kernels), and
`GAMES`, every game, is discovered on first use.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
from types import ModuleType

import simcli.games
from reports.words import did_you_mean
from simcli.errors import UserError
from simcli.games.base import Game

# Listing order for `simcli games` and `simcli study`; games not named here follow by name.
ORDER = ("sixteen-samurai", "samurai-card-game", "samsara", "samurai-sword", "samurai-katana")

_LOADED: dict[str, Game] = {}  # one instance per game, shared by get_game and GAMES
_ALL: dict[str, Game] | None = None


def _games_in(module: ModuleType) -> list[Game]:
    """The game of every concrete Game subclass defined in `module`, or in a module of the
    package `module` is (a game's package: simcli/games/<game>/), one instance each."""
    out = []
    for _, cls in inspect.getmembers(module, inspect.isclass):
        mine = cls.__module__ == module.__name__ or cls.__module__.startswith(
            module.__name__ + ".")
        if issubclass(cls, Game) and mine and not inspect.isabstract(cls):
            known = [g for g in _LOADED.values() if type(g) is cls]
            game = known[0] if known else cls()
            _LOADED.setdefault(game.name, game)
            out.append(game)
    return out


def _discover() -> dict[str, Game]:
    found: dict[str, Game] = {}
    for info in pkgutil.iter_modules(simcli.games.__path__):
        if info.name in ("base", "handle"):
            continue
        for game in _games_in(importlib.import_module(f"simcli.games.{info.name}")):
            found[game.name] = game
    rank = {name: i for i, name in enumerate(ORDER)}
    return dict(sorted(found.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


def all_games() -> dict[str, Game]:
    """Every game, by name, in listing order."""
    global _ALL
    if _ALL is None:
        _ALL = _discover()
    return _ALL


def __getattr__(name: str):
    if name == "GAMES":
        return all_games()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_game(name: str) -> Game:
    """The game called `name`, or a UserError listing the known games."""
    if name in _LOADED:
        return _LOADED[name]
    module = name.replace("-", "_")
    if module.isidentifier() and module not in ("base", "handle") and \
            importlib.util.find_spec(f"simcli.games.{module}") is not None:
        for game in _games_in(importlib.import_module(f"simcli.games.{module}")):
            if game.name == name:
                return game
    games = all_games()
    try:
        return games[name]
    except KeyError:
        raise UserError(f"unknown game '{name}'{did_you_mean(name, games)}; known games: "
                        f"{', '.join(games)}") from None
