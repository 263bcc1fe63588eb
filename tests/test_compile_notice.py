"""A command that compiles says so once, in a pipe too; `simcli warmup` compiles ahead and
says what it found in the cache."""

import os
import subprocess
import sys


def simcli(cache, cwd, *args):
    env = {k: v for k, v in os.environ.items() if k != "SIMCLI_NO_CACHE"}
    env["SIMCLI_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, "-m", "simcli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=True)


def test_a_compile_is_announced_once_and_a_cached_run_is_silent(tmp_path):
    cache = tmp_path / "cache"
    first = simcli(cache, tmp_path, "run", "samsara", "-n", "20", "--out", "a")
    said = [x for x in first.stderr.splitlines() if x.startswith("simcli: compiling")]
    assert said == ["simcli: compiling Samsara's kernels (first use on this machine: later "
                    "runs load them from the cache)..."], first.stderr
    warm = simcli(cache, tmp_path, "warmup", "samsara", "--no-search")
    assert "samsara fast path: already in the compile cache" in warm.stderr, warm.stderr
    again = simcli(cache, tmp_path, "run", "samsara", "-n", "20", "--out", "b")
    assert "compiling" not in again.stderr, again.stderr
    assert (tmp_path / "a" / "manifest.json").is_file()


def test_warmup_refuses_an_unknown_game(tmp_path):
    r = subprocess.run([sys.executable, "-m", "simcli", "warmup", "chess"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("simcli: error:"), r.stderr
