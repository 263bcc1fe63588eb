"""Writes a Summary to a run folder: tables (Parquet + CSV), charts (PNG), report.md."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from reports.summary import Summary


def markdown_table(df: pl.DataFrame, decimals: int = 4) -> str:
    """A polars table as a Markdown table (floats rounded)."""
    df = df.with_columns(pl.col(pl.Float64).round(decimals))
    with pl.Config(
        tbl_formatting="MARKDOWN", tbl_hide_column_data_types=True,
        tbl_hide_dataframe_shape=True, tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=80,
        tbl_width_chars=10_000, float_precision=decimals,
    ):
        return str(df)


def write_tables(summary: Summary, folder: Path) -> None:
    """summary.{parquet,csv} with every figure, and tables/<name>.{parquet,csv}."""
    summary.long.write_parquet(folder / "summary.parquet")
    summary.long.write_csv(folder / "summary.csv")
    tables = folder / "tables"
    tables.mkdir(exist_ok=True)
    for name, df in summary.tables.items():
        df.write_parquet(tables / f"{name}.parquet")
        df.write_csv(tables / f"{name}.csv")


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


def _facts(manifest: dict) -> list[str]:
    content = manifest["content"]
    rules = ", ".join(f"{k}={v}" for k, v in manifest["rules"].items()) or "none"
    assumed = " **(assumed content: reconstructed, not the printed game)**" if content[
        "assumed"] else ""
    timing = manifest.get("timing", {})
    return [
        f"- Game: {manifest['game_title']} ({manifest['game']}), {manifest['players']} players",
        f"- Seats: {', '.join(manifest['seats'])}",
        f"- Playouts: {manifest['playouts']:,} (seed {manifest['seed']})",
        f"- Rules: {rules}",
        f"- Content: {content['name']} v{content['version']}, sha256 "
        f"{content['sha256'][:12]}{assumed}",
        f"- simcli {manifest['tool_version']}; compile {timing.get('compile_s', 0):.2f} s, "
        f"run {timing.get('run_s', 0):.2f} s, {timing.get('playouts_per_s', 0):,.0f} "
        f"playouts/s on {manifest['threads']} threads",
    ]


def write_report(summary: Summary, manifest: dict, folder: Path,
                 charts: list[tuple[str, str]]) -> None:
    """report.md: run facts, findings, charts and every table."""
    lines = [f"# {summary.title}", "", *_facts(manifest), "", "## Findings", ""]
    lines += [f"- {f}" for f in summary.findings]
    lines += ["", "Every rate carries its 95% Wilson interval (`ci_low`, `ci_high`) and the "
              "number of observations (`n`); flags mark differences significant at the 99% "
              "level.", "", "## Charts", ""]
    for rel, caption in charts:
        lines += [f"![{caption}]({rel})", "", f"*{caption}*", ""]
    for heading, table, note in summary.sections:
        lines += [f"## {heading}", "", note, "", markdown_table(summary.tables[table]), ""]
    (folder / "report.md").write_text("\n".join(lines), encoding="utf-8")


def write_all(summary: Summary, manifest: dict, folder: Path) -> None:
    """Every output of a run's report into `folder`."""
    write_tables(summary, folder)
    charts = write_charts(summary, folder)
    write_report(summary, manifest, folder, charts)
