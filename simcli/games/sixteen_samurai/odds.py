"""Sixteen Samurai battle odds (`simcli odds sixteen-samurai`): the `--dice` pools and each
pool's chance to win one battle, exact by enumeration or Monte Carlo with intervals."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from kernels.dice import MAX_DICE, UMA, odds_chunk
from kernels.sixteen_samurai import rules as KR
from reports.stats import rate
from simcli import engine
from simcli.dice_odds import win_chances
from simcli.errors import UserError
from simcli.games.base import Game, OddsRequest, OddsResult
from simcli.odds import CHUNK, pool_label

POOL_RE = re.compile(r"^(?:[1-4]|uma)$", re.IGNORECASE)


def parse_pools(values: list[str]) -> np.ndarray:
    """Pool codes from `--dice` values: 1-4 dice, or 'uma'."""
    if not 2 <= len(values) <= KR.MAX_P:
        raise UserError(f"--dice needs 2-{KR.MAX_P} pools (one per player), got {len(values)}")
    codes = []
    for v in values:
        if not POOL_RE.match(v.strip()):
            raise UserError(f"--dice pool '{v}' must be a number of dice 1-{MAX_DICE} or 'uma'")
        codes.append(UMA if v.strip().lower() == "uma" else int(v))
    return np.array(codes, np.int64)


def sixteen_samurai_odds(game: Game, req: OddsRequest) -> OddsResult:
    """Win chance of each pool in one battle (highest die, second die, tiebreaker);
    `game` is the SixteenSamurai asked (game.py imports this module, not the reverse)."""
    roster = game.load_content(game.content_path(req.content)).data
    if not req.dice:
        raise UserError("give the pools with --dice, e.g. --dice 3 2")
    codes = parse_pools(list(req.dice))
    faces, uma = roster.faces, roster.uma_value
    data: dict[str, Any] = {"game": game.name, "faces": faces, "uma_value": uma,
                            "method": "exact" if req.exact else "monte-carlo", "pools": []}
    rows, notes = [], []
    if req.exact:
        chances = win_chances([int(c) for c in codes], faces, uma)
        for i, (c, p) in enumerate(zip(codes, chances, strict=True)):
            data["pools"].append({"player": i + 1, "pool": pool_label(int(c)),
                                  "win_probability": p})
            rows.append([str(i + 1), pool_label(int(c)), f"{100 * p:.4f}%", "exact"])
    else:
        if req.n <= 0:
            raise UserError(f"-n must be a positive number of battles, not {req.n}")
        wins = np.zeros(len(codes), np.int64)
        ties = np.zeros(1, np.int64)

        def work(chunk: engine.Chunk):
            w = np.zeros(len(codes), np.int64)
            t = np.zeros(1, np.int64)
            odds_chunk(np.uint64(req.seed), chunk.first, chunk.count, codes, faces, uma, w, t)
            return w, t

        def done(_chunk, res) -> None:
            wins[:] += res[0]
            ties[:] += res[1]

        engine.run_chunks(engine.plan(req.n, CHUNK), work, done, req.threads, req.progress)
        for i, c in enumerate(codes):
            e = rate(wins[i], req.n)
            data["pools"].append({"player": i + 1, "pool": pool_label(int(c)),
                                  "win_probability": e.value, "ci_low": e.lo, "ci_high": e.hi,
                                  "battles": req.n})
            rows.append([str(i + 1), pool_label(int(c)), f"{100 * e.value:.4f}%",
                         f"{100 * e.lo:.3f}% - {100 * e.hi:.3f}%"])
        t = rate(ties[0], req.n)
        data.update(battles=req.n, seed=req.seed, tiebreaker_share=t.value,
                    tiebreaker_ci=[t.lo, t.hi])
        notes.append(f"{req.n:,} battles (seed {req.seed}); a tiebreaker roll was needed in "
                     f"{100 * t.value:.3f}%.")
    return OddsResult(title=f"{game.name} battle odds ({data['method']}, d{faces})",
                      columns=["player", "pool", "win probability", "95% interval"],
                      rows=rows, notes=notes, data=data)
