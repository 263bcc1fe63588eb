"""Checkpoints of a run in progress: which chunks are done and their merged statistics.

A checkpointed run is written in a visible `OUT.partial/` folder. `checkpoint.json` holds
the run's configuration, the finished chunk indices (as ranges) and the integer statistics
of exactly those chunks; it is replaced atomically, so killing the process at any moment
leaves either the previous or the new checkpoint, never a mix.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from simcli.errors import UserError
from simcli.jsonio import strict_json

STATE = "checkpoint.json"
SUFFIX = ".partial"


def partial_dir(out: Path) -> Path:
    """The in-progress folder of a checkpointed run writing to `out`."""
    return out.with_name(out.name + SUFFIX)


def to_ranges(done: set[int]) -> list[list[int]]:
    """Sorted chunk indices as [first, last] ranges."""
    ranges: list[list[int]] = []
    for i in sorted(done):
        if ranges and ranges[-1][1] == i - 1:
            ranges[-1][1] = i
        else:
            ranges.append([i, i])
    return ranges


def from_ranges(ranges: list[list[int]]) -> set[int]:
    """Chunk indices from [first, last] ranges."""
    return {i for a, b in ranges for i in range(a, b + 1)}


def atomic_write(path: Path, text: str) -> None:
    """Write a file so that readers see the old or the new content, never a part."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)


def save(folder: Path, config: dict[str, Any], chunk_size: int, done: set[int],
         aggs: dict[str, np.ndarray], elapsed_s: float) -> None:
    """Record the finished chunks and their statistics."""
    atomic_write(folder / STATE, strict_json({
        "format": 1, "config": config, "chunk_size": chunk_size, "done": to_ranges(done),
        "elapsed_s": elapsed_s,
        "aggregates": {k: {"shape": list(v.shape), "data": v.ravel().tolist()}
                       for k, v in aggs.items()},
    }))


def load(folder: Path) -> dict[str, Any]:
    """A checkpoint as saved, with `done` as a set and aggregates as arrays."""
    path = folder / STATE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["done"] = from_ranges(doc["done"])
        doc["aggregates"] = {k: np.array(v["data"], np.int64).reshape(v["shape"])
                             for k, v in doc["aggregates"].items()}
    except FileNotFoundError:
        raise UserError(f"{folder} holds no checkpoint ({STATE})") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{path}: damaged checkpoint ({exc})") from None
    return doc


def config_dict(cfg) -> dict[str, Any]:
    """A RunConfig as JSON-ready data."""
    data = asdict(cfg)
    data["out"] = str(cfg.out)
    data["seats"] = list(cfg.seats)
    return data
