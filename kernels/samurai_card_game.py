"""Samurai: The Card Game: villages and cards on a chessboard grid, 2-4 players.

Board: a square grid of side W = 2R + 1 held flat (cell = (y + R) * W + (x + R)). Villages
sit on cells with x + y even, player cards on cells with x + y odd; the first village is at
the centre. grid[cell] is 0 when empty, 1 + village index (order of placement) for a
village, 1 + card code for a card. A card code packs owner (bits 0-1), symbol (2-3),
influence (4-7) and kind (8+, the card's line in the content file).

Legal cells (empty card cells next to a village) are kept in a frontier list with each
cell's position in `fpos`, so a play costs O(1) to find and remove; after a game only the
cells it touched are reset. Every array has a fixed shape set by the chunk runner.
"""

import numpy as np
from numba import njit

from kernels.config import INLINE, JIT, NO_ALLOC
from kernels.rng import below, new_states, rotation_lanes, seed_lanes, shuffle

# Small helpers of the hot loops are inlined at compile time (a call that passes arrays
# costs more than their bodies).

# Symbols (the three marker shapes, then the wild samurai)
HELMET = 0  # triangle
BUDDHA = 1  # circle
RICE = 2  # square
SAMURAI = 3
N_SHAPES = 3

# Policies
RANDOM = 0
GREEDY = 1

# Integer parameters (pi)
PI_HAND = 0  # hand size
PI_SUPPLY = 1  # markers per shape for this player count
PI_SEE_ALL = 2  # 1: the player sees every village to place before placing any
PI_TIE_DISCARD = 3  # 1: a tied marker leaves the supply (0: it stays)
PI_CHAIN = 4  # 1: villages placed this turn can open further cells next to the played card
PI_R = 5  # grid radius
PI_HEAT_R = 6  # heatmap radius
N_PI = 7

# Float parameters (pf): greedy weights and the village deck's symbol frequencies
PF_INFL = 0  # weight of influence (lead) on a village that is not scored yet
PF_CAP = 1  # lead counted up to this many points
PF_KEEP = 2  # tie-break: prefer playing weak cards
PF_SCARCE = 3  # weight of a shape's spent supply
PF_DOM = 4  # bonus for a marker that moves the player to (or keeps) domination
PF_FREQ = 5  # 3 values: share of village cards that show each symbol
N_PF = 8

# Counters of the running game (st)
ST_NF = 0  # frontier size
ST_NFILL = 1  # filled cells
ST_NV = 2  # villages placed
ST_VTOP = 3  # next village card of the deck
ST_TURNS = 4
ST_SCORED = 5
ST_HAND = 6  # 4 values: hand sizes
ST_DECK = 10  # 4 values: draw pile sizes
ST_REM = 14  # 3 values: markers left in each supply (negative: substitutes given)
ST_STAMP = 17  # greedy moves evaluated in this chunk
ST_NOPEN = 18  # villages on the table not scored yet
N_ST = 19

# Rows of `lists`
L_FRONT = 0
L_FILL = 1
L_VCELL = 2
L_OPENV = 3  # villages not scored yet

# Rows of `vinfo`
V_MASK = 0
V_SCORED = 1

# Columns of `vsum` (one row per placed village): influence of player q on shape s at
# q * 3 + s, then the number of cards next to the village
VS_FILL = 12
VS_OPEN = 13  # position in the list of open villages
N_VS = 14

# `esum` (int8, one row per cell) holds the same columns (q * 3 + s, VS_FILL) for the cards
# next to an empty village cell, kept up to date as cards land (at most 4 * 15), so greedy
# reads a would-be village's influence without looking at the grid; a row goes stale once a
# village is put on its cell, and clear_board zeroes the rows next to every filled cell.
N_ES = 16

# End reasons (bits)
E_MARKERS = 1
E_VILLAGES = 2
E_CARDS = 4
E_BLOCKED = 8
N_END = 16

# Outcomes
O_OUTRIGHT = 0
O_SHARED = 1
O_NONE = 2

# How the winner was decided (winby)
W_TWO_SHAPES = 0
W_OTHER_SHAPES = 1
W_TIEBREAK = 2
W_SHARED = 3
W_NONE = 4
N_WINBY = 5

# Per card kind statistics
K_PLAYED = 0
K_CONTESTS = 1  # symbol scorings in which the card counted
K_WON = 2  # ... whose marker its owner took
K_TOUCHED = 3  # scored villages the card was next to
K_TOUCH_MARKERS = 4  # markers those villages awarded
K_TOUCH_WON = 5  # ... to the card's owner
K_PLAY_WON = 6  # plays by a player who won the game outright
N_KSTAT = 7

# Miscellaneous counters
M_CONTESTS = 0
M_TIES = 1
M_SUBST = 2
M_DISCARDED = 3
M_OPEN1 = 4  # 3 values: plays that opened 1, 2, 3 cells (chained ones included)
M_CHAINED = 7  # villages placed by chained openings
M_UNFILLED = 8  # openings left empty because the village deck ran out
M_HEAT_OUT = 9
M_TURNS = 10
M_SCORED = 11
M_PLACED = 12
M_SUBST_GAMES = 13
M_TIED_OUT = 14  # tied markers that found the supply already empty
N_MISC = 15

# Per-game row columns (for --save-games)
R_WINNER = 0  # -1: shared victory or nobody
R_SHARED_MASK = 1
R_TURNS = 2
R_END = 3
R_PLACED = 4
R_SCORED = 5
R_MARKERS = 6  # 12 columns: seat * 3 + shape (-1 for absent seats)
R_DOMINATED = 18  # 4 columns: shapes dominated per seat
N_ROW = 22

N_LEN = 128
N_VH = 64
MAX_P = 4

CTZ4 = 0x12131210  # for each 4-bit value v, 2 bits at 2 * v: the position of v's lowest set bit


@njit(**INLINE)
def frontier_add(fpos, lists, st, cell):
    """Make an empty card cell legal (once)."""
    if fpos[cell] < 0:
        n = st[ST_NF]
        lists[L_FRONT, n] = cell
        fpos[cell] = n
        st[ST_NF] = n + 1


@njit(**NO_ALLOC)
def frontier_remove(fpos, lists, st, cell):
    """Take a cell out of the legal list (swap with the last)."""
    i = fpos[cell]
    if i < 0:
        return
    n = st[ST_NF] - 1
    last = lists[L_FRONT, n]
    lists[L_FRONT, i] = last
    fpos[last] = i
    fpos[cell] = -1
    st[ST_NF] = n


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


@njit(**NO_ALLOC)
def place_village(grid, fpos, lists, st, vinfo, vsum, offs, cell, mask):
    """Put a village card showing `mask` on an empty village cell."""
    vi = st[ST_NV]
    grid[cell] = vi + 1
    vinfo[V_MASK, vi] = mask
    vinfo[V_SCORED, vi] = 0
    for k in range(N_VS):
        vsum[vi, k] = 0
    lists[L_VCELL, vi] = cell
    lists[L_OPENV, st[ST_NOPEN]] = vi
    vsum[vi, VS_OPEN] = st[ST_NOPEN]
    st[ST_NOPEN] += 1
    st[ST_NV] = vi + 1
    lists[L_FILL, st[ST_NFILL]] = cell
    st[ST_NFILL] += 1
    for d in range(4):
        n = cell + offs[d]
        h = grid[n]
        if h == 0:
            frontier_add(fpos, lists, st, n)
        else:
            add_influence(vsum, vi, h - 1)


@njit(**NO_ALLOC)
def place_card(grid, fpos, lists, st, vsum, esum, offs, cell, code):
    """Put a card (code with its owner) on a legal cell."""
    grid[cell] = code + 1
    frontier_remove(fpos, lists, st, cell)
    lists[L_FILL, st[ST_NFILL]] = cell
    st[ST_NFILL] += 1
    for d in range(4):
        n = cell + offs[d]
        h = grid[n]
        if h != 0:
            add_influence(vsum, h - 1, code)
        else:
            add_influence(esum, n, code)


@njit(**NO_ALLOC)
def clear_board(grid, fpos, lists, st, offs, esum):
    """Empty every cell the game touched and reset the counters of the board."""
    for i in range(st[ST_NFILL]):
        c = lists[L_FILL, i]
        grid[c] = 0
        fpos[c] = -1
        for d in range(4):
            n = c + offs[d]
            for k in range(N_ES):
                esum[n, k] = 0
    for i in range(st[ST_NF]):
        fpos[lists[L_FRONT, i]] = -1
    st[ST_NF] = 0
    st[ST_NFILL] = 0
    st[ST_NV] = 0
    st[ST_NOPEN] = 0


@njit(**NO_ALLOC)
def find_openings(grid, offs, c, p, opens):
    """Empty village cells that a card of player p at c opens; returns how many.

    A neighbour X of c opens when a village V next to c has, on the side that also touches
    X, a card of another player (that card and c are diagonal; X is the other cell between
    them).
    """
    n = 0
    for e in range(4):
        x = c + offs[e]
        if grid[x] != 0:
            continue
        base = 2 if e < 2 else 0
        for k in range(2):
            d = base + k
            if grid[c + offs[d]] != 0:
                h = grid[x + offs[d]]
                if h != 0 and ((h - 1) & 3) != p:
                    opens[n] = x
                    n += 1
                    break
    return n


@njit(**NO_ALLOC)
def score_village(grid, offs, lists, vinfo, vsum, vi, cell, P, taken, st, tie_discard,
                  wins3, kinds, heat, misc, R, W, HR):
    """Score a surrounded village: each symbol's marker to the strict highest influence."""
    mask = vinfo[V_MASK, vi]
    awarded = 0
    for s in range(N_SHAPES):
        wins3[s] = -2
        if (mask >> s) & 1 == 0:
            continue
        best = -1
        bq = -1
        tie = False
        for q in range(P):
            x = vsum[vi, q * 3 + s]
            if x > best:
                best = x
                bq = q
                tie = False
            elif x == best:
                tie = True
        misc[M_CONTESTS] += 1
        if tie:
            wins3[s] = -1
            misc[M_TIES] += 1
            if tie_discard:
                if st[ST_REM + s] > 0:
                    st[ST_REM + s] -= 1
                    misc[M_DISCARDED] += 1
                else:
                    misc[M_TIED_OUT] += 1
        else:
            wins3[s] = bq
            awarded += 1
            taken[bq, s] += 1
            if st[ST_REM + s] <= 0:
                misc[M_SUBST] += 1
            st[ST_REM + s] -= 1
    for d in range(4):
        code = grid[cell + offs[d]] - 1
        o = code & 3
        sy = (code >> 2) & 3
        kind = code >> 8
        kinds[kind, K_TOUCHED] += 1
        kinds[kind, K_TOUCH_MARKERS] += awarded
        for s in range(N_SHAPES):
            if wins3[s] == o:
                kinds[kind, K_TOUCH_WON] += 1
            if wins3[s] != -2 and (sy in (s, SAMURAI)):
                kinds[kind, K_CONTESTS] += 1
                if wins3[s] == o:
                    kinds[kind, K_WON] += 1
    vinfo[V_SCORED, vi] = 1
    i = vsum[vi, VS_OPEN]
    n = st[ST_NOPEN] - 1
    last = lists[L_OPENV, n]
    lists[L_OPENV, i] = last
    vsum[last, VS_OPEN] = i
    st[ST_NOPEN] = n
    st[ST_SCORED] += 1
    misc[M_SCORED] += 1
    x = cell % W - R
    y = cell // W - R
    if -HR <= x <= HR and -HR <= y <= HR:
        heat[y + HR, x + HR] += 1
    else:
        misc[M_HEAT_OUT] += 1


@njit(**INLINE)
def lead_value(m, cap):
    """A lead of m influence points, capped, as a share of one marker (-1..1)."""
    if m > cap:
        return 1.0
    if m < -cap:
        return -1.0
    return m / cap


@njit(**INLINE)
def own_and_rival(esum, x, p, P, s):
    """(p's influence, the best rival's) on shape s next to empty cell x."""
    # written out for the 4 seats: a loop over players gets vectorized into slow gathers
    riv = np.int64(0)
    if p != 0:
        riv = max(riv, np.int64(esum[x, s]))
    if P > 1 and p != 1:
        riv = max(riv, np.int64(esum[x, 3 + s]))
    if P > 2 and p != 2:
        riv = max(riv, np.int64(esum[x, 6 + s]))
    if P > 3 and p != 3:
        riv = max(riv, np.int64(esum[x, 9 + s]))
    return np.int64(esum[x, p * 3 + s]), riv


@njit(**NO_ALLOC)
def shape_weights(taken, st, p, P, supply, pf, fs):
    """Greedy's value of one marker of each shape for player p (into fs[0:3])."""
    for s in range(N_SHAPES):
        own = taken[p, s]
        riv = 0
        for q in range(P):
            if q != p and taken[q, s] > riv:
                riv = taken[q, s]
        left = max(st[ST_REM + s], 0)
        spent = (supply - left) / supply if supply > 0 else 1.0
        bonus = 0.0
        if own == riv:
            bonus = pf[PF_DOM]
        elif own + 1 == riv or own == riv + 1:
            bonus = 0.5 * pf[PF_DOM]
        fs[s] = 1.0 + pf[PF_SCARCE] * spent + bonus


@njit(**NO_ALLOC)
def village_gain(esum, x, mask, p, P, fs, pf):
    """Greedy's value for player p of a village showing `mask` placed at empty cell x."""
    xu = np.uint64(x)
    filled = esum[xu, VS_FILL]
    g = 0.0
    for s in range(N_SHAPES):
        if (mask >> s) & 1:
            own, riv = own_and_rival(esum, xu, p, P, s)
            if filled == 4:
                g += fs[s] * (1.0 if own > riv else 0.0)
            else:
                g += fs[s] * pf[PF_INFL] * lead_value(own - riv, pf[PF_CAP])
    return g


@njit(**INLINE)
def card_values(out, row, nk, kadd, full, inv_cap, ha, hb, hc, wa, wb, wc, ma, mb, mc, la, lb,
                lc):
    """Greedy's value of each distinct card in hand (kadd) played next to a village where
    the player leads by ma, mb, mc on the three shapes (counted where ha, hb, hc, with
    weights wa, wb, wc), into out[row, :nk]: the weight if the card surrounds the village
    (`full`) and the player then leads, else the weight times the capped lead minus la, lb,
    lc (the current lead's value)."""
    for k in range(nk):
        acc = 0.0
        if full:
            if ha:
                acc += wa * (ma + kadd[k, 0] > 0)
            if hb:
                acc += wb * (mb + kadd[k, 1] > 0)
            if hc:
                acc += wc * (mc + kadd[k, 2] > 0)
        else:
            if ha:
                acc += wa * (max(-1.0, min(1.0, (ma + kadd[k, 0]) * inv_cap)) - la)
            if hb:
                acc += wb * (max(-1.0, min(1.0, (mb + kadd[k, 1]) * inv_cap)) - lb)
            if hc:
                acc += wc * (max(-1.0, min(1.0, (mc + kadd[k, 2]) * inv_cap)) - lc)
        out[row, k] = acc


@njit(**INLINE)
def x_value(esum, x, p, P, fs, pf, top, unseen, nk, kadd, xtab, row):
    """Greedy's value, for each distinct card in hand, of a new village at empty cell x next
    to the card (into xtab[row, :nk]): the visible top village (`top`'s symbols), or with
    `unseen` one not seen yet (symbols weighted by their frequency in the deck)."""
    infl = pf[PF_INFL]
    inv_cap = 1.0 / pf[PF_CAP]
    full = esum[x, VS_FILL] == 3
    # per shape: weight (0: not counted) and p's lead now
    wa = fs[0] * pf[PF_FREQ] if unseen else fs[0] * (top & 1)
    wb = fs[1] * pf[PF_FREQ + 1] if unseen else fs[1] * ((top >> 1) & 1)
    wc = fs[2] * pf[PF_FREQ + 2] if unseen else fs[2] * ((top >> 2) & 1)
    ha = wa != 0.0
    hb = wb != 0.0
    hc = wc != 0.0
    if not full:
        wa *= infl
        wb *= infl
        wc *= infl
    own, riv = own_and_rival(esum, x, p, P, 0)
    ma = own - riv
    own, riv = own_and_rival(esum, x, p, P, 1)
    mb = own - riv
    own, riv = own_and_rival(esum, x, p, P, 2)
    mc = own - riv
    card_values(xtab, row, nk, kadd, full, inv_cap, ha, hb, hc, wa, wb, wc, ma, mb, mc,
                0.0, 0.0, 0.0)


@njit(**INLINE)
def lead_now(vsum, vi, p, P, s):
    """p's influence on shape s of village vi minus the best rival's."""
    # written out for the 4 seats: a loop over players gets vectorized into slow gathers
    riv = 0
    if p != 0:
        riv = vsum[vi, s]
    if P > 1 and p != 1:
        riv = max(riv, vsum[vi, 3 + s])
    if P > 2 and p != 2:
        riv = max(riv, vsum[vi, 6 + s])
    if P > 3 and p != 3:
        riv = max(riv, vsum[vi, 9 + s])
    return vsum[vi, p * 3 + s] - riv


@njit(**NO_ALLOC)
def greedy_move(grid, offs, lists, st, vinfo, vsum, vtab, xkey, xtab, vdeck, hands, p, P, pf,
                fs, esum, kpos, kadd, kscore):
    """Greedy's (hand position, cell): markers won now, plus lead gained on open villages
    and on the villages the play creates, shapes weighted by fs; weakest card on ties.

    Each open village's value, and each empty village cell's value as a new village, for
    every distinct card in hand is worked out once per move (vtab, xtab) and shared by the
    cells around it. Indices known to be non-negative are unsigned (no wraparound test)
    and per-card sums stay in registers. kpos, kadd and kscore are scratch.
    """
    NV = vdeck.shape[0]
    hn = st[ST_HAND + p]
    vtop = st[ST_VTOP]
    infl = pf[PF_INFL]
    inv_cap = 1.0 / pf[PF_CAP]
    keep = pf[PF_KEEP]
    st[ST_STAMP] += 1
    stamp = st[ST_STAMP]
    # distinct cards in hand (by symbol and influence): position, shape increments, weight
    nk = np.int64(0)
    for i in range(hn):
        key = (hands[p, i] >> 2) & 63
        dup = False
        for j in range(nk):
            if (hands[p, kpos[j]] >> 2) & 63 == key:
                dup = True
        if not dup:
            kpos[nk] = i
            nk += 1
    for k in range(nk):
        code = hands[p, kpos[k]]
        sy = (code >> 2) & 3
        va = (code >> 4) & 15
        for s in range(N_SHAPES):
            kadd[k, s] = va * ((sy == s) | (sy == SAMURAI))
        kadd[k, 3] = va + 2 * (sy == SAMURAI)
    # every open village: the value of each card played next to it
    for i in range(st[ST_NOPEN]):
        vi = lists[L_OPENV, i]
        mask = vinfo[V_MASK, vi]
        full = vsum[vi, VS_FILL] == 3
        # per shape: p's lead now (m), its weight (0: not on the village), lead value (l)
        ma = lead_now(vsum, vi, p, P, 0)
        mb = lead_now(vsum, vi, p, P, 1)
        mc = lead_now(vsum, vi, p, P, 2)
        ha = mask & 1
        hb = (mask >> 1) & 1
        hc = (mask >> 2) & 1
        wa = fs[0] if full else fs[0] * infl
        wb = fs[1] if full else fs[1] * infl
        wc = fs[2] if full else fs[2] * infl
        la = max(-1.0, min(1.0, ma * inv_cap))
        lb = max(-1.0, min(1.0, mb * inv_cap))
        lc = max(-1.0, min(1.0, mc * inv_cap))
        card_values(vtab, vi, nk, kadd, full, inv_cap, ha, hb, hc, wa, wb, wc, ma, mb, mc,
                    la, lb, lc)
    best = -1e300
    bi = 0
    bc = lists[L_FRONT, 0]
    nx = np.int64(0)  # not a literal: one compiled x_value
    zrow = np.uint64(vtab.shape[0] - 1)  # the spare zero row
    for k in range(nk):
        kscore[k] = keep * kadd[k, 3]
    o0 = offs[0]
    o1 = offs[1]
    o2 = offs[2]
    o3 = offs[3]
    for i in range(st[ST_NF]):
        c = np.int64(lists[L_FRONT, i])
        # what is next to c on each side (a village or nothing) and its row of vtab
        h0 = grid[np.uint64(c + o0)]
        h1 = grid[np.uint64(c + o1)]
        h2 = grid[np.uint64(c + o2)]
        h3 = grid[np.uint64(c + o3)]
        r0 = np.uint64(h0 - 1) if h0 != 0 else zrow
        r1 = np.uint64(h1 - 1) if h1 != 0 else zrow
        r2 = np.uint64(h2 - 1) if h2 != 0 else zrow
        r3 = np.uint64(h3 - 1) if h3 != 0 else zrow
        # an empty side x opens when a village on a perpendicular side has, next to x, a
        # card of another player; the rows of xtab to add for them
        nop = np.int64(0)
        x0 = zrow
        x1 = zrow
        x2 = zrow
        # worked out without branches: the four diagonal neighbours of c (card cells) and
        # whether another player holds them; bit e of fm: side e opens (its cell x = c +
        # offs[e] is empty and a village on a side next to both c and the diagonal cell
        # between them has such a card there), visited lowest bit first through CTZ4
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
        fm = ((((h0 == 0) & ((v2 & g02) | (v3 & g03))) * 1)
              | (((h1 == 0) & ((v2 & g12) | (v3 & g13))) * 2)
              | (((h2 == 0) & ((v0 & g02) | (v1 & g12))) * 4)
              | (((h3 == 0) & ((v0 & g03) | (v1 & g13))) * 8))
        while fm != 0:
            e = (CTZ4 >> (fm << 1)) & 3  # the lowest side left
            fm &= fm - 1
            x = c + offs[np.uint64(e)]
            # the first cell opened gets the visible top village, the others unseen ones;
            # xkey[x] holds the first kind's row, xkey[x + 1] (a card cell) the second's
            unseen = nop > 0
            if vtop + nop >= NV:
                break
            slot = np.uint64(x + 1) if unseen else np.uint64(x)
            key = xkey[slot]
            if key >> 16 != stamp:
                x_value(esum, np.uint64(x), p, P, fs, pf, vdeck[vtop], unseen, nk, kadd, xtab,
                        nx)
                key = (stamp << 16) | nx
                xkey[slot] = key
                nx += 1
            row = np.uint64(key & 65535)
            if nop == 0:
                x0 = row
            elif nop == 1:
                x1 = row
            else:
                x2 = row
            nop += 1
        for k in range(nk):
            v = (vtab[r0, k] + vtab[r1, k] + vtab[r2, k] + vtab[r3, k] - kscore[k])
            if nop > 0:
                v += xtab[x0, k]
                if nop > 1:
                    v += xtab[x1, k]
                    if nop > 2:
                        v += xtab[x2, k]
            if v > best:
                best = v
                bi = kpos[k]
                bc = c
    return bi, np.int64(bc)


@njit(**NO_ALLOC)
def choose_opening(state, policy, see_all, esum, opens, n, vdeck, vtop, p, P, fs, pf, gains,
                   assign):
    """How many of the next village cards to place now, and where (opens[assign[j]]).

    Random puts one village on a uniformly chosen open cell. Greedy with see-next places
    the top village seeing the next one (the cell maximising its gain plus the next
    village's best gain on the cells left); with see-all it sees as many villages as there
    are open cells and places them all at the best assignment.
    """
    NV = vdeck.shape[0]
    if policy == RANDOM:
        assign[0] = below(state, n)
        return 1
    nvis = min(n, NV - vtop) if see_all else min(2, n, NV - vtop)
    for j in range(nvis):
        for o in range(n):
            gains[j, o] = village_gain(esum, opens[o], vdeck[vtop + j], p, P, fs, pf)
    if not see_all:
        best = -1e300
        for o in range(n):
            t = gains[0, o]
            if nvis > 1:
                nxt = -1e300
                for o2 in range(n):
                    if o2 != o and gains[1, o2] > nxt:
                        nxt = gains[1, o2]
                t += nxt
            if t > best:
                best = t
                assign[0] = o
        return 1
    best = -1e300
    for a in range(n):
        for b in range(n):
            if nvis > 1 and b == a:
                continue
            for c in range(n):
                if nvis > 2 and c in (a, b):
                    continue
                t = gains[0, a]
                if nvis > 1:
                    t += gains[1, b]
                if nvis > 2:
                    t += gains[2, c]
                if t > best:
                    best = t
                    assign[0] = a
                    assign[1] = b
                    assign[2] = c
                if nvis < 3:
                    break
            if nvis < 2:
                break
    return nvis


@njit(**NO_ALLOC)
def play_turn(state, p, hi, cell, P, pol, pi, pf, grid, fpos, lists, vinfo, vsum, vdeck,
              hands, decks, st, taken, offs, esum, fs, gains, opens, assign, wins3, kinds,
              heat, misc):
    """Player p plays hands[p, hi] on `cell`: new villages, scoring, draw.

    The cells a play opens are those find_openings reports when the card lands; with the
    chain rule on they are looked for again after every village placed.
    """
    code = hands[p, hi]
    n = st[ST_HAND + p] - 1
    hands[p, hi] = hands[p, n]
    st[ST_HAND + p] = n
    place_card(grid, fpos, lists, st, vsum, esum, offs, cell, code)
    kinds[code >> 8, K_PLAYED] += 1
    NV = vdeck.shape[0]
    chain = pi[PI_CHAIN]
    n_open = find_openings(grid, offs, cell, p, opens)
    first = n_open
    placed = 0
    unfilled = 0
    while n_open > 0:
        vtop = st[ST_VTOP]
        if vtop >= NV:
            unfilled = n_open
            break
        k = choose_opening(state, pol[p], pi[PI_SEE_ALL], esum, opens, n_open, vdeck, vtop, p,
                           P, fs, pf, gains, assign)
        for j in range(k):
            place_village(grid, fpos, lists, st, vinfo, vsum, offs, opens[assign[j]],
                          vdeck[vtop + j])
        st[ST_VTOP] = vtop + k
        placed += k
        if chain:
            n_open = find_openings(grid, offs, cell, p, opens)
        else:
            m = 0
            for j in range(n_open):
                if grid[opens[j]] == 0:
                    opens[m] = opens[j]
                    m += 1
            n_open = m
    if placed + unfilled > 0:
        misc[M_OPEN1 + placed + unfilled - 1] += 1
        misc[M_PLACED] += placed
        misc[M_UNFILLED] += unfilled
        if placed + unfilled > first:
            misc[M_CHAINED] += placed + unfilled - first
    R = pi[PI_R]
    W = 2 * R + 1
    for d in range(4):
        h = grid[cell + offs[d]]
        if h == 0:
            continue
        vi = h - 1
        if vinfo[V_SCORED, vi] == 0 and vsum[vi, VS_FILL] == 4:
            score_village(grid, offs, lists, vinfo, vsum, vi, cell + offs[d], P, taken, st,
                          pi[PI_TIE_DISCARD], wins3, kinds, heat, misc, R, W,
                          pi[PI_HEAT_R])
    if st[ST_DECK + p] > 0:
        st[ST_DECK + p] -= 1
        hands[p, st[ST_HAND + p]] = decks[p, st[ST_DECK + p]]
        st[ST_HAND + p] += 1
    st[ST_TURNS] += 1


@njit(**NO_ALLOC)
def decide_winner(taken, P, dom, ndom):
    """Winner by domination: (outcome, winner or -1, shared mask, how decided).

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
            return O_OUTRIGHT, q, 1 << q, W_TWO_SHAPES
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
        return O_NONE, -1, 0, W_NONE
    if mask & (mask - 1):
        return O_SHARED, -1, mask, W_SHARED
    w = 0
    while (mask >> w) & 1 == 0:
        w += 1
    return O_OUTRIGHT, w, mask, W_TIEBREAK if n_best_score > 1 else W_OTHER_SHAPES


@njit(**NO_ALLOC)
def play_game(states, lane, P, pol, setc, vmasks, pi, pf, grid, fpos, lists, vinfo, vsum, vdeck,
              hands, decks, st, taken, offs, esum, fs, vtab, xkey, xtab, kpos, kadd, kscore,
              gains, opens, assign, wins3, dom, ndom, wins, shared, outcome, winby, elim, domn,
              markers, ends, lengths, vhist, kinds, heat, misc, row):
    """Play one whole game on a cleared board; add its statistics. Seat p's deck and random
    choices come from stream states[lane[p]], the village deck from states[MAX_P].

    Returns the outcome (O_OUTRIGHT, O_SHARED or O_NONE); the board is left as it ended.
    """
    NC = setc.shape[0]
    NV = vmasks.shape[0]
    hand_size = pi[PI_HAND]
    supply = pi[PI_SUPPLY]
    R = pi[PI_R]
    W = 2 * R + 1
    for p in range(P):
        for i in range(NC):
            decks[p, i] = setc[i] | p
        shuffle(states[lane[p]], decks[p], NC)
        st[ST_DECK + p] = NC
        st[ST_HAND + p] = 0
        while st[ST_HAND + p] < hand_size and st[ST_DECK + p] > 0:
            st[ST_DECK + p] -= 1
            hands[p, st[ST_HAND + p]] = decks[p, st[ST_DECK + p]]
            st[ST_HAND + p] += 1
        for s in range(N_SHAPES):
            taken[p, s] = 0
    for i in range(NV):
        vdeck[i] = vmasks[i]
    shuffle(states[MAX_P], vdeck, NV)
    for s in range(N_SHAPES):
        st[ST_REM + s] = supply
    st[ST_TURNS] = 0
    st[ST_SCORED] = 0
    place_village(grid, fpos, lists, st, vinfo, vsum, offs, R * W + R, vdeck[0])
    st[ST_VTOP] = 1
    subst_before = misc[M_SUBST]
    cur = np.int64(0)  # not a literal: one compiled version of the callees
    end = 0
    while True:
        if st[ST_HAND + cur] > 0:
            if st[ST_NF] == 0:
                end = E_BLOCKED
                break
            if pol[cur] == GREEDY:
                shape_weights(taken, st, cur, P, supply, pf, fs)
                hi, cell = greedy_move(grid, offs, lists, st, vinfo, vsum, vtab, xkey, xtab,
                                       vdeck, hands, cur, P, pf, fs, esum, kpos, kadd, kscore)
            else:
                hi = below(states[lane[cur]], st[ST_HAND + cur])
                cell = np.int64(lists[L_FRONT, below(states[lane[cur]], st[ST_NF])])
            play_turn(states[lane[cur]], cur, hi, cell, P, pol, pi, pf, grid, fpos, lists,
                      vinfo, vsum, vdeck, hands, decks, st, taken, offs, esum, fs, gains,
                      opens, assign, wins3, kinds, heat, misc)
            for s in range(N_SHAPES):
                if st[ST_REM + s] <= 0:
                    end |= E_MARKERS
            if st[ST_VTOP] >= NV:
                end |= E_VILLAGES
            left = 0
            for q in range(P):
                left += st[ST_HAND + q]
            if left == 0:
                end |= E_CARDS
            if end:
                break
        else:
            left = 0
            for q in range(P):
                left += st[ST_HAND + q]
            if left == 0:
                end = E_CARDS
                break
        cur = (cur + 1) % P

    # --- winner and statistics ---
    res, winner, smask, how = decide_winner(taken, P, dom, ndom)
    outcome[res] += 1
    winby[how] += 1
    if res == O_OUTRIGHT:
        wins[winner] += 1
    elif res == O_SHARED:
        for q in range(P):
            if (smask >> q) & 1:
                shared[q] += 1
    for q in range(P):
        if ndom[q] == 0:
            elim[q] += 1
        domn[q, ndom[q]] += 1
        for s in range(N_SHAPES):
            x = taken[q, s]
            markers[q, s, 0] += x
            markers[q, s, 1] += x * x
    ends[end] += 1
    turns = st[ST_TURNS]
    lengths[min(turns, N_LEN - 1)] += 1
    vhist[0, min(st[ST_NV], N_VH - 1)] += 1
    vhist[1, min(st[ST_SCORED], N_VH - 1)] += 1
    misc[M_TURNS] += turns
    if misc[M_SUBST] > subst_before:
        misc[M_SUBST_GAMES] += 1
    if res == O_OUTRIGHT:
        for i in range(st[ST_NFILL]):
            c = lists[L_FILL, i]
            if (c % W + c // W) % 2 == 0:
                continue  # a village cell (x + y even)
            code = grid[c] - 1
            if code & 3 == winner:
                kinds[code >> 8, K_PLAY_WON] += 1
    row[R_WINNER] = winner
    row[R_SHARED_MASK] = smask
    row[R_TURNS] = turns
    row[R_END] = end
    row[R_PLACED] = st[ST_NV]
    row[R_SCORED] = st[ST_SCORED]
    for q in range(MAX_P):
        for s in range(N_SHAPES):
            row[R_MARKERS + q * 3 + s] = taken[q, s] if q < P else -1
        row[R_DOMINATED + q] = ndom[q] if q < P else -1
    return res


@njit(**JIT)
def new_buffers(P, NC, NV, R, hand_size):
    """Scratch arrays for a chunk: (grid, fpos, lists, vinfo, vsum, vdeck, hands, decks, st,
    taken, offs, esum, fs, vtab, xkey, xtab, kpos, kadd, kscore, gains, opens, assign, wins3,
    dom, ndom)."""
    W = 2 * R + 1
    L = max(4 * NV + 8, P * NC + NV + 8)
    K = hand_size + 1
    offs = np.zeros(4, np.int64)
    offs[0] = 1
    offs[1] = -1
    offs[2] = W
    offs[3] = -W
    return (np.zeros(W * W, np.int32), np.full(W * W, -1, np.int32),  # grid, fpos
            np.zeros((4, L), np.int32), np.zeros((2, NV), np.int32),  # lists, vinfo
            np.zeros((NV, N_VS), np.int64), np.zeros(NV, np.int64),  # vsum, vdeck
            np.zeros((MAX_P, hand_size + 1), np.int64), np.zeros((MAX_P, NC), np.int64),
            np.zeros(N_ST, np.int64), np.zeros((MAX_P, N_SHAPES), np.int64), offs,
            np.zeros((W * W, N_ES), np.int8), np.zeros(N_SHAPES),  # esum, fs
            np.zeros((NV + 1, K)), np.zeros(W * W, np.int64), np.zeros((6 * L, K)),
            np.zeros(K, np.int64), np.zeros((K, 4), np.int64), np.zeros(K),  # kpos..kscore
            np.zeros((4, 4)), np.zeros(8, np.int64), np.zeros(4, np.int64),  # gains..assign
            np.zeros(N_SHAPES, np.int64), np.zeros(N_SHAPES, np.int64),  # wins3, dom
            np.zeros(MAX_P, np.int64))


@njit(**JIT)
def play_chunk(seed, first, count, P, pol, setc, vmasks, pi, pf, wins, shared, outcome, winby,
               elim, domn, markers, ends, lengths, vhist, kinds, heat, misc, rows, rotation):
    """Play games first .. first+count-1 of the run keyed by `seed`; add their statistics.

    `pol` lists the players' policies; in `rotation` r player j (its policy and its own
    stream) sits at seat (j + r) % P. `rows` is (count, N_ROW) or (0, N_ROW).
    """
    (grid, fpos, lists, vinfo, vsum, vdeck, hands, decks, st, taken, offs, esum, fs, vtab,
     xkey, xtab, kpos, kadd, kscore, gains, opens, assign, wins3, dom, ndom) = new_buffers(
        P, setc.shape[0], vmasks.shape[0], pi[PI_R], pi[PI_HAND])
    states = new_states(0, MAX_P + 1)
    seat_pol, lane = rotation_lanes(P, pol, rotation, MAX_P)
    row = np.zeros(N_ROW, np.int64)
    keep = rows.shape[0] > 0
    for g in range(count):
        seed_lanes(states, seed, first + g)
        play_game(states, lane, P, seat_pol, setc, vmasks, pi, pf, grid, fpos, lists, vinfo,
                  vsum, vdeck, hands, decks, st, taken, offs, esum, fs, vtab, xkey, xtab, kpos,
                  kadd, kscore, gains, opens, assign, wins3, dom, ndom, wins, shared, outcome,
                  winby, elim, domn, markers, ends, lengths, vhist, kinds, heat, misc, row)
        clear_board(grid, fpos, lists, st, offs, esum)
        if keep:
            rows[g, :] = row


@njit(**JIT)
def play_single(seed, index, P, pol, setc, vmasks, pi, pf, wins, shared, outcome, winby, elim,
                domn, markers, ends, lengths, vhist, kinds, heat, misc):
    """Play one game and return its final state, for checking invariants:
    (outcome, grid, lists, vinfo, vsum, vdeck, hands, decks, st, taken, row)."""
    (grid, fpos, lists, vinfo, vsum, vdeck, hands, decks, st, taken, offs, esum, fs, vtab,
     xkey, xtab, kpos, kadd, kscore, gains, opens, assign, wins3, dom, ndom) = new_buffers(
        P, setc.shape[0], vmasks.shape[0], pi[PI_R], pi[PI_HAND])
    states = new_states(0, MAX_P + 1)
    seed_lanes(states, seed, index)
    seat_pol, lane = rotation_lanes(P, pol, 0, MAX_P)
    row = np.zeros(N_ROW, np.int64)
    res = play_game(states, lane, P, seat_pol, setc, vmasks, pi, pf, grid, fpos, lists, vinfo, vsum,
                    vdeck, hands, decks, st, taken, offs, esum, fs, vtab, xkey, xtab, kpos,
                    kadd, kscore, gains, opens, assign, wins3, dom, ndom, wins, shared,
                    outcome, winby, elim, domn, markers, ends, lengths, vhist, kinds, heat,
                    misc, row)
    return res, grid, lists, vinfo, vsum, vdeck, hands, decks, st, taken, row
