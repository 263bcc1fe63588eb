"""Samurai: The Card Game: the game ends at the first trigger, and games nobody wins are
reported apart from shared victories.

Rulebook: "When the scoring markers of one shape run out, the current turn is completed,
then the game ends. The game also ends after completing a turn, if the last village was
placed on the table or if all players have played all their cards." Each trigger has a
hand-built position played through the handle in which the game goes on one turn and is
over exactly at the turn the trigger holds; an invariant over many random playouts checks
that every game ends at the first completed turn at which any trigger holds, never before.
"""

from __future__ import annotations

import numpy as np
import pytest

from kernels.samurai_card_game import rules as K
from kernels.samurai_card_game.stats import End, Outcome
from reports.metrics import catalogue
from tests.naive_card_game import BUDDHA, HELMET, RICE, SAMURAI
from tests.test_samurai_card_game_rules import GAME, KBoard, mask_of


def hold(b: KBoard, owner: int, *cards: tuple[int, int], deck=()) -> None:
    """Owner's hand (symbol, influence) and draw pile (next card last)."""
    b.give(owner, *cards)
    for i, (symbol, influence) in enumerate(deck):
        b.st.decks[owner, i] = b.code(owner, symbol, influence)
    b.st.seat[owner]["deck_n"] = len(deck)


def turn(b: KBoard, owner: int, x: int, y: int, hand_pos: int = 0) -> None:
    """Owner plays the card at hand_pos of its hand on (x, y): a whole turn through the
    handle (villages placed by its policy)."""
    b.st.cnt[0]["cur"] = owner
    b.h.apply((hand_pos << K.CELL_BITS) | b.at(x, y))
    while b.counter("phase") == K.PLACE and not b.counter("over"):
        b.h.step()


def ended(b: KBoard) -> list[str]:
    return b.h.outcome()["end"] if b.h.is_over() else []


# --- markers ------------------------------------------------------------------------------

def test_the_game_ends_after_the_turn_in_which_a_marker_supply_empties():
    """Helmet supply at 2: the first scored helmet leaves 1 (the game goes on), the second
    empties it and the game is over after that turn, the player's draw included."""
    b = KBoard(players=3)
    b.village(0, 0, HELMET)
    for x, y in ((1, 0), (-1, 0), (0, 1)):
        b.card(x, y, 0, HELMET, 2)
    b.village(4, 0, HELMET)
    for x, y in ((5, 0), (3, 0), (4, 1)):
        b.card(x, y, 1, HELMET, 2)
    b.st.rem[:] = [2, 9, 9]
    hold(b, 0, (HELMET, 2), (RICE, 2))
    hold(b, 1, (HELMET, 3), (RICE, 3), deck=[(BUDDHA, 4)])
    hold(b, 2, (RICE, 4))
    turn(b, 0, 0, -1)  # surrounds (0, 0): helmet to seat 1 (index 0), one marker left
    assert b.taken[0, HELMET] == 1 and b.remaining() == [1, 9, 9]
    assert not b.h.is_over() and b.h.current_player() == 1
    turn(b, 1, 4, -1)  # surrounds (4, 0): the last helmet marker
    assert b.taken[1, HELMET] == 1 and b.remaining() == [0, 9, 9]
    assert b.h.is_over() and ended(b) == ["markers"]
    assert b.h.turn() == 2 and b.h.legal_actions() == []
    # the turn was completed: seat 2 drew its card before the game ended
    assert b.st.seat[1]["hand_n"] == 2 and b.st.hands[1, 1] == b.code(1, BUDDHA, 4)
    assert [e.kind for e in b.h.log()][-6:-4] == ["chance", "end"]


def test_a_supply_already_empty_ends_the_game_after_any_turn():
    """A supply run out (substitutes paid) ends the game after the next completed turn,
    even one that scores nothing."""
    b = KBoard(players=2)
    b.village(0, 0, RICE)
    hold(b, 0, (HELMET, 2), (RICE, 2))
    hold(b, 1, (BUDDHA, 2))
    b.st.rem[:] = [5, 0, 5]
    turn(b, 0, 1, 0)
    assert b.h.is_over() and ended(b) == ["markers"]


@pytest.mark.parametrize(("rule", "over"), [("tied-marker=stays", False),
                                            ("tied-marker=discarded", True)])
def test_a_discarded_tied_marker_can_empty_the_supply_and_end_the_game(rule, over):
    """A tie on the last buddha marker: it stays (the game goes on) or is discarded, which
    empties the supply and ends the game after the turn."""
    b = KBoard(players=2, rules=(rule,))
    b.village(0, 0, BUDDHA)
    b.card(1, 0, 0, BUDDHA, 3)
    b.card(-1, 0, 1, BUDDHA, 2)
    b.card(0, 1, 0, HELMET, 2)
    b.st.rem[:] = [5, 1, 5]
    hold(b, 0, (HELMET, 2))
    hold(b, 1, (BUDDHA, 1), (RICE, 2))
    turn(b, 1, 0, -1)  # 3 - 3: tied
    assert b.taken.sum() == 0
    assert b.remaining() == ([5, 0, 5] if over else [5, 1, 5])
    assert b.h.is_over() == over and ended(b) == (["markers"] if over else [])


# --- villages -----------------------------------------------------------------------------

def test_the_game_ends_after_the_turn_that_places_the_last_village_card():
    """One village card left: a play that opens nothing goes on; the play that opens a
    cell puts the last village card down and the game is over after that turn."""
    b = KBoard(players=2, deck=[mask_of(HELMET), mask_of(BUDDHA, RICE)])
    b.set_counter("vtop", 1)
    b.village(0, 0, HELMET)
    b.card(1, 0, 1, RICE, 2)
    hold(b, 0, (HELMET, 2), (RICE, 3))
    hold(b, 1, (BUDDHA, 2), (SAMURAI, 1))
    turn(b, 0, -1, 0)  # opposite Red's card: opens nothing
    assert not b.h.is_over() and b.counter("vtop") == 1 and ended(b) == []
    turn(b, 0, 0, 1)  # diagonal to Red's card: (1, 1) opens and takes the last card
    assert b.villages()[(1, 1)] == (mask_of(BUDDHA, RICE), False)
    assert b.counter("vtop") == 2 and b.h.is_over() and ended(b) == ["villages"]
    assert b.st.seat["hand_n"][:2].tolist() == [0, 2]


# --- cards --------------------------------------------------------------------------------

def test_the_game_ends_after_the_turn_in_which_the_last_card_is_played():
    b = KBoard(players=2)
    b.village(0, 0, RICE)
    hold(b, 0, (HELMET, 2))
    hold(b, 1, (BUDDHA, 2))
    b.h.apply(b.at(1, 0))
    assert not b.h.is_over() and b.h.current_player() == 1 and b.h.turn() == 2
    b.h.apply(b.at(-1, 0))  # opposite sides: no opening
    assert b.h.is_over() and ended(b) == ["cards"] and b.h.turn() == 2


def test_several_triggers_at_once_are_all_recorded():
    """The last card played surrounds a village and takes the last marker."""
    b = KBoard(players=2)
    b.village(0, 0, RICE)
    b.card(1, 0, 0, RICE, 2)
    b.card(-1, 0, 0, RICE, 2)
    b.card(0, 1, 1, RICE, 2)
    b.st.rem[:] = [5, 5, 1]
    hold(b, 0, (RICE, 3))
    hold(b, 1)
    turn(b, 0, 0, -1)
    assert ended(b) == ["markers", "cards"]
    assert b.h.outcome()["winners"] == [1]


# --- every game ends at its first trigger -------------------------------------------------

def triggers(h) -> int:
    """The End bits that hold in the handle's state now (markers, villages, cards)."""
    st = h.st
    bits = 0
    if (st.rem <= 0).any():
        bits |= End.MARKERS
    if h.counters()["vtop"] >= len(st.vdeck):
        bits |= End.VILLAGES
    if st.seat["hand_n"][:h.prep.players].sum() == 0:
        bits |= End.CARDS
    return bits


@pytest.mark.parametrize(("players", "seats", "rules", "games"), [
    (2, ("random", "random"), (), 25),
    (2, ("greedy", "random"), ("markers-2p=16", "tied-marker=discarded"), 10),
    (3, ("random",) * 3, ("chain=on",), 20),
    (4, ("greedy",) * 4, ("villages=see-all",), 10),
    (4, ("random",) * 4, ("tied-marker=discarded",), 20),
])
def test_every_game_ends_at_the_first_completed_turn_any_trigger_holds(players, seats,
                                                                        rules, games):
    """After every completed turn: the game is over exactly when a trigger holds, with
    every trigger that holds recorded (or blocked: a seat holding cards with no legal
    cell); no trigger ever holds in the middle of a game."""
    seen = 0
    for g in range(games):
        h = GAME.new_game(seed=11, playout=g, players=players, seats=seats, rules=list(rules))
        turns = 0
        while not h.is_over():
            h.step()
            c = h.counters()
            if c["phase"] == K.PLACE and not c["over"]:
                continue  # villages still to place: the turn is not complete
            turns += 1
            assert c["turns"] == turns
            bits = triggers(h)
            if c["over"]:
                if c["end"] == End.BLOCKED:
                    assert bits == 0 and c["nf"] == 0
                else:
                    assert c["end"] == bits
                seen |= c["end"]
            else:
                assert bits == 0, (g, turns, bits)
    assert seen & (End.MARKERS | End.VILLAGES | End.CARDS)


# --- no winner apart from shared victories ------------------------------------------------

def final_turn(taken: list[list[int]]) -> KBoard:
    """A 3-player game whose last card ends it with these markers (nothing scored)."""
    b = KBoard(players=3)
    b.village(0, 0, HELMET)
    b.taken[:3] = taken
    b.play(1, 1, 0, RICE, 2)
    assert b.h.is_over()
    return b


def test_a_game_nobody_wins_is_no_winner_not_a_shared_victory():
    b = final_turn([[2, 2, 2], [2, 2, 2], [1, 1, 1]])
    out = b.h.outcome()
    assert out["winners"] == [] and out["outcome"] == "no winner"
    assert out["dominates"] == {"helmet": None, "buddha": None, "rice": None}
    row = b.h.row()
    assert row["winner"] == -1 and row["shared_mask"] == 0
    core = GAME.core_stats(b.h.aggs, 3)
    assert (core.games, core.shared, core.no_winner) == (1, 0, 1)
    assert GAME.seats_won(np.array([list(row.values())])).tolist() == [[False] * 4]
    assert b.h.log()[-1].detail == "no winner: nobody dominates a shape"


def test_a_shared_victory_is_shared_not_no_winner():
    # seat 1 dominates helmet, seat 2 buddha, rice tied; 1 + 1 each, 3 = 3 in their shapes
    b = final_turn([[3, 0, 1], [0, 3, 1], [0, 0, 0]])
    out = b.h.outcome()
    assert out["winners"] == [1, 2] and out["outcome"] == "shared"
    core = GAME.core_stats(b.h.aggs, 3)
    assert (core.games, core.shared, core.no_winner) == (1, 1, 0)
    row = b.h.row()
    assert row["winner"] == -1 and row["shared_mask"] == 0b11


def test_the_catalogue_and_report_give_no_winner_apart():
    aggs = GAME.new_aggregates(GAME.prepare(GAME.load_content(GAME.content_path(None)), 3,
                                            ("random",) * 3, GAME.resolve_rules([])))
    aggs["outcome"][Outcome.OUTRIGHT] = 60
    aggs["outcome"][Outcome.SHARED] = 10
    aggs["outcome"][Outcome.NONE] = 30
    aggs["wins"][:3] = [20, 20, 20]
    aggs["lengths"][40] = 100
    core = GAME.core_stats(aggs, 3)
    rows = {r["metric"]: r for r in catalogue(core, [], 0.95).iter_rows(named=True)}
    assert rows["shared_rate"]["value"] == pytest.approx(0.10)
    assert rows["no_winner_rate"]["value"] == pytest.approx(0.30)
