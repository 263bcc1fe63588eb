"""The shape every game's report takes: named tables, one long table of every figure,
plain-language findings and the charts to draw."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from reports.stats import Estimate

LONG_SCHEMA = {
    "section": pl.Utf8, "metric": pl.Utf8, "key": pl.Utf8, "value": pl.Float64,
    "ci_low": pl.Float64, "ci_high": pl.Float64, "n": pl.Int64, "flag": pl.Utf8,
}


@dataclass
class LongTable:
    """Collects every figure of a report as one row: value, 95% interval, n, flag."""

    rows: list[dict] = field(default_factory=list)

    def add(self, section: str, metric: str, key: str, est: Estimate, flag: str = "") -> None:
        """One figure."""
        self.rows.append({
            "section": section, "metric": metric, "key": key, "value": est.value,
            "ci_low": est.lo, "ci_high": est.hi, "n": est.n, "flag": flag,
        })

    def frame(self) -> pl.DataFrame:
        """All figures as a polars table."""
        return pl.DataFrame(self.rows, schema=LONG_SCHEMA)


@dataclass
class Chart:
    """A chart file name, its caption, and the function that draws it to a path."""

    name: str
    caption: str
    draw: Callable[[Path], None]


@dataclass
class Summary:
    """A finished run's report content, independent of where it is written."""

    title: str
    headline: pl.DataFrame  # the terminal summary table
    tables: dict[str, pl.DataFrame]
    long: pl.DataFrame
    findings: list[str]
    charts: list[Chart]
    sections: list[tuple[str, str, str]]  # (heading, table name, one-line explanation)
    json: dict
