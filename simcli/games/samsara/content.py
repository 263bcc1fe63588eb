"""Samsara's content: the board file's schema (msgspec structs), loading and checking it,
and the board numbers it sets."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import msgspec

from kernels.samsara import rules as R
from simcli.content import read_document
from simcli.games.base import Content, sha256


@dataclass(frozen=True)
class Board:
    """The board numbers the content file sets."""

    start_cells: tuple[int, ...]  # 1-based lane cells filled on both lanes
    goals_to_win: int
    moksha_points: int

    @property
    def marbles(self) -> int:
        """Marbles on the board."""
        return 2 * len(self.start_cells)


class BoardMeta(msgspec.Struct, forbid_unknown_fields=True):
    """[content]: what the file is."""

    game: str = "samsara"
    name: str | None = None
    version: int | str = "1"
    assumed: bool = True
    description: str = ""


class BoardTable(msgspec.Struct, forbid_unknown_fields=True):
    """[board]: the board (only the 24-double-field board is modelled) and the start."""

    double_fields: Annotated[int, msgspec.Meta(ge=24, le=24)]
    start_cells: Annotated[list[Annotated[int, msgspec.Meta(ge=1, le=12)]],
                           msgspec.Meta(min_length=1, max_length=R.MAX_MARBLES // 2)]


class ScoringTable(msgspec.Struct, forbid_unknown_fields=True):
    """[scoring]: the scoring track's length and the Moksha points of a match."""

    goals_to_win: Annotated[int, msgspec.Meta(ge=1, le=7)]
    moksha_points: Annotated[int, msgspec.Meta(ge=0, le=24)]


class BoardFile(msgspec.Struct, forbid_unknown_fields=True):
    """A Samsara content file: unknown tables and keys are refused."""

    board: BoardTable
    scoring: ScoringTable
    content: BoardMeta = msgspec.field(default_factory=BoardMeta)


def parse_board(path: Path) -> Content:
    """Load and validate a Samsara board TOML file (schema BoardFile; every error one line
    naming the file, the line and the field)."""
    doc = read_document(path)
    f = doc.convert(BoardFile)
    if f.content.game != "samsara":
        raise doc.error(("content", "game"), f"content is for '{f.content.game}', not samsara")
    cells = f.board.start_cells
    if len(set(cells)) != len(cells):
        raise doc.error(("board", "start_cells"), f"names a cell twice: {cells!r}")
    data = Board(start_cells=tuple(sorted(cells)), goals_to_win=f.scoring.goals_to_win,
                 moksha_points=f.scoring.moksha_points)
    return Content(
        name=f.content.name or path.stem, version=str(f.content.version), path=path,
        sha256=sha256(doc.raw), assumed=f.content.assumed,
        description=f.content.description, data=data,
    )

