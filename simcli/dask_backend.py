"""Runs chunks as Dask tasks on a cluster (or a local one started for the run).

Dask distributed does the distribution: tasks lost with a dead worker are recomputed from
the same (seed, chunk) and give the same numbers. Each worker compiles the kernels once
(or loads them from the numba cache) and reuses them for every chunk it runs.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

from simcli import engine
from simcli.errors import Interrupted, UserError


def _distributed():
    try:
        import distributed
    except ImportError:
        raise UserError("the Dask backend needs the dask extra: pip install 'simcli[dask]'") \
            from None
    return distributed


SCHEMES = ("tcp",)


def check_scheduler(address: str) -> str:
    """A scheduler address simcli can connect to (tcp://HOST:PORT, or HOST:PORT), or a
    UserError listing the supported schemes: TLS and UCX need settings simcli does not
    pass, so they are refused before anything connects."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    supported = ", ".join(f"{s}://" for s in SCHEMES)
    if scheme.lower() not in SCHEMES:
        raise UserError(f"--scheduler {address}: the {scheme}:// scheme is not supported "
                        f"(supported: {supported}, e.g. tcp://host:8786)")
    host, colon, port = rest.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"--scheduler {address} must look like tcp://HOST:PORT (supported: "
                        f"{supported})")
    return address


@contextmanager
def client_for(scheduler: str | None, workers: int | None, threads: int):
    """A Dask client: connected to `scheduler`, or to a local cluster of `workers` processes."""
    distributed = _distributed()
    cluster = None
    try:
        if scheduler:
            check_scheduler(scheduler)
            try:
                client = distributed.Client(scheduler, timeout="5s")
            except Exception as exc:  # any failure to connect is one line
                first = (str(exc).splitlines() or [type(exc).__name__])[0]
                raise UserError(f"cannot reach the Dask scheduler at {scheduler}: "
                                f"{first}") from None
        else:
            cluster = distributed.LocalCluster(
                n_workers=workers or threads, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=50)
            client = distributed.Client(cluster)
    except UserError:
        raise
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_chunks(client, chunks: engine.ChunkPlan | list[engine.Chunk], task: Callable,
               args: tuple[Any, ...],
               on_done: Callable[[engine.Chunk, Any], None],
               progress: engine.Progress | None = None, token: str = "simcli") -> float:
    """Run task(*args, chunk.first, chunk.count) for every chunk on the cluster.

    `args` are scattered to every worker once. At most 4 tasks per worker thread are in
    flight; results are handed to `on_done` on this thread as they arrive.
    """
    distributed = _distributed()
    progress = progress or engine.Progress()
    if not isinstance(chunks, engine.ChunkPlan):
        chunks = list(chunks)
    total = chunks.total if isinstance(chunks, engine.ChunkPlan) else sum(c.count for c in chunks)
    done = 0
    start = time.perf_counter()
    progress.start(total)
    shared = [client.scatter(a, broadcast=True) if not isinstance(a, (int, str, bool))
              else a for a in args]
    window = 4 * max(1, sum(client.nthreads().values()))
    todo = iter(chunks)
    owner: dict[Any, engine.Chunk] = {}

    def submit(chunk: engine.Chunk):
        fut = client.submit(task, *shared, chunk.first, chunk.count, pure=False,
                            key=f"{token}-chunk-{chunk.index}")
        owner[fut] = chunk
        return fut

    pending = [submit(c) for c in itertools.islice(todo, window)]
    stream = distributed.as_completed(pending)
    try:
        for fut in stream:
            chunk = owner.pop(fut)
            on_done(chunk, fut.result())
            fut.release()
            done += chunk.count
            progress.advance(done, total, time.perf_counter() - start)
            nxt = next(todo, None)
            if nxt is not None:
                stream.add(submit(nxt))
    except KeyboardInterrupt:
        client.cancel(list(owner))
        progress.stop()
        raise Interrupted(f"interrupted after {done:,} of {total:,} playouts") from None
    except BaseException:
        client.cancel(list(owner))
        progress.stop()
        raise
    progress.stop()
    return time.perf_counter() - start
