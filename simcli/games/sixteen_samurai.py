"""Sixteen Samurai: roster content, rule options, policies and the kernel driver."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kernels import sixteen_samurai as K
from kernels.dice import MAX_DICE
from simcli.dice_odds import tables as odds_tables
from simcli.errors import UserError
from simcli.games.base import (
    Content,
    CoreStats,
    Game,
    OddsRequest,
    OddsResult,
    RuleOption,
    at_line,
    line_of,
    read_content,
    sha256,
)

ABILITIES = ("power", "speed", "armor", "karma")
BATTLE_CARDS = ("Ninjutsu", "Uma", "Ronin", "Bushido", "Medicine")
GREEDY_MARGIN = 0.10
MAX_ROUNDS = 1000

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

RULES = (
    RuleOption(
        "draft", ("rotation", "snake"), "rotation",
        "Draft order: plain clockwise rotation (as printed) or snake (reverse every round).",
    ),
    RuleOption(
        "lone-clan", ("play", "end"), "play",
        "When only one clan still holds samurai in the Clan Conflict: it keeps fielding them "
        "uncontested into its Hall of Honor (play, as the sheet reads 'until all samurai have "
        "been played') or the Clan Conflict ends at once (end).",
    ),
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


@dataclass(frozen=True)
class Prepared:
    """Kernel inputs for one run."""

    players: int
    policies: np.ndarray
    ratings: np.ndarray
    totals: np.ndarray
    rank_order: np.ndarray
    pi: np.ndarray
    pf: np.ndarray
    table: np.ndarray
    td: np.ndarray
    clan_bins: int


def _where(path: Path, text: str, needle: str) -> str:
    return at_line(path, line_of(text, needle))


def _int_field(path, text, table, key, lo, hi, needle=None) -> int:
    value = table.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        where = _where(path, text, needle or f"{key} =")
        raise UserError(f"{where}: field '{key}' must be an integer {lo}-{hi}, got {value!r}")
    return value


def parse_roster(path: Path) -> Content:
    """Load and validate a Sixteen Samurai roster TOML file."""
    doc, raw, text, meta = read_content(path, "sixteen-samurai")
    dice = doc.get("dice", {})
    clan = doc.get("clan", {})
    faces = _int_field(path, text, dice, "faces", 2, 32)
    uma = _int_field(path, text, dice, "uma_value", 1, 32)
    clan_size = _int_field(path, text, clan, "size", 1, 32)
    hand_size = _int_field(path, text, clan, "hand", 1, 32)
    default_assumed = bool(meta.get("assumed", True))
    cards = doc.get("roster", {}).get("samurai")
    if not isinstance(cards, list) or not cards:
        raise UserError(f"{path}: needs a [roster] table with a non-empty 'samurai' list")
    names: list[str] = []
    ratings = np.zeros((len(cards), 4), np.int64)
    assumed = np.zeros(len(cards), np.bool_)
    for i, card in enumerate(cards):
        if not isinstance(card, dict):
            raise UserError(f"{path}: samurai entry {i + 1} must be a table")
        name = card.get("name")
        if not isinstance(name, str) or not name.strip():
            raise UserError(
                f"{path}: samurai entry {i + 1}: field 'name' must be a non-empty string"
            )
        needle = f'"{name}"'
        where = _where(path, text, needle)
        if name in names:
            raise UserError(f"{where}: samurai '{name}' appears twice")
        for a, ability in enumerate(ABILITIES):
            value = card.get(ability)
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_DICE:
                raise UserError(
                    f"{where}: samurai '{name}': field '{ability}' must be an integer "
                    f"1-{MAX_DICE}, got {value!r}"
                )
            ratings[i, a] = value
        unknown = set(card) - {"name", "total", "assumed", *ABILITIES}
        if unknown:
            raise UserError(f"{where}: samurai '{name}': unknown field '{sorted(unknown)[0]}'")
        total = card.get("total")
        if total is not None and total != int(ratings[i].sum()):
            raise UserError(
                f"{where}: samurai '{name}': field 'total' is {total!r} but the ratings sum "
                f"to {int(ratings[i].sum())}"
            )
        flag = card.get("assumed", default_assumed)
        if not isinstance(flag, bool):
            raise UserError(f"{where}: samurai '{name}': field 'assumed' must be true or false")
        assumed[i] = flag
        names.append(name)
    roster = Roster(
        names=tuple(names), ratings=ratings, totals=ratings.sum(axis=1), assumed=assumed,
        faces=faces, uma_value=uma, clan_size=clan_size, hand_size=hand_size,
    )
    return Content(
        name=str(meta.get("name", path.stem)), version=str(meta.get("version", "1")),
        path=path, sha256=sha256(raw), assumed=bool(assumed.any()),
        description=str(meta.get("description", "")), data=roster,
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
    rules = RULES
    default_n = 1_000_000
    chunk_size = 4_000
    kernel = K.play_chunk
    supports_mirror = True
    own_metric_names = ("declarer_advantage", "tiebreak_rate")
    odds_options = ("dice", "exact", "n", "seed", "threads", "content")
    row_columns = (
        "winner", "cc_rounds", "fb_rounds", "fb_players",
        "clan_total_0", "clan_total_1", "clan_total_2", "clan_total_3",
        "hall_0", "hall_1", "hall_2", "hall_3",
    )

    def load_content(self, path: Path) -> Content:
        """Read and validate a roster file."""
        return parse_roster(path)

    def prepare(
        self, content: Content, players: int, seats: tuple[str, ...], rules: dict[str, str]
    ) -> Prepared:
        """Kernel inputs: roster arrays, parameters, exact odds tables."""
        roster: Roster = content.data
        need = roster.clan_size * players
        if len(roster.names) < need:
            raise UserError(
                f"roster '{content.name}' has {len(roster.names)} samurai; {players} players "
                f"draft {need}"
            )
        pi = np.zeros(K.N_PI, np.int64)
        pi[K.PI_FACES] = roster.faces
        pi[K.PI_UMA] = roster.uma_value
        pi[K.PI_SNAKE] = int(rules["draft"] == "snake")
        pi[K.PI_LONE_END] = int(rules["lone-clan"] == "end")
        pi[K.PI_MAX_ROUNDS] = MAX_ROUNDS
        pi[K.PI_CLAN] = roster.clan_size
        pi[K.PI_HAND] = roster.hand_size
        pf = np.zeros(K.N_PF)
        pf[K.PF_MARGIN] = GREEDY_MARGIN
        codes = {"random": K.RANDOM, "greedy": K.GREEDY}
        td, table = odds_tables(roster.faces, roster.uma_value)
        return Prepared(
            players=players,
            policies=np.array([codes[s] for s in seats], np.int64),
            ratings=roster.ratings, totals=roster.totals,
            rank_order=strength_order(roster.ratings), pi=pi, pf=pf, table=table, td=td,
            clan_bins=roster.clan_size * MAX_DICE * 4 + 1,
        )

    def new_aggregates(self, prep: Prepared) -> dict[str, np.ndarray]:
        """Zeroed statistics in the kernel's layout."""
        R = prep.ratings.shape[0]
        z = np.zeros
        return {
            "wins": z(K.MAX_P, np.int64),
            "lengths": z((3, K.N_LEN), np.int64),
            "decl": z((2, K.N_DECL, K.MAX_P + 1, 2), np.int64),
            "decl_ab": z((2, 4, 2), np.int64),
            "cards": z((R, K.N_CARD), np.int64),
            "clan": z((prep.clan_bins, 2), np.int64),
            "battle": z((K.N_BATTLE, K.N_BSTAT), np.int64),
            "misc": z(K.N_MISC, np.int64),
            "fbp": z(K.MAX_P + 1, np.int64),
        }

    def run_chunk(
        self, prep: Prepared, seed: int, first: int, count: int, aggs: dict[str, np.ndarray],
        rows: np.ndarray | None, rotation: int = 0,
    ) -> None:
        """Play a chunk of games into `aggs` (players rotated by `rotation` seats)."""
        out = rows if rows is not None else np.zeros((0, K.N_ROW), np.int64)
        K.play_chunk(
            np.uint64(seed), first, count, prep.players, prep.policies, prep.ratings,
            prep.totals, prep.rank_order, prep.pi, prep.pf, prep.table, prep.td,
            aggs["wins"], aggs["lengths"], aggs["decl"], aggs["decl_ab"], aggs["cards"],
            aggs["clan"], aggs["battle"], aggs["misc"], aggs["fbp"], out, rotation,
        )

    def odds(self, req: OddsRequest) -> OddsResult:
        """Win chances of 2-4 dice pools in one battle."""
        from simcli.odds import sixteen_samurai_odds

        return sixteen_samurai_odds(req)

    def core_stats(self, aggs: dict[str, np.ndarray], players: int) -> CoreStats:
        """Seat wins, completion and length in rounds (Sixteen Samurai has no shared wins)."""
        games = int(aggs["wins"].sum())
        return CoreStats(
            games=games, seat_wins=aggs["wins"][:players].copy(), shared=0,
            completed=games - int(aggs["misc"][K.M_CAPPED]), length=aggs["lengths"][2].copy(),
            length_unit="rounds",
        )

    def own_metrics(self, aggs: dict[str, np.ndarray], players: int) -> list[tuple[str, Any, str]]:
        """Declarer advantage and tiebreaker share."""
        from reports.stats import Estimate, rate

        d = aggs["decl"][0].sum(axis=0)  # Clan Conflict, by participants: [n, won]
        n = int(d[:, 0].sum())
        fair = float(sum(d[k, 0] / k for k in range(2, d.shape[0]))) / n if n else 0.0
        won = rate(int(d[:, 1].sum()), n)
        adv = Estimate(won.value - fair, won.lo - fair, won.hi - fair, n)
        misc = aggs["misc"]
        return [
            ("declarer_advantage", adv, "How much more often than its fair share the player "
             "who declared the ability wins a Clan Conflict round (0 = no advantage)."),
            ("tiebreak_rate", rate(int(misc[K.M_TIEBREAKS]), int(misc[K.M_CONTESTED])),
             "Share of contested Clan Conflict rounds that need a tiebreaker roll."),
        ]

    def report(self, aggs: dict[str, np.ndarray], manifest: dict[str, Any], content: Content):
        """Tables, findings and chart data for a finished run."""
        from reports import sixteen_samurai as R

        return R.summarize(named_stats(aggs, content.data, manifest["players"]), manifest)


def named_stats(aggs: dict[str, np.ndarray], roster: Roster, players: int) -> dict[str, Any]:
    """The kernel's arrays under plain names, for reports (which know nothing of kernels)."""
    cards = aggs["cards"]
    battle = aggs["battle"]
    misc = aggs["misc"]
    return {
        "players": players,
        "games": int(aggs["wins"].sum()),
        "wins": aggs["wins"][:players],
        "len_cc": aggs["lengths"][0],
        "len_fb": aggs["lengths"][1],
        "len_total": aggs["lengths"][2],
        "decl_cc": aggs["decl"][0],
        "decl_fb": aggs["decl"][1],
        "decl_ability": aggs["decl_ab"],
        "abilities": ABILITIES,
        "clan_total": aggs["clan"],
        "fb_players": aggs["fbp"],
        "cards": {
            "name": list(roster.names),
            "total": roster.totals,
            **{a: roster.ratings[:, i] for i, a in enumerate(ABILITIES)},
            "assumed": roster.assumed,
            "drafted": cards[:, K.C_DRAFTED],
            "pick_sum": cards[:, K.C_PICK_SUM],
            "pick_sq": cards[:, K.C_PICK_SQ],
            "fielded": cards[:, K.C_FIELDED],
            "fielded_k2": cards[:, K.C_FIELDED_K2],
            "fielded_k3": cards[:, K.C_FIELDED_K2 + 1],
            "fielded_k4": cards[:, K.C_FIELDED_K2 + 2],
            "field_won": cards[:, K.C_FIELD_WON],
            "in_final": cards[:, K.C_IN_FB],
            "survived": cards[:, K.C_SURVIVED],
            "owner_won": cards[:, K.C_OWNER_WON],
            "fb_fielded": cards[:, K.C_FB_FIELDED],
            "fb_won": cards[:, K.C_FB_WON],
        },
        "battle": {
            "card": list(BATTLE_CARDS),
            "played_rounds": battle[:, K.B_PLAYED_R],
            "played_rounds_won": battle[:, K.B_PLAYED_R_WON],
            "held_rounds": battle[:, K.B_HELD_R],
            "held_rounds_won": battle[:, K.B_HELD_R_WON],
            "played_games": battle[:, K.B_PLAYED_G],
            "played_games_won": battle[:, K.B_PLAYED_G_WON],
            "unplayed_games": battle[:, K.B_UNPLAYED_G],
            "unplayed_games_won": battle[:, K.B_UNPLAYED_G_WON],
            "unused_at_end": battle[:, K.B_UNUSED_END],
            "effect": battle[:, K.B_EFFECT],
        },
        "misc": {
            "contested_rounds": int(misc[K.M_CONTESTED]),
            "uncontested_rounds": int(misc[K.M_UNCONTESTED]),
            "tiebreak_rounds": int(misc[K.M_TIEBREAKS]),
            "fb_tiebreak_rounds": int(misc[K.M_FB_ROUNDS_TIEBREAK]),
            "battle_reshuffles": int(misc[K.M_RESHUFFLES]),
            "double_ninjutsu": int(misc[K.M_DOUBLE_NINJUTSU]),
            "capped_games": int(misc[K.M_CAPPED]),
        },
    }


POOL_RE = re.compile(r"^(?:[1-4]|uma)$", re.IGNORECASE)


def parse_pools(values: list[str]) -> np.ndarray:
    """Pool codes from `--dice` values: 1-4 dice, or 'uma'."""
    if not 2 <= len(values) <= K.MAX_P:
        raise UserError(f"--dice needs 2-{K.MAX_P} pools (one per player), got {len(values)}")
    codes = []
    for v in values:
        if not POOL_RE.match(v.strip()):
            raise UserError(f"--dice pool '{v}' must be a number of dice 1-{MAX_DICE} or 'uma'")
        codes.append(K.UMA if v.strip().lower() == "uma" else int(v))
    return np.array(codes, np.int64)
