"""Samurai: The Card Game, one game step by step: the kernel inputs of a run and its
kernel state, the event and outcome wording, and the Python handle behind `simcli replay`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kernels import stat_table
from kernels.samurai_card_game import play as kplay
from kernels.samurai_card_game import rules as krules
from kernels.samurai_card_game import stats as kstats
from kernels.samurai_card_game.play import Call
from kernels.samurai_card_game.stats import End, Outcome, WinBy
from simcli.games.handle import GameHandle, kernel_calls
from simcli.games.samurai_card_game.content import SHAPE_MARKERS, SHAPES, SYMBOLS
from simcli.lazy import LazyModule

if TYPE_CHECKING:
    from simcli.games.samurai_card_game.game import SamuraiCardGame

ksearch_hooks = LazyModule("kernels.samurai_card_game.search_hooks")
ksearch = LazyModule("kernels.samurai_card_game.search_play")

SEARCH_TOP_K = 8  # mcts: card plays considered per decision, the best by greedy's value
SEARCH_MAX_ROLLOUT = 0  # mcts: rollout actions, then the evaluation (0: to the end)


@dataclass(frozen=True)
class Prepared:
    """Kernel inputs for one run."""

    players: int
    policies: np.ndarray  # (players,) int64: players.RANDOM, GREEDY or search_play.MCTS
    setc: np.ndarray  # card codes of one player's set (owner bits zero)
    vmasks: np.ndarray  # the village deck in content order
    hand: int
    supply: int  # markers of each shape
    see_all: bool
    tie_discard: bool
    chain: bool
    radius: int  # of the board array
    heat_radius: int
    weights: np.ndarray  # the greedy player's weights (players.PF_*)
    n_kinds: int
    seats: tuple[str, ...] = ()  # the policy name of each player (mcts with its options)


LOG_CAPACITY = 4096  # events of one game (a 4-player game writes about 300)


def new_state(prep: Prepared, aggs: dict[str, np.ndarray], rotation: int = 0,
              log_capacity: int = 0, room: int = 0) -> krules.State:
    """The kernel state for games of a prepared run, adding to `aggs`."""
    return krules.new_state(
        players=prep.players, setc=prep.setc, vmasks=prep.vmasks, hand_size=prep.hand,
        supply=prep.supply, see_all=prep.see_all, tie_discard=prep.tie_discard,
        chain=prep.chain, radius=prep.radius, heat_radius=prep.heat_radius,
        policies=prep.policies, weights=prep.weights,
        aggs=stat_table.as_tuple(kstats.Aggs, aggs), rotation=rotation,
        log_capacity=log_capacity, room=room)


def no_forbidden() -> np.ndarray:
    """A forbidden set that forbids nothing (every seat, every option)."""
    return np.zeros((kstats.MAX_P, len(krules.OPTIONS)), np.bool_)


END_REASONS = (("markers", End.MARKERS), ("villages", End.VILLAGES), ("cards", End.CARDS),
               ("blocked", End.BLOCKED))
OUTCOME_NAMES = {Outcome.OUTRIGHT: "outright", Outcome.SHARED: "shared",
                 Outcome.NONE: "no winner"}
WINBY_NAMES = {WinBy.TWO_SHAPES: "two or three shapes dominated",
               WinBy.OTHER_SHAPES: "most markers in the other shapes",
               WinBy.TIEBREAK: "tie broken by the dominated shape",
               WinBy.SHARED: "shared victory",
               WinBy.NONE: "nobody dominates a shape"}


# --- one game, step by step ---------------------------------------------------------------

def card_name(code: int) -> str:
    """'rice 3', 'samurai 1' ... for a card code."""
    return f"{SYMBOLS[(code >> 2) & 3]} {(code >> 4) & 15}"


def village_name(mask: int) -> str:
    """'helmet+rice' ... for a village card's symbol mask."""
    return "+".join(SHAPES[s] for s in range(3) if mask >> s & 1)


class SamuraiCardHandle(GameHandle):
    """One game of Samurai: The Card Game, driven step by step through its kernels."""

    calls = Call

    def __init__(self, game: SamuraiCardGame, prep: Prepared, seed: int, playout: int,
                 rotation: int = 0, log_capacity: int = LOG_CAPACITY, room: int = 0) -> None:
        """Playout `playout` of the run keyed by `seed`, after setup; `room` adds rows for
        villages put on the board by hand (tests)."""
        self.prep = prep
        self.aggs = game.new_aggregates(prep)
        self.st = new_state(prep, self.aggs, rotation, log_capacity, room)
        self.log_buf = self.st.log
        self.log_n = self.st.log_n
        self.forbid = no_forbidden()
        self.row_columns = game.row_columns
        self.max_actions = max(1024, (prep.hand + 1) * len(self.st.front) + 16)
        self.width = 2 * prep.radius + 1
        self.seed = np.uint64(seed)
        self.playout = np.int64(playout)
        self.search = game.search_settings(prep, self.st) if prep.seats else None
        self.ws = (ksearch.new_workspace(self.st, self.forbid, int(self.search[0].max()),
                                         SEARCH_TOP_K, kstats.TABLE, game.sizes(prep))
                   if self.search is not None and self.search[0].max() > 0 else None)
        self.k = kernel_calls(kplay.run, ksearch, self.ws, self.search, self.forbid, seed,
                              SEARCH_MAX_ROLLOUT, out_size=kplay.N_ROW)
        self._k(Call.SETUP, playout)

    # --- hooks ---
    def current_player(self) -> int:
        """Seat (from 0) to act; -1 once the game is over."""
        c = self.st.cnt[0]
        return -1 if c["over"] else int(c["cur"])

    def _choose(self) -> int:
        seat = self.current_player()
        if self.ws is not None and seat >= 0 and self.search[0][seat] > 0:
            # (the search reads the forbidden set its scratch holds: forbid_option edits both)
            return self.k.decide(self.st, self.playout, self.decisions)
        return self._k(Call.CHOOSE)

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return bool(self.st.cnt[0]["over"])

    def turn(self) -> int:
        """The turn being played (cards played so far + 1), or the last once over."""
        c = self.st.cnt[0]
        return int(c["turns"]) + (0 if c["over"] else 1)

    def row(self) -> dict[str, int]:
        """The finished game's --save-games row."""
        self._k(Call.ROW)
        row = self.k.out[:kplay.N_ROW]
        return {c: int(v) for c, v in zip(self.row_columns, row, strict=True)}

    def outcome(self) -> dict[str, Any]:
        """Winners (seats from 1), how the game was decided, its length and the markers."""
        st, n = self.st, self.prep.players
        c = self.counters()
        self._k(Call.OUTCOME)
        won = self.k.fout[:kstats.MAX_P]
        return {
            "winners": [s + 1 for s in range(n) if won[s]],
            "outcome": OUTCOME_NAMES[Outcome(c["result"])],
            "decided_by": WINBY_NAMES[WinBy(c["winby"])] if c["over"] else None,
            "turns": c["turns"],
            "end": [name for name, bit in END_REASONS if c["end"] & bit],
            "markers": self._markers(),
            "dominates": {s: (int(st.dom[i]) + 1 if st.dom[i] >= 0 else None)
                          for i, s in enumerate(SHAPES)} if c["over"] else None,
        }

    def observation(self, player: int) -> dict[str, Any]:
        """What seat `player` (from 0) sees: its own hand, the board, the legal cells, the
        cards left in every hand and draw pile, markers taken and left, the visible village
        cards (more of them for the seat placing villages) and the cells open now."""
        st, n = self.st, self.prep.players
        c = self.counters()
        cards, villages = [], []
        for i in range(c["nfill"]):
            cell = int(st.filled[i])
            h = int(st.grid[cell])
            x, y = self.xy(cell)
            if (x + y) % 2:
                cards.append({"at": (x, y), "seat": ((h - 1) & 3) + 1, "card": card_name(h - 1)})
            else:
                v = st.vill[h - 1]
                villages.append({"at": (x, y), "symbols": village_name(int(v["mask"])),
                                 "scored": bool(v["scored"])})
        left = len(st.vdeck) - c["vtop"]
        shown = (self._k(Call.VISIBLE) if player == self.current_player()
                 else min(1, left))
        placing = c["phase"] == krules.PLACE and not c["over"]
        return {
            "seat": player + 1,
            "hand": [card_name(int(code)) for code in
                     st.hands[player, :st.seat[player]["hand_n"]]],
            "cards_in_hand": [int(v) for v in st.seat["hand_n"][:n]],
            "cards_in_deck": [int(v) for v in st.seat["deck_n"][:n]],
            "cards": cards, "villages": villages,
            "legal_cells": sorted(self.xy(int(x)) for x in st.front[:c["nf"]]),
            "open_cells": [self.xy(int(x)) for x in st.opens[:c["n_open"]]] if placing else [],
            "visible_villages": [village_name(int(st.vdeck[c["vtop"] + j]))
                                 for j in range(shown)],
            "village_cards_left": left,
            "markers": self._markers(),
            "supply": {s: int(st.rem[i]) for i, s in enumerate(SHAPES)},
        }

    def describe_action(self, action: int) -> str:
        """'plays rice 3 at (1, 0)', 'puts the helmet+rice village at (1, 1)' ..."""
        st = self.st
        c = self.counters()
        c1 = action & krules.CELL_MASK
        if c["phase"] == krules.PLAY:
            hi = action >> krules.CELL_BITS
            return f"plays {card_name(int(st.hands[c['cur'], hi]))} at {self.xy(c1)}"
        c2 = ((action >> krules.CELL_BITS) & krules.CELL_MASK) - 1
        vtop = c["vtop"]
        said = f"puts the {village_name(int(st.vdeck[vtop]))} village at {self.xy(c1)}"
        if c2 >= 0:
            said += f" and the {village_name(int(st.vdeck[vtop + 1]))} one at {self.xy(c2)}"
        return said

    def describe_event(self, kind: int, a: int, b: int, c: int, d: int) -> tuple[str, str]:
        """A logged event in words (see the EV_* kinds in kernels/samurai_card_game/rules.py)."""
        seat = f"seat {b + 1}"
        words = {
            krules.EV_DEAL: ("deal", lambda: f"is dealt {card_name(a)}"),
            krules.EV_DECK: ("setup", lambda: f"the village deck is shuffled ({a} cards)"),
            krules.EV_VILLAGE: ("village", lambda: f"the {village_name(b)} village is put at "
                               f"{self.xy(a)} ({c} village cards left)"),
            krules.EV_TOP: ("chance", lambda: f"the next village card turned up: "
                           f"{village_name(a)} ({b} left)"),
            krules.EV_OPEN: ("opens", lambda: f"{self.xy(a)} opens for a village"
                            + (" (by a village placed this turn)" if b else "")),
            krules.EV_UNFILLED: ("unfilled", lambda: f"{self.xy(a)} stays empty: no village "
                                "card left"),
            krules.EV_SCORE: ("scoring", lambda: f"the {village_name(b)} village at "
                             f"{self.xy(a)} is surrounded"),
            krules.EV_AWARD: ("marker", lambda: f"{SHAPES[a]} ({SHAPE_MARKERS[a]}) marker to "
                             f"{seat} with influence {c}; {d} left in the supply"),
            krules.EV_TIE: ("tie", lambda: f"{SHAPES[a]} tied at influence {b}: no marker"
                           + ("; the marker is discarded" if c else "")
                           + f"; {d} left in the supply"),
            krules.EV_DRAW: ("chance", lambda: f"draws {card_name(a)} ({b} left in its deck)"),
            krules.EV_SKIP: ("skip", lambda: "has no card left: skipped"),
            krules.EV_END: ("end", lambda: "the game ends: " + ", ".join(
                n for n, bit in END_REASONS if a & bit)),
            krules.EV_DOMINATE: ("dominance", lambda: f"{SHAPES[a]}: {seat} dominates with {c}"
                                if b >= 0 else f"{SHAPES[a]}: nobody dominates (tie)"),
            krules.EV_RESULT: ("result", lambda: self._result_words(a, b, c, d)),
            krules.EV_SET: ("set", lambda: f"its set holds {card_name(a)}"),
            krules.EV_ORDER: ("village deck", lambda: f"village card {b} of the shuffled "
                             f"deck: {village_name(a)}"),
        }
        if kind not in words:
            return "event", f"kind {kind}: {a} {b} {c} {d}"
        name, say = words[kind]
        return name, say()

    # --- helpers ---
    def counters(self) -> dict[str, int]:
        """The game's counters (rules.CNT) by name."""
        c = self.st.cnt[0]
        return {name: int(c[name]) for name in krules.CNT.names}

    def _markers(self) -> dict[str, dict[str, int]]:
        return {f"seat {q + 1}": {s: int(self.st.taken[q, i]) for i, s in enumerate(SHAPES)}
                for q in range(self.prep.players)}

    def xy(self, cell: int) -> tuple[int, int]:
        """(x, y) of a board cell, the first village at (0, 0)."""
        r = self.prep.radius
        return int(cell % self.width - r), int(cell // self.width - r)

    def cell(self, x: int, y: int) -> int:
        """The board cell at (x, y)."""
        r = self.prep.radius
        return (y + r) * self.width + (x + r)

    @staticmethod
    def _result_words(a: int, b: int, c: int, d: int) -> str:
        if a == Outcome.OUTRIGHT:
            return f"seat {b + 1} wins ({WINBY_NAMES[WinBy(d)]})"
        if a == Outcome.SHARED:
            seats = ", ".join(str(q + 1) for q in range(kstats.MAX_P) if c >> q & 1)
            return f"shared victory of seats {seats}"
        return "no winner: nobody dominates a shape"
