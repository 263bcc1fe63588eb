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

When a policy won (or lost) every game linking it to the anchor, its maximum-likelihood
rating is infinite: the point shown is the finite one the pseudo-game prior gives, and
that side of the interval is open (+inf or -inf), as it is when 2.5% or more of the
resamples leave it open. A side the resamples cannot move off the point (every resampled
deal the same) is instead the profile-likelihood bound with games counted as independent
(at half the chi-square(1) 95% point, or ln 40 when the other side is open, which is the
exact Clopper-Pearson bound for one pairing won or lost outright). So only the anchor's
interval ever has zero width.
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
    """A policy's Elo rating with its 95% interval; an end the data cannot bound (a policy
    that won, or lost, every game linking it to the anchor) is +inf or -inf."""

    policy: str
    elo: float
    lo: float
    hi: float


def bounded(pairings: list[Pairing], n_policies: int, anchor: int = 0
            ) -> tuple[np.ndarray, np.ndarray]:
    """(bounded above, bounded below) per policy: whether the maximum-likelihood rating
    relative to the anchor is finite on that side.

    A win by policy a at a table with policy b's seats bounds b's rating above by a's.
    So a rating is bounded above iff a chain of such wins leads from the anchor to the
    policy, and bounded below iff one leads from the policy to the anchor (Ford's
    condition for the Bradley-Terry likelihood, which the Luce model shares)."""
    beat = np.zeros((n_policies, n_policies), bool)
    for pg in pairings:
        present = np.asarray(pg.makeup) > 0
        won = present & (pg.wins.sum(axis=0) > 0)
        beat[np.ix_(won, present)] = True
    np.fill_diagonal(beat, False)

    def reach(edges: np.ndarray) -> np.ndarray:
        seen = np.zeros(n_policies, bool)
        seen[anchor] = True
        while True:
            more = seen | edges[seen].any(axis=0)
            if (more == seen).all():
                return seen
            seen = more

    return reach(beat), reach(beat.T)


_BIG = 1e100


def _percentile(draws: np.ndarray, q: float) -> np.ndarray:
    """Percentile per column of draws that may hold infinities (an end that falls among
    infinite draws is infinite); finite draws give numpy's value unchanged."""
    v = np.percentile(np.clip(draws, -_BIG, _BIG), q, axis=0)
    return np.where(v > 1e50, np.inf, np.where(v < -1e50, -np.inf, v))


def _parts(pairings: list[Pairing]) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Per pairing: (policies at the table, their wins scaled to one per game, games)."""
    out = []
    for pg in pairings:
        w = pg.wins.sum(axis=0).astype(float)
        total = w.sum()
        n_games = float(pg.wins.shape[0] * pg.rotations)
        out.append((np.asarray(pg.makeup, float), w * (n_games / total if total > 0 else 0.0),
                    n_games))
    return out


def _neg_loglik(theta: np.ndarray, parts) -> tuple[float, np.ndarray]:
    """Minus the Luce log-likelihood at log-strengths theta, and its gradient."""
    f, grad = 0.0, np.zeros_like(theta)
    for makeup, w, n_games in parts:
        present = makeup > 0
        z = np.full_like(theta, -np.inf)
        z[present] = np.log(makeup[present]) + theta[present]
        top = z.max()
        share = np.exp(z - top)
        total = share.sum()
        f += n_games * (top + math.log(total)) - float(w[present] @ theta[present])
        grad += n_games * share / total - w
    return f, grad


_FREE = 200.0   # box for the log-strengths the profile maximizes over (e^200: unbounded)
_SEARCH = 40.0  # a bound beyond 40 nats (about 6,950 Elo) from 0 is reported as infinite
_LR = 3.841458820694124 / 2  # half the chi-square(1) 95% point
_LR_OPEN = math.log(40.0)  # when the other side is open: exact for all games won (0.025)


def _profile(parts, n_policies: int, anchor: int, fixed: int | None, r: float,
             start: np.ndarray) -> tuple[float, np.ndarray]:
    """Maximum log-likelihood with the anchor at 0 (and policy `fixed` at r), and where."""
    from scipy.optimize import minimize

    free = [p for p in range(n_policies) if p != anchor and p != fixed]
    theta = np.zeros(n_policies)
    if fixed is not None:
        theta[fixed] = r
    if not free:
        return -_neg_loglik(theta, parts)[0], theta

    def fun(x):
        theta[free] = x
        f, g = _neg_loglik(theta, parts)
        return f, g[free]

    res = minimize(fun, start[free], jac=True, method="L-BFGS-B",
                   bounds=[(-_FREE, _FREE)] * len(free),
                   options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 2000})
    theta[free] = res.x
    return -float(res.fun), theta.copy()


def likelihood_bound(pairings: list[Pairing], n_policies: int, policy: int, side: int,
                     anchor: int = 0, cut: float = _LR) -> float:
    """Profile-likelihood bound in Elo on one side (side=-1 lower, +1 upper) of a policy's
    rating, games counted as independent: where the log-likelihood has dropped by `cut`
    from its maximum (default half the chi-square(1) 95% point, the end of a two-sided 95%
    interval); +-inf when it never drops that far on that side (the data cannot bound it).
    With cut = ln 40 and a policy that won (lost) every game of a single pairing, this is
    the exact one-sided 97.5% (Clopper-Pearson) bound: its likelihood is p^games."""
    from scipy.optimize import brentq

    parts = _parts(pairings)
    lmax, best = _profile(parts, n_policies, anchor, None, 0.0, np.zeros(n_policies))
    r0 = float(np.clip(best[policy], -_SEARCH, _SEARCH))
    cache = {}

    def drop(r: float) -> float:
        if r not in cache:
            cache[r] = lmax - _profile(parts, n_policies, anchor, policy, r, best)[0] - cut
        return cache[r]

    step, near = 0.25, r0
    while True:
        far = r0 + side * step
        if abs(far) > _SEARCH:
            return side * math.inf
        if drop(far) > 0:
            break
        near, step = far, 2 * step
    if drop(near) >= 0:  # r0 itself already past the cut (at the search box edge)
        return ELO * near
    return ELO * brentq(drop, min(near, far), max(near, far), xtol=1e-9)


def ratings(pairings: list[Pairing], names: list[str], anchor: int = 0, boot: int = 200,
            seed: int = 1) -> list[Rating]:
    """Elo ratings (anchor at 0) with 95% intervals: percentiles of a bootstrap over deals,
    a resample that leaves a rating unbounded counting as +-inf; an end the data cannot
    bound is infinite; an end the bootstrap cannot move off the point (every resample the
    same) is the profile-likelihood bound instead, so only the anchor's interval has zero
    width."""
    k = len(names)
    point = ELO * np.log(fit_strengths(pairings, k, anchor))
    rng = np.random.default_rng(seed)
    up = np.zeros((boot, k))    # draws for the upper end
    down = np.zeros((boot, k))  # draws for the lower end
    for b in range(boot):
        resampled = [Pairing(pg.makeup, pg.wins[rng.integers(0, len(pg.wins), len(pg.wins))],
                             pg.rotations) for pg in pairings]
        fit = ELO * np.log(fit_strengths(resampled, k, anchor))
        above, below = bounded(resampled, k, anchor)
        up[b] = np.where(above, np.where(below, fit, -np.inf), np.inf)
        down[b] = np.where(below, np.where(above, fit, np.inf), -np.inf)
    lo = np.minimum(_percentile(down, 2.5), point)
    hi = np.maximum(_percentile(up, 97.5), point)
    above, below = bounded(pairings, k, anchor)
    hi[~above] = np.inf
    lo[~below] = -np.inf
    for i in range(k):
        if i == anchor:
            lo[i] = hi[i] = 0.0
            continue
        tol = 1e-6 * max(1.0, abs(point[i]))
        if hi[i] - point[i] <= tol:
            cut = _LR_OPEN if lo[i] == -np.inf else _LR
            hi[i] = max(likelihood_bound(pairings, k, i, +1, anchor, cut), point[i])
        if point[i] - lo[i] <= tol:
            cut = _LR_OPEN if hi[i] == np.inf else _LR
            lo[i] = min(likelihood_bound(pairings, k, i, -1, anchor, cut), point[i])
    return [Rating(n, float(point[i]), float(lo[i]), float(hi[i])) for i, n in enumerate(names)]
