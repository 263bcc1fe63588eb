"""Samurai Sword rules: the state, setup, who decides now, the legal actions, applying an
action (chance inside), the end and the result, what a player can see, and the game log.

Seats are numbered clockwise from the Shogun: seat 0 is the Shogun and plays first. A hand
is a count per card type; the deck and the discard pile are stacks of card types (top =
last). Every array has a fixed shape set by `new_state`; nothing grows.

Decisions. `to_move` is whoever must decide now, on its turn or out of it:
  PH_PLAY        the player whose turn it is plays a card, uses Nobunaga or ends its turn;
  PH_PARRY       the target of a Weapon parries (a Parry, or Hanzo's Weapon) or is hit;
  PH_BATTLE_CRY  a player hit by a Battle Cry parries or takes 1 wound;
  PH_JUJUTSU     a player hit by Jujutsu discards a Weapon or takes 1 wound;
  PH_BUSHIDO     Bushido turned up a Weapon: give a Weapon or lose 1 Honor;
  PH_IEYASU      Ieyasu draws his first card from the discard pile or the deck;
  PH_DISCARD     over the hand limit at the end of the turn: discard one card.
A player with nothing to give up (no Parry, no Weapon) has no decision: the wound or the
Honor loss is applied at once, as is a draw with an empty discard pile for Ieyasu.

Action encoding (flat int64; T = card types in the content, MAX_P = 7):
  PASS = 0          end the turn / take the wound / lose the Honor / draw from the deck
  NOBUNAGA = 1      Nobunaga pays 1 resilience to draw 1 card
  IEYASU = 2        Ieyasu takes the discard pile's top card as his first draw
  GIVE + c          (GIVE = 3) give up a card of type c: a Parry (or Hanzo's Weapon) against
                    a Weapon or a Battle Cry, a Weapon against Jujutsu or Bushido, a card
                    discarded over the hand limit
  PLAY + (c * MAX_P + q) * (T + 1) + (o + 1)   (PLAY = GIVE + T) play card type c at seat q
                    (the player itself for cards without a target) with option o: the
                    property type a Geisha discards, -1 for a random hand card or no option

Chance: the deal, the characters and every reshuffle come from the shared stream lane
(MAX_P); the card a Diversion takes or a Geisha discards from a hand at random comes from
the acting player's own lane. Events for the log are written with `events.emit`.

Layout. The position lives in two record arrays, `seats` (one record per seat: its
resilience, Honor, role, hand and properties ...) and `game` (one record: the deck and
the discard pile, whose decision it is, the random streams, the log's counter, this game's
counts, the run's parameters ...), with fixed capacities (MAX_T card types, MAX_D cards,
MAX_C characters). numba passes a tuple of arrays by value, several machine words per
array, on every call it does not inline: the rules and the players therefore pass each
other `Table` (seats, game, log: `table(st)`), and this game's counts join the run's
statistics (st.aggs) when the game ends.
"""

from collections import namedtuple

import numpy as np

from kernels import events as ev
from kernels import rng as streams
from kernels.jit import kernel
from kernels.rng import STATE_SIZE, below, seed_lanes, shuffle
from kernels.samurai_sword.stats import End, Misc, Ratio, Role, Square, Team

MAX_P = np.int64(7)
MAX_T = np.int64(32)  # card types a content may have
MAX_D = np.int64(256)  # cards a content's deck may have
MAX_C = np.int64(32)  # characters a content may have
SHOGUN_SEAT = np.int64(0)
SHARED = MAX_P  # the stream lane of the shared deal
NIL = np.int64(0)  # an unused field of an event
NONE = np.int64(-1)  # no seat, no card, no option

# Card effects (properties are FOCUS and above; prop_n[effect - FOCUS] counts them)
WEAPON = np.int64(0)
PARRY = np.int64(1)
GEISHA = np.int64(2)
DIVERSION = np.int64(3)
BATTLE_CRY = np.int64(4)
TEA = np.int64(5)
JUJUTSU = np.int64(6)
BREATHING = np.int64(7)
DAIMYO = np.int64(8)
FOCUS = np.int64(9)
ARMOR = np.int64(10)
FAST_DRAW = np.int64(11)
BUSHIDO = np.int64(12)
N_EFFECT = 13
N_PROP = 4

# Rows of the card facts (game.card[row, type])
CI_EFF = np.int64(0)
CI_DIFF = np.int64(1)
CI_DMG = np.int64(2)
CI_VALUE = np.int64(3)  # the heuristic's keep value
N_CI = 4

# Character abilities
NO_ABILITY = np.int64(0)
BENKEI = np.int64(1)
CHIYOME = np.int64(2)
GOEMON = np.int64(3)
GINCHIYO = np.int64(4)
HANZO = np.int64(5)
HIDEYOSHI = np.int64(6)
IEYASU_ABILITY = np.int64(7)
KOJIRO = np.int64(8)
MUSASHI = np.int64(9)
NOBUNAGA_ABILITY = np.int64(10)
TOMOE = np.int64(11)
USHIWAKA = np.int64(12)
N_ABILITY = 13

N_ROLE = len(Role)
N_TEAM = len(Team)
TEAM_OF = (np.int64(Team.SHOGUN), np.int64(Team.SHOGUN), np.int64(Team.NINJA),
           np.int64(Team.RONIN))  # the team each Role plays for
N_MISC = len(Misc)

# game.param: integer parameters of the run
PI_DRAW = np.int64(0)
PI_LIMIT = np.int64(1)
PI_WEAPONS = np.int64(2)
PI_DAIMYO = np.int64(3)
PI_DEADLY = np.int64(4)
PI_SH_DRAW = np.int64(5)  # extra cards the Shogun draws
PI_SH_WEAPONS = np.int64(6)  # extra Weapons the Shogun may play
PI_SH_BUSHIDO = np.int64(7)  # 1: the Shogun loses Honor to Bushido like anyone; 0: discards it
PI_SWORD = np.int64(8)  # Victory of the Swordmaster: SWORD_NONE, SWORD_ALL or SWORD_SHOGUN
PI_TEAMMATE_END = np.int64(9)  # 1: a teammate's defeat leaving one player with resilience ends
PI_SWORD_FIRST = np.int64(10)  # 1: Swordmaster beats a simultaneous last-Honor end
PI_RESHUFFLE_NOW = np.int64(11)  # 1: reshuffle as soon as the deck is empty; 0: when needed
PI_GEISHA_SELF = np.int64(12)  # 1: Geisha may target its own player
PI_USHI_DEALT = np.int64(13)  # 1: Ushiwaka draws per wound dealt; 0: per resilience lost
PI_MAX_TURNS = np.int64(14)
PI_LATE_HONOR = np.int64(15)  # heuristic: keep Daimyo once someone has this much Honor or less
PI_BUSHIDO_SELF = np.int64(16)  # 1: Bushido may be played in front of its own player
PI_MULT_TOP = np.int64(17)  # multiplier of the Ninja with most stars (0: none)
PI_BUSHIDO_END = np.int64(18)  # 1: Bushido resolves when its player's turn is over; 0: at Recover
N_PI = 19

SWORD_NONE = np.int64(0)  # no Victory of the Swordmaster
SWORD_ALL = np.int64(1)  # whoever is left alone with resilience wins
SWORD_SHOGUN = np.int64(2)  # the Shogun is not subject to it: only the Shogun's team wins by it

MAX_TURNS = 2000
PLAYS_PER_TURN = np.int64(500)  # safety cap on plays in one turn

# Actions
PASS = np.int64(0)
NOBUNAGA = np.int64(1)
IEYASU = np.int64(2)
GIVE = np.int64(3)

# Phases: decisions (to_move decides) and forced steps (resolved inside apply)
PH_OVER = np.int64(0)
PH_PLAY = np.int64(1)
PH_PARRY = np.int64(2)
PH_BATTLE_CRY = np.int64(3)
PH_JUJUTSU = np.int64(4)
PH_BUSHIDO = np.int64(5)
PH_IEYASU = np.int64(6)
PH_DISCARD = np.int64(7)
N_DECISION = np.int64(8)
ST_TURN = np.int64(8)  # start of a turn: Recover, Bushido
ST_DRAW = np.int64(9)  # Draw phase (Ieyasu's choice)
ST_DRAW_CARDS = np.int64(10)
ST_AFTER_PLAY = np.int64(11)  # a play resolved: the next play, or the Discard phase
ST_MASS = np.int64(12)  # Battle Cry or Jujutsu: the next player it hits
ST_HAND_LIMIT = np.int64(13)  # Discard phase
ST_TURN_END = np.int64(14)
ST_FINISH = np.int64(15)  # score the game and count its statistics
ST_END_BUSHIDO = np.int64(16)  # the turn is over: Bushido in front of the player resolves

# Options a player may be forbidden (forbid[seat, option]): a card kind played, parrying,
# and the two optional abilities. Passing and forced discards are never forbidden.
OPTIONS = ("weapon", "parry", "geisha", "diversion", "battle_cry", "tea_ceremony", "jujutsu",
           "breathing", "daimyo", "focus", "armor", "fast_draw", "bushido", "nobunaga",
           "ieyasu")
OPT_PARRY = PARRY
OPT_NOBUNAGA = np.int64(13)
OPT_IEYASU = np.int64(14)
N_OPTIONS = 15

# Event kinds (kind 0 is a decision, written by the Python handle). Fields a, b, c, d:
EV_ROLE = np.int64(1)  # player: role, Ninja stars, score multiplier, starting Honor
EV_CHARACTER = np.int64(2)  # player: character, resilience
EV_DEAL = np.int64(3)  # player: card type dealt
EV_TURN = np.int64(4)  # player: its turn starts; a = resilience, b = cards in hand
EV_RECOVER = np.int64(5)  # player: resilience restored to a
EV_DRAW = np.int64(6)  # player: card type a drawn (b = 1: from the discard pile)
EV_RESHUFFLE = np.int64(7)  # table: a cards reshuffled into the deck (b-th reshuffle)
EV_HONOR = np.int64(8)  # player: Honor changes by a to b; c = why (HONOR_*), d = other seat
EV_ATTACK = np.int64(9)  # player attacks seat a with Weapon b (Difficulty c, d wounds on a hit)
EV_PARRY = np.int64(10)  # player parries with card type a (attack by seat b)
EV_WOUND = np.int64(11)  # player: a wounds, b resilience lost, c left; d = seat responsible
EV_DEFEAT = np.int64(12)  # player defeated by seat a
EV_DISCARD = np.int64(13)  # player discards card type a (b = why, DISCARD_*)
EV_PROPERTY = np.int64(14)  # player puts property a in front of seat b
EV_TAKE = np.int64(15)  # player takes card type a at random from seat b's hand (Diversion)
EV_REMOVE = np.int64(16)  # player's Geisha: seat a loses property b, or hand card type c
EV_HEAL = np.int64(17)  # player's Breathing: resilience back to a
EV_BUSHIDO_FLIP = np.int64(18)  # player turns up card type a for Bushido
EV_BUSHIDO_MOVE = np.int64(19)  # Bushido passes to seat a (-1: discarded)
EV_NOBUNAGA = np.int64(20)  # player pays 1 resilience (a left) to draw
EV_EMPTY = np.int64(21)  # player: nothing left to draw
EV_END = np.int64(22)  # table: the game ends for reason a (End); b = team of the Swordmaster
EV_SCORE = np.int64(23)  # table: team a scores b
EV_RESULT = np.int64(24)  # table: team a wins (b = seats mask, c = Deadly Strike team or -1)
EV_HAND = np.int64(25)  # player: ends the game holding a cards of type b (its final hand)
HONOR_DEFEAT = np.int64(0)
HONOR_RESHUFFLE = np.int64(1)
HONOR_BUSHIDO = np.int64(2)
DISCARD_LIMIT = np.int64(0)
DISCARD_JUJUTSU = np.int64(1)
DISCARD_BUSHIDO = np.int64(2)
DISCARD_GEISHA = np.int64(3)
DISCARD_BATTLE_CRY = np.int64(4)

# Rows of game.work (scratch for a decision, one column per seat)
W_SCORE = np.int64(0)
W_KEY = np.int64(1)
W_WEAPON = np.int64(2)
W_DIFF = np.int64(3)
N_WORK = 4

# One record per seat: seats[q].field
SEAT = np.dtype([
    ("res", np.int64),  # resilience left
    ("max_res", np.int64),  # the character's resilience
    ("honor", np.int64),  # public
    ("role", np.int64),  # Role (secret but for the Shogun's)
    ("team", np.int64),  # Team (secret)
    ("ability", np.int64),  # the character's ability (public)
    ("stars", np.int64),  # a Ninja card's stars, 0 for other roles (secret)
    ("mult", np.int64),  # the role's score multiplier (secret)
    ("char", np.int64),  # character index in the content (public)
    ("hand_n", np.int64),  # cards in hand (public)
    ("hostile", np.int64),  # public: hostile acts against the Shogun
    ("loyal", np.int64),  # public: hostile acts against players hostile to the Shogun
    ("policy", np.int64),  # run parameter: the seat's policy (players.RANDOM, ...)
    ("lane", np.int64),  # run parameter: the seat's own random stream lane
    ("deal", np.int64),  # run parameter: cards dealt to the seat at setup
    ("hand", np.int64, (MAX_T,)),  # cards in hand by type (secret)
    ("props", np.int64, (MAX_T,)),  # properties in play in front of the seat, by type
    ("prop_n", np.int64, (N_PROP,)),  # properties in front of the seat, by effect - FOCUS
], align=True)

# The game's one record: game[0].field
GAME = np.dtype([
    ("players", np.int64),  # run parameter
    ("n_types", np.int64),  # run parameter: card types in the content (T)
    ("n_chars", np.int64),  # run parameter: characters in the content
    ("n_cards", np.int64),  # run parameter: cards in the deck
    ("deck_n", np.int64),  # cards in the deck
    ("disc_n", np.int64),  # cards in the discard pile
    ("bushido", np.int64),  # seat with Bushido in front of it, or -1
    ("end", np.int64),  # End reason (End.NONE while playing)
    ("sword", np.int64),  # team of a Victory of the Swordmaster, or -1
    ("deadly", np.int64),  # team hit by a Deadly Strike, or -1
    ("reshuffles", np.int64),
    ("turns", np.int64),  # turns completed
    ("log_turn", np.int64),  # the turn number in the log (0: setup)
    ("weapons_played", np.int64),  # Weapons played this turn
    ("plays", np.int64),  # plays this turn
    ("phase", np.int64),  # PH_* decision or ST_* step
    ("actor", np.int64),  # seat whose turn it is
    ("to_act", np.int64),  # seat that decides now, -1 when over
    ("attacker", np.int64),  # seat whose Weapon, Battle Cry or Jujutsu is resolving
    ("target", np.int64),  # seat attacked by that Weapon
    ("weapon", np.int64),  # card type of that Weapon, Battle Cry or Jujutsu
    ("responder", np.int64),  # Battle Cry / Jujutsu: offset from the attacker of the seat hit
    ("draw_k", np.int64),  # cards still to draw in the Draw phase
    ("win", np.int64),  # winning team, -1 (none or capped)
    ("deck", np.int64, (MAX_D,)),  # card types, top = deck_n - 1 (secret order)
    ("disc", np.int64, (MAX_D,)),  # discard pile, top = disc_n - 1 (public)
    ("team_score", np.int64, (N_TEAM,)),  # final team scores (-1 unscored)
    ("team_size", np.int64, (N_TEAM,)),  # seats per team, at the end
    ("work", np.int64, (N_WORK, MAX_P)),  # scratch for a decision
    ("perm", np.int64, (MAX_C,)),  # scratch for the deal
    ("param", np.int64, (N_PI,)),  # run parameters: PI_*
    ("card", np.int64, (N_CI, MAX_T)),  # run parameters: effect, difficulty, damage, keep
    ("copies", np.int64, (MAX_T,)),  # run parameters: copies of each card type
    ("setup_roles", np.int64, (MAX_P,)),  # run parameters: roles in play, Shogun first
    ("role_honor", np.int64, (N_ROLE,)),  # run parameters: starting Honor per role
    ("role_mult", np.int64, (N_ROLE,)),  # run parameters: score multiplier per role
    ("char_res", np.int64, (MAX_C,)),  # run parameters: resilience per character
    ("char_abil", np.int64, (MAX_C,)),  # run parameters: ability per character
    ("rng", np.uint64, (MAX_P + 1, STATE_SIZE)),  # one stream per player lane, then shared
    ("log_n", np.int64, (1,)),  # events written to the log (or counted)
    ("misc", np.int64, (N_MISC,)),  # this game's counts (stats.Misc), to st.aggs.misc
    ("played", np.int64, (MAX_T,)),  # this game's cards played by type, to st.aggs.cards
], align=True)

# The state: one namedtuple of arrays (numba types it by dtype and rank). The random
# streams, rng (MAX_P + 1, STATE_SIZE) uint64, and the log's counter, log_n (1,) int64, are
# fields of the game record: game[0].rng, game[0].log_n.
State = namedtuple("State", [
    "seats",  # (MAX_P,) SEAT records: per-seat facts, hands and properties
    "game",  # (1,) GAME record: deck, discard pile, whose decision, streams, parameters ...
    "log",  # (E, 7) int64: the event buffer (E = 0 in the fast path)
    "legal",  # (n_actions(T),) int64: scratch list of legal actions
    "aggs",  # stats.SwordAggs: the run's statistics, which a finished game adds to
])

# What the rules and players pass each other: the state less the scratch list and the
# run's statistics.
Table = namedtuple("Table", ["seats", "game", "log"])


def n_actions(card_types: int) -> int:
    """Size of the action code space for T card types."""
    return int(GIVE) + card_types + card_types * int(MAX_P) * (card_types + 1)


def new_state(*, players: int, policies: np.ndarray, roles: np.ndarray, honor: np.ndarray,
              mult: np.ndarray, mult_top: int, hands: np.ndarray, ch_res: np.ndarray,
              ch_abil: np.ndarray, copies: np.ndarray, cinfo: np.ndarray, pi: np.ndarray,
              aggs: tuple, log_rows: int = 0, rotation: int = 0) -> State:
    """Allocate a game's state for a run (before setup). Player j (policy policies[j], own
    stream lane j) sits at seat (j + rotation) % players."""
    T = cinfo.shape[1]
    NC = len(ch_res)
    seats = np.zeros(MAX_P, SEAT)
    for s in range(players):
        j = (s - rotation) % players
        seats[s]["policy"] = policies[j]
        seats[s]["lane"] = j
    seats["deal"] = hands[:MAX_P]
    game = np.zeros(1, GAME)
    g = game[0]
    g["players"] = players
    g["n_types"] = T
    g["n_chars"] = NC
    g["n_cards"] = int(copies.sum())
    g["param"][:len(pi)] = pi
    g["param"][PI_MULT_TOP] = mult_top
    g["card"][:, :T] = cinfo
    g["copies"][:T] = copies
    g["setup_roles"][:players] = roles
    g["role_honor"] = honor
    g["role_mult"] = mult
    g["char_res"][:NC] = ch_res
    g["char_abil"][:NC] = ch_abil
    g["rng"][:] = streams.stream_states(0, 1)[0]  # every lane un-keyed (seed_lanes keys them)
    log, _ = ev.new_log(log_rows)
    return State(seats=seats, game=game, log=log, legal=np.zeros(n_actions(T), np.int64),
                 aggs=aggs)


@kernel(inline=True)
def table(st):
    """The state as the rules and players pass it."""
    return Table(st.seats, st.game, st.log)


# --- small facts ------------------------------------------------------------------------

@kernel
def note(t, player, kind, a, b, c, d):
    """Write one event of the game log at the current turn."""
    g = t.game[0]
    ev.emit(t.log, g.log_n, g.log_turn, player, kind, a, b, c, d)


@kernel
def harmless(t, q):
    """No resilience or no card in hand: cannot be attacked, untouched by Battle Cry and
    Jujutsu, not counted for Difficulty."""
    s = t.seats[q]
    return s.res == 0 or s.hand_n == 0


@kernel
def count_eff(t, p, eff):
    """Cards with effect `eff` in p's hand."""
    g = t.game[0]
    hand = t.seats[p].hand
    n = 0
    for c in range(g.n_types):
        if hand[c] > 0 and g.card[CI_EFF, c] == eff:
            n += hand[c]
    return n


@kernel
def kinds_of(t, p, eff):
    """Card types with effect `eff` in p's hand."""
    g = t.game[0]
    hand = t.seats[p].hand
    n = 0
    for c in range(g.n_types):
        if hand[c] > 0 and g.card[CI_EFF, c] == eff:
            n += 1
    return n


@kernel
def prop_type(t, q, eff):
    """A property type with effect `eff` in front of q, or -1."""
    g = t.game[0]
    props = t.seats[q].props
    for c in range(g.n_types):
        if props[c] > 0 and g.card[CI_EFF, c] == eff:
            return c
    return NONE


@kernel
def random_card(state, hand, n_types, n):
    """A card type drawn uniformly from the n cards counted by type in `hand` (one hand's
    counts), from stream `state`."""
    r = below(state, n)
    for c in range(n_types):
        r -= hand[c]
        if r < 0:
            return c
    return NONE


@kernel
def end_game(t, reason):
    """Record the end (the first reason stands)."""
    g = t.game[0]
    if g.end == End.NONE:
        g.end = reason


@kernel
def give(t, p, c):
    """One card of type c into p's hand."""
    s = t.seats[p]
    s.hand[c] += 1
    s.hand_n += 1


@kernel
def to_discard(t, c):
    """A card of type c onto the discard pile."""
    g = t.game[0]
    g.disc[g.disc_n] = c
    g.disc_n += 1


@kernel
def discard_from_hand(t, p, c, why):
    """p discards a card of type c from its hand."""
    s = t.seats[p]
    s.hand[c] -= 1
    s.hand_n -= 1
    to_discard(t, c)
    note(t, p, EV_DISCARD, c, why, NIL, NIL)


# --- combat rules -------------------------------------------------------------------------

@kernel
def difficulties(t, p):
    """game.work[W_DIFF, q] = the Difficulty for p to attack q, for every other seat q:
    fewest steps either way counting only players who are not Harmless, + q's Armor,
    + 1 for Benkei."""
    g = t.game[0]
    P = g.players
    d = g.work[W_DIFF]
    steps = 1
    i = (p + 1) % P
    while i != p:  # clockwise
        d[i] = steps
        if not harmless(t, i):
            steps += 1
        i = (i + 1) % P
    steps = 1
    i = (p + P - 1) % P
    while i != p:  # counter-clockwise
        if steps < d[i]:
            d[i] = steps
        if not harmless(t, i):
            steps += 1
        i = (i + P - 1) % P
    for q in range(P):
        if q != p:
            d[q] += t.seats[q].prop_n[ARMOR - FOCUS]
            if t.seats[q].ability == BENKEI:
                d[q] += 1


@kernel
def difficulty(t, p, q):
    """The Difficulty for p to attack q (see difficulties)."""
    difficulties(t, p)
    return t.game[0].work[W_DIFF, q]


@kernel
def reaches(t, p, c, d):
    """Weapon type c of p reaches Difficulty d (Kojiro's reach any)."""
    return t.seats[p].ability == KOJIRO or t.game[0].card[CI_DIFF, c] >= d


@kernel
def weapon_damage(t, p, q, c):
    """Wounds a hit of p's weapon c deals q: + Fast Draw, + Musashi, - Ginchiyo (min 1)."""
    d = t.game[0].card[CI_DMG, c] + t.seats[p].prop_n[FAST_DRAW - FOCUS]
    if t.seats[p].ability == MUSASHI:
        d += 1
    if t.seats[q].ability == GINCHIYO:
        d = max(1, d - 1)
    return d


@kernel
def weapon_limit(t, p):
    """Weapons p may play this turn."""
    s = t.seats[p]
    param = t.game[0].param
    n = param[PI_WEAPONS] + s.prop_n[FOCUS - FOCUS]
    if s.ability == GOEMON:
        n += 1
    if s.role == Role.SHOGUN:
        n += param[PI_SH_WEAPONS]
    return n


@kernel
def target(t, p, q):
    """Whether p may attack q with a Weapon at all (another player, not Harmless)."""
    return q != p and not harmless(t, q)


@kernel
def parry_options(t, q):
    """Cards q could give up against a Weapon or a Battle Cry: its Parries, plus Hanzo's
    Weapons unless one is his only card."""
    n = count_eff(t, q, PARRY)
    if t.seats[q].ability == HANZO and t.seats[q].hand_n >= 2:
        n += count_eff(t, q, WEAPON)
    return n


# --- deck ---------------------------------------------------------------------------------

@kernel
def lose_honor(t, q, why):
    """q loses 1 Honor to the box; True when it has none left."""
    s = t.seats[q]
    s.honor -= 1
    note(t, q, EV_HONOR, NONE, s.honor, why, NONE)
    return s.honor <= 0


@kernel
def reshuffle(t):
    """The discard pile becomes the deck, shuffled; every player loses 1 Honor to the box
    (the game ends if someone has none left). False when there is nothing to reshuffle."""
    g = t.game[0]
    n = g.disc_n
    if n == 0:
        return False
    for i in range(n):
        g.deck[i] = g.disc[i]
    g.deck_n = n
    g.disc_n = 0
    shuffle(t.game[0].rng[SHARED], g.deck, n)
    g.reshuffles += 1
    note(t, NONE, EV_RESHUFFLE, n, g.reshuffles, NIL, NIL)
    out = False
    for q in range(g.players):
        if lose_honor(t, q, HONOR_RESHUFFLE):
            out = True
    if out:
        end_game(t, np.int64(End.HONOR_DECK))
    return True


@kernel
def draw_card(t, p):
    """The top card of the deck for p (reshuffling when needed), or -1 when there is none
    or the reshuffle ended the game."""
    g = t.game[0]
    if g.deck_n == 0:
        if not reshuffle(t):
            g.misc[Misc.EMPTY_DRAWS] += 1
            note(t, p, EV_EMPTY, NIL, NIL, NIL, NIL)
            return NONE
        if g.end != End.NONE:
            return NONE
    g.deck_n -= 1
    return g.deck[g.deck_n]


@kernel
def after_draw(t):
    """With reshuffle=when-empty: once a drawn card has gone where it goes (a hand, the
    discard pile), an empty deck is reshuffled at once (unless the game is over)."""
    g = t.game[0]
    if g.param[PI_RESHUFFLE_NOW] == 1 and g.deck_n == 0 and g.end == End.NONE:
        reshuffle(t)


@kernel
def draw_to(t, p, k):
    """p draws k cards (fewer if the game ends or nothing is left)."""
    g = t.game[0]
    for _ in range(k):
        if g.end != End.NONE:
            return
        c = draw_card(t, p)
        if c < 0:
            return
        give(t, p, c)
        note(t, p, EV_DRAW, c, NIL, NIL, NIL)
        after_draw(t)


# --- wounds, defeat, end ------------------------------------------------------------------

@kernel
def defeat(t, q, by):
    """q lost its last resilience to a card of `by`: Honor to `by`, then the end checks."""
    g = t.game[0]
    t.game[0].misc[Misc.DEFEATS] += 1
    note(t, q, EV_DEFEAT, by, NIL, NIL, NIL)
    loser = t.seats[q]
    winner = t.seats[by]
    mate = loser.team == winner.team
    if mate:
        t.game[0].misc[Misc.TEAMMATE_DEFEATS] += 1
    loser.honor -= 1
    winner.honor += 1
    note(t, q, EV_HONOR, NONE, loser.honor, HONOR_DEFEAT, by)
    note(t, by, EV_HONOR, np.int64(1), winner.honor, HONOR_DEFEAT, q)
    honor_out = loser.honor <= 0
    alone = NONE  # the only seat with resilience left
    if g.param[PI_SWORD] != SWORD_NONE:
        n = 0
        for r in range(g.players):
            if t.seats[r].res > 0:
                n += 1
                alone = r
        if n != 1:
            alone = NONE
        elif g.param[PI_SWORD] == SWORD_SHOGUN and t.seats[alone].team != Team.SHOGUN:
            alone = NONE  # the Shogun is not subject to it: a rival alone does not end it
    if alone >= 0 and not mate and (g.param[PI_SWORD_FIRST] == 1 or not honor_out):
        g.sword = t.seats[alone].team
        end_game(t, np.int64(End.SWORDMASTER))
        return
    if honor_out:
        if mate:
            g.deadly = loser.team
        end_game(t, np.int64(End.HONOR_DEFEAT))
        return
    if alone >= 0 and mate and g.param[PI_TEAMMATE_END] == 1:
        g.deadly = loser.team
        end_game(t, np.int64(End.TEAMMATE))


@kernel
def wound(t, q, n, by):
    """q suffers n wounds from a card of `by`; returns the resilience it actually lost
    (excess wounds are lost on defeat)."""
    s = t.seats[q]
    lost = min(n, s.res)
    s.res -= lost
    note(t, q, EV_WOUND, n, lost, s.res, by)
    if lost > 0 and s.res == 0:
        defeat(t, q, by)
    return lost


@kernel
def aggress(t, p, q):
    """Public memory of a hostile act of p against q."""
    if q == SHOGUN_SEAT and p != SHOGUN_SEAT:
        t.seats[p].hostile += 1
    elif q != p and t.seats[q].hostile > 0:
        t.seats[p].loyal += 1


# --- setup --------------------------------------------------------------------------------

@kernel
def deal_roles(t):
    """Roles (seat 0 the Shogun, the others shuffled), Honor, multipliers and Ninja stars,
    from the shared stream."""
    g = t.game[0]
    P = g.players
    shared = t.game[0].rng[SHARED]
    perm = g.perm
    for s in range(P):
        perm[s] = g.setup_roles[s]
    for i in range(P - 1, 1, -1):  # shuffle seats 1..P-1
        j = 1 + below(shared, i)
        x = perm[i]
        perm[i] = perm[j]
        perm[j] = x
    for s in range(P):
        seat = t.seats[s]
        seat.role = perm[s]
        seat.team = TEAM_OF[perm[s]]
        seat.honor = g.role_honor[perm[s]]
        seat.mult = g.role_mult[perm[s]]
    for i in range(3):  # Ninja stars: distinct, drawn from 1..3
        perm[i] = i + 1
    shuffle(shared, perm, np.int64(3))
    k = 0
    top = NONE
    for s in range(P):
        if t.seats[s].role == Role.NINJA:
            t.seats[s].stars = perm[k % 3]
            k += 1
            if top < 0 or t.seats[s].stars > t.seats[top].stars:
                top = s
    if g.param[PI_MULT_TOP] > 0 and top >= 0:
        t.seats[top].mult = g.param[PI_MULT_TOP]
    for s in range(P):
        seat = t.seats[s]
        note(t, s, EV_ROLE, seat.role, seat.stars, seat.mult, seat.honor)


@kernel
def deal_cards(t):
    """Characters, then the shuffled deck and the starting hands, from the shared stream."""
    g = t.game[0]
    shared = t.game[0].rng[SHARED]
    perm = g.perm
    for c in range(g.n_chars):
        perm[c] = c
    shuffle(shared, perm, g.n_chars)
    for s in range(g.players):
        seat = t.seats[s]
        c = perm[s]
        seat.char = c
        seat.ability = g.char_abil[c]
        seat.max_res = g.char_res[c]
        seat.res = g.char_res[c]
        note(t, s, EV_CHARACTER, c, seat.res, NIL, NIL)
    n = np.int64(0)
    for c in range(g.n_types):
        for _ in range(g.copies[c]):
            g.deck[n] = c
            n += 1
    shuffle(shared, g.deck, n)
    for s in range(g.players):
        for _ in range(t.seats[s].deal):
            if n > 0:
                n -= 1
                give(t, s, g.deck[n])
                note(t, s, EV_DEAL, g.deck[n], NIL, NIL, NIL)
    g.deck_n = n
    g.disc_n = 0


@kernel
def clear(t):
    """Empty table: no hands, properties, positions or counters (run parameters kept)."""
    for s in range(MAX_P):
        seat = t.seats[s]
        seat.res = seat.max_res = seat.honor = seat.role = seat.team = 0
        seat.ability = seat.stars = seat.mult = seat.char = seat.hand_n = 0
        seat.hostile = seat.loyal = 0
        for c in range(MAX_T):
            seat.hand[c] = 0
            seat.props[c] = 0
        for e in range(N_PROP):
            seat.prop_n[e] = 0
    g = t.game[0]
    g.deck_n = g.disc_n = g.reshuffles = g.turns = g.log_turn = 0
    g.weapons_played = g.plays = g.actor = g.responder = g.draw_k = 0
    g.end = End.NONE
    g.bushido = g.sword = g.deadly = g.win = g.to_act = g.attacker = g.target = -1
    g.weapon = -1
    for k in range(N_TEAM):
        g.team_score[k] = -1
        g.team_size[k] = 0
    for k in range(N_MISC):
        g.misc[k] = 0
    for c in range(MAX_T):
        g.played[c] = 0
    g.log_n[0] = 0


@kernel(inline=True)
def setup(st, seed, playout):
    """Key the streams to (seed, playout), deal roles, Ninja stars, characters, the deck
    and the hands, and go on to the Shogun's first decision."""
    deal(table(st), seed, playout)


@kernel
def deal(t, seed, playout):
    """setup, on the table."""
    seed_lanes(t.game[0].rng, seed, playout)
    clear(t)
    deal_roles(t)
    deal_cards(t)
    start_turn(t)  # the Shogun's first turn up to its first decision: advance's steps
    draw_phase(t)  # from ST_TURN, which at the start meet no Bushido and a full deck
    if t.game[0].phase == ST_DRAW_CARDS:
        draw_cards(t)


# --- whose decision, what is legal ------------------------------------------------------

@kernel(inline=True)
def to_move(st):
    """The seat that must decide now, -1 when the game is over."""
    return st.game[0].to_act


@kernel(inline=True)
def is_over(st):
    """Whether the game has ended."""
    return st.game[0].phase == PH_OVER


@kernel
def play_code(t, c, q, o):
    """The action 'play card type c at seat q with option o'."""
    T = t.game[0].n_types
    return GIVE + T + (c * MAX_P + q) * (T + 1) + (o + 1)


@kernel
def play_parts(t, a):
    """(card type, seat, option) of a play action."""
    T = t.game[0].n_types
    x = a - GIVE - T
    o = x % (T + 1) - 1
    cq = x // (T + 1)
    return cq // MAX_P, cq % MAX_P, o


@kernel
def legal_plays(t, out):
    """The plays of the player whose turn it is, in a fixed order: ending the turn,
    Nobunaga's draw, then by card type, target seat and option."""
    g = t.game[0]
    P = g.players
    p = g.actor
    me = t.seats[p]
    n = 0
    out[n] = PASS
    n += 1
    if me.ability == NOBUNAGA_ABILITY and me.res > 1:
        out[n] = NOBUNAGA
        n += 1
    can_weapon = g.weapons_played < weapon_limit(t, p)
    if can_weapon:
        difficulties(t, p)
    for c in range(g.n_types):
        if me.hand[c] == 0:
            continue
        e = g.card[CI_EFF, c]
        if e == WEAPON:
            if can_weapon:
                for q in range(P):
                    if target(t, p, q) and reaches(t, p, c, g.work[W_DIFF, q]):
                        out[n] = play_code(t, c, q, NONE)
                        n += 1
        elif e in (FOCUS, ARMOR, FAST_DRAW, BATTLE_CRY, JUJUTSU, TEA, DAIMYO):
            out[n] = play_code(t, c, p, NONE)
            n += 1
        elif e == BUSHIDO:
            if g.bushido < 0:
                for q in range(P):
                    if q != p or g.param[PI_BUSHIDO_SELF] == 1:
                        out[n] = play_code(t, c, q, NONE)
                        n += 1
        elif e in (BREATHING, DIVERSION):
            for q in range(P):
                if q != p and (e == BREATHING or t.seats[q].hand_n > 0):
                    out[n] = play_code(t, c, q, NONE)
                    n += 1
        elif e == GEISHA:
            n = geisha_plays(t, p, c, out, n)
    return n


@kernel
def geisha_plays(t, p, c, out, n):
    """Append the Geisha plays of card type c: each seat's hand, each property in play."""
    g = t.game[0]
    for q in range(g.players):
        if q == p and g.param[PI_GEISHA_SELF] == 0:
            continue
        if t.seats[q].hand_n > (1 if q == p else 0):
            out[n] = play_code(t, c, q, NONE)
            n += 1
        for u in range(g.n_types):
            if t.seats[q].props[u] > 0:
                out[n] = play_code(t, c, q, u)
                n += 1
    return n


@kernel
def give_options(t, q, eff, also, out, n):
    """Append GIVE + c for every card type c in q's hand with effect `eff` (or `also`)."""
    g = t.game[0]
    for c in range(g.n_types):
        if t.seats[q].hand[c] > 0:
            e = g.card[CI_EFF, c]
            if e in (eff, also):
                out[n] = GIVE + c
                n += 1
    return n


@kernel
def legal_moves(t, out):
    """Fill out[:n] with the legal actions of the player to act; return n (0 when over)."""
    g = t.game[0]
    ph = g.phase
    q = g.to_act
    if ph == PH_PLAY:
        return legal_plays(t, out)
    if ph == PH_OVER:
        return np.int64(0)
    out[0] = PASS
    n = np.int64(1)
    if ph in (PH_PARRY, PH_BATTLE_CRY):
        hanzo = t.seats[q].ability == HANZO and t.seats[q].hand_n >= 2
        n = give_options(t, q, PARRY, WEAPON if hanzo else NONE, out, n)
    elif ph in (PH_JUJUTSU, PH_BUSHIDO):
        n = give_options(t, q, WEAPON, NONE, out, n)
    elif ph == PH_IEYASU:
        out[n] = IEYASU
        n += 1
    elif ph == PH_DISCARD:
        n = np.int64(0)
        for c in range(g.n_types):
            if t.seats[q].hand[c] > 0:
                out[n] = GIVE + c
                n += 1
    return n


@kernel
def legal_actions(st, out):
    """Fill out[:n] with the legal actions of the player to act; return n (0 when over)."""
    return legal_moves(table(st), out)


@kernel
def option(t, a):
    """The option (index in OPTIONS) that action `a` of the player to act uses, or -1 when
    it uses none (passing, a forced discard)."""
    if a == PASS:
        return NONE
    if a == NOBUNAGA:
        return OPT_NOBUNAGA
    if a == IEYASU:
        return OPT_IEYASU
    g = t.game[0]
    if a < GIVE + g.n_types:
        return OPT_PARRY if g.phase == PH_PARRY or g.phase == PH_BATTLE_CRY else NONE
    c, _, _ = play_parts(t, a)
    return g.card[CI_EFF, c]


@kernel
def option_of(st, a):
    """The option (index in OPTIONS) that action `a` of the player to act uses, or -1."""
    return option(table(st), a)


@kernel
def action_parts(st, a):
    """(card type, seat, option) of a play action (for describing it)."""
    return play_parts(table(st), a)


@kernel
def action_code(st, c, q, o):
    """The action 'play card type c at seat q with option o' (for scripting a game)."""
    return play_code(table(st), c, q, o)


# --- the turn -----------------------------------------------------------------------------

@kernel
def decide(t, phase, seat):
    """Stop at a decision of `seat`."""
    g = t.game[0]
    g.phase = phase
    g.to_act = seat


@kernel
def start_turn(t):
    """Recover (resilience back at 0), then (rule bushido-timing=after-recover) Bushido."""
    g = t.game[0]
    p = g.actor
    s = t.seats[p]
    g.log_turn = g.turns + 1
    note(t, p, EV_TURN, s.res, s.hand_n, NIL, NIL)
    if s.res == 0:
        s.res = s.max_res
        note(t, p, EV_RECOVER, s.res, NIL, NIL, NIL)
    g.phase = ST_DRAW
    if g.param[PI_BUSHIDO_END] == 0:
        bushido_flip(t, p)


@kernel
def after_bushido(t):
    """The step after Bushido resolved: the Draw phase (resolved at Recover) or the next
    seat (resolved at the end of the turn, or the game over)."""
    g = t.game[0]
    return ST_TURN_END if g.end != End.NONE or g.param[PI_BUSHIDO_END] == 1 else ST_DRAW


@kernel
def bushido_flip(t, p):
    """Bushido in front of p: turn up the deck's top card; a Weapon costs a Weapon from
    hand (Bushido passes on) or 1 Honor (Bushido is discarded); else it passes on."""
    g = t.game[0]
    s = t.seats[p]
    g.phase = after_bushido(t)
    if g.bushido != p:
        return
    t.game[0].misc[Misc.BUSHIDO_FLIPS] += 1
    c = draw_card(t, p)
    if c >= 0:
        to_discard(t, c)
        note(t, p, EV_BUSHIDO_FLIP, c, NIL, NIL, NIL)
        after_draw(t)
    if g.end != End.NONE:
        g.phase = ST_TURN_END
    elif c < 0 or g.card[CI_EFF, c] != WEAPON:
        pass_bushido(t, p)
    elif s.role == Role.SHOGUN and g.param[PI_SH_BUSHIDO] == 0:
        drop_bushido(t, p)
    elif count_eff(t, p, WEAPON) > 0:
        decide(t, PH_BUSHIDO, p)
    else:
        bushido_choice(t, p, PASS)


@kernel
def bushido_choice(t, p, a):
    """p answers Bushido's Weapon: gives a Weapon (GIVE + c) or loses 1 Honor (PASS)."""
    if a != PASS:
        discard_from_hand(t, p, a - GIVE, DISCARD_BUSHIDO)
        t.game[0].misc[Misc.BUSHIDO_WEAPONS] += 1
        pass_bushido(t, p)
        return
    t.game[0].misc[Misc.BUSHIDO_HONOR] += 1
    if lose_honor(t, p, HONOR_BUSHIDO):
        end_game(t, np.int64(End.HONOR_BUSHIDO))
    drop_bushido(t, p)


@kernel
def pass_bushido(t, p):
    """Bushido passes from p to the next seat clockwise."""
    g = t.game[0]
    bt = prop_type(t, p, BUSHIDO)
    nxt = (p + 1) % g.players
    t.seats[p].props[bt] -= 1
    t.seats[p].prop_n[BUSHIDO - FOCUS] -= 1
    t.seats[nxt].props[bt] += 1
    t.seats[nxt].prop_n[BUSHIDO - FOCUS] += 1
    g.bushido = nxt
    note(t, p, EV_BUSHIDO_MOVE, nxt, NIL, NIL, NIL)
    g.phase = after_bushido(t)


@kernel
def drop_bushido(t, p):
    """Bushido in front of p goes to the discard pile."""
    g = t.game[0]
    bt = prop_type(t, p, BUSHIDO)
    t.seats[p].props[bt] -= 1
    t.seats[p].prop_n[BUSHIDO - FOCUS] -= 1
    to_discard(t, bt)
    g.bushido = -1
    note(t, p, EV_BUSHIDO_MOVE, NONE, NIL, NIL, NIL)
    g.phase = after_bushido(t)


@kernel
def draw_phase(t):
    """Cards to draw (+1 Hideyoshi, + the Shogun's extra); Ieyasu may take the discard
    pile's top card first."""
    g = t.game[0]
    p = g.actor
    s = t.seats[p]
    k = g.param[PI_DRAW]
    if s.ability == HIDEYOSHI:
        k += 1
    if s.role == Role.SHOGUN:
        k += g.param[PI_SH_DRAW]
    g.draw_k = k
    g.phase = ST_DRAW_CARDS
    if s.ability == IEYASU_ABILITY and g.disc_n > 0:
        decide(t, PH_IEYASU, p)


@kernel
def ieyasu_choice(t, p, a):
    """Ieyasu takes the discard pile's top card (IEYASU) or draws from the deck (PASS)."""
    g = t.game[0]
    if a == IEYASU:
        g.disc_n -= 1
        top = g.disc[g.disc_n]
        give(t, p, top)
        note(t, p, EV_DRAW, top, np.int64(1), NIL, NIL)
        t.game[0].misc[Misc.IEYASU_DISCARD_DRAWS] += 1
        g.draw_k -= 1
    g.phase = ST_DRAW_CARDS


@kernel
def draw_cards(t):
    """The Draw phase's cards from the deck, then the Play phase."""
    g = t.game[0]
    p = g.actor
    draw_to(t, p, g.draw_k)
    g.draw_k = 0
    if g.end != End.NONE:
        g.phase = ST_TURN_END
        return
    g.weapons_played = 0
    g.plays = 0
    decide(t, PH_PLAY, p)


# --- plays and their effects -------------------------------------------------------------

@kernel
def play(t, p, a):
    """p's play `a` in its Play phase (not PASS)."""
    g = t.game[0]
    t.game[0].misc[Misc.PLAYS] += 1
    g.phase = ST_AFTER_PLAY
    if a == NOBUNAGA:
        t.seats[p].res -= 1
        t.game[0].misc[Misc.NOBUNAGA_DRAWS] += 1
        note(t, p, EV_NOBUNAGA, t.seats[p].res, NIL, NIL, NIL)
        draw_to(t, p, np.int64(1))
        return
    c, q, o = play_parts(t, a)
    t.seats[p].hand[c] -= 1
    t.seats[p].hand_n -= 1
    t.game[0].played[c] += 1
    e = g.card[CI_EFF, c]
    if e >= FOCUS:  # a property stays in play
        dest = p if e != BUSHIDO else q
        t.seats[dest].props[c] += 1
        t.seats[dest].prop_n[e - FOCUS] += 1
        note(t, p, EV_PROPERTY, c, dest, NIL, NIL)
        if e == BUSHIDO:
            g.bushido = dest
            if dest != p:
                aggress(t, p, dest)
        return
    to_discard(t, c)
    if e == WEAPON:
        g.weapons_played += 1
        attack(t, p, q, c)
    elif e in (BATTLE_CRY, JUJUTSU):
        g.attacker = p
        g.weapon = c
        g.responder = 1
        g.phase = ST_MASS
    else:
        card_effect(t, p, q, o, e)


@kernel
def card_effect(t, p, q, o, e):
    """Breathing, Tea Ceremony, Daimyo, Diversion and Geisha (option o: the property it
    discards, -1 a random card from the hand)."""
    g = t.game[0]
    P = g.players
    if e == BREATHING:
        t.seats[p].res = t.seats[p].max_res
        note(t, p, EV_HEAL, t.seats[p].res, NIL, NIL, NIL)
        draw_to(t, q, np.int64(1))
    elif e == TEA:
        draw_to(t, p, np.int64(3))
        for i in range(1, P):
            draw_to(t, (p + i) % P, np.int64(1))
    elif e == DAIMYO:
        draw_to(t, p, np.int64(2))
    elif e == DIVERSION:
        aggress(t, p, q)
        victim = t.seats[q]
        if victim.hand_n > 0:
            c = random_card(g.rng[t.seats[p].lane], victim.hand, g.n_types, victim.hand_n)
            victim.hand[c] -= 1
            victim.hand_n -= 1
            give(t, p, c)
            note(t, p, EV_TAKE, c, q, NIL, NIL)
    elif e == GEISHA:  # q discards property o, or (o = -1) a random card from its hand
        if q != p:
            aggress(t, p, q)
        victim = t.seats[q]
        if o >= 0:
            victim.props[o] -= 1
            victim.prop_n[g.card[CI_EFF, o] - FOCUS] -= 1
            if g.card[CI_EFF, o] == BUSHIDO:
                g.bushido = -1
            to_discard(t, o)
            note(t, p, EV_REMOVE, q, o, NONE, NIL)
        elif victim.hand_n > 0:
            c = random_card(g.rng[t.seats[p].lane], victim.hand, g.n_types, victim.hand_n)
            note(t, p, EV_REMOVE, q, NONE, c, NIL)
            discard_from_hand(t, q, c, DISCARD_GEISHA)


@kernel
def attack(t, p, q, c):
    """p's Weapon c (already discarded) attacks q: q may parry, else it is hit."""
    g = t.game[0]
    t.game[0].misc[Misc.ATTACKS] += 1
    aggress(t, p, q)
    if t.log.shape[0] > 0:  # (the fast path keeps no log: spare the Difficulty)
        note(t, p, EV_ATTACK, q, c, difficulty(t, p, q), weapon_damage(t, p, q, c))
    else:
        t.game[0].log_n[0] += 1
    g.attacker = p
    g.target = q
    g.weapon = c
    if parry_options(t, q) > 0:
        decide(t, PH_PARRY, q)
    else:
        hit(t, p, q, c)


@kernel
def parry_choice(t, q, a):
    """The target of a Weapon parries with card GIVE + c, or takes the hit (PASS)."""
    g = t.game[0]
    g.phase = ST_AFTER_PLAY
    if a == PASS:
        hit(t, g.attacker, q, g.weapon)
        return
    c = a - GIVE
    s = t.seats[q]
    s.hand[c] -= 1
    s.hand_n -= 1
    to_discard(t, c)
    note(t, q, EV_PARRY, c, g.attacker, NIL, NIL)
    t.game[0].misc[Misc.PARRIED] += 1
    if g.card[CI_EFF, c] == WEAPON:
        t.game[0].misc[Misc.HANZO_WEAPON_PARRIES] += 1


@kernel
def hit(t, p, q, c):
    """p's Weapon c hits q: wounds; then Tomoe draws 1 and Ushiwaka draws per wound."""
    g = t.game[0]
    t.game[0].misc[Misc.HITS] += 1
    dmg = weapon_damage(t, p, q, c)
    lost = wound(t, q, dmg, p)
    t.game[0].misc[Misc.WEAPON_WOUNDS] += lost
    g.phase = ST_AFTER_PLAY
    if g.end != End.NONE:
        return
    if t.seats[p].ability == TOMOE:
        t.game[0].misc[Misc.TOMOE_DRAWS] += 1
        draw_to(t, p, np.int64(1))
    if t.seats[q].ability == USHIWAKA:
        k = dmg if g.param[PI_USHI_DEALT] == 1 else lost
        t.game[0].misc[Misc.USHIWAKA_DRAWS] += k
        draw_to(t, q, k)


@kernel
def mass_step(t):
    """Battle Cry or Jujutsu, clockwise from the player's left: the next player it hits
    decides, or (with nothing to give up) takes 1 wound; it stops when the game ends."""
    g = t.game[0]
    P = g.players
    p = g.attacker
    battle_cry = g.card[CI_EFF, g.weapon] == BATTLE_CRY
    while g.responder < P:
        r = (p + g.responder) % P
        if harmless(t, r) or t.seats[r].ability == CHIYOME:
            g.responder += 1
            continue
        if battle_cry:
            if parry_options(t, r) > 0:
                decide(t, PH_BATTLE_CRY, r)
                return
            t.game[0].misc[Misc.BATTLE_CRY_WOUNDS] += wound(t, r, np.int64(1), p)
        else:
            if count_eff(t, r, WEAPON) > 0:
                decide(t, PH_JUJUTSU, r)
                return
            t.game[0].misc[Misc.JUJUTSU_WOUNDS] += wound(t, r, np.int64(1), p)
        g.responder += 1
        if g.end != End.NONE:
            break
    g.phase = ST_AFTER_PLAY


@kernel
def mass_choice(t, r, a):
    """A player hit by Battle Cry (Jujutsu) gives up a Parry (a Weapon) or takes 1 wound."""
    g = t.game[0]
    battle_cry = g.phase == PH_BATTLE_CRY
    if a != PASS:
        c = a - GIVE
        if battle_cry:
            discard_from_hand(t, r, c, DISCARD_BATTLE_CRY)
            t.game[0].misc[Misc.BATTLE_CRY_PARRIES] += 1
            if g.card[CI_EFF, c] == WEAPON:
                t.game[0].misc[Misc.HANZO_WEAPON_PARRIES] += 1
        else:
            discard_from_hand(t, r, c, DISCARD_JUJUTSU)
            t.game[0].misc[Misc.JUJUTSU_DISCARDS] += 1
    elif battle_cry:
        t.game[0].misc[Misc.BATTLE_CRY_WOUNDS] += wound(t, r, np.int64(1), g.attacker)
    else:
        t.game[0].misc[Misc.JUJUTSU_WOUNDS] += wound(t, r, np.int64(1), g.attacker)
    g.responder += 1
    g.phase = ST_AFTER_PLAY if g.end != End.NONE else ST_MASS


# --- apply ---------------------------------------------------------------------------------

@kernel
def advance(t):
    """Resolve forced steps (chance included) until a decision or the end of the game."""
    g = t.game[0]
    while g.phase >= N_DECISION:
        ph = g.phase
        if ph == ST_TURN:
            start_turn(t)
        elif ph == ST_DRAW:
            draw_phase(t)
        elif ph == ST_DRAW_CARDS:
            draw_cards(t)
        elif ph == ST_AFTER_PLAY:  # the next play, or the Discard phase after the cap
            if g.end != End.NONE:
                g.phase = ST_TURN_END
            else:
                g.plays += 1
                if g.plays >= PLAYS_PER_TURN:
                    g.phase = ST_HAND_LIMIT
                else:
                    decide(t, PH_PLAY, g.actor)
        elif ph == ST_MASS:
            mass_step(t)
        elif ph == ST_HAND_LIMIT:  # Discard phase: one card at a time down to the limit
            if t.seats[g.actor].hand_n > g.param[PI_LIMIT]:
                decide(t, PH_DISCARD, g.actor)
            else:
                g.phase = ST_END_BUSHIDO if g.param[PI_BUSHIDO_END] == 1 else ST_TURN_END
        elif ph == ST_END_BUSHIDO:
            bushido_flip(t, g.actor)
        elif ph == ST_TURN_END:  # the next seat clockwise, unless the game ended or capped
            g.turns += 1
            g.phase = ST_FINISH
            if g.end == End.NONE:
                g.actor = (g.actor + 1) % g.players
                if g.turns >= g.param[PI_MAX_TURNS]:
                    g.end = End.CAP
                else:
                    g.phase = ST_TURN
        else:
            finish(t)
            g.phase = PH_OVER
            g.to_act = -1


@kernel(inline=True)
def apply(st, a):
    """The player to act takes legal action `a`; the game then advances through every
    chance event and forced step to the next decision or the end (whose statistics it
    counts)."""
    t = table(st)
    g = st.game[0]
    ph = g.phase
    q = g.to_act
    if ph == PH_PLAY:
        if a == PASS:
            g.phase = ST_HAND_LIMIT
        else:
            play(t, q, a)
    elif ph == PH_PARRY:
        parry_choice(t, q, a)
    elif ph in (PH_BATTLE_CRY, PH_JUJUTSU):
        mass_choice(t, q, a)
    elif ph == PH_BUSHIDO:
        bushido_choice(t, q, a)
    elif ph == PH_IEYASU:
        ieyasu_choice(t, q, a)
    elif ph == PH_DISCARD:
        discard_from_hand(t, q, a - GIVE, DISCARD_LIMIT)
        g.phase = ST_HAND_LIMIT
    advance(t)
    if g.phase == PH_OVER:
        count_end(st)


# --- end of the game ----------------------------------------------------------------------

@kernel
def score(t):
    """Team scores (Honor x multiplier, + Daimyo in hand, - Deadly Strike) into
    game.team_score and the winning team: ties go to the Ninjas, then the Shogun's team."""
    g = t.game[0]
    for k in range(N_TEAM):
        g.team_score[k] = 0
        g.team_size[k] = 0
    for s in range(g.players):
        seat = t.seats[s]
        g.team_size[seat.team] += 1
        v = seat.honor * seat.mult
        if seat.role != Role.RONIN:
            v += g.param[PI_DAIMYO] * count_eff(t, s, DAIMYO)
        g.team_score[seat.team] += v
    if g.deadly >= 0:
        g.team_score[g.deadly] -= g.param[PI_DEADLY]
    best = NONE
    for tm in (Team.NINJA, Team.SHOGUN, Team.RONIN):
        if g.team_size[tm] > 0 and (best < 0 or g.team_score[tm] > g.team_score[best]):
            best = np.int64(tm)
    return best


@kernel
def finish(t):
    """The game is over: the winner (scored on Honor unless the Swordmaster won or the turn
    cap hit), with its log lines."""
    g = t.game[0]
    reason = g.end
    note(t, NONE, EV_END, reason, g.sword, NIL, NIL)
    if t.log.shape[0] > 0:  # a logged game: every final hand (the Daimyo it scores)
        for s in range(g.players):
            for c in range(g.n_types):
                if t.seats[s].hand[c] > 0:
                    note(t, np.int64(s), EV_HAND, t.seats[s].hand[c], np.int64(c), NIL, NIL)
    for k in range(N_TEAM):
        g.team_score[k] = -1
        g.team_size[k] = 0
    win = NONE
    if reason == End.HONOR_DEFEAT or reason == End.HONOR_DECK or \
            reason == End.HONOR_BUSHIDO or reason == End.TEAMMATE:
        win = score(t)
        for tm in range(N_TEAM):
            if g.team_size[tm] > 0:
                note(t, NONE, EV_SCORE, np.int64(tm), g.team_score[tm], NIL, NIL)
    else:
        if reason == End.SWORDMASTER:
            win = g.sword
        for s in range(g.players):
            g.team_size[t.seats[s].team] += 1
    g.win = win
    mask = np.int64(0)
    for s in range(g.players):
        if win >= 0 and t.seats[s].team == win:
            mask |= np.int64(1) << s
    note(t, NONE, EV_RESULT, win, mask, g.deadly, NIL)


@kernel
def count_end(st):
    """Add a finished game's statistics: end, length, reshuffles, teams, seats,
    characters, the scores of a game decided on Honor."""
    g = st.game[0]
    aggs = st.aggs
    for k in range(N_MISC):
        aggs.misc[k] += g.misc[k]
    m = g.misc
    cluster(aggs.clustered, Ratio.PARRIED, m[Misc.PARRIED], m[Misc.ATTACKS])
    cluster(aggs.clustered, Ratio.BATTLE_CRY_PARRIED, m[Misc.BATTLE_CRY_PARRIES],
            m[Misc.BATTLE_CRY_PARRIES] + m[Misc.BATTLE_CRY_WOUNDS])
    cluster(aggs.clustered, Ratio.TEAMMATE_DEFEATS, m[Misc.TEAMMATE_DEFEATS],
            m[Misc.DEFEATS])
    cluster(aggs.clustered, Ratio.BUSHIDO_HONOR, m[Misc.BUSHIDO_HONOR],
            m[Misc.BUSHIDO_HONOR] + m[Misc.BUSHIDO_WEAPONS])
    for c in range(g.n_types):
        aggs.cards[c] += g.played[c]
    reason = g.end
    win = g.win
    if reason != End.CAP and reason != End.SWORDMASTER:
        second = -(1 << 40)
        for tm in range(N_TEAM):
            if tm != win and g.team_size[tm] > 0 and g.team_score[tm] > second:
                second = g.team_score[tm]
        if second == g.team_score[win]:
            aggs.misc[Misc.TIE_DECIDED] += 1
        aggs.margin[min(g.team_score[win] - second, aggs.margin.shape[0] - 1)] += 1
        for tm in range(N_TEAM):
            if g.team_size[tm] > 0:
                aggs.scores[tm, 0] += 1
                aggs.scores[tm, 1] += g.team_score[tm]
                aggs.scores[tm, 2] += g.team_score[tm] * g.team_score[tm]
    if g.deadly >= 0:
        aggs.misc[Misc.DEADLY_STRIKES] += 1
    aggs.ends[reason] += 1
    aggs.turns[min(g.turns, aggs.turns.shape[0] - 1)] += 1
    aggs.reshuffles[min(g.reshuffles, aggs.reshuffles.shape[0] - 1)] += 1
    for tm in range(N_TEAM):
        if g.team_size[tm] > 0:
            aggs.team[tm, 0] += 1
    if win >= 0:
        aggs.team[win, 2 if reason == End.SWORDMASTER else 1] += 1
        if g.team_size[win] > 1:
            aggs.misc[Misc.SHARED_WINS] += 1
    for s in range(g.players):
        seat = st.seats[s]
        won = 1 if win >= 0 and seat.team == win else 0
        aggs.seat[s, seat.role, 0] += 1
        aggs.seat[s, seat.role, 1] += won
        aggs.chars[seat.char, seat.role, 0] += 1
        aggs.chars[seat.char, seat.role, 1] += won


@kernel
def cluster(sq, k, y, x):
    """One game's y successes out of x observations into the per-game sums of squares of
    ratio k (stats.Square)."""
    sq[k, Square.YY] += y * y
    sq[k, Square.XX] += x * x
    sq[k, Square.XY] += x * y


@kernel
def outcome(st, out):
    """out[s] = 1.0 for every seat on the winning team, else 0 (all 0 when capped)."""
    g = st.game[0]
    for s in range(out.shape[0]):
        out[s] = 0.0
        if s < g.players and g.win >= 0 and st.seats[s].team == g.win:
            out[s] = 1.0


# --- what a player can see ----------------------------------------------------------------

# Layout of an observation vector (observe): a head, a block per seat, the viewer's hand,
# the discard pile by card type.
OBS_VIEWER = 0
OBS_ROLE = 1  # the viewer's own role
OBS_STARS = 2  # the viewer's own Ninja stars (0 for other roles)
OBS_MULT = 3  # the viewer's own score multiplier
OBS_SHOGUN = 4  # the Shogun's seat (public)
OBS_PLAYERS = 5
OBS_TURN = 6
OBS_ACTOR = 7
OBS_PHASE = 8
OBS_TO_MOVE = 9
OBS_DECK = 10  # cards in the deck
OBS_DISC = 11  # cards in the discard pile
OBS_BUSHIDO = 12
OBS_WEAPONS_PLAYED = 13
OBS_ATTACKER = 14
OBS_TARGET = 15
OBS_WEAPON = 16  # the Weapon, Battle Cry or Jujutsu being resolved
OBS_RESHUFFLES = 17
OBS_HEAD = 18
# per seat (OBS_HEAD + s * seat block): these fields, then its properties by card type
OS_RES = 0
OS_MAX_RES = 1
OS_HONOR = 2
OS_HAND = 3
OS_CHAR = 4
OS_HOSTILE = 5
OS_LOYAL = 6
OS_FIELDS = 7


def obs_size(card_types: int) -> int:
    """Length of an observation vector for T card types."""
    return OBS_HEAD + int(MAX_P) * (OS_FIELDS + card_types) + 2 * card_types


@kernel
def observe(st, viewer, out):
    """Fill `out` with what seat `viewer` can see: its own role, stars, multiplier and hand,
    the Shogun's seat and every public fact (resilience, Honor, hand sizes, characters,
    properties, hostile acts, the discard pile, the card being resolved); return its
    length. The other players' roles and hands and the deck's order are not in it."""
    g = st.game[0]
    T = g.n_types
    me = st.seats[viewer]
    head = (viewer, me.role, me.stars, me.mult, SHOGUN_SEAT, g.players, g.log_turn,
            g.actor, g.phase, g.to_act, g.deck_n, g.disc_n, g.bushido, g.weapons_played,
            g.attacker, g.target, g.weapon, g.reshuffles)
    i = 0
    for x in head:
        out[i] = x
        i += 1
    for s in range(MAX_P):
        seat = st.seats[s]
        for x in (seat.res, seat.max_res, seat.honor, seat.hand_n, seat.char, seat.hostile,
                  seat.loyal):
            out[i] = x
            i += 1
        for c in range(T):
            out[i] = seat.props[c]
            i += 1
    for c in range(T):
        out[i] = me.hand[c]
        i += 1
    for c in range(T):
        out[i + c] = 0
    for k in range(g.disc_n):
        out[i + g.disc[k]] += 1
    return i + T


# --- for tests and tools: positions built by hand, rules asked directly ---------------------

@kernel
def resume(st):
    """Go on from a forced step (a position built by hand, e.g. phase ST_TURN) to the next
    decision or the end, as apply does after an action."""
    t = table(st)
    advance(t)
    if st.game[0].phase == PH_OVER:
        count_end(st)


@kernel
def difficulty_of(st, p, q):
    """The Difficulty for p to attack q now."""
    return difficulty(table(st), p, q)


@kernel
def damage_of(st, p, q, c):
    """The wounds p's Weapon type c would deal q on a hit."""
    return weapon_damage(table(st), p, q, c)


@kernel
def weapons_allowed(st, p):
    """How many Weapons p may play in a turn."""
    return weapon_limit(table(st), p)


@kernel
def score_now(st):
    """The winning team if the game were scored on Honor now; the team scores go to
    game.team_score."""
    return score(table(st))
