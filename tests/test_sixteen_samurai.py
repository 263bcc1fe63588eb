"""Sixteen Samurai kernel: invariants on whole games (fast path) and the rules' hand-built
situations (draft order, Ronin, Medicine, the reshuffle of a hand of battle cards, the
Final Battle's fielding rule, greedy's choices), scripted through the Python handle."""

import numpy as np
import pytest

from kernels.sixteen_samurai import rules as KR
from kernels.sixteen_samurai.play import N_ROW, Call, Row, run
from kernels.sixteen_samurai.stats import BattleStat, CardStat, Misc
from simcli.games.handle import fast_path
from simcli.games.sixteen_samurai import SixteenSamurai, no_forbid, strength_order
from tests.naive import greedy_bushido_target, share_after_reroll

GAME = SixteenSamurai()
CONTENT = GAME.load_content(GAME.content_path(None))
ROSTER = CONTENT.data
NAMES = ROSTER.names


def prepared(players, seats, **rules):
    chosen = GAME.resolve_rules([f"{k.replace('_', '-')}={v}" for k, v in rules.items()])
    return GAME.prepare(CONTENT, players, tuple(seats), chosen)


def play(prep, seed, index, aggs=None, rotation=0):
    """One whole game in the fast path; returns the finished state, its row and aggs."""
    aggs = aggs if aggs is not None else GAME.new_aggregates(prep)
    st = GAME.state(prep, aggs, rotation=rotation)
    rows = np.zeros((1, N_ROW), np.int64)
    fast_path(run, Call.PLAY, st, no_forbid(), seed, index, 1, rows)
    return st, rows[0], aggs


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
        st, row, _ = play(prep, 11, idx, aggs)
        champion = int(st.champion[0])
        drafted = sorted(np.nonzero(st.owner >= 0)[0].tolist())
        assert len(drafted) == ROSTER.clan_size * players
        assert 0 <= champion < players and row[Row.WINNER] == champion
        assert row[Row.ROUNDS] == row[Row.CC_ROUNDS] + row[Row.FB_ROUNDS]
        assert (st.deck_n[:players] == 0).all() and (st.hall_n[:players] == 0).all()
        for p in range(players):
            assert (st.hand_n[p] > 0) == (p == champion)  # exactly one clan is left standing
        pile = list(st.disc[: st.disc_n[0]])
        for p in range(players):
            pile += list(st.hand[p, : st.hand_n[p]])
        samurai = sorted(c for c in pile if c >= 0)
        assert samurai == drafted  # each drafted samurai exactly once
        battle = [c for c in pile if c < 0]
        assert sorted(battle) == sorted(list(range(-5, 0)) * players)
    assert aggs["wins"].sum() == games
    assert aggs["misc"][Misc.CAPPED_GAMES] == 0  # every game ended by the rules
    assert aggs["cards"][:, CardStat.DRAFTED].sum() == games * ROSTER.clan_size * players
    assert aggs["lengths"][0].sum() == games
    # every contested round fields one samurai per participant
    fielded = aggs["cards"][:, CardStat.FIELDED].sum()
    by_k = aggs["cards"][:, CardStat.FIELDED_K2:CardStat.FIELDED_K4 + 1].sum(axis=0)
    assert fielded == by_k.sum()
    assert aggs["misc"][Misc.CONTESTED_ROUNDS] == sum(by_k[i] // (i + 2) for i in range(3))


def test_rotations_share_the_deal_and_move_each_players_luck():
    prep = prepared(3, ("random", "random", "random"))
    for idx in range(20):
        games = [play(prep, 8, idx, rotation=r)[0] for r in range(4)]
        pools = [set(np.nonzero(g.owner >= 0)[0]) for g in games]
        assert pools[0] == pools[1] == pools[2]  # the common deal is the same
        assert np.array_equal(games[3].owner, games[0].owner)  # rotation 3 = rotation 0
        assert games[3].champion[0] == games[0].champion[0]


def test_lone_clan_end_has_no_uncontested_rounds():
    end = prepared(2, ("random", "random"), lone_clan="end")
    play_on = prepared(2, ("random", "random"))
    a_end = GAME.new_aggregates(end)
    a_play = GAME.new_aggregates(play_on)
    GAME.run_chunk(end, 3, 0, 300, a_end, None)
    GAME.run_chunk(play_on, 3, 0, 300, a_play, None)
    assert a_end["misc"][Misc.UNCONTESTED_ROUNDS] == 0
    assert a_play["misc"][Misc.UNCONTESTED_ROUNDS] > 0


def test_greedy_beats_random():
    prep = prepared(2, ("greedy", "random"))
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 5, 0, 2000, aggs, None)
    assert aggs["wins"][0] / 2000 > 0.8


def test_named_stats_keep_the_report_keys():
    prep = prepared(4, ("greedy",) * 4)
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 5, 0, 50, aggs, None)
    from simcli.games.sixteen_samurai import named_stats

    s = named_stats(aggs, ROSTER, 4)
    assert set(s["cards"]) >= {"drafted", "pick_sum", "pick_sq", "fielded", "fielded_k2",
                               "fielded_k3", "fielded_k4", "field_won", "in_final",
                               "survived", "owner_won", "fb_fielded", "fb_won"}
    assert list(s["cards"]["fielded_k3"]) == list(aggs["cards"][:, 5])
    assert set(s["battle"]) >= {"played_rounds", "held_rounds_won", "unused_at_end", "effect"}
    assert s["misc"]["capped_games"] == int(aggs["misc"][5])
    assert list(s["len_fb"]) == list(aggs["lengths"][1])
    assert s["decl_fb"].shape == aggs["decl"][1].shape


# --- hand-built situations, through the handle ---------------------------------------------
def new_game(players=2, seats=None, seed=1, **rules):
    seats = seats or ("greedy",) * players
    return GAME.new_game(seed=seed, players=players, seats=seats,
                         rules={k.replace("_", "-"): v for k, v in rules.items()})


def finish_draft(h):
    while h.phase() == "draft":
        h.step()


def code(name):
    return NAMES.index(name)


def battle(b):
    return -1 - int(b)


def set_pile(arr, arr_n, p, cards):
    arr[p, : len(cards)] = cards
    arr_n[p] = len(cards)


def test_draft_rotation_gives_strongest_card_to_first_greedy_picker():
    P = 4
    h = new_game(P)
    order = strength_order(ROSTER.ratings)
    finish_draft(h)
    st = h.st
    pool = [int(c) for c in order if st.owner[c] >= 0]
    for pick, c in enumerate(pool):  # greedy picks in strength order, seats in rotation
        assert st.pickno[c] == pick and st.owner[c] == pick % P
    assert h.current_player() == P - 1  # plain rotation: seat 4 picks last, declares first
    assert h.phase() == "declare"


def test_draft_snake_reverses_every_round():
    h = new_game(3, draft="snake")
    finish_draft(h)
    st = h.st
    by_pick = {int(st.pickno[c]): int(st.owner[c]) for c in range(len(NAMES))
               if st.owner[c] >= 0}
    assert [by_pick[i] for i in range(6)] == [0, 1, 2, 2, 1, 0]
    assert h.current_player() == 0  # 16 rounds: the last one runs backwards


def offer_position(h, dice, hands, declarer=0, rnd=3):
    """A Clan Conflict round after the roll: every seat fought with samurai field[p]
    showing dice[p] = (highest, second, dice rolled); the declarer is offered first."""
    st = h.st
    P = len(dice)
    st.rnd[0] = rnd
    st.declarer[0] = declarer
    st.ability[0] = 0
    st.npart[0] = P
    st.ronin_by[0] = -1
    st.offer[0] = 0
    st.again[0] = False
    fielded = [code("Bull Irongut"), code("Eve Dewpike"), code("Vera Terrasky"),
               code("Tsuki Lunablade")]
    for p in range(P):
        st.part[p] = True
        st.field[p] = fielded[p]
        st.before[p] = -1
        st.t1[p], st.t2[p], st.nd[p] = dice[p]
        st.is_uma[p] = False
        st.medic[p] = False
        set_pile(st.hand, st.hand_n, p, hands[p])
        st.deck_n[p] = 0
        st.hall_n[p] = 0
        for b in range(KR.N_BATTLE):
            st.held[p, b] = battle(b) in hands[p]
            st.played_r[p, b] = False
    st.phase[0] = KR.OFFER
    st.auto[0] = KR.GO_NONE
    st.disc_n[0] = 0
    st.actor[0] = declarer
    return fielded


def test_ronin_steals_the_winning_samurai_and_medicine_saves_the_defeated():
    h = new_game(3)
    finish_draft(h)
    ronin, medicine = battle(KR.RONIN), battle(KR.MEDICINE)
    fielded = offer_position(h, [(2, 1, 2), (8, 1, 2), (3, 1, 2)],
                             [[medicine], [], [ronin]])
    # seat 2 leads with an 8; seat 1 (declarer, Medicine) then seat 3 (Ronin) are offered
    assert h.current_player() == 0 and h.legal_actions() == [KR.PASS, KR.PLAY_MEDICINE]
    h.apply(KR.PLAY_MEDICINE)
    assert h.current_player() == 2 and h.legal_actions() == [KR.PASS, KR.PLAY_RONIN]
    h.apply(KR.PLAY_RONIN)
    # a second pass finds nobody holding an after-rolling card: the round is resolved
    st = h.st
    assert h.phase() == "declare"
    assert list(st.hall[2, : st.hall_n[2]]) == [fielded[1]]  # stolen from the winner
    assert st.hall_n[1] == 0
    assert fielded[0] in st.hand[0, : st.hand_n[0]]  # Medicine saved seat 1's samurai
    disc = list(st.disc[: st.disc_n[0]])
    assert sorted(disc) == sorted([medicine, ronin, fielded[2]])  # seat 3's samurai lost
    assert h.current_player() == 1  # the winner, not the thief, declares next
    effect = h.aggs["battle"][:, BattleStat.EFFECT]
    assert effect[KR.RONIN] == 1 and effect[KR.MEDICINE] == 1


def test_a_sure_winner_is_not_offered_ronin_or_medicine_but_a_tied_one_is():
    h = new_game(2)
    finish_draft(h)
    ronin, medicine, bushido = battle(KR.RONIN), battle(KR.MEDICINE), battle(KR.BUSHIDO)
    offer_position(h, [(8, 5, 2), (7, 7, 2)], [[ronin, medicine, bushido], []])
    # Bushido: reroll either side
    assert h.legal_actions() == [KR.PASS, KR.BUSHIDO_ON, KR.BUSHIDO_ON + 1]
    offer_position(h, [(8, 5, 2), (8, 5, 2)], [[ronin, medicine], []])
    assert h.legal_actions() == [KR.PASS, KR.PLAY_RONIN, KR.PLAY_MEDICINE]


def test_ronin_played_by_the_winner_changes_nothing():
    for seed in range(1, 40):
        h = new_game(2, seed=seed)
        finish_draft(h)
        ronin, medicine = battle(KR.RONIN), battle(KR.MEDICINE)
        spare = [code("Oku the Plain"), code("Whit the Fool")]  # the game goes on
        fielded = offer_position(h, [(8, 5, 2), (8, 5, 2)],
                                 [[ronin, medicine, spare[0]], [spare[1]]])
        h.apply(KR.PLAY_RONIN)
        h.apply(KR.PLAY_MEDICINE)  # offered again in the second pass
        st = h.st
        assert h.phase() == "declare"
        if st.hall_n[0] == 1:  # seat 1 won the tiebreaker: its own Ronin is no theft
            assert list(st.hall[0, :1]) == [fielded[0]] and st.hall_n[1] == 0
            assert fielded[0] not in st.hand[0, : st.hand_n[0]]  # Medicine of a winner
            assert fielded[1] in st.disc[: st.disc_n[0]]
            assert h.aggs["battle"][KR.RONIN, BattleStat.EFFECT] == 0
            return
    raise AssertionError("seat 1 never won the tiebreaker")


def refill_position(h, hand, deck):
    """Seat 1 (of 2) about to field its only samurai in an uncontested round; what it
    draws afterwards comes from `deck` (top card last)."""
    st = h.st
    st.rnd[0] = 2
    st.declarer[0] = 0
    set_pile(st.hand, st.hand_n, 0, hand)
    set_pile(st.deck, st.deck_n, 0, deck)
    set_pile(st.hand, st.hand_n, 1, [])
    st.deck_n[1] = 0
    st.part[0], st.part[1] = True, False
    st.npart[0] = 1
    st.before[:] = -1
    st.medic[:] = False
    st.ronin_by[0] = -1
    st.phase[0] = KR.FIELD
    st.actor[0] = 0
    st.ability[0] = 0


def test_hand_of_all_battle_cards_is_reshuffled():
    h = new_game(2)
    finish_draft(h)
    samurai = [code("Kalia Cindertrap"), code("Fobus Dustwalker"), code("Eve Dewpike")]
    four = [battle(b) for b in (KR.NINJUTSU, KR.UMA, KR.RONIN, KR.BUSHIDO)]
    refill_position(h, [samurai[0], *four], [samurai[1], samurai[2], battle(KR.MEDICINE)])
    h.apply(3 * samurai[0])  # the hand draws Medicine: 5 battle cards, reshuffled
    st = h.st
    cards = sorted(list(st.hand[0, : st.hand_n[0]]) + list(st.deck[0, : st.deck_n[0]]))
    assert cards == sorted([*four, battle(KR.MEDICINE), samurai[1], samurai[2]])
    assert st.hand_n[0] == 5 and (st.hand[0, :5] >= 0).any()
    assert h.aggs["misc"][Misc.BATTLE_RESHUFFLES] >= 1
    assert any(e.kind == "reshuffle" for e in h.log())


def test_hand_of_battle_cards_with_no_samurai_left_is_kept():
    h = new_game(2)
    finish_draft(h)
    four = [battle(b) for b in (KR.NINJUTSU, KR.UMA, KR.RONIN, KR.BUSHIDO)]
    kalia = code("Kalia Cindertrap")
    refill_position(h, [kalia, *four], [battle(KR.MEDICINE)])
    h.apply(3 * kalia)  # draws Medicine: 5 battle cards, no samurai left to draw
    assert h.aggs["misc"][Misc.BATTLE_RESHUFFLES] == 0
    assert not any(e.kind == "reshuffle" for e in h.log())
    # nobody holds a samurai: the Clan Conflict ends and the 5 cards are discarded unused
    assert h.aggs["battle"][:, BattleStat.UNUSED_AT_END].sum() >= 5
    assert h.is_over()  # Kalia alone in the Final Battle


def final_position(h, hand, last):
    st = h.st
    set_pile(st.hand, st.hand_n, 0, hand)
    set_pile(st.hand, st.hand_n, 1, [code("Eve Dewpike")])
    st.part[0], st.part[1] = True, True
    st.npart[0] = 2
    st.last_card[0] = last
    st.phase[0] = KR.FB_FIELD
    st.actor[0] = 0
    st.ability[0] = 0


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_final_battle_winner_cannot_field_the_same_samurai_twice(policy):
    h = new_game(2, seats=(policy, policy))
    finish_draft(h)
    a, b, c = code("Kalia Cindertrap"), code("Fobus Dustwalker"), code("Bull Irongut")
    final_position(h, [a, b, c], last=a)  # Kalia won seat 1's last round
    assert sorted(h.legal_actions()) == sorted([b, c])
    assert {h.choose() for _ in range(50)} <= {b, c}
    final_position(h, [a], last=a)  # only one samurai left: it may fight again
    assert h.legal_actions() == [a]


def test_greedy_fields_most_dice_and_declares_its_best_ability():
    h = new_game(2)
    finish_draft(h)
    st = h.st
    # Fobus P2 S1 A1 K2, Kalia P4 S2 A1 K3, Ikoma P2 S4 A2 K1: POWER and SPEED both have a
    # 4; POWER totals 8 against SPEED's 7
    kalia, fobus = code("Kalia Cindertrap"), code("Fobus Dustwalker")
    ikoma = code("Ikoma Nightbreaker")
    refill_position(h, [fobus, kalia, ikoma, battle(KR.RONIN)], [])
    st.phase[0] = KR.DECLARE
    assert h.choose() == 0  # POWER
    st.ability[0] = 1
    st.phase[0] = KR.FIELD
    assert h.choose() == 3 * ikoma  # SPEED: Ikoma rolls 4


def test_greedy_plays_ronin_and_medicine_only_when_losing():
    h = new_game(2)
    finish_draft(h)
    ronin, medicine = battle(KR.RONIN), battle(KR.MEDICINE)
    losing, winning = [(2, 1, 4), (5, 4, 2)], [(8, 8, 4), (2, 1, 2)]
    offer_position(h, losing, [[ronin], []])
    assert h.choose() == KR.PLAY_RONIN
    offer_position(h, winning, [[ronin], []])
    assert h.legal_actions() == [KR.PASS] and h.choose() == KR.PASS
    offer_position(h, losing, [[medicine], []])
    assert h.choose() == KR.PLAY_MEDICINE
    offer_position(h, winning, [[medicine], []])
    assert h.choose() == KR.PASS


def test_greedy_bushido_matches_direct_enumeration():
    """Greedy rerolls the target with the largest exact gain above the margin; the gain
    is checked against a pure-Python enumeration of the rerolled dice."""
    prep = prepared(3, ("greedy",) * 3)
    rng = np.random.default_rng(3)
    h = new_game(3)
    finish_draft(h)
    bushido = battle(KR.BUSHIDO)
    seen = set()
    for _ in range(120):
        dice = []
        for _p in range(3):
            k = int(rng.integers(1, 5))
            d = sorted(rng.integers(1, 9, size=k).tolist(), reverse=True)
            dice.append((d[0], d[1] if k > 1 else 0, k))
        offer_position(h, dice, [[bushido], [], []])
        want = greedy_bushido_target(0, dice, prep.td, 8, 0.10)
        if want is None:  # a gain within rounding of the margin or of another target's
            continue
        got = h.choose()
        assert got == (KR.PASS if want < 0 else KR.BUSHIDO_ON + want), dice
        seen.add(want)
    assert len(seen) >= 2  # both keeping the card and rerolling happened


def test_share_after_reroll_reference_matches_exact_odds():
    """The naive reroll share equals the exact odds table when nobody else has rolled
    (a reroll of a 2-dice pool against a fixed 3 dice pool averages to the table)."""
    prep = prepared(2, ("greedy",) * 2)
    total = 0.0
    for a in range(1, 9):
        for b in range(0, a + 1):
            w = prep.td[3, a, b]
            if w:
                total += w * share_after_reroll(1, 1, [(a, b, 3), (0, 0, 2)], prep.td, 8)
    from simcli.dice_odds import win_chances

    assert total == pytest.approx(win_chances([2, 3], 8, 7)[0], abs=1e-12)


@pytest.mark.parametrize(("blue", "green", "outcome"), [
    ((8, 3, 2), (7, 7, 4), "blue"),  # 8, 3 against 7, 7, 6, 4: highest die
    ((8, 8, 4), (8, 7, 3), "blue"),  # 8, 8, 5, 3 against 8, 7, 7: second die
    ((7, 7, 3), (7, 7, 3), "tie"),  # 7, 7, 6 against 7, 7, 1: tiebreaker
    ((5, 5, 4), (5, 0, 1), "tie"),  # 5, 5, 2, 1 against 5: one die, tiebreaker at once
])
def test_rulebook_sample_rolls_resolve_through_the_rules(blue, green, outcome):
    """The rulebook's sample rolls (Blue = seat 1, Green = seat 2) as a round's dice:
    Blue passes its only offer and the rules resolve the round."""
    h = new_game(2)
    finish_draft(h)
    fielded = offer_position(h, [blue, green], [[battle(KR.BUSHIDO), code("Oku the Plain")],
                                                [code("Whit the Fool")]])
    h.apply(KR.PASS)
    log = h.log()
    tiebreaks = [e for e in log if e.kind == "tiebreak"]
    takes = [e for e in log if e.kind == "takes"][-1]
    if outcome == "blue":
        assert not tiebreaks and takes.player == 1 and NAMES[fielded[0]] in takes.detail
    else:
        assert len(tiebreaks) >= 2 and {e.player for e in tiebreaks} == {1, 2}
        assert h.current_player() == takes.player - 1  # the tiebreak winner declares next


@pytest.mark.parametrize(("players", "seats", "rules"), SETUPS[:4])
def test_clustered_sums_are_the_per_game_squares(players, seats, rules):
    """clus and card_clus hold, summed over games, y_g^2, x_g^2 and x_g y_g of each rate
    counted over rounds; y and x summed are the run's own counts."""
    from kernels.sixteen_samurai.stats import Clustered, Moment

    prep = prepared(players, seats, **rules)
    total = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 12, 0, 25, total, None)
    want = np.zeros_like(total["clus"])
    want_cards = np.zeros_like(total["card_clus"])
    for g in range(25):
        a = play(prep, 12, g)[2]
        pairs = {
            Clustered.CC_DECLARER: (a["decl"][0, ..., 1].sum(), a["decl"][0, ..., 0].sum()),
            Clustered.FB_DECLARER: (a["decl"][1, ..., 1].sum(), a["decl"][1, ..., 0].sum()),
            Clustered.TIEBREAK: (a["misc"][Misc.TIEBREAK_ROUNDS],
                                 a["misc"][Misc.CONTESTED_ROUNDS]),
        }
        for k, (y, x) in pairs.items():
            want[k] += [y * y, x * x, x * y]
        y = a["cards"][:, CardStat.FIELD_WON]
        x = a["cards"][:, CardStat.FIELDED]
        want_cards += np.stack([y * y, x * x, x * y], axis=1)
    assert np.array_equal(total["clus"], want)
    assert np.array_equal(total["card_clus"], want_cards)
    assert total["clus"][Clustered.TIEBREAK, Moment.XX] > 0
