"""Text from files and the command line made safe to print and to write: content and spec
files may hold no control characters (a terminal escape could clear or retitle a terminal)
and no text longer than MAX_TEXT; text printed from elsewhere (a run folder, an argument) is
made inert first."""

from __future__ import annotations

import re
from typing import Any

from simcli.errors import UserError

MAX_TEXT = 2_000  # characters in one string of a content or spec file (shipped: at most 120)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # all but tab and newline


def check_strings(data: Any, where: str, path: str = "") -> None:
    """UserError naming the first key or value of parsed TOML `data` that holds a control
    character or is longer than MAX_TEXT."""
    if isinstance(data, str):
        m = CONTROL.search(data)
        if m:
            raise UserError(f"{where}: {path or 'a value'} holds the control character "
                            f"U+{ord(m.group()):04X}; text may hold none")
        if len(data) > MAX_TEXT:
            raise UserError(f"{where}: {path or 'a value'} is {len(data):,} characters long; "
                            f"at most {MAX_TEXT:,}")
    elif isinstance(data, dict):
        for k, v in data.items():
            here = f"{path}.{k}" if path else str(k)
            check_strings(k, where, f"the key {inert(here)[:60]!r}")
            check_strings(v, where, inert(here)[:60])
    elif isinstance(data, list):
        for i, v in enumerate(data):
            check_strings(v, where, f"{path}[{i}]")


def inert(text: object) -> str:
    """`text` with every control character (terminal escapes included) shown as U+FFFD."""
    return CONTROL.sub("\ufffd", str(text))
