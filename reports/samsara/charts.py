"""Samsara report charts."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reports import charts as C
from reports import sections as SEC
from reports.summary import Chart


def chart_list(s: dict, seats: list[str], t: dict, fair, lengths: dict) -> list[Chart]:
    lo = t["loser_progress"]

    def loser(path: Path) -> None:
        v = lo["share"].to_numpy()
        C.bars_with_ci(path, [str(g) for g in lo["loser_goals"]], v,
                       np.minimum(lo["ci_low"].to_numpy(), v),
                       np.maximum(lo["ci_high"].to_numpy(), v),
                       title="How far the loser's scoring marble got",
                       ylabel="share of decided games (%)",
                       xlabel="goals on the loser's scoring track when the game was decided")

    def points(path: Path) -> None:
        C.histograms(path, {f"seat {k + 1} ({seats[k]})": s["points"][k] for k in range(2)},
                     title="Match points", xlabel="points in a match")

    out = [SEC.seat_chart(fair, f"Seat win rates ({'matches' if s['match'] else 'games'})"),
           SEC.length_chart(lengths, "Game length", "turns")]
    if lo["n"].sum():
        out.append(Chart("loser_progress", "Loser's goals when the game was decided, 95% "
                         "intervals", loser))
    if s["match"]:
        out.append(Chart("match_points", "Match point distribution per seat", points))
    return out
