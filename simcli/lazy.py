"""A module imported on first use, so that a command that does not need it (a run without
a search player, a command about one game) does not pay for loading it."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import numpy as np


class LazyModule:
    """Stands for module `name`: the first attribute read imports it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def seat_codes(codes: dict[str, int], seats, search_play) -> np.ndarray:
    """(seats,) int64 kernel policy codes: `codes[name]` for a plain policy, the search's
    code `search_play.MCTS` for any other seat (a lazy search module is imported only when
    a seat searches)."""
    return np.array([codes[s] if s in codes else int(search_play.MCTS) for s in seats],
                    np.int64)
