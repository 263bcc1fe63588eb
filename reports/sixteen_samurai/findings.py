"""Sixteen Samurai report findings: plain-language statements with their intervals."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports import sections as S
from reports.sixteen_samurai.tables import MAX_HALF_WIDTH, MIN_FIELDED, MIN_GROUP, _pct
from reports.stats import Estimate, rate, z_value

Z95 = z_value(0.95)


def findings(fair, seats: list[str], t: dict[str, pl.DataFrame], content: dict) -> list[str]:
    """Plain-language statements a designer can act on, each with its interval."""
    out = S.seat_findings(fair)
    if len(set(seats)) > 1:
        out.append(f"Seats play different policies ({', '.join(seats)}): the seat figures "
                   f"measure the policies as much as the seats.")
    dec = t["declarer"].filter((pl.col("phase") == "Clan Conflict") & (pl.col("round") == "all"))
    for r in dec.iter_rows(named=True):
        f = r["fair_share"]
        won = Estimate(r["declarer_win_rate"], r["ci_low"], r["ci_high"], r["rounds"])
        out.append(f"The declarer wins {S.ci_text(won, 'rounds')} "
                   f"of the contested Clan Conflict rounds it fights, against a fair share of "
                   f"{_pct(f)}: an advantage of "
                   f"{S.pts_text(r['advantage'], r['ci_low'] - f, r['ci_high'] - f)}.")
    out.append(_length_sentence(t["lengths"]))
    cards = t["cards"].filter(pl.col("fielded") >= MIN_FIELDED)
    if cards.height >= 6:
        out += _card_sentences(cards)
    ct = t["clan_totals"]
    if ct.height > 4:
        cdf = np.cumsum(ct["clans"].to_numpy()) / ct["clans"].sum()
        q = [ct.filter(pl.Series(cdf <= 0.25)), ct.filter(pl.Series(cdf > 0.75))]
        if q[0].height and q[1].height:
            lw, hw = (rate(int((x["win_rate"] * x["clans"]).round().sum()),
                           int(x["clans"].sum())) for x in q)
            out.append(f"Clans in the lowest quarter of drafted ability totals win "
                       f"{S.ci_text(lw, 'clans')}; those in the highest quarter win "
                       f"{S.ci_text(hw, 'clans')}.")
    out.append(_battle_sentence(t["battle_cards"]))
    if content.get("assumed"):
        out.append(f"The roster '{content['name']}' is assumed (rating splits reconstructed); "
                   f"card-level findings depend on it. Run with --content to use the real "
                   f"ratings.")
    return out


def _length_sentence(lengths: pl.DataFrame) -> str:
    """Mean length per phase with its interval; a phase every game spent the same number
    of rounds in is stated as such."""
    parts = []
    for r in lengths.iter_rows(named=True):
        if r["min"] == r["max"]:
            parts.append(f"{r['phase']}: always {r['min']} rounds")
        else:
            mean = Estimate(r["mean_rounds"], r["ci_low"], r["ci_high"], r["games"])
            parts.append(f"{r['phase']}: {S.mean_text(mean)} rounds on average (sd "
                         f"{r['sd']:.2f})")
    return f"Game length (n = {lengths['games'][0]:,} games): " + "; ".join(parts) + "."


def _card_sentences(cards: pl.DataFrame) -> list[str]:
    """The strongest and weakest samurai by round edge, with intervals, flags and whether
    their order is resolved; the mean edge per printed total."""
    def edge(rows: pl.DataFrame) -> str:
        return "; ".join(
            f"{r['samurai']} (total {r['total']}, " + S.pts_text(
                r["round_edge"], r["edge_ci_low"], r["edge_ci_high"], r["fielded"], "rounds")
            + (f", {r['edge_flag']})" if r["edge_flag"] else ")")
            for r in rows.iter_rows(named=True))
    top, low = cards.head(3), cards.tail(3)
    out = [f"Strongest samurai by Clan Conflict round win rate above the fair share of their "
           f"rounds: {edge(top)}. Weakest: {edge(low)}."]
    flagged = cards.filter(pl.col("edge_flag") != "")
    first, second = top.row(0, named=True), top.row(1, named=True)
    resolved = first["edge_ci_low"] > second["edge_ci_high"]
    out.append(f"{flagged.height} of {cards.height} samurai differ from the fair share at the "
               f"99% level (Holm-adjusted across the cards); "
               + (f"{first['samurai']} is ahead of the next beyond both intervals."
                  if resolved else f"the order at the top is not resolved: "
                  f"{first['samurai']}'s and {second['samurai']}'s intervals overlap.")
               + " These are associations in play (who drafts and fields a card is a "
               "choice), not a card's causal value.")
    by_total = []
    for (total,), g in cards.group_by(["total"], maintain_order=False):
        k = g.height
        half = (g["edge_ci_high"] - g["edge_ci_low"]) / 2
        se = math.sqrt(float(((half / Z95) ** 2).sum())) / k  # cards taken as independent
        m = float(g["round_edge"].mean())
        by_total.append((total, m, m - Z95 * se, m + Z95 * se, k))
    out.append("Mean round edge of the samurai of each printed ability total: " + ", ".join(
        f"{t}: {S.pts_text(m, lo, hi, k, 'cards')}" for t, m, lo, hi, k in sorted(by_total))
        + ".")
    return out


def _battle_sentence(bt: pl.DataFrame) -> str:
    """The battle card whose game win rate gap (played vs never played) is largest in
    magnitude among those beyond their interval with enough games on both sides."""
    ok = bt.filter(pl.col("gap_note") == "")
    few = bt.height - ok.height
    beyond = ok.filter((pl.col("gap_ci_low") > 0) | (pl.col("gap_ci_high") < 0))
    tail = (f" {few} of {bt.height} cards have too few games without them (under "
            f"{MIN_GROUP} player-games, or an interval wider than +/-"
            f"{100 * MAX_HALF_WIDTH:.0f} points) and are not compared." if few else "")
    if not beyond.height:
        return (f"No battle card's game win rate differs between games it was played and "
                f"games it was not, beyond its 95% interval.{tail}")
    b = beyond.sort(pl.col("game_win_gap").abs(), descending=True).row(0, named=True)
    return (f"Battle card with the largest game win rate gap beyond its interval (played "
            f"vs never played): {b['card']}, "
            f"{S.pts_text(b['game_win_gap'], b['gap_ci_low'], b['gap_ci_high'])} "
            f"(n = {b['games_played']:,} player-games played, {b['games_unplayed']:,} "
            f"not); players "
            f"choose when to play a card, so read it as an association.{tail}")
