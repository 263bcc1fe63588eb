"""Run folders that appear only when complete: everything is written to a hidden
`.NAME.partial-PID-*` sibling and renamed into place at the end; and the checks that a
finished run folder's files are what its manifest says before anything is read from them."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import platform
import re
import shutil
import stat
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

try:
    import fcntl
except ImportError:  # Windows: a run's liveness is told by its process id alone
    fcntl = None  # type: ignore[assignment]

from simcli.errors import UserError
from simcli.filesafe import CONTENT_LIMIT, JSON_LIMIT, read_regular
from simcli.jsonio import strict_json

MANIFEST = "manifest.json"
AGGREGATES = "aggregates.json"
CONTENT_COPY = "content.toml"
CHECKPOINT = "checkpoint.json"
INVENTORY = ".simcli-files.json"  # what simcli wrote in a finished folder (for --force)
MARKER = ".simcli-partial"  # in a folder simcli is writing; locked while its run lives
PARTIAL = ".partial"
COMMITTED: list[Path] = []  # finished folders this process put in place (for messages)
RENDER_SCRATCH = re.compile(r"^\.render-partial-(\d+)$")  # simcli report's scratch folder
OLDER = "was written by an older simcli (or damaged); run it again"  # a field it lacks
TYPE_WORDS = {str: "text", int: "a whole number", float: "a number", dict: "a table",
              list: "a list", type(None): "null"}  # a manifest value's type in an error


def read_json(path: Path, what: str) -> Any:
    """A JSON file (at most JSON_LIMIT bytes); unreadable or malformed: UserError."""
    raw = read_regular(path, JSON_LIMIT, what)
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant,
                          object_pairs_hook=_no_duplicates)
    except (ValueError, UnicodeDecodeError) as exc:
        raise UserError(f"{what} {path} is not JSON: {exc}") from None
    except RecursionError:
        raise UserError(f"{what} {path} is nested too deeply to read") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key given twice (which JSON readers resolve differently:
    a damaged or edited file, never one simcli wrote)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"the key '{dup}' is given twice")
    return out


class RunFolder:
    """A run folder to be written: checked when made, created by create(), renamed into
    place by commit().

    An ordinary run writes to a hidden `.NAME.partial-PID-*` folder that is removed if the
    run fails. A checkpointed run fills that hidden folder with its content copy and first
    checkpoint, then renames it to `NAME.partial`, which it keeps when stopped, so that
    `simcli resume NAME` can finish it: a `NAME.partial` always holds a checkpoint.
    """

    def __init__(self, final: Path | None, force: bool, checkpointed: bool = False,
                 resuming: bool = False, auto: bool = False, default: str = "run") -> None:
        if final is None:  # no --out: a name simcli chooses, runs/DEFAULT-TIMESTAMP
            final, auto = default_out(default), True
        final = check_out_path(final)
        self.base = final
        self.made: list[Path] = []  # parent folders create() made (removed if the run fails)
        self.lock: int | None = None  # the open, locked MARKER of the folder being written
        if auto:  # a name simcli chose (no --out): the next free one, never another's folder
            final = free_name(final)
        self.final = final
        self.auto = auto
        self.checkpointed = checkpointed
        self.resuming = resuming
        self.replace = False
        self.path: Path | None = None
        if final.exists() or final.is_symlink():
            if not force:
                raise UserError(f"output folder {final} exists; choose another --out or add "
                                f"--force (which replaces only a folder simcli wrote)")
            if not written_by_simcli(final):
                raise UserError(f"--force replaces only a folder simcli wrote (a finished run, "
                                f"study or sweep with its {MANIFEST}); {final} is not one, "
                                f"so nothing was touched")
            refuse_if_changed(final, "nothing was touched")
            self.replace = True
            self.replacing = identity(final)  # what --force may replace, and nothing else
        clean_stale_partials(final, any_name=auto)
        self.partial = partial_dir(final)
        if resuming:
            self.path = self.partial
            self.lock = hold_marker(self.partial)
        elif self.partial.exists() or self.partial.is_symlink():  # any run on this --out
            if (self.partial / CHECKPOINT).exists():
                raise UserError(f"an unfinished checkpointed run is in {self.partial}; finish "
                                f"it with `simcli resume {final}` or remove that folder")
            if not abandoned_start(self.partial) or not has_marker(self.partial):
                raise UserError(f"{self.partial} is in the way: simcli keeps a stopped "
                                f"checkpointed run of --out {final} there, and that folder "
                                f"is not one it made; move or rename it")
            if not claim_marker(self.partial):
                raise UserError(f"another simcli run is starting in {self.partial} now; "
                                f"choose another --out")
            shutil.rmtree(self.partial, ignore_errors=True)
            note(f"removed {self.partial}: a checkpointed run stopped there before its first "
                 f"checkpoint (nothing had been played)")

    def create(self, fill: Callable[[Path], None] | None = None) -> Path:
        """Create the folder the run writes to and `fill` it (content copy, first
        checkpoint); a checkpointed run's folder is renamed to NAME.partial only once
        filled. Resuming: the existing NAME.partial."""
        if self.resuming:
            return self.path
        tag = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp = self.final.parent / f".{self.final.name}{PARTIAL}-{tag}"
        try:
            self.made = make_parents(self.final.parent)
            tmp.mkdir()
            self.lock = write_marker(tmp)
        except OSError as exc:
            remove_made(self.made)
            raise UserError(f"cannot create output folder {self.final}: "
                            f"{exc.strerror or exc}") from None
        self.path = tmp
        try:
            if fill is not None:
                fill(tmp)
            if self.checkpointed:
                try:
                    os.rename(tmp, self.partial)
                except OSError:
                    raise UserError(f"an unfinished checkpointed run appeared in "
                                    f"{self.partial} meanwhile (another run on the same "
                                    f"--out?); this run was not started") from None
                self.path = self.partial
        except BaseException:
            self.release()
            shutil.rmtree(tmp, ignore_errors=True)
            remove_made(self.made)
            self.path = None
            raise
        return self.path

    def commit(self) -> Path:
        """Move the finished folder into place.

        Without --force the final name is claimed with an exclusive mkdir, so a folder that
        appeared meanwhile (another run on the same --out) is refused, not replaced. Under
        --force only a folder simcli wrote is moved aside and removed.
        """
        old = None
        if self.replace and (self.final.exists() or self.final.is_symlink()):
            if not written_by_simcli(self.final):
                raise UserError(f"{self.final} changed during the run and is no longer a "
                                f"folder simcli wrote; nothing was replaced")
            if identity(self.final) != self.replacing:
                raise UserError(f"{self.final} was replaced while this run played (another "
                                f"run on the same --out finished first); it was left as it "
                                f"is and this run was not kept")
            refuse_if_changed(self.final, "nothing was replaced")
            old = self.final.parent / f".{self.final.name}.old-{uuid.uuid4().hex[:8]}"
            self.final.rename(old)
        claimed = False
        while self.auto and old is None and not claimed:
            try:
                self.final.mkdir()
                claimed = True
            except FileExistsError:  # another run took the name simcli chose: the next one
                self.final = free_name(self.base)
            except OSError:
                break  # reported below
        try:
            if not claimed:
                self.final.mkdir()  # exclusive claim of the name
        except FileExistsError:
            if old is not None:
                old.rename(self.final)
            raise UserError(f"output folder {self.final} appeared while this run was "
                            f"playing (another run on the same --out?); this run was not "
                            f"kept") from None
        except OSError as exc:
            raise UserError(f"cannot create output folder {self.final}: "
                            f"{exc.strerror or exc}") from None
        try:
            drop_marker(self.path)  # from here on not a partial folder: nothing cleans it
            write_json(self.path / INVENTORY, {"format": 2, "entries": inventory(self.path)})
        except BaseException:
            self.final.rmdir()
            if old is not None:
                old.rename(self.final)
            raise
        self.path.rename(self.final)  # replaces the empty folder claimed just above
        COMMITTED.append(self.final)
        self.release()
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.final

    def release(self) -> None:
        """Let go of the folder's lock (the run is over, in this process at least)."""
        if self.lock is not None:
            with contextlib.suppress(OSError):
                os.close(self.lock)
            self.lock = None

    def abort(self) -> None:
        """Remove everything written so far (a checkpointed run keeps NAME.partial)."""
        self.release()
        if self.path is None:
            return
        if not (self.checkpointed and self.path == self.partial):
            shutil.rmtree(self.path, ignore_errors=True)
            remove_made(self.made)


def identity(folder: Path) -> tuple[int, int, str]:
    """What tells one finished folder from another at the same path: its device, inode and
    the digest of its manifest."""
    st = folder.lstat()
    try:
        man = hashlib.sha256((folder / MANIFEST).read_bytes()).hexdigest()
    except OSError:
        man = ""
    return st.st_dev, st.st_ino, man


def make_parents(folder: Path) -> list[Path]:
    """Make `folder` and its missing parents; the ones made, deepest last."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()][::-1]
    folder.mkdir(parents=True, exist_ok=True)
    return missing


def remove_made(made: list[Path]) -> None:
    """Remove the folders make_parents made, where they are still empty."""
    for p in reversed(made):
        try:
            p.rmdir()
        except OSError:
            return


def write_marker(folder: Path) -> int | None:
    """Mark `folder` as simcli's, being written, and lock the mark for as long as this
    process lives (the lock, not a process id, tells a live run from a dead one: it holds
    across containers, PID namespaces and hosts sharing a disk). The open descriptor."""
    fd = os.open(folder / MARKER, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, json.dumps({"tool": "simcli", "pid": os.getpid(),
                             "host": platform.node()}).encode())
    if fcntl is not None:  # a file system without locks: liveness by the process id
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def marker_of(folder: Path) -> dict | None:
    """The marker simcli writes in a folder it is writing (tool, pid, host), or None."""
    try:
        doc = json.loads((folder / MARKER).read_bytes()[:4096] or b"{}")
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("tool") == "simcli" else None


def has_marker(folder: Path) -> bool:
    """Whether `folder` carries the marker simcli writes in a folder it is writing."""
    return marker_of(folder) is not None


def hold_marker(folder: Path) -> int | None:
    """Lock the marker of a stopped checkpointed run this process resumes (writing one if
    an older simcli left none); UserError when another live run holds it."""
    if not has_marker(folder):
        with contextlib.suppress(FileNotFoundError):
            (folder / MARKER).unlink()
        try:
            return write_marker(folder)
        except FileExistsError:
            pass  # another resume wrote it first: its lock decides below
    fd = os.open(folder / MARKER, os.O_RDWR | os.O_NOFOLLOW)
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise UserError(f"another simcli process is finishing {folder} now; this one "
                            f"stopped and changed nothing") from None
    return fd


def drop_marker(folder: Path) -> None:
    """Remove the marker of a folder about to become a finished one."""
    with contextlib.suppress(FileNotFoundError):
        (folder / MARKER).unlink()


def claim_marker(folder: Path) -> bool:
    """Whether `folder` carries simcli's marker and no live run holds its lock (a run that
    no longer runs left it): only then may simcli remove it."""
    doc = marker_of(folder)
    if doc is None:
        return False
    with contextlib.suppress(ValueError, TypeError):
        if doc.get("host") == platform.node() and pid_alive(int(doc.get("pid"))):
            return False  # alive here (this also covers a file system without locks)
    try:
        fd = os.open(folder / MARKER, os.O_RDWR | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def note(text: str) -> None:
    """A one-line notice on stderr (not an error)."""
    print(f"simcli: {text}", file=sys.stderr, flush=True)


def default_out(stem: str) -> Path:
    """The folder simcli names when no --out is given: runs/STEM-YYYYmmdd-HHMMSS."""
    return Path("runs") / f"{stem}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"


def free_name(out: Path) -> Path:
    """`out`, or `out-2`, `out-3` ... the first name nothing holds yet."""
    candidate, k = out, 2
    while candidate.exists() or candidate.is_symlink():
        candidate = out.with_name(f"{out.name}-{k}")
        k += 1
    return candidate


def partial_dir(out: Path) -> Path:
    """The in-progress folder of a checkpointed run writing to `out`."""
    return out.with_name(out.name + PARTIAL)


def abandoned_start(partial: Path) -> bool:
    """Whether NAME.partial is what a checkpointed run of an older simcli left when stopped
    before its first checkpoint: a real folder holding nothing but the content copy (and a
    half-written checkpoint's temporary file)."""
    if partial.is_symlink() or not partial.is_dir():
        return False
    names = [p.name for p in partial.iterdir()]
    return all(n in (CONTENT_COPY, MARKER) or n.startswith(f".{CHECKPOINT}.tmp-")
               for n in names)


def pid_alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine (another user's counts; a
    zombie, killed but not yet reaped by its parent, does not)."""
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except (ProcessLookupError, OverflowError, ValueError):
        return False
    try:  # Linux: "PID (name) STATE ..."; the name may hold spaces or parentheses
        text = Path(f"/proc/{pid}/stat").read_text()
        return text[text.rindex(")") + 2] != "Z"
    except (OSError, ValueError, IndexError):
        return True


def clean_stale_partials(final: Path, any_name: bool = False) -> None:
    """Remove `.NAME.partial-PID-*` folders that simcli processes which no longer run left
    next to `final` (killed with SIGKILL, or the machine lost power), or of any NAME with
    `any_name` (the names simcli chooses carry a time, so no later run has the same one);
    only folders with simcli's marker and a free lock; name those it cannot remove."""
    name = r".+" if any_name else re.escape(final.name)
    pattern = re.compile(rf"^\.{name}{re.escape(PARTIAL)}-(\d+)-[0-9a-f]{{8}}$")
    try:
        siblings = list(final.parent.iterdir()) if final.parent.is_dir() else []
    except OSError:
        return
    for p in siblings:
        m = pattern.match(p.name)
        if not m or p.is_symlink() or not p.is_dir():
            continue
        if not claim_marker(p):
            continue  # not simcli's (no marker), or its run still holds the lock
        shutil.rmtree(p, ignore_errors=True)
        if p.exists():
            note(f"{p} was left by a simcli run that no longer runs (process "
                 f"{m.group(1)}) and could not be removed; remove it yourself")
        else:
            note(f"removed {p}, left by a simcli run that no longer runs (process "
                 f"{m.group(1)})")


def remove_stale_scratch(folder: Path) -> None:
    """Remove the scratch folders of `simcli report` runs on `folder` that were killed
    (their marker's lock is free)."""
    for p in folder.iterdir():
        m = RENDER_SCRATCH.match(p.name)
        if m and p.is_dir() and not p.is_symlink() and (
                claim_marker(p) or (not has_marker(p) and not pid_alive(int(m.group(1))))):
            shutil.rmtree(p, ignore_errors=True)


def check_out_path(final: Path) -> Path:
    """The output folder as given, refusing paths that can never be a new run folder: the
    file system root, the working folder or one of its parents."""
    if final.name in ("", ".", ".."):
        raise UserError(f"--out {final} must end in the name of a new folder, such as "
                        f"runs/my-run")
    resolved = final.resolve()
    cwd = Path.cwd().resolve()
    if resolved == resolved.parent or resolved == cwd or resolved in cwd.parents:
        raise UserError(f"--out {final} would be the working folder, one of its parents or "
                        f"the root; name a new folder such as runs/my-run")
    blocked = next((p for p in final.parents if p.exists() and not p.is_dir()), None)
    if blocked is not None:
        raise UserError(f"--out {final}: {blocked} is a file, not a folder")
    return final


def written_by_simcli(folder: Path) -> bool:
    """Whether `folder` is a finished folder simcli wrote: a real (not linked) folder whose
    manifest.json says tool = simcli (runs, studies and sweeps all carry one)."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    try:
        doc = read_json(folder / MANIFEST, "manifest")
    except UserError:
        return False
    return isinstance(doc, dict) and doc.get("tool") == "simcli"


def inventory(root: Path) -> dict[str, list]:
    """Every entry under `root` (not following links) but the inventory file itself and
    simcli report's scratch folders: relative path -> ["d"] for a folder, ["f", size,
    sha256] for a file, ["l"] for a link or anything else."""
    out: dict[str, list] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath)
        if base == root:
            dirnames[:] = [d for d in dirnames if not RENDER_SCRATCH.match(d)]
        for name in dirnames + filenames:
            path = base / name
            rel = path.relative_to(root).as_posix()
            if rel == INVENTORY:
                continue
            out[rel] = entry_of(path)
    return out


def entry_of(path: Path) -> list:
    """A path's inventory entry: ["d"], ["f", size, sha256 of the content] or ["l"]."""
    st = path.lstat()
    if stat.S_ISDIR(st.st_mode):
        return ["d"]
    if stat.S_ISREG(st.st_mode):
        with open(path, "rb") as fh:
            return ["f", st.st_size, hashlib.file_digest(fh, "sha256").hexdigest()]
    return ["l"]


def same_entry(now: list, recorded: Any) -> bool:
    """Whether an entry is as recorded: by content digest (an inventory of an older simcli
    recorded size and modification time instead, and is compared by size alone then)."""
    if not isinstance(recorded, list) or not recorded or now[0] != recorded[0]:
        return False
    if now[0] != "f":
        return True
    if len(recorded) == 3 and isinstance(recorded[2], int):  # format 1: size, mtime
        return now[1] == recorded[1]
    return now == recorded


def not_as_written(folder: Path) -> str | None:
    """Why `folder` holds more than simcli wrote there, or something it wrote was changed
    since (a sentence), or None when it holds only simcli's files as written: the entries
    are checked against the inventory simcli recorded when it finished the folder."""
    recorded = _recorded(folder)
    if recorded is None:
        return (f"it has no record of the files simcli wrote ({INVENTORY}; folders written "
                f"before simcli kept one have none)")
    for rel, entry in inventory(folder).items():
        if rel not in recorded:
            return f"{folder / rel} was not written by simcli"
        if not same_entry(entry, recorded[rel]):
            return f"{folder / rel} changed since simcli wrote it"
    return None


def check_recorded(folder: Path, names: tuple[str, ...]) -> None:
    """UserError when one of `names` in a finished folder is not the file simcli recorded
    writing (by SHA-256, in a format-2 inventory): damage by accident (a bad copy, an edit
    by mistake, a swapped file) is caught; a deliberate edit that rewrites the inventory
    too is not, and no local check could catch it."""
    recorded = _recorded(folder)
    if recorded is None:
        return  # an older simcli's folder: the manifest checks below still apply
    for name in names:
        entry = recorded.get(name)
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[2], str)):
            continue
        path = folder / name
        if not path.is_file() or path.is_symlink() or entry_of(path) != entry:
            raise UserError(f"{path} is not the file simcli wrote (its SHA-256 differs from "
                            f"the one in {INVENTORY}): the run folder was damaged or edited")


def edited_targets(src: Path, dst: Path) -> list[Path]:
    """The files under `dst` that moving `src` into it would replace and that are not as
    simcli recorded writing them (edited since, or never simcli's); none in a folder with
    no inventory (an older simcli's: nothing to tell an edit by)."""
    recorded = _recorded(dst)
    if recorded is None:
        return []
    out = []
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        target = dst / rel
        if path.is_dir() or not (target.exists() or target.is_symlink()):
            continue
        if target.is_dir() and not target.is_symlink():
            continue  # move_into refuses that itself
        if not same_entry(entry_of(target), recorded.get(rel.as_posix())):
            out.append(target)
    return out


def refuse_if_changed(folder: Path, consequence: str) -> None:
    """UserError unless `folder` holds only simcli's files as it wrote them."""
    why = not_as_written(folder)
    if why is not None:
        raise UserError(f"--force replaces only what simcli wrote, and {why}; {consequence} "
                        f"(remove or move the folder yourself to reuse the name)")


def move_into(src: Path, dst: Path) -> list[Path]:
    """Move every file under `src` to the same place under `dst`, replacing a file of the
    same name and keeping anything else in `dst` (nothing simcli did not write is removed);
    the files written, as paths under dst."""
    written = []
    for item in sorted(src.iterdir()):
        target = dst / item.name
        if item.is_dir():
            if target.is_symlink() or (target.exists() and not target.is_dir()):
                raise UserError(f"{target} is not a folder; simcli needs that name for its "
                                f"{item.name} and left the folder as it was")
            target.mkdir(exist_ok=True)
            written += move_into(item, target)
        else:
            if target.is_dir() and not target.is_symlink():
                raise UserError(f"{target} is a folder; simcli needs that name for a file "
                                f"and left the folder as it was")
            item.replace(target)
            written.append(target)
    return written


def record_rewritten(folder: Path, names: list[Path]) -> None:
    """Update a finished folder's inventory after simcli rewrote `names` in it (simcli
    report), so --force still knows them as simcli's; a folder without one is left so."""
    entries = _recorded(folder)
    if entries is None:
        return
    rels = [name.relative_to(folder) for name in names]
    mine = {r.as_posix() for r in rels} | {p.as_posix() for r in rels for p in r.parents
                                           if p != Path(".")}  # and the folders made for them
    entries.update({k: v for k, v in inventory(folder).items() if k in mine})
    write_json(folder / INVENTORY, {"format": 2, "entries": entries})


def _recorded(folder: Path) -> dict[str, list] | None:
    """The inventory simcli recorded in a finished folder, or None (none, or unreadable)."""
    try:
        entries = read_json(folder / INVENTORY, "file list")["entries"]
    except (UserError, KeyError, TypeError):
        return None
    return entries if isinstance(entries, dict) else None


def disk_error(exc: OSError, where: Path | str) -> UserError:
    """A write that failed (disk full, quota, read-only, permissions) as one line."""
    name = {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
            errno.EROFS: "read-only file system"}.get(exc.errno or -1,
                                                     exc.strerror or str(exc))
    return UserError(f"cannot write {where}: {name}")


def write_failure(exc: BaseException, where: Path | str) -> UserError | None:
    """The one-line error for a failed write: an OSError, or a library error wrapping one
    (polars reports a full disk as '... (os error 28)'); None for anything else."""
    if isinstance(exc, OSError):
        return disk_error(exc, where)
    m = re.search(r"\(os error (\d+)\)", str(exc))
    if m:
        code = int(m.group(1))
        return disk_error(OSError(code, os.strerror(code)), where)
    return None


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (temporary file, then rename)."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(strict_json(data, indent=2) + "\n", encoding="utf-8")
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def arrays_json(aggs: dict[str, np.ndarray]) -> dict[str, Any]:
    """Integer statistics as JSON-ready data: name -> {shape, data}."""
    return {k: {"shape": list(v.shape), "data": v.ravel().tolist()} for k, v in aggs.items()}


def save_aggregates(path: Path, aggs: dict[str, np.ndarray]) -> None:
    """Integer statistics as JSON (exact, readable, re-renderable)."""
    write_json(path, {"format": 1, "arrays": arrays_json(aggs)})


def is_int(v: Any) -> bool:
    """An integer that is not a bool."""
    return isinstance(v, int) and not isinstance(v, bool)


def arrays_from_json(doc: Any, where: str) -> dict[str, np.ndarray]:
    """Arrays saved by arrays_json, every value checked: a non-negative integer (counts and
    sums of counts), as many as the shape says. Anything else: UserError."""
    if not isinstance(doc, dict):
        raise UserError(f"{where}: the statistics must be a table of arrays")
    out = {}
    for name, item in doc.items():
        if not isinstance(item, dict) or set(item) != {"shape", "data"}:
            raise UserError(f"{where}: statistic '{name}' must have exactly a shape and data")
        shape, data = item["shape"], item["data"]
        if not isinstance(shape, list) or not all(is_int(d) and d >= 0 for d in shape):
            raise UserError(f"{where}: statistic '{name}' has a bad shape {shape!r}")
        if not isinstance(data, list) or len(data) != math.prod(shape):
            raise UserError(f"{where}: statistic '{name}' should hold {math.prod(shape):,} "
                            f"numbers for its shape {shape}")
        bad = next((x for x in data if not is_int(x) or not 0 <= x < 2**63), None)
        if bad is not None:
            raise UserError(f"{where}: statistic '{name}' holds {bad!r}; every statistic is "
                            f"a count, a non-negative integer")
        out[name] = np.array(data, np.int64).reshape(shape)
    return out


def check_shapes(aggs: dict[str, np.ndarray], expected: dict[str, np.ndarray],
                 where: str, setup: str) -> None:
    """The statistics a setup produces: the same names and shapes, or UserError."""
    missing = [k for k in expected if k not in aggs]
    if missing:
        raise UserError(f"{where}: statistics missing for {setup}: {', '.join(missing)}")
    extra = [k for k in aggs if k not in expected]
    if extra:
        raise UserError(f"{where}: statistics {setup} does not make: {', '.join(extra)}")
    for k, v in expected.items():
        if aggs[k].shape != v.shape:
            raise UserError(f"{where}: statistic '{k}' has shape {list(aggs[k].shape)}, but "
                            f"{setup} makes {list(v.shape)}")


def check_counts(game: Any, aggs: dict[str, np.ndarray], players: int, games: int,
                 where: str) -> None:
    """The statistics count `games` games of `players` players, or UserError."""
    from simcli.analysis import core_of

    try:
        core = core_of(game, aggs, players)
        every_seat = core_of(game, aggs, game.max_players).seat_wins
    except (IndexError, KeyError, ValueError, TypeError) as exc:
        raise UserError(f"{where}: statistics do not fit {game.name} ({exc})") from None
    if core.games != games:
        raise UserError(f"{where}: the statistics count {core.games:,} games, not the "
                        f"{games:,} the run played")
    if not 0 <= core.completed <= core.games or not 0 <= core.shared <= core.games:
        raise UserError(f"{where}: the statistics are inconsistent (more completed or shared "
                        f"games than games)")
    if every_seat[players:].sum() != 0:
        raise UserError(f"{where}: the statistics have wins in seats beyond the "
                        f"{players} players of the run")


@dataclass
class LoadedRun:
    """A finished run folder whose files agree with its manifest."""

    manifest: dict[str, Any]
    aggs: dict[str, np.ndarray]
    game: Any
    content: Any


def _need(ok: bool, where: Path, what: str) -> None:
    if not ok:
        raise UserError(f"{where}: damaged run folder: {what}")


def check_manifest(man: Any, folder: Path) -> None:
    """The manifest fields simcli reads, with the types it reads them as."""
    _need(isinstance(man, dict), folder, f"{MANIFEST} is not a JSON object")
    _need(man.get("tool") == "simcli", folder, f"{MANIFEST} was not written by simcli")
    _need(man.get("kind", "run") == "run", folder,
          f"it is a {man.get('kind')} folder, not a run (open its report.md)")
    _need(isinstance(man.get("game"), str), folder, f"{MANIFEST} has no game name")
    _need(is_int(man.get("players")), folder, "players is not a whole number")
    seats = man.get("seats")
    _need(isinstance(seats, list) and all(isinstance(s, str) for s in seats), folder,
          "seats is not a list of policy names")
    _need(len(seats) == man["players"], folder,
          f"{len(seats)} seats for {man['players']} players")
    rules = man.get("rules")
    _need(isinstance(rules, dict) and all(isinstance(v, str) for v in rules.values()), folder,
          "rules is not a table of rule options")
    c = man.get("content")
    _need(isinstance(c, dict) and isinstance(c.get("sha256"), str)
          and re.fullmatch(r"[0-9a-f]{64}", c["sha256"]) is not None, folder,
          "the content's sha256 is missing or malformed")
    for key in ("name", "description", "path"):
        _need(isinstance(c.get(key, ""), str), folder, f"content {key} is not text")
    _need(isinstance(c.get("version", ""), str | int | float), folder,
          "content version is not a value")
    _need(isinstance(c.get("assumed", False), bool), folder, "content assumed is not true/false")
    _need(is_int(man.get("playouts")) and man["playouts"] > 0, folder,
          "playouts is not a positive whole number")
    _need(is_int(man.get("seed")) and 0 <= man["seed"] < 2**64, folder,
          "seed is not a whole number in 0 .. 2**64-1")
    _need(isinstance(man.get("mirror", False), bool), folder, "mirror is not true/false")
    _need(is_int(man.get("threads", 1)), folder, "threads is not a whole number")
    for key in ("tool_version", "game_title"):
        _need(isinstance(man.get(key, ""), str), folder, f"{key} is not text")
    timing = man.get("timing", {})
    _need(isinstance(timing, dict) and all(v is None or (isinstance(v, int | float)
                                                         and not isinstance(v, bool))
                                           for v in timing.values()), folder,
          "timing is not a table of numbers")
    policies = man.get("policies", {})
    _need(isinstance(policies, dict) and all(isinstance(v, str) for v in policies.values()),
          folder, "policies is not a table of descriptions")
    versions = man.get("versions", {})
    _need(isinstance(versions, dict), folder, "versions is not a table")
    stop = man.get("stopping")
    if stop is not None:
        _need(isinstance(stop, dict) and all(isinstance(stop.get(k), int | float)
                                             for k in ("target_ci", "max_playouts", "playouts",
                                                       "half_width"))
              and isinstance(stop.get("rounds"), list)
              and isinstance(stop.get("reached"), bool)
              and stop["playouts"] == man["playouts"], folder,
              "the stopping rule record is malformed or disagrees with playouts")


def load_run(folder: Path) -> LoadedRun:
    """A finished run folder, every file checked against its manifest: the content copy
    has the manifest's sha256; the statistics are non-negative integers with exactly the
    names and shapes the game makes for the manifest's setup, counting the manifest's
    playouts with no wins in seats the run did not have. Anything else: UserError."""
    from simcli.games.base import sha256
    from simcli.registry import get_game

    if not folder.is_dir():
        raise UserError(f"{folder} is not a folder")
    man_path, agg_path = folder / MANIFEST, folder / AGGREGATES
    if man_path.is_file() and not agg_path.exists():
        try:
            kind = read_json(man_path, "manifest").get("kind")
        except (UserError, AttributeError):
            kind = None
        if isinstance(kind, str) and kind != "run":
            raise UserError(f"{folder} is a {kind} folder, not a run; this command reads the "
                            f"folder of a `simcli run`")
    if not man_path.exists() or not agg_path.exists():
        raise UserError(f"{folder} is not a finished run folder (no {MANIFEST} or {AGGREGATES})")
    check_recorded(folder, (MANIFEST, AGGREGATES, CONTENT_COPY))
    man = read_json(man_path, "manifest")
    check_manifest(man, folder)
    try:
        game = get_game(man["game"])
    except UserError as exc:
        raise UserError(f"{folder}: damaged run folder: {exc}") from None
    doc = read_json(agg_path, "aggregates file")
    _need(isinstance(doc, dict) and "arrays" in doc, folder,
          f"{AGGREGATES} has no statistics (arrays)")
    aggs = arrays_from_json(doc["arrays"], f"{agg_path}")
    copy = folder / CONTENT_COPY
    raw = read_regular(copy, CONTENT_LIMIT, "content copy") if copy.exists() else None
    if raw is None:
        raise UserError(f"{folder}: damaged run folder: {CONTENT_COPY} is missing")
    if sha256(raw) != man["content"]["sha256"]:
        raise UserError(f"{copy} does not match the manifest (its sha256 is "
                        f"{sha256(raw)[:12]}, the run used {man['content']['sha256'][:12]}): "
                        f"the content file was edited or swapped after the run")
    try:
        content = game.load_content(copy)
        for s in man["seats"]:
            game.check_policy(s)
        rules = game.resolve_rules([f"{k}={v}" for k, v in man["rules"].items()])
        _need(rules == man["rules"], folder, "rules do not name every rule option")
        game.check_players(man["players"])
        prep = game.prepare(content, man["players"], tuple(man["seats"]), rules)
    except UserError as exc:
        raise UserError(f"{folder}: damaged run folder: {exc}") from None
    expected = game.new_aggregates(prep)
    players = man["players"]
    if man.get("mirror"):
        expected["mirror_seat"] = np.zeros((players, players + 1), np.int64)
        expected["mirror_player"] = np.zeros((players, players + 1), np.int64)
    setup = f"{game.name} with {players} players"
    check_shapes(aggs, expected, str(agg_path), setup)
    check_counts(game, aggs, players, man["playouts"] * (players if man.get("mirror") else 1),
                 str(agg_path))
    return LoadedRun(man, aggs, game, content)


def load_finished(folder: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(manifest, aggregates) of a finished run folder whose files agree with its manifest
    (load_run), or a UserError saying what is wrong."""
    run = load_run(folder)
    return run.manifest, run.aggs


def digest(doc: dict[str, Any]) -> str:
    """SHA-256 of a JSON document's content (key order ignored)."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def render_in_place(folder: Path, write: Any) -> None:
    """Re-render a finished folder: `write(scratch)` writes the new files into a scratch
    folder inside it (marked and locked while it lives), which replace the old ones only
    when none of those was edited since simcli wrote it (then nothing changes); a failure
    leaves the folder as it was."""
    import shutil

    tmp = folder / f".render-partial-{os.getpid()}"
    remove_stale_scratch(folder)
    lock = None
    try:
        tmp.mkdir()
        lock = write_marker(tmp)
        write(tmp)
        drop_marker(tmp)
        edited = edited_targets(tmp, folder)
        if edited:
            names = ", ".join(str(p.relative_to(folder)) for p in edited[:3])
            raise UserError(f"simcli report would replace {names} in {folder}, edited since "
                            f"simcli wrote {'them' if len(edited) > 1 else 'it'}; nothing was "
                            f"changed (move {'them' if len(edited) > 1 else 'it'} aside to "
                            f"re-render)")
        written = move_into(tmp, folder)
        record_rewritten(folder, written)
    except Exception as exc:
        failed = write_failure(exc, folder)
        if failed is None:
            raise
        raise UserError(f"{failed}; the folder was left as it was") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if lock is not None:
            os.close(lock)


def load_tables(folder: Path, kind: str, names: tuple[str, ...]) -> tuple[dict, dict]:
    """(manifest, {name: table}) of a finished folder of `kind` (a sweep, ladder, tune or
    value run) to re-render: the manifest and each Parquet table that exists are checked
    against the SHA-256 simcli recorded when it wrote them; a table not there is an empty
    frame."""
    import polars as pl

    man = read_json(folder / MANIFEST, "manifest")
    if not isinstance(man, dict) or man.get("kind") != kind:
        raise UserError(f"{folder}/{MANIFEST} is not the manifest of a {kind} folder")
    check_recorded(folder, (MANIFEST, *names))
    tables = {}
    for name in names:
        path = folder / name
        try:
            tables[name] = pl.read_parquet(path) if path.is_file() else pl.DataFrame()
        except Exception as exc:  # polars raises its own error types for a damaged file
            raise UserError(f"{path} cannot be read: {exc}") from None
    return man, tables


def need_fields(man: dict[str, Any], folder: Path, kind: str,
                fields: dict[str, type | tuple[type, ...]], within: str = "") -> None:
    """UserError naming the first manifest key of `fields` that is missing (an older
    simcli's folder) or whose value is not of the type or types given (a damaged one).
    `within` names the manifest entry `man` is, when it is not the manifest itself."""
    for key, types in fields.items():
        allowed = types if isinstance(types, tuple) else (types,)
        name = f"{within}.{key}" if within else key
        if key not in man:
            raise UserError(f"{folder}/{MANIFEST} has no '{name}': the {kind} folder {OLDER}")
        value = man[key]
        if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
            what = " or ".join(TYPE_WORDS.get(t, t.__name__) for t in allowed)
            raise UserError(f"{folder}: damaged {kind} folder: '{name}' in {MANIFEST} is not "
                            f"{what}")


def need_table(table: Any, path: Path, *, numbers: tuple[str, ...] = (),
               texts: tuple[str, ...] = (), maybe_null: tuple[str, ...] = ()) -> None:
    """UserError unless `table` (read from `path`) has rows and each named column, of
    numbers or of text, with no empty cell outside the `maybe_null` columns."""
    import polars as pl

    if not table.height:
        raise UserError(f"{path} is missing or empty, and the folder cannot be re-rendered "
                        f"without it; run it again")
    for col in (*numbers, *texts):
        dtype = table.schema.get(col)
        if dtype is None:
            raise UserError(f"{path} has no column '{col}': the folder {OLDER}")
        if col in numbers:
            ok = dtype.is_numeric() or dtype == pl.Null
        else:
            ok = dtype == pl.String or dtype == pl.Null
        if not ok or (col not in maybe_null and table[col].null_count()):
            raise UserError(f"{path}: column '{col}' has empty cells or is not "
                            f"{'numbers' if col in numbers else 'text'}; the folder was "
                            f"damaged (run it again)")
