"""Inputs that used to end in a traceback (issue 26, part 3) now end in one line and exit
2: a player count too large for an index, content and spec files nested without end, run
folder JSON nested without end or with a key given twice, and `resume` of `/` or `.`."""

import json
import shutil
from pathlib import Path

import pytest

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
