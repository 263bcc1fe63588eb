"""Samurai: The Card Game's search player (mcts, information-set MCTS): the same results
for a seed on any thread count and chunk size, only legal and allowed actions, the run's
statistics untouched by simulations, replay equal to the fast path, no peeking at what the
searcher cannot see, and the winning play found when one exists."""

from __future__ import annotations

import numpy as np
import pytest

from kernels.samurai_card_game import rules as K
from kernels.samurai_card_game import search_hooks as H
from kernels.samurai_card_game import search_play as SP
from kernels.samurai_card_game.stats import Misc
from simcli.errors import UserError
from tests.naive_card_game import BUDDHA, HELMET, RICE
from tests.search_checks import check_policy_names, check_same_on_one_or_two_threads, play_in_chunks
from tests.test_samurai_card_game_play import copy_state, hide
from tests.test_samurai_card_game_rules import CONTENT, GAME, KBoard, mask_of

SEATS = ("mcts:8", "greedy")


def prepared(seats=SEATS, rules=()):
    return GAME.prepare(CONTENT, len(seats), tuple(seats), GAME.resolve_rules(list(rules)))


def chunked(sizes, seats=SEATS, seed=3, rotation=0, forbid=None, rules=()):
    """Aggregates and rows of games 0..sum(sizes)-1 played in chunks of `sizes`."""
    return play_in_chunks(GAME, prepared(seats, rules), sizes, seed, rotation, forbid)


def handle(seats, seed=1, playout=0, rotation=0, rules=()):
    return GAME.handle(prepared(seats, rules), seed, playout, rotation)


def test_policy_names_parse_and_bad_ones_are_refused():
    check_policy_names(GAME, ("uct",))
    assert "Information-set" in GAME.describe_policy("mcts")
    assert prepared(("greedy", "mcts:5", "random")).policies.tolist() == [1, SP.MCTS, 0]
    with pytest.raises(UserError):
        prepared(("greedy", "mcts:x"))


def test_same_seed_same_results_for_any_chunks_and_the_searcher_matters():
    a, rows_a = chunked([4])
    b, rows_b = chunked([1, 3])
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert np.array_equal(rows_a, rows_b)
    _, rows_c = chunked([4], seed=4)
    assert not np.array_equal(rows_a, rows_c)
    _, rows_g = chunked([4], seats=("greedy", "greedy"))
    assert not np.array_equal(rows_a, rows_g)  # the searching seat plays otherwise


def test_same_statistics_on_one_or_two_threads_mirrored():
    check_same_on_one_or_two_threads(GAME, prepared(), SEATS, 4, (4, 1))


def test_simulations_do_not_reach_the_run_statistics():
    aggs, rows = chunked([3], seats=("mcts:6", "greedy", "random"))
    assert aggs["outcome"].sum() == 3
    turns = aggs["misc"][Misc.TURNS]
    assert turns == aggs["lengths"] @ np.arange(len(aggs["lengths"])) == rows[:, 2].sum()
    assert aggs["kinds"][:, 0].sum() == turns  # cards played (KindStat.PLAYED)


def test_every_search_action_is_legal_and_replay_equals_the_fast_path():
    seats = ("mcts:10", "mcts:6:rollout=random", "greedy")
    rules = ("villages=see-all",)
    _, rows = chunked([2], seats=seats, seed=2, rotation=1, rules=rules)
    h = handle(seats, seed=2, playout=1, rotation=1, rules=rules)
    searched = 0
    while not h.is_over():
        legal = h.legal_actions()
        a = h.choose()
        assert a in legal
        searched += h.current_player() != 0  # seats 2 and 3 hold the searchers (rotation 1)
        h.apply(a)
    assert searched > 10
    assert list(h.row().values()) == rows[1].tolist()


def test_forbidden_options_are_honoured():
    h = handle(("mcts:10", "greedy"), seed=6)
    h.forbid[0, HELMET] = True
    mattered = 0
    while not h.is_over():
        if h.current_player() == 0 and h.counters()["phase"] == K.PLAY:
            legal = h.legal_actions()
            allowed = [a for a in legal if K.py_option_of(h.st, a) != HELMET]
            a = h.choose()
            assert a in (allowed or legal)
            mattered += 0 < len(allowed) < len(legal)
        h.step()
    assert mattered > 0  # the ban left out some of the plays at some decision
    forbid = np.zeros((2, len(K.OPTIONS)), np.bool_)
    forbid[0, HELMET] = True
    _, rows = chunked([1], seats=("mcts:10", "greedy"), seed=6, forbid=forbid)
    assert list(h.row().values()) == rows[0].tolist()  # the fast path bans alike
    _, free = chunked([1], seats=("mcts:10", "greedy"), seed=6)
    assert not np.array_equal(rows, free)


def search_root(h):
    """A function giving the handle's search choice for the seat to act in another state,
    in the same workspace and with the same stream (the search entry's own decision)."""

    def choose(st):
        return h.k.decide(st, h.playout, h.decisions)
    return choose


@pytest.mark.parametrize(("seats", "rules"), [
    (("mcts:24:rollout=random", "greedy"), ()),
    (("greedy", "mcts:16", "random", "greedy"), ("villages=see-all",)),
])
def test_no_peeking_hidden_cards_shuffled_consistently_give_the_same_choice(seats, rules):
    """Deal the cards the searcher cannot see otherwise (each rival's hand and pile
    together, its own pile, the village deck below what it sees): the same choice."""
    rng = np.random.default_rng(3)
    searcher = next(i for i, s in enumerate(seats) if s.startswith("mcts"))
    checked = differs = 0
    for playout in range(2):
        h = handle(seats, seed=8, playout=playout, rules=rules)
        while not h.is_over():
            if h.current_player() == searcher and len(h.legal_actions()) > 1:
                choose = search_root(h)
                real = choose(h.st)
                for _ in range(2):
                    other = copy_state(h.st)
                    hide(other, rng)
                    differs += not np.array_equal(other.hands, h.st.hands)
                    assert choose(other) == real
                    checked += 1
            h.step()
    assert checked > 10 and differs > 0


def test_the_search_takes_the_winning_play():
    """Seat 1 needs the helmet marker of the village at (0, 0), tied 3-3 on its last side
    (-1, 0): its helmet 2 there wins two shapes and empties the helmet supply (the game
    ends); anything else lets seat 2 take it with its helmet 4 and win."""
    for budget in (40, 100):
        b = KBoard(players=2, deck=[mask_of(BUDDHA)] * 6,
                   seats=(f"mcts:{budget}:rollout=random", "greedy"), seed=budget)
        b.village(0, 0, HELMET)
        b.village(4, 0, HELMET, BUDDHA)
        b.card(0, 1, 0, HELMET, 3)
        b.card(0, -1, 1, HELMET, 3)
        b.card(1, 0, 1, BUDDHA, 2)
        b.give(0, (RICE, 2), (HELMET, 2), (BUDDHA, 1))
        b.give(1, (HELMET, 4))
        b.taken[0, :] = (4, 0, 5)
        b.taken[1, :] = (4, 5, 0)
        b.st.rem[:] = (1, 6, 6)
        h = b.h
        legal = h.legal_actions()
        wins = [a for a in legal if a & K.CELL_MASK == b.at(-1, 0)
                and K.py_option_of(h.st, a) == HELMET]
        assert len(wins) == 1 and len(legal) > 8
        assert h.choose() == wins[0]


def test_simulated_moves_are_counted_and_benched():
    from simcli.bench import bench_search

    prep = prepared()
    aggs = GAME.new_aggregates(prep)
    moves = GAME.run_search_chunk(prep, 1, 0, 1, aggs, np.zeros((0, 22), np.int64), 0,
                                  np.zeros((2, 4), np.bool_))
    assert moves > 8 * aggs["misc"][Misc.TURNS] / 2  # 8 simulations of a move or more
    res = bench_search(GAME, seconds=0.01, repeats=1)
    assert res["moves_per_s"]["median"] > 0 and "mcts:100" in res["what"]


def test_the_evaluation_of_a_cut_rollout_favours_the_seat_dominating_most():
    """evaluate (used when rollouts are cut short): win chances summing to 1 over the
    seats, highest for the seat dominating two shapes, following the markers when seats
    swap them, and counting a lead on a village not scored yet."""
    b = KBoard(players=3, deck=[mask_of(HELMET)] * 4)
    b.village(0, 0, RICE)
    ss = H.wrap(b.st, b.forbid, 0)
    out = np.zeros(4)

    def chances(taken):
        b.taken[:3, :] = taken
        H.search_evaluate(ss, out)
        return out.copy()

    p = chances([(3, 3, 0), (1, 0, 2), (0, 1, 1)])
    assert p.sum() == pytest.approx(1.0) and p[3] == 0.0
    assert p[0] > max(p[1], p[2])
    q = chances([(1, 0, 2), (3, 3, 0), (0, 1, 1)])
    assert q[1] == pytest.approx(p[0]) and q[0] == pytest.approx(p[1])
    even = chances([(1, 1, 1)] * 3)
    b.card(1, 0, 2, RICE, 3)  # seat 3 leads the rice village at (0, 0)
    lead = chances([(1, 1, 1)] * 3)
    assert even[2] == pytest.approx(1 / 3) and lead[2] > even[2]


def test_root_plays_are_the_same_in_every_determinization():
    """The premise of registering the hooks with fixed_root (the root's actions listed
    once per decision): after clone and determinize, the searcher's scratch lists the
    real state's actions (card plays by key and cell, placements)."""
    from simcli.registry import GAMES

    game = GAMES["samurai-card-game"]
    h = game.new_game(seed=5, playout=2, seats=("mcts:12",) + ("greedy",) * 3)
    buf = np.zeros(H.max_actions(h.st), np.int64)
    checked = 0
    while not h.is_over() and checked < 40:
        me = h.current_player()
        if me == 0:
            root = H.root_of(h.st, h.ws.scratch)
            real = sorted(buf[:H.search_legal(root, buf)])
            for _ in range(3):
                H.clone_state(h.ws.scratch, root)
                H.determinize_state(h.ws.scratch, me, h.ws.stream[0])
                assert sorted(buf[:H.search_legal(h.ws.scratch, buf)]) == real
            checked += 1
        h.step()
    assert checked >= 10
