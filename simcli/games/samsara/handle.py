"""Samsara's step-by-step handle (`simcli replay samsara`): the search's per-decision
settings, position keys, the game log in words (the game ends' names too) and the Python
handle driving one playout through the kernels."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from kernels.samsara import play as PL
from kernels.samsara import rules as R
from kernels.samsara import stats as S
from kernels.samsara.play import Call
from kernels.stat_table import zeros
from simcli.games.handle import GameHandle, kernel_calls
from simcli.lazy import LazyModule

if TYPE_CHECKING:
    from simcli.games.samsara.game import Prepared, Samsara

H = LazyModule("kernels.samsara.search_hooks")
SP = LazyModule("kernels.samsara.search_play")

SEARCH_TOP_K = 8  # mcts: turns considered per decision, the best by greedy's valuation
SEARCH_MAX_ROLLOUT = 4  # mcts: rollout turns, then greedy's valuation (0: to the end)

END_NAMES = {S.End.DIRECT: "centre reached",
             S.End.EXTRA_FAIL: "start player first, extra turn fails",
             S.End.BOTH: "both at the centre: sides compared", S.End.MOKSHA: "Moksha",
             S.End.CAPPED: "safety cap"}


def key_of(hollows: Iterable[tuple[int, int]], goals: tuple[int, int] = (0, 0)) -> int:
    """Kernel key of a position: hollows as (lane, cell 1-24), goals per seat."""
    key = 0
    for lane, cell in hollows:
        key |= 1 << (lane * R.LANE + cell - 1)
    return key | (goals[0] << R.GOAL_SHIFT) | (goals[1] << (R.GOAL_SHIFT + 3))


def hollows_of(key: int) -> tuple[frozenset, tuple[int, int]]:
    """Position of a kernel key: (frozenset of (lane, cell 1-24), goals per seat)."""
    h = frozenset((b // R.LANE, b % R.LANE + 1) for b in range(R.N_HOLLOW) if key >> b & 1)
    return h, ((key >> R.GOAL_SHIFT) & 7, (key >> (R.GOAL_SHIFT + 3)) & 7)


LANE_NAMES = ("round", "square")


def hollow_name(h: int) -> str:
    """A hollow as the sheet names it: 'round 7', 'square 24'."""
    return f"{LANE_NAMES[h // R.LANE]} {h % R.LANE + 1}"


def seat_name(seat: int) -> str:
    """'seat 1 (round)' or 'seat 2 (square)'."""
    return f"seat {seat + 1} ({LANE_NAMES[seat]})"


def position_words(key: int) -> str:
    """A position in words: the occupied cells of each lane and the goals of each seat."""
    hollows, goals = hollows_of(key)
    lanes = []
    for lane in (0, 1):
        cells = sorted(c for la, c in hollows if la == lane)
        lanes.append(f"{LANE_NAMES[lane]} {' '.join(map(str, cells)) or '-'}")
    return f"{'; '.join(lanes)}; goals {goals[0]}-{goals[1]}"


class SamsaraHandle(GameHandle):
    """One Samsara playout driven step by step through the kernels (rules.setup, apply,
    players.choose), with its game log in words."""

    max_actions = R.MAX_SEQ
    calls = Call

    def __init__(self, game: Samsara, prep: Prepared, seed: int, playout: int,
                 rotation: int = 0, log_capacity: int = 20_000) -> None:
        self.game = game
        self.prep = prep
        self.aggs = zeros(S.TABLE, game.sizes(prep))  # scratch statistics of this playout
        self.st = game.state(prep, self.aggs, rotation, log_capacity)
        self.log_buf = self.st.log
        self.log_n = self.st.log_n
        self.forbid = PL.no_forbid()  # forbid[seat, option]: see forbid_option
        self.seed = np.uint64(seed)
        self.playout = np.int64(playout)
        self.search = game.search_settings(prep, self.st)
        self.ws = (SP.new_workspace(self.st, self.forbid, int(self.search[0].max()),
                                    SEARCH_TOP_K, S.TABLE, game.sizes(prep))
                   if self.search[0].max() > 0 else None)
        self.k = kernel_calls(PL.run, SP, self.ws, self.search, self.forbid, seed,
                              SEARCH_MAX_ROLLOUT, out_size=max(PL.N_ROW, R.N_OBS))
        self._k(Call.SETUP, self.playout)

    # --- hooks ---
    def _choose(self) -> int:
        seat = int(self.st.player[0])
        if self.ws is not None and seat >= 0 and self.search[0][seat] > 0:
            return self.k.decide(self.st, self.playout, self.decisions)
        return self._k(Call.CHOOSE)

    def is_over(self) -> bool:
        """Whether the playout (a game, or both games of a match) is over."""
        return bool(self._k(Call.IS_OVER))

    def turn(self) -> int:
        """The turn in progress, counted over the playout from 1."""
        ply = int(self.st.ply[0])
        return ply if self.is_over() else ply + 1

    def row(self) -> dict[str, int]:
        """The finished playout's --save-games row, by column name."""
        self._k(Call.ROW)
        row = self.k.out[:PL.N_ROW]
        return {c: int(v) for c, v in zip(self.game.row_columns, row, strict=True)}

    def outcome(self) -> dict[str, Any]:
        """Winners (seats from 1), length in turns, each game's end, and match points."""
        st = self.st
        self._k(Call.OUTCOME)
        win = self.k.fout[:2]
        games = []
        for g in range(2):
            end = int(st.game_end[g])
            if end < 0:
                continue
            w = int(st.game_winner[g])
            _h, goals = hollows_of(int(st.game_key[g]))
            games.append({"game": g + 1, "end": END_NAMES[S.End(end)],
                          "winner": w + 1 if w >= 0 else None,
                          "turns": int(st.game_turns[g]), "goals": list(goals)})
        out: dict[str, Any] = {"winners": [s + 1 for s in range(2) if win[s]],
                               "length": int(st.ply[0]), "games": games}
        if st.pi[R.PI_MATCH]:
            out["points"] = [int(p) for p in st.points]
        return out

    def observation(self, player: int) -> dict[str, Any]:
        """What seat `player` sees: everything but future dice (perfect information)."""
        self._k(Call.OBSERVE)
        obs = self.k.out[:R.N_OBS].copy()
        hollows, goals = hollows_of(int(obs[R.OBS_KEY]))
        to_move = int(obs[R.OBS_TO_MOVE])
        return {
            "seat": player + 1,
            "to_move": to_move + 1 if to_move >= 0 else None,
            "dice": [int(obs[R.OBS_DIE_A]), int(obs[R.OBS_DIE_B])] if to_move >= 0 else None,
            "round_lane": sorted(c for lane, c in hollows if lane == 0),
            "square_lane": sorted(c for lane, c in hollows if lane == 1),
            "goals": {seat_name(s): goals[s] for s in range(2)},
            "goals_to_win": int(self.st.pi[R.PI_WIN]),
            "game": int(obs[R.OBS_GAME]) + 1,
            "start_seat": int(obs[R.OBS_STARTER]) + 1,
            "extra_turn": bool(obs[R.OBS_EXTRA]),
            "turns_this_game": int(obs[R.OBS_TURNS]),
        }

    def describe_action(self, action: int) -> str:
        """The turn in words: the roll, each die's move, and the position it leaves."""
        a, b = (int(x) for x in self.st.dice)
        if action & R.MOKSHA:
            if self.st.extra[0]:
                return (f"{a}-{b}: no legal turn in the extra turn (the start player stays "
                        f"alone at the centre)")
            return f"{a}-{b}: no legal turn, Moksha (the game ends drawn)"
        n = self._k(Call.MOVES, action)
        moves = "; ".join(self._die_words(self.st.moves[i]) for i in range(n))
        if action & R.ONE_DIE:
            how = f"{a}-{b}, no order plays both dice, one die: "
        elif n == 1 and self.st.moves[0, 0] == a + b and self.st.pi[R.PI_WHOLE]:
            how = f"{a}-{b} as one move of {a + b}: "
        else:
            how = f"{a}-{b}: "
        return f"{how}{moves} -> {position_words(action & R.KEY_MASK)}"

    def _die_words(self, move: np.ndarray) -> str:
        d, origin, start, landing, owner = (int(x) for x in move)
        text = f"{d} moves {hollow_name(origin)}"
        if start != origin:
            text += f" (starting on {hollow_name(start)}, its full double field's other half)"
        if owner >= 0:
            what = f"a goal for seat {owner + 1}"
            if owner != int(self.st.player[0]) and self.st.pi[R.PI_OPP_GOAL] == \
                    R.OPP_SCORES_NOTHING:
                what = "it scores nothing"
            return (f"{text} into the {LANE_NAMES[owner]} goal ({what}), "
                    f"back on {hollow_name(landing)}")
        text += f" to {hollow_name(landing)}"
        if landing // R.LANE != start // R.LANE:
            text += " (its landing hollow was taken: lane change)"
        return text

    def describe_event(self, kind: int, a: int, b: int, c: int, d: int) -> tuple[str, str]:
        """(kind name, detail in words) of a kernel event."""
        match = bool(self.st.pi[R.PI_MATCH])
        if kind == R.EV_GAME:
            of = " of the match" if match else ""
            return "setup", (f"game {a + 1}{of}: {seat_name(b)} starts; marbles on "
                             f"{position_words(c)}")
        if kind == R.EV_ROLL:
            return "roll", f"rolls {a} and {b}"
        if kind == R.EV_GOAL:
            done = ": the scoring marble reaches the centre" if b >= c else ""
            return "goal", f"{seat_name(a)} scoring track {b} of {c}{done}"
        if kind == R.EV_EXTRA:
            return "extra turn", (f"{seat_name(a)} started and reached the centre first: "
                                  f"{seat_name(b)} has one more turn")
        if kind == R.EV_END:
            who = f"{seat_name(b)} wins" if b >= 0 else "no winner"
            return "game end", (f"{END_NAMES[S.End(a)]}: {who} (marbles on seat 1's side "
                                f"{c}, on seat 2's side {d})")
        if kind == R.EV_POINTS:
            return "points", f"game points {a}-{b}; match {c}-{d}"
        if kind == R.EV_RESULT:
            who = f"{seat_name(a)} wins" if a >= 0 else "a draw"
            pts = f", match points {c}-{d}" if c >= 0 else ""
            return "result", f"{who} after {b} turns{pts}"
        return f"event {kind}", f"{a} {b} {c} {d}"

    # --- for tests and tools: hand-built positions, forbidden options ---
    def set_position(self, hollows: Iterable[tuple[int, int]], goals: tuple[int, int] = (0, 0),
                     to_move: int = 0, dice: tuple[int, int] | None = None,
                     game: int = 0, extra: bool = False) -> None:
        """Put the marbles on `hollows` ((lane, cell 1-24) pairs) with `goals`, seat
        `to_move` to act in game `game` (started by seat `game`; in a match's extra turn
        when `extra`), rolling `dice` (or a roll from its stream)."""
        self.k.out[:4] = (key_of(hollows, goals), to_move, game, int(extra))
        self._k(Call.SET_POSITION)
        if dice is not None:
            self.set_dice(*dice)

    def set_dice(self, a: int, b: int) -> None:
        """Replace the roll of the seat to act."""
        self.k.out[:2] = (a, b)
        self._k(Call.SET_DICE)

    @property
    def key(self) -> int:
        """The position key."""
        return int(self.st.key[0])

    def position(self) -> tuple[frozenset, tuple[int, int]]:
        """The position as (frozenset of (lane, cell 1-24), goals per seat)."""
        return hollows_of(self.key)

    def option_of(self, action: int) -> str | None:
        """The forbiddable option (rules.OPTIONS) an action of the seat to act uses."""
        o = self._k(Call.OPTION, action)
        return R.OPTIONS[o] if o >= 0 else None

    def forbid_option(self, seat: int, option: str) -> None:
        """Seat `seat` (from 0) may no longer choose turns of `option`."""
        self.forbid[seat, R.OPTIONS.index(option)] = True
