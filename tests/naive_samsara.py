"""Slow, obviously correct Samsara move generation the kernel is checked against.

A position is (hollows, goals): the set of occupied hollows (lane, cell) with lane 0 the
round lane (the round player's, seat 0) and lane 1 the square lane, cell 1..24 as the sheet
numbers them (1-12 the far side's inner row, 13-24 the owner's outer row, then the goal),
and goals = (round player's goals, square player's goals). Marbles are neutral and alike,
so a turn is identified by the position it leaves.
"""

from __future__ import annotations

from dataclasses import dataclass

WIN = 6


@dataclass(frozen=True)
class Rules:
    """The rule options that change move generation (the game's defaults)."""

    re_entry: str = "both-empty"  # or "lowest-empty"
    opponent_goal: str = "forbidden"  # or "scores-for-owner", "allowed-scores-nothing"
    arc: str = "step"  # or "extra-step"
    same_marble: str = "each-die"  # or "whole-move"
    single_die: str = "play-either"  # or "play-higher", "moksha"


def partner(h: tuple[int, int]) -> tuple[int, int]:
    """The other hollow of the same double field: round k <-> square 12+k and back."""
    lane, k = h
    return (1 - lane, k + 12 if k <= 12 else k - 12)


def goal_pips(rules: Rules) -> int:
    """Pips from before cell 1 to the goal."""
    return 25 if rules.arc == "step" else 26


def pips_of(k: int, rules: Rules) -> int:
    """How many pips cell k lies from the start of its lane."""
    return k if rules.arc == "step" or k <= 12 else k + 1


def cell_at(p: int, rules: Rules) -> int | str | None:
    """The cell p pips from the lane's start, "goal", or None (overshoot, or on the arc)."""
    goal = goal_pips(rules)
    if p == goal:
        return "goal"
    if p > goal:
        return None
    if rules.arc == "step" or p <= 12:
        return p
    if p == 13:
        return None  # the arc's own pip: no hollow to stop on
    return p - 1


def re_entry(hollows: frozenset, lane: int, rules: Rules) -> tuple[int, int] | None:
    """Where a marble that scored in `lane`'s goal comes back on (the far side, cells 1-12);
    None when there is no such place (the goal entry cannot be made)."""
    for k in range(1, 13):
        h = (lane, k)
        if h in hollows:
            continue
        if rules.re_entry == "both-empty" and partner(h) in hollows:
            continue
        return h
    return None


def one_move(hollows: frozenset, goals: tuple[int, int], mover: int, origin, start, pips: int,
             rules: Rules):
    """Move the marble on `origin`, counting from `start` (origin, or its partner when the
    double field is full), `pips` forward. Returns (hollows, goals, landing hollow, whether
    it entered a goal) or None."""
    lane, k = start
    rest = hollows - {origin}
    to = cell_at(pips_of(k, rules) + pips, rules)
    if to is None:
        return None
    if to == "goal":
        owner = lane
        if owner != mover and rules.opponent_goal == "forbidden":
            return None
        g = list(goals)
        if owner == mover or rules.opponent_goal == "scores-for-owner":
            g[owner] = min(WIN, g[owner] + 1)
        back = re_entry(rest, lane, rules)
        if back is None:
            return None
        return rest | {back}, tuple(g), back, True
    target = (lane, to)
    if target in rest:
        target = partner(target)
        if target in rest:
            return None  # both halves full: the move cannot be made
    return rest | {target}, goals, target, False


def single_moves(hollows: frozenset, goals, mover: int, pips: int, rules: Rules):
    """Every legal move of one die: list of (hollows, goals, origin, landing, entered a
    goal)."""
    out = []
    for origin in sorted(hollows):
        starts = [origin]
        if partner(origin) in hollows:
            starts.append(partner(origin))
        for start in starts:
            r = one_move(hollows, goals, mover, origin, start, pips, rules)
            if r is not None:
                out.append((r[0], r[1], origin, r[2], r[3]))
    return out


def decides(goals, after) -> bool:
    """Whether a move took a scoring track from below WIN to WIN (the game is decided)."""
    return any(after[p] >= WIN > goals[p] for p in range(2))


def turns(hollows, goals, mover: int, a: int, b: int, rules: Rules = Rules()) -> set:
    """Every distinct position a legal turn with dice (a, b) can leave: a set of
    (frozenset of hollows, goals). Empty: no move at all (Moksha)."""
    hollows = frozenset(hollows)
    goals = tuple(goals)
    full: set = set()
    for d1, d2 in ((a, b), (b, a)) if a != b else ((a, b),):
        for h1, g1, _origin, landing, entered in single_moves(hollows, goals, mover, d1, rules):
            if decides(goals, g1):
                full.add((h1, g1))  # the game is decided: the turn ends at once
                continue
            for h2, g2, origin2, _l, _s in single_moves(h1, g1, mover, d2, rules):
                if rules.same_marble == "whole-move" and origin2 == landing and not entered:
                    continue  # one marble's two dice are one move (below)
                full.add((h2, g2))
    if rules.same_marble == "whole-move":
        for h, g, *_ in single_moves(hollows, goals, mover, a + b, rules):
            full.add((h, g))
    if full:
        return full
    if rules.single_die == "moksha":
        return set()
    by_die = {d: {(h, g) for h, g, *_ in single_moves(hollows, goals, mover, d, rules)}
              for d in {a, b}}
    if rules.single_die == "play-higher" and by_die[max(a, b)]:
        return by_die[max(a, b)]
    out: set = set()
    for s in by_die.values():
        out |= s
    return out


def start_position() -> frozenset:
    """Six marbles on round cells 1-6 and six on square cells 1-6."""
    return frozenset([(0, k) for k in range(1, 7)] + [(1, k) for k in range(1, 7)])


def side_of(h: tuple[int, int]) -> int:
    """Whose long side a hollow lies on: 0 the round player's (South), 1 the square's."""
    lane, k = h
    # round cells 13-24 are South's outer row, square cells 1-12 South's inner row
    return 0 if (lane == 0) == (k > 12) else 1
