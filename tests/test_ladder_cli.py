"""simcli ladder and simcli tune through the command line."""

import json

from typer.testing import CliRunner

from simcli.cli import app

runner = CliRunner()


def test_ladder_rates_policies_and_shows_balance_by_policy(tmp_path):
    out = tmp_path / "lad"
    r = runner.invoke(app, ["ladder", "sixteen-samurai", "--policies", "random,greedy", "-n",
                            "300", "--players", "3", "--out", str(out), "--json", "-q"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    ratings = {x["policy"]: x for x in doc["ratings"]}
    assert ratings["random"]["elo"] == 0.0
    assert ratings["greedy"]["ci_low"] > 100  # greedy clearly beats random
    assert {b["policy"] for b in doc["balance"]} == {"random", "greedy"}
    assert "seat3" in doc["balance"][0] and doc["balance_vs_skill"]
    for f in ("report.md", "report.html", "manifest.json", "tables/ratings.csv",
              "tables/balance_by_policy.csv", "charts/ratings.png",
              "charts/balance_vs_skill.png"):
        assert (out / f).exists(), f
    assert json.loads((out / "manifest.json").read_text())["kind"] == "ladder"


def test_ladder_without_random_rates_the_first_policy_at_zero(tmp_path):
    out = tmp_path / "lad"
    r = runner.invoke(app, ["ladder", "sixteen-samurai", "--policies", "greedy,random", "-n",
                            "200", "--players", "2", "--out", str(out), "--json", "-q"])
    assert r.exit_code == 0, r.output
    ratings = {x["policy"]: x for x in json.loads(r.stdout)["ratings"]}
    assert ratings["random"]["elo"] == 0.0  # random is the anchor wherever it is listed
    out2 = tmp_path / "lad2"
    r = runner.invoke(app, ["ladder", "samsara", "--policies", "greedy,lookahead",
                            "-n", "40", "--out", str(out2), "--json", "-q"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    ratings = {x["policy"]: x for x in doc["ratings"]}
    assert ratings["greedy"]["elo"] == ratings["greedy"]["ci_low"] == 0.0  # the anchor
    assert ratings["lookahead"]["ci_high"] > ratings["lookahead"]["ci_low"]
    assert doc["manifest"]["anchor"] == "greedy"
    report = (out2 / "report.md").read_text()
    assert "greedy at 0" in report and "random at 0" not in report


def test_ladder_refuses_bad_policy_lists(tmp_path):
    for policies, needle in (("greedy", "at least two"), ("greedy,greedy", "at least two"),
                             ("greedy,nobody", "unknown policy"),
                             ("greedy,mcts:x", "policy"),
                             ("greedy,,random", "empty entry"), ("greedy,random,", "empty entry"),
                             ("greedy,mcts:4,mcts:004", "one player twice")):
        r = runner.invoke(app, ["ladder", "sixteen-samurai", "--policies", policies,
                                "--out", str(tmp_path / "x")])
        assert r.exit_code == 2 and needle in r.stderr, (policies, r.output)
        assert not (tmp_path / "x").exists()
    r = runner.invoke(app, ["ladder", "sixteen-samurai", "--policies", "greedy,greedy,x"])
    assert r.exit_code == 2


def test_a_policy_name_is_printed_as_typed_not_as_an_emoji(tmp_path):
    r = runner.invoke(app, ["ladder", "samsara", "--policies", "greedy,mcts:100:c=abc",
                            "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "'mcts:100:c=abc'" in r.stderr, r.output


def test_tune_command_writes_the_best_content(tmp_path):
    out = tmp_path / "t"
    r = runner.invoke(app, ["tune", "sixteen-samurai", "--param", "clan.size=9..11",
                            "--objective", "duration.mean=20", "-p", "2", "-n", "200",
                            "--out", str(out), "--json", "-q"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["confirm"]["setting"].startswith("clan.size=")
    assert (out / "best.toml").exists() and (out / "charts" / "trace.png").exists()
    r = runner.invoke(app, ["tune", "sixteen-samurai", "--param", "clan.size=9..11",
                            "--objective", "nonsense", "--out", str(tmp_path / "u")])
    assert r.exit_code == 2 and not (tmp_path / "u").exists()


def test_tune_refuses_a_twice_given_param_a_bad_range_and_a_budget_it_would_overspend(tmp_path):
    for args, needle in ((["--param", "battle.uma=0..2", "--param", "battle.uma=1..2"],
                          "given twice"),
                         (["--param", "battle.uma=0..20"], "--param setting battle.uma=11"),
                         (["--param", "battle.uma=0..2", "--budget", "10", "-n", "20"],
                          "more than --budget 10")):
        r = runner.invoke(app, ["tune", "sixteen-samurai", *args, "--out",
                                str(tmp_path / "t")])
        assert r.exit_code == 2 and needle in r.stderr, (args, r.output)
        assert len(r.stderr.strip().splitlines()) == 1 and ".partial" not in r.stderr
        assert list(tmp_path.iterdir()) == []
