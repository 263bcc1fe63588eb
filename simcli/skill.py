"""Skill gap: how much a game rewards good play.

A policy X plays against `random` opponents from every seat in turn (arrangement r puts X
in seat r); on the same seeds, an all-random game gives the baseline: how often a random
player wins from those seats. The edge is X's win rate minus that baseline, with an
interval from the per-seed pairs (reports.stats.paired_difference: inside the metric's
range, never of zero width). Team games count a seat as winning when
its team wins, so the baseline is not simply 1/P.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from reports.stats import bounded_mean, paired_difference
from simcli import engine
from simcli.errors import UserError
from simcli.games.base import Game
from simcli.registry import get_game
from simcli.run import TARGET_CHUNK_S, probe_seconds

BASELINE = "random"


def skill_task(game_name: str, preps: list[Any], base: Any, seed: int, first: int,
               count: int) -> np.ndarray:
    """counts[kx, kb]: seeds on which X won kx of the P arrangements and random players
    won kb of the same P seats in the all-random game."""
    game = get_game(game_name)
    P = len(preps)
    rows = np.zeros((count, len(game.row_columns)), np.int64)
    kx = np.zeros(count, np.int64)
    for r, prep in enumerate(preps):
        game.run_chunk(prep, seed, first, count, game.new_aggregates(prep), rows)
        kx += game.seats_won(rows)[:, r]
    game.run_chunk(base, seed, first, count, game.new_aggregates(base), rows)
    kb = game.seats_won(rows)[:, :P].sum(axis=1)
    counts = np.zeros((P + 1, P + 1), np.int64)
    np.add.at(counts, (kx, kb), 1)
    return counts


def skill_gap(game: Game, policy: str, players: int, n: int, seed: int, threads: int,
              progress: engine.Progress | None = None, content: Any = None,
              rules: dict[str, str] | None = None) -> dict[str, Any]:
    """Win rate of `policy` against random opponents from every seat, and its edge over
    random players in the same seats, paired by seed (the game's default content and rule
    options unless given)."""
    game.check_players(players)
    game.check_policy(policy)
    if BASELINE not in game.policies:
        raise UserError(f"{game.name} has no '{BASELINE}' policy to measure skill against")
    content = content if content is not None else game.load_content(game.content_path(None))
    rules = rules if rules is not None else game.resolve_rules([])
    preps = [game.prepare(content, players, tuple(policy if s == r else BASELINE
                                                  for s in range(players)), rules)
             for r in range(players)]
    base = game.prepare(content, players, (BASELINE,) * players, rules)
    counts = np.zeros((players + 1, players + 1), np.int64)

    def done(_chunk, part) -> None:
        counts[:] += part

    per_seed = probe_seconds(lambda first, count: skill_task(game.name, preps, base, seed,
                                                             first, count))
    cap = max(1, int(TARGET_CHUNK_S / per_seed))  # short chunks: Ctrl-C stays quick
    engine.run_chunks(engine.spread_plan(game, n, threads, cap),
                      lambda c: skill_task(game.name, preps, base, seed, c.first, c.count),
                      done, threads, progress)
    kx, kb = np.meshgrid(np.arange(players + 1), np.arange(players + 1), indexing="ij")
    x, b = kx / players, kb / players
    sx, sxx = float((counts * x).sum()), float((counts * x * x).sum())
    sb, sbb = float((counts * b).sum()), float((counts * b * b).sum())
    win, base_rate = bounded_mean(sx, sxx, n), bounded_mean(sb, sbb, n)
    edge = paired_difference(sx, sxx, sb, sbb, float((counts * x * b).sum()), n)
    return {"game": game.name, "policy": policy, "against": BASELINE, "players": players,
            "seeds": n, "games": n * (players + 1), "win_rate": win.value,
            "ci_low": win.lo, "ci_high": win.hi, "baseline": sb / n,
            "baseline_ci_low": base_rate.lo, "baseline_ci_high": base_rate.hi,
            "edge": edge.value, "edge_ci_low": edge.lo, "edge_ci_high": edge.hi}


def skill_table(game: Game, players: int, n: int, seed: int, threads: int,
                progress: engine.Progress | None = None, policies: list[str] | None = None,
                content: Any = None, rules: dict[str, str] | None = None
                ) -> list[dict[str, Any]]:
    """The skill gap of each of `policies` (every non-random policy of the game when None),
    on the given content and rule options (the defaults when None)."""
    chosen = [p for p in game.policies if p != BASELINE] if policies is None else policies
    for p in chosen:
        game.check_policy(p)
        if p == BASELINE:
            raise UserError(f"--policy {BASELINE} is the baseline every policy is measured "
                            f"against; name another")
    return [skill_gap(game, p, players, n, seed, threads, progress, content, rules)
            for p in chosen]


def describe(r: dict[str, Any]) -> str:
    """One sentence on a skill gap."""
    return (f"{r['policy']} wins {100 * r['win_rate']:.1f}% (95% CI {100 * r['ci_low']:.1f}-"
            f"{100 * r['ci_high']:.1f}%) against {r['players'] - 1} random "
            f"player{'s' if r['players'] > 2 else ''} from every seat; random players in the "
            f"same seats on the same seeds win {100 * r['baseline']:.1f}%: a skill edge of "
            f"{100 * r['edge']:+.1f} points (95% CI {100 * r['edge_ci_low']:+.1f} to "
            f"{100 * r['edge_ci_high']:+.1f}).")


def write_skill(out: Path, force: bool, game: Game, rows: list[dict[str, Any]], content: Any,
                rules: dict[str, str], seed: int) -> Path:
    """A skill folder: skill.csv / skill.parquet, manifest.json and report.md."""
    import polars as pl

    from reports.render import md_text, write_csv
    from simcli import __version__
    from simcli.runfolder import RunFolder, write_json

    folder = RunFolder(out, force, default=f"skill-{game.name}")
    folder.create()
    try:
        table = pl.DataFrame(rows)
        table.write_parquet(folder.path / "skill.parquet")
        write_csv(table, folder.path / "skill.csv")
        manifest = {"format": 1, "tool": "simcli", "kind": "skill",
                    "tool_version": __version__, "game": game.name,
                    "players": rows[0]["players"] if rows else None, "seed": seed,
                    "rules": rules, "content": content.identity(),
                    "policies": [r["policy"] for r in rows]}
        lines = [f"# Skill gap: {md_text(game.title)}", "",
                 *[f"- {md_text(describe(r))}" for r in rows], "",
                 "Each policy plays against random players from every seat in turn; random "
                 "players in the same seats on the same seeds give the baseline; the edge's "
                 "interval is paired by seed (reports.stats.paired_difference)."]
        (folder.path / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        write_json(folder.path / "manifest.json", manifest)
        return folder.commit()
    except BaseException:
        folder.abort()
        raise
