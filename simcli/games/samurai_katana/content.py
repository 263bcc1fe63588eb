"""Samurai & Katana content: the content file's schema (msgspec structs), loading and
checking a file (map, deck, numbers) and the loaded content (Board, Deck, Numbers,
KatanaContent)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import numpy as np

from kernels import katana_combat as KC
from simcli.content import Document, read_document
from simcli.games.base import Content, sha256

GAME_NAME = "samurai-katana"

KINDS = {"warrior": KC.K_WARRIOR, "special": KC.K_SPECIAL, "event": KC.K_EVENT,
         "anytime": KC.K_ANYTIME}
EFFECTS = {  # effect name -> (code, kind it needs, takes an amount)
    "none": (KC.E_NONE, "warrior", False),
    "fan": (KC.E_FAN, "special", True),
    "arquebus": (KC.E_ARQUEBUS, "special", True),
    "alliance": (KC.E_ALLIANCE, "special", True),
    "uprising": (KC.E_UPRISING, "event", True),
    "honor": (KC.E_HONOR, "event", True),
    "insult": (KC.E_INSULT, "event", True),
    "koku": (KC.E_KOKU, "event", True),
    "wako": (KC.E_WAKO, "event", True),
    "ninja": (KC.E_NINJA, "anytime", False),
    "tsunami": (KC.E_TSUNAMI, "anytime", False),
    "scorched-earth": (KC.E_SCORCHED, "anytime", False),
    "shogunal-justice": (KC.E_JUSTICE, "anytime", False),
}
PLAYER_COUNTS = (3, 4, 5, 6)


@dataclass(frozen=True)
class Board:
    """The map: territories, provinces, links and cities."""

    ids: tuple[str, ...]
    names: tuple[str, ...]
    province: np.ndarray  # (T,) province index
    mountain: np.ndarray  # (T,) bool
    adj_start: np.ndarray  # (T+1,) CSR offsets into adj_to / adj_sea
    adj_to: np.ndarray
    adj_sea: np.ndarray  # 1 for a sea link
    province_ids: tuple[str, ...]
    province_names: tuple[str, ...]
    province_honor: np.ndarray  # (NP,)
    city_name: tuple[str, ...]  # per territory, "" for none
    city_cp: np.ndarray  # (T,) 0 none, 1 minor, 2 major
    kyoto: int  # territory holding Kyoto
    assumed: bool


@dataclass(frozen=True)
class Deck:
    """The card types, their counts and the kernel's card table."""

    names: tuple[str, ...]
    counts: np.ndarray
    table: np.ndarray  # (types, KC.N_CC) int64
    kinds: tuple[str, ...]
    effects: tuple[str, ...]
    assumed: np.ndarray


@dataclass(frozen=True)
class Numbers:
    """The rulebook's numbers (from the content file, defaults as printed)."""

    hand: int = 5
    start_koku: int = 5
    castles: int = 3
    castle_cost: int = 4
    kyoto_castle_cost: int = 6
    tax_plain: int = 2
    tax_mountain: int = 1
    return_samurai: int = 5
    return_koku: int = 4
    samurai: tuple[int, ...] = (20, 20, 18, 15)  # by player count 3..6
    minor_cities: tuple[int, ...] = (3, 3, 2, 2)
    extra_samurai: tuple[int, ...] = (4, 4, 3, 3)


@dataclass(frozen=True)
class KatanaContent:
    """A loaded map, deck and numbers."""

    board: Board
    deck: Deck
    numbers: Numbers


Id = Annotated[str, msgspec.Meta(min_length=1, pattern=r"\S")]
Small = Annotated[int, msgspec.Meta(ge=0, le=99)]
Kind = Literal["warrior", "special", "event", "anytime"]
Effect = Literal["none", "fan", "arquebus", "alliance", "uprising", "honor", "insult", "koku",
                 "wako", "ninja", "tsunami", "scorched-earth", "shogunal-justice"]


class ContentMeta(msgspec.Struct, forbid_unknown_fields=True):
    """[content]: what the file is."""

    game: str = GAME_NAME
    name: str | None = None
    version: int | str = 1
    assumed: bool = True  # the default of every entry's `assumed`
    description: str = ""


class Counts(msgspec.Struct, forbid_unknown_fields=True,
             rename={"p3": "3", "p4": "4", "p5": "5", "p6": "6"}):
    """A number for each player count 3-6 (0 allowed)."""

    p3: Small
    p4: Small
    p5: Small
    p6: Small


class SamuraiCounts(Counts, forbid_unknown_fields=True,
                    rename={"p3": "3", "p4": "4", "p5": "5", "p6": "6"}):
    """Samurai per clan for each player count 3-6 (at least 1)."""

    p3: Annotated[int, msgspec.Meta(ge=1, le=99)]
    p4: Annotated[int, msgspec.Meta(ge=1, le=99)]
    p5: Annotated[int, msgspec.Meta(ge=1, le=99)]
    p6: Annotated[int, msgspec.Meta(ge=1, le=99)]


class NumbersTable(msgspec.Struct, forbid_unknown_fields=True):
    """[numbers]: the rulebook's numbers, every field optional (defaults as printed)."""

    hand: Annotated[int, msgspec.Meta(ge=2, le=99)] = 5
    start_koku: Small = 5
    castles: Small = 3
    castle_cost: Small = 4
    kyoto_castle_cost: Small = 6
    tax_plain: Small = 2
    tax_mountain: Small = 1
    return_samurai: Small = 5
    return_koku: Small = 4
    samurai: SamuraiCounts | None = None
    minor_cities: Counts | None = None
    extra_samurai: Counts | None = None


class ProvinceLine(msgspec.Struct, forbid_unknown_fields=True):
    """One province: its id, name and the Honor it pays when complete."""

    id: Id
    honor: Annotated[int, msgspec.Meta(ge=0, le=50)]
    name: str | None = None
    assumed: bool | None = None


class TerritoryLine(msgspec.Struct, forbid_unknown_fields=True):
    """One territory: its province, terrain and land and sea neighbours (by id)."""

    id: Id
    province: Id
    terrain: Literal["plain", "mountain"]
    name: str | None = None
    land: list[str] = []
    sea: list[str] = []
    assumed: bool | None = None


class CityLine(msgspec.Struct, forbid_unknown_fields=True):
    """One city marker: the territory it stands on and its size (one is Kyoto)."""

    name: Id
    territory: Id
    size: Literal["major", "minor"]
    kyoto: bool = False
    assumed: bool | None = None


class MapTable(msgspec.Struct, forbid_unknown_fields=True):
    """[map]: provinces, territories and cities."""

    provinces: Annotated[list[ProvinceLine], msgspec.Meta(min_length=1)]
    territories: Annotated[list[TerritoryLine], msgspec.Meta(min_length=1)]
    cities: Annotated[list[CityLine], msgspec.Meta(min_length=1)]


class CardLine(msgspec.Struct, forbid_unknown_fields=True):
    """One card type of the deck and its copies."""

    name: Id
    count: Annotated[int, msgspec.Meta(ge=1, le=60)]
    value: Annotated[int, msgspec.Meta(ge=0, le=9)]
    swords: Annotated[int, msgspec.Meta(ge=0, le=4)]
    kind: Kind
    effect: Effect = "none"
    amount: Annotated[int, msgspec.Meta(ge=0, le=9)] = 0
    cost: Annotated[int, msgspec.Meta(ge=0, le=20)] | None = None
    assumed: bool | None = None
    text: str = ""


class DeckTable(msgspec.Struct, forbid_unknown_fields=True):
    """[deck]: the card types."""

    cards: Annotated[list[CardLine], msgspec.Meta(min_length=1)]


class KatanaFile(msgspec.Struct, forbid_unknown_fields=True):
    """A Samurai & Katana content file (the schema every file is checked against)."""

    map: MapTable
    deck: DeckTable
    numbers: NumbersTable = msgspec.field(default_factory=NumbersTable)
    content: ContentMeta = msgspec.field(default_factory=ContentMeta)


def _links(doc: Document, terrs: list[TerritoryLine], index: dict[str, int]
           ) -> list[dict[str, str]]:
    """Each territory's neighbours (id -> "land" / "sea"), checked: known, not itself,
    listed once, and listed back the same way at the other end."""
    links: list[dict[str, str]] = []
    for i, t in enumerate(terrs):
        mine: dict[str, str] = {}
        for kind in ("land", "sea"):
            for k, other in enumerate(getattr(t, kind)):
                key = ("map", "territories", i, kind, k)
                what = f"territory '{t.id}'"
                if other not in index:
                    raise doc.error(key, f"{what}: {kind} neighbour '{other}' is not a "
                                    f"territory")
                if other == t.id:
                    raise doc.error(key, f"{what}: lists itself as a {kind} neighbour")
                if other in mine:
                    raise doc.error(key, f"{what}: '{other}' is listed twice (as "
                                    f"{mine[other]} and {kind} neighbour)")
                mine[other] = kind
        links.append(mine)
    for i, t in enumerate(terrs):
        for other, kind in links[i].items():
            back = links[index[other]].get(t.id)
            if back != kind:
                how = "does not list it" if back is None else f"lists it as a {back} neighbour"
                raise doc.error(("map", "territories", i), f"asymmetric adjacency: territory "
                                f"'{t.id}' lists '{other}' as a {kind} neighbour but "
                                f"'{other}' {how}")
    return links


def _connected(doc: Document, terrs: list[TerritoryLine], index: dict[str, int],
               links: list[dict[str, str]]) -> None:
    """Every territory can be reached from the first by land or sea."""
    seen = {0}
    todo = deque([0])
    while todo:
        i = todo.popleft()
        for other in links[i]:
            j = index[other]
            if j not in seen:
                seen.add(j)
                todo.append(j)
    if len(seen) < len(terrs):
        lost = next(i for i in range(len(terrs)) if i not in seen)
        raise doc.error(("map", "territories", lost), f"the map is not connected: territory "
                        f"'{terrs[lost].id}' cannot be reached from '{terrs[0].id}' by land "
                        f"or sea")


def _cities(doc: Document, cities: list[CityLine], index: dict[str, int], default: bool
            ) -> tuple[list[str], np.ndarray, int, bool]:
    """(city name per territory, clan points per territory, Kyoto's territory, any
    assumed), checked: known territories, one city each, exactly one Kyoto, a major city."""
    city_name = [""] * len(index)
    city_cp = np.zeros(len(index), np.int64)
    kyoto = -1
    assumed = False
    for i, c in enumerate(cities):
        key = ("map", "cities", i)
        what = f"city '{c.name}'"
        if c.territory not in index:
            raise doc.error((*key, "territory"), f"{what}: unknown territory '{c.territory}'")
        ti = index[c.territory]
        if city_name[ti]:
            raise doc.error((*key, "territory"), f"{what}: territory '{c.territory}' already "
                            f"holds {city_name[ti]}")
        city_name[ti] = c.name
        city_cp[ti] = 2 if c.size == "major" else 1
        if c.kyoto:
            if kyoto >= 0:
                raise doc.error((*key, "kyoto"), f"{what}: a second city marked kyoto")
            if c.size != "major":
                raise doc.error((*key, "size"), f"{what}: Kyoto must be a major city")
            kyoto = ti
        assumed |= default if c.assumed is None else c.assumed
    if kyoto < 0:
        raise doc.error(("map", "cities"), "no city is marked kyoto = true (the imperial "
                        "capital)")
    return city_name, city_cp, kyoto, assumed


def parse_board(doc: Document, m: MapTable, default_assumed: bool) -> Board:
    """The [map] section past its schema: ids unique, provinces known and used, links known
    and symmetric, the map connected, cities on known territories with exactly one Kyoto."""
    prov_index: dict[str, int] = {}
    assumed = False
    for i, p in enumerate(m.provinces):
        if p.id in prov_index:
            raise doc.error(("map", "provinces", i, "id"), f"province '{p.id}' appears twice")
        prov_index[p.id] = i
        assumed |= default_assumed if p.assumed is None else p.assumed
    index: dict[str, int] = {}
    for i, t in enumerate(m.territories):
        if t.id in index:
            raise doc.error(("map", "territories", i, "id"),
                            f"territory '{t.id}' appears twice")
        index[t.id] = i
    T = len(m.territories)
    province = np.zeros(T, np.int64)
    for i, t in enumerate(m.territories):
        if t.province not in prov_index:
            raise doc.error(("map", "territories", i, "province"),
                            f"territory '{t.id}': unknown province '{t.province}'")
        province[i] = prov_index[t.province]
        assumed |= default_assumed if t.assumed is None else t.assumed
    links = _links(doc, m.territories, index)
    for pid, pi in prov_index.items():
        if not (province == pi).any():
            raise doc.error(("map", "provinces", pi), f"province '{pid}' has no territories")
    _connected(doc, m.territories, index, links)
    city_name, city_cp, kyoto, city_assumed = _cities(doc, m.cities, index, default_assumed)
    starts, to, sea = [0], [], []
    for i in range(T):
        for other, kind in links[i].items():
            to.append(index[other])
            sea.append(int(kind == "sea"))
        starts.append(len(to))
    return Board(
        ids=tuple(t.id for t in m.territories),
        names=tuple(t.name if t.name is not None else t.id for t in m.territories),
        province=province,
        mountain=np.array([t.terrain == "mountain" for t in m.territories], np.bool_),
        adj_start=np.array(starts, np.int64), adj_to=np.array(to, np.int64),
        adj_sea=np.array(sea, np.int64), province_ids=tuple(prov_index),
        province_names=tuple(p.name if p.name is not None else p.id for p in m.provinces),
        province_honor=np.array([p.honor for p in m.provinces], np.int64),
        city_name=tuple(city_name), city_cp=city_cp, kyoto=kyoto,
        assumed=assumed or city_assumed,
    )


def keep_value(kind: str, effect: str) -> int:
    """Greedy's wish to keep a card for its power rather than spend it in combat."""
    if kind == "warrior":
        return 0
    if kind == "special":
        return 1
    if effect in ("honor", "uprising"):
        return 4
    return 2


def parse_deck(doc: Document, d: DeckTable, default_assumed: bool, hand: int) -> Deck:
    """The [deck] section past its schema: names unique, each card's kind fits its effect,
    a koku cost only on events, enough cards to deal."""
    cards = d.cards
    names: list[str] = []
    table = np.zeros((len(cards), KC.N_CC), np.int64)
    counts = np.zeros(len(cards), np.int64)
    assumed = np.zeros(len(cards), np.bool_)
    for i, c in enumerate(cards):
        key = ("deck", "cards", i)
        what = f"card '{c.name}'"
        if c.name in names:
            raise doc.error((*key, "name"), f"{what} appears twice")
        code, needs, takes_amount = EFFECTS[c.effect]
        if needs != c.kind:
            raise doc.error((*key, "effect"), f"{what}: effect '{c.effect}' belongs on a "
                            f"{needs} card, not a {c.kind} card")
        if c.kind == "special" and c.effect == "none":
            raise doc.error((*key, "effect"), f"{what}: a special card needs an effect")
        if c.cost is not None and c.kind != "event":
            raise doc.error((*key, "cost"), f"{what}: only event cards have a koku cost")
        counts[i] = c.count
        table[i, KC.CC_VALUE] = c.value
        table[i, KC.CC_SWORDS] = c.swords
        table[i, KC.CC_KIND] = KINDS[c.kind]
        table[i, KC.CC_EFFECT] = code
        table[i, KC.CC_AMOUNT] = c.amount if takes_amount else 0
        table[i, KC.CC_COST] = c.cost or 0
        table[i, KC.CC_KEEP] = keep_value(c.kind, c.effect)
        table[i, KC.CC_KEY] = KC.combat_key(c.value, c.swords, int(table[i, KC.CC_KEEP]),
                                            c.kind == "special")
        assumed[i] = default_assumed if c.assumed is None else c.assumed
        names.append(c.name)
    if counts.sum() < 4 * hand:
        raise doc.error(("deck", "cards"), f"the deck has {int(counts.sum())} cards; it needs "
                        f"at least {4 * hand} (a hand of {hand} for each of 3 players, and "
                        f"more)")
    return Deck(names=tuple(names), counts=counts, table=table,
                kinds=tuple(c.kind for c in cards), effects=tuple(c.effect for c in cards),
                assumed=assumed)


def parse_numbers(n: NumbersTable) -> Numbers:
    """The [numbers] section as Numbers (defaults as printed)."""
    kw: dict[str, Any] = {k: getattr(n, k) for k in (
        "hand", "start_koku", "castles", "castle_cost", "kyoto_castle_cost", "tax_plain",
        "tax_mountain", "return_samurai", "return_koku")}
    for key in ("samurai", "minor_cities", "extra_samurai"):
        v = getattr(n, key)
        if v is not None:
            kw[key] = (v.p3, v.p4, v.p5, v.p6)
    return Numbers(**kw)


def parse_content(path: Path) -> Content:
    """Load a Samurai & Katana content file (map, deck, numbers), checked against the
    KatanaFile schema (types, ranges, unknown keys refused) and the checks across entries;
    every error is one line naming the file, the line and the field."""
    doc = read_document(path)
    meta = doc.convert(ContentMeta, ("content",)) if "content" in doc.data else ContentMeta()
    if meta.game != GAME_NAME:
        raise doc.error(("content", "game"), f"content is for '{meta.game}', not {GAME_NAME}")
    f = doc.convert(KatanaFile)
    numbers = parse_numbers(f.numbers)
    board = parse_board(doc, f.map, meta.assumed)
    deck = parse_deck(doc, f.deck, meta.assumed, numbers.hand)
    return Content(
        name=meta.name if meta.name is not None else path.stem, version=str(meta.version),
        path=path, sha256=sha256(doc.raw), assumed=bool(board.assumed or deck.assumed.any()),
        description=meta.description,
        data=KatanaContent(board=board, deck=deck, numbers=numbers),
    )
