"""`simcli study`: every registered game at its defaults, one combined balance report."""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path

from reports.fairness import seat_fairness
from reports.study import verdict, verdict_row, write_study
from simcli import __version__, engine
from simcli.analysis import core_of, metrics_of
from simcli.errors import UserError
from simcli.registry import GAMES, get_game
from simcli.run import build_config, run_game
from simcli.runfolder import RunFolder, load_finished, write_json
from simcli.skill import skill_table

DEFAULT_TARGET = 0.005
QUICK_TARGET = 0.01
SKILL_SEEDS = 5_000
QUICK_SKILL_SEEDS = 1_000


def run_study(*, out: Path | None, force: bool, quick: bool, target_ci: float | None,
                 games: list[str] | None, seed: int, threads: int | None,
                 progress: engine.Progress | None = None) -> tuple[Path, list[dict]]:
    """Run every game (or those named) to the target precision; write the combined report."""
    names = [get_game(g).name for g in games] if games else list(GAMES)
    target = target_ci or (QUICK_TARGET if quick else DEFAULT_TARGET)
    if not 0 < target < 0.5:
        raise UserError(f"--target-ci must be between 0 and 0.5, not {target}")
    if out is None:
        out = Path("runs") / f"study-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    folder = RunFolder(out, force)
    t0 = time.perf_counter()
    entries = []
    try:
        for name in names:
            game = get_game(name)
            _, cfg = build_config(
                name, players=None, policy=None, seats=None, n=game.default_n, seed=seed,
                threads=threads, rules=[], content=None, out=folder.path / name, force=False,
                save_games=False, chunk_size=None, target_ci=target, html=True)
            result = run_game(cfg, progress)
            manifest, aggs = load_finished(result.folder)
            skills = skill_table(game, cfg.players, QUICK_SKILL_SEEDS if quick else
                                 SKILL_SEEDS, seed, cfg.threads, progress)
            metrics = metrics_of(game, aggs, manifest["players"])
            core = core_of(game, aggs, manifest["players"])
            fair = seat_fairness(core.seat_wins, core.games, game.team_game)
            entries.append({"game": name, "title": game.title, "folder": name,
                            "manifest": manifest, "skill": skills, "metrics": metrics,
                            "fairness": fair,
                            "verdict": verdict(game.title, manifest, metrics, fair, skills,
                                               game.verdict_note(manifest["rules"])),
                            "row": verdict_row(game.title, manifest, metrics, fair, skills)})
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
    return final, entries
