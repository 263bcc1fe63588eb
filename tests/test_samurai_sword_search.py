"""Samurai Sword's search player (mcts, ISMCTS): the same results for a seed on any thread
count and chunk size, only legal and allowed actions, the run's statistics untouched by
simulations, replay equal to the fast path, no peeking at what the searcher cannot see,
and the winning attack found when one exists."""

import numpy as np
import pytest

from kernels.samurai_sword import rules as K
from kernels.samurai_sword.stats import TABLE, Role, Team
from kernels.stat_table import zeros
from simcli.errors import UserError
from simcli.games.samurai_sword import SamuraiSword
from tests.search_checks import check_policy_names, check_same_on_one_or_two_threads, play_in_chunks

GAME = SamuraiSword()
CONTENT = GAME.load_content(GAME.content_path(None))
P = 5
SEATS = ("mcts:10", "heuristic", "heuristic", "heuristic", "heuristic")
NO_FORBID = np.zeros((K.MAX_P, K.N_OPTIONS), np.bool_)


def prepared(seats=SEATS, players=P):
    return GAME.prepare(CONTENT, players, tuple(seats), GAME.resolve_rules([]))


def chunked(sizes, seats=SEATS, seed=3, rotation=0, forbid=None):
    """Aggregates and rows of playouts 0..sum(sizes)-1 played in chunks of `sizes`."""
    return play_in_chunks(GAME, prepared(seats), sizes, seed, rotation, forbid)


def test_policy_names_parse_and_bad_ones_are_refused():
    check_policy_names(GAME, ("mcts2",))
    assert GAME.policy_spec("mcts").rollout == "heuristic"
    with pytest.raises(UserError):
        prepared(("mcts:x", *SEATS[1:]))


def test_same_seed_same_results_for_any_chunks_and_the_searcher_changes_games():
    a, rows_a = chunked([4])
    b, rows_b = chunked([1, 3])
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert np.array_equal(rows_a, rows_b)
    _, rows_h = chunked([4], seats=("heuristic",) * P)
    assert not np.array_equal(rows_a, rows_h)  # the searching seat plays differently


def test_same_statistics_on_one_or_two_threads_mirrored():
    check_same_on_one_or_two_threads(GAME, prepared(), SEATS, 3, (3, 1))


def test_simulations_do_not_reach_the_run_statistics():
    aggs, rows = chunked([3])
    assert aggs["ends"].sum() == 3 and aggs["turns"].sum() == 3
    assert aggs["turns"] @ np.arange(len(aggs["turns"])) == rows[:, 4].sum()
    assert aggs["seat"][:P, :, 0].sum() == 3 * P


def handle(seats, seed=1, playout=0, rotation=0):
    return GAME.handle(prepared(seats), seed, playout, rotation)


def test_every_search_action_is_legal_and_replay_equals_the_fast_path():
    seats = ("mcts:8", "heuristic", "mcts:5:rollout=random", "random", "heuristic")
    _, rows = chunked([2], seats=seats, seed=2, rotation=3)
    h = handle(seats, seed=2, playout=1, rotation=3)
    searched = 0
    while not h.is_over():
        legal = h.legal_actions()
        a = h.choose()
        assert a in legal
        searched += h.search[0][h.current_player()] > 0
        h.apply(a)
    assert searched > 10
    assert list(h.row().values()) == rows[1].tolist()


def test_forbidden_options_are_honoured():
    h = handle(SEATS, seed=6)
    h.forbid[0, K.WEAPON] = True
    h.forbid[0, K.OPT_PARRY] = True
    mattered = 0
    while not h.is_over():
        if h.current_player() == 0:
            legal = h.legal_actions()
            opts = [int(K.option_of(h.st, a)) for a in legal]
            allowed = [a for a, o in zip(legal, opts, strict=True)
                       if o not in (K.WEAPON, K.OPT_PARRY)]
            a = h.choose()
            assert a in (allowed or legal)
            mattered += len(allowed) < len(legal)
        h.step()
    assert mattered > 0  # the ban mattered at some decision
    forbid = np.zeros((P, K.N_OPTIONS), np.bool_)
    forbid[:, K.WEAPON] = True  # no seat, the searcher included, plays a Weapon
    aggs, _ = chunked([2], forbid=forbid)
    weapons = CONTENT.data.effects == K.WEAPON
    assert aggs["cards"][:len(weapons)][weapons].sum() == 0
    assert aggs["cards"].sum() > 0


# --- no peeking ---------------------------------------------------------------------------

def at_search_decision(seed, playout, seat, turns):
    """A handle at `seat`'s first decision in its own Play phase after `turns` turns; seat
    `seat` searches (mcts:40), the others play the heuristic."""
    seats = ["heuristic"] * P
    seats[seat] = "mcts:40"
    h = handle(seats, seed=seed, playout=playout)
    game = h.st.game
    while not (h.current_player() == seat and game["phase"][0] == K.PH_PLAY
               and game["turns"][0] >= turns):
        h.step()
        assert not h.is_over()
    return h


def search(h, st):
    """The searching seat's choice in state `st` and the root's children (action, visits,
    summed reward), sorted by action."""
    a = h.k.decide(st, h.playout, h.decisions)  # the search entry's own decision
    t = h.ws.tree
    kids = []
    ch = t.child[0]
    while ch >= 0:
        kids.append((int(t.action[ch]), int(t.visits[ch]), round(float(t.reward[ch]), 9)))
        ch = t.sibling[ch]
    return int(a), sorted(kids)


def copy_state(st):
    return st._replace(seats=st.seats.copy(), game=st.game.copy(), log=st.log.copy(),
                       legal=st.legal.copy())


def hide_differently(st, me, rng):
    """The same observation for `me`, other hidden facts: the other players' roles (but
    the Shogun's) moved around with their stars and multipliers, the other hands and the
    deck dealt again from their pool, other random streams."""
    seats, game = st.seats, st.game
    others = [s for s in range(1, P) if s != me]
    moved = others[1:] + others[:1]
    for f in ("role", "team", "stars", "mult"):
        seats[f][moved] = seats[f][others].copy()
    hands = seats["hand"]
    pool = [int(c) for c in game["deck"][0][:game["deck_n"][0]]]
    for s in others + [0] * (me != 0):
        for c, k in enumerate(hands[s]):
            pool += [c] * int(k)
        hands[s] = 0
    rng.shuffle(pool)
    for s in others + [0] * (me != 0):
        for _ in range(int(seats["hand_n"][s])):
            hands[s, pool.pop()] += 1
    game["deck"][0, :len(pool)] = pool
    game["deck_n"][0] = len(pool)
    game["rng"][0] = np.flip(game["rng"][0], axis=0)


def observation(st, me):
    out = np.zeros(K.obs_size(len(CONTENT.data.copies)), np.int64)
    n = K.observe(st, me, out)
    return out[:n]


@pytest.mark.parametrize(("seed", "seat", "turns"), [(1, 2, 6), (4, 0, 3)])
def test_the_search_does_not_peek_at_hidden_roles_hands_or_streams(seed, seat, turns):
    """Two states that differ only in what the searcher cannot see give the same choice
    and the same root statistics for the same search stream."""
    h = at_search_decision(seed, 0, seat, turns)
    before = copy_state(h.st)
    a1, kids1 = search(h, h.st)
    assert h.st.seats.tobytes() == before.seats.tobytes()  # the real state is only read
    for f in K.GAME.names:  # (but the rules' scratch for a decision, game.work)
        assert f == "work" or np.array_equal(h.st.game[f], before.game[f]), f
    other = copy_state(h.st)
    hide_differently(other, seat, np.random.default_rng(seed))
    assert np.array_equal(observation(other, seat), observation(h.st, seat))
    assert not np.array_equal(other.seats["hand"], h.st.seats["hand"])
    assert not np.array_equal(other.seats["role"], h.st.seats["role"])
    a2, kids2 = search(h, other)
    assert len(kids1) > 1 and sum(v for _, v, _ in kids1) == 40
    assert (a1, kids1) == (a2, kids2)


# --- a position with a winning move ---------------------------------------------------------

def winning_position(h):
    """Seat 2 (a Ninja, to play) holds one Bokken and sits next to the Shogun (seat 1 with
    1 resilience and 1 Honor left, no Parry anywhere but in the discard pile); defeating
    the Shogun ends the game, and the Ninjas win the scoring whoever the other one is."""
    st = h.st
    seats, game = st.seats, st.game
    c = CONTENT.data
    T = len(c.copies)
    bokken = c.card_names.index("Bokken")
    parry = c.card_names.index("Parry")
    tea = c.card_names.index("Tea Ceremony")
    roles = [Role.SHOGUN, Role.NINJA, Role.SAMURAI, Role.RONIN, Role.NINJA]
    teams = [Team.SHOGUN, Team.NINJA, Team.SHOGUN, Team.RONIN, Team.NINJA]
    seats["role"][:P] = roles
    seats["team"][:P] = teams
    seats["mult"][:P] = [2 if r == Role.RONIN else 1 for r in roles]
    seats["stars"][:P] = [0, 1, 0, 0, 2]
    seats["ability"][:P] = K.NO_ABILITY
    seats["max_res"][:P] = 5
    seats["res"][:P] = [1, 5, 5, 5, 5]
    seats["honor"][:P] = [1, 5, 3, 3, 3]  # Ninjas 6 + 3, Ronin 2 x 3, Shogun's team 0 + 3
    for f in ("hostile", "loyal", "hand", "props", "prop_n"):
        seats[f] = 0
    seats["hand"][1, bokken] = 1
    seats["hand"][[0, 2, 3, 4], tea] = 1
    seats["hand_n"] = seats["hand"].sum(axis=1)
    left = c.copies - seats["hand"][:P, :T].sum(axis=0)
    game["disc"][0, :left[parry]] = parry
    game["disc_n"][0] = left[parry]
    left[parry] = 0
    deck = np.repeat(np.arange(T), left)
    game["deck"][0, :len(deck)] = deck
    game["deck_n"][0] = len(deck)
    for f, v in (("bushido", -1), ("actor", 1), ("to_act", 1), ("phase", K.PH_PLAY),
                 ("weapons_played", 0), ("plays", 0), ("end", 0)):
        game[f][0] = v
    return K.action_code(st, bokken, 0, -1)


@pytest.mark.parametrize("budget", [60, 150])
def test_the_search_finds_the_attack_that_wins(budget):
    seats = ["heuristic"] * P
    seats[1] = f"mcts:{budget}"
    h = handle(seats, seed=budget, playout=3)
    win = winning_position(h)
    legal = h.legal_actions()
    assert win in legal and len(legal) > 2
    assert h.choose() == win
    h.apply(win)
    assert h.is_over() and h.outcome()["team"] == "Ninjas"


def test_workspace_counts_simulated_moves():
    prep = prepared()
    aggs = zeros(TABLE, GAME.sizes(prep))
    moves = GAME.run_search_chunk(prep, 1, 0, 1, aggs, np.zeros((0, 24), np.int64), 0,
                                  NO_FORBID)
    assert moves > aggs["misc"].sum() // 10 > 0


@pytest.mark.parametrize(("players", "seat"), [(4, 2), (4, 0), (7, 3)])
def test_a_determinization_keeps_the_searchers_observation_and_every_card(players, seat):
    """Resampled states look the same to the searcher (its own role, stars, multiplier
    and hand, every public fact), hold the same cards and roles in play, and differ
    between streams."""
    from kernels.rng import seed_stream, stream_states
    from kernels.samurai_sword import search_hooks as KH

    seats = ["heuristic"] * players
    seats[seat] = "mcts:5"
    h = GAME.handle(prepared(seats, players), 7, 2)
    for _ in range(40):
        h.step()
    assert not h.is_over()
    me = int(K.to_move(h.st))
    ws = h.ws
    root = ws.scratch._replace(st=h.st)
    stream = stream_states(0, 1)
    seen = set()
    for k in range(12):
        seed_stream(stream[0], np.uint64(k), np.int64(0))
        KH.clone_state(ws.scratch, root)
        KH.determinize_state(ws.scratch, np.int64(me), stream[0])
        s, real = ws.scratch.st, h.st
        assert np.array_equal(observation(s, me), observation(real, me))
        n = players
        cards = s.seats["hand"][:n].sum(axis=0) + np.bincount(
            s.game["deck"][0, :s.game["deck_n"][0]], minlength=K.MAX_T)
        cards_real = real.seats["hand"][:n].sum(axis=0) + np.bincount(
            real.game["deck"][0, :real.game["deck_n"][0]], minlength=K.MAX_T)
        assert np.array_equal(cards, cards_real)
        assert sorted(s.seats["role"][:n]) == sorted(real.seats["role"][:n])
        assert s.seats["role"][0] == Role.SHOGUN
        for q in range(n):
            r = s.seats["role"][q]
            assert s.seats["team"][q] == K.TEAM_OF[r]
            assert (s.seats["stars"][q] > 0) == (r == Role.NINJA)
        seen.add(s.seats["hand"][:n].tobytes() + s.seats["role"][:n].tobytes())
    assert len(seen) > 6
