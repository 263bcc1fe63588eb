"""Scale: checkpoints and resume, the Dask backend, identical numbers everywhere."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from simcli import engine
from simcli.errors import Interrupted
from simcli.games.sixteen_samurai import SixteenSamurai
from simcli.run import RunConfig, play, resume_run, run_game

GAME = SixteenSamurai()
RULES = {r.name: r.default for r in SixteenSamurai().rules}  # every option at its default


def config(out, **kw):
    base = dict(game="sixteen-samurai", players=3, seats=("greedy", "random", "greedy"),
                n=6000, seed=9, threads=2, rules=RULES, content=None, out=out,
                chunk_size=500)
    base.update(kw)
    return RunConfig(**base)


def reference(cfg):
    content = GAME.load_content(GAME.content_path(None))
    prep = GAME.prepare(content, cfg.players, cfg.seats, cfg.rules)
    aggs, _, _ = play(GAME, prep, cfg, None, None)
    return aggs


def saved(folder):
    doc = json.loads((folder / "aggregates.json").read_text())
    return {k: np.array(v["data"]).reshape(v["shape"]) for k, v in doc["arrays"].items()}


def same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), k


class StopAfter(engine.Progress):
    def __init__(self, chunks):
        self.left = chunks

    def advance(self, done, total, elapsed):
        self.left -= 1
        if self.left <= 0:
            raise KeyboardInterrupt


def test_resume_after_interruption_equals_uninterrupted_run(tmp_path):
    out = tmp_path / "run"
    cfg = config(out, checkpoint=True)
    with pytest.raises(Interrupted, match="simcli resume"):
        run_game(cfg, StopAfter(3))
    partial = tmp_path / "run.partial"
    assert not out.exists() and (partial / "checkpoint.json").exists()
    state = json.loads((partial / "checkpoint.json").read_text())
    assert state["done"] and state["chunk_size"] == 500
    result = resume_run(out, threads=1)
    assert result.folder == out and not partial.exists()
    assert not (out / "checkpoint.json").exists()
    same(saved(out), reference(config(tmp_path / "x")))
    assert json.loads((out / "manifest.json").read_text())["resumed"] is True


def test_checkpointed_run_refuses_a_second_start(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(Interrupted):
        run_game(config(out, checkpoint=True), StopAfter(1))
    from simcli.errors import UserError

    with pytest.raises(UserError, match="simcli resume"):
        run_game(config(out, checkpoint=True))


def test_sigkill_then_resume_gives_the_same_numbers(tmp_path):
    out = tmp_path / "big"
    args = ["-n", "150000", "--players", "3", "--seats", "greedy,random,greedy", "--seed", "5",
            "--chunk-size", "1000", "--threads", "1"]
    # a checkpoint after every chunk (the default waits 2 s, and the whole run may be shorter)
    script = ("import sys, simcli.run; simcli.run.CHECKPOINT_EVERY_S = 0.0; "
              "from simcli.cli import app; sys.argv[0] = 'simcli'; app()")
    proc = subprocess.Popen([sys.executable, "-c", script, "run", "sixteen-samurai", *args,
                             "--out", str(out), "--checkpoint", "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state = tmp_path / "big.partial" / "checkpoint.json"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if json.loads(state.read_text())["done"]:
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not out.exists()
    done = json.loads(state.read_text())["done"]
    assert done and done != [[0, 149]]  # killed part-way
    r = subprocess.run([sys.executable, "-m", "simcli", "resume", str(out), "--quiet"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    cfg = config(tmp_path / "ref", n=150000, seed=5, chunk_size=1000)
    same(saved(out), reference(cfg))


def test_resume_errors_are_one_line(tmp_path):
    from typer.testing import CliRunner

    from simcli.cli import app

    r = CliRunner().invoke(app, ["resume", str(tmp_path / "nothing")])
    assert r.exit_code == 2 and "no unfinished checkpointed run" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=50) as c:
        yield c


def test_dask_backend_gives_identical_statistics(tmp_path, cluster):
    c = cluster
    out = tmp_path / "dask"
    run_game(config(out, backend="dask", scheduler=c.scheduler_address))
    same(saved(out), reference(config(tmp_path / "x")))
    assert json.loads((out / "manifest.json").read_text())["backend"] == "dask"


class KillAWorker(engine.Progress):
    def __init__(self, pid):
        self.pid = pid
        self.killed = False

    def advance(self, done, total, elapsed):
        if not self.killed:
            os.kill(self.pid, signal.SIGKILL)
            self.killed = True


def test_a_worker_killed_mid_run_loses_no_playouts(tmp_path, cluster):
    c = cluster
    out = tmp_path / "killed"
    cfg = config(out, backend="dask", scheduler=c.scheduler_address, n=30000, chunk_size=300)
    progress = KillAWorker(next(iter(c.workers.values())).process.pid)
    run_game(cfg, progress)
    assert progress.killed
    same(saved(out), reference(config(tmp_path / "x", n=30000, chunk_size=300)))


def test_unreachable_scheduler_is_a_one_line_error(tmp_path):
    from typer.testing import CliRunner

    from simcli.cli import app

    r = CliRunner().invoke(app, ["run", "sixteen-samurai", "-n", "100", "--backend", "dask",
                                 "--scheduler", "tcp://127.0.0.1:9", "--out",
                                 str(tmp_path / "o")])
    assert r.exit_code == 2, r.output
    assert "cannot reach the Dask scheduler" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()
