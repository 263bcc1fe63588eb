"""Samurai & Katana (simcli/games/samurai_katana/): content.py (the content file's schema,
loading and checking it), odds.py (combat odds and `simcli odds`), kernel.py (kernel inputs
and search settings), game.py (the Game declaration and kernel driver), stats.py (named
statistics for the reports) and handle.py (one game step by step, and its log in words)."""

from simcli.games.samurai_katana.game import SamuraiKatana, play
from simcli.games.samurai_katana.kernel import SEARCH_TOP_K, no_forbid
from simcli.games.samurai_katana.odds import deck_array, exact_odds

__all__ = ["SEARCH_TOP_K", "SamuraiKatana", "deck_array", "exact_odds", "no_forbid", "play"]
