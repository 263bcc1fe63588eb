"""What each content card is worth, causally (`simcli value` on a game with content cards:
Sixteen Samurai's samurai). The same seeds are played with the roster as it is and once
per card with that card made average (each rating the roster's mean, rounded, its name
kept). A card's value is how much more often it wins the contests it fights than the
average card in its place (and, beside it, how much more often its owner wins the game).

Verdicts, from the intervals against thresholds the report states:
- 'too strong': the strongest card(s) when set apart from the roster: a card's value
  exceeds the next card's by more than its own interval and by at least `gap` points,
  and it and the cards above it are at most a tenth of the roster; 'too weak' the mirror
  image at the bottom;
- otherwise 'stronger than average' / 'weaker than average' when its value differs from
  0 (Holm-adjusted across the cards, 5%), else 'no measurable difference'.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import polars as pl

from reports.stats import Estimate, holm, interval_p, mover
from simcli import engine
from simcli.games.base import Game

FLAG_LEVEL = 0.05
GAP_POINTS = 0.02  # default: a too-strong card stands this far above the next one at least


def card_rates(game: Game, prep: Any, seed: int, n: int, threads: int,
               progress: engine.Progress | None) -> list[tuple[Estimate, Estimate]]:
    """Per card, over n playouts: (contests won when fielded, its owner's game win rate)."""
    return game.card_rates(engine.play_all(game, prep, seed, n, threads, progress))


def difference(a: Estimate, b: Estimate) -> tuple[Estimate, float]:
    """a - b of two independent estimates (reports.stats.mover) and the two-sided p-value
    of the normal test its interval implies. Sharing seeds only makes the runs agree
    more, so treating them as independent is conservative."""
    if not (a.n and b.n) or any(math.isnan(x) for x in (a.value, b.value)):
        return Estimate(math.nan, math.nan, math.nan, 0), math.nan
    d = mover(a, b)
    return d, interval_p(d.value, d.lo, d.hi)


def card_values(game: Game, content: Any, players: int, seats: tuple, rules: dict,
                seed: int, n: int, threads: int, progress: engine.Progress | None,
                gap: float = GAP_POINTS) -> pl.DataFrame:
    """One row per card, strongest first: its round value and owner-game value against
    an average card, each with its 95% interval; Holm-adjusted p; verdict."""
    names = game.content_cards(content)
    base = card_rates(game, game.prepare(content, players, seats, rules), seed, n, threads,
                      progress)
    rows = []
    for i, name in enumerate(names):
        swapped = card_rates(game, game.prepare(game.swap_card(content, i), players, seats,
                                                rules), seed, n, threads, progress)
        (r1, o1), (r2, o2) = base[i], swapped[i]
        value, p = difference(r1, r2)
        owner, _ = difference(o1, o2)
        rows.append({"card": name, "fielded": r1.n, "round_win_rate": r1.value,
                     "round_win_rate_average_card": r2.value, "value": value.value,
                     "ci_low": value.lo, "ci_high": value.hi, "p_value": p,
                     "owner_game_value": owner.value, "owner_ci_low": owner.lo,
                     "owner_ci_high": owner.hi})
    for r, adj in zip(rows, holm([r["p_value"] for r in rows]), strict=True):
        r["p_adjusted"] = adj
    rows.sort(key=lambda r: -r["value"] if not math.isnan(r["value"]) else math.inf)
    for r, v in zip(rows, verdicts(rows, gap), strict=True):
        r["verdict"] = v
    return pl.DataFrame(rows, infer_schema_length=None)


def set_apart(rows: list[dict], gap: float) -> dict[int, str]:
    """Rows (value, ci_low, ci_high) set apart at the top ('too strong') or the bottom
    ('too weak'), by id: at most a tenth of the rows (one at least), from the top (bottom)
    down to the first place where a row's interval clears the next row's value by more
    than nothing and its value by at least `gap`."""
    ranked = sorted((r for r in rows if not math.isnan(r["value"])),
                    key=lambda r: -r["value"])
    out: dict[int, str] = {}
    most = max(1, len(ranked) // 10)
    for order, word, sign in ((ranked, "too strong", 1), (ranked[::-1], "too weak", -1)):
        for k, (a, b) in enumerate(itertools.pairwise(order[:most + 1])):
            near = a["ci_low"] if sign > 0 else a["ci_high"]
            if sign * (near - b["value"]) > 0 and sign * (a["value"] - b["value"]) >= gap:
                out.update({id(r): word for r in order[:k + 1]})
                break
    return out


def verdicts(rows: list[dict], gap: float) -> list[str]:
    """The verdict of each card row (see the module)."""
    apart = set_apart(rows, gap)
    return [apart.get(id(r)) or _flag_word(r) for r in rows]


def _flag_word(r: dict) -> str:
    if math.isnan(r["value"]):
        return "never fielded"
    if not r["p_adjusted"] < FLAG_LEVEL:
        return "no measurable difference"
    return "stronger than average" if r["value"] > 0 else "weaker than average"
