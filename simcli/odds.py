"""Battle-odds helpers shared by the games' `simcli odds`: the Monte Carlo chunk size and a
dice pool's words (kernels.dice pool codes). A game's own odds code (the battle odds of
simcli/games/sixteen_samurai/odds.py) imports from here; this module imports no game."""

from __future__ import annotations

from kernels.dice import UMA

CHUNK = 1_000_000  # battles per Monte Carlo chunk


def pool_label(code: int) -> str:
    """'3 dice' or 'Uma'."""
    return "Uma" if code == UMA else f"{code} {'die' if code == 1 else 'dice'}"
