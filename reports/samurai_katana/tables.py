"""Samurai & Katana report tables: seats, battles by terrain, purchases,
cards, offices, eliminations and returns."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports.stats import mean_from_moments, rate, ratio_rate
from reports.summary import LongTable

MIN_CLANS = 200  # start-draw groups smaller than this are left out of findings and charts


TERRAINS = ((False, False), (False, True), (True, False), (True, True))


def battle_rate(att: int, n: int, sq: np.ndarray, games: int):
    """The attacker's share of `n` battles, its interval clustered by game (several battles
    per game): ratio_rate from the per-game sums of squares sq = (yy, xx, xy) of attacker
    wins y and battles x (the kernel's stats.Moment order)."""
    return ratio_rate(att, n, int(sq[0]), int(sq[1]), int(sq[2]), games)


def terrain_label(castle: bool, mountain: bool) -> str:
    """'plain', 'mountain', 'castle', 'castle in mountains'."""
    if castle:
        return "castle in mountains" if mountain else "castle"
    return "mountain" if mountain else "plain"


def terrain_slug(castle: bool, mountain: bool) -> str:
    """File-name form of terrain_label."""
    return terrain_label(castle, mountain).replace(" ", "_")


def _rates(long: LongTable, section: str, metric: str, key: str, labels: list,
           counts: np.ndarray, min_n: int = 1, fair: float | None = None) -> pl.DataFrame:
    """One row per label with n >= min_n: the count, how many won and the rate's interval
    (counts[i] = (n, won))."""
    rows = []
    for i, label in enumerate(labels):
        n, won = int(counts[i, 0]), int(counts[i, 1])
        if n >= min_n:
            e = rate(won, n)
            long.add(section, metric, str(label), e)
            rows.append({key: label, "n": n, "win_rate": e.value, "ci_low": e.lo,
                         "ci_high": e.hi, **({"fair": fair} if fair is not None else {})})
    schema = {key: pl.Int64 if labels and isinstance(labels[0], int) else pl.Utf8,
              "n": pl.Int64, "win_rate": pl.Float64, "ci_low": pl.Float64,
              "ci_high": pl.Float64, **({"fair": pl.Float64} if fair is not None else {})}
    return pl.DataFrame(rows, schema=schema)


def _per_game(long: LongTable, section: str, names: list, sums, squares, games: int,
              prefix: str = "") -> dict[str, list]:
    """Means per game with their intervals, as columns."""
    cols: dict[str, list] = {f"{prefix}per_game": [], f"{prefix}ci_low": [],
                             f"{prefix}ci_high": []}
    for i, name in enumerate(names):
        e = mean_from_moments(float(sums[i]), float(squares[i]), games)
        long.add(section, f"{prefix}per_game", name, e)
        for col, v in zip(cols, (e.value, e.lo, e.hi), strict=True):
            cols[col].append(v)
    return cols


def own_tables(s: dict, long: LongTable) -> dict[str, pl.DataFrame]:
    """The game's own tables: start draw, catch-up, Honor sources, provinces, battles,
    cards, odds, other counts."""
    games, players = s["games"], s["players"]
    major = s["start_major"]
    idx = [i for i in range(len(major["n"])) if major["n"][i] > 0]
    src = s["sources"]
    names = src["name"]
    wins = int(np.sum(s["wins"]))
    pv = s["provinces"]
    turns = int((s["lengths"] * np.arange(len(s["lengths"]))).sum())
    b = s["battles"]
    c = s["cards"]
    o = s["odds"]
    held = [rate(int(pv[k][i]), turns if k == "turns_held" else games)
            for k in ("turns_held", "ever", "end", "winner") for i in range(len(pv["name"]))]
    for i, name in enumerate(pv["name"]):
        long.add("provinces", "held_by_winner_at_end", name, held[3 * len(pv["name"]) + i])
    NP = len(pv["name"])
    terr = []
    for c_, m_ in TERRAINS:
        cm = (int(c_), int(m_))
        n = int(b["n"][cm])
        att = battle_rate(int(b["att"][cm]), n, b["sq"][cm], games)
        long.add("battles", "attacker_win_rate", terrain_label(*cm), att)
        terr.append({"terrain": terrain_label(*cm), "battles": n, "per_game": n / games,
                     "attacker_win_rate": att.value, "ci_low": att.lo, "ci_high": att.hi,
                     "tie_rate": int(b["tie"][cm]) / n if n else math.nan,
                     "emptied_rate": int(b["empty"][cm]) / n if n else math.nan,
                     "attacker_losses_mean": int(b["la"][cm]) / n if n else math.nan,
                     "defender_losses_mean": int(b["ld"][cm]) / n if n else math.nan})
    return {
        "start_income": _rates(long, "start_draw", "win_rate_by_income", "start_income",
                               list(range(len(s["start_income"]))), s["start_income"]),
        "start_major": _rates(long, "start_draw", "win_rate_by_major_city", "major_city",
                              [f"{major['city'][i]} ({major['territory'][i]})" for i in idx],
                              np.stack([major["n"], major["won"]], axis=1)[idx]),
        "start_cluster": _rates(long, "start_draw", "win_rate_by_cluster",
                                "cities_in_one_province", list(range(len(s["start_cluster"]))),
                                s["start_cluster"]),
        "catch_up": _rates(long, "catch_up", "emperor_win_rate", "turn",
                           list(range(len(s["catch_up"]))), s["catch_up"], 50, 1 / players
                           ).filter(pl.col("turn") >= 1),
        "honor_sources": pl.DataFrame({
            "source": names, "kind": ["gain" if g else "loss" for g in src["gain"]],
            **_per_game(long, "honor_sources", names, src["sum"], src["sq"], games),
            **_per_game(long, "honor_sources", names, src["win_sum"],
                        src["win_sq"], wins, "winner_"),
            "winner_share_of_gains": [int(src["win_sum"][i]) / max(1, sum(
                int(src["win_sum"][j]) for j in range(len(names)) if src["gain"][j]))
                if src["gain"][i] else None for i in range(len(names))]}),
        "provinces": pl.DataFrame({
            "province": pv["name"], "honor": [int(h) for h in pv["honor"]],
            "territories": [int(t) for t in pv["territories"]],
            "share_of_turns_held": [e.value for e in held[:NP]],
            "games_held_some_turn": [e.value for e in held[NP:2 * NP]],
            "held_at_end": [e.value for e in held[2 * NP:3 * NP]],
            "winner_holds_at_end": [e.value for e in held[3 * NP:]],
            "winner_ci_low": [e.lo for e in held[3 * NP:]],
            "winner_ci_high": [e.hi for e in held[3 * NP:]]}),
        "battles": pl.DataFrame(terr),
        "cards": pl.DataFrame({"card": c["name"], "kind": c["kind"],
                               "copies": [int(x) for x in c["count"]],
                               **{f"{k}_per_game": np.asarray(c[k]) / games
                                  for k in ("power", "combat", "countered")}}),
        "odds": pl.DataFrame([
            {"terrain": terrain_label(*cm), "attacker": a, "defender": d,
             **{k: float(o[key][a, d, int(cm[0]), int(cm[1])]) for k, key in (
                 ("attacker_win", "win"), ("tie", "tie"), ("attacker_losses", "attacker_losses"),
                 ("defender_losses", "defender_losses"), ("empty", "empty"))}}
            for cm in TERRAINS for a in range(1, o["max_size"] + 1)
            for d in range(0 if cm[0] else 1, o["max_size"] + 1)]),
        "other": pl.DataFrame([{"figure": k.replace("_", " ") + " per game", "value": v / games}
                               for k, v in s["misc"].items()]),
    }
