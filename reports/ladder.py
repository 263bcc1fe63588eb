"""Ratings of policies from games between them: a Bradley-Terry / Luce choice model on an
Elo scale, with intervals from a bootstrap over deals.

Every game of a pairing has the same make-up (so many seats of each policy, rotated round
the table), and the model says a policy with strength g wins a game with probability g
divided by the summed strength of the seats at the table (Luce's choice model; with two
players it is Bradley-Terry). A shared victory counts as a fraction of a win for each
winner. Strengths are fitted by maximum likelihood with Hunter's (2004) MM algorithm and
reported as Elo ratings, 400 log10(g) with the anchor policy (random) at 0. The 95%
intervals come from refitting on deals resampled within each pairing (a deal is the unit:
its seat rotations are not independent games).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ELO = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class Pairing:
    """The games of one pairing: make-up[p] = seats of policy p at the table;
    wins[d, p] = wins of policy p's seats over the rotations of deal d (fractions for
    shared wins); rotations = games per deal."""

    makeup: np.ndarray
    wins: np.ndarray
    rotations: int


def fit_strengths(pairings: list[Pairing], n_policies: int, anchor: int = 0,
                  iters: int = 2000, tol: float = 1e-10) -> np.ndarray:
    """Maximum-likelihood strengths (anchor = 1) of the Luce model by MM iterations.

    A policy that never wins (or always wins) has no finite estimate; a pseudo-game
    against the anchor with half a win each way keeps every strength finite."""
    wins = np.full(n_policies, 0.5)
    games = []
    for pg in pairings:
        w = pg.wins.sum(axis=0)
        total = w.sum()
        n_games = pg.wins.shape[0] * pg.rotations
        scale = n_games / total if total > 0 else 0.0  # each game has one winner in all
        wins += w * scale
        games.append((pg.makeup.astype(float), n_games))
    gamma = np.ones(n_policies)
    for _ in range(iters):
        denom = np.zeros(n_policies)
        for makeup, n_games in games:
            denom += n_games * makeup / float(makeup @ gamma)
        prior = np.zeros(n_policies)  # the pseudo-games against the anchor
        for p in range(n_policies):
            if p != anchor:
                prior[p] += 1.0 / (gamma[p] + gamma[anchor])
                prior[anchor] += 1.0 / (gamma[p] + gamma[anchor])
        new = wins / (denom + prior)
        new /= new[anchor]
        if np.max(np.abs(np.log(new) - np.log(gamma))) < tol:
            gamma = new
            break
        gamma = new
    return gamma


@dataclass(frozen=True)
class Rating:
    """A policy's Elo rating with its 95% interval."""

    policy: str
    elo: float
    lo: float
    hi: float


def ratings(pairings: list[Pairing], names: list[str], anchor: int = 0, boot: int = 200,
            seed: int = 1) -> list[Rating]:
    """Elo ratings (anchor at 0) with 95% bootstrap intervals over deals."""
    point = ELO * np.log(fit_strengths(pairings, len(names), anchor))
    rng = np.random.default_rng(seed)
    draws = np.zeros((boot, len(names)))
    for b in range(boot):
        resampled = [Pairing(pg.makeup, pg.wins[rng.integers(0, len(pg.wins), len(pg.wins))],
                             pg.rotations) for pg in pairings]
        draws[b] = ELO * np.log(fit_strengths(resampled, len(names), anchor))
    lo, hi = np.percentile(draws, [2.5, 97.5], axis=0)
    return [Rating(n, float(point[i]), float(min(lo[i], point[i])),
                   float(max(hi[i], point[i]))) for i, n in enumerate(names)]
