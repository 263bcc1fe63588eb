"""`simcli compare`: every metric of two finished runs of the same game and content."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from reports.compare import differences
from simcli.analysis import metrics_of
from simcli.errors import UserError
from simcli.registry import get_game
from simcli.runfolder import load_finished


def compare_runs(a: Path, b: Path) -> tuple[pl.DataFrame, dict, dict]:
    """(differences a - b, manifest a, manifest b); refuses different games or content."""
    man_a, agg_a = load_finished(a)
    man_b, agg_b = load_finished(b)
    if man_a["game"] != man_b["game"]:
        raise UserError(f"cannot compare runs of different games: {a} is {man_a['game']}, "
                        f"{b} is {man_b['game']}")
    ca, cb = man_a["content"], man_b["content"]
    if ca["sha256"] != cb["sha256"]:
        raise UserError(f"cannot compare runs on different content: {a} used {ca['name']} "
                        f"({ca['sha256'][:12]}), {b} used {cb['name']} ({cb['sha256'][:12]})")
    game = get_game(man_a["game"])
    diff = differences(metrics_of(game, agg_a, man_a["players"]),
                       metrics_of(game, agg_b, man_b["players"]), "a", "b")
    return diff, man_a, man_b


def describe(man: dict) -> str:
    """One line naming what a run was."""
    rules = ",".join(f"{k}={v}" for k, v in man["rules"].items())
    return (f"{man['game']} {man['players']}p seats={'/'.join(man['seats'])} rules={rules} "
            f"n={man['playouts']:,} seed={man['seed']}")
