"""One game driven step by step from Python: the same compiled rules and players as the
fast path, one call at a time, with a readable log.

A game's declaration subclasses GameHandle and fills in the hooks (each a thin call into
its kernel package). `simcli replay`, the tests that script the rulebooks' examples and
any tool that wants to watch a game use this class; a replayed playout makes exactly the
rules calls that `play_chunk` made for it, so its result equals that playout's row.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernels import control
from kernels import events as ev

NO_ROWS = np.zeros((0, 1), np.int64)  # `rows` of a kernel entry call that keeps no rows
NO_OUT = np.zeros(0, np.int64)
NO_FOUT = np.zeros(0, np.float64)


def fast_path(run, call: int, st, forbid: np.ndarray, seed: int, first: int, count: int,
              rows: np.ndarray | None) -> int:
    """A chunk of playouts through a game's one kernel entry `run` (kernels/<game>/play.py;
    `call` its Call.PLAY); returns how many were played (fewer when stopped)."""
    return int(run(st, forbid, control.STOP, np.int64(call), np.uint64(seed), np.int64(first),
                   np.int64(count), NO_ROWS if rows is None else rows, NO_OUT, NO_FOUT))


class KernelCalls:
    """One game's kernel entry `run(st, forbid, stop, call, seed, a, count, rows, out,
    fout)` called for a handle: `calls(st, Call.LEGAL, out=buf)`, `calls(st, Call.APPLY,
    a)`. Every call passes the same argument types, so the entry compiles once (and is the
    one the fast path compiled)."""

    def __init__(self, run, forbid: np.ndarray, seed: int, out_size: int = 64,
                 fout_size: int = 8) -> None:
        self.run = run
        self.forbid = forbid
        self.seed = np.uint64(seed)
        self.stop = np.zeros(1, np.int64)
        self.out = np.zeros(out_size, np.int64)
        self.fout = np.zeros(fout_size, np.float64)

    def __call__(self, st, call: int, a: int = 0, out: np.ndarray | None = None) -> int:
        """Do `call` on state st with argument a (and buffer out, else self.out); its int
        result."""
        return int(self.run(st, self.forbid, self.stop, np.int64(call), self.seed,
                            np.int64(a), np.int64(0), NO_ROWS,
                            self.out if out is None else out, self.fout))


class SearchCalls(KernelCalls):
    """KernelCalls for a game with search seats: every call goes through the game's search
    entry `search_play.run_search(st, ws, forbid, call, seed, a, count, rows, out, fout,
    budget, c, rollout, max_rollout)`, the library a run with search seats compiled, so a
    replay of such a run compiles nothing; `decide` is a searching seat's action, taken
    by the fast path's own code."""

    def __init__(self, run_search, ws, search: tuple[np.ndarray, np.ndarray, np.ndarray],
                 forbid: np.ndarray, seed: int, max_rollout: int, out_size: int = 64,
                 fout_size: int = 8) -> None:
        from kernels.search import SEARCH_DECISION  # (loaded with search seats only)

        super().__init__(run_search, forbid, seed, out_size, fout_size)
        self.decision_call = SEARCH_DECISION
        self.ws = ws
        self.budget, self.c, self.rollout = search
        self.max_rollout = np.int64(max_rollout)

    def __call__(self, st, call: int, a: int = 0, out: np.ndarray | None = None,
                 count: int = 0) -> int:
        """Do `call` on state st with arguments a and count (and buffer out, else
        self.out); its int result."""
        return int(self.run(st, self.ws, self.forbid, np.int64(call), self.seed,
                            np.int64(a), np.int64(count), NO_ROWS,
                            self.out if out is None else out, self.fout, self.budget,
                            self.c, self.rollout, self.max_rollout))

    def decide(self, st, playout: int, decisions: int) -> int:
        """The search's action for the seat to act of st (a searching seat), in playout
        `playout` after `decisions` decisions."""
        return self(st, self.decision_call, playout, count=decisions)


def kernel_calls(run, search_play, ws, search, forbid: np.ndarray, seed: int,
                 max_rollout: int, out_size: int = 64, fout_size: int = 8) -> KernelCalls:
    """A handle's kernel calls: through the game's `run`, or, with a search workspace `ws`
    (a searching seat), through `search_play.run_search`."""
    if ws is None:
        return KernelCalls(run, forbid, seed, out_size, fout_size)
    return SearchCalls(search_play.run_search, ws, search, forbid, seed, max_rollout,
                       out_size, fout_size)


@dataclass(frozen=True)
class Event:
    """One line of a game log: turn, acting player (seat from 1, None for the table), kind
    and what happened in words."""

    turn: int
    player: int | None
    kind: str
    detail: str
    options: tuple[str, ...] | None = None  # a decision's legal actions, when recorded
    seen: dict[str, Any] | None = None  # the decider's observation, when recorded

    def as_dict(self) -> dict[str, Any]:
        """The event for --json (`options` and `seen` only where they were recorded)."""
        d: dict[str, Any] = {"turn": self.turn, "player": self.player, "kind": self.kind,
                             "detail": self.detail}
        if self.options is not None:
            d["options"] = list(self.options)
        if self.seen is not None:
            d["seen"] = self.seen
        return d


class IllegalAction(ValueError):
    """An action that is not among the legal actions of the player to act."""


class GameHandle(ABC):
    """A game in progress. Subclasses build `self.st` (the kernel state, with its event
    buffer `self.log_buf`, `self.log_n`) in __init__ and implement the hooks below."""

    max_actions: int = 1024
    log_buf: np.ndarray
    log_n: np.ndarray
    record_options: bool = False  # log every legal action of each decision, in words
    seen_by: int | None = None  # log this seat's (from 0) observation at its decisions
    calls: Any = None  # the game's kernel calls (play.Call: TO_MOVE, LEGAL, APPLY, ...)
    decisions: int = 0  # actions applied so far (keys a search player's streams)

    # --- hooks (a call into the game's kernels each) ---
    def current_player(self) -> int:
        """Seat (from 0) of the player to act; -1 when the game is over."""
        return self._k(self.calls.TO_MOVE)

    def _legal(self, out: np.ndarray) -> int:
        """Fill `out` with the legal actions of the player to act; return how many."""
        return self._k(self.calls.LEGAL, out=out)

    def _apply(self, action: int) -> None:
        """Apply a legal action (chance events resolve inside, from the game's streams)."""
        self._k(self.calls.APPLY, action)
        self.decisions += 1

    @abstractmethod
    def _choose(self) -> int:
        """The action the player to act chooses under its policy (as in the fast path)."""

    @abstractmethod
    def is_over(self) -> bool:
        """Whether the game has ended."""

    @abstractmethod
    def turn(self) -> int:
        """The game's turn or round counter, for the log."""

    @abstractmethod
    def row(self) -> dict[str, int]:
        """The finished game's --save-games row, by column name."""

    @abstractmethod
    def outcome(self) -> dict[str, Any]:
        """The result: winners (seats from 1), length and the game's scores."""

    @abstractmethod
    def observation(self, player: int) -> dict[str, Any]:
        """What seat `player` (from 0) can see now."""

    @abstractmethod
    def describe_action(self, action: int) -> str:
        """An action of the player to act, in words."""

    @abstractmethod
    def describe_event(self, kind: int, a: int, b: int, c: int, d: int) -> tuple[str, str]:
        """(kind name, detail in words) of a logged event of the game's own kinds."""

    # --- provided ---
    def _k(self, call: int, a: int = 0, out: np.ndarray | None = None) -> int:
        """A call of the game's kernel entry on this handle's state (self.k: KernelCalls)."""
        return self.k(self.st, call, a, out)

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to act (empty when the game is over)."""
        if self.is_over():
            return []
        out = np.zeros(self.max_actions, np.int64)
        n = self._legal(out)
        return [int(a) for a in out[:n]]

    def apply(self, action: int) -> None:
        """Apply the player to act's action; an illegal one raises IllegalAction."""
        legal = self.legal_actions()
        if int(action) not in legal:
            raise IllegalAction(f"action {action} is not legal here; legal: {legal}")
        self._log_decision(len(legal), int(action), legal)
        self._apply(int(action))

    def choose(self) -> int:
        """The action the player to act would choose (nothing is applied)."""
        return self._choose()

    def step(self) -> int:
        """The player to act chooses under its policy and the action is applied; returns it.

        Only the legal actions' count is computed for the log; the choice is the policy's
        own, exactly as in the fast path."""
        action = self._choose()
        self.apply(action)
        return action

    def play_out(self, max_steps: int = 1_000_000) -> dict[str, Any]:
        """Step until the game is over; returns the outcome."""
        for _ in range(max_steps):
            if self.is_over():
                return self.outcome()
            self.step()
        raise RuntimeError(f"game not over after {max_steps} steps")

    def _log_decision(self, n_options: int, action: int, legal: list[int] | None = None,
                      option_words: tuple[str, ...] | None = None) -> None:
        """Log a decision before it is applied (its words read the state as it is now),
        with its legal actions (`legal` described, else `option_words`) and the decider's
        observation where they are recorded."""
        if not hasattr(self, "_words"):
            self._words: dict[int, str] = {}
            self._options: dict[int, tuple[str, ...]] = {}
            self._seen: dict[int, dict[str, Any]] = {}
        i = int(self.log_n[0])
        player = self.current_player()
        self._words[i] = self.describe_action(action)
        if self.record_options:
            self._options[i] = (tuple(self.describe_action(a) for a in legal)
                                if legal is not None else option_words or ())
        if self.seen_by is not None and player == self.seen_by:
            self._seen[i] = self.observation(player)
        if i < self.log_buf.shape[0]:
            self.log_buf[i] = (self.turn(), player, ev.DECISION, n_options, action, 0, 0)
        self.log_n[0] = i + 1

    def log(self) -> list[Event]:
        """Every event so far, in order (decisions, chance events, state changes)."""
        n = int(self.log_n[0])
        if n > self.log_buf.shape[0]:
            raise RuntimeError(f"the game log overflowed ({n:,} events, room for "
                               f"{self.log_buf.shape[0]:,})")
        events = []
        words = getattr(self, "_words", {})
        options = getattr(self, "_options", {})
        seen = getattr(self, "_seen", {})
        for i, row in enumerate(self.log_buf[:n]):
            turn, player, kind, a, b, c, d = (int(x) for x in row)
            if kind == ev.DECISION:
                name = "decision"
                said = words.get(i, f"action {b}")
                detail = f"{said} (of {a} option{'s' if a != 1 else ''})"
            else:
                name, detail = self.describe_event(kind, a, b, c, d)
            events.append(Event(turn, player + 1 if player >= 0 else None, name, detail,
                                options.get(i), seen.get(i)))
        return events
