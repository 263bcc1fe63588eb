"""Samurai & Katana: what the Python side hands the kernels: a run's kernel inputs
(Prepared), the map in the kernel's layout, the forbidden-options table that forbids
nothing, the search kernels (imported on first use) and the search's fixed settings."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.samurai_katana import rules as K
from simcli.games.samurai_katana.content import Board, KatanaContent, Numbers
from simcli.lazy import LazyModule

KH = LazyModule("kernels.samurai_katana.search_hooks")
KSP = LazyModule("kernels.samurai_katana.search_play")

SEARCH_TOP_K = 6  # mcts: moves considered per activation step, the best by greedy's valuation
SEARCH_MAX_ROLLOUT = 60  # mcts: rollout actions, then the position's evaluation (0: to the end)


@dataclass(frozen=True)
class Prepared:
    """Kernel inputs for one run."""

    players: int
    policies: np.ndarray
    terr: np.ndarray
    adj_start: np.ndarray
    adj: np.ndarray
    prov: np.ndarray
    majors: np.ndarray
    minors: np.ndarray
    cards: np.ndarray
    deck: np.ndarray
    pi: np.ndarray
    pf: np.ndarray
    win: np.ndarray
    data: KatanaContent | None = None  # names for the game log
    seats: tuple[str, ...] = ()  # the seats' policy names (a search seat: its options)


def kernel_map(board: Board, numbers: Numbers, minus_one: bool
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(terr, adj, prov) arrays in the kernel's layout."""
    T = len(board.ids)
    terr = np.zeros((T, K.N_TC), np.int64)
    terr[:, K.TC_PROV] = board.province
    terr[:, K.TC_MOUNT] = board.mountain
    terr[:, K.TC_CP] = board.city_cp
    terr[:, K.TC_TAX] = np.where(board.mountain, numbers.tax_mountain, numbers.tax_plain)
    for t in range(T):
        terr[t, K.TC_SEA] = board.adj_sea[board.adj_start[t]:board.adj_start[t + 1]].sum()
    adj = np.stack([board.adj_to, board.adj_sea]).astype(np.int64)
    NP = len(board.province_ids)
    prov = np.zeros((NP, K.N_PC), np.int64)
    prov[:, K.PC_HONOR] = np.maximum(board.province_honor - int(minus_one), 0)
    prov[:, K.PC_SIZE] = np.bincount(board.province, minlength=NP)
    return terr, adj, prov


def no_forbid() -> np.ndarray:
    """A forbidden-options table that forbids nothing (the fast path's)."""
    return np.zeros((K.MAX_P, len(K.OPTIONS)), np.bool_)
