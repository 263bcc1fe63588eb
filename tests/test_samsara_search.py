"""Samsara's search player (mcts): the same results for a seed on any thread count and
chunk size, only legal and allowed turns, the run's statistics untouched by simulations,
replay equal to the fast path, and the winning turn found when one exists."""

import numpy as np
import pytest

from kernels.samsara import rules as R
from kernels.samsara.stats import TABLE
from kernels.stat_table import zeros
from simcli.games.samsara import Samsara, hollows_of
from tests.search_checks import check_policy_names, check_same_on_one_or_two_threads, play_in_chunks

GAME = Samsara()
CONTENT = GAME.load_content(GAME.content_path(None))
SEATS = ("mcts:12", "greedy")
ROUND, SQUARE = 0, 1


def prepared(seats=SEATS, rules=()):
    return GAME.prepare(CONTENT, 2, tuple(seats), GAME.resolve_rules(list(rules)))


def chunked(sizes, seats=SEATS, seed=3, rotation=0, forbid=None):
    """Aggregates and rows of playouts 0..sum(sizes)-1 played in chunks of `sizes`."""
    return play_in_chunks(GAME, prepared(seats), sizes, seed, rotation, forbid)


def test_policy_names_parse_and_bad_ones_are_refused():
    check_policy_names(GAME)


def test_same_seed_same_results_for_any_chunks_and_rotation_moves_the_searcher():
    a, rows_a = chunked([6])
    b, rows_b = chunked([2, 1, 3])
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert np.array_equal(rows_a, rows_b)
    c, _ = chunked([6], seed=4)
    assert not np.array_equal(a["length"], c["length"])
    # the searcher really searches: its seat's games differ from greedy against greedy
    g, _ = chunked([6], seats=("greedy", "greedy"))
    assert not np.array_equal(a["length"], g["length"])


def test_same_statistics_on_one_or_two_threads_mirrored():
    check_same_on_one_or_two_threads(GAME, prepared(), SEATS, 8, (8, 3))


def test_simulations_do_not_reach_the_run_statistics():
    aggs, _ = chunked([3])
    assert aggs["wins"].sum() == 3 and aggs["misc"][1] == 3  # 3 playouts, 3 games
    assert aggs["misc"][0] == aggs["game_len"] @ np.arange(len(aggs["game_len"]))


def handle(seats, seed=1, playout=0, rotation=0):
    return GAME.handle(prepared(seats), seed, playout, rotation)


def test_every_search_turn_is_legal_and_replay_equals_the_fast_path():
    seats = ("mcts:10", "mcts:6:rollout=random")
    _, rows = chunked([2], seats=seats, seed=2, rotation=1)
    h = handle(seats, seed=2, playout=1, rotation=1)
    while not h.is_over():
        legal = h.legal_actions()
        a = h.choose()
        assert a in legal
        h.apply(a)
    assert list(h.row().values()) == rows[1].tolist()


def test_forbidden_options_are_honoured():
    h = handle(("mcts:10", "greedy"), seed=6)
    h.forbid_option(0, "own-goal")
    chosen = 0
    while not h.is_over():
        if h.current_player() == 0:
            legal = h.legal_actions()
            allowed = [a for a in legal if h.option_of(a) != "own-goal"]
            a = h.choose()
            assert a in (allowed or legal)
            chosen += len(allowed) < len(legal)
        h.step()
    assert chosen > 0  # the ban mattered at some decision
    forbid = np.zeros((2, R.N_OPTIONS), np.bool_)
    forbid[0, R.OPT_OWN_GOAL] = True
    aggs, _ = chunked([4], seats=("mcts:8", "greedy"), forbid=forbid)
    assert aggs["goal_moves"][0, 0] == 0  # seat 1 never scored for itself


WIN_POS = frozenset([(ROUND, 20), (ROUND, 3), (ROUND, 9), (ROUND, 14), (SQUARE, 2),
                     (SQUARE, 7), (SQUARE, 11), (SQUARE, 16), (SQUARE, 22)])


@pytest.mark.parametrize("budget", [40, 100])
def test_the_search_takes_a_win_in_one(budget):
    """Seat 1 (round) needs one more goal, and the 5 of its roll takes the marble on round
    20 in; both seats are one goal short."""
    h = handle((f"mcts:{budget}:rollout=random", "greedy"), seed=budget)
    h.set_position(WIN_POS, goals=(5, 5), to_move=0, dice=(5, 2))
    legal = h.legal_actions()
    wins = [a for a in legal if hollows_of(a & R.KEY_MASK)[1][0] == 6]
    assert wins and len(wins) < len(legal)
    assert h.choose() in wins


def test_workspace_counts_simulated_moves():
    prep = prepared()
    aggs = zeros(TABLE, GAME.sizes(prep))
    moves = GAME.run_search_chunk(prep, 1, 0, 1, aggs, np.zeros((0, 13), np.int64), 0,
                                  np.zeros((2, R.N_OPTIONS), np.bool_))
    turns = int(aggs["misc"][0])
    assert moves > turns  # 12 simulations of at least one move per searched decision


def test_bench_reports_the_search_players_simulated_moves():
    from simcli.bench import bench_search

    res = bench_search(GAME, seconds=0.05, repeats=2)
    m = res["moves_per_s"]
    assert 0 < m["min"] <= m["median"] <= m["max"] and "mcts:100" in res["what"]


def test_root_turns_are_the_same_in_every_determinization():
    """The premise of registering Samsara's hooks with fixed_root (the root's turns listed
    once per decision): after clone and determinize, the scratch lists the real state's
    turns, with and without a forbidden option."""
    from kernels.samsara import search_hooks as H
    from simcli.games.samsara import SEARCH_TOP_K

    h = GAME.new_game(seed=5, playout=1, seats=SEATS)
    h.forbid[0, 0] = True  # a forbidden option changes the list, not its stability
    checked = 0
    buf = np.zeros(R.MAX_SEQ, np.int64)
    while not h.is_over() and checked < 12:
        root = H.wrap(h.st, h.forbid, SEARCH_TOP_K)
        real = sorted(buf[:H.search_legal(root, buf)])
        me = int(R.to_move(h.st))
        for _ in range(3):
            H.clone_state(h.ws.scratch, root)
            H.search_determinize(h.ws.scratch, me, h.ws.stream[0])
            assert sorted(buf[:H.search_legal(h.ws.scratch, buf)]) == real
            assert not np.array_equal(h.ws.scratch.st.rng, h.st.rng)  # really resampled
        checked += 1
        h.step()
    assert checked == 12
