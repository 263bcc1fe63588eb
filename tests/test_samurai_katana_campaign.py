"""Samurai & Katana campaign: hand-built positions for each rule and reading (driven
through the Python handle: a position is set up, the acting clan's action is applied and the
other clans' decisions are taken by their policies), invariants on whole random and greedy
games, rule options, determinism and mirrored seats."""

import numpy as np
import pytest

from kernels.events import new_log
from kernels.rng import seed_lanes
from kernels.samurai_katana import rules as K
from kernels.samurai_katana.play import N_ROW
from kernels.samurai_katana.stats import Misc, Source
from simcli.games.samurai_katana import SamuraiKatana, play
from simcli.run import RunConfig
from simcli.run import play as study_play

GAME = SamuraiKatana()
CONTENT = GAME.load_content(GAME.content_path(None))
BOARD = CONTENT.data.board
DECK = CONTENT.data.deck


class World:
    """An empty board for hand-built positions: every territory free, every card in the
    draw pile (in deck order), 5 koku and a full supply for each clan. The game is a
    handle's (simcli replay's), its position replaced by this one."""

    def __init__(self, players=4, seats=None, rules=()):
        self.P = players
        self.prep = GAME.prepare(CONTENT, players, tuple(seats or ("greedy",) * players),
                                 GAME.resolve_rules(list(rules)))
        pr = self.prep
        self.h = GAME.handle(pr, 1, 0)
        st = self.st = self.h.st
        self.bd, self.pl, self.pcount, self.hand = st.bd, st.pl, st.pcount, st.hand
        self.piles, self.gs, self.src = st.piles, st.gs, st.src
        self.aggs = self.h.aggs
        for a in self.aggs.values():
            a[...] = 0
        for arr in (st.bd, st.pl, st.pcount, st.hand, st.piles, st.src):
            arr[...] = 0
        for p in range(players):
            self.pl[p, K.PL_SUPPLY] = pr.pi[K.PI_SAMURAI]
            self.pl[p, K.PL_CASTLES] = pr.pi[K.PI_CASTLES]
            self.pl[p, K.PL_KOKU] = 5
        self.bd[K.OWNER, :] = -1  # no owner
        self.gs[:] = 0
        self.gs[K.G_TURN] = 1
        self.gs[K.G_SHOGUN] = -1
        n = pr.deck.shape[0]
        self.piles[0, :n] = pr.deck
        self.gs[K.G_DECK] = n

    def t(self, tid):
        return BOARD.ids.index(tid)

    def own(self, tid, p, samurai, castle=False):
        t = self.t(tid)
        K.set_owner(self.bd, self.pl, self.pcount, self.prep.terr, t, p)
        self.bd[K.SAM, t] = samurai
        self.pl[p, K.PL_SUPPLY] -= samurai
        if castle:
            self.bd[K.CASTLE, t] = 1
            self.pl[p, K.PL_CASTLES] -= 1

    def give(self, p, *names):
        for name in names:
            code = DECK.names.index(name)
            pile = self.piles[0]
            n = self.gs[K.G_DECK]
            i = int(np.nonzero(pile[:n] == code)[0][0])
            pile[i] = pile[n - 1]
            self.gs[K.G_DECK] = n - 1
            self.hand[p, self.pl[p, K.PL_HAND]] = code
            self.pl[p, K.PL_HAND] += 1

    def clear_hand(self, p):
        """Discard p's whole hand."""
        for i in range(self.pl[p, K.PL_HAND]):
            self.piles[1, self.gs[K.G_DISC]] = self.hand[p, i]
            self.gs[K.G_DISC] += 1
        self.pl[p, K.PL_HAND] = 0

    def top_of_deck(self, *names):
        """Put these cards on top of the draw pile, the first drawn first."""
        pile = self.piles[0]
        n = self.gs[K.G_DECK]
        for k, name in enumerate(names):
            code = DECK.names.index(name)
            i = int(np.nonzero(pile[: n - k] == code)[0][0])
            pile[i], pile[n - 1 - k] = pile[n - 1 - k], pile[i]

    def link(self, a, b):
        ta, tb = self.t(a), self.t(b)
        pr = self.prep
        for e in range(pr.adj_start[ta], pr.adj_start[ta + 1]):
            if pr.adj[0, e] == tb:
                return e
        raise AssertionError(f"{a} and {b} are not linked")

    def settle(self):
        """Clans this position gives no territory count as eliminated."""
        self.pl[:, K.PL_OUT] = self.pl[:, K.PL_NTERR] == 0
        assert self.ok()

    def activate(self, p):
        """Make it p's activation (its first action, the turn's first clan)."""
        st = self.st
        st.phase[0] = K.ACT
        st.actor[0] = p
        st.auto[0] = K.GO_NONE
        st.cx[K.CX_ACTIVE] = p
        st.cx[K.CX_ACTIONS] = 0
        st.cx[K.CX_ITER] = 0
        st.cx[K.CX_ORDER_ACT] = 1
        st.scr[K.SC_DONE, :] = 0
        st.scr[K.SC_DONE, p] = 1

    def act(self, p, action):
        """p takes `action` in its activation; the other clans' decisions it causes are
        taken by their policies, until p is to act again (or its activation is over)."""
        self.settle()
        self.activate(p)
        self.h.apply(action)
        while not (self.h.phase() in ("act", "order") or self.h.is_over()):
            self.h.step()
        assert self.ok()

    def move(self, p, a, b, k):
        """p moves k samurai from a to b, fighting if it is an attack; True if it fought."""
        battles = int(self.aggs["battles"][..., 0].sum())
        e = self.link(a, b)
        self.act(p, int(K.move_action(self.st, e, k)))
        return int(self.aggs["battles"][..., 0].sum()) > battles

    def play_card(self, p, name, target):
        code = DECK.names.index(name)
        i = int(np.nonzero(self.hand[p, : self.pl[p, K.PL_HAND]] == code)[0][0])
        self.act(p, int(K.card_action(self.st, i, target)))

    def end_activation(self, p):
        """p passes: its activation ends (provinces and Kyoto pay)."""
        self.act(p, int(K.PASS))

    def ok(self):
        pr = self.prep
        return K.audit(self.P, self.bd, self.pl, self.pcount, self.gs, pr.terr, pr.pi,
                       pr.deck.shape[0], self.st.scr[K.SC_A])

    def where(self, tid):
        t = self.t(tid)
        return int(self.bd[0, t]), int(self.bd[1, t]), int(self.bd[2, t])

    def honor(self, p):
        return int(self.pl[p, K.PL_HONOR])

    def cards(self, p):
        return int(self.pl[p, K.PL_HAND])

    def legal(self, p):
        """p's legal actions at the start of an activation in this position."""
        self.settle()
        self.activate(p)
        return self.h.legal_actions()

    def choice(self, p):
        """What p's policy chooses at the start of an activation in this position."""
        self.settle()
        self.activate(p)
        return self.h.choose()


LOG, LOG_N = new_log(0)


# --- battles in the campaign -------------------------------------------------------------

def test_attacker_wins_takes_the_territory_and_the_defender_retreats():
    w = World()
    w.own("owari", 0, 5)
    w.own("mino", 1, 3)
    w.own("hida", 1, 1)
    w.own("kai", 2, 1)
    w.give(0, "Mounted Samurai", "Hatamoto")  # 4 + 3 = 7 points, 2 swords
    w.give(1, "Ashigaru", "Ashigaru")  # 1 + 1 = 2 points, 2 swords
    w.pl[1, K.PL_HONOR] = 3
    w.gs[K.G_SHOGUN] = 1
    assert w.move(0, "owari", "mino", 4)
    assert w.where("mino") == (0, 2, 0)  # 4 attackers, 2 lost to 2 swords
    assert w.where("hida") == (1, 2, 0)  # the defender's survivor retreated there
    assert w.where("owari") == (0, 1, 0)
    assert w.honor(0) == 1 and w.honor(1) == 2  # the Shogun loses 1 for a lost battle
    assert w.cards(0) == 2 and w.cards(1) == 2  # 2 new cards each
    assert w.pl[0, K.PL_KOKU] == 4


def test_defender_wins_draws_three_and_attackers_go_home():
    w = World()
    w.own("owari", 0, 4)
    w.own("mino", 1, 4)
    w.own("kai", 2, 1)
    w.own("hida", 3, 1)
    w.give(0, "Ashigaru", "Ashigaru")  # 2 + 3 samurai = 5
    w.give(1, "Ikko Ikki Uprising", "No Theatre")  # 7 points, 1 sword + 4 samurai = 11
    w.gs[K.G_SHOGUN] = 0
    w.pl[0, K.PL_HONOR] = 4
    assert w.move(0, "owari", "mino", 3)
    assert w.where("owari") == (0, 3, 0)  # 3 moved, 1 killed, 2 came back to the 1 left
    assert w.where("mino") == (1, 2, 0)
    assert w.honor(1) == 1 and w.honor(0) == 3  # the Shogun lost a battle
    assert w.cards(1) == 3 and w.cards(0) == 2


@pytest.mark.parametrize("tie_draw", ["2", "3"])
def test_tie_defender_holds_no_honor_cards_by_the_reading(tie_draw):
    w = World(rules=[f"tie-draw={tie_draw}"])
    w.own("owari", 0, 4)
    w.own("mino", 1, 3)
    w.own("kai", 2, 1)
    w.own("hida", 3, 1)
    w.give(0, "Samurai", "Samurai")  # 4 + 3 samurai = 7
    w.give(1, "Hatamoto", "Ashigaru")  # 4 + 3 samurai = 7
    assert w.move(0, "owari", "mino", 3)
    assert w.where("mino") == (1, 1, 0)  # 3 defenders, 2 swords against them
    assert w.where("owari") == (0, 2, 0)  # 3 moved, 2 killed, 1 came home to the 1 left
    assert w.honor(0) == 0 and w.honor(1) == 0
    assert w.cards(0) == 2 and w.cards(1) == int(tie_draw)


def test_a_castle_alone_defends_and_is_taken_over_with_a_reserve_castle():
    w = World()
    w.own("owari", 0, 5)
    w.own("mino", 1, 0, castle=True)  # a castle without samurai
    w.own("hida", 1, 1)
    w.own("kai", 2, 1)
    w.give(0, "Samurai", "Ashigaru")  # 3 + 2 samurai = 5 ...
    w.give(1, "Hatamoto", "Samurai")  # ... against 3 + 2 doubled = 7 with no samurai
    assert w.move(0, "owari", "mino", 2)
    assert w.where("mino") == (1, 0, 1)
    assert w.where("owari") == (0, 3, 0)  # both attackers killed by the 2 swords
    w.clear_hand(1)
    w.give(1, "Ashigaru", "Samurai")  # 2 + 1 doubled = 4, no samurai
    w.give(0, "Mounted Samurai", "Hatamoto")  # 7 + 3 samurai = 10
    assert w.move(0, "owari", "mino", 3)
    owner, _samurai, castle = w.where("mino")
    assert owner == 0 and castle == 1  # greedy puts one of its own castles in its place
    assert w.pl[0, K.PL_CASTLES] == 2 and w.pl[1, K.PL_CASTLES] == 3


def test_winner_wiped_out_frees_the_territory_and_destroys_its_castle():
    w = World()
    w.own("owari", 0, 5)
    w.own("mino", 1, 2, castle=True)
    w.own("hida", 1, 1)
    w.own("kai", 2, 1)
    w.give(0, "Mounted Samurai", "Mounted Samurai")  # 8 + 3 samurai = 11, 2 swords
    w.give(1, "Daimyo's Guard", "Yari Spearmen")  # 4 + 2 + 2 (castle) + 2 samurai = 10
    assert w.move(0, "owari", "mino", 3)  # 4 swords kill all 3 attackers
    assert w.where("mino") == (-1, 0, 0)
    assert w.pl[1, K.PL_CASTLES] == 3  # the destroyed castle goes back to its owner
    assert w.honor(0) == 1  # the battle is still won


def test_a_defender_short_of_cards_fills_to_two_and_plays_their_values_only():
    w = World()
    w.own("owari", 0, 5)
    w.own("mino", 1, 1)
    w.own("hida", 1, 1)
    w.own("kai", 2, 1)
    w.give(0, "Samurai", "Samurai")  # 4 + 4 samurai = 8
    w.top_of_deck("Ambush", "Battle Standard")  # drawn by the defender: values 3 + 2
    assert w.move(0, "owari", "mino", 4)
    assert w.aggs["misc"][Misc.FILLED] == 1
    # 3 + 2 + 1 samurai = 6 < 8: a Battle Standard played as a special would not change it,
    # but the defender had only the two cards it drew: both count for their values
    assert w.where("mino")[0] == 0


def test_attacks_need_two_cards():
    w = World(seats=("random",) * 4)
    w.own("owari", 0, 5)
    w.own("mino", 1, 1)
    w.give(0, "Samurai")
    mino = w.t("mino")
    for a in w.legal(0):  # no attack on mino with one card, for any policy
        if a >= K.move_base(w.st):
            e = (a - K.move_base(w.st)) // int(w.prep.pi[K.PI_SAMURAI])
            assert w.prep.adj[0, e] != mino
    w2 = World()
    w2.own("owari", 0, 5)
    w2.own("mino", 1, 1)
    w2.give(0, "Samurai")
    assert w2.choice(0) in w2.legal(0)


# --- cards and reactions ------------------------------------------------------------------

def test_tsunami_cancels_a_sea_attack_and_refunds_the_move():
    w = World()
    w.own("echigo", 0, 5)
    w.own("sado", 1, 1)
    w.own("kai", 1, 1)
    w.give(0, "Samurai", "Samurai")
    w.give(1, "Tsunami", "Ashigaru", "Ashigaru")
    assert not w.move(0, "echigo", "sado", 4)
    assert w.where("sado") == (1, 1, 0) and w.where("echigo") == (0, 5, 0)
    assert w.pl[0, K.PL_KOKU] == 5 and w.cards(1) == 2
    assert w.aggs["misc"][Misc.CANCELLED] == 1
    # with two cards left it can no longer play a card at any time: the attack goes on
    w = World()
    w.own("echigo", 0, 5)
    w.own("sado", 1, 1)
    w.own("kai", 1, 1)
    w.give(0, "Samurai", "Samurai")
    w.give(1, "Tsunami", "Ashigaru")
    assert w.move(0, "echigo", "sado", 4)


def test_tsunami_only_on_sea_links_scorched_earth_on_any():
    w = World()
    w.own("owari", 0, 5)
    w.own("mino", 1, 1)
    w.own("hida", 1, 1)
    w.give(0, "Samurai", "Samurai")
    w.give(1, "Tsunami", "Ashigaru", "Ashigaru")
    assert w.move(0, "owari", "mino", 4)  # a land move: Tsunami cannot stop it
    w2 = World()
    w2.own("owari", 0, 5)
    w2.own("mino", 1, 1)
    w2.own("hida", 1, 1)
    w2.give(0, "Samurai", "Samurai")
    w2.give(1, "Scorched Earth", "Ashigaru", "Ashigaru")
    assert not w2.move(0, "owari", "mino", 4)
    assert w2.where("mino") == (1, 1, 0) and w2.pl[0, K.PL_KOKU] == 5


def test_uprisings_spare_castles_lone_territories_and_optionally_kyoto():
    w = World(rules=["kyoto-uprising=forbidden"])
    w.own("owari", 0, 2)
    w.own("mino", 1, 3)
    w.own("hida", 1, 2, castle=True)
    w.own("yamashiro", 1, 1)
    w.own("kai", 2, 4)  # clan 2's only territory
    pr = w.prep

    def ok(tid):
        return K.uprising_ok(w.bd, w.pl, pr.pi, w.t(tid), 0)

    assert ok("mino") and not ok("hida") and not ok("kai") and not ok("yamashiro")
    assert not ok("owari")  # not against yourself
    w.give(0, "Hokke Sect", "Ikko Ikki Uprising")
    w.play_card(0, "Hokke Sect", w.t("mino"))  # a sect removes 2
    assert w.where("mino") == (1, 1, 0) and w.pl[0, K.PL_KOKU] == 4
    w.play_card(0, "Ikko Ikki Uprising", w.t("mino"))  # Ikko Ikki removes them all
    assert w.where("mino") == (-1, 0, 0) and w.pl[0, K.PL_KOKU] == 2
    w2 = World()
    w2.own("yamashiro", 1, 1)
    w2.own("mino", 1, 1)
    assert K.uprising_ok(w2.bd, w2.pl, w2.prep.pi, w2.t("yamashiro"), 0)


def test_shogunal_justice_cancels_a_card_played_against_its_holder():
    w = World()
    w.own("owari", 0, 2)
    w.own("mino", 1, 3)
    w.pl[1, K.PL_HONOR] = 5
    w.give(0, "Plot", "Insult")
    w.give(1, "Shogunal Justice", "Ashigaru", "Ashigaru")
    w.play_card(0, "Plot", 1)
    assert w.honor(1) == 5 and w.cards(1) == 2  # countered: Justice spent
    assert w.pl[0, K.PL_KOKU] == 4  # the Plot's cost is lost
    w.play_card(0, "Insult", 1)
    assert w.honor(1) == 4
    w.give(0, "Insult")
    w.pl[1, K.PL_HONOR] = 0
    w.play_card(0, "Insult", 1)
    assert w.honor(1) == 0  # the dishonor floor


def test_culture_harvest_wako_and_ninja():
    w = World(seats=("greedy", "random", "random", "random"))
    w.own("owari", 0, 2)
    w.own("mino", 1, 1)
    w.give(0, "No Theatre", "Rice Harvest", "Wako Pirates", "Ninja", "Samurai", "Hatamoto")
    w.give(1, "Ashigaru")
    w.play_card(0, "No Theatre", 0)
    assert w.honor(0) == 2 and w.pl[0, K.PL_KOKU] == 2
    w.play_card(0, "Rice Harvest", 0)
    assert w.pl[0, K.PL_KOKU] == 5
    w.pl[1, K.PL_KOKU] = 2
    w.play_card(0, "Wako Pirates", 1)
    assert w.pl[0, K.PL_KOKU] == 7 and w.pl[1, K.PL_KOKU] == 0  # up to 3: all 2 it had
    w.play_card(0, "Ninja", 1)
    assert w.cards(1) == 0 and DECK.names.index("Ashigaru") in w.hand[0, : w.cards(0)]


# --- Honor, offices and the end -----------------------------------------------------------

def kinai(w, p):
    for tid in ("yamashiro", "yamato", "settsu", "izumi"):
        w.own(tid, p, 1)


@pytest.mark.parametrize("once", [False, True])
def test_provinces_pay_at_the_end_of_the_activation(once):
    w = World(rules=["province-honor=once"] if once else [])
    kinai(w, 0)
    w.end_activation(0)
    assert w.honor(0) == 5  # Kinai 5; Kyoto pays nothing while the whole province is held
    w.end_activation(0)
    assert w.honor(0) == (5 if once else 10)
    K.set_owner(w.bd, w.pl, w.pcount, w.prep.terr, w.t("izumi"), -1)  # lose a territory
    w.pl[0, K.PL_SUPPLY] += w.bd[1, w.t("izumi")]
    w.bd[1, w.t("izumi")] = 0
    w.end_activation(0)
    assert w.honor(0) == (6 if once else 11)  # Kyoto alone: 1
    w.own("izumi", 0, 1)
    w.end_activation(0)
    assert w.honor(0) == (11 if once else 16)  # completed again: it pays again


def test_province_values_minus_one():
    w = World(rules=["province-values=minus-one"])
    kinai(w, 0)
    w.end_activation(0)
    assert w.honor(0) == 4


def test_the_game_ends_only_when_the_target_is_passed():
    w = World(rules=["target-honor=20"])
    K.gain(w.pl, w.src, w.gs, w.prep.pi, LOG, LOG_N, 0, 20, Source.CARDS)
    assert w.gs[K.G_END] == 0  # 20 is reached, not passed
    K.gain(w.pl, w.src, w.gs, w.prep.pi, LOG, LOG_N, 0, 1, Source.CARDS)
    assert w.gs[K.G_END] == 1


@pytest.mark.parametrize("every", [False, True])
def test_emperor_gains_honor_when_he_stays_and_shogun_needs_more_honor(every):
    w = World(rules=["emperor-honor=every-turn"] if every else [])
    pr, seat = w.prep, w.aggs["seat"]
    K.new_offices(w.pl, w.gs, w.bd, pr.pi, w.src, seat, LOG, LOG_N)
    assert w.gs[K.G_EMP] == 0 and w.honor(0) == 1  # everyone at 0: the Emperor stays
    assert w.gs[K.G_SHOGUN] == -1  # no one has more Honor than the Emperor
    # now clan 0 leads: clan 1 (first clockwise among the tied last) becomes Emperor
    w.pl[0, K.PL_HONOR] = 6
    K.new_offices(w.pl, w.gs, w.bd, pr.pi, w.src, seat, LOG, LOG_N)
    assert w.gs[K.G_EMP] == 1 and w.gs[K.G_SHOGUN] == 0
    assert w.honor(1) == (1 if every else 0)


def test_emperor_ties_go_to_fewer_clan_points():
    w = World()
    w.own("settsu", 2, 1)  # a major city: 2 clan points
    w.own("yamato", 3, 1)  # a minor city: 1 clan point
    w.own("kii", 1, 1)
    w.own("ise", 0, 1)
    w.gs[K.G_EMP] = 2
    K.new_offices(w.pl, w.gs, w.bd, w.prep.pi, w.src, w.aggs["seat"], LOG, LOG_N)
    assert w.gs[K.G_EMP] in (0, 1)  # no clan points: fewer than clans 2 and 3


def test_an_eliminated_clan_returns_with_five_samurai_and_four_koku():
    w = World()
    w.own("owari", 0, 3)
    w.own("mino", 0, 2)
    w.settle()  # clans 1-3 hold nothing: eliminated
    w.pl[1, K.PL_KOKU] = 7  # kept from before: it returns with 4, not 7 + 4
    w.pl[2, K.PL_KOKU] = 0  # none kept: 4 all the same
    w.st.phase[0] = K.RETURN  # the returns at the start of a turn, clan 1 first
    w.st.actor[0] = 1
    w.st.cx[K.CX_ITER] = 1
    w.h.step()
    assert w.pl[1, K.PL_OUT] == 0 and w.pl[1, K.PL_KOKU] == 4
    (t,) = np.nonzero(w.bd[0] == 1)[0]
    assert w.bd[1, t] == 5 and w.bd[2, t] == 0
    assert w.ok()
    assert w.h.phase() == "return" and w.h.current_player() == 2  # then clan 2
    w.h.step()
    assert w.pl[2, K.PL_OUT] == 0 and w.pl[2, K.PL_KOKU] == 4
    assert int((w.bd[0] == 2).sum()) == 1 and int(w.bd[1][w.bd[0] == 2].sum()) == 5


def test_taxes_and_cards_by_clan_points():
    for deal, cp, extra in (("standard", 1, 1), ("standard", 6, 2), ("new", 2, 0),
                            ("new", 3, 1), ("standard", 0, 0)):
        w = World(rules=[f"political-deal={deal}"])
        w.own("kai", 0, 1)  # mountain: 1 koku, a minor city
        w.own("shinano", 0, 1)  # mountain, no city
        w.own("owari", 0, 1)  # plain: 2 koku
        w.pl[0, K.PL_CP] = cp  # clan points as if it held these cities (not audited)
        w.pl[:, K.PL_OUT] = w.pl[:, K.PL_NTERR] == 0
        w.activate(1)  # the turn's last activation (clan 1 is out): phases 3 and 4 follow
        w.st.cx[K.CX_ITER] = w.P - 1
        w.h.apply(int(K.PASS))
        assert w.h.phase() == "discard" and w.h.current_player() == 0
        assert w.pl[0, K.PL_KOKU] == 5 + 1 + 1 + 2
        w.h.apply(0)  # keeps its (empty) hand
        assert w.cards(0) == 5 + extra, (deal, cp)


# --- whole games --------------------------------------------------------------------------

SETUPS = [
    (3, ("random",) * 3, []),
    (4, ("greedy",) * 4, []),
    (4, ("random", "greedy", "random", "greedy"), ["emperor=limited", "political-deal=new"]),
    (5, ("greedy",) * 5, ["province-honor=once", "land-of-koku=on"]),
    (6, ("random",) * 6, ["kyoto-uprising=forbidden", "province-values=minus-one"]),
    (6, ("greedy", "random") * 3, ["target-honor=20", "emperor-honor=every-turn"]),
]


@pytest.mark.parametrize(("players", "seats", "rules"), SETUPS)
def test_whole_games_keep_every_invariant_and_end(players, seats, rules):
    prep = GAME.prepare(CONTENT, players, seats, GAME.resolve_rules(rules))
    aggs = GAME.new_aggregates(prep)
    games = 120
    rows = np.zeros((games, N_ROW), np.int64)
    st = play(prep, 21, 0, games, aggs, rows)
    misc = aggs["misc"]
    assert misc[Misc.BROKEN] == 0  # audited after every turn of every game
    assert misc[Misc.CAPPED] <= 2 and misc[Misc.ACTION_CAP] == 0
    core = GAME.core_stats(aggs, players)
    assert core.games == games == core.seat_wins.sum() + core.shared
    assert (rows[:, K.R_WINNER] < players).all() and (rows[:, K.R_TURNS] >= 1).all()
    target = int(GAME.resolve_rules(rules)["target-honor"])
    completed = rows[:, K.R_COMPLETED] == 1
    # a completed game ends in the turn someone passed the target
    assert completed.sum() == games - misc[Misc.CAPPED]
    honors = rows[:, K.R_HONOR:K.R_HONOR + players]
    # someone passed the target during the last turn (Honor may fall again before its end)
    assert np.median(honors.max(axis=1)[completed]) >= target
    winners = rows[:, K.R_WINNER]
    won = winners >= 0
    assert (honors[won, winners[won]] == honors[won].max(axis=1)).all()
    bd, pl, pcount, hand, piles, gs = st.bd, st.pl, st.pcount, st.hand, st.piles, st.gs
    assert K.audit(players, bd, pl, pcount, gs, prep.terr, prep.pi, prep.deck.shape[0],
                   st.scr[K.SC_A])
    pile = np.concatenate([piles[0, :gs[K.G_DECK]], piles[1, :gs[K.G_DISC]],
                           *[hand[p, :pl[p, K.PL_HAND]] for p in range(players)]])
    assert np.array_equal(np.sort(pile), np.sort(prep.deck))  # every card exactly once
    assert aggs["lengths"].sum() == games and aggs["catch_up"][1, 0] == games


def test_greedy_beats_random():
    prep = GAME.prepare(CONTENT, 4, ("greedy", "random", "random", "random"),
                        GAME.resolve_rules([]))
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 3, 0, 400, aggs, None)
    assert aggs["wins"][0] / 400 > 0.6


def test_a_higher_target_makes_longer_games():
    means = []
    for target in ("20", "40"):
        prep = GAME.prepare(CONTENT, 4, ("greedy",) * 4,
                            GAME.resolve_rules([f"target-honor={target}"]))
        aggs = GAME.new_aggregates(prep)
        GAME.run_chunk(prep, 3, 0, 300, aggs, None)
        h = aggs["lengths"]
        means.append((h * np.arange(len(h))).sum() / h.sum())
    assert means[1] > means[0] + 3


def test_rotation_moves_players_and_their_luck_but_not_the_deal():
    prep = GAME.prepare(CONTENT, 3, ("greedy", "random", "random"), GAME.resolve_rules([]))
    for idx in range(10):
        runs = []
        for r in range(4):
            aggs = GAME.new_aggregates(prep)
            rows = np.zeros((1, N_ROW), np.int64)
            st = play(prep, 8, idx, 1, aggs, rows, rotation=r)
            runs.append((rows[0].copy(), aggs["start_major"].copy(), st.bd.copy()))
        assert np.array_equal(runs[3][0], runs[0][0])  # rotation 3 = rotation 0 (3 seats)
        for r in range(1, 3):  # the shared stream deals the same cities to the same seats
            assert np.array_equal(runs[r][0][K.R_INCOME:K.R_INCOME + 3],
                                  runs[0][0][K.R_INCOME:K.R_INCOME + 3])


def config(tmp_path, **kw):
    base = dict(game="samurai-katana", players=4, seats=("greedy", "random", "greedy", "random"),
                n=600, seed=42, threads=1, rules=GAME.resolve_rules(["emperor=limited"]),
                content=None, out=tmp_path / "run")
    base.update(kw)
    return RunConfig(**base)


def aggregates(cfg):
    prep = GAME.prepare(CONTENT, cfg.players, cfg.seats, cfg.rules)
    aggs, _, _ = study_play(GAME, prep, cfg, None, None)
    return aggs


def test_same_seed_same_statistics_for_any_threads_and_chunks(tmp_path):
    a = aggregates(config(tmp_path, threads=1, chunk_size=600))
    b = aggregates(config(tmp_path, threads=2, chunk_size=97))
    c = aggregates(config(tmp_path, threads=2, chunk_size=250))
    for key in a:
        assert np.array_equal(a[key], b[key]), key
        assert np.array_equal(a[key], c[key]), key
    d = aggregates(config(tmp_path, seed=43))
    assert not np.array_equal(a["sources"], d["sources"])


def test_mirrored_run_counts_every_rotation(tmp_path):
    aggs = aggregates(config(tmp_path, n=120, mirror=True, threads=2, chunk_size=50))
    assert aggs["mirror_seat"].sum() == 4 * 120
    assert aggs["lengths"].sum() == 4 * 120
    plain = aggregates(config(tmp_path, n=120, threads=1))
    assert np.array_equal(aggs["trace"], plain["trace"])  # sample traces from rotation 0


def test_the_audit_catches_broken_states():
    def broken(change):
        w = World()
        w.own("owari", 0, 3)
        w.own("mino", 1, 2, castle=True)
        w.give(0, "Samurai")
        w.settle()
        change(w)
        return not w.ok()

    assert not broken(lambda w: None)
    assert broken(lambda w: w.bd.__setitem__((1, w.t("owari")), 4))  # a samurai from nowhere
    assert broken(lambda w: w.pl.__setitem__((1, K.PL_CASTLES), 3))  # a castle too many
    assert broken(lambda w: w.pl.__setitem__((0, K.PL_KOKU), -1))
    assert broken(lambda w: w.bd.__setitem__((0, w.t("kai")), 2))  # an owner without pieces
    assert broken(lambda w: w.pcount.__setitem__((0, 0), 1))
    assert broken(lambda w: w.gs.__setitem__(K.G_DISC, 1))  # a card counted twice
    assert broken(lambda w: w.pl.__setitem__((1, K.PL_OUT), 1))  # out while holding land


def test_a_defender_with_nowhere_to_retreat_loses_his_survivors_and_is_eliminated():
    w = World()
    w.own("owari", 0, 5)
    w.own("mino", 1, 3)  # clan 1's only territory
    w.give(0, "Mounted Samurai", "Hatamoto")  # 7 + 4 = 11 against 2 + 3 = 5
    w.give(1, "Ashigaru", "Ashigaru")
    assert w.move(0, "owari", "mino", 4)
    assert w.where("mino")[0] == 0
    assert w.pl[1, K.PL_NTERR] == 0 and w.pl[1, K.PL_OUT] == 1
    assert w.pl[1, K.PL_SUPPLY] == w.prep.pi[K.PI_SAMURAI]  # every samurai back in supply


def test_samurai_may_move_again_after_a_move_each_move_paid():
    w = World()
    w.own("owari", 0, 5)
    assert not w.move(0, "owari", "mino", 4)  # a free territory: taken, 1 koku
    assert not w.move(0, "mino", "hida", 3)  # the same samurai move on: 1 koku more
    assert w.where("hida") == (0, 3, 0) and w.pl[0, K.PL_KOKU] == 3
    w.own("shinano", 0, 0, castle=True)
    assert not w.move(0, "hida", "shinano", 2)  # into its own castle: free
    assert w.pl[0, K.PL_KOKU] == 3


def test_the_shogun_has_one_free_move_per_turn():
    w = World()
    w.own("owari", 0, 5)
    w.pl[0, K.PL_FREE] = 1  # set at the start of the Shogun's activation
    assert not w.move(0, "owari", "mino", 1)
    assert w.pl[0, K.PL_KOKU] == 5 and w.pl[0, K.PL_FREE] == 0
    assert not w.move(0, "owari", "ise", 1)
    assert w.pl[0, K.PL_KOKU] == 4


def test_random_sells_honor_only_when_out_of_koku():
    w = World(seats=("random",) * 4)
    w.own("owari", 0, 1)
    w.pl[0, K.PL_HONOR] = 6
    seen = {5: set(), 0: set()}
    for koku in (5, 0):
        w.pl[0, K.PL_KOKU] = koku
        assert (int(K.SELL) in w.legal(0)) == (koku == 0)
        for i in range(300):
            seed_lanes(w.st.rng, np.uint64(i), 0)
            a = w.choice(0)
            seen[koku].add("move" if a >= K.move_base(w.st) else int(a))
    assert int(K.SELL) not in seen[5] and "move" in seen[5]
    assert seen[0] == {int(K.PASS), int(K.SELL)}  # no koku: it cannot move either
