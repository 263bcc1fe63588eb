"""Compiling kernels ahead of need, in parallel processes: `simcli warmup`, and the
background compiles of `simcli study`.

Each process compiles (or loads from the compile cache) its share of the (game, path)
items in the order a study needs them; the cache's per-entry lock (kernels/jitcache.py)
makes a process that needs an entry another is compiling wait for it and load it, so no
entry is compiled twice on the machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator

PATHS = ("fast", "search")

CHILD = r"""
import json, resource, sys, time
import kernels
from simcli.bench import first_call, first_search_call
from simcli.registry import get_game
compiles = []
kernels.COMPILE_LISTENERS.append(lambda m, s: compiles.append(m) if s is None else None)
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
for item in sys.argv[1:]:
    name, path = item.split(":")
    game = get_game(name)
    t0, w0, before = cpu(), time.perf_counter(), len(compiles)
    (first_call if path == "fast" else first_search_call)(game)
    print(json.dumps({"game": name, "path": path, "compiled": len(compiles) > before,
                      "cpu_s": cpu() - t0, "wall_s": time.perf_counter() - w0}), flush=True)
"""


def items(names: list[str], search: bool = True) -> list[str]:
    """The "game:path" items of `names`, in the order a study needs them."""
    from simcli.registry import get_game

    out = []
    for name in names:
        out.append(f"{name}:fast")
        if search and get_game(name).search is not None:
            out.append(f"{name}:search")
    return out


def spawn(todo: list[str], jobs: int, quiet: bool = True) -> list[subprocess.Popen]:
    """Start min(jobs, len(todo)) processes compiling `todo` between them (process k takes
    items k, k + jobs, ...); their stdout is one JSON line per item unless quiet."""
    jobs = max(1, min(jobs, len(todo)))
    procs = []
    for k in range(jobs):
        share = todo[k::jobs]
        try:
            procs.append(subprocess.Popen(
                [sys.executable, "-c", CHILD, *share], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL if quiet else subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True))
        except OSError:
            break
    return procs


def stop(procs: list[subprocess.Popen]) -> None:
    """End background compiles still running."""
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()


def warmup(names: list[str], search: bool, jobs: int | None,
           report: Callable[[dict], None]) -> list[dict]:
    """Compile (or load) the kernels of `names` in `jobs` processes (default: one per core);
    report(result) as each item is ready; returns every result."""
    todo = items(names, search)
    procs = spawn(todo, jobs or os.cpu_count() or 1, quiet=False)
    results = []
    try:
        for line in _lines(procs):
            result = json.loads(line)
            results.append(result)
            report(result)
    finally:
        stop(procs)
    failed = [p for p in procs if p.returncode not in (0, None)]
    if failed or len(results) < len(todo):
        raise RuntimeError(f"warmup: {len(todo) - len(results)} of {len(todo)} items "
                           f"failed to compile")
    return results


def _lines(procs: list[subprocess.Popen]) -> Iterator[str]:
    """Every stdout line of `procs`, as they come."""
    import selectors

    sel = selectors.DefaultSelector()
    for p in procs:
        sel.register(p.stdout, selectors.EVENT_READ)
    open_ = len(procs)
    while open_:
        for key, _ in sel.select(timeout=1.0):
            line = key.fileobj.readline()
            if not line:
                sel.unregister(key.fileobj)
                open_ -= 1
            elif line.strip():
                yield line
    for p in procs:
        p.wait()
