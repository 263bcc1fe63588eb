"""`simcli check` and `simcli sweep` take a search policy like any other (issue 15)."""

import json

from tests.cli import invoke


def test_sweep_varies_a_search_policy(tmp_path):
    r = invoke("sweep", "samsara", "--vary", "policy=greedy,mcts:10", "-n", "6", "-t", "1",
               "-o", tmp_path / "sw", "--json", "-q")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["manifest"]["cells"] == ["policy=greedy", "policy=mcts:10"]
    assert len(data["table"]) >= 2 * 4  # every metric of both cells


def test_check_asserts_on_a_search_policy(tmp_path):
    spec = tmp_path / "balance.toml"
    spec.write_text('[[assert]]\nname = "mcts seat 1"\ngame = "samsara"\npolicy = "mcts:10"\n'
                    'metric = "win_rate.seat1"\nmin = 0.0\nmax = 1.0\nmax_playouts = 8\n')
    r = invoke("check", spec, "-t", "1", "--json", "-q")
    assert r.exit_code == 0, r.output
    result = json.loads(r.stdout)["results"][0]
    assert result["verdict"] == "pass" and result["seats"] == ["mcts:10", "mcts:10"]


def test_check_refuses_a_malformed_search_policy(tmp_path):
    spec = tmp_path / "balance.toml"
    spec.write_text('[[assert]]\nname = "x"\ngame = "samsara"\npolicy = "mcts:zero"\n'
                    'metric = "win_rate.seat1"\nmin = 0.0\n')
    r = invoke("check", spec, "-q")
    assert r.exit_code == 2 and "mcts" in r.output
