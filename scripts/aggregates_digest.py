"""Fingerprints of every game's aggregates at fixed seeds, to prove that a change which
should not alter results did not (run it before and after, compare the two files).

    python scripts/aggregates_digest.py > after.json
    python scripts/aggregates_digest.py --compare before.json after.json
    python scripts/aggregates_digest.py --search 16 --games samsara   # the search player too

Setups come from the game catalogue of the tree it runs in: every policy on every seat,
every player count, every non-default value of every rule option (with the default
players and policy, and with random players at the fewest players), mixed seats, and a
mirrored run where the game supports it; with `--search BUDGET`, also the game's search
player at that budget in seat 1 among the default policy (`--search-n` playouts, the search
being slow). Each digest is the SHA-256 of the run's integer
aggregates (names, shapes and values).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
from pathlib import Path

import numpy as np


def _play_api():
    try:
        from simcli.run import build_config, play
    except ImportError:  # trees before simcli/run.py existed
        from simcli.study import build_config, play
    return build_config, play


def setups(game, search_budget: int = 0) -> list[dict]:
    """The setups fingerprinted for one game (its search player too at a budget > 0)."""
    base = {"players": None, "policy": None, "seats": None, "rules": [], "mirror": False}
    out = [{**base, "policy": p} for p in game.policies]
    out += [{**base, "players": k} for k in range(game.min_players, game.max_players + 1)
            if k != game.default_players]
    small = {**base, "players": game.min_players, "policy": "random"}
    for r in game.rules:
        for v in r.choices:
            if v != r.default:  # with the default players and policy, and random at fewest
                out += [{**base, "rules": [f"{r.name}={v}"]},
                        {**small, "rules": [f"{r.name}={v}"]}]
    if len(game.policies) > 1:
        cycle = itertools.cycle(game.policies)
        out.append({**base, "seats": ",".join(next(cycle) for _ in
                                              range(game.default_players))})
    if game.supports_mirror:
        out.append({**base, "mirror": True})
    if search_budget > 0 and game.search is not None:
        rivals = (game.default_policy,) * (game.default_players - 1)
        out.append({**base, "search": True,
                    "seats": ",".join((f"{game.search.name}:{search_budget}", *rivals))})
    return out


def digest(aggs: dict[str, np.ndarray]) -> str:
    """SHA-256 of the aggregates' names, shapes and values."""
    h = hashlib.sha256()
    for name in sorted(aggs):
        a = np.ascontiguousarray(aggs[name], dtype=np.int64)
        h.update(name.encode() + repr(a.shape).encode() + a.tobytes())
    return h.hexdigest()


def key(name: str, s: dict) -> str:
    """A readable name for a setup."""
    parts = [name]
    for k in ("players", "policy", "seats"):
        if s[k] is not None:
            parts.append(f"{k}={s[k]}")
    parts += [f"rule.{r}" for r in s["rules"]]
    if s["mirror"]:
        parts.append("mirror")
    return " ".join(parts)


def run_all(n: int, seed: int, games: list[str] | None, search_budget: int = 0,
            search_n: int = 12) -> dict[str, str]:
    """Digest of every setup of every game (or those named)."""
    from simcli.registry import GAMES

    build_config, play = _play_api()
    result = {}
    for name, game in GAMES.items():
        if games and name not in games:
            continue
        for s in setups(game, search_budget):
            g, cfg = build_config(name, players=s["players"], policy=s["policy"],
                                  seats=s["seats"], n=search_n if s.get("search") else n,
                                  seed=seed, threads=2,
                                  rules=s["rules"], content=None, out=Path("unused"),
                                  force=False, save_games=False, chunk_size=None,
                                  mirror=s["mirror"])
            content = g.load_content(g.content_path(cfg.content))
            prep = g.prepare(content, cfg.players, cfg.seats, cfg.rules)
            aggs, _, _ = play(g, prep, cfg, None, None)
            result[key(name, s)] = digest(aggs)
            print(f"{key(name, s)}: {result[key(name, s)][:16]}", file=sys.stderr)
    return result


def compare(before: dict[str, str], after: dict[str, str]) -> int:
    """Print differences; exit code 1 when a shared setup changed."""
    changed = [k for k in before if k in after and before[k] != after[k]]
    same = [k for k in before if k in after and before[k] == after[k]]
    for k in changed:
        print(f"CHANGED  {k}")
    for k in sorted(set(before) ^ set(after)):
        print(f"ONLY IN {'before' if k in before else 'after '}  {k}")
    print(f"{len(same)} setups identical, {len(changed)} changed")
    return 1 if changed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=3000, help="playouts per setup")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--games", nargs="*", help="only these games")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--search", type=int, default=0, metavar="BUDGET",
                    help="also each game's search player at this budget")
    ap.add_argument("--search-n", type=int, default=12, help="playouts of the search setups")
    args = ap.parse_args()
    if args.compare:
        a, b = (json.loads(Path(f).read_text()) for f in args.compare)
        settings = ("n", "seed", "search", "search_n")
        if any(a.get(k) != b.get(k) for k in settings):
            print("the two files were made with different settings: "
                  + ", ".join(f"{k} {a.get(k)} vs {b.get(k)}" for k in settings))
            return 2
        return compare(a["digests"], b["digests"])
    digests = run_all(args.n, args.seed, args.games, args.search, args.search_n)
    json.dump({"n": args.n, "seed": args.seed, "search": args.search,
               "search_n": args.search_n if args.search else None, "digests": digests},
              sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
