"""Sixteen Samurai report tables: declarer, declared abilities, samurai cards, clan totals,
battle cards and other figures."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports import sections as S
from reports.stats import (
    Estimate,
    binomial_p,
    holm,
    interval_p,
    mean_from_moments,
    newcombe,
    rate,
    ratio_rate,
)
from reports.summary import LongTable

FLAG_LEVEL = 0.01  # declarer rows are flagged when they differ from fair at the 99% level


MIN_FIELDED = 200  # cards fielded fewer times are left out of findings
# A played-vs-not comparison needs this many player-games on its smaller side and an
# interval no wider than +/- 10 points; otherwise the table says TOO_FEW and no finding
# is drawn from it.
MIN_GROUP, MAX_HALF_WIDTH = 30, 0.10
TOO_FEW = "too few games"


_pct = S.pct


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
    for r in rows:  # edge over the fair share of its rounds, tested against 0 (Holm)
        r["edge_ci_low"] = r["round_ci_low"] - r["round_fair_share"]
        r["edge_ci_high"] = r["round_ci_high"] - r["round_fair_share"]
        r["edge_p_value"] = (interval_p(r["round_edge"], r["edge_ci_low"], r["edge_ci_high"])
                             if r["fielded"] >= MIN_FIELDED else math.nan)
    for r, p_adj in zip(rows, holm([r["edge_p_value"] for r in rows]), strict=True):
        r["edge_p_adjusted"] = p_adj
        r["edge_flag"] = EDGE_FLAG if p_adj < FLAG_LEVEL else ""
    return pl.DataFrame(rows).sort("round_edge", descending=True, nulls_last=True)


EDGE_FLAG = "differs from fair (99%)"


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
    """Value of each battle card: round and game outcomes when played vs not (with several
    copies per clan: at least one copy played, held); `copies` per clan as dealt."""
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
        n_p, n_u = int(b["played_games"][i]), int(b["unplayed_games"][i])
        gap = newcombe(b["played_games_won"][i], n_p, b["unplayed_games_won"][i], n_u)
        few = min(n_p, n_u) < MIN_GROUP or not (gap.hi - gap.lo) / 2 <= MAX_HALF_WIDTH
        player_games = n_p + n_u
        rows.append({
            "card": card, "copies": int(b.get("copies", [1] * len(b["card"]))[i]),
            "play_rate": _per(b["played_games"][i], player_games),
            "round_take_played": played.value, "played_ci_low": played.lo,
            "played_ci_high": played.hi, "round_take_held": held.value,
            "held_ci_low": held.lo, "held_ci_high": held.hi,
            "games_played": n_p, "games_unplayed": n_u,
            "game_win_played": est["played_games"].value if n_p else None,
            "game_win_unplayed": est["unplayed_games"].value if n_u else None,
            "game_win_gap": None if few else gap.value,
            "gap_ci_low": None if few else gap.lo, "gap_ci_high": None if few else gap.hi,
            "gap_note": TOO_FEW if few else "",
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
