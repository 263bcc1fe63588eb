"""Issue 29: one set of CLI conventions: one game in `simcli games GAME`, the shipped
content copied to start a variant, 'did you mean' for game, policy and rule names, shell
completion, and `replay RUN_FOLDER`."""

import json

import pytest

from simcli.registry import get_game
from tests.cli import invoke, one_line_error


def test_games_shows_one_game():
    one = invoke("games", "samsara")
    assert one.exit_code == 0 and one.output.startswith("samsara: Samsara")
    assert "sixteen-samurai:" not in one.output
    every = invoke("games")
    assert "sixteen-samurai:" in every.output and "samsara:" in every.output
    doc = json.loads(invoke("games", "samsara", "--json").stdout)
    assert [g["name"] for g in doc] == ["samsara"]


def test_content_copy_writes_the_shipped_file_and_never_replaces_one(tmp_path):
    target = tmp_path / "mine.toml"
    r = invoke("content", "sixteen-samurai", "--copy", target)
    assert r.exit_code == 0, r.output
    shipped = get_game("sixteen-samurai").content_path(None)
    assert target.read_bytes() == shipped.read_bytes()
    assert not [p for p in tmp_path.iterdir() if p.name != "mine.toml"]  # no temp left
    target.write_text("my edits")
    text = one_line_error(invoke("content", "sixteen-samurai", "--copy", target))
    assert "already exists" in text and target.read_text() == "my edits"
    assert "does not exist" in one_line_error(
        invoke("content", "samsara", "--copy", tmp_path / "no" / "x.toml"))
    assert invoke("run", "sixteen-samurai", "--content", target.with_name("v.toml"),
                  "-n", 10).exit_code == 2
    v = tmp_path / "v.toml"
    assert invoke("content", "sixteen-samurai", "--copy", v).exit_code == 0
    assert invoke("run", "sixteen-samurai", "--content", v, "-n", 200, "--out",
                  tmp_path / "r", "-q").exit_code == 0


@pytest.mark.parametrize(("args", "hint"), [
    (("run", "samsra", "-n", 10), "did you mean samsara?"),
    (("run", "samsara", "--policy", "gredy", "-n", 10), "did you mean greedy?"),
    (("run", "samsara", "--policy", "mtcs:20", "-n", 10), "did you mean mcts?"),
    (("run", "samsara", "--rule", "arcc=step", "-n", 10), "did you mean arc?"),
    (("sweep", "samsara", "--vary", "rule.arcc=step,jump"), "did you mean arc?"),
    (("games", "sixteen-samuria"), "did you mean sixteen-samurai?"),
])
def test_did_you_mean(args, hint, tmp_path):
    text = one_line_error(invoke(*args, "--out", tmp_path / "x") if args[0] in (
        "run", "sweep") else invoke(*args))
    assert hint in text, text


def test_no_suggestion_for_a_name_far_from_every_known_one():
    assert "did you mean" not in one_line_error(invoke("run", "chess", "-n", 10))


def test_shell_completion_is_offered():
    r = invoke("--help")
    assert "--install-completion" in r.output and "--show-completion" in r.output


def test_replay_takes_a_run_folder(tmp_path):
    out = tmp_path / "r"
    assert invoke("run", "samsara", "-n", 50, "--seed", 4, "--out", out, "-q").exit_code == 0
    by_folder = json.loads(invoke("replay", out, "--playout", 7, "--json").stdout)
    by_options = json.loads(invoke("replay", "samsara", "--seed", 4, "--playout", 7,
                                   "--json").stdout)
    assert by_folder["result"] == by_options["result"]
    assert by_folder["events"] == by_options["events"] and by_folder["seed"] == 4
    assert "leave out --seed" in one_line_error(invoke("replay", out, "--seed", 5))


def test_report_html_opens_with_the_run_facts(tmp_path):
    out = tmp_path / "h"
    assert invoke("run", "samsara", "-n", 300, "--out", out, "-q", "--html").exit_code == 0
    page = (out / "report.html").read_text()
    facts = page.index("Samsara, 2 players, seats greedy, greedy; 300 playouts, seed 1")
    assert facts < page.index("<h2>Findings</h2>") and "<b>Assumed content</b>" in page


def test_a_constant_length_is_named_not_drawn_as_a_spike(tmp_path):
    """Sixteen Samurai's Clan Conflict always lasts 17 rounds: a 100% spike flattened the
    other curves; it is named in the legend instead."""
    from matplotlib.figure import Figure

    from reports import charts as C

    drawn = {}
    original = C._save

    def keep(fig: Figure, path):
        drawn["fig"] = fig
        original(fig, path)

    import numpy as np
    C._save, spike = keep, np.bincount([17] * 50, minlength=40)
    try:
        C.histograms(tmp_path / "l.png", {"Clan Conflict": spike,
                                          "Final Battle": np.bincount([5, 6, 6, 7], minlength=40)},
                     title="t", xlabel="rounds")
    finally:
        C._save = original
    ax = drawn["fig"].axes[0]
    assert len([line for line in ax.get_lines() if len(line.get_xdata())]) == 1
    names = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "Clan Conflict: always 17" in names and "Final Battle" in names


def test_threads_beyond_the_cores_get_a_note(tmp_path):
    import os

    r = invoke("run", "samsara", "-n", 50, "--threads", (os.cpu_count() or 1) + 1, "--out",
               tmp_path / "r", "-q")
    assert r.exit_code == 0 and "no faster" in r.stderr
    r = invoke("run", "samsara", "-n", 50, "--threads", 1, "--out", tmp_path / "s", "-q")
    assert r.exit_code == 0 and "no faster" not in r.stderr


def test_a_table_too_wide_for_the_terminal_prints_one_row_per_line(tmp_path):
    """In a pipe (80 columns) compare's seven columns would wrap inside cells: each row
    prints on one line instead, every value named by its heading."""
    a, b = tmp_path / "a", tmp_path / "b"
    for folder, seed in ((a, 1), (b, 2)):
        assert invoke("run", "samsara", "-n", 300, "--seed", seed, "--out", folder,
                      "-q").exit_code == 0
    lines = invoke("compare", a, b).output.splitlines()
    row = next(x for x in lines if x.startswith("win_rate.seat1: "))
    assert "; a - b: " in row and "; 95% interval: " in row and "│" not in row
    assert not any(x.startswith("│") for x in lines)


def test_skill_takes_the_options_a_run_takes(tmp_path):
    """A variant's skill gap can be measured: --policy, --content, --rule and --out."""
    variant = tmp_path / "v.toml"
    assert invoke("content", "sixteen-samurai", "--copy", variant).exit_code == 0
    r = invoke("skill", "sixteen-samurai", "--players", 2, "--policy", "greedy", "-n", 200,
               "--content", variant, "--rule", "draft=snake", "--out", tmp_path / "s",
               "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert [row["policy"] for row in doc["skill"]] == ["greedy"]
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert manifest["kind"] == "skill" and manifest["rules"]["draft"] == "snake"
    assert (tmp_path / "s" / "skill.csv").is_file() and (tmp_path / "s" / "report.md").is_file()
    assert "baseline" in one_line_error(invoke("skill", "samsara", "--policy", "random"))


def test_sweep_takes_seats_mirror_and_target_ci(tmp_path):
    r = invoke("sweep", "sixteen-samurai", "--vary", "rule.draft=rotation,snake", "--seats",
               "greedy,random", "--mirror", "-n", 200, "--out", tmp_path / "m", "--json", "-q")
    assert r.exit_code == 0, r.output
    rows = [x for x in json.loads(r.stdout)["table"] if x["metric"] == "win_rate.seat1"]
    assert len(rows) == 2 and all(x["n"] == 400 for x in rows)  # 200 deals x 2 rotations
    r = invoke("sweep", "samsara", "--vary", "rule.arc=step,extra-step", "--target-ci", 0.02,
               "-n", 100_000, "--out", tmp_path / "t", "--json", "-q")
    rows = [x for x in json.loads(r.stdout)["table"] if x["metric"] == "win_rate.seat1"]
    assert all(x["n"] < 100_000 for x in rows)  # stopped at the target, not the cap
    assert "drop --seats" in one_line_error(invoke("sweep", "samsara", "--vary", "players=2",
                                                   "--seats", "greedy,greedy"))


def test_report_re_renders_a_sweep_and_keeps_a_users_edit(tmp_path):
    out = tmp_path / "sw"
    assert invoke("sweep", "samsara", "--vary", "rule.arc=step,extra-step", "-n", 300,
                  "--out", out, "-q").exit_code == 0
    before = (out / "sweep.csv").read_bytes()
    (out / "charts" / "balance-by-rule.arc.png").unlink()
    r = invoke("report", out)
    assert r.exit_code == 0, r.output
    assert (out / "charts" / "balance-by-rule.arc.png").is_file()
    assert (out / "sweep.csv").read_bytes() == before
    assert not [p for p in out.iterdir() if p.name.startswith(".render-partial")]
    (out / "report.md").write_text("my notes")
    assert "edited since simcli wrote it" in one_line_error(invoke("report", out))
    assert (out / "report.md").read_text() == "my notes"
    (out / "report.md").unlink()
    with open(out / "sweep.parquet", "ab") as fh:
        fh.write(b"x")
    assert "not the file simcli wrote" in one_line_error(invoke("report", out))


def test_report_re_renders_a_value_folder(tmp_path):
    out = tmp_path / "v"
    assert invoke("value", "samsara", "-n", 200, "--out", out, "-q").exit_code == 0
    before = (out / "tables" / "verdicts.csv").read_bytes()
    (out / "charts" / "value.png").unlink()
    r = invoke("report", out)
    assert r.exit_code == 0, r.output
    assert (out / "charts" / "value.png").is_file()
    assert (out / "tables" / "verdicts.csv").read_bytes() == before
    (out / "report.html").write_text("mine")
    assert "edited since simcli wrote it" in one_line_error(invoke("report", out))
    assert (out / "report.html").read_text() == "mine"
