"""Samurai & Katana's search player (mcts, ISMCTS): the same results for a seed on any
thread count and chunk size, only legal and allowed actions, no peeking at the cards a clan
cannot see, the run's statistics untouched by simulations, replay equal to the fast path,
and a clearly winning counter found."""

from pathlib import Path

import numpy as np

from kernels.katana_combat import (
    CC_AMOUNT,
    CC_EFFECT,
    CC_SWORDS,
    CC_VALUE,
    E_INSULT,
    E_JUSTICE,
)
from kernels.samurai_katana import rules as K
from kernels.samurai_katana import search_hooks as KH
from kernels.samurai_katana import search_play as KSP
from kernels.samurai_katana.play import N_ROW
from kernels.samurai_katana.stats import TABLE, Misc, Moment
from kernels.search import SEARCH_DECISION
from simcli.games.handle import NO_FOUT, NO_OUT, NO_ROWS
from simcli.games.samurai_katana import SEARCH_TOP_K, SamuraiKatana, no_forbid
from simcli.replay import replay
from simcli.run import RunConfig
from tests.search_checks import check_policy_names, check_same_on_one_or_two_threads, play_in_chunks

GAME = SamuraiKatana()
CONTENT = GAME.load_content(GAME.content_path(None))
RULES = GAME.resolve_rules([])
SEATS = ("mcts:8", "greedy", "greedy", "greedy")
GREEDY4 = ("greedy",) * 4


def prepared(seats=SEATS):
    return GAME.prepare(CONTENT, len(seats), tuple(seats), RULES)


def chunked(sizes, seats=SEATS, seed=3, rotation=0, forbid=None):
    """Aggregates and rows of games 0..sum(sizes)-1 played in chunks of `sizes`."""
    return play_in_chunks(GAME, prepared(seats), sizes, seed, rotation, forbid)


def search_at(st, budget=64, seed=9, playout=0, k=0, cut=60):
    """Search the decision of the seat to act in `st` directly: (action, root visits of
    the tree's nodes)."""
    forbid = no_forbid()
    ws = KSP.new_workspace(st, forbid, budget, SEARCH_TOP_K, TABLE, GAME.sizes(prepared()))
    a = KSP.run_search(st, ws, forbid, np.int64(SEARCH_DECISION), np.uint64(seed),
                       np.int64(playout), np.int64(k), NO_ROWS, NO_OUT, NO_FOUT,
                       np.full(K.MAX_P, budget, np.int64), np.full(K.MAX_P, 0.7),
                       np.full(K.MAX_P, K.GREEDY, np.int64), np.int64(cut))
    used = int(ws.tree.used[0])
    return int(a), ws.tree.visits[:used].copy(), ws.tree.action[:used].copy()


def greedy_until(pred, playout=0, seed=1, max_steps=20_000):
    """A greedy 4-player game's handle stepped until pred(handle) holds (None if never)."""
    h = GAME.handle(prepared(GREEDY4), seed, playout)
    for _ in range(max_steps):
        if h.is_over():
            return None
        if pred(h):
            return h
        h.step()
    return None


def test_policy_names_parse_and_bad_ones_are_refused():
    check_policy_names(GAME, ("ismcts",))
    assert GAME.policy_spec("mcts").rollout == "greedy"
    assert "ISMCTS" in GAME.describe_policy("mcts")


def test_same_seed_same_results_for_any_chunks_and_the_search_changes_games():
    a, rows_a = chunked([3])
    b, rows_b = chunked([1, 2])
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert np.array_equal(rows_a, rows_b)
    _, rows_c = chunked([3], seed=4)
    assert not np.array_equal(rows_a, rows_c)
    _, rows_g = chunked([3], seats=GREEDY4)
    assert not np.array_equal(rows_a, rows_g)


def test_same_statistics_on_one_or_two_threads_mirrored():
    check_same_on_one_or_two_threads(GAME, prepared(), SEATS, 2, (2, 1))


def test_simulations_do_not_reach_the_run_statistics():
    for g in range(2):  # one game per chunk: its battle count squared is its own moment
        prep = prepared()
        aggs = GAME.new_aggregates(prep)
        rows = np.zeros((1, N_ROW), np.int64)
        GAME.run_chunk(prep, 7, g, 1, aggs, rows)
        assert aggs["wins"].sum() + aggs["misc"][Misc.SHARED] == 1
        assert aggs["lengths"].sum() == 1 and aggs["lengths"][rows[0, K.R_TURNS]] == 1
        battles = int(aggs["battles"][..., 0].sum())
        assert battles > 0
        assert battles * battles == aggs["battle_sq_all"][Moment.XX]


def test_replay_equals_the_fast_path_and_every_search_action_is_legal():
    cfg = RunConfig(game=GAME.name, players=4, seats=("greedy", "mcts:6", "greedy",
                                                      "mcts:10:rollout=random"),
                    n=1, seed=11, threads=1, rules=RULES, content=None, out=Path("unused"))
    replay(GAME, cfg, 0)  # raises if the replayed row differs from the fast path's
    h = GAME.handle(prepared(cfg.seats), 11, 1)
    searched = 0
    while not h.is_over():
        seat = h.current_player()
        a = h.choose()
        if seat in (1, 3):
            searched += 1
            if h.phase() == "discard":
                assert 0 <= a < 1 << int(h.st.pl[seat, K.PL_HAND])
            else:
                assert a in h.legal_actions()
        h.apply(a)
    assert searched > 50


def test_forbidden_options_are_honoured():
    forbid = no_forbid()
    names = ("castle", "sell-honor", "insult", "wako", "fan", "shogunal-justice")
    for name in names:
        forbid[0, K.OPTIONS.index(name)] = True
    h = GAME.handle(prepared(), 2, 0, 0, forbid)
    while not h.is_over():
        a = h.choose()
        if h.current_player() == 0 and h.phase() != "discard":
            o = h.option_of(a)
            assert o < 0 or K.OPTIONS[o] not in names, (h.phase(), a)
        h.apply(a)
    all_castles = no_forbid()
    all_castles[:, K.OPTIONS.index("castle")] = True
    built = chunked([2])[0]["misc"][Misc.BOUGHT_CASTLES]
    none = chunked([2], forbid=all_castles)[0]["misc"][Misc.BOUGHT_CASTLES]
    assert built > 0 and none == 0


# --- no peeking ---------------------------------------------------------------------------

def at_act_of_seat0(h):
    st = h.st
    return (h.phase() == "act" and h.current_player() == 0 and st.gs[K.G_TURN] >= 2
            and st.pl[1, K.PL_HAND] >= 2 and st.pl[2, K.PL_HAND] >= 2)


def test_hidden_cards_do_not_change_the_search():
    """Rivals' hands and the deck's order reshuffled among themselves (the same cards
    hidden, so the same observation for seat 0): the same tree, visit for visit."""
    for playout in range(3):
        h = greedy_until(at_act_of_seat0, playout)
        assert h is not None
        st = h.st
        a, visits, _ = search_at(st)
        g = greedy_until(at_act_of_seat0, playout)
        hand, pl, piles = g.st.hand, g.st.pl, g.st.piles
        deck = int(g.st.gs[K.G_DECK])
        hidden = [(q, i) for q in (1, 2, 3) for i in range(pl[q, K.PL_HAND])]
        cards = [hand[q, i] for q, i in hidden] + list(piles[0, :deck])
        perm = np.random.default_rng(playout).permutation(len(cards))
        cards = [cards[j] for j in perm]
        for x, (q, i) in enumerate(hidden):
            hand[q, i] = cards[x]
        piles[0, :deck] = cards[len(hidden):]
        g.st.rng[:] = 0  # the real streams (future draws) are not the search's either
        assert not np.array_equal(hand, st.hand)
        b, visits_b, _ = search_at(g.st)
        assert a == b
        assert np.array_equal(visits, visits_b)


def at_defence_of_seat0(h):
    return h.phase() == "defence cards" and h.current_player() == 0


def test_the_attackers_face_down_cards_do_not_change_the_defenders_search():
    """The attacker's two combat cards swapped for other hidden cards (its points and
    swords follow, as in the real game): the defender's tree is the same."""
    found = 0
    for playout in range(40):
        h = greedy_until(at_defence_of_seat0, playout)
        if h is None:
            continue
        found += 1
        st = h.st
        a, visits, _ = search_at(st)
        g = greedy_until(at_defence_of_seat0, playout)
        gst = g.st
        att = int(gst.cx[K.CX_ACTIVE])
        cards = gst.cards
        deck = int(gst.gs[K.G_DECK])
        changed = False
        for pos in (int(gst.bt[K.BT_IA]), int(gst.bt[K.BT_JA])):
            old = gst.hand[att, pos]
            for x in range(deck):  # a deck card of another value takes its place
                new = gst.piles[0, x]
                if cards[new, CC_VALUE] != cards[old, CC_VALUE]:
                    gst.hand[att, pos], gst.piles[0, x] = new, old
                    gst.bt[K.BT_PA] += cards[new, CC_VALUE] - cards[old, CC_VALUE]
                    gst.bt[K.BT_SWA] += cards[new, CC_SWORDS] - cards[old, CC_SWORDS]
                    changed = True
                    break
        assert changed
        b, visits_b, _ = search_at(gst)
        assert a == b
        assert np.array_equal(visits, visits_b)
        if found == 2:
            break
    assert found >= 1


# --- a clearly winning action ---------------------------------------------------------------

def swap_in(st, card, arr, ix):
    """Put a card of type `card` at arr[ix], swapping it from wherever one lies."""
    if arr[ix] == card:
        return
    spots = [(st.hand, (q, i)) for q in range(4) for i in range(st.pl[q, K.PL_HAND])]
    spots += [(st.piles, (r, i)) for r, n in ((0, st.gs[K.G_DECK]), (1, st.gs[K.G_DISC]))
              for i in range(n)]
    src, where = next((a, w) for a, w in spots if a[w] == card and (a is not arr or w != ix))
    src[where], arr[ix] = arr[ix], card


def test_the_search_counters_the_insult_that_loses_the_game():
    """The last activation of the last turn: seat 2 plays Plot (an insult of 2) on seat 0,
    which leads seat 1 by one Honor; seat 0 holds Shogunal Justice. Letting it act loses
    the lead; the search cancels it."""
    h = greedy_until(lambda h: h.phase() == "act" and h.current_player() == 2
                     and h.st.gs[K.G_TURN] >= 2 and h.st.pl[0, K.PL_HAND] >= 3
                     and h.st.gs[K.G_DISC] > 0, 0)
    st = h.st
    effect = st.cards[:, CC_EFFECT]
    plot = int(np.flatnonzero((effect == E_INSULT) & (st.cards[:, CC_AMOUNT] == 2))[0])
    justice = int(np.flatnonzero(effect == E_JUSTICE)[0])
    swap_in(st, plot, st.piles, (1, 0))  # played: in the discards
    swap_in(st, justice, st.hand, (0, 0))
    target = int(st.pi[K.PI_TARGET])
    for q, honor in enumerate((target + 1, target, 5, 5)):
        st.pl[q, K.PL_HONOR] = honor
    st.gs[K.G_END] = 1
    st.scr[K.SC_DONE, :4] = 1
    st.cx[K.CX_ITER] = 3
    st.cx[K.CX_ORDER_ACT] = 1
    st.cx[K.CX_ACTIVE] = 2
    st.cx[K.CX_CARD] = plot
    st.cx[K.CX_TARGET] = 0
    st.cx[K.CX_VICTIM] = 0
    st.phase[0] = K.JUSTICE
    st.actor[0] = 0
    assert sorted(h.legal_actions()) == [0, 1]
    a, visits, actions = search_at(st, budget=200)
    assert a == 1
    root = {int(actions[i]): int(visits[i]) for i in range(1, 3)}
    assert root[1] > root[0]


def test_root_actions_are_the_same_in_every_determinization():
    """The premise of registering the hooks with fixed_root (the root's actions listed
    once per decision): after clone and determinize, the searcher's scratch lists the
    real state's actions, in every phase it decides (combat cards included)."""
    from simcli.registry import GAMES

    game = GAMES["samurai-katana"]
    h = game.new_game(seed=5, playout=2, seats=("mcts:4",) + ("greedy",) * 3)
    buf = np.zeros(KSP.MAX_ACTIONS, np.int64)
    checked = 0
    phases = set()
    while not h.is_over() and checked < 150:
        me = h.current_player()
        if me == 0:
            real = sorted(buf[:KH.search_legal(h.root, buf)])
            for _ in range(2):
                KH.clone_state(h.ws.scratch, h.root)
                KH.determinize_state(h.ws.scratch, me, h.ws.stream[0])
                assert sorted(buf[:KH.search_legal(h.ws.scratch, buf)]) == real
            checked += 1
            phases.add(int(h.st.phase[0]))
        h.step()
    assert checked >= 50 and len(phases) >= 3
