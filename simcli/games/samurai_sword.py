"""Samurai Sword: card and character content, rule options, policies, the statistics the
kernels count, the kernel driver and the step-by-step handle (`simcli replay`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import numpy as np

from kernels.samurai_sword import play as KP
from kernels.samurai_sword import players as KPL
from kernels.samurai_sword import rules as K
from kernels.samurai_sword import stats as KS
from kernels.samurai_sword.play import Call
from kernels.stat_table import as_tuple, columns
from simcli.content import Document, read_document
from simcli.errors import UserError
from simcli.games.base import Content, CoreStats, Game, RuleOption, SearchSpec, sha256
from simcli.games.handle import GameHandle, KernelCalls, fast_path
from simcli.lazy import LazyModule, seat_codes

KH = LazyModule("kernels.samurai_sword.search_hooks")
KSP = LazyModule("kernels.samurai_sword.search_play")

EFFECTS = {
    "weapon": K.WEAPON, "parry": K.PARRY, "geisha": K.GEISHA, "diversion": K.DIVERSION,
    "battle_cry": K.BATTLE_CRY, "tea_ceremony": K.TEA, "jujutsu": K.JUJUTSU,
    "breathing": K.BREATHING, "daimyo": K.DAIMYO, "focus": K.FOCUS, "armor": K.ARMOR,
    "fast_draw": K.FAST_DRAW, "bushido": K.BUSHIDO,
}
ABILITIES = {
    "none": K.NO_ABILITY, "benkei": K.BENKEI, "chiyome": K.CHIYOME, "goemon": K.GOEMON,
    "ginchiyo": K.GINCHIYO, "hanzo": K.HANZO, "hideyoshi": K.HIDEYOSHI, "ieyasu": K.IEYASU_ABILITY,
    "kojiro": K.KOJIRO, "musashi": K.MUSASHI, "nobunaga": K.NOBUNAGA_ABILITY, "tomoe": K.TOMOE,
    "ushiwaka": K.USHIWAKA,
}
ROLES = ("shogun", "samurai", "ninja", "ronin")  # kernel codes 0..3
TEAMS = ("Shogun & Samurai", "Ninjas", "Ronin")
END_REASONS = ("playing", "Honor out: a defeat", "Honor out: deck reshuffle",
               "Honor out: Bushido", "Victory of the Swordmaster",
               "one left with resilience after a teammate's defeat (scored)", "turn cap")
MIN_P, MAX_P = 3, K.MAX_P
LATE_HONOR = 2  # the heuristic keeps Daimyo once someone has this much Honor or less
# The options a player can be denied (`simcli value`), in the kernel's forbid columns
# (rules.OPTIONS): playing each card kind, parrying (a Parry, or Hanzo's Weapon, against a
# Weapon or a Battle Cry), Nobunaga's draw and Ieyasu's draw from the discard pile.
OPTION_NAMES = ("Weapon", "Parry", "Geisha", "Diversion", "Battle Cry", "Tea Ceremony",
                "Jujutsu", "Breathing", "Daimyo", "Focus", "Armor", "Fast Draw", "Bushido",
                "Nobunaga's draw", "Ieyasu's discard draw")
assert len(OPTION_NAMES) == len(K.OPTIONS) == K.N_OPTIONS

# The heuristic's keep values (higher = kept longer; properties are played at once)
KEEP = {K.PARRY: 8, K.GEISHA: 5, K.DIVERSION: 5, K.BATTLE_CRY: 6, K.TEA: 7, K.JUJUTSU: 6,
        K.BREATHING: 6, K.DAIMYO: 5, K.FOCUS: 10, K.ARMOR: 10, K.FAST_DRAW: 10,
        K.BUSHIDO: 4}

POLICIES = {
    "random": (
        "Uniform over the legal plays of its turn: ending the turn, Nobunaga's draw, and "
        "every card in hand with every legal target (each Weapon on each player it reaches, "
        "Bushido before each player, Geisha on each hand or property in play). It always "
        "parries a Weapon or a Battle Cry when it can and always discards a Weapon to "
        "Jujutsu (a uniformly chosen card that can); against a Bushido Weapon it picks "
        "uniformly between losing Honor and each kind of Weapon it holds; Ieyasu takes the "
        "discard pile's top card on a coin flip; it discards uniformly random cards."
    ),
    "heuristic": (
        "Knows only its own role, the Shogun and what every player did in public (who "
        "attacked, stole from, or put Bushido on whom). Ninjas and the Ronin press the "
        "Shogun; Ninjas then prefer players who struck at the Shogun's attackers and spare "
        "those who struck at the Shogun; the Shogun and Samurai never hit the Shogun and "
        "strike whoever attacked the Shogun first, sparing those who defended it. Each turn, "
        "in order: plays Armor, Focus and Fast Draw; Nobunaga draws down to 1 below full "
        "resilience (never below 3); Tea Ceremony; Daimyo unless someone has "
        f"{LATE_HONOR} Honor or less (then it keeps it for the score; the Ronin always "
        "plays it); Breathing at half resilience or less (the draw to the player it least "
        "wants to hurt); Geisha on itself to shed Bushido; Battle Cry and Jujutsu (a "
        "Samurai spares a Shogun with 2 resilience or less); Bushido, Diversion and Geisha "
        "(Armor, then Focus, then Fast Draw, else a hand card) on its preferred enemy; then "
        "Weapons on the preferred reachable enemy (one it can defeat first), each time the "
        "reaching Weapon with most damage, shortest reach on ties. It always parries a "
        "Weapon; it parries a Battle Cry or discards a Weapon to Jujutsu only at 1 "
        "resilience or holding two such cards; it gives its weakest Weapon to Bushido "
        "rather than Honor; Ieyasu takes a good discard; it discards the cards it values "
        "least (Parry and long Weapons kept)."
    ),
}

SEARCH_MAX_ROLLOUT = 0  # mcts: rollout moves before the evaluation (0: to the end)
SEARCH_EVIDENCE = 0.1  # mcts: weight of a role deal per public act its role would rarely take
SEARCH_SPREAD = 2.0  # mcts: team score points per unit of log-odds (cut rollouts only)
SEARCH = SearchSpec(
    name="mcts", budget=400, exploration=0.7, rollout="heuristic", study_budget=200,
    help="Information-set Monte Carlo tree search (single-observer ISMCTS): each "
         "simulation first deals again everything the searching player cannot see (the "
         "other players' roles but the Shogun's, with Ninja stars and multipliers, their "
         "hands and the deck's order together, and every future shuffle and random draw), "
         "consistently with what it can see (its own role and hand, hand sizes, Honor, "
         "properties, the discard pile); it then descends the tree of every player's "
         "decisions by UCB1 over the actions legal in that deal, plays the game out by the "
         "rollout policy and scores 1 for every player of the winning team; it plays the "
         "most visited action.",
)



def search_knobs() -> np.ndarray:
    """The search's run-time settings (kernels/samurai_sword/search_hooks.knobs)."""
    return KH.knobs(SEARCH_EVIDENCE, SEARCH_SPREAD)


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
class Setup:
    """Roles, Honor, multipliers and special rules for one player count."""

    roles: tuple[str, ...]
    honor: dict[str, int]
    multiplier: dict[str, int]
    ninja_most_stars: int  # 0: none
    shogun_extra_draw: int
    shogun_extra_weapons: int
    shogun_bushido_honor: bool
    swordmaster: bool


@dataclass(frozen=True)
class SwordContent:
    """The playing cards, characters and per-count setups of a content file."""

    card_names: tuple[str, ...]
    effects: np.ndarray  # (T,) kernel effect codes
    difficulty: np.ndarray
    damage: np.ndarray
    copies: np.ndarray
    char_names: tuple[str, ...]
    resilience: np.ndarray
    abilities: np.ndarray
    setups: dict[int, Setup]
    draw: int
    hand_limit: int
    weapons_per_turn: int
    daimyo_honor: int
    deadly_strike: int
    hands: tuple[int, ...]

    @property
    def deck_size(self) -> int:
        """Playing cards in the deck."""
        return int(self.copies.sum())


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


# --- content ------------------------------------------------------------------------------
# The file's schema (msgspec: strict types, ranges, unknown keys refused; errors name the
# real line through simcli.content), then the checks that span several fields.

Effect = Literal["weapon", "parry", "geisha", "diversion", "battle_cry", "tea_ceremony",
                 "jujutsu", "breathing", "daimyo", "focus", "armor", "fast_draw", "bushido"]
Ability = Literal["none", "benkei", "chiyome", "goemon", "ginchiyo", "hanzo", "hideyoshi",
                  "ieyasu", "kojiro", "musashi", "nobunaga", "tomoe", "ushiwaka"]
RoleName = Literal["shogun", "samurai", "ninja", "ronin"]
Name = Annotated[str, msgspec.Meta(min_length=1, pattern=r"\S")]


def _span(lo: int, hi: int) -> Any:
    return Annotated[int, msgspec.Meta(ge=lo, le=hi)]


class CardFile(msgspec.Struct, forbid_unknown_fields=True):
    """One kind of playing card: Weapons have a Difficulty and a damage."""

    name: Name
    effect: Effect
    copies: _span(1, 99)
    difficulty: _span(1, 9) | None = None
    damage: _span(1, 9) | None = None


class DeckFile(msgspec.Struct, forbid_unknown_fields=True):
    """[deck]: the playing cards, one kind per entry."""

    cards: Annotated[list[CardFile], msgspec.Meta(min_length=1, max_length=int(K.MAX_T))]


class CharacterFile(msgspec.Struct, forbid_unknown_fields=True):
    """One character: resilience and ability."""

    name: Name
    resilience: _span(1, 9)
    ability: Ability


class CharactersFile(msgspec.Struct, forbid_unknown_fields=True):
    """[characters]: one per player at least."""

    entries: Annotated[list[CharacterFile], msgspec.Meta(
        min_length=int(MAX_P), max_length=int(K.MAX_C))] = msgspec.field(name="list")


class HonorFile(msgspec.Struct, forbid_unknown_fields=True):
    """Starting Honor per role."""

    shogun: _span(1, 30) | None = None
    samurai: _span(1, 30) | None = None
    ninja: _span(1, 30) | None = None
    ronin: _span(1, 30) | None = None


class MultiplierFile(msgspec.Struct, forbid_unknown_fields=True):
    """Score multiplier per role (and of the Ninja with most stars, 0: none)."""

    shogun: _span(0, 30) | None = None
    samurai: _span(0, 30) | None = None
    ninja: _span(0, 30) | None = None
    ronin: _span(0, 30) | None = None
    ninja_most_stars: _span(0, 30) = 0


class SetupFile(msgspec.Struct, forbid_unknown_fields=True):
    """[players.N]: roles, Honor, multipliers and the special rules of a player count."""

    roles: list[RoleName]
    honor: HonorFile
    multiplier: MultiplierFile
    shogun_extra_draw: _span(0, 9) = 0
    shogun_extra_weapons: _span(0, 9) = 0
    shogun_bushido_honor: bool = True
    swordmaster: bool = True


class RulesFile(msgspec.Struct, forbid_unknown_fields=True):
    """[rules]: the numbers of the turn and of scoring."""

    draw: _span(1, 9)
    hand_limit: _span(1, 30)
    weapons_per_turn: _span(1, 9)
    daimyo_honor: _span(0, 9)
    deadly_strike: _span(0, 30)
    hands: Annotated[list[_span(0, 20)], msgspec.Meta(min_length=int(MAX_P), max_length=int(MAX_P))]


class MetaFile(msgspec.Struct, forbid_unknown_fields=True):
    """[content]: what the file is."""

    game: str = "samurai-sword"
    name: str | None = None
    version: int | str = 1
    assumed: bool = False
    description: str = ""


class SwordFile(msgspec.Struct, forbid_unknown_fields=True):
    """A whole Samurai Sword content file."""

    rules: RulesFile
    deck: DeckFile
    characters: CharactersFile
    players: dict[str, dict[str, Any]]  # [players.N], each read as a SetupFile
    content: MetaFile = msgspec.field(default_factory=MetaFile)


def _cards(doc: Document, deck: DeckFile):
    """Card arrays (names, effects, difficulty, damage, copies), the cross-field checks."""
    names: list[str] = []
    for i, card in enumerate(deck.cards):
        at = ("deck", "cards", i)
        if card.name in names:
            raise doc.error((*at, "name"), f"card '{card.name}' appears twice")
        for key in ("difficulty", "damage"):
            given = getattr(card, key) is not None
            if card.effect == "weapon" and not given:
                raise doc.error(at, f"card '{card.name}': a Weapon needs '{key}' (1-9)")
            if card.effect != "weapon" and given:
                raise doc.error((*at, key), f"card '{card.name}': '{key}' is for Weapons only")
        names.append(card.name)
    copies = np.array([c.copies for c in deck.cards], np.int64)
    if int(copies.sum()) > K.MAX_D:
        raise doc.error(("deck",), f"the deck may hold at most {K.MAX_D} cards, got "
                        f"{int(copies.sum())}")
    for need in ("weapon", "parry"):
        if all(c.effect != need for c in deck.cards):
            raise doc.error(("deck",), f"the deck needs at least one card with effect '{need}'")
    return (tuple(names), np.array([EFFECTS[c.effect] for c in deck.cards], np.int64),
            np.array([c.difficulty or 0 for c in deck.cards], np.int64),
            np.array([c.damage or 0 for c in deck.cards], np.int64), copies)


def _setup(doc: Document, n: int, table: SetupFile) -> Setup:
    """One player count's setup, with the checks across its fields."""
    at = ("players", str(n))
    roles = table.roles
    if len(roles) != n:
        raise doc.error((*at, "roles"), f"must list {n} roles, got {len(roles)}")
    if roles.count("shogun") != 1:
        raise doc.error((*at, "roles"), "needs exactly one shogun")
    if not 1 <= roles.count("ninja") <= 3:
        raise doc.error((*at, "roles"), "needs 1-3 ninja (there are three Ninja cards)")
    honor, mult = {}, {}
    for role in sorted(set(roles)):
        for key, out in (("honor", honor), ("multiplier", mult)):
            value = getattr(getattr(table, key), role)
            if value is None:
                raise doc.error((*at, key), f"needs a value for the role '{role}'")
            out[role] = int(value)
    return Setup(
        roles=tuple(roles), honor=honor, multiplier=mult,
        ninja_most_stars=table.multiplier.ninja_most_stars,
        shogun_extra_draw=table.shogun_extra_draw,
        shogun_extra_weapons=table.shogun_extra_weapons,
        shogun_bushido_honor=table.shogun_bushido_honor, swordmaster=table.swordmaster,
    )


def parse_content(path: Path) -> Content:
    """Load and validate a Samurai Sword content file (schema SwordFile); every error is
    one line naming the file, the line and the field."""
    doc = read_document(Path(path))
    game = doc.data.get("content", {}).get("game") if isinstance(
        doc.data.get("content"), dict) else None
    if game is not None and game != "samurai-sword":
        raise doc.error(("content", "game"), f"content is for '{game}', not samurai-sword")
    f = doc.convert(SwordFile)
    names, eff, diff, dmg, copies = _cards(doc, f.deck)
    chars = f.characters.entries
    char_names = [c.name for c in chars]
    for i, name in enumerate(char_names):
        if name in char_names[:i]:
            raise doc.error(("characters", "list", i, "name"),
                            f"character '{name}' appears twice")
    setups = {}
    for key in f.players:  # (msgspec names no dict key in its errors: one table at a time)
        if key not in {str(n) for n in range(MIN_P, MAX_P + 1)}:
            raise doc.error(("players", key), f"player count '{key}' must be {MIN_P}-{MAX_P}")
        setups[int(key)] = _setup(doc, int(key), doc.convert(SetupFile, ("players", key)))
    hands = tuple(int(h) for h in f.rules.hands)
    if sum(hands) >= int(copies.sum()):
        raise doc.error(("rules", "hands"), f"starting hands use the whole deck of "
                        f"{int(copies.sum())} cards")
    r = f.rules
    data = SwordContent(
        card_names=names, effects=eff, difficulty=diff, damage=dmg, copies=copies,
        char_names=tuple(char_names), resilience=np.array([c.resilience for c in chars],
                                                          np.int64),
        abilities=np.array([ABILITIES[c.ability] for c in chars], np.int64), setups=setups,
        draw=r.draw, hand_limit=r.hand_limit, weapons_per_turn=r.weapons_per_turn,
        daimyo_honor=r.daimyo_honor, deadly_strike=r.deadly_strike, hands=hands,
    )
    meta = f.content
    return Content(
        name=meta.name or Path(path).stem, version=str(meta.version), path=Path(path),
        sha256=sha256(doc.raw), assumed=meta.assumed, description=meta.description,
        data=data,
    )


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
        st = self.state(prep, aggs, rotation=rotation)
        budget, c, rollout = self.search_settings(prep, st)
        ws = KSP.new_workspace(st, deny, int(budget.max()), search_knobs(), KS.TABLE,
                               self.sizes(prep))
        KSP.play_chunk_search(st, ws, deny, np.uint64(seed), np.int64(first),
                              np.int64(count), out, budget, c, rollout,
                              np.int64(SEARCH_MAX_ROLLOUT))
        return int(ws.moves[0])

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
        if not 0 <= option < K.N_OPTIONS:
            raise UserError(f"option {option} out of range 0-{K.N_OPTIONS - 1}")
        c: SwordContent = content.data
        if option == K.WEAPON or option >= K.OPT_NOBUNAGA:
            return None
        gone = c.effects == option
        if not gone.any():
            return None
        copies = np.where(gone, 0, c.copies)
        if sum(c.hands) >= int(copies.sum()):
            return None
        return replace(content, name=f"{content.name} without {OPTION_NAMES[option]}",
                       data=replace(c, copies=copies))

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


STAT = {s.name: s for s in KS.TABLE}


def named_stats(aggs: dict[str, np.ndarray], c: SwordContent, players: int) -> dict[str, Any]:
    """The statistics under the plain names the report reads (which knows nothing of
    kernels), split along the table's labelled dimensions."""
    team = columns(STAT["team"], aggs["team"])
    scores = columns(STAT["scores"], aggs["scores"])
    misc = columns(STAT["misc"], aggs["misc"])
    return {
        "players": players,
        "games": int(aggs["ends"].sum()),
        "teams": list(TEAMS),
        "team_games": team["games"],
        "team_honor_wins": team["honor_wins"],
        "team_sword_wins": team["sword_wins"],
        "roles": list(ROLES),
        "seat": aggs["seat"][:players],
        "char_names": list(c.char_names),
        "char_resilience": c.resilience,
        "chars": aggs["chars"],
        "end_names": list(END_REASONS),
        "ends": aggs["ends"],
        "turns": aggs["turns"],
        "reshuffles": aggs["reshuffles"],
        "margin": aggs["margin"],
        "score_n": scores["n"],
        "score_sum": scores["sum"],
        "score_sq": scores["sq"],
        "card_names": list(c.card_names),
        "card_copies": c.copies,
        "card_played": aggs["cards"],
        "misc": {k: int(v) for k, v in misc.items()},
        # per rate counted over events within a game: (sum y_g^2, sum x_g^2, sum x_g y_g)
        "clustered": {k: tuple(int(x) for x in v)
                      for k, v in columns(STAT["clustered"], aggs["clustered"], 0).items()},
    }


# --- one game, step by step ---------------------------------------------------------------

PHASE_WORDS = {
    K.PH_OVER: "the game is over", K.PH_PLAY: "Play phase",
    K.PH_PARRY: "answering a Weapon attack", K.PH_BATTLE_CRY: "answering a Battle Cry",
    K.PH_JUJUTSU: "answering Jujutsu", K.PH_BUSHIDO: "answering Bushido's Weapon",
    K.PH_IEYASU: "Ieyasu's first draw", K.PH_DISCARD: "discarding down to the hand limit",
}
HONOR_WHY = {K.HONOR_DEFEAT: "defeat", K.HONOR_RESHUFFLE: "deck reshuffle",
             K.HONOR_BUSHIDO: "Bushido"}
DISCARD_WHY = {K.DISCARD_LIMIT: "over the hand limit", K.DISCARD_JUJUTSU: "to Jujutsu",
               K.DISCARD_BUSHIDO: "to Bushido", K.DISCARD_GEISHA: "to a Geisha",
               K.DISCARD_BATTLE_CRY: "to parry a Battle Cry"}
LOG_ROWS = 1 << 16


class SwordHandle(GameHandle):
    """One Samurai Sword playout driven step by step, with its log in words."""

    def __init__(self, game: SamuraiSword, prep: Prepared, seed: int, playout: int,
                 rotation: int = 0) -> None:
        self.game = game
        self.prep = prep
        self.c: SwordContent = prep.content
        self.aggs = game.new_aggregates(prep)
        self.st = game.state(prep, self.aggs, log_rows=LOG_ROWS, rotation=rotation)
        self.log_buf = self.st.log
        self.log_n = self.st.game[0]["log_n"]  # a view: the kernels count into it
        self.max_actions = K.n_actions(len(prep.copies))
        self.forbid = np.zeros((MAX_P, K.N_OPTIONS), np.bool_)  # tests may forbid options
        self.seed = np.uint64(seed)
        self.playout = np.int64(playout)
        self.decisions = 0  # decisions taken so far (keys a search player's streams)
        self.search = game.search_settings(prep, self.st)
        self.ws = (KSP.new_workspace(self.st, self.forbid, int(self.search[0].max()),
                                     search_knobs(), KS.TABLE, game.sizes(prep))
                   if self.search[0].max() > 0 else None)
        self.k = KernelCalls(KP.run, self.forbid, seed, out_size=KP.N_ROW)
        self._k(Call.SETUP, self.playout)

    # --- hooks ---
    def current_player(self) -> int:
        """Seat (from 0) that must decide now, on its turn or out of it; -1 when over."""
        return self._k(Call.TO_MOVE)

    def _legal(self, out: np.ndarray) -> int:
        return self._k(Call.LEGAL, out=out)

    def _apply(self, action: int) -> None:
        self._k(Call.APPLY, action)
        self.decisions += 1

    def _choose(self) -> int:
        seat = self._k(Call.TO_MOVE)
        budget, c, rollout = self.search
        if self.ws is not None and seat >= 0 and budget[seat] > 0:
            return int(KSP.search_choose(
                KH.wrap(self.st, self.forbid, self.ws.scratch.knobs), self.ws, self.forbid,
                self.seed, self.playout, np.int64(self.decisions), budget[seat], c[seat],
                rollout[seat], np.int64(SEARCH_MAX_ROLLOUT)))
        return self._k(Call.CHOOSE)

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return bool(self._k(Call.IS_OVER))

    def turn(self) -> int:
        """The turn being played (0 during setup)."""
        return int(self.st.game[0]["log_turn"])

    def row(self) -> dict[str, int]:
        """The finished game's --save-games row, by column name."""
        self._k(Call.ROW)
        row = self.k.out[:KP.N_ROW]
        return {c: int(v) for c, v in zip(self.game.row_columns, row, strict=True)}

    def outcome(self) -> dict[str, Any]:
        """Winning team and seats, how the game ended, its length and the team scores."""
        g = self.st.game[0]
        win = int(g["win"])
        self._k(Call.OUTCOME)
        out = self.k.fout[:MAX_P]
        P = int(g["players"])
        scored = int(g["end"]) not in (KS.End.CAP, KS.End.SWORDMASTER)
        scores = {TEAMS[t]: int(g["team_score"][t]) for t in range(K.N_TEAM)
                  if scored and g["team_size"][t] > 0}
        return {
            "winners": [s + 1 for s in range(P) if out[s] > 0],
            "team": TEAMS[win] if win >= 0 else None,
            "end": END_REASONS[int(g["end"])],
            "length": int(g["turns"]),
            "scores": scores,
            "roles": {s + 1: self.role_name(s) for s in range(P)},
        }

    def observation(self, player: int) -> dict[str, Any]:
        """What seat `player` (from 0) can see now (rules.observe), in words."""
        T = len(self.c.card_names)
        v = np.zeros(K.obs_size(T), np.int64)
        self._k(Call.OBSERVE, player, out=v)
        P = int(v[K.OBS_PLAYERS])
        seats = {}
        for s in range(P):
            b = K.OBS_HEAD + s * (K.OS_FIELDS + T)
            props = v[b + K.OS_FIELDS:b + K.OS_FIELDS + T]
            seats[s + 1] = {
                "character": self.c.char_names[v[b + K.OS_CHAR]],
                "resilience": f"{v[b + K.OS_RES]}/{v[b + K.OS_MAX_RES]}",
                "honor": int(v[b + K.OS_HONOR]), "cards in hand": int(v[b + K.OS_HAND]),
                "properties": self.cards_in(props),
                "hostile acts against the Shogun": int(v[b + K.OS_HOSTILE]),
                "hostile acts against the Shogun's attackers": int(v[b + K.OS_LOYAL]),
            }
        i = K.OBS_HEAD + K.MAX_P * (K.OS_FIELDS + T)
        role = ROLES[v[K.OBS_ROLE]]
        mine = {"seat": player + 1, "role": role, "score multiplier": int(v[K.OBS_MULT]),
                "hand": self.cards_in(v[i:i + T])}
        if role == "ninja":
            mine["ninja stars"] = int(v[K.OBS_STARS])
        return {
            "you": mine, "shogun": f"seat {v[K.OBS_SHOGUN] + 1}",
            "turn": int(v[K.OBS_TURN]), "turn of": f"seat {v[K.OBS_ACTOR] + 1}",
            "deciding": (f"seat {v[K.OBS_TO_MOVE] + 1}: {PHASE_WORDS[int(v[K.OBS_PHASE])]}"
                         if v[K.OBS_TO_MOVE] >= 0 else PHASE_WORDS[K.PH_OVER]),
            "deck": int(v[K.OBS_DECK]), "discard pile": self.cards_in(v[i + T:i + 2 * T]),
            "bushido in front of": (f"seat {v[K.OBS_BUSHIDO] + 1}" if v[K.OBS_BUSHIDO] >= 0
                                    else None),
            "weapons played this turn": int(v[K.OBS_WEAPONS_PLAYED]),
            "reshuffles": int(v[K.OBS_RESHUFFLES]),
            "players": seats,
        }

    def describe_action(self, action: int) -> str:
        """An action of the player to act, in words."""
        ph = int(self.st.game[0]["phase"])
        a = int(action)
        if ph == K.PH_PLAY:
            return self.describe_play(a)
        card = self.card(a - K.GIVE) if a >= K.GIVE else ""
        attacker = self.who(int(self.st.game[0]["attacker"]))
        words = {
            K.PH_PARRY: ("takes the hit", f"parries {attacker}'s Weapon with {card}"),
            K.PH_BATTLE_CRY: ("takes 1 wound from the Battle Cry",
                              f"parries {attacker}'s Battle Cry with {card}"),
            K.PH_JUJUTSU: ("takes 1 wound from Jujutsu", f"discards {card} to Jujutsu"),
            K.PH_BUSHIDO: ("loses 1 Honor to Bushido (Bushido is discarded)",
                           f"gives {card} to Bushido (Bushido passes on)"),
            K.PH_DISCARD: ("", f"discards {card} (hand limit)"),
        }
        if ph == K.PH_IEYASU:
            g = self.st.game[0]
            top = self.card(int(g["disc"][int(g["disc_n"]) - 1]))
            return (f"Ieyasu takes {top} from the discard pile" if a == K.IEYASU
                    else f"Ieyasu leaves {top} and draws from the deck")
        passed, gave = words[ph]
        return passed if a == K.PASS else gave

    def describe_play(self, a: int) -> str:
        """A Play phase action in words."""
        if a == K.PASS:
            return "ends the turn"
        if a == K.NOBUNAGA:
            return "Nobunaga pays 1 resilience to draw a card"
        self._k(Call.PARTS, a)
        t, q, o = (int(x) for x in self.k.out[:3])
        card = self.card(t)
        e = int(self.c.effects[t])
        if e == K.WEAPON:
            return f"attacks {self.who(q)} with {card}"
        if e == K.BUSHIDO:
            return f"puts Bushido in front of {self.who(q)}"
        if e >= K.FOCUS:
            return f"puts {card} in front of itself"
        if e == K.BREATHING:
            return f"plays Breathing: heals fully, {self.who(q)} draws a card"
        if e == K.DIVERSION:
            return f"plays Diversion on {self.who(q)}: takes a random card from its hand"
        if e == K.GEISHA:
            what = f"its {self.card(o)}" if o >= 0 else "a random card from its hand"
            return f"plays Geisha on {self.who(q)}: discards {what}"
        return f"plays {card}"

    def describe_event(self, kind: int, a: int, b: int, c: int, d: int) -> tuple[str, str]:
        """(kind name, detail in words) of a logged event."""
        name, say = EVENT_WORDS[kind]
        return name, say(self, a, b, c, d)

    # --- words ---
    def card(self, t: int) -> str:
        """A card type's name."""
        return self.c.card_names[t]

    def cards_in(self, counts: np.ndarray) -> dict[str, int]:
        """{card name: count} for the non-zero counts by card type."""
        return {self.card(t): int(n) for t, n in enumerate(counts) if n}

    def who(self, s: int) -> str:
        """'seat N (Character)'."""
        char = int(self.st.seats[s]["char"])
        return f"seat {s + 1} ({self.c.char_names[char]})"

    def role_name(self, s: int) -> str:
        """A seat's role, capitalised."""
        return ROLES[int(self.st.seats[s]["role"])].capitalize()


def _role(h: SwordHandle, a: int, b: int, c: int, d: int) -> str:
    stars = f", {b} star{'s' if b != 1 else ''}" if ROLES[a] == "ninja" else ""
    return f"role {ROLES[a].capitalize()}{stars}, score x{c}, {d} Honor"


def _honor(h: SwordHandle, a: int, b: int, c: int, d: int) -> str:
    change = f"gains {a}" if a > 0 else f"loses {-a}"
    whom = f" ({'to' if a < 0 else 'from'} seat {d + 1})" if d >= 0 else ""
    return f"{change} Honor{whom}, now {b} ({HONOR_WHY[c]})"


def _end(h: SwordHandle, a: int, b: int, c: int, d: int) -> str:
    sword = f": {TEAMS[b]}" if a == KS.End.SWORDMASTER else ""
    return f"the game ends: {END_REASONS[a]}{sword}"


def _result(h: SwordHandle, a: int, b: int, c: int, d: int) -> str:
    if a < 0:
        return "no winner (turn cap)"
    seats = ", ".join(f"{s + 1} ({h.role_name(s)})" for s in range(K.MAX_P) if b >> s & 1)
    deadly = f"; Deadly Strike on {TEAMS[c]}" if c >= 0 else ""
    return f"{TEAMS[a]} win: seats {seats}{deadly}"


def _remove(h: SwordHandle, a: int, b: int, c: int, d: int) -> str:
    if b >= 0:
        return f"{h.who(a)} loses its {h.card(b)} in play"
    return f"{h.who(a)} discards {h.card(c)} at random from its hand"


EVENT_WORDS = {
    K.EV_ROLE: ("role", _role),
    K.EV_CHARACTER: ("character", lambda h, a, b, c, d:
                     f"character {h.c.char_names[a]}, resilience {b}"),
    K.EV_DEAL: ("deal", lambda h, a, b, c, d: f"dealt {h.card(a)}"),
    K.EV_TURN: ("turn", lambda h, a, b, c, d:
                f"starts its turn: resilience {a}, {b} cards in hand"),
    K.EV_RECOVER: ("recover", lambda h, a, b, c, d: f"recovers all resilience ({a})"),
    K.EV_DRAW: ("draw", lambda h, a, b, c, d:
                f"draws {h.card(a)}{' from the discard pile' if b else ''}"),
    K.EV_RESHUFFLE: ("reshuffle", lambda h, a, b, c, d:
                     f"the deck is empty: {a} discards reshuffled (reshuffle {b}), every "
                     f"player loses 1 Honor"),
    K.EV_HONOR: ("honor", _honor),
    K.EV_ATTACK: ("attack", lambda h, a, b, c, d:
                  f"attacks {h.who(a)} with {h.card(b)} (Difficulty {c}, {d} "
                  f"wound{'s' if d != 1 else ''} if it hits)"),
    K.EV_PARRY: ("parry", lambda h, a, b, c, d:
                 f"parries seat {b + 1}'s attack with {h.card(a)}"),
    K.EV_WOUND: ("damage", lambda h, a, b, c, d:
                 f"takes {a} wound{'s' if a != 1 else ''} from seat {d + 1}: loses {b} "
                 f"resilience, {c} left"),
    K.EV_DEFEAT: ("defeat", lambda h, a, b, c, d:
                  f"is defeated by {h.who(a)} (Harmless until its turn)"),
    K.EV_DISCARD: ("discard", lambda h, a, b, c, d:
                   f"discards {h.card(a)} {DISCARD_WHY[b]}"),
    K.EV_PROPERTY: ("property", lambda h, a, b, c, d:
                    f"{h.card(a)} now in front of {h.who(b)}"),
    K.EV_TAKE: ("diversion", lambda h, a, b, c, d:
                f"takes {h.card(a)} at random from {h.who(b)}"),
    K.EV_REMOVE: ("geisha", _remove),
    K.EV_HEAL: ("heal", lambda h, a, b, c, d: f"Breathing: resilience back to {a}"),
    K.EV_BUSHIDO_FLIP: ("bushido", lambda h, a, b, c, d:
                        f"Bushido turns up {h.card(a)}"
                        f"{': a Weapon!' if h.c.effects[a] == K.WEAPON else ''}"),
    K.EV_BUSHIDO_MOVE: ("bushido", lambda h, a, b, c, d:
                        f"Bushido passes to {h.who(a)}" if a >= 0
                        else "Bushido is discarded"),
    K.EV_NOBUNAGA: ("nobunaga", lambda h, a, b, c, d:
                    f"pays 1 resilience ({a} left) to draw"),
    K.EV_EMPTY: ("draw", lambda h, a, b, c, d: "nothing to draw: deck and discard pile "
                 "are empty"),
    K.EV_END: ("end", _end),
    K.EV_SCORE: ("score", lambda h, a, b, c, d: f"{TEAMS[a]} score {b}"),
    K.EV_RESULT: ("result", _result),
    K.EV_HAND: ("hand", lambda h, a, b, c, d: f"ends the game holding {a} {h.card(b)}"),
}
