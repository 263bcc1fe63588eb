"""Samurai & Katana report charts."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from reports import charts as C
from reports import sections as S
from reports.samurai_katana.tables import MIN_CLANS, TERRAINS, terrain_label
from reports.summary import Chart


def _heat(ax, matrix: np.ndarray, rows: list[int], cols: list[int], title: str) -> None:
    """One attacker-by-defender heatmap of win chances (in %), each cell labelled."""
    im = ax.imshow(matrix * 100, origin="lower", cmap="RdYlGn", vmin=0, vmax=100,
                   aspect="auto")
    ax.set_xticks(range(len(cols)), [str(c) for c in cols])
    ax.set_yticks(range(len(rows)), [str(r) for r in rows])
    ax.set_xlabel("defending samurai")
    ax.set_ylabel("attacking samurai")
    ax.set_title(title, fontsize=9)
    for i in range(len(rows)):
        for j in range(len(cols)):
            v = matrix[i, j]
            if not math.isnan(v):
                ax.text(j, i, f"{100 * v:.0f}", ha="center", va="center", fontsize=6.5)
    return im


def odds_heatmap(path: Path, frame: pl.DataFrame, castle: bool, mountain: bool) -> None:
    """Heatmap of the attacker's win chance for one terrain case of an odds table (rows as
    written by `simcli odds --table`), with the sampling precision in the title."""
    part = frame.filter((pl.col("castle") == castle) & (pl.col("mountain") == mountain))
    rows = sorted(set(part["attacker"].to_list()))
    cols = sorted(set(part["defender"].to_list()))
    m = np.full((len(rows), len(cols)), np.nan)
    for r in part.iter_rows(named=True):
        m[rows.index(r["attacker"]), cols.index(r["defender"])] = r["attacker_win"]
    n = int(part["battles"].max())
    if n:
        hw = float((part["attacker_win_ci_high"] - part["attacker_win_ci_low"]).max()) / 2
        note = f"{n:,} battles; 95% CI within ±{100 * hw:.2f} pts"
    else:
        note = "exact (enumeration of every hand)"
    fig = Figure(figsize=(6.0, 4.8), dpi=100)
    ax = fig.add_subplot()
    im = _heat(ax, m, rows, cols, f"Attacker win chance (%), {terrain_label(castle, mountain)}"
               f"\n{note}")
    fig.colorbar(im, ax=ax, label="attacker win (%)")
    fig.tight_layout()
    FigureCanvasAgg(fig).print_png(path)


def odds_grid_chart(path: Path, win: np.ndarray, max_size: int) -> None:
    """The four terrain cases of the exact odds grid win[a, d, castle, mountain] side by
    side."""
    fig = Figure(figsize=(11.0, 8.6), dpi=100)
    im = None
    for k, (c, m) in enumerate(TERRAINS):
        ax = fig.add_subplot(2, 2, k + 1)
        cols = list(range(0 if c else 1, max_size + 1))
        rows = list(range(1, max_size + 1))
        mat = np.array([[win[a, d, int(c), int(m)] for d in cols] for a in rows])
        im = _heat(ax, mat, rows, cols, f"{terrain_label(c, m)} (exact)")
    fig.colorbar(im, ax=fig.axes, label="attacker win (%)", shrink=0.8)
    fig.suptitle("Attacker win chance by army sizes, both sides playing their strongest cards")
    FigureCanvasAgg(fig).print_png(path)


def honor_traces_chart(path: Path, trace: np.ndarray, target: int) -> None:
    """Honor after each turn for a sample of games (one panel per game)."""
    games = [g for g in range(trace.shape[0]) if trace[g].max() > 0][:6]
    fig = Figure(figsize=(11.0, 6.2), dpi=100)
    for k, g in enumerate(games):
        ax = fig.add_subplot(2, 3, k + 1)
        for seat in range(trace.shape[1]):
            t = trace[g, seat]
            turns = np.nonzero(t)[0]
            if len(turns):
                ax.plot(turns + 1, t[turns] - 1, marker="o", ms=2, label=f"seat {seat + 1}")
        ax.axhline(target, color="#C44E52", linestyle="--", linewidth=1)
        ax.set_title(f"game {g}", fontsize=9)
        ax.set_xlabel("turn")
        ax.set_ylabel("Honor")
        if k == 0:
            ax.legend(fontsize=7)
    fig.suptitle(f"Honor after each turn: {len(games)} sample games (run's first games; "
                 f"dashed: target {target})")
    fig.tight_layout()
    FigureCanvasAgg(fig).print_png(path)


def chart_list(s: dict, fair, t: dict[str, pl.DataFrame], target: int) -> list[Chart]:
    """The seat and length charts (shared) and the game's own."""
    share = 1.0 / s["players"]
    inc = t["start_income"].filter(pl.col("n") >= MIN_CLANS)
    maj = t["start_major"].filter(pl.col("n") >= MIN_CLANS)
    cu, src, pv = t["catch_up"], t["honor_sources"], t["provinces"]
    seats = S.seat_chart(fair, f"Seat win rates ({s['games']:,} games; seat 1 first Emperor)")
    out = [
        Chart("combat_odds", "Combat odds heatmaps: attacker win chance by army sizes, per "
              "terrain case (exact, strongest cards on both sides)",
              lambda p: odds_grid_chart(p, s["odds"]["win"], s["odds"]["max_size"])),
        Chart("seat_win_rates", seats.caption, seats.draw),
        S.length_chart({"turns": s["lengths"]}, f"Game length ({s['games']:,} games)", "turns"),
        Chart("honor_sources", "The winner's Honor per game by source, with 95% intervals",
              lambda p: C.bars_with_ci(p, src["source"].to_list(), src["winner_per_game"],
                                       src["winner_ci_low"], src["winner_ci_high"],
                                       title="The winner's Honor by source, per game (95% CI)",
                                       ylabel="Honor per game", percent=False)),
        Chart("provinces", "Province held whole by the winner at the end, with 95% intervals",
              lambda p: C.bars_with_ci(p, pv["province"].to_list(), pv["winner_holds_at_end"],
                                       pv["winner_ci_low"], pv["winner_ci_high"],
                                       title="Games whose winner holds the province whole at "
                                             "the end (95% CI)", ylabel="games (%)")),
    ]
    if inc.height >= 2:
        out.append(Chart("start_income", "Win rate by starting clan income, with 95% "
                         "intervals", lambda p: C.line_with_band(
                             p, inc["start_income"], inc["win_rate"], inc["ci_low"],
                             inc["ci_high"], reference=share, ref_label="fair share",
                             title=f"Win rate by starting tax income (95% CI; groups of "
                                   f"{MIN_CLANS}+ clans)",
                             xlabel="koku per turn from the starting territories",
                             ylabel="win rate (%)")))
    if maj.height >= 2:
        out.append(Chart("start_major_city", "Win rate by starting major city, with 95% "
                         "intervals", lambda p: C.bars_with_ci(
                             p, maj["major_city"].to_list(), maj["win_rate"], maj["ci_low"],
                             maj["ci_high"], title="Win rate by starting major city (95% CI)",
                             ylabel="win rate (%)", reference=share, ref_label="fair share")))
    if cu.height >= 2:
        out.append(Chart("emperor_catch_up", "How often the last-placed clan after turn k wins, "
                         "with 95% intervals", lambda p: C.line_with_band(
                             p, cu["turn"], cu["win_rate"], cu["ci_low"], cu["ci_high"],
                             reference=share, ref_label="even chance",
                             title="Emperor catch-up: the last-placed clan after turn k wins",
                             xlabel="turn k", ylabel="win rate (%)")))
    if s["trace"].max() > 0:
        out.append(Chart("honor_over_turns", "Honor over turns in sample games",
                         lambda p: honor_traces_chart(p, s["trace"], target)))
    return out
