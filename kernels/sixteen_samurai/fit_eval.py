"""Refit the search's evaluation weights (search_hooks.EVAL_W) on greedy self-play.

    python -m kernels.sixteen_samurai.fit_eval PLAYERS [GAMES] [SEED]

Plays GAMES greedy games (5% of the decisions after the draft random, for variety), records
every clan's `search_hooks.features` at the start of every round (Clan Conflict and Final
Battle), and fits a conditional logit (softmax over the clans of weights x features) to
the game's winner by maximum likelihood, one weight row per phase. Prints the rows to paste
into EVAL_W with the mean log-loss (and that of a uniform guess). EVAL_W holds the rows of
30,000 games per player count, seed 7.
"""

import sys

import numpy as np
from numba import njit
from scipy.optimize import minimize

from kernels.sixteen_samurai import players as P
from kernels.sixteen_samurai import rules as R
from kernels.sixteen_samurai import search_hooks as H

EPS = 0.05  # share of random decisions after the draft
PER_GAME = 40  # positions recorded per game at most


@njit
def record(st, forbid, seed, n, X, G, FB, W, eps):  # pragma: no cover (a tool)
    """Play n games of the run keyed by seed, features at each round's start into X
    (positions, players, N_FEAT), game number into G, Final Battle flag into FB, winners
    into W; returns the positions recorded."""
    k = 0
    np.random.seed(seed)
    for g in range(n):
        R.setup(st, np.uint64(seed), g)
        while not R.is_over(st):
            ph = st.phase[0]
            if (ph == R.DECLARE or ph == R.FB_DECLARE) and k < X.shape[0]:
                for q in range(st.players[0]):
                    H.features(st, np.int64(q), X[k, q])
                G[k] = g
                FB[k] = ph == R.FB_DECLARE
                k += 1
            p = st.actor[0]
            st.pol[p] = P.RANDOM if ph != R.DRAFT and np.random.random() < eps else P.GREEDY
            R.apply(st, P.choose(st, forbid))
        W[g] = st.champion[0]
    return k


def neg_log_lik(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """Negative log-likelihood of winners y under softmax(X @ w) and its gradient."""
    s = X @ w
    s = s - s.max(1, keepdims=True)
    lse = np.log(np.exp(s).sum(1))
    rows = np.arange(len(y))
    p = np.exp(s - lse[:, None])
    grad = -(X[rows, y] - (p[:, :, None] * X).sum(1)).sum(0)
    return float(-(s[rows, y] - lse).sum()), grad


def fit(players: int, games: int, seed: int = 7) -> dict[str, np.ndarray]:
    """The fitted weight rows ("cc", "fb") for `players` from `games` self-play games."""
    from simcli.games.sixteen_samurai import SixteenSamurai

    game = SixteenSamurai()
    content = game.load_content(game.content_path(None))
    prep = game.prepare(content, players, ("greedy",) * players, game.resolve_rules([]))
    st = game.state(prep, game.new_aggregates(prep))
    forbid = np.zeros((R.MAX_P, len(R.OPTIONS)), np.bool_)
    cap = games * PER_GAME
    X = np.zeros((cap, players, H.N_FEAT))
    G = np.zeros(cap, np.int64)
    FB = np.zeros(cap, np.bool_)
    W = np.zeros(games, np.int64)
    k = record(st, forbid, seed, games, X, G, FB, W, EPS)
    X, G, FB = X[:k], G[:k], FB[:k]
    y = W[G]
    out = {}
    for name, mask in (("cc", ~FB), ("fb", FB)):
        cols = list(range(H.N_FEAT)) if name == "cc" else [0, 1, 2, 11]
        res = minimize(neg_log_lik, np.zeros(len(cols)), args=(X[mask][:, :, cols], y[mask]),
                       jac=True, method="L-BFGS-B")
        w = np.zeros(H.N_FEAT)
        w[cols] = res.x
        print(f"{players} players, {name}: {int(mask.sum())} positions, log-loss "
              f"{res.fun / mask.sum():.4f} (uniform {np.log(players):.4f})")
        print("   ", tuple(round(float(x), 4) for x in w))
        out[name] = w
    return out


if __name__ == "__main__":  # pragma: no cover
    args = [int(a) for a in sys.argv[1:]]
    fit(args[0], args[1] if len(args) > 1 else 30_000, args[2] if len(args) > 2 else 7)
