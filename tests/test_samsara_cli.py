"""Samsara through the command line and the engine: rule options, JSON, determinism,
saved games and content errors."""

import json

import numpy as np
import polars as pl
import pytest

from simcli.games.samsara import RULES, Samsara
from simcli.run import RunConfig, play
from simcli.skill import skill_gap
from tests.cli import invoke
from tests.content_edits import content_error, edited, line_of

GAME = Samsara()
STANDARD = GAME.content_path(None)


def test_games_lists_samsara_with_every_rule_option():
    data = {g["name"]: g for g in json.loads(invoke("games", "--json").stdout)}
    g = data["samsara"]
    assert g["players"] == "2-2" and set(g["policies"]) == {"random", "greedy", "lookahead"}
    assert {r["name"]: r["default"] for r in g["rules"]} == {
        "match": "single", "re-entry": "both-empty", "opponent-goal": "forbidden",
        "arc": "step", "same-marble": "each-die", "single-die": "play-either",
        "extra-turn-moksha": "draw"}
    choices = {r["name"]: r["choices"] for r in g["rules"]}
    assert choices["opponent-goal"] == ["forbidden", "scores-for-owner",
                                        "allowed-scores-nothing"]
    assert choices["re-entry"] == ["both-empty", "lowest-empty"]
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
    for name in ("tables/match.csv", "charts/match_points.png",
                 "charts/seats.png", "charts/length.png", "report.md"):
        assert (out / name).exists(), name
    summary = pl.read_parquet(out / "summary.parquet")
    assert (summary["ci_low"] <= summary["value"] + 1e-12).all()
    assert "matches" in r.stdout


def test_mirror_json_gives_each_players_paired_win_rate(tmp_path):
    r = invoke("run", "samsara", "--seats", "greedy,random", "--mirror", "-n", 2000, "--json",
               "--out", tmp_path / "m", "--quiet", "--threads", 1)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    players = {row["who"]: row for row in data["summary"]["mirror"] if row["kind"] == "player"}
    greedy = players["player 1 (greedy)"]
    assert greedy["deals"] == 2000 and greedy["games"] == 4000
    # greedy wins (nearly) every game from both seats, so the paired interval is narrow
    assert greedy["win_rate"] > 0.98
    assert 0.97 < greedy["ci_low"] <= greedy["win_rate"] <= greedy["ci_high"] <= 1.0 + 1e-9
    assert abs(players["player 2 (random)"]["win_rate"] + greedy["win_rate"] - 1) < 0.01
    seats = data["summary"]["seats"]
    assert sum(row["wins"] for row in seats) == 4000  # both seatings of every seed, by seat
    assert seats[0]["policy"] == "greedy / random (rotated)"
    assert data["summary"]["skill"][0]["in_this_run"].startswith("yes")
    assert seats[0]["fair"] == seats[1]["fair"] == (4000 - seats[2]["wins"]) / 8000


def test_mirror_of_equal_policies_gives_an_interval_around_one_half(tmp_path):
    r = invoke("run", "samsara", "--seats", "random,random", "--mirror", "-n", 2000, "--json",
               "--out", tmp_path / "r", "--quiet", "--threads", 1)
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["summary"]["mirror"]
    first = next(row for row in rows if row["who"] == "player 1 (random)")
    assert first["ci_low"] < 0.5 < first["ci_high"] and first["ci_high"] - first["ci_low"] < 0.06
    assert first["variance_reduction"] > 0  # paired: each seed's two seatings averaged first


def test_mixed_seats_without_mirror_play_each_seed_once(tmp_path):
    r = invoke("run", "samsara", "--seats", "greedy,random", "-n", 300, "--json", "--out",
               tmp_path / "s", "--quiet", "--threads", 1)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert sum(row["wins"] for row in data["summary"]["seats"]) == 300
    assert data["summary"]["seats"][0]["policy"] == "greedy"
    assert data["summary"].get("mirror") is None
    skill = data["summary"]["skill"]
    assert [row["in_this_run"] for row in skill] == ["no", "no"]
    assert "--mirror" in skill[0]["command"] and skill[1]["command"] == "simcli skill samsara"
    assert any("--mirror" in f for f in data["findings"])


def test_competition_with_mirror_swaps_seats_for_whole_matches(tmp_path):
    r = invoke("run", "samsara", "--seats", "greedy,random", "--mirror", "-n", 200, "--rule",
               "match=competition", "--json", "--out", tmp_path / "c", "--quiet")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    players = {row["who"]: row for row in data["summary"]["mirror"] if row["kind"] == "player"}
    assert players["player 1 (greedy)"]["deals"] == 200
    assert players["player 1 (greedy)"]["win_rate"] > 0.9
    assert sum(row["match_wins"] for row in data["summary"]["match"]) == 400


def test_skill_gap_of_greedy_against_random():
    """`simcli skill samsara` reads the winner column of each seating: greedy in seat 1,
    greedy in seat 2, and the all-random baseline on the same seeds."""
    r = skill_gap(GAME, "greedy", 2, 300, 7, 1)
    assert r["seeds"] == 300 and r["games"] == 900
    assert r["ci_low"] > 0.9 and 0.4 < r["baseline"] < 0.6 and r["edge_ci_low"] > 0.3


def aggregates(threads, chunk, seed=4, seats=("greedy", "random"), rules=(), mirror=False):
    cfg = RunConfig(game="samsara", players=2, seats=seats, n=600, seed=seed, threads=threads,
                    rules=GAME.resolve_rules(list(rules)), content=None, out=None,
                    chunk_size=chunk, mirror=mirror)
    prep = GAME.prepare(GAME.load_content(STANDARD), 2, seats, cfg.rules)
    return play(GAME, prep, cfg, None, None)[0]


@pytest.mark.parametrize(("rules", "mirror"), [((), False), (("match=competition",), False),
                                               ((), True)])
def test_same_seed_same_statistics_for_any_threads_and_chunks(rules, mirror):
    a = aggregates(1, 600, rules=rules, mirror=mirror)
    b = aggregates(2, 77, rules=rules, mirror=mirror)
    assert ("mirror_player" in a) == mirror
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    c = aggregates(1, 600, seed=5, rules=rules, mirror=mirror)
    assert not np.array_equal(a["length"], c["length"])


def test_save_games_rows_match_the_aggregates(tmp_path):
    out = tmp_path / "g"
    r = invoke("run", "samsara", "-n", 500, "--chunk-size", 128, "--save-games", "--out", out,
               "--quiet", "--seats", "random,greedy")
    assert r.exit_code == 0, r.output
    games = pl.read_parquet(out / "games" / "*.parquet")
    assert games.height == 500 and games["playout"].sort().to_list() == list(range(500))
    wins = json.loads((out / "aggregates.json").read_text())["arrays"]["wins"]["data"]
    assert (games["winner"] == 1).sum() == wins[0] and (games["winner"] == 2).sum() == wins[1]
    assert (games["winner"] == games["game1_winner"]).all()  # single games
    assert (games["game2_winner"] == -1).all() and (games["points_1"] == -1).all()
    assert games["game1_turns"].min() > 0


def test_bad_content_names_file_line_and_field(tmp_path):
    path = edited(GAME, tmp_path, "goals_to_win = 6", "goals_to_win = 9")
    msg = content_error(GAME, path)
    assert str(path) in msg and f"line {line_of(path, 'goals_to_win')}" in msg
    assert "'scoring.goals_to_win'" in msg
    msg = content_error(GAME, edited(GAME, tmp_path, "start_cells = [1, 2, 3, 4, 5, 6]",
                                     "start_cells = [1, 2, 2]"))
    assert "twice" in msg and "start_cells" in msg
    msg = content_error(GAME, edited(GAME, tmp_path, "start_cells = [1, 2, 3, 4, 5, 6]",
                                     "start_cells = [1, 2, 13]"))
    assert "'board.start_cells[2]'" in msg and "<= 12" in msg
    msg = content_error(GAME, edited(GAME, tmp_path, "double_fields = 24", "double_fields = 20"))
    assert "'board.double_fields'" in msg
    path = edited(GAME, tmp_path, "moksha_points = 4", "moksha_points = 4\nbonus = 1")
    msg = content_error(GAME, path)
    assert "'scoring.bonus'" in msg and "unknown field" in msg
    msg = content_error(GAME, edited(GAME, tmp_path, 'game = "samsara"', 'game = "chess"'))
    assert "not samsara" in msg
    bad = tmp_path / "bad.toml"
    bad.write_text("[board\n")
    assert "line 1" in content_error(GAME, bad)


@pytest.mark.parametrize(("old", "new", "field"), [
    ("goals_to_win = 6", 'goals_to_win = "six"', "scoring.goals_to_win"),  # wrong type
    ("goals_to_win = 6", "goals_to_win = true", "scoring.goals_to_win"),
    ("goals_to_win = 6", "goals_to_win = 0", "scoring.goals_to_win"),  # out of range
    ("moksha_points = 4", "moksha_points = 25", "scoring.moksha_points"),
    ("moksha_points = 4", "moksha_points = 4.0", "scoring.moksha_points"),
    ("double_fields = 24", "double_fields = 23", "board.double_fields"),
    ("start_cells = [1, 2, 3, 4, 5, 6]", "start_cells = []", "board.start_cells"),
    ("start_cells = [1, 2, 3, 4, 5, 6]", "start_cells = [1, 2, 3, 4, 5, 6, 7]",
     "board.start_cells"),
    ("start_cells = [1, 2, 3, 4, 5, 6]", 'start_cells = [1, "2"]', "board.start_cells[1]"),
    ("start_cells = [1, 2, 3, 4, 5, 6]", "start_cells = [0, 2]", "board.start_cells[0]"),
    ("start_cells = [1, 2, 3, 4, 5, 6]", "start_cells = 3", "board.start_cells"),
    ("double_fields = 24", "double_fields = 24\nlanes = 2", "board.lanes"),  # unknown key
    ('name = "standard"', 'name = "standard"\nauthor = "x"', "content.author"),
    ("assumed = true", 'assumed = "yes"', "content.assumed"),
    ("[scoring]", "[bonus]\nx = 1\n\n[scoring]", "bonus"),  # unknown table
])
def test_each_bad_value_is_a_one_line_error_naming_its_line(tmp_path, old, new, field):
    path = edited(GAME, tmp_path, old, new)
    msg = content_error(GAME, path)
    last = new.split("\n")[-1]
    head = "[bonus]" if field == "bonus" else last.split("=")[0].strip() + " ="
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1)
                if t.startswith(head))
    assert "\n" not in msg
    assert msg.startswith(f"{path} line {line}: field '{field}'"), msg


def test_missing_table_is_named(tmp_path):
    path = tmp_path / "b.toml"
    path.write_text("[board]\ndouble_fields = 24\nstart_cells = [1]\n")
    msg = content_error(GAME, path)
    assert "scoring" in msg and "\n" not in msg


def test_bad_content_on_the_command_line_is_one_line(tmp_path):
    path = edited(GAME, tmp_path, "moksha_points = 4", "moksha_points = -1")
    r = invoke("run", "samsara", "--content", path, "--out", tmp_path / "o")
    assert r.exit_code == 2
    assert "moksha_points" in r.stderr and "Traceback" not in r.output
    assert not (tmp_path / "o").exists()
    r = invoke("run", "samsara", "--players", 3, "--out", tmp_path / "o")
    assert r.exit_code == 2 and "samsara takes 2 players, not 3" in r.stderr
    r = invoke("run", "samsara", "--rule", "arc=curved", "--out", tmp_path / "o")
    assert r.exit_code == 2 and "step|extra-step" in r.stderr


def test_smaller_board_content_runs(tmp_path):
    path = edited(GAME, tmp_path, "start_cells = [1, 2, 3, 4, 5, 6]", "start_cells = [1, 3, 5]")
    c = GAME.load_content(path)
    assert c.data.marbles == 6
    prep = GAME.prepare(c, 2, ("random", "greedy"), GAME.resolve_rules([]))
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 1, 0, 50, aggs, None)
    assert aggs["wins"].sum() == 50


def test_run_chunk_honours_forbidden_options():
    """forbid[s, o] reaches the players of the fast path: a seat denied its own goal never
    enters it; the other seat is not restricted."""
    prep = GAME.prepare(GAME.load_content(STANDARD), 2, ("greedy", "greedy"),
                        GAME.resolve_rules(["opponent-goal=scores-for-owner"]))
    assert GAME.options == ("own-goal", "opponent-goal", "lane-change")
    free = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 3, 0, 60, free, None)
    GAME.run_chunk(prep, 3, 0, 60, denied := GAME.new_aggregates(prep), None,
                   forbid=np.array([[True, False, False], [False, False, False]]))
    assert free["goal_moves"][0, 0] > 0 and denied["goal_moves"][0, 0] == 0
    assert denied["goal_moves"][1, 1] > 0
    assert denied["wins"][1] > free["wins"][1]
    none = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 3, 0, 60, none, None, forbid=np.zeros((2, 3), bool))
    assert all((none[k] == free[k]).all() for k in free)


def test_value_finds_the_dominant_option(tmp_path):
    """A rule that makes an option dominant: with goals for the owner allowed in either
    goal, a player denied its own goal can only score through the opponent's mistakes, so
    `simcli value` ranks own-goal first, far above zero; entering the opponent's goal
    (which scores for the opponent) is worth nothing to greedy."""
    r = invoke("value", "samsara", "-n", 400, "--rule", "opponent-goal=scores-for-owner",
               "--threads", 1, "--json", "--quiet", "--out", tmp_path / "v")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    overall = {row["option"]: row for row in data["restricted"] if row["seat"] == "overall"}
    best = max(overall.values(), key=lambda row: row["value"])
    assert best["option"] == "own-goal" and best["ci_low"] > 0.3
    assert overall["opponent-goal"]["ci_low"] <= 0.05
    assert data["removal"] == []  # options that are not cards cannot be removed
