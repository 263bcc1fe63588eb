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


def _old_ratings(pairings, names, anchor=0, boot=200, seed=1):
    """The ratings as computed before open ends (plain bootstrap percentiles)."""
    from reports.ladder import fit_strengths
    point = ELO * np.log(fit_strengths(pairings, len(names), anchor))
    rng = np.random.default_rng(seed)
    draws = np.zeros((boot, len(names)))
    for b in range(boot):
        resampled = [Pairing(pg.makeup, pg.wins[rng.integers(0, len(pg.wins), len(pg.wins))],
                             pg.rotations) for pg in pairings]
        draws[b] = ELO * np.log(fit_strengths(resampled, len(names), anchor))
    lo, hi = np.percentile(draws, [2.5, 97.5], axis=0)
    return [(float(point[i]), float(min(lo[i], point[i])), float(max(hi[i], point[i])))
            for i in range(len(names))]


@pytest.mark.parametrize("players", [2, 4])
def test_a_mixed_ladder_keeps_its_figures(players):
    """Guard (passes on the old code by design): where no resample is one-sided and the
    bootstrap moves every rating, the figures are the plain bootstrap's, bit for bit."""
    rng = np.random.default_rng(11)
    pairings = synthetic([0.0, 120.0, 260.0], players, 150, rng)
    names = ["random", "greedy", "mcts:100"]
    new = ratings(pairings, names, boot=60, seed=5)
    old = _old_ratings(pairings, names, boot=60, seed=5)
    assert [(r.elo, r.lo, r.hi) for r in new] == old


def test_a_policy_that_wins_every_game_has_an_open_upper_end():
    """Greedy beats random in every game of 10 deals: no finite upper end, and the lower
    end is the exact one-sided 97.5% bound (Clopper-Pearson: p^20 = 0.025), not the point."""
    wins = np.zeros((10, 2))
    wins[:, 1] = 2
    fit = ratings([Pairing(np.array([1.0, 1.0]), wins, 2)], ["random", "greedy"], boot=50)
    assert (fit[0].lo, fit[0].hi) == (0.0, 0.0)
    g = fit[1]
    assert g.hi == np.inf and np.isfinite(g.lo) and g.lo < g.elo
    p = 0.025 ** (1 / 20)
    assert g.lo == pytest.approx(ELO * np.log(p / (1 - p)), abs=0.01)


def test_ladder_with_a_dominant_policy_is_open_above_and_never_zero_width():
    """mcts wins every game against both others (random and greedy mixed): mcts is open
    above, greedy is not; nothing but the anchor has zero width."""
    rng = np.random.default_rng(2)
    mixed = synthetic([0.0, 150.0], 2, 30, rng)[0]
    k = 3
    pairings = [Pairing(np.append(mixed.makeup, 0.0), np.c_[mixed.wins, np.zeros(30)], 2)]
    for a in (0, 1):
        makeup = np.zeros(k)
        makeup[[a, 2]] = 1
        wins = np.zeros((30, k))
        wins[:, 2] = 2
        pairings.append(Pairing(makeup, wins, 2))
    fit = ratings(pairings, ["random", "greedy", "mcts:4"], boot=50)
    assert fit[2].hi == np.inf and np.isfinite(fit[2].lo) and fit[2].lo < fit[2].elo
    assert np.isfinite(fit[1].lo) and np.isfinite(fit[1].hi)
    assert all(r.hi > r.lo for r in fit[1:])


def test_a_policy_that_loses_every_game_has_an_open_lower_end():
    wins = np.zeros((8, 2))
    wins[:, 0] = 2
    fit = ratings([Pairing(np.array([1.0, 1.0]), wins, 2)], ["random", "broken"], boot=50)
    assert fit[1].lo == -np.inf and np.isfinite(fit[1].hi) and fit[1].hi > fit[1].elo


def test_identical_deals_still_give_an_interval():
    """Every deal splits 1-1: the resamples cannot move the rating, so the interval is the
    profile-likelihood one (symmetric about 0), never zero width."""
    fit = ratings([Pairing(np.array([1.0, 1.0]), np.ones((5, 2)), 2)], ["random", "greedy"],
                  boot=50)
    g = fit[1]
    assert g.elo == pytest.approx(0.0, abs=1e-9)
    assert g.lo < -100 and g.hi > 100 and g.lo == pytest.approx(-g.hi, abs=0.01)


@pytest.mark.parametrize("players", [2, 4])
def test_small_samples_never_give_a_zero_width_interval(players):
    """5 deals per pairing of a wide ladder: many pairings go one way; every interval but
    the anchor's has width, and it covers the true rating about as often as it claims."""
    true = [0.0, 400.0, 1000.0]
    names = ["random", "greedy", "mcts:100"]
    rng = np.random.default_rng(4)
    hits = total = 0
    for _ in range(10):
        fit = ratings(synthetic(true, players, 5, rng), names, boot=40,
                      seed=int(rng.integers(1 << 30)))
        assert (fit[0].lo, fit[0].hi) == (0.0, 0.0)
        for r, t in zip(fit[1:], true[1:], strict=True):
            assert r.hi > r.lo and r.lo <= r.elo <= r.hi
            hits += r.lo <= t <= r.hi
            total += 1
    assert hits / total >= 0.8, hits / total
