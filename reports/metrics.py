"""The metric catalogue every game shares: computed from its core counts, each metric with
its 95% interval, n, and one line saying what it means to a designer."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from reports.stats import CONFIDENCE, Estimate, distribution, rate, z_value

DOCS = {
    "win_rate.seat<k>": "Chance that the player in seat k wins outright; a fair game gives "
                        "every seat the same.",
    "balance": "1 minus the largest gap between two seats' win rates: 1 means every seat "
               "wins equally often.",
    "shared_rate": "Chance that a game ends in a draw or a shared victory.",
    "completion": "Share of games that ended by the rules rather than a simulation safety "
                  "cap; below 1 means some games may never end.",
    "duration.mean": "Average game length (in the game's unit: rounds or turns).",
    "duration.sd": "Spread of game length: how much one game differs from the next.",
    "duration.p5": "Short games: 5% of games are at most this long.",
    "duration.p50": "Median game length.",
    "duration.p95": "Long games: 95% of games are at most this long.",
    "margin.mean": "Winner's average lead in score (games with scores only).",
}
HEADLINE_PREFIX = "win_rate.seat"


@dataclass(frozen=True)
class Core:
    """The figures every game reports the same way (a game's core_stats()).

    seat_wins[s]: games seat s won outright; shared: games with a shared victory or draw
    (nobody won outright); completed: games that ended by the rules (not a safety cap);
    length: histogram of game length (index = length in `length_unit`, last bin = that or
    more); margin: optional histogram of the winner's score margin (index = margin).
    """

    games: int
    seat_wins: np.ndarray
    shared: int
    completed: int
    length: np.ndarray
    length_unit: str
    margin: np.ndarray | None = None


def _quantile_ci(hist: np.ndarray, q: float, confidence: float) -> Estimate:
    """A quantile of a histogram with its distribution-free interval (ranks)."""
    n = int(hist.sum())
    cum = np.cumsum(hist)
    z = z_value(confidence)
    half = z * math.sqrt(n * q * (1 - q))
    lo_rank = max(1, math.floor(n * q - half))
    hi_rank = min(n, math.ceil(n * q + half) + 1)

    def at(rank: int) -> float:
        return float(np.searchsorted(cum, rank))

    return Estimate(at(max(1, math.ceil(n * q))), at(lo_rank), at(hi_rank), n)


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


def balance(core: Core, confidence: float = CONFIDENCE) -> Estimate:
    """1 - (highest seat win rate - lowest), interval from the multinomial difference."""
    n = core.games
    if n == 0 or len(core.seat_wins) < 2:
        return Estimate(math.nan, math.nan, math.nan, n)
    p = core.seat_wins / n
    i, j = int(np.argmax(p)), int(np.argmin(p))
    gap = p[i] - p[j]
    se = math.sqrt(max(p[i] + p[j] - gap * gap, 0.0) / n)
    half = z_value(confidence) * se
    return Estimate(1 - gap, max(0.0, 1 - gap - half), min(1.0, 1 - gap + half), n)


def catalogue(core: Core, own: list[tuple[str, Estimate, str]] | None = None,
              confidence: float = CONFIDENCE, seat_win: str = "wins outright") -> pl.DataFrame:
    """Every shared metric (and the game's own) as rows: metric, value, ci_low, ci_high, n,
    unit, meaning; intervals at `confidence` (the game's own metrics, given at 95%, are
    rescaled as normal intervals)."""
    rows: list[dict] = []

    def add(name: str, e: Estimate, unit: str, doc: str) -> None:
        rows.append({"metric": name, "value": e.value, "ci_low": e.lo, "ci_high": e.hi,
                     "n": e.n, "unit": unit, "meaning": doc})

    for s, w in enumerate(core.seat_wins):
        add(f"win_rate.seat{s + 1}", rate(w, core.games, confidence), "rate",
            DOCS["win_rate.seat<k>"].replace("seat k", f"seat {s + 1}").replace(
                "wins outright", seat_win))
    add("balance", balance(core, confidence), "index", DOCS["balance"])
    add("shared_rate", rate(core.shared, core.games, confidence), "rate", DOCS["shared_rate"])
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
    for name, e, doc in own or []:
        half_lo, half_hi = (e.value - e.lo) * scale, (e.hi - e.value) * scale
        add(name, Estimate(e.value, e.value - half_lo, e.value + half_hi, e.n), "", doc)
    return pl.DataFrame(rows, schema={"metric": pl.Utf8, "value": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "n": pl.Int64, "unit": pl.Utf8, "meaning": pl.Utf8})


def headline_half_width(core: Core) -> float:
    """Largest 95% half-width among the seat win rates (the --target-ci stopping rule)."""
    widths = [(e.hi - e.lo) / 2 for e in (rate(w, core.games) for w in core.seat_wins)]
    return max(widths) if widths else math.inf


def mirror_table(seat_counts: np.ndarray, player_counts: np.ndarray,
                 seats: list[str]) -> pl.DataFrame:
    """Seat advantage from mirrored play (each deal played once per seat rotation).

    seat_counts[s, k]: deals in which seat s won k of the P rotations. The paired estimate
    averages each deal's rotations first; the unpaired interval treats the same games as
    independent; variance_reduction = (unpaired se / paired se)^2.
    """
    P = seat_counts.shape[0]
    z = z_value(CONFIDENCE)
    rows = []
    for kind, counts, labels in (("seat", seat_counts, [f"seat {s + 1}" for s in range(P)]),
                                 ("player", player_counts,
                                  [f"player {j + 1} ({seats[j]})" for j in range(P)])):
        for s in range(P):
            c = counts[s].astype(float)
            n = c.sum()
            k = np.arange(P + 1, dtype=float)
            mean = (c * k).sum() / (n * P)
            second = (c * (k / P) ** 2).sum() / n
            var = max(second - mean * mean, 0.0) * n / max(n - 1, 1)
            se_paired = math.sqrt(var / n)
            se_unpaired = math.sqrt(mean * (1 - mean) / (n * P))
            # never narrower than a Wilson interval over the games (it matters when every
            # deal ends alike and the paired spread is zero)
            w = rate(round(mean * n * P), int(n * P))
            rows.append({
                "kind": kind, "who": labels[s], "deals": int(n), "games": int(n * P),
                "win_rate": mean, "ci_low": min(mean - z * se_paired, w.lo),
                "ci_high": max(mean + z * se_paired, w.hi), "advantage": mean - 1 / P,
                "se_paired": se_paired, "se_unpaired": se_unpaired,
                "variance_reduction": (se_unpaired / se_paired) ** 2 if se_paired > 0
                else math.nan,
            })
    return pl.DataFrame(rows)
