"""Chart helpers shared by every game's report (matplotlib's object API, no screen and no
pyplot state)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def _save(fig: Figure, path: Path) -> None:
    FigureCanvasAgg(fig).print_png(path)


def _figure(width: float, height: float):
    fig = Figure(figsize=(width, height), dpi=100)
    fig.subplots_adjust(left=0.13, right=0.97, top=0.9, bottom=0.17)
    return fig, fig.add_subplot()


def bars_with_ci(path: Path, labels: Sequence[str], values, lo, hi, *, title: str,
                 ylabel: str, reference: float | None = None, ref_label: str = "",
                 percent: bool = True, xlabel: str = "") -> None:
    """Bar chart with 95% interval whiskers and an optional reference line; an infinite
    end (an interval the data leave open) is drawn past the finite figures with an arrow
    head."""
    values, lo, hi = (np.asarray(x, float) for x in (values, lo, hi))
    scale = 100.0 if percent else 1.0
    open_hi, open_lo = np.isposinf(hi), np.isneginf(lo)
    if open_hi.any() or open_lo.any():
        seen = np.concatenate([values, lo, hi])
        seen = seen[np.isfinite(seen)]
        span = max(float(np.ptp(seen)), 1e-9) if len(seen) else 1.0
        hi = np.where(open_hi, (seen.max() if len(seen) else 0.0) + 0.25 * span, hi)
        lo = np.where(open_lo, (seen.min() if len(seen) else 0.0) - 0.25 * span, lo)
    fig, ax = _figure(max(4.5, 0.9 * len(labels) + 2), 3.6)
    x = np.arange(len(labels))
    ax.bar(x, values * scale, color="#4C72B0")
    ax.errorbar(x, values * scale, yerr=[np.maximum(values - lo, 0) * scale,
                                         np.maximum(hi - values, 0) * scale],
                fmt="none", ecolor="black", capsize=4)
    for ends, where, mark in ((hi, open_hi, "^"), (lo, open_lo, "v")):
        if where.any():
            ax.plot(x[where], ends[where] * scale, mark, color="black", linestyle="none")
    if reference is not None:
        ax.axhline(reference * scale, color="#C44E52", linestyle="--", label=ref_label)
        if ref_label:
            ax.legend(loc="lower right")
    rotate = len(labels) >= 7 or sum(len(str(lab)) + 2 for lab in labels) > 8 * (
        0.9 * len(labels) + 2)  # labels wider than the axis would overlap
    ax.set_xticks(x, labels, rotation=45 if rotate else 0, ha="right" if rotate else "center")
    if rotate:
        longest = max((len(str(lab)) for lab in labels), default=0)
        fig.subplots_adjust(bottom=min(0.5, 0.12 + 0.012 * longest))
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    if xlabel:
        ax.set_xlabel(xlabel)
    _save(fig, path)


def grouped_bars_with_ci(path: Path, labels: Sequence[str], groups: dict[str, tuple], *,
                         title: str, ylabel: str, percent: bool = True,
                         reference: float | None = None, ref_label: str = "",
                         xlabel: str = "") -> None:
    """Several bar series side by side, each (values, lo, hi), with 95% whiskers and an
    optional dashed reference line (a fair share)."""
    scale = 100.0 if percent else 1.0
    fig, ax = _figure(max(5.0, 1.3 * len(labels) + 2), 3.8)
    x = np.arange(len(labels))
    width = 0.8 / max(1, len(groups))
    for i, (name, (v, lo, hi)) in enumerate(groups.items()):
        v, lo, hi = (np.asarray(a, float) for a in (v, lo, hi))
        pos = x - 0.4 + width * (i + 0.5)
        shown = ~np.isnan(v)  # a seat a cell does not have is left out, not drawn as 0
        ax.bar(pos[shown], v[shown] * scale, width, label=name)
        ax.errorbar(pos[shown], v[shown] * scale,
                    yerr=[np.nan_to_num(np.maximum(v - lo, 0))[shown] * scale,
                          np.nan_to_num(np.maximum(hi - v, 0))[shown] * scale],
                    fmt="none", ecolor="black", capsize=3)
    if reference is not None:
        ax.axhline(reference * scale, color="black", linestyle="--", linewidth=1,
                   label=ref_label or None)
    ax.set_xticks(x, labels)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    if xlabel:
        ax.set_xlabel(xlabel)
    _legend_outside(fig, ax)
    _save(fig, path)


def _legend_outside(fig: Figure, ax) -> None:
    """The legend to the right of the plot, never over the bars."""
    handles, names = ax.get_legend_handles_labels()
    if not handles:
        return
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    longest = max(len(n) for n in names)
    width = fig.get_figwidth()
    fig.set_figwidth(width + 0.09 * longest + 0.6)
    fig.subplots_adjust(left=0.13 * width / fig.get_figwidth(),
                        right=1 - (0.09 * longest + 0.7) / fig.get_figwidth())


def histograms(path: Path, series: dict[str, np.ndarray], *, title: str, xlabel: str) -> None:
    """Step histograms of integer-valued distributions given as counts per value. A
    series with one value only (every game the same length) is named in the legend, not
    drawn as a 100% spike that would flatten the others."""
    fig, ax = _figure(6.4, 3.6)
    for name, hist in series.items():
        hist = np.asarray(hist, float)
        total = hist.sum()
        if total == 0:
            continue
        if np.count_nonzero(hist) == 1 and len(series) > 1:
            ax.plot([], [], " ", label=f"{name}: always {int(np.nonzero(hist)[0][0])}")
            continue
        nz = np.nonzero(hist)[0]
        lo, hi = max(nz[0] - 1, 0), min(nz[-1] + 2, len(hist))
        ax.step(np.arange(lo, hi), hist[lo:hi] / total * 100, where="mid", label=name)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("% of games")
    _legend_outside(fig, ax)
    _save(fig, path)


def line_with_band(path: Path, x, value, lo, hi, *, title: str, xlabel: str, ylabel: str,
                   reference=None, ref_label: str = "", percent: bool = True) -> None:
    """A line with a shaded 95% band and an optional reference line or curve."""
    scale = 100.0 if percent else 1.0
    x, value, lo, hi = (np.asarray(a, float) for a in (x, value, lo, hi))
    fig, ax = _figure(6.4, 3.6)
    ax.plot(x, value * scale, marker="o", ms=3, color="#4C72B0")
    ax.fill_between(x, lo * scale, hi * scale, alpha=0.25, color="#4C72B0")
    if reference is not None:
        ref = np.broadcast_to(np.asarray(reference, float), x.shape)
        ax.plot(x, ref * scale, color="#C44E52", linestyle="--", label=ref_label)
        ax.legend()
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _save(fig, path)


def scatter_with_ci(path: Path, x, value, lo, hi, *, labels: Sequence[str] | None = None,
                    title: str, xlabel: str, ylabel: str, percent: bool = True,
                    reference: float | None = None) -> None:
    """Points with vertical 95% whiskers (x jittered slightly so equal x stay visible)."""
    scale = 100.0 if percent else 1.0
    x, value, lo, hi = (np.asarray(a, float) for a in (x, value, lo, hi))
    jitter = (np.arange(len(x)) % 7 - 3) * 0.04
    fig, ax = _figure(6.4, 4.0)
    ax.errorbar(x + jitter, value * scale, yerr=[np.maximum(value - lo, 0) * scale,
                                                 np.maximum(hi - value, 0) * scale],
                fmt="o", ms=3, color="#4C72B0", ecolor="#999999", capsize=2)
    if reference is not None:
        ax.axhline(reference * scale, color="#C44E52", linestyle="--")
    if labels is not None and len(labels):
        for i in (int(np.nanargmax(value)), int(np.nanargmin(value))):
            ax.annotate(labels[i], (x[i] + jitter[i], value[i] * scale), fontsize=7,
                        xytext=(4, 2), textcoords="offset points")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _save(fig, path)


def seat_gaps(path: Path, fairness, *, title: str) -> None:
    """Each seat's outright win rate minus its fair share, in points, with 95% interval
    whiskers; seats flagged at 99% drawn in red and marked. Team games (no fair share)
    draw the seat win rates themselves."""
    seats = fairness.seats
    labels = [f"seat {r.seat}" for r in seats]
    fig, ax = _figure(max(4.5, 0.9 * len(labels) + 2), 3.6)
    x = np.arange(len(labels))
    if fairness.team:
        v = np.array([r.rate.value for r in seats]) * 100
        lo = np.array([r.rate.lo for r in seats]) * 100
        hi = np.array([r.rate.hi for r in seats]) * 100
        ax.bar(x, v, color="#4C72B0")
        ax.set_ylabel("on the winning team (%)")
    else:
        v = np.array([r.gap.value for r in seats]) * 100
        lo = np.array([r.gap.lo for r in seats]) * 100
        hi = np.array([r.gap.hi for r in seats]) * 100
        colors = ["#C44E52" if r.flagged else "#4C72B0" for r in seats]
        ax.bar(x, v, color=colors)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_ylabel(f"points above fair share ({100 * fairness.fair_share:.1f}%)")
        top = np.nanmax(np.abs(np.concatenate([lo, hi]))) if len(seats) else 1.0
        for i, r in enumerate(seats):
            if r.flagged:
                ax.annotate("99%", (x[i], hi[i] if v[i] >= 0 else lo[i]),
                            textcoords="offset points", xytext=(0, 6 if v[i] >= 0 else -12),
                            ha="center", fontsize=8, color="#C44E52")
        if np.isfinite(top) and top > 0:
            ax.set_ylim(-1.3 * top, 1.3 * top)
    ax.errorbar(x, v, yerr=[np.maximum(v - lo, 0), np.maximum(hi - v, 0)], fmt="none",
                ecolor="black", capsize=4)
    ax.set_xticks(x, labels)
    ax.set_title(title)
    _save(fig, path)


def trace_chart(path: Path, trace, *, title: str, ylabel: str, target: float | None = None,
                best: str = "") -> None:
    """A tuning trace: each candidate's metric (with its 95% interval) per round, the
    playouts doubling as the field halves. The finalists of the last round are named in the
    legend (the best drawn thick); the others are grey; the target, when there is one, is a
    dashed line."""
    fig, ax = _figure(6.8, 3.8)
    rounds = sorted(set(trace["round"].to_list()))
    last = set(trace.filter(trace["round"] == rounds[-1])["setting"].to_list()) if rounds \
        else set()
    for setting in dict.fromkeys(trace["setting"].to_list()):
        sub = trace.filter(trace["setting"] == setting).sort("round")
        x = np.asarray(sub["round"].to_list(), float)
        v = np.asarray(sub["metric"].to_list(), float)
        lo = np.asarray(sub["ci_low"].to_list(), float)
        hi = np.asarray(sub["ci_high"].to_list(), float)
        finalist = setting in last
        ax.errorbar(x, v, yerr=[np.maximum(v - lo, 0), np.maximum(hi - v, 0)], marker="o",
                    ms=3, capsize=2, linewidth=2.0 if setting == best else 0.8,
                    alpha=0.9 if finalist else 0.35,
                    color=None if finalist else "grey",
                    label=(f"{setting} (best)" if setting == best else setting)
                    if finalist else None)
    if target is not None:
        ax.axhline(target, color="#C44E52", linestyle="--", linewidth=1, label="target")
    ax.set_xticks(rounds, [f"round {r}" for r in rounds])
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.set_xlabel("round (grey: candidates dropped before the last round)")
    _legend_outside(fig, ax)
    _save(fig, path)
