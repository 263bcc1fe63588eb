"""simcli tune: parameter paths, settings applied to the content file, and a planted
setting recovered by the search."""

from pathlib import Path

import pytest

from simcli.errors import UserError
from simcli.registry import get_game
from simcli.tune import apply_setting, objective_of, parse_param, run_tune

GAME = get_game("sixteen-samurai")
TEXT = GAME.content_path(None).read_text()


def test_paths_select_tables_lists_by_name_and_index():
    p = parse_param(GAME, "clan.size=10..12")
    assert p.values == (10, 11, 12) and p.tokens == ("clan", "size")
    text = apply_setting(TEXT, GAME, [p], (11,))
    assert "size = 11" in text and "# samurai drafted per player" in text  # comments kept
    q = parse_param(GAME, "roster.samurai[Fobus Dustwalker].speed=1,2")
    assert q.tokens == ("roster", "samurai", "Fobus Dustwalker", "speed")
    r = parse_param(GAME, "roster.samurai[0].power=1..2")
    assert r.tokens[2] == 0
    assert parse_param(GAME, "rule.draft=rotation,snake").values == ("rotation", "snake")


@pytest.mark.parametrize(("param", "needle"), [
    ("clan.size", "must look like"), ("rule.colour=1..2", "no rule option"),
    ("rule.draft=sideways", "takes rotation|snake"), ("dice.faces=8..4", "empty range"),
])
def test_bad_params_are_user_errors(param, needle):
    with pytest.raises(UserError, match=needle):
        parse_param(GAME, param)


def test_a_path_that_does_not_exist_is_named():
    with pytest.raises(UserError, match="no entry named 'Nobody'"):
        apply_setting(TEXT, GAME, [parse_param(GAME, "roster.samurai[Nobody].power=1..2")],
                      (1,))
    with pytest.raises(UserError, match="not a number"):
        apply_setting(TEXT, GAME, [parse_param(GAME, "content.name=1..2")], (1,))


def test_objectives():
    assert objective_of("balance") == ("balance", None)
    assert objective_of("duration.mean=30") == ("duration.mean", 30.0)
    with pytest.raises(UserError):
        objective_of("duration.mean=nan")


def test_tune_recovers_a_planted_setting(tmp_path):
    """The clan size that gives a measured game length is found again, and its
    confirmation run agrees with that length (measured on 40,000 other games): the
    difference's 95% interval contains 0."""
    from reports.compare import difference
    from simcli.tune import Candidate, _evaluate

    planted = 10
    text = apply_setting(TEXT, GAME, [parse_param(GAME, "clan.size=10")], (planted,))
    (tmp_path / "m").mkdir()
    truth = _evaluate(GAME, Candidate((planted,), text, GAME.resolve_rules([])),
                      tmp_path / "m", 2, ("greedy", "greedy"), 40_000, 99, 2, None)
    row = truth.filter(truth["metric"] == "duration.mean").row(0, named=True)
    target = row["value"]
    res = run_tune("sixteen-samurai", ["clan.size=6..14"], f"duration.mean={target}",
                   players=2, policy="greedy", rules=[], content=None, n=1000, budget=None,
                   seed=1, threads=2, out=tmp_path / "t", force=False)
    assert res.confirm["setting"] == f"clan.size={planted}"
    confirmed = {k: res.confirm[k] for k in ("value", "ci_low", "ci_high")}
    diff, _ = difference({**confirmed, "n": res.confirm["playouts"], "unit": "rounds"}, row)
    assert diff.lo <= 0 <= diff.hi
    best = Path(res.folder / "best.toml").read_text()
    assert f"size = {planted}" in best
    assert (res.folder / "charts" / "trace.png").exists()
