"""Samsara's Game declaration: rule options, policies, the search, the kernel inputs
(step table, evaluation tables), the kernel driver and the statistics under the names the
report reads."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kernels.samsara import play as PL
from kernels.samsara import players as P
from kernels.samsara import rules as R
from kernels.samsara import stats as S
from kernels.samsara.play import Call
from kernels.stat_table import as_tuple, columns
from simcli.games.base import Content, CoreStats, Game, RuleOption, SearchSpec
from simcli.games.handle import fast_path
from simcli.games.samsara.content import Board, parse_board
from simcli.games.samsara.handle import (
    END_NAMES,
    SEARCH_MAX_ROLLOUT,
    SEARCH_TOP_K,
    SamsaraHandle,
)
from simcli.lazy import LazyModule, seat_codes

SP = LazyModule("kernels.samsara.search_play")

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
        "competition rules (extra turn for the second player when the start player reached "
        "the centre on its own turn, so both have had as many turns; marbles-on-side "
        "comparison, distance scoring, Moksha 4-4; a Moksha in the extra turn: see "
        "extra-turn-moksha). With --mirror the players change seats "
        "for the whole match, each keeping its own dice.",
    ),
    RuleOption(
        "extra-turn-moksha", ("draw", "start-player-wins"), "draw",
        "match=competition: a Moksha in the second player's extra turn ends the game in a "
        "draw with 4 points each, as the rulebook prints it ('regardless of the scoring "
        "track'; default), or leaves the start player, already at the centre, the winner by "
        "the distance (the extra turn failed; this project's earlier reading).",
    ),
    RuleOption(
        "re-entry", ("both-empty", "lowest-empty"), "both-empty",
        "Where a scored marble comes back on the far side, on the goal's shape: the first "
        "double field with both halves empty (default: the rulebook's 'first free double "
        "space') or the lowest lane cell 1-12 whose own hollow is empty (the sheet's "
        "earlier reading).",
    ),
    RuleOption(
        "opponent-goal", ("forbidden", "scores-for-owner", "allowed-scores-nothing"),
        "forbidden",
        "Whether a player may move a marble into the opponent's goal: forbidden (sheet "
        "default), allowed and scoring a goal for the goal's owner, or allowed and scoring "
        "nothing for anyone (the marble re-enters on the far side as after a goal).",
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

OPP_CODES = {"forbidden": R.OPP_FORBIDDEN, "scores-for-owner": R.OPP_SCORES_FOR_OWNER,
             "allowed-scores-nothing": R.OPP_SCORES_NOTHING}

SEARCH = SearchSpec(
    name="mcts", budget=1600, exploration=0.7, rollout="greedy", study_budget=400,
    help=f"Monte Carlo tree search (UCT, open loop: the dice of every simulation are drawn "
         f"afresh from the search's own stream) over the {SEARCH_TOP_K} best turns by "
         f"greedy's value at each decision: each simulation descends the tree by UCB1, "
         f"plays {SEARCH_MAX_ROLLOUT} more turns by the rollout policy and scores the "
         f"position by greedy's value through a logistic curve (a finished game: 1 a win, "
         f"0.5 a draw); plays the most visited turn.",
)

SINGLE_CODES = {"play-either": 0, "play-higher": 1, "moksha": 2}
POLICY_CODES = {"random": P.RANDOM, "greedy": P.GREEDY, "lookahead": P.LOOKAHEAD}


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

    @property
    def players(self) -> int:
        """Players of the run (always 2)."""
        return len(self.seats)


def lane_pips(k: int, arc: str) -> int:
    """Pips from the lane's start to cell k (1-24)."""
    return k if arc == "step" or k <= 12 else k + 1


def step_table(arc: str) -> np.ndarray:
    """step[c, d]: the 0-based cell d pips (1-12) beyond 0-based cell c, R.GOAL for an
    exact goal entry, -1 for an overshoot or a stop on the arc's own pip."""
    goal = 25 if arc == "step" else 26
    step = np.full((R.LANE, 13), -1, np.int64)
    for c in range(R.LANE):
        for d in range(1, 13):
            p = lane_pips(c + 1, arc) + d
            if p == goal:
                step[c, d] = R.GOAL
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

    V = np.zeros((2, R.N_HOLLOW), np.int64)
    for h in range(R.N_HOLLOW):
        lane, cell = divmod(h, R.LANE)
        other = (cell + 12) % R.LANE
        c = [0.0, 0.0]
        c[lane] = close(cell)
        c[1 - lane] = LANE_CHANGE_DISCOUNT * close(other)
        for p in range(2):
            V[p, h] = round(EVAL_SCALE * (c[p] - c[1 - p]))
    return V


class Samsara(Game):
    """Samsara (two lanes, neutral marbles, lane changes), 2 players."""

    name = "samsara"
    title = "Samsara"
    min_players = 2
    max_players = 2
    default_players = 2
    policies = POLICIES
    default_policy = "greedy"
    search = SEARCH
    rules = RULES
    default_n = 100_000
    chunk_size = 2_000
    kernel = PL.run
    stats = S.TABLE
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
    length_column = "game1_turns"  # a single game's length (game 1's in competition)
    # options a player can be denied (`simcli value`): turns entering its own goal, turns
    # entering the opponent's goal (under opponent-goal=scores-for-owner), turns that no
    # die sequence of the roll plays without a lane change (lane-change); the kernel's
    # forbid columns (rules.OPTIONS). None is a card: nothing to remove from the content.
    options = R.OPTIONS
    value_n = 25_000  # 7 runs (base, 3 options x 2 seats) of greedy play: ~35 s on 2 cores

    def load_content(self, path: Path) -> Content:
        """Read and validate a board file."""
        return parse_board(path)

    def prepare(
        self, content: Content, players: int, seats: tuple[str, ...], rules: dict[str, str]
    ) -> Prepared:
        """Kernel inputs: step table, rule flags, evaluation tables."""
        self.check_players(players)
        board: Board = content.data
        pi = np.zeros(R.N_PI, np.int64)
        pi[R.PI_OPP_GOAL] = OPP_CODES[rules["opponent-goal"]]
        pi[R.PI_REENTRY_BOTH] = int(rules["re-entry"] == "both-empty")
        pi[R.PI_WHOLE] = int(rules["same-marble"] == "whole-move")
        pi[R.PI_SINGLE] = SINGLE_CODES[rules["single-die"]]
        pi[R.PI_MATCH] = int(rules["match"] == "competition")
        pi[R.PI_WIN] = board.goals_to_win
        pi[R.PI_MOKSHA_POINTS] = board.moksha_points
        pi[R.PI_MAX_TURNS] = MAX_TURNS
        pi[R.PI_TOP_K] = TOP_K
        pi[R.PI_MARBLES] = board.marbles
        pi[R.PI_EXTRA_WIN] = int(rules["extra-turn-moksha"] == "start-player-wins")
        pe = np.zeros(P.N_PE, np.int64)
        pe[P.PE_GOAL] = round(GOAL_VALUE * EVAL_SCALE)
        pe[P.PE_WIN] = WIN_VALUE
        return Prepared(
            policies=seat_codes(POLICY_CODES, seats, SP),
            seats=seats,
            start_cells=np.array([c - 1 for c in board.start_cells], np.int64),
            step=step_table(rules["arc"]), pi=pi, V=marble_values(rules["arc"]), pe=pe,
        )

    def sizes(self, prep: Prepared) -> dict[str, int]:
        """Run-time sizes of the statistics table: histogram bins."""
        return dict(S.SIZES)

    def state(self, prep: Prepared, aggs: dict[str, np.ndarray], rotation: int = 0,
              log_capacity: int = 0) -> R.State:
        """A kernel state for playouts of this run adding to `aggs`: in rotation r player
        j (policy seats[j], its own dice and choices) sits at seat (j + r) % 2."""
        return R.new_state(prep.start_cells, prep.step, prep.pi, prep.V, prep.pe,
                           P.weights_of(prep.V, prep.pe,
                                        prep.pi[R.PI_OPP_GOAL] != R.OPP_SCORES_NOTHING),
                           prep.policies, rotation,
                           as_tuple(S.Aggregates, aggs), log_capacity)

    def run_chunk(
        self, prep: Prepared, seed: int, first: int, count: int, aggs: dict[str, np.ndarray],
        rows: np.ndarray | None, rotation: int = 0, forbid: np.ndarray | None = None,
    ) -> None:
        """Play a chunk of playouts into `aggs`: in rotation r player j (policy seats[j],
        its own dice and choices) sits at seat (j + r) % 2, for the whole match in
        competition; statistics and the `winner` column are by seat. forbid[s, o] (bool,
        (2, len(options))) denies seat s option o; None denies nothing."""
        out = rows if rows is not None else np.zeros((0, PL.N_ROW), np.int64)
        ban = PL.no_forbid()
        if forbid is not None:
            ban[:] = np.asarray(forbid, np.bool_)
        if any(self.policy_spec(s).is_search for s in prep.seats):
            self.run_search_chunk(prep, seed, first, count, aggs, out, rotation, ban)
            return
        fast_path(PL.run, Call.PLAY, self.state(prep, aggs, rotation), ban, seed, first, count,
                  out)

    def run_search_chunk(self, prep: Prepared, seed: int, first: int, count: int,
                         aggs: dict[str, np.ndarray], out: np.ndarray, rotation: int,
                         forbid: np.ndarray) -> int:
        """run_chunk when a seat searches (kernels/samsara/search_play.py); returns the
        moves simulated by the searches."""
        return self.play_searching(SP, prep, self.state(prep, aggs, rotation), forbid,
                                   SEARCH_TOP_K, S.TABLE, seed, first, count, out,
                                   SEARCH_MAX_ROLLOUT)

    def search_settings(self, prep: Prepared, st: R.State
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per seat of `st` (after rotation): the search's budget, exploration, rollout."""
        return self.search_arrays(prep.seats, st.lane, len(st.lane), POLICY_CODES, P.RANDOM)

    def handle(self, prep: Prepared, seed: int, playout: int, rotation: int = 0
               ) -> SamsaraHandle:
        """Playout `playout` of the run keyed by `seed`, step by step, at its first
        decision."""
        return SamsaraHandle(self, prep, seed, playout, rotation)

    def core_stats(self, aggs: dict[str, np.ndarray], players: int) -> CoreStats:
        """Seat wins (single games or matches), draws, completion, length in turns."""
        games = int(aggs["wins"].sum())
        if aggs["points"].sum():  # competition: margin of the match points
            d = aggs["diff"]
            mid = S.N_PTS - 1
            margin = np.zeros(S.N_PTS, np.int64)
            margin[1:] = d[mid + 1:] + d[:mid][::-1]
        else:  # single games: goals between the winner and the loser
            loser = aggs["loser"]
            win = int(np.nonzero(aggs["goals"].sum(axis=0))[0].max(initial=0))
            margin = np.zeros(S.N_GOALS, np.int64)
            for g in range(S.N_GOALS):
                if loser[g] and win >= g:
                    margin[win - g] += loser[g]
        wins = aggs["wins"]
        return CoreStats(
            games=games, seat_wins=wins[[S.Outcome.SEAT1, S.Outcome.SEAT2]].copy(),
            shared=int(wins[S.Outcome.DRAW]),
            completed=games - int(aggs["misc"][S.Misc.CAPPED]), length=aggs["length"].copy(),
            length_unit="turns", margin=margin,
        )

    def report(self, aggs: dict[str, np.ndarray], manifest: dict[str, Any], content: Content):
        """Tables, findings and chart data for a finished run."""
        from reports import samsara as samsara_report

        return samsara_report.summarize(named_stats(aggs, content.data, manifest), manifest)


def named_stats(aggs: dict[str, np.ndarray], board: Board, manifest: dict[str, Any]
                ) -> dict[str, Any]:
    """The statistics under the plain names the report reads (it knows nothing of
    kernels), taken from the table's columns."""
    table = {st.name: st for st in S.TABLE}
    wins = columns(table["wins"], aggs["wins"])
    starts = columns(table["starts"], aggs["starts"])
    ends = aggs["ends"]
    misc = columns(table["misc"], aggs["misc"])
    return {
        "match": manifest["rules"].get("match") == "competition",
        "playouts": int(aggs["wins"].sum()),
        "wins": np.stack([wins["seat1"], wins["seat2"]]),
        "draws": int(wins["draw"]),
        "start_wins": int(starts["start_player"]),
        "second_wins": int(starts["second_player"]),
        "game_draws": int(starts["draw"]),
        "game_wins": aggs["game_wins"],
        "ends": {END_NAMES[e]: int(ends[e]) for e in S.End},
        "moksha": int(ends[S.End.MOKSHA]),
        "capped": int(ends[S.End.CAPPED]),
        "games": int(misc["games"]),
        "turns": int(misc["turns"]),
        "single_die_turns": int(misc["single_die"]),
        "game_length": aggs["game_len"],
        "length": aggs["length"],
        "goals": aggs["goals"][:, : board.goals_to_win + 1],
        "goal_moves": aggs["goal_moves"],
        "loser_goals": aggs["loser"][: board.goals_to_win],
        "goals_to_win": board.goals_to_win,
        "points": aggs["points"],
        "point_diff": aggs["diff"],
        "mirror": bool(manifest.get("mirror")),
        # per-playout sums (yy, xx, xy) of the rates counted several times per playout
        "clusters": columns(table["clusters"], aggs["clusters"], axis=0),
    }

