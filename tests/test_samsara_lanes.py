"""Samsara's lane-change option (`simcli value samsara`): which turns need a lane change
(checked against a slow reference built on the naive move generator), option_of's
precedence, and every player (random, greedy, lookahead, the search) honouring a seat's
ban in the fast path and through the handle."""

import json
import random

import numpy as np
import pytest
from typer.testing import CliRunner

from kernels.jit import kernel
from kernels.samsara import players as P
from kernels.samsara import rules as R
from simcli.cli import app
from simcli.games.samsara import Samsara, hollows_of
from tests import naive_samsara as N
from tests.test_samsara import RULE_SETS, naive_rules, random_position

GAME = Samsara()
CONTENT = GAME.load_content(GAME.content_path(None))
ROUND, SQUARE = 0, 1
FAR = [(SQUARE, 9), (SQUARE, 10)]
LANE = R.OPTIONS.index("lane-change")
POLICIES = ["random", "greedy", "lookahead"]


def prepared(seats=("greedy", "greedy"), rules=()):
    return GAME.prepare(CONTENT, 2, tuple(seats), GAME.resolve_rules(list(rules)))


def new_handle(seats=("greedy", "greedy"), seed=1, playout=0, rules=()):
    return GAME.new_game(seed=seed, playout=playout, seats=list(seats), rules=list(rules))


# --- the slow reference: turns playable without a lane change ------------------------------

def lane_free_moves(hollows, goals, mover, pips, rules):
    """The naive single-die moves that change no lane: counted from the marble's own
    hollow, landing in its own lane (or entering a goal)."""
    out = []
    for origin in sorted(hollows):
        r = N.one_move(hollows, goals, mover, origin, origin, pips, rules)
        if r is not None and (r[3] or r[2][0] == origin[0]):
            out.append((r[0], r[1], origin, r[2], r[3]))
    return out


def naive_full(hollows, goals, mover, a, b, rules, moves):
    """The positions both dice leave (N.turns' full turns) with the single-die move
    generator `moves` (N.single_moves, or lane_free_moves)."""
    out = set()
    whole = rules.same_marble == "whole-move"
    for d1, d2 in ((a, b), (b, a)) if a != b else ((a, b),):
        for h1, g1, _o, landing, entered in moves(hollows, goals, mover, d1, rules):
            if N.decides(goals, g1):
                out.add((h1, g1))  # the game is decided: the turn ends at once
                continue
            for h2, g2, origin2, _l, _s in moves(h1, g1, mover, d2, rules):
                if whole and origin2 == landing and not entered:
                    continue  # one marble's two dice are one move (below)
                out.add((h2, g2))
    if whole:
        out |= {(h, g) for h, g, *_ in moves(hollows, goals, mover, a + b, rules)}
    return out


def naive_lane_free(hollows, goals, mover, a, b, rules):
    """The positions a legal turn with dice (a, b) leaves by a die sequence without a lane
    change. Whether both dice are played, and which die alone, is decided with lane changes
    allowed (the ban only chooses among the legal turns)."""
    hollows, goals = frozenset(hollows), tuple(goals)
    if naive_full(hollows, goals, mover, a, b, rules, N.single_moves):
        return naive_full(hollows, goals, mover, a, b, rules, lane_free_moves)
    if rules.single_die == "moksha":
        return set()
    hi = max(a, b)
    dice = {a, b}
    if rules.single_die == "play-higher" and N.single_moves(hollows, goals, mover, hi, rules):
        dice = {hi}
    return {(h, g) for d in dice for h, g, *_ in lane_free_moves(hollows, goals, mover, d, rules)}


def position(a):
    return hollows_of(a & R.KEY_MASK)


# --- which turns need a lane change --------------------------------------------------------

def test_option_of_names_the_turns_that_need_a_lane_change():
    """Round 1 and round 4, a double 3: round 4 to 7 then round 1 to 4 changes no lane; round
    1 first lands on the taken round 4 and ends on square 16 (a lane change at the end)."""
    h = new_handle()
    pos = [(ROUND, 1), (ROUND, 4), *FAR]
    h.set_position(pos, to_move=0, dice=(3, 3))
    by_position = {position(a)[0]: h.option_of(a) for a in h.legal_actions()}
    free = frozenset([(ROUND, 4), (ROUND, 7), *FAR])
    changed = frozenset([(SQUARE, 16), (ROUND, 7), *FAR])  # round 4 to 7, round 1 to sq 16
    assert by_position[free] is None
    assert by_position[changed] == "lane-change"
    # the start of a move: round 5 and square 17 fill one double field
    h.set_position([(ROUND, 5), (SQUARE, 17), *FAR], to_move=0, dice=(2, 2))
    by_position = {position(a)[0]: h.option_of(a) for a in h.legal_actions()}
    assert by_position[frozenset([(SQUARE, 17), (SQUARE, 21), *FAR])] == "lane-change"
    assert by_position[frozenset([(ROUND, 9), (SQUARE, 17), *FAR])] is None
    assert h.option_of(R.MOKSHA) is None


@pytest.mark.parametrize("rules", RULE_SETS)
def test_lane_free_agrees_with_the_slow_reference(rules):
    """For random positions and rolls, a legal turn needs a lane change exactly when the
    naive generator, moving every die in its own lane, cannot leave its position; option_of
    reports a goal option first, lane-change only for turns entering no goal."""
    h = GAME.new_game(seed=1, playout=0, seats=["greedy"] * 2,
                      rules=[f"{k.replace('_', '-')}={v}" for k, v in rules.items()])
    nr = naive_rules(**rules)
    rng = random.Random(5)
    seen = {True: 0, False: 0}
    for _ in range(150):
        hs, goals = random_position(rng)
        mover = rng.randint(0, 1)
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        h.set_position(hs, goals, to_move=mover, dice=(a, b))
        free = naive_lane_free(hs, goals, mover, a, b, nr)
        for act in h.legal_actions():
            if act & R.MOKSHA:
                continue
            needs = position(act) not in free
            assert bool(R.needs_lane_change(h.st, np.int64(act))) == needs
            seen[needs] += 1
            entered = position(act)[1] != tuple(goals)
            if not entered:
                assert (h.option_of(act) == "lane-change") == needs
            elif needs:
                assert h.option_of(act) in ("own-goal", "opponent-goal")
    assert seen[True] > 50 and seen[False] > 50


def test_the_search_filter_sees_lane_change_behind_a_goal_option():
    """A turn that enters the mover's goal and needs a lane change: option_of says
    own-goal, and the option the search's filter reads (players.option_against) is
    lane-change for a seat denied lane changes, own-goal otherwise."""
    h = new_handle()
    # round 21 by 4 enters round's goal; round 5 shares a full double field with square 17,
    # so it may count from square 17 and end on square 21: a lane change at the start
    pos = [(ROUND, 21), (ROUND, 5), (ROUND, 1), (SQUARE, 17), *FAR]
    h.set_position(pos, to_move=0, dice=(4, 4))
    ban = np.zeros(R.N_OPTIONS, np.bool_)
    both = [a for a in h.legal_actions() if h.option_of(a) == "own-goal"
            and R.needs_lane_change(h.st, np.int64(a))]
    assert both
    for a in both:
        assert P.option_against(ban, h.st, np.int64(a)) == R.OPT_OWN_GOAL
    ban[LANE] = True
    for a in both:
        assert P.option_against(ban, h.st, np.int64(a)) == R.OPT_LANE_CHANGE


# --- every player honours the ban ---------------------------------------------------------

def start_position_roll(h, dice=(5, 6)):
    """The start position, seat 0 to move with `dice`: greedy and lookahead both like a
    lane change here (a marble onto the other lane)."""
    key = int(h.st.start[0])
    h.set_position(position(key)[0], to_move=0, dice=dice)


@pytest.mark.parametrize("policy", POLICIES)
def test_a_seat_denied_lane_changes_never_chooses_one_by_hand(policy):
    """At the start with 5-6 the free player chooses a turn needing a lane change (greedy
    and lookahead always, random sometimes); denied, it never does."""
    free_lane = denied_lane = 0
    for playout in range(12 if policy == "random" else 2):
        for denied in (False, True):
            h = new_handle((policy, policy), seed=2, playout=playout)
            if denied:
                h.forbid_option(0, "lane-change")
            start_position_roll(h)
            legal = h.legal_actions()
            assert any(h.option_of(a) is None for a in legal)
            a = h.choose()
            assert a in legal
            lane = h.option_of(a) == "lane-change"
            denied_lane += denied and lane
            free_lane += not denied and lane
    assert denied_lane == 0
    assert free_lane > 0


@kernel(alloc=True)  # (a kernel: cached with the Samsara package, not compiled every run)
def _watched(st, forbid, seed, count, out):
    """play_chunk's loop, checking each choice: out[0] choices of a forbidden lane change
    while a lane-free turn was legal, out[1] lane changes chosen by seats free to, out[2]
    forced ones (no lane-free turn), out[3] decisions of the seats denied lane changes."""
    acts = np.zeros(R.MAX_SEQ, np.int64)
    for g in range(count):
        R.setup(st, seed, g)
        while not R.is_over(st):
            seat = st.player[0]
            a = P.choose(st, forbid)
            if R.needs_lane_change(st, a):
                if forbid[seat, R.OPT_LANE_CHANGE]:
                    n = R.legal_actions(st, acts)
                    some_free = False
                    for i in range(n):
                        if not R.needs_lane_change(st, acts[i]):
                            some_free = True
                    out[0 if some_free else 2] += 1
                else:
                    out[1] += 1
            if forbid[seat, R.OPT_LANE_CHANGE]:
                out[3] += 1
            R.apply(st, a)


@pytest.mark.parametrize("policy", POLICIES)
def test_the_fast_path_players_honour_a_lane_change_ban(policy):
    """The fast path's loop with players.choose, watched: seat 0 denied lane changes never
    plays one while a lane-free turn is legal; the games it plays are run_chunk's."""
    prep = prepared((policy, policy))
    count = 40 if policy != "lookahead" else 6
    forbid = np.zeros((2, R.N_OPTIONS), np.bool_)
    forbid[0, LANE] = True
    aggs = GAME.new_aggregates(prep)
    out = np.zeros(4, np.int64)
    _watched(GAME.state(prep, aggs), forbid, np.uint64(7), count, out)
    assert out[0] == 0 and out[1] > 0 and out[3] > 0
    fast = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 7, 0, count, fast, None, forbid=forbid)
    assert all((fast[k] == aggs[k]).all() for k in fast)


def test_forbidding_lane_changes_changes_play():
    """Greedy denied lane changes loses far more often; forbidding nothing is the plain
    run."""
    prep = prepared()
    free = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 3, 0, 200, free, None)
    none = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 3, 0, 200, none, None, forbid=np.zeros((2, R.N_OPTIONS), bool))
    assert all((none[k] == free[k]).all() for k in free)
    for seat in (0, 1):
        forbid = np.zeros((2, R.N_OPTIONS), bool)
        forbid[seat, LANE] = True
        denied = GAME.new_aggregates(prep)
        GAME.run_chunk(prep, 3, 0, 200, denied, None, forbid=forbid)
        assert denied["wins"][seat] < free["wins"][seat] - 40
        assert denied["wins"][1 - seat] > free["wins"][1 - seat] + 40


def test_the_search_honours_a_lane_change_ban():
    """mcts denied lane changes (its top_k listing and the search's own filter, through
    players.option_against) plays none while a lane-free turn is legal, in the handle and in
    the fast path's search loop."""
    mattered = 0
    h = new_handle(("mcts:8", "greedy"), seed=4)
    h.forbid_option(0, "lane-change")
    while not h.is_over():
        if h.current_player() == 0:
            legal = h.legal_actions()
            free = [a for a in legal if not R.needs_lane_change(h.st, np.int64(a))]
            a = h.choose()
            assert a in (free or legal)
            mattered += len(free) < len(legal)
        h.step()
    assert mattered > 0
    prep = prepared(("mcts:8", "greedy"))
    forbid = np.zeros((2, R.N_OPTIONS), np.bool_)
    forbid[0, LANE] = True
    free_aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 4, 0, 3, free_aggs, None)
    denied = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 4, 0, 3, denied, None, forbid=forbid)
    assert not all((denied[k] == free_aggs[k]).all() for k in denied)


# --- simcli value --------------------------------------------------------------------------

def test_value_lists_lane_change_with_a_restricted_play_row(tmp_path):
    r = CliRunner().invoke(app, ["value", "samsara", "-n", "150", "--threads", "1", "--json",
                                 "--quiet", "--out", str(tmp_path / "v")])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    rows = [row for row in data["restricted"] if row["option"] == "lane-change"]
    assert {row["seat"] for row in rows} >= {"overall"}
    overall = next(row for row in rows if row["seat"] == "overall")
    assert overall["ci_low"] > 0.2  # greedy without lane changes loses most games
