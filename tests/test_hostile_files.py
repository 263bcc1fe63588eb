"""Hostile input, issue 17: damaged run folders refused by report and compare, a full disk,
content files that are not ordinary files or too large, and user strings that must stay
inert in report.md, CSV tables and the terminal."""

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from tests.cli import invoke, one_line_error

ROOT = Path(__file__).parents[1]
ROSTER = ROOT / "simcli/games/content/sixteen-samurai/standard.toml"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two finished runs: 3 players and 4 players (sixteen-samurai, 600 playouts)."""
    base = tmp_path_factory.mktemp("finished")
    for players in (3, 4):
        r = invoke("run", "sixteen-samurai", "-n", 600, "--players", players, "--seed", 7,
                   "--out", base / f"p{players}", "-q")
        assert r.exit_code == 0, r.output
    return base


def copy_of(runs, tmp_path, name="p3", inventory=False):
    """A copy of a finished run; without its inventory of SHA-256s unless `inventory` (so
    the checks of the files against the manifest are what the damage meets: a folder of an
    older simcli, or an edit that rewrote the inventory too)."""
    target = tmp_path / name
    shutil.copytree(runs / name, target)
    if not inventory:
        (target / ".simcli-files.json").unlink()
    return target


def edit_json(path, change):
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def agg(change):
    return lambda folder: edit_json(folder / "aggregates.json", lambda d: change(d["arrays"]))


def man(change):
    return lambda folder: edit_json(folder / "manifest.json", change)


def relabel_cards(folder):
    copy = folder / "content.toml"
    copy.write_text(copy.read_text().replace("Oku the Plain", "Oku the Mighty"))


def drop_a_player(folder):  # a 4-player run whose manifest claims 3 players
    edit_json(folder / "manifest.json", lambda m: m.update(players=3, seats=m["seats"][:3]))


DAMAGE = [
    (relabel_cards, "does not match the manifest"),
    (agg(lambda a: a["wins"]["data"].__setitem__(0, -3)), "non-negative integer"),
    (agg(lambda a: a["wins"]["data"].__setitem__(0, 2.5)), "non-negative integer"),
    (agg(lambda a: a["wins"]["data"].__setitem__(0, "7")), "non-negative integer"),
    (agg(lambda a: a["wins"]["data"].__setitem__(0, True)), "non-negative integer"),
    (agg(lambda a: a.pop("cards")), "missing"),
    (agg(lambda a: a.update(extra={"shape": [1], "data": [0]})), "extra"),
    (agg(lambda a: a["wins"].update(shape=[2, 2])), "shape"),
    (agg(lambda a: a["wins"].update(data=a["wins"]["data"][:-1])), "should hold"),
    (man(lambda m: m.update(playouts=6000)), "count"),
    (man(lambda m: m.update(playouts="600")), "playouts"),
    (man(lambda m: m.update(players=4)), "seats"),
    (man(lambda m: m.update(game="chess")), "unknown game"),
    (man(lambda m: m.update(kind="study")), "study folder"),
    (man(lambda m: m["content"].update(sha256="0" * 64)), "does not match the manifest"),
    (man(lambda m: m.update(rules={"draft": "spiral", "lone-clan": "play"})), "rule option"),
    (man(lambda m: m.update(timing=[])), "timing"),
    (lambda f: (f / "manifest.json").write_text("[1, 2]"), "not a JSON object"),
    (lambda f: (f / "aggregates.json").write_text('{"arrays": NaN}'), "not JSON"),
]


@pytest.mark.parametrize(("damage", "needle"), DAMAGE)
def test_report_refuses_a_damaged_run_folder(runs, tmp_path, damage, needle):
    folder = copy_of(runs, tmp_path)
    damage(folder)
    before = sorted(p.name for p in folder.iterdir())
    text = one_line_error(invoke("report", folder))
    assert needle in text
    assert sorted(p.name for p in folder.iterdir()) == before


@pytest.mark.parametrize("damage", [d for d, _ in DAMAGE] + [
    agg(lambda a: a["wins"]["data"].reverse()),  # two seats' wins swapped: counts still add up
    man(lambda m: m.update(seed=m["seed"] + 1)),  # another seed: no shape shows it
])
def test_any_damage_is_caught_by_the_recorded_sha256(runs, tmp_path, damage):
    folder = copy_of(runs, tmp_path, inventory=True)
    damage(folder)
    for cmd in (["report", folder], ["compare", folder, folder]):
        text = one_line_error(invoke(*cmd))
        assert "is not the file simcli wrote" in text or "not a JSON object" in text, text


def test_report_refuses_players_that_disagree_with_the_statistics(runs, tmp_path):
    folder = copy_of(runs, tmp_path, "p4")
    drop_a_player(folder)
    assert "seats beyond the 3 players" in one_line_error(invoke("report", folder))


@pytest.mark.parametrize(("damage", "needle"), [DAMAGE[0], DAMAGE[2], DAMAGE[9]])
def test_compare_refuses_a_damaged_run_folder(runs, tmp_path, damage, needle):
    good = copy_of(runs, tmp_path, "p3")
    bad = tmp_path / "bad"
    shutil.copytree(good, bad)
    damage(bad)
    assert needle in one_line_error(invoke("compare", good, bad))
    assert needle in one_line_error(invoke("compare", bad, good, "--json"))


def test_an_intact_run_still_rerenders_and_compares(runs, tmp_path):
    folder = copy_of(runs, tmp_path)
    assert invoke("report", folder).exit_code == 0
    r = invoke("compare", folder, runs / "p4", "--json")
    assert r.exit_code == 0, r.output


# --- a full disk ---------------------------------------------------------------------

def enospc(*_a, **_k):
    raise OSError(errno.ENOSPC, "No space left on device")


def polars_enospc(*_a, **_k):
    raise pl.exceptions.ComputeError("parquet: underlying IO error: No space left on device "
                                     "(os error 28)")


@pytest.mark.parametrize(("target", "raiser", "extra"), [
    ("write_all", enospc, []),
    ("save_aggregates", enospc, []),
    ("write_json", enospc, []),
    ("write_html", enospc, ["--html"]),
    ("write_rows", polars_enospc, ["--save-games"]),
    ("shutil.copyfile", enospc, []),
])
def test_a_full_disk_is_one_line_and_leaves_no_folder(tmp_path, monkeypatch, target, raiser,
                                                      extra):
    from simcli import run as run_module

    if "." in target:
        mod, name = target.split(".")
        monkeypatch.setattr(getattr(run_module, mod), name, raiser)
    else:
        monkeypatch.setattr(run_module, target, raiser)
    text = one_line_error(invoke("run", "sixteen-samurai", "-n", 500, "--out", tmp_path / "o",
                                 *extra))
    assert "no space left on the device" in text and "no run folder was written" in text
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_in_a_sweep_is_one_line_and_leaves_no_folder(tmp_path, monkeypatch):
    monkeypatch.setattr("simcli.sweep._write", polars_enospc)
    text = one_line_error(invoke("sweep", "sixteen-samurai", "--vary", "players=2,3", "-n", 200,
                                 "--out", tmp_path / "s", "-q"))
    assert "no space left on the device" in text
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_keeps_the_last_checkpoint(tmp_path, monkeypatch):
    from simcli import checkpoint

    real = checkpoint.atomic_write
    calls = []

    def fail_later(path, text):
        calls.append(path)
        if len(calls) > 1:
            enospc()
        real(path, text)

    monkeypatch.setattr(checkpoint, "atomic_write", fail_later)
    monkeypatch.setattr("simcli.run.CHECKPOINT_EVERY_S", 0.0)
    out = tmp_path / "cp"
    text = one_line_error(invoke("run", "sixteen-samurai", "-n", 3000, "--chunk-size", 500,
                                 "--checkpoint", "--out", out))
    assert "no space left" in text and "simcli resume" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cp.partial"]
    monkeypatch.undo()
    r = invoke("resume", out, "-q")
    assert r.exit_code == 0, r.output


def test_a_full_disk_while_rerendering_leaves_the_folder_as_it_was(tmp_path, monkeypatch):
    out = tmp_path / "r"
    assert invoke("run", "sixteen-samurai", "-n", 500, "--out", out, "-q").exit_code == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    monkeypatch.setattr("simcli.run.write_all", enospc)
    assert "no space" in one_line_error(invoke("report", out))
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before


def can_mount_tmpfs(tmp_path):
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
                            f"mount -t tmpfs -o size=64k tmpfs {tmp_path}"],
                           capture_output=True, check=False)
    return probe.returncode == 0


def test_a_really_full_disk(tmp_path):
    """On a 300 KB tmpfs (a user namespace; skipped where that is not allowed)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if not can_mount_tmpfs(disk):
        pytest.skip("cannot mount a tmpfs in a user namespace here")
    script = (f"mount -t tmpfs -o size=300k tmpfs {disk} && cd {disk} && "
              f"{sys.executable} -m simcli run sixteen-samurai -n 500 -q --out {disk}/run; "
              f"echo rc=$?; ls -A {disk}")
    r = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
                       capture_output=True, text=True, check=False, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    lines = r.stdout.split()
    assert "rc=2" in lines, (r.stdout, r.stderr)
    assert lines[-1] == "rc=2", f"left on the disk: {lines}"  # nothing listed after rc
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "no space left on the device" in err[0], r.stderr


# --- content files that are not ordinary files --------------------------------------

def run_in_subprocess(args, timeout=120):
    return subprocess.run([sys.executable, "-m", "simcli", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_fifo_or_a_device_as_content_is_refused_at_once(tmp_path):
    fifo = tmp_path / "roster.toml"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "FIFO"), (Path("/dev/zero"), "device")):
        r = run_in_subprocess(["run", "sixteen-samurai", "-n", 100, "--content", path,
                               "--out", tmp_path / "o"], timeout=60)
        assert r.returncode == 2, r.stderr
        assert kind in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_a_folder_or_an_oversized_file_as_content_is_refused(tmp_path):
    assert "folder" in one_line_error(invoke("run", "sixteen-samurai", "--content", tmp_path,
                                             "--out", tmp_path / "o"))
    big = tmp_path / "big.toml"
    big.write_bytes(ROSTER.read_bytes() + b"#" * (9 * 2**20) + b"\n")
    assert "at most 8 MiB" in one_line_error(invoke("run", "sixteen-samurai", "--content", big,
                                                    "--out", tmp_path / "o"))
    spec = tmp_path / "spec.toml"
    os.mkfifo(spec)
    assert "FIFO" in one_line_error(invoke("check", spec))


# --- user strings stay inert ------------------------------------------------------------

EVIL_NAME = "[/oops] <script>alert(1)</script> | x"
FORMULA = '=HYPERLINK("http://evil.example", "click")'
MARKUP_CARD = "[bold]Irie[/] | <b>x</b>"


@pytest.fixture(scope="module")
def evil_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("evil")
    text = ROSTER.read_text().replace('name = "standard"', f'name = "{EVIL_NAME}"')
    text = text.replace('"Fobus Dustwalker"', json.dumps(FORMULA))
    text = text.replace('"Irie the Spectator"', json.dumps(MARKUP_CARD))
    roster = base / "evil.toml"
    roster.write_text(text)
    out = base / "run"
    r = invoke("run", "sixteen-samurai", "-n", 1000, "--content", roster, "--out", out, "-q",
               "--html")
    return out, r


def test_rich_markup_in_names_never_crashes_the_terminal(evil_run):
    out, r = evil_run
    assert r.exit_code == 0, r.output
    assert EVIL_NAME in " ".join(r.stdout.split())  # printed as written, markup off
    r = invoke("report", out)
    assert r.exit_code == 0, r.output


def test_report_md_escapes_user_strings(evil_run):
    out, _ = evil_run
    report = (out / "report.md").read_text()
    assert "<script>" not in report and "<b>" not in report
    assert "&lt;script&gt;" in report and "\\|" in report
    header = next(ln for ln in report.splitlines() if ln.startswith("| samurai |"))
    columns = header.count(" | ")
    rows = [ln for ln in report.splitlines()
            if ln.startswith("|") and ("Irie" in ln or "HYPERLINK" in ln)]
    assert len(rows) == 2
    for line in rows:  # a table row keeps its columns
        assert line.replace("\\|", "").count(" | ") == columns, line
    html = (out / "report.html").read_text()
    assert "<script>alert" not in html


def test_csv_cells_that_look_like_formulas_are_inert(evil_run):
    out, _ = evil_run
    cards = pl.read_csv(out / "tables" / "cards.csv")
    names = cards["samurai"].to_list()
    assert "'" + FORMULA in names and FORMULA not in names
    assert not any(str(n).startswith(("=", "+", "-", "@")) for n in names)
    raw = pl.read_parquet(out / "tables" / "cards.parquet")["samurai"].to_list()
    assert FORMULA in raw  # the Parquet twin keeps the exact string
    numbers = cards.select(pl.col(pl.Float64)).to_numpy()
    assert (numbers < 0).any()  # negative numbers are numbers, left alone


def test_check_markdown_escapes_assertion_names(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text('[[assert]]\nname = "a | <img src=x onerror=alert(1)>"\n'
                    'game = "sixteen-samurai"\nplayers = 2\nmetric = "balance"\nmin = 0.0\n'
                    'max_playouts = 200\n')
    r = invoke("check", spec, "--markdown", "-", "-q")
    assert r.exit_code in (0, 1), r.output
    row = next(ln for ln in r.stdout.splitlines() if "onerror" in ln)
    assert "<img" not in row and row.replace("\\|", "").count(" | ") == 6
