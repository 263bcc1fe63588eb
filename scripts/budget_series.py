"""Does a search player get stronger with its budget? Two budgets in the same games.

For each step LO:HI, n deals are played with the seats [mcts:HI, mcts:LO, then --others on
the rest], every deal once per rotation of the seats (each player carrying its own luck,
as `simcli run --mirror` and `simcli ladder` do). Printed per step: each budget's paired
win rate (a shared win split among its winners) and the paired difference HI - LO with
its 95% interval (reports.stats.paired_difference over deals). A step is separated when
that interval lies above 0.

    python scripts/budget_series.py samsara --steps 50:400,400:3200 -n 200
    python scripts/budget_series.py samurai-sword --steps 400:3200 --others heuristic -n 100
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

import numpy as np

from reports.stats import bounded_mean, paired_difference_of
from simcli import engine
from simcli.errors import UserError
from simcli.ladder import play_seats
from simcli.registry import get_game


def cpu_seconds() -> float:
    """User + system CPU seconds of this process, all threads."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def step(game, content, rules, players: int, lo: str, hi: str, others: str, n: int,
         seed: int, threads: int) -> dict:
    """One step of the series: hi against lo in the same n deals."""
    seats = (hi, lo) + (others,) * (players - 2)
    names = list(dict.fromkeys(seats))
    t0, c0 = time.perf_counter(), cpu_seconds()
    wins = play_seats(game, content, rules, seats, names, n, seed, threads, None)
    x = wins[:, names.index(hi)] / players  # hi's share of the deal's games won
    b = wins[:, names.index(lo)] / players
    d = paired_difference_of(x, b)
    return {"hi": hi, "lo": lo, "deals": n, "games": n * players,
            "hi_rate": bounded_mean(x.sum(), (x * x).sum(), n),
            "lo_rate": bounded_mean(b.sum(), (b * b).sum(), n), "diff": d,
            "cpu_s": cpu_seconds() - c0, "wall_s": time.perf_counter() - t0}


def main() -> None:
    """Parse the command line, play every step, print one table row per step."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--steps", default="50:400,400:3200",
                    help="comma-separated LO:HI budgets (default 50:400,400:3200)")
    ap.add_argument("-n", type=int, default=100, help="deals per step")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--others", default="greedy", help="policy on seats 3 and up")
    ap.add_argument("--extra", default="", help="options added to every mcts, e.g. :c=1")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=engine.default_threads())
    a = ap.parse_args()
    if a.n < 1 or a.threads < 1:
        raise UserError("-n and --threads must be at least 1")
    game = get_game(a.game)
    game.check_players(a.players)
    content = game.load_content(game.content_path(None))
    rules = game.resolve_rules([])
    print(f"{game.title}, {a.players} players, seed {a.seed}, others {a.others}")
    print("| step | deals (games) | HI's rate | LO's rate | HI - LO (95% CI) | separated | "
          "CPU s |")
    print("|---|---|---|---|---|---|---|")
    for s in a.steps.split(","):
        budgets = s.split(":")
        if len(budgets) != 2:
            raise UserError(f"--steps wants LO:HI budgets, e.g. 50:400, not '{s}'")
        lo, hi = (f"mcts:{b.strip()}{a.extra}" for b in budgets)
        for p in (lo, hi, a.others):
            game.check_policy(p)
        r = step(game, content, rules, a.players, lo, hi, a.others, a.n, a.seed, a.threads)
        d = r["diff"]
        print(f"| {lo} -> {hi} | {r['deals']} ({r['games']}) | "
              f"{r['hi_rate'].value:.1%} ({r['hi_rate'].lo:.1%}-{r['hi_rate'].hi:.1%}) | "
              f"{r['lo_rate'].value:.1%} ({r['lo_rate'].lo:.1%}-{r['lo_rate'].hi:.1%}) | "
              f"{d.value:+.1%} ({d.lo:+.1%} to {d.hi:+.1%}) | "
              f"{'yes' if d.lo > 0 else 'no'} | {r['cpu_s']:.0f} |", flush=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    try:
        main()
    except UserError as e:  # an unknown game, a bad budget or player count: one line
        print(f"budget_series: error: {e}", file=sys.stderr)
        sys.exit(2)
