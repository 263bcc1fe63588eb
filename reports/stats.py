"""Intervals and tests for the figures a report prints (scipy does the statistics)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Estimate:
    """A figure with its interval and the number of observations behind it."""

    value: float
    lo: float
    hi: float
    n: int


def rate(k: int, n: int, confidence: float = CONFIDENCE) -> Estimate:
    """Proportion k/n with its Wilson score interval."""
    k, n = int(k), int(n)
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    return Estimate(k / n, float(ci.low), float(ci.high), n)


def binomial_p(k: int, n: int, p0: float) -> float:
    """Two-sided exact binomial test p-value of k successes in n against rate p0."""
    if n <= 0:
        return math.nan
    return float(stats.binomtest(int(k), int(n), p0).pvalue)


def mean_from_moments(total: float, total_sq: float, n: int,
                      confidence: float = CONFIDENCE) -> Estimate:
    """Mean with a normal-theory interval from the sum and sum of squares of n values."""
    n = int(n)
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * (n / (n - 1) if n > 1 else 0.0)
    half = stats.norm.ppf(0.5 + confidence / 2) * math.sqrt(var / n)
    return Estimate(mean, mean - half, mean + half, n)


@dataclass(frozen=True)
class Distribution:
    """Summary of a histogram of integer values 0..len-1 (the last bin holds larger values)."""

    n: int
    mean: Estimate
    sd: float
    quantiles: dict[str, float]
    min: int
    max: int


def distribution(hist: np.ndarray, confidence: float = CONFIDENCE) -> Distribution:
    """Mean (with interval), sd, quantiles, min and max of a histogram."""
    hist = np.asarray(hist, dtype=np.float64)
    n = int(hist.sum())
    values = np.arange(len(hist), dtype=np.float64)
    total = float((hist * values).sum())
    total_sq = float((hist * values * values).sum())
    mean = mean_from_moments(total, total_sq, n, confidence)
    sd = math.sqrt(max(total_sq / n - (total / n) ** 2, 0.0) * n / (n - 1)) if n > 1 else 0.0
    quantiles = {}
    nonzero = np.nonzero(hist)[0]
    if n:
        cdf = np.cumsum(hist) / n
        for q in (0.05, 0.25, 0.5, 0.75, 0.95):
            quantiles[f"p{int(q * 100)}"] = float(np.searchsorted(cdf, q - 1e-12))
    return Distribution(
        n=n, mean=mean, sd=sd, quantiles=quantiles,
        min=int(nonzero[0]) if n else 0, max=int(nonzero[-1]) if n else 0,
    )
