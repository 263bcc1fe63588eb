"""Samurai Sword report: teams, roles, characters, seats, end reasons, length, cards."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

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

FLAG_LEVEL = 0.01  # flags at the 99% level, Holm-adjusted within each table
FLAG = "differs (99%)"
MIN_GAMES = 200  # rows with fewer games stay out of findings


def _pct(x: float | None) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


def _ci(e: Estimate) -> str:
    return f"{_pct(e.value)} (95% CI {_pct(e.lo)}-{_pct(e.hi)})"


def _flags(pvalues: list[float]) -> tuple[list[float], list[str]]:
    """Holm-adjusted p-values and the matching flags (nan p-values stay unflagged)."""
    idx = [i for i, p in enumerate(pvalues) if not math.isnan(p)]
    adj = [math.nan] * len(pvalues)
    for i, a in zip(idx, holm([pvalues[i] for i in idx]), strict=True):
        adj[i] = a
    return adj, [FLAG if not math.isnan(a) and a < FLAG_LEVEL else "" for a in adj]


def team_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Team win rates (Honor and Swordmaster victories) against an equal share per team."""
    games = s["games"]
    present = [i for i, g in enumerate(s["team_games"]) if g > 0]
    share = 1.0 / len(present) if present else math.nan
    rows = []
    for i in present:
        wins = int(s["team_honor_wins"][i] + s["team_sword_wins"][i])
        e = rate(wins, games)
        sc = mean_from_moments(float(s["score_sum"][i]), float(s["score_sq"][i]),
                               int(s["score_n"][i]))
        rows.append({
            "team": s["teams"][i], "games": games, "wins": wins, "win_rate": e.value,
            "ci_low": e.lo, "ci_high": e.hi, "equal_share": share,
            "honor_wins": int(s["team_honor_wins"][i]),
            "swordmaster_wins": int(s["team_sword_wins"][i]),
            "mean_score": sc.value, "score_ci_low": sc.lo, "score_ci_high": sc.hi,
            "p_value": binomial_p(wins, games, share),
        })
        long.add("teams", "win_rate", s["teams"][i], e)
        long.add("teams", "mean_score", s["teams"][i], sc)
    adj, flags = _flags([r["p_value"] for r in rows])
    for r, a, f in zip(rows, adj, flags, strict=True):
        r["p_adjusted"] = a
        r["flag"] = f
    return pl.DataFrame(rows)


def _role_rates(s: dict) -> dict[int, Estimate]:
    seat = s["seat"]
    out = {}
    for r in range(len(s["roles"])):
        n = int(seat[:, r, 0].sum())
        if n:
            out[r] = rate(int(seat[:, r, 1].sum()), n)
    return out


def role_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Win rate of each role (a player wins when its team does)."""
    rows = []
    for r, e in _role_rates(s).items():
        name = s["roles"][r].capitalize()
        long.add("roles", "win_rate", name, e)
        rows.append({"role": name, "player_games": e.n, "wins": round(e.value * e.n),
                     "win_rate": e.value, "ci_low": e.lo, "ci_high": e.hi})
    return pl.DataFrame(rows)


def seat_table(s: dict, seats: list[str], long: LongTable) -> pl.DataFrame:
    """Per seat (clockwise from the Shogun): how often its team wins, against the average
    over the non-Shogun seats; the Shogun's seat is the Shogun's team rate."""
    P = s["players"]
    seat = s["seat"]
    games = s["games"]
    others = seat[1:, :, :].sum(axis=(1,))
    base = others[:, 1].sum() / others[:, 0].sum() if others[:, 0].sum() else math.nan
    rows = []
    for k in range(P):
        wins = int(seat[k, :, 1].sum())
        e = rate(wins, games)
        long.add("seats", "win_rate", f"seat {k + 1}", e)
        rows.append({
            "seat": k + 1, "distance_from_shogun": min(k, P - k), "policy": seats[k],
            "games": games, "wins": wins, "win_rate": e.value, "ci_low": e.lo,
            "ci_high": e.hi, "non_shogun_average": base,
            "p_value": binomial_p(wins, games, base) if k > 0 else math.nan,
        })
    adj, flags = _flags([r["p_value"] for r in rows])
    for r, a, f in zip(rows, adj, flags, strict=True):
        r["p_adjusted"] = a
        r["flag"] = f
    return pl.DataFrame(rows)


def seat_role_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Win rate of each role in each seat against that role's overall rate: the seat effect
    with the role held fixed."""
    seat = s["seat"]
    overall = _role_rates(s)
    rows = []
    for k in range(s["players"]):
        for r, base in overall.items():
            n = int(seat[k, r, 0])
            if n == 0:
                continue
            e = rate(int(seat[k, r, 1]), n)
            name = s["roles"][r].capitalize()
            long.add("seat_roles", f"win_rate_{name}", f"seat {k + 1}", e)
            rows.append({
                "seat": k + 1, "role": name, "games": n, "wins": int(seat[k, r, 1]),
                "win_rate": e.value, "ci_low": e.lo, "ci_high": e.hi,
                "role_average": base.value, "edge": e.value - base.value,
                "p_value": binomial_p(int(seat[k, r, 1]), n, base.value) if k > 0
                else math.nan,
            })
    adj, flags = _flags([r["p_value"] for r in rows])
    for r, a, f in zip(rows, adj, flags, strict=True):
        r["p_adjusted"] = a
        r["flag"] = f
    return pl.DataFrame(rows)


def character_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Per character: how often its player's team wins, against the average player (all
    characters are dealt at random, independently of roles)."""
    ch = s["chars"]
    total_n = int(ch[:, :, 0].sum())
    base = ch[:, :, 1].sum() / total_n if total_n else math.nan
    rows = []
    for i, name in enumerate(s["char_names"]):
        n = int(ch[i, :, 0].sum())
        wins = int(ch[i, :, 1].sum())
        e = rate(wins, n)
        long.add("characters", "win_rate", name, e)
        rows.append({
            "character": name, "resilience": int(s["char_resilience"][i]),
            "player_games": n, "wins": wins, "win_rate": e.value, "ci_low": e.lo,
            "ci_high": e.hi, "average_player": base, "edge": e.value - base,
            "p_value": binomial_p(wins, n, base) if n else math.nan,
        })
    adj, flags = _flags([r["p_value"] for r in rows])
    for r, a, f in zip(rows, adj, flags, strict=True):
        r["p_adjusted"] = a
        r["flag"] = f
    return pl.DataFrame(rows).sort("win_rate", descending=True, nulls_last=True)


def character_role_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Each character within each role, against that role's win rate."""
    ch = s["chars"]
    overall = _role_rates(s)
    rows = []
    for i, name in enumerate(s["char_names"]):
        for r, base in overall.items():
            n = int(ch[i, r, 0])
            if n == 0:
                continue
            e = rate(int(ch[i, r, 1]), n)
            role = s["roles"][r].capitalize()
            long.add("character_roles", f"win_rate_{role}", name, e)
            rows.append({
                "character": name, "role": role, "games": n, "wins": int(ch[i, r, 1]),
                "win_rate": e.value, "ci_low": e.lo, "ci_high": e.hi,
                "role_average": base.value, "edge": e.value - base.value,
                "p_value": binomial_p(int(ch[i, r, 1]), n, base.value),
            })
    adj, flags = _flags([r["p_value"] for r in rows])
    for r, a, f in zip(rows, adj, flags, strict=True):
        r["p_adjusted"] = a
        r["flag"] = f
    return pl.DataFrame(rows)


def end_table(s: dict, long: LongTable) -> pl.DataFrame:
    """How games end."""
    games = s["games"]
    rows = []
    for i, name in enumerate(s["end_names"]):
        if i == 0:
            continue
        e = rate(int(s["ends"][i]), games)
        long.add("ends", "share", name, e)
        rows.append({"end": name, "games": int(s["ends"][i]), "share": e.value,
                     "ci_low": e.lo, "ci_high": e.hi})
    return pl.DataFrame(rows)


def length_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Game length in turns and deck reshuffles per game."""
    rows = []
    for what, key in (("turns", "turns"), ("deck reshuffles", "reshuffles"),
                      ("winning team's score margin (Honor games)", "margin")):
        d = distribution(s[key])
        long.add("length", "mean", what, d.mean)
        rows.append({"figure": what, **d.columns()})
    return pl.DataFrame(rows)


def card_table(s: dict, long: LongTable) -> pl.DataFrame:
    """How often each card is played per game."""
    games = s["games"]
    rows = []
    for i, name in enumerate(s["card_names"]):
        n = int(s["card_played"][i])
        rows.append({"card": name, "copies": int(s["card_copies"][i]), "played": n,
                     "per_game": n / games if games else math.nan})
    return pl.DataFrame(rows)


def other_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Combat figures: parries, hits, defeats, ties, Deadly Strikes, character abilities."""
    m = s["misc"]
    games = s["games"]
    scored = int(s["ends"][1] + s["ends"][2] + s["ends"][3] + s["ends"][5])
    sq = s["clustered"]

    def within(key: str, y: int, x: int) -> Estimate:  # several events per game: clustered
        return ratio_rate(y, x, *sq[key], games)

    items = [
        ("Weapon attacks parried", within("parried", m["parried"], m["attacks"])),
        ("Battle Cry answered with a Parry", within(
            "battle_cry_parried", m["battle_cry_parries"],
            m["battle_cry_parries"] + m["battle_cry_wounds"])),
        ("defeats by a teammate", within("teammate_defeats", m["teammate_defeats"],
                                         m["defeats"])),
        ("Honor games decided by the tie rule", rate(m["tie_decided"], scored)),
        ("games ending with a Deadly Strike", rate(m["deadly_strikes"], games)),
        ("Bushido Weapons paid with Honor", within(
            "bushido_honor", m["bushido_honor"], m["bushido_honor"] + m["bushido_weapons"])),
        ("games won by a team of several seats", rate(m["shared_wins"], games)),
    ]
    rows = []
    for label, e in items:
        long.add("other", label, "", e)
        rows.append({"figure": label, "value": e.value, "ci_low": e.lo, "ci_high": e.hi,
                     "n": e.n})
    for key in ("attacks", "hits", "weapon_wounds", "defeats", "battle_cry_wounds",
                "jujutsu_wounds", "bushido_flips", "plays", "nobunaga_draws",
                "ieyasu_discard_draws", "hanzo_weapon_parries", "tomoe_draws",
                "ushiwaka_draws", "empty_draws"):
        rows.append({"figure": f"{key.replace('_', ' ')} per game",
                     "value": m[key] / games if games else math.nan, "ci_low": None,
                     "ci_high": None, "n": games})
    return pl.DataFrame(rows, schema={"figure": pl.Utf8, "value": pl.Float64,
                                      "ci_low": pl.Float64, "ci_high": pl.Float64,
                                      "n": pl.Int64})


def findings(s: dict, seats: list[str], t: dict[str, pl.DataFrame], content: dict) -> list[str]:
    """Plain-language statements a designer can act on, each with its interval."""
    out = []
    P = s["players"]
    if len(set(seats)) > 1:
        out.append(f"Seats play different policies ({', '.join(seats)}; seat 1 is the "
                   f"Shogun): the figures measure the policies as much as the game.")
    teams = t["teams"]
    parts = [f"{r['team']} {_ci(Estimate(r['win_rate'], r['ci_low'], r['ci_high'], 0))}"
             for r in teams.iter_rows(named=True)]
    out.append(f"With {P} players the teams win: " + "; ".join(parts) + f" (an equal share "
               f"would be {_pct(teams['equal_share'][0])} each).")
    flagged = teams.filter(pl.col("flag") != "")
    if flagged.height:
        out.append("Teams whose win rate differs from an equal share at the 99% level: "
                   + ", ".join(flagged["team"].to_list()) + ".")
    ends = t["ends"].filter(pl.col("games") > 0).sort("games", descending=True)
    out.append("Games end by: " + "; ".join(
        f"{r['end']} {_pct(r['share'])}" for r in ends.iter_rows(named=True)) + ".")
    ln = t["lengths"].row(0, named=True)
    rs = t["lengths"].row(1, named=True)
    out.append(f"A game lasts {ln['mean']:.1f} turns on average (95% CI {ln['ci_low']:.1f}-"
               f"{ln['ci_high']:.1f}, sd {ln['sd']:.1f}, about {ln['mean'] / P:.1f} rounds) "
               f"with {rs['mean']:.2f} deck reshuffles.")
    ch = t["characters"].filter(pl.col("player_games") >= MIN_GAMES)
    if ch.height >= 2:
        top, low = ch.row(0, named=True), ch.row(ch.height - 1, named=True)
        out.append(f"Strongest character: {top['character']} (its team wins "
                   f"{_ci(Estimate(top['win_rate'], top['ci_low'], top['ci_high'], 0))}); "
                   f"weakest: {low['character']} ("
                   f"{_ci(Estimate(low['win_rate'], low['ci_low'], low['ci_high'], 0))}); "
                   f"the average player wins {_pct(top['average_player'])}.")
        fl = ch.filter(pl.col("flag") != "")
        if fl.height:
            out.append("Characters differing from the average player at the 99% level: "
                       + ", ".join(f"{r['character']} ({100 * r['edge']:+.1f} pts)"
                                   for r in fl.iter_rows(named=True)) + ".")
        else:
            out.append("No character differs from the average player at the 99% level.")
    sr = t["seat_roles"].filter((pl.col("flag") != "") & (pl.col("games") >= MIN_GAMES))
    if sr.height:
        out.append("Seat effects within a role (99%): " + "; ".join(
            f"{r['role']} in seat {r['seat']} {100 * r['edge']:+.1f} pts"
            for r in sr.iter_rows(named=True)) + ".")
    else:
        out.append("No seat changes a role's win rate at the 99% level (seat 1 is always "
                   "the Shogun).")
    if content.get("assumed"):
        out.append(f"Content '{content['name']}' is marked assumed; results depend on it.")
    return out


def _charts(s: dict, t: dict[str, pl.DataFrame]) -> list[Chart]:
    P = s["players"]
    teams = t["teams"]
    chars = t["characters"]
    sr = t["seat_roles"]

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

    def seat_chart(path: Path) -> None:
        groups = {}
        for role in sr["role"].unique(maintain_order=True).to_list():
            sel = sr.filter((pl.col("role") == role) & (pl.col("seat") > 1))
            if sel.height == 0:
                continue
            by = {r["seat"]: r for r in sel.iter_rows(named=True)}
            groups[role] = tuple([by[k][c] if k in by else math.nan for k in range(2, P + 1)]
                                 for c in ("win_rate", "ci_low", "ci_high"))
        C.grouped_bars_with_ci(path, [str(k) for k in range(2, P + 1)], groups,
                               title="Win rate by seat clockwise from the Shogun, per role",
                               ylabel="win rate (%)")

    def length_chart(path: Path) -> None:
        C.histograms(path, {"turns": s["turns"]}, title="Game length", xlabel="turns")

    out = [
        Chart("team_win_rates", f"Team win rates with 95% intervals ({P} players)",
              team_chart),
        Chart("character_win_rates", "Character win rates with 95% intervals", char_chart),
        Chart("length", "Game length distribution (turns)", length_chart),
    ]
    if P > 2 and sr.height:
        out.append(Chart("seat_roles", "Win rate by seat and role with 95% intervals",
                         seat_chart))
    return out


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Samurai Sword run."""
    seats = list(manifest["seats"])
    long = LongTable()
    tables = {
        "teams": team_table(s, long),
        "roles": role_table(s, long),
        "seats": seat_table(s, seats, long),
        "seat_roles": seat_role_table(s, long),
        "characters": character_table(s, long),
        "character_roles": character_role_table(s, long),
        "ends": end_table(s, long),
        "lengths": length_table(s, long),
        "cards": card_table(s, long),
        "other": other_table(s, long),
    }
    headline_rows = [
        {"figure": f"{r['team']} win rate", "value": _pct(r["win_rate"]),
         "95% interval": f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}",
         "note": r["flag"] or f"equal share {_pct(r['equal_share'])}"}
        for r in tables["teams"].iter_rows(named=True)
    ]
    for r in tables["ends"].filter(pl.col("games") > 0).iter_rows(named=True):
        headline_rows.append({"figure": f"ends: {r['end']}", "value": _pct(r["share"]),
                              "95% interval": f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}",
                              "note": ""})
    ln = tables["lengths"].row(0, named=True)
    headline_rows.append({"figure": "game length (turns)", "value": f"{ln['mean']:.1f}",
                          "95% interval": f"{ln['ci_low']:.1f} - {ln['ci_high']:.1f}",
                          "note": f"sd {ln['sd']:.1f}"})
    json = {
        "teams": tables["teams"].to_dicts(),
        "seats": tables["seats"].to_dicts(),
        "characters": tables["characters"].to_dicts(),
        "ends": tables["ends"].to_dicts(),
        "lengths": tables["lengths"].to_dicts(),
    }
    sections = [
        ("Teams", "teams", "Win rate of each team (Shogun with Samurai, Ninjas, Ronin) by "
         "Honor or by the Victory of the Swordmaster, against an equal share; mean team "
         "score in games decided on Honor; flags Holm-adjusted across teams."),
        ("Roles", "roles", "Win rate of each role (a player wins when its team wins)."),
        ("Seats", "seats", "Seat 1 is the Shogun; seats follow clockwise. A seat wins when "
         "its player's team wins; seats 2+ are compared with their average."),
        ("Seats by role", "seat_roles", "Each role's win rate in each seat against that "
         "role's overall rate: the seat effect with the role held fixed."),
        ("Characters", "characters", "How often the player of each character is on the "
         "winning team, against the average player (characters are dealt at random)."),
        ("Characters by role", "character_roles", "Each character within each role, "
         "against that role's win rate."),
        ("End of the game", "ends", "Why games ended."),
        ("Length", "lengths", "Turns per game, deck reshuffles per game and the winning "
         "team's score margin in games decided on Honor."),
        ("Cards", "cards", "How often each card is played per game."),
        ("Other figures", "other", "Parries, ties, Deadly Strikes, Bushido and character "
         "abilities. Rates over several events of one game (attacks parried, Battle Cries "
         "parried, defeats by a teammate, Bushido paid with Honor) have cluster-robust "
         "intervals (ratio estimator over per-game sums), the games being independent, "
         "not the events."),
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

