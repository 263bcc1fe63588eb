"""`simcli replay`: one simulated game as a readable log, exactly as `simcli run` played it.

The replayed game is playout I of the run keyed by the seed: the same setup, the same
players and the same rules calls as the fast path, driven one step at a time through the
game's handle. `--find` plays playouts in the fast path until one matches a condition on
its --save-games row, then replays that one.
"""

from __future__ import annotations

import json
import operator
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcli import engine
from simcli.errors import UserError
from simcli.games.base import Game
from simcli.run import RunConfig

OPS = {"=": operator.eq, "==": operator.eq, "!=": operator.ne, ">=": operator.ge,
       "<=": operator.le, ">": operator.gt, "<": operator.lt}
COND = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(==|!=|>=|<=|=|>|<)\s*(-?\d+)\s*$")
FIND_CHUNK = 2_000


@dataclass(frozen=True)
class Condition:
    """One `column OP value` test on a playout's row (winner counted from seat 1)."""

    column: str
    op: str
    value: int

    def holds(self, row: dict[str, int]) -> bool:
        """Whether the row meets the condition."""
        return OPS[self.op](row[self.column], self.value)


def row_columns(game: Game) -> list[str]:
    """The names --find accepts: the game's row columns and `length`."""
    names = list(game.row_columns)
    if game.length_column and "length" not in names:
        names.append("length")
    return names


def parse_find(game: Game, text: str) -> list[Condition]:
    """Conditions from 'winner=4', 'length>40' or several joined by commas."""
    known = row_columns(game)
    conds = []
    for part in text.split(","):
        m = COND.match(part)
        if not m:
            what = f"'{part.strip()}'" if part.strip() else f"'{text}' has an empty condition:"
            raise UserError(f"--find {what} must look like COLUMN=VALUE, COLUMN>VALUE ... "
                            f"joined by commas (columns: {', '.join(known)})")
        col, op, value = m.group(1), m.group(2), int(m.group(3))
        if col not in known:
            raise UserError(f"--find: {game.name} has no column '{col}'; columns: "
                            f"{', '.join(known)}")
        conds.append(Condition(col, op, value))
    return conds


def user_row(game: Game, raw: np.ndarray) -> dict[str, int]:
    """A --save-games row as --find and the replay result show it: `winner` counted from
    seat 1 (0 when nobody won outright) and `length` added."""
    row = {c: int(v) for c, v in zip(game.row_columns, raw, strict=True)}
    if "winner" in row:
        row["winner"] = row["winner"] + 1 if row["winner"] >= 0 else 0
    if game.length_column:
        row.setdefault("length", row[game.length_column])
    return row


def find_playout(game: Game, prep: Any, cfg: RunConfig, conds: list[Condition],
                 limit: int) -> tuple[int, dict[str, int]]:
    """The first playout (from 0) whose row meets every condition, among `limit`."""
    first = 0
    while first < limit:
        count = min(FIND_CHUNK, limit - first)
        rows = np.zeros((count, len(game.row_columns)), np.int64)
        engine.stoppable(game.run_chunk, prep, cfg.seed, first, count,
                         game.new_aggregates(prep), rows)
        for i in range(count):
            row = user_row(game, rows[i])
            if all(c.holds(row) for c in conds):
                return first + i, row
        first += count
    raise UserError(f"no playout among the first {limit:,} of seed {cfg.seed} meets "
                    f"--find; try another seed or a larger --search")


def replay(game: Game, cfg: RunConfig, playout: int, find: str | None = None,
           search: int = 100_000, options: bool = False,
           seen_by: int | None = None) -> dict[str, Any]:
    """Replay one playout: its setup, events and result, plus the fast path's row; with
    `options`, every decision's legal actions in words; with `seen_by` (a seat from 1),
    that seat's observation at each of its decisions."""
    content = game.load_content(game.content_path(cfg.content))
    prep = game.prepare(content, cfg.players, cfg.seats, cfg.rules)
    conds = parse_find(game, find) if find else None
    for c in conds or ():
        if c.column == "winner" and not any(c.holds({"winner": w})
                                            for w in range(cfg.players + 1)):
            raise UserError(f"--find winner{c.op}{c.value} can never hold with "
                            f"{cfg.players} players (winner is a seat 1 .. {cfg.players}, "
                            f"or 0 when nobody won outright)")
    if find and search <= 0:
        raise UserError(f"--search must be positive, not {search}")
    if playout < 0:
        raise UserError(f"--playout must be 0 or more, not {playout}")
    if seen_by is not None and not 1 <= seen_by <= cfg.players:
        raise UserError(f"--seen-by must be a seat from 1 to {cfg.players}, not {seen_by}")
    rows = np.zeros((1, len(game.row_columns)), np.int64)
    # the first call compiles or loads the kernels
    if conds is not None:
        playout, _ = find_playout(game, prep, cfg, conds, search)
    engine.stoppable(game.run_chunk, prep, cfg.seed, playout, 1, game.new_aggregates(prep),
                     rows)
    fast = user_row(game, rows[0])
    h = engine.stoppable(game.handle, prep, cfg.seed, playout)
    h.record_options = options
    h.seen_by = None if seen_by is None else seen_by - 1
    engine.stoppable(h.play_out)
    replayed = {**h.row()}
    if "winner" in replayed:
        replayed["winner"] = replayed["winner"] + 1 if replayed["winner"] >= 0 else 0
    if game.length_column:
        replayed.setdefault("length", replayed[game.length_column])
    if replayed != fast:  # the identity the whole design rests on
        raise RuntimeError(f"replay of playout {playout} disagrees with the fast path: "
                           f"{replayed} vs {fast}")
    return {
        "game": game.name, "title": game.title, "seed": cfg.seed, "playout": playout,
        "players": cfg.players, "seats": list(cfg.seats), "rules": cfg.rules,
        "content": content.name, "options": options, "seen_by": seen_by,
        "events": [e.as_dict() for e in h.log()],
        "result": {**h.outcome(), "row": fast},
    }


def render(doc: dict[str, Any]) -> str:
    """The replay as text: one line per event, grouped by turn, then the result."""
    lines = [f"{doc['title']}: playout {doc['playout']} of seed {doc['seed']}, "
             f"{doc['players']} players ({', '.join(doc['seats'])}), content "
             f"{doc['content']}, rules "
             + ", ".join(f"{k}={v}" for k, v in doc["rules"].items())]
    if doc.get("options"):
        lines.append("(each decision lists every legal action under it)")
    if doc.get("seen_by"):
        lines.append(f"(each decision of seat {doc['seen_by']} shows what that seat saw)")
    turn = None
    for e in doc["events"]:
        if e["turn"] != turn:
            turn = e["turn"]
            lines.append(f"-- turn {turn}")
        who = f"seat {e['player']}" if e["player"] is not None else "table"
        lines.append(f"  {who:<7} {e['kind']:<12} {e['detail']}")
        if "seen" in e:
            lines.append(f"{'':<22}seen by seat {e['player']}: "
                         + json.dumps(e["seen"], default=str, separators=(", ", ": ")))
        for o in e.get("options", ()):
            lines.append(f"{'':<22}- {o}")
    res = doc["result"]
    lines.append("-- result")
    for k, v in res.items():
        if k != "row":
            lines.append(f"  {k}: {v}")
    return "\n".join(lines)
