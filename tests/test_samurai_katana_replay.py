"""Samurai & Katana step by step: a replayed game equals the fast path's, every policy
chooses only legal actions and never a forbidden option, a player's choice depends only on
what it can see, and the game log names setup, decisions, battles, Honor and the result."""

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from kernels.samurai_katana import rules as K
from kernels.samurai_katana.play import N_ROW
from simcli.cli import app
from simcli.games.handle import IllegalAction
from simcli.games.samurai_katana import SamuraiKatana
from simcli.replay import replay
from simcli.run import RunConfig

GAME = SamuraiKatana()
CONTENT = GAME.load_content(GAME.content_path(None))
DEFAULT_RULES = GAME.resolve_rules([])
runner = CliRunner()


def config(players, seats, rules=()):
    return RunConfig(game=GAME.name, players=players, seats=tuple(seats), n=1, seed=11,
                     threads=1, rules=GAME.resolve_rules(list(rules)), content=None,
                     out=Path("unused"))


# --- a replayed game is the fast path's ----------------------------------------------------

@pytest.mark.parametrize(("players", "seats", "rules"), [
    (3, ("random",) * 3, ()),
    (4, ("greedy",) * 4, ()),
    (5, ("greedy", "random") * 2 + ("greedy",), ("emperor=limited",)),
    (6, ("random",) * 6, ("land-of-koku=on", "kyoto-uprising=forbidden")),
])
def test_replay_agrees_with_the_fast_path(players, seats, rules):
    for playout in range(6):
        doc = replay(GAME, config(players, seats, rules), playout)  # raises if rows differ
        res, row = doc["result"], doc["result"]["row"]
        if row["winner"] > 0:
            assert res["winners"] == [row["winner"]]
        else:
            assert len(res["winners"]) > 1
        assert res["length"] == row["turns"] == row["length"]
        assert res["honor"] == [row[f"honor_{s}"] for s in range(players)]
        assert doc["events"][-1]["kind"] == "result"


def test_rotations_and_statistics_agree_with_the_fast_path():
    seats = ("greedy", "random", "random", "greedy")
    prep = GAME.prepare(CONTENT, 4, seats, DEFAULT_RULES)
    for r in range(4):
        rows = np.zeros((4, N_ROW), np.int64)
        GAME.run_chunk(prep, 5, 0, 4, GAME.new_aggregates(prep), rows, rotation=r)
        for i in range(4):
            h = GAME.handle(prep, 5, i, rotation=r)
            h.play_out()
            assert list(h.row().values()) == rows[i].tolist()
    fast = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 3, 7, 1, fast, None)
    h = GAME.handle(prep, 3, 7)
    h.play_out()
    for name in fast:
        assert np.array_equal(h.aggs[name], fast[name]), name


# --- legal choices, forbidden options ---------------------------------------------------------

def step_checked(h, forbid=None):
    """One step, checking the choice is legal (and not forbidden); the option used."""
    a = h.choose()
    if h.phase() == "discard":  # a mask of the hand (legal_actions lists 16 positions')
        assert 0 <= a < 1 << int(h.st.pl[h.current_player(), K.PL_HAND]), a
    else:
        assert a in h.legal_actions(), (h.phase(), a)
    o = h.option_of(a)
    if forbid is not None and o >= 0:
        assert not forbid[h.current_player(), o], (K.OPTIONS[o], h.describe_action(a))
    h.apply(a)
    return o


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_every_policy_chooses_only_legal_actions(policy):
    phases = Counter()
    for playout in range(3):
        P = 3 + playout
        h = GAME.new_game(seed=2, playout=playout, players=P, seats=[policy] * P)
        while not h.is_over():
            phases[h.phase()] += 1
            step_checked(h)
    for ph in ("place", "order", "buy", "act", "attack cards", "defence cards", "discard"):
        assert phases[ph] > 0, ph


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_a_forbidden_option_is_never_chosen_and_play_still_ends(policy):
    used = Counter()
    for playout in range(2):
        h = GAME.new_game(seed=9, playout=playout, players=4, seats=[policy] * 4)
        h.forbid[:2, :] = True  # seats 1-2 may use no option; seats 3-4 any
        while not h.is_over():
            p = h.current_player()
            o = step_checked(h, h.forbid)
            if o >= 0:
                used[p >= 2] += 1
    assert used[False] == 0 and used[True] > 0


# --- hidden information ----------------------------------------------------------------------

def hide_differently(st, viewer, rng):
    """Change what `viewer` cannot see: every rival's hand trades cards with the draw pile
    (sizes kept); the draw pile is shuffled."""
    n = int(st.gs[K.G_DECK])
    pile = st.piles[0]
    for q in range(st.pl.shape[0]):
        if q == viewer:
            continue
        for i in range(int(st.pl[q, K.PL_HAND])):
            if n and rng.random() < 0.7:
                j = int(rng.integers(n))
                st.hand[q, i], pile[j] = pile[j], st.hand[q, i]
    rng.shuffle(pile[:n])


@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_a_choice_depends_only_on_what_the_player_can_see(policy):
    rng = np.random.default_rng(7)
    checked = Counter()
    for playout in range(3):
        h = GAME.new_game(seed=4, playout=playout, players=4, seats=[policy] * 4)
        while not h.is_over():
            p = h.current_player()
            if rng.random() < 0.3:
                saved_rng = h.st.rng.copy()
                saved = (h.st.hand.copy(), h.st.piles.copy())
                seen = h.observation(p)
                before = h.choose()
                h.st.rng[:] = saved_rng
                hide_differently(h.st, p, rng)
                assert h.observation(p) == seen  # only hidden facts moved
                assert h.choose() == before, h.phase()
                h.st.rng[:] = saved_rng
                h.st.hand[:], h.st.piles[:] = saved
                checked[h.phase()] += 1
            h.step()
    assert checked["act"] > 20 and checked["attack cards"] + checked["defence cards"] > 5


def test_the_observation_shows_the_own_hand_only():
    h = GAME.new_game(seed=1, players=4)
    obs = h.observation(2)
    assert obs["seat"] == 3 and len(obs["hand"]) == int(h.st.pl[2, K.PL_HAND])
    assert all("hand" not in c and isinstance(c["hand_size"], int)
               for c in obs["clans"].values())


# --- the log ----------------------------------------------------------------------------------

def test_the_log_names_setup_decisions_battles_honor_and_the_result():
    kinds = Counter()
    for playout in range(4):
        P = 3 + playout
        h = GAME.new_game(seed=21, playout=playout, players=P,
                          seats=["random" if playout % 2 else "greedy"] * P)
        h.play_out()
        log = h.log()
        for e in log:
            kinds[e.kind] += 1
            assert e.detail and "action " not in e.detail
            if e.kind == "decision":
                assert " (of " in e.detail and e.player is not None
        assert log[0].kind == "city" and log[-1].kind == "result"
        assert sum(e.kind == "city" for e in log) == P * (1 + int(h.prep.pi[K.PI_MINORS]))
        assert sum(e.kind == "outcome" for e in log) == h.aggs["battles"][..., 0].sum()
    for kind in ("city", "place", "draw", "turn", "decision", "move", "battle", "side",
                 "outcome", "honor", "taxes", "offices", "card", "result"):
        assert kinds[kind] > 0, kind


def test_simcli_replay_prints_a_readable_game_and_json():
    r = runner.invoke(app, ["replay", "samurai-katana", "--seed", "3", "--playout", "2",
                            "--players", "3"])
    assert r.exit_code == 0, r.output
    for words in ("draws major city", "places a samurai", "names seat", "(of ",
                  "attacks ", "fights with", "battle for", "Honor +", "-- result",
                  "winners:"):
        assert words in r.output, words
    r = runner.invoke(app, ["replay", "samurai-katana", "--seed", "3", "--playout", "2",
                            "--players", "3", "--json"])
    doc = json.loads(r.stdout)
    assert doc["result"]["row"]["turns"] == doc["result"]["length"]
    assert {"turn", "player", "kind", "detail"} <= set(doc["events"][0])


def test_discards_are_checked_as_masks_of_the_hand():
    h = GAME.new_game(seed=5, players=3)
    while h.phase() != "discard":
        h.step()
    n = int(h.st.pl[h.current_player(), K.PL_HAND])
    with pytest.raises(IllegalAction):
        h.apply(1 << n)  # a card it does not hold
    h.apply(h.choose())
    decisions = [e for e in h.log() if e.kind == "decision"]
    assert decisions[-1].detail.startswith("discards ")
    assert decisions[-1].detail.endswith(f"(of {1 << n} option{'s' if n else ''})")


def test_battle_sums_of_squares_are_the_per_game_sums():
    """The clustered interval of the attacker's win rate rests on per-game sums of squares:
    a chunk's sums equal those of its games played one at a time."""
    from kernels.samurai_katana.stats import BattleStat

    prep = GAME.prepare(CONTENT, 4, ("greedy",) * 4, DEFAULT_RULES)
    whole = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 3, 0, 12, whole, None)
    sq = np.zeros((2, 2, 3), np.int64)
    sq_all = np.zeros(3, np.int64)
    for g in range(12):
        one = GAME.new_aggregates(prep)
        GAME.run_chunk(prep, 3, g, 1, one, None)
        x = one["battles"][..., BattleStat.N]
        y = one["battles"][..., BattleStat.ATT]
        sq += np.stack([y * y, x * x, x * y], axis=-1)
        tx, ty = int(x.sum()), int(y.sum())
        sq_all += np.array([ty * ty, tx * tx, tx * ty])
    assert np.array_equal(whole["battle_sq"], sq)
    assert np.array_equal(whole["battle_sq_all"], sq_all)
    assert sq_all[1] > whole["battles"][..., BattleStat.N].sum()  # several battles a game
