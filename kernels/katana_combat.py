"""Samurai & Katana combat: card choice, combat points, losses and outcome, and the Monte
Carlo odds of one battle.

Cards are type codes (rows of a `cards` table, columns CC_*). A side plays two combat cards
(their values count) and may add one blue special (its effect counts). Combat points = the
two values (a castle doubles its owner's weaker one) + min(samurai, 4) + the special's bonus
+ 1 for a defender in the mountains. Most points wins; a tie goes to the defender. Each side
loses samurai equal to the swords on the other side's cards, at most 4 and at most its army.
"""

import numpy as np

from kernels.jit import kernel
from kernels.rng import STATE_SIZE, below, next_u64, seed_stream

# Card table columns
CC_VALUE = 0
CC_SWORDS = 1
CC_KIND = 2
CC_EFFECT = 3
CC_AMOUNT = 4
CC_COST = 5
CC_KEEP = 6  # greedy's wish to keep the card for its power (higher: played last in combat)
CC_KEY = 7  # order as a combat card: value, then swords, then least keep (see combat_key)
N_CC = 8

# Card kinds
K_WARRIOR = 0
K_SPECIAL = 1
K_EVENT = 2
K_ANYTIME = 3

# Effects
E_NONE = 0
E_FAN = 1
E_ARQUEBUS = 2
E_ALLIANCE = 3
E_UPRISING = 4
E_HONOR = 5
E_INSULT = 6
E_KOKU = 7
E_WAKO = 8
E_NINJA = 9
E_TSUNAMI = 10
E_SCORCHED = 11
E_JUSTICE = 12
N_EFFECTS = 13

# Card-choice policies (the campaign's policy codes)
RANDOM = 0
GREEDY = 1

MAX_COUNTED = 4  # samurai that count in a combat
MAX_LOSS = 4  # swords of losses a side can suffer

# Battle results
ATTACKER = 1
TIE = 0
DEFENDER = -1

# Odds statistics per (attacker size, defender size, castle, mountain)
OS_WIN = 0  # attacker wins
OS_TIE = 1
OS_LA = 2  # attacker losses: sum, sum of squares
OS_LA2 = 3
OS_LD = 4  # defender losses
OS_LD2 = 5
OS_EMPTY = 6  # the territory ends with no piece on it
N_OS = 7
MAX_SIZE = 8  # odds grid: army sizes 0..8


_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1) << np.uint64(32)
_S32 = np.uint64(32)


@kernel(inline=True)
def special_gain(cards, c, allies):
    """(combat points, swords) a special card adds; `allies` = the player's samurai in
    territories land-adjacent to the battle (for Alliance)."""
    eff = cards[c, CC_EFFECT]
    if eff == E_FAN:
        return cards[c, CC_AMOUNT], 0
    if eff == E_ARQUEBUS:
        return 0, cards[c, CC_AMOUNT]
    if eff == E_ALLIANCE:
        return min(allies, cards[c, CC_AMOUNT]), 0
    return 0, 0


def combat_key(value, swords, keep, special):
    """The CC_KEY column: the order of cards as combat cards (value, then swords, then least
    wish to keep), times 2, plus 1 for a special; value = key >> 13, swords = key >> 7 & 63."""
    return (value * 4096 + swords * 64 + (63 - min(keep, 63))) * 2 + int(special)


@kernel
def card_points(hand, i, j, k, cards, castle, allies):
    """(combat points from cards, swords) of the choice (i, j) + special k (-1: none); a
    castle doubles the weaker combat card."""
    vi = cards[hand[i], CC_VALUE]
    vj = cards[hand[j], CC_VALUE]
    pts = vi + vj
    if castle:
        pts += min(vi, vj)
    sw = cards[hand[i], CC_SWORDS] + cards[hand[j], CC_SWORDS]
    if k >= 0:
        gp, gs = special_gain(cards, hand[k], allies)
        pts += gp
        sw += gs + cards[hand[k], CC_SWORDS]
    return pts, sw


@kernel(inline=True)
def _value(packed):
    return packed >> 19


@kernel(inline=True)
def _swords(packed):
    return packed >> 13 & 63


@kernel(inline=True)
def _position(packed):
    return 63 - (packed & 63)


@kernel
def choose_strongest(hand, n, cards, castle, allies, can_special):
    """The choice with most combat points, then most swords (then, among equals, the
    cards greedy least wishes to keep, and no special before a special): (i, j, k, card
    points, swords) with i, j the hand positions of the two combat cards and k that of the
    special (-1: none).

    The two best cards by CC_KEY are the best pair whatever the castle (it doubles the
    weaker); with a special k among them, the third best replaces it. The three best are
    kept without branches (each card's key packed with its position, earlier first among
    equals), which random hands would otherwise mispredict.
    """
    t1 = np.int64(-1)
    t2 = np.int64(-1)
    t3 = np.int64(-1)
    specials = 0
    for x in range(n):
        k = cards[hand[x], CC_KEY]
        specials |= (k & 1) << x
        v = k * 64 + (63 - x)
        lo = min(t1, v)
        t1 = max(t1, v)
        lo2 = min(t2, lo)
        t2 = max(t2, lo)
        t3 = max(t3, lo2)
    if t2 < 0:
        return -1, -1, -1, 0, 0
    v1 = _value(t1)
    v2 = _value(t2)
    pts = v1 + v2 + (v2 if castle else 0)
    sw = _swords(t1) + _swords(t2)
    i1 = _position(t1)
    i2 = _position(t2)
    if specials == 0 or not can_special:
        return i1, i2, -1, pts, sw
    best = pts * 1000 + sw
    bi = i1
    bj = i2
    bk = -1
    bp = pts
    bs = sw
    for x in range(n):
        if not (specials >> x) & 1:
            continue
        if x == i1:
            a, b = t2, t3
        elif x == i2:
            a, b = t1, t3
        else:
            a, b = t1, t2
        if b < 0:
            continue
        va = _value(a)
        vb = _value(b)
        c = hand[x]
        gp, gs = special_gain(cards, c, allies)
        p = va + vb + (min(va, vb) if castle else 0) + gp
        w = _swords(a) + _swords(b) + cards[c, CC_SWORDS] + gs
        score = p * 1000 + w
        if score > best:
            best = score
            bi = _position(a)
            bj = _position(b)
            bk = x
            bp = p
            bs = w
    return bi, bj, bk, bp, bs


@kernel
def choose_random(state, hand, n, cards, can_special):
    """A uniformly drawn legal choice: any two combat cards, and no special or any blue
    card among the rest, every (pair, special) equally likely."""
    total = 0
    for i in range(n):
        for j in range(i + 1, n):
            total += 1
            if can_special:
                for k in range(n):
                    if k != i and k != j and cards[hand[k], CC_KIND] == K_SPECIAL:
                        total += 1
    if total == 0:
        return -1, -1, -1
    r = below(state, total)
    for i in range(n):
        for j in range(i + 1, n):
            if r == 0:
                return i, j, -1
            r -= 1
            if can_special:
                for k in range(n):
                    if k != i and k != j and cards[hand[k], CC_KIND] == K_SPECIAL:
                        if r == 0:
                            return i, j, k
                        r -= 1
    return -1, -1, -1


@kernel
def choose(policy, state, hand, n, cards, castle, allies, can_special):
    """The card choice of a policy: (i, j, k, card points, swords), i and j the hand
    positions of the combat cards, k that of the special (-1: none)."""
    if policy == GREEDY:
        return choose_strongest(hand, n, cards, castle, allies, can_special)
    i, j, k = choose_random(state, hand, n, cards, can_special)
    if i < 0:
        return -1, -1, -1, 0, 0
    pts, sw = card_points(hand, i, j, k, cards, castle, allies)
    return i, j, k, pts, sw


@kernel
def resolve(pa, pd, swa, swd, a, d, castle):
    """Outcome of a battle from the combat points (pa, pd), the swords on each side's cards
    (swa, swd) and the army sizes: (result, attacker losses, defender losses, territory ends
    empty). A winner wiped out leaves the territory empty; so does a defender who holds it
    without samurai or castle."""
    la = min(MAX_LOSS, swd, a)
    ld = min(MAX_LOSS, swa, d)
    if pa > pd:
        return ATTACKER, la, ld, a - la == 0
    result = TIE if pa == pd else DEFENDER
    return result, la, ld, d - ld == 0 and not castle


@kernel(inline=True)
def total_points(card_pts, samurai, bonus):
    """Combat points: cards + samurai (at most 4 count) + a terrain bonus."""
    return card_pts + min(samurai, MAX_COUNTED) + bonus


@kernel
def _bounded(state, r, n):
    """Uniform integer in [0, n) from 32 random bits r (Lemire's method; on the rare
    rejection a fresh draw from the stream)."""
    m = r * np.uint64(n)
    low = m & _MASK32
    if low < np.uint64(n):
        threshold = (_TWO32 - np.uint64(n)) % np.uint64(n)
        if low < threshold:
            return below(state, n)
    return np.int64(m >> _S32)


@kernel
def draw_hand(state, deck, deck_n, h, hand, picked):
    """Deal h cards uniformly without replacement from deck[:deck_n] into hand: distinct
    positions drawn in turn (a position already taken is drawn again), two draws from each
    64 random bits. The deck is not changed, so each deal is independent of earlier ones."""
    x = np.uint64(0)
    half = 0
    i = 0
    while i < h:
        if half == 0:
            x = next_u64(state)
            r = x >> _S32
        else:
            r = x & _MASK32
        half ^= 1
        j = _bounded(state, r, deck_n)
        taken = False
        for q in range(i):
            if picked[q] == j:
                taken = True
        if taken:
            continue
        picked[i] = j
        hand[i] = deck[j]
        i += 1


@kernel
def odds_loop(seed, first, count, deck, cards, h, pol_a, pol_d, a_lo, a_hi, d_lo, d_hi,
              castles, mountains, state, ha, hd, picked, out):
    """Battles first .. first+count-1: each side is dealt h cards from its own full deck and
    chooses by its policy; every requested (a, d, castle, mountain) cell is scored on the
    same deal. out[a, d, castle, mountain, OS_*] accumulates."""
    deck_n = deck.shape[0]
    for g in range(count):
        seed_stream(state, seed, first + g)  # each battle's own stream (seed, index)
        draw_hand(state, deck, deck_n, h, ha, picked)
        draw_hand(state, deck, deck_n, h, hd, picked)
        if pol_a == GREEDY:
            i, j, k, pa, swa = choose_strongest(ha, h, cards, np.bool_(False), np.int64(0),
                                                 np.bool_(True))
        else:
            i, j, k, pa, swa = choose(pol_a, state, ha, h, cards, np.bool_(False),
                                       np.int64(0), np.bool_(True))
        if pol_d == GREEDY:
            for c in range(2):
                if not castles[c]:
                    continue
                i, j, k, pd, swd = choose_strongest(hd, h, cards, c == 1, np.int64(0),
                                                     np.bool_(True))
                score_cells(out, pa, swa, pd, swd, c, a_lo, a_hi, d_lo, d_hi, mountains)
        else:
            i, j, k = choose_random(state, hd, h, cards, np.bool_(True))
            for c in range(2):
                if castles[c]:
                    pd, swd = card_points(hd, i, j, k, cards, c == 1, np.int64(0))
                    score_cells(out, pa, swa, pd, swd, c, a_lo, a_hi, d_lo, d_hi, mountains)


@kernel
def score_cells(out, pa, swa, pd, swd, c, a_lo, a_hi, d_lo, d_hi, mountains):
    """Add one deal's outcome to every requested cell of castle case c."""
    for m in range(2):
        if not mountains[m]:
            continue
        for a in range(a_lo, a_hi + 1):
            for d in range(d_lo, d_hi + 1):
                if d == 0 and c == 0:
                    continue  # no defender at all: not a battle
                r, la, ld, empty = resolve(total_points(pa, a, np.int64(0)), total_points(pd, d, m),
                                           swa, swd, a, d, c == 1)
                cell = out[a, d, c, m]
                cell[OS_WIN] += r == ATTACKER
                cell[OS_TIE] += r == TIE
                cell[OS_LA] += la
                cell[OS_LA2] += la * la
                cell[OS_LD] += ld
                cell[OS_LD2] += ld * ld
                cell[OS_EMPTY] += empty


@kernel(alloc=True)
def odds_chunk(seed, first, count, deck, cards, h, pol_a, pol_d, a_lo, a_hi, d_lo, d_hi,
               castles, mountains, out):
    """Monte Carlo odds of battles first .. first+count-1 of the run keyed by `seed`: each
    battle draws only from its own stream (seed, index)."""
    state = np.zeros(STATE_SIZE, np.uint64)  # a stream state (keyed per battle below)
    ha = np.zeros(h, np.int64)
    hd = np.zeros(h, np.int64)
    picked = np.zeros(h, np.int64)
    odds_loop(seed, first, count, deck, cards, h, pol_a, pol_d, a_lo, a_hi, d_lo, d_hi,
              castles, mountains, state, ha, hd, picked, out)


@kernel
def exact_side(hands, weights, cards, policy, castle, hist):
    """Add to hist[points, swords] the probability of each (card points, swords) a side
    reaches: hands[r] is one possible hand (type codes) with probability weights[r]; a
    greedy side plays its strongest choice, a random one each legal choice equally often."""
    h = hands.shape[1]
    for r in range(hands.shape[0]):
        hand = hands[r]
        w = weights[r]
        if policy == GREEDY:
            i, j, k, pts, sw = choose_strongest(hand, h, cards, castle, np.int64(0),
                                                   np.bool_(True))
            hist[pts, sw] += w
            continue
        total = 0
        for i in range(h):
            for j in range(i + 1, h):
                total += 1
                for k in range(h):
                    if k != i and k != j and cards[hand[k], CC_KIND] == K_SPECIAL:
                        total += 1
        share = w / total
        for i in range(h):
            for j in range(i + 1, h):
                pts, sw = card_points(hand, i, j, np.int64(-1), cards, castle, np.int64(0))
                hist[pts, sw] += share
                for k in range(h):
                    if k != i and k != j and cards[hand[k], CC_KIND] == K_SPECIAL:
                        pts, sw = card_points(hand, i, j, k, cards, castle, np.int64(0))
                        hist[pts, sw] += share
