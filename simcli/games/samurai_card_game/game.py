"""Samurai: The Card Game declaration: policies, rule options, the search, preparing and
running chunks of games, the core and own statistics, and the report glue."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

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
    KindStat,
    Misc,
    Outcome,
    Placed,
    WinBy,
)
from simcli.games.base import (
    Content,
    CoreStats,
    Game,
    RuleOption,
    SearchSpec,
)
from simcli.games.handle import fast_path
from simcli.games.samurai_card_game.content import (
    SHAPE_MARKERS,
    SHAPES,
    SYMBOLS,
    CardSet,
    parse_content,
    set_codes,
    supply_for,
)
from simcli.games.samurai_card_game.handle import (
    END_REASONS,
    OUTCOME_NAMES,
    SEARCH_MAX_ROLLOUT,
    SEARCH_TOP_K,
    WINBY_NAMES,
    Prepared,
    SamuraiCardHandle,
    ksearch,
    new_state,
    no_forbidden,
)

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

CODES = {"random": kplayers.RANDOM, "greedy": kplayers.GREEDY}


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
        return self.play_searching(ksearch, prep, new_state(prep, aggs, rotation), ban,
                                   SEARCH_TOP_K, kstats.TABLE, seed, first, count, out,
                                   SEARCH_MAX_ROLLOUT)

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
