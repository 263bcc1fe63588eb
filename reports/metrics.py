"""The metric catalogue every game shares: computed from its core counts, each metric with
its 95% interval, n, and one line saying what it means to a designer."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from reports.fairness import FLAG_WORDS, seat_fairness
from reports.stats import CONFIDENCE, Estimate, bounded_mean, distribution, rate, z_value

DOCS = {
    "win_rate.seat<k>": "Chance that the player in seat k wins outright; a fair game gives "
                        "every seat the same.",
    "edge.seat<k>": "Seat k's win rate minus its fair share, in points: the figure to "
                    "compare across player counts, whose fair shares differ.",
    "balance": "1 minus the largest gap between two seats' win rates: 1 means every seat "
               "wins equally often.",
    "shared_rate": "Chance that a game ends in a draw or a shared victory.",
    "no_winner_rate": "Chance that a game ends with nobody winning (counted apart from "
                      "shared victories).",
    "completion": "Share of games that ended by the rules rather than a simulation safety "
                  "cap; below 1 means some games may never end.",
    "duration.mean": "Average game length (in the game's unit: rounds or turns).",
    "duration.sd": "Spread of game length: how much one game differs from the next.",
    "duration.p5": "Short games: 5% of games are at most about this long (a mid-quantile: "
                   "whole-number lengths interpolated).",
    "duration.p50": "Median game length (a mid-quantile: whole-number lengths "
                    "interpolated).",
    "duration.p95": "Long games: 95% of games are at most about this long (a mid-quantile: "
                    "whole-number lengths interpolated).",
    "margin.mean": "Winner's average lead in score (games with scores only).",
}
HEADLINE_PREFIX = "win_rate.seat"


@dataclass(frozen=True)
class Core:
    """The figures every game reports the same way (a game's core_stats()).

    seat_wins[s]: games seat s won outright; shared: games with a shared victory or draw;
    no_winner: games nobody won (None for games that always have a winner); completed:
    games that ended by the rules (not a safety cap); length: histogram of game length
    (index = length in `length_unit`, last bin = that or more); margin: optional histogram
    of the winner's score margin (index = margin).
    """

    games: int
    seat_wins: np.ndarray
    shared: int
    completed: int
    length: np.ndarray
    length_unit: str
    margin: np.ndarray | None = None
    no_winner: int | None = None  # games nobody won (games that can end so report it)


def _quantile_ci(hist: np.ndarray, q: float, confidence: float) -> Estimate:
    """A quantile of a histogram of whole numbers, as a mid-quantile: the inverse of the
    mid-distribution function G(v) = P(X < v) + P(X = v) / 2, linear between the values
    seen (Parzen 2004), so that it moves smoothly with the data instead of jumping from
    one whole number to the next. Its interval inverts a normal interval for G at the
    estimate (G's estimate there is a mean of values in {0, 1/2, 1} and their blends,
    whose variance is estimated from the histogram). It has zero width only when the
    quantile lies at the shortest or longest length seen, well clear of the next one."""
    h = np.asarray(hist, dtype=np.float64)
    n = int(h.sum())
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    seen = np.nonzero(h)[0]
    p = h[seen] / n
    below = np.cumsum(p) - p
    g = below + 0.5 * p
    xs = seen.astype(np.float64)

    def at(level: float) -> float:
        return float(np.interp(level, g, xs))

    i = int(np.clip(np.searchsorted(g, q, side="right") - 1, 0, len(seen) - 1))
    if i + 1 < len(seen):
        t = min(max((q - g[i]) / (g[i + 1] - g[i]), 0.0), 1.0)
        mean_sq = below[i] + p[i] * (0.5 + 0.5 * t) ** 2 + p[i + 1] * (0.5 * t) ** 2
    else:
        mean_sq = below[i] + 0.25 * p[i]
    var = max(mean_sq - q * q, 1.0 / (n * n))
    half = z_value(confidence) * math.sqrt(var / n)
    return Estimate(at(q), at(q - half), at(q + half), n)


def _sd_ci(hist: np.ndarray, confidence: float) -> Estimate:
    """Standard deviation with a large-sample interval (delta method on the variance)."""
    h = np.asarray(hist, float)
    n = h.sum()
    x = np.arange(len(h), dtype=float)
    if n < 2:
        return Estimate(math.nan, math.nan, math.nan, int(n))
    mean = (h * x).sum() / n
    m2 = (h * (x - mean) ** 2).sum() / n
    m4 = (h * (x - mean) ** 4).sum() / n
    var = m2 * n / (n - 1)
    sd = math.sqrt(var)
    if sd == 0:
        return Estimate(0.0, 0.0, 0.0, int(n))
    se_var = math.sqrt(max(m4 - m2 * m2, 0.0) / n)
    half = z_value(confidence) * se_var / (2 * sd)
    return Estimate(sd, max(0.0, sd - half), sd + half, int(n))


def catalogue(core: Core, own: list[tuple[str, Estimate, str]] | None = None,
              confidence: float = CONFIDENCE, seat_win: str = "wins outright",
              team: bool = False) -> pl.DataFrame:
    """Every shared metric (and the game's own) as rows: metric, value, ci_low, ci_high, n,
    unit (reports.units; a game's own metric is a 'share' unless its tuple names a fourth
    element, its unit), meaning, flag; intervals at `confidence` (the game's own metrics,
    given at 95%, are rescaled as normal intervals). Seat rows are flagged by
    reports.fairness."""
    rows: list[dict] = []

    def add(name: str, e: Estimate, unit: str, doc: str, flag: str = "") -> None:
        rows.append({"metric": name, "value": e.value, "ci_low": e.lo, "ci_high": e.hi,
                     "n": e.n, "unit": unit, "meaning": doc, "flag": flag})

    fair = seat_fairness(core.seat_wins, core.games, team, confidence)
    for row in fair.seats:
        add(f"win_rate.seat{row.seat}", row.rate, "rate",
            DOCS["win_rate.seat<k>"].replace("seat k", f"seat {row.seat}").replace(
                "wins outright", seat_win), FLAG_WORDS if row.flagged else "")
    if not team:
        for row in fair.seats:
            add(f"edge.seat{row.seat}", row.gap, "difference",
                DOCS["edge.seat<k>"].replace("Seat k", f"Seat {row.seat}"),
                FLAG_WORDS if row.flagged else "")
    add("balance", fair.balance, "index", DOCS["balance"])
    add("shared_rate", rate(core.shared, core.games, confidence), "rate", DOCS["shared_rate"])
    if core.no_winner is not None:
        add("no_winner_rate", rate(core.no_winner, core.games, confidence), "rate",
            DOCS["no_winner_rate"])
    add("completion", rate(core.completed, core.games, confidence), "rate",
        DOCS["completion"])
    d = distribution(core.length, confidence)
    add("duration.mean", d.mean, core.length_unit, DOCS["duration.mean"])
    add("duration.sd", _sd_ci(core.length, confidence), core.length_unit, DOCS["duration.sd"])
    if d.n:
        for q in (5, 50, 95):
            add(f"duration.p{q}", _quantile_ci(core.length, q / 100, confidence),
                core.length_unit, DOCS[f"duration.p{q}"])
    if core.margin is not None and int(core.margin.sum()):
        add("margin.mean", distribution(core.margin, confidence).mean, "points",
            DOCS["margin.mean"])
    scale = z_value(confidence) / z_value(CONFIDENCE)
    for name, e, doc, *unit in own or []:
        half_lo, half_hi = (e.value - e.lo) * scale, (e.hi - e.value) * scale
        add(name, Estimate(e.value, e.value - half_lo, e.value + half_hi, e.n),
            unit[0] if unit else "share", doc)
    return pl.DataFrame(rows, schema={"metric": pl.Utf8, "value": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "n": pl.Int64, "unit": pl.Utf8, "meaning": pl.Utf8,
                                      "flag": pl.Utf8})


def metric_names(core: Core, own_names: tuple[str, ...] = (), team: bool = False) -> list[str]:
    """Every metric the catalogue reports for a game with this core (its seats, whether it
    has score margins, whether seats hold team roles) and these own metrics, without
    computing any of them."""
    names = [f"win_rate.seat{s + 1}" for s in range(len(core.seat_wins))]
    if not team:
        names += [f"edge.seat{s + 1}" for s in range(len(core.seat_wins))]
    names += ["balance", "shared_rate"]
    if core.no_winner is not None:
        names.append("no_winner_rate")
    names += ["completion", "duration.mean", "duration.sd", "duration.p5", "duration.p50",
              "duration.p95"]
    if core.margin is not None:
        names.append("margin.mean")
    return names + list(own_names)


def headline_half_width(core: Core) -> float:
    """Largest 95% half-width among the seat win rates (the --target-ci stopping rule)."""
    widths = [(e.hi - e.lo) / 2 for e in (rate(w, core.games) for w in core.seat_wins)]
    return max(widths) if widths else math.inf


def mirror_table(seat_counts: np.ndarray, player_counts: np.ndarray,
                 seats: list[str]) -> pl.DataFrame:
    """Seat advantage from mirrored play (each deal played once per seat rotation).

    seat_counts[s, k]: deals in which seat s won k of the P rotations. The paired estimate
    is the mean over deals of each deal's share of rotations won, with its interval from
    the spread of those shares (reports.stats.bounded_mean: a Wilson interval at the
    effective sample size, so pairing narrows it when the rotations of a deal agree);
    se_unpaired is what as many independent games would give; variance_reduction =
    (se_unpaired / se_paired)^2.
    """
    P = seat_counts.shape[0]
    rows = []
    for kind, counts, labels in (("seat", seat_counts, [f"seat {s + 1}" for s in range(P)]),
                                 ("player", player_counts,
                                  [f"player {j + 1} ({seats[j]})" for j in range(P)])):
        for s in range(P):
            c = counts[s].astype(float)
            n = c.sum()
            share = np.arange(P + 1, dtype=float) / P
            e = bounded_mean(float((c * share).sum()), float((c * share ** 2).sum()), int(n))
            mean = e.value
            var = max(float((c * share ** 2).sum()) / n - mean * mean, 0.0) * n / max(n - 1, 1)
            se_paired = math.sqrt(var / n)
            se_unpaired = math.sqrt(mean * (1 - mean) / (n * P))
            rows.append({
                "kind": kind, "who": labels[s], "deals": int(n), "games": int(n * P),
                "win_rate": mean, "ci_low": e.lo, "ci_high": e.hi, "advantage": mean - 1 / P,
                "se_paired": se_paired, "se_unpaired": se_unpaired,
                "variance_reduction": (se_unpaired / se_paired) ** 2 if se_paired > 0
                else math.nan,
            })
    return pl.DataFrame(rows)
