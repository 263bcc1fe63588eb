"""Samurai & Katana, one game step by step (simcli replay): the Python handle driving the
compiled rules, the search seats' handle, and the game log's events in words."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernels import katana_combat as KC
from kernels.samurai_katana import rules as K
from kernels.samurai_katana.play import N_ROW, Call, run
from kernels.samurai_katana.stats import TABLE
from simcli.games.base import Game
from simcli.games.handle import GameHandle, IllegalAction, KernelCalls, SearchCalls
from simcli.games.samurai_katana.kernel import (
    KH,
    KSP,
    SEARCH_MAX_ROLLOUT,
    SEARCH_TOP_K,
    Prepared,
    no_forbid,
)

LOG_CAPACITY = 1 << 16  # events of one game (a 4-player game logs a few thousand)
KOKU_WHY = ("taken by Wako Pirates", "taken with Wako Pirates", "harvest card",
            "cancelled move refunded", "returns with its printed koku", "2 Honor sold")
RESULTS = {1: "the attacker wins", 0: "a tie: the defender holds", -1: "the defender wins"}
SOURCES = ("combat", "province", "Kyoto", "card", "Emperor", "land of koku",
           "lost as Shogun", "lost to a card", "sold for koku")
TAKEN = ("destroys it", "replaces it with one of its own", "moves its own castle there")


class SamuraiKatanaHandle(GameHandle):
    """One Samurai & Katana game driven from Python through the compiled rules."""

    max_actions = 1 << 16
    calls = Call

    def __init__(self, game: Game, prep: Prepared, seed: int, playout: int,
                 rotation: int = 0, forbid: np.ndarray | None = None) -> None:
        self.game = game
        self.prep = prep
        self.aggs = game.new_aggregates(prep)  # scratch statistics of this game
        self.st = game.state(prep, self.aggs, log_capacity=LOG_CAPACITY, rotation=rotation)
        self.log_buf = self.st.log
        self.log_n = self.st.log_n
        self.forbid = no_forbid() if forbid is None else np.asarray(forbid, np.bool_)
        self.k = self._kernel_calls(seed)
        self._out, self._fout = self.k.out, self.k.fout
        self._k(Call.SETUP, playout)

    def _kernel_calls(self, seed: int) -> KernelCalls:
        return KernelCalls(run, self.forbid, seed, out_size=max(self.max_actions, N_ROW),
                           fout_size=K.MAX_P)

    # --- hooks into the kernels ---
    def apply(self, action: int) -> None:
        """Apply the player to act's action; an illegal one raises IllegalAction. Discards
        are checked as a mask of the hand's positions (legal_actions lists the masks of the
        first 16 positions only)."""
        if self.phase() != "discard":
            super().apply(action)
            return
        n = int(self.st.pl[self.current_player(), K.PL_HAND])
        if not 0 <= int(action) < 1 << n:
            raise IllegalAction(f"discard mask {action} is not one of the {n} cards in hand")
        self._log_decision(1 << n, int(action), option_words=(
            f"any subset of the {n} cards in hand, as a mask 0 .. {(1 << n) - 1}",))
        self._apply(int(action))

    def _choose(self) -> int:
        return self._k(Call.CHOOSE)

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return int(self.st.phase[0]) == int(K.OVER)

    def turn(self) -> int:
        """0 during setup, then the turn number."""
        return int(self.st.gs[K.G_TURN])

    def phase(self) -> str:
        """The decision the game waits for (rules.PHASES)."""
        return K.PHASES[int(self.st.phase[0])]

    def option_of(self, action: int) -> int:
        """The option (index into rules.OPTIONS) an action of the player to act uses, or -1."""
        return self._k(Call.OPTION, action)

    def row(self) -> dict[str, int]:
        """The finished game's --save-games row."""
        row = np.zeros(N_ROW, np.int64)
        self._k(Call.ROW, out=row)
        return {c: int(v) for c, v in zip(self.game.row_columns, row, strict=True)}

    def outcome(self) -> dict[str, Any]:
        """Winners (seats from 1; several when equal after every tie-break), length in
        turns, Honor and clan points per seat."""
        self._k(Call.OUTCOME)
        P = self.prep.players
        st = self.st
        return {
            "winners": [q + 1 for q in range(P) if self._fout[q] > 0],
            "length": int(st.gs[K.G_TURN]),
            "completed": not bool(st.cx[K.CX_CAPPED]),
            "honor": [int(st.pl[q, K.PL_HONOR]) for q in range(P)],
            "clan_points": [int(st.pl[q, K.PL_CP]) for q in range(P)],
        }

    # --- words ---
    def territory(self, t: int) -> str:
        """A territory's name (and its city)."""
        b = self.prep.data.board
        city = b.city_name[t]
        return f"{b.names[t]}" + (f" ({city})" if city else "")

    def card(self, c: int) -> str:
        """A card type's name."""
        return self.prep.data.deck.names[c]

    def observation(self, player: int) -> dict[str, Any]:
        """What seat `player` (from 0) sees: the board, every clan's public figures, its own
        hand; of rivals only the size of their hands."""
        st = self.st
        P = self.prep.players
        board = {self.prep.data.board.ids[t]: {"owner": int(st.bd[K.OWNER, t]) + 1,
                                               "samurai": int(st.bd[K.SAM, t]),
                                               "castle": bool(st.bd[K.CASTLE, t])}
                 for t in range(st.bd.shape[1]) if st.bd[K.OWNER, t] >= 0}
        clans = {q + 1: {"honor": int(st.pl[q, K.PL_HONOR]), "koku": int(st.pl[q, K.PL_KOKU]),
                         "supply": int(st.pl[q, K.PL_SUPPLY]),
                         "castles_in_reserve": int(st.pl[q, K.PL_CASTLES]),
                         "hand_size": int(st.pl[q, K.PL_HAND]),
                         "eliminated": bool(st.pl[q, K.PL_OUT])} for q in range(P)}
        return {
            "seat": player + 1, "phase": self.phase(), "turn": self.turn(),
            "emperor": int(st.gs[K.G_EMP]) + 1, "shogun": int(st.gs[K.G_SHOGUN]) + 1 or None,
            "hand": [self.card(int(c)) for c in st.hand[player, :st.pl[player, K.PL_HAND]]],
            "draw_pile": int(st.gs[K.G_DECK]), "discards": int(st.gs[K.G_DISC]),
            "board": board, "clans": clans,
        }

    def _hand(self, p: int, i: int) -> str:
        return self.card(int(self.st.hand[p, i]))

    def describe_action(self, action: int) -> str:
        """An action of the player to act, in words."""
        st = self.st
        ph = int(st.phase[0])
        p = int(st.actor[0])
        if ph == int(K.PLACE):
            return f"places a samurai on {self.territory(action)}"
        if ph == int(K.RETURN):
            return f"returns to {self.territory(action)}"
        if ph == int(K.ORDER):
            return f"names seat {action + 1}"
        if ph == int(K.CASTLE_BUY):
            return "builds no castle" if action == 0 else \
                f"builds a castle on {self.territory(action - 1)}"
        if ph == int(K.BUY):
            return f"buys {action} samurai"
        if ph == int(K.JUSTICE):
            return "cancels the card with Shogunal Justice" if action else "lets the card act"
        if ph == int(K.CANCEL):
            if not action:
                return "lets the move happen"
            effects = [int(self.prep.cards[c, KC.CC_EFFECT])
                       for c in st.hand[p, :st.pl[p, K.PL_HAND]]]
            i = effects.index(int(K.cancel_effect.py_func(action)))  # (no compile)
            return f"cancels the move with {self._hand(p, i)}"
        if ph in (int(K.ATT_CARDS), int(K.DEF_CARDS)):
            D = st.piles.shape[1]
            ij, k = divmod(action, D + 1)
            i, j = divmod(ij, D)
            special = f" + {self._hand(p, k - 1)}" if k > 0 else ""
            return f"fights with {self._hand(p, i)} and {self._hand(p, j)}{special}"
        if ph == int(K.TAKE_CASTLE):
            if action >= 2:
                return f"moves its castle from {self.territory(action - 2)}"
            return TAKEN[action]
        if ph == int(K.DISCARD):
            gone = [self._hand(p, i) for i in range(int(st.pl[p, K.PL_HAND])) if action >> i & 1]
            return "discards " + (", ".join(gone) if gone else "nothing")
        return self._describe_act(p, action)

    def _describe_act(self, p: int, action: int) -> str:
        st = self.st
        if action == K.PASS:
            return "passes (ends its activation)"
        if action == K.SELL:
            return "sells 2 Honor for 1 koku"
        W = max(st.bd.shape[1], K.MAX_P)
        mb = int(K.CARD) + st.piles.shape[1] * W
        if action < mb:
            i, x = divmod(action - int(K.CARD), W)
            eff = int(self.prep.cards[st.hand[p, i], KC.CC_EFFECT])
            on = self.territory(x) if eff == KC.E_UPRISING else f"seat {x + 1}"
            return f"plays {self._hand(p, i)} on {on}"
        e, k = divmod(action - mb, int(self.prep.pi[K.PI_SAMURAI]))
        s = int(st.link_from[e])
        n = int(st.adj[0, e])
        by = " by sea" if st.adj[1, e] else ""
        return f"moves {k + 1} samurai from {self.territory(s)} to {self.territory(n)}{by}"

    def describe_event(self, kind: int, a: int, b: int, c: int, d: int) -> tuple[str, str]:
        """(kind name, detail in words) of an event of the rules' log (rules.Ev)."""
        ev = K.Ev(kind)
        T = self.territory
        seat = lambda q: f"seat {q + 1}" if q >= 0 else "no one"  # noqa: E731
        words = {
            K.Ev.CITY: lambda: f"draws {'major' if b == 2 else 'minor'} city {T(a)}",
            K.Ev.PLACE: lambda: f"places a samurai on {T(a)} ({b} there)"
                                + (" retreating" if c == 2 else ""),
            K.Ev.DRAW: lambda: f"draws {self.card(a)} ({b} in hand)",
            K.Ev.RESHUFFLE: lambda: f"{a} discards shuffled into a new draw pile",
            K.Ev.TURN: lambda: f"turn {a}: Emperor {seat(b)}, Shogun {seat(c)}",
            K.Ev.RETURN: lambda: f"returns to {T(a)} with {b} samurai"
                                 + (f" (uprising against {seat(c)})" if c >= 0 else ""),
            K.Ev.NO_RETURN: lambda: "finds no territory to return to",
            K.Ev.CASTLE: lambda: f"builds a castle on {T(a)} for {b} koku",
            K.Ev.BUY: lambda: f"pays for {a} samurai ({b} koku left)",
            K.Ev.MOVE: lambda: f"moves {c} samurai from {T(a)} to {T(b)} ({d} koku)",
            K.Ev.CANCEL: lambda: f"cancels {seat(b)}'s move with {self.card(a)}",
            K.Ev.CARD: lambda: f"plays {self.card(a)} on "
                               + (T(b) if self.prep.cards[a, KC.CC_EFFECT] == KC.E_UPRISING
                                  else seat(b)),
            K.Ev.COUNTER: lambda: f"cancels {seat(b)}'s {self.card(a)} with Shogunal Justice",
            K.Ev.STEAL: lambda: f"takes {self.card(a)} from {seat(b)}'s hand",
            K.Ev.UPRISING: lambda: f"{T(a)} ({seat(c)}) loses {b} samurai to the uprising",
            K.Ev.BATTLE: lambda: f"attacks {T(a)} ({seat(b)}) with {c} samurai against {d}",
            K.Ev.SIDE: lambda: f"commits face down {self.card(a)} and {self.card(b)}"
                               + (f" + {self.card(c)}" if c >= 0 else "")
                               + f": {d} card points",
            K.Ev.TOTAL: lambda: f"combat points {a + b + c} = {a} from cards + {b} from "
                                f"samurai + {c} terrain; {d} sword{'s' if d != 1 else ''}",
            K.Ev.ALLIES: lambda: f"Alliance adds {a} samurai ({b} of its own in "
                                 f"land-adjacent territories, room for {c})",
            K.Ev.KOKU: lambda: f"koku {a:+d} = {b} ({KOKU_WHY[c]})"
                               + (" and its free move back" if d else ""),
            K.Ev.OUTCOME: lambda: f"battle for {T(d)}: {RESULTS[a]}; attacker loses {b}, "
                                  f"defender loses {c}",
            K.Ev.CASTLE_TAKEN: lambda: f"takes the castle on {T(a)} and "
                                       + (TAKEN[b] if b < 2 else f"moves its own from {T(c)}"),
            K.Ev.HONOR: lambda: f"Honor {a:+d} = {b} ({SOURCES[c]})",
            K.Ev.TAXES: lambda: f"collects {a} koku ({b} now)",
            K.Ev.OUT: lambda: "is eliminated (no territory left)",
            K.Ev.OFFICES: lambda: f"Emperor {seat(a)}, Shogun {seat(b)}",
            K.Ev.DISCARD: lambda: f"discards {self.card(a)}",
            K.Ev.RESULT: lambda: (f"{seat(a)} wins" if a >= 0 else "a shared win")
                                 + f" after {b} turns" + ("" if c else " (safety cap)"),
        }
        return ev.name.lower(), words[ev]()


class SearchHandle(SamuraiKatanaHandle):
    """A game with search seats (mcts) driven from Python: the search decides for them
    exactly as in the fast path (kernels/samurai_katana/search_play.py), its stream keyed
    by the number of decisions taken so far."""

    def __init__(self, game: Game, prep: Prepared, seed: int, playout: int,
                 rotation: int = 0, forbid: np.ndarray | None = None) -> None:
        super().__init__(game, prep, seed, playout, rotation, forbid)
        self.seed = np.uint64(seed)
        self.playout = np.int64(playout)
        self.decisions = 0

    def _kernel_calls(self, seed: int) -> KernelCalls:
        self.search = self.game.search_settings(self.prep, self.st)
        self.ws = KSP.new_workspace(self.st, self.forbid, int(self.search[0].max()),
                                    SEARCH_TOP_K, TABLE, self.game.sizes(self.prep))
        self.root = KH.root_of(self.st, self.ws.scratch)
        return SearchCalls(KSP.run_search, self.ws, self.search, self.forbid, seed,
                           SEARCH_MAX_ROLLOUT, out_size=max(self.max_actions, N_ROW),
                           fout_size=K.MAX_P)

    def _choose(self) -> int:
        seat = self.current_player()
        if seat >= 0 and self.search[0][seat] > 0:
            return self.k.decide(self.st, self.playout, self.decisions)
        return super()._choose()
