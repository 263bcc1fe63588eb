"""Samurai: The Card Game report tables: markers, cards, outcomes and other
figures."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from reports.stats import Estimate, mean_from_moments, rate, ratio_rate
from reports.summary import LongTable

WHY = {"markers": "a marker supply ran out", "villages": "the last village was placed",
       "cards": "every card was played", "blocked": "no legal cell was left"}


MIN_CONTESTS = 200  # card kinds with fewer contests are left out of findings


# per kind of card: (column prefix, successes, observations), the rows of kind_sq (KindRatio)
CARD_RATES = (("contest_win", "contests_won", "contests"),
              ("touched_marker", "touched_won", "touched_markers"),
              ("plays_by_winner", "plays_by_winner", "played"))


def clustered(y: float, x: float, sq: np.ndarray, games: int) -> Estimate:
    """A rate counted several times per game, with its clustered interval (sq: the
    per-game sums y^2, x^2, x*y)."""
    return ratio_rate(float(y), float(x), float(sq[0]), float(sq[1]), float(sq[2]), games)


def share_rows(long: LongTable, kind: str, counts: dict[str, int], games: int) -> list:
    """One row per case: games and share of games with its Wilson interval."""
    rows = []
    for name, k in counts.items():
        e = rate(k, games)
        long.add("outcomes", kind, name, e)
        rows.append({"kind": kind, "case": name, "games": int(k), "share": e.value,
                     "ci_low": e.lo, "ci_high": e.hi})
    return rows


def marker_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Markers per game by seat and shape (mean with interval), and how often each seat
    dominates 0-3 shapes."""
    games = s["games"]
    rows = []
    for q in range(s["players"]):
        row: dict[str, Any] = {"seat": q + 1}
        for i, shape in enumerate(s["shapes"]):
            m = mean_from_moments(float(s["markers_sum"][q, i]), float(s["markers_sq"][q, i]),
                                  games)
            long.add("markers", f"mean_{shape}", f"seat {q + 1}", m)
            row.update({f"{shape}_mean": m.value, f"{shape}_ci_low": m.lo,
                        f"{shape}_ci_high": m.hi})
        row["total_mean"] = float(s["markers_sum"][q].sum()) / games if games else np.nan
        for k in range(4):
            e = rate(s["dominated"][q, k], games)
            long.add("markers", f"dominates_{k}_shapes", f"seat {q + 1}", e)
            row[f"dominates_{k}"] = e.value
        rows.append(row)
    return pl.DataFrame(rows)


def card_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Per kind of card: its CARD_RATES with intervals clustered by game."""
    k, games = s["kinds"], s["games"]
    rows = []
    for i, name in enumerate(k["card"]):
        row = {"card": name, "symbol": k["symbol"][i], "influence": int(k["influence"][i]),
               "assumed": bool(k["assumed"][i]), "played": int(k["played"][i]),
               "contests": int(k["contests"][i]), "touched_markers": int(k["touched_markers"][i])}
        for r, (tag, y, x) in enumerate(CARD_RATES):
            e = clustered(k[y][i], k[x][i], s["kind_sq"][i, r], games)
            long.add("cards", f"{tag}_share", name, e)
            row.update({f"{tag}_share": e.value, f"{tag}_ci_low": e.lo, f"{tag}_ci_high": e.hi})
        rows.append(row)
    return pl.DataFrame(rows)


def other_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Ties per contest and cells opened per play (clustered by game), games needing
    substitutes, and per-game counts."""
    m, games, sq = s["misc"], s["games"], s["misc_sq"]
    items = [
        ("symbol scorings tied (marker to nobody)",
         clustered(m["tied_contests"], m["contests"], sq[0], games)),
        ("games in which substitute markers were needed",
         rate(m["games_with_substitutes"], games)),
        *((f"plays that opened {k} cell{'s' * (k > 1)}",
           clustered(m[f"turns_opening_{k}"], m["turns"], sq[k], games)) for k in (1, 2, 3)),
    ]
    for label, e in items:
        long.add("other", label, "", e)
    rows = [{"figure": k, "value": e.value, "ci_low": e.lo, "ci_high": e.hi, "n": e.n}
            for k, e in items]
    for key in ("substitute_markers", "tied_markers_discarded", "villages_chained",
                "openings_unfilled", "scored_outside_heatmap"):
        rows.append({"figure": f"{key.replace('_', ' ')} per game", "ci_low": None,
                     "value": m[key] / games if games else np.nan, "ci_high": None, "n": games})
    return pl.DataFrame(rows, schema={"figure": pl.Utf8, "value": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "n": pl.Int64})
