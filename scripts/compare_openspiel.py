"""Random rollouts on this machine: OpenSpiel's backgammon beside simcli's Samsara.

Both sides play uniformly random legal moves, one thread, and report games/s and moves/s
(a move is one player's complete turn: OpenSpiel's backgammon actions cover both dice,
as a Samsara turn does; chance nodes are not moves). OpenSpiel is driven from Python
(pyspiel), as most users call it; simcli plays whole games inside its numba kernel.

OpenSpiel is not a simcli dependency. Install it into the same environment first:

    pip install open-spiel

Usage: python scripts/compare_openspiel.py [--seconds 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

import numpy as np


def openspiel_rollouts(seconds: float, seed: int = 1) -> dict:
    """Random backgammon games for about `seconds`: games, moves, chance events, rates."""
    import pyspiel

    game = pyspiel.load_game("backgammon")
    rng = random.Random(seed)
    games = moves = chance = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
                chance += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                moves += 1
        games += 1
    dt = time.perf_counter() - t0
    return {"engine": f"OpenSpiel {getattr(pyspiel, '__version__', '')} backgammon "
            "(pyspiel, Python loop)".replace("  ", " "), "games": games, "moves": moves,
            "chance_events": chance, "seconds": round(dt, 3), "games_per_s": games / dt,
            "moves_per_s": moves / dt, "moves_per_game": moves / games if games else None}


def simcli_rollouts(seconds: float, seed: int = 1) -> dict:
    """Random Samsara single games (default rules) for about `seconds`, one thread."""
    from kernels.samsara.stats import Misc
    from simcli.games.samsara import Samsara

    game = Samsara()
    content = game.load_content(game.content_path(None))
    prep = game.prepare(content, 2, ("random", "random"), game.resolve_rules([]))
    game.run_chunk(prep, seed, 0, 5, game.new_aggregates(prep), None)  # compile or load
    probe = game.new_aggregates(prep)
    t0 = time.perf_counter()
    game.run_chunk(prep, seed, 0, 200, probe, None)
    count = max(200, int(200 / (time.perf_counter() - t0) * seconds))
    aggs = game.new_aggregates(prep)
    t0 = time.perf_counter()
    game.run_chunk(prep, seed, 1000, count, aggs, None)
    dt = time.perf_counter() - t0
    moves = int(np.asarray(aggs["misc"])[Misc.TURNS])
    return {"engine": "simcli Samsara (numba kernel, random policy)", "games": count,
            "moves": moves, "chance_events": None, "seconds": round(dt, 3),
            "games_per_s": count / dt, "moves_per_s": moves / dt,
            "moves_per_game": moves / count}


def main() -> int:
    """Run both and print a table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per engine")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel is not installed in this environment. Install it with\n"
              "    pip install open-spiel\n"
              "(it is not a simcli dependency) and run this script again.", file=sys.stderr)
        return 2
    results = [openspiel_rollouts(args.seconds), simcli_rollouts(args.seconds)]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'engine':58} {'games/s':>10} {'moves/s':>12} {'moves/game':>11}")
    for r in results:
        print(f"{r['engine']:58} {r['games_per_s']:10,.0f} {r['moves_per_s']:12,.0f} "
              f"{r['moves_per_game']:11.1f}")
    ratio = results[1]["moves_per_s"] / results[0]["moves_per_s"]
    print(f"simcli plays {ratio:,.1f}x as many moves per second (one thread each; different "
          f"games, so compare moves/s rather than games/s).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
