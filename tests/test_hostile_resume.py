"""Hostile input, issue 17: checkpoints and resume, stopping (Ctrl-C, SIGTERM, before the
first checkpoint), stale partial folders and content errors that must leave no folder."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simcli import engine
from simcli.errors import Interrupted
from simcli.games.sixteen_samurai import SixteenSamurai
from simcli.run import RunConfig, run_game
from simcli.runfolder import MARKER, write_marker
from tests.cli import invoke, one_line_error

ROOT = Path(__file__).parents[1]
ROSTER = ROOT / "simcli/games/content/sixteen-samurai/standard.toml"
RULES = {r.name: r.default for r in SixteenSamurai().rules}  # every option at its default


class StopAfter(engine.Progress):
    def __init__(self, chunks):
        self.left = chunks

    def advance(self, done, total, elapsed):
        self.left -= 1
        if self.left <= 0:
            raise KeyboardInterrupt


def stopped_run(tmp_path, name="run"):
    """A checkpointed run stopped after 3 of its 12 chunks: (out, partial folder)."""
    out = tmp_path / name
    cfg = RunConfig(game="sixteen-samurai", players=3, seats=("greedy", "random", "greedy"),
                    n=6000, seed=9, threads=2, rules=RULES, content=None, out=out,
                    chunk_size=500, checkpoint=True)
    with pytest.raises(Interrupted, match="simcli resume"):
        run_game(cfg, StopAfter(3))
    partial = tmp_path / f"{name}.partial"
    assert (partial / "checkpoint.json").exists()
    return out, partial


def edit(partial, change):
    path = partial / "checkpoint.json"
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def test_the_checkpoint_records_content_hash_version_and_digest(tmp_path):
    import hashlib

    from simcli import __version__

    _, partial = stopped_run(tmp_path)
    doc = json.loads((partial / "checkpoint.json").read_text())
    assert doc["tool_version"] == __version__ and doc["format"] == 2
    assert doc["content_sha256"] == hashlib.sha256(
        (partial / "content.toml").read_bytes()).hexdigest()
    assert len(doc["digest"]) == 64 and doc["done"]


def wins_times_ten(doc):  # 1,500 playouts noted, 15,000 games counted
    doc["aggregates"]["wins"]["data"] = [10 * x for x in doc["aggregates"]["wins"]["data"]]


def both_chunk_sizes(doc):
    doc["chunk_size"] = doc["config"]["chunk_size"] = 1000


def move_a_win(doc):  # counts still add up: only the digest tells
    data = doc["aggregates"]["wins"]["data"]
    data[0] -= 1
    data[1] += 1


@pytest.mark.parametrize(("change", "needle"), [
    (wins_times_ten, "count"),
    (lambda d: d["config"].update(n=-5), "-n must be a positive"),
    (lambda d: d.update(chunk_size=1000), "chunk_size"),
    (both_chunk_sizes, "count"),
    (lambda d: d.update(chunk_size=0), "chunk_size"),
    (lambda d: d.update(done=[[0, 400]]), "beyond"),
    (lambda d: d.update(done=[[2, 1]]), "out of order"),
    (lambda d: d.update(tool_version="0.0.1"), "simcli 0.0.1"),
    (lambda d: d.update(format=1), "older simcli"),
    (lambda d: d.pop("content_sha256"), "content_sha256"),
    (lambda d: d["aggregates"]["wins"]["data"].__setitem__(0, -1), "non-negative integer"),
    (lambda d: d["aggregates"]["wins"]["data"].__setitem__(0, 1.5), "non-negative integer"),
    (lambda d: d["aggregates"].pop("cards"), "missing"),
    (lambda d: d["config"].update(seed=-1), "--seed"),
    (lambda d: d["config"].update(players="3"), "players"),
    (lambda d: d["config"].update(game="chess"), "unknown game"),
    (move_a_win, "digest"),
])
def test_resume_refuses_an_edited_checkpoint(tmp_path, change, needle):
    out, partial = stopped_run(tmp_path)
    edit(partial, change)
    before = (partial / "checkpoint.json").read_text()
    text = one_line_error(invoke("resume", out))
    assert needle in text
    assert not out.exists() and (partial / "checkpoint.json").read_text() == before


def test_resume_refuses_a_swapped_content_file(tmp_path):
    out, partial = stopped_run(tmp_path)
    copy = partial / "content.toml"
    copy.write_text(copy.read_text().replace('"Oku the Plain", power = 1, speed = 1, armor = 3',
                                             '"Oku the Plain", power = 3, speed = 1, armor = 1'))
    text = one_line_error(invoke("resume", out))
    assert "not the content this run started with" in text
    assert not out.exists()


def test_resume_refuses_a_checkpoint_that_is_not_json_or_not_a_file(tmp_path):
    out, partial = stopped_run(tmp_path)
    state = partial / "checkpoint.json"
    state.write_text("{")
    assert "not JSON" in one_line_error(invoke("resume", out))
    state.unlink()
    os.mkfifo(state)
    assert "FIFO" in one_line_error(invoke("resume", out))


def test_an_untouched_checkpoint_still_resumes(tmp_path):
    out, _ = stopped_run(tmp_path)
    r = invoke("resume", out, "-q")
    assert r.exit_code == 0, r.output
    assert json.loads((out / "manifest.json").read_text())["resumed"] is True


def test_stopped_before_the_first_checkpoint_is_no_dead_end(tmp_path, monkeypatch):
    from simcli import run as run_module

    out = tmp_path / "early"
    args = ("run", "sixteen-samurai", "-n", 2000, "--checkpoint", "--out", out, "-q")

    def ctrl_c(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "seconds_per_playout", ctrl_c)  # Ctrl-C while compiling
    r = invoke(*args)
    assert r.exit_code == 130, r.output
    assert list(tmp_path.iterdir()) == []  # nothing to resume, nothing in the way
    monkeypatch.undo()
    monkeypatch.setattr(run_module.checkpoint, "save", ctrl_c)  # Ctrl-C writing the first one
    r = invoke(*args)
    assert r.exit_code == 130, r.output
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    r = invoke(*args)
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["early"]


def test_ctrl_c_just_after_the_first_checkpoint_says_it_was_kept(tmp_path, monkeypatch):
    from simcli import run as run_module

    out = tmp_path / "kept"

    def ctrl_c(*_a, **_k):  # Ctrl-C as play starts: before play turns it into Interrupted
        raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "play", ctrl_c)
    r = invoke("run", "sixteen-samurai", "-n", 2000, "--checkpoint", "--out", out, "-q")
    assert r.exit_code == 130, r.output
    assert "checkpoint kept" in r.stderr and "no run folder" not in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.partial"]
    monkeypatch.undo()
    r = invoke("resume", out, "-q")
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept"]


def test_a_plain_run_does_not_orphan_an_unfinished_checkpointed_one(tmp_path, monkeypatch):
    from simcli import run as run_module

    out = tmp_path / "kept"

    def ctrl_c(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "play", ctrl_c)
    assert invoke("run", "sixteen-samurai", "-n", 2000, "--checkpoint", "--out", out,
                  "-q").exit_code == 130
    monkeypatch.undo()
    r = invoke("run", "sixteen-samurai", "-n", 500, "--out", out, "-q")  # no --checkpoint
    assert "simcli resume" in one_line_error(r)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.partial"]


def test_a_partial_folder_without_checkpoint_is_removed_only_with_simclis_marker(tmp_path):
    out = tmp_path / "old"
    partial = tmp_path / "old.partial"
    partial.mkdir()
    (partial / "content.toml").write_bytes(ROSTER.read_bytes())
    text = one_line_error(invoke("resume", out))
    assert "simcli run" in text and "nothing was played" in text
    # no marker: it only looks like simcli's (an older simcli's, or a user's): kept
    text = one_line_error(invoke("run", "sixteen-samurai", "-n", 1000, "--checkpoint",
                                 "--out", out))
    assert "old.partial is in the way" in text
    assert sorted(p.name for p in partial.iterdir()) == ["content.toml"]
    # simcli's marker, and no live run holds its lock: a run stopped before its checkpoint
    dead_marker(partial)
    r = invoke("run", "sixteen-samurai", "-n", 1000, "--checkpoint", "--out", out, "-q")
    assert r.exit_code == 0, r.output
    assert "removed" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old"]


def test_a_partial_folder_with_other_files_is_not_removed(tmp_path):
    out = tmp_path / "mine"
    partial = tmp_path / "mine.partial"
    partial.mkdir()
    (partial / "notes.txt").write_text("keep")
    text = one_line_error(invoke("run", "sixteen-samurai", "-n", 500, "--checkpoint", "--out",
                                 out))
    assert "mine.partial" in text
    assert (partial / "notes.txt").read_text() == "keep"


def dead_marker(folder):
    """simcli's marker in `folder`, as a run that no longer runs left it (no lock held)."""
    (folder / MARKER).write_text('{"tool": "simcli", "pid": 1073741824, "host": "h"}')


def test_stale_partials_of_dead_processes_are_cleaned(tmp_path):
    dead = tmp_path / f".x.partial-{2**30}-deadbeef"  # simcli's, its run gone
    alive = tmp_path / f".x.partial-{os.getpid()}-0badcafe"  # simcli's, its run alive
    # a live run in another PID namespace or host: its process id means nothing here,
    # its lock does
    elsewhere = tmp_path / f".x.partial-{2**30 + 1}-0badcafe"
    lookalike = tmp_path / f".x.partial-{2**30}-feedbeef"  # no marker: not simcli's
    other = tmp_path / f".y.partial-{2**30}-deadbeef"  # another run's name: not ours to judge
    for d in (dead, alive, elsewhere, lookalike, other):
        d.mkdir()
        (d / "content.toml").write_text("x")
    dead_marker(dead)
    dead_marker(other)
    locks = [write_marker(alive), write_marker(elsewhere)]
    try:
        r = invoke("run", "sixteen-samurai", "-n", 500, "--out", tmp_path / "x", "-q")
    finally:
        for fd in locks:
            os.close(fd)
    assert r.exit_code == 0, r.output
    assert not dead.exists()
    assert alive.exists() and elsewhere.exists() and lookalike.exists() and other.exists()
    assert (lookalike / "content.toml").read_text() == "x"
    assert str(dead) in r.stderr and "no longer runs" in r.stderr


def test_a_partial_of_a_killed_but_unreaped_process_is_cleaned(tmp_path):
    import signal
    import subprocess
    import time

    proc = subprocess.Popen(["sleep", "60"])  # killed below, and left a zombie till wait()
    try:
        os.kill(proc.pid, signal.SIGKILL)
        time.sleep(0.3)
        left = tmp_path / f".x.partial-{proc.pid}-deadbeef"
        left.mkdir()
        dead_marker(left)
        r = invoke("run", "sixteen-samurai", "-n", 500, "--out", tmp_path / "x", "-q")
        assert r.exit_code == 0, r.output
        assert not left.exists() and str(left) in r.stderr
    finally:
        proc.wait()


def test_a_content_error_creates_no_folder(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(ROSTER.read_text().replace('"Oku the Plain", power = 1',
                                              '"Oku the Plain", power = "x"'))
    for extra in ([], ["--checkpoint"]):
        one_line_error(invoke("run", "sixteen-samurai", "--content", bad, "--out",
                              tmp_path / "o", *extra))
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]
    one_line_error(invoke("sweep", "sixteen-samurai", "--vary", f"content=standard,{bad}",
                          "-n", 100, "--out", tmp_path / "s"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def start(args, tmp_path, ready):
    proc = subprocess.Popen([sys.executable, "-m", "simcli", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.time() + 180
    while time.time() < deadline and not ready():
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    assert ready(), "the run never started playing"
    return proc


def test_sigterm_is_handled_like_ctrl_c(tmp_path):
    out = tmp_path / "big"
    proc = start(["run", "sixteen-samurai", "-n", "50000000", "--out", out, "-q",
                  "--save-games"], tmp_path,
                 lambda: list(tmp_path.glob(".big.partial-*/games/*.parquet")))
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "SIGTERM" in err and "no run folder was written" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_sigterm_keeps_the_checkpoint_of_a_checkpointed_run(tmp_path):
    out = tmp_path / "cp"
    state = tmp_path / "cp.partial" / "checkpoint.json"

    def playing():
        try:
            return bool(json.loads(state.read_text())["done"])
        except (OSError, ValueError):
            return False

    proc = start(["run", "sixteen-samurai", "-n", "20000000", "--out", out, "-q",
                  "--checkpoint", "--chunk-size", "2000", "--threads", "1"], tmp_path, playing)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM and "simcli resume" in err, err
    from simcli import checkpoint

    assert checkpoint.load(tmp_path / "cp.partial")["done"]


def test_ctrl_c_with_a_slow_policy_stops_within_two_seconds(tmp_path):
    out = tmp_path / "slow"
    state = tmp_path / "slow.partial" / "checkpoint.json"
    proc = start(["run", "samsara", "--policy", "lookahead", "-n", "1000000", "--threads", "2",
                  "--checkpoint", "--out", out, "-q"], tmp_path, state.exists)
    time.sleep(1.5)  # well into the chunks
    t0 = time.time()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    took = time.time() - t0
    assert proc.returncode == 130 and "interrupted" in err, err
    assert took < 2.0, f"took {took:.1f} s to stop"
    doc = json.loads(state.read_text())
    assert doc["chunk_size"] < 100  # sized by measured time, not the game's 2,000
