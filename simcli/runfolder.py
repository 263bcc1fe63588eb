"""Run folders that appear only when complete: everything is written to a hidden
`.NAME.partial-*` sibling and renamed into place at the end."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from simcli.errors import UserError
from simcli.jsonio import strict_json

MANIFEST = "manifest.json"
AGGREGATES = "aggregates.json"
CONTENT_COPY = "content.toml"


class RunFolder:
    """A run folder being written: `path` is the temporary location until commit().

    An ordinary run writes to a hidden `.NAME.partial-*` folder that is removed if the run
    fails. A checkpointed run writes to `NAME.partial` and keeps it when stopped, so that
    `simcli resume NAME` can finish it.
    """

    def __init__(self, final: Path, force: bool, checkpointed: bool = False,
                 resuming: bool = False) -> None:
        final = check_out_path(final)
        self.final = final
        self.checkpointed = checkpointed
        self.replace = False
        if final.exists() or final.is_symlink():
            if not force:
                raise UserError(f"output folder {final} exists; choose another --out or add "
                                f"--force (which replaces only a folder simcli wrote)")
            if not written_by_simcli(final):
                raise UserError(f"--force replaces only a folder simcli wrote (a finished run, "
                                f"study or sweep with its {MANIFEST}); {final} is not one, "
                                f"so nothing was touched")
            self.replace = True
        if checkpointed:
            self.path = final.with_name(final.name + ".partial")
            if resuming:
                return
            if self.path.exists():
                raise UserError(f"an unfinished checkpointed run is in {self.path}; finish it "
                                f"with `simcli resume {final}` or remove that folder")
        else:
            self.path = final.parent / f".{final.name}.partial-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
            self.path.mkdir()
        except OSError as exc:
            raise UserError(f"cannot create output folder {final}: {exc.strerror or exc}") from None

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
            old = self.final.parent / f".{self.final.name}.old-{uuid.uuid4().hex[:8]}"
            self.final.rename(old)
        try:
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
        self.path.rename(self.final)  # replaces the empty folder claimed just above
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.final

    def abort(self, interrupted: bool = False) -> None:
        """Remove everything written so far (a checkpointed run keeps its folder)."""
        if not self.checkpointed:
            shutil.rmtree(self.path, ignore_errors=True)


def check_out_path(final: Path) -> Path:
    """The output folder as given, refusing paths that can never be a new run folder: the
    file system root, the working folder or one of its parents."""
    resolved = final.resolve()
    cwd = Path.cwd().resolve()
    if resolved == resolved.parent or resolved == cwd or resolved in cwd.parents:
        raise UserError(f"--out {final} would be the working folder, one of its parents or "
                        f"the root; name a new folder such as runs/my-run")
    return final


def written_by_simcli(folder: Path) -> bool:
    """Whether `folder` is a finished folder simcli wrote: a real (not linked) folder whose
    manifest.json says tool = simcli (runs, studies and sweeps all carry one)."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    try:
        doc = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and doc.get("tool") == "simcli"


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (temporary file, then rename)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(strict_json(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def save_aggregates(path: Path, aggs: dict[str, np.ndarray]) -> None:
    """Integer statistics as JSON (exact, readable, re-renderable)."""
    write_json(path, {
        "format": 1,
        "arrays": {k: {"shape": list(v.shape), "data": v.ravel().tolist()}
                   for k, v in aggs.items()},
    })


def load_aggregates(path: Path) -> dict[str, np.ndarray]:
    """Read statistics written by save_aggregates."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {k: np.array(v["data"], np.int64).reshape(v["shape"])
            for k, v in doc["arrays"].items()}


def load_finished(folder: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(manifest, aggregates) of a finished run folder, or a UserError saying what is wrong."""
    if not folder.is_dir():
        raise UserError(f"{folder} is not a folder")
    man, agg = folder / MANIFEST, folder / AGGREGATES
    if not man.exists() or not agg.exists():
        raise UserError(f"{folder} is not a finished run folder (no {MANIFEST} or {AGGREGATES})")
    try:
        return json.loads(man.read_text(encoding="utf-8")), load_aggregates(agg)
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{folder}: damaged run files ({exc})") from None
