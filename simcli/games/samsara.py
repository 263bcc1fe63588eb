"""Samsara: board content, rule options, policies and the kernel driver."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kernels import samsara as K
from simcli.errors import UserError
from simcli.games.base import (
    Content,
    CoreStats,
    Game,
    RuleOption,
    at_line,
    read_toml,
    sha256,
)

MAX_TURNS = 2000  # safety cap per game (counted; no game has reached it in our runs)
TOP_K = 8  # lookahead: best turns by greedy value that it examines in depth
EVAL_SCALE = 10_000  # evaluation units per marble-value unit (integers: exact ties)
GOAL_VALUE = 2.0  # a goal, in marble-value units
WIN_VALUE = 10**9
LANE_CHANGE_DISCOUNT = 0.5  # a marble on the other lane counts half, through its partner
PROGRESS_WEIGHT = 0.5

POLICIES = {
    "random": (
        "Uniform over the distinct legal turns: every position a legal play of both dice (or "
        "of the one playable die) can leave is equally likely, however many orders or marbles "
        "reach it (drawn by rejection from the die sequences, each kept with probability one "
        "over the number of sequences that leave its position)."
    ),
    "greedy": (
        "Plays the turn whose resulting position it values most (ties drawn at random): a "
        "scoring marble at the centre wins outright; each goal is worth "
        f"{GOAL_VALUE:g} marbles; each marble counts for its closeness to its own goal "
        "(the chance that one roll enters it exactly, plus half its progress along the "
        "lane) minus its closeness to the opponent's goal. A marble on the other lane "
        f"counts both ways through its double field's other hollow, at {LANE_CHANGE_DISCOUNT:g}"
        " weight (a lane change it or the opponent may make)."
    ),
    "lookahead": (
        f"Takes the {TOP_K} best turns by the greedy value and, for each, averages the greedy "
        "value after the opponent's greedy reply to each of its 21 possible rolls (weighted "
        "1/36 for doubles, 2/36 otherwise; Moksha counts as an even position); plays the "
        "best, and takes an outright win at once."
    ),
}

RULES = (
    RuleOption(
        "match", ("single", "competition"), "single",
        "single: one game, seat 1 starts; competition: a playout is a two-game match with the "
        "start player alternating (seat 1 starts game 1, seat 2 game 2), scored by the "
        "competition rules (extra turn for the second player, marbles-on-side comparison, "
        "distance scoring, Moksha 4-4). With --mirror the players change seats for the whole "
        "match, each keeping its own dice.",
    ),
    RuleOption(
        "re-entry", ("lowest-empty", "both-empty"), "lowest-empty",
        "Where a scored marble comes back on the far side, on the goal's shape: the lowest "
        "lane cell 1-12 whose hollow is empty (sheet default) or the first double field with "
        "both halves empty.",
    ),
    RuleOption(
        "opponent-goal", ("forbidden", "scores-for-owner"), "forbidden",
        "Whether a player may move a marble into the opponent's goal: forbidden (sheet "
        "default) or allowed, scoring a goal for the goal's owner.",
    ),
    RuleOption(
        "arc", ("step", "extra-step"), "step",
        "The arc from the far side to your own side: one ordinary step, cell 12 to 13, so a "
        "marble on cell k needs exactly 25-k pips (sheet default); or the connecting line is "
        "a pip of its own where no marble can stop (26-k pips from cells 1-12).",
    ),
    RuleOption(
        "same-marble", ("each-die", "whole-move"), "each-die",
        "A marble moved by both dice: each die is a move of its own, with the lane-change "
        "checks at each landing (sheet default); or the two dice are one move of their sum, "
        "checked only where it starts and ends.",
    ),
    RuleOption(
        "single-die", ("play-either", "play-higher", "moksha"), "play-either",
        "A roll no order can play in full: play one die, either one the player can (sheet "
        "default; the sheet is silent on which when both could be played alone), the higher "
        "one when it can be played (as backgammon), or Moksha at once.",
    ),
)

SINGLE_CODES = {"play-either": 0, "play-higher": 1, "moksha": 2}
POLICY_CODES = {"random": K.RANDOM, "greedy": K.GREEDY, "lookahead": K.LOOKAHEAD}
END_NAMES = ("centre reached", "start player first, extra turn fails",
             "both at the centre: sides compared", "Moksha", "safety cap")


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


@dataclass(frozen=True)
class Prepared:
    """Kernel inputs for one run."""

    policies: np.ndarray
    seats: tuple[str, ...]
    start_cells: np.ndarray
    step: np.ndarray
    pi: np.ndarray
    V: np.ndarray
    pe: np.ndarray


def _line_of(text: str, needle: str) -> int | None:
    for i, line in enumerate(text.splitlines(), start=1):
        if line.split("#")[0].strip().startswith(needle):
            return i
    return None


def _where(path: Path, text: str, key: str) -> str:
    line = _line_of(text, f"{key} =") or _line_of(text, f"{key}=")
    return at_line(path, line)


def _int_field(path: Path, text: str, table: dict, section: str, key: str, lo: int,
               hi: int) -> int:
    value = table.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise UserError(f"{_where(path, text, key)}: field '{section}.{key}' must be an "
                        f"integer {lo}-{hi}, got {value!r}")
    return value


def parse_board(path: Path) -> Content:
    """Load and validate a Samsara board TOML file."""
    doc, raw = read_toml(path)
    text = raw.decode("utf-8")
    meta = doc.get("content", {})
    if not isinstance(meta, dict):
        raise UserError(f"{path}: [content] must be a table")
    game = meta.get("game", "samsara")
    if game != "samsara":
        raise UserError(f"{_where(path, text, 'game')}: content is for '{game}', not samsara")
    for section in ("board", "scoring"):
        if not isinstance(doc.get(section), dict):
            raise UserError(f"{path}: needs a [{section}] table")
    board, scoring = doc["board"], doc["scoring"]
    for section, table, known in (("board", board, {"double_fields", "start_cells"}),
                                  ("scoring", scoring, {"goals_to_win", "moksha_points"})):
        unknown = sorted(set(table) - known)
        if unknown:
            raise UserError(f"{_where(path, text, unknown[0])}: unknown field "
                            f"'{section}.{unknown[0]}'")
    _int_field(path, text, board, "board", "double_fields", 24, 24)
    cells = board.get("start_cells")
    where = _where(path, text, "start_cells")
    if (not isinstance(cells, list) or not cells or len(cells) > K.MAX_MARBLES // 2
            or not all(isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= 12
                       for c in cells)):
        raise UserError(f"{where}: field 'board.start_cells' must be a list of 1-"
                        f"{K.MAX_MARBLES // 2} lane cells 1-12 (the far side), got {cells!r}")
    if len(set(cells)) != len(cells):
        raise UserError(f"{where}: field 'board.start_cells' names a cell twice: {cells!r}")
    win = _int_field(path, text, scoring, "scoring", "goals_to_win", 1, 7)
    moksha = _int_field(path, text, scoring, "scoring", "moksha_points", 0, 24)
    data = Board(start_cells=tuple(sorted(cells)), goals_to_win=win, moksha_points=moksha)
    return Content(
        name=str(meta.get("name", path.stem)), version=str(meta.get("version", "1")),
        path=path, sha256=sha256(raw), assumed=bool(meta.get("assumed", True)),
        description=str(meta.get("description", "")), data=data,
    )


def lane_pips(k: int, arc: str) -> int:
    """Pips from the lane's start to cell k (1-24)."""
    return k if arc == "step" or k <= 12 else k + 1


def step_table(arc: str) -> np.ndarray:
    """step[c, d]: the 0-based cell d pips (1-12) beyond 0-based cell c, K.GOAL for an
    exact goal entry, -1 for an overshoot or a stop on the arc's own pip."""
    goal = 25 if arc == "step" else 26
    step = np.full((K.LANE, 13), -1, np.int64)
    for c in range(K.LANE):
        for d in range(1, 13):
            p = lane_pips(c + 1, arc) + d
            if p == goal:
                step[c, d] = K.GOAL
            elif p < goal:
                if arc == "step" or p <= 12:
                    step[c, d] = p - 1
                elif p > 13:
                    step[c, d] = p - 2
    return step


def entry_chances() -> np.ndarray:
    """hit[d]: chance that one roll of two dice can enter a goal d pips away exactly (one
    die showing d, or the two summing to d)."""
    hit = np.zeros(40)
    for a in range(1, 7):
        for b in range(1, 7):
            for d in {a, b, a + b}:
                hit[d] += 1 / 36
    return hit


def marble_values(arc: str) -> np.ndarray:
    """V[player, hollow] (int64): what a marble on the hollow is worth to the player."""
    goal = 25 if arc == "step" else 26
    hit = entry_chances()

    def close(cell: int) -> float:  # 0-based cell of the player's own lane
        d = goal - lane_pips(cell + 1, arc)
        return hit[d] + PROGRESS_WEIGHT * max(0, 25 - d) / 24

    V = np.zeros((2, K.N_HOLLOW), np.int64)
    for h in range(K.N_HOLLOW):
        lane, cell = divmod(h, K.LANE)
        other = (cell + 12) % K.LANE
        c = [0.0, 0.0]
        c[lane] = close(cell)
        c[1 - lane] = LANE_CHANGE_DISCOUNT * close(other)
        for p in range(2):
            V[p, h] = round(EVAL_SCALE * (c[p] - c[1 - p]))
    return V


def key_of(hollows, goals=(0, 0)) -> int:
    """Kernel key of a position: hollows as (lane, cell 1-24), goals per seat."""
    key = 0
    for lane, cell in hollows:
        key |= 1 << (lane * K.LANE + cell - 1)
    return key | (goals[0] << K.GOAL_SHIFT) | (goals[1] << (K.GOAL_SHIFT + 3))


def hollows_of(key: int) -> tuple[frozenset, tuple[int, int]]:
    """Position of a kernel key: (frozenset of (lane, cell 1-24), goals per seat)."""
    h = frozenset((b // K.LANE, b % K.LANE + 1) for b in range(K.N_HOLLOW) if key >> b & 1)
    return h, ((key >> K.GOAL_SHIFT) & 7, (key >> (K.GOAL_SHIFT + 3)) & 7)


class Samsara(Game):
    """Samsara (two lanes, neutral marbles, lane changes), 2 players."""

    name = "samsara"
    title = "Samsara"
    min_players = 2
    max_players = 2
    default_players = 2
    policies = POLICIES
    default_policy = "greedy"
    rules = RULES
    default_n = 100_000
    chunk_size = 2_000
    kernel = K.play_chunk
    # Each player rolls its own dice from its own stream, so --mirror (and `simcli skill`)
    # replays a seed with the players in the other seats and the same luck per player.
    supports_mirror = True
    # winner: the playout's winning seat (the game's, or the match's in competition; -1 a
    # draw); game2_* and points_* are -1 in single games.
    row_columns = (
        "winner",
        "game1_winner", "game1_turns", "game1_goals_0", "game1_goals_1", "game1_end",
        "game2_winner", "game2_turns", "game2_goals_0", "game2_goals_1", "game2_end",
        "points_0", "points_1",
    )

    def load_content(self, path: Path) -> Content:
        """Read and validate a board file."""
        return parse_board(path)

    def prepare(
        self, content: Content, players: int, seats: tuple[str, ...], rules: dict[str, str]
    ) -> Prepared:
        """Kernel inputs: step table, rule flags, evaluation tables."""
        self.check_players(players)
        board: Board = content.data
        pi = np.zeros(K.N_PI, np.int64)
        pi[K.PI_OPP_GOAL] = int(rules["opponent-goal"] == "scores-for-owner")
        pi[K.PI_REENTRY_BOTH] = int(rules["re-entry"] == "both-empty")
        pi[K.PI_WHOLE] = int(rules["same-marble"] == "whole-move")
        pi[K.PI_SINGLE] = SINGLE_CODES[rules["single-die"]]
        pi[K.PI_MATCH] = int(rules["match"] == "competition")
        pi[K.PI_WIN] = board.goals_to_win
        pi[K.PI_MOKSHA_POINTS] = board.moksha_points
        pi[K.PI_MAX_TURNS] = MAX_TURNS
        pi[K.PI_TOP_K] = TOP_K
        pi[K.PI_MARBLES] = board.marbles
        pe = np.zeros(K.N_PE, np.int64)
        pe[K.PE_GOAL] = round(GOAL_VALUE * EVAL_SCALE)
        pe[K.PE_WIN] = WIN_VALUE
        return Prepared(
            policies=np.array([POLICY_CODES[s] for s in seats], np.int64), seats=seats,
            start_cells=np.array([c - 1 for c in board.start_cells], np.int64),
            step=step_table(rules["arc"]), pi=pi, V=marble_values(rules["arc"]), pe=pe,
        )

    def new_aggregates(self, prep: Prepared) -> dict[str, np.ndarray]:
        """Zeroed statistics in the kernel's layout."""
        z = np.zeros
        return {
            "wins": z(3, np.int64), "starts": z(3, np.int64), "game_wins": z((2, 3), np.int64),
            "ends": z(K.N_END, np.int64), "game_len": z(K.N_LEN, np.int64),
            "length": z(K.N_LEN, np.int64), "goals": z((2, 8), np.int64),
            "goal_moves": z((2, 2), np.int64), "loser": z(8, np.int64),
            "points": z((2, K.N_PTS), np.int64), "diff": z(2 * K.N_PTS - 1, np.int64),
            "misc": z(K.N_MISC, np.int64),
        }

    def run_chunk(
        self, prep: Prepared, seed: int, first: int, count: int, aggs: dict[str, np.ndarray],
        rows: np.ndarray | None, rotation: int = 0,
    ) -> None:
        """Play a chunk of playouts into `aggs`: in rotation r player j (policy seats[j],
        its own dice and choices) sits at seat (j + r) % 2, for the whole match in
        competition; statistics and the `winner` column are by seat."""
        out = rows if rows is not None else np.zeros((0, K.N_ROW), np.int64)
        K.play_chunk(
            np.uint64(seed), first, count, prep.policies, prep.start_cells, prep.step,
            prep.pi, prep.V, prep.pe, aggs["wins"], aggs["starts"], aggs["game_wins"],
            aggs["ends"], aggs["game_len"], aggs["length"], aggs["goals"],
            aggs["goal_moves"], aggs["loser"], aggs["points"], aggs["diff"], aggs["misc"],
            out, rotation,
        )

    def core_stats(self, aggs: dict[str, np.ndarray], players: int) -> CoreStats:
        """Seat wins (single games or matches), draws, completion, length in turns."""
        games = int(aggs["wins"].sum())
        if aggs["points"].sum():  # competition: margin of the match points
            d = aggs["diff"]
            mid = K.N_PTS - 1
            margin = np.zeros(K.N_PTS, np.int64)
            margin[1:] = d[mid + 1:] + d[:mid][::-1]
        else:  # single games: goals between the winner and the loser
            loser = aggs["loser"]
            win = int(np.nonzero(aggs["goals"].sum(axis=0))[0].max(initial=0))
            margin = np.zeros(8, np.int64)
            for g in range(8):
                if loser[g] and win >= g:
                    margin[win - g] += loser[g]
        return CoreStats(
            games=games, seat_wins=aggs["wins"][:2].copy(), shared=int(aggs["wins"][2]),
            completed=games - int(aggs["misc"][K.M_CAPPED]), length=aggs["length"].copy(),
            length_unit="turns", margin=margin,
        )

    def report(self, aggs: dict[str, np.ndarray], manifest: dict[str, Any], content: Content):
        """Tables, findings and chart data for a finished run."""
        from reports import samsara as R

        return R.summarize(named_stats(aggs, content.data, manifest), manifest)


def named_stats(aggs: dict[str, np.ndarray], board: Board, manifest: dict[str, Any]
                ) -> dict[str, Any]:
    """The kernel's arrays under plain names, for reports (which know nothing of kernels)."""
    misc = aggs["misc"]
    match = manifest["rules"].get("match") == "competition"
    return {
        "match": match,
        "playouts": int(aggs["wins"].sum()),
        "wins": aggs["wins"][:2].copy(),
        "draws": int(aggs["wins"][2]),
        "start_wins": int(aggs["starts"][0]),
        "second_wins": int(aggs["starts"][1]),
        "game_draws": int(aggs["starts"][2]),
        "game_wins": aggs["game_wins"],
        "ends": {name: int(v) for name, v in zip(END_NAMES, aggs["ends"], strict=True)},
        "moksha": int(aggs["ends"][K.E_MOKSHA]),
        "capped": int(aggs["ends"][K.E_CAPPED]),
        "games": int(misc[K.M_GAMES]),
        "turns": int(misc[K.M_TURNS]),
        "single_die_turns": int(misc[K.M_SINGLE_DIE]),
        "game_length": aggs["game_len"],
        "length": aggs["length"],
        "goals": aggs["goals"][:, : board.goals_to_win + 1],
        "goal_moves": aggs["goal_moves"],
        "loser_goals": aggs["loser"][: board.goals_to_win],
        "goals_to_win": board.goals_to_win,
        "points": aggs["points"],
        "point_diff": aggs["diff"],
        "mirror": bool(manifest.get("mirror")),
    }
