"""Checkpoints of a run in progress: which chunks are done and their merged statistics.

A checkpointed run is written in a visible `OUT.partial/` folder. `checkpoint.json` holds
the run's configuration, the finished chunk indices (as ranges), the integer statistics
of exactly those chunks, the SHA-256 of the content file the run plays, the simcli version
that wrote it and a digest of all of that; it is replaced atomically, so killing the
process at any moment leaves either the previous or the new checkpoint, never a mix.
`load` refuses a checkpoint that is malformed, from another simcli version or edited.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from simcli import __version__
from simcli.errors import UserError
from simcli.jsonio import plain, strict_json
from simcli.runfolder import (
    CHECKPOINT,
    PARTIAL,
    arrays_from_json,
    arrays_json,
    digest,
    is_int,
    partial_dir,
    read_json,
)

STATE = CHECKPOINT
SUFFIX = PARTIAL
FORMAT = 2

__all__ = ["STATE", "SUFFIX", "atomic_write", "config_dict", "from_ranges", "load",
           "partial_dir", "save", "to_ranges"]


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
    """Write a file so that readers see the old or the new content, never a part; a
    failed write (disk full) leaves the old file and no temporary file."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def save(folder: Path, config: dict[str, Any], chunk_size: int, done: set[int],
         aggs: dict[str, np.ndarray], elapsed_s: float, content_sha256: str) -> None:
    """Record the finished chunks and their statistics, the content's hash and this
    simcli's version, sealed by a digest of the whole."""
    doc = plain({
        "format": FORMAT, "tool": "simcli", "tool_version": __version__,
        "content_sha256": content_sha256, "config": config, "chunk_size": chunk_size,
        "done": to_ranges(done), "elapsed_s": elapsed_s, "aggregates": arrays_json(aggs),
    })
    doc["digest"] = digest(doc)
    atomic_write(folder / STATE, strict_json(doc))


def _bad(path: Path, what: str) -> UserError:
    return UserError(f"{path}: damaged checkpoint: {what}; simcli will not resume from it")


def load(folder: Path) -> dict[str, Any]:
    """A checkpoint as saved, its fields checked: `done` as a set, aggregates as arrays.

    Refused (UserError): a missing, malformed or non-simcli checkpoint; one written by
    another simcli version; chunk ranges out of order; statistics that are not
    non-negative integers. The checks that need the game (counts, shapes, content hash,
    digest) are in check_against()."""
    path = folder / STATE
    if not path.exists():
        raise UserError(f"{folder} holds no checkpoint ({STATE})")
    doc = read_json(path, "checkpoint")
    if not isinstance(doc, dict) or doc.get("tool", "simcli") != "simcli":
        raise _bad(path, "not a simcli checkpoint")
    if doc.get("format") != FORMAT or "tool_version" not in doc:
        raise _bad(path, f"format {doc.get('format')!r} without the content hash and version "
                         f"this simcli checks (written by an older simcli?)")
    if doc["tool_version"] != __version__:
        raise UserError(f"{path} was written by simcli {doc['tool_version']}; this is simcli "
                        f"{__version__}: finish the run with the version that started it")
    sha = doc.get("content_sha256")
    if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha):
        raise _bad(path, "content_sha256 is missing or malformed")
    if not isinstance(doc.get("config"), dict):
        raise _bad(path, "config is not a table")
    size = doc.get("chunk_size")
    if not is_int(size) or size <= 0:
        raise _bad(path, f"chunk_size must be a positive whole number, not {size!r}")
    ranges = doc.get("done")
    if not isinstance(ranges, list) or not all(
            isinstance(r, list) and len(r) == 2 and all(is_int(x) for x in r) for r in ranges):
        raise _bad(path, "done must be a list of [first, last] chunk ranges")
    last = -1
    for a, b in ranges:
        if not last < a <= b:
            raise _bad(path, f"done range [{a}, {b}] is out of order, overlapping or negative")
        last = b
    elapsed = doc.get("elapsed_s")
    if not isinstance(elapsed, int | float) or isinstance(elapsed, bool) or not (
            math.isfinite(elapsed) and elapsed >= 0):
        raise _bad(path, "elapsed_s is not a non-negative number of seconds")
    if not isinstance(doc.get("digest"), str):
        raise _bad(path, "no digest")
    doc["aggregates"] = arrays_from_json(doc.get("aggregates"), f"{path}")
    doc["ranges"] = ranges
    return doc


def check_against(doc: dict[str, Any], n: int, games: int, content_sha256: str,
                  folder: Path) -> set[int]:
    """The finished chunk indices, once the checkpoint agrees with its run: every range
    inside the plan of n playouts, the statistics counting exactly the playouts of those
    chunks (`games`, counted by the caller from the statistics), the content copy's hash,
    and the digest over everything (any other edit). Anything else: UserError."""
    path = folder / STATE
    size, ranges = doc["chunk_size"], doc["ranges"]
    chunks = -(-n // size)
    played = 0
    for a, b in ranges:
        if b >= chunks:
            raise _bad(path, f"chunk {b} is beyond the {chunks:,} chunks of {n:,} playouts")
        played += (b - a + 1) * size - (size * chunks - n if b == chunks - 1 else 0)
    if played != games:
        raise _bad(path, f"its statistics count {games:,} games but its finished chunks hold "
                         f"{played:,} playouts")
    if content_sha256 != doc["content_sha256"]:
        raise UserError(f"{folder / 'content.toml'} is not the content this run started with "
                        f"(sha256 {content_sha256[:12]}, the checkpoint says "
                        f"{doc['content_sha256'][:12]}); simcli will not mix two contents "
                        f"in one run")
    sealed = {k: v for k, v in doc.items() if k not in ("digest", "ranges", "aggregates")}
    sealed["aggregates"] = arrays_json(doc["aggregates"])
    if digest(plain(sealed)) != doc["digest"]:
        raise _bad(path, "its contents do not match its digest (the file was edited)")
    return from_ranges(ranges)


def config_dict(cfg) -> dict[str, Any]:
    """A RunConfig as JSON-ready data."""
    data = asdict(cfg)
    data["out"] = str(cfg.out)
    data["seats"] = list(cfg.seats)
    return data
