"""A run and `simcli replay` of it call one compiled entry in one signature: a game's
play.run, or, with search seats, its search_play.run_search. So a replay loads what the run
compiled and compiles nothing (issue 25), and a replayed search decision is made by the
fast path's own code."""

import importlib

import pytest

from kernels.jit import Kernel
from simcli.registry import GAMES


@pytest.fixture
def python_calls(monkeypatch) -> list[str]:
    """The kernels called from Python from now on (each call's name)."""
    called: list[str] = []
    entry = Kernel.python_entry

    def recording(self):
        called.append(self.py_func.__qualname__)
        return entry(self)

    monkeypatch.setattr(Kernel, "python_entry", recording)
    return called


def play_and_replay(game, seats, calls):
    """One playout of the fast path, then the same playout through the handle, its log
    written (`calls` keeps only their kernel calls); the handle."""
    prep = game.prepare(game.load_content(game.content_path(None)), len(seats), seats,
                        game.resolve_rules([]))
    calls.clear()  # (preparing may compute tables with kernels of its own)
    game.run_chunk(prep, 11, 0, 1, game.new_aggregates(prep), None)
    h = game.handle(prep, 11, 0)
    h.play_out()
    assert h.log()  # (the log's words read the kernels' state too)
    return h


@pytest.mark.parametrize("name", [n for n, g in GAMES.items() if g.search is not None])
def test_a_search_run_and_its_replay_call_one_entry_in_one_signature(name, python_calls):
    game = GAMES[name]
    players = game.default_players
    seats = (f"{game.search.name}:3",) + (game.default_policy,) * (players - 1)
    h = play_and_replay(game, seats, python_calls)
    assert h.decisions > players  # the searching seat decided through the handle too
    assert set(python_calls) == {"run_search"}, sorted(set(python_calls))
    sp = importlib.import_module(f"kernels.{name.replace('-', '_')}.search_play")
    assert len(sp.run_search.python_entry().signatures) == 1


@pytest.mark.parametrize("name", list(GAMES))
def test_a_plain_run_and_its_replay_call_one_entry(name, python_calls):
    game = GAMES[name]
    play_and_replay(game, (game.default_policy,) * game.default_players, python_calls)
    assert set(python_calls) == {"run"}, sorted(set(python_calls))
