"""Mutation testing of the rules: break one rule at a time and check a test notices.

    python scripts/mutate_rules.py [--games GAME ...] [--jobs 2] [--json]

Each game lists its single-rule mutations in scripts/mutations/<game>.toml:

    [[mutation]]
    name = "ties go to the attacker"
    file = "kernels/katana_combat.py"
    old = "if attack > defence:"      # must occur exactly once in the file
    new = "if attack >= defence:"

For every mutation the project is copied to a temporary folder, the one replacement is
made, and that game's tests run there (`tests/test_<game>*.py`, or the mutation's own
`tests = [...]`) with an empty numba cache (a cached caller would otherwise keep the
unmutated code). A mutation is killed when a test fails. `--json` prints
{"GAME": {"mutations": M, "killed": K, "survived": [names]}, ...}.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUTATIONS = ROOT / "scripts" / "mutations"
COPY = ("kernels", "simcli", "reports", "tests", "pyproject.toml")
GAME_TESTS = {
    "sixteen-samurai": "test_sixteen_samurai*.py",
    "samurai-card-game": "test_samurai_card_game*.py",
    "samsara": "test_samsara*.py",
    "samurai-sword": "test_samurai_sword*.py",
    "samurai-katana": "test_samurai_katana*.py",
}


def load(game: str) -> list[dict]:
    """The mutations declared for a game."""
    path = MUTATIONS / f"{game}.toml"
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    muts = doc.get("mutation", [])
    for m in muts:
        for key in ("name", "file", "old", "new"):
            if not isinstance(m.get(key), str):
                raise SystemExit(f"{path}: mutation {m.get('name', '?')!r} needs '{key}'")
    return muts


def run_one(game: str, m: dict, timeout: int) -> dict:
    """Apply one mutation in a fresh copy and run the game's tests there."""
    with tempfile.TemporaryDirectory(prefix="simcli-mutant-") as tmp:
        work = Path(tmp) / "tree"
        work.mkdir()
        for name in COPY:
            src = ROOT / name
            if src.is_dir():
                shutil.copytree(src, work / name, ignore=shutil.ignore_patterns(
                    "__pycache__", "*.nbi", "*.nbc"))
            else:
                shutil.copy2(src, work / name)
        target = work / m["file"]
        text = target.read_text(encoding="utf-8")
        count = text.count(m["old"])
        if count != 1:
            return {**_id(game, m), "status": "stale", "detail":
                    f"'old' occurs {count} times in {m['file']} (must be exactly once)"}
        target.write_text(text.replace(m["old"], m["new"]), encoding="utf-8")
        tests = m.get("tests") or sorted(str(p.relative_to(work)) for p in
                                         (work / "tests").glob(GAME_TESTS[game]))
        env = {**os.environ, "PYTHONPATH": str(work), "NUMBA_CACHE_DIR": str(Path(tmp) / "nb"),
               "SIMCLI_CACHE_DIR": str(Path(tmp) / "nb")}
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                 *tests], cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {**_id(game, m), "status": "killed", "detail": f"tests timed out after "
                    f"{timeout} s (the mutant does not terminate)",
                    "seconds": round(time.perf_counter() - t0, 1)}
        failed = [ln for ln in proc.stdout.splitlines() if ln.startswith("FAILED")
                  or ln.startswith("ERROR")]
        status = "killed" if proc.returncode != 0 else "survived"
        return {**_id(game, m), "status": status,
                "detail": failed[0] if failed else proc.stdout.strip().splitlines()[-1:],
                "seconds": round(time.perf_counter() - t0, 1)}


def _id(game: str, m: dict) -> dict:
    return {"game": game, "mutation": m["name"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="*", default=list(GAME_TESTS))
    ap.add_argument("--jobs", type=int, default=2, help="mutants tested at once")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per mutant")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    jobs = [(g, m) for g in args.games for m in load(g)]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda gm: run_one(gm[0], gm[1], args.timeout), jobs))
    summary = {}
    for g in args.games:
        mine = [r for r in results if r["game"] == g]
        summary[g] = {"mutations": len(mine),
                      "killed": sum(r["status"] == "killed" for r in mine),
                      "survived": [r["mutation"] for r in mine if r["status"] != "killed"]}
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        for r in results:
            print(f"{r['status'].upper():8} {r['game']}: {r['mutation']} -- {r['detail']}")
        for g, s in summary.items():
            print(f"{g}: {s['killed']}/{s['mutations']} killed")
    return 0 if all(s["killed"] == s["mutations"] for s in summary.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
