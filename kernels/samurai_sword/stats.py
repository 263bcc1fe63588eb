"""Samurai Sword's statistics table: what a chunk of games adds up, one `Stat` per array.

The fixed dimensions are IntEnums whose members are the kernels' column indices (the
rules count `game.misc[Misc.ATTACKS] += 1` during a game, which joins `st.aggs.misc` when
the game ends); roles, teams and end reasons are the game's own categories, declared here
because they label statistics. Run-time sizes:
"seat" (the most players, 7), "character" (characters in the content), "card" (card
types in the content), "length", "reshuffles" and "margin" (histogram bins).
"""

from enum import IntEnum

from kernels.stat_table import Stat, aggregates_type


class Role(IntEnum):
    """A player's secret role (the Shogun's is public)."""

    SHOGUN = 0
    SAMURAI = 1
    NINJA = 2
    RONIN = 3


class Team(IntEnum):
    """The teams that win together: Shogun and Samurai, the Ninjas, the Ronin alone."""

    SHOGUN = 0
    NINJA = 1
    RONIN = 2


class End(IntEnum):
    """Why a game ended (NONE while it is being played)."""

    NONE = 0
    HONOR_DEFEAT = 1  # a defeated player gave away its last Honor
    HONOR_DECK = 2  # the deck reshuffle took someone's last Honor
    HONOR_BUSHIDO = 3  # Bushido took someone's last Honor
    SWORDMASTER = 4  # Victory of the Swordmaster
    TEAMMATE = 5  # one player left with resilience after a teammate's defeat: scored
    CAP = 6  # safety cap on turns


class TeamCount(IntEnum):
    """Per team: games it took part in, games won on Honor, games won by the Swordmaster."""

    GAMES = 0
    HONOR_WINS = 1
    SWORD_WINS = 2


class Outcome(IntEnum):
    """Games played and games won."""

    GAMES = 0
    WINS = 1


class Moment(IntEnum):
    """Sufficient statistics of a score: count, sum, sum of squares."""

    N = 0
    SUM = 1
    SQ = 2


class Misc(IntEnum):
    """Counts of things that happen during play (the report's names, lower case)."""

    ATTACKS = 0
    PARRIED = 1
    HITS = 2
    WEAPON_WOUNDS = 3
    DEFEATS = 4
    TEAMMATE_DEFEATS = 5  # defeats by a teammate
    DEADLY_STRIKES = 6  # games ending with a Deadly Strike
    TIE_DECIDED = 7  # Honor games decided by the tie rule
    EMPTY_DRAWS = 8  # draws with deck and discard pile both empty
    BATTLE_CRY_PARRIES = 9
    BATTLE_CRY_WOUNDS = 10
    JUJUTSU_DISCARDS = 11
    JUJUTSU_WOUNDS = 12
    BUSHIDO_FLIPS = 13
    BUSHIDO_HONOR = 14
    BUSHIDO_WEAPONS = 15
    NOBUNAGA_DRAWS = 16
    IEYASU_DISCARD_DRAWS = 17
    HANZO_WEAPON_PARRIES = 18
    TOMOE_DRAWS = 19
    USHIWAKA_DRAWS = 20
    SHARED_WINS = 21  # games won by a team of two or more seats
    PLAYS = 22  # cards played and Nobunaga draws


class Ratio(IntEnum):
    """Rates counted over several events of one game (successes / observations, from
    Misc): attacks parried, Battle Cry targets that parried, defeats by a teammate,
    Bushido Weapons paid with Honor."""

    PARRIED = 0  # PARRIED / ATTACKS
    BATTLE_CRY_PARRIED = 1  # BATTLE_CRY_PARRIES / (BATTLE_CRY_PARRIES + BATTLE_CRY_WOUNDS)
    TEAMMATE_DEFEATS = 2  # TEAMMATE_DEFEATS / DEFEATS
    BUSHIDO_HONOR = 3  # BUSHIDO_HONOR / (BUSHIDO_HONOR + BUSHIDO_WEAPONS)


class Square(IntEnum):
    """Per-game sums of squares of a ratio's successes y_g and observations x_g, summed
    over games: y_g^2, x_g^2, x_g y_g (for the cluster-robust interval)."""

    YY = 0
    XX = 1
    XY = 2


N_LEN = 400  # game length histogram bins, in turns (last: that many or more)
N_RESH = 16  # reshuffle histogram bins
N_MARGIN = 64  # winning margin histogram bins

TABLE = (
    Stat("team", (Team, TeamCount), "games",
         "per team: games it was in, games won on Honor, games won by the Swordmaster"),
    Stat("seat", ("seat", Role, Outcome), "games",
         "per seat and role dealt to it: games, games its team won"),
    Stat("chars", ("character", Role, Outcome), "games",
         "per character and role of its player: games, games its team won"),
    Stat("ends", (End,), "games", "games ended for each reason"),
    Stat("turns", ("length",), "games", "games by length in turns (last bin: that or more)"),
    Stat("reshuffles", ("reshuffles",), "games",
         "games by number of deck reshuffles (last bin: that or more)"),
    Stat("margin", ("margin",), "games",
         "games scored on Honor by the winning team's lead over the next team"),
    Stat("scores", (Team, Moment), "points",
         "per team present in a scored game: count, sum and sum of squares of its score"),
    Stat("cards", ("card",), "cards", "cards of each type played from hand"),
    Stat("misc", (Misc,), "events", "counts of attacks, parries, wounds, abilities ..."),
    Stat("clustered", (Ratio, Square), "events^2",
         "per rate counted over events within a game: sums over games of y_g^2, x_g^2 and "
         "x_g y_g (y successes, x observations in game g)"),
)

SwordAggs = aggregates_type(TABLE, "SwordAggs", module=__name__)


def sizes(characters: int, card_types: int, max_players: int = 7) -> dict[str, int]:
    """The run-time sizes of the table's named dimensions."""
    return {"seat": max_players, "character": characters, "card": card_types,
            "length": N_LEN, "reshuffles": N_RESH, "margin": N_MARGIN}
