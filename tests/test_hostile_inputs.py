"""Inputs that used to end in a traceback (issue 26, part 3) now end in one line and exit
2: a player count too large for an index, content and spec files nested without end, run
folder JSON nested without end or with a key given twice, and `resume` of `/` or `.`."""

import json
import shutil
from pathlib import Path

import pytest

from simcli.errors import UserError
from tests.cli import invoke, one_line_error

HUGE = str(2**70)
GAMES = ("sixteen-samurai", "samurai-card-game", "samsara", "samurai-sword", "samurai-katana")


@pytest.mark.parametrize("args", [
    ["run", "sixteen-samurai", "--players", HUGE],
    ["replay", "samsara", "--players", HUGE],
    ["skill", "samurai-sword", "--players", HUGE],
    ["value", "samurai-card-game", "--players", HUGE],
    ["ladder", "samurai-katana", "--policies", "random,greedy", "--players", HUGE],
    ["sweep", "sixteen-samurai", "--vary", f"players=2,{HUGE}"],
])
def test_a_player_count_too_large_for_an_index_is_one_line(args):
    assert "players" in one_line_error(invoke(*args))


def deep_toml(path: Path, kind: str) -> Path:
    depth = 100_000
    text = ("a = " + "[" * depth + "]" * depth if kind == "array"
            else "[x]\na = " + "{b = " * 5_000 + "1" + "}" * 5_000)
    path.write_text(text + "\n")
    return path


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("kind", ["array", "table"])
def test_content_nested_without_end_is_one_line(tmp_path, game, kind):
    bad = deep_toml(tmp_path / "deep.toml", kind)
    assert "nested too deeply" in one_line_error(
        invoke("run", game, "--content", bad, "-n", 10, "--out", tmp_path / "o"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep.toml"]


@pytest.mark.parametrize("kind", ["array", "table"])
def test_a_check_spec_nested_without_end_is_one_line(tmp_path, kind):
    bad = deep_toml(tmp_path / "spec.toml", kind)
    assert "nested too deeply" in one_line_error(invoke("check", bad))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "r"
    r = invoke("run", "samsara", "-n", 200, "--out", out, "-q")
    assert r.exit_code == 0, r.output
    return out


@pytest.mark.parametrize("name", ["aggregates.json", "manifest.json"])
def test_run_folder_json_nested_without_end_or_with_a_duplicate_key_is_refused(
        finished, tmp_path, name):
    for damage, needle in (("[" * 100_000 + "]" * 100_000, "nested too deeply"),
                           (None, "given twice")):
        copy = tmp_path / f"copy-{needle.split()[0]}"
        shutil.copytree(finished, copy)
        (copy / ".simcli-files.json").unlink()  # else its SHA-256 check refuses it first
        if damage is None:  # the first key again, with another value, in front
            doc = json.loads((copy / name).read_text())
            key = next(iter(doc))
            damage = "{" + json.dumps(key) + ": 0, " + (copy / name).read_text()[1:]
        (copy / name).write_text(damage)
        for cmd in (["report", copy], ["compare", finished, copy]):
            assert needle in one_line_error(invoke(*cmd)), cmd


@pytest.mark.parametrize("folder", ["/", ".", ".."])
def test_resume_of_the_root_or_the_working_folder_is_one_line(folder):
    assert "checkpointed run" in one_line_error(invoke("resume", folder))


# --- accepted silently before (issue 26, part 4): each refused in one line -----------------

@pytest.mark.parametrize(("args", "needle"), [
    (["run", "samsara", "--policy", "mcts:"], "empty part"),
    (["run", "samsara", "--policy", "mcts::"], "empty part"),
    (["run", "samsara", "--policy", "mcts:10:20"], "budget is given twice"),
    (["run", "samsara", "--policy", "mcts:10:c=1:c=2"], "c is given twice"),
    (["run", "samsara", "--policy", "mcts:10:rollout=random:rollout=greedy"],
     "rollout is given twice"),
    (["run", "samsara", "--policy", ""], "--policy is empty"),
    (["run", "samsara", "--seats", ""], "--seats is empty"),
    (["replay", "samsara", "--seats", " "], "--seats is empty"),
    (["value", "samsara", "--policy", ""], "--policy is empty"),
    (["run", "samurai-katana", "--rule", "alliance=on-top", "--rule", "alliance=within-four"],
     "given twice"),
    (["run", "samsara", "--threads", str(10**21)], "--threads must be 1 .. 1024"),
    (["resume", "x", "--threads", "0"], "--threads must be 1 .. 1024"),
    (["run", "samsara", "--chunk-size", str(10**21)], "--chunk-size must be 1 .. 2**62"),
    (["tune", "sixteen-samurai", "--param", "clan.size=3..5", "--objective",
      "win_rate.seat1=2"], "can never be reached"),
    (["tune", "sixteen-samurai", "--param", "clan.size=1..1000000000"], "narrow it"),
    (["bench", "samsara", "--seconds", "3600", "--repeats", "1000"], "under an hour"),
    (["replay", "samsara", "--find", "winner=3", "--search", str(10**12)], "can never hold"),
])
def test_inputs_once_accepted_silently_are_refused(tmp_path, monkeypatch, args, needle):
    monkeypatch.chdir(tmp_path)
    assert needle in one_line_error(invoke(*args))
    assert list(tmp_path.iterdir()) == []  # nothing made


def test_a_bench_baseline_whose_min_exceeds_its_max_is_refused(tmp_path):
    from simcli.bench import FORMAT

    base = tmp_path / "b.json"
    spread = {"median": 10.0, "min": 20.0, "max": 5.0}
    base.write_text(json.dumps({"format": FORMAT, "games": {"samsara":
                                                            {"playouts_per_s": spread}}}))
    assert "min <= median <= max" in one_line_error(
        invoke("bench", "samsara", "--baseline", base))


def test_check_markdown_to_a_fifo_is_refused_before_playing(tmp_path):
    import os

    spec = tmp_path / "spec.toml"
    spec.write_text('[[assert]]\ngame = "samsara"\nmetric = "win_rate.seat1"\nmin = 0.0\n')
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert "not a file simcli can write" in one_line_error(
        invoke("check", spec, "--markdown", fifo))


def test_a_check_spec_with_both_seats_and_policy_is_refused(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text('[[assert]]\ngame = "samsara"\nmetric = "win_rate.seat1"\nmin = 0.0\n'
                    'policy = "greedy"\nseats = ["random", "greedy"]\n')
    assert "not both" in one_line_error(invoke("check", spec))


# --- injection (part 5): no control character reaches a terminal or a report ---------------

ROSTER = Path(__file__).resolve().parents[1] / "simcli/games/content/sixteen-samurai/standard.toml"


@pytest.mark.parametrize(("name", "needle"), [
    ("Oku\\u001b]0;pwned\\u0007", "control character U+001B"),
    ("Oku\\u009b2J", "control character U+009B"),
    ("x" * 100_000, "100,000 characters long"),
])
def test_content_text_with_control_characters_or_without_end_is_refused(tmp_path, name,
                                                                        needle):
    bad = tmp_path / "evil.toml"
    bad.write_text(ROSTER.read_text().replace('"Oku the Plain"', f'"{name}"', 1))
    text = one_line_error(invoke("run", "sixteen-samurai", "--content", bad, "-n", 10,
                                 "--out", tmp_path / "o"))
    assert needle in text and "\x1b" not in text and "\x9b" not in text


def test_an_argument_with_a_terminal_escape_is_printed_inert():
    text = one_line_error(invoke("run", "samsara", "--rule", "x\x1b[2J\x1b]0;t\x07=1"))
    assert "\x1b" not in text and "\x07" not in text and "\ufffd" in text


def test_report_text_is_inert_markdown_and_html():
    from reports.html import _esc
    from reports.render import md_text

    for f in (md_text, _esc):  # (HTML text never turns a bare URL into a link)
        out = f("see https://evil.example, www.evil.example \x1b]0;t\x07 <b>")
        assert "\x1b" not in out and "\x07" not in out and "<b>" not in out
    out = md_text("see https://evil.example, www.evil.example")
    assert "https://" not in out and "www.evil" not in out  # GitHub autolinks those


# --- one duration estimate for everything that plays (part 4) --------------------------------

@pytest.mark.parametrize("extra", [[], ["--chunk-size", "100000000"], ["--threads", "1000"]])
def test_a_run_of_years_is_refused_whatever_the_chunk_size_or_threads(tmp_path, extra):
    text = one_line_error(invoke("run", "samsara", "-n", 4 * 10**12, "--out", tmp_path / "o",
                                 *extra))
    assert "more than a day" in text and "--yes" in text
    assert list(tmp_path.iterdir()) == []


def test_the_estimate_counts_the_runs_still_to_come():
    import time as _time

    from simcli import engine

    chunks = [engine.Chunk(i, i * 10, 10) for i in range(8)]

    def work(_chunk):
        _time.sleep(0.01)  # 10 playouts in 0.01 s: 80 playouts in well under a second

    with engine.time_limit(5.0):
        engine.run_chunks(chunks, work, lambda c, r: None, 1)  # alone: allowed
        with engine.runs_ahead(10_000), pytest.raises(UserError,
                                                      match="9,999 more runs like it"):
            engine.run_chunks(chunks, work, lambda c, r: None, 1)


def test_a_huge_search_budget_is_refused_without_waiting_for_a_playout(tmp_path,
                                                                        monkeypatch):
    """Issue 26: `--policy mcts:1000000` waited for one whole playout (hours) before its
    duration estimate. The compile call now plays nothing, and a first playout still
    running after run.PROBE_LIMIT_S is stopped: its time alone shows the run would take
    days (here the limit is 2 s instead of 10, and the run a million playouts)."""
    import time as _time

    from simcli import run

    monkeypatch.setattr(run, "PROBE_LIMIT_S", 2.0)
    t0 = _time.perf_counter()
    text = one_line_error(invoke("run", "samsara", "--policy", "mcts:1000000", "-n",
                                 1_000_000, "--out", tmp_path / "o"))
    assert "more than a day" in text and _time.perf_counter() - t0 < 60
    assert list(tmp_path.iterdir()) == []


def test_a_slow_start_is_judged_before_any_chunk_ends():
    from simcli import engine

    engine.slow_start(1000, [1, 1], 2, 30.0, engine.DAY_S)  # too early to judge: no error
    engine.slow_start(1000, [1, 1], 2, 61.0, engine.DAY_S)  # 1000 x 61 s / 2: 8.5 h, fine
    with pytest.raises(UserError, match="no chunk of 1 done after 90 s"):
        engine.slow_start(10_000, [1, 1], 2, 90.0, engine.DAY_S)  # 10,000 x 90 s / 2 > day
    game = __import__("simcli.registry", fromlist=["get_game"]).get_game("samsara")
    assert engine.one_per_chunk(game, ("greedy", "mcts:50")) == 1
    assert engine.one_per_chunk(game, ("greedy", "random")) is None


def test_an_unreachable_target_ci_is_estimated_on_its_cap(tmp_path):
    """`--target-ci 1e-9` cannot be reached: the run is judged on its cap (-n) like any
    other, so a cap of days is refused at once, and a small cap runs and says the target
    was not reached."""
    text = one_line_error(invoke("run", "samsara", "--target-ci", "1e-9", "-n", 10**12,
                                 "--out", tmp_path / "o"))
    assert "up to 1,000,000,000,000 playouts" in text and "more than a day" in text
    r = invoke("run", "samsara", "--target-ci", "1e-9", "-n", 3000, "--out", tmp_path / "s",
               "--json", "-q")
    assert r.exit_code == 0
    stop = json.loads(r.stdout)["manifest"]["stopping"]
    assert not stop["reached"] and stop["playouts"] == 3000
