"""`simcli run`: validated configuration -> chunks on threads -> run folder with report."""

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

from reports.html import write_html
from reports.render import write_all
from reports.summary import Summary
from simcli import __version__, checkpoint, dask_backend, engine
from simcli.analysis import full_summary
from simcli.errors import Interrupted, UserError
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
    backend: str = "local"
    scheduler: str | None = None
    workers: int | None = None
    checkpoint: bool = False
    mirror: bool = False
    target_ci: float | None = None
    html: bool = False
    command: list[str] = field(default_factory=list)


def build_config(game_name: str, *, players: int | None, policy: str | None,
                 seats: str | None, n: int | None, seed: int, threads: int | None,
                 rules: list[str], content: str | None, out: Path | None, force: bool,
                 save_games: bool, chunk_size: int | None, backend: str = "local",
                 scheduler: str | None = None, workers: int | None = None,
                 checkpoint: bool = False, mirror: bool = False,
                 target_ci: float | None = None, html: bool = False
                 ) -> tuple[Game, RunConfig]:
    """Check every option against the game and fill in defaults."""
    game = get_game(game_name)
    if backend not in ("local", "dask"):
        raise UserError(f"--backend takes local or dask, not '{backend}'")
    if backend == "local" and (scheduler or workers):
        raise UserError("--scheduler and --workers need --backend dask")
    if scheduler and workers:
        raise UserError("give --scheduler (an existing cluster) or --workers (a local one), "
                        "not both")
    if workers is not None and workers <= 0:
        raise UserError(f"--workers must be positive, not {workers}")
    if target_ci is not None and not 0 < target_ci < 0.5:
        raise UserError(f"--target-ci must be a half-width between 0 and 0.5, not {target_ci}")
    if target_ci is not None and checkpoint:
        raise UserError("--target-ci and --checkpoint cannot be combined")
    if mirror and not game.supports_mirror:
        raise UserError(f"{game.name} does not support --mirror yet")
    if mirror and (save_games or target_ci is not None or checkpoint):
        raise UserError("--mirror cannot be combined with --save-games, --target-ci or "
                        "--checkpoint")
    if n is None:
        n = game.default_n * (TARGET_CAP_FACTOR if target_ci is not None else 1)
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
        force=force, save_games=save_games, chunk_size=chunk_size, backend=backend,
        scheduler=scheduler, workers=workers, checkpoint=checkpoint, mirror=mirror,
        target_ci=target_ci, html=html, command=list(sys.argv),
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
    """Chunk size: the game's default, smaller for short runs so every worker gets work."""
    if cfg.chunk_size:
        return cfg.chunk_size
    return max(1, min(game.chunk_size, math.ceil(cfg.n / (4 * cfg.threads))))


def chunk_task(game_name: str, prep: Any, seed: int, keep_rows: bool, mirror: int,
               first: int, count: int) -> tuple[dict[str, np.ndarray], np.ndarray | None]:
    """Play one chunk: its statistics and (with keep_rows) one row per playout.

    With mirror = P, each playout is played once per seat rotation and the chunk also
    counts, per seat and per player, in how many of the P rotations it won. A plain
    module-level function, so Dask can send it to workers.
    """
    game = get_game(game_name)
    aggs = game.new_aggregates(prep)
    if not mirror:
        rows = np.zeros((count, len(game.row_columns)), np.int64) if keep_rows else None
        game.run_chunk(prep, seed, first, count, aggs, rows)
        return aggs, rows
    P = mirror
    seat_k = np.zeros((count, P), np.int64)
    player_k = np.zeros((count, P), np.int64)
    rows = np.zeros((count, len(game.row_columns)), np.int64)
    for r in range(P):
        game.run_chunk(prep, seed, first, count, aggs, rows, rotation=r)
        won = game.seats_won(rows)
        for s in range(P):
            seat_k[:, s] += won[:, s]
            player_k[:, (s - r) % P] += won[:, s]  # seat s holds player (s - r) mod P
    aggs["mirror_seat"] = np.stack([np.bincount(seat_k[:, s], minlength=P + 1)
                                    for s in range(P)])
    aggs["mirror_player"] = np.stack([np.bincount(player_k[:, j], minlength=P + 1)
                                      for j in range(P)])
    return aggs, None


def new_run_aggregates(game: Game, prep: Any, cfg: RunConfig) -> dict[str, np.ndarray]:
    """Zeroed statistics of a run (the game's, plus mirror counts in a mirrored run)."""
    aggs = game.new_aggregates(prep)
    if cfg.mirror:
        aggs["mirror_seat"] = np.zeros((cfg.players, cfg.players + 1), np.int64)
        aggs["mirror_player"] = np.zeros((cfg.players, cfg.players + 1), np.int64)
    return aggs


@dataclass
class Progressing:
    """Where a run stands: merged statistics of the finished chunks."""

    aggs: dict[str, np.ndarray]
    done: set[int]
    elapsed_s: float = 0.0


TARGET_CAP_FACTOR = 20  # with --target-ci and no -n: at most 20 x the game's default
FIRST_ROUND = 10_000


def play(game: Game, prep: Any, cfg: RunConfig, progress: engine.Progress | None,
         folder: Path | None, state: Progressing | None = None
         ) -> tuple[dict, float, dict | None]:
    """Play the run; returns (merged aggregates, run seconds, stopping rule or None).

    With cfg.target_ci the run goes in rounds: after each, the largest 95% half-width of
    the seat win rates decides whether to stop; the next round's size follows from the
    statistics alone, so the same seed and target give the same playouts and numbers.
    """
    state = state or Progressing(new_run_aggregates(game, prep, cfg), set())
    size = chunk_size_for(game, cfg)
    if cfg.target_ci is None:
        chunks = [c for c in engine.plan(cfg.n, size) if c.index not in state.done]
        run_s = play_chunks(game, prep, cfg, chunks, size, progress, folder, state)
        return state.aggs, state.elapsed_s + run_s, None
    from reports.metrics import headline_half_width
    from simcli.analysis import core_of

    done, rounds, run_s, index0 = 0, [], 0.0, 0
    target = min(cfg.n, FIRST_ROUND)
    while True:
        chunks = engine.plan_range(done, target, size, index0)
        index0 += len(chunks)
        run_s += play_chunks(game, prep, cfg, chunks, size, progress, folder, state)
        done = target
        rounds.append(done)
        hw = headline_half_width(core_of(game, state.aggs, cfg.players))
        if hw <= cfg.target_ci or done >= cfg.n:
            break
        need = math.ceil(done * (hw / cfg.target_ci) ** 2 * 1.05)
        target = min(cfg.n, max(math.ceil(done * 1.25), min(need, done * 8)))
    stopping = {"rule": "largest 95% half-width of the seat win rates",
                "target_ci": cfg.target_ci, "max_playouts": cfg.n, "rounds": rounds,
                "playouts": done, "half_width": hw, "reached": hw <= cfg.target_ci}
    return state.aggs, run_s, stopping


def play_chunks(game: Game, prep: Any, cfg: RunConfig, chunks: list[engine.Chunk],
                 size: int, progress: engine.Progress | None, folder: Path | None,
                 state: Progressing) -> float:
    """Play these chunks into `state` (rows to folder/games, checkpoints to folder)."""
    games_dir = folder / "games" if folder is not None and cfg.save_games else None
    if games_dir is not None:
        games_dir.mkdir(exist_ok=True)
    last_save = time.perf_counter()
    started = time.perf_counter()

    def checkpoint_now() -> None:
        if cfg.checkpoint and folder is not None:
            elapsed = state.elapsed_s + time.perf_counter() - started
            checkpoint.save(folder, checkpoint.config_dict(cfg), size, state.done, state.aggs,
                            elapsed)

    def done(chunk: engine.Chunk, result) -> None:
        nonlocal last_save
        aggs, rows = result
        if games_dir is not None:
            write_rows(games_dir, chunk, game.row_columns, rows)
        engine.merge(state.aggs, aggs)
        state.done.add(chunk.index)
        if cfg.checkpoint and time.perf_counter() - last_save > CHECKPOINT_EVERY_S:
            checkpoint_now()
            last_save = time.perf_counter()

    args = (game.name, prep, cfg.seed, games_dir is not None,
            cfg.players if cfg.mirror else 0)
    try:
        if cfg.backend == "dask":
            with dask_backend.client_for(cfg.scheduler, cfg.workers, cfg.threads) as client:
                return dask_backend.run_chunks(client, chunks, chunk_task, args, done,
                                               progress, token=f"simcli-{cfg.seed}-{size}")
        return engine.run_chunks(chunks, lambda c: chunk_task(*args, c.first, c.count), done,
                                 cfg.threads, progress)
    finally:
        checkpoint_now()


CHECKPOINT_EVERY_S = 2.0


def write_rows(games_dir: Path, chunk: engine.Chunk, columns: tuple[str, ...],
               rows: np.ndarray) -> None:
    """One chunk's per-playout rows as games/part-NNNNNN.parquet (written atomically)."""
    df = pl.DataFrame(rows, schema=list(columns), orient="row")
    df = df.with_columns(
        pl.int_range(chunk.first, chunk.first + chunk.count, dtype=pl.Int64).alias("playout")
    ).select(["playout", *columns])
    final = games_dir / f"part-{chunk.index:06d}.parquet"
    tmp = games_dir / f".part-{chunk.index:06d}.parquet.tmp"
    df.write_parquet(tmp)
    tmp.replace(final)


def run_game(cfg: RunConfig, progress: engine.Progress | None = None,
              state: Progressing | None = None) -> RunResult:
    """Run a study end to end and commit its run folder.

    An ordinary run leaves nothing if it fails; a checkpointed one leaves OUT.partial with
    its checkpoint, to be finished by resume_run.
    """
    game = get_game(cfg.game)
    resuming = state is not None
    folder = RunFolder(cfg.out, cfg.force, checkpointed=cfg.checkpoint, resuming=resuming)
    content_file = folder.path / CONTENT_COPY if resuming else game.content_path(cfg.content)
    content = game.load_content(content_file)
    try:
        if not resuming:
            shutil.copyfile(content.path, folder.path / CONTENT_COPY)
        started = datetime.now(UTC)
        t0 = time.perf_counter()
        prep = game.prepare(content, cfg.players, cfg.seats, cfg.rules)
        game.run_chunk(prep, cfg.seed, 0, 1, game.new_aggregates(prep), None)  # compile/load
        compile_s = time.perf_counter() - t0
        if cfg.checkpoint and not resuming:
            checkpoint.save(folder.path, checkpoint.config_dict(cfg), chunk_size_for(game, cfg),
                            set(), game.new_aggregates(prep), 0.0)
        aggs, run_s, stopping = play(game, prep, cfg, progress, folder.path, state)
        playouts = stopping["playouts"] if stopping else cfg.n
        manifest = {
            "format": 1, "tool": "simcli", "kind": "run", "tool_version": __version__,
            "game": game.name, "game_title": game.title, "players": cfg.players,
            "seats": list(cfg.seats), "rules": cfg.rules, "content": content.identity(),
            "policies": {p: game.policies[p] for p in dict.fromkeys(cfg.seats)},
            "seed": cfg.seed, "playouts": playouts, "chunk_size": chunk_size_for(game, cfg),
            "mirror": cfg.mirror, "stopping": stopping,
            "backend": cfg.backend, "threads": cfg.threads, "cores": os.cpu_count(),
            "save_games": cfg.save_games, "checkpoint": cfg.checkpoint, "resumed": resuming,
            "versions": versions(),
            "timing": {"compile_s": round(compile_s, 3), "run_s": round(run_s, 3),
                       "playouts_per_s": round(playouts * (cfg.players if cfg.mirror else 1)
                                               / run_s, 1) if run_s > 0 else None},
            "started": started.isoformat(timespec="seconds"),
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": cfg.command,
        }
        save_aggregates(folder.path / AGGREGATES, aggs)
        summary = full_summary(game, aggs, manifest, content)
        write_all(summary, manifest, folder.path)
        if cfg.html:
            write_html(summary, manifest, folder.path)
        write_json(folder.path / MANIFEST, manifest)
        final = folder.commit()
        (final / checkpoint.STATE).unlink(missing_ok=True)
    except Interrupted as exc:
        folder.abort()
        if cfg.checkpoint:
            raise Interrupted(f"{exc}; checkpoint kept in {folder.path}: finish it with "
                              f"`simcli resume {cfg.out}`") from None
        raise Interrupted(f"{exc}; no run folder was written") from None
    except BaseException:
        folder.abort()
        raise
    return RunResult(final, manifest, summary)


def resume_run(out: Path, progress: engine.Progress | None = None, *,
                 threads: int | None = None, backend: str | None = None,
                 scheduler: str | None = None, workers: int | None = None) -> RunResult:
    """Finish a checkpointed run; the result equals that of an uninterrupted run."""
    if (out / MANIFEST).exists() and not checkpoint.partial_dir(out).exists():
        raise UserError(f"{out} is already a finished run")
    folder = checkpoint.partial_dir(out)
    if not folder.is_dir():
        raise UserError(f"no unfinished checkpointed run for {out} (no {folder})")
    saved = checkpoint.load(folder)
    c = saved["config"]
    cfg = RunConfig(
        game=c["game"], players=c["players"], seats=tuple(c["seats"]), n=c["n"],
        seed=c["seed"], threads=threads or c["threads"], rules=c["rules"],
        content=c["content"], out=out, force=c["force"], save_games=c["save_games"],
        chunk_size=saved["chunk_size"], backend=backend or c.get("backend", "local"),
        scheduler=scheduler if backend == "dask" else None,
        workers=workers if backend == "dask" else None, checkpoint=True,
        command=list(sys.argv),
    )
    state = Progressing(saved["aggregates"], saved["done"], saved["elapsed_s"])
    return run_game(cfg, progress, state)


def rerender(folder: Path, html: bool = False) -> RunResult:
    """Re-render tables, charts and report of a finished run from its saved statistics."""
    manifest, aggs = load_finished(folder)
    game = get_game(manifest.get("game", "?"))
    manifest.setdefault("policies", {p: game.policies.get(p, "") for p in
                                     dict.fromkeys(manifest["seats"])})
    copy = folder / CONTENT_COPY
    content: Content = game.load_content(copy if copy.exists() else
                                         Path(manifest["content"]["path"]))
    summary = full_summary(game, aggs, manifest, content)
    tmp = folder / f".render-partial-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        write_all(summary, manifest, tmp)
        if html:
            write_html(summary, manifest, tmp)
        for item in tmp.iterdir():
            target = folder / item.name
            if target.is_dir():
                shutil.rmtree(target)
            item.replace(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return RunResult(folder, manifest, summary)
