"""Sixteen Samurai report: seats, declarer, length, cards, clan totals, battle cards."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from reports import charts as C
from reports.stats import (
    Estimate,
    binomial_p,
    distribution,
    holm,
    mean_from_moments,
    rate,
    ratio_rate,
)
from reports.summary import Chart, LongTable, Summary

FLAG_LEVEL = 0.01  # seats are flagged when they differ from fair at the 99% level
MIN_FIELDED = 200  # cards fielded fewer times are left out of findings


def _pct(x: float) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


def _ci(e: Estimate) -> str:
    return f"{_pct(e.value)} (95% CI {_pct(e.lo)}-{_pct(e.hi)})"


def seat_table(s: dict, seats: list[str], long: LongTable) -> pl.DataFrame:
    """Seat win rates against the fair share, flagged at the 99% level (Holm across seats)."""
    games, players = s["games"], s["players"]
    fair = 1.0 / players
    raw = [binomial_p(s["wins"][seat], games, fair) for seat in range(players)]
    adjusted = holm(raw)
    rows = []
    for seat in range(players):
        e = rate(s["wins"][seat], games)
        flag = "differs from fair (99%)" if adjusted[seat] < FLAG_LEVEL else ""
        long.add("seats", "win_rate", f"seat {seat + 1}", e, flag)
        rows.append({
            "seat": seat + 1, "policy": seats[seat], "wins": int(s["wins"][seat]),
            "games": games, "win_rate": e.value, "ci_low": e.lo, "ci_high": e.hi,
            "fair": fair, "p_value": raw[seat], "p_adjusted": adjusted[seat], "flag": flag,
        })
    return pl.DataFrame(rows)


def declarer_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Declarer win rate per round against the fair share of the players fighting it."""
    rows = []
    for phase, key, clus in (("Clan Conflict", "decl_cc", "cc_declarer"),
                             ("Final Battle", "decl_fb", "fb_declarer")):
        d = s[key]  # (round, participants, [n, won])
        phase_rows = []
        for r in [*range(d.shape[0]), -1]:
            part = d.sum(axis=0) if r < 0 else d[r]
            n = int(part[:, 0].sum())
            if n == 0:
                continue
            won = int(part[:, 1].sum())
            fair = float(sum(part[k, 0] / k for k in range(2, part.shape[0]))) / n
            # all rounds: several per game, so the interval is clustered by game
            e = ratio_rate(won, n, *s["clustered"][clus], s["games"]) if r < 0 else rate(won, n)
            label = "all" if r < 0 else (f"{r + 1}+" if r == d.shape[0] - 1 else str(r + 1))
            phase_rows.append({
                "phase": phase, "round": label, "rounds": n, "declarer_win_rate": e.value,
                "ci_low": e.lo, "ci_high": e.hi, "fair_share": fair,
                "advantage": e.value - fair, "p_value": binomial_p(won, n, fair),
            })
        adjusted = holm([r["p_value"] for r in phase_rows])
        for r, p_adj in zip(phase_rows, adjusted, strict=True):
            r["p_adjusted"] = p_adj
            r["flag"] = "differs from fair (99%)" if p_adj < FLAG_LEVEL else ""
            long.add("declarer", f"win_rate_{phase}", r["round"],
                     Estimate(r["declarer_win_rate"], r["ci_low"], r["ci_high"], r["rounds"]),
                     r["flag"])
        rows += phase_rows
    return pl.DataFrame(rows)


def ability_table(s: dict, long: LongTable) -> pl.DataFrame:
    """How often each ability is declared and how often its declarer wins."""
    rows = []
    for ph, phase in enumerate(("Clan Conflict", "Final Battle")):
        d = s["decl_ability"][ph]
        total = int(d[:, 0].sum())
        for a, name in enumerate(s["abilities"]):
            share = rate(d[a, 0], total)
            win = rate(d[a, 1], d[a, 0])
            long.add("abilities", f"declared_share_{phase}", name, share)
            long.add("abilities", f"declarer_win_rate_{phase}", name, win)
            rows.append({
                "phase": phase, "ability": name.upper(), "declared_share": share.value,
                "declarer_win_rate": win.value, "ci_low": win.lo, "ci_high": win.hi,
                "rounds": int(d[a, 0]),
            })
    return pl.DataFrame(rows)


def length_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Game length in rounds: mean with interval, sd and quantiles, per phase."""
    rows = []
    for phase, key in (("Clan Conflict", "len_cc"), ("Final Battle", "len_fb"),
                       ("Whole game", "len_total")):
        d = distribution(s[key])
        long.add("length", "rounds_mean", phase, d.mean)
        rows.append({"phase": phase, **d.columns(mean="mean_rounds")})
    return pl.DataFrame(rows)


def card_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Per samurai: draft rate and position, round win rate when fielded, survival."""
    c = s["cards"]
    games = s["games"]
    rows = []
    for i, name in enumerate(c["name"]):
        drafted = int(c["drafted"][i])
        fielded = int(c["fielded"][i])
        fair = (c["fielded_k2"][i] / 2 + c["fielded_k3"][i] / 3 + c["fielded_k4"][i] / 4)
        fair = fair / fielded if fielded else math.nan
        pick = mean_from_moments(float(c["pick_sum"][i]), float(c["pick_sq"][i]), drafted)
        win = ratio_rate(c["field_won"][i], fielded, c["clus_yy"][i], c["clus_xx"][i],
                         c["clus_xy"][i], games)  # several rounds a game: clustered
        fb = rate(c["fb_won"][i], c["fb_fielded"][i])
        into = rate(c["in_final"][i], drafted)
        surv = rate(c["survived"][i], drafted)
        owner = rate(c["owner_won"][i], drafted)
        long.add("cards", "avg_pick", name, pick)
        long.add("cards", "round_win_rate", name, win)
        long.add("cards", "final_battle_round_win_rate", name, fb)
        long.add("cards", "reaches_final_battle", name, into)
        long.add("cards", "survives_to_end", name, surv)
        long.add("cards", "owner_win_rate", name, owner)
        rows.append({
            "samurai": name, "total": int(c["total"][i]), "power": int(c["power"][i]),
            "speed": int(c["speed"][i]), "armor": int(c["armor"][i]),
            "karma": int(c["karma"][i]), "assumed": bool(c["assumed"][i]),
            "drafted": drafted, "draft_rate": drafted / games if games else math.nan,
            "avg_pick": pick.value, "avg_pick_ci_low": pick.lo, "avg_pick_ci_high": pick.hi,
            "fielded": fielded, "round_win_rate": win.value, "round_ci_low": win.lo,
            "round_ci_high": win.hi, "round_fair_share": fair, "round_edge": win.value - fair,
            "final_round_win_rate": fb.value, "reaches_final": into.value,
            "survives_to_end": surv.value, "owner_win_rate": owner.value,
            "owner_ci_low": owner.lo, "owner_ci_high": owner.hi,
        })
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
    b = s["battle"]
    games = s["games"]
    rows = []
    for i, card in enumerate(b["card"]):
        played = rate(b["played_rounds_won"][i], b["played_rounds"][i])
        held = rate(b["held_rounds_won"][i], b["held_rounds"][i])
        gp = rate(b["played_games_won"][i], b["played_games"][i])
        gu = rate(b["unplayed_games_won"][i], b["unplayed_games"][i])
        player_games = int(b["played_games"][i] + b["unplayed_games"][i])
        long.add("battle_cards", "round_take_rate_played", card, played)
        long.add("battle_cards", "round_take_rate_held", card, held)
        long.add("battle_cards", "game_win_rate_played", card, gp)
        long.add("battle_cards", "game_win_rate_unplayed", card, gu)
        rows.append({
            "card": card, "play_rate": b["played_games"][i] / player_games
            if player_games else math.nan,
            "round_take_played": played.value, "played_ci_low": played.lo,
            "played_ci_high": played.hi, "round_take_held": held.value,
            "held_ci_low": held.lo, "held_ci_high": held.hi,
            "game_win_played": gp.value, "game_win_unplayed": gu.value,
            "game_win_gap": gp.value - gu.value,
            "unused_at_end_rate": b["unused_at_end"][i] / player_games
            if player_games else math.nan,
            "effects_per_game": b["effect"][i] / games if games else math.nan,
        })
    return pl.DataFrame(rows)


def other_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Tiebreakers, uncontested rounds, reshuffles, completion, Final Battle entrants."""
    m = s["misc"]
    games = s["games"]
    contested = m["contested_rounds"]
    items = [
        ("tiebreaker share of contested Clan Conflict rounds",
         ratio_rate(m["tiebreak_rounds"], contested, *s["clustered"]["tiebreak"], games)),
        ("double Ninjutsu share of contested rounds", rate(m["double_ninjutsu"], contested)),
        ("games ending by the rules (not the round cap)",
         rate(games - m["capped_games"], games)),
    ]
    for label, e in items:
        long.add("other", label, "", e)
    per_game = [
        ("uncontested Clan Conflict rounds per game", m["uncontested_rounds"]),
        ("battle-card reshuffles per game", m["battle_reshuffles"]),
        ("Final Battle rounds with a tiebreaker per game", m["fb_tiebreak_rounds"]),
    ]
    rows = [{"figure": k, "value": e.value, "ci_low": e.lo, "ci_high": e.hi, "n": e.n}
            for k, e in items]
    rows += [{"figure": k, "value": v / games if games else math.nan, "ci_low": None,
              "ci_high": None, "n": games} for k, v in per_game]
    fbp = s["fb_players"]
    for k in range(1, len(fbp)):
        e = rate(fbp[k], games)
        long.add("other", "final_battle_entrants", str(k), e)
        rows.append({"figure": f"games where {k} clan(s) enter the Final Battle",
                     "value": e.value, "ci_low": e.lo, "ci_high": e.hi, "n": games})
    return pl.DataFrame(rows, schema={"figure": pl.Utf8, "value": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "n": pl.Int64})


def findings(s: dict, seats: list[str], t: dict[str, pl.DataFrame], content: dict) -> list[str]:
    """Plain-language statements a designer can act on, each with its interval."""
    out = []
    st = t["seats"]
    fair = 1.0 / s["players"]
    flagged = st.filter(pl.col("flag") != "")
    mixed = len(set(seats)) > 1
    if mixed:
        best = st.sort("win_rate", descending=True).row(0, named=True)
        out.append(
            f"Seats play different policies ({', '.join(seats)}); the best seat, "
            f"{best['seat']} ({best['policy']}), wins {_ci(rate(best['wins'], best['games']))}"
            f" against a fair {_pct(fair)}: this measures the policies as much as the seats."
        )
    elif flagged.height == 0:
        out.append(f"No seat differs from a fair {_pct(fair)} win rate at the 99% level "
                   f"(seat win rates {', '.join(_pct(v) for v in st['win_rate'])}).")
    for r in flagged.iter_rows(named=True):
        if not mixed:
            out.append(f"Seat {r['seat']} wins {_ci(rate(r['wins'], r['games']))} against a "
                       f"fair {_pct(fair)} (adjusted p = {r['p_adjusted']:.2g}): significant "
                       f"at 99%.")
    dec = t["declarer"].filter((pl.col("phase") == "Clan Conflict") & (pl.col("round") == "all"))
    if dec.height:
        r = dec.row(0, named=True)
        out.append(
            f"The declarer wins {_pct(r['declarer_win_rate'])} (95% CI {_pct(r['ci_low'])}-"
            f"{_pct(r['ci_high'])}) of the contested Clan Conflict rounds it fights, against "
            f"a fair share of {_pct(r['fair_share'])}: an advantage of "
            f"{100 * r['advantage']:+.1f} points."
        )
    ln = t["lengths"].row(2, named=True)
    cc = t["lengths"].row(0, named=True)
    fb = t["lengths"].row(1, named=True)
    out.append(f"A game lasts {ln['mean_rounds']:.2f} rounds on average (sd {ln['sd']:.2f}): "
               f"{cc['mean_rounds']:.2f} in the Clan Conflict and {fb['mean_rounds']:.2f} in "
               f"the Final Battle.")
    cards = t["cards"].filter(pl.col("fielded") >= MIN_FIELDED)
    if cards.height >= 6:
        top = cards.head(3)
        low = cards.tail(3)
        out.append("Strongest samurai by round win rate above fair share: " + "; ".join(
            f"{r['samurai']} (total {r['total']}, {100 * r['round_edge']:+.1f} pts)"
            for r in top.iter_rows(named=True)) + ". Weakest: " + "; ".join(
            f"{r['samurai']} (total {r['total']}, {100 * r['round_edge']:+.1f} pts)"
            for r in low.iter_rows(named=True)) + ".")
        by_total = cards.group_by("total").agg(pl.col("round_edge").mean()).sort("total")
        out.append("Mean round edge by printed ability total: " + ", ".join(
            f"{r['total']}: {100 * r['round_edge']:+.1f} pts"
            for r in by_total.iter_rows(named=True)) + ".")
    ct = t["clan_totals"]
    if ct.height > 4:
        clans = ct["clans"].to_numpy()
        cdf = np.cumsum(clans) / clans.sum()
        lowq = ct.filter(pl.Series(cdf <= 0.25))
        highq = ct.filter(pl.Series(cdf > 0.75))
        if lowq.height and highq.height:
            lw = rate(int((lowq["win_rate"] * lowq["clans"]).round().sum()),
                      int(lowq["clans"].sum()))
            hw = rate(int((highq["win_rate"] * highq["clans"]).round().sum()),
                      int(highq["clans"].sum()))
            out.append(f"Clans in the lowest quarter of drafted ability totals win "
                       f"{_ci(lw)}; those in the highest quarter win {_ci(hw)}.")
    bt = t["battle_cards"].filter(pl.col("game_win_gap").is_not_nan())
    if bt.height:
        best = bt.sort("game_win_gap", descending=True).row(0, named=True)
        out.append(f"Battle card with the largest game win rate gap (played vs not): "
                   f"{best['card']} ({_pct(best['game_win_played'])} vs "
                   f"{_pct(best['game_win_unplayed'])}); a player's choices shape these "
                   f"figures, so read them as associations.")
    if content.get("assumed"):
        out.append(f"The roster '{content['name']}' is assumed (rating splits reconstructed); "
                   f"card-level findings depend on it. Run with --content to use the real "
                   f"ratings.")
    return out


def _charts(s: dict, t: dict[str, pl.DataFrame]) -> list[Chart]:
    st = t["seats"]
    fair = 1.0 / s["players"]
    dec = t["declarer"].filter((pl.col("phase") == "Clan Conflict") & (pl.col("round") != "all"))
    cards = t["cards"].filter(pl.col("fielded") > 0).sort("total")
    bt = t["battle_cards"]
    ct = t["clan_totals"]

    def seats(path: Path) -> None:
        C.bars_with_ci(path, [f"{r['seat']}\n{r['policy']}" for r in st.iter_rows(named=True)],
                       st["win_rate"], st["ci_low"], st["ci_high"], title="Seat win rates",
                       ylabel="win rate (%)", reference=fair, ref_label="fair share")

    def lengths(path: Path) -> None:
        C.histograms(path, {"Clan Conflict": s["len_cc"], "Final Battle": s["len_fb"],
                            "Whole game": s["len_total"]},
                     title="Game length", xlabel="rounds")

    def card_power(path: Path) -> None:
        C.scatter_with_ci(path, cards["total"], cards["round_win_rate"] - cards[
            "round_fair_share"], cards["round_ci_low"] - cards["round_fair_share"],
            cards["round_ci_high"] - cards["round_fair_share"],
            labels=cards["samurai"].to_list(), reference=0.0,
            title="Card power vs printed ability total",
            xlabel="ability total", ylabel="round win rate above fair share (pts)")

    def battle(path: Path) -> None:
        C.grouped_bars_with_ci(path, bt["card"].to_list(), {
            "round taken when played": (bt["round_take_played"], bt["played_ci_low"],
                                        bt["played_ci_high"]),
            "round taken when held, not played": (bt["round_take_held"], bt["held_ci_low"],
                                                  bt["held_ci_high"]),
        }, title="Battle card value", ylabel="rounds taken (%)")

    def declarer(path: Path) -> None:
        C.line_with_band(path, np.arange(1, dec.height + 1), dec["declarer_win_rate"],
                         dec["ci_low"], dec["ci_high"], reference=dec["fair_share"],
                         ref_label="fair share", title="Declarer win rate per round",
                         xlabel="Clan Conflict round", ylabel="declarer win rate (%)")

    def clan(path: Path) -> None:
        big = ct.filter(pl.col("clans") >= 100)
        C.line_with_band(path, big["clan_total"], big["win_rate"], big["ci_low"],
                         big["ci_high"], reference=fair, ref_label="fair share",
                         title="Win rate by drafted clan ability total",
                         xlabel="sum of ability totals drafted", ylabel="win rate (%)")

    out = [
        Chart("seat_win_rates", "Seat win rates with 95% intervals", seats),
        Chart("length", "Game length distribution", lengths),
        Chart("card_power", "Card power (round win rate above fair share) vs ability total",
              card_power),
        Chart("battle_cards", "Battle card value: rounds taken when played vs held", battle),
    ]
    if dec.height:
        out.append(Chart("declarer", "Declarer win rate per Clan Conflict round", declarer))
    if ct.filter(pl.col("clans") >= 100).height > 1:
        out.append(Chart("clan_total", "Win rate by drafted clan ability total", clan))
    return out


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Sixteen Samurai run."""
    seats = list(manifest["seats"])
    long = LongTable()
    tables = {
        "seats": seat_table(s, seats, long),
        "declarer": declarer_table(s, long),
        "abilities": ability_table(s, long),
        "lengths": length_table(s, long),
        "cards": card_table(s, long),
        "clan_totals": clan_total_table(s, long),
        "battle_cards": battle_table(s, long),
        "other": other_table(s, long),
    }
    st = tables["seats"]
    ln = tables["lengths"]
    dec = tables["declarer"].filter(
        (pl.col("phase") == "Clan Conflict") & (pl.col("round") == "all"))
    headline_rows = [
        {"figure": f"seat {r['seat']} win rate ({r['policy']})", "value": _pct(r["win_rate"]),
         "95% interval": f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}",
         "note": r["flag"] or f"fair {_pct(r['fair'])}"}
        for r in st.iter_rows(named=True)
    ]
    if dec.height:
        r = dec.row(0, named=True)
        headline_rows.append({
            "figure": "declarer round win rate (Clan Conflict)",
            "value": _pct(r["declarer_win_rate"]),
            "95% interval": f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}",
            "note": f"fair {_pct(r['fair_share'])}"})
    for r in ln.iter_rows(named=True):
        headline_rows.append({
            "figure": f"{r['phase']} length (rounds)", "value": f"{r['mean_rounds']:.2f}",
            "95% interval": f"{r['ci_low']:.2f} - {r['ci_high']:.2f}",
            "note": f"sd {r['sd']:.2f}, median {r.get('p50', float('nan')):.0f}"})
    json = {
        "seats": st.to_dicts(),
        "declarer_clan_conflict": dec.to_dicts()[0] if dec.height else None,
        "lengths": ln.to_dicts(),
        "battle_cards": tables["battle_cards"].to_dicts(),
    }
    sections = [
        ("Seats", "seats", "Win rate per seat (draft order: seat 1 picks first) against the "
         "fair share; p-value of an exact two-sided binomial test, and Holm-adjusted across "
         "the seats (the flag uses the adjusted value)."),
        ("Declarer advantage", "declarer", "How often the player who declared the ability "
         "wins the rounds it fights, per round, against the fair share of the players in "
         "those rounds (flags Holm-adjusted across the rows of each phase)."),
        ("Declared abilities", "abilities", "Share of declarations per ability and the "
         "declarer's win rate with it."),
        ("Game length", "lengths", "Rounds per phase: mean with 95% interval, sd, "
         "quantiles."),
        ("Samurai cards", "cards", "Per card: how often and how early it is drafted, its "
         "Clan Conflict round win rate when fielded against the fair share of those rounds "
         "(round_edge), its Final Battle round win rate, how often it reaches the Final "
         "Battle and survives to the end, and its owner's game win rate."),
        ("Clan ability total", "clan_totals", "Win rate by the sum of the printed ability "
         "totals of the 16 samurai a clan drafted."),
        ("Battle cards", "battle_cards", "Share of rounds whose samurai the player took "
         "when it played the card vs when it held it without playing; game win rate when "
         "played vs never played; effects_per_game counts Ronin steals and Medicine saves."),
        ("Other figures", "other", "Tiebreakers, uncontested rounds, reshuffles, completion "
         "and Final Battle entrants."),
    ]
    return Summary(
        title=f"{manifest['game_title']}: balance report ({manifest['players']} players)",
        headline=pl.DataFrame(headline_rows),
        tables=tables,
        long=long.frame(),
        findings=findings(s, seats, tables, manifest["content"]),
        charts=_charts(s, tables),
        sections=sections,
        json=json,
    )
