"""Slow, obviously correct Samurai & Katana combat, straight from the rulebook, for the
kernel to be checked against.

A card is a dict: value, swords, special (None or an effect name: "fan", "arquebus",
"alliance") and amount.
"""

from __future__ import annotations

import itertools
from fractions import Fraction


def card(value: int, swords: int = 0, special: str | None = None, amount: int = 0) -> dict:
    """A card for these references."""
    return {"value": value, "swords": swords, "special": special, "amount": amount}


def choices(hand: list[dict]) -> list[tuple[int, int, int | None]]:
    """Every legal play: two combat cards (any two) and no special or one blue card among
    the rest, as hand positions (i, j, k or None)."""
    out = []
    for i, j in itertools.combinations(range(len(hand)), 2):
        out.append((i, j, None))
        for k in range(len(hand)):
            if k not in (i, j) and hand[k]["special"]:
                out.append((i, j, k))
    return out


def points(hand: list[dict], play: tuple[int, int, int | None], castle: bool,
           allies: int = 0) -> tuple[int, int]:
    """(combat points from the cards, swords) of a play: the two values, the weaker doubled
    by a castle; a special adds its fan bonus, its extra swords, or (Alliance) up to
    `amount` of the player's samurai in neighbouring land territories."""
    i, j, k = play
    a, b = hand[i]["value"], hand[j]["value"]
    pts = a + b + (min(a, b) if castle else 0)
    swords = hand[i]["swords"] + hand[j]["swords"]
    if k is not None:
        sp = hand[k]
        swords += sp["swords"]
        if sp["special"] == "fan":
            pts += sp["amount"]
        elif sp["special"] == "arquebus":
            swords += sp["amount"]
        elif sp["special"] == "alliance":
            pts += min(allies, sp["amount"])
    return pts, swords


def strongest(hand: list[dict], castle: bool, allies: int = 0) -> tuple[int, int]:
    """(points, swords) of the play with most points, then most swords."""
    return max(points(hand, c, castle, allies) for c in choices(hand))


def outcome(att_pts: int, def_pts: int, att_swords: int, def_swords: int, a: int, d: int,
            castle: bool, mountain: bool) -> dict:
    """One battle by the rulebook: samurai count up to 4, +1 to a defender in mountains;
    most points wins, a tie to the defender; each side loses the swords on the other's
    cards, at most 4 (and at most what it has). A winner left without samurai does not
    take the territory: it is free; a defender who holds it needs a samurai or a castle."""
    total_a = att_pts + min(a, 4)
    total_d = def_pts + min(d, 4) + (1 if mountain else 0)
    lose_a = min(def_swords, 4, a)
    lose_d = min(att_swords, 4, d)
    if total_a > total_d:
        winner = "attacker"
        empty = a - lose_a == 0
    else:
        winner = "tie" if total_a == total_d else "defender"
        empty = d - lose_d == 0 and not castle
    return {"winner": winner, "attacker_losses": lose_a, "defender_losses": lose_d,
            "empty": empty}


def exact_odds(deck: list[dict], h: int, a: int, d: int, castle: bool, mountain: bool,
               policy: str = "greedy") -> dict[str, Fraction]:
    """Exact chances (win, tie, empty) and mean losses when each side is dealt h cards from
    its own full deck, by going through every pair of hands (and, for the random policy,
    every legal play of each, equally likely)."""
    hands = list(itertools.combinations(range(len(deck)), h))
    w = Fraction(1, len(hands))

    def plays(idx: tuple[int, ...], with_castle: bool) -> list[tuple[tuple[int, int], Fraction]]:
        hand = [deck[i] for i in idx]
        if policy == "greedy":
            return [(strongest(hand, with_castle), Fraction(1))]
        cs = choices(hand)
        return [(points(hand, c, with_castle), Fraction(1, len(cs))) for c in cs]

    def distribution(with_castle: bool) -> dict[tuple[int, int], Fraction]:
        dist: dict[tuple[int, int], Fraction] = {}
        for idx in hands:
            for pw, q in plays(idx, with_castle):
                dist[pw] = dist.get(pw, Fraction(0)) + w * q
        return dist

    att = distribution(False).items()
    dfn = distribution(castle).items()
    res = {"win": Fraction(0), "tie": Fraction(0), "empty": Fraction(0),
           "attacker_losses": Fraction(0), "defender_losses": Fraction(0)}
    for (pa, sa), qa in att:
        for (pd, sd), qd in dfn:
            o = outcome(pa, pd, sa, sd, a, d, castle, mountain)
            q = qa * qd
            res["win"] += q * (o["winner"] == "attacker")
            res["tie"] += q * (o["winner"] == "tie")
            res["empty"] += q * o["empty"]
            res["attacker_losses"] += q * o["attacker_losses"]
            res["defender_losses"] += q * o["defender_losses"]
    return res
