"""Numba kernels: one package per game plus shared pieces (rng, dice, search). No I/O, no
printing.

numba's on-disk cache checks only the source file of each cached function, not the files
of the functions it calls: after an edit to kernels/<game>/rules.py a cached play_chunk
would keep running the old rules. On import, a digest of every kernel source is compared
with the one stored beside the cache; when they differ, the kernels' cache files are
removed (numba then recompiles what is used). An installed copy whose sources never
change keeps its cache.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_ROOT = Path(__file__).parent
_STAMP = "kernels-sources.sha256"


def _sources_digest() -> str:
    h = hashlib.sha256()
    for path in sorted(_ROOT.rglob("*.py")):
        h.update(str(path.relative_to(_ROOT)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _cache_dirs() -> list[Path]:
    """Where numba keeps this package's cache: beside the sources, or under
    NUMBA_CACHE_DIR at the sources' absolute path (never anything else there)."""
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        return [Path(custom) / str(_ROOT.resolve()).lstrip(os.sep)]
    return [p for p in _ROOT.rglob("__pycache__") if p.is_dir()]


def _drop_stale_cache() -> None:
    try:
        digest = _sources_digest()
        stamp = _ROOT / "__pycache__" / _STAMP
        if stamp.is_file() and stamp.read_text() == digest:
            return
        for folder in _cache_dirs():
            for f in folder.rglob("*"):
                if f.suffix in (".nbi", ".nbc"):
                    f.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only install: its sources do not change either
        pass


_drop_stale_cache()
