"""Dice resolution: rulebook examples, the pure-Python reference, exact odds, Monte Carlo."""

import itertools

import numpy as np
import pytest

from kernels.dice import UMA, odds_chunk, top_group
from kernels.rng import below, die, new_state, seed_stream
from reports.stats import rate
from simcli.dice_odds import win_chances
from tests.naive import UMA as NAIVE_UMA
from tests.naive import contenders, exact_win_chances


def kernel_contenders(rolls):
    """The kernel's comparison of explicit dice, as a list of players in contention."""
    n = len(rolls)
    t1 = np.zeros(n, np.int64)
    t2 = np.zeros(n, np.int64)
    nd = np.zeros(n, np.int64)
    for i, r in enumerate(rolls):
        s = sorted(r, reverse=True)
        t1[i], t2[i], nd[i] = s[0], (s[1] if len(s) > 1 else 0), len(s)
    mask = top_group(t1, t2, nd, np.ones(n, np.bool_), n)
    return [i for i in range(n) if (mask >> i) & 1]


@pytest.mark.parametrize(("blue", "green", "expected"), [
    ([8, 3], [7, 7, 6, 4], [0]),          # "BLUE CLAN WINS": highest die
    ([8, 8, 5, 3], [8, 7, 7], [0]),       # "BLUE CLAN WINS": second die
    ([7, 7, 6], [7, 7, 1], [0, 1]),       # "TIE": tiebreaker
    ([5, 5, 2, 1], [5], [0, 1]),          # "TIE": one die tied, tiebreaker at once
])
def test_rulebook_sample_rolls(blue, green, expected):
    assert kernel_contenders([blue, green]) == expected
    assert contenders([blue, green]) == expected


def test_kalia_fobus_example():
    from simcli.games.sixteen_samurai import SixteenSamurai

    g = SixteenSamurai()
    roster = g.load_content(g.content_path(None)).data
    kalia = roster.names.index("Kalia Cindertrap")
    fobus = roster.names.index("Fobus Dustwalker")
    power = 0
    assert roster.ratings[kalia, power] == 4 and roster.ratings[fobus, power] == 2
    kalia_roll, fobus_roll = [8, 8, 5, 3], [8, 7]
    assert len(kalia_roll) == roster.ratings[kalia, power]
    assert len(fobus_roll) == roster.ratings[fobus, power]
    assert kernel_contenders([kalia_roll, fobus_roll]) == [0]  # Blue (Kalia) wins


def test_kernel_agrees_with_reference_on_random_rolls():
    rng = np.random.default_rng(5)
    for _ in range(20_000):
        n = int(rng.integers(2, 5))
        rolls = [list(rng.integers(1, 9, size=int(rng.integers(1, 5)))) for _ in range(n)]
        assert kernel_contenders(rolls) == contenders(rolls), rolls


def test_nonparticipants_are_ignored():
    t1 = np.array([8, 3, 8, 2])
    t2 = np.array([7, 1, 0, 1])
    nd = np.array([2, 2, 1, 2])
    part = np.array([True, True, False, True])
    assert top_group(t1, t2, nd, part, 4) == 0b0001


POOLS = [1, 2, 3, 4]


@pytest.mark.parametrize(("a", "b"), list(itertools.product([*POOLS, "uma"], POOLS)))
def test_exact_odds_match_enumeration_for_pairs(a, b):
    got = win_chances([UMA if a == "uma" else a, b], 8, 7)
    ref = exact_win_chances([NAIVE_UMA if a == "uma" else a, b])
    for i in range(2):
        assert got[i] == pytest.approx(float(ref[i]), abs=1e-12)


@pytest.mark.parametrize("pools", [(1, 2, 3), (2, 2, 2), ("uma", 1, 3), (1, 1, 2, 2),
                                   (3, "uma", 1, 2)])
def test_exact_odds_match_enumeration_multiway(pools):
    ref = exact_win_chances([NAIVE_UMA if p == "uma" else p for p in pools])
    got = win_chances([UMA if p == "uma" else p for p in pools], 8, 7)
    assert sum(got) == pytest.approx(1.0, abs=1e-12)
    for g, r in zip(got, ref, strict=True):
        assert g == pytest.approx(float(r), abs=1e-12)


def test_exact_odds_other_dice():
    ref = exact_win_chances([2, 3, "uma"], faces=6, uma_value=7)
    got = win_chances([2, 3, UMA], 6, 7)
    for g, r in zip(got, ref, strict=True):
        assert g == pytest.approx(float(r), abs=1e-12)


@pytest.mark.parametrize(("a", "b"), list(itertools.product(POOLS, POOLS)))
def test_monte_carlo_within_interval_of_exact(a, b):
    codes = np.array([a, b], np.int64)
    n = 200_000
    wins = np.zeros(2, np.int64)
    ties = np.zeros(1, np.int64)
    odds_chunk(np.uint64(99), 0, n, codes, 8, 7, wins, ties)
    assert wins.sum() == n
    exact = win_chances([a, b], 8, 7)[0]
    est = rate(wins[0], n, confidence=0.999)
    assert est.lo <= exact <= est.hi, (a, b, est, exact)


def test_monte_carlo_with_uma_three_way():
    codes = np.array([3, UMA, 1], np.int64)
    n = 300_000
    wins = np.zeros(3, np.int64)
    ties = np.zeros(1, np.int64)
    odds_chunk(np.uint64(3), 0, n, codes, 8, 7, wins, ties)
    exact = win_chances([3, UMA, 1], 8, 7)
    for i in range(3):
        est = rate(wins[i], n, confidence=0.999)
        assert est.lo <= exact[i] <= est.hi


def test_streams_are_keyed_by_seed_and_index():
    s1, s2 = new_state(8), new_state(8)
    seed_stream(s1, np.uint64(7), 1000)
    seed_stream(s2, np.uint64(7), 1000)
    a = [die(s1, 8) for _ in range(50)]
    assert a == [die(s2, 8) for _ in range(50)]
    seed_stream(s2, np.uint64(7), 1001)
    assert a != [die(s2, 8) for _ in range(50)]
    seed_stream(s2, np.uint64(8), 1000)
    assert a != [die(s2, 8) for _ in range(50)]


@pytest.mark.parametrize("faces", [6, 8, 10])
def test_dice_are_uniform(faces):
    s = new_state(faces)
    seed_stream(s, np.uint64(1), 0)
    counts = np.bincount([die(s, faces) for _ in range(60_000)], minlength=faces + 1)
    assert counts[0] == 0 and counts[faces + 1:].sum() == 0
    from scipy.stats import chisquare

    assert chisquare(counts[1:]).pvalue > 1e-4


def test_below_covers_range_without_bias():
    s = new_state(8)
    seed_stream(s, np.uint64(2), 0)
    counts = np.bincount([below(s, 7) for _ in range(70_000)], minlength=7)
    from scipy.stats import chisquare

    assert len(counts) == 7 and chisquare(counts).pvalue > 1e-4


@pytest.mark.parametrize("pools", [(3, 2), (1, 4), (UMA, 1), (2, UMA), (UMA, UMA), (1, 1)])
def test_two_pool_battles_follow_the_streams_like_a_plain_loop(pools):
    """odds_chunk's two-pool loop gives, battle by battle, what a plain loop over the same
    stream gives: seed the battle's stream, roll each pool's two highest dice, compare
    (tests.naive), tied players roll one die each in seat order until one is highest."""
    from kernels.rng import roll_top2

    count, first = 3000, 500
    wins = np.zeros(2, np.int64)
    ties = np.zeros(1, np.int64)
    odds_chunk(np.uint64(17), first, count, np.array(pools, np.int64), 8, 7, wins, ties)
    want = [0, 0]
    want_ties = 0
    s = new_state(8)
    for g in range(count):
        seed_stream(s, np.uint64(17), first + g)
        tops = []
        for c in pools:
            if c == UMA:
                tops.append([7, 7])
            else:
                a, b = roll_top2(s, c, 8)
                tops.append([a, b] if c > 1 else [a])
        c = contenders(tops)
        if len(c) > 1:
            want_ties += 1
            while len(c) > 1:
                r = [die(s, 8) for _ in c]
                c = [c[i] for i in range(len(c)) if r[i] == max(r)]
        want[c[0]] += 1
    assert list(wins) == want and ties[0] == want_ties
