"""Samurai: The Card Game report: the shared seat and length sections (reports/sections.py), and
the game's own (tables.py, findings.py, charts.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from reports import sections as S
from reports.fairness import seat_fairness
from reports.samurai_card_game.charts import chart_list
from reports.samurai_card_game.findings import findings
from reports.samurai_card_game.tables import (
    card_table,
    marker_table,
    other_table,
    share_rows,
)
from reports.stats import rate
from reports.summary import LongTable, Summary

SECTIONS = {  # key: (title, what the table shows)
    "seats": ("Seats", "Outright win rate per seat (seat 1 plays first) against the fair "
              "share (reports.fairness); shared victories and eliminations per seat."),
    "outcomes": ("Outcomes and end reasons", "Outright winner, shared victory (a tie that "
                 "remains) or no winner (nobody dominates: not a shared victory); the winner "
                 "rule's branch; end reasons (several can hold) and their combinations."),
    "markers": ("Markers", "Markers per game by seat and shape; shapes dominated per seat."),
    "lengths": ("Game length", "Turns (cards played), villages placed and scored per game."),
    "cards": ("Cards", "Per kind of card: scorings it counted in won by its owner; its "
              "owner's share of the markers of the villages it touched; its plays by the "
              "outright winner. Intervals clustered by game (ratio estimator)."),
    "other": ("Other figures", "Ties per scoring and cells opened per play (clustered by "
              "game), substitutes, discarded tied markers, chains, openings left empty."),
}


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Samurai: The Card Game run."""
    seats, games, players = list(manifest["seats"]), s["games"], s["players"]
    long = LongTable()
    fair = seat_fairness(np.asarray(s["wins"]), games)
    extra = {"shared_victories": [int(v) for v in s["shared"]],
             "shared_rate": [rate(v, games).value for v in s["shared"]],
             "eliminated_rate": [rate(v, games).value for v in s["eliminated"]]}
    for q, what in ((q, w) for q in range(players) for w in ("shared", "eliminated")):
        long.add("seats", f"{what}_rate", f"seat {q + 1}", rate(s[what][q], games))
    series = {"turns": s["length"], "villages placed": s["villages_placed"],
              "villages scored": s["villages_scored"]}
    outcomes = [row for kind, key in (("outcome", "outcome"), ("decided by", "winby"),
                                      ("end reason", "ends"), ("end combination", "end_combos"))
                for row in share_rows(long, kind, s[key], games)]
    tables = {"seats": S.seat_table(fair, seats, long, extra),
              "outcomes": pl.DataFrame(outcomes), "markers": marker_table(s, long),
              "lengths": S.length_table(series, "per_game", long),
              "cards": card_table(s, long), "other": other_table(s, long)}
    head = [S.headline(f"seat {r['seat']} win rate ({r['policy']})", r["win_rate"], r["ci_low"],
                  r["ci_high"], r["flag"] or S.fair_note(fair))
            for r in tables["seats"].iter_rows(named=True)]
    head += [S.headline(r["case"] if r["kind"] == "outcome" else f"ends by {r['case']}",
                   r["share"], r["ci_low"], r["ci_high"], "share of games")
             for r in tables["outcomes"].filter(pl.col("kind").is_in(["outcome", "end reason"])
                                                & (pl.col("games") > 0)).iter_rows(named=True)]
    head.append(S.length_headline(tables["lengths"].row(0, named=True), "mean_per_game",
                                  "game length (turns)", 2))
    sections = [(title, key, text) for key, (title, text) in SECTIONS.items()]
    return Summary(
        title=f"{manifest['game_title']}: balance report ({players} players)",
        headline=pl.DataFrame(head), tables=tables, long=long.frame(),
        findings=findings(s, fair, seats, tables, manifest["content"],
                          manifest.get("rules", {})),
        charts=chart_list(s, fair, tables, series), sections=sections,
        json={name: tables[name].to_dicts() for name in ("seats", "outcomes", "lengths",
                                                         "markers", "cards")},
    )
