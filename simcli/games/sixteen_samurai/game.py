"""Sixteen Samurai: the Game declaration (rule options, policies, search) and the kernel
driver (prepare, run_chunk, statistics and report glue)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from kernels.dice import MAX_DICE
from kernels.sixteen_samurai import rules as KR
from kernels.sixteen_samurai.play import N_ROW, ROW_COLUMNS, Call, run
from kernels.sixteen_samurai.players import POLICY_CODES
from kernels.sixteen_samurai.stats import (
    N_DECL,
    N_LEN,
    TABLE,
    Aggregates,
    CardStat,
    Clustered,
    Misc,
)
from kernels.stat_table import as_tuple, columns
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
)
from simcli.games.handle import fast_path
from simcli.games.sixteen_samurai.content import (
    ABILITIES,
    BATTLE_CARDS,
    Roster,
    parse_roster,
    strength_order,
    with_average_samurai,
    without_battle_card,
)
from simcli.games.sixteen_samurai.handle import SixteenSamuraiHandle
from simcli.games.sixteen_samurai.odds import sixteen_samurai_odds
from simcli.games.sixteen_samurai.prepared import (
    SEARCH_DRAFT_K,
    SEARCH_MAX_ROLLOUT,
    SP,
    Prepared,
    forbid_table,
)
from simcli.lazy import seat_codes

# `simcli value` options (the forbid columns, rules.OPTIONS in that order): playing each
# battle card, then declaring each ability
OPTION_NAMES = BATTLE_CARDS + tuple(a.title() for a in ABILITIES)
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
        return self.play_searching(SP, prep, self.state(prep, aggs, rotation=rotation),
                                   forbid_table(forbid), SEARCH_DRAFT_K[prep.players], TABLE,
                                   seed, first, count, out, SEARCH_MAX_ROLLOUT)

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
        return without_battle_card(content, option)

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
        return with_average_samurai(content, card)

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
        return sixteen_samurai_odds(self, req)

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
