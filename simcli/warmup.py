"""Compiling kernels ahead of need, in parallel processes: `simcli warmup`, and the
background compiles of `simcli study`.

The games form one queue, in the order a study needs them, shared by every process that
compiles: each takes the next game no process has claimed yet (a claim file made with
O_EXCL in the queue's folder), compiles (or loads from the compile cache) its fast path
and then its search player, and marks each done. One process compiles both paths of a
game because the search player reuses the fast path's compiled rules (in one process,
Samurai & Katana's search costs 8 CPU s after its fast path, 22 on its own). A study's
own process joins in whenever it would otherwise wait for a game another process is
compiling. The cache's per-entry lock (kernels/jitcache.py) still makes a process that
needs an entry another is compiling wait for it and load it, so no entry is compiled
twice on the machine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

CHILD = r"""
import json, sys
from simcli.warmup import Queue
Queue(sys.argv[1], sys.argv[2:]).drain(lambda r: print(json.dumps(r), flush=True))
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


class Queue:
    """The games to compile, shared through `folder` by the processes compiling them;
    `todo` holds "game:path" items (`items`)."""

    def __init__(self, folder: str | Path, todo: list[str]) -> None:
        self.folder = Path(folder)
        self.paths: dict[str, list[str]] = {}
        for item in todo:
            name, path = item.split(":")
            self.paths.setdefault(name, []).append(path)

    def claim(self, name: str) -> bool:
        """Take game `name` for this process: False if another process took it first."""
        try:
            os.close(os.open(self.folder / f"{name}.claim",
                             os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            return False
        return True

    def claim_next(self) -> str | None:
        """Take the first game no process has taken; None when every game is taken."""
        return next((name for name in self.paths if self.claim(name)), None)

    def done(self, name: str, path: str) -> bool:
        """Whether that path of that game is compiled (or loaded) and in the cache."""
        return (self.folder / f"{name}.{path}.done").exists()

    def compile(self, name: str, path: str) -> dict:
        """Compile (or load) one path of a claimed game, mark it done; what it cost."""
        import resource
        import time

        import kernels
        from simcli.bench import first_call, first_search_call
        from simcli.registry import get_game

        def cpu() -> float:
            r = resource.getrusage(resource.RUSAGE_SELF)
            return r.ru_utime + r.ru_stime

        compiled: list[str] = []

        def note(module: str, seconds: float | None) -> None:
            if seconds is None:
                compiled.append(module)

        t0, w0 = cpu(), time.perf_counter()
        kernels.COMPILE_LISTENERS.append(note)
        try:
            (first_call if path == "fast" else first_search_call)(get_game(name))
        finally:
            kernels.COMPILE_LISTENERS.remove(note)
        (self.folder / f"{name}.{path}.done").touch()
        return {"game": name, "path": path, "compiled": bool(compiled), "cpu_s": cpu() - t0,
                "wall_s": time.perf_counter() - w0}

    def compile_game(self, name: str, report: Callable[[dict], None] = lambda r: None
                     ) -> None:
        """Compile (or load) every path of a claimed game, fast path first (`compile`);
        report(result) after each."""
        for path in self.paths[name]:
            report(self.compile(name, path))

    def drain(self, report: Callable[[dict], None] = lambda r: None) -> None:
        """Take and compile (`compile_game`) games no process has taken, until none is
        left."""
        while (name := self.claim_next()) is not None:
            self.compile_game(name, report)


class Warming:
    """Background processes compiling a queue, which this process joins while it waits."""

    def __init__(self, todo: list[str], jobs: int, quiet: bool = True) -> None:
        self.queue = Queue(tempfile.mkdtemp(prefix="simcli-warmup-"), todo)
        self.mine: set[str] = set()
        self.procs: list[subprocess.Popen] = []
        for _ in range(max(1, min(jobs, len(self.queue.paths)))):
            try:
                self.procs.append(subprocess.Popen(
                    [sys.executable, "-c", CHILD, str(self.queue.folder), *todo],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL if quiet else subprocess.PIPE,
                    stderr=subprocess.DEVNULL, text=True))
            except OSError:
                break

    def ensure(self, name: str, path: str) -> None:
        """Before this process needs that path of game `name`: take the game if no process
        has (its paths then compile here, when they run); while another process compiles
        it, compile whole games nobody has taken yet."""
        if path not in self.queue.paths.get(name, ()) or name in self.mine:
            return
        while not self.queue.done(name, path):
            if self.queue.claim(name):
                self.mine.add(name)
                return
            if not any(p.poll() is None for p in self.procs):
                return  # they stopped: the entry's lock decides who compiles it
            ahead = self.queue.claim_next()
            if ahead is None:
                return  # nothing left to take: wait on the entry's lock when it runs
            self.mine.add(ahead)
            self.queue.compile_game(ahead)

    def stop(self) -> None:
        """End background compiles still running; remove the queue's folder."""
        stop(self.procs)
        shutil.rmtree(self.queue.folder, ignore_errors=True)


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
    warming = Warming(todo, jobs or os.cpu_count() or 1, quiet=False)
    results = []
    try:
        for line in _lines(warming.procs):
            result = json.loads(line)
            results.append(result)
            report(result)
    finally:
        warming.stop()
    failed = [p for p in warming.procs if p.returncode not in (0, None)]
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
