"""Sixteen Samurai through the Python handle: replays agree with the fast path, players
choose legal actions only and honour forbidden cards, hidden information does not sway a
choice, the log names every decision and chance event, and a rulebook round scripted
action by action."""

import copy
from pathlib import Path

import numpy as np
import pytest

from kernels.sixteen_samurai import rules as KR
from simcli.games.sixteen_samurai import SixteenSamurai
from simcli.replay import render, replay, user_row
from simcli.run import build_config
from tests.naive import contenders_tops

GAME = SixteenSamurai()
NAMES = GAME.load_content(GAME.content_path(None)).data.names


def config(players, seats, seed=3, rules=()):
    g, cfg = build_config(GAME.name, players=players, policy=None, seats=",".join(seats),
                          n=1, seed=seed, threads=1, rules=list(rules), content=None,
                          out=Path("unused"), force=False, save_games=False,
                          chunk_size=None)
    return g, cfg


def prepared(players, seats, rules=()):
    chosen = GAME.resolve_rules(list(rules))
    return GAME.prepare(GAME.load_content(GAME.content_path(None)), players, tuple(seats),
                        chosen)


@pytest.mark.parametrize("seats", [("random",) * 2, ("greedy",) * 2, ("random",) * 4,
                                   ("greedy",) * 4, ("greedy", "random", "random")])
def test_replay_agrees_with_the_fast_path(seats):
    g, cfg = config(len(seats), seats)
    prep = prepared(len(seats), seats)
    rows = np.zeros((20, len(GAME.row_columns)), np.int64)
    GAME.run_chunk(prep, cfg.seed, 0, 20, GAME.new_aggregates(prep), rows)
    for i in range(20):
        doc = replay(g, cfg, i)  # raises when the handle's row differs from run_chunk's
        row = user_row(GAME, rows[i])
        assert doc["result"]["winners"] == [row["winner"]]
        assert doc["result"]["length"] == row["length"] == row["rounds"]


def test_replay_find_and_json_shape():
    g, cfg = config(3, ("greedy",) * 3)
    doc = replay(g, cfg, 0, find="length>30,winner=2", search=2000)
    assert doc["result"]["row"]["winner"] == 2 and doc["result"]["length"] > 30
    assert {"turn", "player", "kind", "detail"} == set(doc["events"][0])


def play_checked(h, forbid=None):
    """Play to the end through the handle: every choice must be legal (apply raises
    otherwise) and never a forbidden option; returns the options used by each seat."""
    used = set()
    while not h.is_over():
        p = h.current_player()
        a = h.choose()
        legal = h.legal_actions()
        assert a in legal
        option = h.option_of(a)
        if option >= 0:
            used.add((p, option))
            assert forbid is None or not forbid[p, option]
        h.apply(a)
    return used


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_every_policy_chooses_legal_actions(players, policy):
    used = set()
    for playout in range(4):
        h = GAME.new_game(seed=11, playout=playout, players=players,
                          seats=(policy,) * players)
        used |= play_checked(h)
    assert {o for _, o in used} >= {int(KR.RONIN), int(KR.BUSHIDO), int(KR.MEDICINE)}


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_forbidden_cards_are_never_played(policy):
    prep = prepared(3, (policy,) * 3)
    forbid = np.zeros((KR.MAX_P, len(KR.OPTIONS)), np.bool_)
    forbid[0, :] = True  # seat 1 never plays a battle card (and declares as if unbanned)
    forbid[1, int(KR.UMA)] = forbid[1, int(KR.RONIN)] = True
    used = set()
    for playout in range(6):
        h = GAME.handle(prep, 5, playout, forbid=forbid)
        used |= play_checked(h, forbid)
        assert h.is_over() and h.outcome()["winners"]
    cards = {(p, o) for p, o in used if o < KR.OPT_ABILITY}  # the battle cards played
    assert not {o for p, o in used if p == 0}  # seat 1's declarations are forced: no option
    assert {o for p, o in cards if p == 1} <= {int(KR.NINJUTSU), int(KR.BUSHIDO),
                                               int(KR.MEDICINE)}
    assert {o for p, o in cards if p == 2} >= {int(KR.RONIN), int(KR.MEDICINE)}


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_forbidden_abilities_are_never_declared(policy):
    """Seat 1 may not declare POWER, seat 2 neither SPEED nor KARMA (either phase); seat 3
    may declare anything. A seat forbidden every ability still declares: the forced
    declaration uses no option."""
    prep = prepared(3, (policy,) * 3)
    forbid = np.zeros((KR.MAX_P, len(KR.OPTIONS)), np.bool_)
    ab = int(KR.OPT_ABILITY)
    forbid[0, ab + 0] = True
    forbid[1, ab + 1] = forbid[1, ab + 3] = True
    used = set()
    for playout in range(8):
        h = GAME.handle(prep, 6, playout, forbid=forbid)
        used |= play_checked(h, forbid)
    declared = {p: {o - ab for q, o in used if q == p and o >= ab} for p in range(3)}
    assert declared[0] == {1, 2, 3} and declared[1] == {0, 2} and declared[2] == {0, 1, 2, 3}
    everything = np.zeros((KR.MAX_P, len(KR.OPTIONS)), np.bool_)
    everything[0, ab:] = True
    h = GAME.handle(prep, 6, 0, forbid=everything)
    assert not {o for p, o in play_checked(h, everything) if p == 0 and o >= ab}
    assert h.is_over() and h.outcome()["winners"]


def clone(h):
    """An independent copy of a game in progress (state, streams and all)."""
    c = copy.copy(h)
    fields = []
    for f in h.st:
        fields.append(f.copy() if isinstance(f, np.ndarray)
                      else type(f)(*[a.copy() for a in f]))
    c.st = KR.State(*fields)
    c.log_buf, c.log_n = c.st.log, c.st.log_n
    return c


def swap_hidden(st, me, rng, face_down=False):
    """Change what seat `me` cannot see, consistently: each rival's hand and draw pile
    are dealt anew from the same cards (hand sizes kept); with face_down, a rival's
    face-down samurai is swapped with one of its cards in hand."""
    P = int(st.players[0])
    for q in range(P):
        if q == me:
            continue
        nh, nd = int(st.hand_n[q]), int(st.deck_n[q])
        cards = np.concatenate([st.hand[q, :nh], st.deck[q, :nd]])
        rng.shuffle(cards)
        st.hand[q, :nh], st.deck[q, :nd] = cards[:nh], cards[nh:]
        fielded = st.phase[0] == KR.FIELD and st.part[q] and q < st.actor[0]
        if face_down and fielded:
            i = [k for k in range(nh) if st.hand[q, k] >= 0]
            if i:
                st.hand[q, i[0]], st.field[q] = st.field[q], st.hand[q, i[0]]


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_hidden_information_does_not_change_a_choice(policy):
    rng = np.random.default_rng(2)
    checked = 0
    for playout in range(3):
        h = GAME.new_game(seed=21, playout=playout, players=4, seats=(policy,) * 4)
        while not h.is_over():
            if h.phase() != "draft":
                other = clone(h)
                swap_hidden(other.st, h.current_player(), rng)
                assert other.choose() == h.choose()  # both draw from equal streams
                checked += 1
            h.step()
    assert checked > 100


def test_a_face_down_samurai_does_not_change_greedy_fielding():
    """Fielding is simultaneous: a later seat's choice must not depend on what an earlier
    seat put face down (swapped here with a card of its hand)."""
    rng = np.random.default_rng(4)
    for playout in range(40):
        h = GAME.new_game(seed=9, playout=playout, players=4, seats=("greedy",) * 4)
        while not h.is_over():
            if h.phase() == "field" and h.current_player() > 0:
                other = clone(h)
                swap_hidden(other.st, h.current_player(), rng, face_down=True)
                assert other.choose() == h.choose()
            h.step()


def test_log_names_every_decision_and_chance_event():
    g, cfg = config(3, ("greedy", "random", "greedy"), seed=4)
    doc = replay(g, cfg, 2)
    events = doc["events"]
    kinds = {e["kind"] for e in events}
    assert kinds >= {"pool", "decision", "clan", "draw", "round", "reveal", "roll",
                     "takes", "discard", "final", "result"}
    decisions = [e["detail"] for e in events if e["kind"] == "decision"]
    for words in ("drafts ", "declares ", "fields ", "passes"):
        assert any(words in d for d in decisions), words
    assert all(" (of " in d for d in decisions)  # the option count of every decision
    rolls = [e for e in events if e["kind"] == "roll"]
    assert all("highest" in e["detail"] or "1 die" in e["detail"] or "Uma" in e["detail"]
               for e in rolls)
    pool = [e for e in events if e["kind"] == "pool"]
    assert len(pool) == 48 and all(e["player"] is None for e in pool)
    assert events[-1]["kind"] == "result"
    assert events[-1]["player"] == doc["result"]["winners"][0]
    text = render(doc)
    assert "-- turn 0" in text and "-- result" in text and "Clan Conflict round 1" in text
    names = [n for n in NAMES if n in text]
    assert len(names) >= 48  # samurai are named


def test_tiebreaks_and_battle_cards_are_logged():
    g, cfg = config(4, ("random",) * 4, seed=6)
    details = ""
    for playout in range(4):
        details += " ".join(e["detail"] for e in replay(g, cfg, playout)["events"])
    for words in ("tiebreaker die", "Bushido reroll", "plays Ronin", "plays Medicine",
                  "with Uma", "with Ninjutsu", "Uma: rolls no dice", "discards Ninjutsu"):
        assert words in details, words


# --- a Clan Conflict round from the rulebook, action by action -----------------------------
def code(name):
    return NAMES.index(name)


def test_clan_conflict_round_with_kalia_and_fobus():
    """POWER is declared: Blue fields Kalia Cindertrap (POWER 4), Green fields Fobus
    Dustwalker (POWER 2) with Ninjutsu, so Kalia rolls one die; after rolling, the loser
    plays Ronin and steals the winning samurai; the winner declares next."""
    h = GAME.new_game(seed=2, players=2, seats=("greedy", "greedy"))
    while h.phase() == "draft":
        h.step()
    st = h.st
    kalia, fobus = code("Kalia Cindertrap"), code("Fobus Dustwalker")
    extra = [code("Oku the Plain"), code("Whit the Fool")]
    ninjutsu, ronin = -1 - int(KR.NINJUTSU), -1 - int(KR.RONIN)
    # round 2 (battle cards allowed), Blue (seat 1) declares
    st.rnd[0] = 1
    st.declarer[0] = 0
    st.actor[0] = 0
    st.hand[0, :3] = [kalia, ronin, extra[0]]
    st.hand[1, :4] = [fobus, ninjutsu, ronin, extra[1]]
    st.hand_n[:2] = [3, 4]
    st.deck_n[:2] = 0
    for p in range(2):
        st.held[p, :] = False
        st.held[p, int(KR.RONIN)] = True
    st.held[1, int(KR.NINJUTSU)] = True
    h.apply(0)  # Blue declares POWER
    assert h.phase() == "field" and h.current_player() == 0
    assert 3 * kalia in h.legal_actions() and 3 * kalia + 1 not in h.legal_actions()
    h.apply(3 * kalia)
    assert 3 * fobus + int(KR.WITH_NINJUTSU) in h.legal_actions()
    h.apply(3 * fobus + int(KR.WITH_NINJUTSU))
    rolls = {e.player: e.detail for e in h.log() if e.kind == "roll"}
    assert "1 die" in rolls[1] and "2 dice" in rolls[2]  # Ninjutsu: Kalia rolls 1 die
    tops = [(int(st.t1[p]), int(st.t2[p]), int(st.nd[p])) for p in range(2)]
    lead = contenders_tops(tops)
    while h.phase() == "offer":
        p = h.current_player()
        losing = p not in lead
        if losing and int(KR.PLAY_RONIN) in h.legal_actions():
            h.apply(KR.PLAY_RONIN)
        else:
            h.apply(KR.PASS)
    takes = [e for e in h.log() if e.kind == "takes"][-1]
    if len(lead) == 1:  # no tiebreaker: the loser stole the winning samurai with Ronin
        winner = lead[0]
        assert takes.player == (1 - winner) + 1 and "stolen with Ronin" in takes.detail
    else:  # a tiebreaker: nobody was losing, nobody played Ronin
        winner = h.current_player()
        assert takes.player == winner + 1 and "stolen" not in takes.detail
    assert h.phase() == "declare" and h.current_player() == winner  # the winner declares


def test_observation_shows_the_public_table_and_the_own_hand_only():
    h = GAME.new_game(seed=5, players=3, seats=("greedy",) * 3)
    obs = h.observation(0)
    assert obs["phase"] == "draft" and len(obs["pool"]) == 48 and obs["hand"] == []
    while h.phase() != "field" or h.current_player() != 1:
        h.step()
    mine, theirs = h.observation(0), h.observation(1)
    assert mine["table"][1]["samurai"] != "face down"  # seat 1 sees its own samurai
    assert theirs["table"][1] == {"samurai": "face down"}  # seat 2 does not
    assert theirs["hand"] and all("hand" not in r for r in theirs["rivals"].values())
    assert {r["hand_size"] for r in theirs["rivals"].values()} <= set(range(0, 8))
    while h.phase() not in ("offer", "over"):
        h.step()
    assert h.phase() == "offer"
    seen = h.observation(2)["table"]
    assert all("dice" in t for t in seen.values())  # turned up and rolled: public
