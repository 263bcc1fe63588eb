"""Samurai Sword's implementation of the search hooks of `kernels/search.py` (ISMCTS).

The search works on a `SearchState`: a Samurai Sword `rules.State` together with the
forbidden options of each seat. The root wraps the real state of the playout (read, never
changed, by the search); the workspace's scratch wraps a state of its own, made by
`new_scratch`, with its own scratch aggregates (the simulated games' statistics never
reach the run's), its own legal-action buffer and an empty game log.

Each simulation copies the real position into the scratch (`clone`) and then
`determinize`s it for the searching seat `me`, resampling everything `me` cannot see
(`rules.observe` lists what it can) consistently with what it can:
- roles: the Shogun's seat is public and `me` knows its own role, stars and score
  multiplier; the other seats' roles are dealt again at random among them (only between
  roles of equal starting Honor, since Honor is public), with their teams and
  multipliers, and the Ninjas' stars again from the values `me` does not hold, kept
  consistent with `me`'s own multiplier (whether `me` is the Ninja with most stars).
  A role deal is weighted by how well it fits the public record of hostile acts
  (`role_weight`: a Samurai rarely attacks the Shogun, a Ninja rarely attacks the
  Shogun's attackers), by rejection sampling: a belief from public facts only;
- cards: the other players' hands and the deck are one unseen pool; it is shuffled and
  dealt again, each other player getting as many cards as it holds (hand sizes are
  public), the rest becoming the deck in a fresh order; `me`'s hand, the discard pile
  and every property in play stay as they are;
- chance: every stream lane of the state (deck reshuffles, Diversion and Geisha draws,
  the players' own random choices in rollouts) is keyed afresh from the search's stream.
The search therefore reads hidden information only through this function. It does not
remember cards seen going into a hand (Ieyasu's discard draw, a card a Diversion took
from `me`): `rules.observe` does not list them either.

Choices of the search:
- Rewards are the rules' outcome: 1 for every seat of the winning team, 0 otherwise (a
  capped game: 0 for everyone); each tree node holds the reward of the seat that chose it.
- Rollouts play every seat by the rollout policy (random or heuristic) through the
  players' own functions, honouring each seat's forbidden options.
- `evaluate` (only when rollouts are cut short, max_rollout > 0): each team's Honor score
  now (`rules.score`) through a softmax (knobs[KNOB_SPREAD] points per unit of
  log-odds).
"""

from collections import namedtuple

import numpy as np

from kernels import search
from kernels.jit import kernel
from kernels.rng import below, shuffle, uniform01
from kernels.samurai_sword import players as P
from kernels.samurai_sword import rules as R
from kernels.samurai_sword.stats import Role, SwordAggs
from kernels.stat_table import as_tuple, zeros

SearchState = namedtuple("SearchState", ["st", "ban", "knobs"])
"""What the search sees: st (rules.State), ban (MAX_P, rules.N_OPTIONS) bool the options
each seat may never use, knobs (N_KNOBS,) float64 the search's settings (KNOB_*)."""

# knobs[...]: settings read at run time (no recompiling to tune them)
KNOB_EVIDENCE = 0  # determinize: weight of a role deal per act its role would rarely take
KNOB_SPREAD = 1  # evaluate: team score points per unit of log-odds
N_KNOBS = 2
ROLE_TRIES = 32  # determinize: role deals tried (the best kept when none is accepted)
STAR_TRIES = 64  # determinize: attempts to deal stars consistent with the searcher's
# multiplier (each succeeds with probability >= 1/3)

# Parts of game.perm (MAX_C = 32 entries, the deal's scratch) a determinization uses
_SEATS = 0  # seats whose role is unknown to the searcher
_ROLES = 8  # their roles, dealt again
_STARS = 16  # the star values the searcher does not hold
_BEST = 24  # the best role deal tried so far


def knobs(evidence: float, spread: float) -> np.ndarray:
    """The knobs array: role evidence weight (1: roles dealt uniformly) and the
    evaluation's spread."""
    k = np.zeros(N_KNOBS, np.float64)
    k[KNOB_EVIDENCE] = evidence
    k[KNOB_SPREAD] = spread
    return k


def wrap(st, ban: np.ndarray, knob: np.ndarray) -> SearchState:
    """The search's view of state `st` with forbidden options `ban` (seat, option) and
    settings `knob` (see `knobs`)."""
    return SearchState(st, ban, knob)


def new_scratch(st, ban: np.ndarray, knob: np.ndarray, table, sizes: dict) -> SearchState:
    """A scratch state for searches on states like `st` (same parameters and seats): its
    own seats, game record (streams included), legal-action buffer and zeroed aggregates
    (statistics table `table`, sizes `sizes`), and no game log."""
    aggs = as_tuple(SwordAggs, zeros(table, sizes))
    scratch = st._replace(seats=st.seats.copy(), game=st.game.copy(),
                          log=np.zeros((0, st.log.shape[1]), np.int64),
                          legal=st.legal.copy(), aggs=aggs)
    return wrap(scratch, ban, knob)


# --- the hooks' bodies ------------------------------------------------------------------

@kernel
def clone_state(dst, src):
    """Copy the position and progress of the playout in `src` into `dst` (every seat
    record and the game record; the parameters in them are the same)."""
    d = dst.st
    s = src.st
    for i in range(s.seats.shape[0]):
        d.seats[i] = s.seats[i]
    d.game[0] = s.game[0]


@kernel
def deal_roles_again(st, me, stream, evidence):
    """The roles of the seats other than the Shogun's and `me`'s dealt again among them
    (only between roles of equal starting Honor), with teams, multipliers and stars."""
    g = st.game[0]
    seats = st.seats
    P_ = g.players
    m = 0
    for s in range(1, P_):
        if s != me:
            g.perm[_SEATS + m] = s
            g.perm[_ROLES + m] = seats[s].role
            m += 1
    sort_roles(g, m)
    best = -1.0
    for _ in range(ROLE_TRIES):  # rejection: accept a deal with its weight
        shuffle_roles(g, m, stream)
        w = role_weight(st, m, evidence)
        if w > best:
            best = w
            for i in range(m):
                g.perm[_BEST + i] = g.perm[_ROLES + i]
        if uniform01(stream) < w:
            break
    for i in range(m):
        g.perm[_ROLES + i] = g.perm[_BEST + i]
    for i in range(m):
        seat = seats[g.perm[_SEATS + i]]
        role = g.perm[_ROLES + i]
        seat.role = role
        seat.team = R.TEAM_OF[role]
        seat.mult = g.role_mult[role]
        seat.stars = 0
    deal_stars_again(st, me, stream)


@kernel
def sort_roles(g, m):
    """The m roles in g.perm[_ROLES:] in increasing order within each class of equal
    starting Honor: the deal that follows then depends only on what the searcher knows
    (the roles in play, the classes) and the stream, not on which seat holds which."""
    roles = g.perm[_ROLES:_ROLES + m]
    for i in range(m):  # selection sort; a swap within a class keeps each position's class
        for j in range(i + 1, m):
            if roles[j] < roles[i] and g.role_honor[roles[j]] == g.role_honor[roles[i]]:
                x = roles[i]
                roles[i] = roles[j]
                roles[j] = x


@kernel
def shuffle_roles(g, m, stream):
    """Fisher-Yates of the m roles in g.perm[_ROLES:], within each class of equal starting
    Honor (a role never moves to a seat whose Honor could not have come from it)."""
    for i in range(m - 1, 0, -1):
        h = g.role_honor[g.perm[_ROLES + i]]
        k = 0
        for j in range(i + 1):
            if g.role_honor[g.perm[_ROLES + j]] == h:
                k += 1
        r = below(stream, k)
        for j in range(i + 1):
            if g.role_honor[g.perm[_ROLES + j]] == h:
                if r == 0:
                    x = g.perm[_ROLES + i]
                    g.perm[_ROLES + i] = g.perm[_ROLES + j]
                    g.perm[_ROLES + j] = x
                    break
                r -= 1


@kernel
def role_weight(st, m, evidence):
    """How well the roles in game.perm[_ROLES:] fit the public record of hostile acts:
    `evidence` per act against the Shogun by a Samurai and per act against the Shogun's
    attackers by a Ninja (acts their side would rarely take), 1 for a perfect fit."""
    g = st.game[0]
    w = 1.0
    for i in range(m):
        seat = st.seats[g.perm[_SEATS + i]]
        role = g.perm[_ROLES + i]
        if role == Role.SAMURAI:
            w *= evidence ** seat.hostile
        elif role == Role.NINJA:
            w *= evidence ** seat.loyal
    return w


@kernel
def deal_stars_again(st, me, stream):
    """The other Ninjas' stars again from the values `me` does not hold (distinct, 1-3),
    and the multiplier of the Ninja with most stars, consistent with `me`'s own
    multiplier (rejection: a deal that changes it is dealt again)."""
    g = st.game[0]
    seats = st.seats
    P_ = g.players
    mine = seats[me].stars
    n = 0
    for v in range(1, 4):
        if v != mine:
            g.perm[_STARS + n] = v
            n += 1
    my_mult = seats[me].mult
    for _ in range(STAR_TRIES):
        shuffle(stream, g.perm[_STARS:_STARS + n], n)
        k = 0
        top = R.NONE
        for s in range(P_):
            seat = seats[s]
            if seat.role != Role.NINJA:
                continue
            if s != me:
                seat.stars = g.perm[_STARS + k % n]
                k += 1
            seat.mult = g.role_mult[seat.role]
            if top < 0 or seat.stars > seats[top].stars:
                top = s
        if g.param[R.PI_MULT_TOP] > 0 and top >= 0:
            seats[top].mult = g.param[R.PI_MULT_TOP]
        if seats[me].mult == my_mult:
            return
    seats[me].mult = my_mult  # (not reached with the printed setups)


@kernel
def deal_cards_again(st, me, stream):
    """The other players' hands and the deck shuffled together and dealt again: each other
    player as many cards as it holds, the rest the deck."""
    g = st.game[0]
    seats = st.seats
    T = g.n_types
    a = 1 if me == 0 else 0
    acc = seats[a].hand  # the pool, counted by type
    for s in range(g.players):
        if s != me and s != a:
            hand = seats[s].hand
            for c in range(T):
                acc[c] += hand[c]
                hand[c] = 0
    for i in range(g.deck_n):
        acc[g.deck[i]] += 1
    n = 0
    for c in range(T):  # in a fixed order: the deal depends only on the pool and stream
        for _ in range(acc[c]):
            g.deck[n] = c
            n += 1
        acc[c] = 0
    shuffle(stream, g.deck, n)
    for s in range(g.players):
        if s == me:
            continue
        hand = seats[s].hand
        for _ in range(seats[s].hand_n):
            n -= 1
            hand[g.deck[n]] += 1
    g.deck_n = n


@kernel
def determinize_state(ss, me, stream):
    """Resample what seat `me` cannot see (module docstring) and key every chance stream
    afresh from `stream`."""
    st = ss.st
    deal_roles_again(st, me, stream, ss.knobs[KNOB_EVIDENCE])
    deal_cards_again(st, me, stream)
    search.reseed(st.game[0].rng, stream)


@kernel
def rollout_play(ss, policy):
    """The action the seat to act takes under rollout policy `policy` (players.RANDOM or
    HEURISTIC), honouring its forbidden options."""
    st = ss.st
    st.seats[st.game[0].to_act].policy = policy
    return P.choose(st, ss.ban)


@kernel
def search_evaluate(ss, out):
    """Each seat's estimated chance of winning an unfinished game: its team's share of a
    softmax over the teams' Honor scores now."""
    st = ss.st
    spread = ss.knobs[KNOB_SPREAD]
    g = st.game[0]
    R.score_now(st)
    total = 0.0
    best = -(1 << 40)
    for k in range(R.N_TEAM):
        if g.team_size[k] > 0 and g.team_score[k] > best:
            best = g.team_score[k]
    for k in range(R.N_TEAM):
        if g.team_size[k] > 0:
            total += np.exp((g.team_score[k] - best) / spread)
    for s in range(out.shape[0]):
        out[s] = 0.0
        if s < g.players:
            k = st.seats[s].team
            out[s] = np.exp((g.team_score[k] - best) / spread) / total
    for k in range(R.N_TEAM):
        g.team_score[k] = -1
        g.team_size[k] = 0


@kernel
def search_to_move(ss):
    """The seat to act (search hook `to_move`)."""
    return ss.st.game[0].to_act


@kernel
def search_is_over(ss):
    """Whether the game has ended (search hook `is_over`)."""
    return ss.st.game[0].phase == R.PH_OVER


# --- the search's hooks for this game's state ---------------------------------------------

search.register_hooks(
    SearchState,
    rules=R,
    clone=clone_state,
    determinize=determinize_state,
    to_move=search_to_move,
    is_over=search_is_over,
    rollout_action=rollout_play,
    evaluate=search_evaluate,
)
