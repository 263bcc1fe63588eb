"""Samurai Sword's policies: what each plain policy does, the heuristic's keep values and
late-Honor threshold, and the mcts search's spec and run-time knobs."""

from __future__ import annotations

import numpy as np

from kernels.samurai_sword import rules as K
from simcli.games.base import SearchSpec
from simcli.lazy import LazyModule

KH = LazyModule("kernels.samurai_sword.search_hooks")
KSP = LazyModule("kernels.samurai_sword.search_play")

LATE_HONOR = 2  # the heuristic keeps Daimyo once someone has this much Honor or less

# The heuristic's keep values (higher = kept longer; properties are played at once)
KEEP = {K.PARRY: 8, K.GEISHA: 5, K.DIVERSION: 5, K.BATTLE_CRY: 6, K.TEA: 7, K.JUJUTSU: 6,
        K.BREATHING: 6, K.DAIMYO: 5, K.FOCUS: 10, K.ARMOR: 10, K.FAST_DRAW: 10,
        K.BUSHIDO: 4}

POLICIES = {
    "random": (
        "Uniform over the legal plays of its turn: ending the turn, Nobunaga's draw, and "
        "every card in hand with every legal target (each Weapon on each player it reaches, "
        "Bushido before each player, Geisha on each hand or property in play). It always "
        "parries a Weapon or a Battle Cry when it can and always discards a Weapon to "
        "Jujutsu (a uniformly chosen card that can); against a Bushido Weapon it picks "
        "uniformly between losing Honor and each kind of Weapon it holds; Ieyasu takes the "
        "discard pile's top card on a coin flip; it discards uniformly random cards."
    ),
    "heuristic": (
        "Knows only its own role, the Shogun and what every player did in public (who "
        "attacked, stole from, or put Bushido on whom). Ninjas and the Ronin press the "
        "Shogun; Ninjas then prefer players who struck at the Shogun's attackers and spare "
        "those who struck at the Shogun; the Shogun and Samurai never hit the Shogun and "
        "strike whoever attacked the Shogun first, sparing those who defended it. Each turn, "
        "in order: plays Armor, Focus and Fast Draw; Nobunaga draws down to 1 below full "
        "resilience (never below 3); Tea Ceremony; Daimyo unless someone has "
        f"{LATE_HONOR} Honor or less (then it keeps it for the score; the Ronin always "
        "plays it); Breathing at half resilience or less (the draw to the player it least "
        "wants to hurt); Geisha on itself to shed Bushido; Battle Cry and Jujutsu (a "
        "Samurai spares a Shogun with 2 resilience or less); Bushido, Diversion and Geisha "
        "(Armor, then Focus, then Fast Draw, else a hand card) on its preferred enemy; then "
        "Weapons on the preferred reachable enemy (one it can defeat first), each time the "
        "reaching Weapon with most damage, shortest reach on ties. It always parries a "
        "Weapon; it parries a Battle Cry or discards a Weapon to Jujutsu only at 1 "
        "resilience or holding two such cards; it gives its weakest Weapon to Bushido "
        "rather than Honor; Ieyasu takes a good discard; it discards the cards it values "
        "least (Parry and long Weapons kept)."
    ),
}

SEARCH_MAX_ROLLOUT = 0  # mcts: rollout moves before the evaluation (0: to the end)
SEARCH_EVIDENCE = 0.1  # mcts: weight of a role deal per public act its role would rarely take
SEARCH_SPREAD = 2.0  # mcts: team score points per unit of log-odds (cut rollouts only)
SEARCH = SearchSpec(
    name="mcts", budget=400, exploration=0.7, rollout="heuristic", study_budget=200,
    help="Information-set Monte Carlo tree search (single-observer ISMCTS): each "
         "simulation first deals again everything the searching player cannot see (the "
         "other players' roles but the Shogun's, with Ninja stars and multipliers, their "
         "hands and the deck's order together, and every future shuffle and random draw), "
         "consistently with what it can see (its own role and hand, hand sizes, Honor, "
         "properties, the discard pile); it then descends the tree of every player's "
         "decisions by UCB1 over the actions legal in that deal, plays the game out by the "
         "rollout policy and scores 1 for every player of the winning team; it plays the "
         "most visited action.",
)


def search_knobs() -> np.ndarray:
    """The search's run-time settings (kernels/samurai_sword/search_hooks.knobs)."""
    return KH.knobs(SEARCH_EVIDENCE, SEARCH_SPREAD)
