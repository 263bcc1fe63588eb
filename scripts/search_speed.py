"""Search players' simulated moves per second against the random fast path's decisions per
second, per game, one thread, measured interleaved in one process (issue 15's speed
target: the search at least half the random policy's moves per second).

    python scripts/search_speed.py                 # every game with a search player
    python scripts/search_speed.py samsara --budget 100

The search plays one seat at `mcts:BUDGET` (with its default rollouts, then with random
rollouts) against the game's default policy; the fast path plays random on every seat, its
decisions per game counted through the Python handle. For context it also measures the fast
path with the search's default rollout policy on every seat: a search whose simulations are
mostly that policy's moves cannot run faster than that policy's own fast path.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from simcli.registry import GAMES


def decisions_per_game(game, players: int, policy: str = "random", games: int = 30) -> float:
    """Mean decisions of a game with `policy` on every seat, counted step by step."""
    total = 0
    for i in range(games):
        h = game.new_game(seed=11, playout=i, seats=(policy,) * players)
        while not h.is_over():
            h.step()
            total += 1
    return total / games


def fast_seconds(game, prep, n: int) -> float:
    """Seconds for n random playouts on the fast path."""
    t = time.perf_counter()
    game.run_chunk(prep, 5, 0, n, game.new_aggregates(prep), None)
    return time.perf_counter() - t


def search_rate(game, prep, players: int, first: int, n: int) -> float:
    """Simulated moves per second of n playouts with one seat searching."""
    forbid = np.zeros((players, len(game.options)), np.bool_)
    rows = np.zeros((0, len(game.row_columns)), np.int64)
    t = time.perf_counter()
    moves = game.run_search_chunk(prep, 5, first, n, game.new_aggregates(prep), rows, 0,
                                  forbid)
    return moves / (time.perf_counter() - t)


def fast_plan(game, content, players: int, rules, policy: str) -> tuple:
    """(prep, playouts taking about a second, decisions a game) of the fast path with
    `policy` on every seat."""
    prep = game.prepare(content, players, (policy,) * players, rules)
    per_game = decisions_per_game(game, players, policy)
    fast_seconds(game, prep, 20)  # compile
    n = 20
    while fast_seconds(game, prep, n) < 1.0:
        n *= 2
    return prep, n, per_game


def measure(name: str, budget: int, repeats: int) -> str:
    """One game's line: the fast path's decisions/s (random, and the rollout policy) and
    the search's moves/s (share of random's)."""
    game = GAMES[name]
    P = game.default_players
    content = game.load_content(game.content_path(None))
    rules = game.resolve_rules([])
    own = game.search.rollout
    plans = {p: fast_plan(game, content, P, rules, p) for p in dict.fromkeys(("random", own))}
    fast = {p: [] for p in plans}
    rates = {"default": [], "random": []}
    for r in range(repeats):
        for p, (fast_prep, n, per_game) in plans.items():
            fast[p].append(n * per_game / fast_seconds(game, fast_prep, n))
        for rollout in rates:
            policy = f"mcts:{budget}" + ("" if rollout == "default" else ":rollout=random")
            prep = game.prepare(content, P, (policy,) + (game.default_policy,) * (P - 1),
                                rules)
            if r == 0:
                search_rate(game, prep, P, 0, 1)  # compile
            rates[rollout].append(search_rate(game, prep, P, 10 + 3 * r, 2))
    f, g = (float(np.median(fast[p])) for p in ("random", own))
    d, x = (float(np.median(rates[k])) for k in ("default", "random"))
    return (f"{name}: random fast path {f / 1e6:.2f} M decisions/s ({plans['random'][2]:.0f} "
            f"a game); {own} fast path {g / 1e6:.3f} M/s; mcts:{budget} with {own} "
            f"rollouts {d / 1e6:.3f} M moves/s ({100 * d / f:.0f}% of random's, "
            f"{100 * d / g:.0f}% of {own}'s), with random rollouts {x / 1e6:.3f} M/s "
            f"({100 * x / f:.0f}%)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", help="games (default: every game with a search)")
    ap.add_argument("--budget", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    searching = [n for n, g in GAMES.items() if g.search is not None]
    unknown = [n for n in args.games if n not in searching]
    if unknown:
        ap.error(f"no search player for {', '.join(unknown)}; choose from {', '.join(searching)}")
    names = args.games or searching
    for name in names:
        print(measure(name, args.budget, args.repeats), flush=True)


if __name__ == "__main__":
    main()
