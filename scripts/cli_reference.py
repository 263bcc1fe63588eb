"""Write docs/reference/commands.md: every command's --help, generated from the Typer app so
that the reference cannot drift from the tool (tests/test_docs.py fails when the committed
page differs from what this script writes).

    python scripts/cli_reference.py            # rewrite the page
    python scripts/cli_reference.py --check    # exit 1 when the page is stale
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
import typer

from simcli.cli import app

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "commands.md"
WIDTH = 100


def help_of(command: click.Command, name: str, parent: click.Context | None) -> str:
    """A command's --help text at a fixed width."""
    ctx = click.Context(command, info_name=name, parent=parent, terminal_width=WIDTH,
                        max_content_width=WIDTH)
    return command.get_help(ctx)


def page() -> str:
    """The command reference page, in Markdown."""
    root = typer.main.get_command(app)
    top = click.Context(root, info_name="simcli", terminal_width=WIDTH,
                        max_content_width=WIDTH)
    lines = ["# Command reference", "",
             "Every command's `--help`, generated from the tool itself by "
             "`scripts/cli_reference.py` (a test fails when this page is stale).", "",
             "## simcli", "", "```", root.get_help(top).rstrip(), "```", ""]
    for name in sorted(root.list_commands(top)):
        cmd = root.get_command(top, name)
        lines += [f"## simcli {name}", "", "```", help_of(cmd, name, top).rstrip(), "```", ""]
    return "\n".join(lines)


def main() -> int:
    text = page()
    if "--check" in sys.argv[1:]:
        stale = not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != text
        if stale:
            print(f"{PAGE} is stale: run python scripts/cli_reference.py", file=sys.stderr)
        return int(stale)
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
