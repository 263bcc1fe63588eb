"""Samurai: The Card Game players: each chooses one of the legal actions of the seat to act
(see rules.py for the encoding), reading only its own hand and what is public: the board,
the villages not scored (with the influence kept next to them and next to empty village
cells), markers taken and left, the visible village cards and the deck's symbol
frequencies (content, public). A player never chooses a card whose symbol its row of
`forbid` bans, unless every card in its hand is banned (the game has no pass).

- random: a uniformly chosen card (hand position, from its own stream) on a uniformly
  chosen legal cell; each village on a uniformly chosen open cell.
- greedy: the card and cell worth most (markers won now, capped lead gained on open and
  newly created villages, shapes weighted by scarcity and domination); villages where its
  influence gains most, using every village it can see.
"""

import numpy as np

from kernels.jit import kernel
from kernels.rng import below
from kernels.samurai_card_game.rules import (
    CTZ4,
    N_SHAPES,
    PLAY,
    SAMURAI,
    VS_FILL,
    card_action,
    opening_sides,
    place_action,
    top_village,
    visible_villages,
)

# Policies
RANDOM = 0
GREEDY = 1

# The greedy player's weights (State.weights)
PF_INFL = 0  # weight of influence (lead) on a village that is not scored yet
PF_CAP = 1  # lead counted up to this many points
PF_KEEP = 2  # tie-break: prefer playing weak cards
PF_SCARCE = 3  # weight of a shape's spent supply
PF_DOM = 4  # bonus for a marker that moves the player to (or keeps) domination
PF_FREQ = 5  # 3 values: share of village cards that show each symbol
N_PF = 8


# --- random -------------------------------------------------------------------------------

@kernel(inline=True)
def random_play(st, p, ban):
    """A uniformly chosen card among those not banned (all if every one is) on a uniformly
    chosen legal cell: the hand position first, then the cell, from p's own stream."""
    state = st.rng[st.seat[p].lane]
    hn = st.seat[p].hand_n
    ok = np.int64(0)
    for i in range(hn):
        ok += not ban[(st.hands[p, i] >> 2) & 3]
    if ok == 0 or ok == hn:
        hi = below(state, hn)
    else:
        k = below(state, ok)
        hi = 0
        for i in range(hn):
            if not ban[(st.hands[p, i] >> 2) & 3]:
                if k == 0:
                    hi = i
                    break
                k -= 1
    cell = np.int64(st.front[below(state, st.cnt[0].nf)])
    return card_action(hi, cell)


@kernel(inline=True)
def random_place(st, p):
    """The top village on a uniformly chosen open cell (one village at a time)."""
    i = below(st.rng[st.seat[p].lane], st.cnt[0].n_open)
    return place_action(st.opens[i], np.int64(-1))


# --- greedy: values -----------------------------------------------------------------------

@kernel(inline=True)
def lead_value(m, cap):
    """A lead of m influence points, capped, as a share of one marker (-1..1)."""
    if m > cap:
        return 1.0
    if m < -cap:
        return -1.0
    return m / cap


@kernel(inline=True)
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


@kernel(inline=True)
def lead_now(vsum, vi, p, P, s):
    """p's influence on shape s of village vi minus the best rival's."""
    # written out for the 4 seats: a loop over players gets vectorized into slow gathers
    riv = 0
    if p != 0:
        riv = max(riv, vsum[vi, s])
    if P > 1 and p != 1:
        riv = max(riv, vsum[vi, 3 + s])
    if P > 2 and p != 2:
        riv = max(riv, vsum[vi, 6 + s])
    if P > 3 and p != 3:
        riv = max(riv, vsum[vi, 9 + s])
    return vsum[vi, p * 3 + s] - riv


@kernel(inline=True)
def shape_weights(st, p):
    """The value of one marker of each shape for player p (into st.fs): 1, plus the share
    of the shape's supply spent, plus a bonus when it decides domination."""
    pf = st.weights
    supply = st.cfg[0].supply
    for s in range(N_SHAPES):
        own = st.taken[p, s]
        riv = 0
        for q in range(st.cfg[0].players):
            if q != p and st.taken[q, s] > riv:
                riv = st.taken[q, s]
        left = max(st.rem[s], 0)
        spent = (supply - left) / supply if supply > 0 else 1.0
        bonus = 0.0
        if own == riv:
            bonus = pf[PF_DOM]
        elif own + 1 == riv or own == riv + 1:
            bonus = 0.5 * pf[PF_DOM]
        st.fs[s] = 1.0 + pf[PF_SCARCE] * spent + bonus


@kernel
def village_gain(esum, x, mask, p, P, fs, pf):
    """The value for player p of a village showing `mask` placed at empty cell x."""
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


@kernel(inline=True)
def card_values(out, row, nk, kadd, full, inv_cap, ha, hb, hc, wa, wb, wc, ma, mb, mc, la, lb,
                lc):
    """The value of each distinct card in hand (kadd) played next to a village where the
    player leads by ma, mb, mc on the three shapes (counted where ha, hb, hc, with weights
    wa, wb, wc), into out[row, :nk]: the weight if the card surrounds the village (`full`)
    and the player then leads, else the weight times the capped lead minus la, lb, lc (the
    current lead's value)."""
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


@kernel(inline=True)
def x_value(esum, x, p, P, fs, pf, top, unseen, nk, kadd, xtab, row):
    """The value, for each distinct card in hand, of a new village at empty cell x next to
    the card (into xtab[row, :nk]): the visible top village (`top`'s symbols), or with
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
    own, riv = own_and_rival(esum, x, p, P, np.int64(0))
    ma = own - riv
    own, riv = own_and_rival(esum, x, p, P, np.int64(1))
    mb = own - riv
    own, riv = own_and_rival(esum, x, p, P, np.int64(2))
    mc = own - riv
    card_values(xtab, row, nk, kadd, full, inv_cap, ha, hb, hc, wa, wb, wc, ma, mb, mc,
                0.0, 0.0, 0.0)


@kernel(inline=True)
def distinct_cards(st, p, ban):
    """The distinct cards (symbol and influence) p may play: hand position (st.kpos),
    influence added per shape and weight (st.kadd); returns how many. Banned cards are
    left out unless every card is banned."""
    hands = st.hands
    kpos = st.kpos
    hn = st.seat[p].hand_n
    allowed = False
    for i in range(hn):
        if not ban[(hands[p, i] >> 2) & 3]:
            allowed = True
    nk = np.int64(0)
    for i in range(hn):
        if allowed and ban[(hands[p, i] >> 2) & 3]:
            continue
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
            st.kadd[k, s] = va * ((sy == s) | (sy == SAMURAI))
        st.kadd[k, 3] = va + 2 * (sy == SAMURAI)
    return nk


@kernel(inline=True)
def open_village_values(st, p, nk):
    """For every village not scored yet, the value of each distinct card played next to it
    (into st.vtab, one row per village)."""
    P = st.cfg[0].players
    pf = st.weights
    fs = st.fs
    vsum = st.vsum
    infl = pf[PF_INFL]
    inv_cap = 1.0 / pf[PF_CAP]
    for i in range(st.cnt[0].nopen):
        vi = np.int64(st.openv[i])
        mask = np.int64(st.vill[vi].mask)
        full = vsum[vi, VS_FILL] == 3
        # per shape: p's lead now (m), its weight (0: not on the village), lead value (l)
        ma = lead_now(vsum, vi, p, P, np.int64(0))
        mb = lead_now(vsum, vi, p, P, np.int64(1))
        mc = lead_now(vsum, vi, p, P, np.int64(2))
        ha = (mask & 1) != 0
        hb = (mask & 2) != 0
        hc = (mask & 4) != 0
        wa = fs[0] if full else fs[0] * infl
        wb = fs[1] if full else fs[1] * infl
        wc = fs[2] if full else fs[2] * infl
        la = max(-1.0, min(1.0, ma * inv_cap))
        lb = max(-1.0, min(1.0, mb * inv_cap))
        lc = max(-1.0, min(1.0, mc * inv_cap))
        card_values(st.vtab, vi, nk, st.kadd, full, inv_cap, ha, hb, hc, wa, wb, wc, ma, mb,
                    mc, la, lb, lc)


# --- greedy: choices ----------------------------------------------------------------------

@kernel(inline=True)
def greedy_move(st, p, ban):
    """Greedy's (hand position, cell): markers won now, plus lead gained on open villages
    and on the villages the play creates, shapes weighted by st.fs; weakest card on ties.

    Each open village's value, and each empty village cell's value as a new village, for
    every distinct card in hand is worked out once per move (vtab, xtab) and shared by the
    cells around it. Indices known to be non-negative are unsigned (no wraparound test)
    and per-card sums stay in registers.
    """
    grid = st.grid
    offs = st.offs
    front = st.front
    vtab = st.vtab
    xkey = st.xkey
    xtab = st.xtab
    kpos = st.kpos
    kadd = st.kadd
    kscore = st.kscore
    esum = st.esum
    pf = st.weights
    fs = st.fs
    P = st.cfg[0].players
    NV = st.vdeck.shape[0]
    vtop = st.cnt[0].vtop
    top = top_village(st, np.int64(0))
    keep = pf[PF_KEEP]
    cnt = st.cnt[0]
    cnt.stamp += 1
    stamp = cnt.stamp
    nk = distinct_cards(st, p, ban)
    open_village_values(st, p, nk)
    best = -1e300
    bi = 0
    bc = front[0]
    nx = np.int64(0)  # not a literal: one compiled x_value
    zrow = np.uint64(vtab.shape[0] - 1)  # the spare zero row
    for k in range(nk):
        kscore[k] = keep * kadd[k, 3]
    o0 = offs[0]
    o1 = offs[1]
    o2 = offs[2]
    o3 = offs[3]
    for i in range(st.cnt[0].nf):
        c = np.int64(front[i])
        # what is next to c on each side (a village or nothing) and its row of vtab
        h0 = grid[np.uint64(c + o0)]
        h1 = grid[np.uint64(c + o1)]
        h2 = grid[np.uint64(c + o2)]
        h3 = grid[np.uint64(c + o3)]
        r0 = np.uint64(h0 - 1) if h0 != 0 else zrow
        r1 = np.uint64(h1 - 1) if h1 != 0 else zrow
        r2 = np.uint64(h2 - 1) if h2 != 0 else zrow
        r3 = np.uint64(h3 - 1) if h3 != 0 else zrow
        # the sides the card would open (visited lowest first) and their rows of xtab
        nop = np.int64(0)
        x0 = zrow
        x1 = zrow
        x2 = zrow
        fm = opening_sides(grid, c, o0, o1, o2, o3, p)
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
                x_value(esum, np.uint64(x), p, P, fs, pf, top, unseen, nk, kadd, xtab, nx)
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


@kernel(inline=True)
def greedy_place(st, p):
    """Where greedy puts village cards: with see-next the top village on the cell
    maximising its gain plus the next village's best gain on the cells left; with see-all
    every visible village (one per open cell) at the best assignment."""
    shape_weights(st, p)
    P = st.cfg[0].players
    n = st.cnt[0].n_open
    opens = st.opens
    gains = st.gains
    assign = st.assign
    vtop = st.cnt[0].vtop
    # at most two cells are ever open at once (a card touches a village on one side)
    nvis = min(visible_villages(st), n, 2)
    for j in range(nvis):
        for o in range(n):
            gains[j, o] = village_gain(st.esum, opens[o], st.vdeck[vtop + j], p, P, st.fs,
                                       st.weights)
    best = -1e300
    if not st.cfg[0].see_all:
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
        return place_action(opens[assign[0]], np.int64(-1))
    for a in range(n):
        for b in range(n):
            if nvis > 1 and b == a:
                continue
            t = gains[0, a]
            if nvis > 1:
                t += gains[1, b]
            if t > best:
                best = t
                assign[0] = a
                assign[1] = b
            if nvis < 2:
                break
    if nvis > 1:
        return place_action(opens[assign[0]], opens[assign[1]])
    return place_action(opens[assign[0]], np.int64(-1))


@kernel
def choose(st, forbid):
    """The action the seat to act chooses under its policy; forbid[seat, option] bans
    playing cards of that symbol (rules.OPTIONS)."""
    p = st.cnt[0].cur
    ban = forbid[p]
    if st.cnt[0].phase == PLAY:
        if st.seat[p].pol == GREEDY:
            shape_weights(st, p)
            hi, cell = greedy_move(st, p, ban)
            return card_action(np.int64(hi), cell)
        return random_play(st, p, ban)
    if st.seat[p].pol == GREEDY:
        return greedy_place(st, p)
    return random_place(st, p)


# --- entries from Python (the handle, the tests) ------------------------------------------

@kernel
def py_choose(st, forbid):
    """choose, from Python."""
    return choose(st, forbid)


@kernel
def py_greedy_move(st, p, ban):
    """greedy_move (with the shape weights in st.fs as they are), from Python."""
    return greedy_move(st, p, ban)
