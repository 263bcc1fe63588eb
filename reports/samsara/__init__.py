"""Samsara report: the shared seat and length sections (reports/sections.py), and
the game's own (tables.py, findings.py, charts.py)."""

from __future__ import annotations

from typing import Any

import polars as pl

from reports import sections as SEC
from reports.fairness import seat_fairness
from reports.samsara.charts import chart_list
from reports.samsara.findings import findings
from reports.samsara.tables import (
    goal_table,
    loser_table,
    match_table,
    outcome_table,
    seat_table,
    skill_table,
    start_table,
)
from reports.summary import LongTable, Summary

SECTIONS = [
    ("Seats", "seats", "Win rate per seat against its fair share, with draws."),
    ("Start player", "start_player", "Start player against second player over every game "
     "(both games of a match, intervals clustered by match); test of the start player's "
     "share of decisive games against one half, flagged at 99%."),
    ("Outcomes", "outcomes", "How games ended, and how often a roll could be played with one "
     "die only (per turn, interval clustered by playout)."),
    ("Game length", "length", "Turns (one player's move) per game and per match."),
    ("Goals", "goals", "Goals on each scoring track at the end, and goals each seat moved "
     "into its own goal or the opponent's."),
    ("Loser's progress", "loser_progress", "Goals the loser had scored when someone won."),
]


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Samsara run."""
    seats = list(manifest["seats"])
    long = LongTable()
    unit = "matches" if s["match"] else "games"
    fair = seat_fairness(s["wins"], s["playouts"])
    lengths = {"game": s["game_length"], **({"match": s["length"]} if s["match"] else {})}
    t = {"seats": seat_table(s, seats, fair, long), "start_player": start_table(s, long),
         "outcomes": outcome_table(s, long),
         "length": SEC.length_table(lengths, "turns", long),
         "goals": goal_table(s, seats, long), "loser_progress": loser_table(s, long)}
    sections = list(SECTIONS)
    if s["match"]:
        t["match"] = match_table(s, seats, long)
        sections.append(("Match", "match", "Competition points per seat and match results "
                         "(their distribution: chart Match points)."))
    if seats[0] != seats[1]:
        t["skill"] = skill_table(s, seats)
        sections.append(("Skill gap", "skill", "Where the gap between the two policies is "
                         "measured: with --mirror every seed is played once per seating, each "
                         "player keeping its own dice, and the Mirrored seats table gives each "
                         "player's paired win rate."))
    draws = "drawn matches" if s["match"] else "Moksha"
    head = [SEC.headline(f"seat {r['seat']} win rate ({r['policy']}, {r['role']})"
                         if r["seat"] else f"draws ({draws})", r["win_rate"], r["ci_low"],
                         r["ci_high"], f"{r['games']:,} {unit}" if r["seat"] else "")
            for r in t["seats"].iter_rows(named=True)]
    sp = t["start_player"].row(2, named=True)
    head += [SEC.headline("start player's share of decisive games", sp["value"], sp["ci_low"],
                          sp["ci_high"], sp["flag"] or "no significant start-player edge (99%)"),
             SEC.length_headline(t["length"].row(0, named=True), "mean_turns",
                                 "game length (turns)")]
    json = {k: (t[k].to_dicts() if k in t else None) for k in
            ("seats", "start_player", "outcomes", "length", "goals", "match", "skill")}
    return Summary(title=f"{manifest['game_title']}: balance report (2 players, {unit})",
                   headline=pl.DataFrame(head), tables=t, long=long.frame(),
                   findings=findings(s, seats, t, fair, manifest["content"]),
                   charts=chart_list(s, seats, t, fair, lengths), sections=sections, json=json)
