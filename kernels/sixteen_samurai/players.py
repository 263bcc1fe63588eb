"""Sixteen Samurai players: each policy chooses one of the legal actions (rules.py).

A player reads only what its seat could know: the public table (the draft pool, the
declared ability, the fighters, revealed samurai and dice, played cards, pile sizes, every
clan's drafted samurai), its own hand and its own draw pile, and through the rules'
accessors what is public but kept in hidden places (`rules.rival_best_remaining`). Random
choices come from the seat's own stream. `forbid[seat, option]` (options: rules.OPTIONS,
the battle cards, then the abilities) lists the cards a seat never plays and the
abilities it never declares (in either phase); passing, or fielding without a card, is
never forbidden. A seat forbidden every ability declares as if none were forbidden (a
declaration cannot be skipped); `simcli value` forbids one option at a time.

random: uniform at every decision: any face-up samurai, any ability, any samurai in hand
  then no card or any before-rolling card it holds, and at every offer uniformly among
  passing and each playable after-rolling card (Bushido: each rerollable target).
greedy: see POLICIES in simcli/games/sixteen_samurai/game.py.
"""

import numpy as np

from kernels.dice import UMA as UMA_POOL
from kernels.dice import popcount, top_group_with
from kernels.jit import kernel
from kernels.rng import below
from kernels.sixteen_samurai.rules import (
    BUSHIDO,
    BUSHIDO_ON,
    DECLARE,
    DRAFT,
    FB_DECLARE,
    FIELD,
    MEDICINE,
    N_ABILITY,
    NINJUTSU,
    NONE,
    OFFER,
    OPT_ABILITY,
    PASS,
    PLAY_MEDICINE,
    PLAY_RONIN,
    RONIN,
    UMA,
    WITH_NINJUTSU,
    WITH_UMA,
    before_cards_allowed,
    count_samurai,
    find,
    has_samurai,
    leaders,
    offer_options,
    rival_best_remaining,
)

RANDOM = 0
GREEDY = 1
POLICY_CODES = {"random": RANDOM, "greedy": GREEDY}
FOUR = np.int64(N_ABILITY)
ZERO = np.int64(0)


# --- reading the own hand ----------------------------------------------------------------
@kernel(inline=True)
def best_for(hand, hand_n, p, ratings, totals, a, banned):
    """p's samurai in hand (not `banned`) with most dice in ability a (fewest total on
    ties, then lowest index), or -1."""
    best_c = NONE
    best_key = -1
    for i in range(hand_n[p]):
        c = hand[p, i]
        if c >= 0 and c != banned:
            key = ratings[c, a] * 100000 + (1000 - totals[c]) * 100 + (99 - min(c, 99))
            if key > best_key:
                best_key = key
                best_c = c
    return best_c


@kernel(inline=True)
def weakest(hand, hand_n, p, totals):
    """p's samurai in hand with the lowest ability total (lowest index on ties)."""
    best_c = NONE
    best_key = 1 << 40
    for i in range(hand_n[p]):
        c = hand[p, i]
        if c >= 0:
            key = totals[c] * 1000 + c
            if key < best_key:
                best_key = key
                best_c = c
    return best_c


@kernel(inline=True)
def random_samurai(hand, hand_n, p, s, banned):
    """A uniformly chosen samurai of p's hand (stream s), not `banned` unless it is the
    only one."""
    n = 0
    for i in range(hand_n[p]):
        c = hand[p, i]
        if c >= 0 and c != banned:
            n += 1
    if n == 0:
        banned = -2
        n = count_samurai(hand, hand_n, p)
    pick = below(s, np.int64(n))
    for i in range(hand_n[p]):
        c = hand[p, i]
        if c >= 0 and c != banned:
            if pick == 0:
                return c
            pick -= 1
    return NONE


@kernel(inline=True)
def n_declarable(forbid, p):
    """How many abilities p may declare (0 when every one is forbidden)."""
    n = 0
    for a in range(N_ABILITY):
        n += not forbid[p, OPT_ABILITY + a]
    return n


@kernel(inline=True)
def declarable(forbid, p, a, n_ok):
    """Whether p may declare ability a (n_ok = n_declarable: 0 lifts the ban)."""
    return n_ok == 0 or not forbid[p, OPT_ABILITY + a]


@kernel(inline=True)
def declare_random(p, s, forbid):
    """Any ability p may declare, uniformly (stream s)."""
    n_ok = n_declarable(forbid, p)
    if n_ok == 0 or n_ok == N_ABILITY:
        return below(s, FOUR)
    pick = below(s, np.int64(n_ok))
    for a in range(N_ABILITY):
        if not forbid[p, OPT_ABILITY + a]:
            if pick == 0:
                return np.int64(a)
            pick -= 1
    return ZERO


@kernel(inline=True)
def declare_greedy(hand, hand_n, p, ratings, s, forbid):
    """The ability of p's best samurai in hand (best single rating, then total) among
    those p may declare; any of them at random when p holds no samurai."""
    if count_samurai(hand, hand_n, p) == 0:
        return declare_random(p, s, forbid)
    n_ok = n_declarable(forbid, p)
    best_a = 0
    best_key = -1
    for a in range(N_ABILITY):
        if not declarable(forbid, p, a, n_ok):
            continue
        top = 0
        tot = 0
        for i in range(hand_n[p]):
            c = hand[p, i]
            if c >= 0:
                r = ratings[c, a]
                top = max(top, r)
                tot += r
        key = top * 1000 + tot
        if key > best_key:
            best_key = key
            best_a = a
    return np.int64(best_a)


# --- decisions ---------------------------------------------------------------------------
@kernel(inline=True)
def field_random(st, p, s, forbid):
    """Any samurai in hand, then no card or any before-rolling card p holds, uniformly."""
    c = random_samurai(st.hand, st.hand_n, p, s, NONE)
    b = ZERO
    if before_cards_allowed(st):
        nin = find(st.hand, st.hand_n, p, -1 - NINJUTSU) >= 0 and not forbid[p, NINJUTSU]
        uma = find(st.hand, st.hand_n, p, -1 - UMA) >= 0 and not forbid[p, UMA]
        pick = below(s, np.int64(1 + uma + nin))
        if pick > 0:
            b = WITH_NINJUTSU if nin and pick == 1 else WITH_UMA
    return 3 * c + b


@kernel(inline=True)
def field_greedy(st, p, forbid):
    """The samurai with most dice in the declared ability; Uma (with the weakest samurai)
    or Ninjutsu when the exact odds say the card gains more than the margin against the
    best each rival could still field (any gain once p's draw pile holds no samurai)."""
    a = st.ability[0]
    c = best_for(st.hand, st.hand_n, p, st.ratings, st.totals, a, NONE)
    if not before_cards_allowed(st):
        return 3 * c
    can_uma = find(st.hand, st.hand_n, p, -1 - UMA) >= 0 and not forbid[p, UMA]
    can_nin = find(st.hand, st.hand_n, p, -1 - NINJUTSU) >= 0 and not forbid[p, NINJUTSU]
    if not (can_uma or can_nin):
        return 3 * c
    o1 = 0
    o2 = 0
    o3 = 0
    n_opp = 0
    for q in range(st.players[0]):
        if st.part[q] and q != p:
            v = rival_best_remaining(st, q, a)
            if n_opp == 0:
                o1 = v
            elif n_opp == 1:
                o2 = v
            else:
                o3 = v
            n_opp += 1
    kb = st.ratings[c, a]
    m = st.margin[0] if has_samurai(st.deck, st.deck_n, p) else 0.0
    p_none = st.odds[kb, o1, o2, o3]
    p_uma = st.odds[UMA_POOL, o1, o2, o3] if can_uma else -1.0
    p_nin = -1.0
    if can_nin:  # every rival rolls one die
        p_nin = st.odds[kb, 1 if n_opp > 0 else 0, 1 if n_opp > 1 else 0,
                        1 if n_opp > 2 else 0]
    if p_uma >= p_nin and p_uma - p_none > m:
        return 3 * weakest(st.hand, st.hand_n, p, st.totals) + WITH_UMA
    if p_nin - p_none > m:
        return 3 * c + WITH_NINJUTSU
    return 3 * c


@kernel(inline=True)
def offer_random(st, p, s, forbid):
    """Uniform among passing and each playable after-rolling card (Bushido: each target)."""
    can_ronin, can_med, can_bush = offer_options(st, p)
    can_ronin = can_ronin and not forbid[p, RONIN]
    can_med = can_med and not forbid[p, MEDICINE]
    can_bush = can_bush and not forbid[p, BUSHIDO]
    n_opt = 1 + can_ronin + can_med
    if can_bush:
        for q in range(st.players[0]):
            n_opt += st.part[q] and not st.is_uma[q]
    pick = below(s, np.int64(n_opt))
    if pick == 0:
        return PASS
    pick -= 1
    if can_ronin:
        if pick == 0:
            return PLAY_RONIN
        pick -= 1
    if can_med:
        if pick == 0:
            return PLAY_MEDICINE
        pick -= 1
    for q in range(st.players[0]):
        if st.part[q] and not st.is_uma[q]:
            if pick == 0:
                return BUSHIDO_ON + q
            pick -= 1
    return PASS


@kernel(inline=True)
def share_after_reroll(st, p, q):
    """Expected share of the round for p if q rerolls its dice, the others unchanged
    (exact, from the table of a pool's two highest dice)."""
    n = st.players[0]
    kq = st.nd[q]
    others = 0
    for r in range(n):
        if st.part[r] and r != q:
            others = max(others, st.t1[r])
    total = 0.0
    # q's highest die below the others' best: q is out of contention, one evaluation
    low = 0.0
    for a in range(1, others):
        for b in range(0, a + 1):
            low += st.tops[kq, a, b]
    if low > 0.0:
        mask = top_group_with(st.t1, st.t2, st.nd, st.part, n, q, ZERO, ZERO)
        if (mask >> p) & 1:
            total += low / popcount(mask)
    for a in range(max(others, 1), st.faces[0] + 1):
        for b in range(0, a + 1):
            w = st.tops[kq, a, b]
            if w == 0.0:
                continue
            mask = top_group_with(st.t1, st.t2, st.nd, st.part, n, q, np.int64(a),
                                  np.int64(b))
            if (mask >> p) & 1:
                total += w / popcount(mask)
    return total


@kernel(inline=True)
def offer_greedy(st, p, forbid):
    """Ronin when losing; Bushido on itself or a leader when an exact reroll calculation
    gains more than the margin; Medicine when losing; else pass (after a tiebreaker,
    with after_tb, losing means having lost it)."""
    can_ronin, can_med, can_bush = offer_options(st, p)
    can_ronin = can_ronin and not forbid[p, RONIN]
    can_med = can_med and not forbid[p, MEDICINE]
    can_bush = can_bush and not forbid[p, BUSHIDO]
    mask = leaders(st)
    mine = 1.0 / popcount(mask) if (mask >> p) & 1 else 0.0
    if can_ronin and mine == 0.0:
        return PLAY_RONIN
    if can_bush and mine < 1.0:
        best_gain = st.margin[0]
        best_t = -1
        for q in range(st.players[0]):
            if st.part[q] and not st.is_uma[q] and (q == p or (mask >> q) & 1):
                e = share_after_reroll(st, p, np.int64(q))
                if e - mine > best_gain:
                    best_gain = e - mine
                    best_t = q
        if best_t >= 0:
            return BUSHIDO_ON + best_t
    if can_med and mine == 0.0:
        return PLAY_MEDICINE
    return PASS


@kernel
def choose(st, forbid):
    """The action the seat to act chooses under its policy (st.pol)."""
    p = st.actor[0]
    ph = st.phase[0]
    greedy = st.pol[p] == GREEDY
    s = st.rng[st.lane[p]]
    a = st.ability[0]
    if ph == DRAFT:
        return st.avail[0] if greedy else st.avail[below(s, st.avail_n[0])]
    if ph in (DECLARE, FB_DECLARE):
        if greedy:
            return declare_greedy(st.hand, st.hand_n, p, st.ratings, s, forbid)
        return declare_random(p, s, forbid)
    if ph == FIELD:
        return field_greedy(st, p, forbid) if greedy else field_random(st, p, s, forbid)
    if ph == OFFER:
        return offer_greedy(st, p, forbid) if greedy else offer_random(st, p, s, forbid)
    # Final Battle: not the samurai that won p's last round, unless it is the only one
    if not greedy:
        return random_samurai(st.hand, st.hand_n, p, s, st.last_card[p])
    c = best_for(st.hand, st.hand_n, p, st.ratings, st.totals, a, st.last_card[p])
    return c if c >= 0 else best_for(st.hand, st.hand_n, p, st.ratings, st.totals, a, NONE)
