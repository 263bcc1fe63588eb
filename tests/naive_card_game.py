"""Slow, obviously correct Samurai: The Card Game rules, written from the rules sheet
(shared/games/samurai-card-game.md) with plain dictionaries and sets, for checking the
kernel: legal cells, the cells a play opens, influence, scoring and the winner."""

from __future__ import annotations

from dataclasses import dataclass, field

HELMET, BUDDHA, RICE, SAMURAI = 0, 1, 2, 3
SHAPES = (HELMET, BUDDHA, RICE)
SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))


@dataclass(frozen=True)
class Card:
    owner: int
    symbol: int
    influence: int


@dataclass
class Village:
    symbols: frozenset[int]
    scored: bool = False


@dataclass
class Board:
    """Cells by (x, y): a Card or a Village. Villages on x + y even, cards on x + y odd."""

    cells: dict[tuple[int, int], Card | Village] = field(default_factory=dict)

    def neighbours(self, cell: tuple[int, int]) -> list[tuple[int, int]]:
        x, y = cell
        return [(x + dx, y + dy) for dx, dy in SIDES]

    def village_at(self, cell) -> Village | None:
        v = self.cells.get(cell)
        return v if isinstance(v, Village) else None

    def card_at(self, cell) -> Card | None:
        c = self.cells.get(cell)
        return c if isinstance(c, Card) else None

    def legal_cells(self) -> set[tuple[int, int]]:
        """Empty card cells orthogonally next to at least one village (scored or not)."""
        out = set()
        for cell, item in self.cells.items():
            if isinstance(item, Village):
                for n in self.neighbours(cell):
                    if n not in self.cells:
                        out.add(n)
        return out

    def openings(self, cell: tuple[int, int], owner: int) -> set[tuple[int, int]]:
        """Empty cells that get a new village when `owner`'s card lies at `cell`.

        For every village V next to the card C and every card D of another player next to
        V and diagonal to C, the cell that touches both C and D and is not V.
        """
        out = set()
        cx, cy = cell
        for v in self.neighbours(cell):
            if self.village_at(v) is None:
                continue
            for d in self.neighbours(v):
                dc = self.card_at(d)
                if d == cell or dc is None or dc.owner == owner:
                    continue
                if abs(d[0] - cx) != 1 or abs(d[1] - cy) != 1:
                    continue  # opposite side of V: no cell between them
                both = set(self.neighbours(cell)) & set(self.neighbours(d))
                for t in both - {v}:
                    if t not in self.cells:
                        out.add(t)
        return out

    def influence(self, vcell: tuple[int, int], players: int) -> list[list[int]]:
        """Each player's influence per shape from the cards next to a village cell."""
        sums = [[0, 0, 0] for _ in range(players)]
        for n in self.neighbours(vcell):
            c = self.card_at(n)
            if c is None:
                continue
            for s in SHAPES:
                if c.symbol in (s, SAMURAI):
                    sums[c.owner][s] += c.influence
        return sums

    def surrounded(self, vcell: tuple[int, int]) -> bool:
        return all(n in self.cells for n in self.neighbours(vcell))

    def score(self, vcell: tuple[int, int], players: int) -> dict[int, int | None]:
        """Per symbol of the village: the player with strictly the most influence, or None."""
        sums = self.influence(vcell, players)
        out = {}
        for s in sorted(self.cells[vcell].symbols):
            values = [sums[q][s] for q in range(players)]
            top = max(values)
            out[s] = values.index(top) if values.count(top) == 1 else None
        return out


def winner(taken: list[list[int]]) -> tuple[str, set[int]]:
    """('outright', {w}), ('shared', {...}) or ('nobody', set()) from markers[player][shape].

    Dominating a shape: strictly more markers of it than every other player. Players who
    dominate nothing are out; two or three shapes win outright; otherwise the players who
    dominate one shape compare their markers of the other two shapes, then of the dominated
    shape; a tie that remains is a shared victory.
    """
    players = range(len(taken))
    dominated: dict[int, list[int]] = {q: [] for q in players}
    for s in SHAPES:
        counts = [taken[q][s] for q in players]
        top = max(counts)
        if counts.count(top) == 1:
            dominated[counts.index(top)].append(s)
    for q in players:
        if len(dominated[q]) >= 2:
            return "outright", {q}
    contenders = [q for q in players if len(dominated[q]) == 1]
    if not contenders:
        return "nobody", set()

    def key(q: int) -> tuple[int, int]:
        s = dominated[q][0]
        return sum(taken[q]) - taken[q][s], taken[q][s]

    best = max(key(q) for q in contenders)
    top = {q for q in contenders if key(q) == best}
    return ("outright", top) if len(top) == 1 else ("shared", top)


def greedy_value(board: Board, card: Card, cell: tuple[int, int], players: int,
                 weights: list[float], top: int, freq: list[float], deck_left: int,
                 infl: float, cap: float, keep: float) -> float:
    """The greedy policy's value of playing `card` on `cell`, as its description states.

    Each village next to the cell that is not scored: if the card completes it, the weight
    of every symbol whose marker the player then takes; otherwise infl x weight x the change
    in the player's capped lead over the best rival. Each cell the card opens (in the order
    of SIDES; only while the village deck lasts): the first as the visible top village
    (`top`, a symbol mask), the others as unseen villages (symbols weighted by `freq`),
    valued the same way from nothing. Minus keep x (influence, + 2 for a samurai).
    """

    def lead(m: float) -> float:
        return max(-1.0, min(1.0, m / cap))

    def add(s: int) -> int:
        return card.influence if card.symbol in (s, SAMURAI) else 0

    def own_rival(vcell) -> tuple[list[int], list[int]]:
        sums = board.influence(vcell, players)
        own = sums[card.owner]
        rival = [max([sums[q][s] for q in range(players) if q != card.owner] + [0])
                 for s in SHAPES]
        return own, rival

    value = -keep * (card.influence + (2 if card.symbol == SAMURAI else 0))
    for v in board.neighbours(cell):
        village = board.village_at(v)
        if village is None or village.scored:
            continue
        own, rival = own_rival(v)
        full = sum(n in board.cells for n in board.neighbours(v)) == 3
        for s in village.symbols:
            m0 = own[s] - rival[s]
            if full:
                value += weights[s] * (m0 + add(s) > 0)
            else:
                value += weights[s] * infl * (lead(m0 + add(s)) - lead(m0))
    opened = board.openings(cell, card.owner)
    j = 0
    for dx, dy in SIDES:
        x = (cell[0] + dx, cell[1] + dy)
        if x not in opened:
            continue
        if j >= deck_left:
            break
        own, rival = own_rival(x)
        full = sum(n in board.cells for n in board.neighbours(x)) == 3
        for s in SHAPES:
            w = weights[s] * ((top >> s) & 1 if j == 0 else freq[s])
            m = own[s] + add(s) - rival[s]
            value += w * ((m > 0) if full else infl * lead(m))
        j += 1
    return value
