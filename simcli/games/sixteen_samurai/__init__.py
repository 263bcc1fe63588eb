"""Sixteen Samurai: roster content, rule options, policies and the kernel driver.

content.py: the roster file's schema and loading, the Roster, roster edits; prepared.py: the
kernel inputs shared by the driver and the handle; odds.py: `simcli odds`; handle.py: one
game step by step (`simcli replay`); game.py: the Game declaration and the kernel driver.
"""

from simcli.games.sixteen_samurai.content import BATTLE_CARDS, strength_order
from simcli.games.sixteen_samurai.game import (
    OPTION_NAMES,
    SEARCH,
    SixteenSamurai,
    named_stats,
)
from simcli.games.sixteen_samurai.odds import parse_pools
from simcli.games.sixteen_samurai.prepared import no_forbid

__all__ = [
    "BATTLE_CARDS",
    "OPTION_NAMES",
    "SEARCH",
    "SixteenSamurai",
    "named_stats",
    "no_forbid",
    "parse_pools",
    "strength_order",
]
