"""Sixteen Samurai report: the shared seat and length sections (reports/sections.py), and
the game's own: declarer, declared abilities, samurai cards, clan totals, battle cards."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from reports import charts as C
from reports import sections as S
from reports.fairness import seat_fairness
from reports.stats import Estimate, binomial_p, holm, mean_from_moments, rate, ratio_rate
from reports.summary import Chart, LongTable, Summary

FLAG_LEVEL = 0.01  # declarer rows are flagged when they differ from fair at the 99% level
MIN_FIELDED = 200  # cards fielded fewer times are left out of findings
_pct = S.pct


def _ci(e: Estimate) -> str:
    return f"{_pct(e.value)} (95% CI {_pct(e.lo)}-{_pct(e.hi)})"


def _per(k: float, n: float) -> float:
    return k / n if n else math.nan


def declarer_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Declarer win rate per round against the fair share of the players fighting it; the
    'all' row (several rounds a game) has its interval clustered by game."""
    rows = []
    for phase, key, clus in (("Clan Conflict", "decl_cc", "cc_declarer"),
                             ("Final Battle", "decl_fb", "fb_declarer")):
        d = s[key]  # (round, participants, [n, won])
        phase_rows = []
        for r in [*range(d.shape[0]), -1]:
            part = d.sum(axis=0) if r < 0 else d[r]
            n, won = int(part[:, 0].sum()), int(part[:, 1].sum())
            if n == 0:
                continue
            fair = float(sum(part[k, 0] / k for k in range(2, part.shape[0]))) / n
            e = ratio_rate(won, n, *s["clustered"][clus], s["games"]) if r < 0 else rate(won, n)
            label = "all" if r < 0 else (f"{r + 1}+" if r == d.shape[0] - 1 else str(r + 1))
            phase_rows.append({
                "phase": phase, "round": label, "rounds": n, "declarer_win_rate": e.value,
                "ci_low": e.lo, "ci_high": e.hi, "fair_share": fair,
                "advantage": e.value - fair, "p_value": binomial_p(won, n, fair)})
        for r, p_adj in zip(phase_rows, holm([r["p_value"] for r in phase_rows]), strict=True):
            r["p_adjusted"] = p_adj
            r["flag"] = "differs from fair (99%)" if p_adj < FLAG_LEVEL else ""
            long.add("declarer", f"win_rate_{phase}", r["round"], Estimate(
                r["declarer_win_rate"], r["ci_low"], r["ci_high"], r["rounds"]), r["flag"])
        rows += phase_rows
    return pl.DataFrame(rows)


def ability_table(s: dict, long: LongTable) -> pl.DataFrame:
    """How often each ability is declared and how often its declarer wins."""
    rows = []
    for ph, phase in enumerate(("Clan Conflict", "Final Battle")):
        d = s["decl_ability"][ph]
        for a, name in enumerate(s["abilities"]):
            share, win = rate(d[a, 0], int(d[:, 0].sum())), rate(d[a, 1], d[a, 0])
            long.add("abilities", f"declared_share_{phase}", name, share)
            long.add("abilities", f"declarer_win_rate_{phase}", name, win)
            rows.append({"phase": phase, "ability": name.upper(), "declared_share": share.value,
                         "declarer_win_rate": win.value, "ci_low": win.lo, "ci_high": win.hi,
                         "rounds": int(d[a, 0])})
    return pl.DataFrame(rows)


def card_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Per samurai: draft rate and position, round win rate when fielded (clustered by
    game), survival."""
    c, games = s["cards"], s["games"]
    rows = []
    for i, name in enumerate(c["name"]):
        drafted, fielded = int(c["drafted"][i]), int(c["fielded"][i])
        fair = _per(c["fielded_k2"][i] / 2 + c["fielded_k3"][i] / 3 + c["fielded_k4"][i] / 4,
                    fielded)
        est = {
            "avg_pick": mean_from_moments(float(c["pick_sum"][i]), float(c["pick_sq"][i]),
                                          drafted),
            "round_win_rate": ratio_rate(c["field_won"][i], fielded, c["clus_yy"][i],
                                         c["clus_xx"][i], c["clus_xy"][i], games),
            "final_battle_round_win_rate": rate(c["fb_won"][i], c["fb_fielded"][i]),
            "reaches_final_battle": rate(c["in_final"][i], drafted),
            "survives_to_end": rate(c["survived"][i], drafted),
            "owner_win_rate": rate(c["owner_won"][i], drafted),
        }
        for metric, e in est.items():
            long.add("cards", metric, name, e)
        pick, win, owner = est["avg_pick"], est["round_win_rate"], est["owner_win_rate"]
        rows.append({
            "samurai": name, "total": int(c["total"][i]),
            **{a: int(c[a][i]) for a in ("power", "speed", "armor", "karma")},
            "assumed": bool(c["assumed"][i]), "drafted": drafted,
            "draft_rate": _per(drafted, games), "avg_pick": pick.value,
            "avg_pick_ci_low": pick.lo, "avg_pick_ci_high": pick.hi, "fielded": fielded,
            "round_win_rate": win.value, "round_ci_low": win.lo, "round_ci_high": win.hi,
            "round_fair_share": fair, "round_edge": win.value - fair,
            "final_round_win_rate": est["final_battle_round_win_rate"].value,
            "reaches_final": est["reaches_final_battle"].value,
            "survives_to_end": est["survives_to_end"].value, "owner_win_rate": owner.value,
            "owner_ci_low": owner.lo, "owner_ci_high": owner.hi})
    return pl.DataFrame(rows).sort("round_edge", descending=True, nulls_last=True)


def clan_total_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Win rate by the sum of the ability totals a clan drafted."""
    d = s["clan_total"]
    rows = []
    for t in np.nonzero(d[:, 0])[0]:
        e = rate(d[t, 1], d[t, 0])
        long.add("clan_total", "win_rate", str(int(t)), e)
        rows.append({"clan_total": int(t), "clans": int(d[t, 0]), "win_rate": e.value,
                     "ci_low": e.lo, "ci_high": e.hi})
    return pl.DataFrame(rows, schema={"clan_total": pl.Int64, "clans": pl.Int64,
                                      "win_rate": pl.Float64, "ci_low": pl.Float64,
                                      "ci_high": pl.Float64})


def battle_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Value of each battle card: round and game outcomes when played vs not."""
    b, games = s["battle"], s["games"]
    rows = []
    for i, card in enumerate(b["card"]):
        est = {k: rate(b[f"{k}_won"][i], b[k][i]) for k in
               ("played_rounds", "held_rounds", "played_games", "unplayed_games")}
        for k, label in (("played_rounds", "round_take_rate_played"),
                         ("held_rounds", "round_take_rate_held"),
                         ("played_games", "game_win_rate_played"),
                         ("unplayed_games", "game_win_rate_unplayed")):
            long.add("battle_cards", label, card, est[k])
        played, held = est["played_rounds"], est["held_rounds"]
        gp, gu = est["played_games"].value, est["unplayed_games"].value
        player_games = int(b["played_games"][i] + b["unplayed_games"][i])
        rows.append({
            "card": card, "play_rate": _per(b["played_games"][i], player_games),
            "round_take_played": played.value, "played_ci_low": played.lo,
            "played_ci_high": played.hi, "round_take_held": held.value,
            "held_ci_low": held.lo, "held_ci_high": held.hi, "game_win_played": gp,
            "game_win_unplayed": gu, "game_win_gap": gp - gu,
            "unused_at_end_rate": _per(b["unused_at_end"][i], player_games),
            "effects_per_game": _per(b["effect"][i], games)})
    return pl.DataFrame(rows)


def other_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Tiebreakers, uncontested rounds, reshuffles, completion, Final Battle entrants."""
    m, games = s["misc"], s["games"]
    contested = m["contested_rounds"]
    items = [
        ("tiebreaker share of contested Clan Conflict rounds",  # clustered by game
         ratio_rate(m["tiebreak_rounds"], contested, *s["clustered"]["tiebreak"], games)),
        ("double Ninjutsu share of contested rounds", rate(m["double_ninjutsu"], contested)),
        ("games ending by the rules (not the round cap)",
         rate(games - m["capped_games"], games)),
    ]
    for label, e in items:
        long.add("other", label, "", e)
    rows = [{"figure": k, "value": e.value, "ci_low": e.lo, "ci_high": e.hi, "n": e.n}
            for k, e in items]
    rows += [{"figure": f"{k} per game", "value": _per(m[key], games), "ci_low": None,
              "ci_high": None, "n": games} for k, key in (
        ("uncontested Clan Conflict rounds", "uncontested_rounds"),
        ("battle-card reshuffles", "battle_reshuffles"),
        ("Final Battle rounds with a tiebreaker", "fb_tiebreak_rounds"))]
    for k in range(1, len(s["fb_players"])):
        e = rate(s["fb_players"][k], games)
        long.add("other", "final_battle_entrants", str(k), e)
        rows.append({"figure": f"games where {k} clan(s) enter the Final Battle",
                     "value": e.value, "ci_low": e.lo, "ci_high": e.hi, "n": games})
    return pl.DataFrame(rows, schema={"figure": pl.Utf8, "value": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "n": pl.Int64})


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
                       f"{_ci(lw)}; those in the highest quarter win {_ci(hw)}.")
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


def _charts(fair, lengths: dict, t: dict[str, pl.DataFrame], players: int) -> list[Chart]:
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
        Chart("battle_cards", "Battle card value: rounds taken when played vs held",
              lambda p: C.grouped_bars_with_ci(p, bt["card"].to_list(), {
                  "round taken when played": (bt["round_take_played"], bt["played_ci_low"],
                                              bt["played_ci_high"]),
                  "round taken when held, not played": (
                      bt["round_take_held"], bt["held_ci_low"], bt["held_ci_high"])},
                  title="Battle card value", ylabel="rounds taken (%)")),
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
     "never played; effects_per_game counts Ronin steals and Medicine saves."),
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
    headline = [{"figure": f"seat {r['seat']} win rate ({r['policy']})",
                 "value": _pct(r["win_rate"]),
                 "95% interval": f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}",
                 "note": r["flag"] or f"fair {_pct(r['fair'])}"}
                for r in tables["seats"].iter_rows(named=True)]
    headline += [{"figure": "declarer round win rate (Clan Conflict)",
                  "value": _pct(r["declarer_win_rate"]),
                  "95% interval": f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}",
                  "note": f"fair {_pct(r['fair_share'])}"} for r in dec.iter_rows(named=True)]
    headline += [{"figure": f"{r['phase']} length (rounds)", "value": f"{r['mean_rounds']:.2f}",
                  "95% interval": f"{r['ci_low']:.2f} - {r['ci_high']:.2f}",
                  "note": f"sd {r['sd']:.2f}, median {r.get('p50', float('nan')):.0f}"}
                 for r in tables["lengths"].iter_rows(named=True)]
    return Summary(
        title=f"{manifest['game_title']}: balance report ({manifest['players']} players)",
        headline=pl.DataFrame(headline), tables=tables, long=long.frame(),
        findings=findings(fair, seats, tables, manifest["content"]),
        charts=_charts(fair, lengths, tables, s["players"]), sections=SECTIONS,
        json={"seats": tables["seats"].to_dicts(),
              "declarer_clan_conflict": dec.to_dicts()[0] if dec.height else None,
              "lengths": tables["lengths"].to_dicts(),
              "battle_cards": tables["battle_cards"].to_dicts()},
    )
