"""Every registered game plugs into the generic machinery without game-specific code:
run folders with the metric catalogue, the skill gap, mirrored play and the study."""

import json

import polars as pl
import pytest
from typer.testing import CliRunner

from simcli.cli import app
from simcli.registry import GAMES

runner = CliRunner()


def run(*args):
    r = runner.invoke(app, [str(a) for a in args])
    assert r.exit_code == 0, r.output
    return r


@pytest.mark.parametrize("name", list(GAMES))
def test_run_reports_the_catalogue(name, tmp_path):
    game = GAMES[name]
    out = tmp_path / name
    run("run", name, "-n", 300, "--out", out, "-q")
    metrics = pl.read_csv(out / "tables" / "metrics.csv")
    names = set(metrics["metric"])
    seats = {f"win_rate.seat{s + 1}" for s in range(game.default_players)}
    assert seats | {"balance", "shared_rate", "completion", "duration.mean"} <= names
    assert set(game.own_metric_names) <= names
    assert (metrics["ci_low"] <= metrics["value"]).all()
    assert (metrics["value"] <= metrics["ci_high"]).all()
    assert "winner" in game.row_columns


@pytest.mark.parametrize("name", [n for n, g in GAMES.items() if "random" in g.policies
                                  and len(g.policies) > 1])
def test_skill_gap_runs_for_every_game(name):
    r = run("skill", name, "-n", 100, "--json")
    rows = json.loads(r.stdout)["skill"]
    assert rows and all(row["ci_low"] <= row["win_rate"] <= row["ci_high"] for row in rows)


@pytest.mark.parametrize("name", [n for n, g in GAMES.items() if g.supports_mirror])
def test_mirror_runs_for_every_game_that_supports_it(name, tmp_path):
    game = GAMES[name]
    out = tmp_path / name
    run("run", name, "--mirror", "-n", 100, "--out", out, "-q")
    mirror = pl.read_csv(out / "tables" / "mirror.csv")
    assert mirror.filter(pl.col("kind") == "seat").height == game.default_players
    assert (mirror["games"] == 100 * game.default_players).all()
