"""Samurai: The Card Game: the rulebook's example and hand-built positions for every rule
the kernel plays (placement, new villages, scoring, markers, end, winner), each stating the
reading it checks. Positions are built on a game handle (the Python driver of the compiled
rules) and played through it, so every play is checked legal and logged."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from kernels.rng import seed_lanes
from kernels.samurai_card_game import players as KP
from kernels.samurai_card_game import rules as K
from kernels.samurai_card_game.stats import Misc, Outcome, WinBy
from simcli.games.samurai_card_game import SamuraiCardGame, SamuraiCardHandle
from tests import naive_card_game as N
from tests.naive_card_game import BUDDHA, HELMET, RICE, SAMURAI

GAME = SamuraiCardGame()
CONTENT = GAME.load_content(GAME.content_path(None))


def mask_of(*symbols: int) -> int:
    return sum(1 << s for s in set(symbols))


class KBoard:
    """A hand-built position on a game handle, addressed by (x, y) like the naive board.

    The handle starts from a real deal; the board is cleared, the village deck replaced by
    `deck` (in order, nothing used yet) and every hand emptied. Cards and villages put down
    with `card` and `village` skip the rules (no openings, no scoring); `play` is a whole
    turn through the handle: the card is checked legal, villages are placed by the seat's
    policy, surrounded villages are scored and the log records it all.
    """

    def __init__(self, players: int = 3, deck: list[int] | None = None, rules=(),
                 seats=None, seed: int = 0, room: int = 16):
        self.P = players
        deck = list(deck) if deck is not None else [mask_of(HELMET)] * 10
        prep = GAME.prepare(CONTENT, players, tuple(seats or ("random",) * players),
                            GAME.resolve_rules(list(rules)))
        self.prep = replace(prep, vmasks=np.array(deck, np.int64))
        # room for `room` hand-built villages besides the deck's
        self.h = SamuraiCardHandle(GAME, self.prep, seed, 0, room=room)
        self.st = st = self.h.st
        K.py_clear_board(st)
        st.vdeck[:] = deck
        seed_lanes(st.rng, np.uint64(seed), 0)
        c = st.cnt[0]
        c["vtop"] = 0
        c["cur"] = 0
        st.seat["hand_n"] = 0
        st.seat["deck_n"] = 0
        st.fs[:] = 1.0
        self.aggs = self.h.aggs
        self.R = self.prep.radius
        self.W = 2 * self.R + 1
        self.forbid = np.zeros((4, len(K.OPTIONS)), np.bool_)

    # --- addressing ---
    def at(self, x: int, y: int) -> int:
        return (y + self.R) * self.W + (x + self.R)

    def xy(self, cell: int) -> tuple[int, int]:
        return int(cell % self.W - self.R), int(cell // self.W - self.R)

    def code(self, owner: int, symbol: int, influence: int) -> int:
        return owner | (symbol << 2) | (influence << 4)

    def counter(self, name: str) -> int:
        return int(self.st.cnt[0][name])

    def set_counter(self, name: str, value: int) -> None:
        self.st.cnt[0][name] = value

    # --- building ---
    def village(self, x: int, y: int, *symbols: int) -> None:
        assert (x + y) % 2 == 0
        K.py_place_village(self.st, self.at(x, y), mask_of(*symbols))

    def card(self, x: int, y: int, owner: int, symbol: int, influence: int) -> None:
        assert (x + y) % 2 == 1
        K.py_place_card(self.st, self.at(x, y), self.code(owner, symbol, influence))

    def give(self, owner: int, *cards: tuple[int, int]) -> None:
        """Put (symbol, influence) cards in owner's hand (its draw pile empty)."""
        seat = self.st.seat[owner]
        for i, (symbol, influence) in enumerate(cards):
            self.st.hands[owner, i] = self.code(owner, symbol, influence)
        seat["hand_n"] = len(cards)
        seat["deck_n"] = 0

    # --- playing ---
    def play(self, owner: int, x: int, y: int, symbol: int, influence: int) -> None:
        """owner plays this card on (x, y) as a whole turn: villages, scoring, draw."""
        self.give(owner, (symbol, influence))
        c = self.st.cnt[0]
        c["cur"] = owner
        c["phase"] = K.PLAY
        c["over"] = 0
        self.h.apply((0 << K.CELL_BITS) | self.at(x, y))
        while self.counter("phase") == K.PLACE and not self.counter("over"):
            self.h.step()

    # --- reading ---
    def frontier(self) -> set[tuple[int, int]]:
        return {self.xy(c) for c in self.st.front[: self.counter("nf")]}

    def villages(self) -> dict[tuple[int, int], tuple[int, bool]]:
        v = self.st.vill
        return {self.xy(v[i]["cell"]): (int(v[i]["mask"]), bool(v[i]["scored"]))
                for i in range(self.counter("nv"))}

    def openings(self, x: int, y: int, owner: int) -> set[tuple[int, int]]:
        n = K.py_find_openings(self.st, self.at(x, y), owner)
        return {self.xy(c) for c in self.st.opens[:n]}

    def remaining(self) -> list[int]:
        return [int(v) for v in self.st.rem]

    @property
    def taken(self) -> np.ndarray:
        return self.st.taken

    def misc(self, m: Misc) -> int:
        return int(self.aggs["misc"][m])

    def log_kinds(self) -> list[str]:
        return [e.kind for e in self.h.log()]


# --- the winner ---------------------------------------------------------------------------

def decide(taken):
    t = np.zeros((4, 3), np.int64)
    t[: len(taken)] = taken
    dom = np.zeros(3, np.int64)
    ndom = np.zeros(4, np.int64)
    res, w, mask, how = K.py_decide_winner(t, len(taken), dom, ndom)
    return res, w, mask, how, dom.tolist(), ndom[: len(taken)].tolist()


def test_rulebook_scoring_example_blue_wins_with_10():
    # shapes in kernel order: helmet (triangle), buddha (circle), rice (square)
    green = [4, 6, 7]  # 4 triangle, 7 square, 6 circle
    red = [2, 7, 4]  # 2 triangle, 4 square, 7 circle
    blue = [5, 3, 7]  # 5 triangle, 7 square, 3 circle
    res, w, _, how, dom, ndom = decide([green, red, blue])
    assert dom == [2, 1, -1]  # Blue triangles, Red circles, squares tied 7-7 (Green, Blue)
    assert ndom == [0, 1, 1]  # Green dominates nothing: out
    assert (res, w, how) == (Outcome.OUTRIGHT, 2, WinBy.OTHER_SHAPES)
    # the counts the rulebook gives: Red 2 + 4 = 6, Blue 7 + 3 = 10
    assert red[0] + red[2] == 6 and blue[2] + blue[1] == 10
    assert N.winner([green, red, blue]) == ("outright", {2})


@pytest.mark.parametrize(("taken", "expected", "how"), [
    # two shapes dominated win outright, even against more markers in all
    ([[5, 5, 0], [1, 1, 9]], (Outcome.OUTRIGHT, 0, 1), WinBy.TWO_SHAPES),
    ([[1, 2, 3], [0, 1, 2], [0, 0, 0]], (Outcome.OUTRIGHT, 0, 1), WinBy.TWO_SHAPES),
    # one shape each: markers of the other two shapes decide
    ([[6, 2, 3], [1, 6, 3]], (Outcome.OUTRIGHT, 0, 1), WinBy.OTHER_SHAPES),
    # tie on the other two shapes: the count in the dominated shape breaks it
    ([[6, 2, 3], [2, 5, 3]], (Outcome.OUTRIGHT, 0, 1), WinBy.TIEBREAK),
    # a tie that remains is a shared victory
    ([[6, 2, 3], [2, 6, 3]], (Outcome.SHARED, -1, 0b11), WinBy.SHARED),
    ([[6, 2, 2], [2, 6, 2], [2, 2, 6], [0, 0, 0]], (Outcome.SHARED, -1, 0b111), WinBy.SHARED),
    # nobody dominates a shape: everybody is eliminated, nobody wins
    ([[3, 3, 3], [3, 3, 3]], (Outcome.NONE, -1, 0), WinBy.NONE),
    ([[0, 0, 0], [0, 0, 0], [0, 0, 0]], (Outcome.NONE, -1, 0), WinBy.NONE),
    # an eliminated player cannot win, however many markers it holds
    ([[5, 5, 5], [5, 5, 5], [0, 0, 6]], (Outcome.OUTRIGHT, 2, 1 << 2), WinBy.OTHER_SHAPES),
])
def test_every_branch_of_the_winner_rule(taken, expected, how):
    res, w, mask, got_how, _, _ = decide(taken)
    assert (res, w, mask) == expected
    assert got_how == how
    kind = {Outcome.OUTRIGHT: "outright", Outcome.SHARED: "shared", Outcome.NONE: "nobody"}[res]
    winners = {w} if res == Outcome.OUTRIGHT else {q for q in range(4) if mask >> q & 1}
    assert N.winner(taken) == (kind, winners)


def test_winner_agrees_with_the_reference_on_random_counts():
    rng = np.random.default_rng(5)
    for _ in range(3000):
        players = int(rng.integers(2, 5))
        taken = rng.integers(0, 6, size=(players, 3)).tolist()
        res, w, mask, _, _, _ = decide(taken)
        kind = {Outcome.OUTRIGHT: "outright", Outcome.SHARED: "shared", Outcome.NONE: "nobody"}[res]
        winners = {w} if res == Outcome.OUTRIGHT else {q for q in range(4) if mask >> q & 1}
        assert N.winner(taken) == (kind, winners), taken


# --- placement and new villages -----------------------------------------------------------

def test_a_card_is_legal_only_next_to_a_village():
    b = KBoard()
    b.village(0, 0, HELMET)
    assert b.frontier() == {(1, 0), (-1, 0), (0, 1), (0, -1)}
    b.play(0, 1, 0, HELMET, 2)
    assert b.frontier() == {(-1, 0), (0, 1), (0, -1)}  # (2, 0) touches no village


def test_same_colour_diagonal_opens_nothing():
    b = KBoard()
    b.village(0, 0, HELMET)
    b.play(0, 1, 0, HELMET, 2)
    b.play(0, 0, 1, BUDDHA, 2)  # diagonal to its own card
    assert set(b.villages()) == {(0, 0)}



SIDES = [(1, 0), (-1, 0), (0, 1), (0, -1)]


@pytest.mark.parametrize("other", [False, True])
@pytest.mark.parametrize(("c", "d"), [(c, d) for c in SIDES for d in SIDES
                                      if c[0] * d[0] + c[1] * d[1] == 0])
def test_a_diagonal_card_opens_the_cell_touching_both_only_if_of_another_colour(c, d, other):
    """Card C played on a side of village V at (0, 0), card D on a neighbouring side: the
    empty cell touching both (C + D) gets a village when D is another player's, never when
    it is C's owner's own (every one of the eight diagonal arrangements)."""
    b = KBoard()
    b.village(0, 0, HELMET)
    b.card(*d, int(other), RICE, 2)
    b.play(0, *c, BUDDHA, 2)
    cell = (c[0] + d[0], c[1] + d[1])
    assert set(b.villages()) == ({(0, 0), cell} if other else {(0, 0)})


def test_a_village_is_scored_only_when_its_fourth_side_fills():
    b = KBoard()
    b.village(0, 0, HELMET)
    b.card(1, 0, 0, HELMET, 2)
    b.card(-1, 0, 0, HELMET, 2)
    b.play(0, 0, 1, HELMET, 2)  # three sides
    assert b.villages()[(0, 0)] == (mask_of(HELMET), False) and b.taken.sum() == 0
    b.play(0, 0, -1, HELMET, 2)  # the fourth
    assert b.villages()[(0, 0)] == (mask_of(HELMET), True) and b.taken[0, HELMET] == 1

def test_cards_on_opposite_sides_open_nothing():
    b = KBoard()
    b.village(0, 0, HELMET)
    b.play(0, 1, 0, HELMET, 2)
    b.play(1, -1, 0, HELMET, 3)  # V lies between them: no empty cell touches both
    assert set(b.villages()) == {(0, 0)}


def test_two_colours_diagonal_open_one_cell_with_the_top_village():
    b = KBoard(deck=[mask_of(RICE), mask_of(HELMET, BUDDHA), mask_of(BUDDHA)])
    b.set_counter("vtop", 1)  # the first village card is on the table
    b.village(0, 0, HELMET)
    b.play(0, 1, 0, HELMET, 2)
    b.play(1, 0, 1, BUDDHA, 2)
    v = b.villages()
    assert set(v) == {(0, 0), (1, 1)}  # the cell touching both cards that is not V
    assert v[(1, 1)] == (mask_of(HELMET, BUDDHA), False)
    assert b.counter("vtop") == 2
    assert {(2, 1), (1, 2)} <= b.frontier()  # the new village makes its sides legal


def test_a_card_can_open_two_cells_and_both_get_villages():
    deck = [mask_of(HELMET), mask_of(BUDDHA), mask_of(RICE), mask_of(HELMET, RICE)]
    b = KBoard(deck=deck)
    b.set_counter("vtop", 1)
    b.village(0, 0, HELMET)
    b.card(1, 0, 0, HELMET, 2)
    b.card(-1, 0, 0, RICE, 2)
    assert b.openings(0, 1, 1) == {(1, 1), (-1, 1)}
    b.play(1, 0, 1, SAMURAI, 1)
    v = b.villages()
    assert set(v) == {(0, 0), (1, 1), (-1, 1)}
    assert sorted(v[(1, 1)][0:1] + v[(-1, 1)][0:1]) == sorted(deck[1:3])  # the next two
    assert b.misc(Misc.OPEN2) == 1


def chain_position(rules):
    deck = [mask_of(HELMET)] * 6
    b = KBoard(deck=deck, rules=rules)
    b.set_counter("vtop", 1)
    b.village(0, 0, HELMET)
    b.card(1, 0, 0, HELMET, 2)
    b.card(-1, 0, 0, RICE, 2)
    b.card(1, 2, 0, BUDDHA, 2)  # diagonal to (0, 1) across the future village (1, 1)
    return b


def test_without_chaining_a_card_opens_at_most_two_cells():
    """Reading (rule chain=off, default): only villages on the table when the card lands
    count; a card touching one village has two cells beside it, so three is impossible."""
    b = chain_position(())
    b.play(1, 0, 1, SAMURAI, 1)
    assert set(b.villages()) == {(0, 0), (1, 1), (-1, 1)}
    assert b.misc(Misc.CHAINED) == 0


def test_with_chaining_a_card_can_open_three_cells():
    """Reading (rule chain=on): a village placed this turn next to the played card counts
    like one already there, so (0, 2) opens between the card and (1, 2)."""
    b = chain_position(("chain=on",))
    b.play(1, 0, 1, SAMURAI, 1)
    assert set(b.villages()) == {(0, 0), (1, 1), (-1, 1), (0, 2)}
    assert b.misc(Misc.OPEN3) == 1 and b.misc(Misc.CHAINED) == 1
    assert b.misc(Misc.PLACED) == 3


def test_deck_running_out_mid_placement_leaves_the_other_cell_empty():
    deck = [mask_of(HELMET), mask_of(BUDDHA)]
    b = KBoard(deck=deck)
    b.set_counter("vtop", 1)  # one village card left
    b.village(0, 0, HELMET)
    b.card(1, 0, 0, HELMET, 2)
    b.card(-1, 0, 0, RICE, 2)
    b.play(1, 0, 1, SAMURAI, 1)
    v = b.villages()
    assert len(v) == 2 and (set(v) - {(0, 0)}) <= {(1, 1), (-1, 1)}
    assert b.counter("vtop") == len(deck)  # the last village is placed: the game will end
    assert b.misc(Misc.UNFILLED) == 1


@pytest.mark.parametrize("rule", ["villages=see-next", "villages=see-all"])
def test_greedy_places_the_village_where_its_influence_gains(rule):
    # greedy (seat 1) opens (1, 1) next to its strong helmet and (-1, 1) next to a rival
    deck = [mask_of(RICE), mask_of(HELMET), mask_of(BUDDHA)]
    b = KBoard(deck=deck, rules=(rule,), seats=("random", "greedy", "random"))
    b.set_counter("vtop", 1)
    b.village(0, 0, RICE)
    b.card(1, 0, 0, HELMET, 1)
    b.card(-1, 0, 0, HELMET, 1)
    b.card(-2, 1, 0, HELMET, 4)  # rival's helmet next to (-1, 1)
    b.card(2, 1, 1, HELMET, 4)  # greedy's own helmet next to (1, 1)
    b.play(1, 0, 1, BUDDHA, 2)
    v = b.villages()
    assert v[(1, 1)][0] == mask_of(HELMET)  # the helmet village goes where greedy leads
    assert v[(-1, 1)][0] == mask_of(BUDDHA)


# --- scoring ------------------------------------------------------------------------------

def test_samurai_count_for_every_symbol_of_the_village():
    b = KBoard()
    b.village(0, 0, HELMET, BUDDHA, RICE)
    b.card(1, 0, 0, SAMURAI, 2)
    b.card(-1, 0, 1, HELMET, 3)
    b.card(0, -1, 1, BUDDHA, 1)
    b.play(0, 0, 1, RICE, 1)
    # helmet: 2 vs 3 -> seat 1; buddha: 2 vs 1 -> seat 0; rice: 2 + 1 vs 0 -> seat 0
    assert b.taken[:2].tolist() == [[0, 1, 1], [1, 0, 0]]
    assert b.villages()[(0, 0)] == (mask_of(HELMET, BUDDHA, RICE), True)
    assert b.remaining() == [15, 15, 15]


@pytest.mark.parametrize("symbol", [HELMET, BUDDHA, RICE])
def test_a_lone_samurai_wins_any_symbol_against_other_symbols(symbol):
    others = [s for s in (HELMET, BUDDHA, RICE) if s != symbol]
    b = KBoard()
    b.village(0, 0, symbol)
    b.card(1, 0, 1, others[0], 4)
    b.card(-1, 0, 1, others[1], 4)
    b.card(0, -1, 1, others[0], 3)
    b.play(0, 0, 1, SAMURAI, 1)
    assert b.taken[0].tolist() == [int(s == symbol) for s in range(3)]
    assert b.taken[1].sum() == 0



@pytest.mark.parametrize("symbol", [HELMET, BUDDHA, RICE])
def test_a_symbol_card_counts_its_printed_influence_for_its_own_symbol_only(symbol):
    """One card of influence 4 beats two of 2 + 1 on its symbol; a card of another
    symbol adds nothing, whatever its influence."""
    other = (symbol + 1) % 3
    b = KBoard()
    b.village(0, 0, symbol)
    b.card(1, 0, 1, symbol, 2)
    b.card(-1, 0, 1, symbol, 1)
    b.card(0, -1, 1, other, 4)
    b.play(0, 0, 1, symbol, 4)  # 4 against 2 + 1 (+ nothing for the other symbol)
    assert b.taken[0].tolist() == [int(s == symbol) for s in range(3)]
    assert b.taken[1].sum() == 0
    b = KBoard()
    b.village(0, 0, symbol)
    b.card(1, 0, 1, symbol, 3)
    b.card(-1, 0, 0, other, 4)
    b.card(0, -1, 0, other, 4)
    b.play(0, 0, 1, symbol, 2)  # 2 against 3: the 8 points of the other symbol count not
    assert b.taken[1].tolist() == [int(s == symbol) for s in range(3)]

def test_a_tie_pays_nobody_and_the_marker_stays():
    """Reading (rule tied-marker=stays, default): the tied marker stays in the supply."""
    b = KBoard()
    b.village(0, 0, HELMET, RICE)
    b.card(1, 0, 0, HELMET, 2)
    b.card(-1, 0, 1, HELMET, 2)
    b.card(0, -1, 1, SAMURAI, 1)
    b.play(0, 0, 1, SAMURAI, 1)  # helmet 3-3: tie; rice 1-1: tie
    assert b.taken.sum() == 0 and b.remaining() == [16, 16, 16]
    assert b.misc(Misc.TIES) == 2


def test_a_tie_at_zero_pays_nobody():
    b = KBoard()
    b.village(0, 0, RICE)
    for x, y, owner in ((1, 0, 0), (-1, 0, 1), (0, -1, 1)):
        b.card(x, y, owner, HELMET, 2)
    b.play(0, 0, 1, BUDDHA, 4)
    assert b.taken.sum() == 0


def test_discarded_tied_markers_leave_the_supply():
    """Reading (rule tied-marker=discarded): the tied marker goes out of the game."""
    b = KBoard(rules=("tied-marker=discarded",))
    b.village(0, 0, HELMET)
    b.card(1, 0, 0, HELMET, 2)
    b.card(-1, 0, 1, HELMET, 2)
    b.card(0, -1, 1, RICE, 1)
    b.play(0, 0, 1, RICE, 1)
    assert b.taken.sum() == 0 and b.remaining() == [15, 16, 16]


def test_an_empty_supply_still_pays_with_substitutes():
    b = KBoard()
    b.st.rem[HELMET] = 0
    b.village(0, 0, HELMET)
    b.card(1, 0, 0, HELMET, 2)
    b.card(-1, 0, 1, RICE, 2)
    b.card(0, -1, 1, RICE, 1)
    b.play(0, 0, 1, HELMET, 3)
    assert b.taken[0, HELMET] == 1 and b.remaining()[HELMET] == -1
    assert b.misc(Misc.SUBST) == 1


def test_a_village_placed_into_a_surrounded_hole_is_scored_at_once():
    deck = [mask_of(HELMET), mask_of(BUDDHA)]
    b = KBoard(deck=deck)
    b.set_counter("vtop", 1)
    b.village(0, 0, RICE)
    b.card(1, 0, 0, HELMET, 2)  # D, diagonal to the played card
    b.village(2, 2, RICE)
    b.card(2, 1, 0, BUDDHA, 3)  # (1, 1)'s other neighbours are filled already
    b.card(1, 2, 1, BUDDHA, 1)
    b.play(1, 0, 1, SAMURAI, 1)  # opens (1, 1): its four neighbours hold cards
    assert b.villages()[(1, 1)] == (mask_of(BUDDHA), True)
    assert b.taken[0, BUDDHA] == 1  # seat 0: 3 buddha vs seat 1: 1 + 1


def test_two_villages_scored_by_one_card():
    b = KBoard()
    b.village(0, 0, HELMET)
    b.village(2, 0, BUDDHA)
    for x, y, owner, sym in ((-1, 0, 1, HELMET), (0, 1, 1, HELMET), (0, -1, 0, RICE),
                             (3, 0, 0, BUDDHA), (2, 1, 1, BUDDHA), (2, -1, 0, BUDDHA)):
        b.card(x, y, owner, sym, 1)
    b.play(0, 1, 0, SAMURAI, 3)  # helmet: 3 vs 2 -> seat 0; buddha: 2 + 3 vs 1 -> seat 0
    assert b.taken[0].tolist() == [1, 1, 0] and b.taken[1].sum() == 0
    v = b.villages()
    assert v[(0, 0)][1] and v[(2, 0)][1]
    assert v[(1, 1)] == (mask_of(HELMET), False)  # opened by (0, 1), not surrounded


# --- content and setup --------------------------------------------------------------------

def test_standard_content_matches_the_rulebook_counts():
    cs = CONTENT.data
    assert CONTENT.assumed
    assert cs.kind_count.sum() == 15 and cs.hand == 5 and cs.markers == 16
    assert len(cs.village_masks) == 44
    n_sym = np.array([bin(int(m)).count("1") for m in cs.village_masks])
    assert [(n_sym == k).sum() for k in (1, 2, 3)] == [15, 27, 2]
    for s in range(3):  # the sheet's split: every symbol on 25 village cards
        assert ((cs.village_masks >> s) & 1).sum() == 25
    four = GAME.prepare(CONTENT, 4, ("random",) * 4, GAME.resolve_rules([]))
    three = GAME.prepare(CONTENT, 3, ("random",) * 3, GAME.resolve_rules([]))
    assert len(three.setc) == 15 and len(four.setc) == 13
    sam = [(int(c) >> 4) & 15 for c in three.setc if (int(c) >> 2) & 3 == SAMURAI]
    sam4 = [(int(c) >> 4) & 15 for c in four.setc if (int(c) >> 2) & 3 == SAMURAI]
    assert sorted(sam) == [1, 1, 1, 2, 2, 3] and sorted(sam4) == [1, 1, 2, 3]
    even = GAME.load_content(GAME.content_path("even-samurai"))
    e3 = GAME.prepare(even, 3, ("random",) * 3, GAME.resolve_rules([]))
    assert sorted((int(c) >> 4) & 15 for c in e3.setc if (int(c) >> 2) & 3 == SAMURAI) == [
        1, 1, 2, 2, 3, 3]



@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_deal_gives_five_cards_from_the_players_own_set(players):
    """Each player's deck is its own colour's set (13 cards with four players, 15 else),
    five of them dealt into its hand; the first village is the top of the village deck."""
    h = GAME.new_game(seed=3, playout=0, players=players, seats=("random",) * players)
    st = h.st
    size = 13 if players == 4 else 15
    for p in range(players):
        hand = st.hands[p, :st.seat[p]["hand_n"]]
        deck = st.decks[p, :st.seat[p]["deck_n"]]
        assert len(hand) == 5 and len(deck) == size - 5
        assert all(int(c) & 3 == p for c in [*hand, *deck])
        assert sorted(int(c) >> 2 for c in [*hand, *deck]) == sorted(
            int(c) >> 2 for c in h.prep.setc)
    obs = h.observation(0)
    assert obs["cards_in_hand"] == [5] * players
    top = "+".join(("helmet", "buddha", "rice")[s] for s in range(3) if st.vdeck[0] >> s & 1)
    assert obs["villages"] == [{"at": (0, 0), "symbols": top, "scored": False}]
    assert obs["village_cards_left"] == len(h.prep.vmasks) - 1


def test_the_village_deck_and_the_hands_are_shuffled_per_playout():
    """Different playouts turn up different first villages and deal different hands; every
    village card of the content is in the deck once."""
    firsts, hands = set(), set()
    for g in range(30):
        h = GAME.new_game(seed=5, playout=g, players=3, seats=("random",) * 3)
        assert sorted(h.st.vdeck.tolist()) == sorted(CONTENT.data.village_masks.tolist())
        firsts.add(h.observation(0)["villages"][0]["symbols"])
        hands.add(tuple(sorted(h.observation(0)["hand"])))
    assert len(firsts) >= 4 and len(hands) >= 10

@pytest.mark.parametrize(("players", "rule", "supply"), [
    (2, [], 10), (2, ["markers-2p=16"], 16), (3, [], 16), (4, ["markers-2p=12"], 16)])
def test_marker_supply_by_player_count(players, rule, supply):
    prep = GAME.prepare(CONTENT, players, ("random",) * players, GAME.resolve_rules(rule))
    assert prep.supply == supply


# --- whole turns and game ends through the handle -----------------------------------------

def test_rulebook_scoring_example_played_to_the_end_through_the_handle():
    """The rulebook's markers (Green 4 triangle, 6 circle, 7 square; Red 2, 7, 4; Blue 5, 3,
    7) when the last card is played: Blue (seat 3) wins with 7 + 3 = 10 in the shapes it
    does not dominate; Green dominates nothing and is out."""
    b = KBoard(players=3)
    b.village(0, 0, HELMET)
    b.taken[:3] = [[4, 6, 7], [2, 7, 4], [5, 3, 7]]
    b.st.rem[:] = 5  # markers left in the supply
    b.play(1, 1, 0, RICE, 2)  # Red's last card; every hand is now empty
    out = b.h.outcome()
    assert out["winners"] == [3] and out["outcome"] == "outright"
    assert out["decided_by"] == "most markers in the other shapes"
    assert out["dominates"] == {"helmet": 3, "buddha": 2, "rice": None}
    assert out["end"] == ["cards"]
    row = b.h.row()
    assert row["winner"] == 2 and row["shared_mask"] == 0b100 and row["dominated_0"] == 0
    words = [e.detail for e in b.h.log() if e.kind in ("result", "dominance", "end")]
    assert words == ["the game ends: cards", "helmet: seat 3 dominates with 5",
                     "buddha: seat 2 dominates with 7", "rice: nobody dominates (tie)",
                     "seat 3 wins (most markers in the other shapes)"]
    assert b.h.is_over() and b.h.legal_actions() == []


def test_a_new_village_through_the_handle_is_a_logged_decision():
    """Red's card diagonal to Green's across the first village opens (1, 1); Red then
    decides where the top village goes (one option) and the log names it all."""
    b = KBoard(deck=[mask_of(RICE), mask_of(HELMET, BUDDHA), mask_of(BUDDHA)])
    b.set_counter("vtop", 1)
    b.village(0, 0, HELMET)
    b.play(0, 1, 0, HELMET, 2)
    b.give(1, (BUDDHA, 2), (RICE, 3))
    b.set_counter("cur", 1)
    b.set_counter("over", 0)
    legal = b.h.legal_actions()
    assert len(legal) == 2 * len(b.frontier())  # every card on every legal cell
    b.h.apply((0 << K.CELL_BITS) | b.at(0, 1))
    assert b.counter("phase") == K.PLACE and b.h.current_player() == 1
    assert b.h.legal_actions() == [K.PLACE_FLAG | b.at(1, 1)]
    assert b.h.observation(1)["open_cells"] == [(1, 1)]
    b.h.step()
    assert b.villages()[(1, 1)] == (mask_of(HELMET, BUDDHA), False)
    log = [(e.kind, e.detail) for e in b.h.log()]
    assert ("opens", "(1, 1) opens for a village") in log
    assert ("decision", "puts the helmet+buddha village at (1, 1) (of 1 option)") in log
    assert ("chance", "the next village card turned up: buddha (1 left)") in log
    assert ("decision", f"plays buddha 2 at (0, 1) (of {len(legal)} options)") in log


def test_see_all_lets_the_player_place_both_visible_villages_at_once():
    """Reading (villages=see-all): with two cells open and two village cards left, the
    player may put both (each ordered pair of cells) or only the top one."""
    deck = [mask_of(HELMET), mask_of(BUDDHA), mask_of(RICE)]
    b = KBoard(deck=deck, rules=("villages=see-all",), seats=("random", "greedy", "random"))
    b.set_counter("vtop", 1)
    b.village(0, 0, HELMET)
    b.card(1, 0, 0, HELMET, 2)
    b.card(-1, 0, 0, RICE, 2)
    b.give(1, (SAMURAI, 1))
    b.set_counter("cur", 1)
    b.h.apply(b.at(0, 1))
    one, two = b.at(1, 1), b.at(-1, 1)
    assert sorted(b.h.legal_actions()) == sorted(
        [K.PLACE_FLAG | one, K.PLACE_FLAG | two, K.PLACE_FLAG | ((two + 1) << K.CELL_BITS) | one,
         K.PLACE_FLAG | ((one + 1) << K.CELL_BITS) | two])
    assert b.h.observation(1)["visible_villages"] == ["buddha", "rice"]
    a = b.h.step()  # greedy places both
    assert (a >> K.CELL_BITS) & K.CELL_MASK
    assert set(b.villages()) == {(0, 0), (1, 1), (-1, 1)} and b.counter("phase") == K.PLAY


def test_a_seat_without_cards_is_skipped_and_a_seat_without_a_cell_ends_the_game():
    """Reading: the turn passes over a seat with no card; a seat holding cards with no
    legal cell left ends the game (blocked)."""
    b = KBoard(players=3)
    b.village(0, 0, RICE)
    for x, y in ((1, 0), (-1, 0), (0, 1)):
        b.card(x, y, 2, HELMET, 2)
    b.give(0)
    b.give(1, (HELMET, 3), (BUDDHA, 3))
    b.play(2, 0, -1, RICE, 4)  # its own diagonals: nothing opens; the village is scored
    assert b.h.is_over() and b.h.outcome()["end"] == ["blocked"]
    log = [(e.player, e.kind) for e in b.h.log()]
    assert (1, "skip") in log and (None, "scoring") in log and log[-1] == (None, "result")
    assert b.taken[2, RICE] == 1


def test_a_play_draws_from_the_players_own_deck():
    b = KBoard(players=2)
    b.village(0, 0, RICE)
    b.give(0, (HELMET, 2))
    b.give(1, (BUDDHA, 2))
    b.st.decks[0, 0] = b.code(0, SAMURAI, 3)
    b.st.seat[0]["deck_n"] = 1
    b.h.apply(b.at(1, 0))
    assert b.st.seat[0]["hand_n"] == 1 and b.st.hands[0, 0] == b.code(0, SAMURAI, 3)
    assert b.h.log()[-1].detail == "draws samurai 3 (0 left in its deck)"
    assert b.h.current_player() == 1 and b.h.turn() == 2


def test_a_forbidden_symbol_is_never_played_unless_the_hand_holds_nothing_else():
    b = KBoard(players=2, seats=("greedy", "random"))
    b.village(0, 0, HELMET)
    b.give(0, (SAMURAI, 3), (HELMET, 2))
    forbid = np.zeros((4, len(K.OPTIONS)), np.bool_)
    forbid[0, K.OPTIONS.index("samurai card")] = True
    a = KP.py_choose(b.st, forbid)
    assert K.py_option_of(b.st, a) == HELMET
    b.give(0, (SAMURAI, 3), (SAMURAI, 1))  # nothing else: the game has no pass
    assert K.py_option_of(b.st, KP.py_choose(b.st, forbid)) == SAMURAI
