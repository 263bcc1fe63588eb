"""The compile cache: compiled kernels kept in the user's cache folder, keyed by content.

numba's own cache is keyed by a source file's path and modification time, so a reinstall,
a second virtual environment or a fresh clone compiles everything again. This cache keys
compiled code by what it was compiled from. The folder, `<cache>/entries-<digest>/`, is
named by the versions of Python, numba, llvmlite and numpy, numba's code generation
settings and the CPU (name and features), with `<cache>` from `SIMCLI_CACHE_DIR`, else
`platformdirs.user_cache_dir("simcli")`. Inside it, each compiled entry is kept with the
digest of the sources of its call graph (kernels/cachedeps.py: every shared kernel module,
and every file of each game package its code reaches) and is loaded only while those
sources are unchanged. So every install of the same kernels on one machine shares it, and
an edit to one game compiles that game's entries again, not the others'. The newest few
versions of each entry are kept, so switching between branches does not compile again
either. `SIMCLI_NO_CACHE=1` (or `simcli --no-cache`) compiles without reading or writing
it.

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
import secrets
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import ClassVar

from numba.core import caching

from kernels import cachedeps

MARKER = "simcli-kernel-cache"  # in every folder this cache made (and may remove)
KEEP = 4  # folders kept (the newest by last use): one per Python, numba ... and CPU
VERSIONS_KEPT = 8  # versions of each entry kept (the newest), for switching branches
PREFIX = "entries-"  # this format's folders
LEGACY = "kernels-"  # folders of the earlier format (one per version of all kernels)
FORMAT = "call-graph-1"  # the index format, checked on load

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


SETTINGS = ("OPT", "LOOP_VECTORIZE", "SLP_VECTORIZE", "BOUNDSCHECK", "DEBUGINFO_DEFAULT",
            "LLVM_REFPRUNE_PASS")  # numba settings (NUMBA_OPT ...) that change its code


def versions() -> dict[str, str]:
    """What compiled code depends on besides the sources and the CPU: Python, numba,
    llvmlite, numpy, and numba's code generation settings (environment variables such as
    NUMBA_OPT or NUMBA_BOUNDSCHECK)."""
    import llvmlite
    import numba
    import numpy
    from numba.core import config

    settings = " ".join(f"{n}={getattr(config, n, None)}" for n in SETTINGS)
    return {"python": sys.version, "numba": numba.__version__,
            "llvmlite": llvmlite.__version__, "numpy": numpy.__version__,
            "numba-settings": settings}


def cpu() -> str:
    """The host CPU as LLVM sees it (name and features): code is generated for it."""
    import llvmlite.binding as ll

    try:
        features = ll.get_host_cpu_features().flatten()
    except RuntimeError:
        features = ""
    return f"{ll.get_host_cpu_name()}|{features}"


def env_key(vers: dict[str, str], cpu_id: str) -> str:
    """The digest that names a cache folder: what compiled code depends on besides its
    sources."""
    h = hashlib.sha256(b"simcli-kernels-2\0")
    for k in sorted(vers):
        h.update(f"{k}={vers[k]}\0".encode())
    h.update(cpu_id.encode())
    return h.hexdigest()


def digest() -> str:
    """This process's folder key (computed once)."""
    global _digest
    if _digest is None:
        _digest = env_key(versions(), cpu())
    return _digest


def folder() -> Path:
    """The folder compiled kernels are kept in on this Python, numba ... and CPU."""
    return base_dir() / f"{PREFIX}{digest()[:24]}"


def prune(base: Path, keep: int = KEEP) -> list[Path]:
    """Remove all but the `keep` most recently used cache folders this cache made (those
    holding its marker), and every folder of the earlier format; return what was
    removed."""
    try:
        mine = [p for p in base.iterdir() if p.name.startswith((PREFIX, LEGACY))
                and (p / MARKER).is_file()]
    except OSError:
        return []
    legacy = [p for p in mine if p.name.startswith(LEGACY)]
    mine = [p for p in mine if p.name.startswith(PREFIX)]
    mine.sort(key=lambda p: _mtime(p / MARKER), reverse=True)
    gone = []
    for p in legacy + mine[keep:]:
        shutil.rmtree(p, ignore_errors=True)
        gone.append(p)
    return gone


def _mtime(path: str | Path) -> float:
    """A file's modification time (pruning's "last used"), 0 if it is gone (removed
    meanwhile by another process)."""
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


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
        return FORMAT

    def get_disambiguator(self):
        return self._module

    @classmethod
    def from_function(cls, py_func, py_file):
        return cls(py_func, py_file)


class _Impl(caching.CompileResultCacheImpl):
    _locator_classes: ClassVar[list] = [_Locator]


class _CheckedFile(caching.IndexDataCacheFile):
    """numba's index and data files, each data file led by the SHA-256 of the rest. Each
    signature has an index file of its own (named by a digest of the signature's text, so
    a signature whose types another checkout cannot load leaves the others readable),
    holding the newest versions of the entry, each with the modules of its call graph and
    the digest of their sources (kernels/cachedeps.py)."""

    def _bucket(self, key) -> str:
        return f"{self._index_name[:-4]}.{hashlib.sha256(str(key).encode()).hexdigest()[:12]}"

    def _read_index(self, path: str) -> dict:
        """The index in `path` (numba's format), or {} when absent, damaged or stale."""
        try:
            with open(path, "rb") as f:
                version = pickle.load(f)
                data = f.read()
            if version != self._version:
                return {}
            stamp, overloads = pickle.loads(data)
        except Exception:  # absent, damaged, or of types this process cannot load
            return {}
        return overloads if stamp == self._source_stamp else {}

    def _write_index(self, path: str, overloads: dict) -> None:
        data = self._dump((self._source_stamp, overloads))
        with self._open_for_write(path) as f:
            pickle.dump(self._version, f, protocol=-1)
            f.write(data)

    def load(self, key):
        """The entry for `key` compiled from the sources as they are now, else None."""
        index = os.path.join(self._cache_path, self._bucket(key) + ".nbi")
        now: dict[tuple, str] = {}  # modules -> their sources' digest (versions share them)
        for modules, sources, name in self._read_index(index).get(key, ()):
            try:
                if modules not in now:
                    now[modules] = cachedeps.sources_digest(modules)
                if sources == now[modules]:
                    data = self._load_data(name)
                    with suppress(OSError):  # pruning keeps the most recently used
                        os.utime(self._data_path(name))
                    return data
            except (OSError, cachedeps.Untraceable):
                continue
        return None

    def save(self, key, data, modules: tuple[str, ...] = ()):
        """Keep `data` as the version of `key` compiled from the sources of `modules` as
        they are now, with the newest VERSIONS_KEPT - 1 others."""
        sources = cachedeps.sources_digest(modules)
        bucket = self._bucket(key)
        index = os.path.join(self._cache_path, bucket + ".nbi")
        overloads = self._read_index(index)
        versions = [v for v in overloads.get(key, ()) if v[1] != sources]
        versions.sort(key=lambda v: _mtime(self._data_path(v[2])), reverse=True)
        name = f"{bucket}.{secrets.token_hex(8)}.nbc"
        self._save_data(name, data)
        overloads[key] = [(modules, sources, name), *versions[:VERSIONS_KEPT - 1]]
        self._write_index(index, overloads)
        kept = {v[2] for vs in overloads.values() for v in vs}
        for old in os.listdir(self._cache_path):  # dropped versions, lost by a bad index
            if old.startswith(bucket + ".") and old.endswith(".nbc") and old not in kept:
                with suppress(OSError):
                    os.unlink(self._data_path(old))

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
    """numba's function cache, in the content-keyed folder, each entry kept with the
    modules of its call graph (a version per state of their sources); a damaged entry is
    a miss."""

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

    def _save_overload(self, sig, data):
        if not self._enabled or not self._impl.check_cachable(data):
            return
        try:
            modules = cachedeps.call_graph_modules(data.library) | {data.fndesc.modname}
            if cachedeps.changed_since_read(modules):  # compiled from which sources?
                return
        except (OSError, cachedeps.Untraceable):  # no source to key it by: not kept
            return
        self._impl.locator.ensure_cache_path()
        key = self._index_key(sig, data.codegen)
        self._cache_file.save(key, self._impl.reduce(data), tuple(sorted(modules)))


def attach(dispatcher) -> None:
    """Give a dispatcher (a kernel's Python entry) this cache, unless it is off or the
    kernel's module has no source file to key it by (code typed at a prompt)."""
    if enabled() and cachedeps.module_file(dispatcher.py_func.__module__) is not None:
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
