"""The rating fit on synthetic ladders with known Elo ratings."""

import numpy as np
import pytest

from reports.ladder import ELO, Pairing, ratings


def synthetic(true_elo, players, deals, rng):
    """Round-robin pairings; each deal is played `players` times with the seats rotated
    (seat effects cancel); the winner of a game is drawn by the Luce model."""
    gamma = np.exp(np.array(true_elo) / ELO)
    k = len(true_elo)
    out = []
    for a in range(k):
        for b in range(a + 1, k):
            makeup = np.zeros(k)
            makeup[a] = (players + 1) // 2
            makeup[b] = players // 2
            p_a = makeup[a] * gamma[a] / (makeup[a] * gamma[a] + makeup[b] * gamma[b])
            wins = np.zeros((deals, k))
            wins[:, a] = rng.binomial(players, p_a, deals)
            wins[:, b] = players - wins[:, a]
            out.append(Pairing(makeup, wins, players))
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_ratings_recover_a_known_ladder(players):
    true = [0.0, 150.0, 400.0, 420.0]
    names = ["random", "greedy", "mcts:100", "mcts:1000"]
    hits, total = 0, 0
    rng = np.random.default_rng(3)
    for _ in range(25):
        fit = ratings(synthetic(true, players, 600, rng), names, boot=80,
                      seed=int(rng.integers(1 << 30)))
        assert fit[0].elo == 0.0
        for r, t in zip(fit[1:], true[1:], strict=True):
            hits += r.lo <= t <= r.hi
            total += 1
    assert hits / total >= 0.88, hits / total


def test_a_policy_that_never_wins_still_gets_a_finite_rating():
    wins = np.zeros((200, 2))
    wins[:, 1] = 2  # policy 1 wins every game of every deal
    fit = ratings([Pairing(np.array([1.0, 1.0]), wins, 2)], ["random", "greedy"], boot=50)
    assert np.isfinite(fit[1].elo) and fit[1].elo > 500 and fit[1].lo > 300
