"""Samurai: The Card Game: content (player set, village deck), rule options, policies and
the kernel driver.

The game's Python side, shaped like its kernels (kernels/samurai_card_game/): `content`
(the content-file schema, loading and checking it, the card set), `game` (the Game
declaration: policies, rule options, search, preparing and running chunks, statistics and
report glue) and `handle` (the kernel inputs and state, and the step-by-step handle behind
`simcli replay` with its event wording)."""

from simcli.games.samurai_card_game.game import SamuraiCardGame
from simcli.games.samurai_card_game.handle import (
    SEARCH_MAX_ROLLOUT,
    SamuraiCardHandle,
    new_state,
    no_forbidden,
)

__all__ = ["SEARCH_MAX_ROLLOUT", "SamuraiCardGame", "SamuraiCardHandle", "new_state",
           "no_forbidden"]
