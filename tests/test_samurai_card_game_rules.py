"""Samurai: The Card Game: the rulebook's example and hand-built positions for every rule
the kernel plays (placement, new villages, scoring, markers, end, winner), each stating the
reading it checks."""

from __future__ import annotations

import numpy as np
import pytest

from kernels import samurai_card_game as K
from kernels.rng import new_state, seed_stream
from simcli.games.samurai_card_game import SamuraiCardGame
from tests import naive_card_game as N
from tests.naive_card_game import BUDDHA, HELMET, RICE, SAMURAI

GAME = SamuraiCardGame()
CONTENT = GAME.load_content(GAME.content_path(None))
BUF_NAMES = ("grid", "fpos", "lists", "vinfo", "vsum", "vdeck", "hands", "decks", "st", "taken",
             "offs", "esum", "fs", "vtab", "xkey", "xtab", "kpos", "kadd", "kscore", "gains",
             "opens", "assign", "wins3", "dom", "ndom")


def mask_of(*symbols: int) -> int:
    return sum(1 << s for s in set(symbols))


class KBoard:
    """Kernel arrays for a hand-built position, addressed by (x, y) like the naive board."""

    def __init__(self, players: int = 3, deck: list[int] | None = None, rules=(),
                 seats=None, seed: int = 0, room: int = 16):
        self.P = players
        chosen = GAME.resolve_rules(list(rules))
        self.prep = GAME.prepare(CONTENT, players, tuple(seats or ("random",) * players),
                                 chosen)
        deck = list(deck) if deck is not None else [mask_of(HELMET)] * 10
        self.pi = self.prep.pi.copy()
        R = int(self.pi[K.PI_R])
        self.R, self.W = R, 2 * R + 1
        # room for `room` hand-built villages besides the deck's (arrays are not checked)
        bufs = K.new_buffers(players, len(self.prep.setc), len(deck) + room, R,
                             int(self.pi[K.PI_HAND]))
        for name, arr in zip(BUF_NAMES, bufs, strict=True):
            setattr(self, name, arr)
        self.vdeck = np.array(deck, np.int64)
        for s in range(3):
            self.st[K.ST_REM + s] = self.pi[K.PI_SUPPLY]
        self.aggs = GAME.new_aggregates(self.prep)
        self.state = new_state(0)
        seed_stream(self.state, np.uint64(seed), 0)
        self.fs[:] = 1.0

    def at(self, x: int, y: int) -> int:
        return (y + self.R) * self.W + (x + self.R)

    def xy(self, cell: int) -> tuple[int, int]:
        return int(cell % self.W - self.R), int(cell // self.W - self.R)

    def village(self, x: int, y: int, *symbols: int) -> None:
        assert (x + y) % 2 == 0
        K.place_village(self.grid, self.fpos, self.lists, self.st, self.vinfo, self.vsum,
                        self.offs, self.at(x, y), mask_of(*symbols))

    def code(self, owner: int, symbol: int, influence: int) -> int:
        return owner | (symbol << 2) | (influence << 4)

    def card(self, x: int, y: int, owner: int, symbol: int, influence: int) -> None:
        assert (x + y) % 2 == 1
        K.place_card(self.grid, self.fpos, self.lists, self.st, self.vsum, self.esum,
                     self.offs, self.at(x, y), self.code(owner, symbol, influence))

    def play(self, owner: int, x: int, y: int, symbol: int, influence: int) -> None:
        """owner plays this card on (x, y) as a whole turn: villages, scoring, draw."""
        self.hands[owner, 0] = self.code(owner, symbol, influence)
        self.st[K.ST_HAND + owner] = 1
        self.st[K.ST_DECK + owner] = 0
        a = self.aggs
        K.play_turn(self.state, owner, 0, self.at(x, y), self.P, self.prep.policies, self.pi,
                    self.prep.pf, self.grid, self.fpos, self.lists, self.vinfo, self.vsum,
                    self.vdeck, self.hands, self.decks, self.st, self.taken, self.offs,
                    self.esum, self.fs, self.gains, self.opens, self.assign, self.wins3,
                    a["kinds"], a["heat"], a["misc"])

    def frontier(self) -> set[tuple[int, int]]:
        return {self.xy(c) for c in self.lists[K.L_FRONT, : self.st[K.ST_NF]]}

    def villages(self) -> dict[tuple[int, int], tuple[int, bool]]:
        return {self.xy(self.lists[K.L_VCELL, i]): (int(self.vinfo[K.V_MASK, i]),
                                                    bool(self.vinfo[K.V_SCORED, i]))
                for i in range(self.st[K.ST_NV])}

    def openings(self, x: int, y: int, owner: int) -> set[tuple[int, int]]:
        n = K.find_openings(self.grid, self.offs, self.at(x, y), owner, self.opens)
        return {self.xy(c) for c in self.opens[:n]}

    def remaining(self) -> list[int]:
        return [int(v) for v in self.st[K.ST_REM:K.ST_REM + 3]]


# --- the winner ---------------------------------------------------------------------------

def decide(taken):
    t = np.zeros((4, 3), np.int64)
    t[: len(taken)] = taken
    dom = np.zeros(3, np.int64)
    ndom = np.zeros(4, np.int64)
    res, w, mask, how = K.decide_winner(t, len(taken), dom, ndom)
    return res, w, mask, how, dom.tolist(), ndom[: len(taken)].tolist()


def test_rulebook_scoring_example_blue_wins_with_10():
    # shapes in kernel order: helmet (triangle), buddha (circle), rice (square)
    green = [4, 6, 7]  # 4 triangle, 7 square, 6 circle
    red = [2, 7, 4]  # 2 triangle, 4 square, 7 circle
    blue = [5, 3, 7]  # 5 triangle, 7 square, 3 circle
    res, w, _, how, dom, ndom = decide([green, red, blue])
    assert dom == [2, 1, -1]  # Blue triangles, Red circles, squares tied 7-7 (Green, Blue)
    assert ndom == [0, 1, 1]  # Green dominates nothing: out
    assert (res, w, how) == (K.O_OUTRIGHT, 2, K.W_OTHER_SHAPES)
    # the counts the rulebook gives: Red 2 + 4 = 6, Blue 7 + 3 = 10
    assert red[0] + red[2] == 6 and blue[2] + blue[1] == 10
    assert N.winner([green, red, blue]) == ("outright", {2})


@pytest.mark.parametrize(("taken", "expected", "how"), [
    # two shapes dominated win outright, even against more markers in all
    ([[5, 5, 0], [1, 1, 9]], (K.O_OUTRIGHT, 0, 1), K.W_TWO_SHAPES),
    ([[1, 2, 3], [0, 1, 2], [0, 0, 0]], (K.O_OUTRIGHT, 0, 1), K.W_TWO_SHAPES),
    # one shape each: markers of the other two shapes decide
    ([[6, 2, 3], [1, 6, 3]], (K.O_OUTRIGHT, 0, 1), K.W_OTHER_SHAPES),
    # tie on the other two shapes: the count in the dominated shape breaks it
    ([[6, 2, 3], [2, 5, 3]], (K.O_OUTRIGHT, 0, 1), K.W_TIEBREAK),
    # a tie that remains is a shared victory
    ([[6, 2, 3], [2, 6, 3]], (K.O_SHARED, -1, 0b11), K.W_SHARED),
    ([[6, 2, 2], [2, 6, 2], [2, 2, 6], [0, 0, 0]], (K.O_SHARED, -1, 0b111), K.W_SHARED),
    # nobody dominates a shape: everybody is eliminated, nobody wins
    ([[3, 3, 3], [3, 3, 3]], (K.O_NONE, -1, 0), K.W_NONE),
    ([[0, 0, 0], [0, 0, 0], [0, 0, 0]], (K.O_NONE, -1, 0), K.W_NONE),
    # an eliminated player cannot win, however many markers it holds
    ([[5, 5, 5], [5, 5, 5], [0, 0, 6]], (K.O_OUTRIGHT, 2, 1 << 2), K.W_OTHER_SHAPES),
])
def test_every_branch_of_the_winner_rule(taken, expected, how):
    res, w, mask, got_how, _, _ = decide(taken)
    assert (res, w, mask) == expected
    assert got_how == how
    kind = {K.O_OUTRIGHT: "outright", K.O_SHARED: "shared", K.O_NONE: "nobody"}[res]
    winners = {w} if res == K.O_OUTRIGHT else {q for q in range(4) if mask >> q & 1}
    assert N.winner(taken) == (kind, winners)


def test_winner_agrees_with_the_reference_on_random_counts():
    rng = np.random.default_rng(5)
    for _ in range(3000):
        players = int(rng.integers(2, 5))
        taken = rng.integers(0, 6, size=(players, 3)).tolist()
        res, w, mask, _, _, _ = decide(taken)
        kind = {K.O_OUTRIGHT: "outright", K.O_SHARED: "shared", K.O_NONE: "nobody"}[res]
        winners = {w} if res == K.O_OUTRIGHT else {q for q in range(4) if mask >> q & 1}
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


def test_cards_on_opposite_sides_open_nothing():
    b = KBoard()
    b.village(0, 0, HELMET)
    b.play(0, 1, 0, HELMET, 2)
    b.play(1, -1, 0, HELMET, 3)  # V lies between them: no empty cell touches both
    assert set(b.villages()) == {(0, 0)}


def test_two_colours_diagonal_open_one_cell_with_the_top_village():
    b = KBoard(deck=[mask_of(RICE), mask_of(HELMET, BUDDHA), mask_of(BUDDHA)])
    b.st[K.ST_VTOP] = 1  # the first village card is on the table
    b.village(0, 0, HELMET)
    b.play(0, 1, 0, HELMET, 2)
    b.play(1, 0, 1, BUDDHA, 2)
    v = b.villages()
    assert set(v) == {(0, 0), (1, 1)}  # the cell touching both cards that is not V
    assert v[(1, 1)] == (mask_of(HELMET, BUDDHA), False)
    assert b.st[K.ST_VTOP] == 2
    assert {(2, 1), (1, 2)} <= b.frontier()  # the new village makes its sides legal


def test_a_card_can_open_two_cells_and_both_get_villages():
    deck = [mask_of(HELMET), mask_of(BUDDHA), mask_of(RICE), mask_of(HELMET, RICE)]
    b = KBoard(deck=deck)
    b.st[K.ST_VTOP] = 1
    b.village(0, 0, HELMET)
    b.card(1, 0, 0, HELMET, 2)
    b.card(-1, 0, 0, RICE, 2)
    assert b.openings(0, 1, 1) == {(1, 1), (-1, 1)}
    b.play(1, 0, 1, SAMURAI, 1)
    v = b.villages()
    assert set(v) == {(0, 0), (1, 1), (-1, 1)}
    assert sorted(v[(1, 1)][0:1] + v[(-1, 1)][0:1]) == sorted(deck[1:3])  # the next two
    assert b.aggs["misc"][K.M_OPEN1 + 1] == 1


def chain_position(rules):
    deck = [mask_of(HELMET)] * 6
    b = KBoard(deck=deck, rules=rules)
    b.st[K.ST_VTOP] = 1
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
    assert b.aggs["misc"][K.M_CHAINED] == 0


def test_with_chaining_a_card_can_open_three_cells():
    """Reading (rule chain=on): a village placed this turn next to the played card counts
    like one already there, so (0, 2) opens between the card and (1, 2)."""
    b = chain_position(("chain=on",))
    b.play(1, 0, 1, SAMURAI, 1)
    assert set(b.villages()) == {(0, 0), (1, 1), (-1, 1), (0, 2)}
    m = b.aggs["misc"]
    assert m[K.M_OPEN1 + 2] == 1 and m[K.M_CHAINED] == 1 and m[K.M_PLACED] == 3


def test_deck_running_out_mid_placement_leaves_the_other_cell_empty():
    deck = [mask_of(HELMET), mask_of(BUDDHA)]
    b = KBoard(deck=deck)
    b.st[K.ST_VTOP] = 1  # one village card left
    b.village(0, 0, HELMET)
    b.card(1, 0, 0, HELMET, 2)
    b.card(-1, 0, 0, RICE, 2)
    b.play(1, 0, 1, SAMURAI, 1)
    v = b.villages()
    assert len(v) == 2 and (set(v) - {(0, 0)}) <= {(1, 1), (-1, 1)}
    assert b.st[K.ST_VTOP] == len(deck)  # the last village is placed: the game will end
    assert b.aggs["misc"][K.M_UNFILLED] == 1


@pytest.mark.parametrize("rule", ["villages=see-next", "villages=see-all"])
def test_greedy_places_the_village_where_its_influence_gains(rule):
    # greedy (seat 1) opens (1, 1) next to its strong helmet and (-1, 1) next to a rival
    deck = [mask_of(RICE), mask_of(HELMET), mask_of(BUDDHA)]
    b = KBoard(deck=deck, rules=(rule,), seats=("random", "greedy"))
    b.st[K.ST_VTOP] = 1
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


def test_a_tie_pays_nobody_and_the_marker_stays():
    """Reading (rule tied-marker=stays, default): the tied marker stays in the supply."""
    b = KBoard()
    b.village(0, 0, HELMET, RICE)
    b.card(1, 0, 0, HELMET, 2)
    b.card(-1, 0, 1, HELMET, 2)
    b.card(0, -1, 1, SAMURAI, 1)
    b.play(0, 0, 1, SAMURAI, 1)  # helmet 3-3: tie; rice 1-1: tie
    assert b.taken.sum() == 0 and b.remaining() == [16, 16, 16]
    assert b.aggs["misc"][K.M_TIES] == 2


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
    b.st[K.ST_REM + HELMET] = 0
    b.village(0, 0, HELMET)
    b.card(1, 0, 0, HELMET, 2)
    b.card(-1, 0, 1, RICE, 2)
    b.card(0, -1, 1, RICE, 1)
    b.play(0, 0, 1, HELMET, 3)
    assert b.taken[0, HELMET] == 1 and b.remaining()[HELMET] == -1
    assert b.aggs["misc"][K.M_SUBST] == 1


def test_a_village_placed_into_a_surrounded_hole_is_scored_at_once():
    deck = [mask_of(HELMET), mask_of(BUDDHA)]
    b = KBoard(deck=deck)
    b.st[K.ST_VTOP] = 1
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


@pytest.mark.parametrize(("players", "rule", "supply"), [
    (2, [], 10), (2, ["markers-2p=16"], 16), (3, [], 16), (4, ["markers-2p=12"], 16)])
def test_marker_supply_by_player_count(players, rule, supply):
    prep = GAME.prepare(CONTENT, players, ("random",) * players, GAME.resolve_rules(rule))
    assert prep.pi[K.PI_SUPPLY] == supply
