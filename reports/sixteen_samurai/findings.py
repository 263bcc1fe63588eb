"""Sixteen Samurai report findings: plain-language statements with their intervals."""

from __future__ import annotations

import numpy as np
import polars as pl

from reports import sections as S
from reports.sixteen_samurai.tables import MIN_FIELDED, _pct
from reports.stats import rate


def findings(fair, seats: list[str], t: dict[str, pl.DataFrame], content: dict) -> list[str]:
    """Plain-language statements a designer can act on, each with its interval."""
    out = S.seat_findings(fair)
    if len(set(seats)) > 1:
        out.append(f"Seats play different policies ({', '.join(seats)}): the seat figures "
                   f"measure the policies as much as the seats.")
    dec = t["declarer"].filter((pl.col("phase") == "Clan Conflict") & (pl.col("round") == "all"))
    for r in dec.iter_rows(named=True):
        out.append(f"The declarer wins {_pct(r['declarer_win_rate'])} (95% CI "
                   f"{_pct(r['ci_low'])}-{_pct(r['ci_high'])}) of the contested Clan Conflict "
                   f"rounds it fights, against a fair share of {_pct(r['fair_share'])}: an "
                   f"advantage of {100 * r['advantage']:+.1f} points.")
    ln, sd = t["lengths"]["mean_rounds"], t["lengths"]["sd"]
    out.append(f"A game lasts {ln[2]:.2f} rounds on average (sd {sd[2]:.2f}): {ln[0]:.2f} in "
               f"the Clan Conflict and {ln[1]:.2f} in the Final Battle.")
    cards = t["cards"].filter(pl.col("fielded") >= MIN_FIELDED)
    if cards.height >= 6:
        def edge(rows: pl.DataFrame) -> str:
            return "; ".join(f"{r['samurai']} (total {r['total']}, "
                             f"{100 * r['round_edge']:+.1f} pts)" for r in rows.iter_rows(
                                 named=True))
        out.append(f"Strongest samurai by round win rate above fair share: "
                   f"{edge(cards.head(3))}. Weakest: {edge(cards.tail(3))}.")
        by_total = cards.group_by("total").agg(pl.col("round_edge").mean()).sort("total")
        out.append("Mean round edge by printed ability total: " + ", ".join(
            f"{r['total']}: {100 * r['round_edge']:+.1f} pts"
            for r in by_total.iter_rows(named=True)) + ".")
    ct = t["clan_totals"]
    if ct.height > 4:
        cdf = np.cumsum(ct["clans"].to_numpy()) / ct["clans"].sum()
        q = [ct.filter(pl.Series(cdf <= 0.25)), ct.filter(pl.Series(cdf > 0.75))]
        if q[0].height and q[1].height:
            lw, hw = (rate(int((x["win_rate"] * x["clans"]).round().sum()),
                           int(x["clans"].sum())) for x in q)
            out.append(f"Clans in the lowest quarter of drafted ability totals win "
                       f"{S.ci_text(lw)}; those in the highest quarter win {S.ci_text(hw)}.")
    bt = t["battle_cards"].filter(pl.col("game_win_gap").is_not_nan())
    if bt.height:
        b = bt.sort("game_win_gap", descending=True).row(0, named=True)
        out.append(f"Battle card with the largest game win rate gap (played vs not): "
                   f"{b['card']} ({_pct(b['game_win_played'])} vs "
                   f"{_pct(b['game_win_unplayed'])}); a player's choices shape these "
                   f"figures, so read them as associations.")
    if content.get("assumed"):
        out.append(f"The roster '{content['name']}' is assumed (rating splits reconstructed); "
                   f"card-level findings depend on it. Run with --content to use the real "
                   f"ratings.")
    return out
