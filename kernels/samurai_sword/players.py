"""Samurai Sword players: each policy chooses one of the legal actions of the player to act
(rules.legal_actions), on its turn or out of it, never one whose option is forbidden to it.

What a player reads: its own role and hand, the Shogun's seat and the public facts
(resilience, Honor, hand sizes, characters, properties in play, hostile acts, the discard
pile, the card being resolved), the facts `rules.observe` lists. Random choices come from
the player's own stream lane (seats[p].lane); no player changes the position.
"""

import numpy as np

from kernels.jit import kernel
from kernels.rng import below
from kernels.samurai_sword import rules as R
from kernels.samurai_sword.stats import Role

# Policies (seats[p].policy)
RANDOM = np.int64(0)
HEURISTIC = np.int64(1)
POLICY_CODES = {"random": RANDOM, "heuristic": HEURISTIC}

NO_KEY = np.int64(-(1 << 40))


@kernel(inline=True)
def choose(st, forbid):
    """The action the player to act chooses under its seat's policy; forbid[seat, option]
    lists the options (rules.OPTIONS) it may never use."""
    t = R.table(st)
    p = st.game[0].to_act
    fb = forbid[p]
    play = st.game[0].phase == R.PH_PLAY
    if st.seats[p].policy == HEURISTIC:
        return heuristic_play(t, p, fb) if play else heuristic_reply(t, p, fb)
    return random_play(t, p, fb, st.legal) if play else random_reply(t, p, fb)


# --- shared reading of one's own hand ----------------------------------------------------

@kernel
def first_of(t, p, eff, fb):
    """The lowest card type with effect `eff` in p's own hand, or -1 (also when playing
    such a card is forbidden)."""
    if fb[eff]:
        return R.NONE
    g = t.game[0]
    hand = t.seats[p].hand
    for c in range(g.n_types):
        if hand[c] > 0 and g.card[R.CI_EFF, c] == eff:
            return c
    return R.NONE


@kernel
def random_of(state, t, p, eff):
    """A card type drawn uniformly among p's cards with effect `eff`, or -1."""
    n = R.count_eff(t, p, eff)
    if n == 0:
        return R.NONE
    r = below(state, n)
    g = t.game[0]
    hand = t.seats[p].hand
    for c in range(g.n_types):
        if hand[c] > 0 and g.card[R.CI_EFF, c] == eff:
            r -= hand[c]
            if r < 0:
                return c
    return R.NONE


# --- random -------------------------------------------------------------------------------

@kernel
def random_play(t, p, fb, legal):
    """Uniform over the legal plays of its turn that are not forbidden."""
    state = t.game[0].rng[t.seats[p].lane]
    n = R.legal_plays(t, legal)
    forbidden = False
    for o in range(fb.shape[0]):
        forbidden |= fb[o]
    if forbidden:  # (never in the fast path)
        k = 0
        for i in range(n):
            o = R.option(t, legal[i])
            if o < 0 or not fb[o]:
                legal[k] = legal[i]
                k += 1
        n = k
    return legal[below(state, n)]


@kernel
def random_reply(t, p, fb):
    """The random player out of its Play phase: always parries (a uniformly chosen card
    that can) and always gives a Weapon to Jujutsu; against Bushido uniform over losing
    Honor and each kind of Weapon held; Ieyasu on a coin flip; discards at random."""
    g = t.game[0]
    ph = g.phase
    state = g.rng[t.seats[p].lane]
    if ph == R.PH_PARRY or ph == R.PH_BATTLE_CRY:
        if fb[R.OPT_PARRY]:
            return R.PASS
        parries = R.count_eff(t, p, R.PARRY)
        weapons = R.parry_options(t, p) - parries
        if below(state, parries + weapons) < parries:
            return R.GIVE + random_of(state, t, p, R.PARRY)
        return R.GIVE + random_of(state, t, p, R.WEAPON)
    if ph == R.PH_JUJUTSU:
        return R.GIVE + random_of(state, t, p, R.WEAPON)
    if ph == R.PH_BUSHIDO:
        r = below(state, R.kinds_of(t, p, R.WEAPON) + 1)
        for c in range(g.n_types):
            if t.seats[p].hand[c] > 0 and g.card[R.CI_EFF, c] == R.WEAPON:
                if r == 0:
                    return R.GIVE + c
                r -= 1
        return R.PASS
    if ph == R.PH_IEYASU:
        if fb[R.OPT_IEYASU]:
            return R.PASS
        return R.IEYASU if below(state, np.int64(2)) == 1 else R.PASS
    me = t.seats[p]
    return R.GIVE + R.random_card(state, me.hand, g.n_types, me.hand_n)


# --- heuristic ----------------------------------------------------------------------------

@kernel
def late(t):
    """Someone is close to running out of Honor (the heuristic keeps Daimyo then)."""
    g = t.game[0]
    for q in range(g.players):  # noqa: SIM110 (numba: no generators)
        if t.seats[q].honor <= g.param[R.PI_LATE_HONOR]:
            return True
    return False


@kernel
def keep_value(t, p, c):
    """How much p wants to keep a card of type c."""
    g = t.game[0]
    if g.card[R.CI_EFF, c] == R.DAIMYO:
        if t.seats[p].role == Role.RONIN:
            return np.int64(0)
        if late(t):
            return np.int64(20)
    return g.card[R.CI_VALUE, c]


@kernel
def worst_of(t, p, eff):
    """p's card with effect `eff` (any card when eff < 0) it least wants to keep, or -1."""
    g = t.game[0]
    hand = t.seats[p].hand
    best = R.NONE
    best_v = np.int64(1 << 40)
    for c in range(g.n_types):
        if hand[c] > 0 and (eff < 0 or g.card[R.CI_EFF, c] == eff):
            v = keep_value(t, p, c)
            if v < best_v:
                best_v = v
                best = c
    return best


@kernel
def target_score(t, p, q):
    """How much p wants to hurt q, from p's own role and public facts only (> 0: an enemy
    worth attacking). The Shogun is public; other roles are not read."""
    if q == p:
        return np.int64(0)
    role = t.seats[p].role
    them = t.seats[q]
    if role == Role.NINJA or role == Role.RONIN:
        if q == R.SHOGUN_SEAT:
            return np.int64(100)
        if role == Role.RONIN:
            return np.int64(10)
        if t.game[0].players == 3:
            return np.int64(0)  # three players: the other non-Shogun is the fellow Ninja
        return 10 + 10 * them.loyal - 10 * them.hostile
    if q == R.SHOGUN_SEAT:
        return np.int64(0)
    return 10 + 20 * them.hostile - 20 * them.loyal


@kernel
def mass_ok(t, p):
    """The heuristic plays Battle Cry and Jujutsu (a Samurai spares a weak Shogun)."""
    if t.seats[p].role != Role.SAMURAI:
        return True
    s = R.SHOGUN_SEAT
    return R.harmless(t, s) or t.seats[s].ability == R.CHIYOME or t.seats[s].res >= 3


@kernel
def pick(state, keys, P):
    """The seat with the highest key (ties broken uniformly at random), or -1 when every
    key is NO_KEY."""
    best = R.NONE
    best_key = NO_KEY
    ties = np.int64(0)
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


@kernel
def heuristic_reply(t, p, fb):
    """The heuristic out of its Play phase: it always parries a Weapon; it parries a
    Battle Cry or gives a Weapon to Jujutsu only at 1 resilience or holding two such
    cards; its weakest Weapon to Bushido rather than Honor; Ieyasu takes a good discard;
    it discards the cards it values least."""
    g = t.game[0]
    ph = g.phase
    if ph == R.PH_PARRY or ph == R.PH_BATTLE_CRY:
        if fb[R.OPT_PARRY]:
            return R.PASS
        if ph == R.PH_BATTLE_CRY and t.seats[p].res > 1 and R.parry_options(t, p) < 2:
            return R.PASS  # a Battle Cry's single wound is cheaper than the last Parry
        if R.count_eff(t, p, R.PARRY) > 0:
            return R.GIVE + first_of(t, p, R.PARRY, fb)
        return R.GIVE + worst_of(t, p, R.WEAPON)
    if ph == R.PH_JUJUTSU:
        if t.seats[p].res > 1 and R.count_eff(t, p, R.WEAPON) < 2:
            return R.PASS
        return R.GIVE + worst_of(t, p, R.WEAPON)
    if ph == R.PH_BUSHIDO:
        return R.GIVE + worst_of(t, p, R.WEAPON)
    if ph == R.PH_IEYASU:
        take = not fb[R.OPT_IEYASU] and keep_value(t, p, g.disc[g.disc_n - 1]) >= 6
        return R.IEYASU if take else R.PASS
    return R.GIVE + worst_of(t, p, R.NONE)


@kernel
def heuristic_play(t, p, fb):
    """The heuristic's next play of its turn: properties, Nobunaga, Tea Ceremony, Daimyo,
    Breathing when low, Geisha to shed Bushido, Battle Cry and Jujutsu, then Bushido,
    Diversion and Geisha on its preferred enemy, then Weapons; PASS when nothing is left.
    Ties between targets are broken at random from the player's own stream."""
    g = t.game[0]
    P = g.players
    me = t.seats[p]
    for q in range(P):
        g.work[R.W_SCORE, q] = target_score(t, p, q)
    for c in range(g.n_types):
        if me.hand[c] > 0:
            e = g.card[R.CI_EFF, c]
            if (e == R.FOCUS or e == R.ARMOR or e == R.FAST_DRAW) and not fb[e]:
                return R.play_code(t, c, p, R.NONE)
    if me.ability == R.NOBUNAGA_ABILITY and me.res >= 3 and me.res >= me.max_res - 1 \
            and not fb[R.OPT_NOBUNAGA]:
        return R.NOBUNAGA
    c = first_of(t, p, R.TEA, fb)
    if c >= 0:
        return R.play_code(t, c, p, R.NONE)
    c = first_of(t, p, R.DAIMYO, fb)
    if c >= 0 and (me.role == Role.RONIN or not late(t)):
        return R.play_code(t, c, p, R.NONE)
    c = first_of(t, p, R.BREATHING, fb)
    if c >= 0 and 2 * me.res <= me.max_res:
        for q in range(P):  # the draw goes to the player it least wants to hurt
            g.work[R.W_KEY, q] = NO_KEY if q == p else \
                -(g.work[R.W_SCORE, q] * 100 + t.seats[q].hand_n)
        return R.play_code(t, c, pick(t.game[0].rng[me.lane], g.work[R.W_KEY], P), R.NONE)
    geisha = first_of(t, p, R.GEISHA, fb)
    if geisha >= 0 and g.bushido == p and g.param[R.PI_GEISHA_SELF] == 1:
        return R.play_code(t, geisha, p, R.prop_type(t, p, R.BUSHIDO))
    if mass_ok(t, p):
        c = first_of(t, p, R.BATTLE_CRY, fb)
        if c >= 0:
            return R.play_code(t, c, p, R.NONE)
        c = first_of(t, p, R.JUJUTSU, fb)
        if c >= 0:
            return R.play_code(t, c, p, R.NONE)
    a = against_enemy(t, p, geisha, fb)
    if a != R.PASS:
        return a
    if not fb[R.WEAPON] and g.weapons_played < R.weapon_limit(t, p):
        return weapon_play(t, p)
    return R.PASS


@kernel
def against_enemy(t, p, geisha, fb):
    """Bushido, then Diversion, then Geisha (`geisha`: its card type, or -1) on the
    preferred enemy; PASS when none applies."""
    g = t.game[0]
    P = g.players
    state = t.game[0].rng[t.seats[p].lane]
    score = g.work[R.W_SCORE]
    keys = g.work[R.W_KEY]
    c = first_of(t, p, R.BUSHIDO, fb)
    if c >= 0 and g.bushido < 0:
        for q in range(P):
            keys[q] = score[q] if score[q] > 0 else NO_KEY
        best = pick(state, keys, P)
        if best >= 0:
            return R.play_code(t, c, best, R.NONE)
    c = first_of(t, p, R.DIVERSION, fb)
    if c >= 0:
        for q in range(P):
            keys[q] = score[q] if score[q] > 0 and t.seats[q].hand_n > 0 else NO_KEY
        best = pick(state, keys, P)
        if best >= 0:
            return R.play_code(t, c, best, R.NONE)
    if geisha >= 0:
        for q in range(P):
            useful = t.seats[q].hand_n > 0
            for e in range(R.FOCUS, R.BUSHIDO):
                if t.seats[q].prop_n[e - R.FOCUS] > 0:
                    useful = True
            keys[q] = score[q] if score[q] > 0 and useful else NO_KEY
        best = pick(state, keys, P)
        if best >= 0:
            for e in (R.ARMOR, R.FOCUS, R.FAST_DRAW):
                u = R.prop_type(t, best, e)
                if u >= 0:
                    return R.play_code(t, geisha, best, u)
            return R.play_code(t, geisha, best, R.NONE)
    return R.PASS


@kernel
def weapon_play(t, p):
    """A Weapon on the preferred reachable enemy (one it can defeat first), the reaching
    Weapon with most damage, shortest reach on ties; PASS when none."""
    g = t.game[0]
    P = g.players
    hand = t.seats[p].hand
    score = g.work[R.W_SCORE]
    keys = g.work[R.W_KEY]
    weapon = g.work[R.W_WEAPON]
    dq = g.work[R.W_DIFF]
    R.difficulties(t, p)
    for q in range(P):
        keys[q] = NO_KEY
        if not R.target(t, p, q) or score[q] <= 0:
            continue
        wt = R.NONE
        w_key = NO_KEY
        for u in range(g.n_types):
            if hand[u] > 0 and g.card[R.CI_EFF, u] == R.WEAPON and R.reaches(t, p, u, dq[q]):
                k = g.card[R.CI_DMG, u] * 16 - g.card[R.CI_DIFF, u]
                if k > w_key:
                    w_key = k
                    wt = u
        if wt < 0:
            continue
        dmg = R.weapon_damage(t, p, q, wt)
        weapon[q] = wt
        keys[q] = (score[q] * 1000 + (500 if dmg >= t.seats[q].res else 0) + 20 * dmg
                   - t.seats[q].res)
    best = pick(t.game[0].rng[t.seats[p].lane], keys, P)
    if best >= 0:
        return R.play_code(t, weapon[best], best, R.NONE)
    return R.PASS
