"""Samurai: The Card Game report charts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from reports import charts as C
from reports import sections as S
from reports.summary import Chart


def heatmap(path: Path, heat: np.ndarray, *, title: str) -> None:
    """Share of the villages scored per cell around the first village (blank: never)."""
    heat = np.asarray(heat, float)
    r = (heat.shape[0] - 1) // 2
    total = heat.sum()
    data = np.where(heat > 0, heat / total * 100 if total else heat, np.nan)
    fig = Figure(figsize=(5.6, 4.8), dpi=100)
    ax = fig.add_subplot()
    im = ax.imshow(data, origin="lower", cmap="viridis", extent=(-r - .5, r + .5, -r - .5, r + .5))
    fig.colorbar(im, ax=ax, label="% of villages scored")
    ax.plot([0], [0], marker="+", color="red", ms=10)
    ax.set(title=title, xlabel="x (first village at 0, 0)", ylabel="y")
    FigureCanvasAgg(fig).print_png(path)


def chart_list(s: dict, fair, t: dict[str, pl.DataFrame], series: dict) -> list[Chart]:
    en = t["outcomes"].filter(pl.col("kind") == "end reason")
    cards = t["cards"].filter(pl.col("contests") > 0)
    mk = t["markers"]

    def markers(path: Path) -> None:
        groups = {f"seat {r['seat']}": tuple([r[f"{sh}_{c}"] for sh in s["shapes"]]
                                             for c in ("mean", "ci_low", "ci_high"))
                  for r in mk.iter_rows(named=True)}
        labels = [f"{a} ({b})" for a, b in zip(s["shapes"], s["shape_markers"], strict=True)]
        C.grouped_bars_with_ci(path, labels, groups, title="Markers per game by seat",
                               ylabel="markers (mean)", percent=False)

    def card_value(path: Path) -> None:
        C.bars_with_ci(path, cards["card"].to_list(), cards["contest_win_share"],
                       cards["contest_win_ci_low"], cards["contest_win_ci_high"],
                       title="Scorings a card counted in that its owner won",
                       ylabel="marker taken (%)")

    out = [S.seat_chart(fair, "Seat outright win rates"),
           Chart("end_reasons", "End reasons with 95% intervals", lambda path: C.bars_with_ci(
               path, en["case"].to_list(), en["share"], en["ci_low"], en["ci_high"],
               title="End reasons (several can hold at once)", ylabel="games (%)")),
           Chart("markers", "Markers per game by seat and shape with 95% intervals", markers),
           S.length_chart(series, "Game length: turns, villages placed and scored",
                          "count per game")]
    if cards.height:
        out.append(Chart("card_value", "Each kind of card: share of the scorings it counted "
                         "in won by its owner (95% intervals clustered by game)", card_value))
    if np.asarray(s["heat"]).sum() > 0:
        out.append(Chart("village_heatmap", "Where villages are scored (first village at the "
                         "centre)", lambda path: heatmap(path, s["heat"], title="Where "
                                                         "villages are scored")))
    return out
