"""Samsara kernel: every movement rule on hand-built positions, agreement with the slow
reference generator, the random policy's sampler (multiplicities, uniformity), invariants of
whole games, match scoring for each branch, seat rotation (each player's own dice)."""

import random

import numpy as np
import pytest
import scipy.stats

from kernels.jit import kernel
from kernels.rng import die, new_states, seed_lanes, stream_states
from kernels.samsara import play as PL
from kernels.samsara import rules as R
from kernels.samsara.players import GREEDY, RANDOM, TRIES
from kernels.samsara.stats import End, Misc
from simcli.games.samsara import Samsara, hollows_of, key_of, step_table
from tests import naive_samsara as N

GAME = Samsara()
CONTENT = GAME.load_content(GAME.content_path(None))
ROUND, SQUARE = 0, 1


def prepared(seats=("greedy", "greedy"), **rules):
    chosen = GAME.resolve_rules([f"{k.replace('_', '-')}={v}" for k, v in rules.items()])
    return GAME.prepare(CONTENT, 2, tuple(seats), chosen)


def naive_rules(**rules) -> N.Rules:
    return N.Rules(**{k: v for k, v in rules.items() if k != "match"})


def handle(seats=("greedy", "greedy"), seed=1, playout=0, rotation=0, **rules):
    """A step-by-step game (simcli.games.samsara.SamsaraHandle) at its first decision."""
    return GAME.handle(prepared(seats, **rules), seed, playout, rotation)


def legal_turns(h):
    """The handle's legal turns as a set of (hollows, goals); Moksha gives the empty set."""
    return {hollows_of(a & R.KEY_MASK) for a in h.legal_actions() if not a & R.MOKSHA}


def turns(hollows, a, b, mover=0, goals=(0, 0), **rules):
    """Legal turns as a set of (hollows, goals), checked against the naive generator."""
    h = handle(**rules)
    h.set_position(hollows, goals, to_move=mover, dice=(a, b))
    out = legal_turns(h)
    assert out == N.turns(hollows, goals, mover, a, b, naive_rules(**rules))
    return out


def h(lane, cell):
    return lane * R.LANE + cell - 1


def move(hollows, origin, start, d, mover=0, goals=(0, 0), **rules):
    """One die's move of the marble on `origin` counted from `start`: (hollows, goals) or
    None when illegal."""
    prep = prepared(**rules)
    k, _land, _owner = R.move_one(key_of(hollows, goals), h(*origin), h(*start), d, mover,
                                  prep.step, prep.pi)
    return None if k < 0 else hollows_of(int(k))


def after(hollows, remove, add):
    return frozenset(set(hollows) - set(remove) | set(add))


FAR = [(SQUARE, 9), (SQUARE, 10)]  # marbles out of the way of the examples below


def test_board_pairs_and_start_position():
    for k in range(1, 13):  # round k pairs with square 12+k, square k with round 12+k
        assert R.PARTNER[h(ROUND, k)] == h(SQUARE, 12 + k)
        assert R.PARTNER[h(SQUARE, k)] == h(ROUND, 12 + k)
    assert all(R.PARTNER[R.PARTNER[x]] == x for x in range(R.N_HOLLOW))
    prep = prepared()
    start = hollows_of(R.start_key(prep.start_cells))
    assert start == (N.start_position(), (0, 0))
    # seat 0's side (South): round 13-24 and square 1-12; the start is 6 marbles a side
    assert sum(N.side_of(x) == 0 for x in start[0]) == 6


def test_marbles_pass_over_marbles():
    pos = frozenset([(ROUND, 1), (ROUND, 2), (ROUND, 3), *FAR])
    assert move(pos, (ROUND, 1), (ROUND, 1), 3) == (after(pos, [(ROUND, 1)], [(ROUND, 4)]),
                                                    (0, 0))


def test_landing_on_occupied_hollow_moves_to_the_free_other_half():
    pos = frozenset([(ROUND, 1), (ROUND, 4), *FAR])
    # round 4 is taken: the marble ends on square 16, the other half of that double field
    assert move(pos, (ROUND, 1), (ROUND, 1), 3) == (after(pos, [(ROUND, 1)],
                                                          [(SQUARE, 16)]), (0, 0))


def test_landing_on_a_full_double_field_is_illegal():
    pos = frozenset([(ROUND, 1), (ROUND, 4), (SQUARE, 16), *FAR])
    assert move(pos, (ROUND, 1), (ROUND, 1), 3) is None


def test_free_landing_stays_in_its_lane():
    pos = frozenset([(ROUND, 1), (SQUARE, 16), *FAR])  # only the other half is taken
    assert move(pos, (ROUND, 1), (ROUND, 1), 3) == (after(pos, [(ROUND, 1)], [(ROUND, 4)]),
                                                    (0, 0))


def test_lane_change_at_the_start_only_from_a_full_double_field():
    full = frozenset([(ROUND, 5), (SQUARE, 17), *FAR])
    # either marble may count from the other lane, starting at the next field
    assert move(full, (ROUND, 5), (SQUARE, 17), 2) == (after(full, [(ROUND, 5)],
                                                             [(SQUARE, 19)]), (0, 0))
    assert move(full, (SQUARE, 17), (ROUND, 5), 2) == (after(full, [(SQUARE, 17)],
                                                             [(ROUND, 7)]), (0, 0))
    res = turns(full, 2, 2)
    assert (after(full, [(ROUND, 5)], [(SQUARE, 21)]), (0, 0)) in res  # 2 + 2 from square
    alone = frozenset([(ROUND, 5), *FAR])
    moved = {x for x, _g in turns(alone, 2, 2)}
    assert after(alone, [(ROUND, 5)], [(SQUARE, 21)]) not in moved  # no full field


def test_arc_is_one_ordinary_step_by_default():
    """Reading (sheet DECISION): cell 12 -> 13 is one pip; cell k needs 25 - k to score."""
    pos = frozenset([(ROUND, 12), *FAR])
    assert move(pos, (ROUND, 12), (ROUND, 12), 1) == (after(pos, [(ROUND, 12)],
                                                            [(ROUND, 13)]), (0, 0))
    assert move(pos, (ROUND, 12), (ROUND, 12), 1, arc="extra-step") is None  # on the arc
    assert move(pos, (ROUND, 12), (ROUND, 12), 2, arc="extra-step") == (
        after(pos, [(ROUND, 12)], [(ROUND, 13)]), (0, 0))
    step, extra = step_table("step"), step_table("extra-step")
    for cell in range(1, 25):  # pips needed to score from each cell
        need = [d for d in range(1, 13) if step[cell - 1, d] == R.GOAL]
        assert need == ([25 - cell] if 25 - cell <= 12 else [])
        need = [d for d in range(1, 13) if extra[cell - 1, d] == R.GOAL]
        want = (26 - cell) if cell <= 12 else 25 - cell
        assert need == ([want] if want <= 12 else [])


def test_exact_goal_entry_scores_and_overshoot_is_illegal():
    pos = frozenset([(ROUND, 21), *FAR])
    scored = move(pos, (ROUND, 21), (ROUND, 21), 4)
    assert scored == (after(pos, [(ROUND, 21)], [(ROUND, 1)]), (1, 0))  # re-enters far side
    assert move(pos, (ROUND, 21), (ROUND, 21), 5) is None
    # the square player's marble scores in the square goal
    pos = frozenset([(SQUARE, 24), *FAR])
    assert move(pos, (SQUARE, 24), (SQUARE, 24), 1, mover=1) == (
        after(pos, [(SQUARE, 24)], [(SQUARE, 1)]), (0, 1))


def test_opponent_goal_is_forbidden_by_default_or_scores_for_its_owner():
    pos = frozenset([(SQUARE, 22), *FAR])
    assert move(pos, (SQUARE, 22), (SQUARE, 22), 3, mover=0) is None
    assert move(pos, (SQUARE, 22), (SQUARE, 22), 3, mover=0,
                opponent_goal="scores-for-owner") == (
        after(pos, [(SQUARE, 22)], [(SQUARE, 1)]), (0, 1))  # the goal's owner scores


def test_re_entry_first_free_double_space_by_default_or_lowest_empty_hollow():
    """Rulebook: 'the first free double space on the opposite side' (default both-empty)."""
    pos = frozenset([(ROUND, 22), (ROUND, 1), (SQUARE, 14), *FAR])
    # round 1 taken; round 2 empty but its other half (square 14) is taken
    assert move(pos, (ROUND, 22), (ROUND, 22), 3) == (
        after(pos, [(ROUND, 22)], [(ROUND, 3)]), (1, 0))
    assert move(pos, (ROUND, 22), (ROUND, 22), 3, re_entry="lowest-empty") == (
        after(pos, [(ROUND, 22)], [(ROUND, 2)]), (1, 0))
    # through the handle: the 3 enters the goal, the 1 then moves the marble that came back
    via_3 = (after(pos, [(ROUND, 22)], [(ROUND, 4)]), (1, 0))  # back on 3, on to 4
    via_2 = (after(pos, [(ROUND, 22)], [(ROUND, 3)]), (1, 0))  # back on 2, on to 3
    res = turns(pos, 3, 1)
    low = turns(pos, 3, 1, re_entry="lowest-empty")
    assert via_3 in res and via_2 not in res
    assert via_2 in low and via_3 not in low


def test_opponent_goal_allowed_scores_nothing():
    """Third reading: a marble may enter the opponent's goal; nobody scores, and it comes
    back on the far side as after a goal."""
    pos = frozenset([(SQUARE, 22), *FAR])
    rule = {"opponent_goal": "allowed-scores-nothing"}
    entered = (after(pos, [(SQUARE, 22)], [(SQUARE, 1)]), (0, 5))
    assert move(pos, (SQUARE, 22), (SQUARE, 22), 3, goals=(0, 5), **rule) == entered
    # through the handle: it is a legal turn that scores nothing and so cannot decide
    res = turns(pos, 3, 3, goals=(0, 5), **rule)
    assert all(g == (0, 5) for _x, g in res)
    assert any((SQUARE, 22) not in x and (SQUARE, 1) in x for x, _g in res)
    assert all((SQUARE, 22) in x for x, _g in turns(pos, 3, 3, goals=(0, 5)))
    # its own goal still scores
    own = frozenset([(ROUND, 22), *FAR])
    assert move(own, (ROUND, 22), (ROUND, 22), 3, **rule)[1] == (1, 0)


def test_lane_checks_apply_to_each_die_or_to_the_whole_move():
    """Reading (sheet DECISION): each die is a move with its own landing checks."""
    pos = frozenset([(ROUND, 1), (ROUND, 3), *FAR])
    # the 2 lands on the taken round 3 and changes to square 15; the 3 goes on to square 18
    via_lane_change = after(pos, [(ROUND, 1)], [(SQUARE, 18)])
    assert via_lane_change in {x for x, _g in turns(pos, 2, 3)}
    # one move of 5 is checked only where it ends (round 6): no lane change on the way
    whole = {x for x, _g in turns(pos, 2, 3, same_marble="whole-move")}
    assert via_lane_change not in whole
    assert after(pos, [(ROUND, 1)], [(ROUND, 6)]) in whole


def test_a_die_that_wins_ends_the_turn():
    pos = frozenset([(ROUND, 24), *FAR])
    res = turns(pos, 1, 3, goals=(5, 2))
    won = (after(pos, [(ROUND, 24)], [(ROUND, 1)]), (6, 2))
    assert won in res  # the 3 is not played after the winning 1


# Hand-built, 12 marbles, the round player to move with 6-6: every 6 lands on a full
# double field, overshoots, or (square 19) would enter the opponent's goal.
MOKSHA = frozenset([(ROUND, 2), (ROUND, 8), (ROUND, 14), (ROUND, 20), (ROUND, 22),
                    (ROUND, 23), (SQUARE, 2), (SQUARE, 8), (SQUARE, 14), (SQUARE, 19),
                    (SQUARE, 20), (SQUARE, 21)])


def test_no_legal_move_is_moksha():
    assert turns(MOKSHA, 6, 6) == set()
    # with opponent-goal=scores-for-owner square 19 may enter the square goal
    assert turns(MOKSHA, 6, 6, opponent_goal="scores-for-owner")


def test_only_one_die_playable_is_played():
    """Reading (sheet DECISION): if no order plays both dice, the playable die is played."""
    pos = (MOKSHA - {(SQUARE, 19)}) | {(ROUND, 18)}  # round 18 + 6 = round 24, then stuck
    one = (after(pos, [(ROUND, 18)], [(ROUND, 24)]), (0, 0))
    assert turns(pos, 6, 6) == {one}
    assert turns(pos, 6, 6, single_die="moksha") == set()


def test_either_die_higher_die_or_moksha_when_both_cannot_be_played():
    """Sheet silent on which die when each could be played alone: default either."""
    pos = frozenset([(SQUARE, 18)])  # one marble: 5 -> 23 or 6 -> 24, never both
    five = (frozenset([(SQUARE, 23)]), (0, 0))
    six = (frozenset([(SQUARE, 24)]), (0, 0))
    assert turns(pos, 5, 6) == {five, six}
    assert turns(pos, 5, 6, single_die="play-higher") == {six}
    assert turns(pos, 5, 6, single_die="moksha") == set()
    pos = frozenset([(SQUARE, 19)])  # 6 would enter the opponent's goal: only the 5
    assert turns(pos, 5, 6, single_die="play-higher") == {
        (frozenset([(SQUARE, 24)]), (0, 0))}


RULE_SETS = [
    {},
    {"opponent_goal": "scores-for-owner", "re_entry": "lowest-empty"},
    {"opponent_goal": "allowed-scores-nothing"},
    {"arc": "extra-step", "same_marble": "whole-move", "single_die": "play-higher"},
    {"single_die": "moksha", "opponent_goal": "scores-for-owner", "same_marble": "whole-move"},
]


def random_position(rng):
    """12 marbles: uniform, crowded near the goals, or a few marbles only."""
    cells = [(lane, k) for lane in (0, 1) for k in range(1, 25)]
    kind = rng.random()
    if kind < 0.4:
        hs = rng.sample(cells, 12)
    elif kind < 0.8:
        near = [c for c in cells if c[1] >= 15 or c[1] <= 3]
        hs = rng.sample(near, 12)
    else:
        hs = rng.sample(cells, rng.randint(1, 5))
    goals = [rng.randint(0, 5), rng.randint(0, 5)]
    if rng.random() < 0.25:  # a track at the centre (a match's extra turn): no early end
        goals[rng.randint(0, 1)] = N.WIN
    return frozenset(hs), tuple(goals)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_kernel_agrees_with_the_naive_generator(rules):
    game = handle(**rules)
    nr = naive_rules(**rules)
    rng = random.Random(11)
    for _ in range(120):
        hs, goals = random_position(rng)
        mover = rng.randint(0, 1)
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        game.set_position(hs, goals, to_move=mover, dice=(a, b))
        assert legal_turns(game) == N.turns(hs, goals, mover, a, b, nr)


def traced(seats, seed, index, rotation=0, **rules):
    """One whole playout stepped through the handle: its turns as rows (key before, mover,
    die a, die b, key after), each checked to be a legal action, and the finished handle."""
    game = handle(seats, seed, index, rotation, **rules)
    rows = []
    while not game.is_over():
        before, mover = game.key, game.current_player()
        a, b = (int(x) for x in game.st.dice)
        legal = game.legal_actions()
        action = game.choose()
        assert action in legal  # every policy only ever chooses a legal action
        game.apply(action)
        if not action & R.MOKSHA:
            rows.append((before, mover, a, b, int(action & R.KEY_MASK)))
    return game, np.array(rows, np.int64).reshape(-1, 5)


@pytest.mark.parametrize(("seats", "rules"), [
    (("random", "random"), {}),
    (("greedy", "random"), {"opponent_goal": "scores-for-owner", "re_entry": "both-empty"}),
    (("greedy", "greedy"), {"arc": "extra-step", "same_marble": "whole-move"}),
    (("random", "greedy"), {"match": "competition"}),
    (("lookahead", "random"), {"single_die": "play-higher"}),
])
def test_invariants_of_whole_games(seats, rules):
    for index in range(8):
        game, trace = traced(seats, 5, index, **rules)
        st = game.st
        assert (st.game_end[:1] != End.CAPPED).all()  # the games ended by the rules
        assert len(trace) == st.ply[0] == st.game_turns.sum()
        prev = trace[0, 0]
        for t, (before, mover, a, b, key) in enumerate(trace):
            assert before == prev or (rules.get("match") and t == st.game_turns[0])
            assert mover == t % 2 or rules.get("match")  # turns alternate in a single game
            assert 1 <= a <= 6 and 1 <= b <= 6
            hs, goals = hollows_of(int(key))
            old = hollows_of(int(before))[1]
            assert len(hs) == 12  # 12 marbles on 12 distinct hollows after every turn
            assert all(0 <= goals[p] - old[p] <= 2 for p in range(2))  # tracks move forward
            prev = key
        final = hollows_of(int(st.game_key[0]))[1]
        if st.game_end[0] == End.DIRECT:
            w = st.game_winner[0]
            assert final[w] == 6 and final[1 - w] < 6


def test_traced_turns_are_legal_for_the_naive_generator():
    _game, trace = traced(("random", "random"), 9, 0)
    for before, mover, a, b, key in trace[::7]:
        hs, goals = hollows_of(int(before))
        assert hollows_of(int(key)) in N.turns(hs, goals, int(mover), int(a), int(b))


def scripted(key, starter, script, seats=("greedy", "greedy"), **rules):
    """Play game `starter` of a playout (seat `starter` starts it) from position `key`,
    the first turns rolling the dice of `script`, until that game ends: (End code, winning
    seat, turns, final key, (points of seat 0, seat 1))."""
    game = handle(seats, **rules)
    hs, goals = hollows_of(key)
    game.set_position(hs, goals, to_move=starter, game=starter)
    st = game.st
    for t in range(1000):
        if st.game_end[starter] >= 0:
            break
        if t < len(script):
            game.set_dice(*script[t])
        game.step()
    pts = tuple(int(p) for p in st.points)
    return (int(st.game_end[starter]), int(st.game_winner[starter]),
            int(st.game_turns[starter]), int(st.game_key[starter]), pts)


# Both scoring marbles one goal from the centre; a marble one pip from each goal.
NEAR = [(ROUND, 24), (SQUARE, 24), (ROUND, 5), (ROUND, 6), (SQUARE, 5), (SQUARE, 6)]


def test_match_non_starter_reaching_the_centre_wins_by_the_starters_distance():
    # with round 5-6 on the board greedy would block square 24 through round 12 (6-6)
    key = key_of([(ROUND, 24), (SQUARE, 24), (SQUARE, 5), (SQUARE, 6)], (4, 5))
    end, winner, _turns, final, pts = scripted(key, 0, [(6, 6), (1, 2)], match="competition")
    assert end == End.DIRECT and winner == 1
    assert list(pts) == [0, 6 - hollows_of(final)[1][0]]


def test_match_extra_turn_that_fails_gives_the_starter_the_distance():
    key = key_of(NEAR, (5, 3))
    end, winner, turns_, final, pts = scripted(key, 0, [(1, 2), (6, 6)], match="competition")
    assert end == End.EXTRA_FAIL and winner == 0 and turns_ == 2
    assert list(pts) == [6 - hollows_of(final)[1][1], 0]
    # in a single game the same first turn simply wins
    end, winner, turns_, _final, _pts = scripted(key, 0, [(1, 2)])
    assert end == End.DIRECT and winner == 0 and turns_ == 1


def test_match_both_at_the_centre_compares_marbles_on_each_side():
    key = key_of(NEAR, (5, 5))
    end, winner, _turns, final, pts = scripted(key, 0, [(1, 2), (1, 3)], match="competition")
    assert end == End.BOTH
    hs, goals = hollows_of(final)
    assert goals == (6, 6)
    south = sum(N.side_of(x) == 0 for x in hs)
    north = len(hs) - south
    assert list(pts) == [max(south - north, 0), max(north - south, 0)]
    assert winner == (-1 if south == north else (0 if south > north else 1))


def test_match_scoring_helper_for_each_branch():
    pi = prepared(match="competition").pi
    even = key_of([(ROUND, 13), (ROUND, 1)], (6, 6))  # one marble on each side
    assert R.game_points(End.BOTH, -1, even, pi) == (0, 0)  # equal: a draw, no points
    south = key_of([(ROUND, 13), (SQUARE, 1), (SQUARE, 24)], (6, 6))
    assert R.game_points(End.BOTH, 0, south, pi) == (1, 0)
    assert R.game_points(End.MOKSHA, -1, south, pi) == (4, 4)
    assert R.game_points(End.EXTRA_FAIL, 1, key_of([], (2, 6)), pi) == (0, 4)
    assert R.game_points(End.DIRECT, 0, key_of([], (6, 1)), pi) == (5, 0)


def test_moksha_in_a_match_gives_four_points_each():
    end, winner, turns_, _final, pts = scripted(key_of(MOKSHA), 0, [(6, 6)], match="competition")
    assert end == End.MOKSHA and winner == -1 and turns_ == 0 and list(pts) == [4, 4]


# MOKSHA with the lanes swapped: the square player has no legal turn with 6-6
MOKSHA_SQUARE = frozenset((1 - lane, k) for lane, k in MOKSHA)


def test_match_moksha_in_the_extra_turn_is_a_four_four_draw_as_printed():
    """'Regardless of the scoring track, the game then ends immediately in a draw with four
    points for each player': a Moksha in the extra turn too (the default)."""
    game = handle(match="competition")
    game.set_position(MOKSHA_SQUARE, (6, 3), to_move=1, game=0, extra=True, dice=(6, 6))
    assert game.observation(1)["extra_turn"]
    assert game.legal_actions() == [R.MOKSHA]
    game.apply(R.MOKSHA)
    st = game.st
    assert st.game_end[0] == End.MOKSHA and st.game_winner[0] == -1
    assert list(st.points) == [4, 4]
    assert st.aggs.misc[Misc.EXTRA_MOKSHA] == 1


def test_match_moksha_in_the_extra_turn_can_leave_the_start_player_the_winner():
    """extra-turn-moksha=start-player-wins: the start player is already at the centre, so
    a Moksha in the extra turn is a failed extra turn (distance points)."""
    game = handle(match="competition", extra_turn_moksha="start-player-wins")
    game.set_position(MOKSHA_SQUARE, (6, 3), to_move=1, game=0, extra=True, dice=(6, 6))
    assert game.observation(1)["extra_turn"]
    assert game.legal_actions() == [R.MOKSHA]
    game.apply(R.MOKSHA)
    st = game.st
    assert st.game_end[0] == End.EXTRA_FAIL and st.game_winner[0] == 0
    assert list(st.points) == [6 - 3, 0]
    assert st.aggs.misc[Misc.EXTRA_MOKSHA] == 1
    # the same roll outside the extra turn: Moksha, a draw, 4 points each
    game = handle(match="competition", extra_turn_moksha="start-player-wins")
    game.set_position(MOKSHA_SQUARE, (5, 3), to_move=1, game=0, dice=(6, 6))
    game.apply(R.MOKSHA)
    assert game.st.game_end[0] == End.MOKSHA and list(game.st.points) == [4, 4]


def test_match_goal_for_the_start_player_on_the_other_players_turn_gives_no_extra_turn():
    """opponent-goal=scores-for-owner: the second player's marble brings the start
    player's track to the centre. Both have had as many turns: the game ends at once, the
    start player alone at the centre (no extra turn, least of all for the mover)."""
    rules = {"match": "competition", "opponent_goal": "scores-for-owner"}
    pos = [(ROUND, 24), *FAR]
    game = handle(**rules)
    game.set_position(pos, (5, 3), to_move=1, game=0, dice=(1, 2))
    scored = key_of([(ROUND, 1), *FAR], (6, 3))  # the 1 enters the round goal: decided
    assert scored in game.legal_actions()
    game.apply(scored)
    st = game.st
    assert st.game_end[0] == End.DIRECT and st.game_winner[0] == 0
    assert list(st.points) == [6 - 3, 0]
    assert st.game[0] == 1  # the match went on to its second game
    # the start player scoring the second player's last goal: that player wins at once
    game = handle(**rules)
    game.set_position([(SQUARE, 24), *FAR], (3, 5), to_move=0, game=0, dice=(1, 2))
    scored = key_of([(SQUARE, 1), (SQUARE, 9), (SQUARE, 10)], (3, 6))
    game.apply(scored)
    assert game.st.game_end[0] == End.DIRECT and game.st.game_winner[0] == 1
    assert list(game.st.points) == [0, 6 - 3]


def test_a_match_second_game_is_started_by_the_other_seat():
    """Competition: 'the starting player changes' between the two games of a match."""
    game = handle(("random", "random"), seed=2, match="competition")
    assert game.observation(0)["start_seat"] == 1 and game.current_player() == 0
    while game.st.game[0] == 0:
        game.step()
    obs = game.observation(1)
    assert obs["game"] == 2 and obs["start_seat"] == 2 and obs["to_move"] == 2
    assert obs["turns_this_game"] == 0


def first_dice(seed, index, lane):
    """The first roll a player on stream `lane` of playout (seed, index) makes."""
    states = stream_states(6, R.LANES)
    seed_lanes(states, np.uint64(seed), index)
    return [die(states[lane], 6), die(states[lane], 6)]


def test_each_player_rolls_its_own_dice_from_any_seat():
    """Player j draws from stream j: in rotation 0 the start player (seat 1) rolls stream
    0's first roll; in rotation 1 the players swap seats, so the start player is player 2
    and rolls stream 1's first roll, and the second seat rolls stream 0's."""
    seats = ("greedy", "random")
    for index in range(4):
        dice = {lane: first_dice(5, index, lane) for lane in (0, 1)}
        for rotation in (0, 1):
            _game, trace = traced(seats, 5, index, rotation=rotation)
            assert list(trace[0, 2:4]) == dice[rotation]  # seat 1's first turn
            assert list(trace[1, 2:4]) == dice[1 - rotation]  # seat 2's first turn
            assert list(trace[:2, 1]) == [0, 1]


def test_rotation_one_is_the_swapped_seating_with_swapped_streams():
    """run_chunk with seats (a, b) in rotation 1 plays, seed by seed, the game of seats
    (b, a) in which seat 1 rolls stream 1 and seat 2 stream 0 (the handle in rotation 1);
    the row's winner is a seat."""
    a, b = "greedy", "random"
    prep = prepared((a, b))
    rows = np.zeros((12, PL.N_ROW), np.int64)
    GAME.run_chunk(prep, 9, 0, 12, GAME.new_aggregates(prep), rows, rotation=1)
    plain = np.zeros((12, PL.N_ROW), np.int64)
    GAME.run_chunk(prepared((b, a)), 9, 0, 12, GAME.new_aggregates(prep), plain)
    for index in range(12):
        game, trace = traced((a, b), 9, index, rotation=1)
        assert list(game.st.pol) == [RANDOM, GREEDY]  # seat 1 plays b, seat 2 plays a
        st = game.st
        assert rows[index, PL.R_WINNER] == st.winner[0]
        assert rows[index, PL.R_GAME1 + PL.G_END] == st.game_end[0]
        assert rows[index, PL.R_GAME1 + PL.G_TURNS] == len(trace)
    assert (rows[:, PL.R_GAME1 + PL.G_TURNS] != plain[:, PL.R_GAME1 + PL.G_TURNS]).any()
    # the generic mirror turns seat wins into player wins: greedy wins from both seats
    assert (rows[:, PL.R_WINNER] == 1).mean() > 0.9


def test_greedy_beats_random_from_either_seat():
    prep = prepared(("greedy", "random"))
    for rotation in (0, 1):
        aggs = GAME.new_aggregates(prep)
        GAME.run_chunk(prep, 3, 0, 300, aggs, None, rotation=rotation)
        assert aggs["wins"].sum() == 300
        assert aggs["wins"][rotation] > 0.95 * 300  # greedy sits in seat rotation + 1


def test_a_match_rotates_as_a_whole():
    """In competition, rotation 1 puts player 1 in seat 2 for both games: it starts game 2.
    The match winner (a seat) is the row's winner; each game's winner is a seat too."""
    prep = prepared(("greedy", "random"), match="competition")
    for rotation in (0, 1):
        rows = np.zeros((40, PL.N_ROW), np.int64)
        aggs = GAME.new_aggregates(prep)
        GAME.run_chunk(prep, 4, 0, 40, aggs, rows, rotation=rotation)
        greedy_seat = rotation
        assert (rows[:, PL.R_WINNER] == greedy_seat).mean() > 0.9
        for g in (PL.R_GAME1, PL.R_GAME2):
            assert (rows[:, g + PL.G_WINNER] == greedy_seat).mean() > 0.8
        pts = rows[:, [PL.R_POINTS0, PL.R_POINTS1]]
        winner = np.where(pts[:, 0] > pts[:, 1], 0, np.where(pts[:, 1] > pts[:, 0], 1, -1))
        assert (winner == rows[:, PL.R_WINNER]).all()
        assert aggs["game_wins"].sum() == 80


@kernel(alloc=True)
def turn_counts(key, mover, a, b, step, pi, tgt, weights):
    """The distinct positions of the full turns (both dice) the listing gives, how many
    listed sequences leave each, and what `multiplicity` counts for each (empty when no
    order plays both dice)."""
    keys = np.zeros(R.MAX_SEQ, np.int64)
    vals = np.zeros(R.MAX_SEQ, np.int64)
    pos = np.zeros(R.MAX_MARBLES, np.int64)
    cand = np.zeros(R.MAX_CAND, np.int64)
    n_m = R.fill_pos(key, pos)
    n, full = R.list_turns(key, pos, n_m, mover, a, b, step, pi, weights, np.int64(0), keys,
                           vals)
    if not full:
        n = 0
    distinct = np.unique(keys[:n])
    listed = np.zeros(distinct.shape[0], np.int64)
    counted = np.zeros(distinct.shape[0], np.int64)
    for u in range(distinct.shape[0]):
        for i in range(n):
            if keys[i] == distinct[u]:
                listed[u] += 1
        counted[u] = R.multiplicity(distinct[u], key, a, b, mover, step, pi, tgt, cand)
    return distinct, listed, counted


@kernel(alloc=True)
def sample_turns(seed, key, mover, a, b, step, pi, tgt, count, tries):
    """`count` draws of sample_turn from one position (-1: gave up after `tries`)."""
    pos = np.zeros(R.MAX_MARBLES, np.int64)
    states = new_states(6, 1)
    seed_lanes(states, seed, 0)
    n_m = R.fill_pos(key, pos)
    cand = np.zeros(R.MAX_CAND, np.int64)
    out = np.zeros(count, np.int64)
    for i in range(count):
        out[i] = R.sample_turn(states[0], key, pos, n_m, mover, a, b, step, pi, tgt, cand,
                               tries)
    return out


def counts_of(key, mover, a, b, prep):
    return turn_counts(np.int64(key), np.int64(mover), np.int64(a), np.int64(b), prep.step,
                       prep.pi, R.move_table(prep.step), np.zeros(R.N_W, np.int64))


@pytest.mark.parametrize("rules", RULE_SETS)
def test_multiplicity_counts_every_listed_sequence(rules):
    """The random policy keeps a proposed sequence with probability 1 / multiplicity: the
    count must equal how many sequences the listing gives for each distinct position."""
    prep = prepared(**rules)
    rng = random.Random(17)
    checked = 0
    for _ in range(400):
        hs, goals = random_position(rng)
        mover = rng.randint(0, 1)
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        keys, listed, counted = counts_of(key_of(hs, goals), mover, a, b, prep)
        assert list(counted) == list(listed)
        checked += len(keys)
    assert checked > 5000


def sampled(key, mover, a, b, draws, seed=1, tries=TRIES, **rules):
    prep = prepared(**rules)
    keys, _l, _c = counts_of(key, mover, a, b, prep)
    got = sample_turns(np.uint64(seed), np.int64(key), np.int64(mover), np.int64(a),
                       np.int64(b), prep.step, prep.pi, R.move_table(prep.step),
                       np.int64(draws), np.int64(tries))
    return keys, got


# A crowded mid-game position with many coinciding sequences (lane changes, both orders)
CROWDED = frozenset([(ROUND, 3), (ROUND, 7), (ROUND, 8), (ROUND, 15), (ROUND, 19),
                     (ROUND, 20), (SQUARE, 4), (SQUARE, 8), (SQUARE, 15), (SQUARE, 19),
                     (SQUARE, 20), (SQUARE, 22)])


@pytest.mark.parametrize(("hollows", "dice", "rules"), [
    (N.start_position(), (3, 5), {}),
    (CROWDED, (2, 4), {}),
    (CROWDED, (3, 3), {}),
    (CROWDED, (1, 6), {"same_marble": "whole-move", "opponent_goal": "scores-for-owner"}),
    (frozenset([(ROUND, 21), (ROUND, 23), (SQUARE, 20), *FAR]), (1, 3), {}),
])
def test_random_turns_are_uniform_over_distinct_positions(hollows, dice, rules):
    """Every distinct position is drawn, none other, with counts a chi-square test accepts
    (fixed seeds: the check is deterministic)."""
    key = key_of(hollows, (2, 5))
    keys, got = sampled(key, 0, *dice, 300 * 60, **rules)
    # after TRIES rejected proposals the sampler gives up (-1; the game then draws from the
    # listed turns): rare, about 1 in 20,000 draws in the most crowded position
    assert len(keys) > 3 and (got == -1).sum() <= 3 and (got >= -1).all()
    got = got[got >= 0]
    counts = np.array([(got == k).sum() for k in keys])
    assert counts.sum() == len(got)  # nothing outside the legal turns
    expected = len(got) / len(keys)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert scipy.stats.chi2.sf(chi2, len(keys) - 1) > 1e-3, (chi2, len(keys))


def test_sampler_gives_up_to_the_listed_turns_when_no_order_plays_both_dice():
    one_die = (MOKSHA - {(SQUARE, 19)}) | {(ROUND, 18)}  # only one 6 can be played
    key = key_of(one_die)
    _keys, got = sampled(key, 0, 6, 6, 5)
    assert (got == -1).all()
    _keys, got = sampled(key_of(CROWDED), 0, 2, 4, 5, tries=0)
    assert (got == -1).all()
    # in a game the random player then draws from the listed turns: the single die move
    game = handle(("random", "random"))
    game.set_position(one_die, to_move=0, dice=(6, 6))
    (action,) = game.legal_actions()
    assert action & R.ONE_DIE  # one die only
    game.step()
    misc = game.aggs["misc"]
    assert misc[Misc.SINGLE_DIE] == 1 and misc[Misc.FALLBACK] == 1  # from the listed turns


def test_core_stats_and_match_aggregates():
    prep = prepared(match="competition")
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 2, 0, 200, aggs, None)
    core = GAME.core_stats(aggs, 2)
    assert core.games == 200 == core.seat_wins.sum() + core.shared
    assert core.completed == 200 and core.length.sum() == 200
    assert aggs["misc"][Misc.GAMES] == 400 and aggs["game_len"].sum() == 400
    assert aggs["points"][0].sum() == 200 and aggs["diff"].sum() == 200
    assert core.margin is not None and core.margin.sum() == 200 - core.shared


@pytest.mark.parametrize("rules", [{"match": "competition"},
                                   {"single_die": "play-higher", "opponent_goal":
                                    "scores-for-owner"}])
def test_cluster_sums_are_the_per_playout_sums_of_squares(rules):
    """stats.Cluster: the kernel's sums of y_g^2, x_g^2, x_g y_g equal those of playouts
    played one at a time (y_g, x_g read from each playout's own aggregates)."""
    prep = prepared(("random", "greedy"), **rules)
    total = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 4, 0, 40, total, None)
    want = np.zeros_like(total["clusters"])
    for g in range(40):
        one = GAME.new_aggregates(prep)
        GAME.run_chunk(prep, 4, g, 1, one, None)
        games = one["misc"][Misc.GAMES]
        starts = one["starts"]
        pairs = [(one["misc"][Misc.SINGLE_DIE], one["misc"][Misc.TURNS]),
                 (starts[0], games), (starts[1], games), (starts[0], starts[0] + starts[1]),
                 *[(one["ends"][e], games) for e in End]]
        for c, (y, x) in enumerate(pairs):
            want[c] += (y * y, x * x, x * y)
    assert (total["clusters"] == want).all()
    assert total["clusters"][:, 1].sum() > 0
