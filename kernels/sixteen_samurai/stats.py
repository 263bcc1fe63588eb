"""Sixteen Samurai statistics: the table every run's aggregates are built from.

Each fixed dimension is an IntEnum whose members are the kernel's column indices; the
other dimensions are sizes known at run time (`sizes` in simcli/games/sixteen_samurai/game.py):
"seat" (4, the most players), "length" (N_LEN bins), "round" (N_DECL bins), "participants"
(0-4), "card" (roster size), "clan_total" (bins of a clan's ability total) and
"fb_players" (0-4).
"""

from enum import IntEnum

from kernels.stat_table import Stat, aggregates_type

N_LEN = 128  # length histogram bins (last bin: that many or more)
N_DECL = 32  # declarer statistics per round index (last: that round or later)


class Phase(IntEnum):
    """The game's two phases."""

    CLAN_CONFLICT = 0
    FINAL_BATTLE = 1


class Span(IntEnum):
    """What a length counts: Clan Conflict rounds, Final Battle rounds, both."""

    CLAN_CONFLICT = 0
    FINAL_BATTLE = 1
    WHOLE_GAME = 2


class Outcome(IntEnum):
    """A count and how many of those were won."""

    COUNT = 0
    WON = 1


class Ability(IntEnum):
    """The four abilities a round can be fought in (a samurai's rating columns)."""

    POWER = 0
    SPEED = 1
    ARMOR = 2
    KARMA = 3


class Battle(IntEnum):
    """The five battle cards; every clan holds [battle] copies of each (printed: one)."""

    NINJUTSU = 0
    UMA = 1
    RONIN = 2
    BUSHIDO = 3
    MEDICINE = 4


class CardStat(IntEnum):
    """Per samurai card (contested Clan Conflict rounds unless named otherwise)."""

    DRAFTED = 0
    PICK_SUM = 1  # sum of its pick numbers (from 1)
    PICK_SQ = 2  # sum of their squares
    FIELDED = 3
    FIELDED_K2 = 4  # fielded in a round of 2, 3, 4 participants
    FIELDED_K3 = 5
    FIELDED_K4 = 6
    FIELD_WON = 7
    IN_FINAL = 8  # games in which it reached the Final Battle
    SURVIVED = 9  # in the champion's hand at the end
    OWNER_WON = 10  # games its owner won
    FB_FIELDED = 11
    FB_WON = 12


class BattleStat(IntEnum):
    """Per battle card kind. With several copies per clan, "played" and "held" mean at
    least one copy (played / held, none played); UNUSED_AT_END counts copies."""

    PLAYED_ROUNDS = 0  # contested rounds where a participant played it ...
    PLAYED_ROUNDS_WON = 1  # ... and took the round's samurai
    HELD_ROUNDS = 2  # contested rounds where a participant held it but did not play it
    HELD_ROUNDS_WON = 3
    PLAYED_GAMES = 4  # player-games in which it was played ...
    PLAYED_GAMES_WON = 5  # ... and the player won the game
    UNPLAYED_GAMES = 6
    UNPLAYED_GAMES_WON = 7
    UNUSED_AT_END = 8  # copies still unplayed when the Clan Conflict ended
    EFFECT = 9  # Medicine: samurai saved; Ronin: samurai stolen


class Clustered(IntEnum):
    """Rates counted over several rounds per game, whose intervals are clustered by game:
    (successes y, observations x) per game (issue 12)."""

    CC_DECLARER = 0  # Clan Conflict: rounds the declarer won / contested rounds it fought
    FB_DECLARER = 1  # Final Battle: the same
    TIEBREAK = 2  # Clan Conflict: rounds with a tiebreaker / contested rounds


class Moment(IntEnum):
    """Per-game sums of squares of a clustered rate: sum over games of y_g^2, x_g^2 and
    x_g * y_g (y successes, x observations in game g)."""

    YY = 0
    XX = 1
    XY = 2


class Misc(IntEnum):
    """Counters of the whole run."""

    CONTESTED_ROUNDS = 0
    UNCONTESTED_ROUNDS = 1
    TIEBREAK_ROUNDS = 2
    BATTLE_RESHUFFLES = 3
    DOUBLE_NINJUTSU = 4
    CAPPED_GAMES = 5
    FB_TIEBREAK_ROUNDS = 6


TABLE = (
    Stat("wins", ("seat",), "games", "games won by each seat"),
    Stat("lengths", (Span, "length"), "games", "games by length in rounds"),
    Stat("decl", (Phase, "round", "participants", Outcome), "rounds",
         "rounds the declarer fought, by round index and participants, and how many it won"),
    Stat("decl_ab", (Phase, Ability, Outcome), "rounds",
         "rounds the declarer fought, by declared ability, and how many it won"),
    Stat("cards", ("card", CardStat), "counts", "per samurai card"),
    Stat("clan", ("clan_total", Outcome), "clans",
         "clans by the ability total of their drafted samurai, and how many won"),
    Stat("battle", (Battle, BattleStat), "counts", "per battle card"),
    Stat("misc", (Misc,), "counts", "counters of the whole run"),
    Stat("fbp", ("fb_players",), "games", "games by the number of clans in the Final Battle"),
    Stat("clus", (Clustered, Moment), "sums",
         "per-game sums of squares of the rates counted over rounds (clustered intervals)"),
    Stat("card_clus", ("card", Moment), "sums",
         "per samurai: per-game sums of squares of (rounds won, contested rounds fielded)"),
)

Aggregates = aggregates_type(TABLE, "Aggregates", module=__name__)
