"""A balance study: validated configuration -> chunks on threads -> run folder with report."""

from __future__ import annotations

import math
import os
import platform
import shutil
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from reports.render import write_all
from reports.summary import Summary
from simcli import __version__, engine
from simcli.errors import UserError
from simcli.games.base import Content, Game
from simcli.registry import get_game
from simcli.runfolder import (
    AGGREGATES,
    CONTENT_COPY,
    MANIFEST,
    RunFolder,
    load_finished,
    save_aggregates,
    write_json,
)


@dataclass(frozen=True)
class RunConfig:
    """Everything that defines a run; the same config and seed give the same numbers."""

    game: str
    players: int
    seats: tuple[str, ...]
    n: int
    seed: int
    threads: int
    rules: dict[str, str]
    content: str | None
    out: Path
    force: bool = False
    save_games: bool = False
    chunk_size: int | None = None
    command: list[str] = field(default_factory=list)


def build_config(game_name: str, *, players: int | None, policy: str | None,
                 seats: str | None, n: int | None, seed: int, threads: int | None,
                 rules: list[str], content: str | None, out: Path | None, force: bool,
                 save_games: bool, chunk_size: int | None) -> tuple[Game, RunConfig]:
    """Check every option against the game and fill in defaults."""
    game = get_game(game_name)
    if n is None:
        n = game.default_n
    if n <= 0:
        raise UserError(f"-n must be a positive number of playouts, not {n}")
    if seed < 0 or seed >= 2**64:
        raise UserError(f"--seed must be 0 .. 2**64-1, not {seed}")
    if threads is not None and threads <= 0:
        raise UserError(f"--threads must be positive, not {threads}")
    if chunk_size is not None and chunk_size <= 0:
        raise UserError(f"--chunk-size must be positive, not {chunk_size}")
    if seats:
        seat_list = tuple(s.strip() for s in seats.split(","))
        if players is not None and players != len(seat_list):
            raise UserError(f"--seats names {len(seat_list)} policies but --players is {players}")
        players = len(seat_list)
        if policy is not None:
            raise UserError("give either --policy (every seat) or --seats (one per seat), not both")
    else:
        players = game.default_players if players is None else players
        seat_list = (policy or game.default_policy,) * players
    game.check_players(players)
    for s in seat_list:
        game.check_policy(s)
    chosen = game.resolve_rules(rules)
    if out is None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        out = Path("runs") / f"{game.name}-{players}p-seed{seed}-{stamp}"
        k = 1
        while out.exists():
            out = Path("runs") / f"{game.name}-{players}p-seed{seed}-{stamp}-{k}"
            k += 1
    cfg = RunConfig(
        game=game.name, players=players, seats=seat_list, n=n, seed=seed,
        threads=threads or engine.default_threads(), rules=chosen, content=content, out=out,
        force=force, save_games=save_games, chunk_size=chunk_size, command=list(sys.argv),
    )
    return game, cfg


@dataclass
class RunResult:
    """A finished run: where it is, its manifest and its report content."""

    folder: Path
    manifest: dict[str, Any]
    summary: Summary


def versions() -> dict[str, str]:
    """Versions of the interpreter and the libraries that shape results."""
    import matplotlib
    import numba
    import scipy

    return {"python": platform.python_version(), "numba": numba.__version__,
            "numpy": np.__version__, "polars": pl.__version__,
            "scipy": scipy.__version__, "matplotlib": matplotlib.__version__}


def chunk_size_for(game: Game, cfg: RunConfig) -> int:
    """Chunk size: the game's default, smaller for short runs so every thread gets work."""
    if cfg.chunk_size:
        return cfg.chunk_size
    return max(1, min(game.chunk_size, math.ceil(cfg.n / (4 * cfg.threads))))


def play(game: Game, prep: Any, cfg: RunConfig, progress: engine.Progress | None,
         games_dir: Path | None) -> tuple[dict[str, np.ndarray], float]:
    """Play every chunk of the run; returns (merged aggregates, run seconds)."""
    total = game.new_aggregates(prep)
    ncol = len(game.row_columns)

    def work(chunk: engine.Chunk):
        aggs = game.new_aggregates(prep)
        rows = np.zeros((chunk.count, ncol), np.int64) if games_dir else None
        game.run_chunk(prep, cfg.seed, chunk.first, chunk.count, aggs, rows)
        return aggs, rows

    def done(chunk: engine.Chunk, result) -> None:
        aggs, rows = result
        engine.merge(total, aggs)
        if games_dir is not None:
            df = pl.DataFrame(rows, schema=list(game.row_columns), orient="row")
            df = df.with_columns(
                pl.int_range(chunk.first, chunk.first + chunk.count, dtype=pl.Int64)
                .alias("playout")).select(["playout", *game.row_columns])
            df.write_parquet(games_dir / f"part-{chunk.index:06d}.parquet")

    chunks = engine.plan(cfg.n, chunk_size_for(game, cfg))
    run_s = engine.run_chunks(chunks, work, done, cfg.threads, progress)
    return total, run_s


def run_study(cfg: RunConfig, progress: engine.Progress | None = None) -> RunResult:
    """Run a study end to end and commit its run folder; nothing is left if it fails."""
    game = get_game(cfg.game)
    content = game.load_content(game.content_path(cfg.content))
    folder = RunFolder(cfg.out, cfg.force)
    try:
        started = datetime.now(UTC)
        t0 = time.perf_counter()
        prep = game.prepare(content, cfg.players, cfg.seats, cfg.rules)
        game.run_chunk(prep, cfg.seed, 0, 1, game.new_aggregates(prep), None)  # compile/load
        compile_s = time.perf_counter() - t0
        games_dir = None
        if cfg.save_games:
            games_dir = folder.path / "games"
            games_dir.mkdir()
        aggs, run_s = play(game, prep, cfg, progress, games_dir)
        manifest = {
            "format": 1, "tool": "simcli", "tool_version": __version__,
            "game": game.name, "game_title": game.title, "players": cfg.players,
            "seats": list(cfg.seats), "rules": cfg.rules, "content": content.identity(),
            "seed": cfg.seed, "playouts": cfg.n, "chunk_size": chunk_size_for(game, cfg),
            "threads": cfg.threads, "cores": os.cpu_count(), "save_games": cfg.save_games,
            "versions": versions(),
            "timing": {"compile_s": round(compile_s, 3), "run_s": round(run_s, 3),
                       "playouts_per_s": round(cfg.n / run_s, 1) if run_s > 0 else None},
            "started": started.isoformat(timespec="seconds"),
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": cfg.command,
        }
        save_aggregates(folder.path / AGGREGATES, aggs)
        shutil.copyfile(content.path, folder.path / CONTENT_COPY)
        summary = game.report(aggs, manifest, content)
        write_all(summary, manifest, folder.path)
        write_json(folder.path / MANIFEST, manifest)
        final = folder.commit()
    except BaseException:
        folder.abort()
        raise
    return RunResult(final, manifest, summary)


def rerender(folder: Path) -> RunResult:
    """Re-render tables, charts and report of a finished run from its saved statistics."""
    manifest, aggs = load_finished(folder)
    game = get_game(manifest.get("game", "?"))
    copy = folder / CONTENT_COPY
    content: Content = game.load_content(copy if copy.exists() else
                                         Path(manifest["content"]["path"]))
    summary = game.report(aggs, manifest, content)
    tmp = folder / f".render-partial-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        write_all(summary, manifest, tmp)
        for item in tmp.iterdir():
            target = folder / item.name
            if target.is_dir():
                shutil.rmtree(target)
            item.replace(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return RunResult(folder, manifest, summary)
