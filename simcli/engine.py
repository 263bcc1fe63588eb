"""Plans a run into chunks and plays them on threads, merging integer statistics.

Every playout draws from its own stream keyed by (seed, playout index) and chunks are
reduced to integer sums, so the merged statistics are identical for any thread count,
chunk size or completion order.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

from simcli.errors import Interrupted

Aggregates = dict[str, np.ndarray]


@dataclass(frozen=True)
class Chunk:
    """Playouts first .. first+count-1 of a run."""

    index: int
    first: int
    count: int


def default_threads() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def plan(n: int, chunk_size: int) -> list[Chunk]:
    """Split n playouts into chunks of at most chunk_size."""
    return [
        Chunk(i, first, min(chunk_size, n - first))
        for i, first in enumerate(range(0, n, chunk_size))
    ]


def plan_range(start: int, end: int, chunk_size: int, index0: int) -> list[Chunk]:
    """Split playouts start..end-1 into chunks numbered from index0."""
    return [
        Chunk(index0 + i, first, min(chunk_size, end - first))
        for i, first in enumerate(range(start, end, chunk_size))
    ]


def merge(into: Aggregates, part: Aggregates) -> None:
    """Add one chunk's statistics to the running total."""
    for key, value in part.items():
        into[key] += value


class Progress:
    """What the engine reports as chunks finish (the CLI draws it)."""

    def start(self, total: int) -> None:
        """A run of `total` playouts begins."""

    def advance(self, done: int, total: int, elapsed: float) -> None:
        """`done` playouts are finished after `elapsed` seconds."""

    def stop(self) -> None:
        """The run is over (finished or interrupted)."""


def run_chunks(
    chunks: list[Chunk],
    work: Callable[[Chunk], Aggregates],
    on_done: Callable[[Chunk, Aggregates], None],
    threads: int,
    progress: Progress | None = None,
) -> float:
    """Run `work` on every chunk with `threads` workers; returns wall seconds.

    `on_done` runs on the calling thread as each chunk finishes. At most 2 x threads chunks
    are in flight, so Ctrl-C waits only for those (each a fraction of a second) before
    raising Interrupted.
    """
    progress = progress or Progress()
    total = sum(c.count for c in chunks)
    done = 0
    start = time.perf_counter()
    progress.start(total)
    pending: set[Future] = set()
    todo: Iterator[Chunk] = iter(chunks)
    owner: dict[Future, Chunk] = {}
    pool = ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="simcli")
    try:
        for chunk in todo:
            fut = pool.submit(work, chunk)
            owner[fut] = chunk
            pending.add(fut)
            if len(pending) >= 2 * threads:
                break
        while pending:
            finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for fut in finished:
                chunk = owner.pop(fut)
                on_done(chunk, fut.result())
                done += chunk.count
                nxt = next(todo, None)
                if nxt is not None:
                    f2 = pool.submit(work, nxt)
                    owner[f2] = nxt
                    pending.add(f2)
            progress.advance(done, total, time.perf_counter() - start)
    except KeyboardInterrupt:
        for fut in pending:
            fut.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
        progress.stop()
        raise Interrupted(f"interrupted after {done:,} of {total:,} playouts") from None
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        progress.stop()
        raise
    pool.shutdown(wait=True)
    progress.stop()
    return time.perf_counter() - start
