"""How every kernel function is compiled, called from Python and cached: `@kernel`.

A kernel function is compiled once per machine, in one signature, for compiled callers
only: no Python or C wrapper, no library of its own finalised (`kernels.lazylink`), not
cached on its own. Its callers take its IR and optimise it with theirs. Game states and
other namedtuples travel between kernel functions as a `kernels.ref.Ref` (one pointer),
never by value.

Called from Python, a kernel function goes through its *Python entry*: a small compiled
function made on first use that takes the same arguments, turns each namedtuple into a Ref
and calls the kernel. Entries are the only compiled functions with Python wrappers and the
only ones cached (`kernels.jitcache`, keyed by content), so a fast path
(`play.play_chunk(state, ...)` called from Python) is one cached library holding every rule
it runs.

    @kernel                 # a kernel function
    @kernel(inline=True)    # a small hot one, inlined into its callers by LLVM
    @kernel(alloc=True)     # one that allocates arrays (numba's reference counting on)
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable

from numba.core import event, types
from numba.core.registry import CPUDispatcher

import kernels
from kernels import cachedeps, config, jitcache, lazylink, numba_speedups
from kernels.ref import as_ref

lazylink.install()
numba_speedups.install()

_lock = threading.Lock()


class Kernel(CPUDispatcher):
    """A kernel function: a numba dispatcher for compiled callers, with a Python entry."""

    def __init__(self, py_func, targetoptions: dict) -> None:
        super().__init__(py_func, locals={}, targetoptions=targetoptions)
        self._entry: CPUDispatcher | None = None

    def __call__(self, *args, **kws):
        return self.python_entry()(*args, **kws)

    def get_call_template(self, args, kws):
        """Type a compiled call with plain argument types: a literal (0, True) or an
        IntEnum member passed in would otherwise compile the function once per value."""
        return super().get_call_template(tuple(_plain(a) for a in args),
                                         {k: _plain(v) for k, v in kws.items()})

    def python_entry(self) -> CPUDispatcher:
        """The compiled function Python calls (made on first use)."""
        if self._entry is None:
            with _lock:
                if self._entry is None:
                    self._entry = _make_entry(self)
        return self._entry


def _plain(t):
    t = types.unliteral(t)
    return t.dtype if isinstance(t, types.IntEnumMember) else t


def kernel(fn=None, *, inline: bool = False, alloc: bool = False):
    """Compile `fn` as a kernel function (module docstring). inline: LLVM inlines it
    into every caller; alloc: it allocates arrays."""

    def wrap(f):
        cachedeps.note_import(f.__module__)
        return Kernel(f, {**config.KERNEL, "_nrt": alloc, "forceinline": inline})

    return wrap(fn) if fn is not None else wrap


def _make_entry(target: Kernel) -> CPUDispatcher:
    f = target.py_func
    params = list(inspect.signature(f).parameters)
    args = ", ".join(params)
    passed = ", ".join(f"as_ref({p})" for p in params)  # (no kernel has a parameter as_ref)
    src = f"def entry({args}):\n    return __kernel({passed})\n"
    namespace = {"__kernel": target, "as_ref": as_ref}
    code = compile(src, "<kernel-entry>", "exec")  # cache files: kernel-entry.NAME.entry-MODULE
    exec(code, namespace)
    entry = namespace["entry"]
    entry.__defaults__ = f.__defaults__
    entry.__module__ = f.__module__
    entry.__qualname__ = f"{f.__qualname__}.entry"
    disp = _Entry(entry, locals={}, targetoptions=dict(config.ENTRY))
    jitcache.attach(disp)
    return disp


class _Entry(CPUDispatcher):
    """A kernel's Python entry: compiled by one process of the machine at a time (the
    others wait, then load what it cached), with every compile announced to on_compile's
    listeners."""

    def compile(self, sig):
        with jitcache.compiling(self):
            return super().compile(sig)


def on_compile(listener: Callable[[str, float | None], None]) -> None:
    """Call listener(module, None) when a kernel's Python entry starts compiling (a cache
    miss), and listener(module, seconds) when it is done; module is the kernel's module
    (kernels.<game>.play ...). The same as adding to kernels.COMPILE_LISTENERS."""
    kernels.COMPILE_LISTENERS.append(listener)


class _Announcer(event.Listener):
    def __init__(self) -> None:
        self._started: dict[int, float] = {}

    def on_start(self, ev):
        disp = ev.data["dispatcher"]
        if isinstance(disp, _Entry):
            self._started[id(disp)] = time.perf_counter()
            for f in kernels.COMPILE_LISTENERS:
                f(disp.py_func.__module__, None)

    def on_end(self, ev):
        disp = ev.data["dispatcher"]
        t0 = self._started.pop(id(disp), None)
        if t0 is not None:
            for f in kernels.COMPILE_LISTENERS:
                f(disp.py_func.__module__, time.perf_counter() - t0)


event.register("numba:compile", _Announcer())


def kernels_in(modules) -> list[Kernel]:
    """Every kernel function defined at module level of `modules`."""
    return [v for m in modules for v in vars(m).values() if isinstance(v, Kernel)]
