"""Samurai Sword report tables: teams, roles, characters, seats by role,
end reasons, cards and combat figures."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports import sections as S
from reports.stats import (
    Estimate,
    binomial_p,
    distribution,
    holm,
    mean_from_moments,
    rate,
    ratio_rate,
)
from reports.summary import LongTable

FLAG_LEVEL = 0.01  # flags at the 99% level, Holm-adjusted within each table


FLAG = "differs (99%)"


MIN_GAMES = 200  # rows with fewer games stay out of findings


pct = S.pct


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
