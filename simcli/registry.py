"""The games simcli knows, by command-line name."""

from simcli.errors import UserError
from simcli.games.base import Game
from simcli.games.sixteen_samurai import SixteenSamurai

GAMES: dict[str, Game] = {g.name: g for g in (SixteenSamurai(),)}


def get_game(name: str) -> Game:
    """The game called `name`, or a UserError listing the known games."""
    try:
        return GAMES[name]
    except KeyError:
        raise UserError(f"unknown game '{name}'; known games: {', '.join(GAMES)}") from None
