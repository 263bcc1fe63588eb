"""Cold compile cost of every game's kernels, in CPU seconds, each path in a fresh process
with an empty numba cache.

Paths: `fast` (one playout of the default setup), `search` (one playout with one seat
searching at a budget of 2), `handle` (one game played step by step through the Python
handle, as `simcli replay` does). Each path is measured alone (its own process, nothing
compiled before it), so a figure is what a user who needs only that path pays. `replay` is
what `simcli replay` pays after the run it replays: the same two games as `fast` and
`search` played step by step through the handle, in a fresh process whose cache holds what
those two runs compiled (compiled first, in a process of their own, and not counted). `total` is
the three together in one process per game (shared functions compiled once): what a fresh
`simcli study` needs. CPU seconds are user + system time of the measured call only
(imports and content loading excluded, reported apart as `import`).

    python scripts/compile_cost.py                 # every game, every path
    python scripts/compile_cost.py samsara --paths fast,search --jobs 2 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATHS = ("fast", "search", "handle")  # what a study compiles (the total)
ALL_PATHS = (*PATHS, "replay")

CHILD = r"""
import json, os, resource, sys, time
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
t0 = cpu(); w0 = time.perf_counter()
from simcli.registry import GAMES
from simcli.bench import first_call, first_search_call
game = GAMES[sys.argv[1]]
out = {"import": cpu() - t0}

PLAIN = (game.default_policy,) * game.default_players

def handle_game(seats=PLAIN):
    content = game.load_content(game.content_path(None))
    prep = game.prepare(content, len(seats), seats, game.resolve_rules([]))
    h = game.handle(prep, 7, 0)
    h.play_out()
    h.log()

def replay_games():
    handle_game()
    if game.search:
        handle_game((f"{game.search.name}:2",) + PLAIN[1:])

steps = {"fast": lambda: first_call(game), "search": lambda: first_search_call(game),
         "handle": handle_game, "replay": replay_games}
for path in sys.argv[2].split(","):
    t = cpu(); w = time.perf_counter()
    steps[path]()
    out[path] = cpu() - t
    out[path + "_wall"] = time.perf_counter() - w
print("RESULT " + json.dumps(out))
"""


def measure(game: str, paths: list[str], cache: str | None = None) -> dict[str, float]:
    """CPU seconds of each of `paths` run in order in one fresh process (empty numba cache
    unless `cache` names one)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache or tmp, "SIMCLI_CACHE_DIR": cache or tmp,
               "PYTHONPATH": str(ROOT)}
        if paths == ["replay"]:  # the runs it replays, compiled first and not counted
            subprocess.run([sys.executable, "-c", CHILD, game, "fast,search"], env=env,
                           capture_output=True, cwd=ROOT, check=True)
        done = subprocess.run([sys.executable, "-c", CHILD, game, ",".join(paths)], env=env,
                              capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise SystemExit(f"{game} {paths}: failed\n{done.stderr[-3000:]}")
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from simcli.registry import GAMES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", default=list(GAMES))
    ap.add_argument("--paths", default=",".join(ALL_PATHS),
                    help=f"comma-separated, of {', '.join(ALL_PATHS)} (default: all)")
    ap.add_argument("--no-total", action="store_true", help="skip the per-game total")
    ap.add_argument("--jobs", type=int, default=1, help="processes at once")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    paths = args.paths.split(",")
    unknown = sorted(set(paths) - set(ALL_PATHS)) + sorted(set(args.games) - set(GAMES))
    if unknown:
        ap.error(f"unknown path or game: {', '.join(unknown)}")
    jobs = [(g, [p]) for g in args.games for p in paths]
    if not args.no_total:
        jobs += [(g, list(PATHS)) for g in args.games]
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda j: measure(*j), jobs))
    table: dict[str, dict[str, float]] = {g: {} for g in args.games}
    for (g, ps), r in zip(jobs, results, strict=True):
        if len(ps) == 1:
            table[g][ps[0]] = r[ps[0]]
            table[g].setdefault("import", r["import"])
        else:
            table[g]["total"] = sum(r[p] for p in ps)
    cols = ["import", *paths] + ([] if args.no_total else ["total"])
    print(f"{'game':<20}" + "".join(f"{c:>10}" for c in cols) + "   (CPU s, cold)")
    for g, row in table.items():
        print(f"{g:<20}" + "".join(f"{row.get(c, float('nan')):>10.1f}" for c in cols))
    if not args.no_total:
        print(f"{'all games':<20}" + " " * 10 * len(cols[:-1])
              + f"{sum(r['total'] for r in table.values()):>10.1f}")
    if args.json:
        args.json.write_text(json.dumps(table, indent=1))


if __name__ == "__main__":
    main()
