"""`simcli run`: validated configuration -> chunks on threads -> run folder with report."""

from __future__ import annotations

import math
import os
import platform
import re
import shutil
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from reports.html import write_html
from reports.render import write_all
from reports.summary import Summary
from simcli import __version__, checkpoint, dask_backend, engine
from simcli.analysis import core_of, full_summary
from simcli.errors import Interrupted, UserError
from simcli.games.base import Game, sha256
from simcli.registry import get_game
from simcli.runfolder import (
    AGGREGATES,
    CONTENT_COPY,
    MANIFEST,
    RunFolder,
    check_counts,
    check_shapes,
    default_out,
    disk_error,
    is_int,
    load_run,
    render_in_place,
    save_aggregates,
    write_failure,
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
    yes: bool = False  # run even if the estimated time exceeds a day
    auto_out: bool = False  # out is a name simcli chose (no --out): the next free one at the end
    command: list[str] = field(default_factory=list)


MAX_SEED = 2**64 - 1
MAX_PLAYOUTS = 2**62  # playout indices stay far inside the kernels' int64


def check_seed(seed: Any, name: str = "--seed") -> int:
    """A seed every command accepts the same way: a whole number 0 .. 2**64-1."""
    if not is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise UserError(f"{name} must be a whole number 0 .. 2**64-1, not {seed!r}")
    return seed


def check_target_ci(target_ci: float | None) -> None:
    """A target half-width in (0, 0.5): 0, negative or NaN would never be reached."""
    if target_ci is not None and not 0 < target_ci < 0.5:
        why = ("a run aiming at it would never end" if not target_ci > 0 else
               "every win rate's interval is narrower than that from the first games")
        raise UserError(f"--target-ci must be a half-width between 0 and 0.5 (exclusive), "
                        f"not {target_ci}: {why}")


def build_config(game_name: str, *, players: int | None, policy: str | None,
                 seats: str | None, n: int | None, seed: int, threads: int | None,
                 rules: list[str], content: str | None, out: Path | None, force: bool,
                 save_games: bool, chunk_size: int | None, backend: str = "local",
                 scheduler: str | None = None, workers: int | None = None,
                 checkpoint: bool = False, mirror: bool = False,
                 target_ci: float | None = None, html: bool = False, yes: bool = False
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
    if scheduler:
        dask_backend.check_scheduler(scheduler)
    if workers is not None and workers <= 0:
        raise UserError(f"--workers must be positive, not {workers}")
    check_target_ci(target_ci)
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
    if n > MAX_PLAYOUTS:
        raise UserError(f"-n must be at most 2**62 playouts, not {n}")
    check_seed(seed)
    if threads is not None and threads <= 0:
        raise UserError(f"--threads must be positive, not {threads}")
    if chunk_size is not None and not 0 < chunk_size <= 2**62:
        raise UserError(f"--chunk-size must be 1 .. 2**62, not {chunk_size}")
    if seats is not None and not seats.strip():
        raise UserError("--seats is empty; give one policy per seat, e.g. greedy,random")
    if seats:
        seat_list = tuple(s.strip() for s in seats.split(","))
        if players is not None and players != len(seat_list):
            raise UserError(f"--seats names {len(seat_list)} policies but --players is {players}")
        players = len(seat_list)
        if policy is not None:
            raise UserError("give either --policy (every seat) or --seats (one per seat), not both")
    else:
        players = game.default_players if players is None else players
        game.check_players(players)  # before the seats are made: 10**21 players is refused
        seat_list = (game.policy_or_default(policy),) * players
    game.check_players(players)  # (the count --seats gave)
    for s in seat_list:
        game.check_policy(s)
    chosen = game.resolve_rules(rules)
    auto_out = out is None
    if out is None:
        out = default_out(f"{game.name}-{players}p-seed{seed}")
    cfg = RunConfig(
        game=game.name, players=players, seats=seat_list, n=n, seed=seed,
        threads=threads or engine.default_threads(), rules=chosen, content=content, out=out,
        force=force, save_games=save_games, chunk_size=chunk_size, backend=backend,
        scheduler=scheduler, workers=workers, checkpoint=checkpoint, mirror=mirror,
        target_ci=target_ci, html=html, yes=yes, auto_out=auto_out, command=list(sys.argv),
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


TARGET_CHUNK_S = 0.25  # a chunk takes about this long: Ctrl-C waits for at most one
PROBE_S = 0.05  # time spent measuring a run's speed before it starts


PROBE_LIMIT_S = 10.0  # a first playout slower than this is stopped: its time is enough


def probe_seconds(play_some: Callable[[int, int], Any]) -> float:
    """Seconds per item of play_some(first, count), timed on items 0, 1, 2, ... in doubling
    batches for about PROBE_S, after one call that plays nothing (it compiles or loads the
    kernels). A probe still running after PROBE_LIMIT_S is stopped (kernels.control): the
    time spent over the items it may have played is then a lower bound, enough to refuse a
    run of more than a day at once instead of waiting for one huge playout to end."""
    from kernels import control

    play_some(0, 0)
    played, k, spent = 0, 1, 0.0
    timer = threading.Timer(PROBE_LIMIT_S, control.request_stop)
    timer.start()
    try:
        while spent < PROBE_S and played < 1_000_000:
            t0 = time.perf_counter()
            play_some(played, k)
            spent += time.perf_counter() - t0
            if control.STOP[0]:  # stopped (or about to be): at most played + k items done
                control.clear()
                return spent / (played + k)
            played += k
            k *= 2
    finally:
        timer.cancel()
    return spent / played


def seconds_per_playout(game: Game, prep: Any, cfg: RunConfig) -> float:
    """One thread's seconds per playout (per deal with --mirror), timed on the run's own
    first playouts after the kernels are compiled or loaded (the results are thrown away:
    the run plays them again, so nothing depends on this timing)."""
    def play_some(first: int, count: int) -> None:
        engine.stoppable(game.run_chunk, prep, cfg.seed, first, count,
                         game.new_aggregates(prep), None)

    return probe_seconds(play_some) * (cfg.players if cfg.mirror else 1)


def chunk_size_for(game: Game, cfg: RunConfig, per_playout_s: float | None = None) -> int:
    """Chunk size: --chunk-size if given; else the game's default, smaller for short runs
    so every worker gets work, and small enough that a chunk takes about TARGET_CHUNK_S at
    the measured speed (slow policies get small chunks, so Ctrl-C stays quick). Results
    never depend on it."""
    if cfg.chunk_size:
        return cfg.chunk_size
    size = min(game.chunk_size, math.ceil(cfg.n / (4 * cfg.threads)))
    if per_playout_s is not None and per_playout_s > 0:
        size = min(size, int(TARGET_CHUNK_S / per_playout_s))
    return max(1, size)


def check_duration(cfg: RunConfig, per_playout_s: float) -> None:
    """Refuse a run whose estimated time exceeds a day, unless --yes."""
    # threads beyond this machine's cores add no speed (Dask workers run elsewhere)
    workers = cfg.workers or min(cfg.threads, os.cpu_count() or 1)
    estimate = per_playout_s * cfg.n / max(1, workers)
    if estimate > engine.DAY_S and not cfg.yes:
        unit = "deals" if cfg.mirror else "playouts"
        rate = workers / per_playout_s
        speed = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"
        raise engine.too_long(estimate, f"{'up to ' if cfg.target_ci else ''}{cfg.n:,} {unit} "
                                        f"at about {speed}/s on "
                                        f"{workers} thread{'s' if workers != 1 else ''}, "
                                        f"measured on the first playouts")


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
         folder: Path | None, state: Progressing | None = None, size: int | None = None,
         content_sha256: str = "") -> tuple[dict, float, dict | None]:
    """Play the run; returns (merged aggregates, run seconds, stopping rule or None).

    With cfg.target_ci the run goes in rounds: after each, the largest 95% half-width of
    the seat win rates decides whether to stop; the next round's size follows from the
    statistics alone, so the same seed and target give the same playouts and numbers.
    """
    state = state or Progressing(new_run_aggregates(game, prep, cfg), set())
    if size is None:
        size = chunk_size_for(game, cfg, None if cfg.chunk_size else
                              seconds_per_playout(game, prep, cfg))
    if cfg.target_ci is None:
        chunks = engine.plan(cfg.n, size, skip=state.done)
        run_s = play_chunks(game, prep, cfg, chunks, size, progress, folder, state,
                            content_sha256)
        return state.aggs, state.elapsed_s + run_s, None
    from reports.metrics import headline_half_width
    from simcli.analysis import core_of

    done, rounds, run_s, index0 = 0, [], 0.0, 0
    target = min(cfg.n, FIRST_ROUND)
    while True:
        chunks = engine.plan_range(done, target, size, index0)
        index0 += len(chunks)
        run_s += play_chunks(game, prep, cfg, chunks, size, progress, folder, state,
                             content_sha256)
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


def play_chunks(game: Game, prep: Any, cfg: RunConfig,
                chunks: engine.ChunkPlan | list[engine.Chunk], size: int,
                progress: engine.Progress | None, folder: Path | None, state: Progressing,
                content_sha256: str = "") -> float:
    """Play these chunks into `state` (rows to folder/games, checkpoints to folder)."""
    games_dir = folder / "games" if folder is not None and cfg.save_games else None
    if games_dir is not None:
        games_dir.mkdir(exist_ok=True)
    last_save = time.perf_counter()
    started = time.perf_counter()

    def checkpoint_now(final: bool = False) -> None:
        if cfg.checkpoint and folder is not None:
            if final and not consistent(game, cfg, size, state):
                return  # stopped between merging a chunk and noting it: keep the last one
            elapsed = state.elapsed_s + time.perf_counter() - started
            checkpoint.save(folder, checkpoint.config_dict(cfg), size, state.done, state.aggs,
                            elapsed, content_sha256)

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
        checkpoint_now(final=True)


CHECKPOINT_EVERY_S = 2.0


def consistent(game: Game, cfg: RunConfig, size: int, state: Progressing) -> bool:
    """Whether the merged statistics count exactly the playouts of the chunks noted done."""
    from simcli.analysis import core_of

    played = sum(min(size, cfg.n - i * size) for i in state.done)
    return core_of(game, state.aggs, cfg.players).games == played


SEAT_SUFFIX = re.compile(r"^(?P<stem>.+?)_(?P<seat>\d)(?P<rest>_[a-z]+)?$")


def saved_seats(df: pl.DataFrame) -> pl.DataFrame:
    """The kernels' rows with seats numbered from 1: a seat in a `winner` or `*_winner`
    column is 1..P (-1 stays: no single winner), and per-seat columns counted from 0
    (`honor_0`, `markers_0_helmet`) are renamed from 1 (`honor_1`, `markers_1_helmet`).
    Columns already counted from 1 (Samurai Sword's `role_1`...) are left as they are;
    bit masks (`win_mask`, `shared_mask`) keep bit k for seat k + 1."""
    seats = [c for c in df.columns if c == "winner" or c.endswith("_winner")]
    df = df.with_columns([pl.when(pl.col(c) >= 0).then(pl.col(c) + 1).otherwise(pl.col(c))
                          .alias(c) for c in seats])
    groups: dict[tuple[str, str], list[int]] = {}
    for c in df.columns:
        m = SEAT_SUFFIX.match(c)
        if m:
            groups.setdefault((m["stem"], m["rest"] or ""), []).append(int(m["seat"]))
    rename = {f"{stem}_{k}{rest}": f"{stem}_{k + 1}{rest}"
              for (stem, rest), ks in groups.items() if 0 in ks for k in ks}
    return df.rename(rename)


def write_rows(games_dir: Path, chunk: engine.Chunk, columns: tuple[str, ...],
               rows: np.ndarray) -> None:
    """One chunk's per-playout rows as games/part-NNNNNN.parquet (written atomically), seats
    numbered from 1 as everywhere a user reads them (saved_seats)."""
    df = saved_seats(pl.DataFrame(rows, schema=list(columns), orient="row"))
    df = df.with_columns(
        pl.int_range(chunk.first, chunk.first + chunk.count, dtype=pl.Int64).alias("playout")
    ).select(["playout", *df.columns])
    final = games_dir / f"part-{chunk.index:06d}.parquet"
    tmp = games_dir / f".part-{chunk.index:06d}.parquet.tmp"
    df.write_parquet(tmp)
    tmp.replace(final)


def run_game(cfg: RunConfig, progress: engine.Progress | None = None,
             state: Progressing | None = None) -> RunResult:
    """Run a study end to end and commit its run folder.

    Everything that can be refused is checked before any folder is made: the output
    folder, the content file, the setup, and the estimated time (from the run's own first
    playouts; more than a day needs --yes). An ordinary run leaves nothing if it fails; a
    checkpointed one leaves OUT.partial with its checkpoint, to be finished by resume_run.
    """
    game = get_game(cfg.game)
    resuming = state is not None
    folder = RunFolder(cfg.out, cfg.force, checkpointed=cfg.checkpoint, resuming=resuming,
                       auto=cfg.auto_out and not resuming)
    content_file = folder.partial / CONTENT_COPY if resuming else game.content_path(cfg.content)
    content = game.load_content(content_file)
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    prep = game.prepare(content, cfg.players, cfg.seats, cfg.rules)
    engine.stoppable(game.run_chunk, prep, cfg.seed, 0, 0, game.new_aggregates(prep),
                     None)  # compile or load (plays nothing: a playout may be huge)
    compile_s = time.perf_counter() - t0
    # timed unless both the chunk size and --yes are given (nothing then needs the speed)
    per_playout = (None if cfg.chunk_size and cfg.yes
                   else seconds_per_playout(game, prep, cfg))
    size = chunk_size_for(game, cfg, per_playout)
    if per_playout is not None and not resuming:
        check_duration(cfg, per_playout)

    def fill(path: Path) -> None:
        shutil.copyfile(content.path, path / CONTENT_COPY)
        if sha256((path / CONTENT_COPY).read_bytes()) != content.sha256:
            raise UserError(f"content file {content.path} changed while the run started; "
                            f"run again")
        if cfg.checkpoint:
            checkpoint.save(path, checkpoint.config_dict(cfg), size, set(),
                            new_run_aggregates(game, prep, cfg), 0.0, content.sha256)

    try:
        folder.create(fill)
    except OSError as exc:
        raise UserError(f"{disk_error(exc, cfg.out)}; no run folder was written") from None
    try:
        aggs, run_s, stopping = play(game, prep, cfg, progress, folder.path, state, size,
                                     content.sha256)
        playouts = stopping["playouts"] if stopping else cfg.n
        manifest = {
            "format": 1, "tool": "simcli", "kind": "run", "tool_version": __version__,
            "game": game.name, "game_title": game.title, "players": cfg.players,
            "seats": list(cfg.seats), "rules": cfg.rules, "content": content.identity(),
            "policies": {p: game.describe_policy(p) for p in dict.fromkeys(cfg.seats)},
            "seed": cfg.seed, "playouts": playouts, "chunk_size": size,
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
        write_json(folder.path / MANIFEST, manifest)  # last: a manifest means complete
        final = folder.commit()
        (final / checkpoint.STATE).unlink(missing_ok=True)
    except (Interrupted, KeyboardInterrupt) as exc:  # Ctrl-C between chunks, or before
        folder.abort()
        said = str(exc) if isinstance(exc, Interrupted) else "interrupted"
        if cfg.checkpoint:
            raise Interrupted(f"{said}; checkpoint kept in {folder.path}: finish it with "
                              f"`simcli resume {cfg.out}`") from None
        raise Interrupted(f"{said}; no run folder was written") from None
    except BaseException as exc:
        folder.abort()
        failed = write_failure(exc, cfg.out)
        if failed is None:
            raise
        if cfg.checkpoint:
            raise UserError(f"{failed}; the last checkpoint in {folder.path} is intact: make "
                            f"room, then `simcli resume {cfg.out}`") from None
        raise UserError(f"{failed}; no run folder was written") from None
    return RunResult(final, manifest, summary)


def resume_run(out: Path, progress: engine.Progress | None = None, *,
               threads: int | None = None, backend: str | None = None,
               scheduler: str | None = None, workers: int | None = None) -> RunResult:
    """Finish a checkpointed run; the result equals that of an uninterrupted run.

    The checkpoint must agree with itself and its folder before anything plays: written
    by this simcli version, a valid run configuration, chunk ranges inside the plan,
    statistics of the game's shapes counting exactly the finished chunks' playouts, the
    content copy's hash, and the digest over everything (UserError otherwise)."""
    if out.name in ("", ".", ".."):
        raise UserError(f"simcli resume takes the --out folder of a checkpointed run, such "
                        f"as runs/my-run, not {out}")
    folder = checkpoint.partial_dir(out)
    if (out / MANIFEST).exists() and not folder.exists():
        raise UserError(f"{out} is already a finished run")
    if not folder.is_dir():
        raise UserError(f"no unfinished checkpointed run for {out} (no {folder})")
    if not (folder / checkpoint.STATE).exists() and (folder / CONTENT_COPY).exists():
        raise UserError(f"{folder} holds no checkpoint: the run stopped before its first one "
                        f"and nothing was played; start it again with `simcli run` (which "
                        f"removes that folder)")
    saved = checkpoint.load(folder)
    c = saved["config"]
    where = f"{folder / checkpoint.STATE}: damaged checkpoint"
    kinds = {"game": str, "players": int, "seats": list, "n": int, "seed": int, "threads": int,
             "rules": dict, "force": bool, "save_games": bool}
    for key, kind in kinds.items():
        value = c.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise UserError(f"{where}: config {key} is {value!r}")
    if not all(isinstance(s, str) for s in c["seats"]) or not all(
            isinstance(v, str) for v in c["rules"].values()):
        raise UserError(f"{where}: config seats or rules are not names")
    if c.get("content") is not None and not isinstance(c["content"], str):
        raise UserError(f"{where}: config content is {c['content']!r}")
    if c.get("checkpoint") is not True or c.get("mirror") or c.get("target_ci") is not None:
        raise UserError(f"{where}: config is not that of a checkpointed run")
    if c.get("chunk_size") not in (None, saved["chunk_size"]):
        raise UserError(f"{where}: config chunk_size {c.get('chunk_size')!r} differs from the "
                        f"chunk_size {saved['chunk_size']} its chunks were played with")
    try:
        game, cfg = build_config(
            c["game"], players=None, policy=None, seats=",".join(c["seats"]), n=c["n"],
            seed=c["seed"], threads=c["threads"],
            rules=[f"{k}={v}" for k, v in c["rules"].items()], content=c["content"], out=out,
            force=c["force"], save_games=c["save_games"], chunk_size=saved["chunk_size"],
            checkpoint=True, yes=True)
    except UserError as exc:
        raise UserError(f"{where}: {exc}") from None
    if len(c["seats"]) != c["players"] or cfg.rules != c["rules"]:
        raise UserError(f"{where}: config players, seats and rules disagree")
    copy = folder / CONTENT_COPY
    content = game.load_content(copy)
    prep = game.prepare(content, cfg.players, cfg.seats, cfg.rules)
    aggs = saved["aggregates"]
    check_shapes(aggs, new_run_aggregates(game, prep, cfg), where,
                 f"{game.name} with {cfg.players} players")
    try:
        games = core_of(game, aggs, cfg.players).games
        check_counts(game, aggs, cfg.players, games, where)
    except (IndexError, KeyError, ValueError, TypeError) as exc:
        raise UserError(f"{where}: statistics do not fit {game.name} ({exc})") from None
    done = checkpoint.check_against(saved, cfg.n, games, content.sha256, folder)
    if c.get("backend", "local") not in ("local", "dask"):
        raise UserError(f"{where}: config backend is {c.get('backend')!r}")
    cfg = replace(cfg, threads=threads or cfg.threads,
                  backend=backend or c.get("backend", "local"),
                  scheduler=scheduler if backend == "dask" else None,
                  workers=workers if backend == "dask" else None)
    if scheduler and backend == "dask":
        dask_backend.check_scheduler(scheduler)
    state = Progressing(aggs, done, saved["elapsed_s"])
    return run_game(cfg, progress, state)


def rerender(folder: Path, html: bool = False) -> RunResult:
    """Re-render tables, charts and report of a finished run from its saved statistics
    (after checking every file of the folder against its manifest)."""
    run = load_run(folder)
    manifest, aggs, game, content = run.manifest, run.aggs, run.game, run.content
    manifest.setdefault("policies", {p: game.policies.get(p, "") for p in
                                     dict.fromkeys(manifest["seats"])})
    summary = full_summary(game, aggs, manifest, content)

    def write(tmp: Path) -> None:
        write_all(summary, manifest, tmp)
        if html:
            write_html(summary, manifest, tmp)

    render_in_place(folder, write)
    return RunResult(folder, manifest, summary)
