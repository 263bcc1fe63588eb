"""Samsara's statistics table: every aggregate a chunk of playouts adds up, declared once.

The IntEnums are the kernels' column indices (numba reads their members as constants);
the named sizes ("length", "goals", "points", "point_diff") come from `SIZES`.
"""

from enum import IntEnum

from kernels.stat_table import Stat, aggregates_type

N_LEN = 600  # length histogram bins in turns (the last: that many or more)
N_PTS = 49  # competition points 0..48 per seat
N_GOALS = 8  # a scoring track holds 0..7 goals (3 bits of the position key)
SIZES = {"length": N_LEN, "goals": N_GOALS, "points": N_PTS, "point_diff": 2 * N_PTS - 1}


class Outcome(IntEnum):
    """Who won a playout or one game: a seat, or nobody."""

    SEAT1 = 0
    SEAT2 = 1
    DRAW = 2


class Start(IntEnum):
    """A game's result seen from its start player."""

    START_PLAYER = 0
    SECOND_PLAYER = 1
    DRAW = 2


class MatchGame(IntEnum):
    """A game's place in the playout (a single game is game 1)."""

    GAME1 = 0
    GAME2 = 1


class Seat(IntEnum):
    """A seat: seat 1 plays the round lane and goal, seat 2 the square ones."""

    SEAT1 = 0
    SEAT2 = 1


class End(IntEnum):
    """How a game ended."""

    DIRECT = 0  # a scoring marble reached the centre and the game ended at once
    EXTRA_FAIL = 1  # match: the start player reached it; the other's extra turn did not
    BOTH = 2  # match: both reached it; marbles on each side decide
    MOKSHA = 3  # the player to move had no legal turn: a draw
    CAPPED = 4  # the safety cap on turns stopped the game


class Misc(IntEnum):
    """Counters of turns and games."""

    TURNS = 0  # turns played (one player's move)
    GAMES = 1  # games played (two per match)
    SINGLE_DIE = 2  # turns where only one die could be played
    CAPPED = 3  # playouts with a game stopped by the safety cap
    FALLBACK = 4  # random turns drawn from the listed turns after the sampler gave up
    EXTRA_MOKSHA = 5  # match: extra turns with no legal turn (Moksha in the extra turn)


class Cluster(IntEnum):
    """Rates counted several times per playout (turns; games of a match): y_g successes out
    of x_g observations in playout g. Per-playout sums of squares give them clustered
    intervals (reports.stats.ratio_rate)."""

    SINGLE_DIE = 0  # y: turns where only one die could be played; x: turns
    START_WINS = 1  # y: games won by their start player; x: games
    SECOND_WINS = 2  # y: games won by the other player; x: games
    START_DECISIVE = 3  # y: games won by their start player; x: decided games
    END_DIRECT = 4  # y: games ended by End.DIRECT (END_DIRECT + e: by End e); x: games
    END_EXTRA_FAIL = 5
    END_BOTH = 6
    END_MOKSHA = 7
    END_CAPPED = 8


class Moment(IntEnum):
    """Per-playout sums of a clustered rate's counts: y_g^2, x_g^2, x_g * y_g."""

    YY = 0
    XX = 1
    XY = 2


TABLE = (
    Stat("wins", (Outcome,), "playouts",
         "playouts won by each seat (the game's winner, or the match's in competition), "
         "and drawn ones (Moksha, a drawn match, the safety cap)"),
    Stat("starts", (Start,), "games",
         "games won by their start player, by the other player, and drawn (every game of "
         "a match counts)"),
    Stat("game_wins", (MatchGame, Outcome), "games",
         "each game of the playout (game 2 only in competition) won by each seat or drawn"),
    Stat("ends", (End,), "games", "games by how they ended"),
    Stat("game_len", ("length",), "games", "games by their length in turns"),
    Stat("length", ("length",), "playouts",
         "playouts by their length in turns (both games of a match)"),
    Stat("goals", (Seat, "goals"), "games", "games by the goals each seat had at the end"),
    Stat("goal_moves", (Seat, Seat), "goals",
         "goals scored, by the seat whose turn scored them and the seat they count for"),
    Stat("loser", ("goals",), "games", "decided games by the loser's goals at the end"),
    Stat("points", (Seat, "points"), "matches",
         "competition: matches by each seat's points (last bin: that many or more)"),
    Stat("diff", ("point_diff",), "matches",
         "competition: matches by seat 1's points minus seat 2's, shifted by N_PTS - 1"),
    Stat("misc", (Misc,), "count", "turns, games, single-die turns, capped playouts, "
         "the random player's listed draws and Moksha in a match's extra turn"),
    Stat("clusters", (Cluster, Moment), "sums",
         "per-playout sums of squares of the rates counted several times per playout "
         "(Cluster: y_g and x_g; Moment: sum of y_g^2, x_g^2, x_g y_g over playouts)"),
)

Aggregates = aggregates_type(TABLE, "Aggregates", module=__name__)
