"""`simcli sweep`: a grid over players, policies, seats, rule options and content files;
every metric of every cell in one table, differences from the first cell Holm-flagged."""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from reports import charts as C
from reports.compare import difference, flag
from reports.render import markdown_rows, md_text, write_csv
from reports.units import (
    difference_interval_text,
    difference_text,
    interval_text,
    p_text,
    value_text,
)
from reports.words import did_you_mean
from simcli import __version__, engine
from simcli.analysis import metrics_of
from simcli.errors import UserError
from simcli.games.base import Game
from simcli.registry import get_game
from simcli.run import build_config, play
from simcli.runfolder import RunFolder, write_json

HEADLINE = ("balance", "shared_rate", "duration.mean")
TITLES = {"balance": "Balance index", "shared_rate": "Games drawn or shared",
          "duration.mean": "Mean game length"}
SEAT_RATE, SEAT_EDGE = "win_rate.seat", "edge.seat"
NOT_COMPARABLE = "other fair share: see edge.seat"


def headline(table: pl.DataFrame) -> pl.DataFrame:
    """The rows a sweep shows first: every seat's win rate and edge over its fair share,
    then balance, shared rate and mean length."""
    seat = pl.col("metric").str.starts_with(SEAT_RATE) | pl.col("metric").str.starts_with(
        SEAT_EDGE)
    return table.filter(seat | pl.col("metric").is_in(list(HEADLINE)))


@dataclass(frozen=True)
class Axis:
    """One varied parameter: players, policy, seats, content or rule.NAME."""

    name: str
    values: tuple[str, ...]


def parse_axes(game: Game, specs: list[str]) -> list[Axis]:
    """Axes from `name=v1,v2,...` strings, each value checked against the game."""
    axes = []
    rules = {r.name: r for r in game.rules}
    for spec in specs:
        name, sep, raw = spec.partition("=")
        name = name.strip()
        values = tuple(v.strip() for v in raw.split(",") if v.strip())
        if not sep or not values:
            raise UserError(f"--vary '{spec}' must look like name=value1,value2")
        if name in (a.name for a in axes):
            raise UserError(f"--vary names '{name}' twice")
        twice = next((v for i, v in enumerate(values) if v in values[:i]), None)
        if twice is not None:
            raise UserError(f"--vary {name} lists '{twice}' twice")
        if name == "players":
            for v in values:
                if not v.isdigit():
                    raise UserError(f"--vary players takes whole numbers, not '{v}'")
                game.check_players(int(v))
        elif name == "policy":
            for v in values:
                game.check_policy(v)
        elif name == "seats":
            for v in values:
                for p in v.split("/"):
                    game.check_policy(p)
        elif name == "content":
            for v in values:
                game.content_path(v)
        elif name.startswith("rule."):
            rule = rules.get(name[5:])
            if rule is None:
                known = ", ".join(rules) or "none"
                raise UserError(f"unknown rule option '{name[5:]}' for {game.name}"
                                f"{did_you_mean(name[5:], rules)}; known: {known}")
            for v in values:
                if v not in rule.choices:
                    raise UserError(f"rule option {rule.name} takes {'|'.join(rule.choices)}, "
                                    f"not '{v}'")
        else:
            raise UserError(f"--vary '{name}': choose players, policy, seats (a/b/c), "
                            f"content or rule.NAME")
        axes.append(Axis(name, values))
    if not axes:
        raise UserError("give at least one --vary name=value1,value2")
    if {"seats", "policy"} <= {a.name for a in axes}:
        raise UserError("--vary seats and --vary policy cannot be combined")
    return axes


def refuse_fixed_and_varied(varied: set[str], *, players: int | None, policy: str | None,
                            content: str | None, rules: dict[str, str],
                            seats: str | None = None) -> None:
    """UserError when an option fixes what an axis varies (one of the two would be dropped
    without a word)."""
    fixed = {"--players": players is not None, "--policy": policy is not None,
             "--content": content is not None, "--seats": seats is not None}
    clashes = {"players": ["--players", "--seats"], "policy": ["--policy", "--seats"],
               "content": ["--content"], "seats": ["--players", "--policy", "--seats"]}
    for name in sorted(varied):
        for option in clashes.get(name, []):
            if fixed[option]:
                raise UserError(f"--vary {name} and {option} both set it; drop {option}")
        if name.startswith("rule.") and name[5:] in rules:
            raise UserError(f"--vary {name} and --rule {name[5:]} both set it; drop the --rule")


def cells(axes: list[Axis]) -> list[dict[str, str]]:
    """Every combination of the axes' values, first values first."""
    return [dict(zip([a.name for a in axes], combo, strict=True))
            for combo in itertools.product(*(a.values for a in axes))]


def label(cell: dict[str, str]) -> str:
    """A cell as 'players=3 rule.villages=see-all'."""
    return " ".join(f"{k}={v}" for k, v in cell.items())


@dataclass
class SweepResult:
    """A finished sweep: its folder and the long table of every metric per cell."""

    folder: Path
    table: pl.DataFrame
    manifest: dict[str, Any]


def run_sweep(game_name: str, vary: list[str], *, n: int | None, seed: int,
              threads: int | None, players: int | None, policy: str | None,
              rules: list[str], content: str | None, out: Path | None, force: bool,
              backend: str = "local", scheduler: str | None = None,
              workers: int | None = None, seats: str | None = None, mirror: bool = False,
              target_ci: float | None = None,
              progress: engine.Progress | None = None) -> SweepResult:
    """Play every cell of the grid and write the sweep folder (every cell with the same
    --seats, --mirror and --target-ci, as `simcli run` reads them)."""
    game = get_game(game_name)
    axes = parse_axes(game, vary)
    base_rules = dict(r.partition("=")[::2] for r in rules)
    refuse_fixed_and_varied({a.name for a in axes}, players=players, policy=policy,
                            content=content, rules=base_rules, seats=seats)
    fixed_seats = seats
    grid = cells(axes)
    configs = []
    for cell in grid:
        cell_rules = {**base_rules, **{k[5:]: v for k, v in cell.items()
                                       if k.startswith("rule.")}}
        seats = cell["seats"].replace("/", ",") if "seats" in cell else fixed_seats
        _, cfg = build_config(
            game.name, players=int(cell["players"]) if "players" in cell and not seats
            else (None if seats else players),
            policy=cell.get("policy", policy) if not seats else None, seats=seats, n=n,
            seed=seed, threads=threads, rules=[f"{k}={v}" for k, v in cell_rules.items()],
            content=cell.get("content", content), out=Path("unused"), force=True,
            save_games=False, chunk_size=None, backend=backend, scheduler=scheduler,
            workers=workers, mirror=mirror, target_ci=target_ci)
        configs.append(cfg)
    preps = []
    for cfg in configs:  # every cell's content and setup checked before any folder is made
        c = game.load_content(game.content_path(cfg.content))
        preps.append(game.prepare(c, cfg.players, cfg.seats, cfg.rules))
    folder = RunFolder(out, force, default=f"sweep-{game.name}")
    folder.create()
    try:
        frames = []
        for i, (cell, cfg, prep) in enumerate(zip(grid, configs, preps, strict=True)):
            aggs, _, _ = play(game, prep, cfg, progress, None)
            m = metrics_of(game, aggs, cfg.players)
            frames.append(m.with_columns(pl.lit(i).alias("cell"), pl.lit(label(cell))
                                         .alias("label"),
                                         *[pl.lit(v).alias(k) for k, v in cell.items()]))
        table = _with_differences(frames, [c.players for c in configs])
        manifest = {
            "format": 1, "tool": "simcli", "tool_version": __version__, "kind": "sweep",
            "game": game.name, "axes": {a.name: list(a.values) for a in axes},
            "cells": [label(c) for c in grid], "playouts_per_cell": configs[0].n,
            "seed": seed, "threads": configs[0].threads, "cores": os.cpu_count(),
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        _write(folder.path, table, axes, grid, manifest)
        final = folder.commit()
    except BaseException:
        folder.abort()
        raise
    return SweepResult(final, table, manifest)


def _with_differences(frames: list[pl.DataFrame], players: list[int]) -> pl.DataFrame:
    """Stack the cells; add each metric's difference from the first cell, Holm-adjusted
    (reports.compare.difference, as `simcli compare`). A seat's raw win rate is not
    compared with a cell of another player count (its fair share differs); its edge over
    the fair share is."""
    first = {r["metric"]: r for r in frames[0].iter_rows(named=True)}
    rows, tested = [], []
    for f, p in zip(frames, players, strict=True):
        for r in f.iter_rows(named=True):
            base = first.get(r["metric"])
            if base is None or r["cell"] == 0 or (
                    p != players[0] and r["metric"].startswith(SEAT_RATE)):
                note = "" if base is None or r["cell"] == 0 else (
                    NOT_COMPARABLE + r["metric"].removeprefix(SEAT_RATE))
                r.update(diff=None, diff_ci_low=None, diff_ci_high=None, p_value=None,
                         p_adjusted=None, flag=note)
            else:
                est, p_value = difference(r, base)
                r.update(diff=est.value, diff_ci_low=est.lo, diff_ci_high=est.hi,
                         p_value=p_value)
                tested.append(r)
            rows.append(r)
    flag(tested, "differs from cell 0 (99%)")
    return pl.DataFrame(rows, infer_schema_length=None)


def _write(folder: Path, table: pl.DataFrame, axes: list[Axis], grid: list[dict],
           manifest: dict) -> None:
    table.write_parquet(folder / "sweep.parquet")
    write_csv(table, folder / "sweep.csv")
    wide = table.pivot(on="metric", index=["cell", "label"], values="value")
    write_csv(wide, folder / "sweep_wide.csv")
    charts = folder / "charts"
    charts.mkdir()
    drawn = []
    seat_edges = sorted({m for m in table["metric"] if m.startswith(SEAT_EDGE)},
                        key=lambda m: int(m.removeprefix(SEAT_EDGE)))
    for axis in axes:
        if seat_edges:
            path = charts / f"seat-edges-by-{axis.name}.png"
            C.grouped_bars_with_ci(path, list(axis.values), _groups(
                table, axes, axis, seat_edges, lambda m: "seat " + m.removeprefix(SEAT_EDGE)),
                title=f"Each seat's win rate above its fair share, by {axis.name}",
                ylabel="points above the fair share", reference=0.0,
                ref_label="fair share", xlabel=axis.name)
            drawn.append((f"charts/{path.name}", f"every seat's win rate minus its fair "
                          f"share (points), by {axis.name} (95% intervals; 0 = fair share)"))
        for metric in HEADLINE:
            if table.filter(pl.col("metric") == metric).height == 0:
                continue
            path = charts / f"{metric}-by-{axis.name}.png"
            percent = metric not in ("duration.mean", "balance")
            C.grouped_bars_with_ci(path, list(axis.values),
                                   _groups(table, axes, axis, [metric], lambda m: ""),
                                   title=f"{TITLES[metric]} by {axis.name}",
                                   ylabel=f"{TITLES[metric]}{' (%)' if percent else ''}",
                                   percent=percent, xlabel=axis.name)
            drawn.append((f"charts/{path.name}", f"{metric} by {axis.name} (95% intervals)"))
    head = markdown_rows(SWEEP_COLUMNS, display_rows(table))
    axes_text = md_text("; ".join(f"{a.name} = {', '.join(a.values)}" for a in axes))
    lines = [f"# Sweep: {manifest['game']}", "",
             f"- Cells: {len(grid)} ({axes_text})",
             f"- Playouts per cell: {manifest['playouts_per_cell']:,}, seed {manifest['seed']}",
             f"- simcli {manifest['tool_version']}", "",
             "Differences are against cell 0 with 95% intervals; flags use Holm-adjusted "
             "p-values across every cell and metric (99% level). Rates in percent, "
             "differences of rates in points. Where the player count differs from cell 0, a "
             "seat's raw win rate is not compared (its fair share differs): its edge over "
             "the fair share (edge.seat<k>) is. Every metric of every cell is in sweep.csv "
             "/ sweep.parquet (fractions).", "", "## Charts", ""]
    for rel, caption in drawn:
        lines += [f"![{md_text(caption)}]({rel})", "", f"*{md_text(caption)}*", ""]
    lines += ["## Headline metrics", "", head, ""]
    (folder / "report.md").write_text("\n".join(lines), encoding="utf-8")
    write_json(folder / "manifest.json", manifest)


SWEEP_COLUMNS = ("cell", "metric", "value", "95% interval", "vs cell 0", "its 95% interval",
                 "adjusted p", "flag")


def display_rows(table: pl.DataFrame) -> list[tuple]:
    """The headline rows as text cells in each metric's unit (reports.units)."""
    out = []
    for r in headline(table).iter_rows(named=True):
        u = r["unit"] or ""
        out.append((r["label"], r["metric"], value_text(r["value"], u),
                    interval_text(r["ci_low"], r["ci_high"], u),
                    "" if r["diff"] is None else difference_text(r["diff"], u),
                    "" if r["diff"] is None else difference_interval_text(
                        r["diff_ci_low"], r["diff_ci_high"], u),
                    "" if r["p_adjusted"] is None else p_text(r["p_adjusted"]), r["flag"]))
    return out


def _groups(table: pl.DataFrame, axes: list[Axis], axis: Axis, metrics: list[str],
            name_of) -> dict[str, tuple]:
    """Bar series for a chart along `axis`: one per metric and combination of the other
    axes' values, each (values, lo, hi) over the axis's values."""
    others = [a for a in axes if a.name != axis.name]
    groups: dict[str, tuple] = {}
    for metric in metrics:
        rows = table.filter(pl.col("metric") == metric)
        for combo in itertools.product(*(a.values for a in others)):
            sel = rows
            for a, v in zip(others, combo, strict=True):
                sel = sel.filter(pl.col(a.name) == v)
            vals, lo, hi = [], [], []
            for v in axis.values:
                hit = sel.filter(pl.col(axis.name) == v)
                r = hit.row(0, named=True) if hit.height else None
                vals.append(r["value"] if r else float("nan"))
                lo.append(r["ci_low"] if r else float("nan"))
                hi.append(r["ci_high"] if r else float("nan"))
            parts = [name_of(metric)] if name_of(metric) else []
            parts += [f"{a.name}={v}" for a, v in zip(others, combo, strict=True)]
            name = ", ".join(parts) or metric
            groups[name] = (vals, lo, hi)
    return groups


def rerender_sweep(folder: Path) -> SweepResult:
    """Re-render a finished sweep folder's charts, tables and report from its sweep.parquet
    (checked against the SHA-256 simcli recorded when it wrote it)."""
    from simcli.runfolder import load_tables, render_in_place

    man, tables = load_tables(folder, "sweep", ("sweep.parquet",))
    table = tables["sweep.parquet"]
    if not isinstance(man.get("axes"), dict) or not man["axes"] or not table.height:
        raise UserError(f"{folder} holds no sweep table to re-render")
    get_game(str(man.get("game")))
    axes = [Axis(str(k), tuple(str(x) for x in v)) for k, v in man["axes"].items()]
    grid = cells(axes)
    render_in_place(folder, lambda tmp: _write(tmp, table, axes, grid, man))
    return SweepResult(folder, table, man)
