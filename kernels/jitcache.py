"""The compile cache: compiled kernels kept in the user's cache folder, keyed by content.

numba's own cache is keyed by a source file's path and modification time, so a reinstall,
a second virtual environment or a fresh clone compiles everything again. This cache keys
compiled code by what it was compiled from: a digest of every kernel source file (any
change to any module a kernel can call, kernels never import anything but numba, numpy and
each other), the versions of Python, numba, llvmlite and numpy, and the CPU (name and
features). Every install of the same kernels on one machine shares one folder,
`<cache>/kernels-<digest>/`, with `<cache>` from `SIMCLI_CACHE_DIR`, else
`platformdirs.user_cache_dir("simcli")`. `SIMCLI_NO_CACHE=1` (or `simcli --no-cache`)
compiles without reading or writing it.

Each data file carries a SHA-256 of its contents: a corrupt or truncated entry is ignored
and compiled again, never loaded. Files are written under a temporary name and renamed
into place (numba's own writer), so an interrupted write leaves no entry. Only the newest
few folders are kept; older ones that carry this cache's marker file are removed.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import pickle
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import ClassVar

from numba.core import caching

ROOT = Path(__file__).resolve().parent  # the kernels package
MARKER = "simcli-kernel-cache"  # in every folder this cache made (and may remove)
KEEP = 8  # digest folders kept (the newest by last use)

_digest: str | None = None


def enabled() -> bool:
    """Whether compiled kernels are read from and written to the cache."""
    return os.environ.get("SIMCLI_NO_CACHE", "") in ("", "0")


def base_dir() -> Path:
    """The cache's root folder."""
    custom = os.environ.get("SIMCLI_CACHE_DIR")
    if custom:
        return Path(custom).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("simcli"))


def versions() -> dict[str, str]:
    """What compiled code depends on besides the sources: Python, numba, llvmlite, numpy."""
    import llvmlite
    import numba
    import numpy

    return {"python": sys.version, "numba": numba.__version__,
            "llvmlite": llvmlite.__version__, "numpy": numpy.__version__}


def cpu() -> str:
    """The host CPU as LLVM sees it (name and features): code is generated for it."""
    import llvmlite.binding as ll

    try:
        features = ll.get_host_cpu_features().flatten()
    except RuntimeError:
        features = ""
    return f"{ll.get_host_cpu_name()}|{features}"


def sources(root: Path = ROOT) -> list[tuple[str, bytes]]:
    """Every kernel source file (relative path, contents), in a fixed order."""
    return [(p.relative_to(root).as_posix(), p.read_bytes())
            for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts]


def cache_key(files: list[tuple[str, bytes]], vers: dict[str, str], cpu_id: str) -> str:
    """The digest that names a cache folder."""
    h = hashlib.sha256(b"simcli-kernels-1\0")
    for name, data in files:
        h.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    for k in sorted(vers):
        h.update(f"{k}={vers[k]}\0".encode())
    h.update(cpu_id.encode())
    return h.hexdigest()


def digest() -> str:
    """This process's cache key (computed once)."""
    global _digest
    if _digest is None:
        _digest = cache_key(sources(), versions(), cpu())
    return _digest


def folder() -> Path:
    """The folder compiled kernels of these sources are kept in."""
    return base_dir() / f"kernels-{digest()[:24]}"


def prune(base: Path, keep: int = KEEP) -> list[Path]:
    """Remove all but the `keep` most recently used cache folders this cache made (those
    holding its marker); return what was removed."""
    try:
        mine = [p for p in base.iterdir() if p.name.startswith("kernels-")
                and (p / MARKER).is_file()]
    except OSError:
        return []
    mine.sort(key=lambda p: (p / MARKER).stat().st_mtime, reverse=True)
    gone = []
    for p in mine[keep:]:
        shutil.rmtree(p, ignore_errors=True)
        gone.append(p)
    return gone


class _Locator(caching._CacheLocator):
    """Every kernel entry in the one content-keyed folder."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._module = getattr(py_func, "__module__", "kernels")

    def ensure_cache_path(self):
        path = folder()
        fresh = not path.is_dir()
        super().ensure_cache_path()
        (path / MARKER).touch()
        if fresh:
            prune(path.parent)

    def get_cache_path(self):
        return str(folder())

    def get_source_stamp(self):
        return digest()

    def get_disambiguator(self):
        return self._module

    @classmethod
    def from_function(cls, py_func, py_file):
        return cls(py_func, py_file)


class _Impl(caching.CompileResultCacheImpl):
    _locator_classes: ClassVar[list] = [_Locator]


class _CheckedFile(caching.IndexDataCacheFile):
    """numba's index and data files, each data file led by the SHA-256 of the rest."""

    def _load_index(self):
        try:
            return super()._load_index()
        except Exception:  # a damaged index: as if empty (entries are rewritten)
            return {}

    def _save_data(self, name, data):
        payload = self._dump(data)
        with self._open_for_write(self._data_path(name)) as f:
            f.write(hashlib.sha256(payload).digest() + payload)

    def _load_data(self, name):
        raw = Path(self._data_path(name)).read_bytes()
        head, payload = raw[:32], raw[32:]
        if len(raw) < 32 or hashlib.sha256(payload).digest() != head:
            raise OSError(f"damaged cache entry {name}")
        return pickle.loads(payload)


class Cache(caching.FunctionCache):
    """numba's function cache, in the content-keyed folder; a damaged entry is a miss."""

    _impl_class = _Impl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = _CheckedFile(cache_path=self._cache_path,
                                        filename_base=self._impl.filename_base,
                                        source_stamp=self._impl.locator.get_source_stamp())

    def load_overload(self, sig, target_context):
        if not enabled():
            return None
        try:
            return super().load_overload(sig, target_context)
        except Exception:  # unreadable, damaged or from elsewhere: compile instead
            return None

    def save_overload(self, sig, data):
        if not enabled():
            return
        with suppress(OSError):  # a read-only or full cache folder: the run goes on
            super().save_overload(sig, data)


def attach(dispatcher) -> None:
    """Give a dispatcher (a kernel's Python entry) this cache, unless it is off or the
    kernel lives outside the kernels package (whose sources the key covers)."""
    module = dispatcher.py_func.__module__
    if enabled() and (module == "kernels" or module.startswith("kernels.")):
        dispatcher._cache = Cache(dispatcher.py_func)
        _mark_used()


_used = False


def _mark_used() -> None:
    """Touch this folder's marker once per process: pruning keeps the most recently used."""
    global _used
    if not _used:
        _used = True
        with suppress(OSError):
            marker = folder() / MARKER
            if marker.is_file():
                marker.touch()


@contextmanager
def compiling(dispatcher) -> Iterator[None]:
    """Hold the machine-wide lock of a cached entry while it compiles or loads: a second
    process (or thread) wanting the same code waits, then loads it from the cache."""
    cache = getattr(dispatcher, "_cache", None)
    if not isinstance(cache, Cache) or not enabled():
        yield
        return
    try:
        cache._impl.locator.ensure_cache_path()
        fd = os.open(Path(cache.cache_path) / f"{cache._impl.filename_base}.lock",
                     os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:  # no writable cache folder: compile without the lock
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another process compiles it: say so, wait, then load it
            import kernels

            for listener in kernels.COMPILE_LISTENERS:
                listener(dispatcher.py_func.__module__, None)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock
