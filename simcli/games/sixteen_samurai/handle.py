"""Sixteen Samurai, one game step by step (`simcli replay`): the Python handle driven
through the compiled rules, and its words for actions and log events."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernels.sixteen_samurai import rules as KR
from kernels.sixteen_samurai.play import N_ROW, ROW_COLUMNS, Call, run
from kernels.sixteen_samurai.stats import TABLE
from simcli.games.base import Game
from simcli.games.handle import GameHandle, kernel_calls
from simcli.games.sixteen_samurai.content import ABILITIES, BATTLE_CARDS
from simcli.games.sixteen_samurai.prepared import (
    SEARCH_DRAFT_K,
    SEARCH_MAX_ROLLOUT,
    SP,
    Prepared,
    forbid_table,
)

LOG_CAPACITY = 16_384  # events of one game (a 4-player game logs about 1,000)
SEAT_WORDS = ("Blue", "Green", "Orange", "Purple")  # the rulebook's clan colours


class SixteenSamuraiHandle(GameHandle):
    """One Sixteen Samurai game driven from Python through the compiled rules."""

    max_actions = 1024
    calls = Call

    def __init__(self, game: Game, prep: Prepared, seed: int, playout: int,
                 rotation: int = 0, forbid: np.ndarray | None = None) -> None:
        self.game = game  # the SixteenSamurai (game.py imports this module, not the reverse)
        self.prep = prep
        self.aggs = game.new_aggregates(prep)  # scratch statistics of this game
        self.st = game.state(prep, self.aggs, log_capacity=LOG_CAPACITY, rotation=rotation)
        self.log_buf = self.st.log
        self.log_n = self.st.log_n
        self.forbid = forbid_table(forbid)
        self._out = np.zeros(max(self.max_actions, N_ROW), np.int64)
        self.seed = np.uint64(seed)
        self.playout = np.int64(playout)
        self.decisions = 0  # actions applied so far (keys a search player's streams)
        self.search = game.search_settings(prep, self.st)
        self.ws = (SP.new_workspace(self.st, self.forbid, int(self.search[0].max()),
                                    SEARCH_DRAFT_K[prep.players], TABLE,
                                    game.sizes(prep))
                   if self.search[0].max() > 0 else None)
        self.k = kernel_calls(run, SP, self.ws, self.search, self.forbid, seed,
                              SEARCH_MAX_ROLLOUT, out_size=len(self._out))
        self.k.out = self._out
        self._k(Call.SETUP, self.playout)

    # --- hooks into the kernels ---
    def _choose(self) -> int:
        seat = int(self.st.actor[0])
        if self.ws is not None and seat >= 0 and self.search[0][seat] > 0:
            return self.k.decide(self.st, self.playout, self.decisions)
        return self._k(Call.CHOOSE)

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return int(self.st.phase[0]) == int(KR.OVER)

    def turn(self) -> int:
        """0 during the draft, then the round number counted across both phases."""
        return int(self.st.turn[0])

    def phase(self) -> str:
        """The decision the game waits for (rules.PHASES)."""
        return KR.PHASES[int(self.st.phase[0])]

    def option_of(self, action: int) -> int:
        """The option (index into rules.OPTIONS) an action of the player to act uses, or -1.

        A declaration by a seat forbidden every ability uses none (-1): a declaration
        cannot be skipped, so the players lift that ban (players.py) and the forced
        declaration, like passing, is never a forbidden choice."""
        option = self._k(Call.OPTION, action)
        seat = self.current_player()
        if option >= KR.OPT_ABILITY and seat >= 0 and self.forbid[seat, KR.OPT_ABILITY:].all():
            return -1
        return option

    def row(self) -> dict[str, int]:
        """The finished game's --save-games row."""
        row = np.zeros(N_ROW, np.int64)
        self._k(Call.ROW, out=row)
        return {c: int(v) for c, v in zip(ROW_COLUMNS, row, strict=True)}

    def outcome(self) -> dict[str, Any]:
        """Winner (seat from 1), length in rounds, both phases' rounds, Halls of Honor."""
        st = self.st
        P = self.prep.players
        champion = int(st.champion[0])
        return {
            "winners": [champion + 1] if champion >= 0 else [],
            "length": int(st.rnd[0] + st.frnd[0]),
            "clan_conflict_rounds": int(st.rnd[0]),
            "final_battle_rounds": int(st.frnd[0]),
            "final_battle_clans": int(st.fb_players[0]),
            "hall_of_honor": [int(st.hall_fb[p]) for p in range(P)],
            "clan_totals": [int(st.clan_tot[p]) for p in range(P)],
        }

    # --- words ---
    def samurai(self, c: int) -> str:
        """A samurai's name and ratings, e.g. 'Kalia Cindertrap (P4 S2 A1 K3)'."""
        r = self.prep.ratings[c]
        return f"{self.prep.names[c]} (P{r[0]} S{r[1]} A{r[2]} K{r[3]})"

    def card(self, code: int) -> str:
        """A card code in words: a samurai or a battle card."""
        return self.samurai(code) if code >= 0 else BATTLE_CARDS[-1 - code]

    def observation(self, player: int) -> dict[str, Any]:
        """What seat `player` (from 0) sees: the public table, its own hand and draw pile,
        and of every rival only what is public (no hand, no face-down samurai)."""
        st = self.st
        P = self.prep.players
        ph = int(st.phase[0])

        def pile(arr, n):
            return [self.card(int(c)) for c in arr[:n]]

        table = {}
        if ph in (int(KR.FIELD), int(KR.FB_FIELD), int(KR.OFFER)):
            shown = ph == int(KR.OFFER)  # turned up and rolled
            for q in range(P):
                fielded = st.part[q] and (shown or q < st.actor[0])
                if fielded and (shown or q == player):
                    table[q + 1] = {"samurai": self.samurai(int(st.field[q]))}
                    if shown:
                        table[q + 1]["dice"] = [int(st.t1[q]), int(st.t2[q])]
                elif fielded:
                    table[q + 1] = {"samurai": "face down"}
        rivals = {
            q + 1: {"hand_size": int(st.hand_n[q]), "draw_pile": int(st.deck_n[q]),
                    "hall_of_honor": pile(st.hall[q], int(st.hall_n[q])),
                    "drafted": [self.prep.names[c] for c in np.nonzero(st.owner == q)[0]]}
            for q in range(P) if q != player
        }
        return {
            "seat": player + 1, "phase": KR.PHASES[ph], "turn": int(st.turn[0]),
            "clan_conflict_rounds": int(st.rnd[0]), "final_battle_rounds": int(st.frnd[0]),
            "declarer": int(st.declarer[0]) + 1,
            "ability": None if ph in (int(KR.DRAFT), int(KR.DECLARE), int(KR.FB_DECLARE))
            else ABILITIES[int(st.ability[0])],
            "pool": pile(st.avail, int(st.avail_n[0])) if ph == int(KR.DRAFT) else [],
            "hand": pile(st.hand[player], int(st.hand_n[player])),
            "draw_pile": int(st.deck_n[player]),
            "hall_of_honor": pile(st.hall[player], int(st.hall_n[player])),
            "table": table, "discard": pile(st.disc, int(st.disc_n[0])), "rivals": rivals,
        }

    def describe_action(self, action: int) -> str:
        """An action of the player to act, in words."""
        st = self.st
        ph = int(st.phase[0])
        if ph == int(KR.DRAFT):
            return f"drafts {self.samurai(action)}"
        if ph in (int(KR.DECLARE), int(KR.FB_DECLARE)):
            return f"declares {ABILITIES[action].upper()}"
        if ph == int(KR.FIELD):
            c, b = divmod(action, 3)
            card = ("", " with Ninjutsu", " with Uma")[b]
            return f"fields {self.samurai(c)} face down{card}"
        if ph == int(KR.OFFER):
            if action == KR.PASS:
                return "passes (no after-rolling card)"
            if action == KR.PLAY_RONIN:
                return "plays Ronin (steals the winning samurai)"
            if action == KR.PLAY_MEDICINE:
                return "plays Medicine (keeps its samurai if defeated)"
            q = action - int(KR.BUSHIDO_ON)
            whose = "its own" if q == int(st.actor[0]) else f"seat {q + 1}'s"
            return f"plays Bushido: rerolls {whose} dice"
        if ph == int(KR.FB_FIELD):
            return f"fields {self.samurai(action)} face down"
        return f"action {action}"

    def describe_event(self, kind: int, a: int, b: int, c: int, d: int) -> tuple[str, str]:
        """(kind name, detail in words) of an event of the rules' log (rules.Ev)."""
        ev = KR.Ev(kind)
        phase = ("Clan Conflict", "Final Battle")
        before = {-1: "", int(KR.NINJUTSU): " with Ninjutsu", int(KR.UMA): " with Uma"}
        words = {
            KR.Ev.POOL: lambda: f"{self.samurai(a)} is laid face up for the draft",
            KR.Ev.CLAN: lambda: f"drafted {b} samurai, ability total {a}",
            KR.Ev.DRAW: lambda: f"draws {self.card(a)}",
            KR.Ev.RESHUFFLE: lambda: f"hand of {a} battle cards shuffled back into the "
                                     f"draw pile",
            KR.Ev.ROUND: lambda: f"{phase[a]} round {b}: {c} clans fight, seat {d + 1} "
                                 f"declares",
            KR.Ev.REVEAL: lambda: f"reveals {self.samurai(a)}{before[b]} "
                                  f"({ABILITIES[d].upper()} {c})",
            KR.Ev.ROLL: lambda: self._roll(a, b, c, d),
            KR.Ev.DIE: lambda: f"{'Bushido reroll, ' if d == 2 else ''}die {b} of {c}: {a}",
            KR.Ev.TIEBREAK: lambda: f"tiebreaker die: {a}",
            KR.Ev.TAKES: lambda: f"puts {self.samurai(a)} into its Hall of Honor"
                                 + (f" (won by seat {b + 1}, stolen with Ronin)" if c else ""),
            KR.Ev.SAVED: lambda: f"Medicine: {self.samurai(a)} goes back to its hand",
            KR.Ev.DISCARD: lambda: f"discards {self.card(a)}",
            KR.Ev.FINAL: lambda: f"brings {a} samurai to the Final Battle",
            KR.Ev.BACK: lambda: f"wins; {self.samurai(a)} goes back to its hand",
            KR.Ev.OUT: lambda: "has no samurai left: out of the Final Battle",
            KR.Ev.CAPPED: lambda: f"the Clan Conflict is stopped after {a} rounds (cap)",
            KR.Ev.RESULT: lambda: f"wins the game after {a} Clan Conflict and {b} Final "
                                  f"Battle rounds",
        }
        return ev.name.lower(), words[ev]()

    def _roll(self, a: int, b: int, c: int, d: int) -> str:
        if d == 1:
            return f"Uma: rolls no dice, shows {a} and {b}"
        how = "Bushido reroll of" if d == 2 else "rolls"
        if c == 1:
            return f"{how} 1 die: {a}"
        return f"{how} {c} dice: highest {a}, second {b}"
