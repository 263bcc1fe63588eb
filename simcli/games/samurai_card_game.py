"""Samurai: The Card Game: content (player set, village deck), rule options, policies and
the kernel driver."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kernels import samurai_card_game as K
from simcli.errors import UserError
from simcli.games.base import (
    Content,
    CoreStats,
    Game,
    RuleOption,
    at_line,
    line_of,
    read_content,
    sha256,
)

SHAPES = ("helmet", "buddha", "rice")  # marker shapes: triangle, circle, square
SHAPE_MARKERS = ("triangle", "circle", "square")
SYMBOLS = (*SHAPES, "samurai")
ALIASES = {"triangle": "helmet", "circle": "buddha", "square": "rice"}
MAX_INFLUENCE = 15  # four bits in the kernel's card code
MAX_VILLAGES = 400
HEAT_RADIUS = 8

# Greedy's weights (see the policy text)
INFLUENCE_WEIGHT = 0.5
LEAD_CAP = 3.0
SCARCITY_WEIGHT = 1.0
DOMINATION_BONUS = 1.0
KEEP_WEIGHT = 0.05

POLICIES = {
    "random": (
        "Plays a uniformly chosen card of its hand on a uniformly chosen legal cell (an "
        "empty card cell next to a village), and puts each new village on a uniformly "
        "chosen open cell."
    ),
    "greedy": (
        "Tries every card of its hand on every legal cell and takes the play worth most: "
        "each marker it wins now counts its shape's weight (1, plus the share of that "
        "shape's supply already spent, plus 1 when one more marker would give it or take "
        "back domination of the shape, 0.5 when it would break a rival's lead of one or "
        f"keep its own lead of one); on villages not yet surrounded, {INFLUENCE_WEIGHT} "
        f"x weight x the change in its lead over the best rival (capped at {LEAD_CAP:g} "
        "points, as a share of one marker), counting the villages the play creates (the "
        "visible top village for the first, the deck's symbol frequencies for others). "
        "Ties go to the weakest card. It puts new villages where its own influence gains "
        "most, using every village it can see (the next one with see-next, all with "
        "see-all)."
    ),
}

RULES = (
    RuleOption(
        "villages", ("see-next", "see-all"), "see-next",
        "When one card opens several cells: the player places the top village seeing the "
        "next one, one at a time (see-next, as the forums read it), or sees every village "
        "to place before placing any (see-all).",
    ),
    RuleOption(
        "markers-2p", ("10", "12", "14", "16"), "10",
        "Markers of each shape with 2 players (the rulebook says 10; the content file's "
        "count applies to 3-4 players).",
    ),
    RuleOption(
        "tied-marker", ("stays", "discarded"), "stays",
        "A marker nobody wins because of a tie stays in its supply (stays, the sheet's "
        "reading) or is put out of the game, bringing the end nearer (discarded).",
    ),
    RuleOption(
        "chain", ("off", "on"), "off",
        "Whether a village placed this turn can itself open further empty cells next to the "
        "played card (on) or only villages on the table when the card was played count "
        "(off, the rulebook's wording).",
    ),
)


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


@dataclass(frozen=True)
class Prepared:
    """Kernel inputs for one run."""

    players: int
    policies: np.ndarray
    setc: np.ndarray  # card codes of one player's set (owner bits zero)
    vmasks: np.ndarray
    pi: np.ndarray
    pf: np.ndarray
    n_kinds: int


def _entry_line(text: str, section: str, key: str, index: int) -> int | None:
    """Line of entry `index` of a list in [section], found by its `key =` (one per entry)."""
    lines = text.splitlines()
    start = None
    for i, line in enumerate(lines):
        if re.match(rf"^\s*\[+\s*{re.escape(section)}(\.|\s*\])", line):
            start = i
            break
    if start is None:
        return None
    pat = re.compile(rf"\b{re.escape(key)}\s*=")
    seen = 0
    for i in range(start + 1, len(lines)):
        if re.match(r"^\s*\[[^\]\"]*\]\s*(#.*)?$", lines[i]) and not lines[i].strip().startswith(
                f"[[{section}") and not lines[i].strip().startswith(f"[{section}."):
            break
        if pat.search(lines[i]):
            if seen == index:
                return i + 1
            seen += 1
    return None


def _int(where: str, table: dict, key: str, lo: int, hi: int, what: str = "") -> int:
    value = table.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise UserError(f"{where}: {what}field '{key}' must be an integer {lo}-{hi}, "
                        f"got {value!r}")
    return value


def _symbol(where: str, value: Any, what: str, allowed: tuple[str, ...]) -> int:
    name = ALIASES.get(value, value) if isinstance(value, str) else value
    if name not in allowed:
        raise UserError(f"{where}: {what}field 'symbol' must be one of {', '.join(allowed)}, "
                        f"got {value!r}")
    return SYMBOLS.index(name)


def parse_content(path: Path) -> Content:
    """Load and validate a Samurai: The Card Game content file."""
    doc, raw, text, meta = read_content(path, "samurai-card-game")
    default_assumed = meta.get("assumed", True)
    rules = doc.get("rules", {})
    if not isinstance(rules, dict):
        raise UserError(f"{path}: [rules] must be a table")
    hand = _int(at_line(path, line_of(text, "hand =")), rules, "hand", 1, 15)
    markers = _int(at_line(path, line_of(text, "markers =")), rules, "markers", 1, 999)

    pset = doc.get("player_set", {})
    cards = pset.get("cards") if isinstance(pset, dict) else None
    if not isinstance(cards, list) or not cards:
        raise UserError(f"{path}: needs a [player_set] table with a non-empty 'cards' list")
    sym, inf, cnt, assumed = [], [], [], []
    for i, card in enumerate(cards):
        where = at_line(path, _entry_line(text, "player_set", "symbol", i))
        what = f"card entry {i + 1}: "
        if not isinstance(card, dict):
            raise UserError(f"{where}: {what}must be a table")
        unknown = set(card) - {"symbol", "influence", "count", "assumed"}
        if unknown:
            raise UserError(f"{where}: {what}unknown field '{sorted(unknown)[0]}'")
        s = _symbol(where, card.get("symbol"), what, SYMBOLS)
        v = _int(where, card, "influence", 1, MAX_INFLUENCE, what)
        n = _int(where, card, "count", 0, 99, what)
        if any(s == s2 and v == v2 for s2, v2 in zip(sym, inf, strict=True)):
            raise UserError(f"{where}: {what}{SYMBOLS[s]} {v} is listed twice")
        flag = card.get("assumed", default_assumed)
        if not isinstance(flag, bool):
            raise UserError(f"{where}: {what}field 'assumed' must be true or false")
        sym.append(s)
        inf.append(v)
        cnt.append(n)
        assumed.append(flag)
    if sum(cnt) == 0:
        raise UserError(f"{path}: the player set has no cards (every 'count' is 0)")
    remove = np.zeros(len(sym), np.int64)
    rem_list = pset.get("remove_4p", [])
    if not isinstance(rem_list, list):
        raise UserError(f"{at_line(path, line_of(text, 'remove_4p'))}: 'remove_4p' must be a "
                        f"list of {{ symbol, influence, count }}")
    for i, item in enumerate(rem_list):
        where = at_line(path, _entry_line(text, "player_set", "symbol", len(cards) + i))
        what = f"remove_4p entry {i + 1}: "
        if not isinstance(item, dict):
            raise UserError(f"{where}: {what}must be a table")
        s = _symbol(where, item.get("symbol"), what, SYMBOLS)
        v = _int(where, item, "influence", 1, MAX_INFLUENCE, what)
        n = _int(where, item, "count", 1, 99, what) if "count" in item else 1
        match = [k for k in range(len(sym)) if sym[k] == s and inf[k] == v]
        if not match:
            raise UserError(f"{where}: {what}the set has no {SYMBOLS[s]} {v} card")
        remove[match[0]] += n
        if remove[match[0]] > cnt[match[0]]:
            raise UserError(f"{where}: {what}removes {remove[match[0]]} {SYMBOLS[s]} {v} "
                            f"cards but the set has {cnt[match[0]]}")
    if sum(cnt) - remove.sum() == 0:
        raise UserError(f"{path}: with four players the set would have no cards")

    villages = doc.get("villages", {})
    deck = villages.get("deck") if isinstance(villages, dict) else None
    if not isinstance(deck, list) or not deck:
        raise UserError(f"{path}: needs a [villages] table with a non-empty 'deck' list")
    masks, labels, vcounts, vassumed = [], [], [], []
    for i, item in enumerate(deck):
        where = at_line(path, _entry_line(text, "villages", "symbols", i))
        what = f"village entry {i + 1}: "
        if not isinstance(item, dict):
            raise UserError(f"{where}: {what}must be a table")
        unknown = set(item) - {"symbols", "count", "assumed"}
        if unknown:
            raise UserError(f"{where}: {what}unknown field '{sorted(unknown)[0]}'")
        syms = item.get("symbols")
        if not isinstance(syms, list) or not syms:
            raise UserError(f"{where}: {what}field 'symbols' must be a non-empty list of "
                            f"{', '.join(SHAPES)}")
        mask = 0
        for name in syms:
            name2 = ALIASES.get(name, name) if isinstance(name, str) else name
            if name2 not in SHAPES:
                raise UserError(f"{where}: {what}field 'symbols' takes {', '.join(SHAPES)}, "
                                f"got {name!r}")
            bit = 1 << SHAPES.index(name2)
            if mask & bit:
                raise UserError(f"{where}: {what}field 'symbols' names {name2} twice")
            mask |= bit
        if mask in masks:
            raise UserError(f"{where}: {what}the same village is listed twice")
        n = _int(where, item, "count", 0, MAX_VILLAGES, what)
        flag = item.get("assumed", default_assumed)
        if not isinstance(flag, bool):
            raise UserError(f"{where}: {what}field 'assumed' must be true or false")
        masks.append(mask)
        labels.append("+".join(SHAPES[s] for s in range(3) if mask >> s & 1))
        vcounts.append(n)
        vassumed.append(flag)
    total = sum(vcounts)
    if not 1 <= total <= MAX_VILLAGES:
        raise UserError(f"{path}: the village deck must hold 1-{MAX_VILLAGES} cards, "
                        f"has {total}")
    data = CardSet(
        kind_symbol=np.array(sym, np.int64), kind_influence=np.array(inf, np.int64),
        kind_count=np.array(cnt, np.int64), kind_remove_4p=remove,
        kind_assumed=np.array(assumed, np.bool_),
        village_masks=np.repeat(np.array(masks, np.int64), vcounts),
        village_kinds=tuple(labels), village_counts=np.array(vcounts, np.int64),
        village_assumed=np.array(vassumed, np.bool_), hand=hand, markers=markers,
    )
    return Content(
        name=str(meta.get("name", path.stem)), version=str(meta.get("version", "1")),
        path=path, sha256=sha256(raw),
        assumed=bool(data.kind_assumed.any() or data.village_assumed.any()),
        description=str(meta.get("description", "")), data=data,
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


class SamuraiCardGame(Game):
    """Samurai: The Card Game (villages and influence cards), 2-4 players."""

    name = "samurai-card-game"
    title = "Samurai: The Card Game"
    min_players = 2
    max_players = 4
    default_players = 4
    policies = POLICIES
    default_policy = "greedy"
    rules = RULES
    default_n = 1_000_000
    chunk_size = 4_000  # about half a second of greedy games: Ctrl-C stays quick
    kernel = K.play_chunk
    row_columns = (
        "winner", "shared_mask", "turns", "end_mask", "villages_placed", "villages_scored",
        *(f"markers_{q}_{s}" for q in range(K.MAX_P) for s in SHAPES),
        *(f"dominated_{q}" for q in range(K.MAX_P)),
    )

    def load_content(self, path: Path) -> Content:
        """Read and validate a content file (player set and village deck)."""
        return parse_content(path)

    def prepare(
        self, content: Content, players: int, seats: tuple[str, ...], rules: dict[str, str]
    ) -> Prepared:
        """Kernel inputs: the set's card codes, the village deck, parameters."""
        cs: CardSet = content.data
        nv = len(cs.village_masks)
        pi = np.zeros(K.N_PI, np.int64)
        pi[K.PI_HAND] = cs.hand
        pi[K.PI_SUPPLY] = supply_for(cs, players, rules)
        pi[K.PI_SEE_ALL] = int(rules["villages"] == "see-all")
        pi[K.PI_TIE_DISCARD] = int(rules["tied-marker"] == "discarded")
        pi[K.PI_CHAIN] = int(rules["chain"] == "on")
        pi[K.PI_R] = nv + 3  # a village is at most one diagonal step beyond an earlier one
        pi[K.PI_HEAT_R] = HEAT_RADIUS
        pf = np.zeros(K.N_PF)
        pf[K.PF_INFL] = INFLUENCE_WEIGHT
        pf[K.PF_CAP] = LEAD_CAP
        pf[K.PF_KEEP] = KEEP_WEIGHT / (int(cs.kind_influence.max()) + 2)
        pf[K.PF_SCARCE] = SCARCITY_WEIGHT
        pf[K.PF_DOM] = DOMINATION_BONUS
        for s in range(3):
            pf[K.PF_FREQ + s] = float(((cs.village_masks >> s) & 1).mean())
        codes = {"random": K.RANDOM, "greedy": K.GREEDY}
        return Prepared(
            players=players, policies=np.array([codes[s] for s in seats], np.int64),
            setc=set_codes(cs, players), vmasks=cs.village_masks.copy(), pi=pi, pf=pf,
            n_kinds=len(cs.kind_symbol),
        )

    def new_aggregates(self, prep: Prepared) -> dict[str, np.ndarray]:
        """Zeroed statistics in the kernel's layout."""
        z = np.zeros
        h = 2 * int(prep.pi[K.PI_HEAT_R]) + 1
        return {
            "wins": z(K.MAX_P, np.int64),
            "shared": z(K.MAX_P, np.int64),
            "outcome": z(3, np.int64),
            "winby": z(K.N_WINBY, np.int64),
            "elim": z(K.MAX_P, np.int64),
            "domn": z((K.MAX_P, 4), np.int64),
            "markers": z((K.MAX_P, 3, 2), np.int64),
            "ends": z(K.N_END, np.int64),
            "lengths": z(K.N_LEN, np.int64),
            "vhist": z((2, K.N_VH), np.int64),
            "kinds": z((prep.n_kinds, K.N_KSTAT), np.int64),
            "heat": z((h, h), np.int64),
            "misc": z(K.N_MISC, np.int64),
        }

    supports_mirror = True

    def run_chunk(
        self, prep: Prepared, seed: int, first: int, count: int, aggs: dict[str, np.ndarray],
        rows: np.ndarray | None, rotation: int = 0,
    ) -> None:
        """Play a chunk of games into `aggs` (players rotated by `rotation` seats)."""
        out = rows if rows is not None else np.zeros((0, K.N_ROW), np.int64)
        K.play_chunk(
            np.uint64(seed), first, count, prep.players, prep.policies, prep.setc, prep.vmasks,
            prep.pi, prep.pf, aggs["wins"], aggs["shared"], aggs["outcome"], aggs["winby"],
            aggs["elim"], aggs["domn"], aggs["markers"], aggs["ends"], aggs["lengths"],
            aggs["vhist"], aggs["kinds"], aggs["heat"], aggs["misc"], out, rotation,
        )

    def core_stats(self, aggs: dict[str, np.ndarray], players: int) -> CoreStats:
        """Seat outright wins; shared victories and games nobody won count as shared; every
        game ends by the rules; length in turns (cards played)."""
        games = int(aggs["outcome"].sum())
        return CoreStats(
            games=games, seat_wins=aggs["wins"][:players].copy(),
            shared=int(aggs["outcome"][K.O_SHARED] + aggs["outcome"][K.O_NONE]),
            completed=games, length=aggs["lengths"].copy(), length_unit="turns",
        )

    def report(self, aggs: dict[str, np.ndarray], manifest: dict[str, Any], content: Content):
        """Tables, findings and chart data for a finished run."""
        from reports import samurai_card_game as R

        return R.summarize(named_stats(aggs, content.data, manifest["players"]), manifest)


END_REASONS = (("markers", K.E_MARKERS), ("villages", K.E_VILLAGES), ("cards", K.E_CARDS),
               ("blocked", K.E_BLOCKED))


def named_stats(aggs: dict[str, np.ndarray], cs: CardSet, players: int) -> dict[str, Any]:
    """The kernel's arrays under plain names, for reports (which know nothing of kernels)."""
    kinds = aggs["kinds"]
    misc = aggs["misc"]
    ends = aggs["ends"]
    return {
        "players": players,
        "games": int(aggs["outcome"].sum()),
        "wins": aggs["wins"][:players],
        "shared": aggs["shared"][:players],
        "outcome": {"outright": int(aggs["outcome"][K.O_OUTRIGHT]),
                    "shared": int(aggs["outcome"][K.O_SHARED]),
                    "nobody": int(aggs["outcome"][K.O_NONE])},
        "winby": {"two or three shapes dominated": int(aggs["winby"][K.W_TWO_SHAPES]),
                  "most markers in the other shapes": int(aggs["winby"][K.W_OTHER_SHAPES]),
                  "tie broken by the dominated shape": int(aggs["winby"][K.W_TIEBREAK]),
                  "shared victory": int(aggs["winby"][K.W_SHARED]),
                  "nobody dominates a shape": int(aggs["winby"][K.W_NONE])},
        "eliminated": aggs["elim"][:players],
        "dominated": aggs["domn"][:players],
        "shapes": list(SHAPES),
        "shape_markers": list(SHAPE_MARKERS),
        "markers_sum": aggs["markers"][:players, :, 0],
        "markers_sq": aggs["markers"][:players, :, 1],
        "ends": {name: int(sum(ends[m] for m in range(K.N_END) if m & bit))
                 for name, bit in END_REASONS},
        "end_combos": {"+".join(n for n, b in END_REASONS if m & b): int(ends[m])
                       for m in range(1, K.N_END) if ends[m]},
        "length": aggs["lengths"],
        "villages_placed": aggs["vhist"][0],
        "villages_scored": aggs["vhist"][1],
        "kinds": {
            "card": cs.kind_names(),
            "symbol": [SYMBOLS[s] for s in cs.kind_symbol],
            "influence": cs.kind_influence,
            "assumed": cs.kind_assumed,
            "played": kinds[:, K.K_PLAYED],
            "contests": kinds[:, K.K_CONTESTS],
            "contests_won": kinds[:, K.K_WON],
            "touched": kinds[:, K.K_TOUCHED],
            "touched_markers": kinds[:, K.K_TOUCH_MARKERS],
            "touched_won": kinds[:, K.K_TOUCH_WON],
            "plays_by_winner": kinds[:, K.K_PLAY_WON],
        },
        "heat": aggs["heat"],
        "misc": {
            "contests": int(misc[K.M_CONTESTS]),
            "tied_contests": int(misc[K.M_TIES]),
            "substitute_markers": int(misc[K.M_SUBST]),
            "games_with_substitutes": int(misc[K.M_SUBST_GAMES]),
            "tied_markers_discarded": int(misc[K.M_DISCARDED]),
            "turns_opening_1": int(misc[K.M_OPEN1]),
            "turns_opening_2": int(misc[K.M_OPEN1 + 1]),
            "turns_opening_3": int(misc[K.M_OPEN1 + 2]),
            "villages_chained": int(misc[K.M_CHAINED]),
            "openings_unfilled": int(misc[K.M_UNFILLED]),
            "scored_outside_heatmap": int(misc[K.M_HEAT_OUT]),
            "turns": int(misc[K.M_TURNS]),
            "villages_scored": int(misc[K.M_SCORED]),
            "villages_placed": int(misc[K.M_PLACED]),
        },
    }
