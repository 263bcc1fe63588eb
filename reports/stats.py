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
    p = k / n
    lo, hi = wilson_bounds(k, n, confidence)
    # clamp so that lo <= p <= hi despite rounding (k = 0 or k = n)
    return Estimate(p, min(p, lo), max(p, hi), n)


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
    among the family at most a. A missing p-value (NaN: the metric is not available) stays
    NaN and does not count in the family."""
    present = [i for i, p in enumerate(pvalues) if not math.isnan(p)]
    order = sorted(present, key=lambda i: pvalues[i])
    m = len(order)
    adjusted = [math.nan] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def wilson_bounds(k: float, n: float, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score bounds for k successes in n trials; k and n may be fractional (an
    effective sample size)."""
    z = z_value(confidence)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def bounded_mean(total: float, total_sq: float, n: int, lo: float = 0.0, hi: float = 1.0,
                 confidence: float = CONFIDENCE) -> Estimate:
    """Mean of n values known to lie in [lo, hi], from their sum and sum of squares.

    The interval is a Wilson interval at the effective sample size (the binomial sample
    that would have the same variance of the mean), so it never leaves [lo, hi]. When all
    n values are equal, the mean can still differ from them by the chance of a value not
    yet seen: the interval then reaches towards each end by the Wilson bound for 0 of n.
    """
    n = int(n)
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    span = hi - lo
    mean = total / n
    u = min(1.0, max(0.0, (mean - lo) / span))
    var_u = max(total_sq / n - mean * mean, 0.0) / (span * span) * (n / (n - 1) if n > 1
                                                                     else 0.0)
    if var_u <= 1e-15 * max(u * (1 - u), 1e-300) or u * (1 - u) == 0.0:
        reach = wilson_bounds(0, n, confidence)[1]
        return Estimate(mean, max(lo, mean - reach * (mean - lo)),
                        min(hi, mean + reach * (hi - mean)), n)
    n_eff = u * (1 - u) * n / var_u
    a, b = wilson_bounds(u * n_eff, n_eff, confidence)
    return Estimate(mean, min(mean, lo + a * span), max(mean, lo + b * span), n)


def paired_difference(sx: float, sxx: float, sb: float, sbb: float, sxb: float, n: int,
                      confidence: float = CONFIDENCE) -> Estimate:
    """Mean of x - b over n pairs of values in [0, 1] (e.g. per seed: a policy's share of
    games won and random players' share on the same seeds), from the sums of x, x^2, b,
    b^2 and x*b. Each mean gets its bounded_mean interval and the two are combined by the
    method of variance estimates recovery with their correlation (Zou and Donner 2008;
    Newcombe's paired method), so the interval stays in [-1, 1] and never has zero width."""
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    x = bounded_mean(sx, sxx, n, confidence=confidence)
    b = bounded_mean(sb, sbb, n, confidence=confidence)
    vx = max(sxx / n - x.value ** 2, 0.0)
    vb = max(sbb / n - b.value ** 2, 0.0)
    cov = sxb / n - x.value * b.value
    rho = cov / math.sqrt(vx * vb) if vx > 0 and vb > 0 else 0.0
    d = x.value - b.value
    down_x, up_b = x.value - x.lo, b.hi - b.value
    up_x, down_b = x.hi - x.value, b.value - b.lo
    lo = d - math.sqrt(max(down_x ** 2 + up_b ** 2 - 2 * rho * down_x * up_b, 0.0))
    hi = d + math.sqrt(max(up_x ** 2 + down_b ** 2 - 2 * rho * up_x * down_b, 0.0))
    return Estimate(d, max(-1.0, min(d, lo)), min(1.0, max(d, hi)), n)


def paired_difference_of(x: np.ndarray, b: np.ndarray,
                         confidence: float = CONFIDENCE) -> Estimate:
    """paired_difference of the pairs (x[i], b[i]), values in [0, 1]."""
    return paired_difference(float(x.sum()), float((x * x).sum()), float(b.sum()),
                             float((b * b).sum()), float((x * b).sum()), len(x), confidence)


def paired_difference_p(x: np.ndarray, b: np.ndarray) -> float:
    """Two-sided p-value of "mean of x - b is 0" that agrees with paired_difference_of's
    interval: the smallest alpha whose (1 - alpha) interval excludes 0 (so the 95% interval
    excludes 0 exactly when p < 0.05), found by bisection on log(alpha)."""
    d = float(np.mean(x) - np.mean(b)) if len(x) else 0.0
    if d == 0.0:
        return 1.0
    sums = (float(x.sum()), float((x * x).sum()), float(b.sum()), float((b * b).sum()),
            float((x * b).sum()), len(x))

    def excludes(alpha: float) -> bool:
        e = paired_difference(*sums, confidence=1.0 - alpha)
        return e.lo > 0.0 or e.hi < 0.0

    lo, hi = math.log(1e-15), math.log(1.0 - 1e-9)
    if excludes(math.exp(lo)):
        return math.exp(lo)
    if not excludes(math.exp(hi)):
        return 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if excludes(math.exp(mid)):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


def ratio_rate(y: float, x: float, yy: float, xx: float, xy: float, games: int,
               confidence: float = CONFIDENCE) -> Estimate:
    """A rate counted over several observations per game (rounds, turns, battles): the
    ratio of successes y to observations x summed over games, with the ratio estimator's
    cluster-robust variance from the per-game sums of squares yy = sum y_g^2, xx = sum
    x_g^2, xy = sum x_g y_g. The interval is a Wilson interval at the effective number of
    observations, so it stays in [0, 1]; n is the number of observations."""
    if x <= 0 or games <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    r = y / x
    if games < 2:
        lo, hi = wilson_bounds(y, x, confidence)
        return Estimate(r, min(r, lo), max(r, hi), int(x))
    xbar = x / games
    resid = max(yy - 2 * r * xy + r * r * xx, 0.0)  # sum over games of (y_g - r x_g)^2
    var_r = resid / (games * (games - 1)) / (xbar * xbar)
    if r in (0.0, 1.0) or var_r <= 0.0:
        lo, hi = wilson_bounds(y, x, confidence)
        return Estimate(r, min(r, lo), max(r, hi), int(x))
    n_eff = r * (1 - r) / var_r
    lo, hi = wilson_bounds(r * n_eff, n_eff, confidence)
    return Estimate(r, min(r, lo), max(r, hi), int(x))


def mover(a: Estimate, b: Estimate) -> Estimate:
    """a - b of two independent estimates, its interval combining theirs by the method of
    variance estimates recovery (Zou and Donner 2008; Newcombe's for two rates); n is
    both n's."""
    d = a.value - b.value
    lo = d - math.sqrt((a.value - a.lo) ** 2 + (b.hi - b.value) ** 2)
    hi = d + math.sqrt((a.hi - a.value) ** 2 + (b.value - b.lo) ** 2)
    return Estimate(d, lo, hi, int(a.n + b.n))


def normal_p(diff: float, se: float) -> float:
    """Two-sided p-value of a normal test of `diff` with standard error `se` (1 for a zero
    difference without spread, NaN for a non-zero one: no test is possible)."""
    if se > 0:
        return float(special.erfc(abs(diff) / se / math.sqrt(2)))
    return 1.0 if diff == 0 else math.nan


def interval_p(value: float, lo: float, hi: float, confidence: float = CONFIDENCE) -> float:
    """Two-sided p-value of 'value is 0' from the normal test its interval implies (NaN when
    the interval has no width)."""
    se = (hi - lo) / (2 * z_value(confidence))
    return normal_p(value, se) if se > 0 else math.nan


def newcombe(k1: float, n1: float, k2: float, n2: float,
             confidence: float = CONFIDENCE) -> Estimate:
    """Difference of two independent proportions k1/n1 - k2/n2 with Newcombe's hybrid
    score interval (method 10 of Newcombe 1998): inside [-1, 1], never zero width."""
    if n1 <= 0 or n2 <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    e = mover(Estimate(k1 / n1, *wilson_bounds(k1, n1, confidence), n1),
              Estimate(k2 / n2, *wilson_bounds(k2, n2, confidence), n2))
    return Estimate(e.value, max(-1.0, e.lo), min(1.0, e.hi), e.n)


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
