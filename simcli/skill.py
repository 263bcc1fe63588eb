"""Skill gap: how much a game rewards good play.

A policy X plays against `random` opponents from every seat in turn, on the same seeds
(arrangement r puts X in seat r). Its win rate against the fair share 1/P, with an interval
from the per-seed counts (how many of the P arrangements X won on that seed), says how much
better play is rewarded.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from reports.stats import CONFIDENCE, z_value
from simcli import engine
from simcli.errors import UserError
from simcli.games.base import Game
from simcli.registry import get_game

BASELINE = "random"


def skill_task(game_name: str, preps: list[Any], seed: int, first: int,
               count: int) -> np.ndarray:
    """counts[k]: seeds of this chunk on which X won k of the arrangements."""
    game = get_game(game_name)
    P = len(preps)
    col = game.row_columns.index("winner")
    won = np.zeros(count, np.int64)
    rows = np.zeros((count, len(game.row_columns)), np.int64)
    for r, prep in enumerate(preps):
        game.run_chunk(prep, seed, first, count, game.new_aggregates(prep), rows)
        won += rows[:, col] == r
    return np.bincount(won, minlength=P + 1)


def skill_gap(game: Game, policy: str, players: int, n: int, seed: int, threads: int,
              progress: engine.Progress | None = None) -> dict[str, Any]:
    """Win rate of `policy` against random opponents from every seat, paired by seed."""
    game.check_players(players)
    game.check_policy(policy)
    if BASELINE not in game.policies:
        raise UserError(f"{game.name} has no '{BASELINE}' policy to measure skill against")
    content = game.load_content(game.content_path(None))
    rules = game.resolve_rules([])
    preps = []
    for r in range(players):
        seats = tuple(policy if s == r else BASELINE for s in range(players))
        preps.append(game.prepare(content, players, seats, rules))
    counts = np.zeros(players + 1, np.int64)

    def done(_chunk, part) -> None:
        counts[:] += part

    size = max(1, min(game.chunk_size, math.ceil(n / (4 * threads))))
    engine.run_chunks(engine.plan(n, size),
                      lambda c: skill_task(game.name, preps, seed, c.first, c.count), done,
                      threads, progress)
    k = np.arange(players + 1)
    x = k / players
    mean = float((counts * x).sum() / n)
    var = float((counts * (x - mean) ** 2).sum() / max(n - 1, 1))
    half = z_value(CONFIDENCE) * math.sqrt(var / n)
    fair = 1 / players
    return {"game": game.name, "policy": policy, "against": BASELINE, "players": players,
            "seeds": n, "games": n * players, "win_rate": mean, "ci_low": mean - half,
            "ci_high": mean + half, "fair_share": fair, "edge": mean - fair,
            "edge_ci_low": mean - half - fair, "edge_ci_high": mean + half - fair}


def skill_table(game: Game, players: int, n: int, seed: int, threads: int,
                progress: engine.Progress | None = None) -> list[dict[str, Any]]:
    """The skill gap of every non-random policy of a game."""
    return [skill_gap(game, p, players, n, seed, threads, progress)
            for p in game.policies if p != BASELINE]


def describe(r: dict[str, Any]) -> str:
    """One sentence on a skill gap."""
    return (f"{r['policy']} wins {100 * r['win_rate']:.1f}% (95% CI {100 * r['ci_low']:.1f}-"
            f"{100 * r['ci_high']:.1f}%) against {r['players'] - 1} random "
            f"player{'s' if r['players'] > 2 else ''} from every seat on the same seeds, "
            f"against a fair {100 * r['fair_share']:.1f}%: a skill edge of "
            f"{100 * r['edge']:+.1f} points.")
