"""Samurai: The Card Game: content (player set, village deck), rule options, policies and
the kernel driver."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import numpy as np

from kernels import stat_table
from kernels.samurai_card_game import play as kplay
from kernels.samurai_card_game import players as kplayers
from kernels.samurai_card_game import rules as krules
from kernels.samurai_card_game import stats as kstats
from kernels.samurai_card_game.play import Call
from kernels.samurai_card_game.stats import (
    N_END,
    Cross,
    End,
    KindStat,
    Misc,
    Outcome,
    Placed,
    WinBy,
)
from simcli.content import read_document
from simcli.games.base import (
    Content,
    CoreStats,
    Game,
    RuleOption,
    SearchSpec,
    sha256,
)
from simcli.games.handle import GameHandle, KernelCalls, fast_path
from simcli.lazy import LazyModule

ksearch_hooks = LazyModule("kernels.samurai_card_game.search_hooks")
ksearch = LazyModule("kernels.samurai_card_game.search_play")

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

SEARCH_TOP_K = 8  # mcts: card plays considered per decision, the best by greedy's value
SEARCH_MAX_ROLLOUT = 0  # mcts: rollout actions, then the evaluation (0: to the end)

SEARCH = SearchSpec(
    name="mcts", budget=400, exploration=0.7, rollout="greedy", study_budget=50,
    help="Information-set Monte Carlo tree search (single observer): every simulation "
         "deals the cards the searcher cannot see afresh (each rival's unplayed cards "
         "between its hand and pile, the searcher's own pile, the village deck below the "
         "visible cards), consistently with what it sees, then descends the tree by UCB1 "
         f"over the {SEARCH_TOP_K} best card plays by greedy's value (every village "
         "placement), and plays the game out by the rollout policy (1 a win, a shared "
         "victory split, nobody winning 1 / players each); plays the most visited action.",
)

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

FIXED_READINGS = (
    "The game ends after the turn in which a marker supply empties (a tied marker "
    "discarded counts), the last village card is placed or the last card is played: the "
    "turn is completed (scorings, the draw) and no further turn is played.",
    "A player holding cards with no legal cell left ends the game (blocked; the rulebook "
    "is silent, the case is rare).",
    "A player without cards is skipped; seat 1 starts.",
    "Games nobody wins (nobody dominates a shape) are counted apart from shared victories "
    "(a tie that remains after the tie-break): no_winner_rate beside shared_rate.",
    "A tie for a symbol, 0-0 included, pays nobody; an empty supply still pays "
    "(substitute markers).",
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
    policies: np.ndarray  # (players,) int64: players.RANDOM, GREEDY or search_play.MCTS
    setc: np.ndarray  # card codes of one player's set (owner bits zero)
    vmasks: np.ndarray  # the village deck in content order
    hand: int
    supply: int  # markers of each shape
    see_all: bool
    tie_discard: bool
    chain: bool
    radius: int  # of the board array
    heat_radius: int
    weights: np.ndarray  # the greedy player's weights (players.PF_*)
    n_kinds: int
    seats: tuple[str, ...] = ()  # the policy name of each player (mcts with its options)


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


CODES = {"random": kplayers.RANDOM, "greedy": kplayers.GREEDY}
LOG_CAPACITY = 4096  # events of one game (a 4-player game writes about 300)


def new_state(prep: Prepared, aggs: dict[str, np.ndarray], rotation: int = 0,
              log_capacity: int = 0, room: int = 0) -> krules.State:
    """The kernel state for games of a prepared run, adding to `aggs`."""
    return krules.new_state(
        players=prep.players, setc=prep.setc, vmasks=prep.vmasks, hand_size=prep.hand,
        supply=prep.supply, see_all=prep.see_all, tie_discard=prep.tie_discard,
        chain=prep.chain, radius=prep.radius, heat_radius=prep.heat_radius,
        policies=prep.policies, weights=prep.weights,
        aggs=stat_table.as_tuple(kstats.Aggs, aggs), rotation=rotation,
        log_capacity=log_capacity, room=room)


def no_forbidden() -> np.ndarray:
    """A forbidden set that forbids nothing (every seat, every option)."""
    return np.zeros((kstats.MAX_P, len(krules.OPTIONS)), np.bool_)


class SamuraiCardGame(Game):
    """Samurai: The Card Game (villages and influence cards), 2-4 players."""

    name = "samurai-card-game"
    title = "Samurai: The Card Game"
    min_players = 2
    max_players = 4
    default_players = 4
    policies = POLICIES
    default_policy = "greedy"
    search = SEARCH
    rules = RULES
    fixed_readings = FIXED_READINGS
    options = krules.OPTIONS  # playing a card of each symbol (the forbid columns)
    value_n = 10_000  # playouts per run of `simcli value` (21 runs at 4 players: ~60 s on 2 cores)
    default_n = 1_000_000
    chunk_size = 4_000  # about half a second of greedy games: Ctrl-C stays quick
    kernel = kplay.run
    stats = kstats.TABLE
    row_columns = (
        "winner", "shared_mask", "turns", "end_mask", "villages_placed", "villages_scored",
        *(f"markers_{q}_{s}" for q in range(kstats.MAX_P) for s in SHAPES),
        *(f"dominated_{q}" for q in range(kstats.MAX_P)),
    )
    length_column = "turns"

    def load_content(self, path: Path) -> Content:
        """Read and validate a content file (player set and village deck)."""
        return parse_content(path)

    def prepare(
        self, content: Content, players: int, seats: tuple[str, ...], rules: dict[str, str]
    ) -> Prepared:
        """Kernel inputs: the set's card codes, the village deck, rule options, weights."""
        cs: CardSet = content.data
        nv = len(cs.village_masks)
        weights = np.zeros(kplayers.N_PF)
        weights[kplayers.PF_INFL] = INFLUENCE_WEIGHT
        weights[kplayers.PF_CAP] = LEAD_CAP
        weights[kplayers.PF_KEEP] = KEEP_WEIGHT / (int(cs.kind_influence.max()) + 2)
        weights[kplayers.PF_SCARCE] = SCARCITY_WEIGHT
        weights[kplayers.PF_DOM] = DOMINATION_BONUS
        for s in range(3):
            weights[kplayers.PF_FREQ + s] = float(((cs.village_masks >> s) & 1).mean())
        return Prepared(
            players=players, policies=np.array([self.policy_code(s) for s in seats],
                                                np.int64),
            setc=set_codes(cs, players), vmasks=cs.village_masks.copy(), hand=cs.hand,
            supply=supply_for(cs, players, rules), see_all=rules["villages"] == "see-all",
            tie_discard=rules["tied-marker"] == "discarded", chain=rules["chain"] == "on",
            # a village is at most one diagonal step beyond an earlier one
            radius=nv + 3, heat_radius=HEAT_RADIUS, weights=weights,
            n_kinds=len(cs.kind_symbol), seats=tuple(seats),
        )

    def policy_code(self, policy: str) -> int:
        """The kernel's code of a seat's policy (search_play.MCTS for the search)."""
        if policy in CODES:
            return CODES[policy]
        self.policy_spec(policy)  # refuses an unknown name
        return ksearch.MCTS

    def sizes(self, prep: Prepared) -> dict[str, int]:
        """Run-time sizes of the statistics table's dimensions."""
        return kstats.sizes(prep.n_kinds, prep.heat_radius)

    supports_mirror = True

    def run_chunk(
        self, prep: Prepared, seed: int, first: int, count: int, aggs: dict[str, np.ndarray],
        rows: np.ndarray | None, rotation: int = 0, forbid: np.ndarray | None = None,
    ) -> None:
        """Play a chunk of games into `aggs` (players rotated by `rotation` seats);
        forbid[s, o] denies seat s playing cards of option o (rules.OPTIONS)."""
        out = rows if rows is not None else np.zeros((0, kplay.N_ROW), np.int64)
        ban = no_forbidden()
        if forbid is not None:
            ban[:forbid.shape[0], :forbid.shape[1]] = forbid
        if any(self.policy_spec(s).is_search for s in prep.seats):
            self.run_search_chunk(prep, seed, first, count, aggs, out, rotation, ban)
            return
        fast_path(kplay.run, Call.PLAY, new_state(prep, aggs, rotation), ban, seed, first,
                  count, out)

    def run_search_chunk(self, prep: Prepared, seed: int, first: int, count: int,
                         aggs: dict[str, np.ndarray], out: np.ndarray, rotation: int,
                         forbid: np.ndarray) -> int:
        """run_chunk when a seat searches (kernels/samurai_card_game/search_play.py);
        returns the moves simulated by the searches."""
        ban = no_forbidden()
        ban[:forbid.shape[0], :forbid.shape[1]] = forbid
        st = new_state(prep, aggs, rotation)
        budget, c, rollout = self.search_settings(prep, st)
        ws = ksearch.new_workspace(st, ban, int(budget.max()), SEARCH_TOP_K, kstats.TABLE,
                                   self.sizes(prep))
        ksearch.play_chunk_search(st, ws, ban, np.uint64(seed), np.int64(first),
                                  np.int64(count), out, budget, c, rollout,
                                  np.int64(SEARCH_MAX_ROLLOUT))
        return int(ws.moves[0])

    def search_settings(self, prep: Prepared, st: krules.State
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per seat of `st` (after rotation, MAX_P entries): the search's budget,
        exploration, rollout."""
        return self.search_arrays(prep.seats, st.seat["lane"][:prep.players], kstats.MAX_P,
                                  CODES, kplayers.RANDOM)

    def handle(self, prep: Prepared, seed: int, playout: int,
               rotation: int = 0) -> SamuraiCardHandle:
        """Playout `playout` of the run keyed by `seed`, at its start, step by step."""
        return SamuraiCardHandle(self, prep, seed, playout, rotation)

    def core_stats(self, aggs: dict[str, np.ndarray], players: int) -> CoreStats:
        """Seat outright wins; shared victories (a tie that remains) apart from games
        nobody won (nobody dominates a shape: no_winner); every game ends by the rules;
        length in turns (cards played)."""
        games = int(aggs["outcome"].sum())
        return CoreStats(
            games=games, seat_wins=aggs["wins"][:players].copy(),
            shared=int(aggs["outcome"][Outcome.SHARED]),
            no_winner=int(aggs["outcome"][Outcome.NONE]),
            completed=games, length=aggs["lengths"].copy(), length_unit="turns",
        )

    def remove_option(self, content: Content, option: int) -> Content | None:
        """The content without every card of the option's symbol (helmet, buddha, rice or
        samurai cards), for `simcli value`; None when that would leave no card or the
        option is not a card kind."""
        cs: CardSet = content.data
        if not 0 <= option < len(krules.OPTIONS):
            return None
        keep = cs.kind_symbol != option
        counts = np.where(keep, cs.kind_count, 0)
        removed = np.where(keep, cs.kind_remove_4p, 0)
        if counts.sum() == 0 or (counts - removed).sum() == 0:
            return None
        data = replace(cs, kind_count=counts, kind_remove_4p=removed)
        return replace(content, name=f"{content.name} without {krules.OPTIONS[option]}s",
                       data=data)

    own_metric_names = ("end.markers", "end.villages", "end.cards", "tied_contest_rate",
                        "samurai.contest_win_share", "symbol.contest_win_share")

    def own_metrics(self, aggs: dict[str, np.ndarray], players: int) -> list[tuple[str, Any, str]]:
        """End reasons (per game) and the rates counted per contest within games, with
        intervals clustered by game (reports.stats.ratio_rate)."""
        from reports.stats import rate, ratio_rate

        games = int(aggs["outcome"].sum())
        ends = aggs["ends"]
        misc, msq = aggs["misc"], aggs["misc_sq"]
        gsq = aggs["group_sq"]
        out = [(f"end.{name}", rate(int(ends[[m for m in range(N_END) if m & bit]].sum()),
                                    games),
                f"Share of games in which {words} when the game ended (several can hold).")
               for (name, bit), words in zip(END_REASONS[:3], (
                   "a marker supply was empty", "the last village card was placed",
                   "every card was played"), strict=True)]
        out.append(("tied_contest_rate", ratio_rate(
            float(misc[Misc.TIES]), float(misc[Misc.CONTESTS]), *map(float, msq[0, :3]), games),
            "Share of symbol scorings tied (the marker to nobody); clustered by game."))
        for g, name in ((kstats.CardGroup.SAMURAI, "samurai"), (kstats.CardGroup.SYMBOL,
                                                                 "symbol")):
            sq = gsq[g, kstats.KindRatio.CONTEST_WON]
            out.append((f"{name}.contest_win_share", ratio_rate(
                float(sq[Cross.Y]), float(sq[Cross.X]), float(sq[Cross.YY]),
                float(sq[Cross.XX]), float(sq[Cross.XY]), games),
                f"Share of the scorings a {name} card counted in whose marker its owner took "
                f"(clustered by game)."))
        return out

    def report(self, aggs: dict[str, np.ndarray], manifest: dict[str, Any], content: Content):
        """Tables, findings and chart data for a finished run."""
        from reports import samurai_card_game as R

        return R.summarize(named_stats(aggs, content.data, manifest["players"]), manifest)


END_REASONS = (("markers", End.MARKERS), ("villages", End.VILLAGES), ("cards", End.CARDS),
               ("blocked", End.BLOCKED))
OUTCOME_NAMES = {Outcome.OUTRIGHT: "outright", Outcome.SHARED: "shared",
                 Outcome.NONE: "no winner"}
WINBY_NAMES = {WinBy.TWO_SHAPES: "two or three shapes dominated",
               WinBy.OTHER_SHAPES: "most markers in the other shapes",
               WinBy.TIEBREAK: "tie broken by the dominated shape",
               WinBy.SHARED: "shared victory",
               WinBy.NONE: "nobody dominates a shape"}
KIND_NAMES = {KindStat.PLAYED: "played", KindStat.CONTESTS: "contests",
              KindStat.WON: "contests_won", KindStat.TOUCHED: "touched",
              KindStat.TOUCH_MARKERS: "touched_markers", KindStat.TOUCH_WON: "touched_won",
              KindStat.PLAY_WON: "plays_by_winner"}
MISC_NAMES = {Misc.CONTESTS: "contests", Misc.TIES: "tied_contests",
              Misc.SUBST: "substitute_markers", Misc.SUBST_GAMES: "games_with_substitutes",
              Misc.DISCARDED: "tied_markers_discarded", Misc.OPEN1: "turns_opening_1",
              Misc.OPEN2: "turns_opening_2", Misc.OPEN3: "turns_opening_3",
              Misc.CHAINED: "villages_chained", Misc.UNFILLED: "openings_unfilled",
              Misc.HEAT_OUT: "scored_outside_heatmap", Misc.TURNS: "turns",
              Misc.SCORED: "villages_scored", Misc.PLACED: "villages_placed"}


def named_stats(aggs: dict[str, np.ndarray], cs: CardSet, players: int) -> dict[str, Any]:
    """The statistics under plain names, for reports (which know nothing of kernels)."""
    table = {s.name: s for s in kstats.TABLE}
    kinds = stat_table.columns(table["kinds"], aggs["kinds"])
    misc = aggs["misc"]
    ends = aggs["ends"]
    vhist = stat_table.columns(table["vhist"], aggs["vhist"], axis=0)
    return {
        "players": players,
        "games": int(aggs["outcome"].sum()),
        "wins": aggs["wins"][:players],
        "shared": aggs["shared"][:players],
        "outcome": {OUTCOME_NAMES[o]: int(aggs["outcome"][o]) for o in Outcome},
        "winby": {WINBY_NAMES[w]: int(aggs["winby"][w]) for w in WinBy},
        "eliminated": aggs["elim"][:players],
        "dominated": aggs["domn"][:players],
        "shapes": list(SHAPES),
        "shape_markers": list(SHAPE_MARKERS),
        "markers_sum": aggs["markers"][:players, :, 0],
        "markers_sq": aggs["markers"][:players, :, 1],
        "ends": {name: int(sum(ends[m] for m in range(N_END) if m & bit))
                 for name, bit in END_REASONS},
        "end_combos": {"+".join(n for n, b in END_REASONS if m & b): int(ends[m])
                       for m in range(1, N_END) if ends[m]},
        "length": aggs["lengths"],
        "villages_placed": vhist[Placed.PLACED.name.lower()],
        "villages_scored": vhist[Placed.SCORED.name.lower()],
        "kinds": {
            "card": cs.kind_names(),
            "symbol": [SYMBOLS[s] for s in cs.kind_symbol],
            "influence": cs.kind_influence,
            "assumed": cs.kind_assumed,
            **{KIND_NAMES[k]: kinds[k.name.lower()] for k in KindStat},
        },
        "heat": aggs["heat"],
        "misc": {MISC_NAMES[m]: int(misc[m]) for m in MISC_NAMES},
        # per-game sums (y^2, x^2, x*y) of the rates counted within games (stats.Cross):
        # kind_sq[kind, KindRatio], group_sq[CardGroup, KindRatio], misc_sq[MiscRatio]
        "kind_sq": aggs["kind_sq"], "group_sq": aggs["group_sq"], "misc_sq": aggs["misc_sq"],
    }


# --- one game, step by step ---------------------------------------------------------------

def card_name(code: int) -> str:
    """'rice 3', 'samurai 1' ... for a card code."""
    return f"{SYMBOLS[(code >> 2) & 3]} {(code >> 4) & 15}"


def village_name(mask: int) -> str:
    """'helmet+rice' ... for a village card's symbol mask."""
    return "+".join(SHAPES[s] for s in range(3) if mask >> s & 1)


class SamuraiCardHandle(GameHandle):
    """One game of Samurai: The Card Game, driven step by step through its kernels."""

    def __init__(self, game: SamuraiCardGame, prep: Prepared, seed: int, playout: int,
                 rotation: int = 0, log_capacity: int = LOG_CAPACITY, room: int = 0) -> None:
        """Playout `playout` of the run keyed by `seed`, after setup; `room` adds rows for
        villages put on the board by hand (tests)."""
        self.prep = prep
        self.aggs = game.new_aggregates(prep)
        self.st = new_state(prep, self.aggs, rotation, log_capacity, room)
        self.log_buf = self.st.log
        self.log_n = self.st.log_n
        self.forbid = no_forbidden()
        self.row_columns = game.row_columns
        self.max_actions = max(1024, (prep.hand + 1) * len(self.st.front) + 16)
        self.width = 2 * prep.radius + 1
        self.seed = np.uint64(seed)
        self.playout = np.int64(playout)
        self.search = game.search_settings(prep, self.st) if prep.seats else None
        self.ws = (ksearch.new_workspace(self.st, self.forbid, int(self.search[0].max()),
                                         SEARCH_TOP_K, kstats.TABLE, game.sizes(prep))
                   if self.search is not None and self.search[0].max() > 0 else None)
        self.k = KernelCalls(kplay.run, self.forbid, seed, out_size=kplay.N_ROW)
        self._k(Call.SETUP, playout)

    # --- hooks ---
    def current_player(self) -> int:
        """Seat (from 0) to act; -1 once the game is over."""
        c = self.st.cnt[0]
        return -1 if c["over"] else int(c["cur"])

    def _legal(self, out: np.ndarray) -> int:
        return self._k(Call.LEGAL, out=out)

    def _apply(self, action: int) -> None:
        self._k(Call.APPLY, action)

    def _choose(self) -> int:
        seat = self.current_player()
        if self.ws is not None and seat >= 0 and self.search[0][seat] > 0:
            budget, c, rollout = self.search
            # the forbidden set as the search's scratch holds it (forbid_option edits both)
            root = ksearch_hooks.root_of(self.st, self.ws.scratch)
            return int(ksearch.search_choose(root, self.ws, self.forbid, self.seed,
                                             self.playout, budget[seat], c[seat],
                                             rollout[seat], np.int64(SEARCH_MAX_ROLLOUT)))
        return self._k(Call.CHOOSE)

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return bool(self.st.cnt[0]["over"])

    def turn(self) -> int:
        """The turn being played (cards played so far + 1), or the last once over."""
        c = self.st.cnt[0]
        return int(c["turns"]) + (0 if c["over"] else 1)

    def row(self) -> dict[str, int]:
        """The finished game's --save-games row."""
        self._k(Call.ROW)
        row = self.k.out[:kplay.N_ROW]
        return {c: int(v) for c, v in zip(self.row_columns, row, strict=True)}

    def outcome(self) -> dict[str, Any]:
        """Winners (seats from 1), how the game was decided, its length and the markers."""
        st, n = self.st, self.prep.players
        c = self.counters()
        self._k(Call.OUTCOME)
        won = self.k.fout[:kstats.MAX_P]
        return {
            "winners": [s + 1 for s in range(n) if won[s]],
            "outcome": OUTCOME_NAMES[Outcome(c["result"])],
            "decided_by": WINBY_NAMES[WinBy(c["winby"])] if c["over"] else None,
            "turns": c["turns"],
            "end": [name for name, bit in END_REASONS if c["end"] & bit],
            "markers": self._markers(),
            "dominates": {s: (int(st.dom[i]) + 1 if st.dom[i] >= 0 else None)
                          for i, s in enumerate(SHAPES)} if c["over"] else None,
        }

    def observation(self, player: int) -> dict[str, Any]:
        """What seat `player` (from 0) sees: its own hand, the board, the legal cells, the
        cards left in every hand and draw pile, markers taken and left, the visible village
        cards (more of them for the seat placing villages) and the cells open now."""
        st, n = self.st, self.prep.players
        c = self.counters()
        cards, villages = [], []
        for i in range(c["nfill"]):
            cell = int(st.filled[i])
            h = int(st.grid[cell])
            x, y = self.xy(cell)
            if (x + y) % 2:
                cards.append({"at": (x, y), "seat": ((h - 1) & 3) + 1, "card": card_name(h - 1)})
            else:
                v = st.vill[h - 1]
                villages.append({"at": (x, y), "symbols": village_name(int(v["mask"])),
                                 "scored": bool(v["scored"])})
        left = len(st.vdeck) - c["vtop"]
        shown = (self._k(Call.VISIBLE) if player == self.current_player()
                 else min(1, left))
        placing = c["phase"] == krules.PLACE and not c["over"]
        return {
            "seat": player + 1,
            "hand": [card_name(int(code)) for code in
                     st.hands[player, :st.seat[player]["hand_n"]]],
            "cards_in_hand": [int(v) for v in st.seat["hand_n"][:n]],
            "cards_in_deck": [int(v) for v in st.seat["deck_n"][:n]],
            "cards": cards, "villages": villages,
            "legal_cells": sorted(self.xy(int(x)) for x in st.front[:c["nf"]]),
            "open_cells": [self.xy(int(x)) for x in st.opens[:c["n_open"]]] if placing else [],
            "visible_villages": [village_name(int(st.vdeck[c["vtop"] + j]))
                                 for j in range(shown)],
            "village_cards_left": left,
            "markers": self._markers(),
            "supply": {s: int(st.rem[i]) for i, s in enumerate(SHAPES)},
        }

    def describe_action(self, action: int) -> str:
        """'plays rice 3 at (1, 0)', 'puts the helmet+rice village at (1, 1)' ..."""
        st = self.st
        c = self.counters()
        c1 = action & krules.CELL_MASK
        if c["phase"] == krules.PLAY:
            hi = action >> krules.CELL_BITS
            return f"plays {card_name(int(st.hands[c['cur'], hi]))} at {self.xy(c1)}"
        c2 = ((action >> krules.CELL_BITS) & krules.CELL_MASK) - 1
        vtop = c["vtop"]
        said = f"puts the {village_name(int(st.vdeck[vtop]))} village at {self.xy(c1)}"
        if c2 >= 0:
            said += f" and the {village_name(int(st.vdeck[vtop + 1]))} one at {self.xy(c2)}"
        return said

    def describe_event(self, kind: int, a: int, b: int, c: int, d: int) -> tuple[str, str]:
        """A logged event in words (see the EV_* kinds in kernels/samurai_card_game/rules.py)."""
        seat = f"seat {b + 1}"
        words = {
            krules.EV_DEAL: ("deal", lambda: f"is dealt {card_name(a)}"),
            krules.EV_DECK: ("setup", lambda: f"the village deck is shuffled ({a} cards)"),
            krules.EV_VILLAGE: ("village", lambda: f"the {village_name(b)} village is put at "
                               f"{self.xy(a)} ({c} village cards left)"),
            krules.EV_TOP: ("chance", lambda: f"the next village card turned up: "
                           f"{village_name(a)} ({b} left)"),
            krules.EV_OPEN: ("opens", lambda: f"{self.xy(a)} opens for a village"
                            + (" (by a village placed this turn)" if b else "")),
            krules.EV_UNFILLED: ("unfilled", lambda: f"{self.xy(a)} stays empty: no village "
                                "card left"),
            krules.EV_SCORE: ("scoring", lambda: f"the {village_name(b)} village at "
                             f"{self.xy(a)} is surrounded"),
            krules.EV_AWARD: ("marker", lambda: f"{SHAPES[a]} ({SHAPE_MARKERS[a]}) marker to "
                             f"{seat} with influence {c}; {d} left in the supply"),
            krules.EV_TIE: ("tie", lambda: f"{SHAPES[a]} tied at influence {b}: no marker"
                           + ("; the marker is discarded" if c else "")
                           + f"; {d} left in the supply"),
            krules.EV_DRAW: ("chance", lambda: f"draws {card_name(a)} ({b} left in its deck)"),
            krules.EV_SKIP: ("skip", lambda: "has no card left: skipped"),
            krules.EV_END: ("end", lambda: "the game ends: " + ", ".join(
                n for n, bit in END_REASONS if a & bit)),
            krules.EV_DOMINATE: ("dominance", lambda: f"{SHAPES[a]}: {seat} dominates with {c}"
                                if b >= 0 else f"{SHAPES[a]}: nobody dominates (tie)"),
            krules.EV_RESULT: ("result", lambda: self._result_words(a, b, c, d)),
            krules.EV_SET: ("set", lambda: f"its set holds {card_name(a)}"),
            krules.EV_ORDER: ("village deck", lambda: f"village card {b} of the shuffled "
                             f"deck: {village_name(a)}"),
        }
        if kind not in words:
            return "event", f"kind {kind}: {a} {b} {c} {d}"
        name, say = words[kind]
        return name, say()

    # --- helpers ---
    def counters(self) -> dict[str, int]:
        """The game's counters (rules.CNT) by name."""
        c = self.st.cnt[0]
        return {name: int(c[name]) for name in krules.CNT.names}

    def _markers(self) -> dict[str, dict[str, int]]:
        return {f"seat {q + 1}": {s: int(self.st.taken[q, i]) for i, s in enumerate(SHAPES)}
                for q in range(self.prep.players)}

    def xy(self, cell: int) -> tuple[int, int]:
        """(x, y) of a board cell, the first village at (0, 0)."""
        r = self.prep.radius
        return int(cell % self.width - r), int(cell // self.width - r)

    def cell(self, x: int, y: int) -> int:
        """The board cell at (x, y)."""
        r = self.prep.radius
        return (y + r) * self.width + (x + r)

    @staticmethod
    def _result_words(a: int, b: int, c: int, d: int) -> str:
        if a == Outcome.OUTRIGHT:
            return f"seat {b + 1} wins ({WINBY_NAMES[WinBy(d)]})"
        if a == Outcome.SHARED:
            seats = ", ".join(str(q + 1) for q in range(kstats.MAX_P) if c >> q & 1)
            return f"shared victory of seats {seats}"
        return "no winner: nobody dominates a shape"
