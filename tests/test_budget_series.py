"""scripts/budget_series.py: two policies in the same mirrored deals, and the paired
difference of their win rates."""

import sys
from pathlib import Path

import numpy as np

from simcli.ladder import play_seats
from simcli.registry import get_game

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "budget_series.py"
sys.path.insert(0, str(SCRIPT.parent))
from budget_series import step  # noqa: E402


def _setup(name):
    game = get_game(name)
    return game, game.load_content(game.content_path(None)), game.resolve_rules([])


def test_every_game_of_a_deal_is_counted_once_per_rotation():
    game, content, rules = _setup("samurai-card-game")
    seats = ("greedy", "random", "random")
    wins = play_seats(game, content, rules, seats, ["greedy", "random"], 12, 3, 1, None)
    assert wins.shape == (12, 2)
    # a game's win (shared or outright) adds up to 1, a game nobody wins to 0
    assert np.all(wins.sum(axis=1) <= 3 + 1e-9)
    assert wins.sum() > 0.8 * 36


def test_a_step_separates_a_strong_policy_from_a_weak_one_and_is_deterministic():
    game, content, rules = _setup("samsara")
    one = step(game, content, rules, 2, "random", "greedy", "greedy", 40, 7, 1)
    two = step(game, content, rules, 2, "random", "greedy", "greedy", 40, 7, 2)
    assert one["games"] == 80
    for key in ("hi_rate", "lo_rate", "diff"):
        assert one[key] == two[key]  # the same seed on any number of threads
    hi, lo, d = one["hi_rate"], one["lo_rate"], one["diff"]
    assert hi.value + lo.value <= 1.0 + 1e-9
    assert abs(d.value - (hi.value - lo.value)) < 1e-12
    assert d.lo > 0.3  # greedy beats random at Samsara by far (about 90% of games)
    swapped = step(game, content, rules, 2, "greedy", "random", "greedy", 40, 7, 1)
    assert swapped["diff"].hi < -0.3
