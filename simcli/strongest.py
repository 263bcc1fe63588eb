"""The study's skill check: a game's balance when every seat plays the strongest policy the
study can afford, and whether the verdict at the default policy still holds.

The strongest policy is the game's search player at its study budget
(`SearchSpec.study_budget`: a fixed number, so that a study's figures are the same on any
machine, chosen per game as the smallest budget measured to play at least as well as the
best heuristic policy), or, for a game without one (or whose search player is not yet
stronger than its heuristics: study budget 0), the policy with the largest skill edge over
random. Its seat (or team) win rates are compared with the default run's, each
difference with a Newcombe interval.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from reports.fairness import Fairness, seat_fairness
from reports.sections import ci_text, pts_text
from reports.stats import newcombe, rate
from reports.study import verdict_word
from simcli import converge as C
from simcli import engine
from simcli.analysis import core_of, metrics_of
from simcli.games.base import Game
from simcli.run import build_config, run_game
from simcli.runfolder import load_finished

STRONG_GAMES = 100
QUICK_STRONG_GAMES = 30


def strongest_policy(game: Game, skills: list[dict]) -> str:
    """The strongest policy a study plays on every seat."""
    if game.search is not None and game.search.study_budget > 0:
        return f"{game.search.name}:{game.search.study_budget}"
    best = max(skills, key=lambda r: r["edge"], default=None)
    return game.default_policy if best is None else best["policy"]


def _rates(fair: Fairness, metrics) -> dict[str, tuple[int, int]]:
    """(wins, games) per seat, or per team in a team game."""
    if not fair.team:
        return {f"seat {r.seat}": (r.wins, fair.games) for r in fair.seats}
    return {f"team {r['metric'].removeprefix('team_win.')}": (round(r["value"] * fair.games),
                                                           fair.games)
            for r in metrics.iter_rows(named=True) if r["metric"].startswith("team_win.")}


def strongest_balance(game: Game, *, players: int, default_policy: str, default_fair: Fairness,
                      default_metrics, skills: list[dict], seed: int, threads: int,
                      out: Path, quick: bool, converge: bool = False,
                      progress: engine.Progress | None = None) -> dict[str, Any]:
    """Play every seat with the strongest policy; compare its balance with the default's."""
    policy = strongest_policy(game, skills)
    if policy == default_policy:
        return {"policy": policy, "same_as_default": True, "text":
                f"Skill: no policy stronger than {policy}, the default, to compare with."}
    n = QUICK_STRONG_GAMES if quick else STRONG_GAMES
    _, cfg = build_config(game.name, players=players, policy=policy, seats=None, n=n,
                          seed=seed, threads=threads, rules=[], content=None, out=out,
                          force=False, save_games=False, chunk_size=None, html=True)
    result = run_game(cfg, progress)
    manifest, aggs = load_finished(result.folder)
    metrics = metrics_of(game, aggs, players)
    core = core_of(game, aggs, players)
    fair = seat_fairness(core.seat_wins, core.games, game.team_game)
    before, after = _rates(default_fair, default_metrics), _rates(fair, metrics)
    shifts = []
    for key, (k2, n2) in after.items():
        k1, n1 = before.get(key, (0, 0))
        d = newcombe(k2, n2, k1, n1)
        shifts.append({"who": key, "default": k1 / n1 if n1 else float("nan"),
                       "strong": k2 / n2, "difference": d.value, "ci_low": d.lo,
                       "ci_high": d.hi, "significant": bool(d.lo > 0 or d.hi < 0)})
    word_before, word_after = verdict_word(default_fair), verdict_word(fair)
    moved = [s for s in shifts if s["significant"]]
    # The strong run has far fewer games: its flagging nothing where the default run flags a
    # seat is no evidence by itself; a seat's rate moving, or a new flag, is.
    changed = bool(moved) or (not fair.team and bool(fair.flagged)
                              and not default_fair.flagged)
    text = (f"Skill: with {policy} on every seat (n = {n:,} games), "
            + ", ".join(f"{s['who']} wins {ci_text(rate(*after[s['who']]))} "
                        f"({ci_text(rate(*before[s['who']]))} with {default_policy})"
                        if s["who"] in before else
                        f"{s['who']} wins {ci_text(rate(*after[s['who']]))}" for s in shifts)
            + (f"; balance {fair.balance.value:.3f} (95% CI {fair.balance.lo:.3f}-"
               f"{fair.balance.hi:.3f})" if not fair.team else "") + ". ")
    if word_before != word_after and changed:
        text += (f"The verdict changes with skill: '{word_before}' with {default_policy}, "
                 f"'{word_after}' with {policy}" + ("; " + "; ".join(
                     f"{s['who']} moves {pts_text(s['difference'], s['ci_low'], s['ci_high'])}"
                     for s in moved) if moved else "") + ".")
    elif word_before != word_after:
        text += (f"The verdict's word differs ('{word_after}' with {policy}, '{word_before}'"
                 f" with {default_policy}), but that is not evidence that skill changes it: "
                 f"no seat's rate differs from {default_policy}'s at the 95% level, and "
                 f"{n:,} games are too few to flag a gap of the size {default_policy}'s run "
                 f"flags.")
    elif moved:
        text += ("The verdict's word stays '" + word_after + "', but "
                 + "; ".join(f"{s['who']} moves "
                             f"{pts_text(s['difference'], s['ci_low'], s['ci_high'])}"
                             for s in moved)
                 + ": the balance depends on how well the game is played.")
    else:
        text += ("The verdict does not change with skill at this precision: no seat or team "
                 "rate differs from the default policy's at the 95% level.")
    conv = None
    if converge:
        if progress is not None:
            progress.stage(f"{game.title}: does the verdict hold at "
                           f"{C.FACTOR}x the budget?")
        conv = C.convergence(game, players, policy, seed, threads, progress)
        text += " " + conv["text"]
    else:
        timing = manifest.get("timing") or {}
        per_game = (timing.get("run_s", math.nan) * manifest.get("threads", 1)
                    / max(manifest.get("playouts", 1), 1))
        hint = C.not_checked(game, policy, per_game, threads)
        text += (" " + hint) if hint else ""
    return {"policy": policy, "same_as_default": False, "games": n, "folder": out.name,
            "verdict_word": word_after, "changed": changed, "shifts": shifts,
            "fairness": fair.as_json(), "text": text, "manifest_seats": manifest["seats"],
            "convergence": conv}
