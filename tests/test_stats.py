"""Report statistics: intervals, tests and histogram summaries."""

import math

import numpy as np
import pytest

from reports.stats import binomial_p, distribution, holm, mean_from_moments, rate


def test_wilson_interval_known_value():
    e = rate(50, 100)
    assert e.value == 0.5 and e.n == 100
    assert e.lo == pytest.approx(0.4038, abs=1e-4) and e.hi == pytest.approx(0.5962, abs=1e-4)
    assert math.isnan(rate(0, 0).value)


@pytest.mark.parametrize(("k", "n"), [(0, 10), (10, 10), (3, 7), (123, 1000), (5, 10**7)])
@pytest.mark.parametrize("conf", [0.95, 0.99, 0.999])
def test_wilson_matches_scipy(k, n, conf):
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=conf, method="wilson")
    e = rate(k, n, conf)
    assert e.lo == pytest.approx(ci.low, abs=1e-12) and e.hi == pytest.approx(ci.high, abs=1e-12)


@pytest.mark.parametrize(("k", "n", "p0"), [(0, 20, 0.25), (5, 20, 0.25), (2600, 10_000, 0.25),
                                           (40, 40, 0.5), (7, 100, 0.02)])
def test_binomial_p_is_twice_the_smaller_tail(k, n, p0):
    from scipy.stats import binom

    expected = min(1.0, 2 * min(binom.cdf(k, n, p0), binom.sf(k - 1, n, p0)))
    assert binomial_p(k, n, p0) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_binomial_p_flags_only_real_differences():
    assert binomial_p(2600, 10_000, 0.25) < 0.05
    assert binomial_p(2510, 10_000, 0.25) > 0.5


def test_distribution_from_histogram():
    values = np.array([3, 3, 4, 5, 5, 5, 9])
    hist = np.bincount(values, minlength=12)
    d = distribution(hist)
    assert d.n == 7 and d.min == 3 and d.max == 9
    assert d.mean.value == pytest.approx(values.mean())
    assert d.sd == pytest.approx(values.std(ddof=1))
    assert d.quantiles["p50"] == 5


def test_mean_interval_contains_mean():
    e = mean_from_moments(10.0, 30.0, 5)
    assert e.lo < 2.0 < e.hi


def test_holm_adjustment():
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5]) == [0.5]


@pytest.mark.parametrize(("k", "n"), [(0, 7), (7, 7), (0, 10**6), (10**6, 10**6), (1, 3)])
def test_interval_always_contains_its_value(k, n):
    e = rate(k, n)
    assert e.lo <= e.value <= e.hi


def test_paired_difference_p_agrees_with_the_interval():
    """p < 0.05 exactly when the 95% interval excludes 0, also at a handful of pairs where a
    normal test of the differences disagrees (4 pairs, all x - b = 1: p was 0)."""
    import numpy as np

    from reports.stats import paired_difference_of, paired_difference_p

    rng = np.random.default_rng(5)
    cases = [(np.ones(4), np.zeros(4)), (np.array([1.0, 1, 1, 0]), np.zeros(4)),
             (np.array([0.5, 0.5]), np.array([0.0, 0.0]))]
    for n in (2, 3, 5, 10, 40, 300):
        for q in (0.3, 0.5, 0.8):
            cases.append(((rng.random(n) < q).astype(float),
                          (rng.random(n) < 0.5).astype(float)))
    for x, b in cases:
        e = paired_difference_of(x, b)
        p = paired_difference_p(x, b)
        assert 0.0 < p <= 1.0
        assert (p < 0.05) == (e.lo > 0 or e.hi < 0), (x, b, e, p)
    assert paired_difference_p(np.ones(4), np.zeros(4)) > 1e-6  # 4 pairs prove little
    assert paired_difference_p(np.full(5, 0.5), np.full(5, 0.5)) == 1.0


def test_interval_ends_are_printed_apart_unless_equal():
    from reports.sections import headline, pct_ends

    assert pct_ends(0.0, 0.00038) == ("0.00%", "0.04%")  # not "0.0% - 0.0%"
    assert pct_ends(0.1, 0.2) == ("10.0%", "20.0%")
    assert pct_ends(0.25, 0.25) == ("25.0%", "25.0%")  # a fixed quantity stays as it is
    assert headline("draws", 0.0, 0.0, 0.00038)["95% interval"] == "0.00% - 0.04%"
