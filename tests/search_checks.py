"""Checks every game's search-player tests share: playing in chunks, the policy-name grammar,
and the same statistics on one or two threads."""

from pathlib import Path

import numpy as np
import pytest

from simcli.errors import UserError
from simcli.run import RunConfig, play


def play_in_chunks(game, prep, sizes, seed=3, rotation=0, forbid=None):
    """Aggregates and rows of playouts 0..sum(sizes)-1 of `prep` played in chunks of
    `sizes`."""
    aggs = game.new_aggregates(prep)
    rows = np.zeros((sum(sizes), len(game.row_columns)), np.int64)
    first = 0
    for n in sizes:
        game.run_chunk(prep, seed, first, n, aggs, rows[first:first + n], rotation, forbid)
        first += n
    return aggs, rows


def check_policy_names(game, more_bad=()):
    """`mcts[:BUDGET][:rollout=POLICY][:c=NUMBER]` parses, and bad names are refused."""
    spec = game.policy_spec("mcts:50:rollout=random:c=1.5")
    assert (spec.budget, spec.rollout, spec.exploration) == (50, "random", 1.5)
    assert game.policy_spec("mcts").budget == game.search.budget
    for bad in ("mcts:0", "mcts:rollout=mcts", "mcts:c=-1", "mcts:x", *more_bad):
        with pytest.raises(UserError):
            game.policy_spec(bad)


def check_same_on_one_or_two_threads(game, prep, seats, n, chunks):
    """A mirrored run gives the same statistics on one thread in chunks of chunks[0] as on
    two threads in chunks of chunks[1]."""
    def run(threads, chunk):
        cfg = RunConfig(game=game.name, players=len(seats), seats=tuple(seats), n=n, seed=5,
                        threads=threads, rules=game.resolve_rules([]), content=None,
                        out=Path("unused"), chunk_size=chunk, mirror=True)
        return play(game, prep, cfg, None, None)[0]

    a, b = run(1, chunks[0]), run(2, chunks[1])
    for key in a:
        assert np.array_equal(a[key], b[key]), key
