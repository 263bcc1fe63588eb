"""Samurai & Katana rules, 3-6 players: the state, setup, who decides now, the legal
actions, applying an action (chance inside), the end, the result and the game log.

The campaign: a blind city draw; each turn eliminated clans return, the Emperor names the
order, each clan buys samurai and a castle and places them (phase 1), each clan activates
(moves, attacks fought with cards, cards played for their power, Honor sold; phase 2),
a new Emperor and Shogun are named (phase 3), taxes and cards (phase 4). Complete
provinces and Kyoto pay Honor after each activation; the game ends after the turn in which
a clan passes the Honor target. Card codes are rows of the combat card table
(katana_combat.CC_*).

Decisions (st.phase[0], taken by st.actor[0]) and their flat int64 actions:

| phase       | action a                                                                  |
|-------------|---------------------------------------------------------------------------|
| PLACE       | territory t: put one samurai from the supply there (setup's extra samurai,|
|             | a purchase, a defeated defender's survivors)                              |
| RETURN      | territory t an eliminated clan returns to (its free uprising)             |
| ORDER       | clan q the Emperor names next (for phase 1, then for each activation)     |
| CASTLE      | 0: no castle; 1 + t: build a castle on own territory t                    |
| BUY         | k: buy k samurai (1 koku each; each is then PLACEd)                       |
| ACT         | PASS (0) end the activation; SELL (1) sell 2 Honor for 1 koku;            |
|             | CARD + i * W + x: play the card at hand position i for its power on x (a  |
|             | clan, or a territory for an uprising; W = max(territories, MAX_P));       |
|             | MOVE + e * K + (k - 1), MOVE = CARD + D * W: move k samurai along link e  |
|             | (from link_from[e] to adj[0, e]; K = samurai per clan, D = deck size)     |
| JUSTICE     | 0 let the card act; 1 cancel it with Shogunal Justice                     |
| CANCEL      | 0 let the move happen; 1 cancel it with Tsunami (a sea move), 2 with      |
|             | Scorched Earth (any move), 3 with Shogunal Justice (an attack on the      |
|             | holder, or on anyone with shogunal-justice=others)                        |
| ATT_CARDS   | (i * D + j) * (D + 1) + (k + 1): combat cards at hand positions i < j and |
| DEF_CARDS   | the special at k (-1: none)                                               |
| TAKE_CASTLE | 0 destroy the taken castle; 1 replace it from the reserve; 2 + t move own |
|             | castle from t there                                                       |
| DISCARD     | bit mask of hand positions discarded in phase 4                           |

"Playable at any time" cards (printed timing): when the active clan announces a move or
plays a card against a clan, every other clan still in the game that holds 3+ cards and a
card that can answer it is asked in turn (the clan it is aimed at first, then clockwise from
the active clan) until one plays it: Tsunami cancels a sea move, Scorched Earth any move
(both refund the move's koku and the Shogun's free move), Shogunal Justice a card or an
attack aimed at its holder (the koku spent stays spent: only Tsunami and Scorched Earth
print a refund). A card played in answer is not answered in turn.

A decision with a single legal action is still asked (the random player draws from its
stream there, as it always has). `apply` takes the decision, then runs the automatic steps
(st.auto: chance, resolution, draws, phases) until the next decision or the end.

Chance: the deck and the city draw come from the shared lane MAX_P; the card a Ninja
steals from the thief's own lane st.lane[p]; players draw their random choices from their
own lanes. Events for the log are written with `events.emit`.
"""

from collections import namedtuple
from enum import IntEnum

import numpy as np

from kernels.events import emit
from kernels.jit import kernel
from kernels.katana_combat import (
    ATTACKER,
    CC_AMOUNT,
    CC_COST,
    CC_EFFECT,
    CC_KIND,
    CC_SWORDS,
    CC_VALUE,
    DEFENDER,
    E_ALLIANCE,
    E_HONOR,
    E_INSULT,
    E_JUSTICE,
    E_KOKU,
    E_NINJA,
    E_SCORCHED,
    E_TSUNAMI,
    E_UPRISING,
    E_WAKO,
    K_ANYTIME,
    K_EVENT,
    K_SPECIAL,
    MAX_COUNTED,
    TIE,
    card_points,
    resolve,
    total_points,
)
from kernels.rng import below, seed_lanes, shuffle
from kernels.samurai_katana.stats import (
    N_CLUSTER,
    TRACE_TURNS,
    BattleStat,
    CardStat,
    Misc,
    Moment,
    Outcome,
    ProvStat,
    SeatStat,
    Source,
    SourceStat,
)

RANDOM = 0  # policy codes (players.py); the rules' helpers shared with players read them
GREEDY = 1
MAX_P = 6
SHARED = MAX_P  # the stream lane of the shared deck and city draw
NO_ONE = -1
NONE = np.int64(-1)
ZERO = np.int64(0)

# Rows of st.bd (3, T): per territory
OWNER = 0  # clan, NO_ONE when free
SAM = 1  # samurai on it
CASTLE = 2  # 1: a castle (its owner's)

# Territory columns (st.terr)
TC_PROV = 0
TC_MOUNT = 1
TC_CP = 2  # clan points of its city (0 none, 1 minor, 2 major)
TC_TAX = 3
TC_SEA = 4  # number of sea links
N_TC = 5

# Province columns (st.prov)
PC_HONOR = 0
PC_SIZE = 1
N_PC = 2

# Integer parameters (st.pi)
PI_TARGET = 0
PI_LIMITED = 1  # Limited Emperor: one order, fixed at the start of the turn
PI_NEW_DEAL = 2  # new political deal: 0-2 CP no extra card
PI_PROV_ONCE = 3  # a province pays when completed, not every turn
PI_EMP_EVERY = 4  # the Emperor gains 1 Honor every turn, not only when he stays
PI_LAND_KOKU = 5  # In the land of koku: last turn's taxes become Honor (3 koku = 1)
PI_KYOTO_SAFE = 6  # no Ikko Ikki uprising in Kyoto
PI_HAND = 7
PI_START_KOKU = 8
PI_SAMURAI = 9
PI_CASTLES = 10
PI_CASTLE_COST = 11
PI_KYOTO_COST = 12
PI_MINORS = 13
PI_EXTRA = 14
PI_RET_SAM = 15
PI_RET_KOKU = 16
PI_MAX_TURNS = 17
PI_MAX_ACTIONS = 18
PI_KYOTO = 19
PI_TRACE = 20  # games with index below this are traced turn by turn
PI_TIE_DRAW = 21  # cards a defender draws after a tie (2 by default)
PI_JUSTICE_OTHERS = 22  # Shogunal Justice may defend another clan (the printed option)
PI_ALLIANCE_ON_TOP = 23  # 1: Alliance adds up to 4 samurai beyond the 4-samurai cap
N_PI = 24

# Float parameters (st.pf)
PF_THRESHOLD = 0  # greedy attacks at this chance of winning or more
N_PF = 1

# Player columns (st.pl)
PL_HONOR = 0
PL_KOKU = 1
PL_SUPPLY = 2  # samurai off the board
PL_CASTLES = 3  # castles in reserve
PL_OUT = 4  # eliminated, waiting to return
PL_BUILT = 5  # built a castle this turn
PL_FREE = 6  # Shogun's free move still available
PL_NTERR = 7
PL_CP = 8
PL_CITIES = 9
PL_HAND = 10
PL_PAID = 11  # provinces paid (bit mask) under the pay-once rule
PL_EVER_OUT = 12
N_PL = 13

# Game scalars (st.gs)
G_DECK = 0  # cards in the draw pile (st.piles[0])
G_DISC = 1  # cards in the discard pile (st.piles[1])
G_TURN = 2
G_EMP = 3
G_SHOGUN = 4  # -1: none
G_END = 5  # a clan passed the Honor target: the game ends after this turn
G_BN = 6  # 4 cells, castle * 2 + mountain: battles of this game by terrain
G_BA = 10  # 4 cells: battles the attacker won in this game, by terrain
N_G = 14

# Per-game rows (--save-games)
R_WINNER = 0
R_TURNS = 1
R_COMPLETED = 2
R_HONOR = 3  # 6 columns
R_CP = 9  # 6 columns
R_INCOME = 15  # 6 columns
N_ROW = 21

# Layout of st.hist
H_MAJOR = 0  # MAX_P: each clan's starting major city (territory)
H_CLUSTER = MAX_P  # MAX_P: most starting cities of the clan in one province
H_EMP = 2 * MAX_P  # + turn: the Emperor named at the end of that turn

# Context of the turn in progress (st.cx)
CX_PLAYOUT = 0  # index of this playout
CX_ITER = 1  # position in the loop of the current phase
CX_ACTIVE = 2  # the clan activating
CX_ACTIONS = 3  # actions it took
CX_PLACER = 4  # the clan placing samurai
CX_LEFT = 5  # samurai it still places
CX_EXCL = 6  # territory it may not place on (-1: none)
CX_THEN = 7  # the automatic step after the placing
CX_PLACED = 8  # samurai placed
CX_ORDER_ACT = 9  # 1: the Emperor names the next activation (not the phase 1 order)
CX_FINAL = 10  # phase 4 of the last turn under In the land of koku
CX_EVER = 11  # provinces held whole at the end of some turn (bit mask)
CX_CAPPED = 12  # the game was stopped by the safety cap
CX_CARD = 13  # card type played for its power
CX_TARGET = 14  # its target (clan or territory)
CX_VICTIM = 15  # the clan the card or move in play acts against (-1: none)
CX_REACT = 16  # clans already asked whether they react to it (rules.reactor)
N_CX = 17

# The battle or move in progress (st.bt)
BT_FROM = 0
BT_TO = 1
BT_LINK = 2
BT_K = 3  # attacking samurai (after losses: survivors)
BT_Q = 4  # defender
BT_D = 5  # defending samurai
BT_CASTLE = 6
BT_MOUNT = 7
BT_COST = 8  # koku paid for the move
BT_FREE = 9  # the Shogun's free move was used
BT_IA = 10  # attacker's cards: hand positions i, j, special k (-1)
BT_JA = 11
BT_KA = 12
BT_PA = 13  # attacker's card points and swords
BT_SWA = 14
BT_FILLED = 15  # the defender filled its hand to 2
BT_PD = 16
BT_SWD = 17
BT_RESULT = 18
N_BT = 19

# Scratch rows (st.scr)
SC_ORDER = 0  # the Emperor's order of phase 1
SC_DONE = 1  # clans already named
SC_A = 2
SC_B = 3
N_SC = 4

# Decisions (st.phase)
PLACE = np.int64(0)
RETURN = np.int64(1)
ORDER = np.int64(2)
CASTLE_BUY = np.int64(3)
BUY = np.int64(4)
ACT = np.int64(5)
JUSTICE = np.int64(6)
CANCEL = np.int64(7)
ATT_CARDS = np.int64(8)
DEF_CARDS = np.int64(9)
TAKE_CASTLE = np.int64(10)
DISCARD = np.int64(11)
OVER = np.int64(12)
PHASES = ("place", "return", "order", "castle", "buy", "act", "justice", "cancel",
          "attack cards", "defence cards", "take castle", "discard", "over")

# ACT actions
PASS = np.int64(0)
SELL = np.int64(1)
CARD = np.int64(2)

# Automatic steps (st.auto)
GO_NONE = np.int64(0)
GO_SETUP_PLACE = np.int64(1)
GO_SETUP_NEXT = np.int64(2)
GO_SETUP_DONE = np.int64(3)
GO_PLACE = np.int64(4)
GO_TURN = np.int64(5)
GO_RETURNS = np.int64(6)
GO_ORDER = np.int64(7)
GO_PURCHASE = np.int64(8)
GO_PURCHASED = np.int64(9)
GO_NEXT_CLAN = np.int64(10)
GO_ACTIVATE = np.int64(11)
GO_ACT = np.int64(12)
GO_RESOLVE = np.int64(13)
GO_CONQUER = np.int64(14)
GO_BATTLE_END = np.int64(15)
GO_OFFICES = np.int64(16)
GO_TAXES = np.int64(17)
GO_TURN_END = np.int64(18)
GO_FINISH = np.int64(19)

# Options a player can be denied (forbid columns): the card effects played by choice
# (katana_combat.E_* - 1), building castles, selling Honor
OPTIONS = ("fan", "arquebus", "alliance", "uprising", "honor", "insult", "koku", "wako",
           "ninja", "tsunami", "scorched-earth", "shogunal-justice", "castle", "sell-honor")
OPT_CASTLE = np.int64(12)
OPT_SELL = np.int64(13)
N_OPTIONS = 14

# Why samurai are placed (Ev.PLACE c)
WHY_SETUP = np.int64(0)
WHY_BOUGHT = np.int64(1)
WHY_RETREAT = np.int64(2)


class Ev(IntEnum):
    """Event kinds of the game log (a, b, c, d as listed; p is the event's player)."""

    CITY = 1  # p draws a starting city: a = territory, b = clan points
    PLACE = 2  # p places a samurai on territory a (b = samurai there now, c = WHY_*)
    DRAW = 3  # p draws card type a (b = cards in hand now)
    RESHUFFLE = 4  # the discards (a cards) are shuffled into a new draw pile
    TURN = 5  # turn a begins; b = Emperor, c = Shogun (-1 none)
    RETURN = 6  # eliminated p returns to territory a with b samurai (c = its former owner)
    NO_RETURN = 7  # eliminated p finds no territory to return to
    CASTLE = 8  # p builds a castle on territory a for b koku
    BUY = 9  # p buys a samurai, 1 koku each (b koku left)
    MOVE = 10  # p moves c samurai from a to b, paying d koku
    CANCEL = 11  # p cancels b's attack with card type a
    CARD = 12  # p plays card type a on b (a clan, or a territory for an uprising)
    COUNTER = 13  # p cancels card type a of b with Shogunal Justice
    STEAL = 14  # p's Ninja takes card type a from b at random
    UPRISING = 15  # territory a loses b samurai to an uprising (c = its owner)
    BATTLE = 16  # p attacks territory a of b with c samurai against d
    SIDE = 17  # p fights with card types a and b and special c (-1): d card points
    OUTCOME = 18  # p's attack on d: result a (1 attacker, 0 tie, -1 defender), losses b, c
    CASTLE_TAKEN = 19  # p takes the castle on a: b = 0 destroyed, 1 replaced, 2 moved from c
    HONOR = 20  # p's Honor changes by a to b (c = Source)
    TAXES = 21  # p collects a koku (b koku now)
    OUT = 22  # p is eliminated
    OFFICES = 23  # Emperor a, Shogun b (-1 none)
    DISCARD = 24  # p discards card type a in phase 4
    RESULT = 25  # the winner a (-1 shared), after b turns (c = 1 completed, 0 capped)
    TOTAL = 26  # side p's combat points: a from cards, b from samurai, c terrain; d swords
    ALLIES = 27  # p's Alliance adds a samurai: b of its own land-adjacent, room for c
    KOKU = 28  # p's koku changes by a to b (c = KokuWhy; d = 1 when a free move comes back)


class KokuWhy(IntEnum):
    """Why koku changed (Ev.KOKU c), where no other event says it."""

    WAKO_LOST = 0  # Wako Pirates took them
    WAKO_TAKEN = 1  # taken with Wako Pirates
    HARVEST = 2  # a koku card (Rice Harvest)
    REFUND = 3  # a move cancelled by Tsunami or Scorched Earth: its koku come back
    RETURN = 4  # an eliminated clan returns with its printed koku
    SOLD = 5  # 2 Honor sold for 1 koku


FIELDS = (
    # the run (read-only)
    "pol",  # (MAX_P,) int64: policy of each seat (RANDOM, GREEDY)
    "lane",  # (MAX_P,) int64: random stream (row of rng) of each seat
    "terr",  # (T, N_TC) int64: territory facts (TC_*)
    "adj_start",  # (T + 1,) int64: links of territory t are adj[:, adj_start[t]:adj_start[t+1]]
    "adj",  # (2, E) int64: adj[0, e] the territory link e leads to, adj[1, e] 1 for a sea link
    "link_from",  # (E,) int64: the territory link e leaves from
    "prov",  # (NP, N_PC) int64: province facts (PC_*)
    "majors",  # (M,) int64: major cities of the blind draw (not Kyoto)
    "minors",  # (m,) int64: minor cities
    "cards",  # (C, katana_combat.N_CC) int64: the card types
    "deck0",  # (D,) int64: the deck, one card type per card
    "pi",  # (N_PI,) int64: integer parameters (PI_*)
    "pf",  # (N_PF,) float64: float parameters (PF_*)
    "win",  # (9, 9, 2, 2) float64: attacker's chance by (attackers, defenders, castle, mountain)
    "rng",  # (MAX_P + 1, rng.STATE_SIZE) uint64: a lane per player, lane MAX_P shared
    # the position
    "bd",  # (3, T) int64: per territory OWNER, SAM (samurai), CASTLE (0/1)
    "pl",  # (P, N_PL) int64: per clan (PL_*); its rows are the players in the game
    "pcount",  # (P, NP) int64: territories of each clan in each province
    "hand",  # (P, D) int64: card types in hand (pl[p, PL_HAND] of them)
    "piles",  # (2, D) int64: draw pile (row 0, top last) and discards (row 1)
    "gs",  # (N_G,) int64: game scalars (G_*)
    "src",  # (P, Source) int64: Honor gained or lost by source this game
    "hist",  # (H_EMP + max turns + 2,) int64: start facts and Emperors by turn (H_*)
    "scr",  # (N_SC, max(T, D, MAX_P * (4 + NP))) int64: order, named clans, scratch
    "row",  # (N_ROW,) int64: the game's --save-games row (R_*)
    # the machine
    "phase",  # (1,) int64: the decision the game waits for (PLACE ... OVER)
    "actor",  # (1,) int64: seat to decide, -1 when the game is over
    "auto",  # (1,) int64: the automatic step apply runs next (GO_NONE: a decision)
    "cx",  # (N_CX,) int64: context of the turn in progress (CX_*)
    "bt",  # (N_BT,) int64: the move or battle in progress (BT_*)
    # game log and statistics
    "log",  # (E, 7) int64: event buffer (events.py); (0, 7) in the fast path
    "log_n",  # (1,) int64
    "aggs",  # stats.Aggregates: the statistics the rules count
)
State = namedtuple("State", FIELDS)


def new_state(*, players: int, policies: np.ndarray, terr: np.ndarray, adj_start: np.ndarray,
              adj: np.ndarray, prov: np.ndarray, majors: np.ndarray, minors: np.ndarray,
              cards: np.ndarray, deck: np.ndarray, pi: np.ndarray, pf: np.ndarray,
              win: np.ndarray, aggs, log_capacity: int = 0, rotation: int = 0) -> State:
    """A state for games of this run, allocated once (`setup` starts each game). In
    rotation r player j (its policy and its random stream) sits at seat (j + r) % P."""
    from kernels.rng import rotation_lanes, stream_states

    P = players
    T = terr.shape[0]
    NP = prov.shape[0]
    D = deck.shape[0]
    seat_pol, lane = rotation_lanes(P, np.asarray(policies, np.int64), rotation, MAX_P)
    link_from = np.zeros(adj.shape[1], np.int64)
    for t in range(T):
        link_from[adj_start[t]:adj_start[t + 1]] = t

    def z(shape, dtype=np.int64):
        return np.zeros(shape, dtype)

    def c(a, dtype=np.int64):
        return np.ascontiguousarray(a, dtype)

    return State(
        pol=seat_pol, lane=lane, terr=c(terr), adj_start=c(adj_start), adj=c(adj),
        link_from=link_from, prov=c(prov), majors=c(majors), minors=c(minors),
        cards=c(cards), deck0=c(deck), pi=c(pi), pf=c(pf, np.float64),
        win=c(win, np.float64), rng=stream_states(0, MAX_P + 1),
        bd=z((3, T)), pl=z((P, N_PL)), pcount=z((P, NP)), hand=z((P, D)), piles=z((2, D)),
        gs=z(N_G), src=z((P, len(Source))),
        hist=z(H_EMP + int(pi[PI_MAX_TURNS]) + 2),
        scr=z((N_SC, max(T, D, MAX_P * (4 + NP)))), row=z(N_ROW),
        phase=np.full(1, OVER), actor=np.full(1, -1, np.int64), auto=z(1), cx=z(N_CX),
        bt=z(N_BT), log=z((log_capacity, 7)), log_n=z(1), aggs=aggs,
    )


# --- helpers on a few arrays --------------------------------------------------------------

@kernel(inline=True)
def n_players(pl):
    """Players in this game (rows of pl)."""
    return pl.shape[0]


@kernel(inline=True)
def set_owner(bd, pl, pcount, terr, t, q):
    """Territory t passes to q (NO_ONE: free); counts follow."""
    o = bd[OWNER, t]
    if o == q:
        return
    cp = terr[t, TC_CP]
    pr = terr[t, TC_PROV]
    if o >= 0:
        pl[o, PL_NTERR] -= 1
        pcount[o, pr] -= 1
        pl[o, PL_CP] -= cp
        pl[o, PL_CITIES] -= cp > 0
    bd[OWNER, t] = q
    if q >= 0:
        pl[q, PL_NTERR] += 1
        pcount[q, pr] += 1
        pl[q, PL_CP] += cp
        pl[q, PL_CITIES] += cp > 0


@kernel(inline=True)
def gain(pl, src, gs, pi, log, log_n, p, amount, source):
    """p gains `amount` Honor from `source`; passing the target triggers the end."""
    if amount <= 0:
        return
    pl[p, PL_HONOR] += amount
    src[p, source] += amount
    emit(log, log_n, gs[G_TURN], p, Ev.HONOR, amount, pl[p, PL_HONOR], source, 0)
    if pl[p, PL_HONOR] > pi[PI_TARGET]:
        gs[G_END] = 1


@kernel(inline=True)
def lose(pl, src, gs, log, log_n, p, amount, source):
    """p loses up to `amount` Honor (never below the dishonor floor, 0)."""
    actual = min(amount, pl[p, PL_HONOR])
    pl[p, PL_HONOR] -= actual
    src[p, source] += actual
    if actual > 0:
        emit(log, log_n, gs[G_TURN], p, Ev.HONOR, -actual, pl[p, PL_HONOR], source, 0)


@kernel
def draw_cards(shared, p, k, hand, pl, piles, gs, misc, log, log_n):
    """p draws k cards; an empty draw pile is refilled by shuffling the discards."""
    for _ in range(k):
        if gs[G_DECK] == 0:
            if gs[G_DISC] == 0:
                return
            for i in range(gs[G_DISC]):
                piles[0, i] = piles[1, i]
            gs[G_DECK] = gs[G_DISC]
            gs[G_DISC] = 0
            shuffle(shared, piles[0], gs[G_DECK])
            misc[Misc.RESHUFFLES] += 1
            emit(log, log_n, gs[G_TURN], NO_ONE, Ev.RESHUFFLE, gs[G_DECK], 0, 0, 0)
        gs[G_DECK] -= 1
        hand[p, pl[p, PL_HAND]] = piles[0, gs[G_DECK]]
        pl[p, PL_HAND] += 1
        emit(log, log_n, gs[G_TURN], p, Ev.DRAW, piles[0, gs[G_DECK]], pl[p, PL_HAND], 0, 0)


@kernel(inline=True)
def discard_at(p, i, hand, pl, piles, gs):
    """Discard the card at hand position i (the last card takes its place)."""
    piles[1, gs[G_DISC]] = hand[p, i]
    gs[G_DISC] += 1
    pl[p, PL_HAND] -= 1
    hand[p, i] = hand[p, pl[p, PL_HAND]]


@kernel
def discard_three(p, i, j, k, hand, pl, piles, gs):
    """Discard hand positions i, j and k (k may be -1), highest position first."""
    a = max(i, j)
    b = min(i, j)
    if k > a:
        discard_at(p, k, hand, pl, piles, gs)
        k = -1
    discard_at(p, a, hand, pl, piles, gs)
    if k > b:
        discard_at(p, k, hand, pl, piles, gs)
        k = -1
    discard_at(p, b, hand, pl, piles, gs)
    if k >= 0:
        discard_at(p, k, hand, pl, piles, gs)


@kernel(inline=True)
def find_card(p, effect, hand, pl, cards):
    """Hand position of p's first card with this effect, or -1."""
    for i in range(pl[p, PL_HAND]):
        if cards[hand[p, i], CC_EFFECT] == effect:
            return i
    return -1


@kernel(inline=True)
def check_out(q, pl, misc, seat, gs, log, log_n):
    """Mark q eliminated when it controls no territory."""
    if pl[q, PL_NTERR] == 0 and pl[q, PL_OUT] == 0:
        pl[q, PL_OUT] = 1
        pl[q, PL_EVER_OUT] = 1
        misc[Misc.ELIM] += 1
        seat[q, SeatStat.ELIM] += 1
        emit(log, log_n, gs[G_TURN], q, Ev.OUT, 0, 0, 0, 0)


@kernel(inline=True)
def allies(bd, adj_start, adj, t, p):
    """p's samurai in territories land-adjacent to t (for Alliance)."""
    s = 0
    for e in range(adj_start[t], adj_start[t + 1]):
        n = adj[0, e]
        if adj[1, e] == 0 and bd[OWNER, n] == p:
            s += bd[SAM, n]
    return s


@kernel(inline=True)
def alliance_room(st, x):
    """How many allied samurai side x's Alliance may add: own and allied samurai count at
    most MAX_COUNTED (4) together ("All samurai pieces, with a maximum of 4, are added to
    your own samurai"); with PI_ALLIANCE_ON_TOP up to 4 allied samurai count beyond it."""
    if st.pi[PI_ALLIANCE_ON_TOP]:
        return np.int64(MAX_COUNTED)
    own = st.bt[BT_D] if x == st.bt[BT_Q] else st.bt[BT_K]
    return np.int64(max(MAX_COUNTED - own, 0))


@kernel
def allied(st, x):
    """The samurai side x's Alliance may add to the battle at bt[BT_TO]: its samurai in
    land-adjacent territories, up to alliance_room."""
    return np.int64(min(allies(st.bd, st.adj_start, st.adj, st.bt[BT_TO], x),
                        alliance_room(st, x)))


@kernel(inline=True)
def province_complete(pcount, prov, p, pr):
    """p holds every territory of province pr."""
    return pcount[p, pr] == prov[pr, PC_SIZE]


@kernel(inline=True)
def may_play_anytime(q, pl, hand_needed):
    """A 'playable at any time' card needs 3+ cards in hand (not 2 or fewer)."""
    return pl[q, PL_OUT] == 0 and pl[q, PL_HAND] >= hand_needed


@kernel(inline=True)
def uprising_ok(bd, pl, pi, t, p):
    """Ikko Ikki and the sects: an enemy territory with samurai and no castle, whose owner
    holds 2+ territories (not Kyoto with the Kyoto option)."""
    o = bd[OWNER, t]
    if o < 0 or o == p or bd[CASTLE, t] or bd[SAM, t] == 0 or pl[o, PL_NTERR] < 2:
        return False
    return not (pi[PI_KYOTO_SAFE] and t == pi[PI_KYOTO])


@kernel
def card_playable(p, c, bd, pl, pi, cards):
    """Whether p can play card type c for its power now (cost, timing, a legal target)."""
    kind = cards[c, CC_KIND]
    eff = cards[c, CC_EFFECT]
    if kind == K_EVENT:
        if cards[c, CC_COST] > pl[p, PL_KOKU]:
            return False
        if eff == E_UPRISING:
            for t in range(bd.shape[1]):  # noqa: SIM110 (numba: no any() of a generator)
                if uprising_ok(bd, pl, pi, t, p):
                    return True
            return False
        return True
    if kind == K_ANYTIME and eff == E_NINJA:
        if pl[p, PL_HAND] < 3:
            return False
        for q in range(pl.shape[0]):
            if q != p and pl[q, PL_HAND] > 0:
                return True
    return False


@kernel(inline=True)
def move_cost(bd, pl, p, n):
    """Koku a move into n costs p: free into its own castle or with the Shogun's free move."""
    if bd[OWNER, n] == p and bd[CASTLE, n]:
        return 0
    if pl[p, PL_FREE]:
        return 0
    return 1


@kernel(inline=True)
def move_ok(bd, pl, p, n):
    """Whether p may move into n now (an attack needs 2 cards; the move must be paid)."""
    o = bd[OWNER, n]
    if o >= 0 and o != p and pl[p, PL_HAND] < 2:
        return False
    return move_cost(bd, pl, p, n) <= pl[p, PL_KOKU]


@kernel
def return_target_ok(bd, pl, pi, t, p):
    """Where an eliminated clan may return: a free territory, or an enemy one its free
    uprising can clear (no castle, owner holds 2+ territories, not Kyoto with the option)."""
    if bd[CASTLE, t]:
        return False
    o = bd[OWNER, t]
    if o == NO_ONE:
        return True
    if o == p or pl[o, PL_NTERR] < 2:
        return False
    return not (pi[PI_KYOTO_SAFE] and t == pi[PI_KYOTO])


@kernel(inline=True)
def sign(x, y):
    """-1, 0 or 1 as x is below, equal to or above y."""
    return np.int64(-1) if x < y else np.int64(1) if x > y else np.int64(0)


@kernel
def on_board(bd, q, row):
    """q's total of board row `row` (SAM: samurai, CASTLE: castles) over its territories."""
    n = 0
    for t in range(bd.shape[1]):
        if bd[OWNER, t] == q:
            n += bd[row, t]
    return n


@kernel
def pl_cmp(pl, a, b, fields):
    """Clan a against clan b on the player fields `fields`, in order (sign of the first
    that differs, 0 when all are equal); no value is capped."""
    for f in fields:
        if pl[a, f] != pl[b, f]:
            return sign(pl[a, f], pl[b, f])
    return np.int64(0)


@kernel
def rank_cmp(pl, a, b, bd):
    """Clan a against clan b for Emperor and Shogun (-1 below, 0 equal, 1 above): Honor,
    then clan points, cities, koku, samurai on the board."""
    c = pl_cmp(pl, a, b, (PL_HONOR, PL_CP, PL_CITIES, PL_KOKU))
    return c if c != 0 else sign(on_board(bd, a, SAM), on_board(bd, b, SAM))


@kernel
def win_cmp(pl, a, b, bd):
    """Clan a against clan b in the end-of-game order (-1 below, 0 equal, 1 above): Honor,
    then clan points, cities, territories, castles, samurai."""
    c = pl_cmp(pl, a, b, (PL_HONOR, PL_CP, PL_CITIES, PL_NTERR))
    if c == 0:
        c = sign(on_board(bd, a, CASTLE), on_board(bd, b, CASTLE))
    return c if c != 0 else sign(on_board(bd, a, SAM), on_board(bd, b, SAM))


@kernel
def new_offices(pl, gs, bd, pi, src, seat, log, log_n):
    """Phase 3: the fewest Honor becomes Emperor (ties: fewest clan points, cities, koku,
    samurai; the sitting Emperor keeps it among equals, else the first clockwise), the most
    Honor Shogun (ties the other way); the Emperor gains 1 Honor if he stays (or every turn
    with the option). No Shogun while everyone has the Emperor's Honor."""
    P = n_players(pl)
    old = gs[G_EMP]
    emp = old
    for i in range(1, P):
        q = (old + i) % P
        if rank_cmp(pl, q, emp, bd) < 0:
            emp = q
    shogun = -1
    old_s = gs[G_SHOGUN]
    if old_s >= 0 and old_s != emp and pl[old_s, PL_HONOR] > pl[emp, PL_HONOR]:
        shogun = old_s
    for i in range(P):
        q = (emp + 1 + i) % P
        if q == emp or pl[q, PL_HONOR] <= pl[emp, PL_HONOR]:
            continue
        if shogun < 0 or rank_cmp(pl, q, shogun, bd) > 0:
            shogun = q
    gs[G_SHOGUN] = shogun
    gs[G_EMP] = emp
    emit(log, log_n, gs[G_TURN], NO_ONE, Ev.OFFICES, emp, shogun, 0, 0)
    if emp == old or pi[PI_EMP_EVERY]:
        gain(pl, src, gs, pi, log, log_n, emp, 1, Source.EMPEROR)
    seat[emp, SeatStat.EMP_TURNS] += 1
    if shogun >= 0:
        seat[shogun, SeatStat.SHOGUN_TURNS] += 1


@kernel
def end_activation(p, bd, pl, pcount, gs, src, terr, prov, pi, log, log_n):
    """After p's activation its complete provinces pay their Honor (every turn, or once per
    completion with the option) and Kyoto pays 1 unless its whole province is p's."""
    kinai_whole = False
    kyoto = pi[PI_KYOTO]
    for pr in range(prov.shape[0]):
        whole = province_complete(pcount, prov, p, pr)
        if pr == terr[kyoto, TC_PROV]:
            kinai_whole = whole
        bit = 1 << pr
        if not whole:
            pl[p, PL_PAID] &= ~bit
            continue
        if pi[PI_PROV_ONCE] and pl[p, PL_PAID] & bit:
            continue
        pl[p, PL_PAID] |= bit
        gain(pl, src, gs, pi, log, log_n, p, prov[pr, PC_HONOR], Source.PROVINCE)
    if bd[OWNER, kyoto] == p and not kinai_whole:
        gain(pl, src, gs, pi, log, log_n, p, 1, Source.KYOTO)


@kernel
def audit(P, bd, pl, pcount, gs, terr, pi, deck_size, work):
    """Whether the state is consistent: samurai and castles conserved against each clan's
    supply, koku and Honor never negative, one owner per territory that has a piece (and
    none without), counts matching the board, every card in exactly one pile. `work` is
    scratch of at least P * (4 + provinces) integers."""
    NP = pcount.shape[1]
    for i in range(P * (4 + NP)):
        work[i] = 0
    for t in range(bd.shape[1]):
        o = bd[OWNER, t]
        if o >= P or bd[SAM, t] < 0 or bd[CASTLE, t] < 0 or bd[CASTLE, t] > 1:
            return False
        if (o >= 0) != (bd[SAM, t] + bd[CASTLE, t] > 0):
            return False
        if o >= 0:
            base = o * (4 + NP)
            work[base] += bd[SAM, t]
            work[base + 1] += bd[CASTLE, t]
            work[base + 2] += 1
            work[base + 3] += terr[t, TC_CP]
            work[base + 4 + terr[t, TC_PROV]] += 1
    cards = gs[G_DECK] + gs[G_DISC]
    for p in range(P):
        base = p * (4 + NP)
        if work[base] + pl[p, PL_SUPPLY] != pi[PI_SAMURAI]:
            return False
        if work[base + 1] + pl[p, PL_CASTLES] != pi[PI_CASTLES]:
            return False
        nterr = work[base + 2]
        if nterr != pl[p, PL_NTERR] or work[base + 3] != pl[p, PL_CP]:
            return False
        if pl[p, PL_KOKU] < 0 or pl[p, PL_HONOR] < 0 or pl[p, PL_SUPPLY] < 0:
            return False
        if pl[p, PL_CASTLES] < 0 or (nterr == 0) != (pl[p, PL_OUT] == 1):
            return False
        for pr in range(NP):
            if work[base + 4 + pr] != pcount[p, pr]:
                return False
        cards += pl[p, PL_HAND]
    return cards == deck_size


# --- action encoding ------------------------------------------------------------------------

@kernel(inline=True)
def width(st):
    """W: targets per card in the ACT encoding (territories or clans)."""
    return max(st.bd.shape[1], MAX_P)


@kernel(inline=True)
def move_base(st):
    """The first MOVE action."""
    return CARD + st.piles.shape[1] * width(st)


@kernel(inline=True)
def card_action(st, i, target):
    """ACT: play the card at hand position i on `target`."""
    return CARD + i * width(st) + target


@kernel(inline=True)
def move_action(st, e, k):
    """ACT: move k samurai along link e."""
    return move_base(st) + e * st.pi[PI_SAMURAI] + (k - 1)


@kernel(inline=True)
def cards_action(st, i, j, k):
    """ATT_CARDS / DEF_CARDS: combat cards i, j (i < j or not: sorted here), special k."""
    D = st.piles.shape[1]
    return (min(i, j) * D + max(i, j)) * (D + 1) + (k + 1)


@kernel(inline=True)
def cards_of(st, a):
    """(i, j, k) of an ATT_CARDS / DEF_CARDS action."""
    D = st.piles.shape[1]
    k = a % (D + 1) - 1
    ij = a // (D + 1)
    return ij // D, ij % D, k


# --- setup and the automatic steps -----------------------------------------------------------

@kernel
def setup(st, seed, playout):
    """Start playout `playout` of the run keyed by `seed`: key the streams, clear the
    position, shuffle the deck, draw the cities blind (each clan: 1 major and 2 or 3 minor,
    clockwise from the first Emperor, seat 0), 1 samurai on each; then each clan places
    its extra samurai (decisions), and 5 cards each."""
    seed_lanes(st.rng, seed, playout)
    shared = st.rng[SHARED]
    bd = st.bd
    pl = st.pl
    pi = st.pi
    P = n_players(pl)
    T = bd.shape[1]
    st.log_n[0] = 0
    for c in range(N_ROW):
        st.row[c] = -1
    for c in range(N_CX):
        st.cx[c] = 0
    st.cx[CX_PLAYOUT] = playout
    for t in range(T):
        bd[OWNER, t] = NO_ONE
        bd[SAM, t] = 0
        bd[CASTLE, t] = 0
    for p in range(P):
        for c in range(N_PL):
            pl[p, c] = 0
        for c in range(st.pcount.shape[1]):
            st.pcount[p, c] = 0
        for c in range(st.src.shape[1]):
            st.src[p, c] = 0
        pl[p, PL_KOKU] = pi[PI_START_KOKU]
        pl[p, PL_SUPPLY] = pi[PI_SAMURAI]
        pl[p, PL_CASTLES] = pi[PI_CASTLES]
    gs = st.gs
    gs[G_TURN] = 0
    gs[G_EMP] = 0
    gs[G_SHOGUN] = -1
    gs[G_END] = 0
    for c in range(4):
        gs[G_BN + c] = 0
        gs[G_BA + c] = 0
    nd = st.deck0.shape[0]
    for i in range(nd):
        st.piles[0, i] = st.deck0[i]
    gs[G_DECK] = nd
    gs[G_DISC] = 0
    shuffle(shared, st.piles[0], nd)
    a = st.scr[SC_A]
    b = st.scr[SC_B]
    na = st.majors.shape[0]
    nb = st.minors.shape[0]
    for i in range(na):
        a[i] = st.majors[i]
    for i in range(nb):
        b[i] = st.minors[i]
    shuffle(shared, a, na)
    shuffle(shared, b, nb)
    ib = 0
    for p in range(P):
        set_owner(bd, pl, st.pcount, st.terr, a[p], p)
        bd[SAM, a[p]] = 1
        emit(st.log, st.log_n, 0, p, Ev.CITY, a[p], 2, 0, 0)
        for _ in range(pi[PI_MINORS]):
            set_owner(bd, pl, st.pcount, st.terr, b[ib], p)
            bd[SAM, b[ib]] = 1
            emit(st.log, st.log_n, 0, p, Ev.CITY, b[ib], 1, 0, 0)
            ib += 1
        pl[p, PL_SUPPLY] -= 1 + pi[PI_MINORS]
    st.phase[0] = PLACE
    st.auto[0] = GO_SETUP_PLACE
    advance(st)


@kernel
def begin_placing(st, p, k, exclude, then):
    """p is to place k samurai from its supply (not on `exclude`), then step `then`."""
    st.cx[CX_PLACER] = p
    st.cx[CX_LEFT] = k
    st.cx[CX_EXCL] = exclude
    st.cx[CX_THEN] = then
    st.cx[CX_PLACED] = 0
    st.auto[0] = GO_PLACE


@kernel
def next_placing(st):
    """Ask the placer for its next samurai, or go on when it has placed all it can."""
    p = st.cx[CX_PLACER]
    ex = st.cx[CX_EXCL]
    room = False
    if st.cx[CX_LEFT] > 0 and st.pl[p, PL_SUPPLY] > 0:
        for t in range(st.bd.shape[1]):
            if st.bd[OWNER, t] == p and t != ex:
                room = True
                break
    if room:
        st.phase[0] = PLACE
        st.actor[0] = p
    else:
        st.auto[0] = st.cx[CX_THEN]


@kernel
def setup_done(st):
    """Every clan has placed its extra samurai: 5 cards each, the start facts; turn 1."""
    P = n_players(st.pl)
    NP = st.prov.shape[0]
    for p in range(P):
        draw_cards(st.rng[SHARED], p, st.pi[PI_HAND], st.hand, st.pl, st.piles, st.gs,
                   st.aggs.misc, st.log, st.log_n)
    for p in range(P):  # start-draw facts, for the statistics at the end
        st.hist[H_MAJOR + p] = -1
        m = 0
        for pr in range(NP):
            m = max(m, st.pcount[p, pr])
        st.hist[H_CLUSTER + p] = m
        for t in range(st.bd.shape[1]):
            if st.bd[OWNER, t] == p and st.terr[t, TC_CP] == 2:
                st.hist[H_MAJOR + p] = t
    st.auto[0] = GO_TURN


@kernel
def next_return(st):
    """Eliminated clans come back, clockwise from the Emperor: the next one with a place to
    return to decides where; then the Emperor names the order of phase 1."""
    P = n_players(st.pl)
    emp = st.gs[G_EMP]
    i = st.cx[CX_ITER]
    while i < P:
        q = (emp + i) % P
        if st.pl[q, PL_OUT]:
            for t in range(st.bd.shape[1]):
                if return_target_ok(st.bd, st.pl, st.pi, t, q):
                    st.cx[CX_ITER] = i
                    st.phase[0] = RETURN
                    st.actor[0] = q
                    return
            st.aggs.misc[Misc.NO_RETURN] += 1
            emit(st.log, st.log_n, st.gs[G_TURN], q, Ev.NO_RETURN, 0, 0, 0, 0)
        i += 1
    for q in range(P):
        st.pl[q, PL_BUILT] = 0
        st.scr[SC_DONE, q] = 0
    st.cx[CX_ITER] = 0
    st.cx[CX_ORDER_ACT] = 0
    st.auto[0] = GO_ORDER


@kernel
def next_purchase(st):
    """Phase 1: the next clan in the Emperor's order (not eliminated) decides its castle
    (when it has one left to build) and its samurai; after the last, phase 2."""
    P = n_players(st.pl)
    i = st.cx[CX_ITER]
    while i < P and st.pl[st.scr[SC_ORDER, i], PL_OUT]:
        i += 1
    st.cx[CX_ITER] = i
    if i == P:
        for q in range(P):
            st.scr[SC_DONE, q] = 0
        st.cx[CX_ITER] = 0
        st.cx[CX_ORDER_ACT] = 1
        st.auto[0] = GO_NEXT_CLAN
        return
    q = st.scr[SC_ORDER, i]
    st.actor[0] = q
    if st.pl[q, PL_CASTLES] > 0 and st.pl[q, PL_BUILT] == 0:
        st.phase[0] = CASTLE_BUY
    else:
        st.phase[0] = BUY


@kernel
def next_clan(st):
    """Phase 2: the next clan activates (named by the Emperor as the turn goes, or from the
    fixed order under Limited Emperor); after the last, phase 3."""
    i = st.cx[CX_ITER]
    if i == n_players(st.pl):
        st.auto[0] = GO_OFFICES
        return
    if st.pi[PI_LIMITED]:
        p = st.scr[SC_ORDER, i]
        st.scr[SC_DONE, p] = 1
        st.cx[CX_ACTIVE] = p
        st.auto[0] = GO_ACTIVATE
        return
    st.phase[0] = ORDER
    st.actor[0] = st.gs[G_EMP]


@kernel
def activate(st):
    """The named clan starts its activation (an eliminated one is skipped)."""
    p = st.cx[CX_ACTIVE]
    if st.pl[p, PL_OUT]:
        st.cx[CX_ITER] += 1
        st.auto[0] = GO_NEXT_CLAN
        return
    st.pl[p, PL_FREE] = int(p == st.gs[G_SHOGUN])
    st.cx[CX_ACTIONS] = 0
    st.auto[0] = GO_ACT


@kernel
def end_activation_step(st):
    """The activation is over: its Honor for provinces and Kyoto; the next clan."""
    p = st.cx[CX_ACTIVE]
    st.aggs.misc[Misc.ACTIONS] += st.cx[CX_ACTIONS]
    st.pl[p, PL_FREE] = 0
    if st.pl[p, PL_OUT] == 0:
        end_activation(p, st.bd, st.pl, st.pcount, st.gs, st.src, st.terr, st.prov, st.pi,
                       st.log, st.log_n)
    st.cx[CX_ITER] += 1
    st.auto[0] = GO_NEXT_CLAN


@kernel
def next_act(st):
    """The activating clan's next action, unless it is eliminated or hit the safety cap."""
    p = st.cx[CX_ACTIVE]
    if st.pl[p, PL_OUT]:
        end_activation_step(st)
        return
    if st.cx[CX_ACTIONS] >= st.pi[PI_MAX_ACTIONS]:
        st.aggs.misc[Misc.ACTION_CAP] += 1
        end_activation_step(st)
        return
    st.phase[0] = ACT
    st.actor[0] = p


@kernel
def offices(st):
    """Phase 3 (Emperor and Shogun), then phase 4 begins (clockwise from the Emperor)."""
    new_offices(st.pl, st.gs, st.bd, st.pi, st.src, st.aggs.seat, st.log, st.log_n)
    turn = st.gs[G_TURN]
    if H_EMP + turn < st.hist.shape[0]:
        st.hist[H_EMP + turn] = st.gs[G_EMP]
    st.cx[CX_FINAL] = int(st.gs[G_END] == 1 and st.pi[PI_LAND_KOKU] == 1)
    st.cx[CX_ITER] = 0
    st.auto[0] = GO_TAXES


@kernel
def next_taxes(st):
    """Phase 4 for the next clan: koku for each territory (2 plain, 1 mountain), or Honor
    from them on the last turn with In the land of koku; then its discards (a decision)."""
    P = n_players(st.pl)
    i = st.cx[CX_ITER]
    while i < P:
        p = (st.gs[G_EMP] + i) % P
        if st.pl[p, PL_OUT] == 0:
            break
        i += 1
    st.cx[CX_ITER] = i
    if i == P:
        st.auto[0] = GO_TURN_END
        return
    tax = 0
    for t in range(st.bd.shape[1]):
        if st.bd[OWNER, t] == p:
            tax += st.terr[t, TC_TAX]
    if st.cx[CX_FINAL]:
        gain(st.pl, st.src, st.gs, st.pi, st.log, st.log_n, p, tax // 3, Source.KOKU)
        st.pl[p, PL_KOKU] += tax % 3
    else:
        st.pl[p, PL_KOKU] += tax
        emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.TAXES, tax, st.pl[p, PL_KOKU], 0, 0)
    st.phase[0] = DISCARD
    st.actor[0] = p


@kernel
def turn_end(st):
    """The turn's statistics and audit; the game ends after a clan passed the target (or
    at the safety cap on turns)."""
    P = n_players(st.pl)
    NP = st.prov.shape[0]
    turn = st.gs[G_TURN]
    provs = st.aggs.provinces
    for pr in range(NP):
        for q in range(P):
            if province_complete(st.pcount, st.prov, q, pr):
                provs[pr, ProvStat.TURNS] += 1
                st.cx[CX_EVER] |= 1 << pr
    if not audit(P, st.bd, st.pl, st.pcount, st.gs, st.terr, st.pi, st.deck0.shape[0],
                 st.scr[SC_A]):
        st.aggs.misc[Misc.BROKEN] += 1
    if st.cx[CX_PLAYOUT] < st.pi[PI_TRACE] and turn <= TRACE_TURNS:
        for q in range(P):
            st.aggs.trace[st.cx[CX_PLAYOUT], q, turn - 1] = st.pl[q, PL_HONOR] + 1
    if st.gs[G_END]:
        st.auto[0] = GO_FINISH
    elif turn >= st.pi[PI_MAX_TURNS]:
        st.cx[CX_CAPPED] = 1
        st.auto[0] = GO_FINISH
    else:
        st.auto[0] = GO_TURN


@kernel
def begin_turn(st):
    """A new turn: eliminated clans return first."""
    st.gs[G_TURN] += 1
    emit(st.log, st.log_n, st.gs[G_TURN], NO_ONE, Ev.TURN, st.gs[G_TURN], st.gs[G_EMP],
         st.gs[G_SHOGUN], 0)
    st.cx[CX_ITER] = 0
    st.auto[0] = GO_RETURNS


@kernel
def setup_next(st):
    """A clan has placed its extra samurai: its starting income; the next clan."""
    p = st.cx[CX_ITER]
    income = 0
    for t in range(st.bd.shape[1]):
        if st.bd[OWNER, t] == p:
            income += st.terr[t, TC_TAX]
    st.row[R_INCOME + p] = income
    st.cx[CX_ITER] = p + 1
    st.auto[0] = GO_SETUP_PLACE


@kernel
def purchased(st):
    """The buyer has placed its samurai: it pays 1 koku for each; the next buyer."""
    q = st.scr[SC_ORDER, st.cx[CX_ITER]]
    st.pl[q, PL_KOKU] -= st.cx[CX_PLACED]
    st.aggs.misc[Misc.BOUGHT_SAMURAI] += st.cx[CX_PLACED]
    if st.cx[CX_PLACED] > 0:
        emit(st.log, st.log_n, st.gs[G_TURN], q, Ev.BUY, st.cx[CX_PLACED], st.pl[q, PL_KOKU],
             0, 0)
    st.cx[CX_ITER] += 1
    st.auto[0] = GO_PURCHASE


@kernel
def advance(st):
    """Run the automatic steps until a decision is due or the game is over."""
    while st.auto[0] != GO_NONE:
        go = st.auto[0]
        st.auto[0] = GO_NONE
        if go == GO_ACT:
            next_act(st)
        elif go == GO_PLACE:
            next_placing(st)
        elif go == GO_RESOLVE:
            resolve_battle(st)
        elif go == GO_CONQUER:
            conquer(st)
        elif go == GO_BATTLE_END:
            battle_end(st)
        elif go == GO_PURCHASE:
            next_purchase(st)
        elif go == GO_PURCHASED:
            purchased(st)
        elif go == GO_NEXT_CLAN:
            next_clan(st)
        elif go == GO_ACTIVATE:
            activate(st)
        elif go == GO_ORDER:
            if st.cx[CX_ITER] == n_players(st.pl):
                st.cx[CX_ITER] = 0
                st.auto[0] = GO_PURCHASE
            else:
                st.phase[0] = ORDER
                st.actor[0] = st.gs[G_EMP]
        elif go == GO_TAXES:
            next_taxes(st)
        elif go == GO_RETURNS:
            next_return(st)
        elif go == GO_TURN:
            begin_turn(st)
        elif go == GO_OFFICES:
            offices(st)
        elif go == GO_TURN_END:
            turn_end(st)
        elif go == GO_SETUP_PLACE:
            if st.cx[CX_ITER] == n_players(st.pl):
                st.auto[0] = GO_SETUP_DONE
            else:
                begin_placing(st, st.cx[CX_ITER], st.pi[PI_EXTRA], NONE, GO_SETUP_NEXT)
        elif go == GO_SETUP_NEXT:
            setup_next(st)
        elif go == GO_SETUP_DONE:
            setup_done(st)
        elif go == GO_FINISH:
            finish(st)


# --- cards played for their power ------------------------------------------------------------

@kernel
def reactor(st, k):
    """The k-th clan asked whether it answers the active clan's move or card: the clan it
    is aimed at (st.cx[CX_VICTIM]) first, then the others clockwise from the active clan;
    -1 after the last."""
    p = st.cx[CX_ACTIVE]
    v = st.cx[CX_VICTIM]
    if v >= 0 and v != p:
        if k == 0:
            return v
        k -= 1
    P = n_players(st.pl)
    for i in range(1, P):
        q = (p + i) % P
        if q != v:
            if k == 0:
                return q
            k -= 1
    return NONE


@kernel
def can_counter(st, q):
    """Whether q could cancel the card in play with Shogunal Justice now: it is aimed at
    q (or at anyone, with shogunal-justice=others) and q holds Justice and 3+ cards."""
    v = st.cx[CX_VICTIM]
    if v < 0 or (v != q and st.pi[PI_JUSTICE_OTHERS] == 0):
        return False
    return may_play_anytime(q, st.pl, 3) and find_card(q, E_JUSTICE, st.hand, st.pl,
                                                       st.cards) >= 0


@kernel
def next_card_reaction(st):
    """Ask the next clan that could counter the card in play (a JUSTICE decision); when
    none is left, the card acts."""
    k = st.cx[CX_REACT]
    q = reactor(st, k)
    while q >= 0:
        k += 1
        if can_counter(st, q):
            st.cx[CX_REACT] = k
            st.phase[0] = JUSTICE
            st.actor[0] = q
            return
        q = reactor(st, k)
    card_effect(st, st.cx[CX_ACTIVE])


@kernel
def play_card(st, p, i, target):
    """p plays the card at hand position i for its power on `target`; its victim may
    counter it with Shogunal Justice (a decision) before it acts."""
    c = st.hand[p, i]
    eff = st.cards[c, CC_EFFECT]
    st.pl[p, PL_KOKU] -= st.cards[c, CC_COST]
    discard_at(p, i, st.hand, st.pl, st.piles, st.gs)
    st.aggs.cards[c, CardStat.POWER] += 1
    st.aggs.misc[Misc.EVENTS] += 1
    emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.CARD, c, target, 0, 0)
    st.cx[CX_CARD] = c
    st.cx[CX_TARGET] = target
    q = NO_ONE
    if eff == E_INSULT:
        if target != p:
            q = target
    elif eff == E_WAKO or eff == E_NINJA:  # noqa: SIM109
        q = target
    elif eff == E_UPRISING:
        q = st.bd[OWNER, target]
    st.cx[CX_VICTIM] = q
    st.cx[CX_REACT] = 0
    next_card_reaction(st)


@kernel
def card_effect(st, p):
    """The card in play (st.cx) acts."""
    c = st.cx[CX_CARD]
    target = st.cx[CX_TARGET]
    eff = st.cards[c, CC_EFFECT]
    amount = st.cards[c, CC_AMOUNT]
    pl = st.pl
    turn = st.gs[G_TURN]
    if eff == E_HONOR:
        gain(pl, st.src, st.gs, st.pi, st.log, st.log_n, p, amount, Source.CARDS)
    elif eff == E_KOKU:
        pl[p, PL_KOKU] += amount
        emit(st.log, st.log_n, turn, p, Ev.KOKU, amount, pl[p, PL_KOKU], KokuWhy.HARVEST, 0)
    elif eff == E_INSULT:
        lose(pl, st.src, st.gs, st.log, st.log_n, target, amount, Source.LOST_CARDS)
    elif eff == E_WAKO:
        k = min(amount, pl[target, PL_KOKU])
        pl[target, PL_KOKU] -= k
        pl[p, PL_KOKU] += k
        emit(st.log, st.log_n, turn, target, Ev.KOKU, -k, pl[target, PL_KOKU],
             KokuWhy.WAKO_LOST, 0)
        emit(st.log, st.log_n, turn, p, Ev.KOKU, k, pl[p, PL_KOKU], KokuWhy.WAKO_TAKEN, 0)
    elif eff == E_NINJA:
        q = target
        if pl[q, PL_HAND] > 0:
            j = below(st.rng[st.lane[p]], pl[q, PL_HAND])
            st.hand[p, pl[p, PL_HAND]] = st.hand[q, j]
            emit(st.log, st.log_n, turn, p, Ev.STEAL, st.hand[q, j], q, 0, 0)
            pl[p, PL_HAND] += 1
            pl[q, PL_HAND] -= 1
            st.hand[q, j] = st.hand[q, pl[q, PL_HAND]]
    elif eff == E_UPRISING:
        t = target
        q = st.bd[OWNER, t]
        k = st.bd[SAM, t] if amount == 0 else min(amount, st.bd[SAM, t])
        st.bd[SAM, t] -= k
        pl[q, PL_SUPPLY] += k
        emit(st.log, st.log_n, turn, p, Ev.UPRISING, t, k, q, 0)
        if st.bd[SAM, t] == 0:
            set_owner(st.bd, pl, st.pcount, st.terr, t, NO_ONE)
    st.auto[0] = GO_ACT


# --- moves and battles -------------------------------------------------------------------------

LET = np.int64(0)  # CANCEL actions
BY_TSUNAMI = np.int64(1)
BY_SCORCHED = np.int64(2)
BY_JUSTICE = np.int64(3)


@kernel(inline=True)
def cancel_effect(a):
    """The card effect of CANCEL action a (1 Tsunami, 2 Scorched Earth, 3 Shogunal
    Justice), 0 for letting the move happen."""
    if a == BY_TSUNAMI:
        return E_TSUNAMI
    if a == BY_SCORCHED:
        return E_SCORCHED
    if a == BY_JUSTICE:
        return E_JUSTICE
    return 0


@kernel
def move_reactions(st, q):
    """Bit mask of the CANCEL actions q may take against the move in progress (bit a - 1
    for action a): Tsunami on a sea link, Scorched Earth on any, Shogunal Justice on an
    attack on q (or on anyone with shogunal-justice=others); none with 2 cards or fewer."""
    if not may_play_anytime(q, st.pl, 3):
        return 0
    bt = st.bt
    m = 0
    if st.adj[1, bt[BT_LINK]] == 1 and find_card(q, E_TSUNAMI, st.hand, st.pl,
                                                  st.cards) >= 0:
        m |= 1
    if find_card(q, E_SCORCHED, st.hand, st.pl, st.cards) >= 0:
        m |= 2
    d = st.cx[CX_VICTIM]
    if d >= 0 and (d == q or st.pi[PI_JUSTICE_OTHERS]) and find_card(
            q, E_JUSTICE, st.hand, st.pl, st.cards) >= 0:
        m |= 4
    return m


@kernel
def next_move_reaction(st):
    """Ask the next clan that could cancel the move in progress (a CANCEL decision);
    when none is left, the move goes on."""
    k = st.cx[CX_REACT]
    q = reactor(st, k)
    while q >= 0:
        k += 1
        if move_reactions(st, q) != 0:
            st.cx[CX_REACT] = k
            st.phase[0] = CANCEL
            st.actor[0] = q
            return
        q = reactor(st, k)
    move_on(st, st.cx[CX_ACTIVE])


@kernel
def start_move(st, p, e, k):
    """p moves k samurai along link e (paying 1 koku unless free); the other clans may
    first cancel it with a card playable at any time (decisions, defender first)."""
    bd = st.bd
    s = st.link_from[e]
    n = st.adj[0, e]
    q = bd[OWNER, n]
    bt = st.bt
    bt[BT_FROM] = s
    bt[BT_TO] = n
    bt[BT_LINK] = e
    bt[BT_K] = k
    bt[BT_Q] = q
    bt[BT_COST] = 0
    bt[BT_FREE] = 0
    if not (q == p and bd[CASTLE, n]):
        if st.pl[p, PL_FREE]:
            st.pl[p, PL_FREE] = 0
            bt[BT_FREE] = 1
        else:
            bt[BT_COST] = 1
    st.pl[p, PL_KOKU] -= bt[BT_COST]
    st.aggs.misc[Misc.MOVES] += 1
    emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.MOVE, s, n, k, bt[BT_COST])
    st.cx[CX_VICTIM] = q if q != p else NO_ONE
    st.cx[CX_REACT] = 0
    next_move_reaction(st)


@kernel
def move_on(st, p):
    """The samurai leave their territory: into a free or own territory the move is done;
    into an enemy one the battle begins with the attacker's cards (a decision)."""
    bd = st.bd
    bt = st.bt
    s = bt[BT_FROM]
    n = bt[BT_TO]
    k = bt[BT_K]
    q = bt[BT_Q]
    bd[SAM, s] -= k
    if bd[SAM, s] == 0 and bd[CASTLE, s] == 0:
        set_owner(bd, st.pl, st.pcount, st.terr, s, NO_ONE)
    if q == NO_ONE:
        set_owner(bd, st.pl, st.pcount, st.terr, n, p)
        bd[SAM, n] = k
        st.auto[0] = GO_ACT
        return
    if q == p:
        bd[SAM, n] += k
        st.auto[0] = GO_ACT
        return
    bt[BT_D] = bd[SAM, n]
    bt[BT_CASTLE] = int(bd[CASTLE, n] == 1)
    bt[BT_MOUNT] = st.terr[n, TC_MOUNT]
    emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.BATTLE, n, q, k, bt[BT_D])
    st.phase[0] = ATT_CARDS
    st.actor[0] = p


@kernel
def side_cards(st, x, a, castle, log_side):
    """Side x fights with the cards of action a: counted, logged; returns (i, j, k, card
    points, swords)."""
    i, j, k = cards_of(st, a)
    pts, sw = card_points(st.hand[x], i, j, k, st.cards, castle, allied(st, x))
    cs = st.aggs.cards
    cs[st.hand[x, i], CardStat.COMBAT] += 1
    cs[st.hand[x, j], CardStat.COMBAT] += 1
    if k >= 0:
        cs[st.hand[x, k], CardStat.COMBAT] += 1
    if log_side:
        emit(st.log, st.log_n, st.gs[G_TURN], x, Ev.SIDE, st.hand[x, i], st.hand[x, j],
             st.hand[x, k] if k >= 0 else -1, pts)
        if k >= 0 and st.cards[st.hand[x, k], CC_EFFECT] == E_ALLIANCE:
            emit(st.log, st.log_n, st.gs[G_TURN], x, Ev.ALLIES,
                 min(allied(st, x), st.cards[st.hand[x, k], CC_AMOUNT]),
                 allies(st.bd, st.adj_start, st.adj, st.bt[BT_TO], x), alliance_room(st, x),
                 0)
    return i, j, k, pts, sw


@kernel
def attack_cards(st, p, a):
    """The attacker's cards are chosen; the defender fills its hand to 2 if need be and
    chooses its own (a decision), or fights with what it has when the deck is out."""
    bt = st.bt
    i, j, k, pts, sw = side_cards(st, p, a, False, True)
    bt[BT_IA] = i
    bt[BT_JA] = j
    bt[BT_KA] = k
    bt[BT_PA] = pts
    bt[BT_SWA] = sw
    q = bt[BT_Q]
    pl = st.pl
    filled = pl[q, PL_HAND] < 2
    bt[BT_FILLED] = int(filled)
    if filled:
        st.aggs.misc[Misc.FILLED] += 1
        draw_cards(st.rng[SHARED], q, 2 - pl[q, PL_HAND], st.hand, pl, st.piles, st.gs,
                   st.aggs.misc, st.log, st.log_n)
    if pl[q, PL_HAND] >= 2:
        st.phase[0] = DEF_CARDS
        st.actor[0] = q
        return
    pd = 0  # nothing left anywhere to draw: the card it has (if any) counts
    swd = 0
    if pl[q, PL_HAND] == 1:
        pd = st.cards[st.hand[q, 0], CC_VALUE] * (2 if bt[BT_CASTLE] else 1)
        swd = st.cards[st.hand[q, 0], CC_SWORDS]
        discard_at(q, 0, st.hand, pl, st.piles, st.gs)
    bt[BT_PD] = pd
    bt[BT_SWD] = swd
    st.auto[0] = GO_RESOLVE


@kernel
def resolve_battle(st):
    """Both sides' cards are down: the attacker discards his, points and swords decide;
    the loser's survivors and the winner's Honor follow. A beaten defender's survivors
    retreat to its other territories (decisions)."""
    bt = st.bt
    bd = st.bd
    pl = st.pl
    p = st.cx[CX_ACTIVE]
    q = bt[BT_Q]
    n = bt[BT_TO]
    k = bt[BT_K]
    castle = bt[BT_CASTLE] == 1
    discard_three(p, bt[BT_IA], bt[BT_JA], bt[BT_KA], st.hand, pl, st.piles, st.gs)
    result, la, ld, empty = resolve(total_points(bt[BT_PA], k, ZERO),
                                    total_points(bt[BT_PD], bt[BT_D], bt[BT_MOUNT]),
                                    bt[BT_SWA], bt[BT_SWD], k, bt[BT_D], castle)
    bt[BT_RESULT] = result
    b = st.aggs.battles[int(castle), bt[BT_MOUNT]]
    b[BattleStat.N] += 1
    b[BattleStat.ATT] += result == ATTACKER
    b[BattleStat.TIE] += result == TIE
    b[BattleStat.EMPTY] += empty
    b[BattleStat.LA] += la
    b[BattleStat.LD] += ld
    cell = 2 * int(castle) + bt[BT_MOUNT]
    st.gs[G_BN + cell] += 1
    st.gs[G_BA + cell] += result == ATTACKER
    emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.TOTAL, bt[BT_PA], total_points(0, k, ZERO),
         0, bt[BT_SWA])
    emit(st.log, st.log_n, st.gs[G_TURN], q, Ev.TOTAL, bt[BT_PD],
         total_points(0, bt[BT_D], ZERO), bt[BT_MOUNT], bt[BT_SWD])
    emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.OUTCOME, result, la, ld, n)
    k -= la
    bt[BT_K] = k
    pl[p, PL_SUPPLY] += la
    bd[SAM, n] -= ld
    pl[q, PL_SUPPLY] += ld
    if result == ATTACKER:
        gain(pl, st.src, st.gs, st.pi, st.log, st.log_n, p, 1, Source.COMBAT)
        if q == st.gs[G_SHOGUN]:
            lose(pl, st.src, st.gs, st.log, st.log_n, q, 1, Source.LOST_SHOGUN)
        survivors = bd[SAM, n]
        bd[SAM, n] = 0
        if survivors > 0:  # the defender's survivors go to his other territories (if any)
            pl[q, PL_SUPPLY] += survivors
            begin_placing(st, q, survivors, n, GO_CONQUER)
        else:
            st.auto[0] = GO_CONQUER
        return
    if result == DEFENDER:
        gain(pl, st.src, st.gs, st.pi, st.log, st.log_n, q, 1, Source.COMBAT)
        if p == st.gs[G_SHOGUN]:
            lose(pl, st.src, st.gs, st.log, st.log_n, p, 1, Source.LOST_SHOGUN)
    s = bt[BT_FROM]
    if k > 0:  # the attacker's survivors return where they came from
        if bd[OWNER, s] == NO_ONE:
            set_owner(bd, pl, st.pcount, st.terr, s, p)
        bd[SAM, s] += k
    if bd[SAM, n] == 0 and bd[CASTLE, n] == 0:
        set_owner(bd, pl, st.pcount, st.terr, n, NO_ONE)
    st.auto[0] = GO_BATTLE_END


@kernel
def conquer(st):
    """The attacker won and the survivors have retreated: its samurai move in (taking a
    castle: a decision), or, wiped out, leave the territory free and the castle destroyed."""
    bt = st.bt
    bd = st.bd
    p = st.cx[CX_ACTIVE]
    q = bt[BT_Q]
    n = bt[BT_TO]
    if bt[BT_K] > 0:
        if bt[BT_CASTLE]:
            st.aggs.misc[Misc.CASTLES_TAKEN] += 1
            st.phase[0] = TAKE_CASTLE
            st.actor[0] = p
            return
        set_owner(bd, st.pl, st.pcount, st.terr, n, p)
        bd[SAM, n] = bt[BT_K]
    else:
        if bt[BT_CASTLE]:
            bd[CASTLE, n] = 0
            st.pl[q, PL_CASTLES] += 1
        set_owner(bd, st.pl, st.pcount, st.terr, n, NO_ONE)
    st.auto[0] = GO_BATTLE_END


@kernel
def take_castle(st, p, a):
    """p has taken the castle at n: destroy it (a = 0), replace it with one of its own
    from reserve (1) or, with none in reserve, move its own castle from territory a - 2
    there; then it moves in."""
    bt = st.bt
    bd = st.bd
    pl = st.pl
    q = bt[BT_Q]
    n = bt[BT_TO]
    pl[q, PL_CASTLES] += 1
    if a == 0:
        bd[CASTLE, n] = 0
    elif a == 1:
        pl[p, PL_CASTLES] -= 1
    else:
        t = a - 2
        bd[CASTLE, t] = 0
        if bd[SAM, t] == 0:
            set_owner(bd, pl, st.pcount, st.terr, t, NO_ONE)
    emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.CASTLE_TAKEN, n, min(a, 2), a - 2, 0)
    set_owner(bd, pl, st.pcount, st.terr, n, p)
    bd[SAM, n] = bt[BT_K]
    st.auto[0] = GO_BATTLE_END


@kernel
def battle_end(st):
    """After a battle both sides draw (the attacker 2; the defender 3 when it won, 2 or
    the tie rule's number after a tie, else 2); either may be eliminated."""
    p = st.cx[CX_ACTIVE]
    q = st.bt[BT_Q]
    result = st.bt[BT_RESULT]
    shared = st.rng[SHARED]
    misc = st.aggs.misc
    draw_cards(shared, p, np.int64(2), st.hand, st.pl, st.piles, st.gs, misc, st.log,
               st.log_n)
    k = 3 if result == DEFENDER else st.pi[PI_TIE_DRAW] if result == TIE else 2
    draw_cards(shared, q, k, st.hand, st.pl, st.piles, st.gs, misc, st.log, st.log_n)
    check_out(q, st.pl, misc, st.aggs.seat, st.gs, st.log, st.log_n)
    check_out(p, st.pl, misc, st.aggs.seat, st.gs, st.log, st.log_n)
    st.auto[0] = GO_ACT


# --- applying a decision -----------------------------------------------------------------------

@kernel
def apply_act(st, p, a):
    """The activating clan's action: pass, sell Honor, play a card or move."""
    if a == PASS:
        end_activation_step(st)
        return
    st.cx[CX_ACTIONS] += 1
    if a == SELL:
        lose(st.pl, st.src, st.gs, st.log, st.log_n, p, 2, Source.LOST_SOLD)
        st.pl[p, PL_KOKU] += 1
        emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.KOKU, 1, st.pl[p, PL_KOKU], KokuWhy.SOLD,
             0)
        st.aggs.misc[Misc.SOLD] += 1
        st.auto[0] = GO_ACT
        return
    mb = move_base(st)
    if a < mb:
        w = width(st)
        play_card(st, p, (a - CARD) // w, (a - CARD) % w)
        return
    K = st.pi[PI_SAMURAI]
    start_move(st, p, (a - mb) // K, (a - mb) % K + 1)


@kernel
def apply_castle(st, q, a):
    """The buyer builds a castle on territory a - 1 (a = 0: none); then it buys samurai."""
    if a > 0:
        t = a - 1
        cost = st.pi[PI_KYOTO_COST] if t == st.pi[PI_KYOTO] else st.pi[PI_CASTLE_COST]
        st.pl[q, PL_KOKU] -= cost
        st.pl[q, PL_CASTLES] -= 1
        st.pl[q, PL_BUILT] = 1
        st.bd[CASTLE, t] = 1
        st.aggs.misc[Misc.BOUGHT_CASTLES] += 1
        emit(st.log, st.log_n, st.gs[G_TURN], q, Ev.CASTLE, t, cost, 0, 0)
    st.phase[0] = BUY
    st.actor[0] = q


@kernel
def apply_return(st, p, t):
    """Eliminated p returns to t with a free Ikko Ikki uprising (the territory's samurai go
    back to their owner's supply), 5 samurai and 4 koku (its koku set to 4, as printed:
    "returns ... with 5 samurai and 4 koku", not 4 added to what it kept)."""
    bd = st.bd
    pl = st.pl
    o = bd[OWNER, t]
    if o >= 0:
        emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.UPRISING, t, bd[SAM, t], o, 0)
        pl[o, PL_SUPPLY] += bd[SAM, t]
        bd[SAM, t] = 0
    set_owner(bd, pl, st.pcount, st.terr, t, p)
    k = min(st.pi[PI_RET_SAM], pl[p, PL_SUPPLY])
    bd[SAM, t] = k
    pl[p, PL_SUPPLY] -= k
    emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.KOKU, st.pi[PI_RET_KOKU] - pl[p, PL_KOKU],
         st.pi[PI_RET_KOKU], KokuWhy.RETURN, 0)
    pl[p, PL_KOKU] = st.pi[PI_RET_KOKU]  # "with 4 koku": what it kept is gone
    pl[p, PL_OUT] = 0
    st.aggs.misc[Misc.RETURNS] += 1
    emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.RETURN, t, k, o, 0)
    st.cx[CX_ITER] += 1
    st.auto[0] = GO_RETURNS


@kernel
def apply_discard(st, p, mask):
    """p discards the cards at the hand positions in `mask` (examined in the printed
    order: a discarded card's place is taken by the last card), refills to the hand size
    and draws 1 or 2 more by clan points."""
    hand = st.hand
    pl = st.pl
    orig = st.scr[SC_B]
    n = pl[p, PL_HAND]
    for j in range(n):
        orig[j] = j
    j = 0
    while j < pl[p, PL_HAND]:
        if orig[j] < 63 and (mask >> orig[j]) & 1:
            emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.DISCARD, hand[p, j], 0, 0, 0)
            discard_at(p, j, hand, pl, st.piles, st.gs)
            orig[j] = orig[pl[p, PL_HAND]]
        else:
            j += 1
    shared = st.rng[SHARED]
    misc = st.aggs.misc
    if pl[p, PL_HAND] < st.pi[PI_HAND]:
        draw_cards(shared, p, st.pi[PI_HAND] - pl[p, PL_HAND], hand, pl, st.piles, st.gs,
                   misc, st.log, st.log_n)
    cp = pl[p, PL_CP]
    extra = 2 if cp >= 6 else (1 if cp >= 1 else 0)
    if st.pi[PI_NEW_DEAL] and cp <= 2:
        extra = 0
    draw_cards(shared, p, extra, hand, pl, st.piles, st.gs, misc, st.log, st.log_n)
    st.cx[CX_ITER] += 1
    st.auto[0] = GO_TAXES


@kernel
def apply_order(st, q):
    """The Emperor names clan q: next in the phase 1 order, or to activate now."""
    st.scr[SC_DONE, q] = 1
    if st.cx[CX_ORDER_ACT]:
        st.cx[CX_ACTIVE] = q
        st.auto[0] = GO_ACTIVATE
    else:
        st.scr[SC_ORDER, st.cx[CX_ITER]] = q
        st.cx[CX_ITER] += 1
        st.auto[0] = GO_ORDER


@kernel
def apply(st, a):
    """The seat to act takes action a; the game runs on to the next decision or the end."""
    ph = st.phase[0]
    p = st.actor[0]
    if ph == ACT:
        apply_act(st, p, a)
    elif ph == PLACE:
        st.bd[SAM, a] += 1
        st.pl[p, PL_SUPPLY] -= 1
        st.cx[CX_LEFT] -= 1
        st.cx[CX_PLACED] += 1
        emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.PLACE, a, st.bd[SAM, a],
             WHY_RETREAT if st.cx[CX_EXCL] >= 0 else WHY_SETUP if st.gs[G_TURN] == 0
             else WHY_BOUGHT, 0)
        st.auto[0] = GO_PLACE
    elif ph == ATT_CARDS:
        attack_cards(st, p, a)
    elif ph == DEF_CARDS:
        i, j, k, pts, sw = side_cards(st, p, a, st.bt[BT_CASTLE] == 1, True)
        st.bt[BT_PD] = pts
        st.bt[BT_SWD] = sw
        discard_three(p, i, j, k, st.hand, st.pl, st.piles, st.gs)
        st.auto[0] = GO_RESOLVE
    elif ph == DISCARD:
        apply_discard(st, p, a)
    elif ph == ORDER:
        apply_order(st, a)
    elif ph == BUY:
        begin_placing(st, p, a, NONE, GO_PURCHASED)
    elif ph == CASTLE_BUY:
        apply_castle(st, p, a)
    elif ph == CANCEL:
        apply_cancel(st, p, a)
    elif ph == JUSTICE:
        apply_justice(st, p, a)
    elif ph == TAKE_CASTLE:
        take_castle(st, st.cx[CX_ACTIVE], a)
    elif ph == RETURN:
        apply_return(st, p, a)
    advance(st)


@kernel
def apply_cancel(st, q, a):
    """q cancels the move in progress with Tsunami (a = 1) or Scorched Earth (2), the
    mover's koku and free move coming back, or with Shogunal Justice (3), the koku spent;
    or lets it happen (0: the next clan is asked)."""
    p = st.cx[CX_ACTIVE]
    bt = st.bt
    if a == LET:
        next_move_reaction(st)
        return
    i = find_card(q, cancel_effect(a), st.hand, st.pl, st.cards)
    c = st.hand[q, i]
    st.aggs.cards[c, CardStat.POWER] += 1
    discard_at(q, i, st.hand, st.pl, st.piles, st.gs)
    st.aggs.misc[Misc.CANCELLED] += 1
    emit(st.log, st.log_n, st.gs[G_TURN], q, Ev.CANCEL, c, p, 0, 0)
    if a != BY_JUSTICE:
        st.pl[p, PL_KOKU] += bt[BT_COST]
        if bt[BT_FREE]:
            st.pl[p, PL_FREE] = 1
        emit(st.log, st.log_n, st.gs[G_TURN], p, Ev.KOKU, bt[BT_COST], st.pl[p, PL_KOKU],
             KokuWhy.REFUND, bt[BT_FREE])
    st.auto[0] = GO_ACT


@kernel
def apply_justice(st, q, a):
    """q cancels the card in play with Shogunal Justice (a = 1) or lets it act (0: the
    next clan that could counter it is asked)."""
    p = st.cx[CX_ACTIVE]
    if a == 1:
        i = find_card(q, E_JUSTICE, st.hand, st.pl, st.cards)
        st.aggs.cards[st.hand[q, i], CardStat.POWER] += 1
        discard_at(q, i, st.hand, st.pl, st.piles, st.gs)
        st.aggs.misc[Misc.COUNTERED] += 1
        st.aggs.cards[st.cx[CX_CARD], CardStat.COUNTERED] += 1
        emit(st.log, st.log_n, st.gs[G_TURN], q, Ev.COUNTER, st.cx[CX_CARD], p, 0, 0)
        st.auto[0] = GO_ACT
        return
    next_card_reaction(st)


# --- the end -------------------------------------------------------------------------------------

@kernel
def battle_moments(gs, sq, sq_all):
    """Add this game's per-game sums of squares of attacker wins y and battles x (yy, xx,
    xy) by terrain and over all terrains: the clustered intervals of per-battle rates."""
    ty = 0
    tx = 0
    for cell in range(4):
        x = gs[G_BN + cell]
        y = gs[G_BA + cell]
        m = sq[cell // 2, cell % 2]
        m[Moment.YY] += y * y
        m[Moment.XX] += x * x
        m[Moment.XY] += x * y
        ty += y
        tx += x
    sq_all[Moment.YY] += ty * ty
    sq_all[Moment.XX] += tx * tx
    sq_all[Moment.XY] += tx * ty


@kernel
def finish(st):
    """The game is over: the winner (most Honor; ties by clan points, cities, territories,
    castles, samurai; -1 when still equal) and the game's statistics."""
    pl = st.pl
    bd = st.bd
    P = n_players(pl)
    NP = st.prov.shape[0]
    hist = st.hist
    row = st.row
    ag = st.aggs
    misc = ag.misc
    turns = st.gs[G_TURN]
    capped = st.cx[CX_CAPPED] == 1
    winner = 0
    shared_win = False
    for q in range(1, P):
        c = win_cmp(pl, q, winner, bd)
        if c > 0:
            winner = q
            shared_win = False
        elif c == 0:
            shared_win = True
    if shared_win:
        winner = -1
        misc[Misc.SHARED] += 1
    else:
        ag.wins[winner] += 1
    if capped:
        misc[Misc.CAPPED] += 1
    ag.lengths[min(turns, ag.lengths.shape[0] - 1)] += 1
    battle_moments(st.gs, ag.battle_sq, ag.battle_sq_all)
    top = -1
    runner = -1
    for q in range(P):
        h = pl[q, PL_HONOR]
        if h > top:
            runner = top
            top = h
        elif h > runner:
            runner = h
    ag.margin[min(top - runner, ag.margin.shape[0] - 1)] += 1
    any_out = False
    for q in range(P):
        won = int(q == winner)
        inc = min(row[R_INCOME + q], ag.start_income.shape[0] - 1)
        ag.start_income[inc, Outcome.COUNT] += 1
        ag.start_income[inc, Outcome.WON] += won
        if hist[H_MAJOR + q] >= 0:
            ag.start_major[hist[H_MAJOR + q], Outcome.COUNT] += 1
            ag.start_major[hist[H_MAJOR + q], Outcome.WON] += won
        cl = min(hist[H_CLUSTER + q], N_CLUSTER - 1)
        ag.start_cluster[cl, Outcome.COUNT] += 1
        ag.start_cluster[cl, Outcome.WON] += won
        h = pl[q, PL_HONOR]
        ag.seat[q, SeatStat.HONOR] += h
        ag.seat[q, SeatStat.HONOR2] += h * h
        ag.seat[q, SeatStat.CP] += pl[q, PL_CP]
        any_out |= pl[q, PL_EVER_OUT] == 1
        row[R_HONOR + q] = h
        row[R_CP + q] = pl[q, PL_CP]
    misc[Misc.GAMES_ELIM] += any_out
    catch = ag.catch_up
    last = min(turns, hist.shape[0] - H_EMP - 1)
    for k in range(1, min(last, catch.shape[0] - 1) + 1):
        catch[k, Outcome.COUNT] += 1
        catch[k, Outcome.WON] += int(hist[H_EMP + k] == winner)
    for s in range(st.src.shape[1]):
        tot = 0
        for q in range(P):
            tot += st.src[q, s]
        ag.sources[s, SourceStat.SUM] += tot
        ag.sources[s, SourceStat.SQ] += tot * tot
        if winner >= 0:
            w = st.src[winner, s]
            ag.sources[s, SourceStat.WIN] += w
            ag.sources[s, SourceStat.WIN_SQ] += w * w
    ever = st.cx[CX_EVER]
    for pr in range(NP):
        ag.provinces[pr, ProvStat.EVER] += (ever >> pr) & 1
        for q in range(P):
            if province_complete(st.pcount, st.prov, q, pr):
                ag.provinces[pr, ProvStat.END] += 1
                ag.provinces[pr, ProvStat.WINNER] += int(q == winner)
    if winner >= 0:
        kyoto = st.pi[PI_KYOTO]
        misc[Misc.KINAI_WINNER] += province_complete(st.pcount, st.prov, winner,
                                                     st.terr[kyoto, TC_PROV])
        misc[Misc.KYOTO_WINNER] += bd[OWNER, kyoto] == winner
    row[R_WINNER] = winner
    row[R_TURNS] = turns
    row[R_COMPLETED] = int(not capped)
    emit(st.log, st.log_n, turns, NO_ONE, Ev.RESULT, winner, turns, int(not capped), 0)
    st.phase[0] = OVER
    st.actor[0] = -1


@kernel
def is_over(st):
    """Whether the game has ended."""
    return st.phase[0] == OVER


@kernel
def to_move(st):
    """The seat to decide, -1 when the game is over."""
    return st.actor[0] if st.phase[0] != OVER else -1


@kernel
def outcome(st, out):
    """out[s] = 1.0 for every seat among the winners (all those equal at the top after
    every tie-break share the win), else 0."""
    P = n_players(st.pl)
    top = 0
    for q in range(1, P):
        if win_cmp(st.pl, q, top, st.bd) > 0:
            top = q
    for q in range(out.shape[0]):
        out[q] = 1.0 if q < P and win_cmp(st.pl, q, top, st.bd) == 0 else 0.0


# --- legal actions and options -------------------------------------------------------------------

@kernel
def legal_act(st, p, out):
    """ACT: pass; sell 2 Honor when out of koku; every playable card on every legal target;
    every affordable move of 1 .. all samurai along every link (attacks need 2 cards)."""
    bd = st.bd
    pl = st.pl
    P = n_players(pl)
    n = 0
    out[n] = PASS
    n += 1
    if pl[p, PL_HONOR] >= 2 and pl[p, PL_KOKU] == 0:
        out[n] = SELL
        n += 1
    for i in range(pl[p, PL_HAND]):
        c = st.hand[p, i]
        if not card_playable(p, c, bd, pl, st.pi, st.cards):
            continue
        eff = st.cards[c, CC_EFFECT]
        if eff == E_UPRISING:
            for t in range(bd.shape[1]):
                if uprising_ok(bd, pl, st.pi, t, p):
                    out[n] = card_action(st, i, t)
                    n += 1
        elif eff == E_HONOR or eff == E_KOKU:  # noqa: SIM109
            out[n] = card_action(st, i, p)
            n += 1
        else:
            for q in range(P):
                if eff == E_INSULT or (q != p and (eff == E_WAKO or pl[q, PL_HAND] > 0)):
                    out[n] = card_action(st, i, q)
                    n += 1
    for s in range(bd.shape[1]):
        if bd[OWNER, s] != p or bd[SAM, s] == 0:
            continue
        for e in range(st.adj_start[s], st.adj_start[s + 1]):
            if move_ok(bd, pl, p, st.adj[0, e]):
                for k in range(1, bd[SAM, s] + 1):
                    out[n] = move_action(st, e, k)
                    n += 1
    return n


@kernel
def legal_cards(st, p, can_special, out):
    """ATT_CARDS / DEF_CARDS: any two cards, with no special or any special among the rest."""
    n = 0
    h = st.pl[p, PL_HAND]
    for i in range(h):
        for j in range(i + 1, h):
            out[n] = cards_action(st, i, j, NONE)
            n += 1
            if not can_special:
                continue
            for k in range(h):
                if k != i and k != j and st.cards[st.hand[p, k], CC_KIND] == K_SPECIAL:
                    out[n] = cards_action(st, i, j, k)
                    n += 1
    return n


@kernel
def legal_actions(st, out):
    """Fill out[:n] with the legal actions of the seat to act; return n (DISCARD lists the
    masks of the first 16 hand positions)."""
    ph = st.phase[0]
    p = st.actor[0]
    bd = st.bd
    pl = st.pl
    T = bd.shape[1]
    n = 0
    if ph == ACT:
        return legal_act(st, p, out)
    if ph == ATT_CARDS:
        return legal_cards(st, p, True, out)
    if ph == DEF_CARDS:
        return legal_cards(st, p, st.bt[BT_FILLED] == 0, out)
    if ph == PLACE:
        for t in range(T):
            if bd[OWNER, t] == p and t != st.cx[CX_EXCL]:
                out[n] = t
                n += 1
    elif ph == RETURN:
        for t in range(T):
            if return_target_ok(bd, pl, st.pi, t, p):
                out[n] = t
                n += 1
    elif ph == ORDER:
        for q in range(n_players(pl)):
            if st.scr[SC_DONE, q] == 0:
                out[n] = q
                n += 1
    elif ph == CASTLE_BUY:
        out[n] = 0
        n += 1
        for t in range(T):
            cost = st.pi[PI_KYOTO_COST] if t == st.pi[PI_KYOTO] else st.pi[PI_CASTLE_COST]
            if bd[OWNER, t] == p and bd[CASTLE, t] == 0 and cost <= pl[p, PL_KOKU]:
                out[n] = 1 + t
                n += 1
    elif ph == BUY:
        for k in range(min(pl[p, PL_KOKU], pl[p, PL_SUPPLY]) + 1):
            out[n] = k
            n += 1
    elif ph == JUSTICE:
        out[0] = 0
        out[1] = 1
        n = 2
    elif ph == CANCEL:
        out[0] = LET
        n = 1
        m = move_reactions(st, p)
        for b in range(3):
            if m & (1 << b):
                out[n] = b + 1
                n += 1
    elif ph == TAKE_CASTLE:
        out[n] = 0
        n += 1
        if pl[p, PL_CASTLES] > 0:
            out[n] = 1
            n += 1
        else:  # "a player who has all his castles on the board" may move one there
            for t in range(T):
                if bd[OWNER, t] == p and bd[CASTLE, t] and t != st.bt[BT_TO]:
                    out[n] = 2 + t
                    n += 1
    elif ph == DISCARD:
        for m in range(1 << min(pl[p, PL_HAND], 16)):
            out[n] = m
            n += 1
    return n


@kernel
def option_of(st, a):
    """The option (index into OPTIONS) action a of the seat to act uses, -1 for none."""
    ph = st.phase[0]
    p = st.actor[0]
    if ph == ACT:
        if a == SELL:
            return OPT_SELL
        if CARD <= a < move_base(st):
            return np.int64(st.cards[st.hand[p, (a - CARD) // width(st)], CC_EFFECT] - 1)
        return NONE
    if ph == CASTLE_BUY:
        return OPT_CASTLE if a > 0 else NONE
    if ph == JUSTICE:
        return np.int64(E_JUSTICE - 1) if a == 1 else NONE
    if ph == CANCEL:
        return np.int64(cancel_effect(a) - 1) if a != LET else NONE
    if ph == ATT_CARDS or ph == DEF_CARDS:  # noqa: SIM109
        k = a % (st.piles.shape[1] + 1) - 1
        return np.int64(st.cards[st.hand[p, k], CC_EFFECT] - 1) if k >= 0 else NONE
    return NONE
