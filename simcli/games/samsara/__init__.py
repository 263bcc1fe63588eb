"""Samsara (`simcli run samsara`): the board content (content.py), the Game declaration and
kernel driver (game.py) and the step-by-step handle for `simcli replay` (handle.py).

The names other modules and tests import from `simcli.games.samsara` are re-exported here."""

from simcli.games.samsara.content import Board, BoardFile, parse_board
from simcli.games.samsara.game import (
    POLICIES,
    RULES,
    SEARCH,
    Prepared,
    Samsara,
    named_stats,
    step_table,
)
from simcli.games.samsara.handle import (
    SEARCH_MAX_ROLLOUT,
    SEARCH_TOP_K,
    SamsaraHandle,
    hollows_of,
    key_of,
)

__all__ = [
    "POLICIES",
    "RULES",
    "SEARCH",
    "SEARCH_MAX_ROLLOUT",
    "SEARCH_TOP_K",
    "Board",
    "BoardFile",
    "Prepared",
    "Samsara",
    "SamsaraHandle",
    "hollows_of",
    "key_of",
    "named_stats",
    "parse_board",
    "step_table",
]
