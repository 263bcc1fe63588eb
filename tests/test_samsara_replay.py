"""Samsara step by step: replayed playouts equal the fast path, the rulebook's examples
played through the handle, forbidden options, what a player cannot see, and the game log
in words (`simcli replay samsara`)."""

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from kernels.rng import below
from kernels.samsara import play as PL
from kernels.samsara import rules as R
from kernels.samsara.stats import End
from simcli.cli import app
from simcli.games.handle import IllegalAction
from simcli.games.samsara import Samsara, hollows_of, key_of
from simcli.replay import replay, user_row
from simcli.run import build_config

GAME = Samsara()
ROUND, SQUARE = 0, 1
MODES = {"single": [], "competition": ["match=competition"]}


def config(policy=None, seats=None, rules=(), seed=11):
    return build_config("samsara", players=None, policy=policy, seats=seats, n=1, seed=seed,
                        threads=1, rules=list(rules), content=None, out=Path("unused"),
                        force=False, save_games=False, chunk_size=None)


def fast_rows(game, cfg, count):
    """--save-games rows of playouts 0..count-1, as `simcli replay` reads them."""
    prep = game.prepare(game.load_content(game.content_path(cfg.content)), cfg.players,
                        cfg.seats, cfg.rules)
    rows = np.zeros((count, len(game.row_columns)), np.int64)
    game.run_chunk(prep, cfg.seed, 0, count, game.new_aggregates(prep), rows)
    return [user_row(game, r) for r in rows]


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("policy", ["random", "greedy", "lookahead"])
def test_replay_agrees_with_the_fast_path(policy, mode):
    """replay() raises when the handle's row differs from run_chunk's; the winner and the
    length are also those of the --save-games row."""
    game, cfg = config(policy, rules=MODES[mode])
    rows = fast_rows(game, cfg, 20)
    for playout in range(20):
        doc = replay(game, cfg, playout)
        row = rows[playout]
        assert doc["result"]["row"] == row
        winners = doc["result"]["winners"]
        assert winners == ([row["winner"]] if row["winner"] else [])
        assert doc["result"]["length"] == row["game1_turns"] + max(row["game2_turns"], 0)


def test_replay_of_mixed_seats_in_rotation_agrees_with_the_fast_path():
    game, cfg = config(seats="lookahead,random", rules=MODES["competition"])
    prep = game.prepare(game.load_content(game.content_path(None)), 2, cfg.seats, cfg.rules)
    rows = np.zeros((6, PL.N_ROW), np.int64)
    game.run_chunk(prep, cfg.seed, 0, 6, game.new_aggregates(prep), rows, rotation=1)
    for playout in range(6):
        h = game.handle(prep, cfg.seed, playout, rotation=1)
        h.play_out()
        assert list(h.row().values()) == list(rows[playout])


# --- the rulebook's examples, played through the handle ----------------------------------

FAR = [(SQUARE, 9), (SQUARE, 10)]


def at(hollows, dice, to_move=0, goals=(0, 0), rules=(), seats=None):
    """A new game set to a hand-built position, `to_move` to act with `dice`."""
    h = GAME.new_game(seed=1, playout=0, seats=seats, rules=list(rules))
    h.set_position(hollows, goals, to_move=to_move, dice=dice)
    return h


def play(h, hollows, goals=(0, 0)):
    """Apply the turn that leaves `hollows` with `goals` (IllegalAction if it is not legal)."""
    h.apply(key_of(hollows, goals) | next((a & R.ONE_DIE for a in h.legal_actions()), 0))


def test_both_dice_are_moved_one_after_the_other_over_other_marbles():
    """'For each of the two rolls, they move one piece ... They may move over pieces'."""
    pos = [(ROUND, 1), (ROUND, 2), (ROUND, 3), *FAR]
    h = at(pos, (3, 5))
    play(h, [(ROUND, 4), (ROUND, 2), (ROUND, 8), *FAR])  # 3: round 1 -> 4; 5: round 3 -> 8
    assert h.position() == (frozenset([(ROUND, 2), (ROUND, 4), (ROUND, 8), *FAR]), (0, 0))
    assert h.current_player() == 1  # the other player rolls next


def test_both_rolls_may_move_one_piece():
    """'It is permitted to move both rolls with one piece.'"""
    h = at([(ROUND, 1), *FAR], (3, 5))
    play(h, [(ROUND, 9), *FAR])


def test_no_roll_may_be_forfeited():
    """'Both numbers must be moved completely; no roll may be forfeited': when some order
    plays both dice, a turn playing one die only is not legal."""
    h = at([(ROUND, 1), *FAR], (3, 5))
    with pytest.raises(IllegalAction):
        play(h, [(ROUND, 4), *FAR])


def test_lane_change_at_the_end_of_a_move():
    """Fig. 3: landing on a taken space moves the piece to the other half of the double
    space if it is empty; if that half is taken too, the move cannot be made."""
    h = at([(ROUND, 1), (ROUND, 4), (SQUARE, 20), (SQUARE, 21)], (3, 1))
    # the 3 lands on the taken round 4: the marble goes to square 16; the 1 moves square 21
    play(h, [(SQUARE, 16), (ROUND, 4), (SQUARE, 20), (SQUARE, 22)])
    h = at([(ROUND, 1), (ROUND, 4), (SQUARE, 16), (SQUARE, 20)], (3, 1))
    st = h.st  # round 4 and square 16 both taken: round 1 cannot move 3
    assert R.move_one(h.key, 0, 0, 3, 0, st.step, st.pi)[0] == -1


def test_lane_change_at_the_beginning_of_a_move():
    """Fig. 4: from a double space holding two pieces, either piece may start on the
    other lane, counting from the following space."""
    h = at([(ROUND, 5), (SQUARE, 17), *FAR], (2, 1))
    # round 5 starts on square 17's lane: 2 pips to square 19; the 1 moves square 10 on
    play(h, [(SQUARE, 17), (SQUARE, 19), (SQUARE, 9), (SQUARE, 11)])
    h = at([(ROUND, 5), *FAR], (2, 1))  # alone on its double space: no lane change
    with pytest.raises(IllegalAction):
        play(h, [(SQUARE, 19), (SQUARE, 9), (SQUARE, 11)])


def test_reaching_the_goal_exactly_scores_and_the_marble_comes_back_opposite():
    """Fig. 5: four pips reach the goal exactly; the scoring piece moves one space; the
    marble comes back on the first free double space of the opposite side, on the goal's
    shape (round goal: round hollow)."""
    h = at([(ROUND, 21), (ROUND, 1), (SQUARE, 20), (SQUARE, 21)], (4, 1))
    play(h, [(ROUND, 2), (ROUND, 1), (SQUARE, 20), (SQUARE, 22)], goals=(1, 0))
    events = [e for e in h.log() if e.kind == "goal"]
    assert [e.detail for e in events] == ["seat 1 (round) scoring track 1 of 6"]
    h = at([(ROUND, 21), *FAR], (5, 6))  # overshooting the goal is not a move
    assert all(hollows_of(a)[1] == (0, 0) for a in h.legal_actions())


def test_the_first_to_reach_the_centre_wins():
    h = at([(ROUND, 24), *FAR], (1, 3), goals=(5, 2))
    play(h, [(ROUND, 1), *FAR], goals=(6, 2))  # the 1 wins at once: the 3 is not played
    assert h.is_over() and h.outcome()["winners"] == [1]
    assert h.row()["game1_end"] == End.DIRECT


MOKSHA = [(ROUND, 2), (ROUND, 8), (ROUND, 14), (ROUND, 20), (ROUND, 22), (ROUND, 23),
          (SQUARE, 2), (SQUARE, 8), (SQUARE, 14), (SQUARE, 19), (SQUARE, 20), (SQUARE, 21)]


def test_moksha_ends_the_game_at_once_in_a_draw_with_four_points_each():
    """'a player may be unable to move any piece after their dice roll ... the game then
    ends immediately in a draw with four points for each player.'"""
    h = at(MOKSHA, (6, 6), rules=["match=competition"])
    assert h.legal_actions() == [R.MOKSHA]
    h.apply(R.MOKSHA)
    st = h.st
    assert st.game_end[0] == End.MOKSHA and st.game_winner[0] == -1
    assert list(st.points) == [4, 4]
    assert not h.is_over() and h.current_player() == 1  # game 2 of the match: seat 2 starts
    kinds = [e.kind for e in h.log()]
    assert kinds[-3:] == ["points", "setup", "roll"]


def test_competition_extra_turn_for_the_second_player():
    """'If the starting player is the first to bring their scoring piece to the centre
    space, the opponent may still carry out one complete move.'"""
    near = [(ROUND, 24), (SQUARE, 24), (ROUND, 5), (ROUND, 6), (SQUARE, 5), (SQUARE, 6)]
    h = at(near, (1, 2), goals=(5, 3), rules=["match=competition"])
    play(h, [(ROUND, 1), (SQUARE, 24), (ROUND, 7), (ROUND, 6), (SQUARE, 5), (SQUARE, 6)],
         goals=(6, 3))
    assert h.current_player() == 1 and bool(h.st.extra[0])
    assert any(e.kind == "extra turn" for e in h.log())
    h.set_dice(6, 6)
    h.step()  # the extra turn: seat 2 cannot reach the centre with 6-6 from 3 goals
    assert h.st.game_end[0] == End.EXTRA_FAIL and h.st.game_winner[0] == 0
    # the start player scores the fields the opponent is from the centre
    assert h.st.points[0] == 6 - hollows_of(int(h.st.game_key[0]))[1][1]


def test_any_player_may_move_any_marble_even_on_the_opposite_side():
    h = at([(SQUARE, 3), (SQUARE, 4)], (1, 2), to_move=0)  # only square-lane marbles
    play(h, [(SQUARE, 4), (SQUARE, 6)])  # the round player: square 4 by 2, square 3 by 1


# --- forbidden options --------------------------------------------------------------------

@pytest.mark.parametrize("policy", ["random", "greedy", "lookahead"])
def test_a_forbidden_option_is_never_chosen_and_play_still_ends(policy):
    rules = ["opponent-goal=scores-for-owner"]
    chosen = {"free": 0, "forbidden": 0}
    for playout in range(6 if policy != "lookahead" else 2):
        for label in ("free", "forbidden"):
            h = GAME.new_game(seed=3, playout=playout, seats=[policy] * 2, rules=rules)
            if label == "forbidden":
                h.forbid_option(0, "opponent-goal")
                h.forbid_option(1, "opponent-goal")
            for _ in range(3000):
                if h.is_over():
                    break
                legal = h.legal_actions()
                action = h.choose()
                assert action in legal
                if h.option_of(action) == "opponent-goal":
                    chosen[label] += 1
                    # only when every legal turn enters the opponent's goal
                    assert label == "free" or all(
                        h.option_of(a) == "opponent-goal" for a in legal)
                h.apply(action)
            assert h.is_over()  # play still ends
    assert chosen["forbidden"] == 0
    if policy == "random":
        assert chosen["free"] > 0  # the option is there to be forbidden


def test_moksha_and_plain_turns_are_never_forbidden():
    h = at(MOKSHA, (6, 6))
    h.forbid_option(0, "own-goal")
    h.forbid_option(0, "opponent-goal")
    h.forbid_option(0, "lane-change")
    assert h.option_of(R.MOKSHA) is None and h.choose() == R.MOKSHA
    # no goal in reach, no landing on a taken hollow, no full double field
    h = at([(ROUND, 1), (SQUARE, 9)], (3, 5))
    assert {h.option_of(a) for a in h.legal_actions()} == {None}


# --- what a player cannot see ------------------------------------------------------------

@pytest.mark.parametrize("policy", ["random", "greedy", "lookahead"])
def test_the_opponents_future_dice_do_not_change_a_choice(policy):
    """Samsara is a game of perfect information but for the dice to come. Moving the
    opponent's random stream on (its future dice) leaves every choice unchanged."""
    for playout in range(3):
        a = GAME.new_game(seed=5, playout=playout, seats=[policy] * 2)
        for _turn in range(12):
            if a.is_over():
                break
            seat = a.current_player()
            b = copy.deepcopy(a)
            other = b.st.rng[b.st.lane[1 - seat]]
            for _ in range(3 + playout):
                below(other, np.int64(1000))  # the opponent's dice to come change
            assert a.observation(seat) == b.observation(seat)
            choice = a.choose()
            assert b.choose() == choice
            a.apply(choice)


# --- the game log -----------------------------------------------------------------------

def test_the_log_names_every_decision_and_chance_event():
    game, cfg = config("greedy", rules=MODES["competition"], seed=2)
    doc = replay(game, cfg, 3)
    events = doc["events"]
    assert events[0]["kind"] == "setup" and "game 1 of the match" in events[0]["detail"]
    assert "round 1 2 3 4 5 6; square 1 2 3 4 5 6" in events[0]["detail"]
    assert events[-1]["kind"] == "result"
    rolls = [e for e in events if e["kind"] == "roll"]
    decisions = [e for e in events if e["kind"] == "decision"]
    assert len(rolls) == len(decisions) == doc["result"]["length"] + sum(
        g["end"] == "Moksha" for g in doc["result"]["games"])
    for i, e in enumerate(events):
        if e["kind"] == "roll":
            a, b = (int(x) for x in e["detail"].split()[1::2])
            nxt = events[i + 1]
            assert nxt["kind"] == "decision" and nxt["player"] == e["player"]
            assert nxt["detail"].startswith(f"{a}-{b}")
            assert "options)" in nxt["detail"] or "option)" in nxt["detail"]
    kinds = [e["kind"] for e in events]
    assert kinds.count("setup") == 2 and kinds.count("points") == 2
    second = kinds.index("setup", 1)
    for g, part in enumerate((events[:second], events[second:])):
        final = doc["result"]["games"][g]["goals"]
        for seat in range(2):
            track = [int(e["detail"].split()[5]) for e in part
                     if e["kind"] == "goal" and e["detail"].startswith(f"seat {seat + 1} ")]
            assert track == sorted(track) and (track[-1] if track else 0) == final[seat]


def test_a_turn_in_words_names_each_die_marble_and_lane_change():
    h = at([(ROUND, 1), (ROUND, 4), (SQUARE, 20), (SQUARE, 21)], (3, 1))
    words = h.describe_action(key_of([(SQUARE, 16), (ROUND, 4), (SQUARE, 20),
                                      (SQUARE, 22)]))
    assert words.startswith("3-1: ")
    assert "3 moves round 1 to square 16 (its landing hollow was taken: lane change)" in words
    assert "1 moves square 21 to square 22" in words
    h = at([(ROUND, 21), (ROUND, 1), (SQUARE, 20), (SQUARE, 21)], (4, 1))
    words = h.describe_action(key_of([(ROUND, 2), (ROUND, 1), (SQUARE, 20), (SQUARE, 22)],
                                     (1, 0)))
    assert "4 moves round 21 into the round goal (a goal for seat 1), back on round 2" in words
    assert "goals 1-0" in words


runner = CliRunner()


def test_simcli_replay_prints_a_whole_game_and_json_and_find_work():
    r = runner.invoke(app, ["replay", "samsara", "--seed", "4", "--playout", "2"])
    assert r.exit_code == 0, r.output
    assert "setup" in r.stdout and "rolls" in r.stdout and "-- result" in r.stdout
    r = runner.invoke(app, ["replay", "samsara", "--seed", "4", "--playout", "2", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["events"][0]["kind"] == "setup" and doc["result"]["row"]["winner"] in (1, 2)
    r = runner.invoke(app, ["replay", "samsara", "--seed", "4", "--find", "winner=2",
                            "--rule", "match=competition", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["result"]["row"]["winner"] == 2
