"""Samurai Sword's Game declaration: rule options, the kernel inputs of a run (Prepared,
card facts, parameters), the kernel driver, core statistics, own metrics and report glue."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kernels.samurai_sword import play as KP
from kernels.samurai_sword import players as KPL
from kernels.samurai_sword import rules as K
from kernels.samurai_sword import stats as KS
from kernels.samurai_sword.play import Call
from kernels.stat_table import as_tuple
from simcli.errors import UserError
from simcli.games.base import Content, CoreStats, Game, RuleOption
from simcli.games.handle import fast_path
from simcli.games.samurai_sword.content import (
    MAX_P,
    MIN_P,
    OPTION_NAMES,
    ROLES,
    SwordContent,
    parse_content,
    without_option,
)
from simcli.games.samurai_sword.handle import SwordHandle
from simcli.games.samurai_sword.policies import (
    KEEP,
    KSP,
    LATE_HONOR,
    POLICIES,
    SEARCH,
    SEARCH_MAX_ROLLOUT,
    search_knobs,
)
from simcli.games.samurai_sword.stats import named_stats
from simcli.lazy import seat_codes

RULES = (
    RuleOption(
        "teammate-swordmaster", ("end", "continue"), "end",
        "When a teammate's defeat leaves one player with resilience there is no Victory of "
        "the Swordmaster: the game ends and is scored (end, as the rulebook's note reads, "
        "with the Deadly Strike) or play continues (continue).",
    ),
    RuleOption(
        "swordmaster-vs-honor", ("swordmaster", "honor"), "swordmaster",
        "A defeat that leaves one player with resilience and also takes the defeated "
        "player's last Honor: Victory of the Swordmaster (the resilience is lost before the "
        "Honor changes hands) or the Honor end, scored.",
    ),
    RuleOption(
        "reshuffle", ("when-needed", "when-empty"), "when-needed",
        "The discard pile is reshuffled (everyone losing 1 Honor) when a card must be drawn "
        "from an empty deck (when-needed) or the moment the last card leaves the deck "
        "(when-empty).",
    ),
    RuleOption(
        "geisha-self", ("yes", "no"), "yes",
        "Geisha may target its own player (e.g. to discard the Bushido in front of it): the "
        "sheet says 'one player', where Diversion says 'any other player'.",
    ),
    RuleOption(
        "bushido-self", ("yes", "no"), "yes",
        "Bushido may be played in front of its own player ('in front of anyone').",
    ),
    RuleOption(
        "bushido-timing", ("turn-end", "after-recover"), "turn-end",
        "When Bushido in front of a player resolves: when that player's turn is over "
        "(turn-end, the printed rulebook's 'if Bushido is still in front of you when your "
        "turn is over', so a Geisha can still shed it) or at the end of its Recover phase, "
        "before the Draw (after-recover, other transcriptions).",
    ),
    RuleOption(
        "swordmaster-3p", ("shogun-immune", "none"), "shogun-immune",
        "3 players: the Shogun's 'the Victory of the Swordmaster doesn't affect me'. "
        "shogun-immune (the printed wording): the Shogun is not subject to it, so a Ninja "
        "left alone with resilience does not win (play goes on), while the Shogun left "
        "alone with resilience wins as in every other player count; none: no Victory of "
        "the Swordmaster in the 3-player game for anyone.",
    ),
    RuleOption(
        "ushiwaka", ("lost", "dealt"), "lost",
        "Ushiwaka draws one card per resilience point a Weapon actually took (lost: excess "
        "wounds on defeat are disregarded) or per wound the Weapon dealt (dealt).",
    ),
)


@dataclass(frozen=True)
class Prepared:
    """Kernel inputs for one run."""

    players: int
    policies: np.ndarray
    roles: np.ndarray
    honor: np.ndarray
    mult: np.ndarray
    mult_top: int
    hands: np.ndarray
    ch_res: np.ndarray
    ch_abil: np.ndarray
    copies: np.ndarray
    cinfo: np.ndarray
    pi: np.ndarray
    content: SwordContent
    seats: tuple[str, ...] = ()  # each player's policy name (a search player's options)


def card_info(c: SwordContent) -> np.ndarray:
    """(N_CI, T) card facts for the kernel: effect, difficulty, damage, keep value."""
    T = len(c.card_names)
    info = np.zeros((K.N_CI, T), np.int64)
    info[K.CI_EFF] = c.effects
    info[K.CI_DIFF] = c.difficulty
    info[K.CI_DMG] = c.damage
    for t in range(T):
        e = int(c.effects[t])
        info[K.CI_VALUE, t] = (2 * c.damage[t] + c.difficulty[t]) if e == K.WEAPON else KEEP[e]
    return info


def params(c: SwordContent, players: int, rules: dict[str, str]) -> np.ndarray:
    """The kernel's integer parameters for a content, player count and rule options."""
    s = c.setups[players]
    pi = np.zeros(K.N_PI, np.int64)
    pi[K.PI_DRAW] = c.draw
    pi[K.PI_LIMIT] = c.hand_limit
    pi[K.PI_WEAPONS] = c.weapons_per_turn
    pi[K.PI_DAIMYO] = c.daimyo_honor
    pi[K.PI_DEADLY] = c.deadly_strike
    pi[K.PI_SH_DRAW] = s.shogun_extra_draw
    pi[K.PI_SH_WEAPONS] = s.shogun_extra_weapons
    pi[K.PI_SH_BUSHIDO] = int(s.shogun_bushido_honor)
    pi[K.PI_SWORD] = K.SWORD_ALL if s.swordmaster else K.SWORD_NONE
    if s.swordmaster and players == 3 and rules["swordmaster-3p"] == "shogun-immune":
        pi[K.PI_SWORD] = K.SWORD_SHOGUN
    elif players == 3 and rules["swordmaster-3p"] == "none":
        pi[K.PI_SWORD] = K.SWORD_NONE
    pi[K.PI_BUSHIDO_END] = int(rules["bushido-timing"] == "turn-end")
    pi[K.PI_TEAMMATE_END] = int(rules["teammate-swordmaster"] == "end")
    pi[K.PI_SWORD_FIRST] = int(rules["swordmaster-vs-honor"] == "swordmaster")
    pi[K.PI_RESHUFFLE_NOW] = int(rules["reshuffle"] == "when-empty")
    pi[K.PI_GEISHA_SELF] = int(rules["geisha-self"] == "yes")
    pi[K.PI_BUSHIDO_SELF] = int(rules["bushido-self"] == "yes")
    pi[K.PI_USHI_DEALT] = int(rules["ushiwaka"] == "dealt")
    pi[K.PI_MAX_TURNS] = K.MAX_TURNS
    pi[K.PI_LATE_HONOR] = LATE_HONOR
    return pi


# --- the game -----------------------------------------------------------------------------

class SamuraiSword(Game):
    """Samurai Sword (hidden roles, characters, card combat), 3-7 players."""

    name = "samurai-sword"
    title = "Samurai Sword"
    min_players = MIN_P
    max_players = MAX_P
    default_players = 5
    policies = POLICIES
    default_policy = "heuristic"
    search = SEARCH
    rules = RULES
    default_n = 200_000
    chunk_size = 2_000
    kernel = KP.run
    supports_mirror = True
    seat_win_meaning = "is on the winning team"
    team_game = True
    own_metric_names = ("team_win.shogun", "team_win.ninja", "team_win.ronin",
                        "end.swordmaster", "end.deck", "reshuffles.mean",
                        "deadly_strike_rate")
    row_columns = (
        "winner", "team", "win_mask", "end", "turns", "reshuffles",
        "score_shogun_team", "score_ninjas", "score_ronin", "deadly_team",
        *(f"role_{s + 1}" for s in range(MAX_P)), *(f"char_{s + 1}" for s in range(MAX_P)),
    )
    length_column = "turns"
    stats = KS.TABLE
    options = OPTION_NAMES
    value_n = 5_000

    def load_content(self, path: Path) -> Content:
        """Read and validate a content file."""
        return parse_content(path)

    def prepare(
        self, content: Content, players: int, seats: tuple[str, ...], rules: dict[str, str]
    ) -> Prepared:
        """Kernel inputs: card facts, setup for the player count, parameters."""
        c: SwordContent = content.data
        if players not in c.setups:
            raise UserError(f"content '{content.name}' has no [players.{players}] setup")
        if len(seats) != players:
            raise UserError(f"{len(seats)} policies for {players} players")
        for x in seats:
            self.check_policy(x)
        s = c.setups[players]
        order = sorted(range(players), key=lambda i: s.roles[i] != "shogun")
        honor = np.zeros(K.N_ROLE, np.int64)
        mult = np.zeros(K.N_ROLE, np.int64)
        for r, role in enumerate(ROLES):
            honor[r] = s.honor.get(role, 0)
            mult[r] = s.multiplier.get(role, 0)
        return Prepared(
            players=players,
            policies=seat_codes(KPL.POLICY_CODES, seats, KSP),
            roles=np.array([ROLES.index(s.roles[i]) for i in order], np.int64),
            honor=honor, mult=mult, mult_top=s.ninja_most_stars,
            hands=np.array(c.hands, np.int64), ch_res=c.resilience, ch_abil=c.abilities,
            copies=c.copies, cinfo=card_info(c), pi=params(c, players, rules),
            content=c, seats=tuple(seats),
        )

    def sizes(self, prep: Prepared) -> dict[str, int]:
        """Seats (7), characters and card types of the content, histogram bins."""
        return KS.sizes(len(prep.ch_res), len(prep.copies), MAX_P)

    def state(self, prep: Prepared, aggs: dict[str, np.ndarray], log_rows: int = 0,
              rotation: int = 0) -> K.State:
        """A kernel state for `prep` adding to `aggs` (players rotated by `rotation`)."""
        return K.new_state(
            players=prep.players, policies=prep.policies, roles=prep.roles,
            honor=prep.honor, mult=prep.mult, mult_top=prep.mult_top, hands=prep.hands,
            ch_res=prep.ch_res, ch_abil=prep.ch_abil, copies=prep.copies, cinfo=prep.cinfo,
            pi=prep.pi, aggs=as_tuple(KS.SwordAggs, aggs), log_rows=log_rows,
            rotation=rotation,
        )

    def run_chunk(
        self, prep: Prepared, seed: int, first: int, count: int, aggs: dict[str, np.ndarray],
        rows: np.ndarray | None, rotation: int = 0, forbid: np.ndarray | None = None,
    ) -> None:
        """Play a chunk of games into `aggs` (players rotated by `rotation` seats); forbid
        (players, len(options)) bool denies seat s option o."""
        out = rows if rows is not None else np.zeros((0, KP.N_ROW), np.int64)
        deny = np.zeros((MAX_P, K.N_OPTIONS), np.bool_)
        if forbid is not None:
            f = np.asarray(forbid, np.bool_)
            if f.ndim != 2 or f.shape[1] != K.N_OPTIONS or f.shape[0] > MAX_P:
                raise UserError(f"forbid must be (players, {K.N_OPTIONS}) booleans, got shape "
                                f"{f.shape}")
            deny[:f.shape[0]] = f
        if any(self.policy_spec(x).is_search for x in prep.seats):
            self.run_search_chunk(prep, seed, first, count, aggs, out, rotation, deny)
            return
        fast_path(KP.run, Call.PLAY, self.state(prep, aggs, rotation=rotation), deny, seed,
                  first, count, out)

    def run_search_chunk(self, prep: Prepared, seed: int, first: int, count: int,
                         aggs: dict[str, np.ndarray], out: np.ndarray, rotation: int,
                         forbid: np.ndarray) -> int:
        """run_chunk when a seat searches (kernels/samurai_sword/search_play.py); returns
        the moves simulated by the searches."""
        deny = np.zeros((MAX_P, K.N_OPTIONS), np.bool_)
        f = np.asarray(forbid, np.bool_)
        deny[:f.shape[0], :f.shape[1]] = f
        return self.play_searching(KSP, prep, self.state(prep, aggs, rotation=rotation),
                                   deny, search_knobs(), KS.TABLE, seed, first, count, out,
                                   SEARCH_MAX_ROLLOUT)

    def search_settings(self, prep: Prepared, st: K.State
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per seat of `st` (after rotation, MAX_P entries): the search's budget,
        exploration, rollout."""
        return self.search_arrays(prep.seats, st.seats["lane"][:prep.players], MAX_P,
                                  KPL.POLICY_CODES, KPL.HEURISTIC)

    def remove_option(self, content: Content, option: int) -> Content | None:
        """The content without the option's cards (every card kind with that effect), or
        None for the abilities (Nobunaga's, Ieyasu's draw) and for Weapons, without which
        the game is no longer a fight."""
        return without_option(content, option)

    def handle(self, prep: Prepared, seed: int, playout: int,
               rotation: int = 0) -> SwordHandle:
        """Playout `playout` of the run keyed by `seed`, step by step."""
        return SwordHandle(self, prep, seed, playout, rotation)

    def core_stats(self, aggs: dict[str, np.ndarray], players: int) -> CoreStats:
        """Seat k 'wins' when its team wins (seat 1 is always the Shogun); games won by a
        team of several seats count as shared; length in turns; the winning team's score
        margin in games decided on Honor."""
        games = int(aggs["ends"].sum())
        return CoreStats(
            games=games, seat_wins=aggs["seat"][:players, :, KS.Outcome.WINS].sum(axis=1),
            shared=int(aggs["misc"][KS.Misc.SHARED_WINS]),
            completed=games - int(aggs["ends"][KS.End.CAP]), length=aggs["turns"].copy(),
            length_unit="turns", margin=aggs["margin"].copy(),
        )

    def own_metrics(self, aggs: dict[str, np.ndarray], players: int) -> list[tuple[str, Any, str]]:
        """Team win rates, end reasons, reshuffles and Deadly Strikes."""
        from reports.stats import distribution, rate

        games = int(aggs["ends"].sum())
        team = aggs["team"]
        wins = team[:, KS.TeamCount.HONOR_WINS] + team[:, KS.TeamCount.SWORD_WINS]
        ends = aggs["ends"]
        return [
            ("team_win.shogun", rate(wins[KS.Team.SHOGUN], games), "Chance that the Shogun "
             "and Samurai win (the game's central balance claim: every team near its fair "
             "chance)."),
            ("team_win.ninja", rate(wins[KS.Team.NINJA], games), "Chance that the Ninjas "
             "win."),
            ("team_win.ronin", rate(wins[KS.Team.RONIN], games), "Chance that the Ronin wins "
             "(0 below 5 players, where there is no Ronin)."),
            ("end.swordmaster", rate(ends[KS.End.SWORDMASTER], games), "Share of games won "
             "by the Victory of the Swordmaster (one player left with resilience)."),
            ("end.deck", rate(ends[KS.End.HONOR_DECK], games), "Share of games ended by the "
             "Honor every player loses when the deck runs out."),
            ("reshuffles.mean", distribution(aggs["reshuffles"]).mean, "Average number of "
             "deck reshuffles per game (each costs every player 1 Honor).", "reshuffles"),
            ("deadly_strike_rate", rate(aggs["misc"][KS.Misc.DEADLY_STRIKES], games),
             "Share of games ending on a player's defeat by a teammate (that team loses 3)."),
        ]

    def report(self, aggs: dict[str, np.ndarray], manifest: dict[str, Any], content: Content):
        """Tables, findings and chart data for a finished run."""
        from reports import samurai_sword as R

        return R.summarize(named_stats(aggs, content.data, manifest["players"]), manifest)
