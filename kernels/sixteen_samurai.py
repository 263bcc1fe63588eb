"""Sixteen Samurai: draft, Clan Conflict with battle cards, Final Battle (2-4 players).

Cards in decks and hands are codes: a samurai is its roster index (>= 0), battle card b is
-1 - b. Every array has a fixed shape set by the chunk runner; nothing grows.
"""

import numpy as np
from numba import njit

from kernels.config import JIT, NO_ALLOC
from kernels.dice import UMA, popcount, resolve, top_group
from kernels.rng import below, new_states, roll_top2, rotation_lanes, seed_lanes, shuffle

# Policies
RANDOM = 0
GREEDY = 1

# Battle cards
NINJUTSU = 0
UMA_CARD = 1
RONIN = 2
BUSHIDO = 3
MEDICINE = 4
N_BATTLE = 5

# Integer parameters (pi)
PI_FACES = 0
PI_UMA = 1
PI_SNAKE = 2
PI_LONE_END = 3
PI_MAX_ROUNDS = 4
PI_CLAN = 5
PI_HAND = 6
N_PI = 7

# Float parameters (pf)
PF_MARGIN = 0
N_PF = 1

# Per-card statistics columns
C_DRAFTED = 0
C_PICK_SUM = 1
C_PICK_SQ = 2
C_FIELDED = 3
C_FIELDED_K2 = 4  # contested Clan Conflict rounds by number of participants: K2, K3, K4
C_FIELD_WON = 7
C_IN_FB = 8
C_SURVIVED = 9
C_OWNER_WON = 10
C_FB_FIELDED = 11
C_FB_WON = 12
N_CARD = 13

# Battle card statistics columns
B_PLAYED_R = 0  # contested rounds where a participant played the card ...
B_PLAYED_R_WON = 1  # ... and took the round's samurai
B_HELD_R = 2  # contested rounds where a participant held it but did not play it ...
B_HELD_R_WON = 3
B_PLAYED_G = 4  # player-games in which the card was played ...
B_PLAYED_G_WON = 5  # ... and the player won the game
B_UNPLAYED_G = 6
B_UNPLAYED_G_WON = 7
B_UNUSED_END = 8  # still unplayed when the Clan Conflict ended
B_EFFECT = 9  # Medicine: samurai saved; Ronin: samurai stolen
N_BSTAT = 10

# Miscellaneous counters
M_CONTESTED = 0
M_UNCONTESTED = 1
M_TIEBREAKS = 2
M_RESHUFFLES = 3
M_DOUBLE_NINJUTSU = 4
M_CAPPED = 5
M_FB_ROUNDS_TIEBREAK = 6
N_MISC = 7

# Per-game row columns (for --save-games)
R_WINNER = 0
R_CC_ROUNDS = 1
R_FB_ROUNDS = 2
R_FB_PLAYERS = 3
R_CLAN_TOTAL = 4  # 4 columns, one per seat (-1 for absent seats)
R_HALL = 8  # 4 columns: Hall of Honor size at the Final Battle
N_ROW = 12

N_LEN = 128  # length histogram bins (last bin: that many or more)
N_DECL = 32  # declarer statistics per round index (last: that round or later)
MAX_P = 4


@njit(**JIT)
def _is_samurai(code):
    return code >= 0


@njit(**JIT)
def _battle_code(b):
    return -1 - b


@njit(**JIT)
def hand_has(hand, hand_n, p, code):
    """Position of `code` in player p's hand, or -1."""
    for i in range(hand_n[p]):
        if hand[p, i] == code:
            return i
    return -1


@njit(**JIT)
def samurai_in_hand(hand, hand_n, p):
    """Number of samurai in player p's hand."""
    c = 0
    for i in range(hand_n[p]):
        if hand[p, i] >= 0:
            c += 1
    return c


@njit(**JIT)
def take_from_hand(hand, hand_n, p, i):
    """Remove and return the card at position i of p's hand."""
    code = hand[p, i]
    hand_n[p] -= 1
    hand[p, i] = hand[p, hand_n[p]]
    return code


@njit(**JIT)
def refill(state, p, hand, hand_n, deck, deck_n, hand_size):
    """Draw p back up to the hand size; reshuffle a full hand that holds no samurai.

    With the printed hand of 5 that is the rulebook's "all 5 Battle Cards in your hand":
    the battle cards go back into the draw pile, it is shuffled, and the hand is redrawn
    (again if need be), as long as the draw pile still holds a samurai. Returns the number
    of reshuffles done.
    """
    while hand_n[p] < hand_size and deck_n[p] > 0:
        deck_n[p] -= 1
        hand[p, hand_n[p]] = deck[p, deck_n[p]]
        hand_n[p] += 1
    reshuffles = 0
    while reshuffles < 1000:
        if hand_n[p] < hand_size or samurai_in_hand(hand, hand_n, p) > 0:
            break
        deck_has_samurai = False
        for i in range(deck_n[p]):
            if deck[p, i] >= 0:
                deck_has_samurai = True
        if not deck_has_samurai:
            break
        i = 0
        while i < hand_n[p]:
            if hand[p, i] < 0:
                deck[p, deck_n[p]] = take_from_hand(hand, hand_n, p, i)
                deck_n[p] += 1
            else:
                i += 1
        shuffle(state, deck[p], deck_n[p])
        while hand_n[p] < hand_size and deck_n[p] > 0:
            deck_n[p] -= 1
            hand[p, hand_n[p]] = deck[p, deck_n[p]]
            hand_n[p] += 1
        reshuffles += 1
    return reshuffles


@njit(**JIT)
def declare(state, policy, p, hand, hand_n, ratings):
    """Ability declared by p: greedy takes the ability of its best samurai in hand."""
    if policy == GREEDY and samurai_in_hand(hand, hand_n, p) > 0:
        best_a = 0
        best_key = -1
        for a in range(4):
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
        return best_a
    return below(state, 4)


@njit(**JIT)
def best_for(hand, hand_n, p, a, ratings, totals, banned):
    """Hand position of p's samurai with most dice in ability a (fewest total on ties)."""
    best_i = -1
    best_key = -1
    for i in range(hand_n[p]):
        c = hand[p, i]
        if c >= 0 and c != banned:
            key = ratings[c, a] * 100000 + (1000 - totals[c]) * 100 + (99 - min(c, 99))
            if key > best_key:
                best_key = key
                best_i = i
    return best_i


@njit(**JIT)
def weakest(hand, hand_n, p, totals):
    """Hand position of p's samurai with the lowest ability total."""
    best_i = -1
    best_key = 1 << 40
    for i in range(hand_n[p]):
        c = hand[p, i]
        if c >= 0:
            key = totals[c] * 1000 + c
            if key < best_key:
                best_key = key
                best_i = i
    return best_i


@njit(**JIT)
def random_samurai(state, hand, hand_n, p, banned):
    """Hand position of a uniformly chosen samurai of p (not `banned` unless it is the only one)."""
    n = 0
    for i in range(hand_n[p]):
        c = hand[p, i]
        if c >= 0 and c != banned:
            n += 1
    if n == 0:
        banned = -2
        for i in range(hand_n[p]):
            if hand[p, i] >= 0:
                n += 1
    pick = below(state, n)
    for i in range(hand_n[p]):
        c = hand[p, i]
        if c >= 0 and c != banned:
            if pick == 0:
                return i
            pick -= 1
    return -1


@njit(**JIT)
def best_remaining(q, a, hand, hand_n, deck, deck_n, ratings):
    """Most dice player q could field in ability a from its unplayed samurai (public info)."""
    top = 1
    for i in range(hand_n[q]):
        c = hand[q, i]
        if c >= 0:
            top = max(top, ratings[c, a])
    for i in range(deck_n[q]):
        c = deck[q, i]
        if c >= 0:
            top = max(top, ratings[c, a])
    return top


@njit(**JIT)
def table_odds(table, me, opp, n_opp):
    """Exact win chance of pool `me` against n_opp pools `opp` (codes)."""
    c1 = opp[0] if n_opp > 0 else 0
    c2 = opp[1] if n_opp > 1 else 0
    c3 = opp[2] if n_opp > 2 else 0
    return table[me, c1, c2, c3]


@njit(**JIT)
def share_after_reroll(p, q, kq, t1, t2, nd, part, n, td, faces):
    """Expected share of the round for p if q rerolls its kq dice, others unchanged."""
    s1 = t1[q]
    s2 = t2[q]
    others = 0
    for r in range(n):
        if part[r] and r != q:
            others = max(others, t1[r])
    total = 0.0
    # q's highest die below the others' best: q is out of contention, one evaluation
    low = 0.0
    for a in range(1, others):
        for b in range(0, a + 1):
            low += td[kq, a, b]
    if low > 0.0:
        t1[q] = 0
        t2[q] = 0
        mask = top_group(t1, t2, nd, part, n)
        if (mask >> p) & 1:
            total += low / popcount(mask)
    for a in range(max(others, 1), faces + 1):
        for b in range(0, a + 1):
            w = td[kq, a, b]
            if w == 0.0:
                continue
            t1[q] = a
            t2[q] = b
            mask = top_group(t1, t2, nd, part, n)
            if (mask >> p) & 1:
                total += w / popcount(mask)
    t1[q] = s1
    t2[q] = s2
    return total


@njit(**JIT)
def choose_after(state, policy, p, hand, hand_n, part, t1, t2, nd, k, is_uma, n,
                 ronin_by, medic, shares, td, faces, margin):
    """After-rolling choice of p: returns (battle card or -1, Bushido target)."""
    h_ronin = hand_has(hand, hand_n, p, _battle_code(RONIN)) >= 0
    h_bush = hand_has(hand, hand_n, p, _battle_code(BUSHIDO)) >= 0
    h_med = hand_has(hand, hand_n, p, _battle_code(MEDICINE)) >= 0
    if not (h_ronin or h_bush or h_med):
        return -1, -1
    mine = shares[p]
    can_ronin = h_ronin and ronin_by < 0 and mine < 1.0
    can_med = h_med and not medic[p] and mine < 1.0
    if policy == GREEDY:
        if can_ronin and mine == 0.0:
            return RONIN, -1
        if h_bush and mine < 1.0:
            best_gain = margin
            best_t = -1
            for q in range(n):
                if part[q] and not is_uma[q] and (q == p or shares[q] > 0.0):
                    e = share_after_reroll(p, q, k[q], t1, t2, nd, part, n, td, faces)
                    if e - mine > best_gain:
                        best_gain = e - mine
                        best_t = q
            if best_t >= 0:
                return BUSHIDO, best_t
        if can_med and mine == 0.0:
            return MEDICINE, -1
        return -1, -1
    # random: uniform over pass and every legal (card, target)
    n_opt = 1 + can_ronin + can_med
    if h_bush:
        for q in range(n):
            if part[q] and not is_uma[q]:
                n_opt += 1
    pick = below(state, n_opt)
    if pick == 0:
        return -1, -1
    pick -= 1
    if can_ronin:
        if pick == 0:
            return RONIN, -1
        pick -= 1
    if can_med:
        if pick == 0:
            return MEDICINE, -1
        pick -= 1
    for q in range(n):
        if part[q] and not is_uma[q]:
            if pick == 0:
                return BUSHIDO, q
            pick -= 1
    return -1, -1


@njit(**JIT)
def settle_round(p_n, winner, ronin_by, field, part, medic, hand, hand_n, hall, hall_n,
                 disc, disc_n):
    """Move the round's samurai: the winner's to a Hall of Honor, the rest to discard or hand.

    Returns the player who received the winning samurai.
    """
    recipient = winner
    if ronin_by >= 0 and ronin_by != winner:
        recipient = ronin_by
    hall[recipient, hall_n[recipient]] = field[winner]
    hall_n[recipient] += 1
    for p in range(p_n):
        if part[p] and p != winner:
            if medic[p]:
                hand[p, hand_n[p]] = field[p]
                hand_n[p] += 1
            else:
                disc[disc_n[0]] = field[p]
                disc_n[0] += 1
    return recipient


@njit(**JIT)
def record_declarer(decl, decl_ab, phase, rnd, declarer, winner, part, npart, a):
    """Count a contested round for the declarer's statistics (when it fought the round)."""
    if part[declarer]:
        ri = min(rnd, N_DECL - 1)
        decl[phase, ri, npart, 0] += 1
        decl_ab[phase, a, 0] += 1
        if winner == declarer:
            decl[phase, ri, npart, 1] += 1
            decl_ab[phase, a, 1] += 1


@njit(**JIT)
def draft(states, lane, P, pol, rank_order, pi, perm, inpool, avail, owner, pickno, deck,
          deck_n):
    """Deal 16 x players samurai face up (shared stream) and draft them (each player's
    random choices from its own stream); returns the last drafter."""
    shared = states[MAX_P]
    R = perm.shape[0]
    clan = pi[PI_CLAN]
    npool = clan * P
    for i in range(R):
        perm[i] = i
        inpool[i] = False
        owner[i] = -1
    for i in range(npool):
        j = i + below(shared, R - i)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
        inpool[perm[i]] = True
    na = 0
    for r in range(R):
        c = rank_order[r]
        if inpool[c]:
            avail[na] = c
            na += 1
    for p in range(P):
        deck_n[p] = 0
    last = 0
    for pick in range(npool):
        rnd = pick // P
        pos = pick % P
        p = pos
        if pi[PI_SNAKE] == 1 and rnd % 2 == 1:
            p = P - 1 - pos
        idx = 0 if pol[p] == GREEDY else below(states[lane[p]], na)
        c = avail[idx]
        for i in range(idx, na - 1):
            avail[i] = avail[i + 1]
        na -= 1
        owner[c] = p
        pickno[c] = pick
        deck[p, deck_n[p]] = c
        deck_n[p] += 1
        last = p
    return last


@njit(**NO_ALLOC)
def play_game(states, lane, P, pol, ratings, totals, rank_order, pi, pf, table, td,
              perm, inpool, avail, owner, pickno, deck, deck_n, hand, hand_n, hall, hall_n,
              disc, disc_n, infb, si, sb, sf, shares,
              wins, lengths, decl, decl_ab, cards, clan, battle, misc, fbp, row):
    """Play one whole game; add its statistics; return the winner.

    Seat p draws all its own randomness (shuffles, dice, random choices) from
    states[lane[p]] and the common deal from states[MAX_P].
    """
    faces = pi[PI_FACES]
    uma = pi[PI_UMA]
    hand_size = pi[PI_HAND]
    margin = pf[PF_MARGIN]
    R = ratings.shape[0]

    field = si[0]
    before = si[1]
    k = si[2]
    t1 = si[3]
    t2 = si[4]
    nd = si[5]
    last_card = si[6]
    clan_tot = si[7]
    opp = si[8]
    part = sb[0]
    is_uma = sb[1]
    medic = sb[2]
    held = sf[0]
    played_r = sf[1]
    played_g = sf[2]
    for p in range(MAX_P):
        last_card[p] = -1
        clan_tot[p] = 0
        for b in range(N_BATTLE):
            played_g[p, b] = False

    # --- draft and setup ---
    last_drafter = draft(states, lane, P, pol, rank_order, pi, perm, inpool, avail, owner,
                         pickno, deck, deck_n)
    disc_n[0] = 0
    for p in range(P):
        for i in range(deck_n[p]):
            clan_tot[p] += totals[deck[p, i]]
        for b in range(N_BATTLE):
            deck[p, deck_n[p]] = _battle_code(b)
            deck_n[p] += 1
        shuffle(states[lane[p]], deck[p], deck_n[p])
        hand_n[p] = 0
        hall_n[p] = 0
        misc[M_RESHUFFLES] += refill(states[lane[p]], p, hand, hand_n, deck, deck_n,
                                     hand_size)

    # --- Clan Conflict ---
    declarer = last_drafter
    rnd = 0
    while True:
        npart = 0
        for p in range(P):
            part[p] = samurai_in_hand(hand, hand_n, p) > 0
            npart += part[p]
        if npart == 0 or (npart == 1 and pi[PI_LONE_END] == 1):
            break
        if rnd >= pi[PI_MAX_ROUNDS]:
            misc[M_CAPPED] += 1
            break
        a = declare(states[lane[declarer]], pol[declarer], declarer, hand, hand_n, ratings)
        cards_ok = rnd > 0 and npart >= 2
        for p in range(P):
            before[p] = -1
            medic[p] = False
            is_uma[p] = False
            for b in range(N_BATTLE):
                held[p, b] = False
                played_r[p, b] = False
            for i in range(hand_n[p]):
                if hand[p, i] < 0:
                    held[p, -1 - hand[p, i]] = True
            if not part[p]:
                field[p] = -1
                continue
            if pol[p] == GREEDY:
                i = best_for(hand, hand_n, p, a, ratings, totals, -1)
                if cards_ok and (held[p, UMA_CARD] or held[p, NINJUTSU]):
                    n_opp = 0
                    for q in range(P):
                        if part[q] and q != p:
                            opp[n_opp] = best_remaining(q, a, hand, hand_n, deck, deck_n, ratings)
                            n_opp += 1
                    kb = ratings[hand[p, i], a]
                    late = True
                    for j in range(deck_n[p]):
                        if deck[p, j] >= 0:
                            late = False
                    m = 0.0 if late else margin
                    p_none = table_odds(table, kb, opp, n_opp)
                    p_uma = table_odds(table, UMA, opp, n_opp) if held[p, UMA_CARD] else -1.0
                    p_nin = -1.0
                    if held[p, NINJUTSU]:
                        for j in range(n_opp):
                            opp[j] = 1
                        p_nin = table_odds(table, kb, opp, n_opp)
                    if p_uma >= p_nin and p_uma - p_none > m:
                        before[p] = UMA_CARD
                        i = weakest(hand, hand_n, p, totals)
                    elif p_nin - p_none > m:
                        before[p] = NINJUTSU
            else:
                i = random_samurai(states[lane[p]], hand, hand_n, p, -1)
                if cards_ok:
                    n_opt = 1 + held[p, UMA_CARD] + held[p, NINJUTSU]
                    pick = below(states[lane[p]], n_opt)
                    if pick > 0:
                        if held[p, NINJUTSU] and pick == 1:
                            before[p] = NINJUTSU
                        else:
                            before[p] = UMA_CARD
            field[p] = take_from_hand(hand, hand_n, p, i)
            if before[p] >= 0:
                take_from_hand(hand, hand_n, p, hand_has(hand, hand_n, p, _battle_code(before[p])))
                disc[disc_n[0]] = _battle_code(before[p])
                disc_n[0] += 1
                played_r[p, before[p]] = True
                played_g[p, before[p]] = True

        if npart == 1:
            winner = 0
            for p in range(P):
                if part[p]:
                    winner = p
            misc[M_UNCONTESTED] += 1
            recipient = settle_round(P, winner, -1, field, part, medic, hand, hand_n, hall,
                                     hall_n, disc, disc_n)
        else:
            misc[M_CONTESTED] += 1
            nin = 0
            for p in range(P):
                if part[p] and before[p] == NINJUTSU:
                    nin += 1
            if nin >= 2:
                misc[M_DOUBLE_NINJUTSU] += 1
            for p in range(P):
                if not part[p]:
                    continue
                if before[p] == UMA_CARD:
                    is_uma[p] = True
                    t1[p] = uma
                    t2[p] = uma
                    nd[p] = 2
                    k[p] = 0
                else:
                    kk = ratings[field[p], a]
                    if nin >= 2 or (nin == 1 and before[p] != NINJUTSU):
                        kk = 1
                    k[p] = kk
                    nd[p] = kk
                    t1[p], t2[p] = roll_top2(states[lane[p]], kk, faces)
            ronin_by = -1
            if rnd > 0:
                again = True
                while again:
                    again = False
                    for i in range(P):
                        p = (declarer + i) % P
                        if not part[p] or not (held[p, RONIN] or held[p, BUSHIDO]
                                                   or held[p, MEDICINE]):
                            continue
                        mask = top_group(t1, t2, nd, part, P)
                        c = popcount(mask)
                        for q in range(P):
                            shares[q] = 1.0 / c if (mask >> q) & 1 else 0.0
                        card, target = choose_after(states[lane[p]], pol[p], p, hand, hand_n,
                                                    part, t1, t2, nd, k, is_uma, P, ronin_by,
                                                    medic, shares, td, faces, margin)
                        if card < 0:
                            continue
                        again = True
                        take_from_hand(hand, hand_n, p, hand_has(hand, hand_n, p,
                                                                 _battle_code(card)))
                        disc[disc_n[0]] = _battle_code(card)
                        disc_n[0] += 1
                        played_r[p, card] = True
                        played_g[p, card] = True
                        held[p, card] = False
                        if card == RONIN:
                            ronin_by = p
                        elif card == MEDICINE:
                            medic[p] = True
                        else:
                            t1[target], t2[target] = roll_top2(states[lane[target]],
                                                               k[target], faces)
            winner = resolve(states, lane, t1, t2, nd, part, P, faces, misc, M_TIEBREAKS)
            recipient = settle_round(P, winner, ronin_by, field, part, medic, hand, hand_n,
                                     hall, hall_n, disc, disc_n)
            if recipient != winner:
                battle[RONIN, B_EFFECT] += 1
            # statistics of a contested round
            record_declarer(decl, decl_ab, 0, rnd, declarer, winner, part, npart, a)
            for p in range(P):
                if not part[p]:
                    continue
                c = field[p]
                cards[c, C_FIELDED] += 1
                cards[c, C_FIELDED_K2 + npart - 2] += 1
                if p == winner:
                    cards[c, C_FIELD_WON] += 1
                elif medic[p]:
                    battle[MEDICINE, B_EFFECT] += 1
                if rnd > 0:
                    got = recipient == p
                    for b in range(N_BATTLE):
                        if played_r[p, b]:
                            battle[b, B_PLAYED_R] += 1
                            battle[b, B_PLAYED_R_WON] += got
                        elif held[p, b]:
                            battle[b, B_HELD_R] += 1
                            battle[b, B_HELD_R_WON] += got
        declarer = winner
        for p in range(P):
            misc[M_RESHUFFLES] += refill(states[lane[p]], p, hand, hand_n, deck, deck_n,
                                         hand_size)
        rnd += 1

    # unused battle cards are discarded when the Clan Conflict ends
    for p in range(P):
        for b in range(N_BATTLE):
            code = _battle_code(b)
            i = hand_has(hand, hand_n, p, code)
            if i >= 0:
                take_from_hand(hand, hand_n, p, i)
            else:
                i = -1
                for j in range(deck_n[p]):
                    if deck[p, j] == code:
                        i = j
                if i < 0:
                    continue
                deck_n[p] -= 1
                deck[p, i] = deck[p, deck_n[p]]
            disc[disc_n[0]] = code
            disc_n[0] += 1
            battle[b, B_UNUSED_END] += 1

    # --- Final Battle ---
    for c in range(R):
        infb[c] = False
    n_active = 0
    for p in range(P):
        row[R_HALL + p] = hall_n[p]
        for i in range(hall_n[p]):
            hand[p, hand_n[p]] = hall[p, i]
            hand_n[p] += 1
            infb[hall[p, i]] = True
        hall_n[p] = 0
        part[p] = samurai_in_hand(hand, hand_n, p) > 0
        n_active += part[p]
    fb_players = n_active
    frnd = 0
    while n_active > 1:
        a = declare(states[lane[declarer]], pol[declarer], declarer, hand, hand_n, ratings)
        for p in range(P):
            if not part[p]:
                continue
            if pol[p] == GREEDY:
                i = best_for(hand, hand_n, p, a, ratings, totals, last_card[p])
                if i < 0:
                    i = best_for(hand, hand_n, p, a, ratings, totals, -1)
            else:
                i = random_samurai(states[lane[p]], hand, hand_n, p, last_card[p])
            field[p] = take_from_hand(hand, hand_n, p, i)
            kk = ratings[field[p], a]
            nd[p] = kk
            t1[p], t2[p] = roll_top2(states[lane[p]], kk, faces)
        winner = resolve(states, lane, t1, t2, nd, part, P, faces, misc,
                         M_FB_ROUNDS_TIEBREAK)
        record_declarer(decl, decl_ab, 1, frnd, declarer, winner, part, n_active, a)
        for p in range(P):
            if not part[p]:
                continue
            c = field[p]
            cards[c, C_FB_FIELDED] += 1
            if p == winner:
                cards[c, C_FB_WON] += 1
                hand[p, hand_n[p]] = c
                hand_n[p] += 1
                last_card[p] = c
            else:
                disc[disc_n[0]] = c
                disc_n[0] += 1
                last_card[p] = -1
        n_active = 0
        for p in range(P):
            part[p] = hand_n[p] > 0
            n_active += part[p]
        declarer = winner
        frnd += 1

    champion = declarer
    for p in range(P):
        if part[p]:
            champion = p

    # --- game statistics ---
    wins[champion] += 1
    lengths[0, min(rnd, N_LEN - 1)] += 1
    lengths[1, min(frnd, N_LEN - 1)] += 1
    lengths[2, min(rnd + frnd, N_LEN - 1)] += 1
    fbp[fb_players] += 1
    for c in range(R):
        o = owner[c]
        if o < 0:
            continue
        pk = pickno[c] + 1
        cards[c, C_DRAFTED] += 1
        cards[c, C_PICK_SUM] += pk
        cards[c, C_PICK_SQ] += pk * pk
        if o == champion:
            cards[c, C_OWNER_WON] += 1
        if infb[c]:
            cards[c, C_IN_FB] += 1
    for i in range(hand_n[champion]):
        cards[hand[champion, i], C_SURVIVED] += 1
    for p in range(P):
        won = p == champion
        ct = min(clan_tot[p], clan.shape[0] - 1)
        clan[ct, 0] += 1
        clan[ct, 1] += won
        for b in range(N_BATTLE):
            if played_g[p, b]:
                battle[b, B_PLAYED_G] += 1
                battle[b, B_PLAYED_G_WON] += won
            else:
                battle[b, B_UNPLAYED_G] += 1
                battle[b, B_UNPLAYED_G_WON] += won
    row[R_WINNER] = champion
    row[R_CC_ROUNDS] = rnd
    row[R_FB_ROUNDS] = frnd
    row[R_FB_PLAYERS] = fb_players
    for p in range(MAX_P):
        row[R_CLAN_TOTAL + p] = clan_tot[p] if p < P else -1
        if p >= P:
            row[R_HALL + p] = -1
    return champion


@njit(**JIT)
def new_buffers(P, R, clan, hand_size):
    """Scratch arrays for one game: (perm, inpool, avail, owner, pickno, deck, deck_n, hand,
    hand_n, hall, hall_n, disc, disc_n, infb, si, sb, sf, shares)."""
    deck_max = clan + N_BATTLE
    hand_max = max(P * clan, hand_size) + N_BATTLE + 2
    return (np.zeros(R, np.int64), np.zeros(R, np.bool_), np.zeros(P * clan, np.int64),
            np.zeros(R, np.int64), np.zeros(R, np.int64),
            np.zeros((P, deck_max), np.int64), np.zeros(P, np.int64),
            np.zeros((P, hand_max), np.int64), np.zeros(P, np.int64),
            np.zeros((P, P * clan), np.int64), np.zeros(P, np.int64),
            np.zeros(P * deck_max, np.int64), np.zeros(1, np.int64),
            np.zeros(R, np.bool_), np.zeros((9, MAX_P), np.int64),
            np.zeros((3, MAX_P), np.bool_), np.zeros((3, MAX_P, N_BATTLE), np.bool_),
            np.zeros(MAX_P))


@njit(**JIT)
def play_chunk(seed, first, count, P, pol, ratings, totals, rank_order, pi, pf, table, td,
               wins, lengths, decl, decl_ab, cards, clan, battle, misc, fbp, rows, rotation):
    """Play games first .. first+count-1 of the run keyed by `seed`; add their statistics.

    `pol` lists the players' policies; in `rotation` r player j (its policy and its own
    random stream) sits at seat (j + r) % P; statistics are kept by seat. `rows` is either
    (count, N_ROW) to receive one row per game, or (0, N_ROW).
    """
    R = ratings.shape[0]
    (perm, inpool, avail, owner, pickno, deck, deck_n, hand, hand_n, hall, hall_n, disc,
     disc_n, infb, si, sb, sf, shares) = new_buffers(P, R, pi[PI_CLAN], pi[PI_HAND])
    states = new_states(pi[PI_FACES], MAX_P + 1)
    seat_pol, lane = rotation_lanes(P, pol, rotation, MAX_P)
    row = np.zeros(N_ROW, np.int64)
    keep = rows.shape[0] > 0
    for g in range(count):
        seed_lanes(states, seed, first + g)
        play_game(states, lane, P, seat_pol, ratings, totals, rank_order, pi, pf, table, td,
                  perm, inpool, avail, owner, pickno, deck, deck_n, hand, hand_n, hall,
                  hall_n, disc, disc_n, infb, si, sb, sf, shares,
                  wins, lengths, decl, decl_ab, cards, clan, battle, misc, fbp, row)
        if keep:
            rows[g, :] = row


@njit(**JIT)
def play_single(seed, index, P, pol, ratings, totals, rank_order, pi, pf, table, td,
                wins, lengths, decl, decl_ab, cards, clan, battle, misc, fbp, rotation):
    """Play one game and return its final piles, for checking invariants:
    (champion, owner, deck_n, hand, hand_n, hall_n, disc, disc_n, row)."""
    R = ratings.shape[0]
    (perm, inpool, avail, owner, pickno, deck, deck_n, hand, hand_n, hall, hall_n, disc,
     disc_n, infb, si, sb, sf, shares) = new_buffers(P, R, pi[PI_CLAN], pi[PI_HAND])
    states = new_states(pi[PI_FACES], MAX_P + 1)
    seed_lanes(states, seed, index)
    seat_pol, lane = rotation_lanes(P, pol, rotation, MAX_P)
    row = np.zeros(N_ROW, np.int64)
    champion = play_game(states, lane, P, seat_pol, ratings, totals, rank_order, pi, pf,
                         table, td, perm, inpool, avail, owner, pickno, deck, deck_n, hand,
                         hand_n, hall, hall_n, disc, disc_n, infb, si, sb, sf, shares,
                         wins, lengths, decl, decl_ab, cards, clan, battle, misc, fbp, row)
    return champion, owner, deck_n, hand, hand_n, hall_n, disc, disc_n, row
