"""`simcli tune` on every game: a content parameter and a rule option are searched, the best
setting is written as a content file the game loads, and a planted Samsara setting is
recovered (issue 16)."""

import json

import pytest
from typer.testing import CliRunner

from simcli.cli import app
from simcli.registry import get_game
from simcli.tune import apply_setting, parse_param, run_tune

runner = CliRunner()

# (game, content parameter, values, players)
CASES = [
    ("samsara", "scoring.goals_to_win", "4..6", 2),
    ("samurai-card-game", "rules.hand", "4..6", 3),
    ("samurai-sword", "rules.draw", "1..3", 4),
    ("samurai-katana", "numbers.start_koku", "3..5", 3),
]


@pytest.mark.parametrize("game,param,values,players", CASES)
def test_tune_writes_a_loadable_best_content_for_every_game(tmp_path, game, param, values,
                                                            players):
    out = tmp_path / "t"
    r = runner.invoke(app, ["tune", game, "--param", f"{param}={values}", "--objective",
                            "balance", "-p", str(players), "-n", "40", "-t", "1",
                            "--out", str(out), "--json", "-q"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    setting = doc["confirm"]["setting"]
    lo, hi = (int(v) for v in values.split(".."))
    assert setting.startswith(f"{param}=") and lo <= int(setting.split("=")[1]) <= hi
    g = get_game(game)
    content = g.load_content(out / "best.toml")  # loads through the game's own schema
    assert content is not None
    key = param.split(".")[-1]
    assert f"{key} = {setting.split('=')[1]}" in (out / "best.toml").read_text()


def test_tune_searches_a_rule_option(tmp_path):
    out = tmp_path / "r"
    r = runner.invoke(app, ["tune", "samsara", "--param", "rule.match=single,competition",
                            "--objective",
                            "duration.mean=30", "-n", "40", "-t", "1", "--out", str(out),
                            "--json", "-q"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["confirm"]["setting"] in ("rule.match=single",
                                                          "rule.match=competition")


def test_tune_recovers_a_planted_samsara_goal_count(tmp_path):
    """The goals needed to win that give a measured game length (greedy players, 20,000
    games) are found again among 3..7."""
    from reports.compare import difference
    from simcli.tune import Candidate, _evaluate

    game = get_game("samsara")
    text = game.content_path(None).read_text()
    planted = 5
    cand_text = apply_setting(text, game, [parse_param(game, "scoring.goals_to_win=5")],
                              (planted,))
    (tmp_path / "m").mkdir()
    truth = _evaluate(game, Candidate((planted,), cand_text, game.resolve_rules([])),
                      tmp_path / "m", 2, ("greedy", "greedy"), 20_000, 99, 2, None)
    row = truth.filter(truth["metric"] == "duration.mean").row(0, named=True)
    res = run_tune("samsara", ["scoring.goals_to_win=3..7"], f"duration.mean={row['value']}",
                   players=2, policy="greedy", rules=[], content=None, n=1000, budget=None,
                   seed=1, threads=2, out=tmp_path / "t", force=False)
    assert res.confirm["setting"] == f"scoring.goals_to_win={planted}"
    confirmed = {k: res.confirm[k] for k in ("value", "ci_low", "ci_high")}
    diff, _ = difference({**confirmed, "n": res.confirm["playouts"], "unit": row["unit"]}, row)
    assert diff.lo <= 0 <= diff.hi
