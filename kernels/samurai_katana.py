"""Samurai & Katana campaign, 3-6 players: blind city draw, purchase and placement, clan
activation in the Emperor's order (moves, cards, combat), Emperor and Shogun, taxes and
cards; province and Kyoto Honor; elimination and return; the end at the Honor target.

Every array has a fixed shape set by the chunk runner; nothing grows. Seat p takes its own
random choices from states[lane[p]]; the deck and the city draw come from the shared
stream states[MAX_P]. Card codes are rows of the combat card table (katana_combat.CC_*).
"""

import numpy as np
from numba import njit

from kernels.config import INLINE, JIT, NO_ALLOC
from kernels.katana_combat import (
    ATTACKER,
    CC_AMOUNT,
    CC_COST,
    CC_EFFECT,
    CC_KIND,
    CC_SWORDS,
    CC_VALUE,
    DEFENDER,
    E_HONOR,
    E_INSULT,
    E_JUSTICE,
    E_KOKU,
    E_NINJA,
    E_SCORCHED,
    E_TSUNAMI,
    E_UPRISING,
    E_WAKO,
    GREEDY,
    K_ANYTIME,
    K_EVENT,
    K_WARRIOR,
    MAX_SIZE,
    TIE,
    choose,
    resolve,
    total_points,
)
from kernels.rng import below, seed_lanes, shuffle

# Helpers inlined into their callers at numba IR level: tiny ones, and the one-call-site
# chain play_game > activation > do_move > battle, so that the whole game is optimised once
# (numba re-optimises every separately compiled function's callees when linking them).

RANDOM = 0
MAX_P = 6
NO_ONE = -1

# Actions of one activation step
A_PASS = 0
A_MOVE = 1
A_CARD = 2
A_SELL = 3

# Territory columns
TC_PROV = 0
TC_MOUNT = 1
TC_CP = 2  # clan points of its city (0 none, 1 minor, 2 major)
TC_TAX = 3
TC_SEA = 4  # number of sea links
N_TC = 5

# Province columns
PC_HONOR = 0
PC_SIZE = 1
N_PC = 2

# Integer parameters
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
N_PI = 22

# Float parameters
PF_THRESHOLD = 0
N_PF = 1

# Player columns
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

# Game scalars
G_DECK = 0
G_DISC = 1
G_TURN = 2
G_EMP = 3
G_SHOGUN = 4
G_END = 5
N_G = 6

# Honor sources (gains) and losses
S_COMBAT = 0
S_PROVINCE = 1
S_KYOTO = 2
S_CARDS = 3
S_EMPEROR = 4
S_KOKU = 5
L_SHOGUN = 6
L_CARDS = 7
L_SOLD = 8
N_SRC = 9

# Miscellaneous counters
M_SHARED = 0
M_CAPPED = 1
M_ELIM = 2
M_RETURNS = 3
M_CANCELLED = 4  # moves cancelled by Tsunami or Scorched Earth
M_COUNTERED = 5  # cards cancelled by Shogunal Justice
M_RESHUFFLES = 6
M_ACTION_CAP = 7
M_ACTIONS = 8
M_MOVES = 9
M_EVENTS = 10
M_BOUGHT_SAMURAI = 11
M_BOUGHT_CASTLES = 12
M_SOLD = 13
M_GAMES_ELIM = 14
M_FILLED = 15  # defenders who had to fill their hand to 2
M_CASTLES_TAKEN = 16
M_NO_RETURN = 17  # eliminated clans that found no territory to return to (turns)
M_KINAI_WINNER = 18  # games whose winner holds Kyoto's whole province at the end
M_KYOTO_WINNER = 19  # games whose winner holds Kyoto at the end
M_BROKEN = 20  # end-of-turn audits that found a broken invariant (must stay 0)
N_MISC = 21

# Battle statistics [castle, mountain, BS_*]
BS_N = 0
BS_ATT = 1
BS_TIE = 2
BS_EMPTY = 3
BS_LA = 4
BS_LD = 5
N_BS = 6

# Card statistics
CS_POWER = 0
CS_COMBAT = 1
CS_COUNTERED = 2
N_CS = 3

# Province statistics
PS_TURNS = 0  # turns (summed over games) some clan held it whole at the end of the turn
PS_EVER = 1  # games in which a clan held it whole at the end of some turn
PS_END = 2  # games ending with it held whole
PS_WINNER = 3  # games whose winner holds it whole at the end
N_PS = 4

# Seat statistics
SS_EMP_TURNS = 0
SS_SHOGUN_TURNS = 1
SS_HONOR = 2
SS_HONOR2 = 3
SS_ELIM = 4
SS_CP = 5
N_SS = 6

# Honor source statistics
SR_SUM = 0
SR_SQ = 1
SR_WIN = 2
SR_WIN_SQ = 3
N_SR = 4

# Per-game rows
R_WINNER = 0
R_TURNS = 1
R_COMPLETED = 2
R_HONOR = 3  # 6 columns
R_CP = 9  # 6 columns
R_INCOME = 15  # 6 columns
N_ROW = 21

N_LEN = 128
N_MARGIN = 64
N_INCOME = 32
N_CLUSTER = 8
TRACE_TURNS = 40

# Layout of the per-game history array
H_MAJOR = 0  # MAX_P: each clan's starting major city (territory)
H_CLUSTER = MAX_P  # MAX_P: most starting cities of the clan in one province
H_EMP = 2 * MAX_P  # + turn: the Emperor named at the end of that turn

# Scratch rows
SC_ORDER = 0
SC_DONE = 1
SC_A = 2
SC_B = 3
N_SC = 4


# --- small helpers ----------------------------------------------------------------------

@njit(**INLINE)
def set_owner(bd, pl, pcount, terr, t, q):
    """Territory t passes to q (NO_ONE: free); counts follow."""
    o = bd[0, t]
    if o == q:
        return
    cp = terr[t, TC_CP]
    pr = terr[t, TC_PROV]
    if o >= 0:
        pl[o, PL_NTERR] -= 1
        pcount[o, pr] -= 1
        pl[o, PL_CP] -= cp
        pl[o, PL_CITIES] -= cp > 0
    bd[0, t] = q
    if q >= 0:
        pl[q, PL_NTERR] += 1
        pcount[q, pr] += 1
        pl[q, PL_CP] += cp
        pl[q, PL_CITIES] += cp > 0


@njit(**INLINE)
def gain(pl, src, gs, pi, p, amount, source):
    """p gains `amount` Honor from `source`; passing the target triggers the end."""
    if amount <= 0:
        return
    pl[p, PL_HONOR] += amount
    src[p, source] += amount
    if pl[p, PL_HONOR] > pi[PI_TARGET]:
        gs[G_END] = 1


@njit(**INLINE)
def lose(pl, src, p, amount, source):
    """p loses up to `amount` Honor (never below the dishonor floor, 0)."""
    actual = min(amount, pl[p, PL_HONOR])
    pl[p, PL_HONOR] -= actual
    src[p, source] += actual


@njit(**NO_ALLOC)
def draw_cards(shared, p, k, hand, pl, piles, gs, misc):
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
            misc[M_RESHUFFLES] += 1
        gs[G_DECK] -= 1
        hand[p, pl[p, PL_HAND]] = piles[0, gs[G_DECK]]
        pl[p, PL_HAND] += 1


@njit(**INLINE)
def discard_at(p, i, hand, pl, piles, gs):
    """Discard the card at hand position i (the last card takes its place)."""
    piles[1, gs[G_DISC]] = hand[p, i]
    gs[G_DISC] += 1
    pl[p, PL_HAND] -= 1
    hand[p, i] = hand[p, pl[p, PL_HAND]]


@njit(**NO_ALLOC)
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


@njit(**INLINE)
def find_card(p, effect, hand, pl, cards):
    """Hand position of p's first card with this effect, or -1."""
    for i in range(pl[p, PL_HAND]):
        if cards[hand[p, i], CC_EFFECT] == effect:
            return i
    return -1


@njit(**INLINE)
def check_out(q, pl, misc, seat):
    """Mark q eliminated when it controls no territory."""
    if pl[q, PL_NTERR] == 0 and pl[q, PL_OUT] == 0:
        pl[q, PL_OUT] = 1
        pl[q, PL_EVER_OUT] = 1
        misc[M_ELIM] += 1
        seat[q, SS_ELIM] += 1


@njit(**NO_ALLOC)
def threat(bd, adj_start, adj, t, p):
    """Most samurai an enemy of p holds in one territory next to t (land or sea)."""
    m = 0
    for e in range(adj_start[t], adj_start[t + 1]):
        n = adj[0, e]
        o = bd[0, n]
        if o >= 0 and o != p:
            m = max(m, bd[1, n])
    return m


@njit(**NO_ALLOC)
def place_score(bd, terr, adj_start, adj, t, p):
    """Greedy's wish to add a samurai in t: defend it (more for cities) or stage an attack."""
    thr = threat(bd, adj_start, adj, t, p)
    weak = False
    for e in range(adj_start[t], adj_start[t + 1]):
        n = adj[0, e]
        o = bd[0, n]
        if o == NO_ONE or (o != p and bd[1, n] <= 2 and bd[2, n] == 0):
            weak = True
    s = max(thr + 1 - bd[1, t], 0) * (2 + terr[t, TC_CP]) + terr[t, TC_CP]
    if weak and bd[1, t] < 5:
        s += 3
    return s


@njit(**NO_ALLOC)
def best_place(bd, terr, adj_start, adj, p, exclude):
    """Greedy's territory of p for a new or retreating samurai (-1: none)."""
    best = -1
    bs = -1
    for t in range(bd.shape[1]):
        if bd[0, t] == p and t != exclude:
            s = place_score(bd, terr, adj_start, adj, t, p)
            if s > bs:
                bs = s
                best = t
    return best


@njit(**NO_ALLOC)
def random_own(state, bd, p, exclude, need_no_castle):
    """A uniformly drawn territory of p other than `exclude` (-1: none)."""
    n = 0
    for t in range(bd.shape[1]):
        if bd[0, t] == p and t != exclude and not (need_no_castle and bd[2, t]):
            n += 1
    if n == 0:
        return -1
    r = below(state, n)
    for t in range(bd.shape[1]):
        if bd[0, t] == p and t != exclude and not (need_no_castle and bd[2, t]):
            if r == 0:
                return t
            r -= 1
    return -1


@njit(**NO_ALLOC)
def place(state, pol, bd, pl, terr, adj_start, adj, p, k, exclude):
    """p puts k samurai from its supply on its territories (greedy: one at a time where most
    needed; random: each on a uniformly drawn territory). Returns how many found a place."""
    placed = 0
    for _ in range(k):
        if pl[p, PL_SUPPLY] == 0:
            break
        if pol == GREEDY:
            t = best_place(bd, terr, adj_start, adj, p, exclude)
        else:
            t = random_own(state, bd, p, exclude, np.bool_(False))
        if t < 0:
            break
        bd[1, t] += 1
        pl[p, PL_SUPPLY] -= 1
        placed += 1
    return placed


@njit(**INLINE)
def allies(bd, adj_start, adj, t, p):
    """p's samurai in territories land-adjacent to t (for Alliance)."""
    s = 0
    for e in range(adj_start[t], adj_start[t + 1]):
        n = adj[0, e]
        if adj[1, e] == 0 and bd[0, n] == p:
            s += bd[1, n]
    return s


@njit(**INLINE)
def province_complete(pcount, prov, p, pr):
    """p holds every territory of province pr."""
    return pcount[p, pr] == prov[pr, PC_SIZE]


@njit(**NO_ALLOC)
def tvalue(bd, pcount, terr, prov, pi, t, p):
    """Greedy's value of gaining territory t: taxes, clan points, progress to its province
    (its Honor when t completes it), Kyoto."""
    pr = terr[t, TC_PROV]
    v = terr[t, TC_TAX] + 2 * terr[t, TC_CP] + pcount[p, pr]
    if pcount[p, pr] + 1 == prov[pr, PC_SIZE]:
        v += 2 * prov[pr, PC_HONOR]
    if t == pi[PI_KYOTO]:
        v += 2
    return v


# --- reactions and cards ----------------------------------------------------------------

@njit(**INLINE)
def may_play_anytime(q, pl, hand_needed):
    """A 'playable at any time' card needs 3+ cards in hand (not 2 or fewer)."""
    return pl[q, PL_OUT] == 0 and pl[q, PL_HAND] >= hand_needed


@njit(**NO_ALLOC)
def counters(states, lane, pol, q, worth, hand, pl, piles, gs, cards, cstats, misc):
    """q cancels a card played against it with Shogunal Justice (greedy: when `worth`;
    random: half the time). Returns True if countered."""
    if not may_play_anytime(q, pl, 3):
        return False
    i = find_card(q, E_JUSTICE, hand, pl, cards)
    if i < 0:
        return False
    if pol[q] == GREEDY:
        if not worth:
            return False
    elif below(states[lane[q]], np.int64(2)) == 0:
        return False
    cstats[hand[q, i], CS_POWER] += 1
    discard_at(q, i, hand, pl, piles, gs)
    misc[M_COUNTERED] += 1
    return True


@njit(**NO_ALLOC)
def cancels_move(states, lane, pol, q, sea, odds, hand, pl, piles, gs, cards, cstats, misc):
    """Defender q cancels an attack with Tsunami (sea moves) or Scorched Earth (greedy:
    when the attacker's odds are at least 1/2; random: half the time)."""
    if not may_play_anytime(q, pl, 3):
        return False
    i = find_card(q, E_TSUNAMI, hand, pl, cards) if sea else -1
    if i < 0:
        i = find_card(q, E_SCORCHED, hand, pl, cards)
    if i < 0:
        return False
    if pol[q] == GREEDY:
        if odds < 0.5:
            return False
    elif below(states[lane[q]], np.int64(2)) == 0:
        return False
    cstats[hand[q, i], CS_POWER] += 1
    discard_at(q, i, hand, pl, piles, gs)
    misc[M_CANCELLED] += 1
    return True


@njit(**INLINE)
def uprising_ok(bd, pl, pi, t, p):
    """Ikko Ikki and the sects: an enemy territory with samurai and no castle, whose owner
    holds 2+ territories (not Kyoto with the Kyoto option)."""
    o = bd[0, t]
    if o < 0 or o == p or bd[2, t] or bd[1, t] == 0 or pl[o, PL_NTERR] < 2:
        return False
    return not (pi[PI_KYOTO_SAFE] and t == pi[PI_KYOTO])


@njit(**NO_ALLOC)
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


@njit(**INLINE)
def n_players(pl):
    """Players in this game (rows of pl used)."""
    return pl.shape[0]


@njit(**NO_ALLOC)
def play_card(states, lane, pol, p, i, target, bd, pl, pcount, hand, piles, gs, src, terr,
              pi, cards, cstats, misc):
    """p plays the card at hand position i for its power, against `target` (a territory
    for uprisings, a player for insults, Wako and Ninja)."""
    c = hand[p, i]
    eff = cards[c, CC_EFFECT]
    amount = cards[c, CC_AMOUNT]
    pl[p, PL_KOKU] -= cards[c, CC_COST]
    discard_at(p, i, hand, pl, piles, gs)
    cstats[c, CS_POWER] += 1
    misc[M_EVENTS] += 1
    if eff == E_HONOR:
        gain(pl, src, gs, pi, p, amount, S_CARDS)
    elif eff == E_KOKU:
        pl[p, PL_KOKU] += amount
    elif eff == E_INSULT:
        q = target
        if q != p and counters(states, lane, pol, q, np.bool_(True), hand, pl, piles, gs, cards,
                               cstats, misc):
            cstats[c, CS_COUNTERED] += 1
            return
        lose(pl, src, q, amount, L_CARDS)
    elif eff == E_WAKO:
        q = target
        if counters(states, lane, pol, q, pl[q, PL_KOKU] >= 2, hand, pl, piles, gs, cards,
                    cstats, misc):
            cstats[c, CS_COUNTERED] += 1
            return
        k = min(amount, pl[q, PL_KOKU])
        pl[q, PL_KOKU] -= k
        pl[p, PL_KOKU] += k
    elif eff == E_NINJA:
        q = target
        if counters(states, lane, pol, q, np.bool_(True), hand, pl, piles, gs, cards, cstats, misc):
            cstats[c, CS_COUNTERED] += 1
            return
        if pl[q, PL_HAND] > 0:
            j = below(states[lane[p]], pl[q, PL_HAND])
            hand[p, pl[p, PL_HAND]] = hand[q, j]
            pl[p, PL_HAND] += 1
            pl[q, PL_HAND] -= 1
            hand[q, j] = hand[q, pl[q, PL_HAND]]
    elif eff == E_UPRISING:
        t = target
        q = bd[0, t]
        worth = bd[1, t] >= 2 or terr[t, TC_CP] > 0
        if counters(states, lane, pol, q, worth, hand, pl, piles, gs, cards, cstats, misc):
            cstats[c, CS_COUNTERED] += 1
            return
        k = bd[1, t] if amount == 0 else min(amount, bd[1, t])
        bd[1, t] -= k
        pl[q, PL_SUPPLY] += k
        if bd[1, t] == 0:
            set_owner(bd, pl, pcount, terr, t, NO_ONE)


# --- combat -----------------------------------------------------------------------------

@njit(**NO_ALLOC)
def battle(states, lane, pol, p, s, n, k, bd, pl, pcount, hand, piles, gs, src, terr,
           adj_start, adj, pi, cards, misc, battles, cstats, seat):
    """p attacks territory n from s with k samurai (already taken off s)."""
    shared = states[MAX_P]
    q = bd[0, n]
    d = bd[1, n]
    castle = bd[2, n] == 1
    mountain = terr[n, TC_MOUNT]
    # cards: the attacker chooses first, then the defender (filling to 2 if need be)
    ia, ja, ka, pa, swa = choose(pol[p], states[lane[p]], hand[p], pl[p, PL_HAND], cards,
                                 np.bool_(False), np.int64(allies(bd, adj_start, adj, n, p)),
                                 np.bool_(True))
    cstats[hand[p, ia], CS_COMBAT] += 1
    cstats[hand[p, ja], CS_COMBAT] += 1
    if ka >= 0:
        cstats[hand[p, ka], CS_COMBAT] += 1
    filled = pl[q, PL_HAND] < 2
    if filled:
        misc[M_FILLED] += 1
        draw_cards(shared, q, 2 - pl[q, PL_HAND], hand, pl, piles, gs, misc)
    if pl[q, PL_HAND] >= 2:
        idd, jd, kd, pd, swd = choose(pol[q], states[lane[q]], hand[q], pl[q, PL_HAND], cards,
                                      castle, np.int64(allies(bd, adj_start, adj, n, q)),
                                      not filled)
        cstats[hand[q, idd], CS_COMBAT] += 1
        cstats[hand[q, jd], CS_COMBAT] += 1
        if kd >= 0:
            cstats[hand[q, kd], CS_COMBAT] += 1
        discard_three(q, idd, jd, kd, hand, pl, piles, gs)
    else:  # nothing left anywhere to draw: the card it has (if any) counts
        pd = 0
        swd = 0
        if pl[q, PL_HAND] == 1:
            pd = cards[hand[q, 0], CC_VALUE] * (2 if castle else 1)
            swd = cards[hand[q, 0], CC_SWORDS]
            discard_at(q, 0, hand, pl, piles, gs)
    discard_three(p, ia, ja, ka, hand, pl, piles, gs)  # played cards are discarded after
    result, la, ld, empty = resolve(total_points(pa, k, np.int64(0)),
                                    total_points(pd, d, mountain),
                                    swa, swd, k, d, castle)
    b = battles[int(castle), mountain]
    b[BS_N] += 1
    b[BS_ATT] += result == ATTACKER
    b[BS_TIE] += result == TIE
    b[BS_EMPTY] += empty
    b[BS_LA] += la
    b[BS_LD] += ld
    k -= la
    pl[p, PL_SUPPLY] += la
    bd[1, n] -= ld
    pl[q, PL_SUPPLY] += ld
    if result == ATTACKER:
        gain(pl, src, gs, pi, p, 1, S_COMBAT)
        if q == gs[G_SHOGUN]:
            lose(pl, src, q, 1, L_SHOGUN)
        survivors = bd[1, n]
        bd[1, n] = 0
        if survivors > 0:  # the defender's survivors go to his other territories (if any)
            pl[q, PL_SUPPLY] += survivors
            place(states[lane[q]], pol[q], bd, pl, terr, adj_start, adj, q, survivors, n)
        if k > 0:
            if castle:
                misc[M_CASTLES_TAKEN] += 1
                take_castle(states[lane[p]], pol[p], p, q, n, bd, pl, pcount, terr)
            set_owner(bd, pl, pcount, terr, n, p)
            bd[1, n] = k
        else:  # the winner is wiped out: the territory is free, its castle destroyed
            if castle:
                bd[2, n] = 0
                pl[q, PL_CASTLES] += 1
            set_owner(bd, pl, pcount, terr, n, NO_ONE)
    else:
        if result == DEFENDER:
            gain(pl, src, gs, pi, q, 1, S_COMBAT)
            if p == gs[G_SHOGUN]:
                lose(pl, src, p, 1, L_SHOGUN)
        if k > 0:  # the attacker's survivors return where they came from
            if bd[0, s] == NO_ONE:
                set_owner(bd, pl, pcount, terr, s, p)
            bd[1, s] += k
        if bd[1, n] == 0 and bd[2, n] == 0:
            set_owner(bd, pl, pcount, terr, n, NO_ONE)
    draw_cards(shared, p, np.int64(2), hand, pl, piles, gs, misc)
    draw_cards(shared, q, 3 if result == DEFENDER else pi[PI_TIE_DRAW] if result == TIE else 2,
               hand, pl, piles, gs, misc)
    check_out(q, pl, misc, seat)
    check_out(p, pl, misc, seat)


@njit(**NO_ALLOC)
def take_castle(state, pol, p, q, n, bd, pl, pcount, terr):
    """p has taken q's castle at n: replace it with one of its own from reserve, destroy it,
    or (random only) move one of its own castles there."""
    options = 1 + (pl[p, PL_CASTLES] > 0)
    mine = 0
    if pol == RANDOM:
        for t in range(bd.shape[1]):
            if bd[0, t] == p and bd[2, t] and t != n:
                mine += 1
        options += mine > 0
    pick = int(pl[p, PL_CASTLES] > 0) if pol == GREEDY else below(state, options)
    pl[q, PL_CASTLES] += 1
    if pick == 0:  # destroy
        bd[2, n] = 0
    elif pick == 1 and pl[p, PL_CASTLES] > 0:  # replace from reserve
        pl[p, PL_CASTLES] -= 1
    else:  # move one of its own castles here (its old place may become free)
        r = below(state, mine)
        for t in range(bd.shape[1]):
            if bd[0, t] == p and bd[2, t] and t != n:
                if r == 0:
                    bd[2, t] = 0
                    if bd[1, t] == 0:
                        set_owner(bd, pl, pcount, terr, t, NO_ONE)
                    break
                r -= 1


# --- moves --------------------------------------------------------------------------------

@njit(**INLINE)
def move_cost(bd, pl, p, n):
    """Koku a move into n costs p: free into its own castle or with the Shogun's free move."""
    if bd[0, n] == p and bd[2, n]:
        return 0
    if pl[p, PL_FREE]:
        return 0
    return 1


@njit(**NO_ALLOC)
def start_move(states, lane, pol, p, s, e, k, bd, pl, pcount, hand, piles, gs, terr, adj,
               cards, win, misc, cstats):
    """p moves k samurai from s along link e (paying 1 koku unless free). Into its own or a
    free territory the move is done; into an enemy one the defender may cancel it (Tsunami
    on a sea link, Scorched Earth: koku refunded), else the samurai leave s and True is
    returned: a battle must be fought."""
    n = adj[0, e]
    q = bd[0, n]
    cost = 0
    free_used = False
    if not (q == p and bd[2, n]):
        if pl[p, PL_FREE]:
            pl[p, PL_FREE] = 0
            free_used = True
        else:
            cost = 1
    pl[p, PL_KOKU] -= cost
    misc[M_MOVES] += 1
    if q >= 0 and q != p:
        odds = win[min(k, MAX_SIZE), min(bd[1, n], MAX_SIZE), bd[2, n], terr[n, TC_MOUNT]]
        if cancels_move(states, lane, pol, q, adj[1, e] == 1, odds, hand, pl, piles, gs,
                        cards, cstats, misc):
            pl[p, PL_KOKU] += cost
            if free_used:
                pl[p, PL_FREE] = 1
            return False
    bd[1, s] -= k
    if bd[1, s] == 0 and bd[2, s] == 0:
        set_owner(bd, pl, pcount, terr, s, NO_ONE)
    if q == NO_ONE:
        set_owner(bd, pl, pcount, terr, n, p)
        bd[1, n] = k
        return False
    if q == p:
        bd[1, n] += k
        return False
    return True


# --- policies: one activation step ------------------------------------------------------

@njit(**INLINE)
def top_rival(pl, P, p, col, floor):
    """The first other clan with the most of pl[:, col], if above `floor`; else -1."""
    best = floor
    target = -1
    for q in range(P):
        if q != p and pl[q, col] > best:
            best = pl[q, col]
            target = q
    return target


@njit(**NO_ALLOC)
def greedy_card(p, bd, pl, hand, terr, adj_start, adj, pi, cards):
    """Greedy's card to play now, if any: (hand position, target) or (-1, -1). Harvest and
    culture for itself, Wako on the richest, insults on the leader, a Ninja on the fullest
    hand, an uprising that clears a territory next to its army."""
    P = n_players(pl)
    for i in range(pl[p, PL_HAND]):
        c = hand[p, i]
        if not card_playable(p, c, bd, pl, pi, cards):
            continue
        eff = cards[c, CC_EFFECT]
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
                removed = bd[1, t] if amount == 0 else min(amount, bd[1, t])
                score = removed
                if removed == bd[1, t]:
                    near = 0
                    for e in range(adj_start[t], adj_start[t + 1]):
                        n = adj[0, e]
                        if bd[0, n] == p and bd[1, n] >= 2:
                            near = 1
                    score += 1 + 2 * terr[t, TC_CP] + 3 * near
                if score > best:
                    best = score
                    target = t
        if target >= 0:
            return i, target
    return -1, -1


@njit(**NO_ALLOC)
def greedy_move(p, bd, pl, pcount, terr, prov, adj_start, adj, pi, pf, win, gs):
    """Greedy's best move: (source, link, samurai) or (-1, -1, 0) for none. It takes free
    territories next to its armies and attacks when the odds table gives at least the
    threshold; each candidate is valued by the territory (taxes, cities, province, Kyoto),
    the Honor of a win, and a hit on the Shogun or the leader."""
    if pl[p, PL_KOKU] < 1 and not pl[p, PL_FREE]:
        return -1, -1, 0
    threshold = pf[PF_THRESHOLD]
    leader = -1
    top = 0
    for q in range(pl.shape[0]):
        if q != p and pl[q, PL_HONOR] > top:
            top = pl[q, PL_HONOR]
            leader = q
    best = 0.0
    bs = -1
    be = -1
    bk = 0
    can_fight = pl[p, PL_HAND] >= 2
    for s in range(bd.shape[1]):
        if bd[0, s] != p or bd[1, s] == 0:
            continue
        movable = bd[1, s] - (0 if bd[2, s] else 1)
        if movable <= 0:
            continue
        for e in range(adj_start[s], adj_start[s + 1]):
            n = adj[0, e]
            o = bd[0, n]
            if o == p:
                continue
            v = tvalue(bd, pcount, terr, prov, pi, n, p)
            if o == NO_ONE:
                score = float(v)
                k = 2 if terr[n, TC_CP] > 0 and movable >= 2 else 1
            else:
                if not can_fight:
                    continue
                pw = win[min(movable, MAX_SIZE), min(bd[1, n], MAX_SIZE), bd[2, n],
                         terr[n, TC_MOUNT]]
                if pw < threshold:
                    continue
                bonus = 2 + (o == gs[G_SHOGUN]) + (o == leader)
                score = pw * (v + bonus)
                k = movable
            if score > best:
                best = score
                bs = s
                be = e
                bk = k
    return bs, be, bk


@njit(**NO_ALLOC)
def random_choice(state, p, bd, pl, hand, adj_start, adj, pi, cards):
    """One random action: a kind drawn uniformly among those possible (pass, move, card,
    sell 2 Honor when out of koku), then an option uniformly within it. Returns (action,
    a, b, c): a move
    (source, link, samurai) or a card (hand position, target, 0)."""
    P = n_players(pl)
    n_moves = 0
    for s in range(bd.shape[1]):
        if bd[0, s] != p or bd[1, s] == 0:
            continue
        for e in range(adj_start[s], adj_start[s + 1]):
            n = adj[0, e]
            o = bd[0, n]
            if o >= 0 and o != p and pl[p, PL_HAND] < 2:
                continue
            if move_cost(bd, pl, p, n) <= pl[p, PL_KOKU]:
                n_moves += 1
    n_cards = 0
    for i in range(pl[p, PL_HAND]):
        n_cards += card_playable(p, hand[p, i], bd, pl, pi, cards)
    can_sell = pl[p, PL_HONOR] >= 2 and pl[p, PL_KOKU] == 0
    r = below(state, 1 + (n_moves > 0) + (n_cards > 0) + can_sell)
    if r == 0:
        return A_PASS, 0, 0, 0
    r -= 1
    if n_moves > 0:
        if r == 0:
            pick = below(state, n_moves)
            for s in range(bd.shape[1]):
                if bd[0, s] != p or bd[1, s] == 0:
                    continue
                for e in range(adj_start[s], adj_start[s + 1]):
                    n = adj[0, e]
                    o = bd[0, n]
                    if o >= 0 and o != p and pl[p, PL_HAND] < 2:
                        continue
                    if move_cost(bd, pl, p, n) <= pl[p, PL_KOKU]:
                        if pick == 0:
                            return A_MOVE, s, e, 1 + below(state, bd[1, s])
                        pick -= 1
        r -= 1
    if n_cards > 0:
        if r == 0:
            pick = below(state, n_cards)
            for i in range(pl[p, PL_HAND]):
                c = hand[p, i]
                if not card_playable(p, c, bd, pl, pi, cards):
                    continue
                if pick > 0:
                    pick -= 1
                    continue
                eff = cards[c, CC_EFFECT]
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
                return A_CARD, i, target, 0
        r -= 1
    return A_SELL, 0, 0, 0


@njit(**NO_ALLOC)
def end_activation(p, bd, pl, pcount, gs, src, terr, prov, pi):
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
        gain(pl, src, gs, pi, p, prov[pr, PC_HONOR], S_PROVINCE)
    if bd[0, kyoto] == p and not kinai_whole:
        gain(pl, src, gs, pi, p, 1, S_KYOTO)

# --- phases -------------------------------------------------------------------------------

@njit(**NO_ALLOC)
def purchase(states, lane, pol, p, bd, pl, terr, adj_start, adj, pi, misc):
    """Phase 1 for p: buy samurai (1 koku) and at most one castle (4, 6 in Kyoto), placed
    where it already has a piece. Greedy keeps 3 koku for moves, builds a castle on a city
    or sea hub when rich enough; random buys a uniform number of samurai and a castle half
    the time it can."""
    state = states[lane[p]]
    kyoto = pi[PI_KYOTO]
    # castle
    can_castle = pl[p, PL_CASTLES] > 0 and pl[p, PL_BUILT] == 0
    if can_castle:
        t = -1
        if pol[p] == GREEDY:
            best = 3
            for u in range(bd.shape[1]):
                if bd[0, u] != p or bd[2, u]:
                    continue
                cost = pi[PI_KYOTO_COST] if u == kyoto else pi[PI_CASTLE_COST]
                if pl[p, PL_KOKU] < cost + 3:
                    continue
                score = 3 * terr[u, TC_CP] + terr[u, TC_SEA] + threat(bd, adj_start, adj, u, p)
                if score > best:
                    best = score
                    t = u
        elif below(state, np.int64(2)) == 1:
            u = random_own(state, bd, p, np.int64(-1), np.bool_(True))
            if u >= 0:
                cost = pi[PI_KYOTO_COST] if u == kyoto else pi[PI_CASTLE_COST]
                if pl[p, PL_KOKU] >= cost:
                    t = u
        if t >= 0:
            pl[p, PL_KOKU] -= pi[PI_KYOTO_COST] if t == kyoto else pi[PI_CASTLE_COST]
            pl[p, PL_CASTLES] -= 1
            pl[p, PL_BUILT] = 1
            bd[2, t] = 1
            misc[M_BOUGHT_CASTLES] += 1
    # samurai
    most = min(pl[p, PL_KOKU], pl[p, PL_SUPPLY])
    k = max(0, min(most, pl[p, PL_KOKU] - 3)) if pol[p] == GREEDY else below(state, most + 1)
    if k > 0:
        placed = place(state, pol[p], bd, pl, terr, adj_start, adj, p, k, np.int64(-1))
        pl[p, PL_KOKU] -= placed
        misc[M_BOUGHT_SAMURAI] += placed


@njit(**NO_ALLOC)
def next_in_order(state, pol_e, emp, pl, done):
    """The next player the Emperor names: greedy names the rival with most Honor (the
    leader plays first, with least information), and itself last; random any at random."""
    P = n_players(pl)
    left = 0
    for q in range(P):
        left += done[q] == 0
    if left == 0:
        return -1
    if pol_e == GREEDY:
        best = -1
        bh = -1
        for i in range(P):
            q = (emp + 1 + i) % P
            if done[q] == 0 and q != emp and pl[q, PL_HONOR] > bh:
                bh = pl[q, PL_HONOR]
                best = q
        return best if best >= 0 else emp
    r = below(state, left)
    for q in range(P):
        if done[q] == 0:
            if r == 0:
                return q
            r -= 1
    return -1


@njit(**NO_ALLOC)
def fixed_order(state, pol_e, emp, pl, done, order):
    """A whole order named at once (the Emperor's rule applied to the current Honor)."""
    P = n_players(pl)
    for q in range(P):
        done[q] = 0
    for i in range(P):
        q = next_in_order(state, pol_e, emp, pl, done)
        order[i] = q
        done[q] = 1


@njit(**NO_ALLOC)
def rank_key(pl, q, bd):
    """Honor, then clan points, cities, koku, samurai on the board (for Emperor/Shogun)."""
    on_board = 0
    for t in range(bd.shape[1]):
        if bd[0, t] == q:
            on_board += bd[1, t]
    return (((pl[q, PL_HONOR] * 64 + min(pl[q, PL_CP], 63)) * 64 + min(pl[q, PL_CITIES], 63))
            * 256 + min(pl[q, PL_KOKU], 255)) * 256 + min(on_board, 255)


@njit(**NO_ALLOC)
def new_offices(pl, gs, bd, pi, src, seat):
    """Phase 3: the fewest Honor becomes Emperor (ties: fewest clan points, cities, koku,
    samurai; the sitting Emperor keeps it among equals, else the first clockwise), the most
    Honor Shogun (ties the other way); the Emperor gains 1 Honor if he stays (or every turn
    with the option). No Shogun while everyone has the Emperor's Honor."""
    P = n_players(pl)
    old = gs[G_EMP]
    emp = old
    bk = rank_key(pl, old, bd)
    for i in range(1, P):
        q = (old + i) % P
        k = rank_key(pl, q, bd)
        if k < bk:
            bk = k
            emp = q
    shogun = -1
    sk = -1
    old_s = gs[G_SHOGUN]
    if old_s >= 0 and old_s != emp and pl[old_s, PL_HONOR] > pl[emp, PL_HONOR]:
        shogun = old_s
        sk = rank_key(pl, old_s, bd)
    for i in range(P):
        q = (emp + 1 + i) % P
        if q == emp or pl[q, PL_HONOR] <= pl[emp, PL_HONOR]:
            continue
        k = rank_key(pl, q, bd)
        if k > sk:
            sk = k
            shogun = q
    gs[G_SHOGUN] = shogun
    gs[G_EMP] = emp
    if emp == old or pi[PI_EMP_EVERY]:
        gain(pl, src, gs, pi, emp, 1, S_EMPEROR)
    seat[emp, SS_EMP_TURNS] += 1
    if shogun >= 0:
        seat[shogun, SS_SHOGUN_TURNS] += 1


@njit(**NO_ALLOC)
def taxes_and_cards(states, lane, pol, bd, pl, hand, piles, gs, src, terr, pi, cards, misc):
    """Phase 4: koku for each territory (2 plain, 1 mountain), or Honor from them on the last
    turn with In the land of koku; discard (greedy: its 1-value warriors; random: each card
    half the time), refill to the hand size, and 1 or 2 more cards by clan points."""
    P = n_players(pl)
    shared = states[MAX_P]
    final = gs[G_END] == 1 and pi[PI_LAND_KOKU] == 1
    for i in range(P):
        p = (gs[G_EMP] + i) % P
        if pl[p, PL_OUT]:
            continue
        tax = 0
        for t in range(bd.shape[1]):
            if bd[0, t] == p:
                tax += terr[t, TC_TAX]
        if final:
            gain(pl, src, gs, pi, p, tax // 3, S_KOKU)
            pl[p, PL_KOKU] += tax % 3
        else:
            pl[p, PL_KOKU] += tax
        j = 0
        while j < pl[p, PL_HAND]:
            c = hand[p, j]
            if pol[p] == GREEDY:
                drop = cards[c, CC_KIND] == K_WARRIOR and cards[c, CC_VALUE] <= 1
            else:
                drop = below(states[lane[p]], np.int64(2)) == 1
            if drop:
                discard_at(p, j, hand, pl, piles, gs)
            else:
                j += 1
        if pl[p, PL_HAND] < pi[PI_HAND]:
            draw_cards(shared, p, pi[PI_HAND] - pl[p, PL_HAND], hand, pl, piles, gs, misc)
        cp = pl[p, PL_CP]
        extra = 2 if cp >= 6 else (1 if cp >= 1 else 0)
        if pi[PI_NEW_DEAL] and cp <= 2:
            extra = 0
        draw_cards(shared, p, extra, hand, pl, piles, gs, misc)


@njit(**NO_ALLOC)
def return_target_ok(bd, pl, pi, t, p):
    """Where an eliminated clan may return: a free territory, or an enemy one its free
    uprising can clear (no castle, owner holds 2+ territories, not Kyoto with the option)."""
    if bd[2, t]:
        return False
    o = bd[0, t]
    if o == NO_ONE:
        return True
    if o == p or pl[o, PL_NTERR] < 2:
        return False
    return not (pi[PI_KYOTO_SAFE] and t == pi[PI_KYOTO])


@njit(**NO_ALLOC)
def return_clan(state, pol, p, bd, pl, pcount, terr, pi, misc):
    """An eliminated clan returns with a free Ikko Ikki uprising (the territory's samurai go
    back to their owner's supply), 5 samurai and 4 koku. Greedy prefers a free city, then the
    weakest enemy city; random any legal territory."""
    T = bd.shape[1]
    t = -1
    if pol == GREEDY:
        best = -1 << 40
        for u in range(T):
            if not return_target_ok(bd, pl, pi, u, p):
                continue
            score = 4 * terr[u, TC_CP] + terr[u, TC_TAX] - 2 * bd[1, u] + \
                (3 if bd[0, u] == NO_ONE else 0)
            if score > best:
                best = score
                t = u
    else:
        m = 0
        for u in range(T):
            m += return_target_ok(bd, pl, pi, u, p)
        if m > 0:
            x = below(state, m)
            for u in range(T):
                if return_target_ok(bd, pl, pi, u, p):
                    if x == 0:
                        t = u
                        break
                    x -= 1
    if t < 0:
        misc[M_NO_RETURN] += 1
        return
    o = bd[0, t]
    if o >= 0:
        pl[o, PL_SUPPLY] += bd[1, t]
        bd[1, t] = 0
    set_owner(bd, pl, pcount, terr, t, p)
    k = min(pi[PI_RET_SAM], pl[p, PL_SUPPLY])
    bd[1, t] = k
    pl[p, PL_SUPPLY] -= k
    pl[p, PL_KOKU] += pi[PI_RET_KOKU]
    pl[p, PL_OUT] = 0
    misc[M_RETURNS] += 1


@njit(**NO_ALLOC)
def setup(states, lane, pol, P, bd, pl, pcount, hand, piles, gs, src, terr, adj_start, adj,
          majors, minors, pi, deck0, scr, misc, row):
    """Blind city draw (each clan: 1 major and 2 or 3 minor cities, drawn clockwise from
    the first Emperor, seat 1), 1 samurai per city plus the extra samurai placed by each
    clan, 5 koku, 5 cards each."""
    shared = states[MAX_P]
    T = bd.shape[1]
    for t in range(T):
        bd[0, t] = NO_ONE
        bd[1, t] = 0
        bd[2, t] = 0
    for p in range(P):
        for c in range(N_PL):
            pl[p, c] = 0
        for c in range(pcount.shape[1]):
            pcount[p, c] = 0
        for c in range(N_SRC):
            src[p, c] = 0
        pl[p, PL_KOKU] = pi[PI_START_KOKU]
        pl[p, PL_SUPPLY] = pi[PI_SAMURAI]
        pl[p, PL_CASTLES] = pi[PI_CASTLES]
    gs[G_TURN] = 0
    gs[G_EMP] = 0
    gs[G_SHOGUN] = -1
    gs[G_END] = 0
    nd = deck0.shape[0]
    for i in range(nd):
        piles[0, i] = deck0[i]
    gs[G_DECK] = nd
    gs[G_DISC] = 0
    shuffle(shared, piles[0], nd)
    a = scr[SC_A]
    b = scr[SC_B]
    na = majors.shape[0]
    nb = minors.shape[0]
    for i in range(na):
        a[i] = majors[i]
    for i in range(nb):
        b[i] = minors[i]
    shuffle(shared, a, na)
    shuffle(shared, b, nb)
    ib = 0
    for p in range(P):
        set_owner(bd, pl, pcount, terr, a[p], p)
        bd[1, a[p]] = 1
        for _ in range(pi[PI_MINORS]):
            set_owner(bd, pl, pcount, terr, b[ib], p)
            bd[1, b[ib]] = 1
            ib += 1
        pl[p, PL_SUPPLY] -= 1 + pi[PI_MINORS]
    for p in range(P):
        place(states[lane[p]], pol[p], bd, pl, terr, adj_start, adj, p, pi[PI_EXTRA],
              np.int64(-1))
        income = 0
        for t in range(T):
            if bd[0, t] == p:
                income += terr[t, TC_TAX]
        row[R_INCOME + p] = income
    for p in range(P):
        draw_cards(shared, p, pi[PI_HAND], hand, pl, piles, gs, misc)


@njit(**NO_ALLOC)
def audit(P, bd, pl, pcount, gs, terr, pi, deck_size, work):
    """Whether the state is consistent: samurai and castles conserved against each clan's
    supply, koku and Honor never negative, one owner per territory that has a piece (and
    none without), counts matching the board, every card in exactly one pile. `work` is
    scratch of at least P * (4 + provinces) integers."""
    NP = pcount.shape[1]
    for i in range(P * (4 + NP)):
        work[i] = 0
    for t in range(bd.shape[1]):
        o = bd[0, t]
        if o >= P or bd[1, t] < 0 or bd[2, t] < 0 or bd[2, t] > 1:
            return False
        if (o >= 0) != (bd[1, t] + bd[2, t] > 0):
            return False
        if o >= 0:
            base = o * (4 + NP)
            work[base] += bd[1, t]
            work[base + 1] += bd[2, t]
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


@njit(**NO_ALLOC)
def record_game(P, capped, ever, bd, pl, pcount, gs, src, hist, terr, prov, pi, wins, misc,
                lengths, margin, start_inc, start_major, start_cluster, catch, sources, provs,
                seat, row):
    """The winner (most Honor; ties by clan points, cities, territories, castles, samurai;
    -1 when still equal) and the game's statistics."""
    T = bd.shape[1]
    NP = prov.shape[0]
    turns = gs[G_TURN]
    # winner: most Honor; ties by clan points, cities, territories, castles, samurai
    best = -1
    second = -1
    winner = -1
    shared_win = False
    for q in range(P):
        castles = 0
        samurai = 0
        for t in range(T):
            if bd[0, t] == q:
                castles += bd[2, t]
                samurai += bd[1, t]
        key = (((((pl[q, PL_HONOR] * 64 + min(pl[q, PL_CP], 63)) * 64
                  + min(pl[q, PL_CITIES], 63)) * 64 + min(pl[q, PL_NTERR], 63)) * 8
                + min(castles, 7)) * 128 + min(samurai, 127))
        if key > best:
            second = max(second, best)
            best = key
            winner = q
            shared_win = False
        elif key == best:
            shared_win = True
        else:
            second = max(second, key)
    if shared_win:
        winner = -1
        misc[M_SHARED] += 1
    else:
        wins[winner] += 1
    if capped:
        misc[M_CAPPED] += 1
    lengths[min(turns, lengths.shape[0] - 1)] += 1
    top = -1
    runner = -1
    for q in range(P):
        h = pl[q, PL_HONOR]
        if h > top:
            runner = top
            top = h
        elif h > runner:
            runner = h
    margin[min(top - runner, margin.shape[0] - 1)] += 1
    any_out = False
    for q in range(P):
        won = int(q == winner)
        start_inc[min(row[R_INCOME + q], start_inc.shape[0] - 1), 0] += 1
        start_inc[min(row[R_INCOME + q], start_inc.shape[0] - 1), 1] += won
        if hist[H_MAJOR + q] >= 0:
            start_major[hist[H_MAJOR + q], 0] += 1
            start_major[hist[H_MAJOR + q], 1] += won
        cl = min(hist[H_CLUSTER + q], start_cluster.shape[0] - 1)
        start_cluster[cl, 0] += 1
        start_cluster[cl, 1] += won
        h = pl[q, PL_HONOR]
        seat[q, SS_HONOR] += h
        seat[q, SS_HONOR2] += h * h
        seat[q, SS_CP] += pl[q, PL_CP]
        any_out |= pl[q, PL_EVER_OUT] == 1
        row[R_HONOR + q] = h
        row[R_CP + q] = pl[q, PL_CP]
    misc[M_GAMES_ELIM] += any_out
    last = min(turns, hist.shape[0] - H_EMP - 1)
    for k in range(1, min(last, catch.shape[0] - 1) + 1):
        catch[k, 0] += 1
        catch[k, 1] += int(hist[H_EMP + k] == winner)
    for s in range(N_SRC):
        tot = 0
        for q in range(P):
            tot += src[q, s]
        sources[s, SR_SUM] += tot
        sources[s, SR_SQ] += tot * tot
        if winner >= 0:
            w = src[winner, s]
            sources[s, SR_WIN] += w
            sources[s, SR_WIN_SQ] += w * w
    for pr in range(NP):
        provs[pr, PS_EVER] += (ever >> pr) & 1
        for q in range(P):
            if province_complete(pcount, prov, q, pr):
                provs[pr, PS_END] += 1
                provs[pr, PS_WINNER] += int(q == winner)
    if winner >= 0:
        kyoto = pi[PI_KYOTO]
        misc[M_KINAI_WINNER] += province_complete(pcount, prov, winner, terr[kyoto, TC_PROV])
        misc[M_KYOTO_WINNER] += bd[0, kyoto] == winner
    row[R_WINNER] = winner
    row[R_TURNS] = turns
    row[R_COMPLETED] = int(not capped)
    return winner




@njit(**JIT)
def new_buffers(P, T, NP, NC, max_turns):
    """Scratch state for one game: (bd, pl, pcount, hand, piles, gs, src, hist, scr, row).
    After a game they hold its final state: bd[0] owner, bd[1] samurai, bd[2] castle per
    territory; pl[p, PL_*] per clan; hand and piles[0] (draw pile), piles[1] (discards)
    with their counts in pl[:, PL_HAND] and gs[G_DECK], gs[G_DISC]."""
    return (np.zeros((3, T), np.int64), np.zeros((P, N_PL), np.int64),
            np.zeros((P, NP), np.int64), np.zeros((P, NC), np.int64),
            np.zeros((2, NC), np.int64), np.zeros(N_G, np.int64),
            np.zeros((P, N_SRC), np.int64), np.zeros(H_EMP + max_turns + 2, np.int64),
            np.zeros((N_SC, max(T, NC, MAX_P * (4 + NP))), np.int64),
            np.zeros(N_ROW, np.int64))


@njit(**NO_ALLOC)
def play_chunk(seed, first, count, P, pol, lane, states, bd, pl, pcount, hand, piles, gs,
               src, hist, scr, row, terr, adj_start, adj, prov, majors, minors, cards, deck0,
               pi, pf, win, wins, misc, lengths, margin, start_inc, start_major,
               start_cluster, catch, sources, provs, battles, cstats, seat, trace, rows):
    """Play games first .. first+count-1 of the run keyed by `seed`; add their statistics.

    Seat s plays policy pol[s] with its random choices from states[lane[s]] (in a mirrored
    rotation the lanes move with the players); statistics are kept by seat. The scratch
    buffers come from new_buffers and hold the last game's final state afterwards. `rows`
    is either (count, N_ROW) to receive one row per game, or (0, N_ROW).

    One flat loop calls every phase directly (numba re-optimises a function's whole call
    tree when it compiles it, so a shallow tree compiles much faster).
    """
    T = bd.shape[1]
    NP = prov.shape[0]
    order = scr[SC_ORDER]
    done = scr[SC_DONE]
    keep = rows.shape[0] > 0
    for g in range(count):
        index = first + g
        seed_lanes(states, seed, index)
        for c in range(N_ROW):
            row[c] = -1
        setup(states, lane, pol, P, bd, pl, pcount, hand, piles, gs, src, terr, adj_start,
              adj, majors, minors, pi, deck0, scr, misc, row)
        for p in range(P):  # start-draw facts, for the statistics at the end
            hist[H_MAJOR + p] = -1
            m = 0
            for pr in range(NP):
                m = max(m, pcount[p, pr])
            hist[H_CLUSTER + p] = m
            for t in range(T):
                if bd[0, t] == p and terr[t, TC_CP] == 2:
                    hist[H_MAJOR + p] = t
        ever = np.int64(0)  # provinces held whole at the end of some turn (bit mask)
        capped = False
        while True:
            gs[G_TURN] += 1
            turn = gs[G_TURN]
            emp = gs[G_EMP]
            for i in range(P):  # eliminated clans come back
                q = (emp + i) % P
                if pl[q, PL_OUT]:
                    return_clan(states[lane[q]], pol[q], q, bd, pl, pcount, terr, pi, misc)
            for q in range(P):
                pl[q, PL_BUILT] = 0
            estate = states[lane[emp]]
            # phase 1: purchase and placement, in the Emperor's order
            fixed_order(estate, pol[emp], emp, pl, done, order)
            for i in range(P):
                q = order[i]
                if pl[q, PL_OUT] == 0:
                    purchase(states, lane, pol, q, bd, pl, terr, adj_start, adj, pi, misc)
            # phase 2: clan activation (the full Emperor names each next clan as it goes)
            for q in range(P):
                done[q] = 0
            for i in range(P):
                p = order[i] if pi[PI_LIMITED] else next_in_order(estate, pol[emp], emp, pl,
                                                                  done)
                done[p] = 1
                if pl[p, PL_OUT]:
                    continue
                pl[p, PL_FREE] = int(p == gs[G_SHOGUN])
                actions = 0
                while pl[p, PL_OUT] == 0:
                    if actions >= pi[PI_MAX_ACTIONS]:
                        misc[M_ACTION_CAP] += 1
                        break
                    act = A_PASS
                    a = 0
                    b = 0
                    c = 0
                    if pol[p] == GREEDY:
                        a, b = greedy_card(p, bd, pl, hand, terr, adj_start, adj, pi, cards)
                        if a >= 0:
                            act = A_CARD
                        else:
                            a, b, c = greedy_move(p, bd, pl, pcount, terr, prov, adj_start,
                                                  adj, pi, pf, win, gs)
                            if a >= 0:
                                act = A_MOVE
                    else:
                        act, a, b, c = random_choice(states[lane[p]], p, bd, pl, hand,
                                                     adj_start, adj, pi, cards)
                    if act == A_PASS:
                        break
                    actions += 1
                    if act == A_CARD:
                        play_card(states, lane, pol, p, a, b, bd, pl, pcount, hand, piles, gs,
                                  src, terr, pi, cards, cstats, misc)
                    elif act == A_MOVE:
                        if start_move(states, lane, pol, p, a, b, c, bd, pl, pcount, hand,
                                      piles, gs, terr, adj, cards, win, misc, cstats):
                            battle(states, lane, pol, p, a, adj[0, b], c, bd, pl, pcount,
                                   hand, piles, gs, src, terr, adj_start, adj, pi, cards, misc,
                                   battles, cstats, seat)
                    else:  # sell 2 Honor for 1 koku
                        lose(pl, src, p, 2, L_SOLD)
                        pl[p, PL_KOKU] += 1
                        misc[M_SOLD] += 1
                misc[M_ACTIONS] += actions
                pl[p, PL_FREE] = 0
                if pl[p, PL_OUT] == 0:
                    end_activation(p, bd, pl, pcount, gs, src, terr, prov, pi)
            # phase 3: Emperor and Shogun; phase 4: taxes and cards
            new_offices(pl, gs, bd, pi, src, seat)
            if H_EMP + turn < hist.shape[0]:
                hist[H_EMP + turn] = gs[G_EMP]
            taxes_and_cards(states, lane, pol, bd, pl, hand, piles, gs, src, terr, pi, cards,
                            misc)
            for pr in range(NP):
                for q in range(P):
                    if province_complete(pcount, prov, q, pr):
                        provs[pr, PS_TURNS] += 1
                        ever |= 1 << pr
            if not audit(P, bd, pl, pcount, gs, terr, pi, deck0.shape[0], scr[SC_A]):
                misc[M_BROKEN] += 1
            if index < pi[PI_TRACE] and turn <= TRACE_TURNS:
                for q in range(P):
                    trace[index, q, turn - 1] = pl[q, PL_HONOR] + 1
            if gs[G_END]:
                break
            if turn >= pi[PI_MAX_TURNS]:
                capped = True
                break
        record_game(P, capped, ever, bd, pl, pcount, gs, src, hist, terr, prov, pi, wins,
                    misc, lengths, margin, start_inc, start_major, start_cluster, catch,
                    sources, provs, seat, row)
        if keep:
            for c in range(N_ROW):
                rows[g, c] = row[c]
