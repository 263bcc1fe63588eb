"""One self-contained HTML file per report: charts embedded, tables, and a methods section."""

from __future__ import annotations

import base64
import html
import math
from pathlib import Path

import polars as pl

from reports.summary import Summary
from simcli.textsafe import inert

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;font-size:.85em;margin:.6em 0;display:block;overflow-x:auto}
th,td{border:1px solid #ddd;padding:.25em .5em;text-align:right;white-space:nowrap}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
figure{margin:1em 0}figcaption{font-size:.85em;color:#555}
.note{color:#555;font-size:.9em}.flag{color:#b00;font-weight:600}
"""


def _esc(text: object) -> str:
    """User text as inert HTML: escaped, control characters (terminal escapes) shown as
    U+FFFD."""
    return html.escape(inert(text))


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        if math.isnan(v):
            return "n/a"
        return f"{v:.4f}" if abs(v) < 1000 else f"{v:,.1f}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    text = _esc(str(v))
    return f'<span class="flag">{text}</span>' if text.startswith("differs") else text


def table_html(df: pl.DataFrame) -> str:
    """A polars table as an HTML table."""
    head = "".join(f"<th>{_esc(c)}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>"
                   for row in df.iter_rows())
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def image_html(path: Path, caption: str) -> str:
    """A PNG embedded as a data URI, with its caption."""
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure><img alt="{_esc(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{_esc(caption)}</figcaption></figure>")


def methods_html(manifest: dict) -> str:
    """How the numbers were made: policies, n, seeds, intervals, stopping rule, content."""
    c = manifest["content"]
    stop = manifest.get("stopping")
    if stop:
        rule = (f"played in rounds until the largest 95% half-width of the seat win rates "
                f"was at most {stop['target_ci']} or {stop['max_playouts']:,} playouts were "
                f"reached; stopped after rounds {stop['rounds']} at {stop['playouts']:,} "
                f"playouts ({'target reached' if stop['reached'] else 'target NOT reached'})")
    else:
        rule = f"a fixed number of playouts ({manifest['playouts']:,})"
    mirror = (" Every deal was played once per seat rotation (mirrored); the mirrored-seat "
              "table gives paired estimates." if manifest.get("mirror") else "")
    policies = manifest.get("policies", {})
    items = "".join(f"<li><b>{_esc(k)}</b>: {_esc(v)}</li>"
                    for k, v in policies.items())
    rules = ", ".join(f"{k}={v}" for k, v in manifest["rules"].items()) or "none"
    versions = ", ".join(f"{k} {v}" for k, v in manifest.get("versions", {}).items())
    assumed = " (<b>assumed</b>: reconstructed, not the printed game)" if c["assumed"] else ""
    return f"""
<h2>Methods</h2>
<ul>
<li>Seats (policies in seat order): {_esc(", ".join(manifest["seats"]))}.
Policies used:<ul>{items}</ul></li>
<li>Playouts: {rule}.{mirror} Seed {manifest["seed"]}: every playout draws from its own
random streams, Philox4x32-10 counters (draw, lane, playout index) under the seed as key, so
no two streams share a draw and the same seed gives the same numbers on any number of
threads or machines.</li>
<li>Rule options: {_esc(rules)}.</li>
<li>Intervals (95%, inside each figure's range, checked by coverage tests): rates carry
Wilson score intervals; rates counted several times per game (per round, turn or battle) a
ratio estimator with cluster-robust variance by game; mirrored seat rates a paired interval
at the effective sample size; the balance index reaches 1 when a chi-square test of equal
seat shares does not reject, else a Bonferroni bound over the near-tied seat pairs; means a
normal interval from their standard error (a Wilson interval at the effective sample size
for bounded means); quantiles are mid-quantiles with the inverted normal interval of the
mid-distribution function. A seat's
fair share is the equal share of outright wins; seat and declarer flags use exact two-sided
binomial tests, Holm-adjusted, at the 99% level.</li>
<li>Content: {_esc(c["name"])} v{_esc(str(c["version"]))}, sha256
<code>{_esc(str(c["sha256"]))}</code>{assumed}.</li>
<li>Tool: simcli {_esc(str(manifest["tool_version"]))} ({_esc(versions)}).</li>
</ul>"""


def facts_html(manifest: dict) -> str:
    """The run's facts, first on the page: game, players, seats, seed, playouts, content
    (and its 'assumed' warning), rule options."""
    c = manifest["content"]
    rules = ", ".join(f"{k}={v}" for k, v in manifest["rules"].items()) or "none"
    warn = (" <b>Assumed content</b>: reconstructed, not the printed game; card-level "
            "findings depend on it." if c["assumed"] else "")
    return (f"<p class='note'>{_esc(manifest.get('game_title', manifest['game']))}, "
            f"{manifest['players']} players, seats {_esc(', '.join(manifest['seats']))}; "
            f"{manifest['playouts']:,} playouts, seed {manifest['seed']}; content "
            f"{_esc(c['name'])} v{_esc(str(c['version']))}.{warn} Rule options: "
            f"{_esc(rules)}.</p>")


def write_html(summary: Summary, manifest: dict, folder: Path) -> Path:
    """report.html in `folder`, embedding the charts already drawn in folder/charts."""
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>"
             f"{_esc(summary.title)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{_esc(summary.title)}</h1>", facts_html(manifest),
             "<h2>Findings</h2><ul>"]
    parts += [f"<li>{_esc(f)}</li>" for f in summary.findings]
    parts.append("</ul><p class='note'>Every rate carries its 95% interval and the number of "
                 "observations behind it.</p><h2>Charts</h2>")
    for chart in summary.charts:
        path = folder / "charts" / f"{chart.name}.png"
        if path.exists():
            parts.append(image_html(path, chart.caption))
    for heading, name, note in summary.sections:
        parts += [f"<h2>{_esc(heading)}</h2>", f"<p class='note'>{_esc(note)}</p>",
                  table_html(summary.tables[name])]
    parts += [methods_html(manifest), "</body></html>"]
    out = folder / "report.html"
    out.write_text("\n".join(parts), encoding="utf-8")
    return out
