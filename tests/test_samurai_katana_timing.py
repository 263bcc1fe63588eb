"""Samurai & Katana through the Python handle: the printed timing of the cards "playable at
any time" (Tsunami against a sea move, Scorched Earth against any move, Shogunal Justice
against a card or an attack aimed at its holder, or at anyone with
--rule shogunal-justice=others; every clan still in the game is asked, the one aimed at
first, then clockwise from the active clan), a taken castle (a clan moves one of its own
there only with none in reserve), the Emperor's player order, the winner's tie-break chain
and where a returning clan may re-enter."""

import numpy as np
import pytest

from kernels.samurai_katana import rules as K
from kernels.samurai_katana.stats import Misc
from tests.test_samurai_katana_campaign import BOARD, CONTENT, GAME, World

LET, TSUNAMI, SCORCHED, JUSTICE = 0, 1, 2, 3


def announce(w, p, a, b, k):
    """p announces a move of k samurai from a to b (its activation's first action); the
    handle then waits for the first clan that may answer it, or for what follows the move."""
    w.settle()
    w.activate(p)
    w.h.apply(int(K.move_action(w.st, w.link(a, b), k)))


def asked(w):
    """(clan asked, its legal actions) of the reaction decision the game waits for."""
    assert w.h.phase() in ("cancel", "justice"), w.h.phase()
    return w.h.current_player(), sorted(w.h.legal_actions())


# --- Tsunami ----------------------------------------------------------------------------------

def test_any_clan_may_cancel_a_sea_move_with_tsunami_the_koku_refunded():
    w = World()
    w.own("echigo", 0, 5)
    w.own("kai", 1, 1)
    w.own("owari", 2, 1)
    w.give(2, "Tsunami", "Ashigaru", "Ashigaru")  # clan 2 is not the one moved against
    announce(w, 0, "echigo", "sado", 3)  # a sea move into a free territory
    assert asked(w) == (2, [LET, TSUNAMI])
    w.h.apply(TSUNAMI)
    assert w.where("echigo") == (0, 5, 0) and w.where("sado") == (-1, 0, 0)
    assert w.pl[0, K.PL_KOKU] == 5  # "recovers the koku he had just invested"
    assert w.cards(2) == 2 and w.aggs["misc"][Misc.CANCELLED] == 1
    assert w.h.phase() == "act" and w.h.current_player() == 0  # its activation goes on
    assert any(e.kind == "cancel" and "Tsunami" in e.detail for e in w.h.log())


def test_tsunami_does_not_answer_a_land_move_and_lets_a_sea_move_through_when_declined():
    w = World()
    w.own("echigo", 0, 5)
    w.own("owari", 2, 1)
    w.give(2, "Tsunami", "Ashigaru", "Ashigaru")
    announce(w, 0, "echigo", "shinano", 2)  # by land: nobody is asked
    assert w.h.phase() == "act" and w.where("shinano") == (0, 2, 0)
    assert w.pl[0, K.PL_KOKU] == 4
    announce(w, 0, "echigo", "sado", 1)
    assert asked(w) == (2, [LET, TSUNAMI])
    w.h.apply(LET)  # no one else holds an answer: the move happens
    assert w.h.phase() == "act" and w.where("sado") == (0, 1, 0)
    assert w.pl[0, K.PL_KOKU] == 3 and w.cards(2) == 3


def test_with_two_cards_left_no_card_is_playable_at_any_time():
    w = World()
    w.own("echigo", 0, 5)
    w.own("owari", 1, 1)
    w.own("sado", 2, 1)
    w.own("kai", 2, 1)
    w.give(0, "Samurai", "Samurai")
    w.give(1, "Scorched Earth", "Ashigaru")
    w.give(2, "Shogunal Justice", "Ashigaru")
    announce(w, 0, "echigo", "sado", 3)
    assert w.h.phase() == "attack cards" and w.h.current_player() == 0


# --- Scorched Earth -------------------------------------------------------------------------

def test_scorched_earth_cancels_any_move_and_gives_back_the_shoguns_free_move():
    w = World()
    w.own("owari", 0, 3)
    w.own("mino", 0, 1)
    w.own("kai", 1, 1)
    w.own("hida", 3, 1)  # a clan still in the game (an eliminated one is not asked)
    w.give(3, "Scorched Earth", "Ashigaru", "Ashigaru")
    w.settle()
    w.activate(0)
    w.pl[0, K.PL_FREE] = 1  # the Shogun's free move
    w.h.apply(int(K.move_action(w.st, w.link("owari", "mino"), 2)))  # into its own land
    assert asked(w) == (3, [LET, SCORCHED])
    w.h.apply(SCORCHED)
    assert w.where("owari") == (0, 3, 0) and w.where("mino") == (0, 1, 0)
    assert w.pl[0, K.PL_FREE] == 1 and w.pl[0, K.PL_KOKU] == 5
    w.h.apply(int(K.move_action(w.st, w.link("owari", "mino"), 2)))  # no answer left
    assert w.h.phase() == "act" and w.where("mino") == (0, 3, 0)
    assert w.pl[0, K.PL_FREE] == 0 and w.pl[0, K.PL_KOKU] == 5  # the free move is used


def test_scorched_earth_cancels_an_attack_before_the_battle():
    w = World()
    w.own("owari", 0, 5)
    w.own("mino", 1, 1)
    w.own("hida", 1, 1)
    w.own("kai", 2, 1)
    w.give(0, "Samurai", "Samurai")
    w.give(2, "Scorched Earth", "Ashigaru", "Ashigaru")  # a third clan
    announce(w, 0, "owari", "mino", 4)
    assert asked(w) == (2, [LET, SCORCHED])
    w.h.apply(SCORCHED)
    assert w.where("mino") == (1, 1, 0) and w.where("owari") == (0, 5, 0)
    assert w.pl[0, K.PL_KOKU] == 5 and w.aggs["battles"].sum() == 0


# --- Shogunal Justice -----------------------------------------------------------------------

def attack_on_clan_1(rules=()):
    """Clan 0 attacks Mino (clan 1) from Owari; clan 1 and clan 2 each hold Justice-free
    hands unless given one."""
    w = World(rules=rules)
    w.own("owari", 0, 5)
    w.own("mino", 1, 1)
    w.own("hida", 1, 1)
    w.own("kai", 2, 1)
    w.give(0, "Samurai", "Samurai")
    return w


def test_shogunal_justice_cancels_an_attack_on_its_holder_the_koku_spent():
    w = attack_on_clan_1()
    w.give(1, "Shogunal Justice", "Ashigaru", "Ashigaru")
    announce(w, 0, "owari", "mino", 4)
    assert asked(w) == (1, [LET, JUSTICE])
    w.h.apply(JUSTICE)
    assert w.where("mino") == (1, 1, 0) and w.where("owari") == (0, 5, 0)
    assert w.pl[0, K.PL_KOKU] == 4  # only Tsunami and Scorched Earth refund the move
    assert w.cards(1) == 2 and w.aggs["battles"].sum() == 0
    assert w.h.phase() == "act" and w.h.current_player() == 0
    assert any(e.kind == "cancel" and "Shogunal Justice" in e.detail for e in w.h.log())


def test_shogunal_justice_answers_only_attacks_on_its_holder_unless_the_option():
    w = attack_on_clan_1()
    w.give(2, "Shogunal Justice", "Ashigaru", "Ashigaru")
    announce(w, 0, "owari", "mino", 4)  # printed: "only ... on oneself"
    assert w.h.phase() == "attack cards"
    w = attack_on_clan_1(rules=["shogunal-justice=others"])
    w.give(2, "Shogunal Justice", "Ashigaru", "Ashigaru")
    announce(w, 0, "owari", "mino", 4)  # "may be played to defend another player"
    assert asked(w) == (2, [LET, JUSTICE])
    w.h.apply(JUSTICE)
    assert w.where("mino") == (1, 1, 0) and w.aggs["battles"].sum() == 0
    # a move into free land is aimed at no one: Justice never answers it
    w = attack_on_clan_1(rules=["shogunal-justice=others"])
    w.give(2, "Shogunal Justice", "Ashigaru", "Ashigaru")
    announce(w, 0, "owari", "ise", 1)
    assert w.h.phase() == "act" and w.where("ise") == (0, 1, 0)


@pytest.mark.parametrize("others", [False, True])
def test_shogunal_justice_against_a_card_aimed_at_another_clan(others):
    w = World(rules=["shogunal-justice=others"] if others else [])
    w.own("owari", 0, 2)
    w.own("mino", 1, 3)
    w.own("kai", 2, 1)
    w.pl[1, K.PL_HONOR] = 5
    w.give(0, "Insult")
    w.give(2, "Shogunal Justice", "Ashigaru", "Ashigaru")
    w.settle()
    w.activate(0)
    code = CONTENT.data.deck.names.index("Insult")
    i = int(np.nonzero(w.hand[0, : w.cards(0)] == code)[0][0])
    w.h.apply(int(K.card_action(w.st, i, 1)))
    if not others:
        assert w.h.phase() == "act" and w.honor(1) == 4  # clan 2 may not defend clan 1
        return
    assert w.h.phase() == "justice" and asked(w) == (2, [0, 1])
    w.h.apply(1)
    assert w.honor(1) == 5 and w.cards(2) == 2
    assert w.aggs["misc"][Misc.COUNTERED] == 1


# --- who is asked first -------------------------------------------------------------------

@pytest.mark.parametrize("others", [False, True])
def test_the_clan_attacked_is_asked_first_then_the_others_clockwise(others):
    w = World(rules=["shogunal-justice=others"] if others else [])
    w.own("echigo", 1, 5)  # clan 1 moves: clockwise from it come 2, 3, 0
    w.own("sado", 3, 1)
    w.own("kai", 3, 1)
    w.own("owari", 0, 1)
    w.own("mino", 2, 1)
    w.give(1, "Samurai", "Samurai")
    w.give(0, "Shogunal Justice", "Ashigaru", "Ashigaru")
    w.give(2, "Tsunami", "Ashigaru", "Ashigaru")
    w.give(3, "Scorched Earth", "Ashigaru", "Ashigaru")
    announce(w, 1, "echigo", "sado", 3)  # a sea attack on clan 3
    assert asked(w) == (3, [LET, SCORCHED])  # the defender first
    w.h.apply(LET)
    assert asked(w) == (2, [LET, TSUNAMI])
    w.h.apply(LET)
    if others:
        assert asked(w) == (0, [LET, JUSTICE])
        w.h.apply(LET)
    assert w.h.phase() == "attack cards" and w.h.current_player() == 1
    assert w.cards(0) == w.cards(2) == w.cards(3) == 3


def test_a_forbidden_answer_is_never_played_and_policies_pick_legal_answers():
    for seats in (("random",) * 4, ("greedy",) * 4):
        for seed in range(12):
            w = World(seats=seats)
            w.own("echigo", 0, 5)
            w.own("sado", 1, 1)
            w.own("kai", 1, 1)
            w.give(0, "Samurai", "Samurai")
            w.give(1, "Tsunami", "Scorched Earth", "Shogunal Justice", "Ashigaru")
            w.st.rng[w.st.lane[1], 0] += seed
            announce(w, 0, "echigo", "sado", 4)
            assert asked(w) == (1, [LET, TSUNAMI, SCORCHED, JUSTICE])
            assert w.h.choose() in (LET, TSUNAMI, SCORCHED, JUSTICE)
            w.h.forbid[1, K.OPTIONS.index("tsunami")] = True
            w.h.forbid[1, K.OPTIONS.index("scorched-earth")] = True
            w.h.forbid[1, K.OPTIONS.index("shogunal-justice")] = True
            assert w.h.choose() == LET
            assert [w.h.option_of(a) for a in (TSUNAMI, SCORCHED, JUSTICE)] == [
                K.OPTIONS.index(n) for n in ("tsunami", "scorched-earth", "shogunal-justice")]


def test_greedy_cancels_a_likely_lost_defence_and_lets_a_hopeless_attack_come():
    w = attack_on_clan_1()
    w.give(1, "Shogunal Justice", "Ashigaru", "Ashigaru")
    announce(w, 0, "owari", "mino", 4)  # 4 against 1: the attacker is favoured
    assert w.h.choose() == JUSTICE
    w = attack_on_clan_1()
    w.give(1, "Shogunal Justice", "Ashigaru", "Ashigaru")
    announce(w, 0, "owari", "mino", 1)  # 1 against 1 in Mino: the defender is favoured
    assert w.h.choose() == LET


# --- a taken castle ---------------------------------------------------------------------------

@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_a_clan_moves_its_own_castle_onto_a_taken_one_only_with_none_in_reserve(policy):
    w = World(seats=(policy,) * 4)
    w.own("owari", 0, 3, castle=True)
    w.own("mino", 1, 0, castle=True)
    w.own("hida", 1, 1)
    w.settle()
    st = w.st
    mino, owari = w.t("mino"), w.t("owari")
    st.phase[0] = K.TAKE_CASTLE
    st.actor[0] = 0
    st.cx[K.CX_ACTIVE] = 0
    st.bt[K.BT_TO] = mino
    st.bt[K.BT_Q] = 1
    st.bt[K.BT_K] = 2
    assert w.pl[0, K.PL_CASTLES] == 2
    assert sorted(w.h.legal_actions()) == [0, 1]  # destroy it or replace it from reserve
    seen = {w.h.choose() for _ in range(200)}
    assert seen <= {0, 1} and (policy == "greedy" or seen == {0, 1})
    w.pl[0, K.PL_CASTLES] = 0  # all its castles are on the board
    w.pl[1, K.PL_CASTLES] = 2  # (the audit's count: one taken, two elsewhere)
    assert sorted(w.h.legal_actions()) == [0, 2 + owari]
    seen = {w.h.choose() for _ in range(200)}
    assert seen <= {0, 2 + owari} and (policy == "greedy" or seen == {0, 2 + owari})
    w.h.apply(2 + owari)
    assert w.where("mino") == (0, 2, 1) and w.where("owari") == (0, 3, 0)


# --- the Emperor's order -----------------------------------------------------------------

def players_until(h, phase):
    """Step by policy until `phase`; the seats of the purchase decisions on the way, each
    clan once, in the order they came."""
    seen = []
    while h.phase() != phase:
        if h.phase() in ("castle", "buy") and h.current_player() not in seen:
            seen.append(h.current_player())
        h.step()
    return seen


@pytest.mark.parametrize("emperor", ["full", "limited"])
def test_the_emperor_names_the_order_of_purchases_and_of_activations(emperor):
    prep = GAME.prepare(CONTENT, 4, ("random",) * 4,
                        GAME.resolve_rules([f"emperor={emperor}"]))
    h = GAME.handle(prep, 7, 0)
    while h.phase() != "order":
        h.step()
    emp = int(h.st.gs[K.G_EMP])
    named = [(emp + 3) % 4, emp, (emp + 1) % 4, (emp + 2) % 4]
    for i, q in enumerate(named):
        assert h.phase() == "order" and h.current_player() == emp
        assert sorted(h.legal_actions()) == sorted(named[i:])  # a clan is named once
        h.apply(q)
    assert players_until(h, "act" if emperor == "limited" else "order") == named
    acts = []
    for q in named[::-1] if emperor == "full" else named:
        if emperor == "full":  # each activation named as the turn goes
            assert h.phase() == "order" and h.current_player() == emp
            h.apply(q)
        assert h.phase() == "act" and h.current_player() == q
        acts.append(q)
        while h.phase() not in ("order", "discard") and not (
                h.phase() == "act" and h.current_player() != q):
            h.step()
    assert acts == (named[::-1] if emperor == "full" else named)
    assert h.phase() == "discard"


# --- the winner -------------------------------------------------------------------------------

def winners(w):
    return w.h.outcome()["winners"]


def test_the_winner_tie_break_chain():
    """Most Honor, then clan points, cities, territories, castles, samurai; equal on all:
    a shared win."""
    def two(a, b, honor=(9, 9)):
        w = World()
        for p, land in ((0, a), (1, b)):
            for tid, samurai, castle in land:
                w.own(tid, p, samurai, castle)
        w.pl[0, K.PL_HONOR], w.pl[1, K.PL_HONOR] = honor
        w.settle()
        return winners(w)

    settsu, yamato, kai, owari = ("settsu", 1, False), ("yamato", 1, False), \
        ("kai", 1, False), ("owari", 1, False)
    hida, sado = ("hida", 1, False), ("sado", 1, False)
    # Honor first, whatever else
    assert two([settsu, yamato], [hida], honor=(9, 10)) == [2]
    # clan points: a major city (2) beats a minor one (1)
    assert two([settsu], [yamato, hida]) == [1]
    # cities: two minor cities beat one major (2 clan points each), whatever the territories
    assert two([settsu, hida, sado], [yamato, kai]) == [2]
    # territories: equal cities and points, one more territory
    assert two([yamato, hida], [kai]) == [1]
    # castles: equal so far, a castle
    assert two([yamato, hida], [kai, ("sado", 1, True)]) == [2]
    # samurai: equal so far, more samurai
    assert two([yamato, ("hida", 3, False)], [kai, sado]) == [1]
    # equal on every count: both win
    assert two([yamato, hida], [kai, sado]) == [1, 2]
    assert two([owari], [kai]) == [1, 2]


# --- where a returning clan may re-enter ------------------------------------------------------

@pytest.mark.parametrize("kyoto", ["allowed", "forbidden"])
def test_a_returning_clan_reenters_free_land_or_enemy_land_its_uprising_can_clear(kyoto):
    w = World(rules=[f"kyoto-uprising={kyoto}"])
    w.own("owari", 0, 3)  # clan 0 holds 2+ territories: an uprising can clear them...
    w.own("mino", 0, 2, castle=True)  # ... but not a castle
    w.own("yamashiro", 0, 1)  # Kyoto: only with kyoto-uprising=allowed
    w.own("kai", 2, 4)  # clan 2's only territory: never
    w.settle()  # clans 1 and 3 hold nothing: eliminated
    st = w.st
    st.phase[0] = K.RETURN
    st.actor[0] = 1
    st.cx[K.CX_ITER] = 1
    free = {t for t in range(len(BOARD.ids)) if w.bd[K.OWNER, t] == -1}
    expect = free | {w.t("owari")} | ({w.t("yamashiro")} if kyoto == "allowed" else set())
    assert set(w.h.legal_actions()) == expect
    w.h.apply(w.t("owari"))
    assert w.where("owari") == (1, 5, 0) and w.pl[0, K.PL_SUPPLY] == 20 - 6 + 3
    assert w.ok()


def test_the_readings_in_force_name_the_timing_and_the_justice_option():
    from simcli.analysis import readings_table

    rows = readings_table(GAME, GAME.resolve_rules(["shogunal-justice=others"])).to_dicts()
    text = " ".join(str(v) for r in rows for v in r.values())
    assert "shogunal-justice" in text and "others" in text
    assert "Tsunami any sea move" in text and "none in reserve" in text
