"""Reading a user's file safely: only ordinary files, never more than a stated size (a
FIFO, a device or a huge file is refused at once). A leaf module: the run folder and the
games' content loaders both read through it, without importing each other."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from simcli.errors import UserError

JSON_LIMIT = 64 * 2**20  # manifests, aggregates, checkpoints and baselines are far smaller
CONTENT_LIMIT = 8 * 2**20  # content files and specs; a 10,000-card roster is about 1.5 MB


def read_regular(path: Path, limit: int, what: str) -> bytes:
    """The bytes of an ordinary file of at most `limit` bytes. A FIFO, device, socket or
    folder is refused without waiting on it, and so is a larger file (UserError)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens without a writer
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a folder" if stat.S_ISDIR(st.st_mode) else
                    "a FIFO" if stat.S_ISFIFO(st.st_mode) else
                    "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else
                    "not a regular file")
            raise UserError(f"cannot read {what} {path}: it is {kind}; simcli reads only "
                            f"ordinary files")
        if st.st_size > limit:
            raise UserError(f"{what} {path} is {st.st_size:,} bytes; simcli reads at most "
                            f"{limit // 2**20} MiB")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:  # grew while being read
        raise UserError(f"{what} {path} is larger than {limit // 2**20} MiB; simcli reads at "
                        f"most that")
    return data
