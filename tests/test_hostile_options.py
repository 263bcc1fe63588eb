"""Hostile input, issue 17: options every command checks the same way (seeds), bench and
Dask options, runs that would never end, and chunk plans that cost nothing up front."""

import json
import time

import pytest

from simcli import engine
from tests.cli import invoke, one_line_error

BAD_SEEDS = [-1, 2**64, 99999999999999999999999]


def seed_commands(tmp_path):
    return {
        "run": ["run", "sixteen-samurai", "-n", 100, "--out", tmp_path / "x"],
        "replay": ["replay", "sixteen-samurai"],
        "odds": ["odds", "sixteen-samurai", "--dice", "3", "2", "-n", 1000],
        "skill": ["skill", "sixteen-samurai", "-n", 10],
        "study": ["study", "--games", "sixteen-samurai", "--out", tmp_path / "x"],
        "sweep": ["sweep", "sixteen-samurai", "--vary", "players=2,3", "-n", 10, "--out",
                  tmp_path / "x"],
    }


@pytest.mark.parametrize("seed", BAD_SEEDS)
@pytest.mark.parametrize("command", ["run", "replay", "odds", "skill", "study", "sweep"])
def test_every_command_checks_seeds_the_same_way(tmp_path, command, seed):
    args = seed_commands(tmp_path)[command]
    text = one_line_error(invoke(*args, "--seed", seed))
    assert "--seed must be a whole number 0 .. 2**64-1" in text
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_check_spec_seeds_are_checked_the_same_way(tmp_path, seed):
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[[assert]]\ngame = "sixteen-samurai"\nmetric = "balance"\nmin = 0.1\n'
                    f'max_playouts = 100\nseed = {seed}\n')
    assert "field 'seed' must be a whole number 0 .. 2**64-1" in one_line_error(
        invoke("check", spec))


def test_the_largest_seed_is_accepted():
    r = invoke("odds", "sixteen-samurai", "--dice", "3", "2", "-n", 1000, "--seed", 2**64 - 1,
               "--json")
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize(("field", "value"), [("content", "3"), ("policy", "3"),
                                              ("name", "[1]"), ("players", "true")])
def test_check_spec_fields_of_the_wrong_type(tmp_path, field, value):
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[[assert]]\ngame = "sixteen-samurai"\nmetric = "balance"\nmin = 0.1\n'
                    f'max_playouts = 100\n{field} = {value}\n')
    assert f"'{field}'" in one_line_error(invoke("check", spec))


@pytest.mark.parametrize("seconds", ["nan", "inf", "-inf", "0", "-1", "1e9"])
def test_bench_seconds_must_be_a_sensible_number(seconds):
    assert "--seconds" in one_line_error(invoke("bench", "sixteen-samurai", "--seconds",
                                                seconds))


def baseline(**games):
    return {"format": "simcli-bench-1", "games": games}


GOOD = {"median": 1000.0, "min": 900.0, "max": 1100.0, "values": [1000.0]}


@pytest.mark.parametrize("doc", [
    baseline(**{"sixteen-samurai": {"playouts_per_s": "fast"}}),
    baseline(**{"sixteen-samurai": {"playouts_per_s": {**GOOD, "median": 0}}}),
    baseline(**{"sixteen-samurai": {"playouts_per_s": {**GOOD, "min": None}}}),
    baseline(**{"sixteen-samurai": {"playouts_per_s": {**GOOD, "max": True}}}),
    baseline(**{"sixteen-samurai": {}}),
    baseline(**{"sixteen-samurai": [1, 2]}),
    {**baseline(**{"sixteen-samurai": {"playouts_per_s": GOOD}}), "dice": {"x": 1}},
])
def test_a_baseline_of_the_right_format_with_malformed_contents(tmp_path, doc):
    path = tmp_path / "base.json"
    path.write_text(json.dumps(doc))
    t0 = time.time()
    text = one_line_error(invoke("bench", "sixteen-samurai", "--seconds", "0.05", "--repeats",
                                 1, "--baseline", path))
    assert "baseline" in text and time.time() - t0 < 30  # refused before measuring


def test_a_baseline_with_nan_is_not_json(tmp_path):
    path = tmp_path / "base.json"
    path.write_text('{"format": "simcli-bench-1", "games": {"sixteen-samurai": '
                    '{"playouts_per_s": {"median": NaN, "min": 1, "max": 1}}}}')
    assert "not JSON" in one_line_error(invoke("bench", "--baseline", path))


@pytest.mark.parametrize("scheme", ["ucx", "tls", "ws", "inproc"])
def test_dask_schedulers_of_unsupported_schemes(tmp_path, scheme):
    text = one_line_error(invoke("run", "sixteen-samurai", "-n", 100, "--backend", "dask",
                                 "--scheduler", f"{scheme}://127.0.0.1:8786", "--out",
                                 tmp_path / "o"))
    assert f"{scheme}://" in text and "supported: tcp://" in text
    assert not (tmp_path / "o").exists()
    text = one_line_error(invoke("run", "sixteen-samurai", "--backend", "dask", "--scheduler",
                                 "tcp://nohostport", "--out", tmp_path / "o"))
    assert "tcp://HOST:PORT" in text


def test_plans_are_lazy():
    t0 = time.perf_counter()
    plan = engine.plan(10**15, 4000)
    assert len(plan) == 250_000_000_000 and plan.total == 10**15
    assert plan[-1].first == 10**15 - 4000 and plan[-1].count == 4000
    first = [c for _, c in zip(range(3), plan, strict=False)]
    assert [c.first for c in first] == [0, 4000, 8000]
    skipped = engine.plan(10_001, 1000, skip={0, 10})
    assert [c.index for c in skipped] == list(range(1, 10))
    assert skipped.total == 10_001 - 1000 - 1 and len(skipped) == 9
    assert time.perf_counter() - t0 < 1


def test_a_run_estimated_beyond_a_day_is_refused_saying_the_estimate(tmp_path):
    out = tmp_path / "huge"
    t0 = time.time()
    text = one_line_error(invoke("run", "sixteen-samurai", "-n", 10**15, "--out", out))
    assert "this would take about" in text and "years" in text and "--yes" in text
    assert time.time() - t0 < 60
    assert list(tmp_path.iterdir()) == []


def test_with_yes_a_huge_run_starts_at_once(tmp_path, monkeypatch):
    from simcli import cli

    def stop(self, done, total, elapsed):
        assert total == 10**15
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.RichProgress, "advance", stop)
    t0 = time.time()
    r = invoke("run", "sixteen-samurai", "-n", 10**15, "--out", tmp_path / "huge", "--yes")
    assert r.exit_code == 130 and "interrupted" in r.stderr, r.output
    assert time.time() - t0 < 60
    assert list(tmp_path.iterdir()) == []


def test_odds_estimated_beyond_a_day_is_refused_unless_yes(monkeypatch):
    from simcli import cli

    t0 = time.time()
    text = one_line_error(invoke("odds", "sixteen-samurai", "--dice", "3", "2", "-n", 10**15))
    assert "this would take about" in text and "--yes" in text
    assert time.time() - t0 < 60

    def stop(self, done, total, elapsed):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.RichProgress, "advance", stop)
    r = invoke("odds", "sixteen-samurai", "--dice", "3", "2", "-n", 10**15, "--yes")
    assert r.exit_code == 130, r.output


def test_skill_and_sweep_estimated_beyond_a_day_are_refused(tmp_path):
    assert "--yes" in one_line_error(invoke("skill", "sixteen-samurai", "-n", 10**15))
    assert "--yes" in one_line_error(invoke("sweep", "sixteen-samurai", "--vary",
                                            "players=2,3", "-n", 10**15, "--out",
                                            tmp_path / "s"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("games", ["", ",", " , "])
def test_study_refuses_an_empty_game_list(tmp_path, games):
    text = one_line_error(invoke("study", "--games", games, "--out", tmp_path / "s"))
    assert "--games" in text
    assert list(tmp_path.iterdir()) == []


def test_study_refuses_a_game_named_twice(tmp_path):
    text = one_line_error(invoke("study", "--games", "samsara,samsara", "--out", tmp_path / "s"))
    assert "twice" in text


@pytest.mark.parametrize("target", ["0", "-0.01", "nan", "0.5"])
@pytest.mark.parametrize("command", ["study", "run"])
def test_a_target_half_width_that_is_never_reached_is_refused(tmp_path, command, target):
    args = ["study", "--games", "sixteen-samurai"] if command == "study" else [
        "run", "sixteen-samurai"]
    text = one_line_error(invoke(*args, "--target-ci", target, "--out", tmp_path / "s"))
    assert "--target-ci" in text
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("args", "needle"), [
    (["replay", "sixteen-samurai", "--playout", 2**63], "--playout"),
    (["replay", "sixteen-samurai", "--find", "winner=1", "--search", 0], "--search"),
    (["run", "sixteen-samurai", "-n", 2**63], "2**62"),
    (["odds", "sixteen-samurai", "--dice", "3", "2", "-n", 2**63], "2**62"),
    (["skill", "sixteen-samurai", "--threads", 0], "--threads"),
    (["bench", "sixteen-samurai", "--repeats", 0], "--repeats"),
])
def test_out_of_range_numbers(args, needle):
    assert needle in one_line_error(invoke(*args))


@pytest.mark.parametrize(("extra", "needle"), [
    (["--vary", "policy=greedy,random", "--policy", "random"], "drop --policy"),
    (["--vary", "seats=greedy/greedy,greedy/greedy/greedy", "--players", 4], "drop --players"),
    (["--vary", "policy=greedy,greedy"], "lists 'greedy' twice"),
    (["--vary", "rule.draft=snake,rotation", "--rule", "draft=snake"], "drop the --rule"),
])
def test_sweep_refuses_an_option_that_an_axis_overrides(tmp_path, extra, needle):
    r = invoke("sweep", "sixteen-samurai", *extra, "-n", 10, "--out", tmp_path / "x")
    assert needle in one_line_error(r)
    assert list(tmp_path.iterdir()) == []
