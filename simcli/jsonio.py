"""Strict JSON for everything simcli prints or writes: a value that is undefined (NaN, an
infinity) becomes null, numpy numbers become plain numbers, so jq, JavaScript and Go read
every file and every --json output."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np


def plain(obj: Any) -> Any:
    """`obj` with NaN and infinities as None, numpy values as Python values, paths as
    strings, recursively through dicts, lists and tuples."""
    if isinstance(obj, float | np.floating):
        x = float(obj)
        return x if math.isfinite(x) else None
    if isinstance(obj, bool | np.bool_):
        return bool(obj)
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return plain(obj.tolist())
    if obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, Path):
        return str(obj)
    return str(obj)


def strict_json(obj: Any, indent: int | None = None) -> str:
    """`obj` as strict JSON text (never NaN or Infinity)."""
    return json.dumps(plain(obj), indent=indent, allow_nan=False)
