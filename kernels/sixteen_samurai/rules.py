"""Sixteen Samurai rules: the state, setup, legal actions, apply, the end and the game log.

Cards are codes: a samurai is its roster index (>= 0), battle card b (a stats.Battle) is
-1 - b. Every array has a fixed shape set by `new_state`; nothing grows.

A game runs through these decisions (st.phase), each taken by the seat st.actor[0]; the
flat action encoding depends on the phase:

| phase        | action a                                                             |
|--------------|----------------------------------------------------------------------|
| DRAFT        | roster index of a face-up samurai to take into the clan              |
| DECLARE      | ability 0-3 (POWER, SPEED, ARMOR, KARMA) for a Clan Conflict round   |
| FIELD        | 3 * c + b: samurai c (roster index) from the hand, face down, with   |
|              | before-rolling card b: 0 none, 1 Ninjutsu, 2 Uma                     |
| OFFER        | after rolling: 0 pass, 1 Ronin, 2 Medicine, 3 + q Bushido on seat q  |
| FB_DECLARE   | ability 0-3 for a Final Battle round                                 |
| FB_FIELD     | roster index of a samurai in hand                                    |

`apply` takes the decision, then runs the automatic steps (st.auto: chance, resolution,
refills, phase changes) until the next decision. Chance (the pool dealt for the draft,
shuffles, draws, dice, tiebreakers) resolves there from the game's streams: lane MAX_P
deals the pool; seat s draws everything else from its own lane st.lane[s]. Fielding is
simultaneous and face down: the seats choose one after another, and no accessor a player
uses shows another's face-down choice (`rival_best_remaining` reads what was public when
the fielding began).

Rule readings (see the rules sheet): after-rolling cards are offered in seat order from
the declarer, pass after pass, until a pass plays none; a player who already wins the
round outright is not offered Ronin or Medicine (they would do nothing); a player with no
samurai in hand sits a round out; unused battle cards are discarded when the Clan
Conflict ends, and so is any samurai still in a hand or draw pile then (the Final Battle
hand is the Hall of Honor only). Options (st.after_tb): the tiebreaker is rolled after the
offers; with after_tb the players who lost it are then offered Ronin and Medicine again
(no Bushido: the tiebreaker settled the dice). Option st.fb_bar: the samurai that won
the last Clan Conflict round may not fight Final Battle round 1 (unless it is its
owner's only one).

Battle cards as content: every clan shuffles st.battle_n[b] copies of battle card b into
its draw pile (printed: one of each). The limits stay as printed whatever the copies: one
before-rolling card per fielding (the FIELD encoding), Ronin once per round (any seat),
Medicine once per player and round; Bushido may be played again while a copy is held. A
full hand of battle cards only is reshuffled into the draw pile as printed (`refill`).

Options (OPTIONS, forbid[seat, option] in players.py): playing battle card b (option b)
and declaring ability a (option OPT_ABILITY + a) when the seat is the declarer.
"""

from collections import namedtuple
from enum import IntEnum

import numpy as np

from kernels.dice import lowest_bit, tiebreak_round, top_group
from kernels.events import emit
from kernels.jit import kernel
from kernels.rng import below, peek_die, roll_top2, seed_lanes, shuffle
from kernels.sixteen_samurai.stats import (
    N_DECL,
    N_LEN,
    Ability,
    Battle,
    BattleStat,
    CardStat,
    Clustered,
    Misc,
    Moment,
    Span,
)
from kernels.sixteen_samurai.stats import Phase as StatPhase

MAX_P = 4
N_BATTLE = 5
N_ABILITY = 4

# Phases (st.phase[0]): the decision the game waits for
DRAFT = np.int64(0)
DECLARE = np.int64(1)
FIELD = np.int64(2)
OFFER = np.int64(3)
FB_DECLARE = np.int64(4)
FB_FIELD = np.int64(5)
OVER = np.int64(6)
PHASES = ("draft", "declare", "field", "offer", "final declare", "final field", "over")

# Automatic steps (st.auto[0]): what apply does next before the next decision
GO_NONE = np.int64(0)  # wait for the decision of st.actor (or the game is over)
GO_DEAL = np.int64(1)  # the draft is over: draw piles and hands
GO_ROUND = np.int64(2)  # begin a Clan Conflict round, or end the Clan Conflict
GO_REVEAL = np.int64(3)  # every fighter has fielded: reveal and roll
GO_OFFER = np.int64(4)  # offer after-rolling cards to the next fighter holding one
GO_RESOLVE = np.int64(5)  # resolve the round, refill the hands
GO_FINAL = np.int64(6)  # the Clan Conflict is over: the Final Battle's setup
GO_FB_ROUND = np.int64(7)  # begin a Final Battle round, or end the game
GO_FB_RESOLVE = np.int64(8)  # every clan has fielded in the Final Battle: roll, resolve
GO_FINISH = np.int64(9)  # one clan is left: the result
GO_TIEBREAK = np.int64(10)  # after_tb: the offers are over, roll the tiebreaker if needed

# Battle cards as kernel constants (values of stats.Battle)
NINJUTSU = np.int64(Battle.NINJUTSU)
UMA = np.int64(Battle.UMA)
RONIN = np.int64(Battle.RONIN)
BUSHIDO = np.int64(Battle.BUSHIDO)
MEDICINE = np.int64(Battle.MEDICINE)

# FIELD actions: 3 * samurai + before-rolling card b (0 none, else battle card b - 1)
NO_CARD = np.int64(0)
WITH_NINJUTSU = np.int64(1)
WITH_UMA = np.int64(2)
# OFFER actions
PASS = np.int64(0)
PLAY_RONIN = np.int64(1)
PLAY_MEDICINE = np.int64(2)
BUSHIDO_ON = np.int64(3)  # + target seat

# Options a player can be forbidden (forbid[seat, option]): playing each battle card
# (option b = stats.Battle b), then declaring each ability (option OPT_ABILITY + a, a =
# stats.Ability a) when the seat is the declarer, in either phase
OPTIONS = tuple(b.name.lower() for b in Battle) + tuple(a.name.lower() for a in Ability)
OPT_ABILITY = np.int64(len(Battle))

NONE = np.int64(-1)
ZERO = np.int64(0)
ONE = np.int64(1)
TWO = np.int64(2)


class Ev(IntEnum):
    """Event kinds of the game log (a, b, c, d as listed; p is the event's player)."""

    POOL = 1  # a samurai laid face up for the draft: a = samurai
    CLAN = 2  # p's drafted clan: a = ability total, b = samurai
    DRAW = 3  # p draws a = card
    RESHUFFLE = 4  # p's hand of battle cards goes back into its draw pile: a = cards
    ROUND = 5  # a round begins: a = phase (0 Clan Conflict, 1 Final Battle), b = round
    #            number from 1, c = fighting clans, d = declarer
    REVEAL = 6  # p's samurai turned up: a = samurai, b = before-rolling card or -1,
    #             c = its rating in the declared ability, d = that ability
    ROLL = 7  # p's dice: a = highest, b = second (0: one die), c = dice, d = 0 roll,
    #           1 Uma, 2 Bushido reroll
    TIEBREAK = 8  # p's tiebreaker die: a = face
    TAKES = 9  # p puts a = samurai in its Hall of Honor; b = the round's winner, c = 1:
    #            stolen with Ronin
    SAVED = 10  # Medicine: p's defeated samurai a goes back to its hand
    DISCARD = 11  # p discards a = card
    FINAL = 12  # the Final Battle begins: p brings a = samurai
    BACK = 13  # Final Battle: the winner p takes its samurai a back into its hand
    OUT = 14  # p has no samurai left and is out of the Final Battle
    CAPPED = 15  # the round cap ended the Clan Conflict after a = rounds
    RESULT = 16  # p wins the game: a = Clan Conflict rounds, b = Final Battle rounds
    DIE = 17  # one of p's dice (replays only): a = face, b = die number from 1, c = dice
    #           rolled, d = 0 roll, 2 Bushido reroll (a ROLL event follows with the top two)


# --- the state ----------------------------------------------------------------------------
# R = roster size, P = players, CLAN = samurai per clan, B = battle cards per clan (the sum
# of battle_n; printed: 5, one of each), D = CLAN + B (a draw pile), H = max(P * CLAN, hand
# size) + B + 2 (a hand), V = max(faces, Uma value) + 1.
FIELDS = (
    # parameters of the run (read only)
    "players",  # (1,) int64: P
    "pol",  # (MAX_P,) int64: policy of each seat (players.RANDOM, players.GREEDY)
    "lane",  # (MAX_P,) int64: random stream (row of rng) of each seat
    "ratings",  # (R, 4) int64: dice per ability of each samurai
    "totals",  # (R,) int64: ability total of each samurai
    "rank_order",  # (R,) int64: roster indices, strongest first (the pool's layout)
    "faces",  # (1,) int64: faces of a die
    "uma",  # (1,) int64: the value of both Uma dice
    "battle_n",  # (N_BATTLE,) int64: copies of each battle card in every clan (printed: 1)
    "battle_in",  # (N_BATTLE,) bool: battle_n > 0, the battle cards in the game
    "clan",  # (1,) int64: samurai each clan drafts
    "hand_size",  # (1,) int64: cards a Clan Conflict hand is refilled to
    "snake",  # (1,) int64: 1 = snake draft (reverse every round), 0 = rotation
    "lone_end",  # (1,) int64: 1 = the Clan Conflict ends when one clan holds samurai
    "after_tb",  # (1,) int64: 1 = Ronin and Medicine are offered again after a tiebreaker
    "fb_bar",  # (1,) int64: 1 = the last Clan Conflict winner's samurai sits out FB round 1
    "max_rounds",  # (1,) int64: safety cap on Clan Conflict rounds
    "margin",  # (1,) float64: greedy's minimum gain in win chance to play a card
    "odds",  # (6, 6, 6, 6) float64: chance pool c0 beats pools c1..c3 (0: none; 5: Uma)
    "tops",  # (6, V, V) float64: chance a pool shows (highest, second) dice
    # random streams
    "rng",  # (MAX_P + 1, rng.STATE_SIZE) uint64: lane per player, lane MAX_P deals the pool
    # where the game stands
    "phase",  # (1,) int64: DRAFT ... OVER
    "actor",  # (1,) int64: seat to act, -1 when the game is over
    "auto",  # (1,) int64: the automatic step apply runs next (GO_NONE: a decision)
    "turn",  # (1,) int64: 0 in the draft, then +1 per round of either phase
    # draft
    "perm",  # (R,) int64: scratch for dealing the pool
    "avail",  # (P * CLAN,) int64: face-up samurai not yet taken, strongest first
    "avail_n",  # (1,) int64
    "pick",  # (1,) int64: picks made
    "owner",  # (R,) int64: drafting seat; -1 not dealt, -2 face up in the pool
    "pickno",  # (R,) int64: pick number (from 0) of each drafted samurai
    # piles
    "deck",  # (P, D) int64: draw piles, top card last
    "deck_n",  # (P,) int64
    "hand",  # (P, H) int64: hands
    "hand_n",  # (P,) int64
    "hall",  # (P, P * CLAN) int64: Halls of Honor
    "hall_n",  # (P,) int64
    "disc",  # (P * D,) int64: the shared discard pile
    "disc_n",  # (1,) int64
    # the round in play
    "rnd",  # (1,) int64: Clan Conflict rounds played
    "frnd",  # (1,) int64: Final Battle rounds played
    "declarer",  # (1,) int64: seat that declares the ability
    "ability",  # (1,) int64: declared ability
    "part",  # (MAX_P,) bool: seat fights this round
    "npart",  # (1,) int64: seats fighting this round
    "field",  # (MAX_P,) int64: samurai fielded (-1: none)
    "before",  # (MAX_P,) int64: before-rolling card played (-1: none)
    "t1",  # (MAX_P,) int64: highest die
    "t2",  # (MAX_P,) int64: second highest die (0: a single die)
    "nd",  # (MAX_P,) int64: dice rolled (2 for Uma)
    "tb",  # (MAX_P,) int64: last tiebreaker die
    "is_uma",  # (MAX_P,) bool: rolled with Uma
    "medic",  # (MAX_P,) bool: played Medicine this round
    "held",  # (MAX_P, N_BATTLE) bool: a copy of each battle card in hand (from the round's
    #          start; cleared when p plays its last copy)
    "played_r",  # (MAX_P, N_BATTLE) bool: battle cards played this round (a copy or more)
    "played_g",  # (MAX_P, N_BATTLE) bool: battle cards played this game (a copy or more)
    "ronin_by",  # (1,) int64: seat that played Ronin this round (-1: none)
    "tbw",  # (1,) int64: after_tb: the tiebreaker's winner once rolled (-1: not rolled)
    "offer",  # (1,) int64: position (from the declarer) of the seat offered cards
    "again",  # (1,) bool: a card was played in the current pass of offers
    "last_card",  # (MAX_P,) int64: Final Battle: samurai that won the seat's last round
    # whole game
    "clan_tot",  # (MAX_P,) int64: ability total of each drafted clan
    "infb",  # (R,) bool: samurai brought into the Final Battle
    "hall_fb",  # (MAX_P,) int64: Hall of Honor sizes when the Final Battle began
    "fb_players",  # (1,) int64: clans in the Final Battle
    "champion",  # (1,) int64: the winner (-1 until the game ends)
    "g_rate",  # (len(Clustered), 2) int64: this game's (successes, observations) per rate
    "g_card",  # (R, 2) int64: this game's contested rounds won and fielded per samurai
    # game log and statistics
    "log",  # (E, 7) int64: event buffer (events.py); (0, 7) in the fast path
    "log_n",  # (1,) int64
    "aggs",  # stats.Aggregates: the statistics the rules count
)
State = namedtuple("State", FIELDS)


def new_state(*, players: int, policies: np.ndarray, ratings: np.ndarray,
              totals: np.ndarray, rank_order: np.ndarray, faces: int, uma: int, clan: int,
              hand_size: int, snake: bool, lone_end: bool, max_rounds: int, margin: float,
              odds: np.ndarray, tops: np.ndarray, aggs, log_capacity: int = 0,
              rotation: int = 0, after_tb: bool = False, fb_bar: bool = False,
              battle_n: np.ndarray | None = None) -> State:
    """A state for games of this run, allocated once (`setup` starts each game). In
    rotation r player j (its policy and its random stream) sits at seat (j + r) % P.
    battle_n: copies of each battle card in every clan (None: one of each, as printed)."""
    from kernels.rng import rotation_lanes, stream_states

    P = players
    R = ratings.shape[0]
    copies = (np.ones(N_BATTLE, np.int64) if battle_n is None
              else np.ascontiguousarray(battle_n, np.int64))
    if copies.shape != (N_BATTLE,) or (copies < 0).any():
        raise ValueError(f"battle_n must be {N_BATTLE} copy counts >= 0, not {copies}")
    B = int(copies.sum())
    D = clan + B
    H = max(P * clan, hand_size) + B + 2
    seat_pol, lane = rotation_lanes(P, np.asarray(policies, np.int64), rotation, MAX_P)

    def one(v, dtype=np.int64):
        return np.full(1, v, dtype)

    def z(shape, dtype=np.int64):
        return np.zeros(shape, dtype)

    return State(
        players=one(P), pol=seat_pol, lane=lane,
        ratings=np.ascontiguousarray(ratings, np.int64),
        totals=np.ascontiguousarray(totals, np.int64),
        rank_order=np.ascontiguousarray(rank_order, np.int64),
        faces=one(faces), uma=one(uma), clan=one(clan), hand_size=one(hand_size),
        battle_n=copies, battle_in=copies > 0,
        snake=one(int(snake)), lone_end=one(int(lone_end)), after_tb=one(int(after_tb)),
        fb_bar=one(int(fb_bar)), max_rounds=one(max_rounds),
        margin=one(margin, np.float64), odds=np.ascontiguousarray(odds, np.float64),
        tops=np.ascontiguousarray(tops, np.float64),
        rng=stream_states(faces, MAX_P + 1),
        phase=one(OVER), actor=one(-1), auto=z(1), turn=z(1),
        perm=z(R), avail=z(P * clan), avail_n=z(1), pick=z(1),
        owner=np.full(R, -1, np.int64), pickno=z(R),
        deck=z((P, D)), deck_n=z(P), hand=z((P, H)), hand_n=z(P), hall=z((P, P * clan)),
        hall_n=z(P), disc=z(P * D), disc_n=z(1),
        rnd=z(1), frnd=z(1), declarer=z(1), ability=z(1), part=z(MAX_P, np.bool_),
        npart=z(1), field=z(MAX_P), before=z(MAX_P), t1=z(MAX_P), t2=z(MAX_P),
        nd=z(MAX_P), tb=z(MAX_P), is_uma=z(MAX_P, np.bool_), medic=z(MAX_P, np.bool_),
        held=z((MAX_P, N_BATTLE), np.bool_), played_r=z((MAX_P, N_BATTLE), np.bool_),
        played_g=z((MAX_P, N_BATTLE), np.bool_), ronin_by=one(-1), tbw=one(-1), offer=z(1),
        again=z(1, np.bool_), last_card=z(MAX_P),
        clan_tot=z(MAX_P), infb=z(R, np.bool_), hall_fb=z(MAX_P), fb_players=z(1),
        champion=one(-1), g_rate=z((len(Clustered), 2)), g_card=z((R, 2)),
        log=z((log_capacity, 7)), log_n=z(1), aggs=aggs,
    )


# --- helpers on a few arrays --------------------------------------------------------------
@kernel(inline=True)
def count_samurai(hand, hand_n, p):
    """Number of samurai in p's hand."""
    c = 0
    for i in range(hand_n[p]):
        c += hand[p, i] >= 0
    return c


@kernel(inline=True)
def find(hand, hand_n, p, code):
    """Position of card `code` in p's hand, or -1."""
    for i in range(hand_n[p]):
        if hand[p, i] == code:
            return i
    return NONE


@kernel(inline=True)
def take(hand, hand_n, p, i):
    """Remove and return the card at position i of p's hand (the last card fills the gap)."""
    code = hand[p, i]
    hand_n[p] -= 1
    hand[p, i] = hand[p, hand_n[p]]
    return code


@kernel(inline=True)
def put(pile, pile_n, p, code):
    """Put a card on top of p's pile (a hand, a Hall of Honor)."""
    pile[p, pile_n[p]] = code
    pile_n[p] += 1


@kernel(inline=True)
def has_samurai(pile, pile_n, p):
    """Whether p's pile holds a samurai."""
    found = False
    for i in range(pile_n[p]):
        found |= pile[p, i] >= 0
    return found


@kernel(inline=True)
def next_part(part, n, after):
    """The first seat after `after` that fights this round, or -1."""
    for p in range(after + 1, n):
        if part[p]:
            return np.int64(p)
    return NONE


@kernel(inline=True)
def drafter(pick, n, snake):
    """Seat that makes pick number `pick` (from 0) among n: clockwise rotation, or snake
    (every other round backwards)."""
    pos = pick % n
    if snake == 1 and (pick // n) % 2 == 1:
        return n - 1 - pos
    return pos


@kernel(inline=True)
def discard(disc, disc_n, code):
    """Put a card on the shared discard pile."""
    disc[disc_n[0]] = code
    disc_n[0] += 1


@kernel(inline=True)
def refill(st, p):
    """p draws back up to the hand size; a full hand that holds no samurai is reshuffled.

    With the printed hand of 5 that is the rulebook's "all 5 Battle Cards in your hand":
    the battle cards go back into the draw pile, it is shuffled, and the hand is redrawn
    (again if need be), as long as the draw pile still holds a samurai. Returns the number
    of reshuffles done.
    """
    reshuffles = 0
    while True:
        while st.hand_n[p] < st.hand_size[0] and st.deck_n[p] > 0:
            st.deck_n[p] -= 1
            code = st.deck[p, st.deck_n[p]]
            put(st.hand, st.hand_n, p, code)
            emit(st.log, st.log_n, st.turn[0], p, Ev.DRAW, code, ZERO, ZERO, ZERO)
        if (reshuffles >= 1000 or st.hand_n[p] < st.hand_size[0]
                or count_samurai(st.hand, st.hand_n, p) > 0
                or not has_samurai(st.deck, st.deck_n, p)):
            return reshuffles
        back = 0
        i = 0
        while i < st.hand_n[p]:
            if st.hand[p, i] < 0:
                put(st.deck, st.deck_n, p, take(st.hand, st.hand_n, p, i))
                back += 1
            else:
                i += 1
        shuffle(st.rng[st.lane[p]], st.deck[p], st.deck_n[p])
        emit(st.log, st.log_n, st.turn[0], p, Ev.RESHUFFLE, np.int64(back), ZERO, ZERO,
             ZERO)
        reshuffles += 1


# --- what a player may read besides its own hand and draw pile ----------------------------
@kernel
def log_dice(st, p, k, how):
    """Log each of the k dice p's next roll rolls (Ev.DIE; `how` 0 a roll, 2 a Bushido
    reroll), in replays only: the fast path's log has no room, so nothing is drawn."""
    if st.log.shape[0] > 0:
        for i in range(k):
            emit(st.log, st.log_n, st.turn[0], p, Ev.DIE,
                 peek_die(st.rng[st.lane[p]], k, st.faces[0], i), np.int64(i + 1), k, how)


@kernel(inline=True)
def before_cards_allowed(st):
    """Whether before-rolling cards may be played this round (not in the first battle,
    not in an uncontested round)."""
    return st.rnd[0] > 0 and st.npart[0] >= 2


@kernel(inline=True)
def rival_best_remaining(st, q, a):
    """The most dice seat q could field in ability a from its samurai not yet seen on the
    table when this round's fielding began: every drafted card and every card played is
    public, so this is public too. A samurai q has already put face down this round is
    counted (it was unseen when the fielding began): the choice is simultaneous.
    """
    top = 1
    if st.phase[0] == FIELD and st.part[q] and q < st.actor[0]:
        top = max(top, st.ratings[st.field[q], a])
    for i in range(st.hand_n[q]):
        c = st.hand[q, i]
        if c >= 0:
            top = max(top, st.ratings[c, a])
    for i in range(st.deck_n[q]):
        c = st.deck[q, i]
        if c >= 0:
            top = max(top, st.ratings[c, a])
    return top


@kernel(inline=True)
def leaders(st):
    """Bit mask of the seats that would win the round as it lies: the tiebreaker's winner
    once rolled (after_tb), else the top group on the dice (public)."""
    if st.tbw[0] >= 0:
        return np.int64(1) << st.tbw[0]
    return top_group(st.t1, st.t2, st.nd, st.part, st.players[0])


@kernel(inline=True)
def offer_options(st, p):
    """(Ronin, Medicine, Bushido): which after-rolling cards p may play now (after a
    tiebreaker, with after_tb: no Bushido)."""
    sure = leaders(st) == (1 << p)  # p wins outright as the round lies
    can_ronin = (find(st.hand, st.hand_n, p, -1 - RONIN) >= 0 and st.ronin_by[0] < 0
                 and not sure)
    can_med = find(st.hand, st.hand_n, p, -1 - MEDICINE) >= 0 and not st.medic[p] and not sure
    can_bush = find(st.hand, st.hand_n, p, -1 - BUSHIDO) >= 0 and st.tbw[0] < 0
    return can_ronin, can_med, can_bush


# --- setup and the draft -----------------------------------------------------------------
@kernel
def setup(st, seed, playout):
    """Start playout `playout` of the run keyed by `seed`: key the streams, clear the
    piles, deal CLAN x players samurai face up for the draft (the shared stream); the
    first drafter is to act."""
    seed_lanes(st.rng, seed, playout)
    st.log_n[0] = 0
    st.auto[0] = GO_NONE
    st.turn[0] = 0
    st.rnd[0] = 0
    st.frnd[0] = 0
    st.pick[0] = 0
    st.disc_n[0] = 0
    st.champion[0] = -1
    st.fb_players[0] = 0
    st.g_rate[:] = 0
    st.g_card[:] = 0
    for p in range(MAX_P):
        st.last_card[p] = -1
        st.clan_tot[p] = 0
        st.hall_fb[p] = 0
        for b in range(N_BATTLE):
            st.played_g[p, b] = False
    for p in range(st.players[0]):
        st.deck_n[p] = 0
        st.hand_n[p] = 0
        st.hall_n[p] = 0
    shared = st.rng[MAX_P]
    R = st.perm.shape[0]
    for i in range(R):
        st.perm[i] = i
        st.owner[i] = -1
    for i in range(st.clan[0] * st.players[0]):  # a partial shuffle of the roster
        j = i + below(shared, R - i)
        t = st.perm[i]
        st.perm[i] = st.perm[j]
        st.perm[j] = t
        st.owner[st.perm[i]] = -2
    na = 0
    for r in range(R):
        c = st.rank_order[r]
        if st.owner[c] == -2:
            st.avail[na] = c
            na += 1
            emit(st.log, st.log_n, ZERO, NONE, Ev.POOL, c, ZERO, ZERO, ZERO)
    st.avail_n[0] = na
    st.phase[0] = DRAFT
    st.actor[0] = drafter(ZERO, st.players[0], st.snake[0])


@kernel(inline=True)
def draft_pick(st, c):
    """The drafter takes face-up samurai c into its clan; after the last pick the last
    drafter declares first."""
    p = st.actor[0]
    na = st.avail_n[0]
    idx = 0
    while st.avail[idx] != c:
        idx += 1
    for i in range(idx, na - 1):
        st.avail[i] = st.avail[i + 1]
    st.avail_n[0] = na - 1
    st.owner[c] = p
    st.pickno[c] = st.pick[0]
    put(st.deck, st.deck_n, p, c)
    st.pick[0] += 1
    if st.pick[0] < st.clan[0] * st.players[0]:
        st.actor[0] = drafter(st.pick[0], st.players[0], st.snake[0])
    else:
        st.declarer[0] = p
        st.auto[0] = GO_DEAL


@kernel
def deal_hands(st):
    """Each clan shuffles its samurai with its battle cards (battle_n copies of each;
    printed: one of each) and draws a hand."""
    for q in range(st.players[0]):
        for i in range(st.deck_n[q]):
            st.clan_tot[q] += st.totals[st.deck[q, i]]
        emit(st.log, st.log_n, st.turn[0], np.int64(q), Ev.CLAN, st.clan_tot[q], st.deck_n[q],
             ZERO, ZERO)
        for b in range(N_BATTLE):
            for _ in range(st.battle_n[b]):
                put(st.deck, st.deck_n, q, -1 - b)
        shuffle(st.rng[st.lane[q]], st.deck[q], st.deck_n[q])
        st.hand_n[q] = 0
        st.hall_n[q] = 0
        st.aggs.misc[Misc.BATTLE_RESHUFFLES] += refill(st, q)
    st.auto[0] = GO_ROUND


# --- Clan Conflict -----------------------------------------------------------------------
@kernel(inline=True)
def begin_round(st):
    """Start a Clan Conflict round (the declarer is to act), or end the Clan Conflict
    when no clan (or, with lone_end, one clan) still holds a samurai."""
    P = st.players[0]
    npart = 0
    for p in range(P):
        st.part[p] = count_samurai(st.hand, st.hand_n, p) > 0
        npart += st.part[p]
    st.npart[0] = npart
    if npart == 0 or (npart == 1 and st.lone_end[0] == 1):
        st.auto[0] = GO_FINAL
        return
    if st.rnd[0] >= st.max_rounds[0]:
        st.aggs.misc[Misc.CAPPED_GAMES] += 1
        emit(st.log, st.log_n, st.turn[0], NONE, Ev.CAPPED, st.rnd[0], ZERO, ZERO, ZERO)
        st.auto[0] = GO_FINAL
        return
    st.ronin_by[0] = -1
    st.tbw[0] = -1
    for p in range(P):
        st.before[p] = -1
        st.medic[p] = False
        st.is_uma[p] = False
        for b in range(N_BATTLE):
            st.held[p, b] = False
            st.played_r[p, b] = False
        for i in range(st.hand_n[p]):
            if st.hand[p, i] < 0:
                st.held[p, -1 - st.hand[p, i]] = True
        if not st.part[p]:
            st.field[p] = -1
    st.turn[0] += 1
    emit(st.log, st.log_n, st.turn[0], NONE, Ev.ROUND, ZERO, st.rnd[0] + 1, np.int64(npart),
         st.declarer[0])
    st.phase[0] = DECLARE
    st.actor[0] = st.declarer[0]


@kernel(inline=True)
def field_samurai(st, a):
    """The actor puts samurai a // 3 face down, with before-rolling card a % 3 - 1."""
    p = st.actor[0]
    c = a // 3
    b = a - 3 * c
    st.field[p] = take(st.hand, st.hand_n, p, find(st.hand, st.hand_n, p, c))
    if b > 0:
        card = b - 1  # face down with the samurai: discarded when revealed
        st.before[p] = card
        take(st.hand, st.hand_n, p, find(st.hand, st.hand_n, p, -1 - card))
        st.played_r[p, card] = True
        st.played_g[p, card] = True
    nxt = next_part(st.part, st.players[0], p)
    if nxt >= 0:
        st.actor[0] = nxt
    else:
        st.auto[0] = GO_REVEAL


@kernel(inline=True)
def reveal_and_roll(st):
    """The fielded samurai are turned up; an uncontested round is won at once, otherwise
    every fighter rolls (Uma, Ninjutsu) and the after-rolling offers begin."""
    P = st.players[0]
    a = st.ability[0]
    for p in range(P):
        if st.part[p]:
            emit(st.log, st.log_n, st.turn[0], np.int64(p), Ev.REVEAL, st.field[p],
                 st.before[p], st.ratings[st.field[p], a], a)
            if st.before[p] >= 0:
                discard(st.disc, st.disc_n, -1 - st.before[p])
                emit(st.log, st.log_n, st.turn[0], np.int64(p), Ev.DISCARD, -1 - st.before[p],
                     ZERO, ZERO, ZERO)
    if st.npart[0] == 1:
        st.auto[0] = GO_RESOLVE  # uncontested: no dice
        return
    st.aggs.misc[Misc.CONTESTED_ROUNDS] += 1
    st.g_rate[Clustered.TIEBREAK, 1] += 1
    nin = 0
    for p in range(P):
        nin += st.part[p] and st.before[p] == NINJUTSU
    if nin >= 2:
        st.aggs.misc[Misc.DOUBLE_NINJUTSU] += 1
    for p in range(P):
        if not st.part[p]:
            continue
        if st.before[p] == UMA:
            st.is_uma[p] = True
            st.t1[p] = st.uma[0]
            st.t2[p] = st.uma[0]
            st.nd[p] = 2
            emit(st.log, st.log_n, st.turn[0], np.int64(p), Ev.ROLL, st.t1[p], st.t2[p], TWO,
                 ONE)
        else:
            kk = st.ratings[st.field[p], a]
            if nin >= 2 or (nin == 1 and st.before[p] != NINJUTSU):
                kk = 1
            st.nd[p] = kk
            log_dice(st, np.int64(p), kk, ZERO)
            st.t1[p], st.t2[p] = roll_top2(st.rng[st.lane[p]], kk, st.faces[0])
            emit(st.log, st.log_n, st.turn[0], np.int64(p), Ev.ROLL, st.t1[p], st.t2[p], kk,
                 ZERO)
    st.offer[0] = 0
    st.again[0] = False
    st.auto[0] = GO_OFFER if st.rnd[0] > 0 else GO_RESOLVE


@kernel(inline=True)
def next_offer(st):
    """Offer after-rolling cards to the next fighter holding one (seat order from the
    declarer, pass after pass until a pass plays none), or resolve the round (after_tb:
    roll the tiebreaker first; after it only its losers holding Ronin or Medicine)."""
    P = st.players[0]
    post = st.tbw[0] >= 0
    tied = top_group(st.t1, st.t2, st.nd, st.part, P) if post else ZERO
    while True:
        for i in range(st.offer[0], P):
            p = (st.declarer[0] + i) % P
            if post:
                ok = ((tied >> p) & 1 and p != st.tbw[0]
                      and (st.held[p, RONIN] or st.held[p, MEDICINE]))
            else:
                ok = st.held[p, RONIN] or st.held[p, BUSHIDO] or st.held[p, MEDICINE]
            if st.part[p] and ok:
                st.offer[0] = i
                st.actor[0] = p
                st.phase[0] = OFFER
                return
        if not st.again[0]:
            st.auto[0] = GO_TIEBREAK if st.after_tb[0] == 1 and not post else GO_RESOLVE
            return
        st.again[0] = False
        st.offer[0] = 0


@kernel(inline=True)
def play_after(st, a):
    """The offered fighter passes or plays an after-rolling card; the offers go on."""
    p = st.actor[0]
    if a != PASS:
        card = RONIN if a == PLAY_RONIN else (MEDICINE if a == PLAY_MEDICINE else BUSHIDO)
        discard(st.disc, st.disc_n, take(st.hand, st.hand_n, p,
                                         find(st.hand, st.hand_n, p, -1 - card)))
        emit(st.log, st.log_n, st.turn[0], p, Ev.DISCARD, -1 - card, ZERO, ZERO, ZERO)
        st.played_r[p, card] = True
        st.played_g[p, card] = True
        st.held[p, card] = find(st.hand, st.hand_n, p, -1 - card) >= 0  # another copy
        st.again[0] = True
        if card == RONIN:
            st.ronin_by[0] = p
        elif card == MEDICINE:
            st.medic[p] = True
        else:
            q = a - BUSHIDO_ON
            log_dice(st, q, st.nd[q], TWO)
            st.t1[q], st.t2[q] = roll_top2(st.rng[st.lane[q]], st.nd[q], st.faces[0])
            emit(st.log, st.log_n, st.turn[0], q, Ev.ROLL, st.t1[q], st.t2[q], st.nd[q], TWO)
    st.offer[0] += 1
    st.auto[0] = GO_OFFER


@kernel(inline=True)
def battle_winner(st, slot):
    """The round's winner on the dice, tiebreakers rolled (each from the tied seat's own
    stream); a round that needs one adds 1 to misc[slot]."""
    P = st.players[0]
    mask = top_group(st.t1, st.t2, st.nd, st.part, P)
    if mask & (mask - 1):
        st.aggs.misc[slot] += 1
        if slot == Misc.TIEBREAK_ROUNDS:
            st.g_rate[Clustered.TIEBREAK, 0] += 1
        while mask & (mask - 1):
            tied = mask
            mask = tiebreak_round(st.rng, st.lane, mask, P, st.faces[0], st.tb)
            for p in range(P):
                if (tied >> p) & 1:
                    emit(st.log, st.log_n, st.turn[0], np.int64(p), Ev.TIEBREAK, st.tb[p],
                         ZERO, ZERO, ZERO)
    return lowest_bit(mask)


@kernel(inline=True)
def roll_tiebreak(st):
    """after_tb: the offers are over; a tied round rolls its tiebreaker now and its losers
    are offered Ronin and Medicine again; otherwise the round is resolved."""
    mask = top_group(st.t1, st.t2, st.nd, st.part, st.players[0])
    if mask & (mask - 1):
        st.tbw[0] = battle_winner(st, Misc.TIEBREAK_ROUNDS)
        st.offer[0] = 0
        st.again[0] = False
        st.auto[0] = GO_OFFER
    else:
        st.auto[0] = GO_RESOLVE


@kernel(inline=True)
def count_declarer(aggs, phase, rnd, npart, ability, won):
    """Declarer statistics of a contested round the declarer fought."""
    ri = min(rnd, N_DECL - 1)
    aggs.decl[phase, ri, npart, 0] += 1
    aggs.decl_ab[phase, ability, 0] += 1
    aggs.decl[phase, ri, npart, 1] += won
    aggs.decl_ab[phase, ability, 1] += won


@kernel(inline=True)
def resolve_round(st):
    """The round's winner (on the dice, or the only fighter) puts its samurai in its Hall
    of Honor (or the Ronin player's), the others are discarded (Medicine: back to hand);
    the winner (not a Ronin thief) declares next; every hand is refilled."""
    P = st.players[0]
    contested = st.npart[0] > 1
    if contested and st.tbw[0] >= 0:
        winner = st.tbw[0]  # after_tb: the tiebreaker was rolled before the last offers
    elif contested:
        winner = battle_winner(st, Misc.TIEBREAK_ROUNDS)
    else:
        winner = next_part(st.part, P, NONE)
        st.aggs.misc[Misc.UNCONTESTED_ROUNDS] += 1
    recipient = winner
    if st.ronin_by[0] >= 0 and st.ronin_by[0] != winner:
        recipient = st.ronin_by[0]
    put(st.hall, st.hall_n, recipient, st.field[winner])
    emit(st.log, st.log_n, st.turn[0], recipient, Ev.TAKES, st.field[winner], winner,
         np.int64(recipient != winner), ZERO)
    for p in range(P):
        if st.part[p] and p != winner:
            if st.medic[p]:
                put(st.hand, st.hand_n, p, st.field[p])
                emit(st.log, st.log_n, st.turn[0], np.int64(p), Ev.SAVED, st.field[p], ZERO,
                     ZERO, ZERO)
            else:
                discard(st.disc, st.disc_n, st.field[p])
                emit(st.log, st.log_n, st.turn[0], np.int64(p), Ev.DISCARD, st.field[p],
                     ZERO, ZERO, ZERO)
    if contested:  # the round's statistics: declarer, cards, battle cards
        cards = st.aggs.cards
        battle = st.aggs.battle
        if recipient != winner:
            battle[Battle.RONIN, BattleStat.EFFECT] += 1
        d = st.declarer[0]
        if st.part[d]:
            count_declarer(st.aggs, StatPhase.CLAN_CONFLICT, st.rnd[0], st.npart[0],
                           st.ability[0], np.int64(winner == d))
            st.g_rate[Clustered.CC_DECLARER, 0] += winner == d
            st.g_rate[Clustered.CC_DECLARER, 1] += 1
        for p in range(P):
            if not st.part[p]:
                continue
            c = st.field[p]
            cards[c, CardStat.FIELDED] += 1
            cards[c, CardStat.FIELDED_K2 + st.npart[0] - 2] += 1
            st.g_card[c, 1] += 1
            if p == winner:
                cards[c, CardStat.FIELD_WON] += 1
                st.g_card[c, 0] += 1
            elif st.medic[p]:
                battle[Battle.MEDICINE, BattleStat.EFFECT] += 1
            if st.rnd[0] > 0:
                got = recipient == p
                for b in range(N_BATTLE):
                    if st.played_r[p, b]:
                        battle[b, BattleStat.PLAYED_ROUNDS] += 1
                        battle[b, BattleStat.PLAYED_ROUNDS_WON] += got
                    elif st.held[p, b]:
                        battle[b, BattleStat.HELD_ROUNDS] += 1
                        battle[b, BattleStat.HELD_ROUNDS_WON] += got
    st.declarer[0] = winner
    for p in range(P):
        st.aggs.misc[Misc.BATTLE_RESHUFFLES] += refill(st, p)
    st.rnd[0] += 1
    st.auto[0] = GO_ROUND


@kernel
def end_clan_conflict(st):
    """Unused battle cards are discarded (every copy), and any samurai still in a hand or
    draw pile (lone_end, the round cap); every Hall of Honor becomes its owner's hand; with
    fb_bar the last round's winner may not field its winning samurai in Final Battle
    round 1."""
    P = st.players[0]
    st.tbw[0] = -1
    for p in range(P):
        discard_samurai(st, np.int64(p))
        for b in range(N_BATTLE):
            discard_battle_card(st, np.int64(p), np.int64(b))
    for c in range(st.infb.shape[0]):
        st.infb[c] = False
    n_active = 0
    for p in range(P):
        st.hall_fb[p] = st.hall_n[p]
        for i in range(st.hall_n[p]):
            put(st.hand, st.hand_n, p, st.hall[p, i])
            st.infb[st.hall[p, i]] = True
        st.hall_n[p] = 0
        st.part[p] = count_samurai(st.hand, st.hand_n, p) > 0
        n_active += st.part[p]
        emit(st.log, st.log_n, st.turn[0], np.int64(p), Ev.FINAL,
             count_samurai(st.hand, st.hand_n, p), ZERO, ZERO, ZERO)
    st.npart[0] = n_active
    st.fb_players[0] = n_active
    if st.fb_bar[0] == 1:
        st.last_card[st.declarer[0]] = st.field[st.declarer[0]]
    st.auto[0] = GO_FB_ROUND


@kernel(inline=True)
def discard_battle_card(st, p, b):
    """Every copy of battle card b left in p's hand or draw pile is discarded unused (the
    hand's first, then the pile's from the top)."""
    code = -1 - b
    while True:
        i = find(st.hand, st.hand_n, p, code)
        if i >= 0:
            take(st.hand, st.hand_n, p, i)
        else:
            for j in range(st.deck_n[p]):
                if st.deck[p, j] == code:
                    i = j
            if i < 0:
                return
            st.deck_n[p] -= 1
            st.deck[p, i] = st.deck[p, st.deck_n[p]]
        discard(st.disc, st.disc_n, code)
        emit(st.log, st.log_n, st.turn[0], p, Ev.DISCARD, code, ZERO, ZERO, ZERO)
        st.aggs.battle[b, BattleStat.UNUSED_AT_END] += 1


@kernel(inline=True)
def discard_samurai(st, p):
    """The samurai left in p's hand and draw pile when the Clan Conflict ends are
    discarded: they do not fight in the Final Battle."""
    i = 0
    while i < st.hand_n[p]:
        if st.hand[p, i] >= 0:
            code = take(st.hand, st.hand_n, p, i)
            discard(st.disc, st.disc_n, code)
            emit(st.log, st.log_n, st.turn[0], p, Ev.DISCARD, code, ZERO, ZERO, ZERO)
        else:
            i += 1
    i = 0
    while i < st.deck_n[p]:
        if st.deck[p, i] >= 0:
            code = st.deck[p, i]
            st.deck_n[p] -= 1
            st.deck[p, i] = st.deck[p, st.deck_n[p]]
            discard(st.disc, st.disc_n, code)
            emit(st.log, st.log_n, st.turn[0], p, Ev.DISCARD, code, ZERO, ZERO, ZERO)
        else:
            i += 1


# --- Final Battle ------------------------------------------------------------------------
@kernel(inline=True)
def begin_final_round(st):
    """Start a Final Battle round, or end the game when one clan is left."""
    if st.npart[0] <= 1:
        st.auto[0] = GO_FINISH
        return
    st.turn[0] += 1
    emit(st.log, st.log_n, st.turn[0], NONE, Ev.ROUND, ONE, st.frnd[0] + 1, st.npart[0],
         st.declarer[0])
    st.phase[0] = FB_DECLARE
    st.actor[0] = st.declarer[0]


@kernel(inline=True)
def field_final(st, c):
    """The actor puts samurai c face down."""
    p = st.actor[0]
    st.field[p] = take(st.hand, st.hand_n, p, find(st.hand, st.hand_n, p, c))
    nxt = next_part(st.part, st.players[0], p)
    if nxt >= 0:
        st.actor[0] = nxt
    else:
        st.auto[0] = GO_FB_RESOLVE


@kernel(inline=True)
def resolve_final_round(st):
    """The fielded samurai are turned up and roll; the winner's samurai goes back to its
    hand, the others are discarded; clans with no samurai left are out."""
    P = st.players[0]
    a = st.ability[0]
    for q in range(P):
        if st.part[q]:
            kk = st.ratings[st.field[q], a]
            emit(st.log, st.log_n, st.turn[0], np.int64(q), Ev.REVEAL, st.field[q], NONE, kk, a)
            st.nd[q] = kk
            log_dice(st, np.int64(q), kk, ZERO)
            st.t1[q], st.t2[q] = roll_top2(st.rng[st.lane[q]], kk, st.faces[0])
            emit(st.log, st.log_n, st.turn[0], np.int64(q), Ev.ROLL, st.t1[q], st.t2[q], kk,
                 ZERO)
    winner = battle_winner(st, Misc.FB_TIEBREAK_ROUNDS)
    d = st.declarer[0]
    if st.part[d]:
        count_declarer(st.aggs, StatPhase.FINAL_BATTLE, st.frnd[0], st.npart[0],
                       st.ability[0], np.int64(winner == d))
        st.g_rate[Clustered.FB_DECLARER, 0] += winner == d
        st.g_rate[Clustered.FB_DECLARER, 1] += 1
    for p in range(P):
        if not st.part[p]:
            continue
        c = st.field[p]
        st.aggs.cards[c, CardStat.FB_FIELDED] += 1
        if p == winner:
            st.aggs.cards[c, CardStat.FB_WON] += 1
            put(st.hand, st.hand_n, p, c)
            st.last_card[p] = c
            emit(st.log, st.log_n, st.turn[0], np.int64(p), Ev.BACK, c, ZERO, ZERO, ZERO)
        else:
            discard(st.disc, st.disc_n, c)
            emit(st.log, st.log_n, st.turn[0], np.int64(p), Ev.DISCARD, c, ZERO, ZERO, ZERO)
            st.last_card[p] = -1
    n_active = 0
    for p in range(P):
        was = st.part[p]
        st.part[p] = st.hand_n[p] > 0
        n_active += st.part[p]
        if was and not st.part[p]:
            emit(st.log, st.log_n, st.turn[0], np.int64(p), Ev.OUT, ZERO, ZERO, ZERO, ZERO)
    st.npart[0] = n_active
    st.declarer[0] = winner
    st.frnd[0] += 1
    st.auto[0] = GO_FB_ROUND


@kernel
def finish(st):
    """The last clan standing wins; the game's statistics are counted."""
    P = st.players[0]
    champion = st.declarer[0]
    for p in range(P):
        if st.part[p]:
            champion = p
    st.champion[0] = champion
    st.phase[0] = OVER
    st.actor[0] = -1
    ag = st.aggs
    rnd = st.rnd[0]
    frnd = st.frnd[0]
    ag.wins[champion] += 1
    ag.lengths[Span.CLAN_CONFLICT, min(rnd, N_LEN - 1)] += 1
    ag.lengths[Span.FINAL_BATTLE, min(frnd, N_LEN - 1)] += 1
    ag.lengths[Span.WHOLE_GAME, min(rnd + frnd, N_LEN - 1)] += 1
    ag.fbp[st.fb_players[0]] += 1
    for c in range(st.owner.shape[0]):
        o = st.owner[c]
        if o < 0:
            continue
        pk = st.pickno[c] + 1
        ag.cards[c, CardStat.DRAFTED] += 1
        ag.cards[c, CardStat.PICK_SUM] += pk
        ag.cards[c, CardStat.PICK_SQ] += pk * pk
        if o == champion:
            ag.cards[c, CardStat.OWNER_WON] += 1
        if st.infb[c]:
            ag.cards[c, CardStat.IN_FINAL] += 1
    for i in range(st.hand_n[champion]):
        ag.cards[st.hand[champion, i], CardStat.SURVIVED] += 1
    for p in range(P):
        won = p == champion
        ct = min(st.clan_tot[p], ag.clan.shape[0] - 1)
        ag.clan[ct, 0] += 1
        ag.clan[ct, 1] += won
        for b in range(N_BATTLE):
            if st.played_g[p, b]:
                ag.battle[b, BattleStat.PLAYED_GAMES] += 1
                ag.battle[b, BattleStat.PLAYED_GAMES_WON] += won
            else:
                ag.battle[b, BattleStat.UNPLAYED_GAMES] += 1
                ag.battle[b, BattleStat.UNPLAYED_GAMES_WON] += won
    count_clustered(st)
    emit(st.log, st.log_n, st.turn[0], np.int64(champion), Ev.RESULT, rnd, frnd, ZERO, ZERO)


@kernel(inline=True)
def count_clustered(st):
    """Add this game's squares of the rates counted over rounds (clustered intervals)."""
    for k in range(st.g_rate.shape[0]):
        y = st.g_rate[k, 0]
        x = st.g_rate[k, 1]
        st.aggs.clus[k, Moment.YY] += y * y
        st.aggs.clus[k, Moment.XX] += x * x
        st.aggs.clus[k, Moment.XY] += x * y
    for c in range(st.g_card.shape[0]):
        y = st.g_card[c, 0]
        x = st.g_card[c, 1]
        if x > 0:
            st.aggs.card_clus[c, Moment.YY] += y * y
            st.aggs.card_clus[c, Moment.XX] += x * x
            st.aggs.card_clus[c, Moment.XY] += x * y


# --- the interface -----------------------------------------------------------------------
@kernel(inline=True)
def to_move(st):
    """Seat to act, -1 when the game is over."""
    return st.actor[0]


@kernel(inline=True)
def is_over(st):
    """Whether the game has ended."""
    return st.phase[0] == OVER


@kernel
def apply(st, a):
    """The seat to act takes action a; the game runs on to the next decision or the end."""
    ph = st.phase[0]
    if ph == DRAFT:
        draft_pick(st, a)
    elif ph == FIELD:
        field_samurai(st, a)
    elif ph == OFFER:
        play_after(st, a)
    elif ph == FB_FIELD:
        field_final(st, a)
    else:  # DECLARE, FB_DECLARE: the ability of this round; the fighters field in order
        st.ability[0] = a
        st.phase[0] = FIELD if ph == DECLARE else FB_FIELD
        st.actor[0] = next_part(st.part, st.players[0], NONE)
    advance(st)


@kernel(inline=True)
def advance(st):
    """Run the automatic steps (chance, resolution, refills, phase changes) until a
    decision is due or the game is over."""
    while st.auto[0] != GO_NONE:
        go = st.auto[0]
        st.auto[0] = GO_NONE
        if go == GO_OFFER:
            next_offer(st)
        elif go == GO_REVEAL:
            reveal_and_roll(st)
        elif go == GO_RESOLVE:
            resolve_round(st)
        elif go == GO_ROUND:
            begin_round(st)
        elif go == GO_FB_RESOLVE:
            resolve_final_round(st)
        elif go == GO_FB_ROUND:
            begin_final_round(st)
        elif go == GO_DEAL:
            deal_hands(st)
        elif go == GO_FINAL:
            end_clan_conflict(st)
        elif go == GO_FINISH:
            finish(st)
        elif go == GO_TIEBREAK:
            roll_tiebreak(st)


@kernel
def legal_actions(st, out):
    """Fill out[:n] with the legal actions of the seat to act; return n."""
    ph = st.phase[0]
    p = st.actor[0]
    n = 0
    if ph == DRAFT:
        for i in range(st.avail_n[0]):
            out[i] = st.avail[i]
        n = st.avail_n[0]
    elif ph in (DECLARE, FB_DECLARE):
        for a in range(N_ABILITY):
            out[a] = a
        n = N_ABILITY
    elif ph == FIELD:
        allowed = before_cards_allowed(st)
        nin = allowed and find(st.hand, st.hand_n, p, -1 - NINJUTSU) >= 0
        uma = allowed and find(st.hand, st.hand_n, p, -1 - UMA) >= 0
        for i in range(st.hand_n[p]):
            c = st.hand[p, i]
            if c >= 0:
                out[n] = 3 * c
                n += 1
                if nin:
                    out[n] = 3 * c + WITH_NINJUTSU
                    n += 1
                if uma:
                    out[n] = 3 * c + WITH_UMA
                    n += 1
    elif ph == OFFER:
        can_ronin, can_med, can_bush = offer_options(st, p)
        out[0] = PASS
        n = 1
        if can_ronin:
            out[n] = PLAY_RONIN
            n += 1
        if can_med:
            out[n] = PLAY_MEDICINE
            n += 1
        if can_bush:
            for q in range(st.players[0]):
                if st.part[q] and not st.is_uma[q]:
                    out[n] = BUSHIDO_ON + q
                    n += 1
    elif ph == FB_FIELD:
        ban = st.last_card[p]  # not the samurai that won the last round ...
        if count_samurai(st.hand, st.hand_n, p) == 1:
            ban = -2  # ... unless it is the only one
        for i in range(st.hand_n[p]):
            c = st.hand[p, i]
            if c >= 0 and c != ban:
                out[n] = c
                n += 1
    return n


@kernel
def option_of(st, a):
    """The option (index into OPTIONS) action a uses: a battle card played, an ability
    declared (OPT_ABILITY + a, either phase); -1 for none."""
    ph = st.phase[0]
    if ph in (DECLARE, FB_DECLARE):
        return OPT_ABILITY + a
    if ph == FIELD:
        b = a % 3
        return b - 1 if b > 0 else NONE
    if ph == OFFER:
        if a == PLAY_RONIN:
            return RONIN
        if a == PLAY_MEDICINE:
            return MEDICINE
        if a >= BUSHIDO_ON:
            return BUSHIDO
    return NONE


@kernel
def outcome(st, out):
    """out[s] = 1.0 for the winning seat, else 0."""
    for s in range(out.shape[0]):
        out[s] = 0.0
    if st.champion[0] >= 0:
        out[st.champion[0]] = 1.0
