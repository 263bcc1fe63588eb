"""simcli check: verdicts, exit codes, bad specs, the example spec and workflow."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simcli.check import looks
from simcli.cli import app

runner = CliRunner()
ROOT = Path(__file__).parents[1]


def spec(tmp_path, body, name="spec.toml"):
    path = tmp_path / name
    path.write_text(body)
    return path


ONE = '''
[[assert]]
name = "{name}"
game = "sixteen-samurai"
players = 2
policy = "greedy"
metric = "win_rate.seat1"
{range}
max_playouts = {budget}
'''


def verdict(tmp_path, name, rng, budget=40_000):
    path = spec(tmp_path, ONE.format(name=name, range=rng, budget=budget), f"{name}.toml")
    r = runner.invoke(app, ["check", str(path), "--json", "-q"])
    return r.exit_code, json.loads(r.stdout)["results"][0]


def test_true_false_and_inconclusive(tmp_path):
    code, res = verdict(tmp_path, "true", "min = 0.40\nmax = 0.60")
    assert code == 0 and res["verdict"] == "pass" and res["playouts"] <= 40_000
    code, res = verdict(tmp_path, "false", "min = 0.70\nmax = 0.90")
    assert code == 1 and res["verdict"] == "fail"
    code, res = verdict(tmp_path, "tiny", "min = 0.49\nmax = 0.51", budget=300)
    assert code == 1 and res["verdict"] == "inconclusive" and res["playouts"] == 300


def test_verdicts_are_deterministic(tmp_path):
    a = verdict(tmp_path, "a", "min = 0.45\nmax = 0.56")[1]
    b = verdict(tmp_path, "b", "min = 0.45\nmax = 0.56")[1]
    for key in ("verdict", "value", "ci_low", "ci_high", "playouts"):
        assert a[key] == b[key]


def test_looks_double_up_to_the_budget():
    assert looks(30_000) == [5_000, 10_000, 20_000, 30_000]
    assert looks(4_000) == [4_000]


@pytest.mark.parametrize(("body", "needle"), [
    (ONE.format(name="x", range="min = 0.4", budget=100).replace("win_rate.seat1", "luck"),
     "field 'metric': sixteen-samurai has no metric 'luck'"),
    (ONE.format(name="x", range="min = 0.4", budget=100).replace("win_rate.seat1",
                                                                  "margin.mean"),
     "sixteen-samurai has no metric 'margin.mean'"),  # a metric of other games only
    (ONE.format(name="x", range="min = nan", budget=100), "field 'min' must be a finite"),
    (ONE.format(name="x", range="min = 0.4", budget=100).replace("[[assert]]", "assert = 3"),
     "[[assert]]"),
    ('[[assert]]\ngame = 3\nmetric = "balance"\nmin = 0.1\n', "missing field 'game'"),
    ("defaults = 5\n" + ONE.format(name="x", range="min = 0.4", budget=100), "[defaults]"),
    (ONE.format(name="x", range="min = 0.6\nmax = 0.4", budget=100), "range upside down"),
    (ONE.format(name="x", range="", budget=100), "missing field 'min' or 'max'"),
    (ONE.format(name="x", range="min = 0.4", budget=100).replace('game = "sixteen-samurai"',
                                                                  ""), "missing field 'game'"),
    (ONE.format(name="x", range="min = 0.4", budget=100).replace("players = 2", "players = 9"),
     "2-4 players"),
    (ONE.format(name="x", range="min = 0.4", budget=100) + "colour = 3\n",
     "unknown field 'colour'"),
    (ONE.format(name="x", range="min = 0.4", budget=0), "field 'max_playouts'"),
    ("[defaults]\nseed = 1\n", "[[assert]]"),
    ("[[assert\n", "malformed TOML"),
])
def test_bad_specs_are_one_line_errors(tmp_path, body, needle):
    r = runner.invoke(app, ["check", str(spec(tmp_path, body))])
    assert r.exit_code == 2, r.output
    assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("where", ["folder", "missing/dir/summary.md"])
def test_markdown_that_cannot_be_written_is_refused_before_playing(tmp_path, where):
    target = tmp_path / where
    if where == "folder":
        target.mkdir()
    body = ONE.format(name="x", range="min = 0.4", budget=100)
    r = runner.invoke(app, ["check", str(spec(tmp_path, body)), "--markdown", str(target)])
    assert r.exit_code == 2 and "--markdown" in r.stderr, r.output
    assert len(r.stderr.strip().splitlines()) == 1


def test_the_example_spec_passes_and_the_workflow_runs_it(tmp_path):
    example = ROOT / "scripts" / "balance.example.toml"
    summary = tmp_path / "summary.md"
    r = runner.invoke(app, ["check", str(example), "--markdown", str(summary), "-q"])
    assert r.exit_code == 0, r.output
    text = summary.read_text()
    assert "passed" in text and "| assertion |" in text and "FAIL" not in text
    workflow = (ROOT / "scripts" / "ci-balance-example.yml").read_text()
    assert "simcli check scripts/balance.example.toml" in workflow
    assert "$GITHUB_STEP_SUMMARY" in workflow
