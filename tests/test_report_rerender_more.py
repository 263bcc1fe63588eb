"""Issue 29: `simcli report` re-renders a ladder and a tune folder from their saved tables,
as it does a sweep and a value folder: the same report.md byte for byte, charts drawn
again, an edited file never replaced and a damaged table refused (exit 2, one line)."""

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from simcli.runfolder import INVENTORY, MANIFEST
from tests.cli import invoke, one_line_error

COMMANDS = {  # the smallest settings tests/test_ladder_cli.py plays
    "ladder": ["ladder", "sixteen-samurai", "--policies", "random,greedy", "-n", 300,
               "--players", 3],
    "tune": ["tune", "sixteen-samurai", "--param", "clan.size=9..11", "--objective",
             "duration.mean=20", "-p", 2, "-n", 200],
}
TABLE = {"ladder": "tables/ratings.parquet", "tune": "tables/trace.parquet"}
CHARTS = {"ladder": ("charts/ratings.png", "charts/balance_vs_skill.png"),
          "tune": ("charts/trace.png",)}


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> dict[str, Path]:
    """One finished folder of each kind, played once for the module (copy before use)."""
    base = tmp_path_factory.mktemp("finished")
    for kind, args in COMMANDS.items():
        r = invoke(*args, "--out", base / kind, "-q")
        assert r.exit_code == 0, r.output
    return {kind: base / kind for kind in COMMANDS}


def copy_of(finished: dict[str, Path], kind: str, tmp_path: Path) -> Path:
    out = tmp_path / kind
    shutil.copytree(finished[kind], out)
    return out


@pytest.mark.parametrize("kind", ["ladder", "tune"])
def test_report_re_renders_the_same_report_and_draws_the_charts_again(finished, kind,
                                                                      tmp_path):
    out = copy_of(finished, kind, tmp_path)
    md = (out / "report.md").read_bytes()
    html = (out / "report.html").read_bytes()
    tables = {p.relative_to(out): p.read_bytes() for p in (out / "tables").iterdir()}
    for chart in CHARTS[kind]:
        (out / chart).unlink()
    (out / "report.html").unlink()
    r = invoke("report", out)
    assert r.exit_code == 0, r.output
    assert (out / "report.md").read_bytes() == md
    assert (out / "report.html").read_bytes() == html  # always written, as the run does
    for chart in CHARTS[kind]:
        assert (out / chart).is_file() and (out / chart).stat().st_size > 0, chart
    assert {p.relative_to(out): p.read_bytes() for p in (out / "tables").iterdir()} == tables
    assert str(out / "report.md") in r.stdout.replace("\n", "")  # a long path wraps
    assert not [p for p in out.iterdir() if p.name.startswith(".render-partial")]
    again = invoke("report", out, "--html")  # accepted: report.html is written anyway
    assert again.exit_code == 0, again.output
    assert (out / "report.md").read_bytes() == md


def test_report_json_of_a_ladder_and_a_tune(finished, tmp_path):
    lad = copy_of(finished, "ladder", tmp_path)
    r = invoke("report", lad, "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    ratings = pl.read_parquet(lad / TABLE["ladder"])
    assert doc["folder"] == str(lad) and doc["ratings"] == ratings.to_dicts()
    assert {b["policy"] for b in doc["balance"]} == {"random", "greedy"}
    assert doc["balance_vs_skill"].startswith("Seat")
    tune = copy_of(finished, "tune", tmp_path)
    r = invoke("report", tune, "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    manifest = json.loads((tune / MANIFEST).read_text())
    assert doc["confirm"] == manifest["confirm"]
    assert doc["trace"] == pl.read_parquet(tune / TABLE["tune"]).to_dicts()


@pytest.mark.parametrize("kind", ["ladder", "tune"])
@pytest.mark.parametrize("edited", ["report.md", "report.html"])
def test_an_edited_report_is_never_replaced(finished, kind, edited, tmp_path):
    out = copy_of(finished, kind, tmp_path)
    chart = out / CHARTS[kind][0]
    chart.unlink()
    (out / edited).write_text("my notes\n")
    text = one_line_error(invoke("report", out))
    assert edited in text and "edited since simcli wrote it" in text
    assert (out / edited).read_text() == "my notes\n"
    assert not chart.exists()  # nothing changed: not even the missing chart came back
    assert not [p for p in out.iterdir() if p.name.startswith(".render-partial")]


@pytest.mark.parametrize("kind", ["ladder", "tune"])
def test_a_tampered_table_is_refused(finished, kind, tmp_path):
    out = copy_of(finished, kind, tmp_path)
    md = (out / "report.md").read_bytes()
    path = out / TABLE[kind]
    table = pl.read_parquet(path)
    column = "elo" if kind == "ladder" else "score"
    table.with_columns(pl.col(column) + 1.0).write_parquet(path)  # readable, but not simcli's
    text = one_line_error(invoke("report", out))
    assert "not the file simcli wrote" in text and TABLE[kind] in text
    assert (out / "report.md").read_bytes() == md


@pytest.mark.parametrize("kind", ["ladder", "tune"])
def test_a_folder_without_its_table_or_manifest_fields_is_refused_in_one_line(
        finished, kind, tmp_path):
    out = copy_of(finished, kind, tmp_path)
    (out / INVENTORY).unlink()  # as an older simcli left it: nothing recorded to check by
    (out / TABLE[kind]).unlink()
    text = one_line_error(invoke("report", out))
    assert TABLE[kind] in text and "missing" in text and "run it again" in text
    bare = tmp_path / f"bare-{kind}"
    bare.mkdir()
    (bare / MANIFEST).write_text(json.dumps({"tool": "simcli", "kind": kind}))
    text = one_line_error(invoke("report", bare))
    assert "has no 'game'" in text and "older simcli" in text and "run it again" in text
    (bare / MANIFEST).write_text(json.dumps({"tool": "simcli", "kind": kind, "game": 3}))
    assert f"damaged {kind} folder: 'game'" in one_line_error(invoke("report", bare))


def test_an_older_ladder_folder_re_renders_or_says_to_run_it_again(finished, tmp_path):
    out = copy_of(finished, "ladder", tmp_path)
    md = (out / "report.md").read_bytes()
    (out / INVENTORY).unlink()  # an older simcli's folder: no record, no --converge entry
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest.pop("convergence") is None
    (out / MANIFEST).write_text(json.dumps(manifest))
    r = invoke("report", out)
    assert r.exit_code == 0, r.output
    assert (out / "report.md").read_bytes() == md
    path = out / "tables" / "balance_by_policy.parquet"
    pl.read_parquet(path).drop("games").write_parquet(path)  # before balance had its games
    text = one_line_error(invoke("report", out))
    assert "has no column 'games'" in text and "older simcli" in text
    assert (out / "report.md").read_bytes() == md


def test_a_run_folder_still_re_renders(tmp_path):
    out = tmp_path / "run"
    assert invoke("run", "sixteen-samurai", "-n", 200, "--out", out, "-q").exit_code == 0
    md = (out / "report.md").read_bytes()
    r = invoke("report", out, "--html")
    assert r.exit_code == 0, r.output
    assert (out / "report.md").read_bytes() == md and (out / "report.html").is_file()
    study = tmp_path / "study"
    study.mkdir()
    (study / MANIFEST).write_text('{"tool": "simcli", "kind": "study"}')
    said = one_line_error(invoke("report", study))
    assert "is a study folder: each game in it is a run folder" in said
    assert f"simcli report {study / 'GAME'}" in said
