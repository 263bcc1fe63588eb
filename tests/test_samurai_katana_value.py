"""Samurai & Katana `simcli value`: a planted overpowered card in a test content file is
found as the most valuable option (restricted play on the same seeds), and the standard
content does not rank it first (the plant, not the game, makes it dominant)."""

from pathlib import Path

import polars as pl

from simcli.games.samurai_katana import SamuraiKatana
from simcli.value import run_value

GAME = SamuraiKatana()
NO_THEATRE = ('{ name = "No Theatre", count = 1, value = 3, swords = 0, kind = "event", '
              'effect = "honor", amount = 2, cost = 3, assumed = true },')


def planted(tmp_path: Path) -> Path:
    """The standard file with No Theatre made overpowered: 6 copies of +5 Honor for free."""
    text = GAME.content_path(None).read_text()
    assert NO_THEATRE in text
    strong = NO_THEATRE.replace("count = 1", "count = 6").replace("amount = 2", "amount = 5")
    path = tmp_path / "planted.toml"
    path.write_text(text.replace(NO_THEATRE, strong.replace("cost = 3", "cost = 0")))
    return path


def ranked(tmp_path: Path, content: str | None, name: str):
    res = run_value("samurai-katana", players=4, policy="greedy", n=300, seed=3, threads=1,
                    rules=[], content=content, out=tmp_path / name, force=False)
    overall = res.restricted.filter(pl.col("seat") == "overall").sort("value",
                                                                      descending=True)
    return overall, res


def test_value_finds_a_planted_overpowered_card(tmp_path):
    path = planted(tmp_path)
    deck = GAME.load_content(path).data.deck
    i = deck.names.index("No Theatre")
    assert int(deck.counts[i]) == 6 and deck.effects[i] == "honor"
    top, res = ranked(tmp_path, str(path), "planted")
    assert top["option"][0] == "honor" and top["verdict"][0] == "worth using"
    assert top["ci_low"][0] > top["ci_high"][1]  # ahead of the next beyond doubt
    assert top["ci_low"][0] > 0.1
    assert (res.folder / "report.md").exists()
    assert set(top["option"]) == set(GAME.options)  # every option was valued
    standard, _ = ranked(tmp_path, None, "standard")
    assert standard["option"][0] != "honor"
    honor = standard.filter(pl.col("option") == "honor")
    assert honor["value"][0] < top["value"][0] / 2
