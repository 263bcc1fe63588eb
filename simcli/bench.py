"""`simcli bench`: compile time and playouts/s measured apart, on fixed seeds, and a
regression gate against a stored baseline.

Repeats are interleaved across games (A, B, A, B, ...) so that a slow spell of a shared
machine hits every game alike; each figure is the median with its min and max.
"""

from __future__ import annotations

import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from reports.words import plural
from simcli import engine
from simcli.errors import UserError
from simcli.games.base import Game
from simcli.registry import GAMES

BENCH_SEED = 12345
FORMAT = "simcli-bench-1"


def _spread(values: list[float]) -> dict[str, Any]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "values": values}


def _cache_state(game: Game) -> str:
    """'compiled' if the game's kernel entry was compiled in this process, else 'cache'."""
    kernel = getattr(game, "kernel", None)
    entry = kernel.python_entry() if hasattr(kernel, "python_entry") else kernel
    stats = getattr(entry, "stats", None)
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


def first_search_call(game: Game) -> None:
    """Compile (or load from the cache) a game's search path: one playout with one seat
    searching at a budget of 2."""
    if game.search is None:
        return
    content = game.load_content(game.content_path(None))
    players = game.default_players
    seats = (f"{game.search.name}:2",) + (game.default_policy,) * (players - 1)
    prep = game.prepare(content, players, seats, game.resolve_rules([]))
    game.run_chunk(prep, BENCH_SEED, 0, 1, game.new_aggregates(prep), None)


def cold_compile_seconds(game_name: str) -> float:
    """First-call seconds in a fresh process with an empty compile cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "SIMCLI_CACHE_DIR": cache, "NUMBA_CACHE_DIR": cache}
        code = ("import json; from simcli.bench import first_call; "
                "from simcli.registry import GAMES; "
                f"print(json.dumps(first_call(GAMES[{game_name!r}])[1]))")
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             capture_output=True, text=True)
        return float(out.stdout.strip().splitlines()[-1])


class _Setup:
    """One game's prepared inputs and the playouts per repeat."""

    def __init__(self, game: Game, seconds: float, threads: int) -> None:
        self.game = game
        self.threads = threads
        self.prep, self.first_s = first_call(game)
        self.first_state = _cache_state(game)
        probe = max(100, game.chunk_size // 4)
        t0 = time.perf_counter()
        game.run_chunk(self.prep, BENCH_SEED, 0, probe, game.new_aggregates(self.prep), None)
        self.count = max(probe, int(probe / (time.perf_counter() - t0) * seconds))
        self.one: list[float] = []
        self.many: list[float] = []
        self.moves: list[float] = []

    def repeat(self, r: int) -> None:
        game, prep, count = self.game, self.prep, self.count
        aggs = game.new_aggregates(prep)
        t0 = time.perf_counter()
        game.run_chunk(prep, BENCH_SEED, r * count, count, aggs, None)
        rate = count / (time.perf_counter() - t0)
        self.one.append(rate)
        core = game.core_stats(aggs, game.default_players)
        self.unit = core.length_unit
        mean_len = float((core.length * np.arange(len(core.length))).sum() / max(core.games, 1))
        self.moves.append(rate * mean_len)
        if self.threads > 1:
            self.many.append(self._threaded(r))

    def _threaded(self, r: int) -> float:
        game, prep, threads = self.game, self.prep, self.threads
        total = self.count * threads
        chunk = max(1, min(game.chunk_size, total // (4 * threads)))
        sink = game.new_aggregates(prep)

        def work(c: engine.Chunk):
            aggs = game.new_aggregates(prep)
            game.run_chunk(prep, BENCH_SEED, 10**9 + r * total + c.first, c.count, aggs, None)
            return aggs

        secs = engine.run_chunks(engine.plan(total, chunk), work,
                                 lambda _c, a: engine.merge(sink, a), threads)
        return total / secs

    def result(self, cold: bool) -> dict[str, Any]:
        g = self.game
        out: dict[str, Any] = {
            "setup": f"{g.default_players} players, {g.default_policy} on every seat, "
                     f"default rules and content",
            "first_call_s": round(self.first_s, 3), "first_call": self.first_state,
            "playouts_per_repeat": self.count,
            "playouts_per_s": _spread(self.one),
            "moves_per_s": _spread(self.moves), "move_unit": self.unit,
        }
        if self.many:
            out["playouts_per_s_threads"] = _spread(self.many)
            out["thread_scaling"] = round(statistics.median(self.many)
                                          / statistics.median(self.one), 3)
        if cold:
            out["cold_compile_s"] = round(cold_compile_seconds(g.name), 3)
        return out


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


SEARCH_BUDGET = 100  # simulations per decision of the benchmarked search player


def bench_search(game: Game, *, seconds: float, repeats: int) -> dict[str, Any]:
    """Simulated moves per second of a game's search player (one seat searching at
    SEARCH_BUDGET simulations per decision against the default policy), one thread."""
    policy = f"{game.search.name}:{SEARCH_BUDGET}"
    players = game.default_players
    seats = (policy,) + (game.default_policy,) * (players - 1)
    content = game.load_content(game.content_path(None))
    prep = game.prepare(content, players, seats, game.resolve_rules([]))
    out = np.zeros((0, len(game.row_columns)), np.int64)
    forbid = np.zeros((players, len(game.options)), np.bool_)

    def play(first: int, count: int) -> tuple[int, float]:
        t0 = time.perf_counter()
        moves = game.run_search_chunk(prep, BENCH_SEED, first, count,
                                      game.new_aggregates(prep), out, 0, forbid)
        return moves, time.perf_counter() - t0

    play(0, 1)  # compile
    moves, dt = play(1, 2)
    count = max(1, int(2 * seconds / max(dt, 1e-9)))
    rates = []
    for r in range(repeats):
        moves, dt = play(10 + r * count, count)
        rates.append(moves / dt)
    return {"what": f"{game.name}: {policy} against {game.default_policy}, simulated moves "
                    f"per second, 1 thread", "moves_per_s": _spread(rates),
            "games_per_repeat": count}


def run_bench(names: list[str], *, threads: int, seconds: float, repeats: int,
              cold: bool) -> dict[str, Any]:
    """Benchmarks of the named games (all when empty), repeats interleaved across games."""
    games = [GAMES[n] for n in names] if names else list(GAMES.values())
    setups = [_Setup(g, seconds, threads) for g in games]
    for r in range(repeats):
        for s in setups:
            s.repeat(r)
    out: dict[str, Any] = {
        "format": FORMAT, "threads": threads, "cores": os.cpu_count(), "seed": BENCH_SEED,
        "repeats": repeats, "seconds_per_repeat": seconds,
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "python": platform.python_version(),
        "games": {s.game.name: s.result(cold) for s in setups},
    }
    if "sixteen-samurai" in out["games"]:
        out["dice"] = bench_dice(seconds=seconds, repeats=repeats)
    searching = [s.game for s in setups if hasattr(s.game, "run_search_chunk")]
    if searching:
        out["search"] = {g.name: bench_search(g, seconds=seconds, repeats=repeats)
                         for g in searching}
    return out


def _spread_ok(x: Any) -> bool:
    """A measured spread the comparison can use: finite positive median, min and max, in
    that order (min <= median <= max)."""
    return isinstance(x, dict) and all(
        isinstance(x.get(k), int | float) and not isinstance(x.get(k), bool)
        and math.isfinite(x[k]) and x[k] > 0 for k in ("median", "min", "max")
    ) and x["min"] <= x["median"] <= x["max"]


def load_baseline(path: Path) -> dict[str, Any]:
    """A baseline written by `simcli bench --json`, every figure the comparison reads
    checked (finite positive rates), or a UserError saying what is wrong."""
    from simcli.runfolder import read_json

    doc = read_json(path, "baseline")
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(
            doc.get("games"), dict):
        raise UserError(f"baseline {path} is not a `simcli bench --json` file ({FORMAT})")
    for name, g in doc["games"].items():
        if not isinstance(g, dict) or not _spread_ok(g.get("playouts_per_s")):
            raise UserError(f"baseline {path}: games.{name}.playouts_per_s must hold positive "
                            f"numbers min <= median <= max (a `simcli bench --json` file)")
    if "dice" in doc and not (isinstance(doc["dice"], dict)
                              and _spread_ok(doc["dice"].get("resolutions_per_s"))):
        raise UserError(f"baseline {path}: dice.resolutions_per_s must hold positive numbers "
                        f"min <= median <= max")
    for name, g in (doc.get("search") or {}).items():
        if not isinstance(g, dict) or not _spread_ok(g.get("moves_per_s")):
            raise UserError(f"baseline {path}: search.{name}.moves_per_s must hold positive "
                            f"numbers min <= median <= max")
    return doc


def _verdict(name: str, measure: str, cur: dict, base: dict, tolerance: float) -> dict:
    ratio = cur["median"] / base["median"]
    # A regression: even the fastest repeat now is slower than the slowest baseline repeat
    # by more than the tolerance, i.e. the slowdown exceeds the tolerance beyond the noise.
    regressed = cur["max"] < base["min"] * (1 - tolerance)
    return {"game": name, "measure": measure, "baseline_median": base["median"],
            "current_median": cur["median"], "change": ratio - 1, "regressed": regressed}


def compare(current: dict[str, Any], baseline: dict[str, Any],
            tolerance: float) -> list[dict[str, Any]]:
    """One verdict per measure present in both (playouts/s per game, dice resolutions/s,
    a search player's simulated moves/s per game)."""
    rows = []
    for name, cur in current["games"].items():
        base = baseline["games"].get(name)
        if base is None:
            continue
        rows.append(_verdict(name, "playouts/s, 1 thread", cur["playouts_per_s"],
                             base["playouts_per_s"], tolerance))
    if "dice" in current and "dice" in baseline:
        rows.append(_verdict("sixteen-samurai", "dice resolutions/s",
                             current["dice"]["resolutions_per_s"],
                             baseline["dice"]["resolutions_per_s"], tolerance))
    base_search = baseline.get("search") or {}
    for name, cur in (current.get("search") or {}).items():
        if name in base_search:
            rows.append(_verdict(name, "search simulated moves/s", cur["moves_per_s"],
                                 base_search[name]["moves_per_s"], tolerance))
    return rows


def rows_for_table(res: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(measure, median, min - max) rows of a benchmark, for tables."""
    rows = []
    for name, g in res["games"].items():
        rows.append((f"{name}: first call ({g['first_call']})", f"{g['first_call_s']} s", ""))
        if "cold_compile_s" in g:
            rows.append((f"{name}: cold compile", f"{g['cold_compile_s']} s", ""))
        p = g["playouts_per_s"]
        rows.append((f"{name}: playouts/s, 1 thread", f"{p['median']:,.0f}",
                     f"{p['min']:,.0f} - {p['max']:,.0f}"))
        m = g["moves_per_s"]
        rows.append((f"{name}: moves ({g['move_unit']})/s, 1 thread", f"{m['median']:,.0f}",
                     f"{m['min']:,.0f} - {m['max']:,.0f}"))
        if "playouts_per_s_threads" in g:
            t = g["playouts_per_s_threads"]
            rows.append((f"{name}: playouts/s, {plural(res['threads'], 'thread')}",
                         f"{t['median']:,.0f}",
                         f"{t['min']:,.0f} - {t['max']:,.0f}"))
            rows.append((f"{name}: thread scaling", f"{g['thread_scaling']:.2f}x", ""))
    if "dice" in res:
        d = res["dice"]["resolutions_per_s"]
        rows.append(("sixteen-samurai: dice resolutions/s (3 vs 2)", f"{d['median']:,.0f}",
                     f"{d['min']:,.0f} - {d['max']:,.0f}"))
    for name, g in res.get("search", {}).items():
        m = g["moves_per_s"]
        rows.append((f"{name}: search simulated moves/s (mcts:{SEARCH_BUDGET}), 1 thread",
                     f"{m['median']:,.0f}", f"{m['min']:,.0f} - {m['max']:,.0f}"))
    return rows


def markdown(res: dict[str, Any], verdicts: list[dict[str, Any]] | None = None) -> str:
    """The benchmark (and baseline verdicts) as Markdown tables."""
    lines = [f"simcli bench: {res['cores']} cores, {res['repeats']} interleaved repeats, "
             f"seed {res['seed']}", "", "| measure | median | min - max |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows_for_table(res)]
    if verdicts:
        lines += ["", "| game | measure | baseline | now | change | verdict |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {v['game']} | {v['measure']} | {v['baseline_median']:,.0f} | "
                  f"{v['current_median']:,.0f} | {100 * v['change']:+.1f}% | "
                  f"{'REGRESSION' if v['regressed'] else 'ok'} |" for v in verdicts]
    return "\n".join(lines)
