"""Samurai & Katana's implementation of the search hooks of `kernels/search.py` (ISMCTS).

The search works on a `SearchState`: a `rules.State` together with the forbidden options of
each seat, the search's settings and its own buffers. The root wraps the real state of the
playout (read, never changed, by the search); the workspace's scratch wraps a state of its
own, made by `new_scratch`, with its own scratch aggregates (the simulated games'
statistics never reach the run's) and an empty game log. Each simulation copies the real
position into the scratch (`clone_state`) and determinizes it for the searching player
(`determinize_state`):

- What the searcher sees: the board, every clan's Honor, koku, supply, offices and hand
  size, the discard pile (cards are discarded face up: played, fought with, or thrown
  away in phase 4), the deck's content (the printed deck list), its own hand.
- What it cannot see, and is resampled: the rivals' hands and the order of the draw pile.
  The cards it cannot see (rivals' hands and draw pile together: the deck list less its
  own hand and the discards) are put in a canonical order (sorted by card type, so the
  sample does not depend on where the real cards lie), shuffled with the search's own
  stream and dealt back: each rival the same number of cards, the rest the draw pile.
- During a battle the defender decides after the attacker has put its cards down, face
  down: a searching defender sees only whether a special (blue) card was added. Its
  determinization keeps a special (drawn at random among the hidden specials) at the
  attacker's special position and recomputes the attacker's card points and swords from
  the resampled cards, so it never learns them.
- Every chance stream (deck reshuffles, Ninja thefts, rollouts' random choices) is
  reseeded from the search's stream.

Choices of the search (constants below; the CLI's policy name sets budget, c, rollout):
- The actions considered per decision (`search_legal`): at an activation PASS, SELL, each
  distinct playable card on greedy's target, and the `top_k` best moves by greedy's
  valuation of moves (free territories, reinforcements under threat, attacks with at least
  PR_MIN_ODDS by the odds table); in combat the PR_CARD_BEST strongest distinct choices and
  the weakest; every choice of samurai to buy, clan to name, counter or not; a castle on
  greedy's favourite territory or none. Placing samurai, returning, a taken castle and the
  phase-4 discards are left to greedy (a single action: nothing to search).
- Rewards: 1 shared equally among the winners of a finished simulation (a shared win of k
  clans: 1/k each), 0 for the others.
- Rollouts play every seat by the rollout policy (the players' own functions, honouring
  each seat's forbidden options); when cut short, `evaluate` gives each clan a softmax of
  its position value (Honor + clan points, income, samurai), PR_TEMP Honor per unit of
  log-odds. The settings are runtime values (SearchState.prm), defaults in PARAMS.
"""

from collections import namedtuple

import numpy as np

from kernels import search
from kernels.jit import kernel
from kernels.katana_combat import (
    CC_AMOUNT,
    CC_EFFECT,
    CC_KIND,
    E_HONOR,
    E_INSULT,
    E_KOKU,
    E_NINJA,
    E_UPRISING,
    E_WAKO,
    K_SPECIAL,
    MAX_SIZE,
    card_points,
)
from kernels.rng import below, shuffle
from kernels.samurai_katana import players as P
from kernels.samurai_katana import rules as R
from kernels.samurai_katana.stats import Aggregates
from kernels.stat_table import as_tuple, zeros

SearchState = namedtuple("SearchState", ["st", "ban", "top_k", "prm", "pool", "cand",
                                         "cval", "ckey"])
"""What the search sees: st (rules.State), ban (MAX_P, rules.N_OPTIONS) bool the options
each seat may never use, top_k (1,) int64 moves considered per activation step, prm
(N_PRM,) float64 the search's other settings (PR_*, defaults in PARAMS); buffers:
pool (deck size,) int64 the hidden cards, cand (N_CAND,) int64, cval (N_CAND,) float64 and
ckey (N_CAND,) int64 candidate actions, their scores and keys."""

N_CAND = 4096  # candidate actions scored at one decision (combat choices of a big hand)
# the search's settings (SearchState.prm), runtime values so they can be tuned
PR_CARD_BEST = 0  # combat: the strongest distinct choices considered (and the weakest)
PR_MIN_ODDS = 1  # attacks considered from this chance of winning (the odds table)
PR_TEMP = 2  # evaluate: Honor per unit of log-odds between two clans
PR_W_CP = 3  # evaluate: Honor-equivalents of one clan point
PR_W_INCOME = 4  # evaluate: of one koku of income per turn
PR_W_SAMURAI = 5  # evaluate: of one samurai on the board
N_PRM = 6
PARAMS = (3.0, 0.2, 3.0, 0.5, 0.25, 0.1)  # the defaults, in PR_* order


def wrap(st, ban: np.ndarray, top_k: int, params: tuple = PARAMS) -> SearchState:
    """The search's view of state `st` with forbidden options `ban` (seat, option), top_k
    moves per activation step and settings `params` (PR_* order)."""
    D = st.piles.shape[1]
    return SearchState(st, np.ascontiguousarray(ban, np.bool_), np.array([top_k], np.int64),
                       np.array(params, np.float64), np.zeros(D, np.int64),
                       np.zeros(N_CAND, np.int64), np.zeros(N_CAND, np.float64),
                       np.zeros(N_CAND, np.int64))


def root_of(st, scratch: SearchState) -> SearchState:
    """The search's view of the real state `st`, sharing the scratch's settings and
    buffers (the root is only read)."""
    return SearchState(st, scratch.ban, scratch.top_k, scratch.prm, scratch.pool,
                       scratch.cand, scratch.cval, scratch.ckey)


def new_scratch(st, ban: np.ndarray, top_k: int, table, sizes: dict,
                params: tuple = PARAMS) -> SearchState:
    """A scratch state for searches on states like `st` (same run parameters and seats):
    its own position, streams and zeroed aggregates (statistics table `table`, sizes
    `sizes`), no game log, and no Honor traces."""
    aggs = as_tuple(Aggregates, zeros(table, sizes))
    pi = st.pi.copy()
    pi[R.PI_TRACE] = 0
    scratch = st._replace(
        pol=st.pol.copy(), pi=pi, rng=st.rng.copy(), bd=st.bd.copy(), pl=st.pl.copy(),
        pcount=st.pcount.copy(), hand=st.hand.copy(), piles=st.piles.copy(),
        gs=st.gs.copy(), src=st.src.copy(), hist=st.hist.copy(), scr=st.scr.copy(),
        row=st.row.copy(), phase=st.phase.copy(), actor=st.actor.copy(),
        auto=st.auto.copy(), cx=st.cx.copy(), bt=st.bt.copy(),
        log=np.zeros((0, st.log.shape[1]), np.int64), log_n=np.zeros(1, np.int64),
        aggs=aggs)
    return wrap(scratch, ban, top_k, params)


# --- clone and determinize ---------------------------------------------------------------

@kernel
def clone_state(dst, src):
    """Copy the position and progress of the game in `src` into `dst` (the run's
    parameters are shared; streams are copied, then reseeded by determinize)."""
    d = dst.st
    s = src.st
    search.copy2(d.bd, s.bd)
    search.copy2(d.pl, s.pl)
    search.copy2(d.pcount, s.pcount)
    search.copy2(d.hand, s.hand)
    search.copy2(d.piles, s.piles)
    search.copy2(d.src, s.src)
    search.copy2(d.scr, s.scr)
    search.copy2(d.rng, s.rng)
    search.copy1(d.gs, s.gs)
    search.copy1(d.hist, s.hist)
    search.copy1(d.row, s.row)
    search.copy1(d.cx, s.cx)
    search.copy1(d.bt, s.bt)
    search.copy1(d.pol, s.pol)
    d.phase[0] = s.phase[0]
    d.actor[0] = s.actor[0]
    d.auto[0] = s.auto[0]


@kernel
def hidden_attack(st, player):
    """The attacker whose face-down cards `player` must not see (-1: none): during the
    defender's choice of cards, when `player` is not the attacker."""
    if st.phase[0] != R.DEF_CARDS:
        return -1
    a = st.cx[R.CX_ACTIVE]
    return a if a != player else -1


@kernel
def determinize_state(ss, player, stream):
    """Resample the rivals' hands and the draw pile's order for `player` (a uniform deal of
    the cards it cannot see, in a canonical order first), keep a special at a hidden
    attack's special position, recompute that attack's points, and reseed every stream."""
    st = ss.st
    pool = ss.pool
    pl = st.pl
    hand = st.hand
    P_ = pl.shape[0]
    m = 0
    for q in range(P_):
        if q != player:
            for i in range(pl[q, R.PL_HAND]):
                pool[m] = hand[q, i]
                m += 1
    deck = st.gs[R.G_DECK]
    for i in range(deck):
        pool[m] = st.piles[0, i]
        m += 1
    search.sort_head(pool, m)
    shuffle(stream, pool, m)
    a = hidden_attack(st, player)
    ka = st.bt[R.BT_KA] if a >= 0 else -1
    x = 0
    for q in range(P_):
        if q != player:
            for i in range(pl[q, R.PL_HAND]):
                if q == a and i == ka:
                    _force_special(st, pool, x, m, stream)
                hand[q, i] = pool[x]
                x += 1
    for i in range(deck):
        st.piles[0, i] = pool[x]
        x += 1
    if a >= 0:
        bt = st.bt
        pts, sw = card_points(hand[a], bt[R.BT_IA], bt[R.BT_JA], ka, st.cards, False,
                              R.allied(st, a))
        bt[R.BT_PA] = pts
        bt[R.BT_SWA] = sw
    search.reseed(st.rng, stream)


@kernel
def _force_special(st, pool, x, m, stream):
    """Put a special drawn uniformly among pool[x:m]'s specials at pool[x] (swapped)."""
    n = 0
    for y in range(x, m):
        n += st.cards[pool[y], CC_KIND] == K_SPECIAL
    if n == 0:
        return
    r = below(stream, n)
    for y in range(x, m):
        if st.cards[pool[y], CC_KIND] == K_SPECIAL:
            if r == 0:
                t = pool[x]
                pool[x] = pool[y]
                pool[y] = t
                return
            r -= 1


# --- the actions the search considers ----------------------------------------------------

@kernel
def _take_best(cand, cval, n, k, out, m):
    """Append to out[m:] the actions of the k best-scored cand[:n] (scores > -inf; ties:
    the earlier); returns the new count."""
    for _ in range(k):
        best = -1
        for i in range(n):
            if cval[i] > -np.inf and (best < 0 or cval[i] > cval[best]):
                best = i
        if best < 0:
            break
        out[m] = cand[best]
        m += 1
        cval[best] = -np.inf
    return m


@kernel
def card_target(st, p, i):
    """Greedy's target for the card at hand position i (-1: none worth it)."""
    bd = st.bd
    pl = st.pl
    Pn = pl.shape[0]
    c = st.hand[p, i]
    eff = st.cards[c, CC_EFFECT]
    if eff == E_KOKU or eff == E_HONOR:  # noqa: SIM109
        return p
    if eff == E_WAKO:
        return P.top_rival(pl, Pn, p, R.PL_KOKU, 1)
    if eff == E_INSULT:
        return P.top_rival(pl, Pn, p, R.PL_HONOR, 0)
    if eff == E_NINJA:
        return P.top_rival(pl, Pn, p, R.PL_HAND, 1)
    if eff == E_UPRISING:
        amount = st.cards[c, CC_AMOUNT]
        best = 0
        target = -1
        for t in range(bd.shape[1]):
            if not R.uprising_ok(bd, pl, st.pi, t, p):
                continue
            removed = bd[R.SAM, t] if amount == 0 else min(amount, bd[R.SAM, t])
            score = removed + (1 + 2 * st.terr[t, R.TC_CP] if removed == bd[R.SAM, t] else 0)
            if score > best:
                best = score
                target = t
        return target
    return -1


@kernel
def move_score(st, p, s, e, movable, min_odds):
    """(score, samurai) of moving from s along link e, by greedy's valuation of moves
    (-inf: not considered)."""
    bd = st.bd
    n = st.adj[0, e]
    o = bd[R.OWNER, n]
    v = P.tvalue(bd, st.pcount, st.terr, st.prov, st.pi, n, p)
    if o == R.NO_ONE:
        k = 2 if st.terr[n, R.TC_CP] > 0 and movable >= 2 else 1
        return float(v), k
    if o == p:
        thr = P.threat(bd, st.adj_start, st.adj, n, p)
        if thr < bd[R.SAM, n] or P.threat(bd, st.adj_start, st.adj, s, p) > 0:
            return -np.inf, 0
        return 0.5 + 0.1 * st.terr[n, R.TC_CP], movable
    pw = st.win[min(movable, MAX_SIZE), min(bd[R.SAM, n], MAX_SIZE), bd[R.CASTLE, n],
                st.terr[n, R.TC_MOUNT]]
    if pw < min_odds:
        return -np.inf, 0
    bonus = 2 + (o == st.gs[R.G_SHOGUN])
    return pw * (v + bonus), movable


@kernel
def act_candidates(ss, p, out):
    """ACT: PASS, SELL (when legal), each distinct playable card on greedy's target, and
    the top_k best moves."""
    st = ss.st
    bd = st.bd
    pl = st.pl
    n = 0
    out[n] = R.PASS
    n += 1
    if pl[p, R.PL_HONOR] >= 2 and pl[p, R.PL_KOKU] == 0:
        out[n] = R.SELL
        n += 1
    h = pl[p, R.PL_HAND]
    for i in range(h):
        c = st.hand[p, i]
        if not R.card_playable(p, c, bd, pl, st.pi, st.cards):
            continue
        seen = False
        for j in range(i):
            seen |= st.hand[p, j] == c
        if seen:
            continue
        t = card_target(st, p, i)
        if t >= 0:
            out[n] = R.card_action(st, i, t)
            n += 1
    m = 0
    cand = ss.cand
    cval = ss.cval
    for s in range(bd.shape[1]):
        if bd[R.OWNER, s] != p or bd[R.SAM, s] == 0:
            continue
        movable = bd[R.SAM, s] - (0 if bd[R.CASTLE, s] else 1)
        if movable <= 0:
            continue
        for e in range(st.adj_start[s], st.adj_start[s + 1]):
            if not R.move_ok(bd, pl, p, st.adj[0, e]) or m >= cand.shape[0]:
                continue
            score, k = move_score(st, p, s, e, movable, ss.prm[PR_MIN_ODDS])
            if score > -np.inf:
                cand[m] = R.move_action(st, e, k)
                cval[m] = score
                m += 1
    return _take_best(cand, cval, m, ss.top_k[0], out, n)


@kernel
def card_candidates(ss, p, defending, out):
    """ATT_CARDS / DEF_CARDS: the PR_CARD_BEST strongest distinct choices (points, then
    swords) and the weakest one."""
    st = ss.st
    bt = st.bt
    castle = defending and bt[R.BT_CASTLE] == 1
    can_special = not (defending and bt[R.BT_FILLED] == 1)
    al = R.allied(st, p)
    hand = st.hand[p]
    h = st.pl[p, R.PL_HAND]
    C = st.cards.shape[0]
    cand = ss.cand
    cval = ss.cval
    keys = ss.ckey  # the card types of each candidate, for distinct choices
    m = 0
    for i in range(h):
        for j in range(i + 1, h):
            for k in range(-1, h if can_special else 0):
                if k == i or k == j:  # noqa: SIM109 (numba)
                    continue
                if k >= 0 and st.cards[hand[k], CC_KIND] != K_SPECIAL:
                    continue
                key = (min(hand[i], hand[j]) * C + max(hand[i], hand[j])) * (C + 1) + (
                    hand[k] + 1 if k >= 0 else 0)
                dup = False
                for y in range(m):
                    if keys[y] == key:
                        dup = True
                        break
                if dup or m >= cand.shape[0]:
                    continue
                pts, sw = card_points(hand, i, j, k, st.cards, castle, al)
                cand[m] = R.cards_action(st, i, j, k)
                cval[m] = pts * 100.0 + sw
                keys[m] = key
                m += 1
    weakest = 0
    for y in range(m):
        if cval[y] < cval[weakest]:
            weakest = y
    w = cand[weakest]
    n = _take_best(cand, cval, m, np.int64(ss.prm[PR_CARD_BEST]), out, 0)
    for y in range(n):
        if out[y] == w:
            return n
    out[n] = w
    return n + 1


@kernel
def castle_candidates(st, p, out):
    """CASTLE_BUY: none, or a castle on greedy's favourite affordable territory."""
    out[0] = 0
    bd = st.bd
    best = -1
    bs = -1
    for u in range(bd.shape[1]):
        if bd[R.OWNER, u] != p or bd[R.CASTLE, u]:
            continue
        cost = st.pi[R.PI_KYOTO_COST] if u == st.pi[R.PI_KYOTO] else st.pi[R.PI_CASTLE_COST]
        if st.pl[p, R.PL_KOKU] < cost:
            continue
        score = 3 * st.terr[u, R.TC_CP] + st.terr[u, R.TC_SEA] + P.threat(
            bd, st.adj_start, st.adj, u, p)
        if score > bs:
            bs = score
            best = u
    if best < 0:
        return 1
    out[1] = 1 + best
    return 2


@kernel
def search_legal(ss, out):
    """The actions the search considers for the seat to act (see the module docstring):
    a subset of rules.legal_actions, never empty while the game goes on."""
    st = ss.st
    ph = st.phase[0]
    p = st.actor[0]
    if ph == R.OVER:
        return 0
    if ph == R.ACT:
        return act_candidates(ss, p, out)
    if ph == R.ATT_CARDS or ph == R.DEF_CARDS:
        return card_candidates(ss, p, ph == R.DEF_CARDS, out)
    if ph == R.CASTLE_BUY:
        return castle_candidates(st, p, out)
    if ph == R.BUY or ph == R.ORDER or ph == R.JUSTICE or ph == R.CANCEL:
        return R.legal_actions(st, out)
    state = st.rng[st.lane[p]]  # greedy's choices below draw nothing from it
    if ph == R.PLACE:
        out[0] = P.best_place(st.bd, st.terr, st.adj_start, st.adj, p, st.cx[R.CX_EXCL])
    elif ph == R.DISCARD:
        out[0] = P.choose_discard(st, p, state, True)
    elif ph == R.TAKE_CASTLE:
        out[0] = P.choose_take_castle(st, p, state, True)
    else:
        out[0] = P.choose_return(st, p, state, True)
    return 1


# --- rewards, rollouts, evaluation -------------------------------------------------------

@kernel
def search_outcome(ss, out):
    """Each seat's reward of a finished game: 1 shared among the winners, else 0."""
    R.outcome(ss.st, out)
    tot = 0.0
    for q in range(out.shape[0]):
        tot += out[q]
    if tot > 1.0:
        for q in range(out.shape[0]):
            out[q] /= tot


@kernel
def rollout_action(ss, policy):
    """The action the seat to act takes under rollout policy `policy` (players.RANDOM or
    GREEDY), honouring its forbidden options."""
    st = ss.st
    st.pol[st.actor[0]] = policy
    return P.choose(st, ss.ban)


@kernel
def position_value(st, prm, q):
    """Clan q's position in Honor-equivalents: Honor, clan points, income, samurai."""
    bd = st.bd
    income = 0
    sam = 0
    for t in range(bd.shape[1]):
        if bd[R.OWNER, t] == q:
            income += st.terr[t, R.TC_TAX]
            sam += bd[R.SAM, t]
    pl = st.pl
    return (pl[q, R.PL_HONOR] + prm[PR_W_CP] * pl[q, R.PL_CP] + prm[PR_W_INCOME] * income
            + prm[PR_W_SAMURAI] * sam)


@kernel
def search_evaluate(ss, out):
    """Each seat's estimated chance of winning an unfinished game: a softmax of the clans'
    position values (PR_TEMP Honor per unit of log-odds); 0 for seats not in the game."""
    st = ss.st
    Pn = st.pl.shape[0]
    top = -1e300
    for q in range(Pn):
        out[q] = position_value(st, ss.prm, q)
        top = max(top, out[q])
    tot = 0.0
    for q in range(Pn):
        out[q] = np.exp((out[q] - top) / ss.prm[PR_TEMP])
        tot += out[q]
    for q in range(out.shape[0]):
        out[q] = out[q] / tot if q < Pn else 0.0


# --- the search's hooks for this game's state ---------------------------------------------

# fixed_root: the searcher's candidates depend on the board, the clans' public figures and
# its own hand, none of which a determinization changes: listed once per decision
# (tests/test_samurai_katana_search.py checks it).
search.register_hooks(
    SearchState,
    rules=R,
    fixed_root=True,
    clone=clone_state,
    determinize=determinize_state,
    legal_actions=search_legal,
    outcome=search_outcome,
    rollout_action=rollout_action,
    evaluate=search_evaluate,
)
