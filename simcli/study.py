"""`simcli study`: every registered game at its defaults, one combined balance report."""

from __future__ import annotations

import os
import time
from pathlib import Path

from reports.fairness import seat_fairness
from reports.study import verdict, verdict_row, write_study
from simcli import __version__, engine, warmup
from simcli.analysis import core_of, metrics_of
from simcli.errors import UserError
from simcli.registry import GAMES, get_game
from simcli.run import build_config, check_seed, check_target_ci, run_game
from simcli.runfolder import RunFolder, load_finished, write_json
from simcli.skill import skill_table
from simcli.strongest import strongest_balance, strongest_policy

DEFAULT_TARGET = 0.005
QUICK_TARGET = 0.01
SKILL_SEEDS = 5_000
QUICK_SKILL_SEEDS = 1_000


def warm_up(names: list[str], threads: int) -> warmup.Warming | None:
    """Compile (or load from the cache) the kernels of these games in background processes
    (one per thread beyond the first), in the order the study needs them; the study's own
    process compiles what it needs first and joins in whenever it would wait (`ensure`).
    Compiling overlaps with playing, and the cache's per-entry lock keeps any entry from
    being compiled twice. None when only one thread is used."""
    if threads < 2 or not names:
        return None
    return warmup.Warming(warmup.items(names), min(threads - 1, os.cpu_count() or 1))


def run_study(*, out: Path | None, force: bool, quick: bool, target_ci: float | None,
                 games: list[str] | None, seed: int, threads: int | None,
                 converge: bool = False,
                 progress: engine.Progress | None = None) -> tuple[Path, list[dict]]:
    """Run every game (or those named) to the target precision; write the combined report.

    Everything is checked before any folder is made: the games (an empty list is refused,
    not read as every game), the target (0 or below would never be reached), the seed."""
    if games is not None:
        if not [g for g in games if g]:
            raise UserError("--games names no game; give a comma-separated list such as "
                            f"{','.join(list(GAMES)[:2])}, or leave --games out for every game")
        names = [get_game(g).name for g in games]
        twice = sorted({g for g in names if names.count(g) > 1})
        if twice:
            raise UserError(f"--games names {twice[0]} twice")
    else:
        names = list(GAMES)
    check_target_ci(target_ci)
    target = target_ci if target_ci is not None else (QUICK_TARGET if quick else DEFAULT_TARGET)
    check_seed(seed)
    if threads is not None and threads <= 0:
        raise UserError(f"--threads must be positive, not {threads}")
    folder = RunFolder(out, force, default="study")
    folder.create()
    t0 = time.perf_counter()
    entries = []
    warming = warm_up(names, threads or engine.default_threads())
    progress = progress or engine.Progress()
    try:
        for k, name in enumerate(names, 1):
            game = get_game(name)
            place = f"study {k}/{len(names)} {game.title}"
            progress.stage(f"{place}: balance run ({game.default_policy})")
            if warming:
                warming.ensure(name, "fast")
            _, cfg = build_config(
                name, players=None, policy=None, seats=None, n=game.default_n, seed=seed,
                threads=threads, rules=[], content=None, out=folder.path / name, force=False,
                save_games=False, chunk_size=None, target_ci=target, html=True)
            result = run_game(cfg, progress)
            manifest, aggs = load_finished(result.folder)
            progress.stage(f"{place}: skill gaps")
            skills = skill_table(game, cfg.players, QUICK_SKILL_SEEDS if quick else
                                 SKILL_SEEDS, seed, cfg.threads, progress)
            metrics = metrics_of(game, aggs, manifest["players"])
            core = core_of(game, aggs, manifest["players"])
            fair = seat_fairness(core.seat_wins, core.games, game.team_game)
            strongest = strongest_policy(game, skills)
            progress.stage(f"{place}: strongest player ({strongest})")
            if warming and game.policy_spec(strongest).is_search:
                warming.ensure(name, "search")
            strong = strongest_balance(
                game, players=cfg.players, default_policy=cfg.seats[0], default_fair=fair,
                default_metrics=metrics, skills=skills, seed=seed, threads=cfg.threads,
                out=folder.path / f"{name}-strongest", quick=quick, converge=converge,
                progress=progress)
            entries.append({"game": name, "title": game.title, "folder": name,
                            "manifest": manifest, "skill": skills, "metrics": metrics,
                            "fairness": fair, "strongest": strong,
                            "verdict": verdict(game.title, manifest, metrics, fair, skills,
                                               game.verdict_note(manifest["rules"]),
                                               strong["text"]),
                            "row": verdict_row(game.title, manifest, metrics, fair, skills,
                                              strong)})
        meta = {"format": 1, "tool": "simcli", "kind": "study",
                "tool_version": __version__, "seed": seed, "target_ci": target,
                "seconds": time.perf_counter() - t0,
                "threads": threads or engine.default_threads(), "cores": os.cpu_count(),
                "games": names}
        write_study(entries, folder.path, meta)
        write_json(folder.path / "manifest.json", meta)
        final = folder.commit()
    except BaseException:
        folder.abort()
        raise
    finally:
        if warming:
            warming.stop()
    return final, entries
