"""Samurai & Katana statistics: the kernel's aggregates under plain names, for the reports
(report glue)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernels import katana_combat as KC
from kernels.samurai_katana.stats import (
    BattleStat,
    CardStat,
    Misc,
    ProvStat,
    SeatStat,
    SourceStat,
)
from simcli.games.samurai_katana.content import KatanaContent
from simcli.games.samurai_katana.odds import ODDS_POLICY, exact_odds

CATCH_UP_TURN = 5  # own metric: does the Emperor after this turn win?


def named_stats(aggs: dict[str, np.ndarray], data: KatanaContent, manifest: dict[str, Any]
                ) -> dict[str, Any]:
    """The kernel's arrays under plain names, for reports (which know nothing of kernels)."""
    board, deck = data.board, data.deck
    players = manifest["players"]
    misc = aggs["misc"]
    grid = exact_odds(deck.table, deck.counts, data.numbers.hand)
    minus_one = manifest["rules"].get("province-values") == "minus-one"
    return {
        "players": players,
        "games": int(aggs["wins"].sum() + misc[Misc.SHARED]),
        "wins": aggs["wins"][:players],
        "shared": int(misc[Misc.SHARED]),
        "capped": int(misc[Misc.CAPPED]),
        "lengths": aggs["lengths"],
        "margin": aggs["margin"],
        "start_income": aggs["start_income"],
        "start_cluster": aggs["start_cluster"],
        "start_major": {"territory": list(board.ids), "city": list(board.city_name),
                        "n": aggs["start_major"][:, 0], "won": aggs["start_major"][:, 1]},
        "catch_up": aggs["catch_up"],
        "catch_up_turn": CATCH_UP_TURN,
        "sources": {"name": ["combat", "provinces", "Kyoto", "cards", "Emperor",
                             "land of koku", "lost as Shogun", "lost to cards", "sold"],
                    "gain": [True] * 6 + [False] * 3,
                    "sum": aggs["sources"][:, SourceStat.SUM],
                    "sq": aggs["sources"][:, SourceStat.SQ],
                    "win_sum": aggs["sources"][:, SourceStat.WIN],
                    "win_sq": aggs["sources"][:, SourceStat.WIN_SQ]},
        "provinces": {"name": list(board.province_names),
                      "honor": np.maximum(board.province_honor - int(minus_one), 0),
                      "territories": np.bincount(board.province,
                                                 minlength=len(board.province_ids)),
                      "turns_held": aggs["provinces"][:, ProvStat.TURNS],
                      "ever": aggs["provinces"][:, ProvStat.EVER],
                      "end": aggs["provinces"][:, ProvStat.END],
                      "winner": aggs["provinces"][:, ProvStat.WINNER]},
        "battles": {"n": aggs["battles"][..., BattleStat.N],
                    "att": aggs["battles"][..., BattleStat.ATT],
                    "tie": aggs["battles"][..., BattleStat.TIE],
                    "empty": aggs["battles"][..., BattleStat.EMPTY],
                    "la": aggs["battles"][..., BattleStat.LA],
                    "ld": aggs["battles"][..., BattleStat.LD],
                    "sq": aggs["battle_sq"], "sq_all": aggs["battle_sq_all"]},
        "cards": {"name": list(deck.names), "kind": list(deck.kinds), "count": deck.counts,
                  "power": aggs["cards"][:, CardStat.POWER],
                  "combat": aggs["cards"][:, CardStat.COMBAT],
                  "countered": aggs["cards"][:, CardStat.COUNTERED]},
        "seat": {"emperor_turns": aggs["seat"][:players, SeatStat.EMP_TURNS],
                 "shogun_turns": aggs["seat"][:players, SeatStat.SHOGUN_TURNS],
                 "honor": aggs["seat"][:players, SeatStat.HONOR],
                 "honor_sq": aggs["seat"][:players, SeatStat.HONOR2],
                 "eliminated": aggs["seat"][:players, SeatStat.ELIM],
                 "clan_points": aggs["seat"][:players, SeatStat.CP]},
        "trace": aggs["trace"][:, :players, :],
        "misc": {"eliminations": int(misc[Misc.ELIM]), "returns": int(misc[Misc.RETURNS]),
                 "moves_cancelled": int(misc[Misc.CANCELLED]),
                 "cards_countered": int(misc[Misc.COUNTERED]),
                 "reshuffles": int(misc[Misc.RESHUFFLES]),
                 "action_cap_hits": int(misc[Misc.ACTION_CAP]),
                 "actions": int(misc[Misc.ACTIONS]), "moves": int(misc[Misc.MOVES]),
                 "cards_played": int(misc[Misc.EVENTS]),
                 "samurai_bought": int(misc[Misc.BOUGHT_SAMURAI]),
                 "castles_bought": int(misc[Misc.BOUGHT_CASTLES]),
                 "honor_sales": int(misc[Misc.SOLD]), "defenders_filled": int(misc[Misc.FILLED]),
                 "castles_taken": int(misc[Misc.CASTLES_TAKEN]),
                 "no_return_turns": int(misc[Misc.NO_RETURN])},
        "odds": {"win": grid[..., KC.OS_WIN], "tie": grid[..., KC.OS_TIE],
                 "attacker_losses": grid[..., KC.OS_LA], "defender_losses": grid[..., KC.OS_LD],
                 "empty": grid[..., KC.OS_EMPTY], "max_size": KC.MAX_SIZE,
                 "policy": ODDS_POLICY},
    }
