"""Suite-wide check: no kernel function compiles twice for what is the same code.

A kernel function compiled again only because one caller passed a literal, an int32 where
others pass int64, a read-only or 'A'-layout array, or a namedtuple by value instead of by
Ref (kernels/ref.py) costs a whole extra compile. After the suite, every kernel function
compiled in any test process must have no two signatures that differ only in those ways
(one per game state type is expected in the shared modules: search, rng ...; seeds are
uint64 everywhere, as the games pass them). Under xdist
each worker reports what it compiled and the controlling process checks them together.
Only what is compiled is seen: an entry loaded from the compile cache compiles nothing, so
the check is complete on a cold cache (CI on a fresh machine, or SIMCLI_NO_CACHE=1).
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict

import pytest
from numba.core import types

COMPILED = "kernel_signatures"


def _key(t) -> str:
    """An argument type with what must not matter erased."""
    from kernels.ref import Ref

    t = types.unliteral(t)
    if isinstance(t, Ref):  # by reference or by value: the same tuple type
        return f"tuple:{t.inner}"
    if isinstance(t, types.BaseNamedTuple):
        return f"tuple:{t}"
    if isinstance(t, types.IntEnumMember):
        return "int"
    if isinstance(t, types.Integer):
        return "int"
    if isinstance(t, types.NestedArray):
        return f"nested:{t.dtype}:{t.shape}"
    if isinstance(t, types.Array):
        return f"array:{t.dtype}:{t.ndim}"
    return str(t)


def compiled() -> dict[str, list[str]]:
    """Every kernel function compiled in this process: its signatures, as text."""
    if "kernels.jit" not in sys.modules:
        return {}
    from kernels.jit import kernels_in

    modules = [m for name, m in list(sys.modules.items()) if name.startswith("kernels")]
    return {f"{k.py_func.__module__}.{k.py_func.__name__}":
            ["\t".join(_key(t) for t in sig) + "\n" + str(sig) for sig in k.signatures]
            for k in kernels_in(modules) if k.signatures}


def duplicates(found: dict[str, list[str]]) -> list[str]:
    """Kernel functions with two signatures of the same key, over every process."""
    out = []
    for name, sigs in sorted(found.items()):
        groups = defaultdict(set)
        for item in sigs:
            key, text = item.split("\n", 1)
            groups[key].add(text)
        out += [f"{name}: " + " | ".join(sorted(t[:200] for t in g))
                for g in groups.values() if len(g) > 1]
    return out


_reported: dict[str, list[str]] = defaultdict(list)


def pytest_testnodedown(node, error):
    """(xdist controller) collect what a worker compiled."""
    for name, sigs in getattr(node, "workeroutput", {}).get(COMPILED, {}).items():
        _reported[name] += sigs


def pytest_sessionfinish(session, exitstatus):
    mine = compiled()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller decides
        workeroutput[COMPILED] = mine
        return
    for name, sigs in mine.items():
        _reported[name] += sigs
    found = duplicates(_reported)
    if found:
        sys.stderr.write("\nkernel functions compiled twice for the same code "
                         "(see tests/conftest.py):\n  " + "\n  ".join(found) + "\n")
        session.exitstatus = 1


WHOLE_SUITE = 300  # a session of at least this many tests compiles every game first


@pytest.fixture(scope="session", autouse=True)
def _every_game_compiled_first(request, tmp_path_factory):
    """A session of the whole suite first compiles (or loads from the compile cache) every
    game's fast path and search player, through one queue its xdist workers share
    (simcli.warmup.Queue, as `simcli study` and `simcli warmup` do): each game's two paths
    in one process, so the search player reuses the fast path's compiled rules instead of
    compiling them again in whichever process first needs it. Nothing is skipped or kept
    from a test: a test that needs a game another worker is compiling waits for the
    cache's entry lock and loads it."""
    if len(request.session.items) < WHOLE_SUITE or os.environ.get("SIMCLI_NO_CACHE"):
        return
    from simcli.registry import GAMES
    from simcli.warmup import Queue, items

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if hasattr(request.config, "workerinput") else base  # (xdist)
    folder = shared / "compile-queue"
    folder.mkdir(exist_ok=True)
    Queue(folder, items(list(GAMES))).drain()

