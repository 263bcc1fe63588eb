"""Samurai Sword content: the content file's schema (msgspec structs), loading and checking
it, the card, character and per-count setup data it becomes, and that content without an
option's cards (`simcli value`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import numpy as np

from kernels.samurai_sword import rules as K
from simcli.content import Document, read_document
from simcli.errors import UserError
from simcli.games.base import Content, sha256

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
MIN_P, MAX_P = 3, K.MAX_P
# The options a player can be denied (`simcli value`), in the kernel's forbid columns
# (rules.OPTIONS): playing each card kind, parrying (a Parry, or Hanzo's Weapon, against a
# Weapon or a Battle Cry), Nobunaga's draw and Ieyasu's draw from the discard pile.
OPTION_NAMES = ("Weapon", "Parry", "Geisha", "Diversion", "Battle Cry", "Tea Ceremony",
                "Jujutsu", "Breathing", "Daimyo", "Focus", "Armor", "Fast Draw", "Bushido",
                "Nobunaga's draw", "Ieyasu's discard draw")
assert len(OPTION_NAMES) == len(K.OPTIONS) == K.N_OPTIONS


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


def without_option(content: Content, option: int) -> Content | None:
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
