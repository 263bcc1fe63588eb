"""Samurai Sword report: teams, roles, characters, seats by role, end reasons, cards and
combat figures. The seat table, the length table and their charts come from
reports.sections (a team game: the seats are not tested against a fair share)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from reports import charts as C
from reports import sections as S
from reports.fairness import seat_fairness
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
pct = S.pct


def _ci(e: Estimate) -> str:
    return f"{pct(e.value)} (95% CI {pct(e.lo)}-{pct(e.hi)})"


def _flagged(rows: list[dict]) -> pl.DataFrame:
    """The rows with Holm-adjusted p-values and their 99% flags (nan stays unflagged)."""
    p = [r["p_value"] for r in rows]
    idx = [i for i, x in enumerate(p) if not math.isnan(x)]
    adj = [math.nan] * len(p)
    for i, a in zip(idx, holm([p[i] for i in idx]), strict=True):
        adj[i] = a
    for r, a in zip(rows, adj, strict=True):
        r["p_adjusted"] = a
        r["flag"] = FLAG if not math.isnan(a) and a < FLAG_LEVEL else ""
    return pl.DataFrame(rows)


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
    return _flagged(rows)


def _role_rates(s: dict) -> dict[int, Estimate]:
    seat = s["seat"]
    return {r: rate(int(seat[:, r, 1].sum()), int(seat[:, r, 0].sum()))
            for r in range(len(s["roles"])) if seat[:, r, 0].sum()}


def role_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Win rate of each role (a player wins when its team does)."""
    rows = []
    for r, e in _role_rates(s).items():
        name = s["roles"][r].capitalize()
        long.add("roles", "win_rate", name, e)
        rows.append({"role": name, "player_games": e.n, "wins": round(e.value * e.n),
                     "win_rate": e.value, "ci_low": e.lo, "ci_high": e.hi})
    return pl.DataFrame(rows)


def by_role_table(s: dict, counts: np.ndarray, names: list[str], what: str,
                  long: LongTable, section: str) -> pl.DataFrame:
    """Each row of counts[k, role, (games, wins)] (a seat or a character) within each role,
    against that role's overall win rate (exact test, Holm-adjusted)."""
    rows = []
    for k, name in enumerate(names):
        for r, base in _role_rates(s).items():
            n, wins = int(counts[k, r, 0]), int(counts[k, r, 1])
            if n == 0:
                continue
            e = rate(wins, n)
            role = s["roles"][r].capitalize()
            long.add(section, f"win_rate_{role}", str(name), e)
            rows.append({what: name, "role": role, "games": n, "wins": wins,
                         "win_rate": e.value, "ci_low": e.lo, "ci_high": e.hi,
                         "role_average": base.value, "edge": e.value - base.value,
                         "p_value": binomial_p(wins, n, base.value)
                         if what != "seat" or k > 0 else math.nan})
    return _flagged(rows)


def character_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Per character: how often its player's team wins, against the average player (all
    characters are dealt at random, independently of roles)."""
    ch = s["chars"]
    base = ch[:, :, 1].sum() / max(int(ch[:, :, 0].sum()), 1)
    rows = []
    for i, name in enumerate(s["char_names"]):
        n, wins = int(ch[i, :, 0].sum()), int(ch[i, :, 1].sum())
        e = rate(wins, n)
        long.add("characters", "win_rate", name, e)
        rows.append({
            "character": name, "resilience": int(s["char_resilience"][i]),
            "player_games": n, "wins": wins, "win_rate": e.value, "ci_low": e.lo,
            "ci_high": e.hi, "average_player": base, "edge": e.value - base,
            "p_value": binomial_p(wins, n, base) if n else math.nan,
        })
    return _flagged(rows).sort("win_rate", descending=True, nulls_last=True)


def end_table(s: dict, long: LongTable) -> pl.DataFrame:
    """How games end."""
    rows = []
    for i, name in enumerate(s["end_names"][1:], 1):
        e = rate(int(s["ends"][i]), s["games"])
        long.add("ends", "share", name, e)
        rows.append({"end": name, "games": int(s["ends"][i]), "share": e.value,
                     "ci_low": e.lo, "ci_high": e.hi})
    return pl.DataFrame(rows)


def card_table(s: dict) -> pl.DataFrame:
    """How often each card is played per game."""
    games = max(s["games"], 1)
    return pl.DataFrame([{"card": name, "copies": int(s["card_copies"][i]),
                          "played": int(s["card_played"][i]),
                          "per_game": int(s["card_played"][i]) / games}
                         for i, name in enumerate(s["card_names"])])


def other_table(s: dict, long: LongTable) -> pl.DataFrame:
    """Combat figures: parries, defeats, ties, Deadly Strikes, Bushido, reshuffles, the
    score margin and character abilities. Rates over several events of one game are
    clustered by game (ratio estimator)."""
    m, games, sq = s["misc"], s["games"], s["clustered"]
    scored = int(s["ends"][1] + s["ends"][2] + s["ends"][3] + s["ends"][5])

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
        ("deck reshuffles per game", distribution(s["reshuffles"]).mean),
        ("winning team's score margin (Honor games)", distribution(s["margin"]).mean),
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
    P = s["players"]
    out = [f"Seats play different policies ({', '.join(seats)}; seat 1 is the Shogun): the "
           f"figures measure the policies as much as the game."] if len(set(seats)) > 1 else []
    teams = t["teams"]
    out.append(f"With {P} players the teams win: " + "; ".join(
        f"{r['team']} {_ci(Estimate(r['win_rate'], r['ci_low'], r['ci_high'], 0))}"
        for r in teams.iter_rows(named=True)) + f" (an equal share would be "
        f"{pct(teams['equal_share'][0])} each).")
    flagged = teams.filter(pl.col("flag") != "")
    if flagged.height:
        out.append("Teams whose win rate differs from an equal share at the 99% level: "
                   + ", ".join(flagged["team"].to_list()) + ".")
    ends = t["ends"].filter(pl.col("games") > 0).sort("games", descending=True)
    out.append("Games end by: " + "; ".join(f"{r['end']} {pct(r['share'])}"
                                            for r in ends.iter_rows(named=True)) + ".")
    ln = t["lengths"].row(0, named=True)
    rs = distribution(s["reshuffles"]).mean
    out.append(f"A game lasts {ln['mean_turns']:.1f} turns on average (95% CI "
               f"{ln['ci_low']:.1f}-{ln['ci_high']:.1f}, sd {ln['sd']:.1f}, about "
               f"{ln['mean_turns'] / P:.1f} rounds) with {rs.value:.2f} deck reshuffles.")
    ch = t["characters"].filter(pl.col("player_games") >= MIN_GAMES)
    if ch.height >= 2:
        top, low = ch.row(0, named=True), ch.row(ch.height - 1, named=True)
        out.append(f"Strongest character: {top['character']} (its team wins "
                   f"{_ci(Estimate(top['win_rate'], top['ci_low'], top['ci_high'], 0))}); "
                   f"weakest: {low['character']} ("
                   f"{_ci(Estimate(low['win_rate'], low['ci_low'], low['ci_high'], 0))}); "
                   f"the average player wins {pct(top['average_player'])}.")
        fl = ch.filter(pl.col("flag") != "")
        out.append("Characters differing from the average player at the 99% level: " + ", ".join(
            f"{r['character']} ({100 * r['edge']:+.1f} pts)" for r in fl.iter_rows(named=True))
            + "." if fl.height else "No character differs from the average player at the "
            "99% level.")
    sr = t["seat_roles"].filter((pl.col("flag") != "") & (pl.col("games") >= MIN_GAMES))
    out.append("Seat effects within a role (99%): " + "; ".join(
        f"{r['role']} in seat {r['seat']} {100 * r['edge']:+.1f} pts"
        for r in sr.iter_rows(named=True)) + "." if sr.height else "No seat changes a "
        "role's win rate at the 99% level (seat 1 is always the Shogun).")
    if content.get("assumed"):
        out.append(f"Content '{content['name']}' is marked assumed; results depend on it.")
    return out


def _charts(s: dict, t: dict[str, pl.DataFrame], fair) -> list[Chart]:
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
                               ylabel="win rate (%)")

    out = [Chart("team_win_rates", f"Team win rates with 95% intervals ({P} players)",
                 team_chart),
           Chart("character_win_rates", "Character win rates with 95% intervals", char_chart),
           S.seat_chart(fair, "Seats (on the winning team; seat 1 is the Shogun)"),
           S.length_chart({"turns": s["turns"]}, "Game length", "turns")]
    if P > 2 and sr.height:
        out.append(Chart("seat_roles", "Win rate by seat and role with 95% intervals",
                         seat_role_chart))
    return out


SECTIONS = [
    ("Teams", "teams", "Win rate of each team (Shogun with Samurai, Ninjas, Ronin) by Honor "
     "or by the Victory of the Swordmaster, against an equal share; mean team score in "
     "games decided on Honor; flags Holm-adjusted across teams."),
    ("Roles", "roles", "Win rate of each role (a player wins when its team wins)."),
    ("Seats", "seats", "Seat 1 is the Shogun; seats follow clockwise. A seat wins when its "
     "player's team wins (a team game: no fair share per seat; see Seats by role)."),
    ("Seats by role", "seat_roles", "Each role's win rate in each seat against that role's "
     "overall rate: the seat effect with the role held fixed."),
    ("Characters", "characters", "How often the player of each character is on the "
     "winning team, against the average player (characters are dealt at random)."),
    ("Characters by role", "character_roles", "Each character within each role, against "
     "that role's win rate."),
    ("End of the game", "ends", "Why games ended."),
    ("Length", "lengths", "Turns per game."),
    ("Cards", "cards", "How often each card is played per game."),
    ("Other figures", "other", "Parries, ties, Deadly Strikes, Bushido, reshuffles, the "
     "score margin and character abilities. Rates over several events of one game "
     "(attacks parried, Battle Cries parried, defeats by a teammate, Bushido paid with "
     "Honor) have cluster-robust intervals (ratio estimator over per-game sums), the games "
     "being independent, not the events."),
]


def summarize(s: dict[str, Any], manifest: dict[str, Any]) -> Summary:
    """The whole report of a Samurai Sword run."""
    seats = list(manifest["seats"])
    P = s["players"]
    long = LongTable()
    fair = seat_fairness(s["seat"][:P, :, 1].sum(axis=1), s["games"], team=True)
    tables = {
        "teams": team_table(s, long),
        "roles": role_table(s, long),
        "seats": S.seat_table(fair, seats, long, {
            "distance_from_shogun": [min(k, P - k) for k in range(P)]}),
        "seat_roles": by_role_table(s, s["seat"], list(range(1, P + 1)), "seat", long,
                                    "seat_roles"),
        "characters": character_table(s, long),
        "character_roles": by_role_table(s, s["chars"], list(s["char_names"]), "character",
                                         long, "character_roles"),
        "ends": end_table(s, long),
        "lengths": S.length_table({"whole game": s["turns"]}, "turns", long),
        "cards": card_table(s),
        "other": other_table(s, long),
    }
    headline = [{"figure": f"{r['team']} win rate", "value": pct(r["win_rate"]),
                 "95% interval": f"{pct(r['ci_low'])} - {pct(r['ci_high'])}",
                 "note": r["flag"] or f"equal share {pct(r['equal_share'])}"}
                for r in tables["teams"].iter_rows(named=True)]
    headline += [{"figure": f"ends: {r['end']}", "value": pct(r["share"]),
                  "95% interval": f"{pct(r['ci_low'])} - {pct(r['ci_high'])}", "note": ""}
                 for r in tables["ends"].filter(pl.col("games") > 0).iter_rows(named=True)]
    ln = tables["lengths"].row(0, named=True)
    headline.append({"figure": "game length (turns)", "value": f"{ln['mean_turns']:.1f}",
                     "95% interval": f"{ln['ci_low']:.1f} - {ln['ci_high']:.1f}",
                     "note": f"sd {ln['sd']:.1f}"})
    return Summary(
        title=f"{manifest['game_title']}: balance report ({P} players)",
        headline=pl.DataFrame(headline), tables=tables, long=long.frame(),
        findings=findings(s, seats, tables, manifest["content"]),
        charts=_charts(s, tables, fair), sections=SECTIONS,
        json={k: tables[k].to_dicts() for k in ("teams", "seats", "characters", "ends",
                                                 "lengths")},
    )
