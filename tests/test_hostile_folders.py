"""simcli never replaces or removes what it did not write (issue 26, part 1): a second
`--force` run on the same folder, a user's edit that keeps a file's size and time, a
report.md edited by hand, a folder that only looks like simcli's, and empty folders left
behind by a refusal."""

import os
import shutil
from pathlib import Path

import pytest

from simcli.errors import UserError
from simcli.runfolder import MANIFEST, MARKER, RunFolder, write_json
from tests.cli import invoke, one_line_error


def small_run(out: Path, *extra) -> None:
    r = invoke("run", "sixteen-samurai", "-n", 200, "--out", out, "-q", *extra)
    assert r.exit_code == 0, r.output


def fill(folder: RunFolder, seed: int) -> Path:
    """A finished folder's files written into folder.path, as a run writes them."""
    path = folder.create()
    write_json(path / MANIFEST, {"tool": "simcli", "kind": "run", "seed": seed})
    return path


def test_two_force_runs_at_once_the_later_one_refuses_at_commit(tmp_path):
    out = tmp_path / "same"
    first = RunFolder(out, force=False)
    fill(first, 0)
    first.commit()
    a = RunFolder(out, force=True)  # both start while seed 0's folder is there
    b = RunFolder(out, force=True)
    fill(a, 1)
    fill(b, 2)
    a.commit()
    with pytest.raises(UserError, match="was replaced while this run played"):
        b.commit()
    b.abort()
    assert '"seed": 1' in (out / MANIFEST).read_text()  # a's result stays
    assert sorted(p.name for p in tmp_path.iterdir()) == ["same"]


def test_force_sees_an_edit_that_keeps_size_and_time(tmp_path):
    out = tmp_path / "r"
    small_run(out)
    report = out / "report.md"
    st = report.stat()
    text = report.read_bytes()
    report.write_bytes(text.replace(b"seat", b"SEAT", 1))  # same size
    os.utime(report, ns=(st.st_atime_ns, st.st_mtime_ns))  # same time (touch -r, cp -p)
    text2 = one_line_error(invoke("run", "sixteen-samurai", "-n", 200, "--out", out,
                                  "--force"))
    assert "changed since simcli wrote it" in text2
    assert b"SEAT" in report.read_bytes()


def test_report_keeps_a_report_md_edited_by_hand(tmp_path):
    out = tmp_path / "r"
    small_run(out)
    (out / "report.md").write_text("my notes\n")
    text = one_line_error(invoke("report", out))
    assert "report.md" in text and "edited since simcli wrote it" in text
    assert (out / "report.md").read_text() == "my notes\n"
    (out / "report.md").unlink()  # moved aside: re-rendering writes it again
    r = invoke("report", out)
    assert r.exit_code == 0, r.output
    assert (out / "report.md").read_text().startswith("#")
    small_run(out, "--force")  # and the re-rendered folder is still simcli's to replace


def test_a_killed_report_leaves_nothing_that_blocks_force(tmp_path):
    out = tmp_path / "r"
    small_run(out)
    scratch = out / f".render-partial-{2**30}"  # a `simcli report` killed with SIGKILL
    scratch.mkdir()
    (scratch / MARKER).write_text('{"tool": "simcli", "pid": 1073741824, "host": "h"}')
    (scratch / "report.md").write_text("half")
    r = invoke("report", out)
    assert r.exit_code == 0, r.output
    assert not scratch.exists()
    scratch.mkdir()
    small_run(out, "--force")


@pytest.mark.parametrize("name", [".myrun2.partial-999999-deadbeef", "myrun2.partial"])
def test_a_look_alike_folder_without_simclis_marker_is_kept(tmp_path, name):
    look = tmp_path / name
    look.mkdir()
    (look / "precious.txt").write_text("keep")
    r = invoke("run", "sixteen-samurai", "-n", 200, "--out", tmp_path / "myrun2", "-q",
               "--checkpoint")
    if r.exit_code != 0:
        assert "in the way" in one_line_error(r)
    assert (look / "precious.txt").read_text() == "keep"


@pytest.mark.parametrize("out", ["project/../project/data/..", ".", "runs/.."])
def test_an_out_that_names_no_new_folder_is_refused_and_makes_nothing(tmp_path, out,
                                                                       monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_line_error(invoke("run", "sixteen-samurai", "-n", 100, "--out", out))
    assert list(tmp_path.iterdir()) == []


def test_a_failed_run_removes_the_parent_folders_it_made(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = RunFolder(Path("deep/er/run"), force=False)
    folder.create()
    folder.abort()
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "mine.txt").write_text("x")
    folder = RunFolder(Path("deep/er/run"), force=False)
    folder.create()
    folder.abort()
    assert sorted(p.name for p in (tmp_path / "deep").iterdir()) == ["mine.txt"]
    shutil.rmtree(tmp_path / "deep")


def test_a_second_resume_of_the_same_run_is_refused_while_the_first_holds_it(tmp_path):
    from simcli.runfolder import hold_marker

    partial = tmp_path / "big.partial"
    partial.mkdir()
    fd = hold_marker(partial)  # the first resume (an older simcli left no marker)
    try:
        with pytest.raises(UserError, match="another simcli process is finishing"):
            RunFolder(tmp_path / "big", force=False, checkpointed=True, resuming=True)
    finally:
        os.close(fd)
    second = RunFolder(tmp_path / "big", force=False, checkpointed=True, resuming=True)
    second.release()  # once the first is gone, it may


def test_a_stale_partial_of_an_auto_named_run_is_cleaned_by_the_next_auto_named_run(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runs = tmp_path / "runs"
    runs.mkdir()
    left = runs / ".samsara-2p-seed1-20260101-000000.partial-1073741824-deadbeef"
    left.mkdir()
    (left / MARKER).write_text('{"tool": "simcli", "pid": 1073741824, "host": "h"}')
    mine = runs / ".other.partial-1073741824-deadbeef"  # no marker: kept
    mine.mkdir()
    r = invoke("run", "samsara", "-n", 100, "-q")
    assert r.exit_code == 0, r.output
    assert not left.exists() and mine.exists()


def test_a_stop_after_the_folder_is_complete_says_it_is_kept(tmp_path, monkeypatch):
    import simcli.run as run_mod

    real = run_mod.RunFolder.commit

    def commit_then_stop(self):
        real(self)
        raise KeyboardInterrupt  # Ctrl-C right after the rename

    monkeypatch.setattr(run_mod.RunFolder, "commit", commit_then_stop)
    r = invoke("run", "samsara", "-n", 100, "--out", tmp_path / "done", "-q")
    assert r.exit_code == 130
    assert "complete; it is kept as written" in r.stderr and "nothing was written" not in r.stderr
    assert (tmp_path / "done" / MANIFEST).is_file()
