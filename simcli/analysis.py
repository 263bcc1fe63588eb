"""What every run adds to its game's own report: the metric catalogue, mirrored seat
estimates and the stopping rule. Also used by compare, sweep and check."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from reports.metrics import Core, catalogue, mirror_table
from reports.stats import Estimate
from reports.summary import Summary
from reports.words import plural
from simcli.games.base import Content, Game

MIRROR_KEYS = ("mirror_seat", "mirror_player")


def core_of(game: Game, aggs: dict[str, np.ndarray], players: int) -> Core:
    """A game's core counts (its statistics without the run's mirror counts)."""
    return game.core_stats({k: v for k, v in aggs.items() if k not in MIRROR_KEYS}, players)


def metrics_of(game: Game, aggs: dict[str, np.ndarray], players: int,
               confidence: float = 0.95) -> pl.DataFrame:
    """The full catalogue of a run's aggregates (shared metrics and the game's own)."""
    game_aggs = {k: v for k, v in aggs.items() if k not in MIRROR_KEYS}
    return catalogue(core_of(game, aggs, players), game.own_metrics(game_aggs, players),
                     confidence, game.seat_win_meaning, game.team_game)


def full_summary(game: Game, aggs: dict[str, np.ndarray], manifest: dict[str, Any],
                 content: Content) -> Summary:
    """The game's report plus the catalogue, mirrored estimates and stopping rule."""
    game_aggs = {k: v for k, v in aggs.items() if k not in MIRROR_KEYS}
    summary = game.report(game_aggs, manifest, content)
    metrics = metrics_of(game, aggs, manifest["players"])
    summary.tables = {"metrics": metrics, **summary.tables}
    intro = ("Metric catalogue", "metrics", "The metrics every game reports the same way, each "
             "with its 95% interval and n, and what it means.")
    summary.sections = [intro, *summary.sections]
    rows = [{"section": "metrics", "metric": r["metric"], "key": "", "value": r["value"],
             "ci_low": r["ci_low"], "ci_high": r["ci_high"], "n": r["n"], "flag": ""}
            for r in metrics.iter_rows(named=True)]
    extra = [pl.DataFrame(rows, schema=summary.long.schema)]
    summary.json["metrics"] = metrics.to_dicts()
    if "mirror_seat" in aggs:
        mt = mirror_table(aggs["mirror_seat"], aggs["mirror_player"], list(manifest["seats"]))
        summary.tables["mirror"] = mt
        summary.sections.append((
            "Mirrored seats", "mirror",
            "Each deal was played once per seat rotation, every player taking its own luck "
            "(shuffles, dice, choices) from seat to seat. win_rate averages each deal's "
            "rotations first (paired); se_unpaired is what the same number of independent "
            "games would give; variance_reduction = (se_unpaired / se_paired)^2."))
        summary.json["mirror"] = mt.to_dicts()
        for r in mt.iter_rows(named=True):
            extra.append(pl.DataFrame([{
                "section": "mirror", "metric": f"{r['kind']}_win_rate_paired", "key": r["who"],
                "value": r["win_rate"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                "n": r["deals"], "flag": ""}], schema=summary.long.schema))
        seats = mt.filter(pl.col("kind") == "seat")
        factors = seats["variance_reduction"].drop_nans()
        head = f"Mirrored play ({seats['deals'][0]:,} deals x {len(manifest['seats'])} rotations)"
        if factors.len() == 0:
            summary.findings.insert(0, f"{head}: every deal ended alike in every rotation, so "
                                       f"the intervals are Wilson intervals over the games.")
        else:
            lo, hi = factors.min(), factors.max()
            verdict = ("pairing helped" if lo > 1 else "pairing did not help here" if hi < 1
                       else "pairing helped some seats only")
            summary.findings.insert(0, (
                f"{head}: the variance of the seat estimates fell by a factor of "
                f"{lo:.2f}-{hi:.2f} against unpaired play of as many games (above 1: "
                f"{verdict})."))
    summary.tables["readings"] = readings_table(game, manifest["rules"])
    summary.sections.append((
        "Readings", "readings",
        "How this run read every point the rulebook leaves open: each rule option in force "
        "(switch with --rule NAME=VALUE), then the readings that are not options."))
    summary.json["readings"] = summary.tables["readings"].to_dicts()
    summary.long = pl.concat([*extra, summary.long])
    stop = manifest.get("stopping")
    if stop:
        summary.findings.insert(0, (
            f"Stopping rule: play until every seat win rate's 95% half-width is at most "
            f"{stop['target_ci']} (or {stop['max_playouts']:,} playouts); stopped at "
            f"{stop['playouts']:,} playouts after {plural(len(stop['rounds']), 'round')} "
            f"with half-width "
            f"{stop['half_width']:.4f} ({'reached' if stop['reached'] else 'NOT reached'})."))
    return summary


def readings_table(game: Game, rules: dict[str, str]) -> pl.DataFrame:
    """The readings in force: every rule option with its value (and whether that is the
    default), then the game's fixed readings."""
    rows = [{"reading": r.name, "in_force": rules.get(r.name, r.default),
             "default": r.default, "choices": "|".join(r.choices), "meaning": r.help}
            for r in game.rules]
    rows += [{"reading": "fixed", "in_force": text, "default": "", "choices": "",
              "meaning": ""} for text in game.fixed_readings]
    return pl.DataFrame(rows, schema={"reading": pl.Utf8, "in_force": pl.Utf8,
                                      "default": pl.Utf8, "choices": pl.Utf8,
                                      "meaning": pl.Utf8})


def estimate(row: dict[str, Any]) -> Estimate:
    """A catalogue row as an Estimate."""
    return Estimate(row["value"], row["ci_low"], row["ci_high"], row["n"])
