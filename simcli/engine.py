"""Plans a run into chunks and plays them on threads, merging integer statistics.

Every playout draws from its own stream keyed by (seed, playout index) and chunks are
reduced to integer sums, so the merged statistics are identical for any thread count,
chunk size or completion order.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcli.errors import Interrupted, UserError

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


class ChunkPlan:
    """Chunks of playouts start..end-1, at most `size` each, numbered from `index0`, made one
    at a time as they are played: a plan of 10**15 playouts costs nothing up front.
    Chunks whose index is in `skip` (already played) are left out."""

    def __init__(self, start: int, end: int, size: int, index0: int = 0,
                 skip: set[int] | frozenset[int] = frozenset()) -> None:
        if size <= 0:
            raise ValueError(f"chunk size must be positive, not {size}")
        self.start, self.end, self.size, self.index0 = start, max(start, end), size, index0
        self.skip = skip

    def _count(self, i: int) -> int:
        first = self.start + i * self.size
        return min(self.size, self.end - first)

    def chunks(self) -> int:
        """Number of chunks in the plan, played or not."""
        return -(-(self.end - self.start) // self.size)

    def __len__(self) -> int:
        return self.chunks() - sum(1 for j in self.skip if 0 <= j - self.index0 < self.chunks())

    def __getitem__(self, i: int) -> Chunk:
        """The i-th chunk of the whole plan (negative counts from the end); skip ignored."""
        k = self.chunks()
        if i < 0:
            i += k
        if not 0 <= i < k:
            raise IndexError(i)
        return Chunk(self.index0 + i, self.start + i * self.size, self._count(i))

    def __iter__(self) -> Iterator[Chunk]:
        for i in range(self.chunks()):
            if self.index0 + i not in self.skip:
                yield Chunk(self.index0 + i, self.start + i * self.size, self._count(i))

    @property
    def total(self) -> int:
        """Playouts in the chunks still to play."""
        left = self.end - self.start
        for j in self.skip:
            i = j - self.index0
            if 0 <= i < self.chunks():
                left -= self._count(i)
        return left


def plan(n: int, chunk_size: int, skip: set[int] | frozenset[int] = frozenset()) -> ChunkPlan:
    """Split n playouts into chunks of at most chunk_size (lazily), leaving out `skip`."""
    return ChunkPlan(0, n, chunk_size, 0, skip)


def plan_range(start: int, end: int, chunk_size: int, index0: int) -> ChunkPlan:
    """Split playouts start..end-1 into chunks numbered from index0 (lazily)."""
    return ChunkPlan(start, end, chunk_size, index0)


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

    def stage(self, label: str) -> None:
        """The runs that follow are one stage of a larger job (`simcli study`), so named."""


DAY_S = 86_400.0
_LIMIT: ContextVar[float | None] = ContextVar("simcli_time_limit", default=None)
_AHEAD: ContextVar[int] = ContextVar("simcli_runs_ahead", default=1)


@contextmanager
def runs_ahead(k: int) -> Iterator[None]:
    """Within this block, the time check of run_chunks counts this run and k - 1 more like
    it still to come (a ladder's pairings), so a command is refused on its whole time."""
    token = _AHEAD.set(max(1, k))
    try:
        yield
    finally:
        _AHEAD.reset(token)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Within this block, run_chunks refuses (UserError) a run whose time, estimated from its
    first chunks, exceeds `seconds` (None: no limit). The CLI sets a day unless --yes."""
    token = _LIMIT.set(seconds)
    try:
        yield
    finally:
        _LIMIT.reset(token)


def duration(seconds: float) -> str:
    """A rough duration in words: '40 s', '3.5 hours', '12 days', '31,000 years'."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} minutes"
    if seconds < 2 * DAY_S:
        return f"{seconds / 3600:.1f} hours"
    if seconds < 730 * DAY_S:
        return f"{seconds / DAY_S:,.0f} days"
    return f"{seconds / (365.25 * DAY_S):,.0f} years"


def check_memory(needed: float, what: str) -> None:
    """UserError when keeping `needed` bytes (per-deal results of `what`) would take more
    than half of this machine's memory: refused before anything is played."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return
    if needed > total / 2:
        raise UserError(f"{what} would keep {needed / 2**30:,.0f} GiB of per-deal results in "
                        f"memory, more than half of this machine's {total / 2**30:,.0f} GiB; "
                        f"ask for fewer")


def too_long(estimate_s: float, what: str) -> UserError:
    """The refusal of a run estimated to take longer than allowed."""
    return UserError(f"this would take about {duration(estimate_s)} ({what}), more than a "
                     f"day; add --yes to run it anyway, or ask for fewer")


SLOW_START_S = 60.0  # no chunk done after this long (compiles included): judge on that


def slow_start(total: int, counts: list[int], threads: int, elapsed: float,
               limit: float) -> None:
    """Refuse, inside time_limit, a run whose first chunks have not finished after
    SLOW_START_S: each running chunk of c playouts has taken more than `elapsed`, so a
    playout takes about elapsed / c or more (a huge search budget, a huge chunk)."""
    if elapsed < SLOW_START_S or not counts:
        return
    workers = max(1, min(threads, os.cpu_count() or 1))
    ahead = _AHEAD.get()
    estimate = total * elapsed / max(counts) / workers * ahead
    if estimate > limit:
        more = f", and {ahead - 1:,} more runs like it" if ahead > 1 else ""
        raise too_long(estimate, f"{total:,} to play, no chunk of {max(counts):,} done after "
                                 f"{elapsed:.0f} s on {workers} thread"
                                 f"{'s' if workers != 1 else ''}{more}")


def run_chunks(
    chunks: Iterable[Chunk],
    work: Callable[[Chunk], Aggregates],
    on_done: Callable[[Chunk, Aggregates], None],
    threads: int,
    progress: Progress | None = None,
) -> float:
    """Run `work` on every chunk with `threads` workers; returns wall seconds.

    `chunks` may be a ChunkPlan (made lazily) or any list of chunks. `on_done` runs on the
    calling thread as each chunk finishes. At most 2 x threads chunks are in flight, so
    Ctrl-C waits only for those (each a fraction of a second) before raising Interrupted.
    Inside time_limit(s), the first threads + 1 chunks' timings estimate the whole run,
    which is refused if that exceeds s.
    """
    progress = progress or Progress()
    if not isinstance(chunks, ChunkPlan):
        chunks = list(chunks)
    total = chunks.total if isinstance(chunks, ChunkPlan) else sum(c.count for c in chunks)
    limit = _LIMIT.get()
    per_item: list[float] = []
    done = 0
    start = time.perf_counter()
    progress.start(total)
    pending: set[Future] = set()
    todo: Iterator[Chunk] = iter(chunks)
    owner: dict[Future, Chunk] = {}

    def timed(chunk: Chunk):
        t0 = time.perf_counter()
        result = work(chunk)
        return result, time.perf_counter() - t0

    def check_time(chunk: Chunk, seconds: float) -> None:
        per_item.append(seconds / max(chunk.count, 1))
        if len(per_item) == threads + 1:  # every thread has run at least one chunk after
            # its first (which may have compiled); threads beyond the cores add no speed
            rate = max(1, min(threads, os.cpu_count() or 1)) / min(per_item)
            ahead = _AHEAD.get()
            estimate = total / rate * ahead
            if estimate > limit:
                more = f", and {ahead - 1:,} more runs like it" if ahead > 1 else ""
                raise too_long(estimate, f"{total:,} to play at about {rate:,.0f}/s on "
                                         f"{threads} thread{'s' if threads != 1 else ''}"
                                         f"{more}")

    pool = ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="simcli")
    try:
        for chunk in todo:
            fut = pool.submit(timed, chunk)
            owner[fut] = chunk
            pending.add(fut)
            if len(pending) >= 2 * threads:
                break
        while pending:
            finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            if limit is not None and not per_item and not finished:
                slow_start(total, [owner[f].count for f in pending], threads,
                           time.perf_counter() - start, limit)
            for fut in finished:
                chunk = owner.pop(fut)
                result, seconds = fut.result()
                if limit is not None:
                    check_time(chunk, seconds)
                on_done(chunk, result)
                done += chunk.count
                nxt = next(todo, None)
                if nxt is not None:
                    f2 = pool.submit(timed, nxt)
                    owner[f2] = nxt
                    pending.add(f2)
            progress.advance(done, total, time.perf_counter() - start)
    except KeyboardInterrupt:
        for fut in pending:
            fut.cancel()
        _stop_running(pool)
        progress.stop()
        raise Interrupted(f"interrupted after {done:,} of {total:,} playouts") from None
    except BaseException:
        _stop_running(pool)
        progress.stop()
        raise
    pool.shutdown(wait=True)
    progress.stop()
    return time.perf_counter() - start


STOP_WAIT_S = 1.0  # after a stop signal, how long to wait for compiled work to return


def stoppable(fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args) on a worker thread while this (main) thread waits: compiled code cannot be
    interrupted, so the main thread stays free to take Ctrl-C or SIGTERM at any moment,
    then asks the kernels to stop (kernels.control) and waits at most STOP_WAIT_S (a compile
    in progress is not waited for: the process is stopping)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # re-raised on the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=target, daemon=True, name="simcli-call")
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        from kernels import control

        control.request_stop()
        worker.join(STOP_WAIT_S)
        if not worker.is_alive():
            control.clear()
        raise
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _stop_running(pool: ThreadPoolExecutor) -> None:
    """Stop the chunks still running (their compiled loops return at their next check:
    kernels.control), wait for them and let later runs play again."""
    from kernels import control  # (not at start-up: it loads numba)

    control.request_stop()
    try:
        pool.shutdown(wait=True, cancel_futures=True)
    finally:
        control.clear()


def spread_plan(game, n: int, threads: int, cap: int | None = None) -> ChunkPlan:
    """Playouts 0 .. n-1 in chunks of at most the game's chunk size (and `cap`), about four
    per thread."""
    size = max(1, min(game.chunk_size, math.ceil(n / (4 * threads)), cap or game.chunk_size))
    return plan(n, size)


def one_per_chunk(game, seats) -> int | None:
    """A chunk cap of one playout when a seat searches (a playout may take minutes: the
    duration check then judges a run on its first playouts, not its first big chunk, and
    Ctrl-C waits for less), else None."""
    return 1 if any(game.policy_spec(s).is_search for s in seats) else None


def play_all(game, prep, seed: int, n: int, threads: int,
             progress: Progress | None = None, cap: int | None = None) -> Aggregates:
    """The merged aggregates of playouts 0 .. n-1 of prepared setup `prep` of `game`
    (chunks of at most the game's chunk size and `cap`, about four per thread)."""
    total = game.new_aggregates(prep)

    def work(chunk: Chunk) -> Aggregates:
        aggs = game.new_aggregates(prep)
        game.run_chunk(prep, seed, chunk.first, chunk.count, aggs, None)
        return aggs

    run_chunks(spread_plan(game, n, threads, cap), work,
               lambda _c, part: merge(total, part), threads, progress)
    return total
