"""Samurai: The Card Game content: the content-file schema (msgspec structs), loading and
checking a file, and the card set (one player's set and the village deck) the kernels
need."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import msgspec
import numpy as np

from simcli.content import read_document
from simcli.games.base import Content, sha256

SHAPES = ("helmet", "buddha", "rice")  # marker shapes: triangle, circle, square
SHAPE_MARKERS = ("triangle", "circle", "square")
SYMBOLS = (*SHAPES, "samurai")
ALIASES = {"triangle": "helmet", "circle": "buddha", "square": "rice"}
MAX_INFLUENCE = 15  # four bits in the kernel's card code
MAX_VILLAGES = 400


@dataclass(frozen=True)
class CardSet:
    """One player's set and the village deck, as the kernel needs them."""

    kind_symbol: np.ndarray  # (K,) symbol index per card kind
    kind_influence: np.ndarray  # (K,)
    kind_count: np.ndarray  # (K,) copies per set
    kind_remove_4p: np.ndarray  # (K,) copies removed with four players
    kind_assumed: np.ndarray  # (K,) bool
    village_masks: np.ndarray  # (V,) one bit mask per village card of the deck
    village_kinds: tuple[str, ...]  # labels per deck line
    village_counts: np.ndarray
    village_assumed: np.ndarray
    hand: int
    markers: int

    def kind_names(self) -> list[str]:
        """'helmet 2', 'samurai 1', ... per card kind."""
        return [f"{SYMBOLS[s]} {v}" for s, v in
                zip(self.kind_symbol, self.kind_influence, strict=True)]



Symbol = Literal["helmet", "buddha", "rice", "samurai", "triangle", "circle", "square"]
Shape = Literal["helmet", "buddha", "rice", "triangle", "circle", "square"]
Influence = Annotated[int, msgspec.Meta(ge=1, le=MAX_INFLUENCE)]


class ContentMeta(msgspec.Struct, forbid_unknown_fields=True):
    """[content]: what the file is."""

    game: str = "samurai-card-game"
    name: str | None = None
    version: int | str = 1
    assumed: bool = True  # the default of every line's `assumed`
    description: str = ""


class RulesTable(msgspec.Struct, forbid_unknown_fields=True):
    """[rules]: hand size and markers of each shape (3-4 players)."""

    hand: Annotated[int, msgspec.Meta(ge=1, le=15)]
    markers: Annotated[int, msgspec.Meta(ge=1, le=999)]


class CardLine(msgspec.Struct, forbid_unknown_fields=True):
    """One kind of card of a player's set."""

    symbol: Symbol
    influence: Influence
    count: Annotated[int, msgspec.Meta(ge=0, le=99)]
    assumed: bool | None = None


class Removal(msgspec.Struct, forbid_unknown_fields=True):
    """Copies of a kind of card each set loses with four players."""

    symbol: Symbol
    influence: Influence
    count: Annotated[int, msgspec.Meta(ge=1, le=99)] = 1
    assumed: bool | None = None


class PlayerSet(msgspec.Struct, forbid_unknown_fields=True):
    """[player_set]: the cards of one player's set, and the four-player removals."""

    cards: Annotated[list[CardLine], msgspec.Meta(min_length=1)]
    remove_4p: list[Removal] = []


class VillageLine(msgspec.Struct, forbid_unknown_fields=True):
    """One kind of village card: its symbols and copies in the deck."""

    symbols: Annotated[list[Shape], msgspec.Meta(min_length=1, max_length=3)]
    count: Annotated[int, msgspec.Meta(ge=0, le=MAX_VILLAGES)]
    assumed: bool | None = None


class Villages(msgspec.Struct, forbid_unknown_fields=True):
    """[villages]: the village deck."""

    deck: Annotated[list[VillageLine], msgspec.Meta(min_length=1)]


class CardFile(msgspec.Struct, forbid_unknown_fields=True):
    """A Samurai: The Card Game content file (the schema every file is checked against)."""

    rules: RulesTable
    player_set: PlayerSet
    villages: Villages
    content: ContentMeta = msgspec.field(default_factory=ContentMeta)


def _symbol(name: str) -> int:
    """Index in SYMBOLS of a symbol name (or its marker's alias)."""
    return SYMBOLS.index(ALIASES.get(name, name))


def parse_content(path: Path) -> Content:
    """Load a Samurai: The Card Game content file, checked against the CardFile schema
    (types, ranges, unknown keys refused) and the checks across lines; every error is one
    line naming the file, the line and the field."""
    doc = read_document(path)
    meta = doc.convert(ContentMeta, ("content",)) if "content" in doc.data else ContentMeta()
    if meta.game != "samurai-card-game":
        raise doc.error(("content", "game"), f"content is for '{meta.game}', not "
                        f"samurai-card-game")
    f = doc.convert(CardFile)
    sym, inf, cnt, assumed = [], [], [], []
    for i, card in enumerate(f.player_set.cards):
        s, v = _symbol(card.symbol), card.influence
        if any(s == s2 and v == v2 for s2, v2 in zip(sym, inf, strict=True)):
            raise doc.error(("player_set", "cards", i), f"{SYMBOLS[s]} {v} is listed twice")
        sym.append(s)
        inf.append(v)
        cnt.append(card.count)
        assumed.append(meta.assumed if card.assumed is None else card.assumed)
    if sum(cnt) == 0:
        raise doc.error(("player_set", "cards"), "the player set has no cards (every "
                        "'count' is 0)")
    remove = np.zeros(len(sym), np.int64)
    for i, item in enumerate(f.player_set.remove_4p):
        s, v = _symbol(item.symbol), item.influence
        match = [k for k in range(len(sym)) if sym[k] == s and inf[k] == v]
        key = ("player_set", "remove_4p", i)
        if not match:
            raise doc.error(key, f"the set has no {SYMBOLS[s]} {v} card")
        remove[match[0]] += item.count
        if remove[match[0]] > cnt[match[0]]:
            raise doc.error(key, f"removes {remove[match[0]]} {SYMBOLS[s]} {v} cards but the "
                            f"set has {cnt[match[0]]}")
    if sum(cnt) - remove.sum() == 0:
        raise doc.error(("player_set", "remove_4p"), "with four players the set would have "
                        "no cards")
    masks, labels, vcounts, vassumed = [], [], [], []
    for i, item in enumerate(f.villages.deck):
        mask = 0
        for name in item.symbols:
            bit = 1 << _symbol(name)
            if mask & bit:
                raise doc.error(("villages", "deck", i, "symbols"),
                                f"names {SYMBOLS[_symbol(name)]} twice")
            mask |= bit
        if mask in masks:
            raise doc.error(("villages", "deck", i), "the same village is listed twice")
        masks.append(mask)
        labels.append("+".join(SHAPES[s] for s in range(3) if mask >> s & 1))
        vcounts.append(item.count)
        vassumed.append(meta.assumed if item.assumed is None else item.assumed)
    total = sum(vcounts)
    if not 1 <= total <= MAX_VILLAGES:
        raise doc.error(("villages", "deck"), f"the village deck must hold 1-{MAX_VILLAGES} "
                        f"cards, has {total}")
    data = CardSet(
        kind_symbol=np.array(sym, np.int64), kind_influence=np.array(inf, np.int64),
        kind_count=np.array(cnt, np.int64), kind_remove_4p=remove,
        kind_assumed=np.array(assumed, np.bool_),
        village_masks=np.repeat(np.array(masks, np.int64), vcounts),
        village_kinds=tuple(labels), village_counts=np.array(vcounts, np.int64),
        village_assumed=np.array(vassumed, np.bool_), hand=f.rules.hand,
        markers=f.rules.markers,
    )
    return Content(
        name=meta.name if meta.name is not None else path.stem, version=str(meta.version),
        path=path, sha256=sha256(doc.raw),
        assumed=bool(data.kind_assumed.any() or data.village_assumed.any()),
        description=meta.description, data=data,
    )



def set_codes(cs: CardSet, players: int) -> np.ndarray:
    """Card codes of one player's set (owner bits zero) for this player count."""
    counts = cs.kind_count - (cs.kind_remove_4p if players == 4 else 0)
    codes = [(int(cs.kind_symbol[k]) << 2) | (int(cs.kind_influence[k]) << 4) | (k << 8)
             for k in range(len(counts)) for _ in range(int(counts[k]))]
    return np.array(codes, np.int64)


def supply_for(cs: CardSet, players: int, rules: dict[str, str]) -> int:
    """Markers of each shape: the content's count, or the rule option with 2 players."""
    return int(rules["markers-2p"]) if players == 2 else cs.markers
