"""Samurai & Katana: map and deck content, combat odds, rule options, policies and the
campaign kernel driver."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import numpy as np

from kernels import katana_combat as KC
from kernels.samurai_katana import rules as K
from kernels.samurai_katana.play import N_ROW, Call, run
from kernels.samurai_katana.stats import (
    N_CLUSTER,
    N_INCOME,
    N_LEN,
    N_MARGIN,
    TABLE,
    TRACE_GAMES,
    TRACE_TURNS,
    Aggregates,
    BattleStat,
    CardStat,
    Misc,
    ProvStat,
    SeatStat,
    SourceStat,
)
from kernels.stat_table import as_tuple
from simcli.content import Document, read_document
from simcli.errors import UserError
from simcli.games.base import (
    Content,
    CoreStats,
    Game,
    OddsRequest,
    OddsResult,
    RuleOption,
    SearchSpec,
    sha256,
)
from simcli.games.handle import GameHandle, IllegalAction, KernelCalls, fast_path
from simcli.lazy import LazyModule, seat_codes
from simcli.runfolder import MANIFEST, RunFolder, write_json

KH = LazyModule("kernels.samurai_katana.search_hooks")
KSP = LazyModule("kernels.samurai_katana.search_play")

GAME_NAME = "samurai-katana"
GREEDY_THRESHOLD = 0.6  # greedy attacks when the odds table gives it at least this chance
MAX_TURNS = 100  # safety cap per game (counted)
MAX_ACTIONS = 60  # safety cap on actions in one clan activation (counted)
CATCH_UP_TURN = 5  # own metric: does the Emperor after this turn win?

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


# --- content ---------------------------------------------------------------------------

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


# --- combat odds -----------------------------------------------------------------------

def deck_array(deck: Deck) -> np.ndarray:
    """Every card of the deck as its type code."""
    return np.repeat(np.arange(len(deck.counts), dtype=np.int64), deck.counts)


def _hand_classes(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Card types grouped by what matters in a combat without board (value, swords, special
    effect); returns (class of each type, a representative type per class)."""
    keys: dict[tuple, int] = {}
    cls = np.zeros(len(table), np.int64)
    rep: list[int] = []
    for t, row in enumerate(table):
        special = row[KC.CC_KIND] == KC.K_SPECIAL
        key = (int(row[KC.CC_VALUE]), int(row[KC.CC_SWORDS]), bool(special),
               int(row[KC.CC_EFFECT]) if special else 0, int(row[KC.CC_AMOUNT]) if special else 0)
        if key not in keys:
            keys[key] = len(rep)
            rep.append(t)
        cls[t] = keys[key]
    return cls, np.array(rep, np.int64)


def hand_multisets(table: np.ndarray, counts: np.ndarray, h: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct hand of h cards (as representative type codes) and its probability
    when h cards are dealt from the whole deck."""
    cls, rep = _hand_classes(table)
    n_cls = np.zeros(len(rep), np.int64)
    for t, c in enumerate(cls):
        n_cls[c] += counts[t]
    total = math.comb(int(counts.sum()), h)
    hands: list[list[int]] = []
    weights: list[float] = []

    def walk(c: int, left: int, picked: list[int], ways: int) -> None:
        if left == 0:
            hands.append(list(picked))
            weights.append(ways / total)
            return
        if c == len(rep):
            return
        for k in range(min(left, int(n_cls[c])), -1, -1):
            walk(c + 1, left - k, picked + [int(rep[c])] * k, ways * math.comb(int(n_cls[c]), k))

    walk(0, h, [], 1)
    return np.array(hands, np.int64).reshape(len(hands), h), np.array(weights)


def _side_hist(table: np.ndarray, hands: np.ndarray, weights: np.ndarray, policy: int,
               castle: bool) -> np.ndarray:
    # card points stay below 50 (values and amounts are at most 9: 9 + 9 + 9 doubled + 9)
    # and swords below 26 (three cards of at most 4, plus an arquebus of at most 9)
    hist = np.zeros((50, 26))
    KC.exact_side(hands, weights, table, policy, castle, hist)
    return hist


@lru_cache(maxsize=16)
def _exact_cached(table_bytes: bytes, shape: tuple[int, int], counts: tuple[int, ...], h: int,
                  pol_a: int, pol_d: int) -> np.ndarray:
    # a writable copy: the kernels are compiled for writable arrays (a read-only one would
    # compile them again)
    table = np.frombuffer(table_bytes, np.int64).reshape(shape).copy()
    hands, weights = hand_multisets(table, np.array(counts, np.int64), h)
    ha = _side_hist(table, hands, weights, pol_a, False)
    out = np.zeros((KC.MAX_SIZE + 1, KC.MAX_SIZE + 1, 2, 2, KC.N_OS))
    ia = np.nonzero(ha)
    pa_pts, pa_sw, pa_p = ia[0], ia[1], ha[ia]
    for c in range(2):
        hd = _side_hist(table, hands, weights, pol_d, c == 1)
        idd = np.nonzero(hd)
        pd_pts, pd_sw, pd_p = idd[0], idd[1], hd[idd]
        prob = pa_p[:, None] * pd_p[None, :]
        for m in range(2):
            for a in range(1, KC.MAX_SIZE + 1):
                for d in range(0 if c else 1, KC.MAX_SIZE + 1):
                    A = pa_pts[:, None] + min(a, KC.MAX_COUNTED)
                    D = pd_pts[None, :] + min(d, KC.MAX_COUNTED) + m
                    la = np.minimum(np.minimum(pd_sw, KC.MAX_LOSS), a)[None, :]
                    ld = np.minimum(np.minimum(pa_sw, KC.MAX_LOSS), d)[:, None]
                    win = A > D
                    empty = np.where(win, a - la == 0, (d - ld == 0) & (c == 0))
                    cell = out[a, d, c, m]
                    cell[KC.OS_WIN] = (prob * win).sum()
                    cell[KC.OS_TIE] = (prob * (A == D)).sum()
                    cell[KC.OS_LA] = (prob * la).sum()
                    cell[KC.OS_LA2] = (prob * la * la).sum()
                    cell[KC.OS_LD] = (prob * ld).sum()
                    cell[KC.OS_LD2] = (prob * ld * ld).sum()
                    cell[KC.OS_EMPTY] = (prob * empty).sum()
    out.setflags(write=False)
    return out


def exact_odds(table: np.ndarray, counts: np.ndarray, h: int, pol_a: int = KC.GREEDY,
               pol_d: int = KC.GREEDY) -> np.ndarray:
    """Exact battle odds by enumerating every hand: out[a, d, castle, mountain, OS_*] holds
    probabilities (win, tie, empty) and expectations (losses and their squares) for army
    sizes a 1..8 and d 0..8 (0 only with a castle). Each side holds h cards dealt from its
    own full deck."""
    t = np.ascontiguousarray(table, np.int64)
    return _exact_cached(t.tobytes(), t.shape, tuple(int(c) for c in counts), h, pol_a, pol_d)


def win_table(content: KatanaContent) -> np.ndarray:
    """Greedy's attack table: the attacker's exact win chance [a, d, castle, mountain]."""
    deck = content.deck
    return np.ascontiguousarray(
        exact_odds(deck.table, deck.counts, content.numbers.hand)[..., KC.OS_WIN])


ODDS_FIGURES = ("attacker_win", "tie", "defender_win", "attacker_losses", "defender_losses",
                "empty")


def odds_rows(grid: np.ndarray, n: int | None) -> list[dict[str, Any]]:
    """The odds grid as rows (every size pair and terrain case), with 95% intervals when
    sampled (n battles) and exact values otherwise."""
    from reports.stats import mean_from_moments, rate

    rows = []
    for c in range(2):
        for m in range(2):
            for a in range(1, KC.MAX_SIZE + 1):
                for d in range(0 if c else 1, KC.MAX_SIZE + 1):
                    cell = grid[a, d, c, m]
                    row: dict[str, Any] = {"castle": bool(c), "mountain": bool(m),
                                           "attacker": a, "defender": d}
                    if n is None:
                        row.update(
                            attacker_win=float(cell[KC.OS_WIN]), tie=float(cell[KC.OS_TIE]),
                            defender_win=1.0 - float(cell[KC.OS_WIN]) - float(cell[KC.OS_TIE]),
                            attacker_losses=float(cell[KC.OS_LA]),
                            defender_losses=float(cell[KC.OS_LD]), empty=float(cell[KC.OS_EMPTY]),
                            battles=0, method="exact")
                        for k in ODDS_FIGURES:
                            row[f"{k}_ci_low"] = row[k]
                            row[f"{k}_ci_high"] = row[k]
                    else:
                        win, tie = int(cell[KC.OS_WIN]), int(cell[KC.OS_TIE])
                        est = {"attacker_win": rate(win, n), "tie": rate(tie, n),
                               "defender_win": rate(n - win - tie, n),
                               "attacker_losses": mean_from_moments(
                                   float(cell[KC.OS_LA]), float(cell[KC.OS_LA2]), n),
                               "defender_losses": mean_from_moments(
                                   float(cell[KC.OS_LD]), float(cell[KC.OS_LD2]), n),
                               "empty": rate(int(cell[KC.OS_EMPTY]), n)}
                        for k in ODDS_FIGURES:
                            row.update({k: est[k].value, f"{k}_ci_low": est[k].lo,
                                        f"{k}_ci_high": est[k].hi})
                        row.update(battles=n, method="monte-carlo")
                    rows.append(row)
    return rows


ODDS_CHUNK = 500_000
TABLE_CHUNK = 50_000
ODDS_POLICY = ("both sides hold 5 cards dealt at random from a full deck (each its own) and "
               "play the strongest choice: the two highest combat values (a castle doubles the "
               "defender's weaker one), then the special that adds most points, ties to more "
               "swords")


def sample_odds(deck: Deck, h: int, req: OddsRequest, a_rng: tuple[int, int],
                d_rng: tuple[int, int], castles: np.ndarray, mountains: np.ndarray
                ) -> np.ndarray:
    """Monte Carlo odds counts out[a, d, castle, mountain, OS_*] from req.n battles, each
    keyed (seed, index), on req.threads threads."""
    from simcli import engine

    if req.n <= 0:
        raise UserError(f"-n must be a positive number of battles, not {req.n}")
    cards = np.ascontiguousarray(deck.table)
    dk = deck_array(deck)
    total = np.zeros((KC.MAX_SIZE + 1, KC.MAX_SIZE + 1, 2, 2, KC.N_OS), np.int64)
    cells = (a_rng[1] - a_rng[0] + 1) * (d_rng[1] - d_rng[0] + 1)
    size = ODDS_CHUNK if cells <= 4 else TABLE_CHUNK

    def work(chunk: engine.Chunk) -> np.ndarray:
        out = np.zeros_like(total)
        KC.odds_chunk(np.uint64(req.seed), chunk.first, chunk.count, dk, cards, h, KC.GREEDY,
                      KC.GREEDY, a_rng[0], a_rng[1], d_rng[0], d_rng[1], castles, mountains,
                      out)
        return out

    def done(_chunk: engine.Chunk, part: np.ndarray) -> None:
        total[...] += part

    engine.run_chunks(engine.plan(req.n, size), work, done, req.threads, req.progress)
    return total


def _fmt_pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def battle_odds(game: Game, req: OddsRequest) -> OddsResult:
    """`simcli odds samurai-katana`: one battle's odds, or the whole table with --table."""
    content: KatanaContent = game.load_content(game.content_path(req.content)).data
    deck, h = content.deck, content.numbers.hand
    if req.table:
        return odds_table(deck, h, req)
    if req.attacker is None or req.defender is None:
        raise UserError("give the army sizes with --attacker N --defender M (or ask for the "
                        "whole table with --table)")
    if req.attacker < 1:
        raise UserError(f"--attacker must be at least 1 samurai, not {req.attacker}")
    if req.defender < 0 or (req.defender == 0 and not req.castle):
        raise UserError(f"--defender must be at least 1 samurai (0 only with --castle: a "
                        f"castle alone), not {req.defender}")
    a = min(req.attacker, KC.MAX_SIZE)
    d = min(req.defender, KC.MAX_SIZE)
    c, m = int(req.castle), int(req.mountain)
    if req.exact:
        cell = exact_odds(deck.table, deck.counts, h)[a, d, c, m]
        n = None
    else:
        flags_c = np.array([c == 0, c == 1], np.int64)
        flags_m = np.array([m == 0, m == 1], np.int64)
        cell = sample_odds(deck, h, req, (a, a), (d, d), flags_c, flags_m)[a, d, c, m]
        n = req.n
    grid = np.zeros((KC.MAX_SIZE + 1, KC.MAX_SIZE + 1, 2, 2, KC.N_OS), cell.dtype)
    grid[a, d, c, m] = cell
    row = next(r for r in odds_rows(grid, n) if (r["attacker"], r["defender"], r["castle"],
                                                   r["mountain"]) == (a, d, bool(c), bool(m)))
    terrain = ", ".join(x for x, on in (("castle", c), ("mountain", m)) if on) or "plain"
    method = "exact" if n is None else "monte-carlo"

    def ci(k: str, pct: bool = True) -> str:
        if n is None:
            return "exact"
        f = _fmt_pct if pct else (lambda x: f"{x:.3f}")
        return f"{f(row[k + '_ci_low'])} - {f(row[k + '_ci_high'])}"

    rows = [
        ["attacker wins", _fmt_pct(row["attacker_win"]), ci("attacker_win")],
        ["tie (defender holds)", _fmt_pct(row["tie"]), ci("tie")],
        ["defender wins", _fmt_pct(row["defender_win"]), ci("defender_win")],
        ["attacker losses (mean samurai)", f"{row['attacker_losses']:.3f}",
         ci("attacker_losses", False)],
        ["defender losses (mean samurai)", f"{row['defender_losses']:.3f}",
         ci("defender_losses", False)],
        ["territory ends empty", _fmt_pct(row["empty"]), ci("empty")],
    ]
    notes = [f"Card choice: {ODDS_POLICY}."]
    if n is not None:
        notes.append(f"{n:,} battles (seed {req.seed}); 95% intervals (Wilson for chances, "
                     f"normal for mean losses).")
    if max(req.attacker, req.defender) > 5:
        notes.append("Only 4 samurai count and losses stop at 4, so any army of 5 or more "
                     "fights like 5.")
    data = {"game": GAME_NAME, "method": method, "attacker": req.attacker,
            "defender": req.defender, "castle": bool(c), "mountain": bool(m),
            "card_policy": ODDS_POLICY, **{k: v for k, v in row.items()
                                           if k not in ("attacker", "defender", "castle",
                                                        "mountain", "method")}}
    if n is not None:
        data["seed"] = req.seed
    return OddsResult(
        title=f"{GAME_NAME} battle odds: {req.attacker} attacking {req.defender} ({terrain}; "
              f"{method})",
        columns=["outcome", "value", "95% interval"], rows=rows, notes=notes, data=data)


def odds_table(deck: Deck, h: int, req: OddsRequest) -> OddsResult:
    """The full grid (attacker 1-8, defender 1-8, and 0 with a castle; every terrain case)
    as Parquet and CSV, and one heatmap per terrain case."""
    import polars as pl

    from reports.samurai_katana import charts as RC
    from reports.samurai_katana import tables as R

    if req.attacker is not None or req.defender is not None:
        raise UserError("--table computes every army size; drop --attacker/--defender")
    if req.castle or req.mountain:
        raise UserError("--table computes every terrain case; drop --castle/--mountain")
    if req.exact:
        grid = exact_odds(deck.table, deck.counts, h)
        n = None
    else:
        on = np.ones(2, np.int64)
        grid = sample_odds(deck, h, req, (1, KC.MAX_SIZE), (0, KC.MAX_SIZE), on, on)
        n = req.n
    frame = pl.DataFrame(odds_rows(grid, n))
    method = "exact" if n is None else "monte-carlo"
    folder = RunFolder(req.out or Path("runs") / f"odds-{GAME_NAME}", req.force,
                       auto=req.out is None)
    folder.create()
    try:
        tmp = folder.path
        frame.write_parquet(tmp / "odds.parquet")
        frame.write_csv(tmp / "odds.csv")
        names = ["odds.parquet", "odds.csv"]
        for c in range(2):
            for m in range(2):
                name = f"heatmap_{R.terrain_slug(bool(c), bool(m))}.png"
                RC.odds_heatmap(tmp / name, frame, bool(c), bool(m))
                names.append(name)
        write_json(tmp / MANIFEST, {"format": 1, "tool": "simcli", "kind": "odds-table",
                                    "game": GAME_NAME, "method": method, "battles": n,
                                    "seed": req.seed, "card_policy": ODDS_POLICY})
        out = folder.commit()
    except BaseException:
        folder.abort()
        raise
    paths = [out / name for name in names]
    rows = []
    for c in range(2):
        for m in range(2):
            part = frame.filter((pl.col("castle") == bool(c)) & (pl.col("mountain") == bool(m)))
            even = part.filter(pl.col("attacker") == pl.col("defender"))
            rows.append([R.terrain_label(bool(c), bool(m)), str(part.height),
                         ", ".join(f"{r['attacker']}v{r['defender']} {_fmt_pct(r['attacker_win'])}"
                                   for r in even.iter_rows(named=True) if r["attacker"] <= 4)])
    notes = [f"Card choice: {ODDS_POLICY}."]
    if n is not None:
        hw = float((frame["attacker_win_ci_high"] - frame["attacker_win_ci_low"]).max()) / 2
        notes.append(f"{n:,} deals (seed {req.seed}), every cell scored on each deal; the "
                     f"widest 95% half-width of a win chance is {100 * hw:.2f} points.")
    notes += [f"wrote {p}" for p in paths]
    data = {"game": GAME_NAME, "method": method, "card_policy": ODDS_POLICY,
            "files": [str(p) for p in paths], "rows": frame.to_dicts()}
    return OddsResult(title=f"{GAME_NAME} odds table ({method})",
                      columns=["terrain", "cells", "attacker win, equal armies"], rows=rows,
                      notes=notes, data=data)


# --- the game ---------------------------------------------------------------------------

POLICIES = {
    "random": (
        "At each step of its activation picks uniformly among the kinds of action it can take "
        "(pass, move, play a card, and sell 2 Honor for 1 koku when out of koku), then "
        "uniformly within the kind: "
        "any affordable move of a uniform number of samurai along any link (attacks need 2 "
        "cards), any playable card on any legal target. Buys a uniform number of samurai and "
        "a castle half the time it can, placed on uniformly drawn territories; plays any "
        "legal combat choice uniformly; uses Tsunami, Scorched Earth and Shogunal Justice half "
        "the time it can; discards each card half the time in phase 4; as Emperor names the "
        "next clan at random."
    ),
    "greedy": (
        "Plays useful cards first (harvest, culture for Honor, insults on the leader, Wako on "
        "the richest, Ninja on the fullest hand, an uprising that clears a territory next to "
        "its army). Then makes the best move: a free territory next to its samurai, or an "
        f"attack with all but one samurai when the exact odds table gives at least "
        f"{GREEDY_THRESHOLD:.0%}, valued by taxes, cities, province completion, Kyoto and the "
        "Honor of the win (more against the Shogun or the leader). Keeps 3 koku for moves and "
        "buys samurai with the rest, placed where its cities are threatened or an attack is "
        "staged; builds a castle on a city or sea hub when rich. Fights with its strongest "
        "cards; cancels attacks it would likely lose with Tsunami, Scorched Earth or "
        "Shogunal Justice, and a card or attack of the Honor leader against a rival; as "
        "Emperor makes the leader play first and itself last."
    ),
}

SEARCH_TOP_K = 6  # mcts: moves considered per activation step, the best by greedy's valuation
SEARCH_MAX_ROLLOUT = 60  # mcts: rollout actions, then the position's evaluation (0: to the end)

SEARCH = SearchSpec(
    name="mcts", budget=100, exploration=0.7, rollout="greedy", study_budget=25,
    help=f"Information-set Monte Carlo tree search (SO-ISMCTS): each simulation deals the "
         f"cards the clan cannot see (rivals' hands, the deck's order, an attacker's face-down "
         f"cards) afresh, consistently with what it sees, from the search's own stream, "
         f"descends the tree by UCB1 over pass, Honor sale, each playable card on greedy's "
         f"target and the {SEARCH_TOP_K} best moves by greedy's valuation (and the strongest "
         f"and weakest combat cards, purchases, the Emperor's order, counters, castles), "
         f"plays {SEARCH_MAX_ROLLOUT} more actions by the rollout policy and scores the "
         f"position by a softmax of Honor, clan points, income and samurai (a finished game: "
         f"1 shared among the winners); plays the most visited action. Placing, returns, "
         f"taken castles and discards follow greedy.",
)

RULES = (
    RuleOption("target-honor", ("20", "25", "30", "35", "40"), "25",
               "Honor a clan must pass to end the game (20: short game; 30-40: Duration option)."),
    RuleOption("emperor", ("full", "limited"), "full",
               "full: the Emperor names each next clan as the turn goes; limited (Limited "
               "Emperor option): he fixes one order for both phases at the start of the turn."),
    RuleOption("political-deal", ("standard", "new"), "standard",
               "Extra cards by clan points: standard 1-5 CP +1, 6+ +2; new (New political "
               "deal option): 0-2 CP none, 3-5 +1, 6+ +2."),
    RuleOption("province-values", ("printed", "minus-one"), "printed",
               "minus-one (Province variant): every province is worth 1 Honor less."),
    RuleOption("province-honor", ("every-turn", "once"), "every-turn",
               "Reading: a complete province pays its owner at the end of each of his "
               "activations (every-turn), or once each time he completes it (once)."),
    RuleOption("emperor-honor", ("stays", "every-turn"), "stays",
               "Reading of '1 Honor per turn if he remains Emperor': only when the same clan "
               "is named Emperor again (stays), or every turn to whoever is named."),
    RuleOption("land-of-koku", ("off", "on"), "off",
               "In the land of koku option: on the last turn taxes become Honor, 3 koku for 1."),
    RuleOption("kyoto-uprising", ("allowed", "forbidden"), "allowed",
               "Kyoto, imperial city option: no Ikko Ikki uprising (or sect) in Kyoto."),
    RuleOption("tie-draw", ("2", "3"), "2",
               "Reading: cards a defender draws after a tie (no one wins, so 2; or 3 as a "
               "winning defender)."),
    RuleOption("shogunal-justice", ("self", "others"), "self",
               "self (printed: 'can only be played on oneself'): Shogunal Justice cancels "
               "a card or an attack aimed at its holder; others (the printed optional rule "
               "'may be played to defend another player'): one aimed at any clan."),
    RuleOption("alliance", ("within-four", "on-top"), "within-four",
               "Reading of Alliance ('All samurai pieces, with a maximum of 4, are added to "
               "your own samurai'): allied samurai from adjacent land territories count "
               "inside the 4-samurai cap with your own (within-four: with 4 of your own it "
               "adds nothing), or up to 4 of them count on top of your own (on-top)."),
)


@dataclass(frozen=True)
class Prepared:
    """Kernel inputs for one run."""

    players: int
    policies: np.ndarray
    terr: np.ndarray
    adj_start: np.ndarray
    adj: np.ndarray
    prov: np.ndarray
    majors: np.ndarray
    minors: np.ndarray
    cards: np.ndarray
    deck: np.ndarray
    pi: np.ndarray
    pf: np.ndarray
    win: np.ndarray
    data: KatanaContent | None = None  # names for the game log
    seats: tuple[str, ...] = ()  # the seats' policy names (a search seat: its options)


def kernel_map(board: Board, numbers: Numbers, minus_one: bool
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(terr, adj, prov) arrays in the kernel's layout."""
    T = len(board.ids)
    terr = np.zeros((T, K.N_TC), np.int64)
    terr[:, K.TC_PROV] = board.province
    terr[:, K.TC_MOUNT] = board.mountain
    terr[:, K.TC_CP] = board.city_cp
    terr[:, K.TC_TAX] = np.where(board.mountain, numbers.tax_mountain, numbers.tax_plain)
    for t in range(T):
        terr[t, K.TC_SEA] = board.adj_sea[board.adj_start[t]:board.adj_start[t + 1]].sum()
    adj = np.stack([board.adj_to, board.adj_sea]).astype(np.int64)
    NP = len(board.province_ids)
    prov = np.zeros((NP, K.N_PC), np.int64)
    prov[:, K.PC_HONOR] = np.maximum(board.province_honor - int(minus_one), 0)
    prov[:, K.PC_SIZE] = np.bincount(board.province, minlength=NP)
    return terr, adj, prov


class SamuraiKatana(Game):
    """Samurai & Katana (Sengoku campaign with card combat), 3-6 players."""

    name = GAME_NAME
    title = "Samurai & Katana"
    min_players = 3
    max_players = 6
    default_players = 4
    policies = POLICIES
    default_policy = "greedy"
    search = SEARCH
    rules = RULES
    default_n = 50_000
    chunk_size = 1_000
    kernel = run
    stats = TABLE
    length_column = "turns"
    options = K.OPTIONS
    fixed_readings = (
        "Cards playable at any time follow their printed timing: every other clan still in "
        "the game may answer a move, or a card aimed at a clan (the clan aimed at first, then "
        "clockwise from the active clan): Tsunami any sea move, Scorched Earth any move (both "
        "refund the move), Shogunal Justice a card or an attack aimed at its holder (the koku "
        "spent stays spent); an answer is not answered in turn.",
        "A card playable at any time needs 3 or more cards in hand.",
        "A taken castle is destroyed or replaced from the taker's reserve; only with none in "
        "reserve may the taker move one of its own castles there.",
        "A battle tie: the defender holds, no one gains Honor.",
        "An eliminated clan returns next turn with 5 samurai and its koku set to 4, on a free "
        "territory or an enemy one its free uprising can clear.",
        "The winner: most Honor, then clan points, cities, territories, castles, samurai; "
        "clans equal on all of them share the win.",
        "The Emperor: fewest Honor, then fewest clan points, cities, koku, samurai (the "
        "rulebook's order); the sitting Emperor keeps the office among equals, else the "
        "first clockwise from him. The Shogun (the rulebook names no tie-break): most "
        "Honor, then most clan points, cities, koku, samurai; the sitting Shogun keeps the "
        "office among equals, else the first clockwise from the Emperor. No Shogun while "
        "no clan has more Honor than the Emperor.",
        "The rulebook is silent on eliminated clans (none on the board until they return): "
        "one can be named Emperor (it has the fewest Honor often enough) and can be the "
        "target of Ninja or Insult, as any clan in the game.",
    )
    supports_mirror = True
    own_metric_names = ("emperor_catch_up", "attacker_win_rate", "kinai_winner",
                        "elimination_rate")
    odds_options = ("attacker", "defender", "castle", "mountain", "table", "out", "force",
                    "exact", "n",
                    "seed", "threads", "content")
    row_columns = (
        "winner", "turns", "completed",
        *(f"honor_{s}" for s in range(K.MAX_P)),
        *(f"clan_points_{s}" for s in range(K.MAX_P)),
        *(f"start_income_{s}" for s in range(K.MAX_P)),
    )

    def load_content(self, path: Path) -> Content:
        """Read and validate a map-and-deck file."""
        return parse_content(path)

    def prepare(
        self, content: Content, players: int, seats: tuple[str, ...], rules: dict[str, str]
    ) -> Prepared:
        """Kernel inputs: map and deck arrays, parameters, greedy's odds table."""
        data: KatanaContent = content.data
        board, numbers = data.board, data.numbers
        k = PLAYER_COUNTS.index(players)
        majors = np.array([t for t in range(len(board.ids))
                           if board.city_cp[t] == 2 and t != board.kyoto], np.int64)
        minors = np.array([t for t in range(len(board.ids)) if board.city_cp[t] == 1], np.int64)
        need_minor = numbers.minor_cities[k] * players
        if len(majors) < players or len(minors) < need_minor:
            raise UserError(
                f"content '{content.name}' has {len(majors)} major cities (without Kyoto) and "
                f"{len(minors)} minor ones; {players} players draw {players} and {need_minor}")
        terr, adj, prov = kernel_map(board, numbers, rules["province-values"] == "minus-one")
        pi = np.zeros(K.N_PI, np.int64)
        pi[K.PI_TARGET] = int(rules["target-honor"])
        pi[K.PI_LIMITED] = int(rules["emperor"] == "limited")
        pi[K.PI_NEW_DEAL] = int(rules["political-deal"] == "new")
        pi[K.PI_PROV_ONCE] = int(rules["province-honor"] == "once")
        pi[K.PI_EMP_EVERY] = int(rules["emperor-honor"] == "every-turn")
        pi[K.PI_LAND_KOKU] = int(rules["land-of-koku"] == "on")
        pi[K.PI_KYOTO_SAFE] = int(rules["kyoto-uprising"] == "forbidden")
        pi[K.PI_TIE_DRAW] = int(rules["tie-draw"])
        pi[K.PI_JUSTICE_OTHERS] = int(rules["shogunal-justice"] == "others")
        pi[K.PI_ALLIANCE_ON_TOP] = int(rules["alliance"] == "on-top")
        pi[K.PI_HAND] = numbers.hand
        pi[K.PI_START_KOKU] = numbers.start_koku
        pi[K.PI_SAMURAI] = numbers.samurai[k]
        pi[K.PI_CASTLES] = numbers.castles
        pi[K.PI_CASTLE_COST] = numbers.castle_cost
        pi[K.PI_KYOTO_COST] = numbers.kyoto_castle_cost
        pi[K.PI_MINORS] = numbers.minor_cities[k]
        pi[K.PI_EXTRA] = numbers.extra_samurai[k]
        pi[K.PI_RET_SAM] = numbers.return_samurai
        pi[K.PI_RET_KOKU] = numbers.return_koku
        pi[K.PI_MAX_TURNS] = MAX_TURNS
        pi[K.PI_MAX_ACTIONS] = MAX_ACTIONS
        pi[K.PI_KYOTO] = board.kyoto
        pi[K.PI_TRACE] = TRACE_GAMES
        if numbers.samurai[k] < 1 + numbers.minor_cities[k] + numbers.extra_samurai[k]:
            raise UserError(f"content '{content.name}': {numbers.samurai[k]} samurai per clan "
                            f"cannot cover the starting cities and extra samurai")
        pf = np.zeros(K.N_PF)
        pf[K.PF_THRESHOLD] = GREEDY_THRESHOLD
        codes = {"random": K.RANDOM, "greedy": K.GREEDY}
        return Prepared(
            players=players,
            policies=seat_codes(codes, seats, KSP),
            terr=terr, adj_start=board.adj_start, adj=adj, prov=prov, majors=majors,
            minors=minors, cards=np.ascontiguousarray(data.deck.table),
            deck=deck_array(data.deck), pi=pi, pf=pf, win=win_table(data), data=data,
            seats=tuple(seats),
        )

    def sizes(self, prep: Prepared) -> dict[str, int]:
        """Run-time sizes of the statistics table's dimensions."""
        return {"seat": K.MAX_P, "length": N_LEN, "margin": N_MARGIN, "income": N_INCOME,
                "territory": prep.terr.shape[0], "cluster": N_CLUSTER,
                "catch_turn": MAX_TURNS + 1, "card": prep.cards.shape[0],
                "province": prep.prov.shape[0], "trace_game": TRACE_GAMES,
                "trace_turn": TRACE_TURNS}

    def state(self, prep: Prepared, aggs: dict[str, np.ndarray], log_capacity: int = 0,
              rotation: int = 0) -> K.State:
        """A kernel state for games of this run, counting into `aggs`."""
        pi = prep.pi
        if rotation:  # a mirrored deal's sample Honor traces come from rotation 0 alone
            pi = pi.copy()
            pi[K.PI_TRACE] = 0
        return K.new_state(
            players=prep.players, policies=prep.policies, terr=prep.terr,
            adj_start=prep.adj_start, adj=prep.adj, prov=prep.prov, majors=prep.majors,
            minors=prep.minors, cards=prep.cards, deck=prep.deck, pi=pi, pf=prep.pf,
            win=prep.win, aggs=as_tuple(Aggregates, aggs), log_capacity=log_capacity,
            rotation=rotation,
        )

    def run_chunk(
        self, prep: Prepared, seed: int, first: int, count: int, aggs: dict[str, np.ndarray],
        rows: np.ndarray | None, rotation: int = 0, forbid: np.ndarray | None = None,
    ) -> None:
        """Play a chunk of games into `aggs` (players rotated by `rotation` seats; seat s
        never uses option o where forbid[s, o])."""
        if any(self.policy_spec(s).is_search for s in prep.seats):
            self.run_search_chunk(prep, seed, first, count, aggs, rows, rotation, forbid)
            return
        play(prep, seed, first, count, aggs, rows, rotation, forbid)

    def run_search_chunk(self, prep: Prepared, seed: int, first: int, count: int,
                         aggs: dict[str, np.ndarray], rows: np.ndarray | None,
                         rotation: int = 0, forbid: np.ndarray | None = None) -> int:
        """run_chunk when a seat searches (kernels/samurai_katana/search_play.py); returns
        the moves simulated by the searches."""
        st = self.state(prep, aggs, rotation=rotation)
        ban = no_forbid() if forbid is None else np.ascontiguousarray(forbid, np.bool_)
        budget, c, rollout = self.search_settings(prep, st)
        ws = KSP.new_workspace(st, ban, int(budget.max()), SEARCH_TOP_K, TABLE,
                               self.sizes(prep))
        out = rows if rows is not None else np.zeros((0, N_ROW), np.int64)
        KSP.play_chunk_search(st, ws, ban, np.uint64(seed), np.int64(first), np.int64(count),
                              out, budget, c, rollout, np.int64(SEARCH_MAX_ROLLOUT))
        return int(ws.moves[0])

    def search_settings(self, prep: Prepared, st: K.State
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per seat of `st` (after rotation; MAX_P entries): the search's budget,
        exploration, rollout."""
        return self.search_arrays(prep.seats, st.lane[:prep.players], K.MAX_P,
                                  {"greedy": K.GREEDY}, K.RANDOM)

    def handle(self, prep: Prepared, seed: int, playout: int, rotation: int = 0,
               forbid: np.ndarray | None = None) -> SamuraiKatanaHandle:
        """Playout `playout` of the run keyed by `seed`, step by step (simcli replay)."""
        if any(self.policy_spec(s).is_search for s in prep.seats):
            return SearchHandle(self, prep, seed, playout, rotation, forbid)
        return SamuraiKatanaHandle(self, prep, seed, playout, rotation, forbid)

    def odds(self, req: OddsRequest) -> OddsResult:
        """Odds of one battle, or the whole table."""
        return battle_odds(self, req)

    def core_stats(self, aggs: dict[str, np.ndarray], players: int) -> CoreStats:
        """Seat wins, shared wins (exact ties after every tie-break), completion, length in
        turns, Honor margin."""
        misc = aggs["misc"]
        shared = int(misc[Misc.SHARED])
        games = int(aggs["wins"].sum()) + shared
        return CoreStats(
            games=games, seat_wins=aggs["wins"][:players].copy(), shared=shared,
            completed=games - int(misc[Misc.CAPPED]), length=aggs["lengths"].copy(),
            length_unit="turns", margin=aggs["margin"].copy(),
        )

    def own_metrics(self, aggs: dict[str, np.ndarray], players: int) -> list[tuple[str, Any, str]]:
        """Emperor catch-up, attacker success, Kinai and eliminations."""
        from reports.samurai_katana.tables import battle_rate
        from reports.stats import rate

        games = int(aggs["wins"].sum() + aggs["misc"][Misc.SHARED])
        catch = aggs["catch_up"][CATCH_UP_TURN]
        b = aggs["battles"].sum(axis=(0, 1))
        kinai = int(aggs["misc"][Misc.KINAI_WINNER])
        return [
            ("emperor_catch_up", rate(int(catch[1]), int(catch[0])),
             f"Chance that the clan with the fewest Honor after turn {CATCH_UP_TURN} (the "
             f"Emperor named then) wins; 1/{players} would be a full catch-up."),
            ("attacker_win_rate", battle_rate(int(b[BattleStat.ATT]), int(b[BattleStat.N]),
                                              aggs["battle_sq_all"], games),
             "Share of campaign battles the attacker wins (ties go to the defender); "
             "interval clustered by game."),
            ("kinai_winner", rate(kinai, games),
             "Share of games whose winner holds Kyoto's whole province (Kinai) at the end."),
            ("elimination_rate", rate(int(aggs["misc"][Misc.GAMES_ELIM]), games),
             "Share of games in which at least one clan is eliminated."),
        ]

    def verdict_note(self, rules: dict[str, str]) -> str:
        """Under the default Province Honor reading (every-turn) the verdict depends on it:
        it decides most wins and shortens games; empty under `once`."""
        if rules.get("province-honor", "every-turn") != "every-turn":
            return ""
        return ("This verdict depends on the reading province-honor=every-turn (a complete "
                "province pays its Honor at the end of every activation of its owner), which "
                "decides most wins; under --rule province-honor=once games last longer and "
                "the verdict may differ.")

    def report(self, aggs: dict[str, np.ndarray], manifest: dict[str, Any], content: Content):
        """Tables, findings and charts for a finished run."""
        from reports import samurai_katana as R

        return R.summarize(named_stats(aggs, content.data, manifest), manifest)


def no_forbid() -> np.ndarray:
    """A forbidden-options table that forbids nothing (the fast path's)."""
    return np.zeros((K.MAX_P, len(K.OPTIONS)), np.bool_)


def play(prep: Prepared, seed: int, first: int, count: int, aggs: dict[str, np.ndarray],
         rows: np.ndarray | None = None, rotation: int = 0,
         forbid: np.ndarray | None = None) -> K.State:
    """Play games first .. first+count-1 into `aggs`; returns the kernel state, which holds
    the last game's final position."""
    st = SamuraiKatana().state(prep, aggs, rotation=rotation)
    out = rows if rows is not None else np.zeros((0, N_ROW), np.int64)
    fast_path(run, Call.PLAY, st,
              no_forbid() if forbid is None else np.ascontiguousarray(forbid, np.bool_),
              seed, first, count, out)
    return st


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


# --- one game, step by step --------------------------------------------------------------
LOG_CAPACITY = 1 << 16  # events of one game (a 4-player game logs a few thousand)
KOKU_WHY = ("taken by Wako Pirates", "taken with Wako Pirates", "harvest card",
            "cancelled move refunded", "returns with its printed koku", "2 Honor sold")
RESULTS = {1: "the attacker wins", 0: "a tie: the defender holds", -1: "the defender wins"}
SOURCES = ("combat", "province", "Kyoto", "card", "Emperor", "land of koku",
           "lost as Shogun", "lost to a card", "sold for koku")
TAKEN = ("destroys it", "replaces it with one of its own", "moves its own castle there")


class SamuraiKatanaHandle(GameHandle):
    """One Samurai & Katana game driven from Python through the compiled rules."""

    max_actions = 1 << 16

    def __init__(self, game: SamuraiKatana, prep: Prepared, seed: int, playout: int,
                 rotation: int = 0, forbid: np.ndarray | None = None) -> None:
        self.game = game
        self.prep = prep
        self.aggs = game.new_aggregates(prep)  # scratch statistics of this game
        self.st = game.state(prep, self.aggs, log_capacity=LOG_CAPACITY, rotation=rotation)
        self.log_buf = self.st.log
        self.log_n = self.st.log_n
        self.forbid = no_forbid() if forbid is None else np.asarray(forbid, np.bool_)
        self.k = KernelCalls(run, self.forbid, seed,
                             out_size=max(self.max_actions, N_ROW), fout_size=K.MAX_P)
        self._out, self._fout = self.k.out, self.k.fout
        self._k(Call.SETUP, playout)

    def _call(self, call: Call, a: int = 0, out: np.ndarray | None = None) -> int:
        return self._k(call, a, out)

    # --- hooks into the kernels ---
    def current_player(self) -> int:
        """Seat (from 0) to act; -1 when the game is over."""
        return self._call(Call.TO_MOVE)

    def _legal(self, out: np.ndarray) -> int:
        return self._call(Call.LEGAL, out=out)

    def apply(self, action: int) -> None:
        """Apply the player to act's action; an illegal one raises IllegalAction. Discards
        are checked as a mask of the hand's positions (legal_actions lists the masks of the
        first 16 positions only)."""
        if self.phase() != "discard":
            super().apply(action)
            return
        n = int(self.st.pl[self.current_player(), K.PL_HAND])
        if not 0 <= int(action) < 1 << n:
            raise IllegalAction(f"discard mask {action} is not one of the {n} cards in hand")
        self._log_decision(1 << n, int(action), option_words=(
            f"any subset of the {n} cards in hand, as a mask 0 .. {(1 << n) - 1}",))
        self._apply(int(action))

    def _apply(self, action: int) -> None:
        self._call(Call.APPLY, action)

    def _choose(self) -> int:
        return self._call(Call.CHOOSE)

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return int(self.st.phase[0]) == int(K.OVER)

    def turn(self) -> int:
        """0 during setup, then the turn number."""
        return int(self.st.gs[K.G_TURN])

    def phase(self) -> str:
        """The decision the game waits for (rules.PHASES)."""
        return K.PHASES[int(self.st.phase[0])]

    def option_of(self, action: int) -> int:
        """The option (index into rules.OPTIONS) an action of the player to act uses, or -1."""
        return self._call(Call.OPTION, action)

    def row(self) -> dict[str, int]:
        """The finished game's --save-games row."""
        row = np.zeros(N_ROW, np.int64)
        self._call(Call.ROW, out=row)
        return {c: int(v) for c, v in zip(self.game.row_columns, row, strict=True)}

    def outcome(self) -> dict[str, Any]:
        """Winners (seats from 1; several when equal after every tie-break), length in
        turns, Honor and clan points per seat."""
        self._call(Call.OUTCOME)
        P = self.prep.players
        st = self.st
        return {
            "winners": [q + 1 for q in range(P) if self._fout[q] > 0],
            "length": int(st.gs[K.G_TURN]),
            "completed": not bool(st.cx[K.CX_CAPPED]),
            "honor": [int(st.pl[q, K.PL_HONOR]) for q in range(P)],
            "clan_points": [int(st.pl[q, K.PL_CP]) for q in range(P)],
        }

    # --- words ---
    def territory(self, t: int) -> str:
        """A territory's name (and its city)."""
        b = self.prep.data.board
        city = b.city_name[t]
        return f"{b.names[t]}" + (f" ({city})" if city else "")

    def card(self, c: int) -> str:
        """A card type's name."""
        return self.prep.data.deck.names[c]

    def observation(self, player: int) -> dict[str, Any]:
        """What seat `player` (from 0) sees: the board, every clan's public figures, its own
        hand; of rivals only the size of their hands."""
        st = self.st
        P = self.prep.players
        board = {self.prep.data.board.ids[t]: {"owner": int(st.bd[K.OWNER, t]) + 1,
                                               "samurai": int(st.bd[K.SAM, t]),
                                               "castle": bool(st.bd[K.CASTLE, t])}
                 for t in range(st.bd.shape[1]) if st.bd[K.OWNER, t] >= 0}
        clans = {q + 1: {"honor": int(st.pl[q, K.PL_HONOR]), "koku": int(st.pl[q, K.PL_KOKU]),
                         "supply": int(st.pl[q, K.PL_SUPPLY]),
                         "castles_in_reserve": int(st.pl[q, K.PL_CASTLES]),
                         "hand_size": int(st.pl[q, K.PL_HAND]),
                         "eliminated": bool(st.pl[q, K.PL_OUT])} for q in range(P)}
        return {
            "seat": player + 1, "phase": self.phase(), "turn": self.turn(),
            "emperor": int(st.gs[K.G_EMP]) + 1, "shogun": int(st.gs[K.G_SHOGUN]) + 1 or None,
            "hand": [self.card(int(c)) for c in st.hand[player, :st.pl[player, K.PL_HAND]]],
            "draw_pile": int(st.gs[K.G_DECK]), "discards": int(st.gs[K.G_DISC]),
            "board": board, "clans": clans,
        }

    def _hand(self, p: int, i: int) -> str:
        return self.card(int(self.st.hand[p, i]))

    def describe_action(self, action: int) -> str:
        """An action of the player to act, in words."""
        st = self.st
        ph = int(st.phase[0])
        p = int(st.actor[0])
        if ph == int(K.PLACE):
            return f"places a samurai on {self.territory(action)}"
        if ph == int(K.RETURN):
            return f"returns to {self.territory(action)}"
        if ph == int(K.ORDER):
            return f"names seat {action + 1}"
        if ph == int(K.CASTLE_BUY):
            return "builds no castle" if action == 0 else \
                f"builds a castle on {self.territory(action - 1)}"
        if ph == int(K.BUY):
            return f"buys {action} samurai"
        if ph == int(K.JUSTICE):
            return "cancels the card with Shogunal Justice" if action else "lets the card act"
        if ph == int(K.CANCEL):
            if not action:
                return "lets the move happen"
            effects = [int(self.prep.cards[c, KC.CC_EFFECT])
                       for c in st.hand[p, :st.pl[p, K.PL_HAND]]]
            i = effects.index(int(K.cancel_effect(action)))
            return f"cancels the move with {self._hand(p, i)}"
        if ph in (int(K.ATT_CARDS), int(K.DEF_CARDS)):
            D = st.piles.shape[1]
            ij, k = divmod(action, D + 1)
            i, j = divmod(ij, D)
            special = f" + {self._hand(p, k - 1)}" if k > 0 else ""
            return f"fights with {self._hand(p, i)} and {self._hand(p, j)}{special}"
        if ph == int(K.TAKE_CASTLE):
            if action >= 2:
                return f"moves its castle from {self.territory(action - 2)}"
            return TAKEN[action]
        if ph == int(K.DISCARD):
            gone = [self._hand(p, i) for i in range(int(st.pl[p, K.PL_HAND])) if action >> i & 1]
            return "discards " + (", ".join(gone) if gone else "nothing")
        return self._describe_act(p, action)

    def _describe_act(self, p: int, action: int) -> str:
        st = self.st
        if action == K.PASS:
            return "passes (ends its activation)"
        if action == K.SELL:
            return "sells 2 Honor for 1 koku"
        W = max(st.bd.shape[1], K.MAX_P)
        mb = int(K.CARD) + st.piles.shape[1] * W
        if action < mb:
            i, x = divmod(action - int(K.CARD), W)
            eff = int(self.prep.cards[st.hand[p, i], KC.CC_EFFECT])
            on = self.territory(x) if eff == KC.E_UPRISING else f"seat {x + 1}"
            return f"plays {self._hand(p, i)} on {on}"
        e, k = divmod(action - mb, int(self.prep.pi[K.PI_SAMURAI]))
        s = int(st.link_from[e])
        n = int(st.adj[0, e])
        by = " by sea" if st.adj[1, e] else ""
        return f"moves {k + 1} samurai from {self.territory(s)} to {self.territory(n)}{by}"

    def describe_event(self, kind: int, a: int, b: int, c: int, d: int) -> tuple[str, str]:
        """(kind name, detail in words) of an event of the rules' log (rules.Ev)."""
        ev = K.Ev(kind)
        T = self.territory
        seat = lambda q: f"seat {q + 1}" if q >= 0 else "no one"  # noqa: E731
        words = {
            K.Ev.CITY: lambda: f"draws {'major' if b == 2 else 'minor'} city {T(a)}",
            K.Ev.PLACE: lambda: f"places a samurai on {T(a)} ({b} there)"
                                + (" retreating" if c == 2 else ""),
            K.Ev.DRAW: lambda: f"draws {self.card(a)} ({b} in hand)",
            K.Ev.RESHUFFLE: lambda: f"{a} discards shuffled into a new draw pile",
            K.Ev.TURN: lambda: f"turn {a}: Emperor {seat(b)}, Shogun {seat(c)}",
            K.Ev.RETURN: lambda: f"returns to {T(a)} with {b} samurai"
                                 + (f" (uprising against {seat(c)})" if c >= 0 else ""),
            K.Ev.NO_RETURN: lambda: "finds no territory to return to",
            K.Ev.CASTLE: lambda: f"builds a castle on {T(a)} for {b} koku",
            K.Ev.BUY: lambda: f"pays for {a} samurai ({b} koku left)",
            K.Ev.MOVE: lambda: f"moves {c} samurai from {T(a)} to {T(b)} ({d} koku)",
            K.Ev.CANCEL: lambda: f"cancels {seat(b)}'s move with {self.card(a)}",
            K.Ev.CARD: lambda: f"plays {self.card(a)} on "
                               + (T(b) if self.prep.cards[a, KC.CC_EFFECT] == KC.E_UPRISING
                                  else seat(b)),
            K.Ev.COUNTER: lambda: f"cancels {seat(b)}'s {self.card(a)} with Shogunal Justice",
            K.Ev.STEAL: lambda: f"takes {self.card(a)} from {seat(b)}'s hand",
            K.Ev.UPRISING: lambda: f"{T(a)} ({seat(c)}) loses {b} samurai to the uprising",
            K.Ev.BATTLE: lambda: f"attacks {T(a)} ({seat(b)}) with {c} samurai against {d}",
            K.Ev.SIDE: lambda: f"commits face down {self.card(a)} and {self.card(b)}"
                               + (f" + {self.card(c)}" if c >= 0 else "")
                               + f": {d} card points",
            K.Ev.TOTAL: lambda: f"combat points {a + b + c} = {a} from cards + {b} from "
                                f"samurai + {c} terrain; {d} sword{'s' if d != 1 else ''}",
            K.Ev.ALLIES: lambda: f"Alliance adds {a} samurai ({b} of its own in "
                                 f"land-adjacent territories, room for {c})",
            K.Ev.KOKU: lambda: f"koku {a:+d} = {b} ({KOKU_WHY[c]})"
                               + (" and its free move back" if d else ""),
            K.Ev.OUTCOME: lambda: f"battle for {T(d)}: {RESULTS[a]}; attacker loses {b}, "
                                  f"defender loses {c}",
            K.Ev.CASTLE_TAKEN: lambda: f"takes the castle on {T(a)} and "
                                       + (TAKEN[b] if b < 2 else f"moves its own from {T(c)}"),
            K.Ev.HONOR: lambda: f"Honor {a:+d} = {b} ({SOURCES[c]})",
            K.Ev.TAXES: lambda: f"collects {a} koku ({b} now)",
            K.Ev.OUT: lambda: "is eliminated (no territory left)",
            K.Ev.OFFICES: lambda: f"Emperor {seat(a)}, Shogun {seat(b)}",
            K.Ev.DISCARD: lambda: f"discards {self.card(a)}",
            K.Ev.RESULT: lambda: (f"{seat(a)} wins" if a >= 0 else "a shared win")
                                 + f" after {b} turns" + ("" if c else " (safety cap)"),
        }
        return ev.name.lower(), words[ev]()


class SearchHandle(SamuraiKatanaHandle):
    """A game with search seats (mcts) driven from Python: the search decides for them
    exactly as in the fast path (kernels/samurai_katana/search_play.py), its stream keyed
    by the number of decisions taken so far."""

    def __init__(self, game: SamuraiKatana, prep: Prepared, seed: int, playout: int,
                 rotation: int = 0, forbid: np.ndarray | None = None) -> None:
        super().__init__(game, prep, seed, playout, rotation, forbid)
        self.seed = np.uint64(seed)
        self.playout = np.int64(playout)
        self.decisions = 0
        self.search = game.search_settings(prep, self.st)
        self.ws = KSP.new_workspace(self.st, self.forbid, int(self.search[0].max()),
                                    SEARCH_TOP_K, TABLE, game.sizes(prep))
        self.root = KH.root_of(self.st, self.ws.scratch)

    def _apply(self, action: int) -> None:
        super()._apply(action)
        self.decisions += 1

    def _choose(self) -> int:
        seat = self.current_player()
        budget, c, rollout = self.search
        if seat >= 0 and budget[seat] > 0:
            return int(KSP.search_choose(self.root, self.ws, self.forbid, self.seed,
                                         self.playout, np.int64(self.decisions), budget[seat],
                                         c[seat], rollout[seat], np.int64(SEARCH_MAX_ROLLOUT)))
        return super()._choose()
