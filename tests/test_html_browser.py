"""The HTML report in a real browser (headless Chromium from the system packages): it
renders, every image loads, nothing is fetched from the network. Skipped where no
Chromium is installed (.ci/run installs it when it can)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simcli.cli import app

ROOT = Path(__file__).parents[1]
SCRIPT = ROOT / "scripts" / "check_html_report.py"
sys.path.insert(0, str(SCRIPT.parent))
from check_html_report import find_chromium, static_problems  # noqa: E402

BROWSER = find_chromium(None)


def test_static_check_catches_remote_references():
    assert static_problems("<img src='data:image/png;base64,AA'><a href='x/report.html'>") == []
    assert static_problems("<img src='http://x/y.png'>") and static_problems(
        "<link href='style.css'>")


@pytest.mark.skipif(BROWSER is None, reason="no Chromium installed")
def test_run_and_study_reports_render_in_chromium(tmp_path):
    runner = CliRunner()
    r = runner.invoke(app, ["study", "--games", "samsara", "--quick", "--out",
                            str(tmp_path / "s"), "-q"])
    assert r.exit_code == 0, r.output
    reports = [tmp_path / "s" / "report.html", tmp_path / "s" / "samsara" / "report.html"]
    proc = subprocess.run([sys.executable, str(SCRIPT), *map(str, reports)],
                          capture_output=True, text=True, timeout=300)
    results = json.loads(proc.stdout)
    assert proc.returncode == 0, results
    assert all(res["images"] >= 1 and not res["failed"] and not res["violations"]
               for res in results)
    study = results[0]
    # the study's summary table fits a 1280-pixel window (issue 29)
    assert study["window_width"] == 1280 and study["table_widths"]
    assert study["table_widths"][0] <= study["window_width"]
