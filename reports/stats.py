"""Intervals and tests for the figures a report prints.

Normal quantiles come from the standard library, binomial tails from scipy.special
(scipy.stats alone would add most of a second to every command's start).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Any

import numpy as np
from scipy import special

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Estimate:
    """A figure with its interval and the number of observations behind it."""

    value: float
    lo: float
    hi: float
    n: int


@lru_cache(maxsize=16)
def z_value(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def rate(k: int, n: int, confidence: float = CONFIDENCE) -> Estimate:
    """Proportion k/n with its Wilson score interval.

    The closed form of Wilson (1927), as scipy's binomtest(...).proportion_ci(method=
    "wilson") computes it (the tests check they agree), without scipy's per-call cost:
    a report computes hundreds of these.
    """
    k, n = int(k), int(n)
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    z = z_value(confidence)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # clamp so that lo <= p <= hi despite rounding (k = 0 or k = n)
    return Estimate(p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)), n)


def binomial_p(k: int, n: int, p0: float) -> float:
    """Two-sided exact binomial test of k successes in n against rate p0 (twice the
    smaller tail, capped at 1)."""
    k, n = int(k), int(n)
    if n <= 0:
        return math.nan
    lower = float(special.bdtr(k, n, p0))  # P(X <= k)
    upper = float(special.bdtrc(k - 1, n, p0)) if k > 0 else 1.0  # P(X >= k)
    return min(1.0, 2.0 * min(lower, upper))


def holm(pvalues: list[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values: flags at level a keep the chance of any false flag
    among the family at most a."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    m = len(pvalues)
    adjusted = [math.nan] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def mean_from_moments(total: float, total_sq: float, n: int,
                      confidence: float = CONFIDENCE) -> Estimate:
    """Mean with a normal-theory interval from the sum and sum of squares of n values."""
    n = int(n)
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * (n / (n - 1) if n > 1 else 0.0)
    half = z_value(confidence) * math.sqrt(var / n)
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

    def columns(self, mean: str = "mean", count: str = "games") -> dict[str, Any]:
        """Table columns: the mean (named `mean`) with its interval, sd, quantiles, min, max
        and the number of values (named `count`)."""
        return {mean: self.mean.value, "ci_low": self.mean.lo, "ci_high": self.mean.hi,
                "sd": self.sd, **self.quantiles, "min": self.min, "max": self.max,
                count: self.n}


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
