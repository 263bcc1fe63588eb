"""Differences between metric catalogues: each with its 95% interval and a Holm-adjusted
p-value (two-sided normal test of independent estimates)."""

from __future__ import annotations

import math

import polars as pl
from scipy import special

from reports.stats import CONFIDENCE, holm, z_value

FLAG_LEVEL = 0.01


def _se(row: dict) -> float:
    """Standard error of a catalogue row: binomial for rates, else from the interval."""
    if row["unit"] == "rate" and row["n"]:
        p = row["value"]
        return math.sqrt(max(p * (1 - p), 0.0) / row["n"])
    return (row["ci_high"] - row["ci_low"]) / (2 * z_value(CONFIDENCE))


def differences(a: pl.DataFrame, b: pl.DataFrame, label_a: str = "a",
                label_b: str = "b") -> pl.DataFrame:
    """Per metric present in both catalogues: a - b, its interval, p-value, Holm-adjusted."""
    z = z_value(CONFIDENCE)
    right = {r["metric"]: r for r in b.iter_rows(named=True)}
    rows = []
    for ra in a.iter_rows(named=True):
        rb = right.get(ra["metric"])
        if rb is None:
            continue
        diff = ra["value"] - rb["value"]
        se = math.sqrt(_se(ra) ** 2 + _se(rb) ** 2)
        if se > 0 and not math.isnan(se):
            p = float(special.erfc(abs(diff) / se / math.sqrt(2)))
        else:
            p = 1.0 if diff == 0 or math.isnan(diff) else 0.0
        rows.append({"metric": ra["metric"], label_a: ra["value"], label_b: rb["value"],
                     "difference": diff, "ci_low": diff - z * se, "ci_high": diff + z * se,
                     "p_value": p})
    adjusted = holm([r["p_value"] for r in rows])
    for r, adj in zip(rows, adjusted, strict=True):
        r["p_adjusted"] = adj
        r["flag"] = "differs (99%)" if adj < FLAG_LEVEL else ""
    return pl.DataFrame(rows, schema={"metric": pl.Utf8, label_a: pl.Float64,
                                      label_b: pl.Float64, "difference": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "p_value": pl.Float64, "p_adjusted": pl.Float64,
                                      "flag": pl.Utf8})
