"""Samurai & Katana report: the shared seat and length sections (reports/sections.py), and
the game's own (tables.py, findings.py, charts.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from reports import sections as S
from reports.fairness import seat_fairness
from reports.samurai_katana.charts import chart_list
from reports.samurai_katana.findings import findings
from reports.samurai_katana.tables import own_tables
from reports.stats import mean_from_moments
from reports.summary import LongTable, Summary

SECTIONS = [
    ("Seats", "seats", "Win rate per seat (seat 1 is the first Emperor and draws and places "
     "first) against the fair share; exact binomial p-values, Holm-adjusted across seats; "
     "final Honor with its interval; offices held per game."),
    ("Start draw: income", "start_income", "Win rate by the koku the starting territories "
     "yield per turn (every clan starts with the same clan points)."),
    ("Start draw: major city", "start_major", "Win rate by the major city drawn."),
    ("Start draw: clustering", "start_cluster", "Win rate by the most starting cities a clan "
     "has in one province."),
    ("Emperor catch-up", "catch_up", "How often the clan named Emperor after turn k (the "
     "fewest Honor) wins the game, among the games that reach turn k."),
    ("Game length", "lengths", "Turns per game."),
    ("Honor sources", "honor_sources", "Honor gained and lost per game by source, for all "
     "clans together and for the winner (mean with 95% interval)."),
    ("Provinces", "provinces", "Share of clan-turns a province is held whole, games in which "
     "someone held it whole at the end of some turn, and games whose winner holds it."),
    ("Campaign battles", "battles", "Battles by terrain: attacker win rate (95% interval), "
     "ties, emptied territories, mean losses."),
    ("Cards", "cards", "How often each card is played for its power and in combat, per game."),
    ("Combat odds (exact)", "odds", "Every army size pair and terrain case, both sides holding "
     "5 random cards and playing their strongest (exact enumeration)."),
    ("Other figures", "other", "Actions, moves, purchases, reactions and eliminations per "
     "game."),
]


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Samurai & Katana run."""
    seats = list(manifest["seats"])
    target = int(manifest["rules"].get("target-honor", 25))
    games, players, st = s["games"], s["players"], s["seat"]
    long = LongTable()
    fair = seat_fairness(np.asarray(s["wins"]), games)
    honor = [mean_from_moments(float(st["honor"][k]), float(st["honor_sq"][k]), games)
             for k in range(players)]
    for k, e in enumerate(honor):
        long.add("seats", "final_honor", f"seat {k + 1}", e)
    extra = {"final_honor": [e.value for e in honor],
             "emperor_turns_per_game": list(st["emperor_turns"] / games),
             "shogun_turns_per_game": list(st["shogun_turns"] / games),
             "eliminated_rate": list(st["eliminated"] / games)}
    tables = {"seats": S.seat_table(fair, seats, long, extra),
              "lengths": S.length_table({"turns": s["lengths"]}, "turns", long),
              **own_tables(s, long)}
    headline = [{"figure": f"seat {r.seat} win rate ({seats[r.seat - 1]})",
                 "value": S.pct(r.rate.value),
                 "95% interval": f"{S.pct(r.rate.lo)} - {S.pct(r.rate.hi)}",
                 "note": "differs from fair (99%)" if r.flagged else
                 S.fair_note(fair)} for r in fair.seats]
    ln = tables["lengths"].row(0, named=True)
    headline.append({"figure": "game length (turns)", "value": f"{ln['mean_turns']:.2f}",
                     "95% interval": f"{ln['ci_low']:.2f} - {ln['ci_high']:.2f}",
                     "note": f"sd {ln['sd']:.2f}"})
    cu = tables["catch_up"].filter(pl.col("turn") == s["catch_up_turn"])
    if cu.height:
        r = cu.row(0, named=True)
        headline.append({"figure": f"last place after turn {r['turn']} wins",
                         "value": S.pct(r["win_rate"]),
                         "95% interval": f"{S.pct(r['ci_low'])} - {S.pct(r['ci_high'])}",
                         "note": f"even chance {S.pct(r['fair'])}"})
    json = {k: tables[k].to_dicts() for k in ("seats", "lengths", "catch_up", "honor_sources",
                                               "provinces", "battles")}
    return Summary(
        title=f"{manifest['game_title']}: balance report ({players} players)",
        headline=pl.DataFrame(headline), tables=tables, long=long.frame(),
        findings=findings(s, seats, fair, tables, manifest["content"], target,
                          manifest["rules"]),
        charts=chart_list(s, fair, tables, target), sections=SECTIONS, json=json,
    )
