"""Differences between metric catalogues, one function for `simcli compare` and `simcli
sweep`: each difference with its 95% interval and a p-value, Holm-adjusted across the
metrics that can be tested. Rates use Newcombe's hybrid score interval and the pooled
two-proportion test; other metrics a normal interval from each side's interval. A metric
missing or undefined on either side is shown as not available, never flagged."""

from __future__ import annotations

import math

import polars as pl

from reports.stats import CONFIDENCE, Estimate, holm, newcombe, normal_p, z_value
from reports.units import difference_interval_text, difference_text, p_text, value_text

FLAG_LEVEL = 0.01
NOT_AVAILABLE = "not available"


def difference(ra: dict, rb: dict, confidence: float = CONFIDENCE) -> tuple[Estimate, float]:
    """a - b of two catalogue rows (value, ci_low, ci_high, n, unit): the difference with
    its interval, and the two-sided p-value (NaN when it cannot be tested)."""
    values = (ra["value"], rb["value"], ra["ci_low"], ra["ci_high"], rb["ci_low"],
              rb["ci_high"])
    if any(v is None or math.isnan(v) for v in values) or not ra["n"] or not rb["n"]:
        return Estimate(math.nan, math.nan, math.nan, 0), math.nan
    diff = ra["value"] - rb["value"]
    if ra.get("unit") == "rate":
        n1, n2 = ra["n"], rb["n"]
        k1, k2 = ra["value"] * n1, rb["value"] * n2
        est = newcombe(k1, n1, k2, n2, confidence)
        pooled = (k1 + k2) / (n1 + n2)
        se = math.sqrt(max(pooled * (1 - pooled), 0.0) * (1 / n1 + 1 / n2))
        return est, normal_p(diff, se)
    z = z_value(confidence)
    se = math.sqrt(((ra["ci_high"] - ra["ci_low"]) / (2 * z)) ** 2
                   + ((rb["ci_high"] - rb["ci_low"]) / (2 * z)) ** 2)
    return Estimate(diff, diff - z * se, diff + z * se, ra["n"] + rb["n"]), normal_p(diff, se)


def flag(rows: list[dict], words: str) -> None:
    """Add p_adjusted (Holm across the testable rows) and a flag to each row in place."""
    adjusted = holm([r["p_value"] for r in rows])
    for r, adj in zip(rows, adjusted, strict=True):
        r["p_adjusted"] = adj
        r["flag"] = (NOT_AVAILABLE if math.isnan(r["p_value"]) else
                     words if adj < FLAG_LEVEL else "")


def differences(a: pl.DataFrame, b: pl.DataFrame, label_a: str = "a",
                label_b: str = "b") -> pl.DataFrame:
    """Per metric present in both catalogues: a - b, its interval, p-value, Holm-adjusted."""
    right = {r["metric"]: r for r in b.iter_rows(named=True)}
    rows = []
    for ra in a.iter_rows(named=True):
        rb = right.get(ra["metric"])
        if rb is None:
            continue
        est, p = difference(ra, rb)
        rows.append({"metric": ra["metric"], "unit": ra.get("unit") or "",
                     label_a: ra["value"], label_b: rb["value"],
                     "difference": est.value, "ci_low": est.lo, "ci_high": est.hi,
                     "p_value": p})
    flag(rows, "differs (99%)")
    return pl.DataFrame(rows, schema={"metric": pl.Utf8, "unit": pl.Utf8, label_a: pl.Float64,
                                      label_b: pl.Float64, "difference": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "p_value": pl.Float64, "p_adjusted": pl.Float64,
                                      "flag": pl.Utf8})


def display_rows(diff: pl.DataFrame, label_a: str = "a", label_b: str = "b") -> list[tuple]:
    """differences() as text cells in each metric's unit (reports.units): metric, a, b,
    a - b, its 95% interval, adjusted p, flag."""
    return [(r["metric"], value_text(r[label_a], r["unit"]), value_text(r[label_b], r["unit"]),
             difference_text(r["difference"], r["unit"]),
             difference_interval_text(r["ci_low"], r["ci_high"], r["unit"]),
             p_text(r["p_adjusted"]), r["flag"]) for r in diff.iter_rows(named=True)]
