"""Samurai & Katana from the command line: odds (one battle, the table), runs with rule
options and content files, and bad input."""

import json

import polars as pl
import pytest

from kernels import katana_combat as KC
from simcli.games.samurai_katana import SamuraiKatana, exact_odds
from tests.cli import invoke, one_line_error

GAME = SamuraiKatana()
DECK = GAME.load_content(GAME.content_path(None)).data.deck


def test_odds_one_battle_monte_carlo_within_its_interval():
    r = invoke("odds", "samurai-katana", "--attacker", 4, "--defender", 3, "-n", 200_000,
               "--threads", 2, "--seed", 3, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    exact = exact_odds(DECK.table, DECK.counts, 5)[4, 3, 0, 0]
    assert data["method"] == "monte-carlo" and data["seed"] == 3
    assert data["attacker_win_ci_low"] <= exact[KC.OS_WIN] <= data["attacker_win_ci_high"]
    assert data["empty_ci_low"] <= exact[KC.OS_EMPTY] <= data["empty_ci_high"]
    assert abs(data["attacker_win"] + data["tie"] + data["defender_win"] - 1) < 1e-12


def test_odds_exact_castle_alone_in_the_mountains():
    r = invoke("odds", "samurai-katana", "--attacker", 3, "--defender", 0, "--castle",
               "--mountain", "--exact", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    cell = exact_odds(DECK.table, DECK.counts, 5)[3, 0, 1, 1]
    assert data["method"] == "exact" and data["castle"] and data["mountain"]
    assert data["attacker_win"] == pytest.approx(cell[KC.OS_WIN])
    assert data["defender_losses"] == 0  # a castle alone loses no samurai
    r = invoke("odds", "samurai-katana", "--attacker", 4, "--defender", 3, "--exact")
    assert r.exit_code == 0 and "attacker wins" in r.stdout and "strongest" in r.stdout


def test_odds_table_writes_the_grid_and_heatmaps(tmp_path):
    out = tmp_path / "odds"
    r = invoke("odds", "samurai-katana", "--table", "-n", 20_000, "--threads", 2, "--out", out)
    assert r.exit_code == 0, r.output
    frame = pl.read_parquet(out / "odds.parquet")
    assert frame.height == 2 * 8 * 8 + 2 * 8 * 9  # defender 0 only with a castle
    assert (frame["battles"] == 20_000).all()
    assert (frame["attacker_win_ci_low"] <= frame["attacker_win"]).all()
    assert pl.read_csv(out / "odds.csv").height == frame.height
    for name in ("plain", "mountain", "castle", "castle_in_mountains"):
        assert (out / f"heatmap_{name}.png").stat().st_size > 10_000
        assert f"heatmap_{name}.png" in r.stdout.replace("\n", "")
    r = invoke("odds", "samurai-katana", "--table", "--exact", "--out", out)
    assert "exists" in one_line_error(r)  # a finished table is replaced only with --force
    r = invoke("odds", "samurai-katana", "--table", "--exact", "--out", out, "--force")
    assert r.exit_code == 0, r.output
    frame = pl.read_parquet(out / "odds.parquet")
    assert (frame["method"] == "exact").all()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine")
    r = invoke("odds", "samurai-katana", "--table", "--exact", "--out", mine, "--force")
    one_line_error(r)
    assert sorted(p.name for p in mine.iterdir()) == ["keep.txt"]


@pytest.mark.parametrize(("args", "words"), [
    (["--attacker", 2, "--defender", 0], "only with --castle"),
    (["--attacker", 0, "--defender", 2], "--attacker must be at least 1"),
    (["--attacker", 2], "--attacker N --defender M"),
    (["--dice", 3, 2], "--dice does not apply"),
    (["--table", "--attacker", 2], "drop --attacker"),
    (["--attacker", 2, "--defender", 1, "-n", 0], "-n must be a positive"),
])
def test_odds_bad_input(args, words):
    r = invoke("odds", "samurai-katana", *args)
    assert r.exit_code == 2
    assert words in r.output


def test_run_six_players_short_game_with_own_content(tmp_path):
    text = GAME.content_path(None).read_text()
    mine = tmp_path / "my-map.toml"
    mine.write_text(text.replace('{ id = "kinai", name = "Kinai", honor = 5',
                                 '{ id = "kinai", name = "Kinai", honor = 7'))
    out = tmp_path / "run6"
    r = invoke("run", "samurai-katana", "--players", 6, "--rule", "target-honor=20", "--rule",
               "emperor=limited", "--content", mine, "-n", 400, "--threads", 2, "--out", out,
               "--quiet")
    assert r.exit_code == 0, r.output
    m = json.loads((out / "manifest.json").read_text())
    assert m["players"] == 6 and m["rules"]["target-honor"] == "20"
    assert m["rules"]["emperor"] == "limited" and m["content"]["assumed"]
    assert (out / "content.toml").read_text() == mine.read_text()
    for name in ("report.md", "summary.parquet", "tables/seats.csv", "tables/odds.parquet",
                 "tables/provinces.csv", "charts/combat_odds.png", "charts/seat_win_rates.png",
                 "charts/honor_over_turns.png"):
        assert (out / name).exists(), name
    provinces = pl.read_csv(out / "tables/provinces.csv")
    assert provinces.filter(pl.col("province") == "Kinai")["honor"][0] == 7
    seats = pl.read_parquet(out / "summary.parquet").filter(pl.col("section") == "seats")
    assert seats.filter(pl.col("metric") == "win_rate").height == 6
    report = (out / "report.md").read_text()
    assert "Emperor catch-up" in report and "reconstructed" in report


def test_run_mirrored_and_rerendered(tmp_path):
    out = tmp_path / "mirror"
    r = invoke("run", "samurai-katana", "--players", 3, "--seats", "greedy,random,random",
               "--mirror", "-n", 90, "--threads", 2, "--out", out, "--quiet")
    assert r.exit_code == 0, r.output
    assert "Mirrored seats" in (out / "report.md").read_text()
    r = invoke("report", out)
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize(("args", "words"), [
    (["--rule", "target-honor=22"], "target-honor takes 20|25|30|35|40"),
    (["--rule", "seppuku=on"], "unknown rule option 'seppuku'"),
    (["--players", 2], "takes 3-6 players"),
    (["--policy", "clever"], "unknown policy 'clever'"),
])
def test_run_bad_options(tmp_path, args, words):
    r = invoke("run", "samurai-katana", "-n", 10, "--out", tmp_path / "x", *args)
    assert r.exit_code == 2
    assert words in r.output


def test_run_with_a_broken_map_names_the_entry(tmp_path):
    text = GAME.content_path(None).read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('land = ["mutsu", "echigo"], sea = []', 'land = ["echigo"], '
                                'sea = []'))
    r = invoke("run", "samurai-katana", "-n", 10, "--content", bad, "--out", tmp_path / "x")
    assert r.exit_code == 2
    assert "asymmetric adjacency" in r.output and "'mutsu'" in r.output
    assert not (tmp_path / "x").exists()


def test_games_lists_the_rule_options():
    r = invoke("games")
    assert r.exit_code == 0
    for word in ("samurai-katana", "target-honor", "political-deal", "province-values"):
        assert word in r.stdout


def findings_of(report: str) -> list[str]:
    """The report's findings, in order (the bullets of its Findings section)."""
    part = report.split("Findings", 1)[1]
    return [line[2:] for line in part.splitlines() if line.startswith("- ")]


@pytest.mark.parametrize("reading", ["every-turn", "once"])
def test_the_province_honor_reading_leads_the_findings_and_the_verdict(tmp_path, reading):
    out = tmp_path / reading
    r = invoke("run", "samurai-katana", "--rule", f"province-honor={reading}", "-n", 60,
               "--threads", 1, "--out", out, "--quiet")
    assert r.exit_code == 0, r.output
    found = findings_of((out / "report.md").read_text())
    note = GAME.verdict_note(GAME.resolve_rules([f"province-honor={reading}"]))
    if reading == "every-turn":  # the default: stated first, and the verdict depends on it
        assert found[0].startswith("Reading in force: province-honor=every-turn")
        assert "Honor a game from provinces" in found[0] and "turns on average" in found[0]
        assert "depends on the reading province-honor=every-turn" in note
        assert note == GAME.verdict_note(GAME.resolve_rules([]))
    else:
        assert not any("province-honor" in f for f in found)
        assert note == ""
