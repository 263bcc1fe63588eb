"""The command line as a user meets it: commands, outputs and every bad input."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from simcli.cli import expand_multi_values
from simcli.games.sixteen_samurai import SixteenSamurai
from tests.cli import invoke, one_line_error


def test_games_lists_everything():
    r = invoke("games")
    assert r.exit_code == 0
    for word in ("sixteen-samurai", "greedy", "random", "draft", "lone-clan", "standard",
                 "assumed"):
        assert word in r.stdout
    data = json.loads(invoke("games", "--json").stdout)
    assert data[0]["players"] == "2-4"


def test_every_command_has_help():
    for cmd in ("games", "run", "report", "odds", "bench"):
        r = invoke(cmd, "--help")
        assert r.exit_code == 0 and "--help" in r.stdout


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "ss3"
    r = invoke("run", "sixteen-samurai", "-n", 3000, "--players", 3, "--policy", "greedy",
               "--seed", 7, "--threads", 2, "--out", out, "--quiet")
    assert r.exit_code == 0, r.output
    return out, r


def test_run_writes_a_complete_folder(finished_run):
    out, r = finished_run
    for name in ("manifest.json", "aggregates.json", "content.toml", "summary.parquet",
                 "summary.csv", "report.md", "tables/seats.csv", "tables/cards.parquet",
                 "charts/seat_win_rates.png", "charts/length.png", "charts/card_power.png",
                 "charts/battle_cards.png"):
        assert (out / name).exists(), name
    m = json.loads((out / "manifest.json").read_text())
    assert m["playouts"] == 3000 and m["players"] == 3 and m["seed"] == 7
    assert m["content"]["assumed"] and len(m["content"]["sha256"]) == 64
    assert {"python", "numba", "polars"} <= set(m["versions"])
    assert m["timing"]["compile_s"] >= 0 and m["timing"]["playouts_per_s"] > 0
    summary = pl.read_parquet(out / "summary.parquet")
    assert {"value", "ci_low", "ci_high", "n"} <= set(summary.columns)
    seats = summary.filter(pl.col("section") == "seats")
    assert seats.height == 3 and (seats["n"] == 3000).all()
    assert (seats["ci_low"] <= seats["value"]).all() and (seats["value"] <= seats["ci_high"]).all()
    assert "seat 1 win rate" in r.stdout and "report.md" in r.stdout
    assert "![" in (out / "report.md").read_text()


def test_report_rerenders_the_same_tables(finished_run):
    out, _ = finished_run
    before = (out / "summary.csv").read_text()
    (out / "report.md").unlink()
    r = invoke("report", out)
    assert r.exit_code == 0, r.output
    assert (out / "report.md").exists()
    assert (out / "summary.csv").read_text() == before
    assert not [p for p in out.iterdir() if p.name.startswith(".render")]


def test_json_summary_on_stdout(tmp_path):
    r = invoke("run", "sixteen-samurai", "--seats", "greedy,random,random,random", "-n", 2000,
               "--json", "--out", tmp_path / "j", "--quiet")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["manifest"]["seats"] == ["greedy", "random", "random", "random"]
    seats = data["summary"]["seats"]
    assert len(seats) == 4 and seats[0]["win_rate"] > seats[1]["win_rate"]


def test_same_seed_identical_across_threads_and_chunks(tmp_path):
    outs = []
    for i, (threads, chunk) in enumerate(((1, 1000), (2, 137))):
        out = tmp_path / f"d{i}"
        r = invoke("run", "sixteen-samurai", "-n", 2500, "--seed", 3, "--threads", threads,
                   "--chunk-size", chunk, "--out", out, "--quiet")
        assert r.exit_code == 0, r.output
        outs.append(out)
    for name in ("aggregates.json", "summary.csv", "tables/cards.csv"):
        assert (outs[0] / name).read_text() == (outs[1] / name).read_text(), name


def test_save_games_streams_one_row_per_playout(tmp_path):
    out = tmp_path / "g"
    r = invoke("run", "sixteen-samurai", "-n", 2100, "--chunk-size", 500, "--save-games",
               "--out", out, "--quiet", "--players", 2)
    assert r.exit_code == 0, r.output
    games = pl.read_parquet(out / "games" / "*.parquet")
    assert games.height == 2100 and games["playout"].sort().to_list() == list(range(2100))
    wins = json.loads((out / "aggregates.json").read_text())["arrays"]["wins"]["data"]
    counts = games["winner"].value_counts()  # seats from 1, as in reports and replay
    assert {r[0]: r[1] for r in counts.iter_rows()} == {
        i + 1: w for i, w in enumerate(wins) if w}
    assert "hall_1" in games.columns and "hall_0" not in games.columns


def test_force_refuses_a_folder_simcli_did_not_write(tmp_path):
    out = tmp_path / "project"
    out.mkdir()
    (out / "thesis.txt").write_text("years of work")
    r = invoke("run", "sixteen-samurai", "-n", 500, "--out", out, "--force", "--quiet")
    one_line_error(r)
    assert "nothing was touched" in r.output
    assert (out / "thesis.txt").read_text() == "years of work"
    assert sorted(p.name for p in out.iterdir()) == ["thesis.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]  # no partial left


def test_force_refuses_a_file_and_a_forged_manifest(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("keep")
    one_line_error(invoke("run", "sixteen-samurai", "-n", 500, "--out", target, "--force"))
    assert target.read_text() == "keep"
    other = tmp_path / "other"
    other.mkdir()
    (other / "manifest.json").write_text('{"tool": "something-else"}')
    one_line_error(invoke("run", "sixteen-samurai", "-n", 500, "--out", other, "--force"))
    assert (other / "manifest.json").exists()


def test_force_replaces_a_run_simcli_wrote(tmp_path):
    out = tmp_path / "f"
    assert invoke("run", "sixteen-samurai", "-n", 500, "--out", out, "--quiet").exit_code == 0
    first = json.loads((out / "manifest.json").read_text())
    assert first["tool"] == "simcli" and first["kind"] == "run"
    r = invoke("run", "sixteen-samurai", "-n", 600, "--out", out, "--force", "--quiet")
    assert r.exit_code == 0, r.output
    assert json.loads((out / "manifest.json").read_text())["playouts"] == 600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


def test_force_refuses_a_run_folder_holding_the_users_files(tmp_path):
    out = tmp_path / "f"
    assert invoke("run", "sixteen-samurai", "-n", 500, "--out", out, "--quiet").exit_code == 0
    (out / "charts" / "my_chart.png").write_bytes(b"mine")
    r = invoke("run", "sixteen-samurai", "-n", 600, "--out", out, "--force", "--quiet")
    one_line_error(r)
    assert "my_chart.png was not written by simcli" in r.stderr
    assert (out / "charts" / "my_chart.png").read_bytes() == b"mine"
    assert json.loads((out / "manifest.json").read_text())["playouts"] == 500
    (out / "charts" / "my_chart.png").unlink()
    with open(out / "report.md", "a") as fh:  # the user's notes in simcli's report
        fh.write("\nMy conclusions.\n")
    r = invoke("run", "sixteen-samurai", "-n", 600, "--out", out, "--force", "--quiet")
    one_line_error(r)
    assert "report.md changed since simcli wrote it" in r.stderr
    assert (out / "report.md").read_text().endswith("My conclusions.\n")
    (out / ".simcli-files.json").unlink()  # as a folder of an older simcli
    one_line_error(invoke("run", "sixteen-samurai", "-n", 600, "--out", out, "--force"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


@pytest.mark.parametrize("command", [("ladder", "samsara", "--policies", "greedy,lookahead"),
                                     ("value", "samsara")])
def test_a_run_too_big_for_memory_is_refused_before_it_starts(tmp_path, command):
    r = invoke(*command, "-n", 100_000_000_000, "--out", tmp_path / "x", "--yes")
    assert "GiB of per-deal results" in one_line_error(r)
    assert list(tmp_path.iterdir()) == []


def test_report_keeps_the_users_files_and_force_still_replaces_its_own(tmp_path):
    out = tmp_path / "f"
    assert invoke("run", "sixteen-samurai", "-n", 500, "--out", out, "--quiet").exit_code == 0
    assert invoke("report", out, "--html").exit_code == 0  # rewrites simcli's files only
    assert invoke("run", "sixteen-samurai", "-n", 600, "--out", out, "--force",
                  "--quiet").exit_code == 0
    (out / "charts" / "my_chart.png").write_bytes(b"mine")
    r = invoke("report", out)
    assert r.exit_code == 0, r.output
    assert (out / "charts" / "my_chart.png").read_bytes() == b"mine"
    assert (out / "report.md").exists()


@pytest.mark.parametrize("where", [".", "/", ".."])
def test_out_may_not_be_the_working_folder_or_root(tmp_path, monkeypatch, where):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep.txt").write_text("x")
    r = invoke("run", "sixteen-samurai", "-n", 500, "--out", where, "--force")
    one_line_error(r)
    assert (tmp_path / "keep.txt").exists()


def test_a_folder_that_appears_during_the_run_is_not_replaced(tmp_path):
    from simcli.errors import UserError
    from simcli.runfolder import RunFolder

    final = tmp_path / "race"
    folder = RunFolder(final, force=False)
    folder.create()
    (folder.path / "manifest.json").write_text('{"tool": "simcli"}')
    final.mkdir()  # another run committed first
    (final / "manifest.json").write_text('{"tool": "simcli", "winner": "first"}')
    with pytest.raises(UserError, match="appeared while"):
        folder.commit()
    folder.abort()
    assert "first" in (final / "manifest.json").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["race"]


def test_a_name_simcli_chose_moves_to_the_next_free_one_when_taken(tmp_path):
    from simcli.runfolder import RunFolder

    final = tmp_path / "samsara-2p-seed1-20261202-003528"
    folder = RunFolder(final, force=False, auto=True)
    folder.create()
    (folder.path / "manifest.json").write_text('{"tool": "simcli", "winner": "second"}')
    final.mkdir()  # another run without --out, started in the same second, finished first
    (final / "manifest.json").write_text('{"tool": "simcli", "winner": "first"}')
    assert folder.commit() == tmp_path / f"{final.name}-2"
    assert "first" in (final / "manifest.json").read_text()
    assert "second" in (tmp_path / f"{final.name}-2" / "manifest.json").read_text()
    assert RunFolder(final, force=False, auto=True).final == tmp_path / f"{final.name}-3"


def test_rule_options_and_content_are_recorded(tmp_path):
    out = tmp_path / "rules"
    roster = Path(__file__).parents[1] / "simcli/games/content/sixteen-samurai/standard.toml"
    r = invoke("run", "sixteen-samurai", "-n", 500, "--rule", "draft=snake", "--rule",
               "lone-clan=end", "--content", roster, "--out", out, "--quiet")
    assert r.exit_code == 0, r.output
    m = json.loads((out / "manifest.json").read_text())
    assert m["rules"]["draft"] == "snake" and m["rules"]["lone-clan"] == "end"
    assert set(m["rules"]) == {r.name for r in SixteenSamurai().rules}  # every option


@pytest.mark.parametrize(("args", "needle"), [
    (["run", "chess"], "unknown game"),
    (["run", "sixteen-samurai", "--players", "5"], "2-4 players"),
    (["run", "sixteen-samurai", "--players", "1"], "2-4 players"),
    (["run", "sixteen-samurai", "-n", "0"], "positive"),
    (["run", "sixteen-samurai", "-n", "-5"], "positive"),
    (["run", "sixteen-samurai", "-n", "abc"], "integer"),
    (["run", "sixteen-samurai", "-n", "1.5"], "integer"),
    (["run", "sixteen-samurai", "--policy", "smart"], "unknown policy"),
    (["run", "sixteen-samurai", "--seats", "greedy,random", "--players", "3"], "--seats"),
    (["run", "sixteen-samurai", "--seats", "greedy,clever"], "unknown policy"),
    (["run", "sixteen-samurai", "--rule", "speed=fast"], "unknown rule option"),
    (["run", "sixteen-samurai", "--rule", "draft=spiral"], "rotation|snake"),
    (["run", "sixteen-samurai", "--rule", "draft"], "name=value"),
    (["run", "sixteen-samurai", "--content", "nothing-here.toml"], "neither"),
    (["run", "sixteen-samurai", "--threads", "0"], "--threads"),
    (["run"], "Missing argument"),
    (["run", "sixteen-samurai", "--bogus"], "--bogus"),
    (["odds", "sixteen-samurai", "--dice", "5", "2"], "1-4"),
    (["odds", "sixteen-samurai", "--dice", "3"], "2-4 pools"),
    (["odds", "sixteen-samurai"], "--dice"),
    (["odds", "chess", "--dice", "3", "2"], "unknown game"),
    (["odds", "sixteen-samurai", "--dice", "3", "2", "--castle"], "does not apply"),
    (["report", "/nonexistent/run"], "not a folder"),
    (["bench", "chess"], "unknown game"),
])
def test_bad_input_is_one_line_exit_2(args, needle, tmp_path):
    before = set(Path.cwd().iterdir())
    text = one_line_error(invoke(*args, *(["--out", tmp_path / "x"] if args[0] == "run"
                                          and len(args) > 1 else [])))
    assert needle in text
    assert not (tmp_path / "x").exists()
    assert set(Path.cwd().iterdir()) == before


def test_bad_content_files(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[dice\n")
    text = one_line_error(invoke("run", "sixteen-samurai", "--content", bad, "--out",
                                 tmp_path / "o"))
    assert "line 1" in text
    roster = (Path(__file__).parents[1] / "simcli/games/content/sixteen-samurai/standard.toml")
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(roster.read_text().replace('"Oku the Plain", power = 1',
                                                '"Oku the Plain", power = "x"'))
    text = one_line_error(invoke("run", "sixteen-samurai", "--content", wrong, "--out",
                                 tmp_path / "o"))
    assert "power'" in text and "line" in text
    assert not (tmp_path / "o").exists()


def test_existing_output_folder_is_refused(tmp_path):
    out = tmp_path / "exists"
    out.mkdir()
    text = one_line_error(invoke("run", "sixteen-samurai", "-n", 100, "--out", out))
    assert "--force" in text
    assert list(out.iterdir()) == []
    assert [p.name for p in tmp_path.iterdir()] == ["exists"]


def test_report_refuses_an_unfinished_folder(tmp_path):
    text = one_line_error(invoke("report", tmp_path))
    assert "not a finished run folder" in text


def test_odds_exact_and_sampled():
    r = invoke("odds", "sixteen-samurai", "--dice", "3", "2", "--exact", "--json")
    assert r.exit_code == 0, r.output
    exact = json.loads(r.stdout)
    p = [x["win_probability"] for x in exact["pools"]]
    assert sum(p) == pytest.approx(1.0) and p[0] == pytest.approx(0.62774658203125)
    r = invoke("odds", "sixteen-samurai", "--dice", "3", "--dice", "2", "-n", 200_000,
               "--json")
    mc = json.loads(r.stdout)
    assert mc["pools"][0]["ci_low"] <= p[0] <= mc["pools"][0]["ci_high"]
    r = invoke("odds", "sixteen-samurai", "--dice", "4", "uma", "1", "--exact")
    assert r.exit_code == 0 and "Uma" in r.stdout


def test_multi_value_options_expand():
    assert expand_multi_values(["odds", "g", "--dice", "3", "2", "--exact"]) == [
        "odds", "g", "--dice", "3", "--dice", "2", "--exact"]
    assert expand_multi_values(["--dice", "3", "--dice", "2", "uma"]) == [
        "--dice", "3", "--dice", "2", "--dice", "uma"]


BENCH = ["bench", "sixteen-samurai", "--seconds", "0.05", "--repeats", "2", "--threads", "2"]


@pytest.fixture(scope="module")
def bench_json(tmp_path_factory):
    r = invoke(*BENCH, "--json")
    assert r.exit_code == 0, r.output
    path = tmp_path_factory.mktemp("bench") / "bench.json"
    path.write_text(r.stdout)
    return path


def test_bench_reports_rates_and_compile_time(bench_json):
    data = json.loads(bench_json.read_text())
    g = data["games"]["sixteen-samurai"]
    assert g["first_call_s"] >= 0 and g["playouts_per_s"]["median"] > 0
    assert len(g["playouts_per_s"]["values"]) == 2
    assert g["moves_per_s"]["median"] > g["playouts_per_s"]["median"]  # many rounds a game
    assert g["playouts_per_s_threads"]["median"] > 0 and g["thread_scaling"] > 0
    assert data["dice"]["resolutions_per_s"]["median"] > 0
    r = invoke(*BENCH, "--markdown")
    assert r.exit_code == 0 and "| sixteen-samurai: playouts/s, 1 thread |" in r.stdout


def _scaled_baseline(bench_json, path, factor):
    """bench_json with its speeds (playouts, dice and search moves) times `factor`."""
    doc = json.loads(bench_json.read_text())
    for m in (doc["games"]["sixteen-samurai"]["playouts_per_s"],
              doc["dice"]["resolutions_per_s"], doc["search"]["sixteen-samurai"]["moves_per_s"]):
        for key in ("median", "min", "max"):
            m[key] *= factor
        m["values"] = [v * factor for v in m["values"]]
    path.write_text(json.dumps(doc))
    return path


def test_bench_baseline_passes_on_a_slower_one_and_fails_on_a_faster_one(bench_json, tmp_path):
    # Baselines 10 times slower and faster than this machine: the verdicts cannot flip with
    # the load of other tests running beside this one (a baseline measured a moment ago on
    # a machine whose other core was busy can be 2x off either way).
    slow = _scaled_baseline(bench_json, tmp_path / "slow.json", 0.1)
    r = invoke(*BENCH, "--baseline", slow, "--tolerance", "0.5")
    assert r.exit_code == 0, r.output
    fast = _scaled_baseline(bench_json, tmp_path / "fast.json", 10)
    r = invoke(*BENCH, "--baseline", fast, "--json")
    assert r.exit_code == 1
    verdicts = json.loads(r.stdout)["verdicts"]
    assert {v["measure"]: v["regressed"] for v in verdicts} == {
        "playouts/s, 1 thread": True, "dice resolutions/s": True,
        "search simulated moves/s": True}


def test_bad_baseline_is_a_one_line_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert "not JSON" in one_line_error(invoke("bench", "--baseline", bad))
    bad.write_text('{"games": 3}')
    assert "simcli bench --json" in one_line_error(invoke("bench", "--baseline", bad))
    assert "cannot read" in one_line_error(invoke("bench", "--baseline", tmp_path / "no.json"))


def test_a_baseline_with_a_broken_search_figure_is_a_one_line_error(bench_json, tmp_path):
    doc = json.loads(bench_json.read_text())
    doc["search"]["sixteen-samurai"]["moves_per_s"] = {"median": -1}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert "search.sixteen-samurai.moves_per_s" in one_line_error(
        invoke("bench", "sixteen-samurai", "--baseline", bad))


def test_a_baseline_of_other_games_is_refused_not_passed(bench_json):
    # a CI gate comparing nothing must not pass: the baseline holds only sixteen-samurai
    r = invoke("bench", "samsara", "--seconds", "0.05", "--repeats", "1", "--baseline",
               bench_json)
    assert "holds none of the games measured" in one_line_error(r)


def test_python_dash_m_is_the_same_app():
    r = subprocess.run([sys.executable, "-m", "simcli", "--version"], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0 and "simcli" in r.stdout


def test_ctrl_c_stops_quickly_and_leaves_no_run(tmp_path):
    out = tmp_path / "big"
    proc = subprocess.Popen(
        [sys.executable, "-m", "simcli", "run", "sixteen-samurai", "-n", "50000000", "--out",
         str(out), "--quiet", "--save-games"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not list(tmp_path.glob(".big.partial-*/games/*.parquet")):
        time.sleep(0.05)  # wait until chunks are being played and written
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    t0 = time.time()
    _, err = proc.communicate(timeout=60)
    assert time.time() - t0 < 10  # stops long before the 50 million playouts
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_progress_in_a_log_is_plain_lines_and_quiet_is_silent(monkeypatch, tmp_path):
    from simcli import cli

    monkeypatch.setattr(cli.RichProgress, "PLAIN_EVERY_S", 0.0)
    r = invoke("run", "sixteen-samurai", "-n", 3000, "--chunk-size", 500, "--out",
               tmp_path / "p", "--threads", 1)
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.stderr.splitlines() if not ln.startswith("simcli: compiling ")]
    assert lines and all(ln.startswith("simcli: sixteen-samurai 4p: ") for ln in lines)
    assert "3,000 of 3,000 playouts (100%)" in lines[-1] and "playouts/s" in lines[-1]
    r = invoke("run", "sixteen-samurai", "-n", 3000, "--chunk-size", 500, "--out",
               tmp_path / "q", "--threads", 1, "--quiet")
    assert r.exit_code == 0 and r.stderr == ""


def test_json_output_is_strict_even_with_undefined_values(tmp_path):
    r = invoke("run", "samurai-sword", "--players", 3, "-n", 300, "--json", "-q", "--out",
               tmp_path / "s")
    assert r.exit_code == 0, r.output
    assert "NaN" not in r.stdout and "Infinity" not in r.stdout
    json.loads(r.stdout, parse_constant=lambda c: pytest.fail(f"non-strict JSON: {c}"))


def test_bare_simcli_prints_its_help_as_help():
    r = invoke()
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("Usage:") and len(r.stdout.splitlines()) > 10
    assert "simcli: error" not in r.output


def test_json_with_markdown_on_stdout_is_refused(tmp_path):
    spec = Path(__file__).parents[1] / "scripts/balance.example.toml"
    assert "both print to stdout" in one_line_error(invoke("check", spec, "--json",
                                                           "--markdown", "-"))
    assert "both print to stdout" in one_line_error(invoke("compare", tmp_path, tmp_path,
                                                           "--json", "--markdown"))


def test_report_names_the_kind_of_a_folder_that_is_not_a_run(tmp_path):
    out = tmp_path / "st"
    (out).mkdir()
    (out / "manifest.json").write_text('{"tool": "simcli", "kind": "study"}')
    assert "is a study folder: each game in it is a run folder" in one_line_error(
        invoke("report", out))
    assert "check spec" in one_line_error(invoke("check", tmp_path / "none.toml"))


@pytest.mark.parametrize(("extra", "needle"), [
    (["--find", ""], "--find is empty"),
    (["--search", 10], "give --find too"),
    (["--find", "winner=2,"], "has an empty condition"),
    (["--playout", 3, "--find", "winner=2"], "give one"),
])
def test_replay_refuses_options_it_would_ignore(extra, needle):
    assert needle in one_line_error(invoke("replay", "sixteen-samurai", *extra))


def test_value_says_when_denying_an_option_changed_no_game(tmp_path):
    # samsara's default rules forbid entering the opponent's goal: denying it changes nothing
    r = invoke("value", "samsara", "-n", 100, "--threads", 1, "--out", tmp_path / "v",
               "--json", "-q")
    assert r.exit_code == 0, r.output
    rows = {x["option"]: x for x in json.loads(r.stdout)["restricted"]
            if x["seat"] == "overall"}
    assert rows["opponent-goal"]["verdict"] == "changes no game"
    assert rows["opponent-goal"]["games_changed"] == 0.0
    assert rows["own-goal"]["games_changed"] > 0 and rows["own-goal"]["verdict"] == "worth using"


def test_out_under_a_file_is_named_as_such(tmp_path):
    (tmp_path / "afile").write_text("mine")
    r = invoke("run", "samsara", "-n", 4, "--out", tmp_path / "afile" / "sub")
    assert "afile is a file, not a folder" in one_line_error(r)
    assert (tmp_path / "afile").read_text() == "mine"
