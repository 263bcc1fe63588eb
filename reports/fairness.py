"""Seat fairness, computed in one place: the run's seat table, the metric catalogue, the
study verdict, `check`, `compare` and `sweep` all read it from here.

A fair game gives every seat the same chance of an outright win. When some games end
with a shared victory or no winner, that chance is the decisive share divided by the
number of seats (the fair share). Each seat is tested among the decisive games against
1 / players with an exact binomial test, Holm-adjusted across seats, and flagged at 99%.
Team games (seats hold different roles) have no fair share per seat: their seats are not
tested, and the verdict reads the team win rates instead.

The balance index is 1 - (highest seat win rate - lowest). Its interval:
- at the boundary (a chi-square test of equal decisive shares does not reject at 5%), the
  interval reaches a perfectly balanced 1 (one-sided);
- otherwise its top end is the lower bound of the largest gap, taken over every pair of
  seats whose difference is within one standard error of the largest (Bonferroni across
  those pairs, so near-ties do not make it too optimistic);
- its low end is the largest pairwise difference plus z standard errors (delta method).
The coverage tests check it holds about 95% for fair, near-tied and clearly unfair games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
from scipy import special

from reports.stats import CONFIDENCE, Estimate, binomial_p, holm, rate, wilson_bounds, z_value

FLAG_LEVEL = 0.01  # a seat is flagged when it differs from fair at the 99% level
FLAG_WORDS = "differs from fair (99%)"
NEAR_TIE = 1.0  # standard errors within which a pair counts as tied with the largest gap


@dataclass(frozen=True)
class SeatRow:
    """One seat: its outright win rate, the fair share, the gap and the test."""

    seat: int  # from 1
    wins: int
    rate: Estimate
    fair: float
    gap: Estimate  # rate - fair share, with its interval
    p_value: float
    p_adjusted: float
    flagged: bool


@dataclass(frozen=True)
class Fairness:
    """Every seat's fairness figures and the balance index of one run."""

    games: int
    decisive: int
    players: int
    team: bool
    fair_share: float  # NaN in team games
    seats: list[SeatRow]
    balance: Estimate

    @property
    def flagged(self) -> list[int]:
        """Seats (from 1) that differ from the fair share at the 99% level."""
        return [r.seat for r in self.seats if r.flagged]

    def largest_gap(self) -> SeatRow | None:
        """The seat furthest from the fair share (None in team games)."""
        rows = [r for r in self.seats if not math.isnan(r.gap.value)]
        return max(rows, key=lambda r: abs(r.gap.value)) if rows else None

    def as_json(self) -> dict[str, Any]:
        """Structured fields for --json (undefined values stay NaN; the JSON writer turns
        them into null)."""
        return {
            "fair_share": self.fair_share, "flagged_seats": self.flagged,
            "team_game": self.team, "games": self.games, "decisive_games": self.decisive,
            "balance": {"value": self.balance.value, "ci_low": self.balance.lo,
                        "ci_high": self.balance.hi},
            "seats": [{"seat": r.seat, "wins": r.wins, "win_rate": r.rate.value,
                       "ci_low": r.rate.lo, "ci_high": r.rate.hi, "gap": r.gap.value,
                       "gap_ci_low": r.gap.lo, "gap_ci_high": r.gap.hi,
                       "p_value": r.p_value, "p_adjusted": r.p_adjusted,
                       "flagged": r.flagged} for r in self.seats],
        }


def seat_fairness(seat_wins: np.ndarray, games: int, team: bool = False,
                  confidence: float = CONFIDENCE) -> Fairness:
    """Fairness of the seats from their outright wins in `games` games."""
    wins = [int(w) for w in seat_wins]
    P = len(wins)
    decisive = sum(wins)
    nan = Estimate(math.nan, math.nan, math.nan, games)
    fair = decisive / (P * games) if games and P and not team else math.nan
    if team or decisive == 0 or P < 2:
        raw = [math.nan] * P
    else:
        raw = [binomial_p(w, decisive, 1 / P) for w in wins]
    adjusted = holm(raw)
    rows = []
    f = decisive / games if games else math.nan
    for s, w in enumerate(wins):
        est = rate(w, games, confidence)
        if math.isnan(raw[s]):
            gap = nan
        else:
            lo, hi = wilson_bounds(w, decisive, confidence)
            gap = Estimate(est.value - fair, min(est.value - fair, (lo - 1 / P) * f),
                           max(est.value - fair, (hi - 1 / P) * f), games)
        rows.append(SeatRow(s + 1, w, est, fair, gap, raw[s], adjusted[s],
                            bool(adjusted[s] < FLAG_LEVEL)))
    return Fairness(games, decisive, P, team, fair, rows,
                    balance_index(np.array(wins), games, confidence))


def balance_index(seat_wins: np.ndarray, games: int,
                  confidence: float = CONFIDENCE) -> Estimate:
    """1 - (highest seat win rate - lowest) with the interval of the module docstring."""
    P = len(seat_wins)
    if games <= 0 or P < 2:
        return Estimate(math.nan, math.nan, math.nan, games)
    alpha = 1 - confidence
    p = np.asarray(seat_wins, float) / games
    d = p[:, None] - p[None, :]
    se = np.sqrt(np.maximum(p[:, None] + p[None, :] - d * d, 0.0) / games)
    gap = float(d.max())
    i, j = np.unravel_index(int(np.argmax(d)), d.shape)
    upper = gap + z_value(confidence) * float(se[i, j])
    decisive = float(np.sum(seat_wins))
    if decisive > 0:
        expected = decisive / P
        chi2 = float(((np.asarray(seat_wins, float) - expected) ** 2 / expected).sum())
        homogeneous = float(special.chdtrc(P - 1, chi2)) >= alpha
    else:
        homogeneous = True
    if homogeneous:
        lower = 0.0
    else:
        off = ~np.eye(P, dtype=bool)
        near = off & (d >= gap - NEAR_TIE * np.maximum(se, 1e-300))
        c = NormalDist().inv_cdf(1 - alpha / 2 / int(near.sum()))
        lower = max(0.0, float((d - c * se)[near].max()))
    value = 1 - gap
    return Estimate(value, max(0.0, min(value, 1 - upper)), min(1.0, max(value, 1 - lower)),
                    games)
