"""Samurai Sword kernel rules on hand-built tables: combat, every character ability, every
card, Harmless players, defeat and the end of the game, Bushido, the deck, scoring."""

from collections import Counter

import numpy as np
import pytest

from kernels import samurai_sword as K
from kernels.rng import new_states, seed_lanes
from simcli.games.samurai_sword import ROLES, SamuraiSword, card_info, params
from tests import naive_sword as N

GAME = SamuraiSword()
CONTENT = GAME.load_content(GAME.content_path(None))
C = CONTENT.data
T = len(C.card_names)
TYPE = {name: i for i, name in enumerate(C.card_names)}
CINFO = card_info(C)


class Table:
    """A hand-built game state: seat 0 is the Shogun; every seat has no ability unless
    given a character; hands start empty; the deck is the given names (top = last)."""

    def __init__(self, P, roles=None, chars=None, res=None, honor=None, policy="heuristic",
                 rules=(), deck=("Parry",) * 30, disc=(), seed=1):
        self.P = P
        self.pi = params(C, P, GAME.resolve_rules(list(rules)))
        (self.ps, self.pe, self.hand, self.props, self.deck, self.disc, self.gs, self.perm,
         self.moves, self.sc, self.dq, self.tscore, self.present,
         self.row) = K.new_buffers(T, 200, len(C.char_names))
        self.states = new_states(0, K.MAX_P + 1)
        seed_lanes(self.states, seed, 0)
        self.misc = np.zeros(K.N_MISC, np.int64)
        self.cards = np.zeros(T, np.int64)
        roles = roles or ["shogun"] + ["ninja"] * (P - 1)
        chars = chars or [None] * P
        for s in range(P):
            r = ROLES.index(roles[s])
            self.ps[K.S_ROLE, s] = r
            self.ps[K.S_TEAM, s] = K.team_of(r)
            if chars[s] is None:
                self.ps[K.S_ABIL, s] = K.NO_ABILITY
                self.ps[K.S_MAXRES, s] = 5
            else:
                c = C.char_names.index(chars[s])
                self.ps[K.S_CHAR, s] = c
                self.ps[K.S_ABIL, s] = C.abilities[c]
                self.ps[K.S_MAXRES, s] = C.resilience[c]
            self.ps[K.S_RES, s] = self.ps[K.S_MAXRES, s] if res is None else res[s]
            self.ps[K.S_HONOR, s] = 3 if honor is None else honor[s]
            self.ps[K.S_MULT, s] = 1
            self.ps[K.S_POL, s] = K.HEURISTIC if policy == "heuristic" else K.RANDOM
            self.ps[K.S_LANE, s] = s
        self.gs[K.G_BUSHIDO] = self.gs[K.G_SWORD] = self.gs[K.G_DEADLY] = -1
        self.set_deck(deck)
        for name in disc:
            self.disc[self.gs[K.G_DISC]] = TYPE[name]
            self.gs[K.G_DISC] += 1

    def set_deck(self, names):
        for i, name in enumerate(names):
            self.deck[i] = TYPE[name]
        self.gs[K.G_DECK] = len(names)

    def give(self, p, *names):
        for name in names:
            self.hand[p, TYPE[name]] += 1
            self.ps[K.S_HAND, p] += 1
        return self

    def put(self, p, name):
        t = TYPE[name]
        self.props[p, t] += 1
        self.pe[p, C.effects[t] - K.FOCUS] += 1
        if C.effects[t] == K.BUSHIDO:
            self.gs[K.G_BUSHIDO] = p
        return self

    def hand_of(self, p):
        return Counter({C.card_names[t]: int(n) for t, n in enumerate(self.hand[p]) if n})

    def res(self, p):
        return int(self.ps[K.S_RES, p])

    def honor(self, p):
        return int(self.ps[K.S_HONOR, p])

    def discards(self):
        return Counter(C.card_names[t] for t in self.disc[: self.gs[K.G_DISC]])

    def total_cards(self):
        return int(self.gs[K.G_DECK] + self.gs[K.G_DISC] + self.hand.sum() + self.props.sum())

    @property
    def end(self):
        return int(self.gs[K.G_END])

    def play(self, p, card, q=-1, o=-1):
        t = card if isinstance(card, int) else TYPE[card]
        K.apply_move(self.states, self.ps, self.pe, self.hand, self.props, CINFO, self.deck,
                     self.disc, self.gs, self.pi, self.P, self.misc, self.cards, p, t, q, o)
        return self

    def turn(self, p):
        K.play_turn(self.states, self.ps, self.pe, self.hand, self.props, CINFO, self.deck,
                    self.disc, self.gs, self.pi, self.P, self.misc, self.cards, p, self.moves,
                    self.sc, self.dq)
        return self

    def bushido(self, p):
        K.resolve_bushido(self.states, self.ps, self.pe, self.hand, self.props, CINFO,
                          self.deck, self.disc, self.gs, self.pi, self.P, self.misc, p)
        return self

    def difficulty(self, p, q):
        return int(K.difficulty(self.ps, self.pe, self.P, p, q))

    def legal(self, p):
        n = K.legal_moves(self.ps, self.pe, self.hand, self.props, CINFO, self.gs, self.pi,
                          self.P, p, self.moves, self.dq)
        return [tuple(int(x) for x in self.moves[i]) for i in range(n)]

    def weapon_targets(self, p):
        return {(C.card_names[t], q) for t, q, _ in self.legal(p)
                if t >= 0 and C.effects[t] == K.WEAPON}

    def heuristic(self, p):
        t, q, o = K.heuristic_move(self.states[p], self.ps, self.pe, self.hand, self.props,
                                   CINFO, self.gs, self.pi, self.P, p, self.sc, self.dq)
        return (C.card_names[t] if t >= 0 else int(t)), int(q), int(o)

    def wound(self, q, n, by):
        return int(K.wound(self.ps, self.gs, self.pi, self.P, self.misc, q, n, by))

    def score(self):
        win = K.score(self.ps, self.hand, CINFO, self.gs, self.pi, self.P, self.tscore,
                      self.present)
        return int(win), [int(x) for x in self.tscore]


def everyone_holds(table, name="Parry"):
    for s in range(table.P):
        if table.ps[K.S_HAND, s] == 0:
            table.give(s, name)
    return table


# --- the rulebook's examples -------------------------------------------------------------

def test_rulebook_scoring_example_six_players_daimyo_tie():
    roles = ["shogun", "samurai", "ronin", "ninja", "ninja", "ninja"]
    t = Table(6, roles=roles, honor=[1, 3, 3, 2, 3, 0])
    for s, m in enumerate([1, 2, 3, 1, 1, 1]):
        t.ps[K.S_MULT, s] = m
    assert t.score() == (K.TEAM_RONIN, [7, 5, 9])  # Shogun 1 + Samurai 3x2 = 7; Ronin 3x3
    t.give(0, "Daimyo").give(1, "Daimyo")  # each worth 1, never multiplied
    assert t.score() == (K.TEAM_SHOGUN, [9, 5, 9])  # tie with the Ronin: the Shogun wins


def test_rulebook_difficulty_with_two_armor():
    t = everyone_holds(Table(6)).put(0, "Armor").put(0, "Armor")  # A is seat 0
    assert [t.difficulty(b, 0) for b in (1, 5)] == [3, 3]  # B and F
    assert [t.difficulty(c, 0) for c in (2, 4)] == [4, 4]  # C and E
    assert t.difficulty(3, 0) == 5  # D
    assert [t.difficulty(0, q) for q in range(1, 6)] == [1, 2, 3, 2, 1]  # A's own attacks


def test_rulebook_which_weapons_reach_difficulty_3_and_4():
    t = everyone_holds(Table(6, policy="random"))
    t.give(0, "Daikyu", "Nodachi", "Naginata", "Bo", "Wakizashi")
    on_d = {w for w, q in t.weapon_targets(0) if q == 3}
    assert on_d == {"Daikyu", "Nodachi", "Naginata"}  # Bo and Wakizashi do not reach
    t.put(3, "Armor")
    assert {w for w, q in t.weapon_targets(0) if q == 3} == {"Daikyu", "Naginata"}


# --- combat and Harmless players ---------------------------------------------------------

def test_harmless_players_are_skipped_for_difficulty_and_cannot_be_targeted():
    t = everyone_holds(Table(6, policy="random")).give(0, "Bo")
    assert t.difficulty(0, 2) == 2
    t.hand[1] = 0
    t.ps[K.S_HAND, 1] = 0  # empty hand: Harmless
    assert t.difficulty(0, 2) == 1
    assert ("Bo", 1) not in t.weapon_targets(0) and ("Bo", 2) in t.weapon_targets(0)
    t.give(1, "Parry")
    t.ps[K.S_RES, 1] = 0  # no resilience: Harmless as well
    assert t.difficulty(0, 2) == 1 and ("Bo", 1) not in t.weapon_targets(0)


def test_harmless_players_are_untouched_by_battle_cry_and_jujutsu():
    t = Table(4, policy="random").give(0, "Battle Cry", "Jujutsu").give(1, "Bokken")
    t.ps[K.S_RES, 1] = 0  # defeated: Harmless until its turn
    t.give(2, "Geisha")  # no Parry, no Weapon
    t.play(0, "Battle Cry").play(0, "Jujutsu")
    assert t.hand_of(1) == Counter({"Bokken": 1}) and t.res(1) == 0
    assert t.res(2) == 3 and t.res(3) == 5  # seat 3 has no card at all: Harmless, untouched


def test_a_hit_wounds_and_a_parry_stops_the_weapon():
    t = everyone_holds(Table(4)).give(0, "Kiseru", "Kiseru")
    t.hand[1] = 0
    t.ps[K.S_HAND, 1] = 0
    t.give(1, "Geisha")  # no Parry
    t.play(0, "Kiseru", 1)
    assert t.res(1) == 3 and t.discards()["Kiseru"] == 1
    t.play(0, "Kiseru", 3)  # seat 3 holds a Parry
    assert t.res(3) == 5 and t.hand_of(3) == Counter() and t.discards()["Parry"] == 1
    assert t.misc[K.M_PARRIED] == 1 and t.misc[K.M_HITS] == 1


def test_weapons_per_turn_focus_goemon():
    t = everyone_holds(Table(4, chars=[None, "Goemon", None, None], policy="random"))
    t.give(0, "Bokken", "Bokken")
    assert K.weapon_limit(t.ps, t.pe, t.pi, 0) == 1 and K.weapon_limit(t.ps, t.pe, t.pi, 1) == 2
    t.play(0, "Bokken", 1)
    assert t.weapon_targets(0) == set()  # one Weapon per turn
    t.give(0, "Focus").play(0, "Focus", 0)
    assert K.weapon_limit(t.ps, t.pe, t.pi, 0) == 2 and t.weapon_targets(0)


def test_fast_draw_and_musashi_add_wounds_and_ginchiyo_takes_one_less():
    t = everyone_holds(Table(4, chars=["Musashi", None, "Ginchiyo", None]))
    t.ps[K.S_RES, 1] = t.ps[K.S_MAXRES, 1] = 9
    t.put(0, "Fast Draw").put(0, "Fast Draw")
    dmg = K.weapon_damage(t.ps, t.pe, CINFO, 0, 1, TYPE["Bokken"])
    assert dmg == N.damage(1, 2, True, False) == 4
    t.pe[0] = 0
    t.ps[K.S_ABIL, 0] = K.NO_ABILITY
    assert K.weapon_damage(t.ps, t.pe, CINFO, 0, 2, TYPE["Kiseru"]) == 1  # 2 - 1
    assert K.weapon_damage(t.ps, t.pe, CINFO, 0, 2, TYPE["Bokken"]) == 1  # never below 1


def test_kernel_combat_agrees_with_the_reference_on_random_tables():
    rng = np.random.default_rng(5)
    for _ in range(300):
        P = int(rng.integers(3, 8))
        t = Table(P)
        for s in range(P):
            if rng.random() < 0.8:
                t.give(s, "Parry")
            t.ps[K.S_RES, s] = int(rng.integers(0, 3))
            t.ps[K.S_ABIL, s] = int(rng.choice([K.NO_ABILITY, K.BENKEI, K.GINCHIYO,
                                                K.MUSASHI]))
            t.pe[s, K.ARMOR - K.FOCUS] = int(rng.integers(0, 3))
            t.pe[s, K.FAST_DRAW - K.FOCUS] = int(rng.integers(0, 3))
        harmless = [N.is_harmless(t.res(s), int(t.ps[K.S_HAND, s])) for s in range(P)]
        p, q = (int(x) for x in rng.choice(P, 2, replace=False))
        want = N.difficulty(p, q, harmless, int(t.pe[q, K.ARMOR - K.FOCUS]),
                            t.ps[K.S_ABIL, q] == K.BENKEI)
        assert t.difficulty(p, q) == want
        w = int(rng.integers(0, 13))
        assert K.reaches(t.ps, CINFO, p, w, want) == N.reaches(int(C.difficulty[w]), want)
        assert K.weapon_damage(t.ps, t.pe, CINFO, p, q, w) == N.damage(
            int(C.damage[w]), int(t.pe[p, K.FAST_DRAW - K.FOCUS]),
            t.ps[K.S_ABIL, p] == K.MUSASHI, t.ps[K.S_ABIL, q] == K.GINCHIYO)


# --- characters ----------------------------------------------------------------------------

def test_benkei_is_one_harder_to_attack():
    t = everyone_holds(Table(5, chars=[None, "Benkei", None, None, None]))
    assert t.difficulty(0, 1) == 2 and t.difficulty(0, 4) == 1 and t.difficulty(1, 0) == 1


def test_chiyome_only_weapons_wound_her():
    t = Table(4, chars=[None, "Chiyome", None, None], policy="random")
    t.give(0, "Battle Cry", "Jujutsu", "Bokken").give(1, "Geisha")
    t.play(0, "Battle Cry").play(0, "Jujutsu")
    assert t.res(1) == 4
    t.play(0, "Bokken", 1)
    assert t.res(1) == 3


def test_hanzo_parries_with_a_weapon_unless_it_is_his_only_card():
    t = Table(4, chars=[None, "Hanzo", None, None]).give(0, "Bokken", "Bokken", "Battle Cry")
    t.give(1, "Kiseru", "Daikyu")
    t.play(0, "Bokken", 1)
    assert t.res(1) == 4 and t.hand_of(1) == Counter({"Daikyu": 1})  # weakest Weapon given
    assert t.misc[K.M_HANZO] == 1
    t.ps[K.S_RES, 1] = 1  # at 1 resilience the heuristic parries a Battle Cry too
    t.give(1, "Bo")
    t.play(0, "Battle Cry")
    assert t.res(1) == 1 and t.hand_of(1) == Counter({"Daikyu": 1})
    t.gs[K.G_WPLAYED] = 0
    t.play(0, "Bokken", 1)  # his only card: no parry
    assert t.res(1) == 0


def test_hideyoshi_draws_three_and_others_two():
    t = Table(4, chars=[None, "Hideyoshi", None, None])  # the deck is all Parry
    t.turn(1).turn(2)
    assert t.hand_of(1) == Counter({"Parry": 3}) and t.hand_of(2) == Counter({"Parry": 2})


def test_ieyasu_may_take_the_discard_piles_top_card_first():
    t = Table(4, chars=[None, "Ieyasu", None, None], disc=["Bokken", "Daikyu"])
    t.ps[K.S_RES, 0] = t.ps[K.S_RES, 2] = t.ps[K.S_RES, 3] = 0  # nobody to attack
    t.turn(1)
    assert t.hand_of(1) == Counter({"Daikyu": 1, "Parry": 1})
    assert t.discards() == Counter({"Bokken": 1}) and t.misc[K.M_IEYASU] == 1
    u = Table(4, chars=[None, "Ieyasu", None, None], disc=["Daikyu", "Bokken"])
    u.ps[K.S_RES, 0] = u.ps[K.S_RES, 2] = u.ps[K.S_RES, 3] = 0
    u.turn(1)  # a Bokken is not worth it: two cards from the deck
    assert u.hand_of(1) == Counter({"Parry": 2})


def test_kojiro_reaches_any_difficulty():
    t = everyone_holds(Table(7, chars=["Kojiro"] + [None] * 6, policy="random"))
    t.give(0, "Bokken").put(3, "Armor").put(3, "Armor")
    assert t.difficulty(0, 3) == 5 and ("Bokken", 3) in t.weapon_targets(0)
    t.ps[K.S_ABIL, 0] = K.NO_ABILITY
    assert t.weapon_targets(0) == {("Bokken", 1), ("Bokken", 6)}


def test_nobunaga_pays_resilience_but_never_his_last_to_draw():
    t = Table(4, chars=["Nobunaga", None, None, None], policy="random")
    assert (K.MV_NOBUNAGA, -1, -1) in t.legal(0)
    t.play(0, K.MV_NOBUNAGA)
    assert t.res(0) == 4 and t.hand_of(0) == Counter({"Parry": 1})
    t.ps[K.S_RES, 0] = 1
    assert (K.MV_NOBUNAGA, -1, -1) not in t.legal(0)
    t.ps[K.S_RES, 0] = 5
    assert t.heuristic(0)[0] == K.MV_NOBUNAGA  # heuristic: from full, down to 3
    t.ps[K.S_RES, 0] = 3
    assert t.heuristic(0)[0] != K.MV_NOBUNAGA


def test_tomoe_draws_on_a_hit_not_on_a_parry():
    t = Table(4, chars=["Tomoe", None, None, None]).give(0, "Bokken", "Bokken")
    t.give(1, "Geisha").give(2, "Parry")
    t.play(0, "Bokken", 1)
    assert t.hand_of(0) == Counter({"Bokken": 1, "Parry": 1})
    t.gs[K.G_WPLAYED] = 0
    t.play(0, "Bokken", 2)
    assert t.hand_of(0) == Counter({"Parry": 1})


@pytest.mark.parametrize(("rule", "drawn"), [("lost", 2), ("dealt", 3)])
def test_ushiwaka_draws_per_wound_suffered(rule, drawn):
    t = Table(4, chars=[None, "Ushiwaka", None, None], rules=[f"ushiwaka={rule}"])
    t.give(0, "Wakizashi").give(1, "Geisha")
    t.ps[K.S_RES, 1] = 2
    t.play(0, "Wakizashi", 1)  # 3 wounds, 2 resilience left: defeated
    assert t.res(1) == 0 and t.hand_of(1) == Counter({"Geisha": 1, "Parry": drawn})


# --- action cards --------------------------------------------------------------------------

def test_parry_is_never_played_on_your_own_turn():
    t = everyone_holds(Table(4, policy="random"))
    assert all(m[0] < 0 or C.card_names[m[0]] != "Parry" for m in t.legal(0))


def test_battle_cry_each_other_player_parries_or_takes_a_wound_and_defeat_gives_honor():
    t = Table(5, policy="random", honor=[3] * 5).give(0, "Battle Cry")
    t.give(1, "Parry").give(2, "Bokken").give(3, "Bokken").give(4, "Parry", "Parry")
    t.ps[K.S_RES, 3] = 1
    t.play(0, "Battle Cry")
    assert [t.res(s) for s in range(1, 5)] == [5, 4, 0, 5]
    assert t.hand_of(1) == Counter() and t.hand_of(4) == Counter({"Parry": 1})
    assert t.honor(3) == 2 and t.honor(0) == 4  # the defeated gives 1 Honor to the player
    assert t.end == K.END_NONE


def test_the_game_ends_at_once_in_the_middle_of_a_battle_cry():
    t = Table(4, policy="random", res=[5, 1, 5, 5], honor=[3, 1, 3, 3])
    t.give(0, "Battle Cry").give(1, "Geisha").give(2, "Geisha").give(3, "Geisha")
    t.play(0, "Battle Cry")
    assert t.end == K.END_HONOR_DEFEAT and t.res(1) == 0
    assert t.res(2) == 5 and t.res(3) == 5  # players after the defeated one are untouched


def test_tomoe_draws_even_when_her_hit_defeats():
    t = Table(4, chars=["Tomoe", None, None, None], res=[5, 1, 5, 5]).give(0, "Bokken")
    t.give(1, "Geisha")
    t.play(0, "Bokken", 1)
    assert t.res(1) == 0 and t.hand_of(0) == Counter({"Parry": 1}) and t.end == K.END_NONE


def test_heuristic_spends_its_last_parry_on_a_battle_cry_only_when_it_must():
    t = Table(4).give(0, "Battle Cry", "Battle Cry").give(1, "Parry").give(2, "Parry", "Parry")
    t.play(0, "Battle Cry")
    assert t.res(1) == 4 and t.hand_of(1)["Parry"] == 1  # keeps its only Parry
    assert t.res(2) == 5 and t.hand_of(2)["Parry"] == 1  # two Parries: spends one
    t.ps[K.S_RES, 1] = 1
    t.play(0, "Battle Cry")
    assert t.res(1) == 1 and t.hand_of(1)["Parry"] == 0  # would be defeated: parries


def test_jujutsu_each_other_player_discards_a_weapon_or_takes_a_wound():
    t = Table(4, policy="random").give(0, "Jujutsu").give(1, "Bokken").give(2, "Parry")
    t.play(0, "Jujutsu")
    assert t.res(1) == 5 and t.hand_of(1) == Counter() and t.res(2) == 4
    assert t.discards() == Counter({"Jujutsu": 1, "Bokken": 1})


def test_breathing_heals_fully_and_another_player_draws():
    t = Table(4).give(0, "Breathing")
    t.ps[K.S_RES, 0] = 1
    t.play(0, "Breathing", 2)
    assert t.res(0) == 5 and t.hand_of(2) == Counter({"Parry": 1})


def test_tea_ceremony_draws_three_and_one_for_each_other():
    t = Table(4).give(0, "Tea Ceremony")
    t.play(0, "Tea Ceremony")
    assert [sum(t.hand_of(s).values()) for s in range(4)] == [3, 1, 1, 1]


def test_daimyo_draws_two_and_scores_one_except_for_the_ronin():
    t = Table(5, roles=["shogun", "samurai", "ronin", "ninja", "ninja"], honor=[0] * 5)
    t.give(0, "Daimyo", "Daimyo").play(0, "Daimyo", -1)
    assert t.hand_of(0) == Counter({"Daimyo": 1, "Parry": 2})
    t.give(2, "Daimyo", "Daimyo").give(3, "Daimyo")
    assert t.score()[1] == [1, 1, 0]


def test_diversion_takes_a_random_card_from_another_hand():
    t = Table(4).give(0, "Diversion").give(2, "Daikyu")
    t.play(0, "Diversion", 2)
    assert t.hand_of(0) == Counter({"Daikyu": 1}) and t.hand_of(2) == Counter()
    assert t.ps[K.S_HOSTILE, 0] == 0 and t.total_cards() == 30 + 2


def test_geisha_discards_a_chosen_property_or_a_random_hand_card():
    t = Table(4).give(0, "Geisha", "Geisha").put(1, "Armor").give(1, "Bokken")
    t.play(0, "Geisha", 1, TYPE["Armor"])
    assert t.pe[1, K.ARMOR - K.FOCUS] == 0 and t.props[1].sum() == 0
    t.play(0, "Geisha", 1, -1)
    assert t.hand_of(1) == Counter() and t.discards()["Bokken"] == 1


def test_geisha_sheds_your_own_bushido_unless_the_rule_forbids_targeting_yourself():
    t = Table(4).give(0, "Geisha").put(0, "Bushido")
    assert t.heuristic(0) == ("Geisha", 0, TYPE["Bushido"])
    t.play(0, "Geisha", 0, TYPE["Bushido"])
    assert t.gs[K.G_BUSHIDO] == -1 and t.props.sum() == 0
    u = Table(4, rules=["geisha-self=no"], policy="random").give(0, "Geisha", "Parry")
    u.put(0, "Armor").give(1, "Parry")
    targets = {q for tt, q, _ in u.legal(0) if tt == TYPE["Geisha"]}
    assert targets == {1}


def test_properties_stay_in_play_and_only_one_bushido_at_a_time():
    t = Table(4, policy="random").give(0, "Bushido", "Bushido", "Armor")
    moves = t.legal(0)
    assert {q for tt, q, _ in moves if tt == TYPE["Bushido"]} == {0, 1, 2, 3}
    t.play(0, "Bushido", 2)
    assert t.gs[K.G_BUSHIDO] == 2 and t.props[2, TYPE["Bushido"]] == 1
    assert not [m for m in t.legal(0) if m[0] == TYPE["Bushido"]]
    u = Table(4, policy="random", rules=["bushido-self=no"]).give(0, "Bushido")
    assert {q for tt, q, _ in u.legal(0) if tt == TYPE["Bushido"]} == {1, 2, 3}


# --- Bushido ------------------------------------------------------------------------------

def test_bushido_weapon_flip_costs_a_weapon_and_passes_left():
    t = Table(4, deck=["Parry", "Bokken"]).put(1, "Bushido").give(1, "Daikyu", "Kiseru")
    t.bushido(1)
    assert t.hand_of(1) == Counter({"Daikyu": 1}) and t.honor(1) == 3
    assert t.gs[K.G_BUSHIDO] == 2 and t.props[2, TYPE["Bushido"]] == 1
    assert t.discards() == Counter({"Bokken": 1, "Kiseru": 1})


def test_bushido_weapon_flip_without_a_weapon_costs_honor_and_bushido_goes():
    t = Table(4, deck=["Bokken"]).put(1, "Bushido").give(1, "Parry")
    t.bushido(1)
    assert t.honor(1) == 2 and t.gs[K.G_BUSHIDO] == -1
    assert t.discards() == Counter({"Bokken": 1, "Bushido": 1}) and t.end == K.END_NONE
    u = Table(4, deck=["Bokken"], honor=[3, 1, 3, 3]).put(1, "Bushido")
    u.bushido(1)
    assert u.honor(1) == 0 and u.end == K.END_HONOR_BUSHIDO


def test_bushido_non_weapon_flip_passes_left_from_the_last_seat_to_the_shogun():
    t = Table(4, deck=["Parry"]).put(3, "Bushido")
    t.bushido(3)
    assert t.gs[K.G_BUSHIDO] == 0 and t.honor(3) == 3 and t.discards() == Counter(
        {"Parry": 1})


def test_bushido_resolves_in_the_recover_phase_before_the_draw():
    t = Table(4, deck=["Parry", "Parry", "Bokken"]).put(1, "Bushido")
    t.turn(1)
    assert t.honor(1) == 2 and t.hand_of(1) == Counter({"Parry": 2})


# --- defeat and the end of the game -------------------------------------------------------

def test_last_honor_given_away_ends_the_game():
    t = everyone_holds(Table(4, honor=[3, 1, 3, 3]))
    t.wound(1, 9, 0)
    assert t.honor(1) == 0 and t.honor(0) == 4 and t.end == K.END_HONOR_DEFEAT
    assert t.gs[K.G_DEADLY] == -1


def test_deadly_strike_when_a_teammates_defeat_ends_the_game():
    roles = ["shogun", "samurai", "ninja", "ninja"]
    t = everyone_holds(Table(4, roles=roles, honor=[3, 1, 3, 3]))
    t.wound(1, 9, 0)  # the Shogun defeats its own Samurai, who had 1 Honor
    assert t.end == K.END_HONOR_DEFEAT and t.gs[K.G_DEADLY] == K.TEAM_SHOGUN
    want = N.team_scores([{"role": r, "honor": t.honor(s), "mult": 1}
                          for s, r in enumerate(roles)], deadly_team="shogun")
    assert want == {"shogun": 4 + 0 - 3, "ninja": 6}
    assert t.score() == (K.TEAM_NINJA, [1, 6, 0])


def test_victory_of_the_swordmaster():
    t = everyone_holds(Table(4, res=[5, 1, 0, 0]))
    t.wound(1, 1, 0)
    assert t.end == K.END_SWORDMASTER and t.gs[K.G_SWORD] == K.TEAM_SHOGUN
    assert N.swordmaster([5, 0, 0, 0], "ninja", "shogun")


@pytest.mark.parametrize(("rule", "end"), [("end", K.END_TEAMMATE), ("continue", K.END_NONE)])
def test_no_swordmaster_after_a_teammates_defeat(rule, end):
    roles = ["shogun", "samurai", "ninja", "ninja"]
    t = everyone_holds(Table(4, roles=roles, res=[5, 1, 0, 0],
                             rules=[f"teammate-swordmaster={rule}"]))
    t.wound(1, 1, 0)
    assert t.end == end and t.gs[K.G_SWORD] == -1
    assert not N.swordmaster([5, 0, 0, 0], "shogun", "shogun")
    if end == K.END_TEAMMATE:  # scored on Honor, with the Deadly Strike
        assert t.gs[K.G_DEADLY] == K.TEAM_SHOGUN


@pytest.mark.parametrize(("rule", "end"), [("swordmaster", K.END_SWORDMASTER),
                                           ("honor", K.END_HONOR_DEFEAT)])
def test_swordmaster_and_last_honor_at_once(rule, end):
    t = everyone_holds(Table(4, res=[5, 1, 0, 0], honor=[3, 1, 3, 3],
                             rules=[f"swordmaster-vs-honor={rule}"]))
    t.wound(1, 1, 0)
    assert t.end == end


def test_defeated_player_recovers_all_resilience_at_its_turn():
    t = Table(4, res=[5, 0, 5, 5])
    t.turn(1)
    assert t.res(1) == 5


# --- deck ------------------------------------------------------------------------------

def test_deck_exhaustion_reshuffles_and_everyone_loses_one_honor():
    t = Table(4, deck=["Parry"], disc=["Bokken", "Geisha", "Bo"], honor=[3, 2, 2, 2])
    K.draw_to(t.states, t.hand, t.deck, t.disc, t.gs, t.ps, t.pi, 4, t.misc, 0, 2)
    assert t.gs[K.G_RESHUFFLES] == 1 and [t.honor(s) for s in range(4)] == [2, 1, 1, 1]
    assert t.gs[K.G_DECK] == 2 and t.gs[K.G_DISC] == 0 and sum(t.hand_of(0).values()) == 2
    assert t.end == K.END_NONE and t.total_cards() == 4


def test_deck_exhaustion_taking_the_last_honor_ends_the_game():
    t = Table(4, deck=[], disc=["Bokken"], honor=[3, 1, 3, 3])
    assert K.draw_card(t.states, t.deck, t.disc, t.gs, t.ps, t.pi, 4, t.misc) == -1
    assert t.end == K.END_HONOR_DECK and t.honor(1) == 0


@pytest.mark.parametrize(("rule", "reshuffles"), [("when-needed", 0), ("when-empty", 1)])
def test_reshuffle_timing(rule, reshuffles):
    t = Table(4, deck=["Parry"], disc=["Bokken"], rules=[f"reshuffle={rule}"])
    K.draw_to(t.states, t.hand, t.deck, t.disc, t.gs, t.ps, t.pi, 4, t.misc, 0, 1)
    assert t.gs[K.G_RESHUFFLES] == reshuffles and t.honor(2) == 3 - reshuffles


def test_nothing_to_draw_and_nothing_to_reshuffle_costs_no_honor():
    t = Table(4, deck=[])
    K.draw_to(t.states, t.hand, t.deck, t.disc, t.gs, t.ps, t.pi, 4, t.misc, 0, 2)
    assert t.hand_of(0) == Counter() and t.honor(0) == 3 and t.misc[K.M_DRY] == 1


def test_discard_down_to_seven_at_the_end_of_the_turn():
    t = Table(4).give(0, *["Parry"] * 9)
    t.turn(0)
    assert sum(t.hand_of(0).values()) == 7 and t.discards() == Counter({"Parry": 4})


# --- three players and setup --------------------------------------------------------------

def test_three_player_shogun_draws_three_plays_two_weapons_and_ignores_bushido_honor():
    t = Table(3, honor=[6, 3, 3])
    t.turn(0)
    assert t.hand_of(0) == Counter({"Parry": 3})
    assert K.weapon_limit(t.ps, t.pe, t.pi, 0) == 2 and K.weapon_limit(t.ps, t.pe, t.pi, 1) == 1
    u = Table(3, honor=[6, 3, 3], deck=["Bokken"]).put(0, "Bushido").give(0, "Kiseru")
    u.bushido(0)
    assert u.honor(0) == 6 and u.hand_of(0) == Counter({"Kiseru": 1})
    assert u.gs[K.G_BUSHIDO] == -1 and u.discards()["Bushido"] == 1


def test_three_players_have_no_swordmaster():
    t = everyone_holds(Table(3, res=[5, 1, 0], honor=[6, 3, 3]))
    t.wound(1, 1, 0)
    assert t.end == K.END_NONE


def setup_game(P, seed):
    prep = GAME.prepare(CONTENT, P, ("heuristic",) * P, GAME.resolve_rules([]))
    t = Table(P)
    states = new_states(0, K.MAX_P + 1)
    seed_lanes(states, seed, 0)
    seat_pol, lane = K.seat_lanes(P, prep.policies, 0)
    K.setup(states, t.ps, t.pe, t.hand, t.props, t.deck, t.disc, t.gs, P, prep.roles,
            prep.honor, prep.mult, prep.mult_top, prep.hands, prep.ch_res, prep.ch_abil,
            prep.copies, t.perm, seat_pol, lane)
    return t


@pytest.mark.parametrize("P", [3, 4, 5, 6, 7])
def test_setup_deals_roles_honor_characters_and_hands(P):
    s = C.setups[P]
    for seed in range(20):
        t = setup_game(P, seed)
        roles = [ROLES[t.ps[K.S_ROLE, x]] for x in range(P)]
        assert roles[0] == "shogun" and sorted(roles) == sorted(s.roles)
        assert [t.honor(x) for x in range(P)] == [s.honor[r] for r in roles]
        hands = [int(t.ps[K.S_HAND, x]) for x in range(P)]
        assert hands == [4, 5, 5, 6, 6, 7, 7][:P]
        assert t.gs[K.G_DECK] == 90 - sum(hands) and t.total_cards() == 90
        chars = [int(t.ps[K.S_CHAR, x]) for x in range(P)]
        assert len(set(chars)) == P
        assert all(t.res(x) == C.resilience[c] for x, c in enumerate(chars))
        stars = [int(t.ps[K.S_STARS, x]) for x in range(P) if roles[x] == "ninja"]
        assert len(set(stars)) == len(stars) and set(stars) <= {1, 2, 3}
        mults = [int(t.ps[K.S_MULT, x]) for x in range(P)]
        for x, r in enumerate(roles):
            top = r == "ninja" and t.ps[K.S_STARS, x] == max(stars)
            want = s.ninja_most_stars if top and s.ninja_most_stars else s.multiplier[r]
            assert mults[x] == want


def test_four_players_one_ninja_removed_unseen_and_most_stars_doubles():
    seen = Counter()
    for seed in range(60):
        t = setup_game(4, seed)
        stars = sorted(int(t.ps[K.S_STARS, x]) for x in range(4)
                       if t.ps[K.S_ROLE, x] == K.NINJA)
        seen[tuple(stars)] += 1
        top = [x for x in range(4) if t.ps[K.S_ROLE, x] == K.NINJA
               and t.ps[K.S_STARS, x] == stars[-1]]
        assert t.ps[K.S_MULT, top[0]] == 2
    assert set(seen) == {(1, 2), (1, 3), (2, 3)}  # each Ninja card is left out sometimes


def test_scoring_agrees_with_the_reference_on_random_endings():
    rng = np.random.default_rng(3)
    for _ in range(300):
        P = int(rng.integers(3, 8))
        s = C.setups[P]
        roles = ["shogun", *rng.permutation(list(s.roles[1:]))]
        t = Table(P, roles=roles, honor=[int(rng.integers(0, 7)) for _ in range(P)])
        players = []
        for x, r in enumerate(roles):
            t.ps[K.S_MULT, x] = s.multiplier[r]
            d = int(rng.integers(0, 3))
            t.give(x, *["Daimyo"] * d)
            players.append({"role": r, "honor": t.honor(x), "mult": s.multiplier[r],
                            "daimyo": d})
        deadly = None
        if rng.random() < 0.3:
            deadly = str(rng.choice(["shogun", "ninja"]))
            t.gs[K.G_DEADLY] = K.TEAM_SHOGUN if deadly == "shogun" else K.TEAM_NINJA
        want = N.team_scores(players, deadly_team=deadly)
        win, scores = t.score()
        names = ("shogun", "ninja", "ronin")
        assert {names[i]: scores[i] for i in range(3) if names[i] in want} == want
        assert names[win] == N.winner(want)


# --- hidden information and policies ------------------------------------------------------

def test_the_heuristic_reads_no_hidden_role_but_its_own():
    rng = np.random.default_rng(11)
    cards = ["Bokken", "Kiseru", "Daikyu", "Geisha", "Diversion", "Bushido", "Parry",
             "Battle Cry", "Breathing", "Armor", "Jujutsu"]
    changed = 0
    for _ in range(300):
        P = int(rng.integers(4, 8))
        roles = ["shogun", *rng.permutation(list(C.setups[P].roles[1:]))]
        t = Table(P, roles=roles)
        for x in range(P):
            t.give(x, *rng.choice(cards, int(rng.integers(0, 5))))
            t.ps[K.S_RES, x] = int(rng.integers(0, 6))
            t.ps[K.S_HOSTILE, x] = int(rng.integers(0, 2))
            t.ps[K.S_LOYAL, x] = int(rng.integers(0, 2))
        p = int(rng.integers(0, P))
        seed_lanes(t.states, 0, 0)
        before = t.heuristic(p)
        others = [x for x in range(1, P) if x != p]
        a, b = (int(x) for x in rng.choice(others, 2, replace=False))
        changed += t.ps[K.S_ROLE, a] != t.ps[K.S_ROLE, b]
        for row in (K.S_ROLE, K.S_TEAM, K.S_STARS, K.S_MULT):
            t.ps[row, a], t.ps[row, b] = t.ps[row, b], t.ps[row, a]
        seed_lanes(t.states, 0, 0)
        assert t.heuristic(p) == before  # other players' hidden roles change nothing
    assert changed > 100


def test_heuristic_ninja_presses_the_shogun_and_samurai_strikes_its_attacker():
    t = everyone_holds(Table(5, roles=["shogun", "samurai", "ninja", "ronin", "ninja"]))
    t.give(2, "Daikyu")
    assert t.heuristic(2) == ("Daikyu", 0, -1)
    t.give(1, "Daikyu")
    t.ps[K.S_HOSTILE, 3] = 1  # seat 3 attacked the Shogun in public
    assert t.heuristic(1) == ("Daikyu", 3, -1)
    t.give(0, "Daikyu")
    assert t.heuristic(0) == ("Daikyu", 3, -1)


def test_heuristic_plays_properties_first_heals_when_low_and_keeps_daimyo_late():
    t = Table(5, roles=["shogun", "samurai", "ronin", "ninja", "ninja"])
    t.give(1, "Daimyo", "Breathing", "Armor")
    assert t.heuristic(1)[0] == "Armor"
    t.hand[1, TYPE["Armor"]] = 0
    t.ps[K.S_HAND, 1] -= 1
    assert t.heuristic(1)[0] == "Daimyo"
    t.ps[K.S_HONOR, 4] = 2  # someone is close to the end: the Samurai keeps its Daimyo
    assert t.heuristic(1)[0] == K.MV_END
    t.ps[K.S_RES, 1] = 2  # low: heals; the draw goes to the Shogun, the one it spares
    assert t.heuristic(1) == ("Breathing", 0, -1)
    t.give(2, "Daimyo")
    assert t.heuristic(2)[0] == "Daimyo"  # a Daimyo is worth nothing to the Ronin
