"""Samurai Sword's statistics under plain names: the team and end-reason names, and the
kernels' aggregates split along the stat table's labelled dimensions for the report."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernels.samurai_sword import stats as KS
from kernels.stat_table import columns
from simcli.games.samurai_sword.content import ROLES, SwordContent

TEAMS = ("Shogun & Samurai", "Ninjas", "Ronin")
END_REASONS = ("playing", "Honor out: a defeat", "Honor out: deck reshuffle",
               "Honor out: Bushido", "Victory of the Swordmaster",
               "one left with resilience after a teammate's defeat (scored)", "turn cap")

STAT = {s.name: s for s in KS.TABLE}


def named_stats(aggs: dict[str, np.ndarray], c: SwordContent, players: int) -> dict[str, Any]:
    """The statistics under the plain names the report reads (which knows nothing of
    kernels), split along the table's labelled dimensions."""
    team = columns(STAT["team"], aggs["team"])
    scores = columns(STAT["scores"], aggs["scores"])
    misc = columns(STAT["misc"], aggs["misc"])
    return {
        "players": players,
        "games": int(aggs["ends"].sum()),
        "teams": list(TEAMS),
        "team_games": team["games"],
        "team_honor_wins": team["honor_wins"],
        "team_sword_wins": team["sword_wins"],
        "roles": list(ROLES),
        "seat": aggs["seat"][:players],
        "char_names": list(c.char_names),
        "char_resilience": c.resilience,
        "chars": aggs["chars"],
        "end_names": list(END_REASONS),
        "ends": aggs["ends"],
        "turns": aggs["turns"],
        "reshuffles": aggs["reshuffles"],
        "margin": aggs["margin"],
        "score_n": scores["n"],
        "score_sum": scores["sum"],
        "score_sq": scores["sq"],
        "card_names": list(c.card_names),
        "card_copies": c.copies,
        "card_played": aggs["cards"],
        "misc": {k: int(v) for k, v in misc.items()},
        # per rate counted over events within a game: (sum y_g^2, sum x_g^2, sum x_g y_g)
        "clustered": {k: tuple(int(x) for x in v)
                      for k, v in columns(STAT["clustered"], aggs["clustered"], 0).items()},
    }
