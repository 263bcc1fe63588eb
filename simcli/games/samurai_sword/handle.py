"""Samurai Sword's step-by-step handle (`simcli replay`): one playout driven decision by
decision, and its log's events in words."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from kernels.samurai_sword import play as KP
from kernels.samurai_sword import rules as K
from kernels.samurai_sword import stats as KS
from kernels.samurai_sword.play import Call
from simcli.games.handle import GameHandle, kernel_calls
from simcli.games.samurai_sword.content import MAX_P, ROLES, SwordContent
from simcli.games.samurai_sword.policies import KSP, SEARCH_MAX_ROLLOUT, search_knobs
from simcli.games.samurai_sword.stats import END_REASONS, TEAMS

if TYPE_CHECKING:
    from simcli.games.samurai_sword.game import Prepared, SamuraiSword

PHASE_WORDS = {
    K.PH_OVER: "the game is over", K.PH_PLAY: "Play phase",
    K.PH_PARRY: "answering a Weapon attack", K.PH_BATTLE_CRY: "answering a Battle Cry",
    K.PH_JUJUTSU: "answering Jujutsu", K.PH_BUSHIDO: "answering Bushido's Weapon",
    K.PH_IEYASU: "Ieyasu's first draw", K.PH_DISCARD: "discarding down to the hand limit",
}
HONOR_WHY = {K.HONOR_DEFEAT: "defeat", K.HONOR_RESHUFFLE: "deck reshuffle",
             K.HONOR_BUSHIDO: "Bushido"}
DISCARD_WHY = {K.DISCARD_LIMIT: "over the hand limit", K.DISCARD_JUJUTSU: "to Jujutsu",
               K.DISCARD_BUSHIDO: "to Bushido", K.DISCARD_GEISHA: "to a Geisha",
               K.DISCARD_BATTLE_CRY: "to parry a Battle Cry"}
LOG_ROWS = 1 << 16


class SwordHandle(GameHandle):
    """One Samurai Sword playout driven step by step, with its log in words."""

    calls = Call

    def __init__(self, game: SamuraiSword, prep: Prepared, seed: int, playout: int,
                 rotation: int = 0) -> None:
        self.game = game
        self.prep = prep
        self.c: SwordContent = prep.content
        self.aggs = game.new_aggregates(prep)
        self.st = game.state(prep, self.aggs, log_rows=LOG_ROWS, rotation=rotation)
        self.log_buf = self.st.log
        self.log_n = self.st.game[0]["log_n"]  # a view: the kernels count into it
        self.max_actions = K.n_actions(len(prep.copies))
        self.forbid = np.zeros((MAX_P, K.N_OPTIONS), np.bool_)  # tests may forbid options
        self.seed = np.uint64(seed)
        self.playout = np.int64(playout)
        self.decisions = 0  # decisions taken so far (keys a search player's streams)
        self.search = game.search_settings(prep, self.st)
        self.ws = (KSP.new_workspace(self.st, self.forbid, int(self.search[0].max()),
                                     search_knobs(), KS.TABLE, game.sizes(prep))
                   if self.search[0].max() > 0 else None)
        self.k = kernel_calls(KP.run, KSP, self.ws, self.search, self.forbid, seed,
                              SEARCH_MAX_ROLLOUT, out_size=KP.N_ROW)
        self._k(Call.SETUP, self.playout)

    # --- hooks ---
    def _choose(self) -> int:
        seat = self._k(Call.TO_MOVE)
        if self.ws is not None and seat >= 0 and self.search[0][seat] > 0:
            return self.k.decide(self.st, self.playout, self.decisions)
        return self._k(Call.CHOOSE)

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return bool(self._k(Call.IS_OVER))

    def turn(self) -> int:
        """The turn being played (0 during setup)."""
        return int(self.st.game[0]["log_turn"])

    def row(self) -> dict[str, int]:
        """The finished game's --save-games row, by column name."""
        self._k(Call.ROW)
        row = self.k.out[:KP.N_ROW]
        return {c: int(v) for c, v in zip(self.game.row_columns, row, strict=True)}

    def outcome(self) -> dict[str, Any]:
        """Winning team and seats, how the game ended, its length and the team scores."""
        g = self.st.game[0]
        win = int(g["win"])
        self._k(Call.OUTCOME)
        out = self.k.fout[:MAX_P]
        P = int(g["players"])
        scored = int(g["end"]) not in (KS.End.CAP, KS.End.SWORDMASTER)
        scores = {TEAMS[t]: int(g["team_score"][t]) for t in range(K.N_TEAM)
                  if scored and g["team_size"][t] > 0}
        return {
            "winners": [s + 1 for s in range(P) if out[s] > 0],
            "team": TEAMS[win] if win >= 0 else None,
            "end": END_REASONS[int(g["end"])],
            "length": int(g["turns"]),
            "scores": scores,
            "roles": {s + 1: self.role_name(s) for s in range(P)},
        }

    def observation(self, player: int) -> dict[str, Any]:
        """What seat `player` (from 0) can see now (rules.observe), in words."""
        T = len(self.c.card_names)
        v = np.zeros(K.obs_size(T), np.int64)
        self._k(Call.OBSERVE, player, out=v)
        P = int(v[K.OBS_PLAYERS])
        seats = {}
        for s in range(P):
            b = K.OBS_HEAD + s * (K.OS_FIELDS + T)
            props = v[b + K.OS_FIELDS:b + K.OS_FIELDS + T]
            seats[s + 1] = {
                "character": self.c.char_names[v[b + K.OS_CHAR]],
                "resilience": f"{v[b + K.OS_RES]}/{v[b + K.OS_MAX_RES]}",
                "honor": int(v[b + K.OS_HONOR]), "cards in hand": int(v[b + K.OS_HAND]),
                "properties": self.cards_in(props),
                "hostile acts against the Shogun": int(v[b + K.OS_HOSTILE]),
                "hostile acts against the Shogun's attackers": int(v[b + K.OS_LOYAL]),
            }
        i = K.OBS_HEAD + K.MAX_P * (K.OS_FIELDS + T)
        role = ROLES[v[K.OBS_ROLE]]
        mine = {"seat": player + 1, "role": role, "score multiplier": int(v[K.OBS_MULT]),
                "hand": self.cards_in(v[i:i + T])}
        if role == "ninja":
            mine["ninja stars"] = int(v[K.OBS_STARS])
        return {
            "you": mine, "shogun": f"seat {v[K.OBS_SHOGUN] + 1}",
            "turn": int(v[K.OBS_TURN]), "turn of": f"seat {v[K.OBS_ACTOR] + 1}",
            "deciding": (f"seat {v[K.OBS_TO_MOVE] + 1}: {PHASE_WORDS[int(v[K.OBS_PHASE])]}"
                         if v[K.OBS_TO_MOVE] >= 0 else PHASE_WORDS[K.PH_OVER]),
            "deck": int(v[K.OBS_DECK]), "discard pile": self.cards_in(v[i + T:i + 2 * T]),
            "bushido in front of": (f"seat {v[K.OBS_BUSHIDO] + 1}" if v[K.OBS_BUSHIDO] >= 0
                                    else None),
            "weapons played this turn": int(v[K.OBS_WEAPONS_PLAYED]),
            "reshuffles": int(v[K.OBS_RESHUFFLES]),
            "players": seats,
        }

    def describe_action(self, action: int) -> str:
        """An action of the player to act, in words."""
        ph = int(self.st.game[0]["phase"])
        a = int(action)
        if ph == K.PH_PLAY:
            return self.describe_play(a)
        card = self.card(a - K.GIVE) if a >= K.GIVE else ""
        attacker = self.who(int(self.st.game[0]["attacker"]))
        words = {
            K.PH_PARRY: ("takes the hit", f"parries {attacker}'s Weapon with {card}"),
            K.PH_BATTLE_CRY: ("takes 1 wound from the Battle Cry",
                              f"parries {attacker}'s Battle Cry with {card}"),
            K.PH_JUJUTSU: ("takes 1 wound from Jujutsu", f"discards {card} to Jujutsu"),
            K.PH_BUSHIDO: ("loses 1 Honor to Bushido (Bushido is discarded)",
                           f"gives {card} to Bushido (Bushido passes on)"),
            K.PH_DISCARD: ("", f"discards {card} (hand limit)"),
        }
        if ph == K.PH_IEYASU:
            g = self.st.game[0]
            top = self.card(int(g["disc"][int(g["disc_n"]) - 1]))
            return (f"Ieyasu takes {top} from the discard pile" if a == K.IEYASU
                    else f"Ieyasu leaves {top} and draws from the deck")
        passed, gave = words[ph]
        return passed if a == K.PASS else gave

    def describe_play(self, a: int) -> str:
        """A Play phase action in words."""
        if a == K.PASS:
            return "ends the turn"
        if a == K.NOBUNAGA:
            return "Nobunaga pays 1 resilience to draw a card"
        self._k(Call.PARTS, a)
        t, q, o = (int(x) for x in self.k.out[:3])
        card = self.card(t)
        e = int(self.c.effects[t])
        if e == K.WEAPON:
            return f"attacks {self.who(q)} with {card}"
        if e == K.BUSHIDO:
            return f"puts Bushido in front of {self.who(q)}"
        if e >= K.FOCUS:
            return f"puts {card} in front of itself"
        if e == K.BREATHING:
            return f"plays Breathing: heals fully, {self.who(q)} draws a card"
        if e == K.DIVERSION:
            return f"plays Diversion on {self.who(q)}: takes a random card from its hand"
        if e == K.GEISHA:
            what = f"its {self.card(o)}" if o >= 0 else "a random card from its hand"
            return f"plays Geisha on {self.who(q)}: discards {what}"
        return f"plays {card}"

    def describe_event(self, kind: int, a: int, b: int, c: int, d: int) -> tuple[str, str]:
        """(kind name, detail in words) of a logged event."""
        name, say = EVENT_WORDS[kind]
        return name, say(self, a, b, c, d)

    # --- words ---
    def card(self, t: int) -> str:
        """A card type's name."""
        return self.c.card_names[t]

    def cards_in(self, counts: np.ndarray) -> dict[str, int]:
        """{card name: count} for the non-zero counts by card type."""
        return {self.card(t): int(n) for t, n in enumerate(counts) if n}

    def who(self, s: int) -> str:
        """'seat N (Character)'."""
        char = int(self.st.seats[s]["char"])
        return f"seat {s + 1} ({self.c.char_names[char]})"

    def role_name(self, s: int) -> str:
        """A seat's role, capitalised."""
        return ROLES[int(self.st.seats[s]["role"])].capitalize()


def _role(h: SwordHandle, a: int, b: int, c: int, d: int) -> str:
    stars = f", {b} star{'s' if b != 1 else ''}" if ROLES[a] == "ninja" else ""
    return f"role {ROLES[a].capitalize()}{stars}, score x{c}, {d} Honor"


def _honor(h: SwordHandle, a: int, b: int, c: int, d: int) -> str:
    change = f"gains {a}" if a > 0 else f"loses {-a}"
    whom = f" ({'to' if a < 0 else 'from'} seat {d + 1})" if d >= 0 else ""
    return f"{change} Honor{whom}, now {b} ({HONOR_WHY[c]})"


def _end(h: SwordHandle, a: int, b: int, c: int, d: int) -> str:
    sword = f": {TEAMS[b]}" if a == KS.End.SWORDMASTER else ""
    return f"the game ends: {END_REASONS[a]}{sword}"


def _result(h: SwordHandle, a: int, b: int, c: int, d: int) -> str:
    if a < 0:
        return "no winner (turn cap)"
    seats = ", ".join(f"{s + 1} ({h.role_name(s)})" for s in range(K.MAX_P) if b >> s & 1)
    deadly = f"; Deadly Strike on {TEAMS[c]}" if c >= 0 else ""
    return f"{TEAMS[a]} win: seats {seats}{deadly}"


def _remove(h: SwordHandle, a: int, b: int, c: int, d: int) -> str:
    if b >= 0:
        return f"{h.who(a)} loses its {h.card(b)} in play"
    return f"{h.who(a)} discards {h.card(c)} at random from its hand"


EVENT_WORDS = {
    K.EV_ROLE: ("role", _role),
    K.EV_CHARACTER: ("character", lambda h, a, b, c, d:
                     f"character {h.c.char_names[a]}, resilience {b}"),
    K.EV_DEAL: ("deal", lambda h, a, b, c, d: f"dealt {h.card(a)}"),
    K.EV_TURN: ("turn", lambda h, a, b, c, d:
                f"starts its turn: resilience {a}, {b} cards in hand"),
    K.EV_RECOVER: ("recover", lambda h, a, b, c, d: f"recovers all resilience ({a})"),
    K.EV_DRAW: ("draw", lambda h, a, b, c, d:
                f"draws {h.card(a)}{' from the discard pile' if b else ''}"),
    K.EV_RESHUFFLE: ("reshuffle", lambda h, a, b, c, d:
                     f"the deck is empty: {a} discards reshuffled (reshuffle {b}), every "
                     f"player loses 1 Honor"),
    K.EV_HONOR: ("honor", _honor),
    K.EV_ATTACK: ("attack", lambda h, a, b, c, d:
                  f"attacks {h.who(a)} with {h.card(b)} (Difficulty {c}, {d} "
                  f"wound{'s' if d != 1 else ''} if it hits)"),
    K.EV_PARRY: ("parry", lambda h, a, b, c, d:
                 f"parries seat {b + 1}'s attack with {h.card(a)}"),
    K.EV_WOUND: ("damage", lambda h, a, b, c, d:
                 f"takes {a} wound{'s' if a != 1 else ''} from seat {d + 1}: loses {b} "
                 f"resilience, {c} left"),
    K.EV_DEFEAT: ("defeat", lambda h, a, b, c, d:
                  f"is defeated by {h.who(a)} (Harmless until its turn)"),
    K.EV_DISCARD: ("discard", lambda h, a, b, c, d:
                   f"discards {h.card(a)} {DISCARD_WHY[b]}"),
    K.EV_PROPERTY: ("property", lambda h, a, b, c, d:
                    f"{h.card(a)} now in front of {h.who(b)}"),
    K.EV_TAKE: ("diversion", lambda h, a, b, c, d:
                f"takes {h.card(a)} at random from {h.who(b)}"),
    K.EV_REMOVE: ("geisha", _remove),
    K.EV_HEAL: ("heal", lambda h, a, b, c, d: f"Breathing: resilience back to {a}"),
    K.EV_BUSHIDO_FLIP: ("bushido", lambda h, a, b, c, d:
                        f"Bushido turns up {h.card(a)}"
                        f"{': a Weapon!' if h.c.effects[a] == K.WEAPON else ''}"),
    K.EV_BUSHIDO_MOVE: ("bushido", lambda h, a, b, c, d:
                        f"Bushido passes to {h.who(a)}" if a >= 0
                        else "Bushido is discarded"),
    K.EV_NOBUNAGA: ("nobunaga", lambda h, a, b, c, d:
                    f"pays 1 resilience ({a} left) to draw"),
    K.EV_EMPTY: ("draw", lambda h, a, b, c, d: "nothing to draw: deck and discard pile "
                 "are empty"),
    K.EV_END: ("end", _end),
    K.EV_SCORE: ("score", lambda h, a, b, c, d: f"{TEAMS[a]} score {b}"),
    K.EV_RESULT: ("result", _result),
    K.EV_HAND: ("hand", lambda h, a, b, c, d: f"ends the game holding {a} {h.card(b)}"),
}
