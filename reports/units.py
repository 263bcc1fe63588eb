"""One way to print a figure everywhere a person reads it (terminal tables, reports,
findings): rates and their intervals in percent with one decimal (more where the ends
would round equal), differences of rates in points, p-values as '< 0.0001' or three
significant figures, everything else in its own unit. JSON and CSV keep fractions.

A metric's unit comes from its catalogue row: 'rate' (counted k of n) and 'share' (a
fraction estimated otherwise) print as percentages; 'difference' (of two shares) in
points; 'index' (balance) with three decimals; other units (turns, rounds, points,
reshuffles) with two."""

from __future__ import annotations

import math

PERCENT_UNITS = ("rate", "share")


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def distinct_ends(lo: float, hi: float, fmt: str, digits: int = 1) -> tuple[str, str]:
    """An interval's ends written with `fmt` ('{:.{d}f}', '{:+.{d}f}', ...) at `digits`
    decimals, more (up to 3) where they would print equal: '23.7-23.7' reads
    23.66-23.74."""
    for d in range(digits, max(digits, 3) + 1):
        a, b = fmt.format(lo, d=d), fmt.format(hi, d=d)
        if a != b or lo == hi:
            break
    return a, b


def percent_ends(lo: float, hi: float) -> tuple[str, str]:
    """An interval's ends as percentages with as many decimals (1 to 3) as it takes to
    tell them apart."""
    if _missing(lo) or _missing(hi):
        return ("n/a", "n/a")
    return distinct_ends(100 * lo, 100 * hi, "{:.{d}f}%")


def value_text(x: float | None, unit: str) -> str:
    """A metric's value in its unit ('25.3%', '0.972', '23.81')."""
    if _missing(x):
        return "n/a"
    if unit in PERCENT_UNITS:
        return f"{100 * x:.1f}%"
    if unit == "difference":
        return points_text(x)
    return f"{x:.3f}" if unit == "index" else f"{x:.2f}"


def interval_text(lo: float | None, hi: float | None, unit: str) -> str:
    """A metric's interval in its unit ('24.1% - 26.5%')."""
    if _missing(lo) or _missing(hi):
        return "n/a"
    if unit in PERCENT_UNITS:
        a, b = percent_ends(lo, hi)
        return f"{a} - {b}"
    if unit == "difference":
        return difference_interval_text(lo, hi, unit="rate")
    digits = 3 if unit == "index" else 2
    return f"{lo:.{digits}f} - {hi:.{digits}f}"


def points_text(d: float | None) -> str:
    """A difference of two shares in percentage points ('+5.4 pts')."""
    return "n/a" if _missing(d) else f"{100 * d:+.1f} pts"


def difference_text(d: float | None, unit: str) -> str:
    """A difference of two values of a metric: points for shares, the unit otherwise."""
    if _missing(d):
        return "n/a"
    if unit in PERCENT_UNITS or unit == "difference":
        return points_text(d)
    return f"{d:+.3f}" if unit == "index" else f"{d:+.2f}"


def difference_interval_text(lo: float | None, hi: float | None, unit: str) -> str:
    """A difference's interval ('+1.2 to +3.4 pts', '-0.50 to +0.21')."""
    if _missing(lo) or _missing(hi):
        return "n/a"
    if unit in PERCENT_UNITS or unit == "difference":
        a, b = distinct_ends(100 * lo, 100 * hi, "{:+.{d}f}")
        return f"{a} to {b} pts"
    digits = 3 if unit == "index" else 2
    return f"{lo:+.{digits}f} to {hi:+.{digits}f}"


def p_text(p: float | None) -> str:
    """A p-value: '< 0.0001', or three significant figures ('0.0123', '0.500')."""
    if _missing(p):
        return "n/a"
    if p < 1e-4:
        return "< 0.0001"
    return f"{p:#.3g}"


def number_ends(lo: float, hi: float, digits: int = 1) -> tuple[str, str]:
    """An interval's ends as numbers with `digits` decimals, more (up to 3) where they
    would print equal: '23.7-23.7' reads 23.66-23.74."""
    return distinct_ends(lo, hi, "{:.{d}f}", digits)
