"""`simcli tune`: search numeric content or rule parameters for the setting that best meets
an objective, spending playouts only on promising settings.

A parameter is a path into the content file (`clan.size`, `battle.uma`,
`scoring.goals_to_win`, `board.start_cells[0]`: a list element by its `name` or by index)
or a rule option (`rule.target-honor`), with a range LOW..HIGH (integers, or floats
split into a grid) or a list a,b,c. The candidates are every combination (at most 64,
an even subset beyond that). Successive halving: every candidate plays the same seeds
(common random numbers), the better half by the objective goes on to twice the playouts,
until one is left or the budget is spent; the winner is then confirmed on fresh seeds
with its interval. Objectives: `balance` (the balance index, higher is better) or
`METRIC=TARGET` (a catalogue metric, closest to the target is best).
"""

from __future__ import annotations

import itertools
import math
import re
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import tomlkit

from reports import charts as C
from reports.html import STYLE, image_html, table_html
from reports.render import markdown_table
from reports.units import interval_text, value_text
from simcli import __version__, engine
from simcli.analysis import metrics_of
from simcli.errors import UserError
from simcli.games.base import Game
from simcli.registry import get_game
from simcli.runfolder import RunFolder, write_json

MAX_CANDIDATES = 64
FLOAT_GRID = 9
CONFIRM_SEED_OFFSET = 1_000_003  # the confirmation plays other seeds than the search
TOKEN = re.compile(r"([^.\[\]]+)|\[([^\]]+)\]")


@dataclass(frozen=True)
class Param:
    """One tuned parameter: a content path (tokens) or a rule option, and its values."""

    text: str
    rule: str | None
    tokens: tuple[str | int, ...]
    values: tuple[Any, ...]


MAX_VALUES = 10_000  # values one --param may try (a range is listed before it is played)


def _values(spec: str, what: str) -> tuple[Any, ...]:
    if ".." in spec:
        lo_s, hi_s = spec.split("..", 1)
        try:
            if re.fullmatch(r"-?\d+", lo_s.strip()) and re.fullmatch(r"-?\d+", hi_s.strip()):
                lo, hi = int(lo_s), int(hi_s)
                if hi - lo >= MAX_VALUES:
                    raise UserError(f"--param {what}: range '{spec}' holds {hi - lo + 1:,} "
                                    f"values; at most {MAX_VALUES:,} can be tried, narrow it")
                vals: tuple[Any, ...] = tuple(range(lo, hi + 1))
            else:
                lo_f, hi_f = float(lo_s), float(hi_s)
                if not (math.isfinite(lo_f) and math.isfinite(hi_f)):
                    raise ValueError
                vals = tuple(float(v) for v in np.linspace(lo_f, hi_f, FLOAT_GRID))
        except ValueError:
            raise UserError(f"--param {what}: range '{spec}' must be LOW..HIGH numbers") from None
        if not vals or vals[0] > vals[-1]:
            raise UserError(f"--param {what}: empty range '{spec}'")
        return vals
    vals = tuple(v.strip() for v in spec.split(",") if v.strip())
    if not vals:
        raise UserError(f"--param {what}: no values")
    return tuple(int(v) if re.fullmatch(r"-?\d+", v) else
                 float(v) if re.fullmatch(r"-?\d*\.\d+", v) else v for v in vals)


def parse_param(game: Game, text: str) -> Param:
    """A --param PATH=LOW..HIGH (or PATH=a,b,c) checked against the game."""
    path, sep, spec = text.partition("=")
    path = path.strip()
    if not sep or not path or not spec.strip():
        raise UserError(f"--param '{text}' must look like PATH=LOW..HIGH or PATH=a,b,c")
    if path.startswith("rule."):
        name = path[5:]
        option = {r.name: r for r in game.rules}.get(name)
        if option is None:
            raise UserError(f"--param: {game.name} has no rule option '{name}'")
        if ".." in spec:
            lo, hi = (float(x) for x in spec.split("..", 1))
            vals = tuple(c for c in option.choices
                         if re.fullmatch(r"-?\d+(\.\d+)?", c) and lo <= float(c) <= hi)
        else:
            vals = tuple(v.strip() for v in spec.split(","))
        bad = [v for v in vals if v not in option.choices]
        if not vals or bad:
            raise UserError(f"--param rule.{name} takes {'|'.join(option.choices)}")
        return Param(text, name, (), vals)
    tokens: list[str | int] = []
    for m in TOKEN.finditer(path):
        if m.group(1) is not None:
            tokens.append(m.group(1))
        else:
            sel = m.group(2).strip()
            tokens.append(int(sel) if re.fullmatch(r"\d+", sel) else sel)
    return Param(text, None, tuple(tokens), _values(spec.strip(), path))


def _locate(doc: Any, tokens: tuple[str | int, ...], where: str):
    """(container, key) of the value a path names, or a UserError."""
    node: Any = doc
    for i, tok in enumerate(tokens):
        last = i == len(tokens) - 1
        if isinstance(tok, int) or isinstance(node, list):
            if not isinstance(node, list):
                raise UserError(f"--param {where}: '{tok}' selects from a list, but "
                                f"{'.'.join(map(str, tokens[:i])) or 'the file'} is not one")
            if isinstance(tok, int):
                if not 0 <= tok < len(node):
                    raise UserError(f"--param {where}: index {tok} is out of range")
                key: Any = tok
            else:
                hits = [j for j, e in enumerate(node) if isinstance(e, dict) and
                        e.get("name") == tok]
                if len(hits) != 1:
                    raise UserError(f"--param {where}: no entry named '{tok}'")
                key = hits[0]
        else:
            if not isinstance(node, dict) or tok not in node:
                raise UserError(f"--param {where}: the content file has no '{tok}' here")
            key = tok
        if last:
            return node, key
        node = node[key]
    raise UserError(f"--param {where}: empty path")


def apply_setting(text: str, game: Game, params: list[Param], values: tuple) -> str:
    """The content file text with the content parameters set (comments kept)."""
    doc = tomlkit.parse(text)
    derived = game.content_derived
    for p, v in zip(params, values, strict=True):
        if p.rule is not None:
            continue
        parent, key = _locate(doc, p.tokens, p.text)
        old = parent[key]
        if isinstance(old, bool) or not isinstance(old, int | float):
            raise UserError(f"--param {p.text}: the value there is {old!r}, not a number")
        parent[key] = v
        for field, recompute in derived.items():  # e.g. a printed total of the entry
            if isinstance(parent, dict) and field in parent and field != key:
                parent[field] = recompute(parent)
    return tomlkit.dumps(doc)


def grid_at(parsed: list[Param], i: int) -> tuple:
    """Setting i of the product of the params' values (the last param varying fastest)."""
    out = []
    for p in reversed(parsed):
        i, j = divmod(i, len(p.values))
        out.append(p.values[j])
    return tuple(reversed(out))


def objective_of(spec: str) -> tuple[str, float | None]:
    """('balance', None) or (metric, target) from --objective."""
    if spec.strip() == "balance":
        return "balance", None
    metric, sep, target = spec.partition("=")
    try:
        value = float(target)
    except ValueError:
        value = math.nan
    if not sep or not metric.strip() or not math.isfinite(value):
        raise UserError(f"--objective '{spec}' must be 'balance' or METRIC=TARGET, e.g. "
                        f"win_rate.seat1=0.5")
    metric = metric.strip()
    if (metric.endswith("rate") or ".seat" in metric or metric == "completion") and not (
            0 <= value <= 1):
        raise UserError(f"--objective {metric}={target.strip()}: a rate is a fraction "
                        f"0 .. 1 (0.25 for 25%), so that target can never be reached")
    return metric, value


@dataclass
class Candidate:
    """A setting under test and its latest metrics."""

    values: tuple
    text: str
    rules: dict[str, str]
    metrics: pl.DataFrame | None = None
    score: float = math.nan
    playouts: int = 0


def _score(metrics: pl.DataFrame, metric: str, target: float | None) -> float:
    row = metrics.filter(pl.col("metric") == metric)
    if row.height == 0:
        raise UserError(f"--objective: no metric '{metric}' (the catalogue has: "
                        f"{', '.join(metrics['metric'])})")
    v = row["value"][0]
    if v is None or math.isnan(v):
        return -math.inf
    return v if target is None else -abs(v - target)


def _evaluate(game: Game, cand: Candidate, folder: Path, players: int, seats: tuple,
              n: int, seed: int, threads: int, progress: engine.Progress | None
              ) -> pl.DataFrame:
    path = folder / "candidate.toml"
    path.write_text(cand.text, encoding="utf-8")
    content = game.load_content(path)
    prep = game.prepare(content, players, seats, cand.rules)
    total = engine.play_all(game, prep, seed, n, threads, progress)
    return metrics_of(game, total, players)


def check_candidates(game: Game, parsed: list, cands: list[Candidate]) -> None:
    """Refuse (UserError naming the --param setting) a setting whose content the game would
    not load, before anything is played or written."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "candidate.toml"
        for c in cands:
            path.write_text(c.text, encoding="utf-8")
            try:
                game.load_content(path)
            except UserError as exc:
                why = str(exc).replace(str(path), "the content it makes")
                raise UserError(f"--param setting {_label(parsed, c.values)}: {why}") from None


@dataclass
class TuneResult:
    """A finished search."""

    folder: Path
    best: Candidate
    confirm: dict[str, Any]
    table: pl.DataFrame
    manifest: dict[str, Any]


def run_tune(game_name: str, params: list[str], objective: str, *, players: int | None,
             policy: str | None, rules: list[str], content: str | None, n: int | None,
             budget: int | None, seed: int, threads: int | None, out: Path | None,
             force: bool, progress: engine.Progress | None = None) -> TuneResult:
    """Successive halving over the parameter grid, then a confirmation run."""
    game = get_game(game_name)
    if not params:
        raise UserError("give at least one --param PATH=LOW..HIGH")
    parsed = [parse_param(game, p) for p in params]
    keys = [(p.rule, p.tokens) for p in parsed]
    twice = next((p for i, p in enumerate(parsed) if keys[i] in keys[:i]), None)
    if twice is not None:
        raise UserError(f"--param {twice.text.split('=', 1)[0].strip()} is given twice; give "
                        f"each parameter once, with all its values")
    metric, target = objective_of(objective)
    players = players or game.default_players
    game.check_players(players)
    seats = (game.policy_or_default(policy),) * players
    for s in seats:
        game.check_policy(s)
    base_rules = game.resolve_rules(rules)
    source = game.content_path(content)
    base_text = source.read_text(encoding="utf-8")
    threads = threads or engine.default_threads()
    n0 = n or 2_000
    budget = budget or 200 * n0
    if n0 <= 0 or budget <= 0:
        raise UserError("-n and --budget must be positive")
    total = math.prod(len(p.values) for p in parsed)
    if total <= MAX_CANDIDATES:
        grid = list(itertools.product(*(p.values for p in parsed)))
    else:  # evenly spaced settings of the product, listed without making all of it
        pick = sorted({round(i * (total - 1) / (MAX_CANDIDATES - 1))
                       for i in range(MAX_CANDIDATES)})
        grid = [grid_at(parsed, i) for i in pick]
    cands = []
    for values in grid:
        r = dict(base_rules)
        r.update({p.rule: str(v) for p, v in zip(parsed, values, strict=True) if p.rule})
        cands.append(Candidate(values, apply_setting(base_text, game, parsed, values), r))
    if len(cands) * n0 > budget:
        raise UserError(f"the first round alone needs {len(cands) * n0:,} playouts "
                        f"({len(cands)} settings x -n {n0:,}), more than --budget {budget:,}; "
                        f"raise --budget or lower -n")
    check_candidates(game, parsed, cands)
    folder = RunFolder(out, force, default=f"tune-{game.name}")
    try:
        folder.create()
        t0 = time.perf_counter()
        trace, spent, alive, size, rnd = [], 0, list(cands), n0, 0
        while True:
            for c in alive:
                c.metrics = _evaluate(game, c, folder.path, players, seats, size, seed,
                                      threads, progress)
                c.score, c.playouts = _score(c.metrics, metric, target), size
                spent += size
                row = c.metrics.filter(pl.col("metric") == metric).row(0, named=True)
                trace.append({"round": rnd, "setting": _label(parsed, c.values),
                              "playouts": size, "metric": row["value"],
                              "ci_low": row["ci_low"], "ci_high": row["ci_high"],
                              "score": c.score})
            alive.sort(key=lambda c: c.score, reverse=True)
            if len(alive) == 1 or spent + size * math.ceil(len(alive) / 2) * 2 > budget:
                break
            alive = alive[:max(1, math.ceil(len(alive) / 2))]
            size *= 2
            rnd += 1
        best = alive[0]
        confirm_n = max(size, n0 * 4)
        confirm_metrics = _evaluate(game, best, folder.path, players, seats, confirm_n,
                                    seed + CONFIRM_SEED_OFFSET, threads, progress)
        crow = confirm_metrics.filter(pl.col("metric") == metric).row(0, named=True)
        confirm = {"setting": _label(parsed, best.values), "playouts": confirm_n,
                   "seed": seed + CONFIRM_SEED_OFFSET, "metric": metric, "target": target,
                   "unit": crow["unit"], "value": crow["value"], "ci_low": crow["ci_low"],
                   "ci_high": crow["ci_high"]}
        (folder.path / "candidate.toml").unlink(missing_ok=True)
        (folder.path / "best.toml").write_text(best.text, encoding="utf-8")
        table = pl.DataFrame(trace)
        manifest = {
            "format": 1, "tool": "simcli", "kind": "tune", "tool_version": __version__,
            "game": game.name, "params": [p.text for p in parsed], "objective": objective,
            "players": players, "seats": list(seats), "rules": base_rules,
            "content": str(source), "candidates": len(cands), "first_round": n0,
            "budget": budget, "spent": spent, "seed": seed, "threads": threads,
            "best": confirm["setting"], "best_rules": best.rules, "confirm": confirm,
            "seconds": round(time.perf_counter() - t0, 2),
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        _write(folder.path, game, table, confirm, manifest)
        write_json(folder.path / "manifest.json", manifest)
        final = folder.commit()
    except BaseException:
        folder.abort()
        raise
    return TuneResult(final, best, confirm, table, manifest)


def _label(params: list[Param], values: tuple) -> str:
    return ", ".join(f"{p.text.split('=')[0]}={v}" for p, v in zip(params, values, strict=True))


def _write(folder: Path, game: Game, trace: pl.DataFrame, confirm: dict,
           manifest: dict) -> None:
    tdir = folder / "tables"
    tdir.mkdir()
    trace.write_csv(tdir / "trace.csv")
    trace.write_parquet(tdir / "trace.parquet")
    last = trace.filter(pl.col("round") == trace["round"].max()).sort("score",
                                                                       descending=True)
    last.write_csv(tdir / "finalists.csv")
    cdir = folder / "charts"
    cdir.mkdir()
    C.trace_chart(cdir / "trace.png", trace, title=f"{game.title}: tuning trace",
                  ylabel=confirm["metric"], target=confirm["target"], best=confirm["setting"])
    target = confirm["target"]
    goal = ("highest balance" if target is None else
            f"{confirm['metric']} closest to {target:g}")
    rule_args = "".join(f" --rule {k}={v}" for k, v in manifest["best_rules"].items())
    if not any(p.startswith("rule.") for p in manifest["params"]):
        rule_args = ""
    sentence = (f"Best setting ({goal}): {confirm['setting']}. Confirmed on "
                f"{confirm['playouts']:,} fresh playouts: {confirm_text(confirm)}. Content "
                f"with the setting applied: best.toml "
                f"(use --content best.toml{rule_args}).")
    md = [f"# Tune: {game.title}", "",
          f"Parameters: {', '.join(manifest['params'])}; objective {manifest['objective']}; "
          f"{manifest['candidates']} candidates; {manifest['spent']:,} playouts spent; seed "
          f"{manifest['seed']}; simcli {manifest['tool_version']}.", "", sentence, "",
          "## Finalists (last round)", "", markdown_table(last), "",
          "![trace](charts/trace.png)", "", "## Methods", "", METHODS]
    (folder / "report.md").write_text("\n".join(md), encoding="utf-8")
    page = [f"<!doctype html><html><head><meta charset='utf-8'><title>Tune: {game.title}"
            f"</title><style>{STYLE}</style></head><body><h1>Tune: {game.title}</h1>"
            f"<p>{sentence}</p><h2>Finalists</h2>", table_html(last),
            image_html(cdir / "trace.png", "Objective metric per candidate and round"),
            f"<h2>Methods</h2><p>{METHODS}</p></body></html>"]
    (folder / "report.html").write_text("\n".join(page), encoding="utf-8")


METHODS = (
    "Successive halving: every candidate setting played the same seeds (common random "
    "numbers, so differences between settings are not luck of the deal); after each round "
    "the better half by the objective went on with twice the playouts, until one was left "
    "or the budget was spent. The chosen setting was then played on fresh seeds; its "
    "interval is the metric's usual 95% interval from that confirmation run alone.")


def confirm_text(c: dict) -> str:
    """'metric = value (95% CI lo - hi)' of the confirming run, in the metric's unit."""
    unit = c.get("unit", "")
    return (f"{c['metric']} = {value_text(c['value'], unit)} (95% CI "
            f"{interval_text(c['ci_low'], c['ci_high'], unit)})")


@dataclass
class TuneReport:
    """A finished tune folder's search trace as simcli wrote it, its confirmation run and
    its manifest."""

    folder: Path
    confirm: dict[str, Any]
    table: pl.DataFrame
    manifest: dict[str, Any]


def rerender_tune(folder: Path) -> TuneReport:
    """Re-render a finished tune folder's tables, chart and reports from its trace table
    (checked against the SHA-256 simcli recorded when it wrote it) and the confirmation run
    its manifest records."""
    from simcli.runfolder import load_tables, need_fields, need_table, render_in_place

    name = "tables/trace.parquet"
    man, loaded = load_tables(folder, "tune", (name,))
    need_fields(man, folder, "tune", {
        "game": str, "params": list, "objective": str, "candidates": int, "spent": int,
        "seed": int, "tool_version": str, "best_rules": dict, "confirm": dict})
    confirm = man["confirm"]
    need_fields(confirm, folder, "tune", {
        "setting": str, "playouts": int, "metric": str,
        "target": (int, float, type(None)), "value": (int, float, type(None)),
        "ci_low": (int, float, type(None)), "ci_high": (int, float, type(None))}, "confirm")
    if not isinstance(confirm.get("unit", ""), str) or not all(
            isinstance(p, str) for p in man["params"]):  # no unit: an older simcli's
        raise UserError(f"{folder}: damaged tune folder: its params or the confirmation's "
                        f"unit are not text")
    trace = loaded[name]
    need_table(trace, folder / name, numbers=("round", "playouts", "metric", "ci_low",
                                              "ci_high", "score"),
               texts=("setting",), maybe_null=("metric", "ci_low", "ci_high"))
    game = get_game(man["game"])
    render_in_place(folder, lambda tmp: _write(tmp, game, trace, confirm, man))
    return TuneReport(folder, confirm, trace, man)
