"""Analysis: interval coverage, the metric catalogue, --target-ci and --mirror."""

import json

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from reports.metrics import Core, catalogue
from reports.stats import rate
from simcli.cli import app

runner = CliRunner()


def run(*args):
    r = runner.invoke(app, [str(a) for a in args])
    assert r.exit_code == 0, r.output
    return r


@pytest.mark.parametrize("p", [0.05, 0.25, 0.5])
@pytest.mark.parametrize("n", [40, 400, 4000])
def test_wilson_interval_covers_the_truth_about_95_percent(p, n):
    rng = np.random.default_rng(int(p * 1000) + n)
    ks = rng.binomial(n, p, size=4000)
    covered = np.mean([(e := rate(k, n)).lo <= p <= e.hi for k in ks])
    assert 0.93 <= covered <= 0.975, covered


def test_catalogue_metrics_and_their_meaning():
    length = np.bincount([5, 6, 6, 7, 9, 6, 5, 6], minlength=20)
    core = Core(games=8, seat_wins=np.array([3, 3]), shared=2, completed=8, length=length,
                length_unit="turns", margin=np.bincount([1, 2, 2, 5, 1, 1], minlength=8))
    df = catalogue(core).to_dicts()
    by = {r["metric"]: r for r in df}
    assert by["win_rate.seat1"]["value"] == 3 / 8 and by["shared_rate"]["value"] == 2 / 8
    assert by["balance"]["value"] == 1.0 and by["completion"]["value"] == 1.0
    assert by["duration.mean"]["value"] == pytest.approx(length @ np.arange(20) / 8)
    assert by["duration.p50"]["value"] == 6 and by["margin.mean"]["value"] == 2.0
    for r in df:
        assert r["meaning"] and r["n"] > 0
        assert r["ci_low"] <= r["value"] <= r["ci_high"], r


def test_every_run_reports_the_catalogue(tmp_path):
    out = tmp_path / "r"
    run("run", "sixteen-samurai", "-n", 1000, "--out", out, "-q")
    m = pl.read_csv(out / "tables" / "metrics.csv")
    names = set(m["metric"])
    assert {"win_rate.seat1", "balance", "shared_rate", "completion", "duration.mean",
            "duration.p95", "declarer_advantage"} <= names
    assert "Metric catalogue" in (out / "report.md").read_text()


def target_run(tmp_path, name, *extra):
    out = tmp_path / name
    run("run", "sixteen-samurai", "--players", 3, "--target-ci", 0.006, "--seed", 4, "--out",
        out, "-q", *extra)
    return json.loads((out / "manifest.json").read_text()), out


def test_target_ci_meets_its_width_and_is_reproducible(tmp_path):
    m1, o1 = target_run(tmp_path, "a", "--threads", 1)
    m2, o2 = target_run(tmp_path, "b", "--threads", 2, "--chunk-size", 777)
    stop = m1["stopping"]
    assert stop["reached"] and stop["half_width"] <= 0.006
    assert m1["playouts"] == stop["playouts"] == m2["playouts"] > 10_000
    assert (o1 / "aggregates.json").read_text() == (o2 / "aggregates.json").read_text()
    seats = pl.read_csv(o1 / "tables" / "seats.csv")
    assert ((seats["ci_high"] - seats["ci_low"]) / 2 <= 0.006).all()
    assert "Stopping rule" in (o1 / "report.md").read_text()


def test_target_ci_stops_at_the_playout_cap(tmp_path):
    m, _ = target_run(tmp_path, "cap", "-n", 12_000)
    assert m["playouts"] == 12_000 and not m["stopping"]["reached"]


def test_mirrored_estimates_agree_with_unpaired_and_have_smaller_variance(tmp_path):
    run("run", "sixteen-samurai", "--players", 3, "--mirror", "-n", 12_000, "--seed", 2,
        "--out", tmp_path / "m", "-q")
    run("run", "sixteen-samurai", "--players", 3, "-n", 36_000, "--seed", 3, "--out",
        tmp_path / "u", "-q")
    mirror = pl.read_csv(tmp_path / "m" / "tables" / "mirror.csv").filter(
        pl.col("kind") == "seat")
    plain = pl.read_csv(tmp_path / "u" / "tables" / "seats.csv")
    assert mirror["games"].to_list() == [36_000] * 3
    for m, u in zip(mirror.iter_rows(named=True), plain.iter_rows(named=True), strict=True):
        assert m["variance_reduction"] > 1.0  # pairing helps
        assert m["se_paired"] < m["se_unpaired"]
        se_u = (u["ci_high"] - u["ci_low"]) / (2 * 1.96)
        diff = abs(m["win_rate"] - u["win_rate"])
        assert diff < 3.3 * (m["se_paired"] ** 2 + se_u ** 2) ** 0.5  # agree within intervals


def test_mirror_refuses_what_it_cannot_combine(tmp_path):
    r = runner.invoke(app, ["run", "sixteen-samurai", "--mirror", "--save-games", "--out",
                            str(tmp_path / "x")])
    assert r.exit_code == 2 and "--mirror" in r.stderr


def test_compare_two_runs_and_a_variant_of_the_content(tmp_path):
    run("run", "sixteen-samurai", "-n", 3000, "--seed", 1, "--out", tmp_path / "a", "-q")
    run("run", "sixteen-samurai", "-n", 3000, "--seed", 2, "--rule", "draft=snake", "--out",
        tmp_path / "b", "-q")
    r = run("compare", tmp_path / "a", tmp_path / "b", "--json")
    diffs = {d["metric"]: d for d in json.loads(r.stdout)["differences"]}
    assert {"win_rate.seat1", "balance", "duration.mean"} <= set(diffs)
    for d in diffs.values():
        assert d["ci_low"] <= d["difference"] <= d["ci_high"]
        assert 0 <= d["p_value"] <= d["p_adjusted"] <= 1
    same = json.loads(run("compare", tmp_path / "a", tmp_path / "a", "--json").stdout)
    assert all(d["difference"] == 0 and not d["flag"] for d in same["differences"])
    roster = (tmp_path / "a" / "content.toml").read_text().replace(
        '"Oku the Plain", power = 1, speed = 1, armor = 3', '"Oku the Plain", power = 3, '
        'speed = 1, armor = 1')
    (tmp_path / "mine.toml").write_text(roster)
    run("run", "sixteen-samurai", "-n", 500, "--content", tmp_path / "mine.toml", "--out",
        tmp_path / "c", "-q")
    # a variant against the original is what a designer compares (issue 29's walkthrough):
    # allowed, and the header names each run's content so that nobody misreads it
    r = runner.invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "c")])
    assert r.exit_code == 0, r.output
    sha_a = json.loads((tmp_path / "a" / "manifest.json").read_text())["content"]["sha256"]
    sha_c = json.loads((tmp_path / "c" / "manifest.json").read_text())["content"]["sha256"]
    assert sha_a != sha_c and sha_a[:12] in r.output and sha_c[:12] in r.output
    other = tmp_path / "s"
    run("run", "samsara", "-n", 200, "--out", other, "-q")
    r = runner.invoke(app, ["compare", str(tmp_path / "a"), str(other)])
    assert r.exit_code == 2 and "different games" in r.stderr


def test_sweep_grid_table_charts_and_flags(tmp_path):
    out = tmp_path / "sw"
    r = run("sweep", "sixteen-samurai", "--vary", "players=2,3", "--vary",
            "rule.lone-clan=play,end", "-n", 3000, "--out", out, "--json", "-q")
    table = pl.read_parquet(out / "sweep.parquet")
    assert table["cell"].n_unique() == 4 and set(table["players"]) == {"2", "3"}
    assert set(table["rule.lone-clan"]) == {"play", "end"}
    seat1 = table.filter(pl.col("metric") == "win_rate.seat1").sort("cell")
    # 2 players against 3: a fair share of 50% against 33%, so the raw rates are never
    # compared (issue 27, defect 2: seat 1 used to be flagged as 'differs', 99%) ...
    assert seat1["diff"][0] is None and seat1["diff"][2] is None
    assert "see edge.seat1" in seat1["flag"][2]
    # ... but the same player count is, and so is every seat's edge over its fair share
    assert seat1["diff"][1] is not None
    edge = table.filter(pl.col("metric") == "edge.seat1").sort("cell")
    assert edge["diff"][2] is not None and not edge["flag"][2].startswith("differs")
    assert edge["value"][2] == pytest.approx(seat1["value"][2] - 1 / 3, abs=0.02)
    assert {f"edge.seat{k}" for k in (1, 2, 3)} <= set(table["metric"])
    charts = {p.name for p in (out / "charts").glob("*.png")}
    assert {"seat-edges-by-players.png", "seat-edges-by-rule.lone-clan.png"} <= charts
    report = (out / "report.md").read_text()
    assert "| edge.seat2 |" in report and "0.5000" not in report
    assert json.loads(r.stdout)["manifest"]["axes"]["players"] == ["2", "3"]


@pytest.mark.parametrize(("vary", "needle"), [
    ("players=2,9", "2-4 players"), ("rule.speed=a,b", "unknown rule option"),
    ("rule.draft=spiral", "rotation|snake"), ("colour=red", "choose players"),
    ("players", "name=value1,value2"), ("policy=greedy,genius", "unknown policy"),
])
def test_bad_sweep_axes(vary, needle, tmp_path):
    r = runner.invoke(app, ["sweep", "sixteen-samurai", "--vary", vary, "--out",
                            str(tmp_path / "x")])
    assert r.exit_code == 2 and needle in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "x").exists()


def test_html_report_is_self_contained_with_methods(tmp_path):
    out = tmp_path / "h"
    run("run", "sixteen-samurai", "-n", 2000, "--seats", "greedy,random", "--out", out, "-q",
        "--html")
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") >= 4
    assert 'src="http' not in page and "<link" not in page
    assert "Methods" in page and "Wilson" in page and "greedy</b>:" in page
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["content"]["sha256"] in page and manifest["tool_version"] in page
    (out / "report.html").unlink()
    run("report", out, "--html")
    assert (out / "report.html").exists()


def test_study_writes_one_combined_report(tmp_path):
    out = tmp_path / "study"
    r = run("study", "--games", "sixteen-samurai", "--quick", "--out", out, "--json", "-q")
    verdicts = json.loads(r.stdout)["verdicts"]
    assert "seat win rates run from" in verdicts["sixteen-samurai"]
    assert "Skill: greedy wins" in verdicts["sixteen-samurai"]
    assert (out / "report.md").exists() and (out / "report.html").exists()
    assert (out / "sixteen-samurai" / "report.html").exists()
    assert "sixteen-samurai.png" in (out / "report.md").read_text()
    manifest = json.loads((out / "sixteen-samurai" / "manifest.json").read_text())
    assert manifest["stopping"]["target_ci"] == 0.01 and manifest["stopping"]["reached"]


def _metrics(seat_rates, n, shared=0.0, completion=1.0, teams=None):
    """A hand-built metric table as the catalogue gives it."""
    rows = [(f"win_rate.seat{k + 1}", v) for k, v in enumerate(seat_rates)]
    rows += [("balance", 1 - (max(seat_rates) - min(seat_rates))), ("shared_rate", shared),
             ("completion", completion), ("duration.mean", 20.0), ("duration.p50", 20.0),
             ("duration.p95", 30.0)]
    rows += [(f"team_win.{t}", v) for t, v in (teams or {}).items()]
    return pl.DataFrame({"metric": [r[0] for r in rows], "value": [float(r[1]) for r in rows],
                         "ci_low": [0.0] * len(rows), "ci_high": [1.0] * len(rows),
                         "n": [n] * len(rows), "unit": ["turns"] * len(rows)})


def _fair(seat_rates, n, team=False):
    from reports.fairness import seat_fairness

    return seat_fairness(np.round(np.array(seat_rates) * n).astype(int), n, team)


def test_verdict_reads_team_games_without_a_fair_share():
    from reports.study import verdict

    manifest = {"players": 4, "seats": ["heuristic"] * 4, "content": {"assumed": False}}
    m = _metrics([0.6, 0.3, 0.3, 0.3], 10_000, shared=0.55,
                 teams={"shogun": 0.6, "ninja": 0.4, "ronin": 0.0})
    text = verdict("Sword", manifest, m, _fair([0.6, 0.3, 0.3, 0.3], 10_000, team=True))
    assert "against a fair share" not in text and "seat order matters" not in text
    assert "Team win rates: shogun 60.0% (95% CI 0.0%-100.0%), ninja 40.0% (95% CI " in text
    assert "ronin" not in text  # a team that never plays
    assert "55.0% (95% CI 0.0%-100.0%) of games are won by a team of several players" in text
    plain = verdict("Sword", manifest, m, _fair([0.6, 0.2, 0.1, 0.1], 10_000))
    assert "against a fair share of 25.0%" in plain and "the seat order matters" in plain


def test_verdict_fair_share_counts_only_outright_wins():
    from reports.study import verdict

    manifest = {"players": 4, "seats": ["greedy"] * 4, "content": {"assumed": True}}
    rates = [0.2377, 0.2377, 0.2377, 0.2377]  # 4.9% of games have no outright winner
    text = verdict("G", manifest, _metrics(rates, 40_000, shared=0.0492), _fair(rates, 40_000))
    assert "fair share of 23.8%" in text and "No seat differs" in text


def test_verdict_shows_rare_events_instead_of_rounding_them_away():
    from reports.study import verdict

    manifest = {"players": 2, "seats": ["greedy"] * 2, "content": {"assumed": True}}
    text = verdict("G", manifest, _metrics([0.5, 0.5], 40_000, shared=0.0003,
                                            completion=0.99995), _fair([0.5, 0.4997], 40_000))
    assert "0.03% (95% CI 0.0%-100.0%) of games end in a draw, a shared win or with no " \
           "winner" in text
    assert "2 of 40,000 games hit the simulation's safety cap" in text
    text = verdict("G", manifest, _metrics([0.5, 0.5], 40_000), _fair([0.5, 0.5], 40_000))
    assert "Every game has one outright winner" in text and "safety cap" not in text


def test_skill_gap_is_paired_by_seed_with_an_interval():
    r = run("skill", "sixteen-samurai", "--players", 3, "-n", 2000, "--json")
    (row,) = json.loads(r.stdout)["skill"]
    assert row["policy"] == "greedy" and row["games"] == 8000  # 3 arrangements + baseline
    assert row["ci_low"] < row["win_rate"] < row["ci_high"]
    assert abs(row["baseline"] - 1 / 3) < 0.03  # random players win their fair share
    assert row["edge_ci_low"] > 0  # greedy clearly beats random in Sixteen Samurai
    assert row["edge"] == pytest.approx(row["win_rate"] - row["baseline"])


def test_mirror_interval_when_every_deal_ends_alike():
    from reports.metrics import mirror_table

    counts = np.array([[0, 0, 500], [500, 0, 0]])  # seat 1 won both rotations of every deal
    table = mirror_table(counts, counts[::-1], ["greedy", "random"])
    row = table.row(0, named=True)
    assert row["win_rate"] == 1.0 and row["ci_low"] < 1.0 <= row["ci_high"]
    assert np.isnan(row["variance_reduction"])
