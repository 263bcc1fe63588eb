"""Battle odds for one game's fight: exact by enumeration, or Monte Carlo with intervals."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernels.dice import UMA, odds_chunk
from reports.stats import rate
from simcli import engine
from simcli.dice_odds import win_chances
from simcli.errors import UserError
from simcli.games.sixteen_samurai import SixteenSamurai, parse_pools
from simcli.registry import get_game

CHUNK = 1_000_000


def pool_label(code: int) -> str:
    """'3 dice' or 'Uma'."""
    return "Uma" if code == UMA else f"{code} {'die' if code == 1 else 'dice'}"


def sixteen_samurai_odds(pools: list[str], *, exact: bool, n: int, seed: int, threads: int,
                         content: str | None,
                         progress: engine.Progress | None = None) -> dict[str, Any]:
    """Win chance of each pool in one battle (highest die, second die, tiebreaker)."""
    game = SixteenSamurai()
    roster = game.load_content(game.content_path(content)).data
    codes = parse_pools(pools)
    faces, uma = roster.faces, roster.uma_value
    result: dict[str, Any] = {"game": game.name, "faces": faces, "uma_value": uma,
                              "method": "exact" if exact else "monte-carlo", "pools": []}
    if exact:
        chances = win_chances([int(c) for c in codes], faces, uma)
        for i, (c, p) in enumerate(zip(codes, chances, strict=True)):
            result["pools"].append({"player": i + 1, "pool": pool_label(int(c)),
                                    "win_probability": p})
        return result
    if n <= 0:
        raise UserError(f"-n must be a positive number of battles, not {n}")
    wins = np.zeros(len(codes), np.int64)
    ties = np.zeros(1, np.int64)

    def work(chunk: engine.Chunk):
        w = np.zeros(len(codes), np.int64)
        t = np.zeros(1, np.int64)
        odds_chunk(np.uint64(seed), chunk.first, chunk.count, codes, faces, uma, w, t)
        return w, t

    def done(_chunk, res) -> None:
        wins[:] += res[0]
        ties[:] += res[1]

    engine.run_chunks(engine.plan(n, CHUNK), work, done, threads, progress)
    for i, c in enumerate(codes):
        e = rate(wins[i], n)
        result["pools"].append({"player": i + 1, "pool": pool_label(int(c)),
                                "win_probability": e.value, "ci_low": e.lo, "ci_high": e.hi,
                                "battles": n})
    t = rate(ties[0], n)
    result.update(battles=n, seed=seed, tiebreaker_share=t.value,
                  tiebreaker_ci=[t.lo, t.hi])
    return result


ODDS = {"sixteen-samurai": sixteen_samurai_odds}


def odds_for(game_name: str):
    """The odds function of a game, or a UserError when it has none."""
    game = get_game(game_name)
    if game.name not in ODDS:
        raise UserError(f"odds are not available for {game.name}; available: {', '.join(ODDS)}")
    return ODDS[game.name]
