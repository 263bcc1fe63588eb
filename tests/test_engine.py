"""Engine: chunk planning, determinism across threads and chunk sizes, interruption."""

import numpy as np
import pytest

from simcli import engine
from simcli.errors import Interrupted
from simcli.games.sixteen_samurai import SixteenSamurai
from simcli.run import RunConfig, play, run_game

GAME = SixteenSamurai()


def test_plan_covers_every_playout_once():
    chunks = engine.plan(10_001, 1000)
    assert sum(c.count for c in chunks) == 10_001
    assert [c.first for c in chunks] == list(range(0, 10_001, 1000))
    assert chunks[-1].count == 1


def config(tmp_path, **kw):
    base = dict(game="sixteen-samurai", players=3, seats=("greedy", "random", "greedy"),
                n=3000, seed=42, threads=1, rules={"draft": "rotation", "lone-clan": "play"},
                content=None, out=tmp_path / "run")
    base.update(kw)
    return RunConfig(**base)


def aggregates(cfg):
    content = GAME.load_content(GAME.content_path(None))
    prep = GAME.prepare(content, cfg.players, cfg.seats, cfg.rules)
    aggs, _, _ = play(GAME, prep, cfg, None, None)
    return aggs


def test_same_seed_same_statistics_for_any_threads_and_chunks(tmp_path):
    a = aggregates(config(tmp_path, threads=1, chunk_size=3000))
    b = aggregates(config(tmp_path, threads=2, chunk_size=337))
    c = aggregates(config(tmp_path, threads=2, chunk_size=1000))
    for key in a:
        assert np.array_equal(a[key], b[key]), key
        assert np.array_equal(a[key], c[key]), key
    d = aggregates(config(tmp_path, seed=43))
    assert not np.array_equal(a["cards"], d["cards"])


def test_aggregates_of_parts_add_up_to_the_whole(tmp_path):
    whole = aggregates(config(tmp_path, n=2000))
    content = GAME.load_content(GAME.content_path(None))
    cfg = config(tmp_path)
    prep = GAME.prepare(content, cfg.players, cfg.seats, cfg.rules)
    total = GAME.new_aggregates(prep)
    for first in (1500, 0, 700):  # any order, uneven pieces
        part = GAME.new_aggregates(prep)
        count = {0: 700, 700: 800, 1500: 500}[first]
        GAME.run_chunk(prep, 42, first, count, part, None)
        engine.merge(total, part)
    for key in whole:
        assert np.array_equal(whole[key], total[key]), key


class StopAfterFirstChunk(engine.Progress):
    def advance(self, done, total, elapsed):
        if done:
            raise KeyboardInterrupt


def test_interrupted_run_leaves_nothing(tmp_path):
    cfg = config(tmp_path, n=200_000, threads=2, chunk_size=2000)
    with pytest.raises(Interrupted):
        run_game(cfg, StopAfterFirstChunk())
    assert list(tmp_path.iterdir()) == []


def test_failing_chunk_stops_the_run():
    def work(chunk):
        if chunk.index == 3:
            raise ValueError("boom")
        return chunk.count

    seen = []
    with pytest.raises(ValueError):
        engine.run_chunks(engine.plan(100, 10), work, lambda c, r: seen.append(r), 2)
    assert sum(seen) < 100


def test_core_stats_match_the_aggregates(tmp_path):
    cfg = config(tmp_path, n=1500)
    aggs = aggregates(cfg)
    core = GAME.core_stats(aggs, cfg.players)
    assert core.games == 1500 == core.seat_wins.sum() + core.shared
    assert core.completed == 1500 and core.length.sum() == 1500
