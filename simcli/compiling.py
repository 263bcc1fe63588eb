"""Saying when the kernels compile: once per game and path, on stderr, on a terminal or
in a pipe ("simcli: compiling Samsara's kernels (first use on this machine; ...)")."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import kernels

_said: set[str] = set()
_lock = threading.Lock()
_quiet = False  # set by a command's --quiet for the rest of that command
SHARED = {"kernels.dice": "the dice odds", "kernels.katana_combat": "the combat odds",
          "kernels.search_toys": "the search's test games"}


def what(module: str) -> str | None:
    """The kernels a module's compile is about, in words: "Samsara's kernels", "Samsara's
    search player", "the dice odds kernels"; None for a small shared helper called from
    Python (the random streams' set-up: well under a second, not worth a line)."""
    if module in SHARED:
        return f"{SHARED[module]} kernels"
    parts = module.split(".")
    if len(parts) < 3:
        return None
    from simcli.registry import _LOADED

    name = parts[1].replace("_", "-")
    title = _LOADED[name].title if name in _LOADED else name
    return f"{title}'s search player" if parts[2] == "search_play" else f"{title}'s kernels"


def notice(module: str, seconds: float | None) -> None:
    """Print the start of a compile once per game and path (kernels.COMPILE_LISTENERS)."""
    if seconds is not None or _quiet:
        return
    key = what(module)
    if key is None:
        return
    with _lock:
        if key in _said:
            return
        _said.add(key)
    print(f"simcli: compiling {key} (first use on this machine: later runs load them "
          f"from the cache)...", file=sys.stderr, flush=True)


def silence() -> None:
    """No compile notices for the rest of this command (its --quiet)."""
    global _quiet
    _quiet = True


@contextmanager
def announced() -> Iterator[None]:
    """Within this block (a command), announce compiles (numba is not loaded for it)."""
    global _quiet
    _quiet = False
    kernels.COMPILE_LISTENERS.append(notice)
    try:
        yield
    finally:
        kernels.COMPILE_LISTENERS.remove(notice)
        _quiet = False
