"""Samurai & Katana combat odds: exact odds by enumerating every hand, Monte Carlo odds,
greedy's attack table, the odds grid as rows and `simcli odds samurai-katana` (one battle,
or the whole table with --table)."""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from kernels import katana_combat as KC
from simcli.errors import UserError
from simcli.games.base import Game, OddsRequest, OddsResult
from simcli.games.samurai_katana.content import GAME_NAME, Deck, KatanaContent
from simcli.runfolder import MANIFEST, RunFolder, write_json


def deck_array(deck: Deck) -> np.ndarray:
    """Every card of the deck as its type code."""
    return np.repeat(np.arange(len(deck.counts), dtype=np.int64), deck.counts)


def _hand_classes(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Card types grouped by what matters in a combat without board (value, swords, special
    effect); returns (class of each type, a representative type per class)."""
    keys: dict[tuple, int] = {}
    cls = np.zeros(len(table), np.int64)
    rep: list[int] = []
    for t, row in enumerate(table):
        special = row[KC.CC_KIND] == KC.K_SPECIAL
        key = (int(row[KC.CC_VALUE]), int(row[KC.CC_SWORDS]), bool(special),
               int(row[KC.CC_EFFECT]) if special else 0, int(row[KC.CC_AMOUNT]) if special else 0)
        if key not in keys:
            keys[key] = len(rep)
            rep.append(t)
        cls[t] = keys[key]
    return cls, np.array(rep, np.int64)


def hand_multisets(table: np.ndarray, counts: np.ndarray, h: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct hand of h cards (as representative type codes) and its probability
    when h cards are dealt from the whole deck."""
    cls, rep = _hand_classes(table)
    n_cls = np.zeros(len(rep), np.int64)
    for t, c in enumerate(cls):
        n_cls[c] += counts[t]
    total = math.comb(int(counts.sum()), h)
    hands: list[list[int]] = []
    weights: list[float] = []

    def walk(c: int, left: int, picked: list[int], ways: int) -> None:
        if left == 0:
            hands.append(list(picked))
            weights.append(ways / total)
            return
        if c == len(rep):
            return
        for k in range(min(left, int(n_cls[c])), -1, -1):
            walk(c + 1, left - k, picked + [int(rep[c])] * k, ways * math.comb(int(n_cls[c]), k))

    walk(0, h, [], 1)
    return np.array(hands, np.int64).reshape(len(hands), h), np.array(weights)


def _side_hist(table: np.ndarray, hands: np.ndarray, weights: np.ndarray, policy: int,
               castle: bool) -> np.ndarray:
    # card points stay below 50 (values and amounts are at most 9: 9 + 9 + 9 doubled + 9)
    # and swords below 26 (three cards of at most 4, plus an arquebus of at most 9)
    hist = np.zeros((50, 26))
    KC.exact_side(hands, weights, table, policy, castle, hist)
    return hist


@lru_cache(maxsize=16)
def _exact_cached(table_bytes: bytes, shape: tuple[int, int], counts: tuple[int, ...], h: int,
                  pol_a: int, pol_d: int) -> np.ndarray:
    # a writable copy: the kernels are compiled for writable arrays (a read-only one would
    # compile them again)
    table = np.frombuffer(table_bytes, np.int64).reshape(shape).copy()
    hands, weights = hand_multisets(table, np.array(counts, np.int64), h)
    ha = _side_hist(table, hands, weights, pol_a, False)
    out = np.zeros((KC.MAX_SIZE + 1, KC.MAX_SIZE + 1, 2, 2, KC.N_OS))
    ia = np.nonzero(ha)
    pa_pts, pa_sw, pa_p = ia[0], ia[1], ha[ia]
    for c in range(2):
        hd = _side_hist(table, hands, weights, pol_d, c == 1)
        idd = np.nonzero(hd)
        pd_pts, pd_sw, pd_p = idd[0], idd[1], hd[idd]
        prob = pa_p[:, None] * pd_p[None, :]
        for m in range(2):
            for a in range(1, KC.MAX_SIZE + 1):
                for d in range(0 if c else 1, KC.MAX_SIZE + 1):
                    A = pa_pts[:, None] + min(a, KC.MAX_COUNTED)
                    D = pd_pts[None, :] + min(d, KC.MAX_COUNTED) + m
                    la = np.minimum(np.minimum(pd_sw, KC.MAX_LOSS), a)[None, :]
                    ld = np.minimum(np.minimum(pa_sw, KC.MAX_LOSS), d)[:, None]
                    win = A > D
                    empty = np.where(win, a - la == 0, (d - ld == 0) & (c == 0))
                    cell = out[a, d, c, m]
                    cell[KC.OS_WIN] = (prob * win).sum()
                    cell[KC.OS_TIE] = (prob * (A == D)).sum()
                    cell[KC.OS_LA] = (prob * la).sum()
                    cell[KC.OS_LA2] = (prob * la * la).sum()
                    cell[KC.OS_LD] = (prob * ld).sum()
                    cell[KC.OS_LD2] = (prob * ld * ld).sum()
                    cell[KC.OS_EMPTY] = (prob * empty).sum()
    out.setflags(write=False)
    return out


def exact_odds(table: np.ndarray, counts: np.ndarray, h: int, pol_a: int = KC.GREEDY,
               pol_d: int = KC.GREEDY) -> np.ndarray:
    """Exact battle odds by enumerating every hand: out[a, d, castle, mountain, OS_*] holds
    probabilities (win, tie, empty) and expectations (losses and their squares) for army
    sizes a 1..8 and d 0..8 (0 only with a castle). Each side holds h cards dealt from its
    own full deck."""
    t = np.ascontiguousarray(table, np.int64)
    return _exact_cached(t.tobytes(), t.shape, tuple(int(c) for c in counts), h, pol_a, pol_d)


def win_table(content: KatanaContent) -> np.ndarray:
    """Greedy's attack table: the attacker's exact win chance [a, d, castle, mountain]."""
    deck = content.deck
    return np.ascontiguousarray(
        exact_odds(deck.table, deck.counts, content.numbers.hand)[..., KC.OS_WIN])


ODDS_FIGURES = ("attacker_win", "tie", "defender_win", "attacker_losses", "defender_losses",
                "empty")


def odds_rows(grid: np.ndarray, n: int | None) -> list[dict[str, Any]]:
    """The odds grid as rows (every size pair and terrain case), with 95% intervals when
    sampled (n battles) and exact values otherwise."""
    from reports.stats import mean_from_moments, rate

    rows = []
    for c in range(2):
        for m in range(2):
            for a in range(1, KC.MAX_SIZE + 1):
                for d in range(0 if c else 1, KC.MAX_SIZE + 1):
                    cell = grid[a, d, c, m]
                    row: dict[str, Any] = {"castle": bool(c), "mountain": bool(m),
                                           "attacker": a, "defender": d}
                    if n is None:
                        row.update(
                            attacker_win=float(cell[KC.OS_WIN]), tie=float(cell[KC.OS_TIE]),
                            defender_win=1.0 - float(cell[KC.OS_WIN]) - float(cell[KC.OS_TIE]),
                            attacker_losses=float(cell[KC.OS_LA]),
                            defender_losses=float(cell[KC.OS_LD]), empty=float(cell[KC.OS_EMPTY]),
                            battles=0, method="exact")
                        for k in ODDS_FIGURES:
                            row[f"{k}_ci_low"] = row[k]
                            row[f"{k}_ci_high"] = row[k]
                    else:
                        win, tie = int(cell[KC.OS_WIN]), int(cell[KC.OS_TIE])
                        est = {"attacker_win": rate(win, n), "tie": rate(tie, n),
                               "defender_win": rate(n - win - tie, n),
                               "attacker_losses": mean_from_moments(
                                   float(cell[KC.OS_LA]), float(cell[KC.OS_LA2]), n),
                               "defender_losses": mean_from_moments(
                                   float(cell[KC.OS_LD]), float(cell[KC.OS_LD2]), n),
                               "empty": rate(int(cell[KC.OS_EMPTY]), n)}
                        for k in ODDS_FIGURES:
                            row.update({k: est[k].value, f"{k}_ci_low": est[k].lo,
                                        f"{k}_ci_high": est[k].hi})
                        row.update(battles=n, method="monte-carlo")
                    rows.append(row)
    return rows


ODDS_CHUNK = 500_000
TABLE_CHUNK = 50_000
ODDS_POLICY = ("both sides hold 5 cards dealt at random from a full deck (each its own) and "
               "play the strongest choice: the two highest combat values (a castle doubles the "
               "defender's weaker one), then the special that adds most points, ties to more "
               "swords")


def sample_odds(deck: Deck, h: int, req: OddsRequest, a_rng: tuple[int, int],
                d_rng: tuple[int, int], castles: np.ndarray, mountains: np.ndarray
                ) -> np.ndarray:
    """Monte Carlo odds counts out[a, d, castle, mountain, OS_*] from req.n battles, each
    keyed (seed, index), on req.threads threads."""
    from simcli import engine

    if req.n <= 0:
        raise UserError(f"-n must be a positive number of battles, not {req.n}")
    cards = np.ascontiguousarray(deck.table)
    dk = deck_array(deck)
    total = np.zeros((KC.MAX_SIZE + 1, KC.MAX_SIZE + 1, 2, 2, KC.N_OS), np.int64)
    cells = (a_rng[1] - a_rng[0] + 1) * (d_rng[1] - d_rng[0] + 1)
    size = ODDS_CHUNK if cells <= 4 else TABLE_CHUNK

    def work(chunk: engine.Chunk) -> np.ndarray:
        out = np.zeros_like(total)
        KC.odds_chunk(np.uint64(req.seed), chunk.first, chunk.count, dk, cards, h, KC.GREEDY,
                      KC.GREEDY, a_rng[0], a_rng[1], d_rng[0], d_rng[1], castles, mountains,
                      out)
        return out

    def done(_chunk: engine.Chunk, part: np.ndarray) -> None:
        total[...] += part

    engine.run_chunks(engine.plan(req.n, size), work, done, req.threads, req.progress)
    return total


def _fmt_pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def battle_odds(game: Game, req: OddsRequest) -> OddsResult:
    """`simcli odds samurai-katana`: one battle's odds, or the whole table with --table."""
    content: KatanaContent = game.load_content(game.content_path(req.content)).data
    deck, h = content.deck, content.numbers.hand
    if req.table:
        return odds_table(deck, h, req)
    if req.attacker is None or req.defender is None:
        raise UserError("give the army sizes with --attacker N --defender M (or ask for the "
                        "whole table with --table)")
    if req.attacker < 1:
        raise UserError(f"--attacker must be at least 1 samurai, not {req.attacker}")
    if req.defender < 0 or (req.defender == 0 and not req.castle):
        raise UserError(f"--defender must be at least 1 samurai (0 only with --castle: a "
                        f"castle alone), not {req.defender}")
    a = min(req.attacker, KC.MAX_SIZE)
    d = min(req.defender, KC.MAX_SIZE)
    c, m = int(req.castle), int(req.mountain)
    if req.exact:
        cell = exact_odds(deck.table, deck.counts, h)[a, d, c, m]
        n = None
    else:
        flags_c = np.array([c == 0, c == 1], np.int64)
        flags_m = np.array([m == 0, m == 1], np.int64)
        cell = sample_odds(deck, h, req, (a, a), (d, d), flags_c, flags_m)[a, d, c, m]
        n = req.n
    grid = np.zeros((KC.MAX_SIZE + 1, KC.MAX_SIZE + 1, 2, 2, KC.N_OS), cell.dtype)
    grid[a, d, c, m] = cell
    row = next(r for r in odds_rows(grid, n) if (r["attacker"], r["defender"], r["castle"],
                                                   r["mountain"]) == (a, d, bool(c), bool(m)))
    terrain = ", ".join(x for x, on in (("castle", c), ("mountain", m)) if on) or "plain"
    method = "exact" if n is None else "monte-carlo"

    def ci(k: str, pct: bool = True) -> str:
        if n is None:
            return "exact"
        f = _fmt_pct if pct else (lambda x: f"{x:.3f}")
        return f"{f(row[k + '_ci_low'])} - {f(row[k + '_ci_high'])}"

    rows = [
        ["attacker wins", _fmt_pct(row["attacker_win"]), ci("attacker_win")],
        ["tie (defender holds)", _fmt_pct(row["tie"]), ci("tie")],
        ["defender wins", _fmt_pct(row["defender_win"]), ci("defender_win")],
        ["attacker losses (mean samurai)", f"{row['attacker_losses']:.3f}",
         ci("attacker_losses", False)],
        ["defender losses (mean samurai)", f"{row['defender_losses']:.3f}",
         ci("defender_losses", False)],
        ["territory ends empty", _fmt_pct(row["empty"]), ci("empty")],
    ]
    notes = [f"Card choice: {ODDS_POLICY}."]
    if n is not None:
        notes.append(f"{n:,} battles (seed {req.seed}); 95% intervals (Wilson for chances, "
                     f"normal for mean losses).")
    if max(req.attacker, req.defender) > 5:
        notes.append("Only 4 samurai count and losses stop at 4, so any army of 5 or more "
                     "fights like 5.")
    data = {"game": GAME_NAME, "method": method, "attacker": req.attacker,
            "defender": req.defender, "castle": bool(c), "mountain": bool(m),
            "card_policy": ODDS_POLICY, **{k: v for k, v in row.items()
                                           if k not in ("attacker", "defender", "castle",
                                                        "mountain", "method")}}
    if n is not None:
        data["seed"] = req.seed
    return OddsResult(
        title=f"{GAME_NAME} battle odds: {req.attacker} attacking {req.defender} ({terrain}; "
              f"{method})",
        columns=["outcome", "value", "95% interval"], rows=rows, notes=notes, data=data)


def odds_table(deck: Deck, h: int, req: OddsRequest) -> OddsResult:
    """The full grid (attacker 1-8, defender 1-8, and 0 with a castle; every terrain case)
    as Parquet and CSV, and one heatmap per terrain case."""
    import polars as pl

    from reports.samurai_katana import charts as RC
    from reports.samurai_katana import tables as R

    if req.attacker is not None or req.defender is not None:
        raise UserError("--table computes every army size; drop --attacker/--defender")
    if req.castle or req.mountain:
        raise UserError("--table computes every terrain case; drop --castle/--mountain")
    if req.exact:
        grid = exact_odds(deck.table, deck.counts, h)
        n = None
    else:
        on = np.ones(2, np.int64)
        grid = sample_odds(deck, h, req, (1, KC.MAX_SIZE), (0, KC.MAX_SIZE), on, on)
        n = req.n
    frame = pl.DataFrame(odds_rows(grid, n))
    method = "exact" if n is None else "monte-carlo"
    folder = RunFolder(req.out or Path("runs") / f"odds-{GAME_NAME}", req.force,
                       auto=req.out is None)
    folder.create()
    try:
        tmp = folder.path
        frame.write_parquet(tmp / "odds.parquet")
        frame.write_csv(tmp / "odds.csv")
        names = ["odds.parquet", "odds.csv"]
        for c in range(2):
            for m in range(2):
                name = f"heatmap_{R.terrain_slug(bool(c), bool(m))}.png"
                RC.odds_heatmap(tmp / name, frame, bool(c), bool(m))
                names.append(name)
        write_json(tmp / MANIFEST, {"format": 1, "tool": "simcli", "kind": "odds-table",
                                    "game": GAME_NAME, "method": method, "battles": n,
                                    "seed": req.seed, "card_policy": ODDS_POLICY})
        out = folder.commit()
    except BaseException:
        folder.abort()
        raise
    paths = [out / name for name in names]
    rows = []
    for c in range(2):
        for m in range(2):
            part = frame.filter((pl.col("castle") == bool(c)) & (pl.col("mountain") == bool(m)))
            even = part.filter(pl.col("attacker") == pl.col("defender"))
            rows.append([R.terrain_label(bool(c), bool(m)), str(part.height),
                         ", ".join(f"{r['attacker']}v{r['defender']} {_fmt_pct(r['attacker_win'])}"
                                   for r in even.iter_rows(named=True) if r["attacker"] <= 4)])
    notes = [f"Card choice: {ODDS_POLICY}."]
    if n is not None:
        hw = float((frame["attacker_win_ci_high"] - frame["attacker_win_ci_low"]).max()) / 2
        notes.append(f"{n:,} deals (seed {req.seed}), every cell scored on each deal; the "
                     f"widest 95% half-width of a win chance is {100 * hw:.2f} points.")
    notes += [f"wrote {p}" for p in paths]
    data = {"game": GAME_NAME, "method": method, "card_policy": ODDS_POLICY,
            "files": [str(p) for p in paths], "rows": frame.to_dicts()}
    return OddsResult(title=f"{GAME_NAME} odds table ({method})",
                      columns=["terrain", "cells", "attacker win, equal armies"], rows=rows,
                      notes=notes, data=data)
