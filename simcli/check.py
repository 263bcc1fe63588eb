"""`simcli check SPEC.toml`: balance assertions decided by a sequential interval rule.

Each assertion is played in looks of doubling size up to its budget. At every look the
metric's interval is computed at confidence 1 - (1 - c) / L, where L is the number of looks
the budget allows (a Bonferroni split, so the chance of any wrong verdict stays below
1 - c). The assertion passes once the interval lies inside [min, max], fails once it lies
outside, and is inconclusive if the budget runs out first. Everything is seeded, so a
spec gives the same verdicts every time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reports.metrics import metric_names
from reports.render import md_text
from reports.units import PERCENT_UNITS, interval_text, value_text
from simcli import engine
from simcli.analysis import core_of, metrics_of
from simcli.errors import UserError
from simcli.games.base import read_toml
from simcli.registry import get_game
from simcli.run import (
    Progressing,
    build_config,
    check_seed,
    chunk_size_for,
    new_run_aggregates,
    play_chunks,
    seconds_per_playout,
)

FIRST_LOOK = 5_000
FIELDS = {"name", "game", "players", "policy", "seats", "rules", "content", "metric", "min",
          "max", "confidence", "max_playouts", "seed"}


@dataclass(frozen=True)
class Assertion:
    """One checked claim about a game's balance."""

    name: str
    game: str
    players: int | None
    policy: str | None
    seats: tuple[str, ...] | None
    rules: dict[str, str]
    content: str | None
    metric: str
    min: float | None
    max: float | None
    confidence: float = 0.95
    max_playouts: int = 100_000
    seed: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


def _bad(path: Path, where: str, msg: str) -> UserError:
    return UserError(f"{path}: {where}: {msg}")


def known_metrics(game, prep: Any, players: int) -> list[str]:
    """The metrics the game really reports for this setup (no margin for a game without
    scores, its own metrics, its seats)."""
    core = core_of(game, game.new_aggregates(prep), players)
    return metric_names(core, game.own_metric_names, game.team_game)


def _number(path: Path, where: str, a: dict, key: str) -> None:
    value = a[key]
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        raise _bad(path, where, f"field '{key}' must be a finite number, got {value!r}")


def load_spec(path: Path) -> list[Assertion]:
    """Assertions of a spec file; any problem is a UserError naming the field."""
    doc, _ = read_toml(path, "check spec")
    defaults = doc.get("defaults", {})
    if not isinstance(defaults, dict):
        raise UserError(f"{path}: [defaults] must be a table")
    items = doc.get("assert")
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items):
        raise UserError(f"{path}: needs at least one [[assert]] table (and only tables)")
    unknown_top = set(doc) - {"defaults", "assert"}
    if unknown_top:
        raise UserError(f"{path}: unknown table '{sorted(unknown_top)[0]}' (use [defaults] and "
                        f"[[assert]])")
    out = []
    for i, raw in enumerate(items, start=1):
        a = {**defaults, **raw}
        where = f"assert {i} ({a.get('name', 'unnamed')})"
        unknown = set(a) - FIELDS
        if unknown:
            raise _bad(path, where, f"unknown field '{sorted(unknown)[0]}'")
        for req in ("game", "metric"):
            if not isinstance(a.get(req), str):
                raise _bad(path, where, f"missing field '{req}' (a string)")
        if "min" not in a and "max" not in a:
            raise _bad(path, where, "missing field 'min' or 'max' (the allowed range)")
        for key in ("min", "max"):
            if key in a:
                _number(path, where, a, key)
        if "min" in a and "max" in a and a["min"] > a["max"]:
            raise _bad(path, where, f"range upside down: min {a['min']} > max {a['max']}")
        conf = a.get("confidence", 0.95)
        if not isinstance(conf, float) or not 0.5 <= conf < 1:  # NaN fails too
            raise _bad(path, where, f"field 'confidence' must be a number in [0.5, 1), got "
                                    f"{conf!r}")
        budget = a.get("max_playouts", 100_000)
        if not isinstance(budget, int) or isinstance(budget, bool) or not 0 < budget <= 2**62:
            raise _bad(path, where, "field 'max_playouts' must be a positive integer")
        seed = a.get("seed", 1)
        try:
            check_seed(seed, "field 'seed'")
        except UserError as exc:
            raise _bad(path, where, str(exc)) from None
        for key in ("name", "policy", "content"):
            if key in a and not isinstance(a[key], str):
                raise _bad(path, where, f"field '{key}' must be a string, got {a[key]!r}")
        rules = a.get("rules", {})
        if not isinstance(rules, dict):
            raise _bad(path, where, "field 'rules' must be a table, e.g. { draft = \"snake\" }")
        seats = a.get("seats")
        if seats is not None and (not isinstance(seats, list) or not seats or not all(
                isinstance(s, str) for s in seats)):
            raise _bad(path, where, "field 'seats' must be a list of policy names")
        if seats is not None and "policy" in a:
            raise _bad(path, where, "give either 'policy' (every seat) or 'seats' (one per "
                                    "seat), not both")
        try:
            game = get_game(a["game"])
        except UserError as exc:
            raise _bad(path, where, f"field 'game': {exc}") from None
        players = a.get("players")
        if players is not None and (not isinstance(players, int) or isinstance(players, bool)):
            raise _bad(path, where, "field 'players' must be an integer")
        assertion = Assertion(
            name=str(a.get("name", f"assert {i}")), game=game.name, players=players,
            policy=a.get("policy"), seats=tuple(seats) if seats else None,
            rules={str(k): str(v) for k, v in rules.items()}, content=a.get("content"),
            metric=a["metric"], min=a.get("min"), max=a.get("max"), confidence=conf,
            max_playouts=budget, seed=seed)
        # validate players, policies, rules, content and metric now, before anything plays
        try:
            _, cfg = _config(assertion, threads=1)
            content = game.load_content(game.content_path(cfg.content))
            prep = game.prepare(content, cfg.players, cfg.seats, cfg.rules)
        except UserError as exc:
            raise _bad(path, where, str(exc)) from None
        names = known_metrics(game, prep, cfg.players)
        if a["metric"] not in names:
            raise _bad(path, where, f"field 'metric': {game.name} has no metric "
                                    f"'{a['metric']}' (it reports: {', '.join(names)})")
        out.append(assertion)
    return out


def _config(a: Assertion, threads: int | None):
    return build_config(
        a.game, players=None if a.seats else a.players, policy=None if a.seats else a.policy,
        seats=",".join(a.seats) if a.seats else None, n=a.max_playouts, seed=a.seed,
        threads=threads, rules=[f"{k}={v}" for k, v in a.rules.items()], content=a.content,
        out=Path("unused"), force=True, save_games=False, chunk_size=None)


def looks(budget: int) -> list[int]:
    """Playouts at each look: 5,000, 10,000, 20,000, ... up to the budget."""
    sizes, n = [], min(FIRST_LOOK, budget)
    while True:
        sizes.append(n)
        if n >= budget:
            return sizes
        n = min(budget, n * 2)


def decide(a: Assertion, threads: int | None,
           progress: engine.Progress | None = None) -> dict[str, Any]:
    """Play until the assertion's verdict is clear or its budget is spent."""
    game, cfg = _config(a, threads)
    content = game.load_content(game.content_path(cfg.content))
    prep = game.prepare(content, cfg.players, cfg.seats, cfg.rules)
    size = chunk_size_for(game, cfg, seconds_per_playout(game, prep, cfg))
    plan = looks(a.max_playouts)
    level = 1 - (1 - a.confidence) / len(plan)
    state = Progressing(new_run_aggregates(game, prep, cfg), set())
    done, index0, verdict, row = 0, 0, "inconclusive", None
    lo_ok = -math.inf if a.min is None else a.min
    hi_ok = math.inf if a.max is None else a.max
    n_looks = 0
    for target in plan:
        n_looks += 1
        chunks = engine.plan_range(done, target, size, index0)
        index0 += len(chunks)
        play_chunks(game, prep, cfg, chunks, size, progress, None, state)
        done = target
        m = metrics_of(game, state.aggs, cfg.players, level)
        row = m.filter(m["metric"] == a.metric).row(0, named=True)
        if lo_ok <= row["ci_low"] and row["ci_high"] <= hi_ok:
            verdict = "pass"
        elif row["ci_high"] < lo_ok or row["ci_low"] > hi_ok:
            verdict = "fail"
        if verdict != "inconclusive":
            break
    return {"name": a.name, "game": a.game, "players": cfg.players, "seats": list(cfg.seats),
            "rules": cfg.rules, "metric": a.metric, "min": a.min, "max": a.max,
            "verdict": verdict, "unit": row["unit"], "value": row["value"],
            "ci_low": row["ci_low"],
            "ci_high": row["ci_high"], "interval_confidence": level, "playouts": done,
            "looks": n_looks, "max_looks": len(plan), "max_playouts": a.max_playouts,
            "seed": a.seed, "confidence": a.confidence}


def run_check(path: Path, threads: int | None,
              progress: engine.Progress | None = None) -> list[dict[str, Any]]:
    """Verdicts of every assertion in a spec file."""
    return [decide(a, threads, progress) for a in load_spec(path)]


def allowed_text(r: dict[str, Any]) -> str:
    """An assertion's allowed range in its metric's unit ('[20.0%, 30.0%]'); the spec
    file and JSON keep fractions."""
    def end(x: float | None, inf: str) -> str:
        if x is None:
            return inf
        return value_text(x, r["unit"]) if r["unit"] in PERCENT_UNITS else f"{x:g}"
    return f"[{end(r['min'], '-inf')}, {end(r['max'], '+inf')}]"


def result_cells(r: dict[str, Any]) -> tuple[str, str, str]:
    """(allowed range, estimate, interval) of a result, in its metric's unit."""
    return (allowed_text(r), value_text(r["value"], r["unit"]),
            interval_text(r["ci_low"], r["ci_high"], r["unit"]))


def markdown(results: list[dict[str, Any]], spec: Path) -> str:
    """A Markdown summary for a CI job page."""
    icon = {"pass": "PASS", "fail": "FAIL", "inconclusive": "INCONCLUSIVE"}
    passed = sum(r["verdict"] == "pass" for r in results)
    lines = [f"### simcli check {md_text(spec.name)}: {passed}/{len(results)} passed", "",
             "| assertion | verdict | metric | allowed | estimate | interval | playouts |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        allowed, value, interval = result_cells(r)
        lines.append(f"| {md_text(r['name'])} | {icon[r['verdict']]} | {r['metric']} | "
                     f"{allowed} | {value} | {interval} "
                     f"({100 * r['interval_confidence']:.2f}%) | {r['playouts']:,} |")
    lines += ["", "Verdicts use a sequential interval rule: looks of doubling size, each at "
              "a Bonferroni-split confidence so that the stated confidence holds overall."]
    return "\n".join(lines)

