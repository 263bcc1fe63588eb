"""Less Python work per compile in numba's type inference, with the same results.

Two costs measured in a cold compile of Samurai & Katana's fast path (cProfile, numba
0.68): every typing of a call to an `@overload` looks up its implementation in a cache
keyed by the compile's flags, and hashing and comparing those flags reads each of their
~50 options through a property (about 58,000 lookups); and every typing attempt that
fails (numba tries each candidate template in turn) formats its error message through
colorama, about 27,000 times, for messages nobody reads unless the whole compile fails.

`install()` makes the flags' `values()` read the option dict directly (the same dict),
`__hash__` hash the sorted option names as numba's own does (the same number, computed
once per class), `__eq__` first compare the dicts of options set (equal dicts, equal
flags), and error messages plain text (numba's no-colour scheme, which the
`NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING` variable selects). Applied only to the numba
versions it was checked on; elsewhere it does nothing.
"""

from __future__ import annotations

from kernels.lazylink import checked_numba

_installed = False
ORIGINAL: dict[str, object] = {}  # numba's own functions the speedups replace (for tests)


def _plain_markup(self, msg, color=None, style=None):
    """An error message's text as it is (no terminal escapes)."""
    return msg


def install() -> bool:
    """Apply the speedups (once per process); False where this numba is unchecked."""
    global _installed
    if _installed:
        return True
    from numba.core import errors, targetconfig

    cfg = targetconfig.TargetConfig
    if not checked_numba() or not all(
            hasattr(cfg, n) for n in ("values", "__hash__", "options")) \
            or not hasattr(errors, "termcolor"):
        return False

    def values(self) -> dict:
        got = self._values
        return {k: got.get(k, opt.default) for k, opt in self.options.items()}

    def config_eq(self, other) -> bool:
        if not isinstance(other, cfg):
            return NotImplemented
        if type(self) is type(other) and self._values == other._values:
            return True  # the same options set to the same values
        return values(self) == values(other)

    hashes: dict[type, int] = {}

    def config_hash(self) -> int:
        cls = type(self)
        if cls not in hashes:
            hashes[cls] = hash(tuple(sorted(self.options)))
        return hashes[cls]

    ORIGINAL.update(values=cfg.values, eq=cfg.__eq__, hash=cfg.__hash__)
    cfg.values = values
    cfg.__eq__ = config_eq
    cfg.__hash__ = config_hash
    scheme = getattr(errors, "HighlightColorScheme", None)  # absent: already plain
    if scheme is not None and hasattr(scheme, "_markup"):
        scheme._markup = _plain_markup
    _installed = True
    return True
