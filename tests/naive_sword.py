"""Slow, obviously correct references for Samurai Sword's combat and scoring rules, written
from the rules sheet alone (no kernel code), for the kernel to be checked against."""

from __future__ import annotations

SHOGUN_TEAM, NINJAS, RONIN = "shogun", "ninja", "ronin"
TEAM_OF = {"shogun": SHOGUN_TEAM, "samurai": SHOGUN_TEAM, "ninja": NINJAS, "ronin": RONIN}
TIE_ORDER = (NINJAS, SHOGUN_TEAM, RONIN)  # ties: Ninjas beat anyone, Shogun beats Ronin


def is_harmless(resilience: int, hand: int) -> bool:
    """No resilience or an empty hand."""
    return resilience == 0 or hand == 0


def difficulty(attacker: int, target: int, harmless: list[bool], armor: int,
               benkei: bool) -> int:
    """Fewest seats between attacker and target going either way round the table, counting
    only players who are not Harmless (a neighbour is 1), + Armor, + 1 for Benkei."""
    n = len(harmless)
    ways = []
    for step in (1, -1):
        seats = []
        i = (attacker + step) % n
        while i != target:
            seats.append(i)
            i = (i + step) % n
        ways.append(1 + sum(1 for s in seats if not harmless[s]))
    return min(ways) + armor + (1 if benkei else 0)


def reaches(weapon_difficulty: int, needed: int, kojiro: bool = False) -> bool:
    """A Weapon reaches a target when its Difficulty value is at least the target's."""
    return kojiro or weapon_difficulty >= needed


def damage(weapon: int, fast_draws: int, musashi: bool, ginchiyo: bool) -> int:
    """Wounds of a Weapon hit: + each Fast Draw, + Musashi's one; Ginchiyo takes one less,
    never below 1."""
    d = weapon + fast_draws + (1 if musashi else 0)
    return max(1, d - 1) if ginchiyo else d


def team_scores(players: list[dict], daimyo_honor: int = 1, deadly_team: str | None = None,
                deadly: int = 3) -> dict[str, int]:
    """Team totals: Honor x the role's multiplier, + Daimyo held (not for the Ronin, never
    multiplied), - the Deadly Strike. players: dicts with role, honor, mult, daimyo."""
    out: dict[str, int] = {}
    for p in players:
        team = TEAM_OF[p["role"]]
        bonus = 0 if p["role"] == "ronin" else daimyo_honor * p.get("daimyo", 0)
        out[team] = out.get(team, 0) + p["honor"] * p["mult"] + bonus
    if deadly_team is not None:
        out[deadly_team] -= deadly
    return out


def winner(scores: dict[str, int]) -> str:
    """The highest team total; ties go to the Ninjas, then to the Shogun's team."""
    best = max(scores.values())
    return next(t for t in TIE_ORDER if scores.get(t) == best)


def swordmaster(resilience: list[int], victim_team: str, by_team: str) -> bool:
    """Victory of the Swordmaster: only one player keeps resilience, and the last defeat
    was not of a teammate."""
    return sum(1 for r in resilience if r > 0) == 1 and victim_team != by_team
