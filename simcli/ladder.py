"""`simcli ladder`: policies rated against each other, and the game's balance at each
level of play.

Every pair of policies plays the same deals with the seats alternating between them and
rotated round the table (each deal once per rotation, every player carrying its own
luck), so seat effects cancel. The wins feed a Luce / Bradley-Terry fit on an Elo scale
anchored at random, or at the first policy listed when random does not play
(reports/ladder.py). Each policy also plays against itself on every
seat: its seat win rates and balance index, through reports/fairness.py, give the
"balance vs skill" curve: does the first-player edge grow, shrink or flip as play gets
stronger?
"""

from __future__ import annotations

import itertools
import math
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from reports import charts as C
from reports.fairness import Fairness, seat_fairness
from reports.html import STYLE, image_html, table_html
from reports.ladder import Pairing, Rating, ratings
from reports.render import markdown_table
from reports.sections import ci_text, pts_text
from reports.stats import Estimate
from simcli import __version__, engine
from simcli import converge as CV
from simcli.errors import UserError
from simcli.games.base import Game
from simcli.registry import get_game
from simcli.runfolder import RunFolder, write_json

ANCHOR = "random"


def anchor_of(names: list[str]) -> str:
    """The policy rated 0: random when it plays, otherwise the first policy listed."""
    return ANCHOR if ANCHOR in names else names[0]


def pairing_task(game_name: str, prep: Any, seed: int, seats: tuple[str, ...],
                 names: list[str], first: int, count: int) -> np.ndarray:
    """wins[d, k]: for deals first..first+count-1, the wins of policy names[k] over every
    rotation of the seats (a shared win split among its winners)."""
    game = get_game(game_name)
    P = len(seats)
    wins = np.zeros((count, len(names)))
    rows = np.zeros((count, len(game.row_columns)), np.int64)
    for r in range(P):
        game.run_chunk(prep, seed, first, count, game.new_aggregates(prep), rows, rotation=r)
        won = game.seats_won(rows)[:, :P].astype(float)
        share = won / np.maximum(won.sum(axis=1, keepdims=True), 1.0)
        for s in range(P):
            wins[:, names.index(seats[(s - r) % P])] += share[:, s]
    return wins


def play_seats(game: Game, content, rules: dict, seats: tuple[str, ...], names: list[str],
               n: int, seed: int, threads: int,
               progress: engine.Progress | None) -> np.ndarray:
    """wins[d, k]: n deals at these seats, each played once per rotation of the seats, and
    the wins of policy names[k] in deal d over its rotations (see pairing_task)."""
    prep = game.prepare(content, len(seats), seats, rules)
    wins = np.zeros((n, len(names)))

    def done(chunk: engine.Chunk, part: np.ndarray) -> None:
        wins[chunk.first:chunk.first + chunk.count] = part

    engine.run_chunks(engine.spread_plan(game, n, threads, engine.one_per_chunk(game, seats)),
                      lambda c: pairing_task(game.name, prep, seed, seats, names, c.first,
                                             c.count), done, threads, progress)
    return wins


def play_pairing(game: Game, content, rules: dict, players: int, a: str, b: str,
                 names: list[str], n: int, seed: int, threads: int,
                 progress: engine.Progress | None) -> Pairing:
    """n deals of a against b, seats alternating a, b, a, b ... and rotated."""
    seats = tuple(a if s % 2 == 0 else b for s in range(players))
    wins = play_seats(game, content, rules, seats, names, n, seed, threads, progress)
    makeup = np.array([sum(s == p for s in seats) for p in names], float)
    return Pairing(makeup, wins, players)


def self_play(game: Game, content, rules: dict, players: int, policy: str, n: int,
              seed: int, threads: int, progress: engine.Progress | None) -> Fairness:
    """Seat fairness when every seat plays `policy`."""
    prep = game.prepare(content, players, (policy,) * players, rules)
    total = engine.play_all(game, prep, seed, n, threads, progress,
                            engine.one_per_chunk(game, (policy,) * players))
    core = game.core_stats(total, players)
    return seat_fairness(core.seat_wins, core.games, game.team_game)


@dataclass
class LadderResult:
    """A finished ladder: its folder, ratings and balance per policy."""

    folder: Path
    ratings: list[Rating]
    balance: dict[str, Fairness]
    manifest: dict[str, Any]


def run_ladder(game_name: str, policies: list[str], *, n: int | None, players: int | None,
               seed: int, threads: int | None, rules: list[str], content: str | None,
               out: Path | None, force: bool, boot: int = 200, converge: bool = False,
               progress: engine.Progress | None = None) -> LadderResult:
    """Round-robin among the policies, ratings with intervals, balance per policy."""
    game = get_game(game_name)
    entries = [p.strip() for p in policies]
    if "" in entries:
        raise UserError("--policies has an empty entry; give policies separated by single "
                        "commas, e.g. random,greedy,mcts:100")
    names = list(dict.fromkeys(entries))
    if len(names) < 2:
        raise UserError("--policies needs at least two different policies")
    specs: dict = {}
    for p in names:
        spec = game.policy_spec(p)
        if spec in specs:
            raise UserError(f"--policies names one player twice: '{specs[spec]}' and '{p}'")
        specs[spec] = p
    anchor = anchor_of(names)
    players = players or game.default_players
    game.check_players(players)
    n = n or max(1_000, game.default_n // 50)
    if n <= 0:
        raise UserError(f"-n must be a positive number of deals, not {n}")
    pairs = len(names) * (len(names) - 1) // 2
    engine.check_memory(8.0 * n * len(names) * (pairs + 1), f"-n {n:,} deals per pairing")
    threads = threads or engine.default_threads()
    chosen = game.resolve_rules(rules)
    loaded = game.load_content(game.content_path(content))
    folder = RunFolder(out, force, default=f"ladder-{game.name}")
    try:
        folder.create()
        t0 = time.perf_counter()
        order = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
        runs = len(order) + len(names)  # the pairings, then each policy's self-play
        pairings = []
        for k, (a, b) in enumerate(order):
            with engine.runs_ahead(runs - k):
                pairings.append(play_pairing(game, loaded, chosen, players, a, b, names, n,
                                             seed, threads, progress))
        fitted = ratings(pairings, names, anchor=names.index(anchor), boot=boot, seed=seed)
        balance = {}
        for k, p in enumerate(names):
            with engine.runs_ahead(len(names) - k):
                balance[p] = self_play(game, loaded, chosen, players, p, n, seed, threads,
                                       progress)
        conv = None
        top = [r.policy for r in sorted(fitted, key=lambda r: -r.elo)
               if CV.stronger(r.policy) is not None]
        if converge and top:
            conv = CV.convergence(game, players, top[0], seed, threads, progress,
                                 rules=chosen, content=loaded)
        manifest = {
            "format": 1, "tool": "simcli", "kind": "ladder", "tool_version": __version__,
            "convergence": conv,
            "game": game.name, "game_title": game.title, "players": players,
            "policies": names, "anchor": anchor, "deals_per_pairing": n,
            "games_per_pairing": n * players,
            "self_play_games": n, "seed": seed, "rules": chosen,
            "content": loaded.identity(), "bootstrap": boot, "threads": threads,
            "cores": os.cpu_count(), "seconds": round(time.perf_counter() - t0, 2),
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        rt, bt = tables(fitted, balance)
        write_ladder(folder.path, game, rt, bt, manifest)
        write_json(folder.path / "manifest.json", manifest)
        final = folder.commit()
    except BaseException:
        folder.abort()
        raise
    return LadderResult(final, fitted, balance, manifest)


def tables(fitted: list[Rating], balance: dict[str, Fairness]) -> tuple[pl.DataFrame,
                                                                        pl.DataFrame]:
    """(ratings table, balance-by-policy table)."""
    rt = pl.DataFrame([{"policy": r.policy, "elo": r.elo, "ci_low": r.lo, "ci_high": r.hi}
                       for r in fitted]).sort("elo", descending=True)
    rows = []
    for r in fitted:
        f = balance[r.policy]
        row = {"policy": r.policy, "elo": r.elo, "balance": f.balance.value,
               "balance_ci_low": f.balance.lo, "balance_ci_high": f.balance.hi,
               "flagged_seats": ",".join(map(str, f.flagged)),
               "fair_share": f.fair_share, "games": f.games}
        for s in f.seats:
            row[f"seat{s.seat}"] = s.rate.value
            row[f"seat{s.seat}_ci_low"] = s.rate.lo
            row[f"seat{s.seat}_ci_high"] = s.rate.hi
        rows.append(row)
    return rt, pl.DataFrame(rows).sort("elo")


def trend(balance_table: pl.DataFrame, ratings: pl.DataFrame | None = None) -> str:
    """How the seats and the balance move with skill, every policy named (weakest first),
    each figure with its interval; and which ratings cannot be told apart."""
    rows = list(balance_table.iter_rows(named=True))
    weak, strong = rows[0], rows[-1]
    parts = []
    if "seat1" not in weak or weak["fair_share"] is None or math.isnan(weak["fair_share"]):
        parts.append("Seat 1 (every seat one policy) wins " + "; ".join(
            f"{ci_text(_seat1(r), 'games')} with {r['policy']}" for r in rows) + ".")
    else:
        flagged = "; ".join(
            f"{r['policy']}: " + (f"seats {r['flagged_seats'].replace(',', ', ')}"
                                  if r["flagged_seats"] else "none") for r in rows)
        parts.append(f"Seats that differ from their fair share at the 99% level, with each "
                     f"policy on every seat: {flagged}.")
        parts.append("Seat 1's edge over its fair share: " + "; ".join(
            f"{_edge1(r)} with {r['policy']}" for r in rows) + ".")
    parts.append(f"Balance {weak['balance']:.3f} (95% CI {weak['balance_ci_low']:.3f}-"
                 f"{weak['balance_ci_high']:.3f}) with {weak['policy']}, "
                 f"{strong['balance']:.3f} (95% CI {strong['balance_ci_low']:.3f}-"
                 f"{strong['balance_ci_high']:.3f}) with {strong['policy']}.")
    if ratings is not None:
        parts.append(apart(ratings))
    return " ".join(p for p in parts if p)


def _edge1(r: dict) -> str:
    f = r["fair_share"]
    return pts_text(r["seat1"] - f, r["seat1_ci_low"] - f, r["seat1_ci_high"] - f,
                    int(r["games"]), "games")


def _seat1(r: dict) -> Estimate:
    return Estimate(r["seat1"], r["seat1_ci_low"], r["seat1_ci_high"], int(r["games"]))


def apart(ratings: pl.DataFrame) -> str:
    """Which neighbouring ratings cannot be told apart (their 95% intervals overlap)."""
    rt = ratings.sort("elo", descending=True)
    rows = list(rt.iter_rows(named=True))
    pairs = itertools.pairwise(rows)
    close = [f"{a['policy']} and {b['policy']}" for a, b in pairs
             if a["ci_low"] <= b["ci_high"]]
    if not close:
        return "Every rating is apart from the next: their 95% intervals do not overlap."
    return ("Ratings that cannot be told apart (their 95% intervals overlap): "
            + "; ".join(close) + ".")


def write_ladder(folder: Path, game: Game, rt: pl.DataFrame, bt: pl.DataFrame,
                 manifest: dict) -> None:
    """Tables, charts, report.md and report.html of a ladder, from its ratings and
    balance-by-policy tables (see tables)."""
    tdir = folder / "tables"
    tdir.mkdir()
    for name, df in (("ratings", rt), ("balance_by_policy", bt)):
        df.write_parquet(tdir / f"{name}.parquet")
        df.write_csv(tdir / f"{name}.csv")
    cdir = folder / "charts"
    cdir.mkdir()
    anchor = manifest["anchor"]
    C.bars_with_ci(cdir / "ratings.png", rt["policy"].to_list(), rt["elo"], rt["ci_low"],
                   rt["ci_high"], title=f"{game.title}: policy ratings (Elo, {anchor} = 0)",
                   ylabel="Elo rating", percent=False)
    C.line_with_band(cdir / "balance_vs_skill.png", bt["elo"].to_numpy(),
                     bt["balance"].to_numpy(), bt["balance_ci_low"].to_numpy(),
                     bt["balance_ci_high"].to_numpy(),
                     title=f"{game.title}: balance vs skill (every seat one policy)",
                     xlabel="Elo rating of the policy on every seat", ylabel="balance index",
                     percent=False)
    sentence = trend(bt, rt)
    conv = manifest.get("convergence")
    sentence += " " + (conv["text"] if conv else (
        "Whether the strongest policy's verdict holds at 4x its search budget is not "
        "checked: add --converge (a search policy on every seat at its budget and at 4x, "
        "on the same 600 deals)."))
    facts = (f"{game.title}, {manifest['players']} players: {manifest['deals_per_pairing']:,} "
             f"deals per pairing, each played once per seat rotation; self-play "
             f"{manifest['self_play_games']:,} games per policy; seed {manifest['seed']}; "
             f"simcli {manifest['tool_version']}.")
    md = [f"# Ladder: {game.title}", "", facts, "", sentence, "", "## Ratings", "",
          markdown_table(rt), "", "![ratings](charts/ratings.png)", "",
          "## Balance by policy (every seat plays it)", "", markdown_table(bt), "",
          "![balance vs skill](charts/balance_vs_skill.png)", "", "## Methods", "",
          methods(anchor)]
    (folder / "report.md").write_text("\n".join(md), encoding="utf-8")
    page = [f"<!doctype html><html><head><meta charset='utf-8'><title>Ladder: "
            f"{game.title}</title><style>{STYLE}</style></head><body>"
            f"<h1>Ladder: {game.title}</h1><p class='note'>{facts}</p><p>{sentence}</p>",
            "<h2>Ratings</h2>", table_html(rt),
            image_html(cdir / "ratings.png", "Elo ratings with 95% bootstrap intervals"),
            "<h2>Balance by policy</h2>", table_html(bt),
            image_html(cdir / "balance_vs_skill.png", "Balance index against rating"),
            f"<h2>Methods</h2><p>{methods(anchor)}</p></body></html>"]
    (folder / "report.html").write_text("\n".join(page), encoding="utf-8")


def methods(anchor: str) -> str:
    """The ladder report's methods paragraph, naming the policy rated 0."""
    return METHODS.format(anchor=anchor)


METHODS = (
    "Each pair of policies played the same deals with the seats alternating between them "
    "and rotated round the table (each deal once per rotation, every player keeping its own "
    "luck), so seat effects cancel. Ratings are the maximum-likelihood strengths of a Luce "
    "choice model (Bradley-Terry with two players; a shared win splits among its winners), "
    "fitted with Hunter's MM algorithm (a pseudo-game of half a win each way against "
    "{anchor} keeps every rating finite) and shown as Elo, 400 log10(strength), {anchor} "
    "at 0; "
    "95% intervals are percentiles of refits on deals resampled within each pairing; an "
    "end the data cannot bound (a policy that won, or lost, every game linking it to "
    "{anchor}, in the data or in 2.5% or more of the resamples) is infinite, and an end the "
    "resamples cannot move off the rating is the profile-likelihood bound (games counted as "
    "independent; exact Clopper-Pearson for a single pairing won or lost outright), so "
    "only {anchor}'s interval has zero width. "
    "Balance by policy: every seat plays the policy; seat rates have Wilson intervals, "
    "flags are exact binomial tests against the fair share, Holm-adjusted, at 99%, and "
    "the balance interval is that of the run reports.")


@dataclass
class LadderReport:
    """A finished ladder folder's tables as simcli wrote them, and its manifest."""

    folder: Path
    ratings: pl.DataFrame
    balance: pl.DataFrame
    manifest: dict[str, Any]


def rerender_ladder(folder: Path) -> LadderReport:
    """Re-render a finished ladder folder's tables, charts and reports from its ratings and
    balance-by-policy tables (each checked against the SHA-256 simcli recorded when it
    wrote it)."""
    from simcli.runfolder import load_tables, need_fields, need_table, render_in_place

    paths = {n: f"tables/{n}.parquet" for n in ("ratings", "balance_by_policy")}
    man, loaded = load_tables(folder, "ladder", tuple(paths.values()))
    need_fields(man, folder, "ladder", {
        "game": str, "anchor": str, "players": int, "deals_per_pairing": int,
        "self_play_games": int, "seed": int, "tool_version": str})
    conv = man.get("convergence")  # none in a folder of a simcli without --converge
    if conv is not None and not (isinstance(conv, dict) and isinstance(conv.get("text"), str)):
        raise UserError(f"{folder}: damaged ladder folder: its convergence check has no text")
    rt, bt = loaded[paths["ratings"]], loaded[paths["balance_by_policy"]]
    need_table(rt, folder / paths["ratings"], numbers=("elo", "ci_low", "ci_high"),
               texts=("policy",))
    need_table(bt, folder / paths["balance_by_policy"],
               numbers=("elo", "balance", "balance_ci_low", "balance_ci_high", "fair_share",
                        "games", "seat1", "seat1_ci_low", "seat1_ci_high"),
               texts=("policy", "flagged_seats"), maybe_null=("fair_share",))
    if sorted(rt["policy"]) != sorted(bt["policy"]):
        raise UserError(f"{folder}: damaged ladder folder: its ratings and balance tables "
                        f"name different policies")
    game = get_game(man["game"])
    render_in_place(folder, lambda tmp: write_ladder(tmp, game, rt, bt, man))
    return LadderReport(folder, rt, bt, man)
