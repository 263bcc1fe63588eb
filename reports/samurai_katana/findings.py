"""Samurai & Katana report findings: plain-language statements with their intervals."""

from __future__ import annotations

import polars as pl

from reports import sections as S
from reports.samurai_katana.tables import MIN_CLANS, battle_rate
from reports.stats import Estimate, mean_from_moments


def _ci(value: float, lo: float, hi: float, n: int = 0, of: str = "") -> str:
    return S.ci_text(Estimate(value, lo, hi, n), of)


def _honor(r: dict, games: int) -> str:
    """A source's Honor per game to the winner, with its interval."""
    e = Estimate(r["winner_per_game"], r["winner_ci_low"], r["winner_ci_high"], games)
    return f"{r['source']} {S.mean_text(e, 1)}"


def province_reading(rules: dict[str, str]) -> str:
    """The sentence naming the Province Honor reading when the default `every-turn` is in
    force (it decides most wins); empty under `once`. A rules dict without the option takes
    its default."""
    if rules.get("province-honor", "every-turn") != "every-turn":
        return ""
    return ("Reading in force: province-honor=every-turn - a complete province pays its "
            "Honor at the end of every activation of its owner, not once when completed "
            "(--rule province-honor=once). It makes games much shorter and decides most "
            "wins: every finding below depends on it.")


def findings(s: dict, seats: list[str], fair, t: dict[str, pl.DataFrame], content: dict,
             target: int, rules: dict[str, str] | None = None) -> list[str]:
    """Plain-language statements, each with its interval; the Province Honor reading first
    when it is the default one."""
    out = []
    reading = province_reading(rules or {})
    if reading:
        src = t["honor_sources"].filter(pl.col("source") == "provinces")
        ln = t["lengths"].row(0, named=True)
        mean = Estimate(ln["mean_turns"], ln["ci_low"], ln["ci_high"], ln["games"])
        gives = (f"the winner gains {_honor(src.row(0, named=True), ln['games'])} Honor a "
                 f"game from provinces" if src.height else "provinces give no Honor")
        out.append(f"{reading} Measured here: {gives}; games last "
                   f"{S.mean_text(mean, 2, 'games')} turns on average.")
    out += S.seat_findings(fair)
    if len(set(seats)) > 1:
        out.append(f"Seats play different policies ({', '.join(seats)}): read the seat rates "
                   f"as policy strength as much as seat effects.")
    out.append("Seat 1 is the first Emperor and places its starting samurai first.")
    inc = t["start_income"].filter(pl.col("n") >= MIN_CLANS)
    if inc.height >= 2:
        lo, hi = inc.row(0, named=True), inc.row(inc.height - 1, named=True)
        out.append(f"Start draw: clans starting with {lo['start_income']} koku of taxes win "
                   f"{_ci(lo['win_rate'], lo['ci_low'], lo['ci_high'], lo['n'], 'clans')}, "
                   f"those with {hi['start_income']} win "
                   f"{_ci(hi['win_rate'], hi['ci_low'], hi['ci_high'], hi['n'], 'clans')}"
                   f" (every clan starts with the same clan points, so income and place are "
                   f"what the blind draw changes).")
    maj = t["start_major"].filter(pl.col("n") >= MIN_CLANS).sort("win_rate", descending=True)
    if maj.height >= 2:
        b, w = maj.row(0, named=True), maj.row(maj.height - 1, named=True)
        out.append(f"Best starting major city: {b['major_city']} "
                   f"{_ci(b['win_rate'], b['ci_low'], b['ci_high'], b['n'], 'clans')}; worst: "
                   f"{w['major_city']} "
                   f"{_ci(w['win_rate'], w['ci_low'], w['ci_high'], w['n'], 'clans')}.")
    cu = t["catch_up"].filter(pl.col("turn") == s["catch_up_turn"])
    if cu.height:
        r = cu.row(0, named=True)
        out.append(f"Emperor catch-up: the clan with fewest Honor after turn {r['turn']} goes "
                   f"on to win {_ci(r['win_rate'], r['ci_low'], r['ci_high'])} of the "
                   f"n = {r['n']:,} games that reach it, against {S.pct(r['fair'])} for an even "
                   f"chance.")
    ln = t["lengths"].row(0, named=True)
    mean = Estimate(ln["mean_turns"], ln["ci_low"], ln["ci_high"], ln["games"])
    out.append(f"A game lasts {S.mean_text(mean, 2, 'games')} turns on average (sd "
               f"{ln['sd']:.2f}) to pass {target} Honor; {s['capped']} of {ln['games']:,} "
               f"games reached the safety cap.")
    src = t["honor_sources"].filter(pl.col("winner_share_of_gains") > 0).sort(
        "winner_per_game", descending=True)
    if src.height:
        out.append(f"Where winners' Honor comes from, per game (n = {ln['games']:,} games): "
                   + ", ".join(_honor(r, ln["games"]) for r in src.iter_rows(named=True))
                   + ".")
    r = t["provinces"].sort("winner_holds_at_end", descending=True).row(0, named=True)
    held = _ci(r["winner_holds_at_end"], r["winner_ci_low"], r["winner_ci_high"],
               s["games"], "games")
    out.append(f"The province winners hold most often at the end is {r['province']} (worth "
               f"{r['honor']}): {held} of games.")
    n = int(s["battles"]["n"].sum())
    if n:
        att = battle_rate(int(s["battles"]["att"].sum()), n, s["battles"]["sq_all"],
                          s["games"])
        per = mean_from_moments(float(n), float(s["battles"]["sq_all"][1]), s["games"])
        out.append(f"{S.mean_text(per, 1, 'games')} battles per game; attackers win "
                   f"{S.ci_text(att, 'battles')} of them (they choose when to attack).")
    if content.get("assumed"):
        out.append(f"The map and deck '{content['name']}' are reconstructed (assumed), not "
                   f"the printed game; city, province and card findings depend on them. Run "
                   f"with --content to use the real ones.")
    return out
