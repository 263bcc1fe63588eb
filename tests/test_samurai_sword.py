"""Samurai Sword rules on hand-built positions, scripted through the Python handle
(game.new_game, then the state edited and actions applied): combat, every character
ability, every card, Harmless players, defeat and the end of the game, Bushido, the deck,
scoring, setup, and the heuristic's choices."""

from collections import Counter

import numpy as np
import pytest

from kernels.samurai_sword import rules as K
from kernels.samurai_sword.players import HEURISTIC
from kernels.samurai_sword.stats import End, Misc, Team
from simcli.games.handle import IllegalAction
from simcli.games.samurai_sword import ROLES, SamuraiSword
from tests import naive_sword as N

GAME = SamuraiSword()
CONTENT = GAME.load_content(GAME.content_path(None))
C = CONTENT.data
T = len(C.card_names)
TYPE = {name: i for i, name in enumerate(C.card_names)}
AFTER_RECOVER = ["bushido-timing=after-recover"]  # Bushido at the end of Recover
TEAM_OF_ROLE = {0: Team.SHOGUN, 1: Team.SHOGUN, 2: Team.NINJA, 3: Team.RONIN}


class Pos:
    """A hand-built position on a Python handle: seat 0 is the Shogun; every seat has no
    ability unless given a character; hands start empty; the deck is the given names
    (top = last); it is seat 0's Play phase."""

    def __init__(self, P, roles=None, chars=None, res=None, honor=None, policy="heuristic",
                 rules=(), deck=("Parry",) * 30, disc=(), seed=1):
        self.P = P
        self.h = GAME.new_game(seed=seed, players=P, seats=[policy] * P, rules=list(rules))
        self.st = self.h.st
        self.g = self.st.game[0]
        roles = roles or ["shogun"] + ["ninja"] * (P - 1)
        chars = chars or [None] * P
        for s in range(P):
            seat = self.st.seats[s]
            r = ROLES.index(roles[s])
            seat["role"], seat["team"], seat["stars"], seat["mult"] = r, TEAM_OF_ROLE[r], 0, 1
            if chars[s] is None:
                seat["char"], seat["ability"], seat["max_res"] = 0, K.NO_ABILITY, 5
            else:
                c = C.char_names.index(chars[s])
                seat["char"], seat["ability"] = c, C.abilities[c]
                seat["max_res"] = C.resilience[c]
            seat["res"] = seat["max_res"] if res is None else res[s]
            seat["honor"] = 3 if honor is None else honor[s]
            for f in ("hand", "props", "prop_n"):
                seat[f][:] = 0
            seat["hand_n"] = seat["hostile"] = seat["loyal"] = 0
        g = self.g
        g["bushido"] = g["sword"] = g["deadly"] = g["win"] = -1
        g["end"] = g["turns"] = g["reshuffles"] = g["weapons_played"] = g["plays"] = 0
        self.set_deck(deck)
        g["disc_n"] = 0
        for name in disc:
            g["disc"][g["disc_n"]] = TYPE[name]
            g["disc_n"] += 1
        self.decide_for(0)

    # --- building ---
    def set_deck(self, names):
        for i, name in enumerate(names):
            self.g["deck"][i] = TYPE[name]
        self.g["deck_n"] = len(names)

    def give(self, p, *names):
        for name in names:
            self.st.seats[p]["hand"][TYPE[name]] += 1
            self.st.seats[p]["hand_n"] += 1
        return self

    def take_all(self, p):
        self.st.seats[p]["hand"][:] = 0
        self.st.seats[p]["hand_n"] = 0
        return self

    def put(self, p, name):
        c = TYPE[name]
        self.st.seats[p]["props"][c] += 1
        self.st.seats[p]["prop_n"][C.effects[c] - K.FOCUS] += 1
        if C.effects[c] == K.BUSHIDO:
            self.g["bushido"] = p
        return self

    def set(self, p, **fields):
        for k, v in fields.items():
            self.st.seats[p][k] = v
        return self

    # --- reading ---
    def hand_of(self, p):
        return Counter({C.card_names[c]: int(n) for c, n in enumerate(self.st.seats[p]["hand"])
                        if n})

    def res(self, p):
        return int(self.st.seats[p]["res"])

    def honor(self, p):
        return int(self.st.seats[p]["honor"])

    def props_of(self, p):
        return Counter({C.card_names[c]: int(n)
                        for c, n in enumerate(self.st.seats[p]["props"]) if n})

    def discards(self):
        return Counter(C.card_names[c] for c in self.g["disc"][:self.g["disc_n"]])

    def total_cards(self):
        seats = self.st.seats[:self.P]
        return int(self.g["deck_n"] + self.g["disc_n"] + seats["hand"].sum()
                   + seats["props"].sum())

    @property
    def end(self):
        return int(self.g["end"])

    @property
    def misc(self):
        """The counts so far (this game's join the run's statistics when it ends)."""
        done = self.h.aggs["misc"]
        return done if self.h.is_over() else done + self.g["misc"]

    # --- playing ---
    def decide_for(self, p):
        """Make it p's Play phase."""
        self.g["phase"] = K.PH_PLAY
        self.g["actor"] = self.g["to_act"] = p

    def code(self, p, card, q=-1, o=-1):
        if card == "end":
            return int(K.PASS)
        if card == "nobunaga":
            return int(K.NOBUNAGA)
        c = card if isinstance(card, int) else TYPE[card]
        return int(K.action_code(self.st, c, p if q < 0 else q, o))

    def play(self, p, card, q=-1, o=-1):
        """p plays a card (at q, option o) in its Play phase; the other players answer
        under their policies."""
        self.decide_for(p)
        self.h.apply(self.code(p, card, q, o))
        while not self.h.is_over() and not (self.g["phase"] == K.PH_PLAY
                                            and self.g["to_act"] == p):
            self.h.step()
        return self

    def start(self, p):
        """p's turn starts: Recover, Bushido, Draw, up to its first decision."""
        self.g["actor"] = p
        self.g["phase"] = K.ST_TURN
        K.resume(self.st)
        return self

    def finish_turn(self):
        """The player whose turn it is plays it out under its policy (up to the next
        seat's first decision)."""
        p = int(self.g["actor"])
        while not self.h.is_over() and int(self.g["actor"]) == p:
            self.h.step()
        return self

    def turn(self, p):
        return self.start(p).finish_turn()

    def decode(self, a):
        if a == K.PASS:
            return "end", -1, -1
        if a == K.NOBUNAGA:
            return "nobunaga", -1, -1
        c, q, o = (int(x) for x in K.action_parts(self.st, a))
        return C.card_names[c], q, o

    def legal(self, p):
        self.decide_for(p)
        return [self.decode(a) for a in self.h.legal_actions()]

    def weapon_targets(self, p):
        return {(name, q) for name, q, _ in self.legal(p)
                if name in TYPE and C.effects[TYPE[name]] == K.WEAPON}

    def heuristic(self, p):
        """The heuristic's play for p now, whatever p's policy (its stream restored)."""
        self.decide_for(p)
        saved = self.g["rng"].copy()
        policy = int(self.st.seats[p]["policy"])
        self.st.seats[p]["policy"] = HEURISTIC
        a = self.h.choose()
        self.st.seats[p]["policy"] = policy
        self.g["rng"][:] = saved
        return self.decode(a)

    def difficulty(self, p, q):
        return int(K.difficulty_of(self.st, p, q))

    def damage(self, p, q, name):
        return int(K.damage_of(self.st, p, q, TYPE[name]))

    def weapons_allowed(self, p):
        return int(K.weapons_allowed(self.st, p))

    def score(self):
        win = int(K.score_now(self.st))
        return win, [int(x) for x in self.g["team_score"]]


def everyone_holds(pos, name="Parry"):
    for s in range(pos.P):
        if pos.st.seats[s]["hand_n"] == 0:
            pos.give(s, name)
    return pos


# --- the rulebook's examples -------------------------------------------------------------

def test_rulebook_scoring_example_six_players_daimyo_tie():
    roles = ["shogun", "samurai", "ronin", "ninja", "ninja", "ninja"]
    t = Pos(6, roles=roles, honor=[1, 3, 3, 2, 3, 0])
    for s, m in enumerate([1, 2, 3, 1, 1, 1]):
        t.set(s, mult=m)
    assert t.score() == (Team.RONIN, [7, 5, 9])  # Shogun 1 + Samurai 3x2 = 7; Ronin 3x3
    t.give(0, "Daimyo").give(1, "Daimyo")  # each worth 1, never multiplied
    assert t.score() == (Team.SHOGUN, [9, 5, 9])  # tie with the Ronin: the Shogun wins


def test_rulebook_scoring_example_played_to_the_end():
    """The example's position reached in play: the last Ninja's Honor goes to Bushido."""
    roles = ["shogun", "samurai", "ronin", "ninja", "ninja", "ninja"]
    t = Pos(6, roles=roles, honor=[1, 3, 3, 2, 3, 1], deck=["Parry"] * 5 + ["Bokken"],
            rules=AFTER_RECOVER)
    for s, m in enumerate([1, 2, 3, 1, 1, 1]):
        t.set(s, mult=m)
    t.give(0, "Daimyo").give(1, "Daimyo").give(5, "Parry").put(5, "Bushido")
    t.start(5)  # Bushido turns up a Bokken; seat 6 has no Weapon: its last Honor goes
    assert t.h.is_over() and t.end == End.HONOR_BUSHIDO and t.honor(5) == 0
    out = t.h.outcome()
    assert out["scores"] == {"Shogun & Samurai": 9, "Ninjas": 5, "Ronin": 9}
    assert out["team"] == "Shogun & Samurai" and out["winners"] == [1, 2]
    assert t.misc[Misc.TIE_DECIDED] == 1


def test_rulebook_difficulty_with_two_armor():
    t = everyone_holds(Pos(6)).put(0, "Armor").put(0, "Armor")  # A is seat 0
    assert [t.difficulty(b, 0) for b in (1, 5)] == [3, 3]  # B and F
    assert [t.difficulty(c, 0) for c in (2, 4)] == [4, 4]  # C and E
    assert t.difficulty(3, 0) == 5  # D
    assert [t.difficulty(0, q) for q in range(1, 6)] == [1, 2, 3, 2, 1]  # A's own attacks


def test_rulebook_which_weapons_reach_difficulty_3_and_4():
    t = everyone_holds(Pos(6, policy="random"))
    t.give(0, "Daikyu", "Nodachi", "Naginata", "Bo", "Wakizashi")
    on_d = {w for w, q in t.weapon_targets(0) if q == 3}
    assert on_d == {"Daikyu", "Nodachi", "Naginata"}  # Bo and Wakizashi do not reach
    t.put(3, "Armor")
    assert {w for w, q in t.weapon_targets(0) if q == 3} == {"Daikyu", "Naginata"}


# --- combat and Harmless players ---------------------------------------------------------

def test_harmless_players_are_skipped_for_difficulty_and_cannot_be_targeted():
    t = everyone_holds(Pos(6, policy="random")).give(0, "Bo")
    assert t.difficulty(0, 2) == 2
    t.take_all(1)  # empty hand: Harmless
    assert t.difficulty(0, 2) == 1
    assert ("Bo", 1) not in t.weapon_targets(0) and ("Bo", 2) in t.weapon_targets(0)
    t.give(1, "Parry").set(1, res=0)  # no resilience: Harmless as well
    assert t.difficulty(0, 2) == 1 and ("Bo", 1) not in t.weapon_targets(0)


def test_harmless_players_are_untouched_by_battle_cry_and_jujutsu():
    t = Pos(4, policy="random").give(0, "Battle Cry", "Jujutsu").give(1, "Bokken")
    t.set(1, res=0)  # defeated: Harmless until its turn
    t.give(2, "Geisha")  # no Parry, no Weapon
    t.play(0, "Battle Cry").play(0, "Jujutsu")
    assert t.hand_of(1) == Counter({"Bokken": 1}) and t.res(1) == 0
    assert t.res(2) == 3 and t.res(3) == 5  # seat 3 has no card at all: Harmless, untouched


def test_a_hit_wounds_and_a_parry_stops_the_weapon():
    t = everyone_holds(Pos(4)).give(0, "Kiseru", "Kiseru")
    t.take_all(1).give(1, "Geisha")  # no Parry
    t.play(0, "Kiseru", 1)
    assert t.res(1) == 3 and t.discards()["Kiseru"] == 1
    t.g["weapons_played"] = 0
    t.play(0, "Kiseru", 3)  # seat 3 holds a Parry
    assert t.res(3) == 5 and t.hand_of(3) == Counter() and t.discards()["Parry"] == 1
    assert t.misc[Misc.PARRIED] == 1 and t.misc[Misc.HITS] == 1


def test_only_one_weapon_per_turn_unless_focus():
    t = everyone_holds(Pos(4, policy="random")).give(0, "Bokken", "Bokken")
    t.play(0, "Bokken", 1)
    with pytest.raises(IllegalAction):
        t.play(0, "Bokken", 1)


def test_weapons_per_turn_focus_goemon():
    t = everyone_holds(Pos(4, chars=[None, "Goemon", None, None], policy="random"))
    t.give(0, "Bokken", "Bokken")
    assert t.weapons_allowed(0) == 1 and t.weapons_allowed(1) == 2
    t.play(0, "Bokken", 1)
    assert t.weapon_targets(0) == set()  # one Weapon per turn
    t.give(0, "Focus").play(0, "Focus")
    assert t.weapons_allowed(0) == 2 and t.weapon_targets(0)


def test_fast_draw_and_musashi_add_wounds_and_ginchiyo_takes_one_less():
    t = everyone_holds(Pos(4, chars=["Musashi", None, "Ginchiyo", None]))
    t.set(1, res=9, max_res=9)
    t.put(0, "Fast Draw").put(0, "Fast Draw")
    assert t.damage(0, 1, "Bokken") == N.damage(1, 2, True, False) == 4
    t.st.seats[0]["prop_n"][:] = 0
    t.set(0, ability=K.NO_ABILITY)
    assert t.damage(0, 2, "Kiseru") == 1  # 2 - 1
    assert t.damage(0, 2, "Bokken") == 1  # never below 1


def test_rules_combat_agrees_with_the_reference_on_random_tables():
    rng = np.random.default_rng(5)
    t = Pos(7, policy="random")
    for _ in range(150):
        P = int(rng.integers(3, 8))
        t.P = P
        t.g["players"] = P
        for s in range(7):
            t.take_all(s)
            t.st.seats[s]["prop_n"][:] = 0
        for s in range(P):
            if rng.random() < 0.8:
                t.give(s, "Parry")
            t.set(s, res=int(rng.integers(0, 3)), ability=int(rng.choice(
                [K.NO_ABILITY, K.BENKEI, K.GINCHIYO, K.MUSASHI])))
            t.st.seats[s]["prop_n"][K.ARMOR - K.FOCUS] = int(rng.integers(0, 3))
            t.st.seats[s]["prop_n"][K.FAST_DRAW - K.FOCUS] = int(rng.integers(0, 3))
        harmless = [N.is_harmless(t.res(s), int(t.st.seats[s]["hand_n"])) for s in range(P)]
        p, q = (int(x) for x in rng.choice(P, 2, replace=False))
        armor = int(t.st.seats[q]["prop_n"][K.ARMOR - K.FOCUS])
        want = N.difficulty(p, q, harmless, armor, t.st.seats[q]["ability"] == K.BENKEI)
        assert t.difficulty(p, q) == want
        w = int(rng.integers(0, 13))
        name = C.card_names[w]
        t.give(p, name)
        t.g["weapons_played"] = 0
        if not harmless[q] and t.res(p) > 0:
            reach = (name, q) in t.weapon_targets(p)
            assert reach == N.reaches(int(C.difficulty[w]), want)
        assert t.damage(p, q, name) == N.damage(
            int(C.damage[w]), int(t.st.seats[p]["prop_n"][K.FAST_DRAW - K.FOCUS]),
            t.st.seats[p]["ability"] == K.MUSASHI, t.st.seats[q]["ability"] == K.GINCHIYO)


# --- characters ----------------------------------------------------------------------------

def test_benkei_is_one_harder_to_attack():
    t = everyone_holds(Pos(5, chars=[None, "Benkei", None, None, None]))
    assert t.difficulty(0, 1) == 2 and t.difficulty(0, 4) == 1 and t.difficulty(1, 0) == 1


def test_chiyome_only_weapons_wound_her():
    t = Pos(4, chars=[None, "Chiyome", None, None], policy="random")
    t.give(0, "Battle Cry", "Jujutsu", "Bokken").give(1, "Geisha")
    t.play(0, "Battle Cry").play(0, "Jujutsu")
    assert t.res(1) == 4
    t.play(0, "Bokken", 1)
    assert t.res(1) == 3


def test_hanzo_parries_with_a_weapon_unless_it_is_his_only_card():
    t = Pos(4, chars=[None, "Hanzo", None, None]).give(0, "Bokken", "Bokken", "Battle Cry")
    t.give(1, "Kiseru", "Daikyu")
    t.play(0, "Bokken", 1)
    assert t.res(1) == 4 and t.hand_of(1) == Counter({"Daikyu": 1})  # weakest Weapon given
    assert t.misc[Misc.HANZO_WEAPON_PARRIES] == 1
    t.set(1, res=1)  # at 1 resilience the heuristic parries a Battle Cry too
    t.give(1, "Bo")
    t.play(0, "Battle Cry")
    assert t.res(1) == 1 and t.hand_of(1) == Counter({"Daikyu": 1})
    t.g["weapons_played"] = 0
    t.decide_for(0)
    t.h.apply(t.code(0, "Bokken", 1))  # his only card: no parry, not even a decision
    assert t.h.current_player() == 0 and t.g["phase"] == K.PH_PLAY and t.res(1) == 0


def test_hideyoshi_draws_three_and_others_two():
    t = Pos(4, chars=[None, "Hideyoshi", None, None])  # the deck is all Parry
    t.turn(1)  # and seat 3's turn starts: it draws its two
    assert t.hand_of(1) == Counter({"Parry": 3}) and t.hand_of(2) == Counter({"Parry": 2})


def test_ieyasu_may_take_the_discard_piles_top_card_first():
    t = Pos(4, chars=[None, "Ieyasu", None, None], disc=["Bokken", "Daikyu"])
    t.set(0, res=0).set(2, res=0).set(3, res=0)  # nobody to attack
    t.start(1)
    assert t.g["phase"] == K.PH_IEYASU and t.h.legal_actions() == [K.PASS, K.IEYASU]
    t.finish_turn()
    assert t.hand_of(1) == Counter({"Daikyu": 1, "Parry": 1})
    assert t.discards() == Counter({"Bokken": 1}) and t.misc[Misc.IEYASU_DISCARD_DRAWS] == 1
    u = Pos(4, chars=[None, "Ieyasu", None, None], disc=["Daikyu", "Bokken"])
    u.set(0, res=0).set(2, res=0).set(3, res=0)
    u.turn(1)  # a Bokken is not worth it: two cards from the deck
    assert u.hand_of(1) == Counter({"Parry": 2})


def test_ieyasu_has_no_choice_with_an_empty_discard_pile():
    t = Pos(4, chars=[None, "Ieyasu", None, None]).start(1)
    assert t.g["phase"] == K.PH_PLAY and t.hand_of(1) == Counter({"Parry": 2})


def test_kojiro_reaches_any_difficulty():
    t = everyone_holds(Pos(7, chars=["Kojiro"] + [None] * 6, policy="random"))
    t.give(0, "Bokken").put(3, "Armor").put(3, "Armor")
    assert t.difficulty(0, 3) == 5 and ("Bokken", 3) in t.weapon_targets(0)
    t.set(0, ability=K.NO_ABILITY)
    assert t.weapon_targets(0) == {("Bokken", 1), ("Bokken", 6)}


def test_nobunaga_pays_resilience_but_never_his_last_to_draw():
    t = Pos(4, chars=["Nobunaga", None, None, None], policy="random")
    assert ("nobunaga", -1, -1) in t.legal(0)
    t.play(0, "nobunaga")
    assert t.res(0) == 4 and t.hand_of(0) == Counter({"Parry": 1})
    t.set(0, res=1)
    assert ("nobunaga", -1, -1) not in t.legal(0)
    t.set(0, res=5)
    assert t.heuristic(0)[0] == "nobunaga"  # heuristic: from full, down to 3
    t.set(0, res=3)
    assert t.heuristic(0)[0] != "nobunaga"


def test_tomoe_draws_on_a_hit_not_on_a_parry():
    t = Pos(4, chars=["Tomoe", None, None, None]).give(0, "Bokken", "Bokken")
    t.give(1, "Geisha").give(2, "Parry")
    t.play(0, "Bokken", 1)
    assert t.hand_of(0) == Counter({"Bokken": 1, "Parry": 1})
    t.g["weapons_played"] = 0
    t.play(0, "Bokken", 2)
    assert t.hand_of(0) == Counter({"Parry": 1})


@pytest.mark.parametrize(("rule", "drawn"), [("lost", 2), ("dealt", 3)])
def test_ushiwaka_draws_per_wound_suffered(rule, drawn):
    t = Pos(4, chars=[None, "Ushiwaka", None, None], rules=[f"ushiwaka={rule}"])
    t.give(0, "Wakizashi").give(1, "Geisha")
    t.set(1, res=2)
    t.play(0, "Wakizashi", 1)  # 3 wounds, 2 resilience left: defeated
    assert t.res(1) == 0 and t.hand_of(1) == Counter({"Geisha": 1, "Parry": drawn})


# --- action cards --------------------------------------------------------------------------

def test_parry_is_never_played_on_your_own_turn():
    t = everyone_holds(Pos(4, policy="random"))
    assert all(name != "Parry" for name, _, _ in t.legal(0))


def test_battle_cry_each_other_player_parries_or_takes_a_wound_and_defeat_gives_honor():
    t = Pos(5, policy="random", honor=[3] * 5).give(0, "Battle Cry")
    t.give(1, "Parry").give(2, "Bokken").give(3, "Bokken").give(4, "Parry", "Parry")
    t.set(3, res=1)
    t.play(0, "Battle Cry")
    assert [t.res(s) for s in range(1, 5)] == [5, 4, 0, 5]
    assert t.hand_of(1) == Counter() and t.hand_of(4) == Counter({"Parry": 1})
    assert t.honor(3) == 2 and t.honor(0) == 4  # the defeated gives 1 Honor to the player
    assert t.end == End.NONE


def test_the_game_ends_at_once_in_the_middle_of_a_battle_cry():
    t = Pos(4, policy="random", res=[5, 1, 5, 5], honor=[3, 1, 3, 3])
    t.give(0, "Battle Cry").give(1, "Geisha").give(2, "Geisha").give(3, "Geisha")
    t.play(0, "Battle Cry")
    assert t.end == End.HONOR_DEFEAT and t.res(1) == 0 and t.h.is_over()
    assert t.res(2) == 5 and t.res(3) == 5  # players after the defeated one are untouched


def test_tomoe_draws_even_when_her_hit_defeats():
    t = Pos(4, chars=["Tomoe", None, None, None], res=[5, 1, 5, 5]).give(0, "Bokken")
    t.give(1, "Geisha")
    t.play(0, "Bokken", 1)
    assert t.res(1) == 0 and t.hand_of(0) == Counter({"Parry": 1}) and t.end == End.NONE


def test_heuristic_spends_its_last_parry_on_a_battle_cry_only_when_it_must():
    t = Pos(4).give(0, "Battle Cry", "Battle Cry").give(1, "Parry").give(2, "Parry", "Parry")
    t.play(0, "Battle Cry")
    assert t.res(1) == 4 and t.hand_of(1)["Parry"] == 1  # keeps its only Parry
    assert t.res(2) == 5 and t.hand_of(2)["Parry"] == 1  # two Parries: spends one
    t.set(1, res=1)
    t.play(0, "Battle Cry")
    assert t.res(1) == 1 and t.hand_of(1)["Parry"] == 0  # would be defeated: parries


def test_a_player_with_nothing_to_give_up_has_no_decision():
    t = Pos(4, policy="random").give(0, "Battle Cry", "Jujutsu").give(1, "Geisha")
    t.give(2, "Parry").give(3, "Geisha")
    t.decide_for(0)
    t.h.apply(t.code(0, "Battle Cry"))  # seat 2 (third) decides; seat 2's left took a wound
    assert t.g["phase"] == K.PH_BATTLE_CRY and t.h.current_player() == 2
    assert t.res(1) == 4 and t.h.legal_actions() == [K.PASS, K.GIVE + TYPE["Parry"]]


def test_jujutsu_each_other_player_discards_a_weapon_or_takes_a_wound():
    t = Pos(4, policy="random").give(0, "Jujutsu").give(1, "Bokken").give(2, "Parry")
    t.play(0, "Jujutsu")
    assert t.res(1) == 5 and t.hand_of(1) == Counter() and t.res(2) == 4
    assert t.discards() == Counter({"Jujutsu": 1, "Bokken": 1})


def test_breathing_heals_fully_and_another_player_draws():
    t = Pos(4).give(0, "Breathing")
    t.set(0, res=1)
    t.play(0, "Breathing", 2)
    assert t.res(0) == 5 and t.hand_of(2) == Counter({"Parry": 1})


def test_tea_ceremony_draws_three_and_one_for_each_other():
    t = Pos(4).give(0, "Tea Ceremony")
    t.play(0, "Tea Ceremony")
    assert [sum(t.hand_of(s).values()) for s in range(4)] == [3, 1, 1, 1]


def test_daimyo_draws_two_and_scores_one_except_for_the_ronin():
    t = Pos(5, roles=["shogun", "samurai", "ronin", "ninja", "ninja"], honor=[0] * 5)
    t.give(0, "Daimyo", "Daimyo").play(0, "Daimyo")
    assert t.hand_of(0) == Counter({"Daimyo": 1, "Parry": 2})
    t.give(2, "Daimyo", "Daimyo").give(3, "Daimyo")
    assert t.score()[1] == [1, 1, 0]


def test_diversion_takes_a_random_card_from_another_hand():
    t = Pos(4).give(0, "Diversion").give(2, "Daikyu")
    t.play(0, "Diversion", 2)
    assert t.hand_of(0) == Counter({"Daikyu": 1}) and t.hand_of(2) == Counter()
    assert t.st.seats[0]["hostile"] == 0 and t.total_cards() == 30 + 2


def test_geisha_discards_a_chosen_property_or_a_random_hand_card():
    t = Pos(4).give(0, "Geisha", "Geisha").put(1, "Armor").give(1, "Bokken")
    t.play(0, "Geisha", 1, TYPE["Armor"])
    assert t.st.seats[1]["prop_n"][K.ARMOR - K.FOCUS] == 0 and t.props_of(1) == Counter()
    t.play(0, "Geisha", 1, -1)
    assert t.hand_of(1) == Counter() and t.discards()["Bokken"] == 1


def test_geisha_sheds_your_own_bushido_unless_the_rule_forbids_targeting_yourself():
    t = Pos(4).give(0, "Geisha").put(0, "Bushido")
    assert t.heuristic(0) == ("Geisha", 0, TYPE["Bushido"])
    t.play(0, "Geisha", 0, TYPE["Bushido"])
    assert t.g["bushido"] == -1 and t.props_of(0) == Counter()
    u = Pos(4, rules=["geisha-self=no"], policy="random").give(0, "Geisha", "Parry")
    u.put(0, "Armor").give(1, "Parry")
    targets = {q for name, q, _ in u.legal(0) if name == "Geisha"}
    assert targets == {1}


def test_properties_stay_in_play_and_only_one_bushido_at_a_time():
    t = Pos(4, policy="random").give(0, "Bushido", "Bushido", "Armor")
    assert {q for name, q, _ in t.legal(0) if name == "Bushido"} == {0, 1, 2, 3}
    t.play(0, "Bushido", 2)
    assert t.g["bushido"] == 2 and t.props_of(2) == Counter({"Bushido": 1})
    assert not [m for m in t.legal(0) if m[0] == "Bushido"]
    u = Pos(4, policy="random", rules=["bushido-self=no"]).give(0, "Bushido")
    assert {q for name, q, _ in u.legal(0) if name == "Bushido"} == {1, 2, 3}


# --- Bushido ------------------------------------------------------------------------------

def test_bushido_weapon_flip_costs_a_weapon_and_passes_left():
    t = Pos(4, deck=["Parry"] * 5 + ["Bokken"], rules=AFTER_RECOVER)
    t.put(1, "Bushido").give(1, "Daikyu", "Kiseru")
    t.start(1)
    assert t.g["phase"] == K.PH_BUSHIDO and t.h.current_player() == 1
    t.h.step()  # the heuristic gives its weakest Weapon; then its Draw phase
    assert t.hand_of(1) == Counter({"Daikyu": 1, "Parry": 2}) and t.honor(1) == 3
    assert t.g["bushido"] == 2 and t.props_of(2) == Counter({"Bushido": 1})
    assert t.discards() == Counter({"Bokken": 1, "Kiseru": 1})


def test_bushido_weapon_flip_without_a_weapon_costs_honor_and_bushido_goes():
    t = Pos(4, deck=["Parry"] * 5 + ["Bokken"], rules=AFTER_RECOVER)
    t.put(1, "Bushido").give(1, "Parry")
    t.start(1)
    assert t.honor(1) == 2 and t.g["bushido"] == -1
    assert t.discards() == Counter({"Bokken": 1, "Bushido": 1}) and t.end == End.NONE
    u = Pos(4, deck=["Bokken"], honor=[3, 1, 3, 3], rules=AFTER_RECOVER)
    u.put(1, "Bushido")
    u.start(1)
    assert u.honor(1) == 0 and u.end == End.HONOR_BUSHIDO and u.h.is_over()


def test_bushido_non_weapon_flip_passes_left_from_the_last_seat_to_the_shogun():
    t = Pos(4, deck=["Parry"] * 5, rules=AFTER_RECOVER).put(3, "Bushido")
    t.start(3)
    assert t.g["bushido"] == 0 and t.honor(3) == 3 and t.discards() == Counter(
        {"Parry": 1})


def test_bushido_resolves_in_the_recover_phase_before_the_draw():
    t = Pos(4, deck=["Parry"] * 5 + ["Parry", "Parry", "Bokken"], rules=AFTER_RECOVER)
    t.put(1, "Bushido")
    t.start(1)
    assert t.honor(1) == 2 and t.hand_of(1) == Counter({"Parry": 2})


def test_random_bushido_choice_is_a_decision_between_honor_and_each_weapon_kind():
    t = Pos(4, policy="random", deck=["Parry"] * 5 + ["Bokken"], rules=AFTER_RECOVER)
    t.put(1, "Bushido")
    t.give(1, "Kiseru", "Kiseru", "Daikyu", "Parry")
    t.start(1)
    assert t.h.legal_actions() == [K.PASS, K.GIVE + TYPE["Kiseru"], K.GIVE + TYPE["Daikyu"]]


def lone(P, **kw):
    """A position where nobody but the player whose turn it is has resilience to attack."""
    return Pos(P, res=[0] * P, **kw)


def test_bushido_resolves_when_the_turn_is_over_by_default():
    """The printed 'if Bushido is still in front of you when your turn is over': the flip
    comes after the Draw phase (the Bokken under the two Parries drawn)."""
    t = lone(4, deck=["Parry"] * 5 + ["Bokken", "Parry", "Parry"]).put(1, "Bushido")
    t.give(1, "Daikyu", "Kiseru")
    t.start(1)
    assert t.g["phase"] == K.PH_PLAY and t.g["bushido"] == 1 and t.discards() == Counter()
    t.finish_turn()  # ends its turn; Bokken turns up: the heuristic gives its Kiseru
    assert t.hand_of(1) == Counter({"Daikyu": 1, "Parry": 2}) and t.honor(1) == 3
    assert t.g["bushido"] == 2 and t.props_of(2) == Counter({"Bushido": 1})
    assert t.discards() == Counter({"Bokken": 1, "Kiseru": 1})
    assert t.misc[Misc.BUSHIDO_FLIPS] == 1 and t.misc[Misc.BUSHIDO_WEAPONS] == 1


def test_bushido_at_the_turn_end_costs_honor_without_a_weapon_and_can_end_the_game():
    t = lone(4, deck=["Parry"] * 5 + ["Bokken", "Parry", "Parry"]).put(1, "Bushido")
    t.turn(1)
    assert t.honor(1) == 2 and t.g["bushido"] == -1 and t.end == End.NONE
    assert t.discards() == Counter({"Bokken": 1, "Bushido": 1})
    assert t.misc[Misc.BUSHIDO_HONOR] == 1
    u = lone(4, deck=["Parry"] * 5 + ["Bokken", "Parry", "Parry"], honor=[3, 1, 3, 3])
    u.put(1, "Bushido").turn(1)
    assert u.honor(1) == 0 and u.end == End.HONOR_BUSHIDO and u.h.is_over()


def test_bushido_at_the_turn_end_passes_left_on_a_non_weapon():
    t = lone(4, deck=["Parry"] * 8).put(3, "Bushido").turn(3)
    assert t.g["bushido"] == 0 and t.honor(3) == 3 and t.discards() == Counter({"Parry": 1})


def test_geisha_on_yourself_sheds_bushido_before_the_turn_is_over():
    t = lone(4, deck=["Parry"] * 5 + ["Bokken", "Parry", "Parry"]).put(1, "Bushido")
    t.give(1, "Geisha").start(1)
    t.play(1, "Geisha", 1, TYPE["Bushido"]).finish_turn()
    assert t.honor(1) == 3 and t.g["bushido"] == -1 and t.misc[Misc.BUSHIDO_FLIPS] == 0
    u = lone(4, deck=["Parry"] * 5 + ["Bokken"], rules=AFTER_RECOVER)
    u.put(1, "Bushido").give(1, "Geisha").start(1)
    assert u.honor(1) == 2 and u.g["bushido"] == -1  # resolved before the Geisha could be


def test_three_player_shogun_discards_bushido_at_the_turn_end():
    t = lone(3, honor=[6, 3, 3], deck=["Parry"] * 5 + ["Bokken", "Parry", "Parry", "Parry"])
    t.put(0, "Bushido").give(0, "Kiseru").turn(0)
    assert t.honor(0) == 6 and t.g["bushido"] == -1 and t.discards()["Bushido"] == 1
    assert t.hand_of(0) == Counter({"Kiseru": 1, "Parry": 3})


# --- defeat and the end of the game -------------------------------------------------------

def test_last_honor_given_away_ends_the_game():
    t = everyone_holds(Pos(4, honor=[3, 1, 3, 3], res=[5, 1, 5, 5]))
    t.take_all(1).give(1, "Geisha").give(0, "Bokken")
    t.play(0, "Bokken", 1)
    assert t.honor(1) == 0 and t.honor(0) == 4 and t.end == End.HONOR_DEFEAT
    assert t.g["deadly"] == -1 and t.h.is_over()


def test_deadly_strike_when_a_teammates_defeat_ends_the_game():
    roles = ["shogun", "samurai", "ninja", "ninja"]
    t = everyone_holds(Pos(4, roles=roles, honor=[3, 1, 3, 3], res=[5, 1, 5, 5]))
    t.take_all(1).give(1, "Geisha").give(0, "Bokken")
    t.play(0, "Bokken", 1)  # the Shogun defeats its own Samurai, who had 1 Honor
    assert t.end == End.HONOR_DEFEAT and t.g["deadly"] == Team.SHOGUN
    want = N.team_scores([{"role": r, "honor": t.honor(s), "mult": 1}
                          for s, r in enumerate(roles)], deadly_team="shogun")
    assert want == {"shogun": 4 + 0 - 3, "ninja": 6}
    assert t.h.outcome()["scores"] == {"Shogun & Samurai": 1, "Ninjas": 6}
    assert t.h.outcome()["team"] == "Ninjas" and t.misc[Misc.DEADLY_STRIKES] == 1


def test_victory_of_the_swordmaster():
    t = everyone_holds(Pos(4, res=[5, 1, 0, 0]))
    t.take_all(1).give(1, "Geisha").give(0, "Bokken")
    t.play(0, "Bokken", 1)
    assert t.end == End.SWORDMASTER and t.g["sword"] == Team.SHOGUN
    assert t.h.outcome()["winners"] == [1] and t.h.row()["end"] == End.SWORDMASTER
    assert N.swordmaster([5, 0, 0, 0], "ninja", "shogun")


@pytest.mark.parametrize(("rule", "end"), [("end", End.TEAMMATE), ("continue", End.NONE)])
def test_no_swordmaster_after_a_teammates_defeat(rule, end):
    roles = ["shogun", "samurai", "ninja", "ninja"]
    t = everyone_holds(Pos(4, roles=roles, res=[5, 1, 0, 0],
                           rules=[f"teammate-swordmaster={rule}"]))
    t.take_all(1).give(1, "Geisha").give(0, "Bokken")
    t.play(0, "Bokken", 1)
    assert t.end == end and t.g["sword"] == -1
    assert not N.swordmaster([5, 0, 0, 0], "shogun", "shogun")
    if end == End.TEAMMATE:  # scored on Honor, with the Deadly Strike
        assert t.g["deadly"] == Team.SHOGUN


@pytest.mark.parametrize(("rule", "end"), [("swordmaster", End.SWORDMASTER),
                                           ("honor", End.HONOR_DEFEAT)])
def test_swordmaster_and_last_honor_at_once(rule, end):
    t = everyone_holds(Pos(4, res=[5, 1, 0, 0], honor=[3, 1, 3, 3],
                           rules=[f"swordmaster-vs-honor={rule}"]))
    t.take_all(1).give(1, "Geisha").give(0, "Bokken")
    t.play(0, "Bokken", 1)
    assert t.end == end


def test_defeated_player_recovers_all_resilience_at_its_turn():
    t = Pos(4, res=[5, 0, 5, 5]).start(1)
    assert t.res(1) == 5


# --- deck ------------------------------------------------------------------------------

def test_deck_exhaustion_reshuffles_and_everyone_loses_one_honor():
    t = Pos(4, deck=["Parry"], disc=["Bokken", "Geisha", "Bo"], honor=[3, 2, 2, 2])
    t.start(0)  # draws 2: the Parry, then a reshuffle
    assert t.g["reshuffles"] == 1 and [t.honor(s) for s in range(4)] == [2, 1, 1, 1]
    assert t.g["deck_n"] == 2 and t.g["disc_n"] == 0 and sum(t.hand_of(0).values()) == 2
    assert t.end == End.NONE and t.total_cards() == 4


def test_deck_exhaustion_taking_the_last_honor_ends_the_game():
    t = Pos(4, deck=[], disc=["Bokken"], honor=[3, 1, 3, 3])
    t.start(0)
    assert t.end == End.HONOR_DECK and t.honor(1) == 0 and t.h.is_over()
    assert t.hand_of(0) == Counter()


@pytest.mark.parametrize(("rule", "reshuffles"), [("when-needed", 0), ("when-empty", 1)])
def test_reshuffle_timing(rule, reshuffles):
    t = Pos(4, deck=["Parry"], disc=["Bokken"], rules=[f"reshuffle={rule}"])
    t.give(0, "Breathing").play(0, "Breathing", 1)  # seat 2 draws the deck's last card
    assert t.g["reshuffles"] == reshuffles and t.honor(2) == 3 - reshuffles


def test_when_empty_reshuffles_only_after_the_last_card_is_drawn():
    """reshuffle=when-empty: the deck's last card is drawn; then, the deck being empty, the
    discards are reshuffled (the reshuffle fired with that card still in the deck)."""
    t = Pos(4, deck=["Bo", "Parry"], disc=["Bokken", "Geisha", "Shuriken"],
            rules=["reshuffle=when-empty"])
    before = len(t.h.log())
    t.start(0)  # seat 1 draws 2: the Parry, the Bo; the deck is then empty
    log = [e for e in t.h.log()[before:] if e.kind in ("draw", "reshuffle")]
    assert [e.kind for e in log] == ["draw", "draw", "reshuffle"], log
    assert log[-1].detail.startswith("the deck is empty: 3 discards reshuffled")
    assert t.g["reshuffles"] == 1 and t.g["deck_n"] == 3 and t.g["disc_n"] == 0
    assert t.hand_of(0) == Counter({"Parry": 1, "Bo": 1}) and t.total_cards() == 5


def test_when_empty_a_reshuffle_that_takes_the_last_honor_ends_the_game_at_once():
    """The drawn card is in hand before the reshuffle; the reshuffle takes seat 2's last
    Honor and nothing is drawn after it."""
    t = Pos(4, deck=["Parry"], disc=["Bokken"], honor=[3, 1, 3, 3],
            rules=["reshuffle=when-empty"])
    before = len(t.h.log())
    t.start(0)  # seat 1 draws the Parry: the deck is then empty
    kinds = [e.kind for e in t.h.log()[before:] if e.kind in ("draw", "reshuffle", "end")]
    assert kinds == ["draw", "reshuffle", "end"], kinds
    assert t.end == End.HONOR_DECK and t.honor(1) == 0 and t.h.is_over()
    assert t.hand_of(0) == Counter({"Parry": 1})


def test_nothing_to_draw_and_nothing_to_reshuffle_costs_no_honor():
    t = Pos(4, deck=[]).start(0)
    assert t.hand_of(0) == Counter() and t.honor(0) == 3 and t.misc[Misc.EMPTY_DRAWS] == 1


def test_discard_down_to_seven_at_the_end_of_the_turn():
    t = Pos(4).give(0, *["Parry"] * 9)
    t.turn(0)
    assert sum(t.hand_of(0).values()) == 7 and t.discards() == Counter({"Parry": 4})


# --- three players and setup --------------------------------------------------------------

def test_three_player_shogun_draws_three_plays_two_weapons_and_ignores_bushido_honor():
    t = Pos(3, honor=[6, 3, 3]).start(0)
    assert t.hand_of(0) == Counter({"Parry": 3})
    assert t.weapons_allowed(0) == 2 and t.weapons_allowed(1) == 1
    u = Pos(3, honor=[6, 3, 3], deck=["Parry"] * 5 + ["Bokken"], rules=AFTER_RECOVER)
    u.put(0, "Bushido")
    u.give(0, "Kiseru").start(0)
    assert u.honor(0) == 6 and u.hand_of(0) == Counter({"Kiseru": 1, "Parry": 3})
    assert u.g["bushido"] == -1 and u.discards()["Bushido"] == 1


@pytest.mark.parametrize(("rule", "end"), [("shogun-immune", End.SWORDMASTER),
                                           ("none", End.NONE)])
def test_three_player_shogun_left_alone_wins_by_the_swordmaster_unless_none(rule, end):
    t = everyone_holds(Pos(3, res=[5, 1, 0], honor=[6, 3, 3], rules=[f"swordmaster-3p={rule}"]))
    t.take_all(1).give(1, "Geisha").give(0, "Bokken")
    t.play(0, "Bokken", 1)  # the Shogun defeats a Ninja; the other Ninja is down
    assert t.end == end
    if end == End.SWORDMASTER:
        assert t.g["sword"] == Team.SHOGUN and t.h.outcome()["winners"] == [1]


@pytest.mark.parametrize("rule", ["shogun-immune", "none"])
def test_three_player_shogun_is_not_subject_to_a_ninjas_swordmaster(rule):
    """'The Victory of the Swordmaster doesn't affect me': a Ninja who defeats the Shogun
    while the other Ninja is down does not win; play goes on (in 4 players it wins)."""
    t = everyone_holds(Pos(3, res=[1, 5, 0], honor=[6, 3, 3], rules=[f"swordmaster-3p={rule}"]))
    t.take_all(0).give(0, "Geisha").give(1, "Bokken")
    t.play(1, "Bokken", 0)
    assert t.res(0) == 0 and t.end == End.NONE and t.g["sword"] == -1
    u = everyone_holds(Pos(4, res=[1, 5, 0, 0], rules=[f"swordmaster-3p={rule}"]))
    u.take_all(0).give(0, "Geisha").give(1, "Bokken")
    u.play(1, "Bokken", 0)
    assert u.end == End.SWORDMASTER and u.g["sword"] == Team.NINJA


def dealt(P, seed):
    """A new game's handle and its cards dealt per seat (from the log)."""
    h = GAME.new_game(seed=seed, players=P)
    deals = Counter(e.player - 1 for e in h.log() if e.kind == "deal")
    return h, [deals[s] for s in range(P)]


@pytest.mark.parametrize("P", [3, 4, 5, 6, 7])
def test_setup_deals_roles_honor_characters_and_hands(P):
    s = C.setups[P]
    for seed in range(20):
        h, hands = dealt(P, seed)
        seats = h.st.seats[:P]
        roles = [ROLES[r] for r in seats["role"]]
        assert roles[0] == "shogun" and sorted(roles) == sorted(s.roles)
        assert list(seats["honor"]) == [s.honor[r] for r in roles]
        assert hands == [4, 5, 5, 6, 6, 7, 7][:P]
        g = h.st.game[0]
        total = g["deck_n"] + g["disc_n"] + seats["hand"].sum() + seats["props"].sum()
        assert total == 90
        chars = list(seats["char"])
        assert len(set(chars)) == P
        assert all(seats["max_res"][x] == C.resilience[c] for x, c in enumerate(chars))
        stars = [int(seats["stars"][x]) for x in range(P) if roles[x] == "ninja"]
        assert len(set(stars)) == len(stars) and set(stars) <= {1, 2, 3}
        for x, r in enumerate(roles):
            top = r == "ninja" and seats["stars"][x] == max(stars)
            want = s.ninja_most_stars if top and s.ninja_most_stars else s.multiplier[r]
            assert seats["mult"][x] == want
        assert h.current_player() == 0 and h.turn() == 1  # the Shogun's first decision


def test_four_players_one_ninja_removed_unseen_and_most_stars_doubles():
    seen = Counter()
    for seed in range(60):
        h, _ = dealt(4, seed)
        seats = h.st.seats[:4]
        ninjas = [x for x in range(4) if seats["role"][x] == 2]
        stars = sorted(int(seats["stars"][x]) for x in ninjas)
        seen[tuple(stars)] += 1
        top = [x for x in ninjas if seats["stars"][x] == stars[-1]]
        assert seats["mult"][top[0]] == 2
    assert set(seen) == {(1, 2), (1, 3), (2, 3)}  # each Ninja card is left out sometimes


def test_scoring_agrees_with_the_reference_on_random_endings():
    rng = np.random.default_rng(3)
    for _ in range(150):
        P = int(rng.integers(3, 8))
        s = C.setups[P]
        roles = ["shogun", *rng.permutation(list(s.roles[1:]))]
        t = Pos(P, roles=roles, honor=[int(rng.integers(0, 7)) for _ in range(P)])
        players = []
        for x, r in enumerate(roles):
            t.set(x, mult=s.multiplier[r])
            d = int(rng.integers(0, 3))
            t.give(x, *["Daimyo"] * d)
            players.append({"role": r, "honor": t.honor(x), "mult": s.multiplier[r],
                            "daimyo": d})
        deadly = None
        if rng.random() < 0.3:
            deadly = str(rng.choice(["shogun", "ninja"]))
            t.g["deadly"] = Team.SHOGUN if deadly == "shogun" else Team.NINJA
        want = N.team_scores(players, deadly_team=deadly)
        win, scores = t.score()
        names = ("shogun", "ninja", "ronin")
        assert {names[i]: scores[i] for i in range(3) if names[i] in want} == want
        assert names[win] == N.winner(want)


# --- the heuristic's choices --------------------------------------------------------------

def test_heuristic_ninja_presses_the_shogun_and_samurai_strikes_its_attacker():
    t = everyone_holds(Pos(5, roles=["shogun", "samurai", "ninja", "ronin", "ninja"]))
    t.give(2, "Daikyu")
    assert t.heuristic(2) == ("Daikyu", 0, -1)
    t.give(1, "Daikyu")
    t.set(3, hostile=1)  # seat 3 attacked the Shogun in public
    assert t.heuristic(1) == ("Daikyu", 3, -1)
    t.give(0, "Daikyu")
    assert t.heuristic(0) == ("Daikyu", 3, -1)


def test_heuristic_plays_properties_first_heals_when_low_and_keeps_daimyo_late():
    t = Pos(5, roles=["shogun", "samurai", "ronin", "ninja", "ninja"])
    t.give(1, "Daimyo", "Breathing", "Armor")
    assert t.heuristic(1)[0] == "Armor"
    t.take_all(1).give(1, "Daimyo", "Breathing")
    assert t.heuristic(1)[0] == "Daimyo"
    t.set(4, honor=2)  # someone is close to the end: the Samurai keeps its Daimyo
    assert t.heuristic(1)[0] == "end"
    t.set(1, res=2)  # low: heals; the draw goes to the Shogun, the one it spares
    assert t.heuristic(1) == ("Breathing", 0, -1)
    t.give(2, "Daimyo")
    assert t.heuristic(2)[0] == "Daimyo"  # a Daimyo is worth nothing to the Ronin


def test_the_heuristic_reads_no_hidden_role_but_its_own():
    rng = np.random.default_rng(11)
    cards = ["Bokken", "Kiseru", "Daikyu", "Geisha", "Diversion", "Bushido", "Parry",
             "Battle Cry", "Breathing", "Armor", "Jujutsu"]
    changed = 0
    for _ in range(200):
        P = int(rng.integers(4, 8))
        roles = ["shogun", *rng.permutation(list(C.setups[P].roles[1:]))]
        t = Pos(P, roles=roles)
        for x in range(P):
            t.give(x, *rng.choice(cards, int(rng.integers(0, 5))))
            t.set(x, res=int(rng.integers(0, 6)), hostile=int(rng.integers(0, 2)),
                  loyal=int(rng.integers(0, 2)))
        p = int(rng.integers(0, P))
        before = t.heuristic(p)
        others = [x for x in range(1, P) if x != p]
        a, b = (int(x) for x in rng.choice(others, 2, replace=False))
        changed += t.st.seats[a]["role"] != t.st.seats[b]["role"]
        for f in ("role", "team", "stars", "mult"):
            t.st.seats[a][f], t.st.seats[b][f] = t.st.seats[b][f], t.st.seats[a][f]
        assert t.heuristic(p) == before  # other players' hidden roles change nothing
    assert changed > 60
