"""The combined report of `simcli study`: one verdict paragraph and headline chart per game."""

from __future__ import annotations

import html
import math
from pathlib import Path

import polars as pl

from reports import charts as C
from reports import sections
from reports.fairness import Fairness
from reports.html import STYLE, image_html, table_html
from reports.render import markdown_table
from reports.sections import pts_text
from reports.stats import Estimate
from reports.units import number_ends


def _pct(x: float) -> str:
    """A share for prose: one decimal, more where that would show a non-zero share as 0."""
    if 0 < x < 0.0005:
        return f"{100 * x:.2f}%" if x >= 0.00005 else "under 0.01%"
    return f"{100 * x:.1f}%"


def ci_text(e: Estimate, of: str = "") -> str:
    """A share with its 95% interval (and n with `of`), a rare share shown as one."""
    return sections.ci_text(e, of, _pct)


def _row(r: dict) -> Estimate:
    """A catalogue row as an Estimate."""
    return Estimate(r["value"], r["ci_low"], r["ci_high"], int(r["n"] or 0))


def verdict_word(fair: Fairness) -> str:
    """One word or phrase for the verdict table."""
    if fair.team:
        return "roles differ (see team rates)"
    return "seat order matters" if fair.flagged else "balanced"


def _at_4x(strong: dict) -> str:
    """'; holds at 4x' / '; moves at 4x' when the study checked convergence."""
    conv = strong.get("convergence")
    if not conv or not conv.get("checked"):
        return ""
    return "; holds at 4x" if conv["holds"] else "; moves at 4x"


def verdict_row(title: str, manifest: dict, metrics: pl.DataFrame, fair: Fairness,
                skill: list[dict] | None, strong: dict | None = None) -> dict:
    """The study's verdict table row of one game (also its structured --json fields)."""
    m = {r["metric"]: r for r in metrics.iter_rows(named=True)}
    gap = fair.largest_gap()
    best = max(skill or [], key=lambda r: r["edge"], default=None)
    return {
        "game": title, "players": manifest["players"],
        "policy": "/".join(dict.fromkeys(manifest["seats"])), "playouts": fair.games,
        "largest_seat_gap": None if gap is None else
        f"seat {gap.seat} {100 * gap.gap.value:+.1f} pts ({100 * gap.gap.lo:+.1f} to "
        f"{100 * gap.gap.hi:+.1f})",
        "balance": f"{fair.balance.value:.3f} ({fair.balance.lo:.3f}-{fair.balance.hi:.3f})",
        "shared_rate": ci_text(_row(m["shared_rate"])),
        "skill_edge": None if best is None else
        f"{best['policy']} {100 * best['edge']:+.1f} pts ({100 * best['edge_ci_low']:+.1f} "
        f"to {100 * best['edge_ci_high']:+.1f})",
        "verdict": verdict_word(fair),
        "at_strongest": "-" if not strong or strong["same_as_default"] else
        f"{strong['policy']}: {strong['verdict_word']}"
        f"{' (changes with skill)' if strong['changed'] else ''}" + _at_4x(strong),
    }


def verdict(title: str, manifest: dict, metrics: pl.DataFrame, fair: Fairness,
            skill: list[dict] | None = None, note: str = "", strong: str = "") -> str:
    """One plain-language paragraph on a game's balance at its defaults. Seat fairness
    comes from reports.fairness (the same figures as the run's seat table); in a team game
    seats hold different roles, so the teams' win rates are given instead."""
    m = {r["metric"]: r for r in metrics.iter_rows(named=True)}
    seats = fair.seats
    n = fair.games
    hi = max(seats, key=lambda r: r.rate.value)
    lo = min(seats, key=lambda r: r.rate.value)
    stop = manifest.get("stopping") or {}
    precision = (f" to a 95% half-width of {stop['target_ci']}" if stop.get("reached")
                 else (f"; the target half-width {stop['target_ci']} was NOT reached within "
                       f"{stop['max_playouts']:,}" if stop else ""))
    bal = fair.balance
    text = (f"{title} ({manifest['players']} players, {'/'.join(dict.fromkeys(manifest['seats']))}"
            f" on every seat, {n:,} games{precision}): ")
    if fair.team:
        teams = [(k.removeprefix("team_win."), r) for k, r in m.items()
                 if k.startswith("team_win.") and r["value"] > 0]
        text += (f"the player in seat {lo.seat} is on the winning team in "
                 f"{ci_text(lo.rate)} of games, in seat {hi.seat} in "
                 f"{ci_text(hi.rate)}; seats hold different roles, so no fair share "
                 f"applies. ")
        if teams:
            text += ("Team win rates: " + ", ".join(f"{t} {ci_text(_row(r))}" for t, r in teams)
                     + ". ")
    else:
        text += (f"seat win rates run from {ci_text(lo.rate)} (seat {lo.seat}) to "
                 f"{ci_text(hi.rate)} (seat {hi.seat}) against a fair share of "
                 f"{_pct(fair.fair_share)}")
        if fair.decisive < fair.games:
            text += " (outright wins; the other games have no single winner)"
        text += (f"; balance {bal.value:.3f} (95% CI {bal.lo:.3f}-{bal.hi:.3f}). ")
        flagged = fair.flagged
        if flagged:
            text += (f"Seat{'s' if len(flagged) > 1 else ''} {', '.join(map(str, flagged))} "
                     f"differ{'s' if len(flagged) == 1 else ''} from the fair share at the "
                     f"99% level (Holm-adjusted): the seat order matters. ")
        else:
            text += "No seat differs from the fair share at the 99% level. "
    shared = m["shared_rate"]["value"]
    if fair.team:
        text += f"{ci_text(_row(m['shared_rate']))} of games are won by a team of several players. "
    else:
        text += (f"{ci_text(_row(m['shared_rate']))} of games end in a draw, a shared win or "
                 f"with no winner. " if shared > 0 else "Every game has one outright winner. ")
    done = m["completion"]
    if done["value"] < 1:
        capped = round((1 - done["value"]) * done["n"])
        text += (f"{capped:,} of {done['n']:,} games hit the simulation's safety cap "
                 f"instead of ending by the rules. ")
    unit = m["duration.mean"]["unit"]
    p50, p95 = m["duration.p50"], m["duration.p95"]
    a50, b50 = number_ends(p50["ci_low"], p50["ci_high"])
    a95, b95 = number_ends(p95["ci_low"], p95["ci_high"])
    text += (f"A game lasts {p50['value']:.1f} {unit} (median, 95% CI {a50}-{b50}); 95% of "
             f"games end within {p95['value']:.1f} (95% CI {a95}-{b95}).")
    for r in skill or []:
        won = Estimate(r["win_rate"], r["ci_low"], r["ci_high"], r["seeds"])
        base = Estimate(r["baseline"], r.get("baseline_ci_low", math.nan),
                        r.get("baseline_ci_high", math.nan), r["seeds"])
        text += (f" Skill: {r['policy']} wins {ci_text(won, 'seeds')} against random players "
                 f"from every seat, where random players win {ci_text(base)}: an edge of "
                 f"{pts_text(r['edge'], r['edge_ci_low'], r['edge_ci_high'])}.")
    if strong:
        text += f" {strong}"
    if note:
        text += f" {note}"
    if manifest["content"]["assumed"]:
        text += " The content is assumed (reconstructed), so treat card-level detail with care."
    return text


def _strong_link(strong: dict | None) -> list[str]:
    """The Markdown line linking the strongest-policy run, when there is one."""
    if not strong or strong["same_as_default"]:
        return []
    f = strong["folder"]
    return ["", f"With {strong['policy']} on every seat: [{f}/report.md]({f}/report.md)"]


def write_study(entries: list[dict], folder: Path, meta: dict) -> None:
    """report.md and report.html for a study; entries: game, title, folder, manifest,
    metrics, fairness, skill, verdict, row (the verdict table row)."""
    charts = folder / "charts"
    charts.mkdir(exist_ok=True)
    intro = (f"simcli {meta['tool_version']}, seed {meta['seed']}, target 95% half-width "
             f"{meta['target_ci']} on every seat win rate (at most the game's default number "
             f"of playouts), {meta['seconds']:.0f} s on {meta['threads']} threads.")
    table = pl.DataFrame([e["row"] for e in entries])
    md = ["# simcli study: every game at its defaults", "", intro, "",
          markdown_table(table), "",
          "Largest seat gap: the seat furthest from its fair share, in points, with its 95% "
          "interval; balance: 1 minus the largest gap between two seats (1 = every seat "
          "wins equally often); skill edge: the best policy's win rate against random "
          "players minus random players' in the same seats; at strongest: the verdict when "
          "every seat plays the strongest policy the study affords (the search player at "
          "its study budget), and whether it differs from the default policy's.", ""]
    body = [table_html(table)]
    for e in entries:
        metrics = e["metrics"]
        png = charts / f"{e['game']}.png"
        C.seat_gaps(png, e["fairness"], title=f"{e['title']}: " + (
            "seat on the winning team" if e["fairness"].team else "seats against fair share"))
        text = e["verdict"]
        head = metrics.filter(pl.col("metric").is_in(
            ["balance", "shared_rate", "completion", "duration.mean"])).select(
            "metric", "value", "ci_low", "ci_high", "n")
        md += [f"## {e['title']}", "", text, "",
               f"![{e['title']} seats](charts/{png.name})", "",
               markdown_table(head), "", f"Full report: [{e['folder']}/report.md]"
               f"({e['folder']}/report.md)", *_strong_link(e.get("strongest")), ""]
        body += [f"<h2>{html.escape(e['title'])}</h2>", f"<p>{html.escape(text)}</p>",
                 image_html(png, f"{e['title']}: seats against fair share, 95% intervals"),
                 table_html(head),
                 f"<p><a href='{html.escape(e['folder'])}/report.html'>Full report</a></p>"]
    (folder / "report.md").write_text("\n".join(md), encoding="utf-8")
    page = [f"<!doctype html><html><head><meta charset='utf-8'><title>simcli study</title>"
            f"<style>{STYLE}</style></head><body><h1>simcli study: every game at its "
            f"defaults</h1><p class='note'>{html.escape(intro)}</p>", *body,
            f"<h2>Methods</h2>{METHODS_HTML}</body></html>"]
    (folder / "report.html").write_text("\n".join(page), encoding="utf-8")


METHODS_HTML = (
    "<p>Each game ran with its default players and policy until every seat win rate's 95% "
    "Wilson half-width met the target (or the playout cap); each game's own report.html "
    "gives its policies, content (name and hash), every table and its interval methods.</p>"
    "<p>Seat fairness: each seat's outright wins among the games with an outright winner "
    "are tested against an equal share with an exact binomial test, Holm-adjusted across "
    "seats, flagged at 99%; the fair share is that equal share of the outright wins. The "
    "gap's interval is the Wilson interval of the seat's share of outright wins, scaled by "
    "the share of games with an outright winner. Balance: 1 minus the largest difference "
    "between two seats; its interval reaches 1 when a chi-square test of equal shares does "
    "not reject at 5%, otherwise its top end is a Bonferroni bound over the pairs tied with "
    "the largest difference within one standard error, and its low end the delta-method "
    "bound. Skill gaps: each non-random policy played against random players from every "
    "seat in turn on the same seeds; the edge is the mean paired difference per seed, its "
    "interval combines the two rates' effective-sample-size Wilson intervals with their "
    "correlation (Zou and Donner's MOVER), so it stays inside the range and never has zero "
    "width.</p>")
