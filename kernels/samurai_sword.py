"""Samurai Sword: hidden roles, characters and card combat (3-7 players).

Seats are numbered clockwise from the Shogun: seat 0 is the Shogun and plays first. A hand
is a count per card type; the deck and the discard pile are stacks of card types (top =
last). Player facts live in `ps` (rows S_*), game facts in `gs` (G_*), card facts in
`cinfo` (CI_*). Every array has a fixed shape set by the chunk runner; nothing grows.
"""

import numpy as np
from numba import njit

from kernels.config import JIT, NO_ALLOC
from kernels.rng import below, new_states, seed_lanes, shuffle

MAX_P = 7
SHOGUN_SEAT = 0

# Policies
RANDOM = 0
HEURISTIC = 1

# Card effects (the first property is FOCUS; pe[p, effect - FOCUS] counts them)
WEAPON = 0
PARRY = 1
GEISHA = 2
DIVERSION = 3
BATTLE_CRY = 4
TEA = 5
JUJUTSU = 6
BREATHING = 7
DAIMYO = 8
FOCUS = 9
ARMOR = 10
FAST_DRAW = 11
BUSHIDO = 12
N_EFFECT = 13
N_PROP = 4

# cinfo rows
CI_EFF = 0
CI_DIFF = 1
CI_DMG = 2
CI_VALUE = 3  # the heuristic's keep value
N_CI = 4

# Character abilities
NO_ABILITY = 0
BENKEI = 1
CHIYOME = 2
GOEMON = 3
GINCHIYO = 4
HANZO = 5
HIDEYOSHI = 6
IEYASU = 7
KOJIRO = 8
MUSASHI = 9
NOBUNAGA = 10
TOMOE = 11
USHIWAKA = 12
N_ABILITY = 13

# Roles and teams
SHOGUN = 0
SAMURAI = 1
NINJA = 2
RONIN = 3
N_ROLE = 4
TEAM_SHOGUN = 0
TEAM_NINJA = 1
TEAM_RONIN = 2
N_TEAM = 3

# ps rows (one column per seat)
S_RES = 0
S_MAXRES = 1
S_HONOR = 2
S_ROLE = 3
S_TEAM = 4
S_ABIL = 5
S_STARS = 6
S_HAND = 7  # cards in hand
S_CHAR = 8
S_HOSTILE = 9  # public: hostile acts against the Shogun
S_LOYAL = 10  # public: hostile acts against players who had been hostile to the Shogun
S_MULT = 11
S_POL = 12
S_LANE = 13
N_S = 14

# gs fields
G_DECK = 0  # cards in the deck
G_DISC = 1  # cards in the discard pile
G_BUSHIDO = 2  # seat with Bushido in front of it, or -1
G_END = 3  # end reason (END_NONE while playing)
G_SWORD = 4  # team of a Victory of the Swordmaster, or -1
G_DEADLY = 5  # team hit by a Deadly Strike, or -1
G_RESHUFFLES = 6
G_TURNS = 7
G_WPLAYED = 8  # Weapons played this turn
N_G = 9

# End reasons
END_NONE = 0
END_HONOR_DEFEAT = 1  # a defeated player gave away its last Honor
END_HONOR_DECK = 2  # the deck reshuffle took someone's last Honor
END_HONOR_BUSHIDO = 3  # Bushido took someone's last Honor
END_SWORDMASTER = 4  # Victory of the Swordmaster
END_TEAMMATE = 5  # one player left with resilience after a teammate's defeat: scored
END_CAP = 6  # safety cap on turns
N_END = 7

# Integer parameters (pi)
PI_DRAW = 0
PI_LIMIT = 1
PI_WEAPONS = 2
PI_DAIMYO = 3
PI_DEADLY = 4
PI_SH_DRAW = 5  # extra cards the Shogun draws
PI_SH_WEAPONS = 6  # extra Weapons the Shogun may play
PI_SH_BUSHIDO = 7  # 1: the Shogun loses Honor to Bushido like anyone; 0: discards it
PI_SWORD = 8  # Victory of the Swordmaster in use
PI_TEAMMATE_END = 9  # 1: a teammate's defeat leaving one player with resilience ends the game
PI_SWORD_FIRST = 10  # 1: Swordmaster beats a simultaneous last-Honor end
PI_RESHUFFLE_NOW = 11  # 1: reshuffle as soon as the deck is empty; 0: when a card is needed
PI_GEISHA_SELF = 12  # 1: Geisha may target its own player
PI_USHI_DEALT = 13  # 1: Ushiwaka draws per wound dealt; 0: per resilience actually lost
PI_MAX_TURNS = 14
PI_LATE_HONOR = 15  # heuristic: keep Daimyo once someone has this much Honor or less
PI_BUSHIDO_SELF = 16  # 1: Bushido may be played in front of its own player
N_PI = 17

# Moves
MV_END = -1
MV_NOBUNAGA = -2

# Miscellaneous counters
M_ATTACKS = 0
M_PARRIED = 1
M_HITS = 2
M_WEAPON_WOUNDS = 3
M_DEFEATS = 4
M_MATE_DEFEATS = 5  # defeats by a teammate
M_DEADLY = 6  # games ending with a Deadly Strike
M_TIES = 7  # Honor games decided by the tie rule
M_DRY = 8  # draws with deck and discard pile both empty
M_BC_PARRIES = 9
M_BC_WOUNDS = 10
M_JJ_DISCARDS = 11
M_JJ_WOUNDS = 12
M_BUSHIDO_FLIPS = 13
M_BUSHIDO_HONOR = 14
M_BUSHIDO_WEAPON = 15
M_NOBUNAGA = 16
M_IEYASU = 17
M_HANZO = 18
M_TOMOE = 19
M_USHIWAKA = 20
M_SHARED_WIN = 21  # games won by a team of two or more seats
M_MOVES = 22
N_MISC = 23

# Per-game row columns (for --save-games)
R_WINNER = 0  # the lone winning seat, or -1 when a team of several seats won (or no one)
R_TEAM = 1
R_MASK = 2  # bit s: seat s's team won
R_END = 3
R_TURNS = 4
R_RESHUFFLES = 5
R_SCORE = 6  # 3 columns: Shogun team, Ninjas, Ronin (NO_SCORE: absent or not scored)
R_DEADLY = 9
R_ROLE = 10  # 7 columns: role per seat (-1 absent)
R_CHAR = 17  # 7 columns: character per seat (-1 absent)
N_ROW = 24
NO_SCORE = -99

N_LEN = 400  # turn histogram bins (last: that many or more)
N_RESH = 16  # reshuffle histogram bins
N_MARGIN = 64
MAX_TURNS = 2000
MOVES_PER_TURN = 500


# --- small helpers ------------------------------------------------------------------------

@njit(**JIT)
def team_of(role):
    """The team a role plays for."""
    if role in (SHOGUN, SAMURAI):
        return TEAM_SHOGUN
    if role == NINJA:
        return TEAM_NINJA
    return TEAM_RONIN


@njit(**JIT)
def harmless(ps, q):
    """No resilience or no card in hand."""
    return ps[S_RES, q] == 0 or ps[S_HAND, q] == 0


@njit(**JIT)
def end_game(gs, reason):
    """Record the end (the first reason stands)."""
    if gs[G_END] == END_NONE:
        gs[G_END] = reason


@njit(**JIT)
def give(hand, ps, p, t):
    """One card of type t into p's hand."""
    hand[p, t] += 1
    ps[S_HAND, p] += 1


@njit(**JIT)
def to_discard(disc, gs, t):
    """A card of type t onto the discard pile."""
    disc[gs[G_DISC]] = t
    gs[G_DISC] += 1


@njit(**JIT)
def discard_from_hand(hand, ps, disc, gs, p, t):
    """p discards a card of type t from its hand."""
    hand[p, t] -= 1
    ps[S_HAND, p] -= 1
    to_discard(disc, gs, t)


@njit(**JIT)
def count_eff(hand, cinfo, p, eff):
    """Cards with effect `eff` in p's hand."""
    n = 0
    for t in range(hand.shape[1]):
        if hand[p, t] > 0 and cinfo[CI_EFF, t] == eff:
            n += hand[p, t]
    return n


@njit(**JIT)
def first_of(hand, cinfo, p, eff):
    """A card type with effect `eff` in p's hand (lowest type), or -1."""
    for t in range(hand.shape[1]):
        if hand[p, t] > 0 and cinfo[CI_EFF, t] == eff:
            return t
    return -1


@njit(**JIT)
def random_card(state, hand, p, n):
    """A card type drawn uniformly from the n cards of p's hand."""
    r = below(state, n)
    for t in range(hand.shape[1]):
        r -= hand[p, t]
        if r < 0:
            return t
    return -1


@njit(**JIT)
def random_of(state, hand, cinfo, p, eff):
    """A card uniformly chosen among p's cards with effect `eff`, or -1."""
    n = count_eff(hand, cinfo, p, eff)
    if n == 0:
        return -1
    r = below(state, n)
    for t in range(hand.shape[1]):
        if hand[p, t] > 0 and cinfo[CI_EFF, t] == eff:
            r -= hand[p, t]
            if r < 0:
                return t
    return -1


@njit(**JIT)
def late(ps, pi, P):
    """Someone is close to running out of Honor (the heuristic keeps Daimyo then)."""
    for q in range(P):  # noqa: SIM110 (numba: no generators)
        if ps[S_HONOR, q] <= pi[PI_LATE_HONOR]:
            return True
    return False


@njit(**JIT)
def keep_value(ps, cinfo, pi, P, p, t):
    """How much the heuristic wants to keep a card of type t."""
    if cinfo[CI_EFF, t] == DAIMYO:
        if ps[S_ROLE, p] == RONIN:
            return 0
        if late(ps, pi, P):
            return 20
    return cinfo[CI_VALUE, t]


@njit(**JIT)
def worst_of(ps, hand, cinfo, pi, P, p, eff):
    """p's card with effect `eff` (any card when eff < 0) it least wants to keep, or -1."""
    best = -1
    best_v = 1 << 40
    for t in range(hand.shape[1]):
        if hand[p, t] > 0 and (eff < 0 or cinfo[CI_EFF, t] == eff):
            v = keep_value(ps, cinfo, pi, P, p, t)
            if v < best_v:
                best_v = v
                best = t
    return best


@njit(**JIT)
def prop_type(props, cinfo, q, eff):
    """A property type with effect `eff` in front of q, or -1."""
    for t in range(props.shape[1]):
        if props[q, t] > 0 and cinfo[CI_EFF, t] == eff:
            return t
    return -1


# --- combat rules -------------------------------------------------------------------------

@njit(**JIT)
def difficulty(ps, pe, P, p, q):
    """Difficulty for p to attack q: fewest steps either way counting only players who are
    not Harmless, + q's Armor, + 1 for Benkei."""
    cw = 1
    i = (p + 1) % P
    while i != q:
        if not harmless(ps, i):
            cw += 1
        i = (i + 1) % P
    ccw = 1
    i = (p + P - 1) % P
    while i != q:
        if not harmless(ps, i):
            ccw += 1
        i = (i + P - 1) % P
    d = min(cw, ccw) + pe[q, ARMOR - FOCUS]
    if ps[S_ABIL, q] == BENKEI:
        d += 1
    return d


@njit(**JIT)
def reaches(ps, cinfo, p, t, d):
    """Weapon type t of p reaches Difficulty d (Kojiro's reach any)."""
    return ps[S_ABIL, p] == KOJIRO or cinfo[CI_DIFF, t] >= d


@njit(**JIT)
def weapon_damage(ps, pe, cinfo, p, q, t):
    """Wounds a hit of p's weapon t deals q: + Fast Draw, + Musashi, - Ginchiyo (min 1)."""
    d = cinfo[CI_DMG, t] + pe[p, FAST_DRAW - FOCUS]
    if ps[S_ABIL, p] == MUSASHI:
        d += 1
    if ps[S_ABIL, q] == GINCHIYO:
        d = max(1, d - 1)
    return d


@njit(**JIT)
def weapon_limit(ps, pe, pi, p):
    """Weapons p may play this turn."""
    n = pi[PI_WEAPONS] + pe[p, FOCUS - FOCUS]
    if ps[S_ABIL, p] == GOEMON:
        n += 1
    if ps[S_ROLE, p] == SHOGUN:
        n += pi[PI_SH_WEAPONS]
    return n


@njit(**JIT)
def targets(ps, pe, P, p, dq):
    """dq[q] = Difficulty for p to attack q, or -1 when q cannot be targeted."""
    for q in range(P):
        if q == p or harmless(ps, q):
            dq[q] = -1
        else:
            dq[q] = difficulty(ps, pe, P, p, q)


# --- deck ---------------------------------------------------------------------------------

@njit(**JIT)
def reshuffle(shared, deck, disc, gs, ps, P):
    """The discard pile becomes the deck, shuffled; every player loses 1 Honor to the box
    (the game ends if someone has none left). False when there is nothing to reshuffle."""
    n = gs[G_DISC]
    if n == 0:
        return False
    for i in range(n):
        deck[i] = disc[i]
    gs[G_DECK] = n
    gs[G_DISC] = 0
    shuffle(shared, deck, n)
    gs[G_RESHUFFLES] += 1
    out = False
    for q in range(P):
        ps[S_HONOR, q] -= 1
        if ps[S_HONOR, q] <= 0:
            out = True
    if out:
        end_game(gs, np.int64(END_HONOR_DECK))
    return True


@njit(**JIT)
def draw_card(states, deck, disc, gs, ps, pi, P, misc):
    """The top card of the deck (reshuffling when needed), or -1 when there is none or the
    reshuffle ended the game."""
    shared = states[MAX_P]
    if gs[G_DECK] == 0:
        if not reshuffle(shared, deck, disc, gs, ps, P):
            misc[M_DRY] += 1
            return -1
        if gs[G_END] != END_NONE:
            return -1
    gs[G_DECK] -= 1
    t = deck[gs[G_DECK]]
    if pi[PI_RESHUFFLE_NOW] == 1 and gs[G_DECK] == 0:
        reshuffle(shared, deck, disc, gs, ps, P)
    return t


@njit(**JIT)
def draw_to(states, hand, deck, disc, gs, ps, pi, P, misc, p, k):
    """p draws k cards (fewer if the game ends or nothing is left)."""
    for _ in range(k):
        if gs[G_END] != END_NONE:
            return
        t = draw_card(states, deck, disc, gs, ps, pi, P, misc)
        if t < 0:
            return
        give(hand, ps, p, t)


# --- wounds, defeat, end ------------------------------------------------------------------

@njit(**JIT)
def defeat(ps, gs, pi, P, misc, q, by):
    """q lost its last resilience to a card of `by`: Honor to `by`, then the end checks."""
    misc[M_DEFEATS] += 1
    mate = ps[S_TEAM, q] == ps[S_TEAM, by]
    if mate:
        misc[M_MATE_DEFEATS] += 1
    ps[S_HONOR, q] -= 1
    ps[S_HONOR, by] += 1
    honor_out = ps[S_HONOR, q] <= 0
    alone = -1
    if pi[PI_SWORD] == 1:
        n = 0
        for r in range(P):
            if ps[S_RES, r] > 0:
                n += 1
                alone = r
        if n != 1:
            alone = -1
    if alone >= 0 and not mate and (pi[PI_SWORD_FIRST] == 1 or not honor_out):
        gs[G_SWORD] = ps[S_TEAM, alone]
        end_game(gs, np.int64(END_SWORDMASTER))
        return
    if honor_out:
        if mate:
            gs[G_DEADLY] = ps[S_TEAM, q]
        end_game(gs, np.int64(END_HONOR_DEFEAT))
        return
    if alone >= 0 and mate and pi[PI_TEAMMATE_END] == 1:
        gs[G_DEADLY] = ps[S_TEAM, q]
        end_game(gs, np.int64(END_TEAMMATE))


@njit(**JIT)
def wound(ps, gs, pi, P, misc, q, n, by):
    """q suffers n wounds from a card of `by`; returns the resilience it actually lost
    (excess wounds are lost on defeat)."""
    lost = min(n, ps[S_RES, q])
    ps[S_RES, q] -= lost
    if lost > 0 and ps[S_RES, q] == 0:
        defeat(ps, gs, pi, P, misc, q, by)
    return lost


@njit(**JIT)
def aggress(ps, p, q):
    """Public memory of a hostile act of p against q."""
    if q == SHOGUN_SEAT and p != SHOGUN_SEAT:
        ps[S_HOSTILE, p] += 1
    elif q != p and ps[S_HOSTILE, q] > 0:
        ps[S_LOYAL, p] += 1


# --- decisions ----------------------------------------------------------------------------

@njit(**JIT)
def parry_card(states, ps, hand, cinfo, pi, P, q, by_weapon):
    """The card q gives up against a Weapon attack (by_weapon) or a Battle Cry: a Parry, or
    for Hanzo a Weapon unless it is his only card; -1 to take the wound."""
    parries = count_eff(hand, cinfo, q, np.int64(PARRY))
    weapons = 0
    if ps[S_ABIL, q] == HANZO and ps[S_HAND, q] >= 2:
        weapons = count_eff(hand, cinfo, q, np.int64(WEAPON))
    if parries + weapons == 0:
        return -1
    if ps[S_POL, q] == RANDOM:  # always parries, with a uniformly chosen card that can
        state = states[ps[S_LANE, q]]
        if below(state, parries + weapons) < parries:
            return random_of(state, hand, cinfo, q, np.int64(PARRY))
        return random_of(state, hand, cinfo, q, np.int64(WEAPON))
    if not by_weapon and ps[S_RES, q] > 1 and parries + weapons < 2:
        return -1  # a Battle Cry's single wound is cheaper than the last Parry
    if parries > 0:
        return first_of(hand, cinfo, q, np.int64(PARRY))
    return worst_of(ps, hand, cinfo, pi, P, q, np.int64(WEAPON))


@njit(**JIT)
def jujutsu_card(states, ps, hand, cinfo, pi, P, q):
    """The Weapon q discards against Jujutsu, or -1 to take the wound."""
    weapons = count_eff(hand, cinfo, q, np.int64(WEAPON))
    if weapons == 0:
        return -1
    if ps[S_POL, q] == RANDOM:
        return random_of(states[ps[S_LANE, q]], hand, cinfo, q, np.int64(WEAPON))
    if ps[S_RES, q] > 1 and weapons < 2:
        return -1
    return worst_of(ps, hand, cinfo, pi, P, q, np.int64(WEAPON))


@njit(**JIT)
def bushido_card(states, ps, hand, cinfo, pi, P, p):
    """The Weapon p discards when Bushido turns up a Weapon, or -1 to lose 1 Honor."""
    if count_eff(hand, cinfo, p, np.int64(WEAPON)) == 0:
        return -1
    if ps[S_POL, p] == RANDOM:  # uniform over losing Honor and each kind of Weapon held
        kinds = 0
        for t in range(hand.shape[1]):
            if hand[p, t] > 0 and cinfo[CI_EFF, t] == WEAPON:
                kinds += 1
        r = below(states[ps[S_LANE, p]], kinds + 1)
        if r == kinds:
            return -1
        for t in range(hand.shape[1]):
            if hand[p, t] > 0 and cinfo[CI_EFF, t] == WEAPON:
                if r == 0:
                    return t
                r -= 1
        return -1
    return worst_of(ps, hand, cinfo, pi, P, p, np.int64(WEAPON))


@njit(**JIT)
def ieyasu_takes(states, ps, cinfo, pi, P, p, top):
    """Ieyasu's first draw comes from the discard pile (top card `top`)."""
    if ps[S_POL, p] == RANDOM:
        return below(states[ps[S_LANE, p]], np.int64(2)) == 1
    return keep_value(ps, cinfo, pi, P, p, top) >= 6


@njit(**JIT)
def discard_choice(states, ps, hand, cinfo, pi, P, p):
    """The card p discards when over the hand limit."""
    if ps[S_POL, p] == RANDOM:
        return random_card(states[ps[S_LANE, p]], hand, p, ps[S_HAND, p])
    return worst_of(ps, hand, cinfo, pi, P, p, np.int64(-1))


@njit(**JIT)
def target_score(ps, P, p, q):
    """How much p wants to hurt q, from p's own role and public facts only (> 0: an enemy
    worth attacking). The Shogun is public; other roles are not read."""
    if q == p:
        return 0
    role = ps[S_ROLE, p]
    if role in (NINJA, RONIN):
        if q == SHOGUN_SEAT:
            return 100
        if role == RONIN:
            return 10
        if P == 3:
            return 0  # three players: the other non-Shogun is the fellow Ninja
        return 10 + 10 * ps[S_LOYAL, q] - 10 * ps[S_HOSTILE, q]
    if q == SHOGUN_SEAT:
        return 0
    return 10 + 20 * ps[S_HOSTILE, q] - 20 * ps[S_LOYAL, q]


@njit(**JIT)
def mass_ok(ps, P, p):
    """The heuristic plays Battle Cry and Jujutsu (a Samurai spares a weak Shogun)."""
    if ps[S_ROLE, p] != SAMURAI:
        return True
    s = np.int64(SHOGUN_SEAT)
    return harmless(ps, s) or ps[S_ABIL, s] == CHIYOME or ps[S_RES, s] >= 3


NO_KEY = -(1 << 40)


@njit(**JIT)
def pick(state, keys, P):
    """The seat with the highest key (ties broken uniformly at random), or -1 when every
    key is NO_KEY."""
    best = np.int64(-1)
    best_key = NO_KEY
    ties = 0
    for q in range(P):
        k = keys[q]
        if k == NO_KEY:
            continue
        if k > best_key:
            best_key = k
            best = q
            ties = 1
        elif k == best_key:
            ties += 1
            if below(state, ties) == 0:
                best = q
    return best


@njit(**JIT)
def heuristic_move(state, ps, pe, hand, props, cinfo, gs, pi, P, p, sc, dq):
    """The heuristic's next play of its turn as (card type or MV_*, target, option).

    sc[0] receives target scores, sc[1] keys, sc[2] chosen Weapons; ties between targets
    are broken at random from the player's own stream.
    """
    T = hand.shape[1]
    score = sc[0]
    keys = sc[1]
    for q in range(P):
        score[q] = target_score(ps, P, p, q)
    # properties first (Bushido aside), then the card-drawing plays
    for t in range(T):
        if hand[p, t] > 0:
            e = cinfo[CI_EFF, t]
            if e in (FOCUS, ARMOR, FAST_DRAW):
                return t, p, -1
    if ps[S_ABIL, p] == NOBUNAGA and ps[S_RES, p] >= 3 and ps[S_RES, p] >= ps[S_MAXRES, p] - 1:
        return MV_NOBUNAGA, -1, -1
    t = first_of(hand, cinfo, p, np.int64(TEA))
    if t >= 0:
        return t, -1, -1
    t = first_of(hand, cinfo, p, np.int64(DAIMYO))
    if t >= 0 and (ps[S_ROLE, p] == RONIN or not late(ps, pi, P)):
        return t, -1, -1
    t = first_of(hand, cinfo, p, np.int64(BREATHING))
    if t >= 0 and 2 * ps[S_RES, p] <= ps[S_MAXRES, p]:
        for q in range(P):  # the draw goes to the player it least wants to hurt
            keys[q] = NO_KEY if q == p else -(score[q] * 100 + ps[S_HAND, q])
        return t, pick(state, keys, P), -1
    g = first_of(hand, cinfo, p, np.int64(GEISHA))
    if g >= 0 and gs[G_BUSHIDO] == p and pi[PI_GEISHA_SELF] == 1:
        return g, p, prop_type(props, cinfo, p, np.int64(BUSHIDO))
    if mass_ok(ps, P, p):
        t = first_of(hand, cinfo, p, np.int64(BATTLE_CRY))
        if t >= 0:
            return t, -1, -1
        t = first_of(hand, cinfo, p, np.int64(JUJUTSU))
        if t >= 0:
            return t, -1, -1
    t = first_of(hand, cinfo, p, np.int64(BUSHIDO))
    if t >= 0 and gs[G_BUSHIDO] < 0:
        for q in range(P):
            keys[q] = score[q] if score[q] > 0 else NO_KEY
        best = pick(state, keys, P)
        if best >= 0:
            return t, best, -1
    t = first_of(hand, cinfo, p, np.int64(DIVERSION))
    if t >= 0:
        for q in range(P):
            keys[q] = score[q] if score[q] > 0 and ps[S_HAND, q] > 0 else NO_KEY
        best = pick(state, keys, P)
        if best >= 0:
            return t, best, -1
    if g >= 0:
        for q in range(P):
            useful = ps[S_HAND, q] > 0
            for e in range(FOCUS, BUSHIDO):
                if pe[q, e - FOCUS] > 0:
                    useful = True
            keys[q] = score[q] if score[q] > 0 and useful else NO_KEY
        best = pick(state, keys, P)
        if best >= 0:
            for e in (ARMOR, FOCUS, FAST_DRAW):
                u = prop_type(props, cinfo, best, e)
                if u >= 0:
                    return g, best, u
            return g, best, -1
    if gs[G_WPLAYED] < weapon_limit(ps, pe, pi, p):
        weapon = sc[2]
        targets(ps, pe, P, p, dq)
        for q in range(P):
            keys[q] = NO_KEY
            if dq[q] < 0 or score[q] <= 0:
                continue
            wt = np.int64(-1)
            w_key = NO_KEY
            for u in range(T):
                if hand[p, u] > 0 and cinfo[CI_EFF, u] == WEAPON and reaches(ps, cinfo, p, u,
                                                                               dq[q]):
                    k = cinfo[CI_DMG, u] * 16 - cinfo[CI_DIFF, u]
                    if k > w_key:
                        w_key = k
                        wt = u
            if wt < 0:
                continue
            dmg = weapon_damage(ps, pe, cinfo, p, q, wt)
            weapon[q] = wt
            keys[q] = (score[q] * 1000 + (500 if dmg >= ps[S_RES, q] else 0) + 20 * dmg
                       - ps[S_RES, q])
        best = pick(state, keys, P)
        if best >= 0:
            return weapon[best], best, -1
    return MV_END, -1, -1


@njit(**JIT)
def add_move(moves, n, t, q, o):
    moves[n, 0] = t
    moves[n, 1] = q
    moves[n, 2] = o
    return n + 1


@njit(**JIT)
def legal_moves(ps, pe, hand, props, cinfo, gs, pi, P, p, moves, dq):
    """Every legal play of p now into `moves` (card type or MV_*, target, option); returns
    how many. Ending the turn is always the first."""
    T = hand.shape[1]
    none = np.int64(-1)
    n = add_move(moves, np.int64(0), np.int64(MV_END), none, none)
    if ps[S_ABIL, p] == NOBUNAGA and ps[S_RES, p] > 1:
        n = add_move(moves, n, np.int64(MV_NOBUNAGA), none, none)
    can_weapon = gs[G_WPLAYED] < weapon_limit(ps, pe, pi, p)
    if can_weapon:
        targets(ps, pe, P, p, dq)
    for t in range(T):
        if hand[p, t] == 0:
            continue
        e = cinfo[CI_EFF, t]
        if e == WEAPON:
            if can_weapon:
                for q in range(P):
                    if dq[q] >= 0 and reaches(ps, cinfo, p, t, dq[q]):
                        n = add_move(moves, n, t, q, none)
        elif e in (FOCUS, ARMOR, FAST_DRAW):
            n = add_move(moves, n, t, p, none)
        elif e in (BATTLE_CRY, JUJUTSU, TEA, DAIMYO):
            n = add_move(moves, n, t, none, none)
        elif e == BUSHIDO:
            if gs[G_BUSHIDO] < 0:
                for q in range(P):
                    if q != p or pi[PI_BUSHIDO_SELF] == 1:
                        n = add_move(moves, n, t, q, none)
        elif e == BREATHING:
            for q in range(P):
                if q != p:
                    n = add_move(moves, n, t, q, none)
        elif e == DIVERSION:
            for q in range(P):
                if q != p and ps[S_HAND, q] > 0:
                    n = add_move(moves, n, t, q, none)
        elif e == GEISHA:
            for q in range(P):
                if q == p and pi[PI_GEISHA_SELF] == 0:
                    continue
                if ps[S_HAND, q] > (1 if q == p else 0):
                    n = add_move(moves, n, t, q, none)
                for u in range(T):
                    if props[q, u] > 0:
                        n = add_move(moves, n, t, q, u)
    return n


@njit(**JIT)
def choose_move(states, ps, pe, hand, props, cinfo, gs, pi, P, p, moves, sc, dq):
    """p's next play: the heuristic's, or one drawn uniformly from the legal plays."""
    if ps[S_POL, p] == HEURISTIC:
        return heuristic_move(states[ps[S_LANE, p]], ps, pe, hand, props, cinfo, gs, pi, P, p,
                              sc, dq)
    n = legal_moves(ps, pe, hand, props, cinfo, gs, pi, P, p, moves, dq)
    k = below(states[ps[S_LANE, p]], n)
    return moves[k, 0], moves[k, 1], moves[k, 2]


# --- card effects -------------------------------------------------------------------------

@njit(**JIT)
def attack(states, ps, pe, hand, cinfo, deck, disc, gs, pi, P, misc, p, q, t):
    """p's Weapon t (already discarded) attacks q: q may parry; a hit wounds."""
    misc[M_ATTACKS] += 1
    aggress(ps, p, q)
    pc = parry_card(states, ps, hand, cinfo, pi, P, q, np.int64(1))
    if pc >= 0:
        discard_from_hand(hand, ps, disc, gs, q, pc)
        misc[M_PARRIED] += 1
        if cinfo[CI_EFF, pc] == WEAPON:
            misc[M_HANZO] += 1
        return
    misc[M_HITS] += 1
    dmg = weapon_damage(ps, pe, cinfo, p, q, t)
    lost = wound(ps, gs, pi, P, misc, q, dmg, p)
    misc[M_WEAPON_WOUNDS] += lost
    if gs[G_END] != END_NONE:
        return
    if ps[S_ABIL, p] == TOMOE:
        misc[M_TOMOE] += 1
        draw_to(states, hand, deck, disc, gs, ps, pi, P, misc, p, np.int64(1))
    if ps[S_ABIL, q] == USHIWAKA:
        k = dmg if pi[PI_USHI_DEALT] == 1 else lost
        misc[M_USHIWAKA] += k
        draw_to(states, hand, deck, disc, gs, ps, pi, P, misc, q, k)


@njit(**JIT)
def apply_move(states, ps, pe, hand, props, cinfo, deck, disc, gs, pi, P, misc, cards, p, t,
               q, o):
    """Carry out one play of p (see choose_move)."""
    misc[M_MOVES] += 1
    if t == MV_NOBUNAGA:
        ps[S_RES, p] -= 1
        misc[M_NOBUNAGA] += 1
        draw_to(states, hand, deck, disc, gs, ps, pi, P, misc, p, np.int64(1))
        return
    hand[p, t] -= 1
    ps[S_HAND, p] -= 1
    cards[t] += 1
    e = cinfo[CI_EFF, t]
    if e >= FOCUS:  # a property stays in play
        dest = p if e != BUSHIDO else q
        props[dest, t] += 1
        pe[dest, e - FOCUS] += 1
        if e == BUSHIDO:
            gs[G_BUSHIDO] = dest
            if dest != p:
                aggress(ps, p, dest)
        return
    to_discard(disc, gs, t)
    if e == WEAPON:
        gs[G_WPLAYED] += 1
        attack(states, ps, pe, hand, cinfo, deck, disc, gs, pi, P, misc, p, q, t)
    elif e in (BATTLE_CRY, JUJUTSU):
        for i in range(1, P):
            r = (p + i) % P
            if harmless(ps, r) or ps[S_ABIL, r] == CHIYOME:
                continue
            if e == BATTLE_CRY:
                c = parry_card(states, ps, hand, cinfo, pi, P, r, np.int64(0))
            else:
                c = jujutsu_card(states, ps, hand, cinfo, pi, P, r)
            if c >= 0:
                discard_from_hand(hand, ps, disc, gs, r, c)
                if e == BATTLE_CRY:
                    misc[M_BC_PARRIES] += 1
                    if cinfo[CI_EFF, c] == WEAPON:
                        misc[M_HANZO] += 1
                else:
                    misc[M_JJ_DISCARDS] += 1
            else:
                lost = wound(ps, gs, pi, P, misc, r, np.int64(1), p)
                misc[M_BC_WOUNDS if e == BATTLE_CRY else M_JJ_WOUNDS] += lost
            if gs[G_END] != END_NONE:
                return
    elif e == BREATHING:
        ps[S_RES, p] = ps[S_MAXRES, p]
        draw_to(states, hand, deck, disc, gs, ps, pi, P, misc, q, np.int64(1))
    elif e == TEA:
        draw_to(states, hand, deck, disc, gs, ps, pi, P, misc, p, np.int64(3))
        for i in range(1, P):
            draw_to(states, hand, deck, disc, gs, ps, pi, P, misc, (p + i) % P, np.int64(1))
    elif e == DAIMYO:
        draw_to(states, hand, deck, disc, gs, ps, pi, P, misc, p, np.int64(2))
    elif e == DIVERSION:
        aggress(ps, p, q)
        if ps[S_HAND, q] > 0:
            c = random_card(states[ps[S_LANE, p]], hand, q, ps[S_HAND, q])
            hand[q, c] -= 1
            ps[S_HAND, q] -= 1
            give(hand, ps, p, c)
    elif e == GEISHA:
        if q != p:
            aggress(ps, p, q)
        if o >= 0:
            props[q, o] -= 1
            pe[q, cinfo[CI_EFF, o] - FOCUS] -= 1
            if cinfo[CI_EFF, o] == BUSHIDO:
                gs[G_BUSHIDO] = -1
            to_discard(disc, gs, o)
        elif ps[S_HAND, q] > 0:
            c = random_card(states[ps[S_LANE, p]], hand, q, ps[S_HAND, q])
            discard_from_hand(hand, ps, disc, gs, q, c)


@njit(**JIT)
def resolve_bushido(states, ps, pe, hand, props, cinfo, deck, disc, gs, pi, P, misc, p):
    """Bushido in front of p at its Recover phase: flip the deck's top card; a Weapon costs
    a Weapon from hand (Bushido passes on) or 1 Honor (Bushido is discarded)."""
    bt = prop_type(props, cinfo, p, np.int64(BUSHIDO))
    misc[M_BUSHIDO_FLIPS] += 1
    c = draw_card(states, deck, disc, gs, ps, pi, P, misc)
    if gs[G_END] != END_NONE:
        if c >= 0:
            to_discard(disc, gs, c)
        return
    weapon = False
    if c >= 0:
        to_discard(disc, gs, c)
        weapon = cinfo[CI_EFF, c] == WEAPON
    passes = True
    if weapon:
        if ps[S_ROLE, p] == SHOGUN and pi[PI_SH_BUSHIDO] == 0:
            passes = False
        else:
            w = bushido_card(states, ps, hand, cinfo, pi, P, p)
            if w >= 0:
                discard_from_hand(hand, ps, disc, gs, p, w)
                misc[M_BUSHIDO_WEAPON] += 1
            else:
                passes = False
                misc[M_BUSHIDO_HONOR] += 1
                ps[S_HONOR, p] -= 1
                if ps[S_HONOR, p] <= 0:
                    end_game(gs, np.int64(END_HONOR_BUSHIDO))
    props[p, bt] -= 1
    pe[p, BUSHIDO - FOCUS] -= 1
    if passes:
        nxt = (p + 1) % P
        props[nxt, bt] += 1
        pe[nxt, BUSHIDO - FOCUS] += 1
        gs[G_BUSHIDO] = nxt
    else:
        to_discard(disc, gs, bt)
        gs[G_BUSHIDO] = -1


@njit(**JIT)
def play_turn(states, ps, pe, hand, props, cinfo, deck, disc, gs, pi, P, misc, cards, p,
              moves, sc, dq):
    """Seat p's whole turn: Recover (and Bushido), Draw, Play, Discard."""
    if ps[S_RES, p] == 0:
        ps[S_RES, p] = ps[S_MAXRES, p]
    if gs[G_BUSHIDO] == p:
        resolve_bushido(states, ps, pe, hand, props, cinfo, deck, disc, gs, pi, P, misc, p)
        if gs[G_END] != END_NONE:
            return
    k = pi[PI_DRAW]
    if ps[S_ABIL, p] == HIDEYOSHI:
        k += 1
    if ps[S_ROLE, p] == SHOGUN:
        k += pi[PI_SH_DRAW]
    if ps[S_ABIL, p] == IEYASU and gs[G_DISC] > 0:
        top = disc[gs[G_DISC] - 1]
        if ieyasu_takes(states, ps, cinfo, pi, P, p, top):
            gs[G_DISC] -= 1
            give(hand, ps, p, top)
            misc[M_IEYASU] += 1
            k -= 1
    draw_to(states, hand, deck, disc, gs, ps, pi, P, misc, p, k)
    if gs[G_END] != END_NONE:
        return
    gs[G_WPLAYED] = 0
    for _ in range(MOVES_PER_TURN):
        t, q, o = choose_move(states, ps, pe, hand, props, cinfo, gs, pi, P, p, moves, sc, dq)
        if t == MV_END:
            break
        apply_move(states, ps, pe, hand, props, cinfo, deck, disc, gs, pi, P, misc, cards, p,
                   t, q, o)
        if gs[G_END] != END_NONE:
            return
    while ps[S_HAND, p] > pi[PI_LIMIT]:
        t = discard_choice(states, ps, hand, cinfo, pi, P, p)
        discard_from_hand(hand, ps, disc, gs, p, t)


# --- setup and scoring --------------------------------------------------------------------

@njit(**JIT)
def setup(states, ps, pe, hand, props, deck, disc, gs, P, roles, honor, mult, mult_top,
          hands, ch_res, ch_abil, copies, perm, seat_pol, lane):
    """Deal roles (seat 0 the Shogun), Ninja stars, characters, the deck and the hands, all
    from the shared stream; players' policies and streams by seat."""
    shared = states[MAX_P]
    T = hand.shape[1]
    NC = ch_res.shape[0]
    for s in range(P):
        perm[s] = roles[s]
    for i in range(P - 1, 1, -1):  # shuffle seats 1..P-1
        j = 1 + below(shared, i)
        x = perm[i]
        perm[i] = perm[j]
        perm[j] = x
    for s in range(MAX_P):
        for r in range(N_S):
            ps[r, s] = 0
        for t in range(T):
            hand[s, t] = 0
            props[s, t] = 0
        for e in range(N_PROP):
            pe[s, e] = 0
    for s in range(P):
        ps[S_ROLE, s] = perm[s]
        ps[S_TEAM, s] = team_of(perm[s])
        ps[S_POL, s] = seat_pol[s]
        ps[S_LANE, s] = lane[s]
        ps[S_HONOR, s] = honor[perm[s]]
        ps[S_MULT, s] = mult[perm[s]]
    # Ninja stars: distinct, drawn from 1..3
    for i in range(3):
        perm[i] = i + 1
    shuffle(shared, perm, np.int64(3))
    k = 0
    top = -1
    for s in range(P):
        if ps[S_ROLE, s] == NINJA:
            ps[S_STARS, s] = perm[k % 3]
            k += 1
            if top < 0 or ps[S_STARS, s] > ps[S_STARS, top]:
                top = s
    if mult_top > 0 and top >= 0:
        ps[S_MULT, top] = mult_top
    # characters
    for c in range(NC):
        perm[c] = c
    shuffle(shared, perm, NC)
    for s in range(P):
        c = perm[s]
        ps[S_CHAR, s] = c
        ps[S_ABIL, s] = ch_abil[c]
        ps[S_MAXRES, s] = ch_res[c]
        ps[S_RES, s] = ch_res[c]
    # deck and hands
    n = np.int64(0)
    for t in range(T):
        for _ in range(copies[t]):
            deck[n] = t
            n += 1
    shuffle(shared, deck, n)
    for f in range(N_G):
        gs[f] = 0
    gs[G_BUSHIDO] = -1
    gs[G_SWORD] = -1
    gs[G_DEADLY] = -1
    for s in range(P):
        for _ in range(hands[s]):
            if n > 0:
                n -= 1
                give(hand, ps, s, deck[n])
    gs[G_DECK] = n
    gs[G_DISC] = 0


@njit(**JIT)
def score(ps, hand, cinfo, gs, pi, P, tscore, present):
    """Team scores (Honor x multiplier, + Daimyo in hand, - Deadly Strike) into tscore and
    the winning team: ties go to the Ninjas, then the Shogun's team over the Ronin."""
    for k in range(N_TEAM):
        tscore[k] = 0
        present[k] = 0
    for s in range(P):
        tm = ps[S_TEAM, s]
        present[tm] += 1
        v = ps[S_HONOR, s] * ps[S_MULT, s]
        if ps[S_ROLE, s] != RONIN:
            v += pi[PI_DAIMYO] * count_eff(hand, cinfo, s, np.int64(DAIMYO))
        tscore[tm] += v
    if gs[G_DEADLY] >= 0:
        tscore[gs[G_DEADLY]] -= pi[PI_DEADLY]
    best = -1
    for tm in (TEAM_NINJA, TEAM_SHOGUN, TEAM_RONIN):
        if present[tm] > 0 and (best < 0 or tscore[tm] > tscore[best]):
            best = tm
    return best


@njit(**NO_ALLOC)
def play_game(states, P, roles, honor, mult, mult_top, hands, ch_res, ch_abil, copies, cinfo,
              pi, seat_pol, lane, ps, pe, hand, props, deck, disc, gs, perm, moves, sc, dq,
              tscore, present, team, seat, chars, ends, turns, resh, margin, scores, cards,
              misc, row):
    """Play one whole game; add its statistics; return the winning team (-1: capped).

    Seat s plays policy seat_pol[s] with its own stream states[lane[s]]; the deal and every
    reshuffle come from the shared stream states[MAX_P].
    """
    setup(states, ps, pe, hand, props, deck, disc, gs, P, roles, honor, mult, mult_top,
          hands, ch_res, ch_abil, copies, perm, seat_pol, lane)
    p = np.int64(SHOGUN_SEAT)
    while gs[G_END] == END_NONE:
        if gs[G_TURNS] >= pi[PI_MAX_TURNS]:
            gs[G_END] = END_CAP
            break
        play_turn(states, ps, pe, hand, props, cinfo, deck, disc, gs, pi, P, misc, cards, p,
                  moves, sc, dq)
        gs[G_TURNS] += 1
        p = (p + 1) % P

    # --- outcome ---
    reason = gs[G_END]
    for k in range(N_TEAM):
        tscore[k] = -1
        present[k] = 0
    scored = reason != END_CAP and reason != END_SWORDMASTER
    win = -1
    if reason == END_SWORDMASTER:
        win = gs[G_SWORD]
        for s in range(P):
            present[ps[S_TEAM, s]] += 1
    elif scored:
        win = score(ps, hand, cinfo, gs, pi, P, tscore, present)
        second = -(1 << 40)
        for tm in range(N_TEAM):
            if tm != win and present[tm] > 0 and tscore[tm] > second:
                second = tscore[tm]
        if second == tscore[win]:
            misc[M_TIES] += 1
        margin[min(tscore[win] - second, N_MARGIN - 1)] += 1
        for tm in range(N_TEAM):
            if present[tm] > 0:
                scores[tm, 0] += 1
                scores[tm, 1] += tscore[tm]
                scores[tm, 2] += tscore[tm] * tscore[tm]
    else:
        for s in range(P):
            present[ps[S_TEAM, s]] += 1
    if gs[G_DEADLY] >= 0:
        misc[M_DEADLY] += 1
    ends[reason] += 1
    turns[min(gs[G_TURNS], N_LEN - 1)] += 1
    resh[min(gs[G_RESHUFFLES], N_RESH - 1)] += 1
    for tm in range(N_TEAM):
        if present[tm] > 0:
            team[tm, 0] += 1
    if win >= 0:
        team[win, 2 if reason == END_SWORDMASTER else 1] += 1
        if present[win] > 1:
            misc[M_SHARED_WIN] += 1
    mask = 0
    lone = -1
    for s in range(P):
        won = 1 if win >= 0 and ps[S_TEAM, s] == win else 0
        role = ps[S_ROLE, s]
        seat[s, role, 0] += 1
        seat[s, role, 1] += won
        chars[ps[S_CHAR, s], role, 0] += 1
        chars[ps[S_CHAR, s], role, 1] += won
        if won == 1:
            mask |= 1 << s
            lone = s
    row[R_WINNER] = lone if win >= 0 and present[win] == 1 else -1
    row[R_TEAM] = win
    row[R_MASK] = mask
    row[R_END] = reason
    row[R_TURNS] = gs[G_TURNS]
    row[R_RESHUFFLES] = gs[G_RESHUFFLES]
    for tm in range(N_TEAM):
        row[R_SCORE + tm] = tscore[tm] if scored and present[tm] > 0 else NO_SCORE
    row[R_DEADLY] = gs[G_DEADLY]
    for s in range(MAX_P):
        row[R_ROLE + s] = ps[S_ROLE, s] if s < P else -1
        row[R_CHAR + s] = ps[S_CHAR, s] if s < P else -1
    return win


@njit(**JIT)
def new_buffers(T, D, NC):
    """Scratch arrays for one game: (ps, pe, hand, props, deck, disc, gs, perm, moves, sc,
    dq, tscore, present, row)."""
    return (np.zeros((N_S, MAX_P), np.int64), np.zeros((MAX_P, N_PROP), np.int64),
            np.zeros((MAX_P, T), np.int64), np.zeros((MAX_P, T), np.int64),
            np.zeros(D, np.int64), np.zeros(D, np.int64), np.zeros(N_G, np.int64),
            np.zeros(max(NC, MAX_P, 3), np.int64),
            np.zeros((2 + T * MAX_P * (T + 1), 3), np.int64), np.zeros((3, MAX_P), np.int64),
            np.zeros(MAX_P, np.int64), np.zeros(N_TEAM, np.int64),
            np.zeros(N_TEAM, np.int64), np.zeros(N_ROW, np.int64))


@njit(**JIT)
def seat_lanes(P, pol, rotation):
    """(policy per seat, stream lane per seat) when player j sits at seat (j + rotation) % P."""
    seat_pol = np.zeros(MAX_P, np.int64)
    lane = np.zeros(MAX_P, np.int64)
    for s in range(P):
        j = (s - rotation) % P
        seat_pol[s] = pol[j]
        lane[s] = j
    return seat_pol, lane


@njit(**JIT)
def play_chunk(seed, first, count, P, pol, roles, honor, mult, mult_top, hands, ch_res,
               ch_abil, copies, cinfo, pi, team, seat, chars, ends, turns, resh, margin,
               scores, cards, misc, rows, rotation):
    """Play games first .. first+count-1 of the run keyed by `seed`; add their statistics.

    `pol` lists the players' policies; in `rotation` r player j (its policy and its own
    random stream) sits at seat (j + r) % P, seat 0 being the Shogun; roles, characters and
    cards come from the shared stream and stay with the seats. `rows` is either (count,
    N_ROW) to receive one row per game, or (0, N_ROW).
    """
    T = cinfo.shape[1]
    D = np.int64(0)
    for t in range(T):
        D += copies[t]
    (ps, pe, hand, props, deck, disc, gs, perm, moves, sc, dq, tscore, present,
     row) = new_buffers(T, D, ch_res.shape[0])
    states = new_states(0, MAX_P + 1)
    seat_pol, lane = seat_lanes(P, pol, rotation)
    keep = rows.shape[0] > 0
    for g in range(count):
        seed_lanes(states, seed, first + g)
        play_game(states, P, roles, honor, mult, mult_top, hands, ch_res, ch_abil, copies,
                  cinfo, pi, seat_pol, lane, ps, pe, hand, props, deck, disc, gs, perm,
                  moves, sc, dq, tscore, present, team, seat, chars, ends, turns, resh,
                  margin, scores, cards, misc, row)
        if keep:
            rows[g, :] = row


@njit(**JIT)
def play_single(seed, index, P, pol, roles, honor, mult, mult_top, hands, ch_res, ch_abil,
                copies, cinfo, pi, team, seat, chars, ends, turns, resh, margin, scores,
                cards, misc, rotation):
    """Play one game and return its final state, for checking invariants:
    (win, ps, pe, hand, props, deck, disc, gs, row)."""
    T = cinfo.shape[1]
    D = np.int64(0)
    for t in range(T):
        D += copies[t]
    (ps, pe, hand, props, deck, disc, gs, perm, moves, sc, dq, tscore, present,
     row) = new_buffers(T, D, ch_res.shape[0])
    states = new_states(0, MAX_P + 1)
    seed_lanes(states, seed, index)
    seat_pol, lane = seat_lanes(P, pol, rotation)
    win = play_game(states, P, roles, honor, mult, mult_top, hands, ch_res, ch_abil, copies,
                    cinfo, pi, seat_pol, lane, ps, pe, hand, props, deck, disc, gs, perm,
                    moves, sc, dq, tscore, present, team, seat, chars, ends, turns, resh,
                    margin, scores, cards, misc, row)
    return win, ps, pe, hand, props, deck, disc, gs, row
