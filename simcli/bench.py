"""`simcli bench`: playouts per second and compile time, measured apart, on fixed seeds."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

from simcli import engine
from simcli.games.base import Game
from simcli.registry import GAMES

BENCH_SEED = 12345


def _spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "repeats": len(values)}


def _cache_state(game: Game) -> str:
    """'compiled' if the game kernel was compiled in this process, else 'cache'."""
    kernel = getattr(game, "kernel", None)
    stats = getattr(kernel, "stats", None)
    if stats is None:
        return "unknown"
    return "compiled" if sum(stats.cache_misses.values()) else "cache"


def first_call(game: Game) -> tuple[Any, float]:
    """(prepared inputs, seconds) for the default setup's first playout: compile or cache load."""
    content = game.load_content(game.content_path(None))
    seats = (game.default_policy,) * game.default_players
    t0 = time.perf_counter()
    prep = game.prepare(content, game.default_players, seats, game.resolve_rules([]))
    game.run_chunk(prep, BENCH_SEED, 0, 1, game.new_aggregates(prep), None)
    return prep, time.perf_counter() - t0


def cold_compile_seconds(game_name: str) -> float:
    """First-call seconds in a fresh process with an empty numba cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        code = ("import json; from simcli.bench import first_call; "
                "from simcli.registry import GAMES; "
                f"print(json.dumps(first_call(GAMES[{game_name!r}])[1]))")
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             capture_output=True, text=True)
        return float(out.stdout.strip().splitlines()[-1])


def _rate_one_thread(game: Game, prep: Any, count: int, repeats: int) -> list[float]:
    rates = []
    for r in range(repeats):
        aggs = game.new_aggregates(prep)
        t0 = time.perf_counter()
        game.run_chunk(prep, BENCH_SEED, r * count, count, aggs, None)
        rates.append(count / (time.perf_counter() - t0))
    return rates


def _rate_threads(game: Game, prep: Any, count: int, threads: int, repeats: int) -> list[float]:
    rates = []
    chunk = max(1, min(game.chunk_size, count // (4 * threads) or 1))
    for _ in range(repeats):
        total = game.new_aggregates(prep)

        def work(c: engine.Chunk, _total=total):
            aggs = game.new_aggregates(prep)
            game.run_chunk(prep, BENCH_SEED, c.first, c.count, aggs, None)
            return aggs

        def done(_c, aggs, _total=total) -> None:
            engine.merge(_total, aggs)

        secs = engine.run_chunks(engine.plan(count * threads, chunk), work, done, threads)
        rates.append(count * threads / secs)
    return rates


def bench_game(game: Game, *, threads: int, seconds: float, repeats: int,
               cold: bool) -> dict[str, Any]:
    """Compile time and steady-state playouts/s (1 thread and `threads`) of a game."""
    prep, first_s = first_call(game)
    state = _cache_state(game)
    probe = max(100, game.chunk_size // 4)
    t0 = time.perf_counter()
    game.run_chunk(prep, BENCH_SEED, 0, probe, game.new_aggregates(prep), None)
    per_s = probe / (time.perf_counter() - t0)
    count = max(probe, int(per_s * seconds))
    one = _rate_one_thread(game, prep, count, repeats)
    result = {
        "game": game.name, "setup": f"{game.default_players} players, "
        f"{game.default_policy} on every seat, default rules and content",
        "first_call_s": round(first_s, 3), "first_call": state,
        "playouts_per_s_1_thread": _spread(one), "playouts_per_repeat": count,
    }
    if threads > 1:
        many = _rate_threads(game, prep, count, threads, repeats)
        result[f"playouts_per_s_{threads}_threads"] = _spread(many)
        result["thread_scaling"] = statistics.median(many) / statistics.median(one)
    if cold:
        result["cold_compile_s"] = round(cold_compile_seconds(game.name), 3)
    return result


def bench_dice(*, seconds: float, repeats: int) -> dict[str, Any]:
    """Sixteen Samurai dice resolutions per second, 3 dice against 2, one thread."""
    from kernels.dice import odds_chunk

    codes = np.array([3, 2], np.int64)
    w = np.zeros(2, np.int64)
    t = np.zeros(1, np.int64)
    odds_chunk(np.uint64(BENCH_SEED), 0, 10, codes, 8, 7, w, t)
    t0 = time.perf_counter()
    odds_chunk(np.uint64(BENCH_SEED), 0, 1_000_000, codes, 8, 7, w, t)
    count = max(1_000_000, int(1_000_000 / (time.perf_counter() - t0) * seconds))
    rates = []
    for r in range(repeats):
        t0 = time.perf_counter()
        odds_chunk(np.uint64(BENCH_SEED), r * count, count, codes, 8, 7, w, t)
        rates.append(count / (time.perf_counter() - t0))
    return {"what": "sixteen-samurai dice resolution, 3 dice vs 2 (d8), 1 thread",
            "resolutions_per_s": _spread(rates), "resolutions_per_repeat": count}


def run_bench(names: list[str], *, threads: int, seconds: float, repeats: int,
              cold: bool) -> dict[str, Any]:
    """Benchmarks of the named games (all when empty)."""
    games = [GAMES[n] for n in names] if names else list(GAMES.values())
    out: dict[str, Any] = {"threads": threads, "cores": os.cpu_count(), "seed": BENCH_SEED,
                           "games": []}
    for game in games:
        out["games"].append(bench_game(game, threads=threads, seconds=seconds,
                                       repeats=repeats, cold=cold))
        if game.name == "sixteen-samurai":
            out["dice"] = bench_dice(seconds=seconds, repeats=repeats)
    return out


def to_json(result: dict[str, Any]) -> str:
    """The benchmark as indented JSON."""
    return json.dumps(result, indent=2)
