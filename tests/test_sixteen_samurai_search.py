"""Sixteen Samurai's search player (mcts, information-set MCTS): policy names, the same
results for a seed on any chunking and thread count, only legal and allowed actions, no
peeking at hidden information, the run's statistics untouched by simulations, replay
equal to the fast path, and a clearly winning choice found."""

from pathlib import Path

import numpy as np
import pytest

from kernels.rng import seed_lanes
from kernels.sixteen_samurai import players as KP
from kernels.sixteen_samurai import rules as KR
from kernels.sixteen_samurai import search_hooks as SH
from kernels.sixteen_samurai.play import Call
from kernels.sixteen_samurai.stats import BattleStat
from simcli.games.sixteen_samurai import SixteenSamurai
from simcli.replay import replay
from simcli.run import build_config
from tests.search_checks import (
    check_policy_names,
    check_same_on_one_or_two_threads,
    play_in_chunks,
)
from tests.test_sixteen_samurai_handle import clone, swap_hidden

GAME = SixteenSamurai()
CONTENT = GAME.load_content(GAME.content_path(None))
SEATS = ("mcts:8", "greedy")


def prepared(seats=SEATS, rules=()):
    return GAME.prepare(CONTENT, len(seats), tuple(seats), GAME.resolve_rules(list(rules)))


def chunked(sizes, seats=SEATS, seed=3, rotation=0, forbid=None):
    """Aggregates and rows of playouts 0..sum(sizes)-1 played in chunks of `sizes`."""
    return play_in_chunks(GAME, prepared(seats), sizes, seed, rotation, forbid)


def test_policy_names_parse_and_bad_ones_are_refused():
    check_policy_names(GAME, ("ucts:5",))
    assert "ISMCTS" in GAME.search.help


def test_same_seed_same_results_for_any_chunks_and_the_searcher_matters():
    a, rows_a = chunked([4])
    b, rows_b = chunked([1, 3])
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert np.array_equal(rows_a, rows_b)
    c, _ = chunked([4], seed=4)
    assert not all(np.array_equal(a[k], c[k]) for k in a)
    g, _ = chunked([4], seats=("greedy", "greedy"))
    assert not all(np.array_equal(a[k], g[k]) for k in a)  # the search changes games


def test_same_statistics_on_one_or_two_threads_mirrored():
    seats = ("greedy", "mcts:6", "greedy")
    check_same_on_one_or_two_threads(GAME, prepared(seats), seats, 3, (3, 1))


def test_simulations_do_not_reach_the_run_statistics():
    """The fast path's statistics of three searched games equal those the rules count
    when the same games are replayed one action at a time through the handle (whose
    searches use their own scratch state too)."""
    seats = ("mcts:6", "greedy", "mcts:4:rollout=random")
    prep = prepared(seats)
    fast = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 8, 0, 3, fast, None)
    assert fast["wins"].sum() == 3
    replayed = {k: np.zeros_like(v) for k, v in fast.items()}
    for playout in range(3):
        h = GAME.handle(prep, 8, playout)
        h.play_out()
        for k in replayed:
            replayed[k] += h.aggs[k]
    for k in fast:
        assert np.array_equal(fast[k], replayed[k]), k


def test_every_search_action_is_legal_and_replay_equals_the_fast_path():
    seats = ("mcts:6", "greedy", "mcts:5:rollout=random")
    _, rows = chunked([2], seats=seats, seed=2, rotation=1)
    h = GAME.handle(prepared(seats), 2, 1, rotation=1)
    searched = 0
    while not h.is_over():
        legal = h.legal_actions()
        a = h.choose()
        assert a in legal
        searched += h.search[0][h.current_player()] > 0 and len(legal) > 1
        h.apply(a)
    assert searched > 20
    assert list(h.row().values()) == rows[1].tolist()
    g, cfg = build_config(GAME.name, players=2, policy=None, seats="mcts:4,greedy", n=1,
                          seed=6, threads=1, rules=[], content=None, out=Path("unused"),
                          force=False, save_games=False, chunk_size=None)
    doc = replay(g, cfg, 0)  # raises when the replayed row differs from the fast path's
    assert doc["seats"] == ["mcts:4", "greedy"] and doc["result"]["winners"]


def test_forbidden_cards_are_never_played_by_the_search():
    seats = ("mcts:8", "greedy")
    forbid = np.zeros((KR.MAX_P, len(KR.OPTIONS)), np.bool_)
    forbid[0, :] = True  # seat 1 never plays a battle card
    mattered = 0
    for playout in range(2):
        h = GAME.handle(prepared(seats), 4, playout, forbid=forbid)
        while not h.is_over():
            if h.current_player() == 0:
                legal = h.legal_actions()
                a = h.choose()
                assert a in legal and h.option_of(a) < 0
                mattered += any(h.option_of(x) >= 0 for x in legal)
                h.apply(a)
            else:
                h.step()
    assert mattered > 0  # the ban mattered at some decision
    aggs, _ = chunked([3], seats=("mcts:8", "mcts:8"), forbid=np.ones((2, 5), np.bool_))
    assert aggs["battle"][:, BattleStat.PLAYED_GAMES].sum() == 0  # no battle card played


def _perturb_hidden(h, me, rng):
    """What seat `me` cannot see, changed consistently with its view: rivals' hands and
    draw piles dealt anew from the same cards, a rival's face-down samurai swapped with one
    of its hand, its own draw pile reordered, and every random stream rekeyed."""
    other = clone(h)
    st = other.st
    swap_hidden(st, me, rng, face_down=True)
    n = int(st.deck_n[me])
    st.deck[me, :n] = rng.permutation(st.deck[me, :n])
    seed_lanes(st.rng, np.uint64(rng.integers(1, 2**62)), np.int64(0))  # other futures
    return other


@pytest.mark.parametrize("peek", [False, True])
def test_no_peeking_hidden_information_does_not_change_the_choice(peek):
    """Two states that differ only in what the searcher cannot see give the same choice
    for the same search stream. With peek (the determinization's rival deal switched off,
    for this test only) the search reads the real hands, and the choices do differ."""
    rng = np.random.default_rng(3)
    seats = ("greedy", "mcts:40", "greedy", "greedy")
    checked = differ = 0
    old = SH.PEEK
    SH.PEEK = int(peek)
    try:
        for playout in range(2):
            h = GAME.handle(prepared(seats), 13, playout)
            while not h.is_over() and checked < 40:
                me = h.current_player()
                if me == 1 and h.phase() not in ("draft",) and len(h.legal_actions()) > 1:
                    other = _perturb_hidden(h, me, rng)
                    a, b = h.choose(), other.choose()
                    checked += 1
                    differ += a != b
                    if not peek:
                        assert a == b, (h.phase(), a, b)
                    h.apply(a)
                else:
                    h.apply(h._k(Call.CHOOSE) if me != 1 else h.choose())
    finally:
        SH.PEEK = old
    assert checked >= 30
    if peek:
        assert differ > 0  # the test sees a search that reads hidden cards


def _final_battle_handle(seats):
    """A 2-player handle advanced (seat 1 at random, seat 2 greedy) to a Final Battle
    declaration by seat 1."""
    prep = prepared(seats)
    for playout in range(50):
        h = GAME.handle(prep, 17, playout)
        while not h.is_over():
            if h.phase() == "final declare" and h.current_player() == 0:
                return h
            h.apply(h._k(Call.CHOOSE))
    raise AssertionError("no Final Battle declaration by seat 1 found")


@pytest.mark.parametrize("budget", [60, 200])
def test_the_search_declares_the_ability_that_wins_the_last_duel(budget):
    """Seat 1 declares with one samurai left against one: the round decides the game, so
    the ability in which it rolls more dice than its rival is the clear choice."""
    h = _final_battle_handle((f"mcts:{budget}", "greedy"))
    st = h.st
    ratings = h.prep.ratings
    lead = ratings[:, 0] - ratings[:, 1:].max(axis=1)  # power minus the best other
    mine, theirs = int(np.argmax(lead)), int(np.argmin(lead))
    for p, c in ((0, mine), (1, theirs)):
        st.hand[p, 0] = c
        st.hand_n[p] = 1
        st.part[p] = True
        st.last_card[p] = -1
    st.npart[0] = 2
    good = [a for a in range(4) if ratings[mine, a] > ratings[theirs, a]]
    assert good and len(good) < 4
    assert h.choose() in good
    # greedy declares the same (its best samurai's best ability): a sanity check
    st.pol[0] = KP.GREEDY
    assert h._k(Call.CHOOSE) in good


def test_workspace_counts_simulated_moves_and_bench_reports_them():
    from simcli.bench import bench_search

    prep = prepared()
    aggs = GAME.new_aggregates(prep)
    moves = GAME.run_search_chunk(prep, 1, 0, 1, aggs, np.zeros((0, 13), np.int64), 0,
                                  None)
    assert moves > 100 * 8  # 8 simulations of several actions per searched decision
    res = bench_search(GAME, seconds=0.01, repeats=1)
    m = res["moves_per_s"]
    assert 0 < m["min"] <= m["median"] <= m["max"] and "mcts:100" in res["what"]


def _greedy_choice(h):
    """The greedy policy's choice for the seat to act of handle h (on a copy: the game's
    streams are untouched)."""
    other = clone(h)
    other.st.pol[int(other.st.actor[0])] = KP.GREEDY
    return other._k(Call.CHOOSE)


@pytest.mark.parametrize("z", [None, 1e9])
def test_the_lookahead_deviates_from_greedy_only_when_its_paired_samples_say_so(z):
    """The search plays greedy's choice unless another action gains by more than Z paired
    standard errors: with an impossible Z it deviates only where every paired sample gave
    the same gain (no error: an uncontested round, a settled roll); with the default Z it
    deviates where the samples vary too."""
    old = SH.Z
    if z is not None:
        SH.Z = z
    budget = 60
    try:
        h = GAME.handle(prepared((f"mcts:{budget}", "greedy")), 21, 0)
        checked = spread = 0
        while not h.is_over():
            legal = h.legal_actions()
            if h.current_player() == 0 and h.phase() != "draft" and len(legal) > 1:
                a, g = h.choose(), _greedy_choice(h)
                checked += 1
                if a != g:
                    k = max(budget // len(legal), 4)
                    i = list(h.ws.acts[:len(legal)]).index(a)
                    s1, s2 = h.ws.scratch.acc[i, 1], h.ws.scratch.acc[i, 2]
                    assert s1 > 0
                    spread += s2 / k - (s1 / k) ** 2 > 1e-12
                h.apply(a)
            else:
                h.apply(h.choose() if h.current_player() == 0 else h._k(Call.CHOOSE))
    finally:
        SH.Z = old
    assert checked > 10
    if z is None:
        assert spread > 0
    else:
        assert spread == 0


def test_fitted_value_prefers_the_stronger_clan_and_sums_to_one():
    """The evaluation's chances sum to 1 over the clans, and a clan given another samurai
    in its Hall of Honor gains."""
    h = _final_battle_handle(("mcts:8", "greedy"))
    ss = SH.wrap(h.st, h.forbid, 0)
    v0, v1 = SH.fitted_value(ss, 0), SH.fitted_value(ss, 1)
    assert abs(v0 + v1 - 1.0) < 1e-9 and 0.0 < v0 < 1.0
    st = h.st
    extra = next(c for c in range(h.prep.ratings.shape[0])
                 if c not in st.hand[0, :st.hand_n[0]] and c not in st.hand[1, :st.hand_n[1]])
    st.hand[0, st.hand_n[0]] = extra
    st.hand_n[0] += 1
    assert SH.fitted_value(ss, 0) > v0


def test_the_tree_method_still_plays_and_differs_from_the_lookahead():
    """search_hooks.METHOD = 0 plays the ISMCTS tree of kernels/search.py: whole games,
    other results than the default lookahead on the same seed."""
    old = SH.METHOD
    SH.METHOD = 0
    try:
        tree, _ = chunked([2])
    finally:
        SH.METHOD = old
    lookahead, _ = chunked([2])
    assert tree["wins"].sum() == 2
    assert not all(np.array_equal(tree[k], lookahead[k]) for k in tree)


def test_a_determinization_keeps_what_copies_make_public(tmp_path):
    """With several copies of each before-rolling card, a rival that played one in an
    earlier round and puts another face down now: whatever card the determinization deals
    face down, the earlier play stays recorded (played this game), and every rival's
    `held` matches its dealt hand as the rules define it."""
    text = CONTENT.path.read_text(encoding="utf-8")
    for card in ("ninjutsu", "uma", "ronin"):
        text = text.replace(f"\n{card} = 1 ", f"\n{card} = 3 ", 1)
    path = tmp_path / "copies.toml"
    path.write_text(text, encoding="utf-8")
    prep = GAME.prepare(GAME.load_content(path), 3, ("mcts:4", "random", "random"),
                        GAME.resolve_rules([]))
    me = 2
    checked = 0
    for playout in range(8):
        h = GAME.handle(prep, 3, playout)
        st = h.st
        before_round = None
        while not h.is_over():
            if h.phase() == "declare":
                before_round = st.played_g.copy()
            if h.phase() == "field" and st.actor[0] == me and before_round is not None:
                earlier = [(q, int(st.before[q])) for q in range(me)
                           if st.part[q] and st.before[q] >= 0 and before_round[q, st.before[q]]]
                for _ in range(10 if earlier else 0):
                    ws = h.ws
                    SH.clone_state(ws.scratch, ws.scratch._replace(st=st))
                    SH.determinize_state(ws.scratch, np.int64(me), ws.stream[0])
                    s2 = ws.scratch.st
                    for q, b in earlier:
                        assert s2.played_g[q, b]
                        checked += 1
                    for q in (0, 1):  # the rivals (the searcher sits last)
                        hand = s2.hand[q, :s2.hand_n[q]]
                        for b in (KR.RONIN, KR.BUSHIDO, KR.MEDICINE):
                            assert s2.held[q, b] == (-1 - b in hand)
            h.step()
    assert checked > 0


def test_the_help_states_the_deviation_threshold_in_use():
    """`simcli games` says "one paired standard error": the search's Z must be 1."""
    from simcli.games.sixteen_samurai import SEARCH

    assert SH.Z == 1.0 and "one paired standard error" in SEARCH.help
