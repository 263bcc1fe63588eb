"""`simcli value`: what each card, ability and optional action is worth, causally.

Restricted play: the same seeds are played twice, once as usual and once with one player
denied one option (its policy never chooses an action using it); the difference in that
player's win rate, paired by seed, is the option's value to it. Every seat takes the
restricted role in turn (per seat), and the overall value averages the seats per seed.
Holm-adjusted across options. Removal: the option's card taken out of the game's content
(edited in memory), same seeds: the change in every seat's win rate and in the balance
index.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from reports import charts as C
from reports.fairness import balance_index
from reports.html import STYLE, image_html, table_html
from reports.render import markdown_table
from reports.sections import pts_text
from reports.stats import Estimate, holm, paired_difference_of, paired_difference_p
from simcli import __version__, engine
from simcli.card_value import GAP_POINTS, card_values, set_apart
from simcli.errors import UserError
from simcli.games.base import Game
from simcli.registry import get_game
from simcli.runfolder import RunFolder, write_json

FLAG_LEVEL = 0.05
BOOT = 200
DOMINANT_POINTS = 0.10  # default: denying a dominant option costs more than this


def strength(overall: pl.DataFrame, removal: pl.DataFrame, dominant: float,
             gap: float) -> pl.DataFrame:
    """A verdict on each option's strength (overall rows), from its interval against the
    stated thresholds: 'dominant' when denying it costs more than `dominant` beyond its
    interval and removing it shifts the balance index (5%, Holm); 'too strong' when it
    is set apart from the next option (card_value.set_apart, `gap`); 'weak' when denying
    it changes nothing measurable; otherwise 'sound'."""
    shifts = set()
    if removal.height:
        shifts = set(removal.filter((pl.col("figure") == "balance")
                                    & (pl.col("p_adjusted") < FLAG_LEVEL))["option"])
    rows = overall.to_dicts()
    apart = set_apart(rows, gap)
    words = []
    for r in rows:
        if r["ci_low"] > dominant and r["option"] in shifts:
            words.append("dominant")
        elif apart.get(id(r)) == "too strong":
            words.append("too strong")
        elif r["verdict"] in ("no measurable effect", "changes no game"):
            words.append("weak")
        else:
            words.append("sound")
    return overall.with_columns(pl.Series("strength", words))


def won_matrix(game: Game, prep: Any, seed: int, n: int, threads: int,
               forbid: np.ndarray | None, progress: engine.Progress | None) -> np.ndarray:
    """won[g, s] (float): seat s's share of playout g's win (a shared win split)."""
    won = np.zeros((n, prep_players(prep)))

    def work(chunk: engine.Chunk) -> np.ndarray:
        rows = np.zeros((chunk.count, len(game.row_columns)), np.int64)
        game.run_chunk(prep, seed, chunk.first, chunk.count, game.new_aggregates(prep), rows,
                       forbid=forbid)
        w = game.seats_won(rows)[:, :won.shape[1]].astype(float)
        return w / np.maximum(w.sum(axis=1, keepdims=True), 1.0)

    def done(chunk: engine.Chunk, part: np.ndarray) -> None:
        won[chunk.first:chunk.first + chunk.count] = part

    engine.run_chunks(engine.spread_plan(game, n, threads), work, done, threads, progress)
    return won


def prep_players(prep: Any) -> int:
    """Players of a prepared run."""
    return int(prep.players)


def _paired(x: np.ndarray, b: np.ndarray) -> tuple[Estimate, float]:
    """Mean of x - b (per seed, values in [0, 1]) with its interval and the two-sided
    p-value of the test that interval implies (p < 0.05 exactly when it excludes 0)."""
    return paired_difference_of(x, b), paired_difference_p(x, b)


@dataclass
class ValueResult:
    """A finished `simcli value`."""

    folder: Path
    restricted: pl.DataFrame
    removal: pl.DataFrame
    manifest: dict[str, Any]
    cards: pl.DataFrame


def restricted_rows(game: Game, prep: Any, base: np.ndarray, option: int, name: str,
                    seed: int, n: int, threads: int,
                    progress: engine.Progress | None) -> list[dict]:
    """Per seat and overall: win rate without the option minus with it (paired)."""
    P = base.shape[1]
    n_opt = len(game.options)
    restricted = np.zeros((n, P))
    rows = []
    for s in range(P):
        forbid = np.zeros((P, n_opt), np.bool_)
        forbid[s, option] = True
        restricted[:, s] = won_matrix(game, prep, seed, n, threads, forbid, progress)[:, s]
    for s in [*range(P), -1]:
        x = base[:, s] if s >= 0 else base.mean(axis=1)
        r = restricted[:, s] if s >= 0 else restricted.mean(axis=1)
        e, p = _paired(x, r)  # value = unrestricted - restricted
        rows.append({"option": name, "seat": "overall" if s < 0 else f"seat {s + 1}",
                     "win_rate": float(x.mean()), "win_rate_denied": float(r.mean()),
                     "value": e.value, "ci_low": e.lo, "ci_high": e.hi, "p_value": p,
                     "games_changed": float(np.mean(x != r))})
    return rows


def removal_rows(game: Game, content, players: int, seats: tuple, rules: dict,
                 base: np.ndarray, option: int, name: str, seed: int, n: int,
                 threads: int, progress: engine.Progress | None) -> list[dict]:
    """The change in every seat's win rate and in the balance index when the option's card
    is removed from the content (same seeds); [] when it cannot be removed."""
    reduced = game.remove_option(content, option)
    if reduced is None:
        return []
    prep = game.prepare(reduced, players, seats, rules)
    won = won_matrix(game, prep, seed, n, threads, None, progress)
    rows = []
    for s in range(players):
        e, p = _paired(won[:, s], base[:, s])
        rows.append({"option": name, "figure": f"win_rate.seat{s + 1}",
                     "base": float(base[:, s].mean()), "removed": float(won[:, s].mean()),
                     "change": e.value, "ci_low": e.lo, "ci_high": e.hi, "p_value": p})
    rng = np.random.default_rng(seed)
    diffs = np.zeros(BOOT)
    for b in range(BOOT):
        w = rng.poisson(1.0, n).astype(float)  # the same playouts weigh alike in both runs
        diffs[b] = (balance_index(w @ won, int(w.sum())).value
                    - balance_index(w @ base, int(w.sum())).value)
    b0 = balance_index(base.sum(axis=0), n).value
    b1 = balance_index(won.sum(axis=0), n).value
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    rows.append({"option": name, "figure": "balance", "base": b0, "removed": b1,
                 "change": b1 - b0, "ci_low": float(min(lo, b1 - b0)),
                 "ci_high": float(max(hi, b1 - b0)),
                 "p_value": float(min(1.0, 2 * min((diffs <= 0).mean(), (diffs >= 0).mean())))})
    return rows


def run_value(game_name: str, *, players: int | None, policy: str | None, n: int | None,
              seed: int, threads: int | None, rules: list[str], content: str | None,
              out: Path | None, force: bool, dominant: float = DOMINANT_POINTS,
              gap: float = GAP_POINTS, cards: bool = True,
              progress: engine.Progress | None = None) -> ValueResult:
    """Restricted play and removal for every option of the game."""
    game = get_game(game_name)
    if not game.options:
        raise UserError(f"{game.name} declares no options to value")
    players = players or game.default_players
    game.check_players(players)
    seats = (game.policy_or_default(policy),) * players
    for s in seats:
        game.check_policy(s)
    chosen = game.resolve_rules(rules)
    loaded = game.load_content(game.content_path(content))
    prep = game.prepare(loaded, players, seats, chosen)
    options = [(o, name) for o, name in enumerate(game.options)
               if game.option_in_game(loaded, o)]
    if not options:
        raise UserError(f"content '{loaded.name}' leaves out every option of {game.name}: "
                        "nothing to value")
    n = n or game.value_n
    if n <= 0:
        raise UserError(f"-n must be positive, not {n}")
    # at most four (n, players) arrays at once: base, denied, a seat's run, a removal run
    engine.check_memory(8.0 * n * players * 4, f"-n {n:,} playouts per run")
    threads = threads or engine.default_threads()
    folder = RunFolder(out, force, default=f"value-{game.name}")
    try:
        folder.create()
        t0 = time.perf_counter()
        base = won_matrix(game, prep, seed, n, threads, None, progress)
        restricted, removal = [], []
        for o, name in options:
            restricted += restricted_rows(game, prep, base, o, name, seed, n, threads,
                                          progress)
            removal += removal_rows(game, loaded, players, seats, chosen, base, o, name,
                                    seed, n, threads, progress)
        rt = _flagged(pl.DataFrame(restricted), "seat")
        rm = _flagged(pl.DataFrame(removal), "figure") if removal else pl.DataFrame()
        ct = (card_values(game, loaded, players, seats, chosen, seed, n, threads, progress,
                          gap) if cards and game.content_cards(loaded) else pl.DataFrame())
        manifest = {
            "format": 1, "tool": "simcli", "kind": "value", "tool_version": __version__,
            "game": game.name, "game_title": game.title, "players": players,
            "seats": list(seats), "rules": chosen, "content": loaded.identity(),
            "playouts_per_run": n, "options": [name for _, name in options],
            "options_not_in_game": [x for x in game.options
                                    if x not in {name for _, name in options}],
            "seed": seed, "thresholds": {"dominant": dominant, "gap": gap},
            "cards_valued": ct.height,
            "threads": threads, "seconds": round(time.perf_counter() - t0, 2),
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        _write(folder.path, game, rt, rm, ct, manifest)
        write_json(folder.path / "manifest.json", manifest)
        final = folder.commit()
    except BaseException:
        folder.abort()
        raise
    return ValueResult(final, rt, rm, manifest, ct)


def _flagged(df: pl.DataFrame, family: str) -> pl.DataFrame:
    """p_adjusted (Holm across the options, within each seat or figure) and a verdict."""
    out = []
    for key in df[family].unique(maintain_order=True):
        sub = df.filter(pl.col(family) == key)
        adj = holm(sub["p_value"].to_list())
        out.append(sub.with_columns(pl.Series("p_adjusted", adj)))
    df = pl.concat(out)
    value_col = "value" if "value" in df.columns else "change"
    unchanged = (pl.col("games_changed") == 0.0) if "games_changed" in df.columns else pl.lit(
        False)
    return df.with_columns(pl.when(unchanged).then(pl.lit("changes no game")).when(
        pl.col("p_adjusted") >= FLAG_LEVEL).then(
        pl.lit("no measurable effect")).when(pl.col(value_col) > 0).then(
        pl.lit("worth using" if value_col == "value" else "raises it")).otherwise(
        pl.lit("better never used" if value_col == "value" else "lowers it")).alias("verdict"))


def _write(folder: Path, game: Game, rt: pl.DataFrame, rm: pl.DataFrame, ct: pl.DataFrame,
           manifest: dict) -> None:
    tdir = folder / "tables"
    tdir.mkdir()
    rt.write_csv(tdir / "restricted.csv")
    rt.write_parquet(tdir / "restricted.parquet")
    if rm.height:
        rm.write_csv(tdir / "removal.csv")
        rm.write_parquet(tdir / "removal.parquet")
    th = manifest["thresholds"]
    overall = strength(rt.filter(pl.col("seat") == "overall").sort("value", descending=True),
                       rm, th["dominant"], th["gap"])
    overall.write_csv(tdir / "verdicts.csv")
    overall.write_parquet(tdir / "verdicts.parquet")
    cdir = folder / "charts"
    cdir.mkdir()
    C.bars_with_ci(cdir / "value.png", overall["option"].to_list(), overall["value"],
                   overall["ci_low"], overall["ci_high"],
                   title=f"{game.title}: value of each option (restricted play)",
                   ylabel="win rate points lost when denied", reference=0.0)
    top = overall.filter(pl.col("verdict") == "worth using")["option"].to_list()
    never = overall.filter(pl.col("verdict") == "better never used")["option"].to_list()
    none = overall.filter(pl.col("verdict") == "no measurable effect")["option"].to_list()
    unused = overall.filter(pl.col("verdict") == "changes no game")["option"].to_list()
    lines = [f"Most valuable (largest loss when denied): {', '.join(top[:5]) or 'none'}.",
             f"Better never used (the player wins more without them): "
             f"{', '.join(never) or 'none'}.",
             f"No measurable value at these playouts: {', '.join(none) or 'none'}."]
    if unused:
        lines.append(f"Denying these changed no game at these playouts (never used, or never "
                     f"decisive; a rule option may keep them out): {', '.join(unused)}.")
    lines += strength_lines(overall, th)
    if ct.height:
        ct.write_csv(tdir / "cards.csv")
        ct.write_parquet(tdir / "cards.parquet")
        lines += card_lines(ct, th["gap"])
    facts = (f"{game.title}, {manifest['players']} players ({'/'.join(manifest['seats'])}), "
             f"{manifest['playouts_per_run']:,} playouts per run, seed {manifest['seed']}, "
             f"simcli {manifest['tool_version']}.")
    md = [f"# Value of options: {game.title}", "", facts, "", *[f"- {x}" for x in lines], "",
          "## Restricted play, all seats (ranked)", "", markdown_table(overall), "",
          "![value](charts/value.png)", "", "## Restricted play per seat", "",
          markdown_table(rt.filter(pl.col("seat") != "overall")), ""]
    if rm.height:
        md += ["## Removal from the game", "", markdown_table(rm), ""]
    if ct.height:
        md += ["## Cards, each swapped for an average card", "", markdown_table(ct), ""]
    md += ["## Methods", "", METHODS, "", CARD_METHODS if ct.height else ""]
    (folder / "report.md").write_text("\n".join(md), encoding="utf-8")
    page = [f"<!doctype html><html><head><meta charset='utf-8'><title>Value: {game.title}"
            f"</title><style>{STYLE}</style></head><body><h1>Value of options: "
            f"{game.title}</h1><p class='note'>{facts}</p><ul>"
            + "".join(f"<li>{x}</li>" for x in lines) + "</ul>",
            "<h2>Restricted play, all seats</h2>", table_html(overall),
            image_html(cdir / "value.png", "Value of each option with 95% intervals"),
            "<h2>Per seat</h2>", table_html(rt.filter(pl.col("seat") != "overall"))]
    if rm.height:
        page += ["<h2>Removal from the game</h2>", table_html(rm)]
    if ct.height:
        page += ["<h2>Cards, each swapped for an average card</h2>", table_html(ct)]
    page.append(f"<h2>Methods</h2><p>{METHODS}</p>"
                + (f"<p>{CARD_METHODS}</p>" if ct.height else "") + "</body></html>")
    (folder / "report.html").write_text("\n".join(page), encoding="utf-8")


METHODS = (
    "Restricted play: the same seeds were played with and without one player denied one "
    "option (its policy never chooses an action using it); value = that player's win rate "
    "unrestricted minus restricted, paired by seed, with the paired-difference interval "
    "of reports.stats (Wilson intervals at the effective sample size combined with their "
    "correlation); each seat takes the restricted role in turn and 'overall' averages the "
    "seats per seed. p-values are those the paired intervals imply (the smallest level at "
    "which the interval excludes 0), Holm-adjusted across the options within each seat; "
    "verdicts at 5%; an option whose denial changed no playout's result reads 'changes no "
    "game'. Options the content leaves out "
    "(no card of that kind) are not valued. Removal: the option's card is taken out of the "
    "content and the same seeds are played (options that are not cards, such as an "
    "ability or a move kind, have no removal rows); seat changes are paired by seed, the "
    "balance index change has a 95% interval from a paired Poisson bootstrap over "
    "playouts.")


def strength_lines(overall: pl.DataFrame, th: dict) -> list[str]:
    """The strength verdicts in words, each option with its value and interval."""
    def named(word: str) -> str:
        rows = overall.filter(pl.col("strength") == word)
        return "; ".join(f"{r['option']} ({pts_text(r['value'], r['ci_low'], r['ci_high'])})"
                         for r in rows.iter_rows(named=True)) or "none"
    return [f"Verdicts (thresholds: dominant when denying it costs more than "
            f"{100 * th['dominant']:.0f} points beyond its interval and removing it shifts "
            f"the balance; too strong when set apart from the next option by more than its "
            f"interval and at least {100 * th['gap']:.0f} points; weak when denying it "
            f"changes nothing measurable): dominant: {named('dominant')}. Too strong: "
            f"{named('too strong')}. Weak: "
            f"{', '.join(overall.filter(pl.col('strength') == 'weak')['option']) or 'none'}."]


def card_lines(ct: pl.DataFrame, gap: float) -> list[str]:
    """The card verdicts in words."""
    def named(word: str) -> str:
        rows = ct.filter(pl.col("verdict") == word)
        return "; ".join(
            f"{r['card']} ("
            + pts_text(r["value"], r["ci_low"], r["ci_high"], r["fielded"], "rounds") + ")"
            for r in rows.iter_rows(named=True)) or "none"
    flagged = ct.filter(pl.col("verdict") != "no measurable difference").height
    return [f"Cards, each swapped for an average card on the same seeds (its value: how many "
            f"more of the contests it fights it wins than the average card in its place): "
            f"too strong (set apart from the next card by more than its interval and at "
            f"least {100 * gap:.0f} points): {named('too strong')}. Too weak: "
            f"{named('too weak')}. {flagged} of {ct.height} cards differ from the average "
            f"card (Holm-adjusted, 5%)."]


CARD_METHODS = (
    "Cards: the same seeds were played with the content as it is and once per card with "
    "that card made average (each rating the mean over the roster, rounded; its name "
    "kept). A card's value is its Clan Conflict round win rate when fielded minus the "
    "average card's in its place (intervals clustered by game, combined by the method of "
    "variance estimates recovery; the two runs taken as independent, which sharing seeds "
    "makes conservative); owner_game_value is the same for its owner's game win rate. "
    "p-values are those normal intervals imply, Holm-adjusted across the cards.")


def rerender_value(folder: Path) -> ValueResult:
    """Re-render a finished value folder's verdicts, charts and reports from its tables
    (each checked against the SHA-256 simcli recorded when it wrote it)."""
    from simcli.runfolder import load_tables, render_in_place

    names = ("restricted", "removal", "cards")
    man, tables = load_tables(folder, "value", tuple(f"tables/{n}.parquet" for n in names))
    frames = {n: tables[f"tables/{n}.parquet"] for n in names}
    if not frames["restricted"].height:
        raise UserError(f"{folder}/tables/restricted.parquet is missing or empty")
    game = get_game(str(man.get("game")))
    man.setdefault("thresholds", {"dominant": DOMINANT_POINTS, "gap": GAP_POINTS})

    def write(tmp: Path) -> None:
        _write(tmp, game, frames["restricted"], frames["removal"], frames["cards"], man)
        write_json(tmp / "manifest.json", man)

    render_in_place(folder, write)
    return ValueResult(folder, frames["restricted"], frames["removal"], man, frames["cards"])
