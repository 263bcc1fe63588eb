"""Sixteen Samurai report charts."""

from __future__ import annotations

import numpy as np
import polars as pl

from reports import charts as C
from reports import sections as S
from reports.summary import Chart


def chart_list(fair, lengths: dict, t: dict[str, pl.DataFrame], players: int) -> list[Chart]:
    dec = t["declarer"].filter((pl.col("phase") == "Clan Conflict") & (pl.col("round") != "all"))
    cards = t["cards"].filter(pl.col("fielded") > 0).sort("total")
    bt, ct = t["battle_cards"], t["clan_totals"].filter(pl.col("clans") >= 100)
    edge = [cards[k] - cards["round_fair_share"] for k in
            ("round_win_rate", "round_ci_low", "round_ci_high")]
    out = [
        Chart("seat_win_rates", "Seat win rates against the fair share (points), 95% "
              "intervals", S.seat_chart(fair, "Seat win rates").draw),
        S.length_chart(lengths, "Game length", "rounds"),
        Chart("card_power", "Card power (round win rate above fair share) vs ability total",
              lambda p: C.scatter_with_ci(
                  p, cards["total"], *edge, labels=cards["samurai"].to_list(),
                  reference=0.0, title="Card power vs printed ability total",
                  xlabel="ability total", ylabel="round win rate above fair share (pts)")),
        Chart("battle_cards", "Battle cards: rounds taken when played vs held. Not the "
              "card's value: a player chooses when to play it (a Ronin is played on a round "
              "it can take), so the gap is a selection effect as much as strength; `simcli "
              "value sixteen-samurai` measures each card's causal value",
              lambda p: C.grouped_bars_with_ci(p, bt["card"].to_list(), {
                  "round taken when played": (bt["round_take_played"], bt["played_ci_low"],
                                              bt["played_ci_high"]),
                  "round taken when held, not played": (
                      bt["round_take_held"], bt["held_ci_low"], bt["held_ci_high"])},
                  title="Rounds taken when played vs held (association, not value)",
                  ylabel="rounds taken (%)")),
    ]
    if dec.height:
        out.append(Chart("declarer", "Declarer win rate per Clan Conflict round",
                         lambda p: C.line_with_band(
                             p, np.arange(1, dec.height + 1), dec["declarer_win_rate"],
                             dec["ci_low"], dec["ci_high"], reference=dec["fair_share"],
                             ref_label="fair share", title="Declarer win rate per round",
                             xlabel="Clan Conflict round", ylabel="declarer win rate (%)")))
    if ct.height > 1:
        out.append(Chart("clan_total", "Win rate by drafted clan ability total",
                         lambda p: C.line_with_band(
                             p, ct["clan_total"], ct["win_rate"], ct["ci_low"],
                             ct["ci_high"], reference=1.0 / players, ref_label="fair share",
                             title="Win rate by drafted clan ability total",
                             xlabel="sum of ability totals drafted", ylabel="win rate (%)")))
    return out
