"""Samurai & Katana: the Game declaration (policies, rule options, search, readings),
preparing a run's kernel inputs, the campaign kernel driver, core statistics, own metrics
and the report glue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

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
    Misc,
)
from kernels.stat_table import as_tuple
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
from simcli.games.samurai_katana.content import (
    GAME_NAME,
    PLAYER_COUNTS,
    KatanaContent,
    parse_content,
)
from simcli.games.samurai_katana.handle import SamuraiKatanaHandle, SearchHandle
from simcli.games.samurai_katana.kernel import (
    KSP,
    SEARCH_MAX_ROLLOUT,
    SEARCH_TOP_K,
    Prepared,
    kernel_map,
    no_forbid,
)
from simcli.games.samurai_katana.odds import battle_odds, deck_array, win_table
from simcli.games.samurai_katana.stats import CATCH_UP_TURN, named_stats
from simcli.lazy import seat_codes

GREEDY_THRESHOLD = 0.6  # greedy attacks when the odds table gives it at least this chance
MAX_TURNS = 100  # safety cap per game (counted)
MAX_ACTIONS = 60  # safety cap on actions in one clan activation (counted)

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
        ban = no_forbid() if forbid is None else np.ascontiguousarray(forbid, np.bool_)
        out = rows if rows is not None else np.zeros((0, N_ROW), np.int64)
        return self.play_searching(KSP, prep, self.state(prep, aggs, rotation=rotation), ban,
                                   SEARCH_TOP_K, TABLE, seed, first, count, out,
                                   SEARCH_MAX_ROLLOUT)

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
