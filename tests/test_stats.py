"""Report statistics: intervals, tests and histogram summaries."""

import math

import numpy as np
import pytest

from reports.stats import binomial_p, distribution, mean_from_moments, rate


def test_wilson_interval_known_value():
    e = rate(50, 100)
    assert e.value == 0.5 and e.n == 100
    assert e.lo == pytest.approx(0.4038, abs=1e-4) and e.hi == pytest.approx(0.5962, abs=1e-4)
    assert math.isnan(rate(0, 0).value)


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
