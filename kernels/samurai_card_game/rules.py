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

from kernels import events as ev
from kernels.jit import kernel
from kernels.rng import rotation_lanes, seed_lanes, shuffle, stream_states
from kernels.samurai_card_game.stats import (
    MAX_P,
    N_LEN,
    N_VH,
    Aggs,
    Cross,
    End,
    KindStat,
    Misc,
    Outcome,
    Placed,
    WinBy,
)

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

# (successes, observations) columns of the rates counted within games: of kinds (one row per
# stats.KindRatio) and of misc (one row per stats.MiscRatio)
RATIO_COLS = np.array([[KindStat.WON, KindStat.CONTESTS],
                       [KindStat.TOUCH_WON, KindStat.TOUCH_MARKERS],
                       [KindStat.PLAY_WON, KindStat.PLAYED]], np.int64)
MISC_COLS = np.array([[Misc.TIES, Misc.CONTESTS], [Misc.OPEN1, Misc.TURNS],
                      [Misc.OPEN2, Misc.TURNS], [Misc.OPEN3, Misc.TURNS]], np.int64)

CTZ4 = 0x12131210  # for each 4-bit value v, 2 bits at 2 * v: the position of v's lowest set bit

# Event kinds (a..d as listed; cells are grid indices, seats from 0, -1 for nobody). Values
# passed to jitted helpers are np.int64: a plain int is typed as a literal and would compile
# the helper once per value.
NOBODY = np.int64(-1)  # the table (no seat), or no seat
NIL = np.int64(0)
EV_DEAL = np.int64(1)  # setup: the player is dealt card a
EV_DECK = np.int64(2)  # setup: the village deck is shuffled, a cards
EV_VILLAGE = np.int64(3)  # village card b (symbol mask) put on cell a, c village cards left
EV_TOP = np.int64(4)  # chance: the next village card, mask a, is turned up; b cards left
EV_OPEN = np.int64(5)  # cell a opens for a village (b = 1: by a village placed this turn)
EV_UNFILLED = np.int64(6)  # open cell a stays empty: the village deck is out
EV_SCORE = np.int64(7)  # village on cell a (mask b) is surrounded and scored
EV_AWARD = np.int64(8)  # marker of shape a to seat b (influence c beats the rest); d left
EV_TIE = np.int64(9)  # shape a tied at influence b: no marker; c = 1 discarded; d left
EV_DRAW = np.int64(10)  # chance: the player draws card a from its deck, b cards left there
EV_SKIP = np.int64(11)  # the player has no card left and is skipped
EV_END = np.int64(12)  # the game ends: a = End bits
EV_DOMINATE = np.int64(13)  # shape a dominated by seat b (-1: tied) with c markers
EV_RESULT = np.int64(14)  # a = Outcome, b = winner (-1 none), c = winners' seat bits, d = WinBy
EV_SET = np.int64(15)  # setup: the player's set holds card a (its whole set, before shuffling)
EV_ORDER = np.int64(16)  # setup: village card a (symbol mask) is card b of the shuffled deck

# Records (numba reads and writes their fields by name: st.cnt[0].turns += 1)
CFG = np.dtype([  # the run's parameters, read-only
    ("players", np.int64),  # P, seats 0..P-1
    ("hand_size", np.int64),  # cards in a full hand
    ("supply", np.int64),  # markers of each shape at the start
    ("see_all", np.int64),  # 1 with villages=see-all, 0 with see-next
    ("tie_discard", np.int64),  # 1: a tied marker leaves the supply
    ("chain", np.int64),  # 1: villages placed this turn open further cells
    ("radius", np.int64),  # R: the grid is W x W with W = 2R + 1
    ("heat_radius", np.int64),  # the heatmap covers |x|, |y| <= this
])
CNT = np.dtype([  # the game's counters
    ("cur", np.int64),  # seat to act
    ("phase", np.int64),  # PLAY or PLACE
    ("over", np.int64),  # 1 once the game has ended
    ("nf", np.int64),  # legal cells (in front)
    ("nfill", np.int64),  # filled cells (in filled)
    ("nv", np.int64),  # villages on the table
    ("nopen", np.int64),  # villages not scored (in openv)
    ("vtop", np.int64),  # village cards used: the next is vdeck[vtop]
    ("turns", np.int64),  # cards played
    ("scored", np.int64),  # villages scored
    ("played", np.int64),  # the turn in progress: cell of the card played
    ("n_open", np.int64),  # ... cells open now (in opens)
    ("first_open", np.int64),  # ... cells the card opened when it landed
    ("placed", np.int64),  # ... villages placed
    ("unfilled", np.int64),  # ... open cells left empty (village deck out)
    ("end", np.int64),  # once over: End bits
    ("result", np.int64),  # ... Outcome
    ("winner", np.int64),  # ... seat, -1 unless outright
    ("win_mask", np.int64),  # ... bits of the winning seats
    ("winby", np.int64),  # ... WinBy
    ("subst0", np.int64),  # substitute markers counted before this game (statistics)
    ("stamp", np.int64),  # greedy moves evaluated with this state (players' scratch)
])
SEAT = np.dtype([  # per seat
    ("pol", np.int64),  # policy (players.RANDOM, players.GREEDY), read-only
    ("lane", np.int64),  # stream lane (its deck and random choices), read-only
    ("hand_n", np.int64),  # cards in hand
    ("deck_n", np.int64),  # cards in its draw pile
])
VILL = np.dtype([  # per village on the table, in order of placement
    ("cell", np.int32),
    ("mask", np.int32),  # symbols: bit s = shows shape s
    ("scored", np.int32),  # 1 once scored
])

State = namedtuple("State", (
    # --- the run's parameters (read-only) ---
    "cfg",  # (1,) CFG
    "setc",  # (NC,) int64: card codes of one player's set (owner bits 0)
    "vmasks",  # (NV,) int64: the village deck in content order
    "offs",  # (4,) int64: cell offsets of the sides +x, -x, +y, -y
    "weights",  # (8,) float64: the greedy player's weights (players.PF_*)
    "rng",  # (MAX_P + 1, k) uint64: stream states; lane MAX_P shuffles the village deck
    "kgroup",  # (K,) int64: stats.CardGroup of each kind of card (1: samurai)
    # --- the position ---
    "cnt",  # (1,) CNT
    "seat",  # (MAX_P,) SEAT
    "grid",  # (W * W,) int32: the board (see the module docstring)
    "fpos",  # (W * W,) int32: position of a legal cell in `front`, -1 if not legal
    "front",  # (L,) int32: legal cells, the first cnt.nf
    "filled",  # (L,) int32: cells filled this game, in order, the first cnt.nfill
    "vill",  # (NVR,) VILL: villages on the table, the first cnt.nv
    "openv",  # (NVR,) int32: villages not scored yet, the first cnt.nopen (any order)
    "vsum",  # (NVR, N_VS) int64: influence next to village i (see VS_*)
    "esum",  # (W * W, N_ES) int8: influence next to an empty village cell
    "vdeck",  # (NV,) int64: the shuffled village deck, vdeck[cnt.vtop] on top
    "hands",  # (MAX_P, hand_size + 1) int64: card codes in hand, the first seat.hand_n
    "decks",  # (MAX_P, NC) int64: draw piles, the next card at seat.deck_n - 1
    "taken",  # (MAX_P, 3) int64: markers taken per seat and shape
    "rem",  # (3,) int64: markers left per shape (negative: substitutes given)
    "opens",  # (8,) int64: open cells, the first cnt.n_open (4..7: scratch)
    "wins3",  # (3,) int64: scratch of scoring: seat that took each shape (-1 tie)
    "dom",  # (3,) int64: once over, the seat dominating each shape (-1 tied)
    "ndom",  # (MAX_P,) int64: once over, the shapes each seat dominates
    "kinds0",  # (K, len(KindStat)) int64: aggs.kinds when the game started
    "misc0",  # (len(Misc),) int64: aggs.misc when the game started
    "gsum",  # (2, 3, 2) int64: scratch: this game's (y, x) per CardGroup and KindRatio
    # --- the players' scratch (no game information; see players.py) ---
    "fs",  # (3,) float64: value of one marker of each shape
    "vtab",  # (NVR + 1, K) float64: value of each distinct card next to each village
    "xkey",  # (W * W,) int64: row of xtab for an empty village cell, by cnt.stamp
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
              heat_radius: int, policies: np.ndarray, weights: np.ndarray, aggs: Aggs,
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
    cfg = np.zeros(1, CFG)
    cfg[0] = (players, hand_size, supply, int(see_all), int(tie_discard), int(chain), radius,
              heat_radius)
    seat = np.zeros(MAX_P, SEAT)
    seat["pol"], seat["lane"] = rotation_lanes(players, np.asarray(policies, np.int64),
                                               rotation, MAX_P)
    cnt = np.zeros(1, CNT)
    cnt[0]["played"] = cnt[0]["winner"] = -1
    z = np.zeros
    kgroup = z(aggs.kinds.shape[0], np.int64)
    for code in np.asarray(setc, np.int64):
        kgroup[code >> 8] = int((code >> 2) & 3 == SAMURAI)
    return State(
        cfg=cfg, setc=np.asarray(setc, np.int64).copy(),
        vmasks=np.asarray(vmasks, np.int64).copy(), offs=np.array([1, -1, w, -w], np.int64),
        weights=np.asarray(weights, np.float64).copy(), kgroup=kgroup,
        # one stream per player and a shared one, keyed by setup
        rng=stream_states(0, MAX_P + 1),
        cnt=cnt, seat=seat, grid=z(w * w, np.int32), fpos=np.full(w * w, -1, np.int32),
        front=z(ll, np.int32), filled=z(ll, np.int32), vill=z(nvr, VILL),
        openv=z(nvr, np.int32), vsum=z((nvr, N_VS), np.int64), esum=z((w * w, N_ES), np.int8),
        vdeck=z(nv, np.int64), hands=z((MAX_P, k), np.int64), decks=z((MAX_P, nc), np.int64),
        taken=z((MAX_P, N_SHAPES), np.int64), rem=z(N_SHAPES, np.int64), opens=z(8, np.int64),
        wins3=z(N_SHAPES, np.int64), dom=z(N_SHAPES, np.int64), ndom=z(MAX_P, np.int64),
        kinds0=z(aggs.kinds.shape, np.int64), misc0=z(aggs.misc.shape, np.int64),
        gsum=z((2, 3, 2), np.int64),
        fs=z(N_SHAPES), vtab=z((nvr + 1, k)), xkey=z(w * w, np.int64), xtab=z((6 * ll, k)),
        kpos=z(k, np.int64), kadd=z((k, 4), np.int64), kscore=z(k), gains=z((4, 4)),
        assign=z(4, np.int64), log=z((log_capacity, ev.N_COLS), np.int64),
        log_n=z(1, np.int64), aggs=aggs,
    )


# --- the board ----------------------------------------------------------------------------

@kernel(inline=True)
def frontier_add(fpos, front, c, cell):
    """Make an empty card cell legal (once); c is the counters record."""
    if fpos[cell] < 0:
        n = c.nf
        front[n] = cell
        fpos[cell] = n
        c.nf = n + 1


@kernel(inline=True)
def frontier_remove(fpos, front, c, cell):
    """Take a cell out of the legal list (swap with the last)."""
    i = fpos[cell]
    if i < 0:
        return
    n = c.nf - 1
    last = front[n]
    front[i] = last
    fpos[last] = i
    fpos[cell] = -1
    c.nf = n


@kernel(inline=True)
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


@kernel(inline=True)
def place_village(st, cell, mask):
    """Put a village card showing `mask` on an empty village cell."""
    c = st.cnt[0]
    grid = st.grid
    vsum = st.vsum
    offs = st.offs
    vi = c.nv
    grid[cell] = vi + 1
    v = st.vill[vi]
    v.cell = cell
    v.mask = mask
    v.scored = 0
    for k in range(N_VS):
        vsum[vi, k] = 0
    st.openv[c.nopen] = vi
    vsum[vi, VS_OPEN] = c.nopen
    c.nopen += 1
    c.nv = vi + 1
    st.filled[c.nfill] = cell
    c.nfill += 1
    for d in range(4):
        n = cell + offs[d]
        h = grid[n]
        if h == 0:
            frontier_add(st.fpos, st.front, c, n)
        else:
            add_influence(vsum, vi, h - 1)


@kernel(inline=True)
def place_card(st, cell, code):
    """Put a card (code with its owner) on a legal cell."""
    c = st.cnt[0]
    grid = st.grid
    offs = st.offs
    grid[cell] = code + 1
    frontier_remove(st.fpos, st.front, c, cell)
    st.filled[c.nfill] = cell
    c.nfill += 1
    for d in range(4):
        n = cell + offs[d]
        h = grid[n]
        if h != 0:
            add_influence(st.vsum, h - 1, code)
        else:
            add_influence(st.esum, n, code)


@kernel
def clear_board(st):
    """Empty every cell the last game touched and reset the counters of the board."""
    c = st.cnt[0]
    grid = st.grid
    fpos = st.fpos
    esum = st.esum
    offs = st.offs
    filled = st.filled
    for i in range(c.nfill):
        x = filled[i]
        grid[x] = 0
        fpos[x] = -1
        for d in range(4):
            n = x + offs[d]
            for k in range(N_ES):
                esum[n, k] = 0
    front = st.front
    for i in range(c.nf):
        fpos[front[i]] = -1
    c.nf = 0
    c.nfill = 0
    c.nv = 0
    c.nopen = 0


@kernel(inline=True)
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


@kernel(inline=True)
def find_openings(st, c, p):
    """The empty village cells a card of player p on cell c opens, into st.opens (side
    order +x, -x, +y, -y); returns how many."""
    offs = st.offs
    opens = st.opens
    fm = opening_sides(st.grid, c, offs[0], offs[1], offs[2], offs[3], p)
    n = 0
    while fm != 0:
        e = (CTZ4 >> (fm << 1)) & 3
        fm &= fm - 1
        opens[n] = c + offs[e]
        n += 1
    return n


# --- scoring and the winner ---------------------------------------------------------------

@kernel(inline=True)
def score_village(st, vi, cell):
    """Score a surrounded village: each symbol's marker to the strict highest influence (a
    tie gives it to nobody); statistics of the cards around it."""
    c = st.cnt[0]
    t = c.turns + 1
    P = st.cfg[0].players
    v = st.vill[vi]
    mask = np.int64(v.mask)
    vsum = st.vsum
    rem = st.rem
    kinds = st.aggs.kinds
    misc = st.aggs.misc
    wins3 = st.wins3
    log = st.log
    log_n = st.log_n
    ev.emit(log, log_n, t, NOBODY, EV_SCORE, cell, mask, NIL, NIL)
    awarded = 0
    for s in range(N_SHAPES):
        wins3[s] = -2
        if (mask >> s) & 1 == 0:
            continue
        best = np.int64(-1)
        bq = np.int64(-1)
        tie = False
        for q in range(P):
            x = vsum[vi, q * 3 + s]
            if x > best:
                best = x
                bq = q
                tie = False
            elif x == best:
                tie = True
        misc[Misc.CONTESTS] += 1
        if tie:
            wins3[s] = -1
            misc[Misc.TIES] += 1
            discarded = np.int64(0)
            if st.cfg[0].tie_discard:
                if rem[s] > 0:
                    rem[s] -= 1
                    misc[Misc.DISCARDED] += 1
                    discarded = np.int64(1)
                else:
                    misc[Misc.TIED_OUT] += 1
            ev.emit(log, log_n, t, NOBODY, EV_TIE, s, best, discarded, rem[s])
        else:
            wins3[s] = bq
            awarded += 1
            st.taken[bq, s] += 1
            if rem[s] <= 0:
                misc[Misc.SUBST] += 1
            rem[s] -= 1
            ev.emit(log, log_n, t, NOBODY, EV_AWARD, s, bq, best, rem[s])
    grid = st.grid
    offs = st.offs
    for d in range(4):
        code = grid[cell + offs[d]] - 1
        o = code & 3
        sy = (code >> 2) & 3
        kind = code >> 8
        kinds[kind, KindStat.TOUCHED] += 1
        kinds[kind, KindStat.TOUCH_MARKERS] += awarded
        for s in range(N_SHAPES):
            if wins3[s] == o:
                kinds[kind, KindStat.TOUCH_WON] += 1
            if wins3[s] != -2 and ((sy == s) | (sy == SAMURAI)):
                kinds[kind, KindStat.CONTESTS] += 1
                if wins3[s] == o:
                    kinds[kind, KindStat.WON] += 1
    v.scored = 1
    openv = st.openv
    i = vsum[vi, VS_OPEN]
    n = c.nopen - 1
    last = openv[n]
    openv[i] = last
    vsum[last, VS_OPEN] = i
    c.nopen = n
    c.scored += 1
    misc[Misc.SCORED] += 1
    R = st.cfg[0].radius
    W = 2 * R + 1
    HR = st.cfg[0].heat_radius
    x = cell % W - R
    y = cell // W - R
    if -HR <= x <= HR and -HR <= y <= HR:
        st.aggs.heat[y + HR, x + HR] += 1
    else:
        misc[Misc.HEAT_OUT] += 1


@kernel
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


@kernel
def count_clusters(st):
    """Add the finished game's y_g^2, x_g^2, x_g * y_g, y_g and x_g (stats.Cross) of every
    rate counted within games: per kind of card, per group of kinds, and of misc's
    per-contest and per-turn rates."""
    a = st.aggs
    kinds = a.kinds
    k0 = st.kinds0
    gs = st.gsum
    for g in range(2):
        for r in range(3):
            gs[g, r, 0] = 0
            gs[g, r, 1] = 0
    for k in range(kinds.shape[0]):
        g = st.kgroup[k]
        for r in range(3):
            ys = RATIO_COLS[r, 0]
            xs = RATIO_COLS[r, 1]
            y = kinds[k, ys] - k0[k, ys]
            x = kinds[k, xs] - k0[k, xs]
            a.kind_sq[k, r, Cross.YY] += y * y
            a.kind_sq[k, r, Cross.XX] += x * x
            a.kind_sq[k, r, Cross.XY] += x * y
            a.kind_sq[k, r, Cross.Y] += y
            a.kind_sq[k, r, Cross.X] += x
            gs[g, r, 0] += y
            gs[g, r, 1] += x
    for g in range(2):
        for r in range(3):
            y = gs[g, r, 0]
            x = gs[g, r, 1]
            a.group_sq[g, r, Cross.YY] += y * y
            a.group_sq[g, r, Cross.XX] += x * x
            a.group_sq[g, r, Cross.XY] += x * y
            a.group_sq[g, r, Cross.Y] += y
            a.group_sq[g, r, Cross.X] += x
    m0 = st.misc0
    for r in range(MISC_COLS.shape[0]):
        ys = MISC_COLS[r, 0]
        xs = MISC_COLS[r, 1]
        y = a.misc[ys] - m0[ys]
        x = a.misc[xs] - m0[xs]
        a.misc_sq[r, Cross.YY] += y * y
        a.misc_sq[r, Cross.XX] += x * x
        a.misc_sq[r, Cross.XY] += x * y
        a.misc_sq[r, Cross.Y] += y
        a.misc_sq[r, Cross.X] += x


@kernel
def game_over(st):
    """The game has ended (cnt.end set): decide the winner, count the game's statistics."""
    c = st.cnt[0]
    P = st.cfg[0].players
    a = st.aggs
    taken = st.taken
    t = c.turns
    c.over = 1
    ev.emit(st.log, st.log_n, t, NOBODY, EV_END, c.end, NIL, NIL, NIL)
    ndom = st.ndom
    res, winner, smask, how = decide_winner(taken, P, st.dom, ndom)
    for s in range(N_SHAPES):
        d = st.dom[s]
        ev.emit(st.log, st.log_n, t, NOBODY, EV_DOMINATE, s, d, taken[d, s] if d >= 0 else NIL,
                NIL)
    ev.emit(st.log, st.log_n, t, NOBODY, EV_RESULT, np.int64(res), winner, smask,
            np.int64(how))
    c.result = res
    c.winner = winner
    c.win_mask = smask
    c.winby = how
    a.outcome[res] += 1
    a.winby[how] += 1
    if res == Outcome.OUTRIGHT:
        a.wins[winner] += 1
    elif res == Outcome.SHARED:
        for q in range(P):
            if (smask >> q) & 1:
                a.shared[q] += 1
    for q in range(P):
        nd = ndom[q]
        if nd == 0:
            a.elim[q] += 1
        a.domn[q, nd] += 1
        for s in range(N_SHAPES):
            x = taken[q, s]
            a.markers[q, s, 0] += x
            a.markers[q, s, 1] += x * x
    a.ends[c.end] += 1
    a.lengths[min(t, N_LEN - 1)] += 1
    a.vhist[Placed.PLACED, min(c.nv, N_VH - 1)] += 1
    a.vhist[Placed.SCORED, min(c.scored, N_VH - 1)] += 1
    a.misc[Misc.TURNS] += t
    if a.misc[Misc.SUBST] > c.subst0:
        a.misc[Misc.SUBST_GAMES] += 1
    if res == Outcome.OUTRIGHT:
        W = 2 * st.cfg[0].radius + 1
        for i in range(c.nfill):
            x = st.filled[i]
            if (x % W + x // W) % 2 == 0:
                continue  # a village cell (x + y even)
            code = st.grid[x] - 1
            if code & 3 == winner:
                a.kinds[code >> 8, KindStat.PLAY_WON] += 1
    count_clusters(st)


# --- setup and turns ----------------------------------------------------------------------

@kernel
def setup(st, seed, playout):
    """Start playout `playout` of the run keyed by `seed`: each seat's deck shuffled from its
    own stream and a hand dealt, the village deck shuffled from the shared stream, the
    first village put at the centre; seat 1 (index 0) to act."""
    clear_board(st)
    seed_lanes(st.rng, seed, playout)
    cfg = st.cfg[0]
    c = st.cnt[0]
    P = cfg.players
    NC = st.setc.shape[0]
    NV = st.vdeck.shape[0]
    for p in range(P):
        sp = st.seat[p]
        deck = st.decks[p]
        for i in range(NC):
            deck[i] = st.setc[i] | p
            if st.log.shape[0] > 0:  # a logged game: the whole set, so draws can be checked
                ev.emit(st.log, st.log_n, NIL, p, EV_SET, deck[i], NIL, NIL, NIL)
        shuffle(st.rng[sp.lane], deck, NC)
        dn = NC
        hn = 0
        while hn < cfg.hand_size and dn > 0:
            dn -= 1
            st.hands[p, hn] = deck[dn]
            hn += 1
            ev.emit(st.log, st.log_n, NIL, p, EV_DEAL, deck[dn], NIL, NIL, NIL)
        sp.deck_n = dn
        sp.hand_n = hn
        for s in range(N_SHAPES):
            st.taken[p, s] = 0
    for i in range(NV):
        st.vdeck[i] = st.vmasks[i]
    shuffle(st.rng[MAX_P], st.vdeck, NV)
    ev.emit(st.log, st.log_n, NIL, NOBODY, EV_DECK, NV, NIL, NIL, NIL)
    if st.log.shape[0] > 0:  # a logged game: the village deck in its shuffled order
        for i in range(NV):
            ev.emit(st.log, st.log_n, NIL, NOBODY, EV_ORDER, st.vdeck[i], np.int64(i + 1), NIL,
                    NIL)
    for s in range(N_SHAPES):
        st.rem[s] = cfg.supply
    c.turns = 0
    c.scored = 0
    R = cfg.radius
    centre = R * (2 * R + 1) + R
    place_village(st, centre, st.vdeck[0])
    c.vtop = 1
    ev.emit(st.log, st.log_n, NIL, NOBODY, EV_VILLAGE, centre, st.vdeck[0], NV - 1, NIL)
    if NV > 1:
        ev.emit(st.log, st.log_n, NIL, NOBODY, EV_TOP, st.vdeck[1], NV - 1, NIL, NIL)
    c.subst0 = st.aggs.misc[Misc.SUBST]
    for k in range(st.kinds0.shape[0]):
        for j in range(st.kinds0.shape[1]):
            st.kinds0[k, j] = st.aggs.kinds[k, j]
    for j in range(st.misc0.shape[0]):
        st.misc0[j] = st.aggs.misc[j]
    c.cur = 0
    c.phase = PLAY
    c.over = 0
    c.end = 0
    c.n_open = 0
    c.played = -1
    c.result = Outcome.NONE
    c.winner = -1
    c.win_mask = 0
    c.winby = WinBy.NONE


@kernel(inline=True)
def to_move(st):
    """The seat to act, -1 once the game is over."""
    c = st.cnt[0]
    return -1 if c.over else c.cur


@kernel
def is_over(st):
    """Whether the game has ended."""
    return st.cnt[0].over != 0


@kernel(inline=True)
def end_turn(st):
    """After the villages: score the surrounded villages next to the card, draw; then end
    the game, or pass the turn to the next seat holding cards (a seat with cards and no
    legal cell ends the game: blocked)."""
    c = st.cnt[0]
    p = c.cur
    P = st.cfg[0].players
    cell = c.played
    misc = st.aggs.misc
    seat = st.seat
    placed = c.placed
    opened = placed + c.unfilled
    if opened > 0:
        misc[Misc.OPEN1 + opened - 1] += 1
        misc[Misc.PLACED] += placed
        misc[Misc.UNFILLED] += c.unfilled
        if opened > c.first_open:
            misc[Misc.CHAINED] += opened - c.first_open
    grid = st.grid
    offs = st.offs
    vsum = st.vsum
    for d in range(4):
        x = cell + offs[d]
        h = grid[x]
        if h == 0:
            continue
        vi = h - 1
        if st.vill[vi].scored == 0 and vsum[vi, VS_FILL] == 4:
            score_village(st, vi, x)
    sp = seat[p]
    if sp.deck_n > 0:
        sp.deck_n -= 1
        code = st.decks[p, sp.deck_n]
        st.hands[p, sp.hand_n] = code
        sp.hand_n += 1
        ev.emit(st.log, st.log_n, c.turns + 1, p, EV_DRAW, code, sp.deck_n, NIL, NIL)
    c.turns += 1
    end = 0
    for s in range(N_SHAPES):
        if st.rem[s] <= 0:
            end |= End.MARKERS
    if c.vtop >= st.vdeck.shape[0]:
        end |= End.VILLAGES
    left = 0
    for q in range(P):
        left += seat[q].hand_n
    if left == 0:
        end |= End.CARDS
    if end == 0:
        cur = (p + 1) % P
        skipped = 0
        while seat[cur].hand_n == 0 and skipped < P:
            ev.emit(st.log, st.log_n, c.turns + 1, cur, EV_SKIP, NIL, NIL, NIL, NIL)
            cur = (cur + 1) % P
            skipped += 1
        c.cur = cur
        # blocked: no legal cell; (nobody holding a card is the cards end, checked above:
        # the bound only keeps a broken rule from looping for ever)
        if c.nf == 0 or skipped == P:
            end = End.BLOCKED
    if end:
        c.end = end
        game_over(st)


@kernel(inline=True)
def play_card(st, hi, cell):
    """The player to act plays the card at hand position hi on a legal cell; the cells it
    opens for villages go to st.opens."""
    c = st.cnt[0]
    p = c.cur
    sp = st.seat[p]
    hands = st.hands
    code = hands[p, hi]
    n = sp.hand_n - 1
    hands[p, hi] = hands[p, n]
    sp.hand_n = n
    place_card(st, cell, code)
    st.aggs.kinds[code >> 8, KindStat.PLAYED] += 1
    c.played = cell
    n_open = find_openings(st, cell, p)
    c.n_open = n_open
    c.first_open = n_open
    c.placed = 0
    c.unfilled = 0
    for j in range(n_open):
        ev.emit(st.log, st.log_n, c.turns + 1, NOBODY, EV_OPEN, st.opens[j], NIL, NIL, NIL)


@kernel(inline=True)
def place_villages(st, c1, c2):
    """The player to act puts the top village card on open cell c1 (and, c2 >= 0, the next
    on c2); st.opens keeps the cells still open, or with chaining those open again."""
    c = st.cnt[0]
    p = c.cur
    t = c.turns + 1
    vtop = c.vtop
    vdeck = st.vdeck
    log = st.log
    log_n = st.log_n
    NV = vdeck.shape[0]
    place_village(st, c1, vdeck[vtop])
    ev.emit(log, log_n, t, p, EV_VILLAGE, c1, vdeck[vtop], NV - vtop - 1, NIL)
    k = 1
    if c2 >= 0:
        place_village(st, c2, vdeck[vtop + 1])
        ev.emit(log, log_n, t, p, EV_VILLAGE, c2, vdeck[vtop + 1], NV - vtop - 2, NIL)
        k = 2
    c.vtop = vtop + k
    if vtop + k < NV:
        ev.emit(log, log_n, t, NOBODY, EV_TOP, vdeck[vtop + k], NV - vtop - k, NIL, NIL)
    c.placed += k
    opens = st.opens
    n_old = c.n_open
    if st.cfg[0].chain:
        for j in range(n_old):
            opens[4 + j] = opens[j]
        n = find_openings(st, c.played, p)
        for j in range(n):
            new = True
            for i in range(n_old):
                if opens[4 + i] == opens[j]:
                    new = False
            if new:
                ev.emit(log, log_n, t, NOBODY, EV_OPEN, opens[j], np.int64(1), NIL, NIL)
    else:
        n = 0
        for j in range(n_old):
            if st.grid[opens[j]] == 0:
                opens[n] = opens[j]
                n += 1
    c.n_open = n


@kernel
def apply(st, a):
    """The player to act takes legal action `a` (see the module docstring); the game goes
    on to the next decision (a village to place, or the next seat's card) or the end."""
    c = st.cnt[0]
    if c.phase == PLAY:
        play_card(st, a >> CELL_BITS, a & CELL_MASK)
    else:
        place_villages(st, a & CELL_MASK, ((a >> CELL_BITS) & CELL_MASK) - 1)
    n = c.n_open
    if n > 0 and c.vtop >= st.vdeck.shape[0]:
        c.unfilled = n
        for j in range(n):
            ev.emit(st.log, st.log_n, c.turns + 1, NOBODY, EV_UNFILLED, st.opens[j], NIL, NIL,
                    NIL)
        c.n_open = 0
        n = 0
    if n > 0:
        c.phase = PLACE
    else:
        c.phase = PLAY
        end_turn(st)


@kernel
def legal_actions(st, out):
    """The legal actions of the player to act into out[:n]; returns n (0 once over).

    Card plays come hand position by hand position, each over the legal cells in the
    order of `front`; placements over the open cells in the order of `opens`, then (see-all)
    the pairs."""
    c = st.cnt[0]
    if c.over:
        return 0
    n = 0
    if c.phase == PLAY:
        for hi in range(st.seat[c.cur].hand_n):
            for i in range(c.nf):
                out[n] = (hi << CELL_BITS) | st.front[i]
                n += 1
        return n
    opens = st.opens
    for j in range(c.n_open):
        out[n] = PLACE_FLAG | opens[j]
        n += 1
    if st.cfg[0].see_all and c.n_open >= 2 and st.vdeck.shape[0] - c.vtop >= 2:
        for j in range(c.n_open):
            for k in range(c.n_open):
                if k != j:
                    out[n] = PLACE_FLAG | ((opens[k] + 1) << CELL_BITS) | opens[j]
                    n += 1
    return n


@kernel(inline=True)
def card_action(hi, cell):
    """The action: play the card at hand position hi on `cell`."""
    return (hi << CELL_BITS) | cell


@kernel(inline=True)
def place_action(c1, c2):
    """The action: the top village on cell c1 (and the next on c2; -1 for none)."""
    return PLACE_FLAG | ((c2 + 1) << CELL_BITS) | c1


@kernel
def option_of(st, a):
    """The option (index into OPTIONS) action `a` of the player to act uses: the symbol of
    the card played; -1 for a placement (never forbidden)."""
    c = st.cnt[0]
    if c.phase != PLAY:
        return -1
    return (st.hands[c.cur, a >> CELL_BITS] >> 2) & 3


# --- what a player sees -------------------------------------------------------------------

@kernel(inline=True)
def visible_villages(st):
    """How many village cards from the top of the deck the player to act sees."""
    c = st.cnt[0]
    left = st.vdeck.shape[0] - c.vtop
    if c.phase == PLAY:
        return min(1, left)
    if st.cfg[0].see_all:
        return min(c.n_open, left)
    return min(2, left)


@kernel(inline=True)
def top_village(st, j):
    """The symbol mask of the j-th visible village card (0: the top), -1 if not visible."""
    if j < 0 or j >= visible_villages(st):
        return -1
    return st.vdeck[st.cnt[0].vtop + j]


@kernel
def outcome(st, out):
    """out[s] = 1.0 for every winning seat (outright, or each seat of a shared victory),
    else 0."""
    c = st.cnt[0]
    for s in range(out.shape[0]):
        out[s] = 0.0
    if c.result == Outcome.OUTRIGHT:
        out[c.winner] = 1.0
    elif c.result == Outcome.SHARED:
        for s in range(st.cfg[0].players):
            if (c.win_mask >> s) & 1:
                out[s] = 1.0


# --- entries from Python (the handle, the tests) ------------------------------------------

@kernel
def py_setup(st, seed, playout):
    """setup, from Python."""
    setup(st, seed, playout)


@kernel
def py_legal_actions(st, out):
    """legal_actions, from Python."""
    return legal_actions(st, out)


@kernel
def py_apply(st, a):
    """apply, from Python."""
    apply(st, a)


@kernel
def py_option_of(st, a):
    """option_of, from Python."""
    return option_of(st, a)


@kernel
def py_outcome(st, out):
    """outcome, from Python."""
    outcome(st, out)


@kernel
def py_visible_villages(st):
    """visible_villages, from Python."""
    return visible_villages(st)


@kernel
def py_place_village(st, cell, mask):
    """place_village, from Python (hand-built positions)."""
    place_village(st, cell, mask)


@kernel
def py_place_card(st, cell, code):
    """place_card, from Python (hand-built positions)."""
    place_card(st, cell, code)


@kernel
def py_find_openings(st, c, p):
    """find_openings, from Python."""
    return find_openings(st, c, p)


@kernel
def py_clear_board(st):
    """clear_board, from Python."""
    clear_board(st)


@kernel
def py_decide_winner(taken, P, dom, ndom):
    """decide_winner, from Python."""
    return decide_winner(taken, P, dom, ndom)
