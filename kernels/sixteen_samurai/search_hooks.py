"""Sixteen Samurai's implementation of the search hooks of `kernels/search.py` (ISMCTS).

The search works on a `SearchState`: a Sixteen Samurai `rules.State` together with the
forbidden options of each seat, the search's own settings and a small buffer. The root
wraps the real state of the playout (read, never changed, by the search); the workspace's
scratch wraps a state of its own, made by `new_scratch`, with its own scratch aggregates
(the simulated games' statistics never reach the run's) and an empty game log.

Each simulation copies the real position into the scratch (`clone_state`) and then
`determinize` resamples in the scratch everything the searching player cannot see,
consistently with what it can see:
- every rival's unseen cards: its hand and draw pile hold, together, a multiset the
  searcher knows (its drafted samurai not yet seen on the table and its battle cards not
  yet played); the split between hand and pile and the pile's order are dealt afresh,
  keeping every pile size (public) and, for a rival still to field this round, at least
  one samurai in hand (it takes part in the round, which is public);
- a rival's face-down choice this round (fielding is simultaneous): for a rival who has
  already put its samurai face down, the hand it held when the fielding began is dealt
  afresh from its unseen cards, its samurai is any samurai of that hand and, when it put
  down a battle card too (two cards on the table: the count is public, the card is not),
  that card is Ninjutsu or Uma from that hand;
- the searcher's own draw pile order (its contents are its own, known);
- every chance stream (dice, tiebreakers, shuffles) is reseeded from the search's stream.
Each unseen multiset is sorted before it is dealt, so a determinization depends only on
what the searcher can see and on the search stream, never on where the real cards lie.
Draft: everything is public but the future (reseeding alone). Final Battle: every hand is
a public Hall of Honor; only rivals' face-down samurai of the round are resampled. (One
public fact is not used: a samurai a rival saved with Medicine is known to be in its hand
until played; the deal may put it in the draw pile. The search knows less, never more.)

The decision (search_play.search_choose): by default (METHOD = 1) a paired lookahead at
the root (search_play.lookahead_choose): every candidate action is tried on the same
determinizations with the same dice (common random numbers), every seat then plays the
rollout policy until the next round starts (HORIZON), and `fitted_value` scores the
position; the rollout policy's own choice is kept unless another action's mean paired gain
exceeds Z paired standard errors. `fitted_value` is a softmax over the clans of weights
EVAL_W (per player count; Clan Conflict and Final Battle rows) times each clan's
`features` (army and reserve counts and ratings, unplayed battle cards, the declarer),
fitted by maximum likelihood (a conditional logit) on the positions at the start of every
round of 30,000 greedy self-play games per player count (5% of decisions after the draft
random). METHOD = 0 gives the ISMCTS tree of `kernels/search.py` described below.

Choices of the tree search (METHOD = 0):
- `draft_k > 0` restricts the draft picks the search considers to the draft_k strongest
  samurai left (the pool is kept strongest first, greedy's order); 0 considers every pick.
  Every other decision of the searcher considers every legal action.
- Opponent model (OPPONENT_MODEL = 1): in the tree, the other seats' decisions are the
  rollout policy's choice in the determinization (one child per node), so the tree
  spends the whole budget on the searcher's own decisions; 0 lets them branch too (plain
  SO-ISMCTS, each node choosing by UCB1 for the seat that decides there). The rollout
  policy reads only that seat's view of the determinized state: no hidden information.
- Rollouts play every seat by the rollout policy (random or greedy) through the players'
  own functions, honouring each seat's forbidden options.
- `evaluate` (used only when rollouts are cut short) scores each clan's army: in the Final
  Battle its samurai (hand and face down), in the Clan Conflict its Hall of Honor plus a
  fair share of the samurai it still holds, each samurai worth about 1 (a little more
  with a high best rating), and EVAL_CARD per battle card not yet played (so a short
  rollout does not see a card as free to spend); the scores become win chances through
  a softmax (EVAL_SCALE).
- The decision (search_play.search_choose) is the most visited action, unless its mean
  reward beats that of the rollout policy's own choice by no more than MARGIN: the search
  overrides the rollout policy only when its simulations say it gains. PHASES lists the
  decisions searched at all (bit per rules phase); in the others the searcher plays the
  rollout policy's choice.
"""

from collections import namedtuple

import numpy as np

from kernels import search
from kernels.jit import kernel
from kernels.rng import below, shuffle
from kernels.sixteen_samurai import players as P
from kernels.sixteen_samurai import rules as R
from kernels.sixteen_samurai.stats import Aggregates
from kernels.stat_table import as_tuple, zeros

SearchState = namedtuple("SearchState", ["st", "ban", "cfg", "prm", "buf", "w", "acc",
                                         "fx"])
"""What the search sees: st (rules.State), ban (MAX_P, N_OPTIONS) bool the options each
seat may never use, cfg (6,) int64 [draft picks considered (0: every pick), the searching
seat, opponent model (1: rollout policy, 0: tree), rollout policy code, peek (tests only:
1 skips the rivals' deal, so the search reads their real cards), the phases the searcher
searches (bit rules phase; in the others it plays the rollout policy)], prm
(4,) float64 [the evaluation's spread (army points per unit of log-odds), its quality
weight, its points per unplayed battle card, the margin by which the search's choice must
beat the rollout policy's own choice (search_play.search_choose)], buf (2, deck + hand +
2) int64 scratch for dealing unseen cards, w (2, N_FEAT) float64 the fitted evaluation's
weights (row 0 Clan Conflict, 1 Final Battle) for this player count, acc (MAX_ACTIONS, 4)
float64 and fx (MAX_P + 1, N_FEAT) float64 scratch of search_play.lookahead_choose and
`fitted_value`."""

# evaluate: a samurai is worth 1 + EVAL_QUALITY x (its best rating - 2.5) army points, and
# EVAL_SCALE / players army points make one unit of log-odds. Measured on 20,000 greedy
# games per count: one more samurai in the Hall of Honor at the Final Battle moves the
# log-odds of winning by about 0.36 at 2 players and 1.3 at 4 (5.6 / players ~ 2.8, 1.4).
EVAL_SCALE = 5.6
OPPONENT_MODEL = 1
PEEK = 0  # tests only: 1 makes the search read the rivals' real cards (a deliberate leak)
PHASES = 0b111111  # bit rules phase: the decisions the searcher searches (all by default)
CFG_DRAFT_K, CFG_ME, CFG_MODEL, CFG_ROLLOUT, CFG_PEEK, CFG_PHASES = 0, 1, 2, 3, 4, 5
CFG_METHOD, CFG_HORIZON, CFG_FB_HORIZON = 6, 7, 8
METHOD = 1  # 1: search_play.lookahead_choose (paired samples at the root), 0: the tree
HORIZON = 1  # lookahead_choose: round starts a sample plays through before fitted_value
FB_HORIZON = 1  # the same from a Final Battle decision (0: play the game to its end)
Z = 1.0  # lookahead_choose: paired standard errors by which a deviation must gain
EVAL_QUALITY = 0.125
EVAL_CARD = 0.25  # a battle card not yet played in the Clan Conflict: a quarter samurai
MARGIN = 0.03  # search_play.search_choose: 0 plays the most visited action
DEAL_TRIES = 64  # determinize: redeals before a constrained deal is forced
MAX_ACTIONS = 1024  # legal actions buffer (the largest draft pool, 16 x 4 samurai, fits)
# fitted_value's weights per player count: row 0 Clan Conflict, row 1 Final Battle (features:
# N_FEAT). Fitted on greedy self-play (see search_play.lookahead_choose's docstring).
EVAL_W = {
    2: ((-0.0541, 0.0512, 0.0236, -0.0487, 0.0566, 0.0111, 0.1543, 0.1398, 0.5317, 0.2328,
         0.1739, 0.0171),
        (-0.0155, 0.0475, 0.039, 0, 0, 0, 0, 0, 0, 0, 0, 0.2008)),
    3: ((0.0722, 0.0621, 0.021, 0.0953, 0.0461, 0.014, 0.1545, 0.1225, 0.6511, 0.2234,
         0.3468, 0.0085),
        (0.0502, 0.071, 0.0459, 0, 0, 0, 0, 0, 0, 0, 0, 0.2852)),
    4: ((0.0849, 0.0626, 0.0342, -0.031, 0.0506, 0.0154, 0.1073, 0.073, 0.7516, 0.2416,
         0.2417, -0.002),
        (0.0562, 0.0777, 0.0629, 0, 0, 0, 0, 0, 0, 0, 0, 0.3458)),
}

_MUTABLE_1D = ("lane", "phase", "actor", "auto", "turn", "avail", "avail_n", "pick",
               "owner", "pickno", "deck_n", "hand_n", "hall_n", "disc_n", "rnd", "frnd",
               "declarer", "ability", "npart", "field", "before", "t1", "t2", "nd", "tb",
               "ronin_by", "tbw", "offer", "last_card", "clan_tot", "hall_fb", "fb_players",
               "champion", "part", "is_uma", "medic", "again", "infb")


def wrap(st, ban: np.ndarray, draft_k: int) -> SearchState:
    """The search's view of state `st` with forbidden options `ban` (seat, option)."""
    width = st.deck.shape[1] + st.hand.shape[1] + 2
    prm = np.array([EVAL_SCALE / int(st.players[0]), EVAL_QUALITY, EVAL_CARD, MARGIN, Z],
                   np.float64)
    cfg = np.array([draft_k, 0, OPPONENT_MODEL, 0, PEEK, PHASES, METHOD, HORIZON,
                    FB_HORIZON], np.int64)
    w = np.array(EVAL_W[int(st.players[0])], np.float64)
    return SearchState(st, ban, cfg, prm, np.zeros((2, width), np.int64), w,
                       np.zeros((MAX_ACTIONS, 4), np.float64),
                       np.zeros((R.MAX_P + 1, N_FEAT), np.float64))


def new_scratch(st, ban: np.ndarray, draft_k: int, table, sizes: dict) -> SearchState:
    """A scratch state for searches on states like `st` (same parameters and seats): its
    own position, piles, streams and zeroed aggregates (statistics table `table`, sizes
    `sizes`), and no game log."""
    aggs = as_tuple(Aggregates, zeros(table, sizes))
    own = {f: getattr(st, f).copy() for f in _MUTABLE_1D}
    scratch = st._replace(
        **own, pol=st.pol.copy(), rng=st.rng.copy(), perm=st.perm.copy(),
        deck=st.deck.copy(), hand=st.hand.copy(), hall=st.hall.copy(), disc=st.disc.copy(),
        held=st.held.copy(), played_r=st.played_r.copy(), played_g=st.played_g.copy(),
        g_rate=st.g_rate.copy(), g_card=st.g_card.copy(),
        log=np.zeros((0, st.log.shape[1]), np.int64), log_n=np.zeros(1, np.int64),
        aggs=aggs)
    return wrap(scratch, ban, draft_k)


# --- copying ------------------------------------------------------------------------------
@kernel
def _copy_rows(d, s, n):
    """Rows p of d get the first n[p] entries of s's rows."""
    for p in range(n.shape[0]):
        for i in range(n[p]):
            d[p, i] = s[p, i]


@kernel
def clone_state(dst, src):
    """Copy the position and progress of the playout in `src.st` into `dst.st` (the live
    part of every pile; statistics of the game in progress are not copied)."""
    d = dst.st
    s = src.st
    for a, b in ((d.lane, s.lane), (d.phase, s.phase), (d.actor, s.actor),
                 (d.auto, s.auto), (d.turn, s.turn), (d.avail, s.avail),
                 (d.avail_n, s.avail_n), (d.pick, s.pick), (d.owner, s.owner),
                 (d.pickno, s.pickno), (d.deck_n, s.deck_n), (d.hand_n, s.hand_n),
                 (d.hall_n, s.hall_n), (d.disc_n, s.disc_n), (d.rnd, s.rnd),
                 (d.frnd, s.frnd), (d.declarer, s.declarer), (d.ability, s.ability),
                 (d.npart, s.npart), (d.field, s.field), (d.before, s.before),
                 (d.t1, s.t1), (d.t2, s.t2), (d.nd, s.nd), (d.tb, s.tb),
                 (d.ronin_by, s.ronin_by), (d.tbw, s.tbw), (d.offer, s.offer),
                 (d.last_card, s.last_card), (d.clan_tot, s.clan_tot),
                 (d.hall_fb, s.hall_fb), (d.fb_players, s.fb_players),
                 (d.champion, s.champion)):
        search.copy1(a, b)
    for a, b in ((d.part, s.part), (d.is_uma, s.is_uma), (d.medic, s.medic),
                 (d.again, s.again), (d.infb, s.infb)):
        search.copy1(a, b)
    _copy_rows(d.deck, s.deck, s.deck_n)
    _copy_rows(d.hand, s.hand, s.hand_n)
    _copy_rows(d.hall, s.hall, s.hall_n)
    for i in range(s.disc_n[0]):
        d.disc[i] = s.disc[i]
    search.copy2(d.held, s.held)
    search.copy2(d.played_r, s.played_r)
    search.copy2(d.played_g, s.played_g)
    search.copy2(d.rng, s.rng)


# --- determinization ----------------------------------------------------------------------
@kernel
def _count_samurai(a, lo, hi):
    c = 0
    for i in range(lo, hi):
        c += a[i] >= 0
    return c


@kernel
def _has_before_card(a, lo, hi):
    for i in range(lo, hi):  # noqa: SIM110 (a generator in any() does not compile in numba)
        if a[i] == -1 - R.NINJUTSU or a[i] == -1 - R.UMA:
            return True
    return False


@kernel
def _first_from(a, lo, hi, want_samurai):
    """Position in a[lo:hi] of the first samurai (want_samurai) or before-rolling card,
    or -1."""
    for i in range(lo, hi):
        if want_samurai and a[i] >= 0:
            return i
        if not want_samurai and (a[i] == -1 - R.NINJUTSU or a[i] == -1 - R.UMA):
            return i
    return -1


@kernel
def _deal(u, n, h, need_samurai, need_before, stream):
    """Shuffle the sorted unseen cards u[:n] so that u[:h] is a hand holding a samurai
    (need_samurai) and a before-rolling card (need_before): a uniform deal given those
    conditions (redeals), forced by a swap after DEAL_TRIES failures."""
    for _ in range(DEAL_TRIES):
        shuffle(stream, u, n)
        if ((not need_samurai or _count_samurai(u, 0, h) > 0)
                and (not need_before or _has_before_card(u, 0, h))):
            return
    if need_samurai and _count_samurai(u, 0, h) == 0:
        j = _first_from(u, h, n, True)
        if j >= 0 and h > 0:
            t = u[0]
            u[0] = u[j]
            u[j] = t
    if need_before and not _has_before_card(u, 0, h):
        j = _first_from(u, h, n, False)
        k = h - 1 if h > 1 else 0
        if j >= 0 and h > 0:
            t = u[k]
            u[k] = u[j]
            u[j] = t


@kernel
def _eligible(code, want_samurai, banned):
    if want_samurai:
        return code >= 0 and code != banned
    return code == -1 - R.NINJUTSU or code == -1 - R.UMA


@kernel
def _pick_from_hand(u, h, want_samurai, banned, stream):
    """Move a uniformly chosen samurai other than `banned` (want_samurai; `banned` is
    ignored when it is the only samurai) or before-rolling card of the hand u[:h] to
    position h - 1 and return it."""
    m = 0
    for i in range(h):
        m += _eligible(u[i], want_samurai, banned)
    if m == 0:
        banned = np.int64(-2)
        for i in range(h):
            m += _eligible(u[i], want_samurai, banned)
    k = below(stream, np.int64(max(m, 1)))
    for i in range(h):
        if _eligible(u[i], want_samurai, banned):
            if k == 0:
                t = u[h - 1]
                u[h - 1] = u[i]
                u[i] = t
                return u[h - 1]
            k -= 1
    return u[h - 1]


@kernel
def _redeal_rival(st, q, u, stream):
    """Deal rival q's unseen cards afresh (hand, draw pile and a face-down choice of this
    round), keeping every public count."""
    ph = st.phase[0]
    n = 0
    for i in range(st.hand_n[q]):
        u[n] = st.hand[q, i]
        n += 1
    for i in range(st.deck_n[q]):
        u[n] = st.deck[q, i]
        n += 1
    face_down = (st.part[q] and q < st.actor[0] and (ph == R.FIELD or ph == R.FB_FIELD))
    nb = 0
    if face_down:
        u[n] = st.field[q]
        n += 1
        if ph == R.FIELD and st.before[q] >= 0:
            u[n] = -1 - st.before[q]
            n += 1
            nb = 1
    search.sort_head(u, n)
    earlier = False  # with several copies: a copy of the face-down card played before
    if nb == 1:
        left = 0
        for i in range(n):
            left += u[i] == -1 - st.before[q]
        earlier = left < st.battle_n[st.before[q]]
    h = st.hand_n[q] + (1 + nb if face_down else 0)  # the hand held when fielding began
    to_field = st.part[q] and ph in (R.DECLARE, R.FIELD) and q >= st.actor[0]
    if ph == R.DECLARE:
        to_field = st.part[q]
    _deal(u, n, h, face_down or to_field, nb == 1, stream)
    if face_down:  # its face-down samurai (and card) come out of that hand
        if nb == 1:
            old = st.before[q]
            card = -1 - _pick_from_hand(u, h, False, R.NONE, stream)
            h -= 1
            st.played_r[q, old] = False
            st.played_g[q, old] = earlier
            st.played_r[q, card] = True
            st.played_g[q, card] = True
            st.held[q, card] = True
            st.before[q] = card
        banned = st.last_card[q] if ph == R.FB_FIELD else R.NONE  # the rules' FB bar
        st.field[q] = _pick_from_hand(u, h, True, banned, stream)
        h -= 1
    for i in range(h):
        st.hand[q, i] = u[i]
    for i in range(h, h + st.deck_n[q]):
        st.deck[q, i - h] = u[i]
    for b in range(R.N_BATTLE):  # the rules' held: in hand at the round's start, and for
        # an after-rolling card played this round, another copy still in hand
        if not st.played_r[q, b] or b >= R.RONIN:
            st.held[q, b] = R.find(st.hand, st.hand_n, q, np.int64(-1 - b)) >= 0


@kernel
def determinize_state(ss, player, stream):
    """Resample in ss.st everything `player` cannot see, consistently with what it can
    (module docstring), and reseed every chance stream from `stream`."""
    st = ss.st
    ph = st.phase[0]
    u = ss.buf[0]
    if ph != R.DRAFT and ph != R.OVER:
        for q in range(st.players[0]):
            if q == player:
                n = st.deck_n[q]
                for i in range(n):
                    u[i] = st.deck[q, i]
                search.sort_head(u, n)
                shuffle(stream, u, n)
                for i in range(n):
                    st.deck[q, i] = u[i]
            elif ss.cfg[CFG_PEEK] == 0:
                _redeal_rival(st, np.int64(q), u, stream)
    search.reseed(st.rng, stream)
    ss.cfg[CFG_ME] = player


# --- the other hooks' bodies ---------------------------------------------------------------
@kernel
def rollout_choice(ss, policy):
    """The action the seat to act takes under rollout policy `policy` (players.RANDOM or
    GREEDY), honouring its forbidden options."""
    st = ss.st
    st.pol[st.actor[0]] = policy
    return P.choose(st, ss.ban)


@kernel
def search_legal(ss, out):
    """The actions the search considers for the seat to act: for a rival under the
    opponent model, or the searcher in a phase it does not search, the rollout policy's
    choice alone; for the searcher every legal action, but in the draft only the draft_k
    strongest samurai left (draft_k > 0). (The root of a search is never such a phase:
    search_play.search_choose does not search there.)"""
    st = ss.st
    me = st.actor[0] == ss.cfg[CFG_ME]
    if st.actor[0] >= 0 and ((ss.cfg[CFG_MODEL] == 1 and not me) or (
            me and not (ss.cfg[CFG_PHASES] >> st.phase[0]) & 1)):
        out[0] = rollout_choice(ss, ss.cfg[CFG_ROLLOUT])
        return 1
    n = R.legal_actions(st, out)
    k = ss.cfg[CFG_DRAFT_K]
    if st.phase[0] == R.DRAFT and 0 < k < n:
        return k
    return n


@kernel
def _worth(ratings, c, quality):
    """A samurai's army points: 1 + quality x (its best rating - 2.5)."""
    top = 0
    for a in range(ratings.shape[1]):
        top = max(top, ratings[c, a])
    return 1.0 + quality * (top - 2.5)


@kernel
def _army(st, q, share, quality, card):
    """Clan q's army points: samurai it will fight the Final Battle with (module
    docstring)."""
    v = 0.0
    if st.phase[0] == R.FB_DECLARE or st.phase[0] == R.FB_FIELD:
        for i in range(st.hand_n[q]):
            c = st.hand[q, i]
            if c >= 0:
                v += _worth(st.ratings, c, quality)
        if st.phase[0] == R.FB_FIELD and st.part[q] and q < st.actor[0]:
            v += _worth(st.ratings, st.field[q], quality)
        return v
    for i in range(st.hall_n[q]):
        v += _worth(st.ratings, st.hall[q, i], quality)
    rest = 0.0
    for i in range(st.hand_n[q]):
        c = st.hand[q, i]
        if c >= 0:
            rest += _worth(st.ratings, c, quality)
    for i in range(st.deck_n[q]):
        c = st.deck[q, i]
        if c >= 0:
            rest += _worth(st.ratings, c, quality)
    ph = st.phase[0]
    if st.part[q] and (ph == R.OFFER or (ph == R.FIELD and q < st.actor[0])):
        rest += _worth(st.ratings, st.field[q], quality)  # on the table this round
    for b in range(R.N_BATTLE):
        v += card * (st.battle_in[b] and not st.played_g[q, b])
    return v + share * rest


@kernel
def search_evaluate(ss, out):
    """Each seat's estimated chance of winning a position that is not over: a softmax of
    the clans' army points (module docstring)."""
    st = ss.st
    n = st.players[0]
    share = 1.0 / n
    top = -1e300
    for q in range(n):
        out[q] = _army(st, np.int64(q), share, ss.prm[1], ss.prm[2]) / ss.prm[0]
        top = max(top, out[q])
    total = 0.0
    for q in range(n):
        out[q] = np.exp(out[q] - top)
        total += out[q]
    for q in range(n):
        out[q] /= total


# --- the fitted evaluation (search_play.lookahead_choose) ----------------------------------
N_FEAT = 12
"""Features of a clan (`features`): 0-2 its army (Clan Conflict: Hall of Honor; Final
Battle: the samurai it fights with): count, summed best rating, summed ability total;
3-5 the same for its reserve (Clan Conflict: samurai in hand, draw pile or on the table
this round; 0 in the Final Battle); 6-10 its battle cards not yet played, one per card
(0 in the Final Battle); 11 whether it declares (the round's declarer)."""


@kernel
def _add_samurai(st, c, out, base):
    top = 0
    for a in range(st.ratings.shape[1]):
        top = max(top, st.ratings[c, a])
    out[base] += 1.0
    out[base + 1] += top
    out[base + 2] += st.totals[c]


@kernel
def features(st, q, out):
    """Clan q's features (N_FEAT) in position st (see N_FEAT); only public counts and
    what a determinization holds."""
    for i in range(N_FEAT):
        out[i] = 0.0
    ph = st.phase[0]
    if ph == R.FB_DECLARE or ph == R.FB_FIELD or ph == R.OVER:
        for i in range(st.hand_n[q]):
            if st.hand[q, i] >= 0:
                _add_samurai(st, st.hand[q, i], out, 0)
        if ph == R.FB_FIELD and st.part[q] and q < st.actor[0]:
            _add_samurai(st, st.field[q], out, 0)
    else:
        for i in range(st.hall_n[q]):
            _add_samurai(st, st.hall[q, i], out, 0)
        for i in range(st.hand_n[q]):
            if st.hand[q, i] >= 0:
                _add_samurai(st, st.hand[q, i], out, 3)
        for i in range(st.deck_n[q]):
            if st.deck[q, i] >= 0:
                _add_samurai(st, st.deck[q, i], out, 3)
        if st.part[q] and (ph == R.OFFER or (ph == R.FIELD and q < st.actor[0])):
            _add_samurai(st, st.field[q], out, 3)
        for b in range(R.N_BATTLE):
            out[6 + b] = st.battle_in[b] and not st.played_g[q, b]
    out[11] = st.declarer[0] == q


@kernel
def fitted_value(ss, player):
    """`player`'s chance of winning position ss.st: 1 or 0 once the game is over, else a
    softmax over the clans of the fitted weights ss.w times their `features`."""
    st = ss.st
    if st.phase[0] == R.OVER:
        return 1.0 if st.champion[0] == player else 0.0
    ph = st.phase[0]
    row = 1 if ph == R.FB_DECLARE or ph == R.FB_FIELD else 0
    n = st.players[0]
    sc = ss.fx[R.MAX_P]
    top = -1e300
    for q in range(n):
        f = ss.fx[q]
        features(st, np.int64(q), f)
        v = 0.0
        for i in range(N_FEAT):
            v += ss.w[row, i] * f[i]
        sc[q] = v
        top = max(top, v)
    total = 0.0
    for q in range(n):
        total += np.exp(sc[q] - top)
    return np.exp(sc[player] - top) / total


@kernel
def search_to_move(ss):
    """The seat to act (search hook `to_move`)."""
    return ss.st.actor[0]


@kernel
def search_is_over(ss):
    """Whether the game has ended (search hook `is_over`)."""
    return ss.st.phase[0] == R.OVER


# --- the search's hooks for this game's state ---------------------------------------------

search.register_hooks(
    SearchState,
    rules=R,
    clone=clone_state,
    determinize=determinize_state,
    to_move=search_to_move,
    legal_actions=search_legal,
    is_over=search_is_over,
    rollout_action=rollout_choice,
    evaluate=search_evaluate,
)
