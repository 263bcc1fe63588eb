"""Sixteen Samurai: roster content, rule options, policies and the kernel driver."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import msgspec
import numpy as np

from kernels.dice import MAX_DICE, UMA
from kernels.sixteen_samurai import rules as KR
from kernels.sixteen_samurai.play import (
    N_ROW,
    ROW_COLUMNS,
    Call,
    run,
)
from kernels.sixteen_samurai.players import POLICY_CODES
from kernels.sixteen_samurai.stats import (
    N_DECL,
    N_LEN,
    TABLE,
    Ability,
    Aggregates,
    Battle,
    CardStat,
    Clustered,
    Misc,
)
from kernels.stat_table import as_tuple, columns
from simcli.content import Document
from simcli.dice_odds import tables as odds_tables
from simcli.errors import UserError
from simcli.games.base import (
    Content,
    CoreStats,
    Game,
    OddsRequest,
    OddsResult,
    RuleOption,
    SearchSpec,
    read_toml,
    sha256,
)
from simcli.games.handle import GameHandle, KernelCalls, fast_path
from simcli.lazy import LazyModule, seat_codes

SH = LazyModule("kernels.sixteen_samurai.search_hooks")
SP = LazyModule("kernels.sixteen_samurai.search_play")

ABILITIES = tuple(a.name.lower() for a in Ability)  # ("power", "speed", "armor", "karma")
BATTLE_CARDS = tuple(b.name.title() for b in Battle)  # ("Ninjutsu", "Uma", ... "Medicine")
# `simcli value` options (the forbid columns, rules.OPTIONS in that order): playing each
# battle card, then declaring each ability
OPTION_NAMES = BATTLE_CARDS + tuple(a.title() for a in ABILITIES)
MAX_COPIES = 10  # [battle]: copies of one battle card a clan may hold
GREEDY_MARGIN = 0.10
MAX_ROUNDS = 1000
VALUE_N = 20_000  # playouts per run of `simcli value` (42 runs at 4 players: 1 + 9 x 4 + 5)

POLICIES = {
    "random": (
        "Uniform over legal choices: drafts any available samurai, declares any ability, "
        "fields any samurai in hand, and at every chance picks uniformly among passing and "
        "each playable battle card (Bushido: each rerollable target)."
    ),
    "greedy": (
        "Drafts the highest-total samurai left (ties: highest single rating); declares the "
        "ability of its best samurai in hand; fields the samurai with most dice in the "
        "declared ability (ties: lowest total, keeping all-rounders). Before rolling it plays "
        "Uma (fielding its weakest samurai) or Ninjutsu when the exact odds table says the "
        f"card raises its chance of winning the round by more than {GREEDY_MARGIN:.2f} against "
        "the best each rival could still field (any gain once its draw pile holds no "
        "samurai). After rolling: Ronin when losing, Bushido on itself or the leader when an "
        f"exact reroll calculation gains more than {GREEDY_MARGIN:.2f}, Medicine when losing."
    ),
}

# mcts: draft picks considered per player count, the strongest left (0: every pick). Every
# pick scored measured better at 2 players (59.9% vs 57.1% against greedy, 1000 games) and
# worse at 4 (32.5% vs 37.2%, 400 games): 3-4 players draft like greedy.
SEARCH_DRAFT_K = {2: 0, 3: 1, 4: 1}
SEARCH_MAX_ROLLOUT = 6  # mcts, tree method (SH.METHOD = 0): rollout actions before evaluating

# study_budget: the smallest budget measured to beat greedy at 4 players (mcts:400, 32.6%,
# 28.6-37.0% against a fair share of 25%, 800 games; mcts:50 27.8%, 22.7-33.5%, not shown).
SEARCH = SearchSpec(
    name="mcts", budget=800, exploration=0.7, rollout="greedy", study_budget=400,
    help="Information-set search (ISMCTS family, flat at the root, paired samples): "
         "every sample deals afresh what the player cannot see (rivals' hands and draw "
         "piles, its own draw pile's order, rivals' face-down samurai and cards of the "
         "round, all future dice and shuffles) consistently with what it can see; each "
         "legal action is tried on the same samples with the same dice (common random "
         "numbers, BUDGET / actions samples each), every seat then plays the rollout "
         "policy to the start of the next round, where each clan's winning chance is "
         "scored by an evaluation fitted on greedy games (Hall of Honor, samurai still "
         "held, unplayed battle cards, the declarer); it plays the rollout policy's own "
         "choice unless another action gains more than one paired standard error "
         "(search_hooks.Z). "
         "In a 2-player draft every pick is scored so, once (no chance before the first "
         "round); with 3-4 players it drafts like greedy.",
)

RULES = (
    RuleOption(
        "draft", ("rotation", "snake"), "rotation",
        "Draft order: plain clockwise rotation (as printed) or snake (reverse every round).",
    ),
    RuleOption(
        "lone-clan", ("play", "end"), "play",
        "When only one clan still holds samurai in the Clan Conflict: it keeps fielding them "
        "uncontested into its Hall of Honor (play, as the sheet reads 'until all samurai have "
        "been played') or the Clan Conflict ends at once (end; its samurai still in hand or "
        "draw pile are discarded: the Final Battle hand is the Hall of Honor only).",
    ),
    RuleOption(
        "after-cards", ("before-tiebreak", "after-tiebreak"), "before-tiebreak",
        "When after-rolling cards are played: all before the tiebreaker roll "
        "(before-tiebreak), or also after it (after-tiebreak: the players who lost the "
        "tiebreaker may then play Ronin or Medicine; Bushido only before it).",
    ),
    RuleOption(
        "last-winner", ("free", "barred"), "free",
        "The samurai that won the last Clan Conflict round: free to fight in Final Battle "
        "round 1 (free: 'two consecutive battles' read as Final Battle battles) or barred "
        "from it like a Final Battle winner (barred), unless it is its owner's only samurai.",
    ),
)

FIXED_READINGS = (
    "Draft: seat 1 picks first, then clockwise one card at a time.",
    "The last drafter declares the first ability; no battle cards in the first battle.",
    "After rolling, cards are offered in seat order from the declarer, one per offer, pass "
    "after pass until a pass plays none.",
    "A player with no samurai in hand sits the round out and plays no battle cards.",
    "Unused battle cards are discarded when the Clan Conflict ends; the Final Battle hand "
    "is the Hall of Honor only.",
    "Ronin played by the winner changes nothing; a player who wins outright on the dice is "
    "not offered Ronin or Medicine; Bushido cannot reroll an Uma.",
    "A full hand with no samurai is reshuffled into the draw pile while it holds a samurai.",
    "The Final Battle winner may not field the same samurai next battle unless it is its "
    "last.",
)


@dataclass(frozen=True)
class Roster:
    """The samurai cards and the numbers the rules leave to the content file."""

    names: tuple[str, ...]
    ratings: np.ndarray  # (R, 4) int64: power, speed, armor, karma
    totals: np.ndarray  # (R,) int64
    assumed: np.ndarray  # (R,) bool
    faces: int
    uma_value: int
    clan_size: int
    hand_size: int
    battle: tuple[int, ...] = (1,) * len(Battle)  # copies of each battle card per clan


@dataclass(frozen=True)
class Prepared:
    """Kernel inputs for one run."""

    players: int
    policies: np.ndarray  # (P,) int64 policy codes of the seats
    names: tuple[str, ...]
    ratings: np.ndarray
    totals: np.ndarray
    rank_order: np.ndarray
    faces: int
    uma: int
    clan: int
    hand_size: int
    snake: bool
    lone_end: bool
    after_tb: bool
    fb_bar: bool
    max_rounds: int
    margin: float
    table: np.ndarray  # exact win chances of pools (simcli.dice_odds.tables)
    td: np.ndarray  # chance of each pool's two highest dice
    clan_bins: int
    battle_n: np.ndarray  # (N_BATTLE,) int64: copies of each battle card per clan
    seats: tuple[str, ...] = ()  # each seat's policy name (search players' options)


Rating = Annotated[int, msgspec.Meta(ge=1, le=MAX_DICE)]
Small = Annotated[int, msgspec.Meta(ge=1, le=32)]


class ContentMeta(msgspec.Struct, forbid_unknown_fields=True):
    """[content]: what the file is."""

    game: str = "sixteen-samurai"
    name: str | None = None
    version: int | str = 1
    assumed: bool = True  # the default of every card's `assumed`
    description: str = ""


class DiceTable(msgspec.Struct, forbid_unknown_fields=True):
    """[dice]: faces of a die and the value Uma shows on both its dice."""

    faces: Annotated[int, msgspec.Meta(ge=2, le=32)]
    uma_value: Small


class ClanTable(msgspec.Struct, forbid_unknown_fields=True):
    """[clan]: samurai each clan drafts and the Clan Conflict hand size."""

    size: Small
    hand: Small


Copies = Annotated[int, msgspec.Meta(ge=0, le=MAX_COPIES)]


class BattleTable(msgspec.Struct, forbid_unknown_fields=True):
    """[battle]: copies of each battle card in every clan's deck (printed: one of each)."""

    ninjutsu: Copies = 1
    uma: Copies = 1
    ronin: Copies = 1
    bushido: Copies = 1
    medicine: Copies = 1

    def copies(self) -> tuple[int, ...]:
        """The copies in stats.Battle order."""
        return tuple(getattr(self, b.name.lower()) for b in Battle)


class SamuraiCard(msgspec.Struct, forbid_unknown_fields=True):
    """One samurai card: its ratings (dice) in the four abilities."""

    name: Annotated[str, msgspec.Meta(min_length=1, pattern=r"\S")]
    power: Rating
    speed: Rating
    armor: Rating
    karma: Rating
    total: int | None = None  # the printed ability total, checked against the ratings
    assumed: bool | None = None  # None: the [content] default


class RosterTable(msgspec.Struct, forbid_unknown_fields=True):
    """[roster]: the samurai cards."""

    samurai: Annotated[list[SamuraiCard], msgspec.Meta(min_length=1)]


class RosterFile(msgspec.Struct, forbid_unknown_fields=True):
    """A Sixteen Samurai content file (the schema every file is checked against)."""

    dice: DiceTable
    clan: ClanTable
    roster: RosterTable
    battle: BattleTable = msgspec.field(default_factory=BattleTable)
    content: ContentMeta = msgspec.field(default_factory=ContentMeta)


def parse_roster(path: Path) -> Content:
    """Load a Sixteen Samurai roster file, checked against the RosterFile schema (types,
    ranges, unknown keys refused) and the checks across fields (a printed total, a name
    listed twice); every error is one line naming the file, the line and the field."""
    data, raw = read_toml(path)  # a FIFO, a device, a folder or a huge file is refused
    doc = Document(path, raw, data)
    meta = doc.convert(ContentMeta, ("content",)) if "content" in data else ContentMeta()
    if meta.game != "sixteen-samurai":
        raise doc.error(("content", "game"), f"content is for '{meta.game}', not "
                        "sixteen-samurai")
    try:
        f = doc.convert(RosterFile)
    except UserError as exc:  # name the samurai whose field is wrong
        m = re.search(r"field 'roster\.samurai\[(\d+)\]", str(exc))
        cards = data.get("roster", {}).get("samurai")
        card = cards[int(m.group(1))] if m and isinstance(cards, list) else None
        if isinstance(card, dict) and isinstance(card.get("name"), str):
            raise UserError(f"{exc} (samurai '{card['name']}')") from None
        raise
    cards = f.roster.samurai
    names: list[str] = []
    ratings = np.zeros((len(cards), 4), np.int64)
    assumed = np.zeros(len(cards), np.bool_)
    for i, card in enumerate(cards):
        key = ("roster", "samurai", i)
        if card.name in names:
            raise doc.error((*key, "name"), f"samurai '{card.name}' appears twice")
        ratings[i] = (card.power, card.speed, card.armor, card.karma)
        if card.total is not None and card.total != int(ratings[i].sum()):
            raise doc.error((*key, "total"), f"samurai '{card.name}': the printed total is "
                            f"{card.total} but the ratings sum to {int(ratings[i].sum())}")
        assumed[i] = meta.assumed if card.assumed is None else card.assumed
        names.append(card.name)
    roster = Roster(
        names=tuple(names), ratings=ratings, totals=ratings.sum(axis=1), assumed=assumed,
        faces=f.dice.faces, uma_value=f.dice.uma_value, clan_size=f.clan.size,
        hand_size=f.clan.hand, battle=f.battle.copies(),
    )
    return Content(
        name=meta.name or path.stem, version=str(meta.version), path=path,
        sha256=sha256(raw), assumed=bool(assumed.any()), description=meta.description,
        data=roster,
    )


def strength_order(ratings: np.ndarray) -> np.ndarray:
    """Roster indices, strongest first: highest total, then highest single rating."""
    totals = ratings.sum(axis=1)
    keys = [(-int(totals[c]), -int(ratings[c].max()), c) for c in range(len(ratings))]
    return np.array([k[2] for k in sorted(keys)], np.int64)


class SixteenSamurai(Game):
    """Sixteen Samurai (clan dice battles), 2-4 players."""

    name = "sixteen-samurai"
    title = "Sixteen Samurai"
    min_players = 2
    max_players = 4
    default_players = 4
    policies = POLICIES
    default_policy = "greedy"
    search = SEARCH
    rules = RULES
    fixed_readings = FIXED_READINGS
    options = OPTION_NAMES  # forbid columns: the kernel's rules.OPTIONS, in that order
    value_n = VALUE_N
    default_n = 1_000_000
    chunk_size = 4_000
    kernel = run
    supports_mirror = True
    own_metric_names = ("declarer_advantage", "tiebreak_rate")
    odds_options = ("dice", "exact", "n", "seed", "threads", "content")
    row_columns = ROW_COLUMNS
    length_column = "rounds"
    stats = TABLE

    def load_content(self, path: Path) -> Content:
        """Read and validate a roster file."""
        return parse_roster(path)

    def prepare(
        self, content: Content, players: int, seats: tuple[str, ...], rules: dict[str, str]
    ) -> Prepared:
        """Kernel inputs: roster arrays, parameters, exact odds tables (a rule option
        missing from `rules`, as in a manifest written before it existed, takes its
        default)."""
        rules = {**{r.name: r.default for r in self.rules}, **rules}
        roster: Roster = content.data
        need = roster.clan_size * players
        if len(roster.names) < need:
            raise UserError(
                f"roster '{content.name}' has {len(roster.names)} samurai; {players} players "
                f"draft {need}"
            )
        td, table = odds_tables(roster.faces, roster.uma_value)
        return Prepared(
            players=players,
            policies=seat_codes(POLICY_CODES, seats, SP),
            seats=tuple(seats),
            names=roster.names, ratings=roster.ratings, totals=roster.totals,
            rank_order=strength_order(roster.ratings), faces=roster.faces,
            uma=roster.uma_value, clan=roster.clan_size, hand_size=roster.hand_size,
            snake=rules["draft"] == "snake", lone_end=rules["lone-clan"] == "end",
            after_tb=rules["after-cards"] == "after-tiebreak",
            fb_bar=rules["last-winner"] == "barred",
            max_rounds=MAX_ROUNDS, margin=GREEDY_MARGIN, table=table, td=td,
            clan_bins=roster.clan_size * MAX_DICE * 4 + 1,
            battle_n=np.array(roster.battle, np.int64),
        )

    def sizes(self, prep: Prepared) -> dict[str, int]:
        """Run-time sizes of the statistics table's dimensions."""
        return {"seat": KR.MAX_P, "length": N_LEN, "round": N_DECL,
                "participants": KR.MAX_P + 1, "card": prep.ratings.shape[0],
                "clan_total": prep.clan_bins, "fb_players": KR.MAX_P + 1}

    def state(self, prep: Prepared, aggs: dict[str, np.ndarray], log_capacity: int = 0,
              rotation: int = 0) -> KR.State:
        """A kernel state for games of this run, counting into `aggs`."""
        return KR.new_state(
            players=prep.players, policies=prep.policies, ratings=prep.ratings,
            totals=prep.totals, rank_order=prep.rank_order, faces=prep.faces, uma=prep.uma,
            clan=prep.clan, hand_size=prep.hand_size, snake=prep.snake,
            lone_end=prep.lone_end, max_rounds=prep.max_rounds, margin=prep.margin,
            odds=prep.table, tops=prep.td, aggs=as_tuple(Aggregates, aggs),
            log_capacity=log_capacity, rotation=rotation, after_tb=prep.after_tb,
            fb_bar=prep.fb_bar, battle_n=prep.battle_n,
        )

    def run_chunk(
        self, prep: Prepared, seed: int, first: int, count: int, aggs: dict[str, np.ndarray],
        rows: np.ndarray | None, rotation: int = 0, forbid: np.ndarray | None = None,
    ) -> None:
        """Play a chunk of games into `aggs` (players rotated by `rotation` seats);
        forbid[s, o] denies seat s option o (OPTION_NAMES order: a battle card, an ability
        to declare)."""
        out = rows if rows is not None else np.zeros((0, N_ROW), np.int64)
        if any(self.policy_spec(s).is_search for s in prep.seats):
            self.run_search_chunk(prep, seed, first, count, aggs, out, rotation, forbid)
            return
        fast_path(run, Call.PLAY, self.state(prep, aggs, rotation=rotation),
                  forbid_table(forbid), seed, first, count, out)

    def run_search_chunk(self, prep: Prepared, seed: int, first: int, count: int,
                         aggs: dict[str, np.ndarray], out: np.ndarray, rotation: int,
                         forbid: np.ndarray | None) -> int:
        """run_chunk when a seat searches (kernels/sixteen_samurai/search_play.py);
        returns the moves simulated by the searches."""
        st = self.state(prep, aggs, rotation=rotation)
        ban = forbid_table(forbid)
        budget, c, rollout = self.search_settings(prep, st)
        ws = SP.new_workspace(st, ban, int(budget.max()), SEARCH_DRAFT_K[prep.players], TABLE,
                              self.sizes(prep))
        SP.play_chunk_search(st, ws, ban, np.uint64(seed), np.int64(first), np.int64(count),
                             out, budget, c, rollout, np.int64(SEARCH_MAX_ROLLOUT))
        return int(ws.moves[0])

    def search_settings(self, prep: Prepared, st: KR.State
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per seat of `st` (after rotation; MAX_P entries): the search's budget,
        exploration, rollout."""
        return self.search_arrays(prep.seats, st.lane[:prep.players], KR.MAX_P, POLICY_CODES,
                                  0)

    def remove_option(self, content: Content, option: int) -> Content | None:
        """The content with every copy of battle card `option` taken out of every clan's
        deck ([battle] copies set to 0); None for an ability (declaring one cannot be
        taken out of the game: restricted play alone values it)."""
        if not 0 <= option < len(BATTLE_CARDS):
            return None
        roster: Roster = content.data
        battle = list(roster.battle)
        battle[option] = 0
        return replace(content, data=replace(roster, battle=tuple(battle)),
                       name=f"{content.name} without {BATTLE_CARDS[option]}")

    def option_in_game(self, content: Content, option: int) -> bool:
        """A battle card is in the game when the content gives each clan a copy; an ability
        always is."""
        roster: Roster = content.data
        return option >= len(BATTLE_CARDS) or roster.battle[option] > 0

    def content_cards(self, content: Content) -> tuple[str, ...]:
        """The samurai cards of the roster."""
        return tuple(content.data.names)

    def swap_card(self, content: Content, card: int) -> Content:
        """The roster with samurai `card`'s ratings replaced by the roster's average
        ratings (each rating the mean over the roster, rounded), its name kept."""
        roster: Roster = content.data
        ratings = roster.ratings.copy()
        ratings[card] = np.rint(roster.ratings.mean(axis=0)).astype(ratings.dtype)
        totals = roster.totals.copy()
        totals[card] = int(ratings[card].sum())
        return replace(content, data=replace(roster, ratings=ratings, totals=totals),
                       name=f"{content.name} with {roster.names[card]} made average")

    def card_rates(self, aggs: dict[str, np.ndarray]) -> list[tuple[Any, Any]]:
        """Per samurai: its Clan Conflict round win rate when fielded (clustered by game)
        and its owner's game win rate."""
        from reports.stats import rate, ratio_rate

        c, clus = aggs["cards"], columns(STATS["card_clus"], aggs["card_clus"])
        games = int(aggs["wins"].sum())
        return [(ratio_rate(int(c[i, CardStat.FIELD_WON]), int(c[i, CardStat.FIELDED]),
                            float(clus["yy"][i]), float(clus["xx"][i]), float(clus["xy"][i]),
                            games),
                 rate(int(c[i, CardStat.OWNER_WON]), int(c[i, CardStat.DRAFTED])))
                for i in range(c.shape[0])]

    def handle(self, prep: Prepared, seed: int, playout: int, rotation: int = 0,
               forbid: np.ndarray | None = None):
        """Playout `playout` of the run keyed by `seed`, step by step (simcli replay)."""
        return SixteenSamuraiHandle(self, prep, seed, playout, rotation, forbid)

    def odds(self, req: OddsRequest) -> OddsResult:
        """Win chances of 2-4 dice pools in one battle."""
        from simcli.odds import sixteen_samurai_odds

        return sixteen_samurai_odds(req)

    def core_stats(self, aggs: dict[str, np.ndarray], players: int) -> CoreStats:
        """Seat wins, completion and length in rounds (Sixteen Samurai has no shared wins)."""
        games = int(aggs["wins"].sum())
        return CoreStats(
            games=games, seat_wins=aggs["wins"][:players].copy(), shared=0,
            completed=games - int(aggs["misc"][Misc.CAPPED_GAMES]),
            length=aggs["lengths"][2].copy(), length_unit="rounds",
        )

    def own_metrics(self, aggs: dict[str, np.ndarray], players: int) -> list[tuple[str, Any, str]]:
        """Declarer advantage and tiebreaker share, with intervals clustered by game
        (several rounds of one game are not independent)."""
        from reports.stats import Estimate, ratio_rate

        games = int(aggs["wins"].sum())
        clus = aggs["clus"].astype(float)
        d = aggs["decl"][0].sum(axis=0)  # Clan Conflict, by participants: [n, won]
        n = int(d[:, 0].sum())
        fair = float(sum(d[k, 0] / k for k in range(2, d.shape[0]))) / n if n else 0.0
        won = ratio_rate(int(d[:, 1].sum()), n, *clus[Clustered.CC_DECLARER], games)
        adv = Estimate(won.value - fair, won.lo - fair, won.hi - fair, n)
        misc = aggs["misc"]
        return [
            ("declarer_advantage", adv, "How much more often than its fair share the player "
             "who declared the ability wins a Clan Conflict round (0 = no advantage).",
             "difference"),
            ("tiebreak_rate", ratio_rate(int(misc[Misc.TIEBREAK_ROUNDS]),
                                         int(misc[Misc.CONTESTED_ROUNDS]),
                                         *clus[Clustered.TIEBREAK], games),
             "Share of contested Clan Conflict rounds that need a tiebreaker roll."),
        ]

    def report(self, aggs: dict[str, np.ndarray], manifest: dict[str, Any], content: Content):
        """Tables, findings and chart data for a finished run."""
        from reports import sixteen_samurai as R

        return R.summarize(named_stats(aggs, content.data, manifest["players"]), manifest)


def no_forbid() -> np.ndarray:
    """A forbidden-options table that forbids nothing (the fast path's)."""
    return np.zeros((KR.MAX_P, len(KR.OPTIONS)), np.bool_)


def forbid_table(forbid: np.ndarray | None) -> np.ndarray:
    """The kernel's (MAX_P, options) table from a (players, options) one (None: nothing
    forbidden)."""
    table = no_forbid()
    if forbid is not None:
        f = np.asarray(forbid, np.bool_)
        table[: f.shape[0], : f.shape[1]] = f
    return table


STATS = {s.name: s for s in TABLE}


def named_stats(aggs: dict[str, np.ndarray], roster: Roster, players: int) -> dict[str, Any]:
    """The statistics table's arrays under the names the reports read (which know nothing
    of kernels)."""
    lengths = columns(STATS["lengths"], aggs["lengths"], axis=0)
    decl = columns(STATS["decl"], aggs["decl"], axis=0)
    misc = columns(STATS["misc"], aggs["misc"])
    clus = columns(STATS["clus"], aggs["clus"], axis=0)  # {rate: [yy, xx, xy]}
    card_clus = columns(STATS["card_clus"], aggs["card_clus"])
    return {
        "players": players,
        "games": int(aggs["wins"].sum()),
        "wins": aggs["wins"][:players],
        "len_cc": lengths["clan_conflict"],
        "len_fb": lengths["final_battle"],
        "len_total": lengths["whole_game"],
        "decl_cc": decl["clan_conflict"],
        "decl_fb": decl["final_battle"],
        "decl_ability": aggs["decl_ab"],
        "abilities": ABILITIES,
        "clan_total": aggs["clan"],
        "fb_players": aggs["fbp"],
        "cards": {
            "name": list(roster.names),
            "total": roster.totals,
            **{a: roster.ratings[:, i] for i, a in enumerate(ABILITIES)},
            "assumed": roster.assumed,
            **columns(STATS["cards"], aggs["cards"]),
            **{f"clus_{k}": v for k, v in card_clus.items()},
        },
        "clustered": {k: tuple(float(x) for x in v) for k, v in clus.items()},
        "battle": {"card": list(BATTLE_CARDS), "copies": list(roster.battle),
                   **columns(STATS["battle"], aggs["battle"])},
        "misc": {name: int(v) for name, v in misc.items()},
    }


# --- one game, step by step --------------------------------------------------------------
LOG_CAPACITY = 16_384  # events of one game (a 4-player game logs about 1,000)
SEAT_WORDS = ("Blue", "Green", "Orange", "Purple")  # the rulebook's clan colours


class SixteenSamuraiHandle(GameHandle):
    """One Sixteen Samurai game driven from Python through the compiled rules."""

    max_actions = 1024

    def __init__(self, game: SixteenSamurai, prep: Prepared, seed: int, playout: int,
                 rotation: int = 0, forbid: np.ndarray | None = None) -> None:
        self.game = game
        self.prep = prep
        self.aggs = game.new_aggregates(prep)  # scratch statistics of this game
        self.st = game.state(prep, self.aggs, log_capacity=LOG_CAPACITY, rotation=rotation)
        self.log_buf = self.st.log
        self.log_n = self.st.log_n
        self.forbid = forbid_table(forbid)
        self._out = np.zeros(max(self.max_actions, N_ROW), np.int64)
        self.seed = np.uint64(seed)
        self.playout = np.int64(playout)
        self.decisions = 0  # actions applied so far (keys a search player's streams)
        self.search = game.search_settings(prep, self.st)
        self.ws = (SP.new_workspace(self.st, self.forbid, int(self.search[0].max()),
                                    SEARCH_DRAFT_K[prep.players], TABLE,
                                    game.sizes(prep))
                   if self.search[0].max() > 0 else None)
        self.k = KernelCalls(run, self.forbid, seed, out_size=len(self._out))
        self.k.out = self._out
        self._k(Call.SETUP, self.playout)

    def _call(self, call: Call, a: int = 0, out: np.ndarray | None = None) -> int:
        return self._k(call, a, out)

    # --- hooks into the kernels ---
    def current_player(self) -> int:
        """Seat (from 0) to act; -1 when the game is over."""
        return self._call(Call.TO_MOVE)

    def _legal(self, out: np.ndarray) -> int:
        return self._call(Call.LEGAL, out=out)

    def _apply(self, action: int) -> None:
        self._call(Call.APPLY, action)
        self.decisions += 1

    def _choose(self) -> int:
        seat = int(self.st.actor[0])
        budget, c, rollout = self.search
        if self.ws is not None and seat >= 0 and budget[seat] > 0:
            root = SH.wrap(self.st, self.forbid, SEARCH_DRAFT_K[self.prep.players])
            return int(SP.search_choose(root, self.ws, self.forbid, self.seed, self.playout,
                                        np.int64(self.decisions), budget[seat], c[seat],
                                        rollout[seat], np.int64(SEARCH_MAX_ROLLOUT)))
        return self._call(Call.CHOOSE)

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return int(self.st.phase[0]) == int(KR.OVER)

    def turn(self) -> int:
        """0 during the draft, then the round number counted across both phases."""
        return int(self.st.turn[0])

    def phase(self) -> str:
        """The decision the game waits for (rules.PHASES)."""
        return KR.PHASES[int(self.st.phase[0])]

    def option_of(self, action: int) -> int:
        """The option (index into rules.OPTIONS) an action of the player to act uses, or -1.

        A declaration by a seat forbidden every ability uses none (-1): a declaration
        cannot be skipped, so the players lift that ban (players.py) and the forced
        declaration, like passing, is never a forbidden choice."""
        option = self._call(Call.OPTION, action)
        seat = self.current_player()
        if option >= KR.OPT_ABILITY and seat >= 0 and self.forbid[seat, KR.OPT_ABILITY:].all():
            return -1
        return option

    def row(self) -> dict[str, int]:
        """The finished game's --save-games row."""
        row = np.zeros(N_ROW, np.int64)
        self._call(Call.ROW, out=row)
        return {c: int(v) for c, v in zip(ROW_COLUMNS, row, strict=True)}

    def outcome(self) -> dict[str, Any]:
        """Winner (seat from 1), length in rounds, both phases' rounds, Halls of Honor."""
        st = self.st
        P = self.prep.players
        champion = int(st.champion[0])
        return {
            "winners": [champion + 1] if champion >= 0 else [],
            "length": int(st.rnd[0] + st.frnd[0]),
            "clan_conflict_rounds": int(st.rnd[0]),
            "final_battle_rounds": int(st.frnd[0]),
            "final_battle_clans": int(st.fb_players[0]),
            "hall_of_honor": [int(st.hall_fb[p]) for p in range(P)],
            "clan_totals": [int(st.clan_tot[p]) for p in range(P)],
        }

    # --- words ---
    def samurai(self, c: int) -> str:
        """A samurai's name and ratings, e.g. 'Kalia Cindertrap (P4 S2 A1 K3)'."""
        r = self.prep.ratings[c]
        return f"{self.prep.names[c]} (P{r[0]} S{r[1]} A{r[2]} K{r[3]})"

    def card(self, code: int) -> str:
        """A card code in words: a samurai or a battle card."""
        return self.samurai(code) if code >= 0 else BATTLE_CARDS[-1 - code]

    def observation(self, player: int) -> dict[str, Any]:
        """What seat `player` (from 0) sees: the public table, its own hand and draw pile,
        and of every rival only what is public (no hand, no face-down samurai)."""
        st = self.st
        P = self.prep.players
        ph = int(st.phase[0])

        def pile(arr, n):
            return [self.card(int(c)) for c in arr[:n]]

        table = {}
        if ph in (int(KR.FIELD), int(KR.FB_FIELD), int(KR.OFFER)):
            shown = ph == int(KR.OFFER)  # turned up and rolled
            for q in range(P):
                fielded = st.part[q] and (shown or q < st.actor[0])
                if fielded and (shown or q == player):
                    table[q + 1] = {"samurai": self.samurai(int(st.field[q]))}
                    if shown:
                        table[q + 1]["dice"] = [int(st.t1[q]), int(st.t2[q])]
                elif fielded:
                    table[q + 1] = {"samurai": "face down"}
        rivals = {
            q + 1: {"hand_size": int(st.hand_n[q]), "draw_pile": int(st.deck_n[q]),
                    "hall_of_honor": pile(st.hall[q], int(st.hall_n[q])),
                    "drafted": [self.prep.names[c] for c in np.nonzero(st.owner == q)[0]]}
            for q in range(P) if q != player
        }
        return {
            "seat": player + 1, "phase": KR.PHASES[ph], "turn": int(st.turn[0]),
            "clan_conflict_rounds": int(st.rnd[0]), "final_battle_rounds": int(st.frnd[0]),
            "declarer": int(st.declarer[0]) + 1,
            "ability": None if ph in (int(KR.DRAFT), int(KR.DECLARE), int(KR.FB_DECLARE))
            else ABILITIES[int(st.ability[0])],
            "pool": pile(st.avail, int(st.avail_n[0])) if ph == int(KR.DRAFT) else [],
            "hand": pile(st.hand[player], int(st.hand_n[player])),
            "draw_pile": int(st.deck_n[player]),
            "hall_of_honor": pile(st.hall[player], int(st.hall_n[player])),
            "table": table, "discard": pile(st.disc, int(st.disc_n[0])), "rivals": rivals,
        }

    def describe_action(self, action: int) -> str:
        """An action of the player to act, in words."""
        st = self.st
        ph = int(st.phase[0])
        if ph == int(KR.DRAFT):
            return f"drafts {self.samurai(action)}"
        if ph in (int(KR.DECLARE), int(KR.FB_DECLARE)):
            return f"declares {ABILITIES[action].upper()}"
        if ph == int(KR.FIELD):
            c, b = divmod(action, 3)
            card = ("", " with Ninjutsu", " with Uma")[b]
            return f"fields {self.samurai(c)} face down{card}"
        if ph == int(KR.OFFER):
            if action == KR.PASS:
                return "passes (no after-rolling card)"
            if action == KR.PLAY_RONIN:
                return "plays Ronin (steals the winning samurai)"
            if action == KR.PLAY_MEDICINE:
                return "plays Medicine (keeps its samurai if defeated)"
            q = action - int(KR.BUSHIDO_ON)
            whose = "its own" if q == int(st.actor[0]) else f"seat {q + 1}'s"
            return f"plays Bushido: rerolls {whose} dice"
        if ph == int(KR.FB_FIELD):
            return f"fields {self.samurai(action)} face down"
        return f"action {action}"

    def describe_event(self, kind: int, a: int, b: int, c: int, d: int) -> tuple[str, str]:
        """(kind name, detail in words) of an event of the rules' log (rules.Ev)."""
        ev = KR.Ev(kind)
        phase = ("Clan Conflict", "Final Battle")
        before = {-1: "", int(KR.NINJUTSU): " with Ninjutsu", int(KR.UMA): " with Uma"}
        words = {
            KR.Ev.POOL: lambda: f"{self.samurai(a)} is laid face up for the draft",
            KR.Ev.CLAN: lambda: f"drafted {b} samurai, ability total {a}",
            KR.Ev.DRAW: lambda: f"draws {self.card(a)}",
            KR.Ev.RESHUFFLE: lambda: f"hand of {a} battle cards shuffled back into the "
                                     f"draw pile",
            KR.Ev.ROUND: lambda: f"{phase[a]} round {b}: {c} clans fight, seat {d + 1} "
                                 f"declares",
            KR.Ev.REVEAL: lambda: f"reveals {self.samurai(a)}{before[b]} "
                                  f"({ABILITIES[d].upper()} {c})",
            KR.Ev.ROLL: lambda: self._roll(a, b, c, d),
            KR.Ev.DIE: lambda: f"{'Bushido reroll, ' if d == 2 else ''}die {b} of {c}: {a}",
            KR.Ev.TIEBREAK: lambda: f"tiebreaker die: {a}",
            KR.Ev.TAKES: lambda: f"puts {self.samurai(a)} into its Hall of Honor"
                                 + (f" (won by seat {b + 1}, stolen with Ronin)" if c else ""),
            KR.Ev.SAVED: lambda: f"Medicine: {self.samurai(a)} goes back to its hand",
            KR.Ev.DISCARD: lambda: f"discards {self.card(a)}",
            KR.Ev.FINAL: lambda: f"brings {a} samurai to the Final Battle",
            KR.Ev.BACK: lambda: f"wins; {self.samurai(a)} goes back to its hand",
            KR.Ev.OUT: lambda: "has no samurai left: out of the Final Battle",
            KR.Ev.CAPPED: lambda: f"the Clan Conflict is stopped after {a} rounds (cap)",
            KR.Ev.RESULT: lambda: f"wins the game after {a} Clan Conflict and {b} Final "
                                  f"Battle rounds",
        }
        return ev.name.lower(), words[ev]()

    def _roll(self, a: int, b: int, c: int, d: int) -> str:
        if d == 1:
            return f"Uma: rolls no dice, shows {a} and {b}"
        how = "Bushido reroll of" if d == 2 else "rolls"
        if c == 1:
            return f"{how} 1 die: {a}"
        return f"{how} {c} dice: highest {a}, second {b}"


POOL_RE = re.compile(r"^(?:[1-4]|uma)$", re.IGNORECASE)


def parse_pools(values: list[str]) -> np.ndarray:
    """Pool codes from `--dice` values: 1-4 dice, or 'uma'."""
    if not 2 <= len(values) <= KR.MAX_P:
        raise UserError(f"--dice needs 2-{KR.MAX_P} pools (one per player), got {len(values)}")
    codes = []
    for v in values:
        if not POOL_RE.match(v.strip()):
            raise UserError(f"--dice pool '{v}' must be a number of dice 1-{MAX_DICE} or 'uma'")
        codes.append(UMA if v.strip().lower() == "uma" else int(v))
    return np.array(codes, np.int64)
