"""Writes a Summary to a run folder: tables (Parquet + CSV), charts (PNG), report.md."""

from __future__ import annotations

import math
import re
from pathlib import Path

import polars as pl

from reports.summary import Summary
from reports.words import plural  # noqa: F401  (re-exported)
from simcli.textsafe import inert

MD_ESCAPES = {"\\": "\\\\", "|": "\\|", "[": "\\[", "]": "\\]", "<": "&lt;", ">": "&gt;",
              "\r": " ", "\n": " "}
CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


AUTOLINK = re.compile(r"(?i)\b(https?|ftp|www|mailto)([:.@])")


def md_text(text: object) -> str:
    """A user string (a content, card or assertion name...) as inert Markdown text: no HTML
    (`<script>`), no table cell breaks (`|`), no links (a bare URL gets a zero-width space
    that GitHub's autolinking does not cross), no control characters, on one line."""
    text = AUTOLINK.sub("\\1\u200b\\2", inert(text))
    return "".join(MD_ESCAPES.get(ch, ch) for ch in text)


def _md_cell(v: object, decimals: int) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        return f"{v:.{decimals}f}"
    return md_text(v)


def markdown_table(df: pl.DataFrame, decimals: int = 4) -> str:
    """A polars table as a Markdown table: floats with `decimals` decimals, every text cell
    escaped (md_text), so a user string cannot add columns, rows or HTML."""
    lines = ["| " + " | ".join(md_text(c) for c in df.columns) + " |",
             "|" + "|".join("---" for _ in df.columns) + "|"]
    for row in df.iter_rows():
        lines.append("| " + " | ".join(_md_cell(v, decimals) for v in row) + " |")
    return "\n".join(lines)


def markdown_rows(columns: tuple[str, ...], rows: list[tuple]) -> str:
    """Rows of text cells under `columns` as a Markdown table, every cell escaped."""
    lines = ["| " + " | ".join(md_text(c) for c in columns) + " |",
             "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(md_text(str(c)) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def csv_safe(df: pl.DataFrame) -> pl.DataFrame:
    """Text cells that a spreadsheet would run as a formula (starting with = + - @, a tab or
    a carriage return) made inert with a leading apostrophe; numbers are left alone."""
    text = [c for c, t in df.schema.items() if t == pl.Utf8]
    if not text:
        return df
    return df.with_columns([
        pl.when(pl.col(c).str.starts_with(CSV_FORMULA_START[0])
                | pl.any_horizontal([pl.col(c).str.starts_with(x)
                                     for x in CSV_FORMULA_START[1:]]))
        .then(pl.lit("'") + pl.col(c)).otherwise(pl.col(c)).alias(c)
        for c in text])


def write_csv(df: pl.DataFrame, path: Path) -> None:
    """A table as CSV for spreadsheets (csv_safe); the Parquet twin keeps exact strings."""
    csv_safe(df).write_csv(path)


def write_tables(summary: Summary, folder: Path) -> None:
    """summary.{parquet,csv} with every figure, and tables/<name>.{parquet,csv}."""
    summary.long.write_parquet(folder / "summary.parquet")
    write_csv(summary.long, folder / "summary.csv")
    tables = folder / "tables"
    tables.mkdir(exist_ok=True)
    for name, df in summary.tables.items():
        df.write_parquet(tables / f"{name}.parquet")
        write_csv(df, tables / f"{name}.csv")


def write_charts(summary: Summary, folder: Path) -> list[tuple[str, str]]:
    """Draw every chart to charts/<name>.png; returns (relative path, caption) pairs."""
    charts = folder / "charts"
    charts.mkdir(exist_ok=True)
    out = []
    for chart in summary.charts:
        path = charts / f"{chart.name}.png"
        chart.draw(path)
        out.append((f"charts/{chart.name}.png", chart.caption))
    return out


def _num(value: object, fmt: str) -> str:
    return format(value, fmt) if isinstance(value, int | float) else "?"


def _facts(manifest: dict) -> list[str]:
    content = manifest["content"]
    rules = ", ".join(f"{k}={v}" for k, v in manifest["rules"].items()) or "none"
    assumed = " **(assumed content: reconstructed, not the printed game)**" if content[
        "assumed"] else ""
    timing = manifest.get("timing", {})
    return [
        f"- Game: {md_text(manifest['game_title'])} ({manifest['game']}), "
        f"{manifest['players']} players",
        f"- Seats: {md_text(', '.join(manifest['seats']))}",
        f"- Playouts: {manifest['playouts']:,} (seed {manifest['seed']})",
        f"- Rules: {md_text(rules)}",
        f"- Content: {md_text(content['name'])} v{md_text(content['version'])}, sha256 "
        f"{content['sha256'][:12]}{assumed}",
        f"- simcli {md_text(manifest['tool_version'])}; compile "
        f"{_num(timing.get('compile_s', 0), '.2f')} s, run {_num(timing.get('run_s', 0), '.2f')}"
        f" s, {_num(timing.get('playouts_per_s', 0), ',.0f')} playouts/s on "
        f"{manifest['threads']} threads",
    ]


def write_report(summary: Summary, manifest: dict, folder: Path,
                 charts: list[tuple[str, str]]) -> None:
    """report.md: run facts, findings, charts and every table (user strings escaped)."""
    lines = [f"# {md_text(summary.title)}", "", *_facts(manifest), "", "## Findings", ""]
    lines += [f"- {md_text(f)}" for f in summary.findings]
    lines += ["", "Every rate carries its 95% Wilson interval (`ci_low`, `ci_high`) and the "
              "number of observations (`n`); flags mark differences significant at the 99% "
              "level.", "", "## Charts", ""]
    for rel, caption in charts:
        lines += [f"![{md_text(caption)}]({rel})", "", f"*{md_text(caption)}*", ""]
    for heading, table, note in summary.sections:
        lines += [f"## {md_text(heading)}", "", md_text(note), "",
                  markdown_table(summary.tables[table]), ""]
    (folder / "report.md").write_text("\n".join(lines), encoding="utf-8")


def write_all(summary: Summary, manifest: dict, folder: Path) -> None:
    """Every output of a run's report into `folder`."""
    write_tables(summary, folder)
    charts = write_charts(summary, folder)
    write_report(summary, manifest, folder, charts)
