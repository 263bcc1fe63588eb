"""The combined report of `simcli study`: one verdict paragraph and headline chart per game."""

from __future__ import annotations

import html
from pathlib import Path

import polars as pl

from reports import charts as C
from reports.html import STYLE, image_html, table_html
from reports.render import markdown_table
from reports.stats import binomial_p, holm

FLAG_LEVEL = 0.01


def _pct(x: float) -> str:
    """A share for prose: one decimal, more where that would show a non-zero share as 0."""
    if 0 < x < 0.0005:
        return f"{100 * x:.2f}%" if x >= 0.00005 else "under 0.01%"
    return f"{100 * x:.1f}%"


def verdict(title: str, manifest: dict, metrics: pl.DataFrame,
            skill: list[dict] | None = None, team: bool = False) -> str:
    """One plain-language paragraph on a game's balance at its defaults. In a team game
    (`team`) seats hold different roles, so seat rates are not tested against a fair
    share and the teams' win rates are given instead."""
    m = {r["metric"]: r for r in metrics.iter_rows(named=True)}
    seats = [m[f"win_rate.seat{s + 1}"] for s in range(manifest["players"])]
    n = seats[0]["n"]
    fair = 1 / len(seats)
    adjusted = holm([binomial_p(round(r["value"] * n), n, fair) for r in seats])
    flagged = [s + 1 for s, p in enumerate(adjusted) if p < FLAG_LEVEL]
    hi = max(range(len(seats)), key=lambda s: seats[s]["value"])
    lo = min(range(len(seats)), key=lambda s: seats[s]["value"])
    stop = manifest.get("stopping") or {}
    precision = (f" to a 95% half-width of {stop['target_ci']}" if stop.get("reached")
                 else (f"; the target half-width {stop['target_ci']} was NOT reached within "
                       f"{stop['max_playouts']:,}" if stop else ""))
    bal = m["balance"]
    text = (f"{title} ({manifest['players']} players, {'/'.join(dict.fromkeys(manifest['seats']))}"
            f" on every seat, {n:,} games{precision}): ")
    if team:
        teams = [(k.removeprefix("team_win."), r["value"]) for k, r in m.items()
                 if k.startswith("team_win.") and r["value"] > 0]
        text += (f"the player in seat {lo + 1} is on the winning team in "
                 f"{_pct(seats[lo]['value'])} of games, in seat {hi + 1} in "
                 f"{_pct(seats[hi]['value'])}; seats hold different roles, so no fair share "
                 f"applies. ")
        if teams:
            text += ("Team win rates: " + ", ".join(f"{t} {_pct(v)}" for t, v in teams)
                     + ". ")
    else:
        text += (f"seat win rates run from {_pct(seats[lo]['value'])} (seat {lo + 1}) to "
                 f"{_pct(seats[hi]['value'])} (seat {hi + 1}) against a fair {_pct(fair)}; "
                 f"balance {bal['value']:.3f} (95% CI {bal['ci_low']:.3f}-"
                 f"{bal['ci_high']:.3f}). ")
        if flagged:
            text += (f"Seat{'s' if len(flagged) > 1 else ''} {', '.join(map(str, flagged))} "
                     f"differ{'s' if len(flagged) == 1 else ''} from fair at the 99% level "
                     f"(Holm-adjusted): the seat order matters. ")
        else:
            text += "No seat differs from fair at the 99% level. "
    shared = m["shared_rate"]["value"]
    if team:
        text += f"{_pct(shared)} of games are won by a team of several players. "
    else:
        text += (f"{_pct(shared)} of games end in a draw or shared win. " if shared > 0
                 else "No game ends in a draw or shared win. ")
    done = m["completion"]
    if done["value"] < 1:
        capped = round((1 - done["value"]) * done["n"])
        text += (f"{capped:,} of {done['n']:,} games ({_pct(1 - done['value'])}) hit the "
                 f"simulation's safety cap instead of ending by the rules. ")
    unit = m["duration.mean"]["unit"]
    text += (f"A game lasts {m['duration.p50']['value']:.0f} {unit} (median; 95% of games "
             f"within {m['duration.p95']['value']:.0f}).")
    for r in skill or []:
        text += (f" Skill: {r['policy']} wins {_pct(r['win_rate'])} against random players "
                 f"from every seat, where random players win {_pct(r['baseline'])}: a "
                 f"{100 * r['edge']:+.1f}-point edge (95% CI {100 * r['edge_ci_low']:+.1f} to "
                 f"{100 * r['edge_ci_high']:+.1f}).")
    if manifest["content"]["assumed"]:
        text += " The content is assumed (reconstructed), so treat card-level detail with care."
    return text


def write_study(entries: list[dict], folder: Path, meta: dict) -> None:
    """report.md and report.html for a study; entries: game, title, folder, manifest,
    metrics, team, verdict."""
    charts = folder / "charts"
    charts.mkdir(exist_ok=True)
    md = ["# simcli study: every game at its defaults", "",
          f"simcli {meta['tool_version']}, seed {meta['seed']}, target 95% half-width "
          f"{meta['target_ci']} on every seat win rate (at most the game's default number of "
          f"playouts), {meta['seconds']:.0f} s on {meta['threads']} threads.", ""]
    body = []
    for e in entries:
        man, metrics = e["manifest"], e["metrics"]
        seats = metrics.filter(pl.col("metric").str.starts_with("win_rate.seat"))
        png = charts / f"{e['game']}.png"
        C.bars_with_ci(png, [f"seat {i + 1}" for i in range(seats.height)], seats["value"],
                       seats["ci_low"], seats["ci_high"], title=f"{e['title']}: seat win rates",
                       ylabel="win rate (%)",
                       reference=None if e["team"] else 1 / man["players"],
                       ref_label="fair share")
        text = e["verdict"]
        head = metrics.filter(pl.col("metric").is_in(
            ["balance", "shared_rate", "completion", "duration.mean"])).select(
            "metric", "value", "ci_low", "ci_high", "n")
        md += [f"## {e['title']}", "", text, "",
               f"![{e['title']} seat win rates](charts/{png.name})", "",
               markdown_table(head), "", f"Full report: [{e['folder']}/report.md]"
               f"({e['folder']}/report.md)", ""]
        body += [f"<h2>{html.escape(e['title'])}</h2>", f"<p>{html.escape(text)}</p>",
                 image_html(png, f"{e['title']}: seat win rates with 95% intervals"),
                 table_html(head),
                 f"<p><a href='{e['folder']}/report.html'>Full report</a></p>"]
    (folder / "report.md").write_text("\n".join(md), encoding="utf-8")
    page = [f"<!doctype html><html><head><meta charset='utf-8'><title>simcli study</title>"
            f"<style>{STYLE}</style></head><body><h1>simcli study: every game at its "
            f"defaults</h1><p class='note'>{html.escape(md[2])}</p>", *body,
            "<h2>Methods</h2><p>Each game ran with its default players and policy until "
            "every seat win rate's 95% Wilson half-width met the target (or the playout cap); "
            "each game's own report.html gives its policies, content (name and hash) and "
            "every table. Skill gaps: each non-random policy played against random players "
            "from every seat in turn on the same seeds; the interval is paired by seed."
            "</p></body></html>"]
    (folder / "report.html").write_text("\n".join(page), encoding="utf-8")
