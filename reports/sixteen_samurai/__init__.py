"""Sixteen Samurai report: the shared seat and length sections (reports/sections.py), and
the game's own (tables.py, findings.py, charts.py)."""

from __future__ import annotations

from typing import Any

import polars as pl

from reports import sections as S
from reports.fairness import seat_fairness
from reports.sixteen_samurai.charts import chart_list
from reports.sixteen_samurai.findings import findings
from reports.sixteen_samurai.tables import (
    ability_table,
    battle_table,
    card_table,
    clan_total_table,
    declarer_table,
    other_table,
)
from reports.summary import LongTable, Summary

SECTIONS = [
    ("Seats", "seats", "Win rate per seat (draft order: seat 1 picks first) against the fair "
     "share; exact two-sided binomial test, Holm-adjusted across the seats (the flag uses "
     "the adjusted value)."),
    ("Declarer advantage", "declarer", "How often the player who declared the ability wins "
     "the rounds it fights, per round, against the fair share of the players in those "
     "rounds (flags Holm-adjusted across the rows of each phase)."),
    ("Declared abilities", "abilities", "Share of declarations per ability and the "
     "declarer's win rate with it."),
    ("Game length", "lengths", "Rounds per phase: mean with 95% interval, sd, quantiles."),
    ("Samurai cards", "cards", "Per card: how often and how early it is drafted, its Clan "
     "Conflict round win rate when fielded against the fair share of those rounds "
     "(round_edge; interval clustered by game), its Final Battle round win rate, how often "
     "it reaches the Final Battle and survives to the end, and its owner's game win rate."),
    ("Clan ability total", "clan_totals", "Win rate by the sum of the printed ability "
     "totals of the samurai a clan drafted."),
    ("Battle cards", "battle_cards", "Share of rounds whose samurai the player took when it "
     "played the card vs when it held it without playing; game win rate when played vs "
     "never played (with several copies per clan, content [battle]: at least one copy "
     "played, held); unused_at_end_rate counts copies left unplayed per player-game; "
     "effects_per_game counts Ronin steals and Medicine saves."),
    ("Other figures", "other", "Tiebreakers, uncontested rounds, reshuffles, completion and "
     "Final Battle entrants."),
]


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Sixteen Samurai run."""
    seats = list(manifest["seats"])
    long = LongTable()
    fair = seat_fairness(s["wins"], s["games"])
    lengths = {"Clan Conflict": s["len_cc"], "Final Battle": s["len_fb"],
               "Whole game": s["len_total"]}
    tables = {
        "seats": S.seat_table(fair, seats, long), "declarer": declarer_table(s, long),
        "abilities": ability_table(s, long), "lengths": S.length_table(lengths, "rounds", long),
        "cards": card_table(s, long), "clan_totals": clan_total_table(s, long),
        "battle_cards": battle_table(s, long), "other": other_table(s, long),
    }
    dec = tables["declarer"].filter(
        (pl.col("phase") == "Clan Conflict") & (pl.col("round") == "all"))
    head = [S.headline(f"seat {r['seat']} win rate ({r['policy']})", r["win_rate"],
                       r["ci_low"], r["ci_high"], r["flag"] or S.fair_note(fair))
            for r in tables["seats"].iter_rows(named=True)]
    head += [S.headline("declarer round win rate (Clan Conflict)", r["declarer_win_rate"],
                        r["ci_low"], r["ci_high"], f"fair {S.pct(r['fair_share'])}")
             for r in dec.iter_rows(named=True)]
    head += [S.headline(f"{r['phase']} length (rounds)", r["mean_rounds"], r["ci_low"],
                        r["ci_high"], f"sd {r['sd']:.2f}, median "
                        f"{r.get('p50', float('nan')):.0f}", 2)
             for r in tables["lengths"].iter_rows(named=True)]
    return Summary(
        title=f"{manifest['game_title']}: balance report ({manifest['players']} players)",
        headline=pl.DataFrame(head), tables=tables, long=long.frame(),
        findings=findings(fair, seats, tables, manifest["content"]),
        charts=chart_list(fair, lengths, tables, s["players"]), sections=SECTIONS,
        json={"seats": tables["seats"].to_dicts(),
              "declarer_clan_conflict": dec.to_dicts()[0] if dec.height else None,
              "lengths": tables["lengths"].to_dicts(),
              "battle_cards": tables["battle_cards"].to_dicts()},
    )
