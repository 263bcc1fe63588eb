"""Samsara through the command line and the engine: rule options, JSON, determinism,
saved games and content errors."""

import json

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from simcli.cli import app
from simcli.errors import UserError
from simcli.games.samsara import RULES, Samsara
from simcli.study import RunConfig, play

runner = CliRunner()
GAME = Samsara()
STANDARD = GAME.content_path(None)


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_games_lists_samsara_with_every_rule_option():
    data = {g["name"]: g for g in json.loads(invoke("games", "--json").stdout)}
    g = data["samsara"]
    assert g["players"] == "2-2" and set(g["policies"]) == {"random", "greedy", "lookahead"}
    assert {r["name"]: r["default"] for r in g["rules"]} == {
        "match": "single", "re-entry": "lowest-empty", "opponent-goal": "forbidden",
        "arc": "step", "same-marble": "each-die", "single-die": "play-either"}
    assert g["content"][0]["assumed"]


@pytest.mark.parametrize("option", [f"{r.name}={c}" for r in RULES for c in r.choices
                                    if c != r.default])
def test_every_rule_option_runs_end_to_end(option, tmp_path):
    r = invoke("run", "samsara", "-n", 200, "--rule", option, "--json", "--out",
               tmp_path / "o", "--quiet", "--threads", 1)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    name, value = option.split("=")
    assert data["manifest"]["rules"][name] == value
    assert sum(s["wins"] for s in data["summary"]["seats"]) == 200


def test_competition_match_report(tmp_path):
    out = tmp_path / "m"
    r = invoke("run", "samsara", "--rule", "match=competition", "-n", 300, "--out", out,
               "--quiet", "--rule", "re-entry=both-empty", "--rule",
               "opponent-goal=scores-for-owner")
    assert r.exit_code == 0, r.output
    for name in ("tables/match.csv", "tables/match_points.csv", "charts/match_points.png",
                 "charts/seat_win_rates.png", "charts/length.png", "report.md"):
        assert (out / name).exists(), name
    summary = pl.read_parquet(out / "summary.parquet")
    assert (summary["ci_low"] <= summary["value"] + 1e-12).all()
    assert "matches" in r.stdout


def test_seats_json_reports_the_skill_gap(tmp_path):
    r = invoke("run", "samsara", "--seats", "greedy,random", "-n", 300, "--json", "--out",
               tmp_path / "s", "--quiet")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    skill = data["summary"]["skill"]
    assert skill[0]["policy"] == "greedy" and skill[0]["n"] == 300
    assert skill[0]["ci_low"] > 0.9  # greedy beats random in both seats
    assert len(data["summary"]["pairings"]) == 2


def aggregates(threads, chunk, seed=4, seats=("greedy", "random"), rules=()):
    cfg = RunConfig(game="samsara", players=2, seats=seats, n=600, seed=seed, threads=threads,
                    rules=GAME.resolve_rules(list(rules)), content=None, out=None,
                    chunk_size=chunk)
    prep = GAME.prepare(GAME.load_content(STANDARD), 2, seats, cfg.rules)
    return play(GAME, prep, cfg, None, None)[0]


@pytest.mark.parametrize("rules", [(), ("match=competition",)])
def test_same_seed_same_statistics_for_any_threads_and_chunks(rules):
    a = aggregates(1, 600, rules=rules)
    b = aggregates(2, 77, rules=rules)
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    c = aggregates(1, 600, seed=5, rules=rules)
    assert not np.array_equal(a["length"], c["length"])


def test_save_games_rows_match_the_aggregates(tmp_path):
    out = tmp_path / "g"
    r = invoke("run", "samsara", "-n", 500, "--chunk-size", 128, "--save-games", "--out", out,
               "--quiet", "--seats", "random,greedy")
    assert r.exit_code == 0, r.output
    games = pl.read_parquet(out / "games" / "*.parquet")
    assert games.height == 500 and games["playout"].sort().to_list() == list(range(500))
    wins = json.loads((out / "aggregates.json").read_text())["arrays"]["wins"]["data"]
    assert (games["winner"] == 0).sum() == wins[0] and (games["winner"] == 1).sum() == wins[1]
    assert (games["swap_winner"] >= -1).all()  # every seed replayed with seats swapped


def edited(tmp_path, old, new):
    text = STANDARD.read_text()
    assert old in text
    path = tmp_path / "board.toml"
    path.write_text(text.replace(old, new, 1))
    return path


def error_of(path):
    with pytest.raises(UserError) as exc:
        GAME.load_content(path)
    return str(exc.value)


def line_of(path, needle):
    return next(i for i, t in enumerate(path.read_text().splitlines(), 1) if needle in t)


def test_bad_content_names_file_line_and_field(tmp_path):
    path = edited(tmp_path, "goals_to_win = 6", "goals_to_win = 9")
    msg = error_of(path)
    assert str(path) in msg and f"line {line_of(path, 'goals_to_win')}" in msg
    assert "'scoring.goals_to_win'" in msg
    msg = error_of(edited(tmp_path, "start_cells = [1, 2, 3, 4, 5, 6]",
                          "start_cells = [1, 2, 2]"))
    assert "twice" in msg and "start_cells" in msg
    msg = error_of(edited(tmp_path, "start_cells = [1, 2, 3, 4, 5, 6]",
                          "start_cells = [1, 2, 13]"))
    assert "1-12" in msg
    msg = error_of(edited(tmp_path, "double_fields = 24", "double_fields = 20"))
    assert "'board.double_fields'" in msg
    msg = error_of(edited(tmp_path, "moksha_points = 4", "moksha_points = 4\nbonus = 1"))
    assert "unknown field 'scoring.bonus'" in msg
    msg = error_of(edited(tmp_path, 'game = "samsara"', 'game = "chess"'))
    assert "not samsara" in msg
    bad = tmp_path / "bad.toml"
    bad.write_text("[board\n")
    assert "line 1" in error_of(bad)


def test_bad_content_on_the_command_line_is_one_line(tmp_path):
    path = edited(tmp_path, "moksha_points = 4", "moksha_points = -1")
    r = invoke("run", "samsara", "--content", path, "--out", tmp_path / "o")
    assert r.exit_code == 2
    assert "moksha_points" in r.stderr and "Traceback" not in r.output
    assert not (tmp_path / "o").exists()
    r = invoke("run", "samsara", "--players", 3, "--out", tmp_path / "o")
    assert r.exit_code == 2 and "2-2 players" in r.stderr
    r = invoke("run", "samsara", "--rule", "arc=curved", "--out", tmp_path / "o")
    assert r.exit_code == 2 and "step|extra-step" in r.stderr


def test_smaller_board_content_runs(tmp_path):
    path = edited(tmp_path, "start_cells = [1, 2, 3, 4, 5, 6]", "start_cells = [1, 3, 5]")
    c = GAME.load_content(path)
    assert c.data.marbles == 6
    prep = GAME.prepare(c, 2, ("random", "greedy"), GAME.resolve_rules([]))
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 1, 0, 50, aggs, None)
    assert aggs["wins"].sum() == 50
