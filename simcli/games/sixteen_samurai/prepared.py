"""What game.py and handle.py both hand the Sixteen Samurai kernels: a run's inputs
(Prepared), the forbidden-options table, and the search player's modules and settings."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.sixteen_samurai import rules as KR
from simcli.lazy import LazyModule

SH = LazyModule("kernels.sixteen_samurai.search_hooks")
SP = LazyModule("kernels.sixteen_samurai.search_play")

# mcts: draft picks considered per player count, the strongest left (0: every pick). Every
# pick scored measured better at 2 players (59.9% vs 57.1% against greedy, 1000 games) and
# worse at 4 (32.5% vs 37.2%, 400 games): 3-4 players draft like greedy.
SEARCH_DRAFT_K = {2: 0, 3: 1, 4: 1}
SEARCH_MAX_ROLLOUT = 6  # mcts, tree method (SH.METHOD = 0): rollout actions before evaluating


@dataclass(frozen=True)
class Prepared:
    """Kernel inputs for one run."""

    players: int
    policies: np.ndarray  # (P,) int64 policy codes of the seats
    names: tuple[str, ...]
    ratings: np.ndarray
    totals: np.ndarray
    rank_order: np.ndarray
    faces: int
    uma: int
    clan: int
    hand_size: int
    snake: bool
    lone_end: bool
    after_tb: bool
    fb_bar: bool
    max_rounds: int
    margin: float
    table: np.ndarray  # exact win chances of pools (simcli.dice_odds.tables)
    td: np.ndarray  # chance of each pool's two highest dice
    clan_bins: int
    battle_n: np.ndarray  # (N_BATTLE,) int64: copies of each battle card per clan
    seats: tuple[str, ...] = ()  # each seat's policy name (search players' options)


def no_forbid() -> np.ndarray:
    """A forbidden-options table that forbids nothing (the fast path's)."""
    return np.zeros((KR.MAX_P, len(KR.OPTIONS)), np.bool_)


def forbid_table(forbid: np.ndarray | None) -> np.ndarray:
    """The kernel's (MAX_P, options) table from a (players, options) one (None: nothing
    forbidden)."""
    table = no_forbid()
    if forbid is not None:
        f = np.asarray(forbid, np.bool_)
        table[: f.shape[0], : f.shape[1]] = f
    return table
