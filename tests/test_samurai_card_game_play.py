"""Samurai: The Card Game driven step by step: a replayed game equals the fast path's,
players choose only legal actions, honour forbidden options and ignore what they cannot
see, and the log names every decision and chance event."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from kernels.samurai_card_game import players as KP
from kernels.samurai_card_game import rules as K
from simcli.replay import replay
from simcli.run import build_config
from tests.test_samurai_card_game_rules import CONTENT, GAME

SETUPS = [  # (players, seats, rules)
    (2, ("random", "random"), ()),
    (4, ("random",) * 4, ()),
    (2, ("greedy", "greedy"), ()),
    (4, ("greedy",) * 4, ()),
    (3, ("greedy", "random", "greedy"), ("villages=see-all", "chain=on")),
    (3, ("random", "greedy", "random"), ("villages=see-all", "tied-marker=discarded")),
]


def handle(players, seats, rules=(), seed=1, playout=0, rotation=0):
    prep = GAME.prepare(CONTENT, players, tuple(seats), GAME.resolve_rules(list(rules)))
    return GAME.handle(prep, seed, playout, rotation)


@pytest.mark.parametrize(("policy", "players"), [
    ("random", 2), ("random", 4), ("greedy", 2), ("greedy", 4)])
def test_replay_agrees_with_the_fast_path(policy, players):
    g, cfg = build_config(GAME.name, players=players, policy=policy, seats=None, n=1, seed=11,
                          threads=1, rules=[], content=None, out=Path("unused"), force=False,
                          save_games=False, chunk_size=None)
    prep = g.prepare(CONTENT, players, cfg.seats, cfg.rules)
    rows = np.zeros((20, len(g.row_columns)), np.int64)
    g.run_chunk(prep, cfg.seed, 0, 20, g.new_aggregates(prep), rows)
    for i in range(20):
        doc = replay(g, cfg, i)  # raises if the handle's row differs from run_chunk's
        row = dict(zip(g.row_columns, rows[i].tolist(), strict=True))
        won = [q + 1 for q in range(players) if row["shared_mask"] >> q & 1]
        assert doc["result"]["winners"] == won
        assert doc["result"]["row"]["winner"] == row["winner"] + 1
        assert doc["result"]["turns"] == row["turns"] == doc["result"]["row"]["length"]
        assert doc["events"][-1]["kind"] == "result"


def test_replay_agrees_under_every_rule_option_and_mixed_seats():
    for _players, seats, rules in SETUPS[4:]:
        g, cfg = build_config(GAME.name, players=None, policy=None, seats=",".join(seats),
                              n=1, seed=4, threads=1, rules=list(rules), content=None,
                              out=Path("unused"), force=False, save_games=False,
                              chunk_size=None)
        for i in range(10):
            replay(g, cfg, i)


def test_a_mirrored_seat_arrangement_replays_alike():
    prep = GAME.prepare(CONTENT, 3, ("greedy", "random", "random"), GAME.resolve_rules([]))
    for rotation in (1, 2):
        rows = np.zeros((5, len(GAME.row_columns)), np.int64)
        GAME.run_chunk(prep, 9, 0, 5, GAME.new_aggregates(prep), rows, rotation)
        for i in range(5):
            h = GAME.handle(prep, 9, i, rotation)
            h.play_out()
            assert list(h.row().values()) == rows[i].tolist()


@pytest.mark.parametrize(("players", "seats", "rules"), SETUPS)
def test_every_choice_is_a_legal_action(players, seats, rules):
    pairs = 0
    for playout in range(6):
        h = handle(players, seats, rules, seed=2, playout=playout)
        while not h.is_over():
            legal = h.legal_actions()
            a = h.choose()
            assert a in legal
            pairs += a >= K.PLACE_FLAG and (a >> K.CELL_BITS) & K.CELL_MASK != 0
            h.apply(a)
        assert h.legal_actions() == []
    if "villages=see-all" in rules and "greedy" in seats:
        assert pairs > 0  # greedy places both visible villages at once


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.parametrize("option", range(len(K.OPTIONS)))
def test_a_forbidden_option_is_never_chosen_while_another_is_legal(policy, option):
    """The game has no pass: a hand holding only banned cards still plays one (late in a
    game, as the banned cards are kept to the end)."""
    fallback = decisions = 0
    for playout in range(4):
        h = handle(4, (policy,) * 4, seed=3, playout=playout)
        h.forbid[:, option] = True
        while not h.is_over():
            a = h.choose()
            options = {int(K.py_option_of(h.st, x)) for x in h.legal_actions()}
            if K.py_option_of(h.st, a) == option:
                assert options <= {option}  # every card in hand has the banned symbol
                fallback += 1
            decisions += 1
            h.apply(a)
        assert h.is_over()
    assert fallback < decisions / 5


def hide(st, rng) -> None:
    """Shuffle, consistently, everything the seat to act cannot see: the other players'
    cards (hand and draw pile together, sizes kept), its own draw pile's order and the
    village deck below the visible cards."""
    c = st.cnt[0]
    me = int(c["cur"])
    for q in range(int(st.cfg[0]["players"])):
        hn, dn = int(st.seat[q]["hand_n"]), int(st.seat[q]["deck_n"])
        if q == me:
            st.decks[q, :dn] = rng.permutation(st.decks[q, :dn])
            continue
        pool = rng.permutation(np.concatenate([st.hands[q, :hn], st.decks[q, :dn]]))
        st.hands[q, :hn] = pool[:hn]
        st.decks[q, :dn] = pool[hn:]
    below = int(c["vtop"]) + int(K.py_visible_villages(st))
    st.vdeck[below:] = rng.permutation(st.vdeck[below:])


def copy_state(st):
    return type(st)(*[copy_state(x) if isinstance(x, tuple) else x.copy() for x in st])


@pytest.mark.parametrize(("players", "seats", "rules"), SETUPS[1:2] + SETUPS[3:])
def test_a_choice_ignores_what_the_player_cannot_see(players, seats, rules):
    rng = np.random.default_rng(7)
    checked = 0
    for playout in range(3):
        h = handle(players, seats, rules, seed=5, playout=playout)
        while not h.is_over():
            others = [copy_state(h.st) for _ in range(2)]  # a random choice uses the stream
            a = h.choose()
            for other in others:
                hide(other, rng)
                assert KP.py_choose(other, h.forbid) == a
                checked += 1
            h.apply(a)
    assert checked > 100


def test_the_log_names_every_decision_and_chance_event():
    h = handle(4, ("greedy", "random", "greedy", "random"), seed=6, playout=3)
    steps = Counter()
    while not h.is_over():
        phase = int(h.st.cnt[0]["phase"])
        steps[phase] += 1
        h.step()
    events = h.log()
    kinds = Counter(e.kind for e in events)
    decisions = [e for e in events if e.kind == "decision"]
    assert len(decisions) == steps[K.PLAY] + steps[K.PLACE]
    plays = [e for e in decisions if e.detail.startswith("plays ")]
    assert len(plays) == steps[K.PLAY] == h.outcome()["turns"]
    assert all(" at (" in e.detail and "option" in e.detail for e in decisions)
    assert kinds["deal"] == 4 * 5 and all(e.turn == 0 for e in events if e.kind == "deal")
    draws = [e for e in events if e.detail.startswith("draws ")]
    assert len(draws) == sum(13 - 5 - int(d) for d in h.st.seat["deck_n"][:4])
    assert kinds["village"] == int(h.st.cnt[0]["nv"])  # the first one included
    reveals = [e for e in events if e.detail.startswith("the next village card turned up")]
    assert len(reveals) == min(int(h.st.cnt[0]["vtop"]), len(h.st.vdeck) - 1)
    assert kinds["scoring"] == int(h.st.cnt[0]["scored"])
    assert kinds["marker"] == int(h.st.taken.sum())
    assert [e.kind for e in events[-5:]] == ["end", "dominance", "dominance", "dominance",
                                           "result"]
    # every decision is made by the seat to act, in turn order, from seat 1
    assert decisions[0].player == 1 and plays[1].player == 2
    assert all(e.turn == i + 1 for i, e in enumerate(plays))


def test_the_log_gives_each_set_and_the_village_deck_at_setup():
    """Every card a player is dealt or draws comes from its logged set, and every village
    put or turned up is the next one of the logged shuffled village deck."""
    h = handle(4, ("greedy", "random", "greedy", "random"), seed=6, playout=3)
    h.play_out()
    events = h.log()
    for p in range(1, 5):
        held = Counter(e.detail.removeprefix("its set holds ") for e in events
                       if e.kind == "set" and e.player == p)
        assert sum(held.values()) == 13
        got = Counter(e.detail.removeprefix("is dealt ") for e in events
                      if e.kind == "deal" and e.player == p)
        got += Counter(e.detail.removeprefix("draws ").split(" (")[0] for e in events
                       if e.player == p and e.detail.startswith("draws "))
        assert got and not got - held, (p, got - held)
    order = [e.detail.split(": ", 1)[1] for e in events if e.kind == "village deck"]
    assert len(order) == len(h.st.vdeck)
    shown = [e.detail.split("the ", 1)[1].split(" village")[0] for e in events
             if e.kind == "village" and e.player is None][:1]
    shown += [e.detail.removeprefix("the next village card turned up: ").split(" (")[0]
              for e in events if e.detail.startswith("the next village card turned up")]
    assert shown and shown == order[:len(shown)]


def test_observation_shows_own_hand_only_and_the_public_board():
    h = handle(3, ("greedy",) * 3, seed=8)
    for _ in range(10):
        h.step()
    me = h.current_player()
    obs = h.observation(me)
    other = h.observation((me + 1) % 3)
    assert len(obs["hand"]) == int(h.st.seat[me]["hand_n"])
    assert obs["hand"] != other["hand"] or obs["seat"] != other["seat"]
    assert obs["cards"] == other["cards"] and obs["villages"] == other["villages"]
    assert len(obs["cards"]) == h.turn() - 1 and obs["villages"][0]["at"] == (0, 0)
    assert set(obs["legal_cells"]) == {h.xy(int(c)) for c in
                                       h.st.front[:int(h.st.cnt[0]["nf"])]}
    assert obs["village_cards_left"] == len(h.st.vdeck) - int(h.st.cnt[0]["vtop"])
    assert len(obs["visible_villages"]) == K.py_visible_villages(h.st) >= 1
    assert len(other["visible_villages"]) == 1 and sum(obs["cards_in_hand"]) == 15
