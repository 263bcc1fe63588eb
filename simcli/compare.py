"""`simcli compare`: every metric of two finished runs of the same game (the same content or
a variant of it: a content file edited from the shipped one)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from reports.compare import differences
from simcli.analysis import metrics_of
from simcli.errors import UserError
from simcli.registry import get_game
from simcli.runfolder import load_finished


def compare_runs(a: Path, b: Path) -> tuple[pl.DataFrame, dict, dict]:
    """(differences a - b, manifest a, manifest b); refuses runs of different games."""
    man_a, agg_a = load_finished(a)
    man_b, agg_b = load_finished(b)
    if man_a["game"] != man_b["game"]:
        raise UserError(f"cannot compare runs of different games: {a} is {man_a['game']}, "
                        f"{b} is {man_b['game']}")
    # Different content is what a designer compares (a variant against the original):
    # describe() names each run's content, so the header says what differs.
    game = get_game(man_a["game"])
    diff = differences(metrics_of(game, agg_a, man_a["players"]),
                       metrics_of(game, agg_b, man_b["players"]), "a", "b")
    return diff, man_a, man_b


def describe(man: dict) -> str:
    """One line naming what a run was."""
    rules = ",".join(f"{k}={v}" for k, v in man["rules"].items())
    c = man["content"]
    return (f"{man['game']} {man['players']}p seats={'/'.join(man['seats'])} rules={rules} "
            f"content={c['name']} ({c['sha256'][:12]}) n={man['playouts']:,} "
            f"seed={man['seed']}")
