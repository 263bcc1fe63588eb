"""The report sections every game shares, written once: the seat table (fairness from
reports.fairness), the length table, their charts, findings and headline rows. A game's
own report module keeps only what is its own."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

from reports import charts as C
from reports.fairness import FLAG_WORDS, Fairness
from reports.stats import Estimate, distribution, rate
from reports.summary import Chart, LongTable
from reports.units import (
    difference_interval_text,
    number_ends,
    p_text,
    percent_ends,
    points_text,
)


def pct(x: float | None) -> str:
    """A share as a percentage for prose ('n/a' when undefined)."""
    return "n/a" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


# An interval's ends as percentages, with as many decimals (1 to 3) as it takes to tell
# them apart: 'draws 0.0% - 0.0%' from 10,000 games reads 0.000% - 0.038%.
pct_ends = percent_ends


def ci_text(e: Estimate, of: str = "", share: Callable[[float], str] = pct) -> str:
    """A share with its 95% interval, for prose; with `of` (a plural noun) also its n:
    '30.4% (95% CI 30.1%-30.8%, n = 68,120 rounds)'; `share` writes the value."""
    lo, hi = pct_ends(e.lo, e.hi)
    return f"{share(e.value)} (95% CI {lo}-{hi}{n_text(e.n, of)})"


def n_text(n: int, of: str) -> str:
    """', n = 4,000 games' (empty without a noun)."""
    return f", n = {n:,} {of}" if of else ""


def pts_text(value: float, lo: float, hi: float, n: int = 0, of: str = "") -> str:
    """A difference of shares in points with its 95% interval: '+5.4 pts (95% CI +5.1 to
    +5.8 pts, n = 68,120 rounds)'."""
    return (f"{points_text(value)} (95% CI "
            f"{difference_interval_text(lo, hi, 'rate')}{n_text(n, of)})")


def mean_text(e: Estimate, digits: int = 2, of: str = "") -> str:
    """A mean with its 95% interval: '23.81 (95% CI 23.76-23.86, n = 4,000 games)'."""
    lo, hi = number_ends(e.lo, e.hi, digits)
    return f"{e.value:.{digits}f} (95% CI {lo}-{hi}{n_text(e.n, of)})"


def headline(figure: str, value: float, lo: float, hi: float, note: str = "",
             digits: int | None = None) -> dict[str, str]:
    """One row of a report's headline table: a share as a percentage, or a number with
    `digits` decimals."""
    def fmt(x: float) -> str:
        return pct(x) if digits is None else f"{x:.{digits}f}"
    ends = pct_ends(lo, hi) if digits is None else (fmt(lo), fmt(hi))
    return {"figure": figure, "value": fmt(value), "95% interval": f"{ends[0]} - {ends[1]}",
            "note": note}


def length_headline(row: dict, mean: str, figure: str, digits: int = 1) -> dict[str, str]:
    """The headline row of a length table's row: its mean, interval and sd."""
    return headline(figure, row[mean], row["ci_low"], row["ci_high"],
                    f"sd {row['sd']:.{digits}f}", digits)


def seat_table(fair: Fairness, seats: list[str], long: LongTable,
               extra: dict[str, list] | None = None) -> pl.DataFrame:
    """One row per seat: wins, win rate with its Wilson interval, the fair share, the gap
    with its interval, the exact test (Holm-adjusted) and its 99% flag, plus `extra`
    columns of the game's own (one value per seat)."""
    rows = []
    for r in fair.seats:
        flag = FLAG_WORDS if r.flagged else ""
        long.add("seats", "win_rate", f"seat {r.seat}", r.rate, flag)
        row = {"seat": r.seat, "policy": seats[r.seat - 1], "wins": r.wins,
               "games": fair.games, "win_rate": r.rate.value, "ci_low": r.rate.lo,
               "ci_high": r.rate.hi, "fair": fair.fair_share, "gap": r.gap.value,
               "gap_ci_low": r.gap.lo, "gap_ci_high": r.gap.hi, "p_value": r.p_value,
               "p_adjusted": r.p_adjusted, "flag": flag}
        for name, values in (extra or {}).items():
            row[name] = values[r.seat - 1]
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


def fair_note(fair: Fairness) -> str:
    """The fair share for a table note: 'fair 25.0%', or, when some games have no outright
    winner, 'fair 23.8% (outright wins only)'."""
    short = fair.players > 0 and fair.fair_share < 1 / fair.players - 1e-12
    return f"fair {pct(fair.fair_share)}" + (" (outright wins only)" if short else "")


def fair_words(fair: Fairness) -> str:
    """The fair share in a sentence, saying why it is below 1/P when it is."""
    share = pct(fair.fair_share)
    if fair.players and fair.games and fair.fair_share < 1 / fair.players - 1e-12:
        won = ci_text(rate(fair.decisive, fair.games))
        share += (f" (1/{fair.players} of the {won} of games with an outright winner: "
                  f"shared or unfinished games count for no seat, so it is below "
                  f"{pct(1 / fair.players)})")
    return share


def seat_findings(fair: Fairness, what: str = "win rate") -> list[str]:
    """Plain-language sentences on the seats (none for a team game)."""
    if fair.team or fair.decisive == 0:
        return []
    share = fair_words(fair)
    if not fair.flagged:
        return [f"No seat's {what} differs from the fair share of {share} at the 99% level "
                f"(exact binomial tests, Holm-adjusted across seats, n = {fair.games:,} "
                f"games); balance {fair.balance.value:.3f} (95% CI {fair.balance.lo:.3f}-"
                f"{fair.balance.hi:.3f})."]
    out = []
    for r in fair.seats:
        if r.flagged:
            out.append(f"Seat {r.seat}'s {what} is {ci_text(r.rate, 'games')} against a fair "
                       f"share of {share}: "
                       f"{pts_text(r.gap.value, r.gap.lo, r.gap.hi)} (adjusted p "
                       f"{p_words(r.p_adjusted)}).")
    return out


def p_words(p: float) -> str:
    """'= 0.0123' or '< 0.0001', after a p in prose."""
    text = p_text(p)
    return text if text.startswith("<") else f"= {text}"


def seat_chart(fair: Fairness, title: str) -> Chart:
    """The seats against their fair share, in points, with 95% whiskers and 99% flags."""
    caption = ("each seat's win rate (its team's; team games have no fair share per seat)"
               if fair.team else "each seat's difference from its fair share (points)")
    return Chart("seats", f"{title}: {caption}", lambda path: C.seat_gaps(path, fair, title=title))


def length_table(series: dict[str, np.ndarray], unit: str, long: LongTable) -> pl.DataFrame:
    """Length per phase (or kind): mean with its interval, sd, quantiles, min, max."""
    rows = []
    for label, hist in series.items():
        d = distribution(hist)
        long.add("length", f"{unit}_mean", label, d.mean)
        rows.append({"phase": label, **d.columns(mean=f"mean_{unit}")})
    return pl.DataFrame(rows)


def length_chart(series: dict[str, np.ndarray], title: str, unit: str) -> Chart:
    """Step histograms of the length distributions."""
    def draw(path: Path) -> None:
        C.histograms(path, series, title=title, xlabel=unit)
    return Chart("length", f"{title} ({unit})", draw)
