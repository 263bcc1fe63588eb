"""Samurai: The Card Game's implementation of the search hooks of `kernels/search.py`
(single-observer information-set MCTS).

The search works on a `SearchState`: a `rules.State` with the forbidden options of each
seat, the search's settings and a few buffers of its own. The root wraps the real state
of the playout; the workspace's scratch wraps a state of its own made by `new_scratch`
(own board, hands, streams, players' scratch, zeroed aggregates and no game log), so the
simulated games never reach the run's statistics.

Determinization (`determinize_state`), for the searching player `me`, the seat to act:
- every other seat's unplayed cards (its hand and draw pile together: its set minus the
  cards on the board, a multiset everybody can work out) are dealt afresh into a hand and
  a pile of the same sizes;
- `me`'s own draw pile is shuffled (its own hand is kept);
- the village deck below the cards `me` sees (`rules.visible_villages`) is shuffled;
- every chance stream is reseeded from the search's stream.
Each of these pools is sorted before it is shuffled, so the sample depends only on the
pool's contents (what `me` can work out) and the search's stream, never on the order of
the real hidden cards: two real states that differ only in what `me` cannot see give the
same determinizations, hence the same choice.

Search actions: a card play names the card by its symbol and influence, not by its hand
position (hand positions change from one determinization to another as cards are drawn):
`key * 2**20 + cell` with key = (code >> 2) & 63; `rules_action` maps it back to the
rules' encoding at the state it is applied to. Village placements keep the rules'
encoding. Two copies of the same card are one action.

Choices of the search:
- `top_k > 0` considers, at each card play, the top_k (card, cell) plays by greedy's
  valuation (honouring the forbidden set); 0 considers every distinct play. Placements are
  never pruned (at most a few).
- Rewards (`search_outcome`): 1 to the outright winner; a shared victory splits 1 among
  its winners; a game nobody wins gives each seat 1 / players (a draw).
- Rollouts play every seat by the rollout policy (random or greedy) through
  `players.choose`, honouring each seat's forbidden options.
- `evaluate` (when rollouts are cut short): per shape, each seat's projected markers (taken,
  plus half a marker per unscored village showing the shape where it leads now); a seat's
  strength is its expected number of dominated shapes (a logistic of its margin over the
  best rival, DOM_SPREAD markers per unit of log-odds) plus a little for its markers;
  win chances are a softmax of strengths (EVAL_SHARPNESS).
"""

from collections import namedtuple

import numpy as np

from kernels import search
from kernels.jit import kernel
from kernels.rng import shuffle
from kernels.samurai_card_game import players as P
from kernels.samurai_card_game import rules as R
from kernels.samurai_card_game.stats import MAX_P, Aggs, Outcome
from kernels.stat_table import as_tuple, zeros

SearchState = namedtuple("SearchState", ["st", "ban", "top_k", "acts", "vals", "pool"])
"""What the search sees: st (rules.State), ban (MAX_P, len(rules.OPTIONS)) bool the
options each seat may never use, top_k (1,) int64 card plays considered per decision (0:
every one), acts (M,) int64 and vals (M,) float64 buffers of scored plays, pool (NC +
hand + 1,) int64 a buffer of determinize."""

KEY_MASK = 63  # a card's symbol (bits 0-1) and influence (bits 2-5) in a search action
DOM_SPREAD = 1.0  # evaluate: marker margin per unit of log-odds of dominating a shape
EVAL_SHARPNESS = 3.0  # evaluate: softmax factor on the expected shapes dominated
MARKER_WEIGHT = 0.05  # evaluate: strength of each projected marker (the tie-breaks)
LEAD_SHARE = 0.5  # evaluate: markers counted for leading an unscored village


def max_actions(st) -> int:
    """The most legal actions a decision on states like `st` can have."""
    return int(st.hands.shape[1] * st.front.shape[0] + 16)


def wrap(st, ban: np.ndarray, top_k: int) -> SearchState:
    """The search's view of state `st` with forbidden options `ban` (seat, option)."""
    m = max_actions(st)
    return SearchState(st, ban, np.array([top_k], np.int64), np.zeros(m, np.int64),
                       np.zeros(m, np.float64),
                       np.zeros(st.decks.shape[1] + st.hands.shape[1], np.int64))


def root_of(st, scratch: SearchState) -> SearchState:
    """The search's view of the real state `st`, sharing the scratch's settings and
    buffers (the root uses them only before the simulations start)."""
    return SearchState(st, scratch.ban, scratch.top_k, scratch.acts, scratch.vals,
                       scratch.pool)


def new_scratch(st, ban: np.ndarray, top_k: int, table, sizes: dict) -> SearchState:
    """A scratch state for searches on states like `st` (same parameters and seats): its
    own copy of every array, zeroed aggregates (statistics table `table`, sizes `sizes`)
    and no game log."""
    aggs = as_tuple(Aggs, zeros(table, sizes))
    fields = {name: getattr(st, name).copy() for name in st._fields
              if name not in ("aggs", "log", "log_n")}
    scratch = R.State(**fields, log=np.zeros((0, st.log.shape[1]), np.int64),
                      log_n=np.zeros(1, np.int64), aggs=aggs)
    return wrap(scratch, ban, top_k)


# --- clone and determinize ----------------------------------------------------------------

@kernel
def clone_state(dst, src):
    """Copy the position of `src` into `dst` (only the cells the two games touched: the
    scratch's board is cleared, then the source's filled cells, the influence next to
    them and the legal cells copied). The players' scratch is not copied, and `dst` keeps
    its own greedy stamp (its cache keys stay unique)."""
    d = dst.st
    s = src.st
    R.clear_board(d)
    stamp = d.cnt[0].stamp
    d.cnt[0] = s.cnt[0]
    d.cnt[0].stamp = stamp
    for q in range(MAX_P):
        d.seat[q] = s.seat[q]
    c = s.cnt[0]
    offs = s.offs
    for i in range(c.nfill):
        x = s.filled[i]
        d.filled[i] = x
        d.grid[x] = s.grid[x]
        for e in range(4):
            n = x + offs[e]
            for k in range(R.N_ES):
                d.esum[n, k] = s.esum[n, k]
    for i in range(c.nf):
        x = s.front[i]
        d.front[i] = x
        d.fpos[x] = i
    for i in range(c.nv):
        d.vill[i] = s.vill[i]
        for k in range(R.N_VS):
            d.vsum[i, k] = s.vsum[i, k]
    for i in range(c.nopen):
        d.openv[i] = s.openv[i]
    for i in range(s.vdeck.shape[0]):
        d.vdeck[i] = s.vdeck[i]
    for q in range(MAX_P):
        for i in range(s.seat[q].hand_n):
            d.hands[q, i] = s.hands[q, i]
        for i in range(s.seat[q].deck_n):
            d.decks[q, i] = s.decks[q, i]
        for k in range(R.N_SHAPES):
            d.taken[q, k] = s.taken[q, k]
    for k in range(R.N_SHAPES):
        d.rem[k] = s.rem[k]
    for j in range(s.opens.shape[0]):
        d.opens[j] = s.opens[j]
    for r in range(s.rng.shape[0]):
        for w in range(s.rng.shape[1]):
            d.rng[r, w] = s.rng[r, w]


@kernel
def determinize_state(ss, me, stream):
    """Resample what seat `me` cannot see (module docstring), from `stream`; reseed every
    chance stream."""
    st = ss.st
    pool = ss.pool
    for q in range(st.cfg[0].players):
        sp = st.seat[q]
        hn = sp.hand_n
        dn = sp.deck_n
        if q == me:
            search.sort_head(st.decks[q], dn)
            shuffle(stream, st.decks[q], dn)
            continue
        for i in range(hn):
            pool[i] = st.hands[q, i]
        for i in range(dn):
            pool[hn + i] = st.decks[q, i]
        search.sort_head(pool, hn + dn)
        shuffle(stream, pool, hn + dn)
        for i in range(hn):
            st.hands[q, i] = pool[i]
        for i in range(dn):
            st.decks[q, i] = pool[hn + i]
    below = st.cnt[0].vtop + R.visible_villages(st)
    n = st.vdeck.shape[0] - below
    if n > 1:
        tail = st.vdeck[below:]
        search.sort_head(tail, n)
        shuffle(stream, tail, n)
    search.reseed(st.rng, stream)


# --- actions ------------------------------------------------------------------------------

@kernel
def rules_action(st, a):
    """The rules' action for search action `a` at state `st` (a card play names its card
    by key: the first card of that key in the hand)."""
    if st.cnt[0].phase != R.PLAY:
        return a
    key = a >> R.CELL_BITS
    p = st.cnt[0].cur
    hi = 0
    for i in range(st.seat[p].hand_n):
        if (st.hands[p, i] >> 2) & KEY_MASK == key:
            hi = i
            break
    return R.card_action(np.int64(hi), a & R.CELL_MASK)


@kernel
def search_action(st, a):
    """The search action of rules action `a` at state `st`."""
    if st.cnt[0].phase != R.PLAY:
        return a
    code = st.hands[st.cnt[0].cur, a >> R.CELL_BITS]
    return (((code >> 2) & KEY_MASK) << R.CELL_BITS) | (a & R.CELL_MASK)


@kernel
def score_plays(st, p, ban, acts, vals):
    """Every distinct play (card key, legal cell) p may make (forbidden cards left out
    unless all are) into acts, with greedy's value of it (players.greedy_move's sum) into
    vals; returns how many."""
    P.shape_weights(st, p)
    nk = P.distinct_cards(st, p, ban)
    P.open_village_values(st, p, nk)
    grid = st.grid
    offs = st.offs
    vtab = st.vtab
    xtab = st.xtab
    pf = st.weights
    fs = st.fs
    kadd = st.kadd
    NP = st.cfg[0].players
    NV = st.vdeck.shape[0]
    vtop = st.cnt[0].vtop
    top = R.top_village(st, np.int64(0))
    keep = pf[P.PF_KEEP]
    n = 0
    for i in range(st.cnt[0].nf):
        c = np.int64(st.front[i])
        base_k = n
        for k in range(nk):
            v = -keep * kadd[k, 3]
            for e in range(4):
                h = grid[c + offs[e]]
                if h != 0:
                    v += vtab[h - 1, k]
            acts[base_k + k] = (((st.hands[p, st.kpos[k]] >> 2) & KEY_MASK) << R.CELL_BITS) | c
            vals[base_k + k] = v
        fm = R.opening_sides(grid, c, offs[0], offs[1], offs[2], offs[3], p)
        nop = 0
        while fm != 0:
            e = (R.CTZ4 >> (fm << 1)) & 3
            fm &= fm - 1
            if vtop + nop >= NV:
                break
            P.x_value(st.esum, np.uint64(c + offs[e]), p, NP, fs, pf, top, nop > 0, nk, kadd,
                      xtab, np.int64(0))
            for k in range(nk):
                vals[base_k + k] += xtab[0, k]
            nop += 1
        n = base_k + nk
    return n


@kernel
def top_plays(acts, vals, n, k, out):
    """The k plays of highest value among acts[:n] (ties: the earlier first) into out;
    returns how many. acts and vals are reordered."""
    m = min(k, n)
    for i in range(m):
        b = i
        for j in range(i + 1, n):
            if vals[j] > vals[b]:
                b = j
        a = acts[b]
        v = vals[b]
        for j in range(b, i, -1):  # keep the rest in order (stable ties)
            acts[j] = acts[j - 1]
            vals[j] = vals[j - 1]
        acts[i] = a
        vals[i] = v
        out[i] = a
    return m


@kernel
def search_legal(ss, out):
    """The actions the search considers for the seat to act: every distinct card play (or
    the top_k by greedy's value) honouring the forbidden set; every placement."""
    st = ss.st
    c = st.cnt[0]
    if c.over:
        return 0
    if c.phase != R.PLAY:
        return R.legal_actions(st, out)
    p = c.cur
    n = score_plays(st, p, ss.ban[p], ss.acts, ss.vals)
    k = ss.top_k[0]
    if k <= 0 or k >= n:
        for i in range(n):
            out[i] = ss.acts[i]
        return n
    return top_plays(ss.acts, ss.vals, n, k, out)


@kernel
def search_option(ss, a):
    """The option (rules.OPTIONS) search action `a` uses: its card's symbol; -1 for a
    placement."""
    if ss.st.cnt[0].phase != R.PLAY:
        return -1
    return (a >> R.CELL_BITS) & 3


@kernel
def search_outcome(ss, out):
    """Each seat's reward of a finished game: 1 the outright winner; a shared victory
    splits 1 among its winners; nobody winning is a draw (1 / players each)."""
    st = ss.st
    c = st.cnt[0]
    NP = st.cfg[0].players
    for s in range(out.shape[0]):
        out[s] = 0.0
    if c.result == Outcome.OUTRIGHT:
        out[c.winner] = 1.0
    elif c.result == Outcome.SHARED:
        k = 0
        for s in range(NP):
            k += (c.win_mask >> s) & 1
        for s in range(NP):
            if (c.win_mask >> s) & 1:
                out[s] = 1.0 / k
    else:
        for s in range(NP):
            out[s] = 1.0 / NP


@kernel
def rollout_play(ss, policy):
    """The action the seat to act takes under rollout policy `policy` (players.RANDOM or
    GREEDY), honouring its forbidden options, as a search action."""
    st = ss.st
    st.seat[st.cnt[0].cur].pol = policy
    return search_action(st, P.choose(st, ss.ban))


@kernel
def search_evaluate(ss, out):
    """Each seat's estimated chance of winning a position that is not over (module
    docstring): a softmax of its expected shapes dominated."""
    st = ss.st
    NP = st.cfg[0].players
    c = st.cnt[0]
    proj = ss.vals  # (MAX_P * 3) projected markers, then strengths
    for q in range(NP):
        for s in range(R.N_SHAPES):
            proj[q * 3 + s] = st.taken[q, s]
    for i in range(c.nopen):
        vi = st.openv[i]
        mask = st.vill[vi].mask
        for s in range(R.N_SHAPES):
            if (mask >> s) & 1 == 0:
                continue
            best = -1
            bq = -1
            tie = False
            for q in range(NP):
                x = st.vsum[vi, q * 3 + s]
                if x > best:
                    best = x
                    bq = q
                    tie = False
                elif x == best:
                    tie = True
            if not tie and best > 0:
                proj[bq * 3 + s] += LEAD_SHARE
    top = -1e300
    for q in range(NP):
        strength = 0.0
        for s in range(R.N_SHAPES):
            riv = -1e300
            for r in range(NP):
                if r != q and proj[r * 3 + s] > riv:
                    riv = proj[r * 3 + s]
            strength += 1.0 / (1.0 + np.exp(-(proj[q * 3 + s] - riv) / DOM_SPREAD))
            strength += MARKER_WEIGHT * proj[q * 3 + s]
        out[q] = EVAL_SHARPNESS * strength
        top = max(top, out[q])
    total = 0.0
    for q in range(NP):
        out[q] = np.exp(out[q] - top)
        total += out[q]
    for q in range(NP):
        out[q] /= total
    for q in range(NP, out.shape[0]):
        out[q] = 0.0


@kernel
def search_apply(ss, a):
    """Apply search action `a` to the state."""
    R.apply(ss.st, rules_action(ss.st, a))


@kernel
def search_is_over(ss):
    """Whether the game has ended (search hook `is_over`)."""
    return ss.st.cnt[0].over != 0


# --- the search's hooks for this game's state ---------------------------------------------

# fixed_root: the searcher's plays depend on its own hand, the board and the villages it
# sees, none of which a determinization changes: listed once per decision
# (tests/test_samurai_card_game_search.py checks it).
search.register_hooks(
    SearchState,
    rules=R,
    fixed_root=True,
    clone=clone_state,
    determinize=determinize_state,
    legal_actions=search_legal,
    apply=search_apply,
    is_over=search_is_over,
    outcome=search_outcome,
    rollout_action=rollout_play,
    option_of=search_option,
    evaluate=search_evaluate,
)
