"""Samurai & Katana players: each policy chooses one of the legal actions (rules.py).

A player reads only what its clan could know: the board (owners, samurai, castles), every
clan's Honor, koku, hand size, supply and offices, the odds table, its own hand; never a
rival's cards or the order of the deck. Random choices come from the seat's own stream
lane. `forbid[seat, option]` (options: rules.OPTIONS) lists what a seat never does;
passing, letting a card act, buying no castle, fighting without a special are never
forbidden.

random: at each step of its activation a uniform kind of action among those possible
  (pass, move, card, sell), then uniformly within the kind; buys a uniform number of
  samurai and a castle half the time it can, placed on uniformly drawn territories;
  uniform combat choices; uses its reaction cards half the time; discards each card half
  the time in phase 4; as Emperor names clans at random.
greedy: see POLICIES in simcli/games/samurai_katana/game.py.
"""

import numpy as np

from kernels.jit import kernel
from kernels.katana_combat import (
    CC_AMOUNT,
    CC_EFFECT,
    CC_KIND,
    CC_VALUE,
    E_HONOR,
    E_INSULT,
    E_JUSTICE,
    E_KOKU,
    E_NINJA,
    E_UPRISING,
    E_WAKO,
    K_WARRIOR,
    MAX_SIZE,
)
from kernels.katana_combat import (
    choose as choose_cards,
)
from kernels.rng import below
from kernels.samurai_katana import rules as R
from kernels.samurai_katana.rules import (
    ACT,
    ATT_CARDS,
    BT_CASTLE,
    BT_FILLED,
    BT_K,
    BT_TO,
    CANCEL,
    CASTLE,
    CASTLE_BUY,
    CX_CARD,
    CX_TARGET,
    DEF_CARDS,
    DISCARD,
    G_SHOGUN,
    JUSTICE,
    NO_ONE,
    NONE,
    ORDER,
    OWNER,
    PASS,
    PF_THRESHOLD,
    PI_CASTLE_COST,
    PI_KYOTO,
    PI_KYOTO_COST,
    PL_CASTLES,
    PL_FREE,
    PL_HAND,
    PL_HONOR,
    PL_KOKU,
    PL_SUPPLY,
    PLACE,
    RETURN,
    SAM,
    SC_DONE,
    SELL,
    TAKE_CASTLE,
    TC_CP,
    TC_MOUNT,
    TC_PROV,
    TC_SEA,
    TC_TAX,
    card_action,
    card_playable,
    cards_action,
    move_action,
    move_ok,
    n_players,
    return_target_ok,
    uprising_ok,
)

RANDOM = R.RANDOM
GREEDY = R.GREEDY
POLICY_CODES = {"random": RANDOM, "greedy": GREEDY}


# --- reading the board ---------------------------------------------------------------------

@kernel
def threat(bd, adj_start, adj, t, p):
    """Most samurai an enemy of p holds in one territory next to t (land or sea)."""
    m = 0
    for e in range(adj_start[t], adj_start[t + 1]):
        n = adj[0, e]
        o = bd[OWNER, n]
        if o >= 0 and o != p:
            m = max(m, bd[SAM, n])
    return m


@kernel
def place_score(bd, terr, adj_start, adj, t, p):
    """Greedy's wish to add a samurai in t: defend it (more for cities) or stage an attack."""
    thr = threat(bd, adj_start, adj, t, p)
    weak = False
    for e in range(adj_start[t], adj_start[t + 1]):
        n = adj[0, e]
        o = bd[OWNER, n]
        if o == NO_ONE or (o != p and bd[SAM, n] <= 2 and bd[CASTLE, n] == 0):
            weak = True
    s = max(thr + 1 - bd[SAM, t], 0) * (2 + terr[t, TC_CP]) + terr[t, TC_CP]
    if weak and bd[SAM, t] < 5:
        s += 3
    return s


@kernel
def best_place(bd, terr, adj_start, adj, p, exclude):
    """Greedy's territory of p for a new or retreating samurai (-1: none)."""
    best = -1
    bs = -1
    for t in range(bd.shape[1]):
        if bd[OWNER, t] == p and t != exclude:
            s = place_score(bd, terr, adj_start, adj, t, p)
            if s > bs:
                bs = s
                best = t
    return best


@kernel
def random_own(state, bd, p, exclude, need_no_castle):
    """A uniformly drawn territory of p other than `exclude` (-1: none)."""
    n = 0
    for t in range(bd.shape[1]):
        if bd[OWNER, t] == p and t != exclude and not (need_no_castle and bd[CASTLE, t]):
            n += 1
    if n == 0:
        return -1
    r = below(state, n)
    for t in range(bd.shape[1]):
        if bd[OWNER, t] == p and t != exclude and not (need_no_castle and bd[CASTLE, t]):
            if r == 0:
                return t
            r -= 1
    return -1


@kernel
def tvalue(bd, pcount, terr, prov, pi, t, p):
    """Greedy's value of gaining territory t: taxes, clan points, progress to its province
    (its Honor when t completes it), Kyoto."""
    pr = terr[t, TC_PROV]
    v = terr[t, TC_TAX] + 2 * terr[t, TC_CP] + pcount[p, pr]
    if pcount[p, pr] + 1 == prov[pr, R.PC_SIZE]:
        v += 2 * prov[pr, R.PC_HONOR]
    if t == pi[PI_KYOTO]:
        v += 2
    return v


@kernel
def top_rival(pl, P, p, col, floor):
    """The first other clan with the most of pl[:, col], if above `floor`; else -1."""
    best = floor
    target = -1
    for q in range(P):
        if q != p and pl[q, col] > best:
            best = pl[q, col]
            target = q
    return target


# --- the activation ------------------------------------------------------------------------

@kernel
def greedy_card(p, bd, pl, hand, terr, adj_start, adj, pi, cards, forbid):
    """Greedy's card to play now, if any: (hand position, target) or (-1, -1). Harvest and
    culture for itself, Wako on the richest, insults on the leader, a Ninja on the fullest
    hand, an uprising that clears a territory next to its army."""
    P = n_players(pl)
    for i in range(pl[p, PL_HAND]):
        c = hand[p, i]
        eff = cards[c, CC_EFFECT]
        if not card_playable(p, c, bd, pl, pi, cards) or forbid[p, eff - 1]:
            continue
        target = -1
        if eff == E_KOKU or eff == E_HONOR:  # noqa: SIM109
            target = p
        elif eff == E_WAKO:
            target = top_rival(pl, P, p, PL_KOKU, 1)
        elif eff == E_INSULT:
            target = top_rival(pl, P, p, PL_HONOR, 0)
        elif eff == E_NINJA:
            target = top_rival(pl, P, p, PL_HAND, 1)
        elif eff == E_UPRISING:
            amount = cards[c, CC_AMOUNT]
            best = 2
            for t in range(bd.shape[1]):
                if not uprising_ok(bd, pl, pi, t, p):
                    continue
                removed = bd[SAM, t] if amount == 0 else min(amount, bd[SAM, t])
                score = removed
                if removed == bd[SAM, t]:
                    near = 0
                    for e in range(adj_start[t], adj_start[t + 1]):
                        n = adj[0, e]
                        if bd[OWNER, n] == p and bd[SAM, n] >= 2:
                            near = 1
                    score += 1 + 2 * terr[t, TC_CP] + 3 * near
                if score > best:
                    best = score
                    target = t
        if target >= 0:
            return i, target
    return -1, -1


@kernel
def greedy_move(p, bd, pl, pcount, terr, prov, adj_start, adj, pi, pf, win, shogun):
    """Greedy's best move: (link, samurai) or (-1, 0) for none. It takes free territories
    next to its armies and attacks when the odds table gives at least the threshold; each
    candidate is valued by the territory (taxes, cities, province, Kyoto), the Honor of a
    win, and a hit on the Shogun or the leader."""
    if pl[p, PL_KOKU] < 1 and not pl[p, PL_FREE]:
        return -1, 0
    threshold = pf[PF_THRESHOLD]
    leader = -1
    top = 0
    for q in range(pl.shape[0]):
        if q != p and pl[q, PL_HONOR] > top:
            top = pl[q, PL_HONOR]
            leader = q
    best = 0.0
    be = -1
    bk = 0
    can_fight = pl[p, PL_HAND] >= 2
    for s in range(bd.shape[1]):
        if bd[OWNER, s] != p or bd[SAM, s] == 0:
            continue
        movable = bd[SAM, s] - (0 if bd[CASTLE, s] else 1)
        if movable <= 0:
            continue
        for e in range(adj_start[s], adj_start[s + 1]):
            n = adj[0, e]
            o = bd[OWNER, n]
            if o == p:
                continue
            v = tvalue(bd, pcount, terr, prov, pi, n, p)
            if o == NO_ONE:
                score = float(v)
                k = 2 if terr[n, TC_CP] > 0 and movable >= 2 else 1
            else:
                if not can_fight:
                    continue
                pw = win[min(movable, MAX_SIZE), min(bd[SAM, n], MAX_SIZE), bd[CASTLE, n],
                         terr[n, TC_MOUNT]]
                if pw < threshold:
                    continue
                bonus = 2 + (o == shogun) + (o == leader)
                score = pw * (v + bonus)
                k = movable
            if score > best:
                best = score
                be = e
                bk = k
    return be, bk


@kernel
def pick_target(state, p, eff, bd, pl, pi):
    """Random's target for a card: a uniform legal one."""
    P = n_players(pl)
    target = p
    if eff == E_INSULT:
        target = below(state, P)
    elif eff == E_WAKO:
        target = (p + 1 + below(state, P - 1)) % P
    elif eff == E_NINJA:
        m = 0
        for q in range(P):
            m += q != p and pl[q, PL_HAND] > 0
        x = below(state, m)
        for q in range(P):
            if q != p and pl[q, PL_HAND] > 0:
                if x == 0:
                    target = q
                    break
                x -= 1
    elif eff == E_UPRISING:
        m = 0
        for t in range(bd.shape[1]):
            m += uprising_ok(bd, pl, pi, t, p)
        x = below(state, m)
        for t in range(bd.shape[1]):
            if uprising_ok(bd, pl, pi, t, p):
                if x == 0:
                    target = t
                    break
                x -= 1
    return target


@kernel
def random_move(state, p, bd, pl, adj_start, adj, n_moves):
    """Random's move: (link, samurai), the pick-th legal (source, link) pair drawn
    uniformly, a uniform number of its samurai."""
    pick = below(state, n_moves)
    for s in range(bd.shape[1]):
        if bd[OWNER, s] != p or bd[SAM, s] == 0:
            continue
        for e in range(adj_start[s], adj_start[s + 1]):
            if move_ok(bd, pl, p, adj[0, e]):
                if pick == 0:
                    return e, 1 + below(state, bd[SAM, s])
                pick -= 1
    return -1, 0


@kernel
def random_act(st, p, state, forbid):
    """One random action: a kind drawn uniformly among those possible (pass, move, card,
    sell 2 Honor when out of koku), then an option uniformly within it."""
    bd = st.bd
    pl = st.pl
    adj_start = st.adj_start
    adj = st.adj
    n_moves = 0
    for s in range(bd.shape[1]):
        if bd[OWNER, s] != p or bd[SAM, s] == 0:
            continue
        for e in range(adj_start[s], adj_start[s + 1]):
            if move_ok(bd, pl, p, adj[0, e]):
                n_moves += 1
    n_cards = 0
    for i in range(pl[p, PL_HAND]):
        c = st.hand[p, i]
        n_cards += card_playable(p, c, bd, pl, st.pi, st.cards) and not forbid[
            p, st.cards[c, CC_EFFECT] - 1]
    can_sell = pl[p, PL_HONOR] >= 2 and pl[p, PL_KOKU] == 0 and not forbid[p, R.OPT_SELL]
    r = below(state, 1 + (n_moves > 0) + (n_cards > 0) + can_sell)
    if r == 0:
        return PASS
    r -= 1
    if n_moves > 0:
        if r == 0:
            e, k = random_move(state, p, bd, pl, adj_start, adj, n_moves)
            return move_action(st, e, k)
        r -= 1
    if n_cards > 0:
        if r == 0:
            pick = below(state, n_cards)
            for i in range(pl[p, PL_HAND]):
                c = st.hand[p, i]
                eff = st.cards[c, CC_EFFECT]
                if not card_playable(p, c, bd, pl, st.pi, st.cards) or forbid[p, eff - 1]:
                    continue
                if pick > 0:
                    pick -= 1
                    continue
                return card_action(st, i, pick_target(state, p, eff, bd, pl, st.pi))
        r -= 1
    return SELL


@kernel
def greedy_act(st, p, forbid):
    """Greedy's action: a useful card first, then its best move, else pass."""
    i, target = greedy_card(p, st.bd, st.pl, st.hand, st.terr, st.adj_start, st.adj, st.pi,
                            st.cards, forbid)
    if i >= 0:
        return card_action(st, i, target)
    e, k = greedy_move(p, st.bd, st.pl, st.pcount, st.terr, st.prov, st.adj_start, st.adj,
                       st.pi, st.pf, st.win, st.gs[G_SHOGUN])
    if e >= 0:
        return move_action(st, e, k)
    return PASS


# --- the other decisions ----------------------------------------------------------------------

@kernel
def choose_order(st, p, state, greedy):
    """The Emperor names the next clan: greedy names the rival with most Honor (the leader
    plays first, with least information), and itself last; random any at random."""
    P = n_players(st.pl)
    done = st.scr[SC_DONE]
    if greedy:
        best = -1
        bh = -1
        for i in range(P):
            q = (p + 1 + i) % P
            if done[q] == 0 and q != p and st.pl[q, PL_HONOR] > bh:
                bh = st.pl[q, PL_HONOR]
                best = q
        return np.int64(best if best >= 0 else p)
    left = 0
    for q in range(P):
        left += done[q] == 0
    r = below(state, left)
    for q in range(P):
        if done[q] == 0:
            if r == 0:
                return np.int64(q)
            r -= 1
    return NONE


@kernel
def choose_castle(st, p, state, greedy, forbid):
    """Where to build a castle (1 + territory), or 0: greedy on a city or sea hub when it
    keeps 3 koku for moves; random half the time on a uniform own territory it can pay."""
    bd = st.bd
    pi = st.pi
    kyoto = pi[PI_KYOTO]
    t = -1
    if greedy:
        best = 3
        for u in range(bd.shape[1]):
            if bd[OWNER, u] != p or bd[CASTLE, u]:
                continue
            cost = pi[PI_KYOTO_COST] if u == kyoto else pi[PI_CASTLE_COST]
            if st.pl[p, PL_KOKU] < cost + 3:
                continue
            score = 3 * st.terr[u, TC_CP] + st.terr[u, TC_SEA] + threat(bd, st.adj_start,
                                                                        st.adj, u, p)
            if score > best:
                best = score
                t = u
    elif below(state, np.int64(2)) == 1:
        u = random_own(state, bd, p, NONE, np.bool_(True))
        if u >= 0:
            cost = pi[PI_KYOTO_COST] if u == kyoto else pi[PI_CASTLE_COST]
            if st.pl[p, PL_KOKU] >= cost:
                t = u
    if t < 0 or forbid[p, R.OPT_CASTLE]:
        return np.int64(0)
    return np.int64(1 + t)


@kernel
def choose_take_castle(st, p, state, greedy):
    """A taken castle: greedy replaces it from its reserve (else destroys it); random
    destroys or replaces it, each half the time, or with none in reserve destroys it or
    moves one of its own castles there, each half the time."""
    bd = st.bd
    n = st.bt[BT_TO]
    if greedy:
        return np.int64(st.pl[p, PL_CASTLES] > 0)
    if st.pl[p, PL_CASTLES] > 0:
        return np.int64(below(state, np.int64(2)))
    mine = 0
    for t in range(bd.shape[1]):
        if bd[OWNER, t] == p and bd[CASTLE, t] and t != n:
            mine += 1
    if mine == 0 or below(state, np.int64(2)) == 0:
        return np.int64(0)
    r = below(state, mine)
    for t in range(bd.shape[1]):
        if bd[OWNER, t] == p and bd[CASTLE, t] and t != n:
            if r == 0:
                return np.int64(2 + t)
            r -= 1
    return np.int64(0)


@kernel
def choose_discard(st, p, state, greedy):
    """Phase 4 discards (a mask of hand positions): greedy its 1-value warriors; random
    each card half the time, examined in the order the rules discard them."""
    h = st.pl[p, PL_HAND]
    mask = np.int64(0)
    if greedy:
        for j in range(min(h, 63)):
            c = st.hand[p, j]
            if st.cards[c, CC_KIND] == K_WARRIOR and st.cards[c, CC_VALUE] <= 1:
                mask |= np.int64(1) << j
        return mask
    orig = st.scr[R.SC_A]
    for j in range(h):
        orig[j] = j
    j = 0
    while j < h:
        if below(state, np.int64(2)) == 1:
            if orig[j] < 63:
                mask |= np.int64(1) << orig[j]
            h -= 1
            orig[j] = orig[h]
        else:
            j += 1
    return mask


@kernel
def choose_battle_cards(st, p, state, pol, defending, forbid):
    """Combat cards (katana_combat.choose): greedy its strongest choice, random a uniform
    legal one; a forbidden special is left out."""
    bt = st.bt
    castle = defending and bt[BT_CASTLE] == 1
    can_special = not (defending and bt[BT_FILLED] == 1)
    al = R.allied(st, p)
    n = st.pl[p, PL_HAND]
    i, j, k, _pts, _sw = choose_cards(pol, state, st.hand[p], n, st.cards, castle, al,
                                      can_special)
    if k >= 0 and forbid[p, st.cards[st.hand[p, k], CC_EFFECT] - 1]:
        i, j, k, _pts, _sw = choose_cards(pol, state, st.hand[p], n, st.cards, castle, al,
                                          np.bool_(False))
    return cards_action(st, i, j, k)


@kernel
def leads(pl, a, p):
    """Clan a has more Honor than p and no less than any clan (public figures)."""
    if pl[a, PL_HONOR] <= pl[p, PL_HONOR]:
        return False
    top = pl[a, PL_HONOR]
    for q in range(pl.shape[0]):
        top = max(top, pl[q, PL_HONOR])
    return top == pl[a, PL_HONOR]


@kernel
def choose_reaction(st, p, state, greedy, forbid):
    """Answers with a card playable at any time. Greedy: Shogunal Justice against a card
    aimed at it when it is worth it; Tsunami, Scorched Earth or Justice (in that order)
    against an attack on it when the attacker's odds are 1/2 or more; against a card or an
    attack aimed at another clan only when the active clan leads the Honor; never against a
    move into free or own land. Random: half the time, a uniform one of its answers."""
    ph = st.phase[0]
    a_clan = st.cx[R.CX_ACTIVE]
    v = st.cx[R.CX_VICTIM]
    if ph == JUSTICE:
        if forbid[p, E_JUSTICE - 1]:
            return np.int64(0)
        if greedy:
            if v != p:
                return np.int64(leads(st.pl, a_clan, p))
            c = st.cx[CX_CARD]
            eff = st.cards[c, CC_EFFECT]
            t = st.cx[CX_TARGET]
            worth = True
            if eff == E_WAKO:
                worth = st.pl[p, PL_KOKU] >= 2
            elif eff == E_UPRISING:
                worth = st.bd[SAM, t] >= 2 or st.terr[t, TC_CP] > 0
            return np.int64(worth)
        return np.int64(below(state, np.int64(2)) != 0)
    m = R.move_reactions(st, p)
    for b in range(3):
        if m & (1 << b) and forbid[p, R.cancel_effect(b + 1) - 1]:
            m &= ~(1 << b)
    if m == 0:
        return R.LET
    if greedy:
        bt = st.bt
        if v < 0 or (v != p and not leads(st.pl, a_clan, p)):
            return R.LET
        n = bt[BT_TO]
        odds = st.win[min(bt[BT_K], MAX_SIZE), min(st.bd[SAM, n], MAX_SIZE),
                      st.bd[CASTLE, n], st.terr[n, TC_MOUNT]]
        if odds < 0.5:
            return R.LET
        for b in range(3):
            if m & (1 << b):
                return np.int64(b + 1)
    if below(state, np.int64(2)) == 0:
        return R.LET
    k = below(state, np.int64((m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1)))
    for b in range(3):
        if m & (1 << b):
            if k == 0:
                return np.int64(b + 1)
            k -= 1
    return R.LET


@kernel
def choose_return(st, p, state, greedy):
    """Where an eliminated clan returns: greedy a free city first, then the weakest enemy
    city; random any legal territory."""
    bd = st.bd
    T = bd.shape[1]
    t = -1
    if greedy:
        best = -1 << 40
        for u in range(T):
            if not return_target_ok(bd, st.pl, st.pi, u, p):
                continue
            score = 4 * st.terr[u, TC_CP] + st.terr[u, TC_TAX] - 2 * bd[SAM, u] + \
                (3 if bd[OWNER, u] == NO_ONE else 0)
            if score > best:
                best = score
                t = u
        return np.int64(t)
    m = 0
    for u in range(T):
        m += return_target_ok(bd, st.pl, st.pi, u, p)
    x = below(state, m)
    for u in range(T):
        if return_target_ok(bd, st.pl, st.pi, u, p):
            if x == 0:
                return np.int64(u)
            x -= 1
    return NONE


@kernel
def choose(st, forbid):
    """The action the seat to act chooses under its policy (st.pol), honouring
    forbid[seat, option]."""
    ph = st.phase[0]
    p = st.actor[0]
    pol = st.pol[p]
    greedy = pol == GREEDY
    state = st.rng[st.lane[p]]
    if ph == ACT:
        if greedy:
            return greedy_act(st, p, forbid)
        return random_act(st, p, state, forbid)
    if ph == PLACE:
        ex = st.cx[R.CX_EXCL]
        if greedy:
            return np.int64(best_place(st.bd, st.terr, st.adj_start, st.adj, p, ex))
        return np.int64(random_own(state, st.bd, p, ex, np.bool_(False)))
    if ph == ATT_CARDS:
        return choose_battle_cards(st, p, state, pol, False, forbid)
    if ph == DEF_CARDS:
        return choose_battle_cards(st, p, state, pol, True, forbid)
    if ph == DISCARD:
        return choose_discard(st, p, state, greedy)
    if ph == R.BUY:
        most = min(st.pl[p, PL_KOKU], st.pl[p, PL_SUPPLY])
        if greedy:
            return np.int64(max(0, min(most, st.pl[p, PL_KOKU] - 3)))
        return np.int64(below(state, most + 1))
    if ph == ORDER:
        return choose_order(st, p, state, greedy)
    if ph == CASTLE_BUY:
        return choose_castle(st, p, state, greedy, forbid)
    if ph == JUSTICE or ph == CANCEL:  # noqa: SIM109
        return choose_reaction(st, p, state, greedy, forbid)
    if ph == TAKE_CASTLE:
        return choose_take_castle(st, p, state, greedy)
    if ph == RETURN:
        return choose_return(st, p, state, greedy)
    return NONE

