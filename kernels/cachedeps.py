"""What a compiled kernel entry depends on: the source files whose change must compile it
again (kernels/jitcache.py keys each cached entry by them).

An entry's code is every function compiled into it, found in the compiled result itself
(`call_graph_modules`: the modules of the functions its code library links, from their
mangled names). Its sources are (`source_files`):

- every module directly in the `kernels` package (the compile machinery, its options, the
  random streams, the search, shared mechanics): a change there compiles every entry again;
- every file of each game package (`kernels/<game>/`) a function of the call graph lives
  in, the whole package, so that constants a rule reads from a sibling module without
  calling it (`stats.Misc.MOKSHA`) are covered too;
- the file of any other module with a compiled function in the call graph (a test's toy
  game), by module name.

So an edit to one game's rules compiles that game's entries again, not the other games'.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent  # the kernels package
VERSIONED = ("numba", "numpy", "llvmlite")  # covered by the versions in the folder's key

_first_read: dict[str, bytes] = {}  # path -> SHA-256 of the file as this process first read it
_noted: set[str] = set()  # modules whose sources were read as they were imported


class Untraceable(Exception):
    """A module of the call graph has no source file to key the entry by."""


def mangled_components(name: str) -> list[str]:
    """The identifiers of a numba mangled name (`_ZN7kernels3rng3dieB2v1...` -> kernels,
    rng, die); empty for a name numba did not mangle."""
    if not name.startswith("_ZN"):
        return []
    out, i = [], 3
    while i < len(name) and name[i].isdigit():
        j = i
        while j < len(name) and name[j].isdigit():
            j += 1
        n = int(name[i:j])
        out.append(name[j:j + n])
        i = j + n
    return out


def module_of(name: str, known=None) -> str | None:
    """The Python module of the function behind mangled name `name` (the longest leading
    run of its identifiers that names an imported module), or None."""
    known = sys.modules if known is None else known
    parts = mangled_components(name[name.find("_ZN"):] if "._ZN" in name else name)
    for start in range(min(2, len(parts))):  # numba's wrappers lead with one more name
        for end in range(len(parts), start, -1):
            candidate = ".".join(parts[start:end])
            if candidate in known:
                return candidate
    return None


def call_graph_modules(library) -> set[str]:
    """Modules of every function compiled into a code library and the libraries it links
    (Untraceable when a compiled Python function's module cannot be told)."""
    seen: set[int] = set()
    todo, modules = [library], set()
    while todo:
        lib = todo.pop()
        if id(lib) in seen:
            continue
        seen.add(id(lib))
        for fn in lib._final_module.functions:
            if not fn.is_declaration:
                module = module_of(fn.name)
                if module is not None:
                    modules.add(module)
                elif "_ZN" in fn.name:  # a Python function whose module is not known
                    raise Untraceable(fn.name)
        todo.extend(lib._linking_libraries)
    return modules


def module_file(module: str) -> Path | None:
    """The source file of imported module `module`, or None (none, or not a file)."""
    path = getattr(sys.modules.get(module), "__file__", None)
    return Path(path).resolve() if path is not None and os.path.isfile(path) else None


def _shared_files(root: Path) -> list[Path]:
    return sorted(root.glob("*.py"))


def _package_files(module: str, root: Path) -> list[Path]:
    """Every file of the game package a kernels module belongs to ([] for a shared one)."""
    parts = module.split(".")
    package = root / parts[1] if len(parts) > 1 else None
    if package is None or not package.is_dir():
        return []
    return [p for p in sorted(package.rglob("*.py")) if "__pycache__" not in p.parts]


def source_files(modules, root: Path = ROOT) -> dict[str, Path]:
    """The files an entry whose call graph spans `modules` is keyed by: label -> path
    (labels are paths inside the kernels package, or module names outside it)."""
    files = {p.name: p for p in _shared_files(root)}
    for module in sorted(modules):
        top = module.split(".")[0]
        if top == "kernels":
            files.update({p.relative_to(root).as_posix(): p
                          for p in _package_files(module, root)})
        elif top not in VERSIONED and top not in sys.stdlib_module_names:
            path = module_file(module)
            if path is None:
                raise Untraceable(module)
            files[module] = path
    return files


def _read(path: Path) -> bytes:
    return hashlib.sha256(path.read_bytes()).digest()


def note_import(module: str, root: Path = ROOT) -> None:
    """Read the sources of `module` as it is being imported (the code this process
    compiles), and those of its game package, or of the shared modules, not read yet: an
    edit made later, while the process runs, is not taken for what it compiled."""
    if module in _noted:
        return
    _noted.add(module)
    own = module_file(module)
    if own is not None:
        _first_read[str(own)] = _read(own)
    if module.split(".")[0] == "kernels":
        for p in _package_files(module, root) or _shared_files(root):
            _file_digest(p, fresh=False)  # (each file read once)


def _file_digest(path: Path, fresh: bool) -> bytes:
    """A file's SHA-256: as this process first read it, or (fresh) as it is now."""
    if fresh:
        return _read(path)
    key = str(path)
    if key not in _first_read:
        _first_read[key] = _read(path)
    return _first_read[key]


def sources_digest(modules, root: Path = ROOT, fresh: bool = False) -> str:
    """The digest of the sources an entry spanning `modules` is keyed by (source_files):
    as this process first read them (the code it compiled), or (fresh) as they are now."""
    h = hashlib.sha256(b"simcli-kernel-sources-1\0")
    for label, path in sorted(source_files(modules, root).items()):
        h.update(label.encode() + b"\0" + _file_digest(path, fresh))
    return h.hexdigest()


def changed_since_read(modules, root: Path = ROOT) -> bool:
    """Whether a source of `modules` changed on disk since this process first read it (an
    edit or a checkout while it ran: its compiled code may be of either)."""
    return any(_file_digest(p, fresh=False) != _read(p)
               for p in source_files(modules, root).values())
