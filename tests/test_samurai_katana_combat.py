"""Samurai & Katana combat: hand-built battles for every rule, the card choice against a
plain reference, exact odds against brute force, Monte Carlo against exact."""

import math

import numpy as np
import pytest

from kernels import katana_combat as KC
from kernels.rng import stream_states
from simcli.games.samurai_katana import SamuraiKatana, deck_array, exact_odds
from tests import naive_katana as N

GAME = SamuraiKatana()
CONTENT = GAME.load_content(GAME.content_path(None)).data
DECK = CONTENT.deck
SPECIALS = {"fan": KC.E_FAN, "arquebus": KC.E_ARQUEBUS, "alliance": KC.E_ALLIANCE}


def table_of(cards: list[dict]) -> np.ndarray:
    """A kernel card table with one row per reference card."""
    t = np.zeros((len(cards), KC.N_CC), np.int64)
    for i, c in enumerate(cards):
        special = c["special"] is not None
        t[i, KC.CC_VALUE] = c["value"]
        t[i, KC.CC_SWORDS] = c["swords"]
        t[i, KC.CC_KIND] = KC.K_SPECIAL if special else KC.K_WARRIOR
        t[i, KC.CC_EFFECT] = SPECIALS[c["special"]] if special else KC.E_NONE
        t[i, KC.CC_AMOUNT] = c["amount"]
        t[i, KC.CC_KEEP] = 1 if special else 0
        t[i, KC.CC_KEY] = KC.combat_key(c["value"], c["swords"], t[i, KC.CC_KEEP], special)
    return t


def reference_card(row: np.ndarray) -> dict:
    """The reference form of a kernel card-table row."""
    special = None
    if row[KC.CC_KIND] == KC.K_SPECIAL:
        special = {KC.E_FAN: "fan", KC.E_ARQUEBUS: "arquebus",
                   KC.E_ALLIANCE: "alliance"}[int(row[KC.CC_EFFECT])]
    return N.card(int(row[KC.CC_VALUE]), int(row[KC.CC_SWORDS]), special,
                  int(row[KC.CC_AMOUNT]))


def strongest(cards: list[dict], castle: bool = False, allies: int = 0) -> tuple[int, int]:
    t = table_of(cards)
    hand = np.arange(len(cards), dtype=np.int64)
    i, j, k, pts, sw = KC.choose_strongest(hand, len(cards), t, castle, allies, True)
    assert (pts, sw) == KC.card_points(hand, i, j, k, t, castle, allies)
    return pts, sw


def battle(pa, pd, swa, swd, a, d, castle=False, mountain=False):
    r, la, ld, empty = KC.resolve(KC.total_points(pa, a, 0), KC.total_points(pd, d, int(mountain)),
                                  swa, swd, a, d, castle)
    return {KC.ATTACKER: "attacker", KC.TIE: "tie", KC.DEFENDER: "defender"}[r], la, ld, empty


# --- hand-built battles, one rule each ---------------------------------------------------

def test_castle_alone_is_worth_only_its_cards_weakest_doubled():
    # defender: no samurai, a castle, cards 3 and 2 -> 3 + 2 + 2 = 7
    pd, swd = strongest([N.card(3), N.card(2)], castle=True)
    assert pd == 7 and swd == 0
    assert KC.total_points(pd, 0, 0) == 7  # no samurai, no bonus: the castle itself adds 0
    # attacker 2 samurai with 2 + 2 = 6 points: the castle alone holds, the territory too
    assert battle(4, pd, 1, swd, 2, 0, castle=True) == ("defender", 0, 0, False)
    # 4 samurai with 2 + 2 = 8 points take it; a castle with no samurai loses nobody
    assert battle(4, pd, 1, swd, 4, 0, castle=True) == ("attacker", 0, 0, False)


def test_castle_doubles_the_weaker_of_the_two_combat_cards():
    hand = [N.card(4, 1), N.card(1), N.card(3), N.card(2, 2), N.card(1)]
    assert strongest(hand, castle=True) == (4 + 3 + 3, 1) == N.strongest(hand, True)
    assert strongest(hand, castle=False) == (4 + 3, 1) == N.strongest(hand, False)
    # equal values: the doubled card is worth the same whichever is called weaker
    assert strongest([N.card(3), N.card(3, 1)], castle=True) == (9, 1)


def test_mountain_gives_the_defender_one_point():
    # 5 + 2 samurai against 4 + 2 samurai: the attacker wins on a plain ...
    assert battle(5, 4, 0, 0, 2, 2)[0] == "attacker"
    # ... and ties (the defender holds) in the mountains
    assert battle(5, 4, 0, 0, 2, 2, mountain=True)[0] == "tie"
    assert battle(4, 4, 0, 0, 2, 2, mountain=True)[0] == "defender"


def test_tie_goes_to_the_defender():
    result, la, ld, empty = battle(6, 6, 1, 1, 3, 3)
    assert result == "tie" and (la, ld) == (1, 1) and not empty
    # a tie that leaves the defender without samurai or castle empties the territory
    assert battle(5, 6, 2, 0, 3, 2) == ("tie", 0, 2, True)
    assert battle(5, 6, 2, 0, 3, 2, castle=True) == ("tie", 0, 2, False)


def test_only_four_samurai_count_and_losses_stop_at_four_swords():
    assert KC.total_points(5, 9, 0) == 9
    assert battle(5, 5, 7, 9, 8, 8)[1:3] == (4, 4)  # 9 and 7 swords: 4 losses each
    assert battle(5, 5, 3, 2, 8, 8)[1:3] == (2, 3)
    assert battle(5, 5, 3, 3, 1, 2)[1:3] == (1, 2)  # never more than the army
    # four samurai or eight: the same battle
    assert battle(3, 4, 1, 1, 4, 5) == battle(3, 4, 1, 1, 8, 8)


def test_winner_wiped_out_leaves_the_territory_empty():
    # the attacker wins with 2 samurai but the defender's 3 swords kill both
    assert battle(9, 2, 1, 3, 2, 1) == ("attacker", 2, 1, True)
    assert battle(9, 2, 1, 1, 2, 1) == ("attacker", 1, 1, False)
    # a defender who wins but loses every samurai (no castle): empty too
    assert battle(1, 9, 3, 0, 2, 3) == ("defender", 0, 3, True)


def test_specials_add_fan_points_swords_or_allies():
    base = [N.card(3, 1), N.card(2, 1)]
    fan = [*base, N.card(1, 0, "fan", 2)]
    assert strongest(fan) == (7, 2) == N.strongest(fan, False)
    gun = [*base, N.card(2, 0, "arquebus", 2)]
    assert strongest(gun) == (5, 4) == N.strongest(gun, False)  # same points, more swords
    ally = [*base, N.card(3, 0, "alliance", 4)]
    # without neighbours the Alliance card is worth more as a combat card (3 + 3)
    assert strongest(ally, allies=0) == (6, 1) == N.strongest(ally, False, 0)
    assert strongest(ally, allies=6) == (9, 2) == N.strongest(ally, False, 6)  # capped at 4


def test_strongest_choice_matches_the_reference_on_random_hands():
    rng = np.random.default_rng(3)
    cards = DECK.table
    dk = deck_array(DECK)
    ref = [reference_card(r) for r in cards]
    for _ in range(1500):
        hand = rng.choice(dk, size=5, replace=False).astype(np.int64)
        castle = bool(rng.integers(2))
        allies = int(rng.integers(0, 6))
        i, j, k, pts, sw = KC.choose_strongest(hand, 5, cards, castle, allies, True)
        assert len({i, j, k} - {-1}) == (3 if k >= 0 else 2)
        assert (pts, sw) == N.strongest([ref[c] for c in hand], castle, allies)


def test_random_choice_is_uniform_over_legal_plays():
    hand_cards = [N.card(1, 1), N.card(2, 0, "fan", 1), N.card(3), N.card(2, 0, "fan", 2)]
    legal = N.choices(hand_cards)
    t = table_of(hand_cards)
    hand = np.arange(4, dtype=np.int64)
    state = stream_states(0, 1)[0]
    counts: dict[tuple, int] = {}
    n = 30_000
    for _ in range(n):
        i, j, k = KC.choose_random(state, hand, 4, t, True)
        key = (min(i, j), max(i, j), None if k < 0 else k)
        counts[key] = counts.get(key, 0) + 1
    assert set(counts) == set(legal)
    expected = n / len(legal)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 40  # 11 degrees of freedom: 40 is far in the tail


# --- exact odds and Monte Carlo ----------------------------------------------------------

SMALL = [N.card(1, 1), N.card(1, 1), N.card(2, 1), N.card(2, 2), N.card(3, 0),
         N.card(1, 0, "fan", 2), N.card(2, 0, "arquebus", 1), N.card(4, 1)]


@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_exact_odds_match_brute_force_on_a_small_deck(policy):
    t = table_of(SMALL)
    code = KC.GREEDY if policy == "greedy" else KC.RANDOM
    grid = exact_odds(t, np.ones(len(SMALL), np.int64), 3, code, code)
    for a, d, c, m in [(1, 1, 0, 0), (3, 2, 0, 1), (2, 0, 1, 0), (4, 4, 1, 1), (5, 1, 0, 0)]:
        ref = N.exact_odds(SMALL, 3, a, d, bool(c), bool(m), policy)
        cell = grid[a, d, c, m]
        assert cell[KC.OS_WIN] == pytest.approx(float(ref["win"]), abs=1e-12)
        assert cell[KC.OS_TIE] == pytest.approx(float(ref["tie"]), abs=1e-12)
        assert cell[KC.OS_EMPTY] == pytest.approx(float(ref["empty"]), abs=1e-12)
        assert cell[KC.OS_LA] == pytest.approx(float(ref["attacker_losses"]), abs=1e-12)
        assert cell[KC.OS_LD] == pytest.approx(float(ref["defender_losses"]), abs=1e-12)


def sample(table, counts, h, n, seed, policy, cells):
    dk = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    out = np.zeros((KC.MAX_SIZE + 1, KC.MAX_SIZE + 1, 2, 2, KC.N_OS), np.int64)
    on = np.ones(2, np.int64)
    a_lo = min(c[0] for c in cells)
    a_hi = max(c[0] for c in cells)
    d_lo = min(c[1] for c in cells)
    d_hi = max(c[1] for c in cells)
    KC.odds_chunk(np.uint64(seed), 0, n, dk, table, h, policy, policy, a_lo, a_hi, d_lo, d_hi,
                  on, on, out)
    return out


def close(count: int, n: int, p: float) -> bool:
    """A sampled count agrees with an exact chance (within 4.5 standard errors)."""
    return abs(count / n - p) <= 4.5 * math.sqrt(max(p * (1 - p), 1e-9) / n) + 1e-9


@pytest.mark.parametrize("policy", [KC.GREEDY, KC.RANDOM])
def test_monte_carlo_agrees_with_exact_on_a_small_deck(policy):
    t = table_of(SMALL)
    counts = np.ones(len(SMALL), np.int64)
    exact = exact_odds(t, counts, 3, policy, policy)
    n = 60_000
    out = sample(t, counts, 3, n, 5, policy, [(1, 0), (4, 4)])
    for a in range(1, 5):
        for d in range(0, 5):
            for c in range(2):
                for m in range(2):
                    if d == 0 and c == 0:
                        assert out[a, d, c, m].sum() == 0
                        continue
                    for k in (KC.OS_WIN, KC.OS_TIE, KC.OS_EMPTY):
                        assert close(out[a, d, c, m, k], n, exact[a, d, c, m, k]), (a, d, c, m, k)


def test_monte_carlo_agrees_with_exact_on_the_standard_deck():
    exact = exact_odds(DECK.table, DECK.counts, 5)
    n = 200_000
    out = sample(DECK.table, DECK.counts, 5, n, 11, KC.GREEDY, [(1, 0), (5, 5)])
    for a, d, c, m in [(4, 3, 0, 0), (2, 0, 1, 0), (3, 3, 0, 1), (5, 2, 1, 1), (1, 1, 0, 0)]:
        cell = out[a, d, c, m]
        for k in (KC.OS_WIN, KC.OS_TIE, KC.OS_EMPTY):
            assert close(cell[k], n, exact[a, d, c, m, k]), (a, d, c, m, k)
        mean_la = cell[KC.OS_LA] / n
        sd = math.sqrt(max(cell[KC.OS_LA2] / n - mean_la ** 2, 1e-12))
        assert abs(mean_la - exact[a, d, c, m, KC.OS_LA]) < 4.5 * sd / math.sqrt(n)


def test_each_battle_is_keyed_by_seed_and_index():
    t, counts = DECK.table, DECK.counts
    whole = sample(t, counts, 5, 3000, 9, KC.GREEDY, [(3, 2)])
    dk = deck_array(DECK)
    parts = np.zeros_like(whole)
    on = np.ones(2, np.int64)
    for first, count in ((2000, 1000), (0, 1234), (1234, 766)):  # any order, any split
        KC.odds_chunk(np.uint64(9), first, count, dk, t, 5, KC.GREEDY, KC.GREEDY, 3, 3, 2, 2,
                      on, on, parts)
    assert np.array_equal(whole, parts)
    other = sample(t, counts, 5, 3000, 10, KC.GREEDY, [(3, 2)])
    assert not np.array_equal(whole, other)


def test_exact_table_reads_as_expected():
    """Readings stated as numbers: more samurai never hurt the attacker, a castle and the
    mountains never help him, and armies of 5 or more fight like 5."""
    g = exact_odds(DECK.table, DECK.counts, 5)
    win = g[..., KC.OS_WIN]
    for c in range(2):
        for m in range(2):
            lo = 0 if c else 1
            assert (np.diff(win[1:, lo:, c, m], axis=0) >= -1e-12).all()  # attacker size up
            assert (np.diff(win[1:, lo:, c, m], axis=1) <= 1e-12).all()  # defender size up
            assert np.allclose(win[5:, lo:, c, m], win[5, lo:, c, m])
            assert np.allclose(win[1:, 5:, c, m], win[1:, 5:6, c, m])
    assert (win[1:, 1:, 1, :] <= win[1:, 1:, 0, :] + 1e-12).all()
    assert (win[1:, 1:, :, 1] <= win[1:, 1:, :, 0] + 1e-12).all()
    total = g[..., KC.OS_WIN] + g[..., KC.OS_TIE]
    assert (total[1:, 1:] <= 1 + 1e-12).all()


def test_swords_printed_on_a_special_count_too():
    hand = [N.card(2, 1), N.card(2, 1), N.card(1, 1, "fan", 1)]
    assert strongest(hand) == (5, 3) == N.strongest(hand, False)
