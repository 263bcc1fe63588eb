"""Declarative statistics tables: one per game, from which its aggregates are built.

A game's kernel package declares each statistic once, as a `Stat` (name, dimensions,
unit, meaning). A dimension is either an IntEnum (fixed labels: its members are the
kernel's column indices, usable inside numba as constants) or a string naming a size known
only at run time ("seat", "card", "length"...). From the table come the zeroed aggregates
of a chunk, their shapes, the named statistics the reports read, and the namedtuple of
arrays the kernels write into.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from enum import IntEnum

import numpy as np


@dataclass(frozen=True)
class Stat:
    """One statistic: an int64 array of counts or sums, summed over playouts."""

    name: str
    dims: tuple[type[IntEnum] | str, ...]
    unit: str
    meaning: str

    def shape(self, sizes: dict[str, int]) -> tuple[int, ...]:
        """The array's shape, run-time dimensions taken from `sizes`."""
        return tuple(sizes[d] if isinstance(d, str) else len(d) for d in self.dims)

    def labels(self, axis: int) -> tuple[str, ...] | None:
        """Column labels of a fixed (IntEnum) dimension, lower case; None for a size."""
        d = self.dims[axis]
        return None if isinstance(d, str) else tuple(m.name.lower() for m in d)


def zeros(table: tuple[Stat, ...], sizes: dict[str, int]) -> dict[str, np.ndarray]:
    """Zeroed aggregates of one chunk, by statistic name, in table order."""
    return {s.name: np.zeros(s.shape(sizes), np.int64) for s in table}


def columns(stat: Stat, array: np.ndarray, axis: int = -1) -> dict[str, np.ndarray]:
    """Split `array` along a fixed dimension into {label: sub-array}."""
    axis = axis % len(stat.dims)
    labels = stat.labels(axis)
    if labels is None:
        raise ValueError(f"dimension {axis} of {stat.name} has no fixed labels")
    return {lab: np.take(array, i, axis=axis) for i, lab in enumerate(labels)}


def aggregates_type(table: tuple[Stat, ...], name: str, module: str) -> type:
    """The namedtuple of arrays (fields in table order) a game's kernels write into; define
    it at module level of `module` so numba can cache functions that take it."""
    cls = namedtuple(name, [s.name for s in table])
    cls.__module__ = module
    return cls


def as_tuple(cls: type, aggs: dict[str, np.ndarray]):
    """The aggregates dict as the kernels' namedtuple (same arrays, no copy)."""
    return cls(**{f: aggs[f] for f in cls._fields})
