"""Samurai & Katana rules driven through the Python handle on hand-built positions: combat
points (a castle doubles its owner's weaker card, the mountain's +1, at most 4 samurai
count, allied ones included, a tie leaves the defender holding), losses capped at 4,
purchase costs and limits; Emperor and Shogun tie-breaks at any koku.
(Province Honor and the Emperor/Shogun selection: tests/test_samurai_katana_campaign.py.)"""

import numpy as np
import pytest

from kernels.samurai_katana import rules as K
from tests.test_samurai_katana_campaign import World


def side_points(w):
    """Card points of each battle side in the log, in order (attacker, defender, ...)."""
    return [int(e.detail.rsplit(": ", 1)[1].split()[0]) for e in w.h.log() if e.kind == "side"]


def battle(castle):
    """Clan 0 attacks clan 1's single samurai with 2 Ashigaru (2 points) and 4 samurai
    against Hatamoto + Ashigaru (3 + 1)."""
    w = World()
    w.own("owari", 0, 5)
    w.own("mino", 1, 1, castle=castle)
    w.own("hida", 1, 1)
    w.give(0, "Ashigaru", "Ashigaru")
    w.give(1, "Hatamoto", "Ashigaru")
    assert w.move(0, "owari", "mino", 4)
    return w


def test_a_castle_doubles_its_owners_weaker_card():
    w = battle(castle=False)  # 2 + 4 = 6 against 4 + 1 = 5: the attacker wins
    assert side_points(w) == [2, 4]
    assert w.where("mino")[0] == 0 and w.honor(0) == 1
    w = battle(castle=True)  # 3 + 1 + 1 (doubled) + 1 = 6: a tie, the defender holds
    assert side_points(w) == [2, 5]
    assert w.where("mino") == (1, 0, 1)  # its samurai died; the castle holds alone
    assert w.honor(0) == 0 and w.honor(1) == 0  # a tie gives no Honor
    assert w.where("owari") == (0, 1 + 4 - 2, 0)  # 2 swords killed two attackers


def test_the_mountain_gives_the_defender_one_point():
    for target, mountain in (("hida", True), ("shinano", True), ("omi", False)):
        w = World()
        w.own("mino", 0, 5)
        w.own(target, 1, 3)
        w.own("kai", 1, 1)
        w.give(0, "Samurai", "Samurai")  # 4 + 4 = 8
        w.give(1, "Hatamoto", "Ashigaru")  # 4 + 3 (+ 1 in the mountains)
        assert w.move(0, "mino", target, 4)
        outcome = next(e for e in w.h.log() if e.kind == "outcome").detail
        if mountain:  # 8 against 8: a tie, the defender holds with 1 samurai left
            assert "tie" in outcome and w.where(target) == (1, 1, 0)
        else:
            assert "attacker wins" in outcome and w.where(target)[0] == 0


def test_at_most_four_samurai_count():
    w = World()
    w.own("owari", 0, 6)
    w.own("mino", 1, 1)
    w.own("hida", 1, 1)
    w.give(0, "Ashigaru", "Ashigaru")  # 2 + min(5, 4) = 6, not 7
    w.give(1, "Hatamoto", "Samurai")  # 5 + 1 = 6: a tie
    assert w.move(0, "owari", "mino", 5)
    assert w.honor(0) == 0 and w.honor(1) == 0
    assert w.where("mino") == (-1, 0, 0)  # its last samurai fell: the territory is free
    assert w.where("owari") == (0, 1 + 5 - 2, 0)  # 2 swords: 2 attackers died


def alliance_attack(moved, left, rules=()):
    """Clan 0 attacks Mino from Owari with `moved` samurai, `left` staying in Owari (its
    allies: land-adjacent), holding 2 Ashigaru and the Alliance (4; 3 as a combat card)."""
    w = World(rules=rules)
    w.own("owari", 0, moved + left)
    w.own("mino", 1, 1)
    w.own("hida", 1, 1)
    w.give(0, "Ashigaru", "Ashigaru", "Alliance")
    w.give(1, "Hatamoto", "Ashigaru")
    assert w.move(0, "owari", "mino", moved)
    return side_points(w)


def test_allied_samurai_count_within_the_four_samurai_cap():
    # 4 own samurai already count 4: the Alliance adds none, so greedy plays it for its
    # value (1 + 3), not as a special (1 + 1 + 3 allies on top of the cap)
    assert alliance_attack(4, 3)[0] == 4
    # 1 own samurai: room for 3 of the 4 allies (1 + 1 + 3), not 4
    assert alliance_attack(1, 4)[0] == 5
    # the defender too: 3 own samurai leave room for 1 of the 4 in Hida, so the Alliance
    # is worth more as a combat card (1 + 3) than as a special (1 + 1 + 1)
    w = World()
    w.own("owari", 0, 5)
    w.own("mino", 1, 3)
    w.own("hida", 1, 4)
    w.give(0, "Samurai", "Samurai")
    w.give(1, "Ashigaru", "Ashigaru", "Alliance")
    assert w.move(0, "owari", "mino", 4)
    assert side_points(w) == [4, 4]
    assert w.where("mino")[0] == 0  # 4 + 4 against 4 + 3: the attacker wins


def test_allied_samurai_count_on_top_of_the_cap_with_the_option():
    """--rule alliance=on-top: up to 4 allied samurai count beyond the 4-samurai cap."""
    on_top = ["alliance=on-top"]
    assert alliance_attack(4, 3, on_top)[0] == 1 + 1 + 3  # played as a special: 3 allies
    assert alliance_attack(1, 4, on_top)[0] == 1 + 1 + 4  # all 4 allies
    assert alliance_attack(1, 6, on_top)[0] == 1 + 1 + 4  # at most 4


def test_losses_are_capped_at_four():
    w = World()
    w.own("owari", 0, 5)
    w.own("mino", 1, 6)
    w.own("hida", 1, 1)
    # 2 + 2 swords + an Arquebus's 2: 6 swords, but at most 4 defenders die
    w.give(0, "Yari Spearmen", "Yumi Archers", "Tanegashima Arquebus")
    w.give(1, "Daimyo's Guard", "Mounted Samurai")  # 8 + 4 = 12: the defender wins
    assert w.move(0, "owari", "mino", 4)
    assert w.where("mino") == (1, 6 - 4, 0)
    assert w.where("owari") == (0, 1 + 4 - 3, 0)  # 3 swords against the attackers
    assert w.honor(1) == 1


def test_purchase_costs_and_limits():
    w = World()
    w.own("yamashiro", 0, 1)  # Kyoto: a castle costs 6
    w.own("owari", 0, 1)  # elsewhere 4
    w.own("mino", 0, 1, castle=True)  # already has one
    w.settle()  # clans 1-3 hold nothing
    st = w.st
    st.scr[K.SC_ORDER, :4] = (0, 1, 2, 3)
    st.cx[K.CX_ITER] = 0
    st.phase[0] = K.CASTLE_BUY
    st.actor[0] = 0
    kyoto, owari = w.t("yamashiro"), w.t("owari")
    assert w.h.legal_actions() == [0, 1 + owari]  # 5 koku: Kyoto's castle is too dear
    w.pl[0, K.PL_KOKU] = 9
    assert sorted(w.h.legal_actions()) == sorted([0, 1 + kyoto, 1 + owari])
    w.h.apply(1 + kyoto)
    assert w.pl[0, K.PL_KOKU] == 3 and w.pl[0, K.PL_CASTLES] == 1 and w.where("yamashiro")[2]
    assert w.h.phase() == "buy" and w.h.legal_actions() == [0, 1, 2, 3]  # 1 koku each
    w.h.apply(2)
    placed = 0
    while w.h.phase() == "place":
        assert set(w.h.legal_actions()) == {kyoto, owari, w.t("mino")}
        w.h.step()
        placed += 1
    assert placed == 2 and w.pl[0, K.PL_KOKU] == 1
    assert int(w.bd[K.SAM].sum()) == 5 and w.ok()
    # one castle a turn: a clan that built is asked only for samurai
    w.pl[0, K.PL_BUILT] = 1
    st.cx[K.CX_ITER] = 0
    st.cx[K.CX_ORDER_ACT] = 0
    st.phase[0] = K.ORDER
    st.actor[0] = 0
    st.scr[K.SC_DONE, :4] = (1, 1, 1, 0)
    st.cx[K.CX_ITER] = 3
    w.h.apply(3)  # the Emperor names the last clan: phase 1 begins with clan 0
    assert w.h.phase() == "buy" and w.h.current_player() == 0
    assert np.array_equal(st.scr[K.SC_ORDER, :4], (0, 1, 2, 3))


def test_the_emperor_and_the_shogun_are_named_after_the_last_activation():
    w = World()
    for tid, p in (("owari", 0), ("mino", 1), ("hida", 2), ("kai", 3)):
        w.own(tid, p, 1)  # minor cities (1 clan point) but hida: no city
    for p, h in enumerate((5, 2, 2, 8)):
        w.pl[p, K.PL_HONOR] = h
    w.settle()
    w.activate(3)  # the turn's last activation: phase 3 follows its end
    w.st.cx[K.CX_ITER] = w.P - 1
    w.h.apply(int(K.PASS))
    # fewest Honor: clans 1 and 2 tie at 2; clan 2 has fewer clan points (no city)
    assert w.gs[K.G_EMP] == 2 and w.gs[K.G_SHOGUN] == 3  # the most Honor
    assert w.honor(2) == 2  # a new Emperor gains nothing (only one who stays)
    assert any(e.kind == "offices" and e.detail == "Emperor seat 3, Shogun seat 4"
               for e in w.h.log())
    assert w.h.phase() == "discard" and w.h.current_player() == 2  # phase 4 from him


@pytest.mark.parametrize("koku", [(913, 379, 268, 600), (300, 256, 255, 257),
                                  (100_000, 1 << 40, (1 << 40) - 1, 99_999)])
def test_emperor_and_shogun_ties_are_broken_by_koku_at_any_amount(koku):
    """'If several players are tied, it is the one with the fewest clan points, cities,
    then the fewest koku and finally the fewest samurai' (the Shogun the other way): koku
    decide at any amount (a key packing koku into 8 bits named the wrong clan above 255)."""
    w = World()
    # equal Honor in pairs, one minor city each (1 clan point): koku decide; the clan with
    # the koku to win each office has the samurai to lose it, were koku not compared
    for tid, p, samurai in (("owari", 0, 1), ("mino", 1, 1), ("kai", 2, 3), ("yamato", 3, 3)):
        w.own(tid, p, samurai)
    for p, h in enumerate((8, 2, 2, 8)):
        w.pl[p, K.PL_HONOR] = h
    w.settle()
    for p, k in enumerate(koku):
        w.pl[p, K.PL_KOKU] = k
    w.activate(3)  # the turn's last activation: phase 3 follows its end
    w.st.cx[K.CX_ITER] = w.P - 1
    w.h.apply(int(K.PASS))
    fewest = 1 if koku[1] < koku[2] else 2
    most = 0 if koku[0] > koku[3] else 3
    assert w.gs[K.G_EMP] == fewest and w.gs[K.G_SHOGUN] == most
    assert any(e.kind == "offices"
               and e.detail == f"Emperor seat {fewest + 1}, Shogun seat {most + 1}"
               for e in w.h.log())


def test_the_end_of_game_order_compares_every_field_uncapped():
    """'Most Honor wins; ties by clan points, cities, territories, castles, samurai': clan
    points above 63 still count (a packed key capped them), and castles come before
    samurai."""
    w = World()
    for tid, p, samurai, castle in (("owari", 0, 1, False), ("mino", 1, 3, False),
                                    ("kai", 2, 1, True), ("yamato", 3, 5, False)):
        w.own(tid, p, samurai, castle=castle)
    w.settle()
    for p, (h, cp) in enumerate(((10, 70), (10, 64), (0, 1), (0, 1))):
        w.pl[p, K.PL_HONOR] = h
        w.pl[p, K.PL_CP] = cp
    assert w.h.outcome()["winners"] == [1]  # more clan points (the other has more samurai)
    for p, h in enumerate((0, 0, 10, 10)):
        w.pl[p, K.PL_HONOR] = h
    assert w.h.outcome()["winners"] == [3]  # a castle (the other has more samurai)
    w.pl[:, K.PL_HONOR] = 10
    w.pl[:, K.PL_CP] = 70
    w.bd[K.CASTLE, w.t("kai")] = 0
    w.bd[K.SAM, :] = np.where(w.bd[K.OWNER] >= 0, 2, 0)
    assert w.h.outcome()["winners"] == [1, 2, 3, 4]  # equal after every tie-break: shared
