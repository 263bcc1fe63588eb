"""Samurai: The Card Game rules: the state and every rule, once (2-4 players).

Board: a square grid of side W = 2R + 1 held flat, cell = (y + R) * W + (x + R). Villages
sit on cells with x + y even, player cards on cells with x + y odd; the first village is at
the centre (0, 0). grid[cell] is 0 when empty, 1 + village index (order of placement) for
a village, 1 + card code for a card. A card code packs owner (bits 0-1), symbol (2-3),
influence (4-7) and kind (8 and up: the card's line in the content's player set).

Turn: the player to act plays a card of its hand on a legal cell (an empty card cell next
to a village). Each empty village cell between the card and a diagonal card of another
player touching the same village opens; the player puts the top village card on an open
cell of its choice (a decision per village, see `villages` below) until none is open or
the village deck is out. Villages whose four sides are now filled are scored, the player
draws from its own deck, and the game ends after the turn when a marker supply is empty,
the last village card was placed or every card was played. A player without cards is
skipped; a player with cards and no legal cell ends the game (blocked).

Actions (flat int64; a cell is a grid index as above):
- play the card at hand position i on cell c: i * 2**20 + c;
- put the top village card on open cell c: 2**40 + c;
- with `villages=see-all` and two open cells and two village cards left, also: the top
  village on c and the next one on c2: 2**40 + (c2 + 1) * 2**20 + c. A single placement
  stays legal there, so a player may look again after chained openings (the previous
  kernel's random player did; see-next offers single placements only).

Hidden information: a player's hand is private to it (`hands[p, :hand_n[p]]`); every
draw pile's order and the village deck below the visible cards are hidden from everybody.
Public: the board (grid and the influence sums kept from it), the villages not scored,
the number of cards in each hand and draw pile, markers taken and left, and the visible
village cards (`visible_villages`, `top_village`): the top one while a card is played;
while villages are placed, the top two with see-next, one per open cell with see-all.

Options a player can be forbidden (`OPTIONS`, `option_of`): playing a card of each
symbol. Placing a village is never forbidden.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels import events as ev
from kernels.config import INLINE, NO_ALLOC
from kernels.rng import new_states, rotation_lanes, seed_lanes, shuffle
from kernels.samurai_card_game.stats import (
    MAX_P,
    N_LEN,
    N_VH,
    End,
    KindStat,
    Misc,
    Outcome,
    Placed,
    WinBy,
)

# A State argument is some 80 arrays: passed between compiled functions as ~600 machine
# words, and unboxed one by one from Python by an entry numba builds with every compiled
# function (over a second of compile time each). So the functions taking a State have no
# Python entry (INTERNAL), those on the per-decision path are inlined by LLVM (HOT: no
# call, and no numba-level inlining, so compile time stays low), and Python (the handle,
# the tests) calls them through the `py_*` entries at the end of each module, compiled only
# when first called from Python (ENTRY).
# TODO(config.py): these belong with the other flags once the redesign is merged.
INTERNAL = {**NO_ALLOC, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}
HOT = {**INTERNAL, "forceinline": True}
ENTRY = NO_ALLOC

# Symbols (the three marker shapes, then the wild samurai)
HELMET = 0  # triangle
BUDDHA = 1  # circle
RICE = 2  # square
SAMURAI = 3
N_SHAPES = 3

OPTIONS = ("helmet card", "buddha card", "rice card", "samurai card")

# Phases of a turn
PLAY = 0  # the player to act plays a card
PLACE = 1  # ... puts village cards on the cells its card opened

# Action encoding
CELL_BITS = 20
CELL_MASK = (1 << CELL_BITS) - 1
PLACE_FLAG = 1 << 40

# Columns of vsum (one row per placed village): influence of player q on shape s at
# q * 3 + s, then the number of cards next to the village and its position in `openv`.
VS_FILL = 12
VS_OPEN = 13
N_VS = 14
# esum (int8, one row per cell) holds the same columns (q * 3 + s, VS_FILL) for the cards
# next to an empty village cell, kept up to date as cards land (at most 4 * 15), so a
# player reads a would-be village's influence without looking at the grid; a row goes
# stale once a village is put on its cell, and clear_board zeroes the rows next to every
# filled cell.
N_ES = 16

CTZ4 = 0x12131210  # for each 4-bit value v, 2 bits at 2 * v: the position of v's lowest set bit

# Event kinds (a..d as listed; cells are grid indices, seats from 0, -1 for nobody). Values
# passed to jitted helpers are np.int64: a plain int is typed as a literal and would compile
# the helper once per value.
NOBODY = np.int64(-1)  # the table (no seat), or no seat
NIL = np.int64(0)
EV_DEAL = np.int64(1)  # setup: the player is dealt card a
EV_DECK = np.int64(2)  # setup: the village deck is shuffled, a cards
EV_VILLAGE = np.int64(3)  # village card b (symbol mask) put on cell a, c village cards left
EV_TOP = np.int64(4)  # chance: the next village card, mask a, is turned face up; b cards left
EV_OPEN = np.int64(5)  # cell a opens for a village (b = 1: opened by a village placed this turn)
EV_UNFILLED = np.int64(6)  # open cell a stays empty: the village deck is out
EV_SCORE = np.int64(7)  # village on cell a (mask b) is surrounded and scored
EV_AWARD = np.int64(8)  # marker of shape a to seat b (influence c beats the rest); d left in supply
EV_TIE = np.int64(9)  # shape a tied at influence b: no marker; c = 1 discarded; d left in supply
EV_DRAW = np.int64(10)  # chance: the player draws card a from its deck, b cards left there
EV_SKIP = np.int64(11)  # the player has no card left and is skipped
EV_END = np.int64(12)  # the game ends: a = End bits
EV_DOMINATE = np.int64(13)  # shape a dominated by seat b (-1: tied) with c markers
EV_RESULT = np.int64(14)  # a = Outcome, b = winner (-1 none), c = winners' seat bits, d = WinBy

State = namedtuple("State", (
    # --- the run's parameters (read-only) ---
    "players",  # (1,) int64: P, seats 0..P-1
    "setc",  # (NC,) int64: card codes of one player's set (owner bits 0)
    "vmasks",  # (NV,) int64: the village deck in content order, bit s = shows shape s
    "hand_size",  # (1,) int64: cards in a full hand
    "supply",  # (1,) int64: markers of each shape at the start
    "see_all",  # (1,) int64: 1 with villages=see-all, 0 with see-next
    "tie_discard",  # (1,) int64: 1: a tied marker leaves the supply
    "chain",  # (1,) int64: 1: villages placed this turn open further cells
    "radius",  # (1,) int64: R, the grid is W x W with W = 2R + 1
    "heat_radius",  # (1,) int64: the heatmap covers |x|, |y| <= this
    "offs",  # (4,) int64: cell offsets of the sides +x, -x, +y, -y
    "pol",  # (MAX_P,) int64: policy of each seat (players.RANDOM, players.GREEDY)
    "lane",  # (MAX_P,) int64: stream lane of each seat (its deck and random choices)
    "weights",  # (8,) float64: the greedy player's weights (players.PF_*)
    "rng",  # (MAX_P + 1, k) uint64: stream states; lane MAX_P shuffles the village deck
    # --- the position ---
    "cur",  # (1,) int64: seat to act
    "phase",  # (1,) int64: PLAY or PLACE
    "over",  # (1,) int64: 1 once the game has ended
    "grid",  # (W * W,) int32: the board (see the module docstring)
    "fpos",  # (W * W,) int32: position of a legal cell in `front`, -1 if not legal
    "front",  # (L,) int32: legal cells, the first nf
    "nf",  # (1,) int64
    "filled",  # (L,) int32: cells filled this game, in order, the first nfill
    "nfill",  # (1,) int64
    "vcell",  # (NVR,) int32: cell of village i (villages in order of placement)
    "vmask",  # (NVR,) int32: symbol mask of village i
    "vscored",  # (NVR,) int32: 1 once village i is scored
    "nv",  # (1,) int64: villages on the table
    "openv",  # (NVR,) int32: villages not scored yet, the first nopen (any order)
    "nopen",  # (1,) int64
    "vsum",  # (NVR, N_VS) int64: influence next to village i (see VS_*)
    "esum",  # (W * W, N_ES) int8: influence next to an empty village cell
    "vdeck",  # (NV,) int64: the shuffled village deck, vdeck[vtop] on top
    "vtop",  # (1,) int64: village cards used (the next is vdeck[vtop])
    "hands",  # (MAX_P, hand_size + 1) int64: card codes in hand, the first hand_n[p]
    "hand_n",  # (MAX_P,) int64
    "decks",  # (MAX_P, NC) int64: draw piles, the next card at deck_n[p] - 1
    "deck_n",  # (MAX_P,) int64
    "taken",  # (MAX_P, 3) int64: markers taken per seat and shape
    "rem",  # (3,) int64: markers left per shape (negative: substitutes given)
    "turns",  # (1,) int64: cards played
    "scored",  # (1,) int64: villages scored
    # --- the turn in progress ---
    "played",  # (1,) int64: cell of the card played this turn
    "opens",  # (8,) int64: open cells, the first n_open (4..7: scratch)
    "n_open",  # (1,) int64
    "first_open",  # (1,) int64: cells the card opened when it landed
    "placed",  # (1,) int64: villages placed this turn
    "unfilled",  # (1,) int64: open cells left empty this turn (village deck out)
    "wins3",  # (3,) int64: scratch of scoring: seat that took each shape (-1 tie)
    # --- the result (once over) ---
    "end",  # (1,) int64: End bits
    "result",  # (1,) int64: Outcome
    "winner",  # (1,) int64: seat, -1 unless outright
    "win_mask",  # (1,) int64: bits of the winning seats
    "winby",  # (1,) int64: WinBy
    "dom",  # (3,) int64: seat dominating each shape, -1 tied
    "ndom",  # (MAX_P,) int64: shapes each seat dominates
    "subst0",  # (1,) int64: substitute markers counted before this game (statistics)
    # --- the players' scratch (no game information; see players.py) ---
    "stamp",  # (1,) int64: greedy moves evaluated with this state
    "fs",  # (3,) float64: value of one marker of each shape
    "vtab",  # (NVR + 1, K) float64: value of each distinct card next to each village
    "xkey",  # (W * W,) int64: row of xtab for an empty village cell, by stamp
    "xtab",  # (6L, K) float64: value of each distinct card for a would-be village
    "kpos",  # (K,) int64: hand position of each distinct card
    "kadd",  # (K, 4) int64: its influence per shape, and its weight
    "kscore",  # (K,) float64: its tie-break
    "gains",  # (4, 4) float64: value of each visible village on each open cell
    "assign",  # (4,) int64: the best assignment of visible villages to open cells
    # --- the game log and the statistics ---
    "log",  # (E, 7) int64: events (kernels.events); (0, 7) in the fast path
    "log_n",  # (1,) int64: events written (or counted)
    "aggs",  # stats.Aggs: the aggregates the rules add to
))


def new_state(*, players: int, setc: np.ndarray, vmasks: np.ndarray, hand_size: int,
              supply: int, see_all: bool, tie_discard: bool, chain: bool, radius: int,
              heat_radius: int, policies: np.ndarray, weights: np.ndarray, aggs,
              rotation: int = 0, log_capacity: int = 0, room: int = 0) -> State:
    """A state for games of this setup (allocated once; `setup` starts each game).

    Player j (policy policies[j], stream lane j) sits at seat (j + rotation) % players.
    `room` adds rows for villages placed by hand (tests); `log_capacity` rows of events.
    """
    nc, nv = len(setc), len(vmasks)
    nvr = nv + room
    w = 2 * radius + 1
    ll = max(4 * nvr + 8, players * nc + nvr + 8)
    k = hand_size + 1
    seat_pol, lane = rotation_lanes(players, np.asarray(policies, np.int64), rotation, MAX_P)

    def one(v=0):
        return np.full(1, v, np.int64)

    z = np.zeros
    return State(
        players=one(players), setc=np.asarray(setc, np.int64).copy(),
        vmasks=np.asarray(vmasks, np.int64).copy(), hand_size=one(hand_size),
        supply=one(supply), see_all=one(int(see_all)), tie_discard=one(int(tie_discard)),
        chain=one(int(chain)), radius=one(radius), heat_radius=one(heat_radius),
        offs=np.array([1, -1, w, -w], np.int64), pol=seat_pol, lane=lane,
        weights=np.asarray(weights, np.float64).copy(), rng=new_states(0, MAX_P + 1),
        cur=one(), phase=one(), over=one(), grid=z(w * w, np.int32),
        fpos=np.full(w * w, -1, np.int32), front=z(ll, np.int32), nf=one(),
        filled=z(ll, np.int32), nfill=one(), vcell=z(nvr, np.int32), vmask=z(nvr, np.int32),
        vscored=z(nvr, np.int32), nv=one(), openv=z(nvr, np.int32), nopen=one(),
        vsum=z((nvr, N_VS), np.int64), esum=z((w * w, N_ES), np.int8),
        vdeck=z(nv, np.int64), vtop=one(), hands=z((MAX_P, k), np.int64),
        hand_n=z(MAX_P, np.int64), decks=z((MAX_P, nc), np.int64), deck_n=z(MAX_P, np.int64),
        taken=z((MAX_P, N_SHAPES), np.int64), rem=z(N_SHAPES, np.int64), turns=one(),
        scored=one(), played=one(-1), opens=z(8, np.int64), n_open=one(), first_open=one(),
        placed=one(), unfilled=one(), wins3=z(N_SHAPES, np.int64), end=one(), result=one(),
        winner=one(-1), win_mask=one(), winby=one(), dom=z(N_SHAPES, np.int64),
        ndom=z(MAX_P, np.int64), subst0=one(), stamp=one(), fs=z(N_SHAPES),
        vtab=z((nvr + 1, k)), xkey=z(w * w, np.int64), xtab=z((6 * ll, k)),
        kpos=z(k, np.int64), kadd=z((k, 4), np.int64), kscore=z(k), gains=z((4, 4)),
        assign=z(4, np.int64), log=z((log_capacity, ev.N_COLS), np.int64), log_n=one(),
        aggs=aggs,
    )


# --- the board ----------------------------------------------------------------------------

@njit(**INLINE)
def frontier_add(fpos, front, nf, cell):
    """Make an empty card cell legal (once)."""
    if fpos[cell] < 0:
        n = nf[0]
        front[n] = cell
        fpos[cell] = n
        nf[0] = n + 1


@njit(**HOT)
def frontier_remove(fpos, front, nf, cell):
    """Take a cell out of the legal list (swap with the last)."""
    i = fpos[cell]
    if i < 0:
        return
    n = nf[0] - 1
    last = front[n]
    front[i] = last
    fpos[last] = i
    fpos[cell] = -1
    nf[0] = n


@njit(**INLINE)
def add_influence(vsum, vi, code):
    """Count a card (code) next to village vi (or, in esum, next to empty cell vi)."""
    o = code & 3
    sy = (code >> 2) & 3
    va = (code >> 4) & 15
    if sy == SAMURAI:
        vsum[vi, o * 3] += va
        vsum[vi, o * 3 + 1] += va
        vsum[vi, o * 3 + 2] += va
    else:
        vsum[vi, o * 3 + sy] += va
    vsum[vi, VS_FILL] += 1


@njit(**HOT)
def place_village(st, cell, mask):
    """Put a village card showing `mask` on an empty village cell."""
    grid = st.grid
    vsum = st.vsum
    vi = st.nv[0]
    grid[cell] = vi + 1
    st.vmask[vi] = mask
    st.vscored[vi] = 0
    for k in range(N_VS):
        vsum[vi, k] = 0
    st.vcell[vi] = cell
    st.openv[st.nopen[0]] = vi
    vsum[vi, VS_OPEN] = st.nopen[0]
    st.nopen[0] += 1
    st.nv[0] = vi + 1
    st.filled[st.nfill[0]] = cell
    st.nfill[0] += 1
    for d in range(4):
        n = cell + st.offs[d]
        h = grid[n]
        if h == 0:
            frontier_add(st.fpos, st.front, st.nf, n)
        else:
            add_influence(vsum, vi, h - 1)


@njit(**HOT)
def place_card(st, cell, code):
    """Put a card (code with its owner) on a legal cell."""
    grid = st.grid
    grid[cell] = code + 1
    frontier_remove(st.fpos, st.front, st.nf, cell)
    st.filled[st.nfill[0]] = cell
    st.nfill[0] += 1
    for d in range(4):
        n = cell + st.offs[d]
        h = grid[n]
        if h != 0:
            add_influence(st.vsum, h - 1, code)
        else:
            add_influence(st.esum, n, code)


@njit(**INTERNAL)
def clear_board(st):
    """Empty every cell the last game touched and reset the counters of the board."""
    grid = st.grid
    fpos = st.fpos
    esum = st.esum
    for i in range(st.nfill[0]):
        c = st.filled[i]
        grid[c] = 0
        fpos[c] = -1
        for d in range(4):
            n = c + st.offs[d]
            for k in range(N_ES):
                esum[n, k] = 0
    for i in range(st.nf[0]):
        fpos[st.front[i]] = -1
    st.nf[0] = 0
    st.nfill[0] = 0
    st.nv[0] = 0
    st.nopen[0] = 0


@njit(**INLINE)
def opening_sides(grid, c, o0, o1, o2, o3, p):
    """Bit e set: side e of a card of player p on cell c opens for a village.

    Side e opens when its cell x is empty and a village on a side next to both c and x
    has, on the cell diagonal to c that touches x, a card of another player.
    """
    h0 = grid[np.uint64(c + o0)]
    h1 = grid[np.uint64(c + o1)]
    h2 = grid[np.uint64(c + o2)]
    h3 = grid[np.uint64(c + o3)]
    d02 = grid[np.uint64(c + o0 + o2)]
    d03 = grid[np.uint64(c + o0 + o3)]
    d12 = grid[np.uint64(c + o1 + o2)]
    d13 = grid[np.uint64(c + o1 + o3)]
    g02 = (d02 != 0) & (((d02 - 1) & 3) != p)
    g03 = (d03 != 0) & (((d03 - 1) & 3) != p)
    g12 = (d12 != 0) & (((d12 - 1) & 3) != p)
    g13 = (d13 != 0) & (((d13 - 1) & 3) != p)
    v0 = h0 != 0
    v1 = h1 != 0
    v2 = h2 != 0
    v3 = h3 != 0
    return ((((h0 == 0) & ((v2 & g02) | (v3 & g03))) * 1)
            | (((h1 == 0) & ((v2 & g12) | (v3 & g13))) * 2)
            | (((h2 == 0) & ((v0 & g02) | (v1 & g12))) * 4)
            | (((h3 == 0) & ((v0 & g03) | (v1 & g13))) * 8))


@njit(**HOT)
def find_openings(st, c, p):
    """The empty village cells a card of player p on cell c opens, into st.opens (side
    order +x, -x, +y, -y); returns how many."""
    offs = st.offs
    fm = opening_sides(st.grid, c, offs[0], offs[1], offs[2], offs[3], p)
    n = 0
    while fm != 0:
        e = (CTZ4 >> (fm << 1)) & 3
        fm &= fm - 1
        st.opens[n] = c + offs[e]
        n += 1
    return n


# --- scoring and the winner ---------------------------------------------------------------

@njit(**HOT)
def award(st, vi, s, t):
    """Give the marker of shape s of village vi to the strict highest influence (st.wins3[s]:
    the seat, or -1 on a tie); returns 1 if a marker was given."""
    P = st.players[0]
    misc = st.aggs.misc
    best = -1
    bq = -1
    tie = False
    for q in range(P):
        x = st.vsum[vi, q * 3 + s]
        if x > best:
            best = x
            bq = q
            tie = False
        elif x == best:
            tie = True
    misc[Misc.CONTESTS] += 1
    if tie:
        st.wins3[s] = -1
        misc[Misc.TIES] += 1
        discarded = 0
        if st.tie_discard[0]:
            if st.rem[s] > 0:
                st.rem[s] -= 1
                misc[Misc.DISCARDED] += 1
                discarded = 1
            else:
                misc[Misc.TIED_OUT] += 1
        ev.emit(st.log, st.log_n, t, NOBODY, EV_TIE, s, best, discarded, st.rem[s])
        return 0
    st.wins3[s] = bq
    st.taken[bq, s] += 1
    if st.rem[s] <= 0:
        misc[Misc.SUBST] += 1
    st.rem[s] -= 1
    ev.emit(st.log, st.log_n, t, NOBODY, EV_AWARD, s, bq, best, st.rem[s])
    return 1


@njit(**HOT)
def score_village(st, vi, cell):
    """Score a surrounded village: each symbol's marker to the strict highest influence."""
    t = st.turns[0] + 1
    mask = st.vmask[vi]
    kinds = st.aggs.kinds
    misc = st.aggs.misc
    ev.emit(st.log, st.log_n, t, NOBODY, EV_SCORE, cell, np.int64(mask), NIL, NIL)
    awarded = 0
    for s in range(N_SHAPES):
        st.wins3[s] = -2
        if (mask >> s) & 1:
            awarded += award(st, vi, s, t)
    wins3 = st.wins3
    for d in range(4):
        code = st.grid[cell + st.offs[d]] - 1
        o = code & 3
        sy = (code >> 2) & 3
        kind = code >> 8
        kinds[kind, KindStat.TOUCHED] += 1
        kinds[kind, KindStat.TOUCH_MARKERS] += awarded
        for s in range(N_SHAPES):
            if wins3[s] == o:
                kinds[kind, KindStat.TOUCH_WON] += 1
            if wins3[s] != -2 and (sy in (s, SAMURAI)):
                kinds[kind, KindStat.CONTESTS] += 1
                if wins3[s] == o:
                    kinds[kind, KindStat.WON] += 1
    st.vscored[vi] = 1
    i = st.vsum[vi, VS_OPEN]
    n = st.nopen[0] - 1
    last = st.openv[n]
    st.openv[i] = last
    st.vsum[last, VS_OPEN] = i
    st.nopen[0] = n
    st.scored[0] += 1
    misc[Misc.SCORED] += 1
    R = st.radius[0]
    W = 2 * R + 1
    HR = st.heat_radius[0]
    x = cell % W - R
    y = cell // W - R
    if -HR <= x <= HR and -HR <= y <= HR:
        st.aggs.heat[y + HR, x + HR] += 1
    else:
        misc[Misc.HEAT_OUT] += 1


@njit(**NO_ALLOC)
def decide_winner(taken, P, dom, ndom):
    """Winner by domination: (Outcome, winner or -1, winners' seat bits, WinBy).

    dom[s] gets the player dominating shape s (-1: tied), ndom[q] the shapes q dominates.
    """
    for q in range(P):
        ndom[q] = 0
    for s in range(N_SHAPES):
        dom[s] = -1
        best = -1
        tie = False
        for q in range(P):
            x = taken[q, s]
            if x > best:
                best = x
                dom[s] = q
                tie = False
            elif x == best:
                tie = True
        if tie:
            dom[s] = -1
        else:
            ndom[dom[s]] += 1
    for q in range(P):
        if ndom[q] >= 2:
            return Outcome.OUTRIGHT, q, 1 << q, WinBy.TWO_SHAPES
    best = -1
    best_dom = -1
    mask = 0
    n_best_score = 0
    for q in range(P):
        if ndom[q] != 1:
            continue
        s_q = 0
        for s in range(N_SHAPES):
            if dom[s] == q:
                s_q = s
        other = taken[q, 0] + taken[q, 1] + taken[q, 2] - taken[q, s_q]
        if other > best:
            best = other
            best_dom = taken[q, s_q]
            mask = 1 << q
            n_best_score = 1
        elif other == best:
            n_best_score += 1
            if taken[q, s_q] > best_dom:
                best_dom = taken[q, s_q]
                mask = 1 << q
            elif taken[q, s_q] == best_dom:
                mask |= 1 << q
    if mask == 0:
        return Outcome.NONE, -1, 0, WinBy.NONE
    if mask & (mask - 1):
        return Outcome.SHARED, -1, mask, WinBy.SHARED
    w = 0
    while (mask >> w) & 1 == 0:
        w += 1
    return Outcome.OUTRIGHT, w, mask, WinBy.TIEBREAK if n_best_score > 1 else WinBy.OTHER_SHAPES


@njit(**INTERNAL)
def game_over(st):
    """The game has ended (st.end set): decide the winner, count the game's statistics."""
    P = st.players[0]
    a = st.aggs
    t = st.turns[0]
    st.over[0] = 1
    ev.emit(st.log, st.log_n, t, NOBODY, EV_END, st.end[0], NIL, NIL, NIL)
    res, winner, smask, how = decide_winner(st.taken, P, st.dom, st.ndom)
    for s in range(N_SHAPES):
        d = st.dom[s]
        ev.emit(st.log, st.log_n, t, NOBODY, EV_DOMINATE, s, d,
                st.taken[d, s] if d >= 0 else NIL, NIL)
    ev.emit(st.log, st.log_n, t, NOBODY, EV_RESULT, np.int64(res), winner, smask,
            np.int64(how))
    st.result[0] = res
    st.winner[0] = winner
    st.win_mask[0] = smask
    st.winby[0] = how
    a.outcome[res] += 1
    a.winby[how] += 1
    if res == Outcome.OUTRIGHT:
        a.wins[winner] += 1
    elif res == Outcome.SHARED:
        for q in range(P):
            if (smask >> q) & 1:
                a.shared[q] += 1
    for q in range(P):
        if st.ndom[q] == 0:
            a.elim[q] += 1
        a.domn[q, st.ndom[q]] += 1
        for s in range(N_SHAPES):
            x = st.taken[q, s]
            a.markers[q, s, 0] += x
            a.markers[q, s, 1] += x * x
    a.ends[st.end[0]] += 1
    a.lengths[min(t, N_LEN - 1)] += 1
    a.vhist[Placed.PLACED, min(st.nv[0], N_VH - 1)] += 1
    a.vhist[Placed.SCORED, min(st.scored[0], N_VH - 1)] += 1
    a.misc[Misc.TURNS] += t
    if a.misc[Misc.SUBST] > st.subst0[0]:
        a.misc[Misc.SUBST_GAMES] += 1
    if res == Outcome.OUTRIGHT:
        W = 2 * st.radius[0] + 1
        for i in range(st.nfill[0]):
            c = st.filled[i]
            if (c % W + c // W) % 2 == 0:
                continue  # a village cell (x + y even)
            code = st.grid[c] - 1
            if code & 3 == winner:
                a.kinds[code >> 8, KindStat.PLAY_WON] += 1


# --- setup and turns ----------------------------------------------------------------------

@njit(**INTERNAL)
def setup(st, seed, playout):
    """Start playout `playout` of the run keyed by `seed`: each seat's deck shuffled from its
    own stream and a hand dealt, the village deck shuffled from the shared stream, the
    first village put at the centre; seat 1 (index 0) to act."""
    clear_board(st)
    seed_lanes(st.rng, seed, playout)
    P = st.players[0]
    NC = st.setc.shape[0]
    NV = st.vdeck.shape[0]
    hand_size = st.hand_size[0]
    for p in range(P):
        deck = st.decks[p]
        for i in range(NC):
            deck[i] = st.setc[i] | p
        shuffle(st.rng[st.lane[p]], deck, NC)
        dn = NC
        hn = 0
        while hn < hand_size and dn > 0:
            dn -= 1
            st.hands[p, hn] = deck[dn]
            hn += 1
            ev.emit(st.log, st.log_n, NIL, p, EV_DEAL, deck[dn], NIL, NIL, NIL)
        st.deck_n[p] = dn
        st.hand_n[p] = hn
        for s in range(N_SHAPES):
            st.taken[p, s] = 0
    for i in range(NV):
        st.vdeck[i] = st.vmasks[i]
    shuffle(st.rng[MAX_P], st.vdeck, NV)
    ev.emit(st.log, st.log_n, NIL, NOBODY, EV_DECK, NV, NIL, NIL, NIL)
    for s in range(N_SHAPES):
        st.rem[s] = st.supply[0]
    st.turns[0] = 0
    st.scored[0] = 0
    R = st.radius[0]
    centre = R * (2 * R + 1) + R
    place_village(st, centre, st.vdeck[0])
    st.vtop[0] = 1
    ev.emit(st.log, st.log_n, NIL, NOBODY, EV_VILLAGE, centre, st.vdeck[0], NV - 1, NIL)
    if NV > 1:
        ev.emit(st.log, st.log_n, NIL, NOBODY, EV_TOP, st.vdeck[1], NV - 1, NIL, NIL)
    st.subst0[0] = st.aggs.misc[Misc.SUBST]
    st.cur[0] = 0
    st.phase[0] = PLAY
    st.over[0] = 0
    st.end[0] = 0
    st.n_open[0] = 0
    st.played[0] = -1
    st.result[0] = Outcome.NONE
    st.winner[0] = -1
    st.win_mask[0] = 0


@njit(**HOT)
def to_move(st):
    """The seat to act, -1 once the game is over."""
    return -1 if st.over[0] else st.cur[0]


@njit(**HOT)
def is_over(st):
    """Whether the game has ended."""
    return st.over[0] != 0


@njit(**HOT)
def next_seat(st):
    """Pass the turn to the next seat holding cards (skipping the others); a seat with
    cards and no legal cell ends the game (blocked)."""
    P = st.players[0]
    cur = (st.cur[0] + 1) % P
    while st.hand_n[cur] == 0:
        ev.emit(st.log, st.log_n, st.turns[0] + 1, cur, EV_SKIP, NIL, NIL, NIL, NIL)
        cur = (cur + 1) % P
    st.cur[0] = cur
    if st.nf[0] == 0:
        st.end[0] = End.BLOCKED
        game_over(st)


@njit(**HOT)
def finish_turn(st):
    """After the villages: score the surrounded villages next to the card, draw, and end
    the game or pass the turn."""
    p = st.cur[0]
    cell = st.played[0]
    misc = st.aggs.misc
    placed = st.placed[0]
    opened = placed + st.unfilled[0]
    if opened > 0:
        misc[Misc.OPEN1 + opened - 1] += 1
        misc[Misc.PLACED] += placed
        misc[Misc.UNFILLED] += st.unfilled[0]
        if opened > st.first_open[0]:
            misc[Misc.CHAINED] += opened - st.first_open[0]
    for d in range(4):
        c = cell + st.offs[d]
        h = st.grid[c]
        if h == 0:
            continue
        vi = h - 1
        if st.vscored[vi] == 0 and st.vsum[vi, VS_FILL] == 4:
            score_village(st, vi, c)
    if st.deck_n[p] > 0:
        st.deck_n[p] -= 1
        code = st.decks[p, st.deck_n[p]]
        st.hands[p, st.hand_n[p]] = code
        st.hand_n[p] += 1
        ev.emit(st.log, st.log_n, st.turns[0] + 1, p, EV_DRAW, code, st.deck_n[p], NIL, NIL)
    st.turns[0] += 1
    end = 0
    for s in range(N_SHAPES):
        if st.rem[s] <= 0:
            end |= End.MARKERS
    if st.vtop[0] >= st.vdeck.shape[0]:
        end |= End.VILLAGES
    left = 0
    for q in range(st.players[0]):
        left += st.hand_n[q]
    if left == 0:
        end |= End.CARDS
    if end:
        st.end[0] = end
        game_over(st)
    else:
        next_seat(st)


@njit(**HOT)
def next_opening(st):
    """After a card or a village lands: ask for the next village's cell, or (nothing open,
    or the village deck out) finish the turn."""
    n = st.n_open[0]
    if n > 0 and st.vtop[0] >= st.vdeck.shape[0]:
        st.unfilled[0] = n
        for j in range(n):
            ev.emit(st.log, st.log_n, st.turns[0] + 1, NOBODY, EV_UNFILLED, st.opens[j], NIL,
                    NIL, NIL)
        st.n_open[0] = 0
        n = 0
    if n > 0:
        st.phase[0] = PLACE
    else:
        st.phase[0] = PLAY
        finish_turn(st)


@njit(**HOT)
def play_card(st, hi, cell):
    """The player to act plays the card at hand position hi on a legal cell."""
    p = st.cur[0]
    code = st.hands[p, hi]
    n = st.hand_n[p] - 1
    st.hands[p, hi] = st.hands[p, n]
    st.hand_n[p] = n
    place_card(st, cell, code)
    st.aggs.kinds[code >> 8, KindStat.PLAYED] += 1
    st.played[0] = cell
    n_open = find_openings(st, cell, p)
    st.n_open[0] = n_open
    st.first_open[0] = n_open
    st.placed[0] = 0
    st.unfilled[0] = 0
    for j in range(n_open):
        ev.emit(st.log, st.log_n, st.turns[0] + 1, NOBODY, EV_OPEN, st.opens[j], NIL, NIL, NIL)
    next_opening(st)


@njit(**HOT)
def place_villages(st, c1, c2):
    """The player to act puts the top village card on open cell c1 (and, c2 >= 0, the next
    on c2); then the cells still open, or with chaining opened again, are asked for."""
    p = st.cur[0]
    t = st.turns[0] + 1
    vtop = st.vtop[0]
    NV = st.vdeck.shape[0]
    place_village(st, c1, st.vdeck[vtop])
    ev.emit(st.log, st.log_n, t, p, EV_VILLAGE, c1, st.vdeck[vtop], NV - vtop - 1, NIL)
    k = 1
    if c2 >= 0:
        place_village(st, c2, st.vdeck[vtop + 1])
        ev.emit(st.log, st.log_n, t, p, EV_VILLAGE, c2, st.vdeck[vtop + 1], NV - vtop - 2, NIL)
        k = 2
    st.vtop[0] = vtop + k
    if vtop + k < NV:
        ev.emit(st.log, st.log_n, t, NOBODY, EV_TOP, st.vdeck[vtop + k], NV - vtop - k, NIL,
                NIL)
    st.placed[0] += k
    opens = st.opens
    n_old = st.n_open[0]
    if st.chain[0]:
        for j in range(n_old):
            opens[4 + j] = opens[j]
        n = find_openings(st, st.played[0], p)
        for j in range(n):
            new = True
            for i in range(n_old):
                if opens[4 + i] == opens[j]:
                    new = False
            if new:
                ev.emit(st.log, st.log_n, t, NOBODY, EV_OPEN, opens[j], np.int64(1), NIL, NIL)
    else:
        n = 0
        for j in range(n_old):
            if st.grid[opens[j]] == 0:
                opens[n] = opens[j]
                n += 1
    st.n_open[0] = n
    next_opening(st)


@njit(**HOT)
def apply(st, a):
    """The player to act takes legal action `a` (see the module docstring); the game goes
    on to the next decision or the end."""
    if st.phase[0] == PLAY:
        play_card(st, a >> CELL_BITS, a & CELL_MASK)
    else:
        place_villages(st, a & CELL_MASK, ((a >> CELL_BITS) & CELL_MASK) - 1)


@njit(**INTERNAL)
def legal_actions(st, out):
    """The legal actions of the player to act into out[:n]; returns n (0 once over).

    Card plays come hand position by hand position, each over the legal cells in the
    order of `front`; placements over the open cells in the order of `opens`, then (see-all)
    the pairs."""
    if st.over[0]:
        return 0
    n = 0
    if st.phase[0] == PLAY:
        p = st.cur[0]
        for hi in range(st.hand_n[p]):
            for i in range(st.nf[0]):
                out[n] = (hi << CELL_BITS) | st.front[i]
                n += 1
        return n
    n_open = st.n_open[0]
    for j in range(n_open):
        out[n] = PLACE_FLAG | st.opens[j]
        n += 1
    if st.see_all[0] and n_open >= 2 and st.vdeck.shape[0] - st.vtop[0] >= 2:
        for j in range(n_open):
            for k in range(n_open):
                if k != j:
                    out[n] = PLACE_FLAG | ((st.opens[k] + 1) << CELL_BITS) | st.opens[j]
                    n += 1
    return n


@njit(**HOT)
def card_action(hi, cell):
    """The action: play the card at hand position hi on `cell`."""
    return (hi << CELL_BITS) | cell


@njit(**HOT)
def place_action(c1, c2):
    """The action: the top village on cell c1 (and the next on c2; -1 for none)."""
    return PLACE_FLAG | ((c2 + 1) << CELL_BITS) | c1


@njit(**INTERNAL)
def option_of(st, a):
    """The option (index into OPTIONS) action `a` of the player to act uses: the symbol of
    the card played; -1 for a placement (never forbidden)."""
    if st.phase[0] != PLAY:
        return -1
    return (st.hands[st.cur[0], a >> CELL_BITS] >> 2) & 3


# --- what a player sees -------------------------------------------------------------------

@njit(**HOT)
def visible_villages(st):
    """How many village cards from the top of the deck the player to act sees."""
    left = st.vdeck.shape[0] - st.vtop[0]
    if st.phase[0] == PLAY:
        return min(1, left)
    if st.see_all[0]:
        return min(st.n_open[0], left)
    return min(2, left)


@njit(**HOT)
def top_village(st, j):
    """The symbol mask of the j-th visible village card (0: the top), -1 if not visible."""
    if j < 0 or j >= visible_villages(st):
        return -1
    return st.vdeck[st.vtop[0] + j]


@njit(**INTERNAL)
def outcome(st, out):
    """out[s] = 1.0 for every winning seat (outright, or each seat of a shared victory),
    else 0."""
    for s in range(out.shape[0]):
        out[s] = 0.0
    if st.result[0] == Outcome.OUTRIGHT:
        out[st.winner[0]] = 1.0
    elif st.result[0] == Outcome.SHARED:
        for s in range(st.players[0]):
            if (st.win_mask[0] >> s) & 1:
                out[s] = 1.0


# --- entries from Python (the handle, the tests) ------------------------------------------

@njit(**ENTRY)
def py_setup(st, seed, playout):
    """setup, from Python."""
    setup(st, seed, playout)


@njit(**ENTRY)
def py_legal_actions(st, out):
    """legal_actions, from Python."""
    return legal_actions(st, out)


@njit(**ENTRY)
def py_apply(st, a):
    """apply, from Python."""
    apply(st, a)


@njit(**ENTRY)
def py_option_of(st, a):
    """option_of, from Python."""
    return option_of(st, a)


@njit(**ENTRY)
def py_outcome(st, out):
    """outcome, from Python."""
    outcome(st, out)


@njit(**ENTRY)
def py_visible_villages(st):
    """visible_villages, from Python."""
    return visible_villages(st)


@njit(**ENTRY)
def py_place_village(st, cell, mask):
    """place_village, from Python (hand-built positions)."""
    place_village(st, cell, mask)


@njit(**ENTRY)
def py_place_card(st, cell, code):
    """place_card, from Python (hand-built positions)."""
    place_card(st, cell, code)


@njit(**ENTRY)
def py_find_openings(st, c, p):
    """find_openings, from Python."""
    return find_openings(st, c, p)


@njit(**ENTRY)
def py_clear_board(st):
    """clear_board, from Python."""
    clear_board(st)
