"""The compile queue a study and `simcli warmup` share between processes: each game is
compiled by exactly one process, and a process that would wait compiles games no one has
taken instead."""

import subprocess
import sys

import pytest

from simcli import warmup
from simcli.warmup import Queue, Warming

TODO = ["a:fast", "a:search", "b:fast", "c:fast", "c:search"]


def test_each_game_is_claimed_once_in_order(tmp_path):
    one, two = Queue(tmp_path, TODO), Queue(tmp_path, TODO)
    assert one.paths == {"a": ["fast", "search"], "b": ["fast"], "c": ["fast", "search"]}
    assert one.claim_next() == "a"
    assert two.claim_next() == "b"
    assert not two.claim("a") and not one.claim("b")
    assert one.claim_next() == "c"
    assert two.claim_next() is None and one.claim_next() is None


@pytest.fixture
def waiting(tmp_path, monkeypatch):
    """A Warming whose one background process is alive and holds game a; compiles are
    recorded instead of run."""
    done: list[tuple[str, str]] = []

    def fake_compile(self, name, path):
        done.append((name, path))
        (self.folder / f"{name}.{path}.done").touch()
        return {}

    monkeypatch.setattr(Queue, "compile", fake_compile)
    w = Warming.__new__(Warming)
    w.queue, w.mine = Queue(tmp_path, TODO), set()
    w.procs = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])]
    assert w.queue.claim("a")  # as the background process did
    yield w, done
    warmup.stop(w.procs)


def test_a_process_that_would_wait_compiles_the_games_no_one_took(waiting):
    w, done = waiting
    w.ensure("a", "fast")
    assert done == [("b", "fast"), ("c", "fast"), ("c", "search")]
    assert w.mine == {"b", "c"}


def test_no_stealing_once_the_needed_path_is_done(waiting):
    w, done = waiting
    (w.queue.folder / "a.fast.done").touch()
    w.ensure("a", "fast")
    w.ensure("z", "fast")  # not in the queue
    assert done == [] and w.mine == set()


def test_a_game_no_one_took_is_taken_and_compiled_where_it_runs(waiting):
    w, done = waiting
    w.ensure("b", "fast")
    assert done == [] and w.mine == {"b"}
    w.ensure("b", "fast")
    assert not w.queue.claim("b")


def test_no_waiting_on_a_background_process_that_stopped(waiting):
    w, done = waiting
    warmup.stop(w.procs)
    w.ensure("a", "fast")
    assert done == []
