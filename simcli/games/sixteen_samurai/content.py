"""Sixteen Samurai content: the roster file's schema, loading and checking it, the Roster it
becomes, and editing a roster in memory (a battle card taken out, a samurai made average)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

import msgspec
import numpy as np

from kernels.dice import MAX_DICE
from kernels.sixteen_samurai.stats import Ability, Battle
from simcli.content import Document
from simcli.errors import UserError
from simcli.games.base import Content, read_toml, sha256

ABILITIES = tuple(a.name.lower() for a in Ability)  # ("power", "speed", "armor", "karma")
BATTLE_CARDS = tuple(b.name.title() for b in Battle)  # ("Ninjutsu", "Uma", ... "Medicine")
MAX_COPIES = 10  # [battle]: copies of one battle card a clan may hold


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


def without_battle_card(content: Content, option: int) -> Content | None:
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


def with_average_samurai(content: Content, card: int) -> Content:
    """The roster with samurai `card`'s ratings replaced by the roster's average
    ratings (each rating the mean over the roster, rounded), its name kept."""
    roster: Roster = content.data
    ratings = roster.ratings.copy()
    ratings[card] = np.rint(roster.ratings.mean(axis=0)).astype(ratings.dtype)
    totals = roster.totals.copy()
    totals[card] = int(ratings[card].sum())
    return replace(content, data=replace(roster, ratings=ratings, totals=totals),
                   name=f"{content.name} with {roster.names[card]} made average")
