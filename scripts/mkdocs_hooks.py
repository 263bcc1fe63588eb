"""MkDocs hook: write docs/reference/commands.md from the CLI before every build, so the
published command reference is the tool's own --help (scripts/cli_reference.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def on_pre_build(config, **_kwargs) -> None:
    """Regenerate the command reference page."""
    path = Path(__file__).with_name("cli_reference.py")
    spec = importlib.util.spec_from_file_location("cli_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.PAGE.write_text(module.page(), encoding="utf-8")
