"""Samurai: The Card Game statistics: the table every chunk's aggregates are built from.

Each row is a `kernels.stat_table.Stat`; its fixed dimensions are the IntEnums below, whose
members are the column indices the rules write with (`st.aggs.misc[Misc.TIES] += 1`).
Run-time sizes: "seat" (always MAX_P columns, unused seats stay 0), "card" (kinds of card
in the content's player set), "end_mask" (every combination of the End bits), "length"
(turns, the last column counts longer games), "villages" (villages placed or scored, the
last column counts more) and "heat" (2 * heat radius + 1 cells per side).
"""

from __future__ import annotations

from enum import IntEnum

from kernels.stat_table import Stat, aggregates_type

MAX_P = 4  # seats in every per-seat statistic and row
N_LEN = 128  # columns of the length histogram
N_VH = 64  # columns of the villages histograms


class Outcome(IntEnum):
    """How a game ended for its players."""

    OUTRIGHT = 0  # one winner
    SHARED = 1  # a tie that remains: shared victory
    NONE = 2  # nobody dominates a shape


class WinBy(IntEnum):
    """Which branch of the winner rule decided the game."""

    TWO_SHAPES = 0  # two or three shapes dominated
    OTHER_SHAPES = 1  # most markers in the other two shapes
    TIEBREAK = 2  # tie broken by the count in the dominated shape
    SHARED = 3  # shared victory
    NONE = 4  # nobody dominates a shape


class End(IntEnum):
    """Why a game ended (bits: several can hold at once; `ends` counts each mask)."""

    MARKERS = 1  # a marker supply is empty
    VILLAGES = 2  # the last village card was placed
    CARDS = 4  # every card was played
    BLOCKED = 8  # no legal cell for the player to act (rare)


N_END = 16  # every combination of the End bits


class Shape(IntEnum):
    """Marker shapes (and the symbols of village cards)."""

    HELMET = 0  # triangle
    BUDDHA = 1  # circle
    RICE = 2  # square


class Moment(IntEnum):
    """Sum and sum of squares of a per-game count."""

    SUM = 0
    SQUARES = 1


class Dominated(IntEnum):
    """Number of shapes a player dominates at the end."""

    NO_SHAPE = 0
    ONE_SHAPE = 1
    TWO_SHAPES = 2
    THREE_SHAPES = 3


class Placed(IntEnum):
    """Rows of the villages histograms."""

    PLACED = 0  # villages on the table at the end (the first one included)
    SCORED = 1  # villages scored


class KindStat(IntEnum):
    """Per kind of card (line of the content's player set)."""

    PLAYED = 0
    CONTESTS = 1  # symbol scorings in which the card counted
    WON = 2  # ... whose marker its owner took
    TOUCHED = 3  # scored villages the card was next to
    TOUCH_MARKERS = 4  # markers those villages awarded
    TOUCH_WON = 5  # ... to the card's owner
    PLAY_WON = 6  # plays by a player who won the game outright


class Misc(IntEnum):
    """Counters over all games."""

    CONTESTS = 0  # symbol scorings
    TIES = 1  # ... tied (marker to nobody)
    SUBST = 2  # substitute markers given (supply empty)
    DISCARDED = 3  # tied markers put out of the game (tied-marker=discarded)
    OPEN1 = 4  # plays that opened 1 cell (chained ones included)
    OPEN2 = 5  # ... 2 cells
    OPEN3 = 6  # ... 3 cells
    CHAINED = 7  # villages placed by chained openings
    UNFILLED = 8  # openings left empty because the village deck ran out
    HEAT_OUT = 9  # villages scored outside the heatmap
    TURNS = 10  # turns (cards played)
    SCORED = 11  # villages scored
    PLACED = 12  # villages placed by plays (the first one not counted)
    SUBST_GAMES = 13  # games in which a substitute marker was given
    TIED_OUT = 14  # tied markers that found the supply already empty


class KindRatio(IntEnum):
    """Rates counted per observation within games, per kind of card: (successes,
    observations) as KindStat columns, see RATIO_PAIRS."""

    CONTEST_WON = 0  # WON / CONTESTS
    TOUCH_WON = 1  # TOUCH_WON / TOUCH_MARKERS
    PLAY_WON = 2  # PLAY_WON / PLAYED


# (successes, observations) KindStat columns of each KindRatio
RATIO_PAIRS = ((KindStat.WON, KindStat.CONTESTS), (KindStat.TOUCH_WON, KindStat.TOUCH_MARKERS),
               (KindStat.PLAY_WON, KindStat.PLAYED))


class MiscRatio(IntEnum):
    """Rates counted per contest or per turn within games (successes / observations as
    Misc columns, see MISC_PAIRS)."""

    TIED = 0  # TIES / CONTESTS
    OPEN1 = 1  # OPEN1 / TURNS
    OPEN2 = 2  # OPEN2 / TURNS
    OPEN3 = 3  # OPEN3 / TURNS


MISC_PAIRS = ((Misc.TIES, Misc.CONTESTS), (Misc.OPEN1, Misc.TURNS), (Misc.OPEN2, Misc.TURNS),
              (Misc.OPEN3, Misc.TURNS))


class CardGroup(IntEnum):
    """Kinds of card pooled: symbol cards and samurai cards."""

    SYMBOL = 0
    SAMURAI = 1


class Cross(IntEnum):
    """Per-game sums of a rate's successes y_g and observations x_g: sum over games of
    y_g^2, x_g^2 and x_g * y_g (the clustered interval of reports.stats.ratio_rate), and of
    y_g and x_g themselves."""

    YY = 0
    XX = 1
    XY = 2
    Y = 3
    X = 4


TABLE = (
    Stat("wins", ("seat",), "games", "games the seat won outright"),
    Stat("shared", ("seat",), "games", "shared victories the seat took part in"),
    Stat("outcome", (Outcome,), "games", "games by outcome"),
    Stat("winby", (WinBy,), "games", "games by the branch of the winner rule that decided"),
    Stat("elim", ("seat",), "games", "games the seat dominated no shape (out)"),
    Stat("domn", ("seat", Dominated), "games", "games by shapes the seat dominated"),
    Stat("markers", ("seat", Shape, Moment), "markers",
         "markers the seat took per shape: sum and sum of squares over games"),
    Stat("ends", ("end_mask",), "games", "games by the combination of End reasons"),
    Stat("lengths", ("length",), "games", "games by length in turns (cards played)"),
    Stat("vhist", (Placed, "villages"), "games", "games by villages placed and scored"),
    Stat("kinds", ("card", KindStat), "count", "per kind of card: plays, contests, wins"),
    Stat("heat", ("heat", "heat"), "villages", "villages scored per cell around the first"),
    Stat("misc", (Misc,), "count", "counters over all games"),
    Stat("kind_sq", ("card", KindRatio, Cross), "count",
         "per kind of card and rate: per-game sums of squares and cross products"),
    Stat("group_sq", (CardGroup, KindRatio, Cross), "count",
         "symbol and samurai cards pooled: per-game sums of squares and cross products"),
    Stat("misc_sq", (MiscRatio, Cross), "count",
         "per-contest and per-turn rates: per-game sums of squares and cross products"),
)

Aggs = aggregates_type(TABLE, "Aggs", module=__name__)


def sizes(n_kinds: int, heat_radius: int) -> dict[str, int]:
    """The run-time sizes of the table's named dimensions."""
    return {"seat": MAX_P, "card": n_kinds, "end_mask": N_END, "length": N_LEN,
            "villages": N_VH, "heat": 2 * heat_radius + 1}
