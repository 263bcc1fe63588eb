"""The games simcli knows, by command-line name: every Game subclass in simcli.games."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import simcli.games
from simcli.errors import UserError
from simcli.games.base import Game

# Listing order for `simcli games` and `simcli study`; games not named here follow by name.
ORDER = ("sixteen-samurai", "samurai-card-game", "samsara", "samurai-sword", "samurai-katana")


def _discover() -> dict[str, Game]:
    found: dict[str, Game] = {}
    for info in pkgutil.iter_modules(simcli.games.__path__):
        if info.name == "base":
            continue
        module = importlib.import_module(f"simcli.games.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Game) and cls.__module__ == module.__name__ and not \
                    inspect.isabstract(cls):
                game = cls()
                found[game.name] = game
    rank = {name: i for i, name in enumerate(ORDER)}
    return dict(sorted(found.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


GAMES: dict[str, Game] = _discover()


def get_game(name: str) -> Game:
    """The game called `name`, or a UserError listing the known games."""
    try:
        return GAMES[name]
    except KeyError:
        raise UserError(f"unknown game '{name}'; known games: {', '.join(GAMES)}") from None
