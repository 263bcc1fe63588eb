"""Issue 27: every plain-language finding is as sound as its intervals. Each sentence of a
report that states a figure states its 95% interval and n; comparisons with too few games
are not made; 'largest' means largest in magnitude beyond the interval; compare never
prints a zero-width interval or a nan p-value; one convention for units."""

import math
import re

import numpy as np
import polars as pl
import pytest

from reports.compare import difference, differences, display_rows
from reports.metrics import Core, catalogue
from reports.sixteen_samurai.findings import _battle_sentence
from reports.units import difference_interval_text, interval_text, p_text, value_text
from tests.cli import invoke

GAMES = ["sixteen-samurai", "samsara", "samurai-katana", "samurai-sword", "samurai-card-game"]

# A figure: a percentage, a number of points, or any decimal number.
FIGURE = re.compile(r"(?<![\w./-])[+-]?\d[\d,]*(?:\.\d+)?(?:%| pts\b| points\b)"
                    r"|(?<![\w./-])[+-]?\d+\.\d+")
INTERVAL = re.compile(r"\((?:95|99)% CI [^)]*\)")
# Figures that are not estimates: a reference the estimate is compared with, a spread,
# a p-value, a confidence level, a count.
NOT_ESTIMATE_BEFORE = ("fair share of ", "equal share would be ", "fair ", "below ", "sd ",
                       "p = ", "p &lt; ", "p < ", "n = ")
NOT_ESTIMATE_AFTER = (" for an even chance",)
LEVELS = ("95%", "99%")  # confidence levels (estimates print with a decimal: 95.0%)


def bare_figures(sentence: str) -> list[str]:
    """Estimates in a sentence that carry no interval: a figure is covered when it lies
    inside a '(95% CI ...)' group, or when such a group follows it before the next figure
    (a value, its unit words, then its interval)."""
    spans = [m.span() for m in INTERVAL.finditer(sentence)]
    figures = [m for m in FIGURE.finditer(sentence)
               if not any(s <= m.start() and m.end() <= e for s, e in spans)]
    bare = []
    for i, m in enumerate(figures):
        a, b = m.span()
        stop = figures[i + 1].start() if i + 1 < len(figures) else len(sentence)
        if re.search(r"\((?:95|99)% CI ", sentence[b:stop]):
            continue
        if sentence[:a].endswith(NOT_ESTIMATE_BEFORE) or sentence[b:].startswith(
                NOT_ESTIMATE_AFTER) or m.group() in LEVELS:
            continue
        bare.append(m.group())
    return bare


def test_the_scan_finds_a_bare_figure():
    """The scanner itself can fail: the defects the issue quotes are caught."""
    assert bare_figures("Battle card with the largest gap: Uma (25.0% vs 15.0%).") == [
        "25.0%", "15.0%"]
    assert bare_figures("A game lasts 23.81 rounds on average (sd 1.54).") == ["23.81"]
    assert bare_figures("an advantage of +5.4 points.") == ["+5.4 points"]
    assert bare_figures("wins 30.4% (95% CI 30.1%-30.8%, n = 9 rounds) against a fair "
                        "share of 25.0%: +5.4 pts (95% CI +5.1 to +5.8 pts)") == []


def findings_of(report: str) -> list[str]:
    section = report.split("## Findings", 1)[1].split("\n## ", 1)[0]
    return [line[2:] for line in section.splitlines() if line.startswith("- ")]


@pytest.mark.parametrize("game", GAMES)
def test_every_finding_names_its_interval_and_n(game, tmp_path):
    out = tmp_path / "r"
    r = invoke("run", game, "-n", 3000, "--seed", 5, "--out", out, "-q")
    assert r.exit_code == 0, r.output
    found = findings_of((out / "report.md").read_text())
    assert len(found) >= 3
    for sentence in found:
        assert not bare_figures(sentence), (bare_figures(sentence), sentence)
        if "% CI" in sentence:
            assert "n = " in sentence, sentence


def _battle(rows):
    cols = ["card", "game_win_gap", "gap_ci_low", "gap_ci_high", "gap_note", "games_played",
            "games_unplayed"]
    return pl.DataFrame([dict(zip(cols, r, strict=True)) for r in rows])


def test_largest_battle_card_gap_is_by_magnitude_beyond_its_interval():
    """Defect 1: the 200,000-game run picked Uma at -3.8 over Medicine at -18.1 (signed
    maximum); a gap inside its interval, or with too few games, is never 'largest'."""
    bt = _battle([("Uma", -0.038, -0.06, -0.016, "", 190000, 9000),
                  ("Medicine", -0.181, -0.2, -0.16, "", 150000, 50000),
                  ("Ronin", 0.25, -0.1, 0.6, "", 199000, 40),  # inside its interval
                  ("Ninjutsu", None, None, None, "too few games", 200000, 0)])
    s = _battle_sentence(bt)
    assert "Medicine, -18.1 pts (95% CI -20.0 to -16.0 pts)" in s and "Uma" not in s
    assert "1 of 4 cards have too few games" in s
    none = _battle_sentence(_battle([("Ronin", 0.25, -0.1, 0.6, "", 199000, 40)]))
    assert none.startswith("No battle card's game win rate differs")


def test_battle_cards_with_too_few_games_are_not_compared(tmp_path):
    """Defect 1: at 5,000 games every battle card is played in about 99.9% of games, so
    'not played' is a handful of games: the table says so and holds no NaN."""
    out = tmp_path / "b"
    assert invoke("run", "sixteen-samurai", "-n", 5000, "--out", out, "-q").exit_code == 0
    bt = pl.read_parquet(out / "tables" / "battle_cards.parquet")
    few = bt.filter(pl.col("games_unplayed") < 30)
    assert few.height and (few["gap_note"] == "too few games").all()
    assert few["game_win_gap"].null_count() == few.height
    assert "NaN" not in (out / "tables" / "battle_cards.csv").read_text()
    text = " ".join(findings_of((out / "report.md").read_text()))
    assert "Uma (" not in text and "too few games" in text


def test_samurai_ranking_has_intervals_flags_and_says_when_order_is_unresolved(tmp_path):
    """Defect 4: the per-samurai ranking carries intervals, Holm flags, and says whether
    the first is ahead of the second beyond both intervals."""
    out = tmp_path / "c"
    assert invoke("run", "sixteen-samurai", "-n", 3000, "--out", out, "-q").exit_code == 0
    cards = pl.read_parquet(out / "tables" / "cards.parquet")
    assert {"edge_ci_low", "edge_ci_high", "edge_p_adjusted", "edge_flag"} <= set(cards.columns)
    ok = cards.filter(pl.col("edge_p_value").is_not_nan())
    assert (ok["edge_ci_low"] <= ok["round_edge"]).all()
    assert (ok["round_edge"] <= ok["edge_ci_high"]).all()
    text = " ".join(findings_of((out / "report.md").read_text()))
    assert "Holm-adjusted across the cards" in text
    assert "the order at the top is not resolved" in text or "beyond both intervals" in text


def _lumpy(core_len: np.ndarray) -> Core:
    return Core(games=int(core_len.sum()), seat_wins=np.array([core_len.sum() // 2] * 2),
                shared=0, completed=int(core_len.sum()), length=core_len,
                length_unit="turns")


def test_compare_has_no_zero_width_interval_or_nan_p():
    """Defect 3: two runs whose lengths are whole numbers with many ties (every quantile
    used to sit on one value: '-8.0000 .. -8.0000', p nan)."""
    rng = np.random.default_rng(4)
    a = _lumpy(np.bincount(rng.poisson(20, 4000), minlength=60))
    b = _lumpy(np.bincount(rng.poisson(28, 4000), minlength=60))
    d = differences(catalogue(a), catalogue(b))
    for r in d.filter(pl.col("metric").str.starts_with("duration")).iter_rows(named=True):
        assert r["ci_high"] > r["ci_low"], r
        assert not math.isnan(r["p_value"]), r
    rows = display_rows(d)
    assert not any("nan" in c or "0.0000" in c for row in rows for c in row)


def test_identical_quantiles_compare_as_no_difference():
    row = {"value": 20.0, "ci_low": 19.6, "ci_high": 20.4, "n": 1000, "unit": "turns"}
    est, p = difference(row, dict(row))
    assert est.value == 0 and est.lo < 0 < est.hi and p == 1.0


def test_units_convention():
    """Defect 6: rates in percent with one decimal (more where the ends would round
    equal), differences in points, p-values '< 0.0001' or three significant figures."""
    assert value_text(0.25341, "rate") == "25.3%" and value_text(0.9721, "index") == "0.972"
    assert value_text(23.8075, "turns") == "23.81"
    assert interval_text(0.0, 0.00038, "rate") == "0.00% - 0.04%"
    assert interval_text(0.241, 0.265, "share") == "24.1% - 26.5%"
    assert difference_interval_text(-0.051, 0.034, "rate") == "-5.1 to +3.4 pts"
    assert p_text(0.0) == "< 0.0001" and p_text(3.2e-7) == "< 0.0001"
    assert p_text(0.012345) == "0.0123" and p_text(0.5) == "0.500" and p_text(1.0) == "1.00"
    from reports.units import number_ends
    assert number_ends(23.66, 23.74) == ("23.66", "23.74")  # never '23.7-23.7'
    assert number_ends(1.0, 2.0) == ("1.0", "2.0")


def test_compare_and_check_print_percent_not_fractions(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for folder, seed in ((a, 1), (b, 2)):
        assert invoke("run", "samsara", "-n", 2000, "--seed", seed, "--out", folder,
                      "-q").exit_code == 0
    r = invoke("compare", a, b)
    assert r.exit_code == 0, r.output
    assert "win_rate.seat1" in r.output and "%" in r.output and " pts" in r.output
    assert not re.search(r"\b0\.\d{4}\b", r.output), r.output
    md = invoke("compare", a, b, "--markdown").output
    assert "| edge.seat1 |" in md and not re.search(r"\b0\.\d{4}\b", md)


def _planted(path):
    """The shipped roster with its first card (Fobus Dustwalker, 2/1/1/2) made 4/4/4/4."""
    from simcli.games.sixteen_samurai import SixteenSamurai

    src = SixteenSamurai().content_path(None).read_text()
    old = ('{ name = "Fobus Dustwalker", power = 2, speed = 1, armor = 1, karma = 2, '
           'total = 6, assumed = false }')
    assert old in src
    path.write_text(src.replace(old, '{ name = "Planted", power = 4, speed = 4, armor = 4, '
                                     'karma = 4, total = 16, assumed = false }'))
    return path


def test_a_planted_card_is_too_strong_and_a_total_nine_card_is_not(tmp_path):
    """Each samurai swapped for an average card on the same seeds: the planted 4/4/4/4
    card is set apart from the roster, no printed card is. Random play: with greedy play
    the planted card is measured no stronger than the best total-9 cards (greedy does
    not exploit an all-round card), which is itself a verdict that moves with skill."""
    out = tmp_path / "v"
    r = invoke("value", "sixteen-samurai", "--players", 4, "--policy", "random", "-n", 3000,
               "--content", _planted(tmp_path / "planted.toml"), "--out", out, "--json", "-q")
    assert r.exit_code == 0, r.output
    cards = pl.read_parquet(out / "tables" / "cards.parquet")
    verdict = dict(zip(cards["card"], cards["verdict"], strict=True))
    assert verdict["Planted"] == "too strong"
    assert [c for c, v in verdict.items() if v == "too strong"] == ["Planted"]
    from simcli.games.sixteen_samurai import SixteenSamurai

    roster = SixteenSamurai().load_content(SixteenSamurai().content_path(None)).data
    nines = [n for n, t in zip(roster.names, roster.totals, strict=True) if t == 9]
    assert nines and all(verdict[n] != "too strong" for n in nines)
    report = (out / "report.md").read_text()
    assert "too strong" in report and "Planted (+" in report
    assert "set apart from the next card by more than its interval and at least 2 points" \
        in report


def test_set_apart_needs_the_interval_and_the_gap():
    from simcli.card_value import set_apart

    def rows(*values, half=0.01):
        return [{"value": v, "ci_low": v - half, "ci_high": v + half} for v in values]

    r = rows(0.30, 0.10, 0.09, 0.08, 0.07, 0.06, 0.05, 0.04, 0.03, 0.02, 0.01, -0.30)
    apart = set_apart(r, 0.02)
    assert apart == {id(r[0]): "too strong", id(r[-1]): "too weak"}
    assert set_apart(rows(0.30, 0.29, 0.1, 0.09), 0.02) == {}  # the top is not set apart
    wide = rows(0.30, 0.10, 0.09, 0.08, half=0.25)  # beyond its gap, not its interval
    assert set_apart(wide, 0.02) == {}
    assert set_apart(rows(0.105, 0.10, 0.09, 0.08, half=0.001), 0.02) == {}  # under the gap


def test_option_strength_verdicts():
    from simcli.value import strength

    overall = pl.DataFrame([
        {"option": "A", "value": 0.20, "ci_low": 0.15, "ci_high": 0.25, "verdict": "worth using"},
        {"option": "B", "value": 0.05, "ci_low": 0.03, "ci_high": 0.07, "verdict": "worth using"},
        {"option": "C", "value": 0.00, "ci_low": -0.01, "ci_high": 0.01,
         "verdict": "no measurable effect"}])
    removal = pl.DataFrame([{"option": "A", "figure": "balance", "p_adjusted": 0.001},
                            {"option": "B", "figure": "balance", "p_adjusted": 0.5}])
    words = strength(overall, removal, dominant=0.10, gap=0.02)["strength"].to_list()
    assert words == ["dominant", "sound", "weak"]
    # without a balance shift, A is 'too strong' (set apart from B), never 'dominant'
    calm = removal.with_columns(pl.lit(0.5).alias("p_adjusted"))
    assert strength(overall, calm, 0.10, 0.02)["strength"].to_list() == [
        "too strong", "sound", "weak"]


def test_convergence_says_holds_or_moves_from_the_paired_intervals(monkeypatch):
    """The verdict 'holds at 4x' exactly when no seat's paired interval excludes 0."""
    from simcli import converge as C
    from simcli.games.sixteen_samurai import SixteenSamurai

    rng = np.random.default_rng(3)
    n = 400
    same = rng.integers(0, 2, n).astype(float)
    outcomes = {"mcts:10": np.stack([same, 1 - same], axis=1)}
    shifted = same.copy()
    shifted[: n // 4] = 1.0  # seat 1 gains a quarter of the deals at 4x the budget
    outcomes["mcts:40"] = np.stack([shifted, 1 - shifted], axis=1)
    monkeypatch.setattr(C, "seat_outcomes", lambda g, c, p, policy, *a: outcomes[policy])
    game = SixteenSamurai()
    moved = C.convergence(game, 2, "mcts:10", 1, 1, None, n=n, rules={}, content=object())
    assert not moved["holds"] and moved["text"].startswith("The verdict still moves")
    assert "seat 1: +" in moved["text"] and "(95% CI +" in moved["text"]
    outcomes["mcts:40"] = outcomes["mcts:10"]
    held = C.convergence(game, 2, "mcts:10", 1, 1, None, n=n, rules={}, content=object())
    assert held["holds"] and "holds at 4x the search budget" in held["text"]
    assert "n = 400 deals, paired" in held["text"]


def test_convergence_plays_the_same_deals_at_four_times_the_budget():
    from simcli import converge as C
    from simcli.games.sixteen_samurai import SixteenSamurai

    assert C.stronger("mcts:400") == "mcts:1600" and C.stronger("greedy") is None
    assert C.stronger("mcts:10:c=0.5") == "mcts:40:c=0.5"
    r = C.convergence(SixteenSamurai(), 2, "mcts:4", 7, 1, None, n=40)
    assert r["checked"] and r["deals"] == 40 and len(r["seats"]) == 2
    for s in r["seats"]:
        assert s["ci_low"] <= s["change"] <= s["ci_high"]
        assert s["change"] == pytest.approx(s["rate_stronger"] - s["rate"])
