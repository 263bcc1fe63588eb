"""Sixteen Samurai rule options and readings of issue 14, each driven through the Python
handle so that breaking the rule fails a test: the Final Battle hand is the Hall of Honor
only (lone-clan=end), Ronin and Medicine after a tiebreaker (after-cards), the last Clan
Conflict winner's samurai in Final Battle round 1 (last-winner)."""

import numpy as np
import pytest

from kernels.sixteen_samurai import rules as KR
from kernels.sixteen_samurai.stats import BattleStat, CardStat, Misc
from simcli.games.sixteen_samurai import SixteenSamurai
from tests.test_sixteen_samurai import (
    battle,
    code,
    finish_draft,
    new_game,
    offer_position,
    refill_position,
    set_pile,
)

GAME = SixteenSamurai()


def in_final_battle(h):
    """Whether the game has just left the Clan Conflict (Final Battle round 1 not yet
    fought, or the game over without one)."""
    return h.st.frnd[0] == 0 and (h.phase() in ("final declare", "final field")
                                  or h.is_over())


@pytest.mark.parametrize("lone", ["play", "end"])
def test_final_battle_hand_is_the_hall_of_honor_only(lone):
    checked = 0
    leftover = 0
    for playout in range(30):
        h = GAME.new_game(seed=5, playout=playout, players=2, seats=("random", "random"),
                          rules={"lone-clan": lone})
        while not in_final_battle(h):
            h.step()
        st = h.st
        cards = h.aggs["cards"]
        lost = (cards[:, CardStat.FIELDED].sum() - cards[:, CardStat.FIELD_WON].sum()
                - h.aggs["battle"][KR.MEDICINE, BattleStat.EFFECT])
        unfought = 32 - st.hall_fb[:2].sum() - lost - h.aggs["misc"][Misc.UNCONTESTED_ROUNDS]
        leftover += unfought > 0  # samurai never played in the Clan Conflict
        for p in range(2):
            hand = st.hand[p, : st.hand_n[p]]
            assert len(hand) == st.hall_fb[p]  # the Hall of Honor, nothing else
            assert all(st.infb[c] for c in hand) and (hand >= 0).all()
            assert not (st.deck[p, : st.deck_n[p]] >= 0).any()
        checked += 1
    assert checked == 30
    if lone == "end":
        assert leftover >= 3  # the lone clan did hold samurai that are now discarded


def tied_offer(h, holder_cards):
    """Two seats tied on the dice (8, 5 each), after-rolling cards in hand."""
    spare = [code("Oku the Plain"), code("Whit the Fool")]  # the game goes on
    return offer_position(h, [(8, 5, 2), (8, 5, 2)],
                          [[*holder_cards[0], spare[0]], [*holder_cards[1], spare[1]]])


def test_after_tiebreak_its_loser_may_play_medicine_or_ronin():
    ronin, medicine = battle(KR.RONIN), battle(KR.MEDICINE)
    cards = [[ronin, medicine], [ronin, medicine]]
    seen = set()
    for seed in range(1, 30):
        h = new_game(2, seed=seed, after_cards="after-tiebreak")
        finish_draft(h)
        fielded = tied_offer(h, cards)
        h.apply(KR.PASS)
        h.apply(KR.PASS)  # nobody plays before the tiebreaker: it is rolled now
        st = h.st
        winner = int(st.tbw[0])
        loser = 1 - winner
        assert winner in (0, 1) and h.phase() == "offer"
        assert h.current_player() == loser  # only the loser is offered, no Bushido
        assert h.legal_actions() == [KR.PASS, KR.PLAY_RONIN, KR.PLAY_MEDICINE]
        assert h.choose() in (KR.PLAY_RONIN, KR.PLAY_MEDICINE)  # greedy: it lost
        h.apply(KR.PLAY_MEDICINE)
        assert h.current_player() == loser  # a second pass: Ronin still held
        h.apply(KR.PLAY_RONIN)
        assert h.phase() == "declare"
        assert list(st.hall[loser, : st.hall_n[loser]]) == [fielded[winner]]  # stolen
        assert fielded[loser] in st.hand[loser, : st.hand_n[loser]]  # saved
        assert h.current_player() == winner  # the tiebreaker's winner declares
        assert h.aggs["misc"][Misc.TIEBREAK_ROUNDS] == 1
        assert sum(e.kind == "tiebreak" for e in h.log()) == 2  # rolled once (2 dice)
        seen.add(winner)
        if seen == {0, 1}:
            return
    raise AssertionError(f"only seat(s) {seen} won the tiebreaker")


def test_before_tiebreak_no_card_is_offered_after_it():
    ronin, medicine = battle(KR.RONIN), battle(KR.MEDICINE)
    h = new_game(2, seed=3)
    finish_draft(h)
    tied_offer(h, [[ronin, medicine], [ronin, medicine]])
    h.apply(KR.PASS)
    h.apply(KR.PASS)
    assert h.phase() == "declare"  # the tiebreaker was rolled and the round resolved
    assert h.aggs["misc"][Misc.TIEBREAK_ROUNDS] == 1


def test_after_tiebreak_a_round_without_a_tie_resolves_at_once():
    ronin, medicine = battle(KR.RONIN), battle(KR.MEDICINE)
    h = new_game(2, seed=3, after_cards="after-tiebreak")
    finish_draft(h)
    offer_position(h, [(8, 5, 2), (7, 5, 2)], [[ronin], [medicine, code("Oku the Plain")]])
    h.apply(KR.PASS)  # seat 1 wins outright: it may only pass
    h.apply(KR.PASS)  # seat 2 may play Medicine: it passes, no tiebreaker is due
    assert h.phase() == "declare" and h.st.tbw[0] == -1
    assert not any(e.kind == "tiebreak" for e in h.log())


def first_final_field(rules, playout):
    """Play (greedy, 2 seats) to the first Final Battle fielding of the last Clan Conflict
    winner; returns the handle, that seat and its winning samurai (None: no such case)."""
    h = GAME.new_game(seed=7, playout=playout, players=2, seats=("greedy", "greedy"),
                      rules=rules)
    while not in_final_battle(h):
        h.step()
    if h.is_over():
        return None
    st = h.st
    d = int(st.declarer[0])
    c = int(st.field[d])
    hand = list(st.hand[d, : st.hand_n[d]])
    if c not in hand or len(hand) < 2:
        return None
    h.step()  # the declaration
    while h.current_player() != d:
        h.step()
    return h, d, c


@pytest.mark.parametrize("value", ["free", "barred"])
def test_last_clan_conflict_winner_in_final_battle_round_one(value):
    checked = 0
    for playout in range(40):
        found = first_final_field({"last-winner": value}, playout)
        if found is None:
            continue
        h, _, c = found
        legal = h.legal_actions()
        assert (c in legal) == (value == "free")
        assert len(legal) >= 1
        if value == "barred":
            assert h.choose() != c
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize(("value", "hall", "legal"), [
    ("barred", ["Fobus Dustwalker"], ["Fobus Dustwalker"]),
    ("barred", [], ["Kalia Cindertrap"]),  # its only samurai: it may fight again
    ("free", ["Fobus Dustwalker"], ["Fobus Dustwalker", "Kalia Cindertrap"]),
])
def test_last_winner_in_a_scripted_final_battle(value, hall, legal):
    h = new_game(2, last_winner=value)
    finish_draft(h)
    st = h.st
    kalia = code("Kalia Cindertrap")
    refill_position(h, [kalia], [])  # seat 1 wins the last round with Kalia, uncontested
    set_pile(st.hall, st.hall_n, 0, [code(n) for n in hall])
    set_pile(st.hall, st.hall_n, 1, [code("Eve Dewpike")])
    h.apply(3 * kalia)
    assert h.phase() == "final declare" and h.current_player() == 0
    h.apply(0)
    assert h.current_player() == 0
    assert sorted(h.legal_actions()) == sorted(code(n) for n in legal)


def test_rule_options_are_listed_with_their_defaults():
    names = {r.name: r.default for r in GAME.rules}
    assert names["after-cards"] == "before-tiebreak" and names["last-winner"] == "free"
    assert any("Hall of Honor only" in t for t in GAME.fixed_readings)
    assert np.all([r.help for r in GAME.rules])


# --- battle cards, scripted ---------------------------------------------------------------
def field_position(h, hands, rnd=3):
    """A contested Clan Conflict round about to be fielded (POWER declared by seat 1):
    seat p holds hands[p]; seat 1 fields first."""
    st = h.st
    P = len(hands)
    st.rnd[0] = rnd
    st.declarer[0] = 0
    st.ability[0] = 0
    st.npart[0] = P
    st.ronin_by[0] = -1
    st.tbw[0] = -1
    for p in range(P):
        st.part[p] = True
        st.before[p] = -1
        st.is_uma[p] = False
        st.medic[p] = False
        set_pile(st.hand, st.hand_n, p, hands[p])
        st.deck_n[p] = 0
        for b in range(KR.N_BATTLE):
            st.held[p, b] = battle(b) in hands[p]
            st.played_r[p, b] = False
    st.phase[0] = KR.FIELD
    st.actor[0] = 0


KALIA, BULL = "Kalia Cindertrap", "Bull Irongut"  # POWER 4 and Bull's POWER (read below)


@pytest.mark.parametrize(("cards", "dice"), [
    ((KR.NO_CARD, KR.NO_CARD), (4, None)),  # no card: each rolls its POWER
    ((KR.WITH_NINJUTSU, KR.NO_CARD), (4, 1)),  # Ninjutsu: the other rolls 1 die
    ((KR.WITH_NINJUTSU, KR.WITH_NINJUTSU), (1, 1)),  # two Ninjutsu: everyone rolls 1
    ((KR.WITH_UMA, KR.WITH_NINJUTSU), ("uma", None)),  # Uma ignores the rival Ninjutsu
])
def test_before_rolling_cards_set_the_dice(cards, dice):
    h = new_game(2)
    finish_draft(h)
    kalia, bull = code(KALIA), code(BULL)
    nin, uma = battle(KR.NINJUTSU), battle(KR.UMA)
    spare = [code("Oku the Plain"), code("Whit the Fool")]
    field_position(h, [[kalia, nin, uma, spare[0]], [bull, nin, uma, spare[1]]])
    h.apply(3 * kalia + int(cards[0]))
    h.apply(3 * bull + int(cards[1]))
    want = [dice[0], dice[1] if dice[1] is not None else int(h.st.ratings[bull, 0])]
    rolls = {e.player - 1: e.detail for e in h.log() if e.kind == "roll"}
    assert len(rolls) == 2
    for p in range(2):
        if want[p] == "uma":  # the Uma value of the standard roster
            assert rolls[p] == "Uma: rolls no dice, shows 7 and 7"
        else:
            assert rolls[p].startswith(f"rolls {want[p]} di")


def test_no_battle_cards_in_the_first_battle():
    h = new_game(2)
    finish_draft(h)
    kalia, bull = code(KALIA), code(BULL)
    cards = [battle(b) for b in range(KR.N_BATTLE)][:3]
    spare = [code("Oku the Plain"), code("Whit the Fool")]
    field_position(h, [[kalia, *cards, spare[0]], [bull, *cards, spare[1]]], rnd=0)
    assert all(a % 3 == 0 for a in h.legal_actions())  # no Ninjutsu or Uma
    h.apply(3 * kalia)
    h.apply(3 * bull)
    assert h.phase() == "declare"  # no after-rolling offers either
    field_position(h, [[kalia, *cards], [bull, *cards]], rnd=1)
    assert any(a % 3 for a in h.legal_actions())  # the second battle allows them


def test_bushido_rerolls_the_dice():
    shown = set()
    for seed in range(1, 12):
        h = new_game(2, seed=seed)
        finish_draft(h)
        offer_position(h, [(1, 1, 4), (8, 2, 2)], [[battle(KR.BUSHIDO), code("Oku the Plain")],
                                                   [code("Whit the Fool")]])
        assert KR.BUSHIDO_ON + 1 in h.legal_actions()
        h.apply(KR.BUSHIDO_ON)  # seat 1 rerolls its own 4 dice
        reroll = [e for e in h.log() if e.kind == "roll"]
        assert len(reroll) == 1 and "Bushido reroll of 4 dice" in reroll[0].detail
        shown.add(int(h.st.t1[0]))
    assert len(shown) >= 3 and max(shown) > 1  # rerolled, not kept


def test_bushido_cannot_reroll_an_uma_and_ronin_is_played_once_a_round():
    h = new_game(3)
    finish_draft(h)
    ronin, bushido = battle(KR.RONIN), battle(KR.BUSHIDO)
    offer_position(h, [(7, 7, 2), (8, 3, 2), (2, 1, 1)],
                   [[ronin, bushido], [], [ronin, code("Oku the Plain")]])
    h.st.is_uma[0] = True
    assert h.legal_actions() == [KR.PASS, KR.PLAY_RONIN, KR.BUSHIDO_ON + 1,
                                 KR.BUSHIDO_ON + 2]  # not its own Uma
    h.apply(KR.PLAY_RONIN)
    assert h.current_player() == 2 and h.legal_actions() == [KR.PASS]  # Ronin taken


def test_a_rules_dict_without_the_newer_options_takes_their_defaults():
    """Manifests written before after-cards and last-winner existed still prepare."""
    content = GAME.load_content(GAME.content_path(None))
    old = GAME.prepare(content, 2, ("greedy", "greedy"), {"draft": "rotation",
                                                          "lone-clan": "play"})
    assert not old.after_tb and not old.fb_bar
