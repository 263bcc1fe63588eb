"""Samurai Sword report: the shared seat and length sections (reports/sections.py), and
the game's own (tables.py, findings.py, charts.py)."""

from __future__ import annotations

from typing import Any

import polars as pl

from reports import sections as S
from reports.fairness import seat_fairness
from reports.samurai_sword.charts import chart_list
from reports.samurai_sword.findings import findings
from reports.samurai_sword.tables import (
    by_role_table,
    card_table,
    character_table,
    end_table,
    other_table,
    role_table,
    team_table,
)
from reports.summary import LongTable, Summary

SECTIONS = [
    ("Teams", "teams", "Win rate of each team (Shogun with Samurai, Ninjas, Ronin) by Honor "
     "or by the Victory of the Swordmaster, against an equal share; mean team score in "
     "games decided on Honor; flags Holm-adjusted across teams."),
    ("Roles", "roles", "Win rate of each role (a player wins when its team wins)."),
    ("Seats", "seats", "Seat 1 is the Shogun; seats follow clockwise. A seat wins when its "
     "player's team wins (a team game: no fair share per seat; see Seats by role)."),
    ("Seats by role", "seat_roles", "Each role's win rate in each seat against that role's "
     "overall rate: the seat effect with the role held fixed."),
    ("Characters", "characters", "How often the player of each character is on the "
     "winning team, against the average player (characters are dealt at random)."),
    ("Characters by role", "character_roles", "Each character within each role, against "
     "that role's win rate."),
    ("End of the game", "ends", "Why games ended."),
    ("Length", "lengths", "Turns per game."),
    ("Cards", "cards", "How often each card is played per game."),
    ("Other figures", "other", "Parries, ties, Deadly Strikes, Bushido, reshuffles, the "
     "score margin and character abilities. Rates over several events of one game "
     "(attacks parried, Battle Cries parried, defeats by a teammate, Bushido paid with "
     "Honor) have cluster-robust intervals (ratio estimator over per-game sums), the games "
     "being independent, not the events."),
]


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Samurai Sword run."""
    seats = list(manifest["seats"])
    P = s["players"]
    long = LongTable()
    fair = seat_fairness(s["seat"][:P, :, 1].sum(axis=1), s["games"], team=True)
    tables = {
        "teams": team_table(s, long),
        "roles": role_table(s, long),
        "seats": S.seat_table(fair, seats, long, {
            "distance_from_shogun": [min(k, P - k) for k in range(P)]}),
        "seat_roles": by_role_table(s, s["seat"], list(range(1, P + 1)), "seat", long,
                                    "seat_roles"),
        "characters": character_table(s, long),
        "character_roles": by_role_table(s, s["chars"], list(s["char_names"]), "character",
                                         long, "character_roles"),
        "ends": end_table(s, long),
        "lengths": S.length_table({"whole game": s["turns"]}, "turns", long),
        "cards": card_table(s),
        "other": other_table(s, long),
    }
    head = [S.headline(f"{r['team']} win rate", r["win_rate"], r["ci_low"], r["ci_high"],
                       r["flag"] or f"equal share {S.pct(r['equal_share'])}")
            for r in tables["teams"].iter_rows(named=True)]
    head += [S.headline(f"ends: {r['end']}", r["share"], r["ci_low"], r["ci_high"])
             for r in tables["ends"].filter(pl.col("games") > 0).iter_rows(named=True)]
    head.append(S.length_headline(tables["lengths"].row(0, named=True), "mean_turns",
                                  "game length (turns)"))
    return Summary(
        title=f"{manifest['game_title']}: balance report ({P} players)",
        headline=pl.DataFrame(head), tables=tables, long=long.frame(),
        findings=findings(s, seats, tables, manifest["content"]),
        charts=chart_list(s, tables, fair), sections=SECTIONS,
        json={k: tables[k].to_dicts() for k in ("teams", "seats", "characters", "ends",
                                                 "lengths")},
    )
