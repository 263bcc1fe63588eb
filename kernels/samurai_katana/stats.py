"""Samurai & Katana statistics: the table every run's aggregates are built from.

Each fixed dimension is an IntEnum whose members are the kernel's column indices; the
other dimensions are sizes known at run time (`sizes` in simcli/games/samurai_katana/game.py):
"seat" (6, the most players), "length" (N_LEN bins of turns), "margin" (N_MARGIN bins of
Honor), "income" (N_INCOME bins of starting taxes), "territory" (the map's territories),
"cluster" (N_CLUSTER bins), "catch_turn" (turns 0 .. the safety cap), "card" (the deck's
card types), "province" (the map's provinces), "trace_game" and "trace_turn".
"""

from enum import IntEnum

from kernels.stat_table import Stat, aggregates_type

N_LEN = 128  # length histogram bins (turns; last bin: that many or more)
N_MARGIN = 64  # Honor margin bins (winner over runner-up)
N_INCOME = 32  # starting income bins (koku)
N_CLUSTER = 8  # most starting cities in one province (bins)
TRACE_GAMES = 12  # games (by index) whose Honor is traced turn by turn
TRACE_TURNS = 40


class Outcome(IntEnum):
    """A count and how many of those were won."""

    COUNT = 0
    WON = 1


class Misc(IntEnum):
    """Counters of the whole run."""

    SHARED = 0  # games with a shared win (equal after every tie-break)
    CAPPED = 1  # games stopped by the safety cap on turns
    ELIM = 2  # eliminations
    RETURNS = 3  # returns of eliminated clans
    CANCELLED = 4  # moves cancelled by Tsunami or Scorched Earth
    COUNTERED = 5  # cards cancelled by Shogunal Justice
    RESHUFFLES = 6
    ACTION_CAP = 7  # activations stopped by the safety cap on actions
    ACTIONS = 8
    MOVES = 9
    EVENTS = 10  # cards played for their power
    BOUGHT_SAMURAI = 11
    BOUGHT_CASTLES = 12
    SOLD = 13  # 2 Honor sold for 1 koku
    GAMES_ELIM = 14  # games in which some clan was eliminated
    FILLED = 15  # defenders who had to fill their hand to 2
    CASTLES_TAKEN = 16
    NO_RETURN = 17  # eliminated clans that found no territory to return to (turns)
    KINAI_WINNER = 18  # games whose winner holds Kyoto's whole province at the end
    KYOTO_WINNER = 19  # games whose winner holds Kyoto at the end
    BROKEN = 20  # end-of-turn audits that found a broken invariant (must stay 0)


class Source(IntEnum):
    """Where Honor comes from (gains) and goes (losses)."""

    COMBAT = 0
    PROVINCE = 1
    KYOTO = 2
    CARDS = 3
    EMPEROR = 4
    KOKU = 5  # In the land of koku
    LOST_SHOGUN = 6
    LOST_CARDS = 7
    LOST_SOLD = 8


class SourceStat(IntEnum):
    """Per Honor source: sum and sum of squares over games (all clans), and the winner's."""

    SUM = 0
    SQ = 1
    WIN = 2
    WIN_SQ = 3


class ProvStat(IntEnum):
    """Per province."""

    TURNS = 0  # turns (summed over games) some clan held it whole at the end of the turn
    EVER = 1  # games in which a clan held it whole at the end of some turn
    END = 2  # games ending with it held whole
    WINNER = 3  # games whose winner holds it whole at the end


class Castle(IntEnum):
    """Whether the defended territory had a castle."""

    NO = 0
    YES = 1


class Mountain(IntEnum):
    """Whether the defended territory is a mountain."""

    NO = 0
    YES = 1


class BattleStat(IntEnum):
    """Per terrain of battle."""

    N = 0
    ATT = 1  # the attacker won
    TIE = 2
    EMPTY = 3  # the territory ended with no piece on it
    LA = 4  # attacker's losses
    LD = 5  # defender's losses


class Moment(IntEnum):
    """Per-game sums of squares of a rate's successes y and observations x (ratio_rate)."""

    YY = 0
    XX = 1
    XY = 2


class CardStat(IntEnum):
    """Per card type."""

    POWER = 0  # played for its power (events, reactions, Shogunal Justice)
    COMBAT = 1  # played in a battle
    COUNTERED = 2  # cancelled by Shogunal Justice


class SeatStat(IntEnum):
    """Per seat."""

    EMP_TURNS = 0
    SHOGUN_TURNS = 1
    HONOR = 2  # final Honor: sum
    HONOR2 = 3  # and sum of squares
    ELIM = 4
    CP = 5  # final clan points: sum


TABLE = (
    Stat("wins", ("seat",), "games", "games won outright by each seat"),
    Stat("misc", (Misc,), "counts", "counters of the whole run"),
    Stat("lengths", ("length",), "games", "games by length in turns"),
    Stat("margin", ("margin",), "games", "games by the winner's Honor margin"),
    Stat("start_income", ("income", Outcome), "clans",
         "clans by starting income (koku), and how many won"),
    Stat("start_major", ("territory", Outcome), "clans",
         "clans by starting major city (territory), and how many won"),
    Stat("start_cluster", ("cluster", Outcome), "clans",
         "clans by most starting cities in one province, and how many won"),
    Stat("catch_up", ("catch_turn", Outcome), "games",
         "games by turn: the Emperor named at the end of that turn, and how often he won"),
    Stat("sources", (Source, SourceStat), "Honor", "Honor by source"),
    Stat("provinces", ("province", ProvStat), "counts", "per province"),
    Stat("battles", (Castle, Mountain, BattleStat), "battles", "battles by terrain"),
    Stat("battle_sq", (Castle, Mountain, Moment), "battles^2",
         "per-game sums of squares of attacker wins and battles by terrain (clustered "
         "intervals)"),
    Stat("battle_sq_all", (Moment,), "battles^2",
         "per-game sums of squares of attacker wins and battles, all terrains"),
    Stat("cards", ("card", CardStat), "cards", "per card type"),
    Stat("seat", ("seat", SeatStat), "counts", "per seat"),
    Stat("trace", ("trace_game", "seat", "trace_turn"), "Honor + 1",
         "Honor of each seat after each turn of the first games (0: not played)"),
)

Aggregates = aggregates_type(TABLE, "Aggregates", module=__name__)
