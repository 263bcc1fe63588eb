"""Sixteen Samurai kernel: invariants on whole games and hand-built rule situations."""

import numpy as np
import pytest

from kernels import sixteen_samurai as K
from kernels.rng import new_state, new_states, seed_lanes, seed_stream
from simcli.games.sixteen_samurai import SixteenSamurai, strength_order

GAME = SixteenSamurai()
CONTENT = GAME.load_content(GAME.content_path(None))
ROSTER = CONTENT.data


def prepared(players, seats, **rules):
    chosen = GAME.resolve_rules([f"{k.replace('_', '-')}={v}" for k, v in rules.items()])
    return GAME.prepare(CONTENT, players, tuple(seats), chosen)


def play(prep, seed, index, aggs=None, rotation=0):
    aggs = aggs if aggs is not None else GAME.new_aggregates(prep)
    res = K.play_single(np.uint64(seed), index, prep.players, prep.policies, prep.ratings,
                        prep.totals, prep.rank_order, prep.pi, prep.pf, prep.table, prep.td,
                        aggs["wins"], aggs["lengths"], aggs["decl"], aggs["decl_ab"],
                        aggs["cards"], aggs["clan"], aggs["battle"], aggs["misc"],
                        aggs["fbp"], rotation)
    return res, aggs


SETUPS = [
    (2, ("greedy", "greedy"), {}),
    (2, ("random", "greedy"), {"lone_clan": "end"}),
    (3, ("random", "random", "random"), {}),
    (3, ("greedy", "random", "greedy"), {"draft": "snake"}),
    (4, ("greedy",) * 4, {}),
    (4, ("random", "greedy", "random", "greedy"), {"lone_clan": "end", "draft": "snake"}),
]


@pytest.mark.parametrize(("players", "seats", "rules"), SETUPS)
def test_every_card_ends_in_exactly_one_place(players, seats, rules):
    prep = prepared(players, seats, **rules)
    aggs = GAME.new_aggregates(prep)
    games = 150
    for idx in range(games):
        (champion, owner, deck_n, hand, hand_n, hall_n, disc, disc_n, row), _ = play(
            prep, 11, idx, aggs)
        drafted = sorted(np.nonzero(owner >= 0)[0].tolist())
        assert len(drafted) == ROSTER.clan_size * players
        assert 0 <= champion < players and row[K.R_WINNER] == champion
        assert (deck_n[:players] == 0).all() and (hall_n[:players] == 0).all()
        for p in range(players):
            assert (hand_n[p] > 0) == (p == champion)  # exactly one clan is left standing
        pile = list(disc[: disc_n[0]])
        for p in range(players):
            pile += list(hand[p, : hand_n[p]])
        samurai = sorted(c for c in pile if c >= 0)
        assert samurai == drafted  # each drafted samurai exactly once
        battle = [c for c in pile if c < 0]
        assert sorted(battle) == sorted(list(range(-5, 0)) * players)
    assert aggs["wins"].sum() == games
    assert aggs["misc"][K.M_CAPPED] == 0  # every game ended by the rules
    assert aggs["cards"][:, K.C_DRAFTED].sum() == games * ROSTER.clan_size * players
    assert aggs["lengths"][0].sum() == games
    # every contested round fields one samurai per participant
    fielded = aggs["cards"][:, K.C_FIELDED].sum()
    by_k = aggs["cards"][:, K.C_FIELDED_K2:K.C_FIELDED_K2 + 3].sum(axis=0)
    assert fielded == by_k.sum()
    assert aggs["misc"][K.M_CONTESTED] == sum(by_k[i] // (i + 2) for i in range(3))


def test_rotations_share_the_deal_and_move_each_players_luck():
    prep = prepared(3, ("random", "random", "random"))
    for idx in range(20):
        games = [play(prep, 8, idx, rotation=r)[0] for r in range(4)]
        pools = [set(np.nonzero(g[1] >= 0)[0]) for g in games]
        assert pools[0] == pools[1] == pools[2]  # the common deal is the same
        assert np.array_equal(games[3][1], games[0][1])  # rotation 3 = rotation 0 (3 seats)
        assert games[3][0] == games[0][0]


def test_lone_clan_end_has_no_uncontested_rounds():
    end = prepared(2, ("random", "random"), lone_clan="end")
    play_on = prepared(2, ("random", "random"))
    a_end = GAME.new_aggregates(end)
    a_play = GAME.new_aggregates(play_on)
    for idx in range(300):
        play(end, 3, idx, a_end)
        play(play_on, 3, idx, a_play)
    assert a_end["misc"][K.M_UNCONTESTED] == 0
    assert a_play["misc"][K.M_UNCONTESTED] > 0


def test_greedy_beats_random():
    prep = prepared(2, ("greedy", "random"))
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 5, 0, 2000, aggs, None)
    assert aggs["wins"][0] / 2000 > 0.8


# --- hand-built situations ---------------------------------------------------------------

def buffers(P=4):
    return K.new_buffers(P, len(ROSTER.names), ROSTER.clan_size, ROSTER.hand_size)


def test_draft_rotation_gives_strongest_card_to_first_greedy_picker():
    P = 4
    (perm, inpool, avail, owner, pickno, deck, deck_n, *_rest) = buffers(P)
    states = new_states(8, K.MAX_P + 1)
    seed_lanes(states, 1, 0)
    pi = prepared(P, ("greedy",) * P).pi
    order = strength_order(ROSTER.ratings)
    last = K.draft(states, np.arange(K.MAX_P), P, np.full(P, K.GREEDY), order, pi, perm,
                   inpool, avail, owner, pickno, deck, deck_n)
    assert last == P - 1  # plain rotation: seat 4 picks last
    pool = [c for c in order if owner[c] >= 0]
    for pick, c in enumerate(pool):  # greedy picks in strength order, seats in rotation
        assert pickno[c] == pick and owner[c] == pick % P
    assert (deck_n == ROSTER.clan_size).all()


def test_draft_snake_reverses_every_round():
    P = 3
    (perm, inpool, avail, owner, pickno, deck, deck_n, *_rest) = buffers(P)
    states = new_states(8, K.MAX_P + 1)
    seed_lanes(states, 1, 0)
    pi = prepared(P, ("greedy",) * P, draft="snake").pi
    last = K.draft(states, np.arange(K.MAX_P), P, np.full(P, K.GREEDY),
                   strength_order(ROSTER.ratings), pi, perm, inpool, avail, owner, pickno,
                   deck, deck_n)
    by_pick = {int(pickno[c]): int(owner[c]) for c in range(len(owner)) if owner[c] >= 0}
    assert [by_pick[i] for i in range(6)] == [0, 1, 2, 2, 1, 0]
    assert last == 0  # 16 rounds: the last one runs backwards


def test_ronin_steals_the_winning_samurai():
    P = 3
    *_a, hand, hand_n, hall, hall_n, disc, disc_n, _i, _si, _sb, _sf, _sh = buffers(P)
    field = np.array([10, 11, 12, -1])
    part = np.array([True, True, True, False])
    medic = np.array([True, False, False, False])
    recipient = K.settle_round(P, 1, 2, field, part, medic, hand, hand_n, hall, hall_n, disc,
                               disc_n)
    assert recipient == 2
    assert list(hall[2, : hall_n[2]]) == [11] and hall_n[1] == 0  # stolen from the winner
    assert list(hand[0, : hand_n[0]]) == [10]  # Medicine saves the defeated samurai
    assert list(disc[: disc_n[0]]) == [12]


def test_ronin_played_by_the_winner_changes_nothing_and_medicine_of_winner_is_wasted():
    P = 2
    *_a, hand, hand_n, hall, hall_n, disc, disc_n, _i, _si, _sb, _sf, _sh = buffers(P)
    field = np.array([3, 4, -1, -1])
    part = np.array([True, True, False, False])
    medic = np.array([True, False, False, False])
    assert K.settle_round(P, 0, 0, field, part, medic, hand, hand_n, hall, hall_n, disc,
                          disc_n) == 0
    assert list(hall[0, : hall_n[0]]) == [3] and hand_n[0] == 0
    assert list(disc[: disc_n[0]]) == [4]


def test_hand_of_all_battle_cards_is_reshuffled():
    P = 1
    *_a, deck, deck_n, hand, hand_n, _h, _hn, _d, _dn, _i, _si, _sb, _sf, _sh = buffers(P)
    hand[0, :5] = [-1, -2, -3, -4, -5]
    hand_n[0] = 5
    deck[0, :3] = [7, 8, 9]
    deck_n[0] = 3
    state = new_state(8)
    seed_stream(state, 4, 0)
    n = K.refill(state, 0, hand, hand_n, deck, deck_n, 5)
    assert n >= 1
    cards = sorted(list(hand[0, : hand_n[0]]) + list(deck[0, : deck_n[0]]))
    assert cards == [-5, -4, -3, -2, -1, 7, 8, 9]  # nothing lost or duplicated
    assert hand_n[0] == 5 and (hand[0, :5] >= 0).any()


def test_hand_of_battle_cards_with_no_samurai_left_is_kept():
    P = 1
    *_a, deck, deck_n, hand, hand_n, _h, _hn, _d, _dn, _i, _si, _sb, _sf, _sh = buffers(P)
    hand[0, :5] = [-1, -2, -3, -4, -5]
    hand_n[0] = 5
    deck_n[0] = 0
    state = new_state(8)
    assert K.refill(state, 0, hand, hand_n, deck, deck_n, 5) == 0
    assert hand_n[0] == 5


def test_final_battle_winner_cannot_field_the_same_samurai_twice():
    hand = np.zeros((1, 10), np.int64)
    hand_n = np.array([3])
    hand[0, :3] = [5, 6, 7]
    state = new_state(8)
    seed_stream(state, 1, 0)
    picks = {int(hand[0, K.random_samurai(state, hand, hand_n, 0, 6)]) for _ in range(500)}
    assert picks == {5, 7}
    best = K.best_for(hand, hand_n, 0, 0, ROSTER.ratings, ROSTER.totals, hand[0, K.best_for(
        hand, hand_n, 0, 0, ROSTER.ratings, ROSTER.totals, -1)])
    assert best >= 0
    hand_n[0] = 1  # only one samurai left: it may fight again
    assert K.random_samurai(state, hand, hand_n, 0, 5) == 0


def test_greedy_fields_most_dice_and_declares_its_best_ability():
    ratings = np.array([[1, 1, 1, 1], [3, 1, 1, 1], [3, 2, 2, 2], [1, 4, 1, 1]], np.int64)
    totals = ratings.sum(axis=1)
    hand = np.array([[0, 1, 2, -1, 3]], np.int64)
    hand_n = np.array([5])
    # POWER: cards 1 and 2 both roll 3; greedy keeps the all-rounder (2) and fields 1
    assert hand[0, K.best_for(hand, hand_n, 0, 0, ratings, totals, -1)] == 1
    state = new_state(8)
    assert K.declare(state, K.GREEDY, 0, hand, hand_n, ratings) == 1  # SPEED: a 4


def test_greedy_after_rolling_choices():
    n = 2
    part = np.array([True, True])
    is_uma = np.zeros(2, np.bool_)
    k = np.array([4, 2])
    nd = np.array([4, 2])
    td = prepared(2, ("greedy",) * 2).td
    medic = np.zeros(2, np.bool_)
    state = new_state(8)
    hand = np.array([[-3, 0, 0, 0, 0], [0, 0, 0, 0, 0]], np.int64)  # Ronin
    hand_n = np.array([1, 0])
    losing = (np.array([2, 5]), np.array([1, 4]), np.array([0.0, 1.0]))
    hopeless = (np.array([2, 8]), np.array([1, 8]), np.array([0.0, 1.0]))
    winning = (np.array([8, 2]), np.array([8, 1]), np.array([1.0, 0.0]))
    args = (part, None, None, nd, k, is_uma, n, -1, medic)

    def choose(hand_row, tops):
        hand[0, 0] = hand_row
        t1, t2, shares = tops
        a = list(args)
        a[1], a[2] = t1, t2
        return K.choose_after(state, K.GREEDY, 0, hand, hand_n, *a, shares, td, 8, 0.10)

    assert choose(-1 - K.RONIN, losing) == (K.RONIN, -1)
    assert choose(-1 - K.RONIN, winning) == (-1, -1)
    assert choose(-1 - K.MEDICINE, losing) == (K.MEDICINE, -1)
    assert choose(-1 - K.MEDICINE, winning) == (-1, -1)
    # Bushido: 4 dice showing 2,1 against 5,4: rerolling its own 4 dice gains most
    assert choose(-1 - K.BUSHIDO, losing) == (K.BUSHIDO, 0)
    # against 8,8 a reroll of either side gains less than the 0.10 margin: keep the card
    assert choose(-1 - K.BUSHIDO, hopeless) == (-1, -1)
    assert choose(-1 - K.BUSHIDO, winning) == (-1, -1)


def test_share_after_reroll_matches_direct_enumeration():
    td = prepared(2, ("greedy",) * 2).td
    t1 = np.array([6, 7, 5])
    t2 = np.array([2, 3, 5])
    nd = np.array([3, 2, 2])
    part = np.ones(3, np.bool_)
    direct = 0.0
    for a in range(1, 9):
        for b in range(0, a + 1):
            w = td[3, a, b]
            if w:
                tt1, tt2 = t1.copy(), t2.copy()
                tt1[0], tt2[0] = a, b
                mask = K.top_group(tt1, tt2, nd, part, 3)
                if mask & 1:
                    direct += w / bin(mask).count("1")
    got = K.share_after_reroll(0, 0, 3, t1, t2, nd, part, 3, td, 8)
    assert got == pytest.approx(direct, abs=1e-12)
    assert list(t1) == [6, 7, 5] and list(t2) == [2, 3, 5]  # restored
