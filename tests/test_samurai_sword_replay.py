"""Samurai Sword step by step: a replayed game equals the fast path's, every policy chooses
only legal actions and never a forbidden option, a player's choice depends only on what it
can see, and the game log names every decision and chance event."""

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from kernels.samurai_sword import play as KP
from kernels.samurai_sword import rules as K
from kernels.samurai_sword.stats import Misc
from simcli.cli import app
from simcli.games.samurai_sword import SamuraiSword
from simcli.replay import replay
from simcli.run import RunConfig

GAME = SamuraiSword()
CONTENT = GAME.load_content(GAME.content_path(None))
DEFAULT_RULES = GAME.resolve_rules([])
runner = CliRunner()


def config(players, seats, rules=()):
    return RunConfig(game=GAME.name, players=players, seats=tuple(seats), n=1, seed=11,
                     threads=1, rules=GAME.resolve_rules(list(rules)), content=None,
                     out=Path("unused"))


# --- (a) a replayed game is the fast path's ----------------------------------------------

@pytest.mark.parametrize(("players", "seats"), [
    (4, ("random",) * 4), (6, ("random",) * 6),
    (3, ("heuristic",) * 3), (5, ("heuristic",) * 5),
    (7, ("heuristic", "random") * 3 + ("heuristic",)),
])
def test_replay_agrees_with_the_fast_path(players, seats):
    for playout in range(20):
        doc = replay(GAME, config(players, seats), playout)  # raises if the rows differ
        res, row = doc["result"], doc["result"]["row"]
        winners = [s + 1 for s in range(players) if row["win_mask"] >> s & 1]
        assert res["winners"] == winners
        assert row["winner"] == (winners[0] if len(winners) == 1 else 0)
        assert res["length"] == row["turns"] == row["length"]
        assert [e for e in doc["events"] if e["kind"] == "result"]


def test_replay_with_rule_options_and_rotations_agrees_with_the_fast_path():
    rules = ("reshuffle=when-empty", "ushiwaka=dealt", "geisha-self=no",
             "teammate-swordmaster=continue")
    for playout in range(10):
        replay(GAME, config(5, ("random",) * 5, rules), playout)
    seats = ("heuristic", "random", "random", "heuristic")
    prep = GAME.prepare(CONTENT, 4, seats, DEFAULT_RULES)
    for r in range(4):
        rows = np.zeros((8, KP.N_ROW), np.int64)
        GAME.run_chunk(prep, 5, 0, 8, GAME.new_aggregates(prep), rows, rotation=r)
        for i in range(8):
            h = GAME.handle(prep, 5, i, rotation=r)
            h.play_out()
            assert list(h.row().values()) == rows[i].tolist()


def test_a_replayed_game_adds_the_same_statistics_as_the_fast_path():
    prep = GAME.prepare(CONTENT, 5, ("heuristic",) * 5, DEFAULT_RULES)
    fast = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 3, 7, 1, fast, None)
    h = GAME.handle(prep, 3, 7)
    h.play_out()
    for name in fast:
        assert np.array_equal(h.aggs[name], fast[name]), name


# --- (c) legal choices, (d) forbidden options ---------------------------------------------

def step_checked(h, forbid=None):
    """One step, checking the choice is legal (and not forbidden); the option used."""
    a = h.choose()
    assert a in h.legal_actions()
    o = int(K.option_of(h.st, a))
    if forbid is not None and o >= 0:
        assert not forbid[h.current_player(), o], (K.OPTIONS[o], h.describe_action(a))
    h.apply(a)
    return o


@pytest.mark.parametrize("policy", ["random", "heuristic"])
@pytest.mark.parametrize(("players", "rules"), [(3, ()), (5, ("geisha-self=no",)),
                                                (7, ("bushido-self=no",))])
def test_every_policy_chooses_only_legal_actions(policy, players, rules):
    phases = Counter()
    for playout in range(6):
        h = GAME.new_game(seed=2, playout=playout, players=players, seats=[policy] * players,
                          rules=list(rules))
        while not h.is_over():
            phases[int(h.st.game[0]["phase"])] += 1
            step_checked(h)
    assert phases[K.PH_PLAY] and phases[K.PH_PARRY]


@pytest.mark.parametrize("policy", ["random", "heuristic"])
@pytest.mark.parametrize("options", [("weapon",), ("parry", "geisha", "diversion"),
                                     ("battle_cry", "jujutsu", "tea_ceremony", "daimyo"),
                                     ("focus", "armor", "fast_draw", "bushido", "breathing"),
                                     ("nobunaga", "ieyasu")])
def test_a_forbidden_option_is_never_chosen_and_play_still_ends(policy, options):
    used = Counter()
    for playout in range(4):
        h = GAME.new_game(seed=9, playout=playout, players=5, seats=[policy] * 5)
        for o in options:
            h.forbid[:3, K.OPTIONS.index(o)] = True  # seats 1-3; seats 4-5 may use them
        for _ in range(100_000):
            if h.is_over():
                break
            p = h.current_player()
            o = step_checked(h, h.forbid)
            if o >= 0 and K.OPTIONS[o] in options:
                used[p >= 3] += 1
        assert h.is_over()
    assert used[False] == 0
    if "nobunaga" not in options:
        assert used[True] > 0  # seats 4 and 5 did use them


# --- (e) hidden information ---------------------------------------------------------------

def hide_differently(st, viewer, rng):
    """Change what `viewer` cannot see, consistently: two other non-Shogun players swap
    their secret roles; every other player's hand trades cards with the deck (sizes
    kept); the deck is shuffled."""
    g = st.game[0]
    P = int(g["players"])
    others = [s for s in range(1, P) if s != viewer]
    if len(others) >= 2:
        a, b = (int(x) for x in rng.choice(others, 2, replace=False))
        for f in ("role", "team", "stars", "mult"):
            st.seats[a][f], st.seats[b][f] = st.seats[b][f], st.seats[a][f]
    deck = g["deck"][:g["deck_n"]]
    for q in range(P):
        if q == viewer:
            continue
        hand = st.seats[q]["hand"]
        cards = [c for c in range(len(hand)) for _ in range(hand[c])]
        for k, c in enumerate(cards):
            if len(deck) and rng.random() < 0.7:
                i = int(rng.integers(len(deck)))
                hand[c] -= 1
                hand[deck[i]] += 1
                deck[i], cards[k] = c, deck[i]
    rng.shuffle(deck)


def observation(h, p):
    v = np.zeros(K.obs_size(len(CONTENT.data.card_names)), np.int64)
    n = K.observe(h.st, p, v)
    return v[:n].copy()


@pytest.mark.parametrize("policy", ["heuristic", "random"])
def test_a_choice_depends_only_on_what_the_player_can_see(policy):
    rng = np.random.default_rng(7)
    checked = Counter()
    for playout in range(8):
        P = 4 + playout % 4
        h = GAME.new_game(seed=4, playout=playout, players=P, seats=[policy] * P)
        while not h.is_over():
            p = h.current_player()
            if rng.random() < 0.3:
                seen, saved = observation(h, p), h.st.game[0]["rng"].copy()
                before = h.choose()
                h.st.game[0]["rng"][:] = saved
                roles = h.st.seats["role"].copy()
                hide_differently(h.st, p, rng)
                assert np.array_equal(observation(h, p), seen)  # only hidden facts moved
                assert h.choose() == before
                h.st.game[0]["rng"][:] = saved
                checked[int(h.st.game[0]["phase"])] += 1
                checked["roles moved"] += not np.array_equal(roles, h.st.seats["role"])
            h.step()
    assert checked[K.PH_PLAY] > 50 and checked[K.PH_PARRY] > 5 and checked["roles moved"] > 20


def test_the_observation_holds_the_viewers_secrets_and_no_one_elses():
    h = GAME.new_game(seed=1, players=5)
    obs = h.observation(2)
    assert obs["you"]["seat"] == 3 and obs["shogun"] == "seat 1"
    assert sum(obs["you"]["hand"].values()) == int(h.st.seats[2]["hand_n"])
    assert all("role" not in seat and "hand" not in seat for seat in obs["players"].values())
    assert all(isinstance(seat["cards in hand"], int) for seat in obs["players"].values())


# --- (f) the log --------------------------------------------------------------------------

def test_the_log_names_every_decision_and_chance_event():
    kinds = Counter()
    for playout in range(12):
        h = GAME.new_game(seed=21, playout=playout, players=4 + playout % 4,
                          seats=["random" if playout % 3 == 0 else "heuristic"] * 4
                          + ["heuristic"] * (playout % 4))
        h.play_out()
        log = h.log()
        for e in log:
            kinds[e.kind] += 1
            assert e.detail and "action " not in e.detail
            if e.kind == "decision":
                assert " (of " in e.detail and e.player is not None
        assert log[-1].kind == "result" and log[0].kind == "role"
        assert sum(e.kind == "deal" for e in log) == sum([4, 5, 5, 6, 6, 7, 7][:h.st.game[0][
            "players"]])
        plays = [e for e in log if e.kind == "decision" and e.detail.startswith(
            ("attacks", "puts", "plays", "Nobunaga pays"))]
        assert len(plays) == h.aggs["misc"][Misc.PLAYS]
    for kind in ("role", "character", "deal", "turn", "draw", "decision", "attack", "parry",
                 "damage", "defeat", "honor", "discard", "property", "reshuffle", "end",
                 "score", "result", "recover", "bushido", "geisha", "diversion", "heal",
                 "hand"):
        assert kinds[kind] > 0, kind


def test_the_log_gives_every_final_hand():
    """The hands at the end (what a Daimyo in hand scores) can be read from the log: one
    'hand' event per card type each player holds, after the end and before the result."""
    for playout in range(8):
        h = GAME.new_game(seed=5, playout=playout, players=4 + playout % 4,
                          seats=["heuristic"] * (4 + playout % 4))
        h.play_out()
        log = h.log()
        kinds = [e.kind for e in log]
        hands = [e for e in log if e.kind == "hand"]
        assert hands and kinds.index("end") < kinds.index("hand") and kinds[-1] == "result"
        for s in range(int(h.st.game[0]["players"])):
            want = {name: n for name, n in h.cards_in(h.st.seats[s]["hand"]).items() if n}
            got = {e.detail.split(" holding ", 1)[1].split(" ", 1)[1]:
                   int(e.detail.split(" holding ", 1)[1].split(" ", 1)[0])
                   for e in hands if e.player == s + 1}
            assert got == want, (playout, s)


def test_simcli_replay_prints_a_readable_game_and_json_and_finds_one():
    r = runner.invoke(app, ["replay", "samurai-sword", "--seed", "3", "--playout", "5",
                            "--players", "4"])
    assert r.exit_code == 0, r.output
    text = r.output
    for words in ("role Shogun", "character ", "dealt ", "starts its turn", "draws ",
                  "attacks seat", "(of ", "the game ends", "-- result", "winners:"):
        assert words in text, words
    r = runner.invoke(app, ["replay", "samurai-sword", "--seed", "3", "--playout", "5",
                            "--players", "4", "--json"])
    doc = json.loads(r.stdout)
    assert doc["result"]["row"]["turns"] == doc["result"]["length"]
    r = runner.invoke(app, ["replay", "samurai-sword", "--seed", "3", "--find", "end=4",
                            "--players", "5", "--search", "2000"])
    assert r.exit_code == 0, r.output
    assert "Victory of the Swordmaster" in r.output
