"""Samurai Sword report charts."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from reports import charts as C
from reports import sections as S
from reports.summary import Chart


def chart_list(s: dict, t: dict[str, pl.DataFrame], fair) -> list[Chart]:
    P, teams, chars, sr = s["players"], t["teams"], t["characters"], t["seat_roles"]

    def team_chart(path: Path) -> None:
        C.bars_with_ci(path, [f"{r['team']}\n({P} players)" for r in teams.iter_rows(
            named=True)], teams["win_rate"], teams["ci_low"], teams["ci_high"],
            title=f"Team win rates, {P} players", ylabel="win rate (%)",
            reference=float(teams["equal_share"][0]), ref_label="equal share")

    def char_chart(path: Path) -> None:
        C.bars_with_ci(path, chars["character"].to_list(), chars["win_rate"],
                       chars["ci_low"], chars["ci_high"], title="Character win rates",
                       ylabel="team win rate of its player (%)",
                       reference=float(chars["average_player"][0]),
                       ref_label="average player")

    def seat_role_chart(path: Path) -> None:
        groups = {}
        for role in sr["role"].unique(maintain_order=True).to_list():
            by = {r["seat"]: r for r in sr.filter(pl.col("role") == role).iter_rows(
                named=True) if r["seat"] > 1}
            if by:
                groups[role] = tuple([by[k][c] if k in by else math.nan for k in
                                      range(2, P + 1)] for c in ("win_rate", "ci_low",
                                                                 "ci_high"))
        C.grouped_bars_with_ci(path, [str(k) for k in range(2, P + 1)], groups,
                               title="Win rate by seat clockwise from the Shogun, per role",
                               ylabel="win rate (%)",
                               xlabel="seat (clockwise from the Shogun in seat 1)")

    out = [Chart("team_win_rates", f"Team win rates with 95% intervals ({P} players)",
                 team_chart),
           Chart("character_win_rates", "Character win rates with 95% intervals", char_chart),
           S.seat_chart(fair, "Seats (on the winning team; seat 1 is the Shogun)"),
           S.length_chart({"turns": s["turns"]}, "Game length", "turns")]
    if P > 2 and sr.height:
        out.append(Chart("seat_roles", "Win rate by seat and role with 95% intervals",
                         seat_role_chart))
    return out
