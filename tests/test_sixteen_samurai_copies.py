"""Sixteen Samurai battle cards as content (issue 16): [battle] copies of each card per
clan. The printed content is one of each (and a file without [battle] plays the same);
with more copies every card is conserved, the decks and hands hold them, a hand of battle
cards only is reshuffled, the rules' limits stay as printed and several Bushido may be
played in one round."""

from pathlib import Path

import numpy as np
import pytest

from kernels.sixteen_samurai import rules as KR
from kernels.sixteen_samurai.stats import Battle, BattleStat, Misc
from simcli.games.sixteen_samurai import SixteenSamurai

GAME = SixteenSamurai()
STANDARD = GAME.content_path(None)
COPIES = {"ninjutsu": 2, "uma": 3, "ronin": 1, "bushido": 4, "medicine": 0}


def content_with(tmp_path: Path, name: str, text: str):
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return GAME.load_content(path)


def copies_text(copies: dict[str, int]) -> str:
    text = STANDARD.read_text(encoding="utf-8")
    for card, k in copies.items():
        old = f"\n{card} = 1 "
        assert text.count(old) == 1
        text = text.replace(old, f"\n{card} = {k} ", 1)
    return text


def test_the_printed_content_is_one_of_each_and_the_default(tmp_path):
    standard = GAME.load_content(STANDARD)
    assert standard.data.battle == (1,) * len(Battle)
    text = STANDARD.read_text(encoding="utf-8")
    start = text.index("[battle]")
    end = text.index("[roster]")
    bare = content_with(tmp_path, "bare", text[:start] + text[end:])
    assert bare.data.battle == (1,) * len(Battle)
    for content in (standard, bare):
        prep = GAME.prepare(content, 3, ("greedy", "random", "greedy"),
                            GAME.resolve_rules([]))
        assert prep.battle_n.tolist() == [1] * len(Battle)
    a, b = (run(GAME.prepare(c, 3, ("greedy", "random", "greedy"), GAME.resolve_rules([])))
            for c in (standard, bare))
    assert all((a[k] == b[k]).all() for k in a)


def run(prep, n=200, seed=5):
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, seed, 0, n, aggs, None)
    return aggs


def counts(st, p):
    """Copies of each battle card in p's hand and draw pile, and face down this round."""
    out = np.zeros(len(Battle), np.int64)
    for pile, n in ((st.hand[p], st.hand_n[p]), (st.deck[p], st.deck_n[p])):
        for c in pile[:n]:
            if c < 0:
                out[-1 - c] += 1
    if st.phase[0] == KR.FIELD and st.part[p] and p < st.actor[0] and st.before[p] >= 0:
        out[st.before[p]] += 1  # face down with its samurai, discarded when revealed
    return out


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_copies_are_dealt_conserved_and_reshuffled(tmp_path, policy):
    content = content_with(tmp_path, "copies", copies_text(COPIES))
    copies = np.array(content.data.battle)
    assert copies.tolist() == list(COPIES.values())
    players = 3
    prep = GAME.prepare(content, players, (policy,) * players, GAME.resolve_rules([]))
    bushido_rounds = {}  # (playout, round, seat): Bushido played
    final_steps = 0
    for playout in range(6):
        h = GAME.handle(prep, 9, playout)
        st = h.st
        dealt = False
        while not h.is_over():
            if h.phase() in ("final declare", "final field"):  # every copy discarded
                final_steps += 1
                for p in range(players):
                    assert (st.hand[p, :st.hand_n[p]] >= 0).all() and st.deck_n[p] == 0
                disc = st.disc[:st.disc_n[0]]
                assert [(disc == -1 - b).sum() for b in Battle] == (players * copies).tolist()
            if h.phase() in ("declare", "field", "offer"):
                if not dealt:  # just after the deal: CLAN samurai + every copy
                    for p in range(players):
                        assert counts(st, p).tolist() == copies.tolist()
                        assert st.hand_n[p] + st.deck_n[p] == prep.clan + copies.sum()
                    dealt = True
                disc = np.zeros(len(Battle), np.int64)
                for c in st.disc[:st.disc_n[0]]:
                    if c < 0:
                        disc[-1 - c] += 1
                held = sum(counts(st, p) for p in range(players))
                assert (held + disc == players * copies).all()
            if h.phase() == "declare":  # a full hand of battle cards only was reshuffled
                for p in range(players):
                    full = st.hand_n[p] >= prep.hand_size
                    if full and (st.hand[p, :st.hand_n[p]] < 0).all():
                        assert (st.deck[p, :st.deck_n[p]] < 0).all()
            if h.phase() == "offer":  # an after-rolling card is held while a copy is
                for p in range(players):
                    if st.part[p]:
                        for b in (Battle.RONIN, Battle.BUSHIDO, Battle.MEDICINE):
                            assert st.held[p, b] == (-1 - b in st.hand[p, :st.hand_n[p]])
                a = h.choose()
                if a >= KR.BUSHIDO_ON:
                    key = (playout, int(st.rnd[0]), int(st.actor[0]))
                    bushido_rounds[key] = bushido_rounds.get(key, 0) + 1
                assert a != KR.PLAY_MEDICINE  # no Medicine in these decks
                h.apply(a)
            else:
                h.step()
        assert h.outcome()["winners"]
    assert max(bushido_rounds.values()) >= 2  # several Bushido by one seat in one round
    assert final_steps > 0


def test_copies_change_the_statistics_and_keep_the_limits(tmp_path):
    content = content_with(tmp_path, "copies", copies_text(COPIES))
    prep = GAME.prepare(content, 3, ("random",) * 3, GAME.resolve_rules([]))
    aggs = run(prep, n=300)
    battle = aggs["battle"]
    never = [BattleStat.PLAYED_ROUNDS, BattleStat.HELD_ROUNDS, BattleStat.PLAYED_GAMES,
             BattleStat.UNUSED_AT_END, BattleStat.EFFECT]
    assert battle[Battle.MEDICINE, never].sum() == 0  # no copy dealt: never held, played
    assert aggs["misc"][Misc.BATTLE_RESHUFFLES] > 0
    # unused copies per player-game can exceed one: at most the copies dealt
    player_games = battle[:, BattleStat.PLAYED_GAMES] + battle[:, BattleStat.UNPLAYED_GAMES]
    assert (battle[:, BattleStat.UNUSED_AT_END] <= player_games * prep.battle_n).all()
    printed = run(GAME.prepare(GAME.load_content(STANDARD), 3, ("random",) * 3,
                               GAME.resolve_rules([])), n=300)["battle"]
    assert (printed[:, BattleStat.UNUSED_AT_END]
            <= printed[:, BattleStat.PLAYED_GAMES] + printed[:, BattleStat.UNPLAYED_GAMES]).all()
    for b in (Battle.UMA, Battle.BUSHIDO):  # 3 and 4 copies: played in far more rounds
        assert battle[b, BattleStat.PLAYED_ROUNDS] > 2 * printed[b, BattleStat.PLAYED_ROUNDS]
        assert battle[b, BattleStat.UNUSED_AT_END] > printed[b, BattleStat.UNUSED_AT_END]


def test_replay_with_copies_agrees_with_the_fast_path(tmp_path):
    content = content_with(tmp_path, "copies", copies_text(COPIES))
    seats = ("greedy", "random", "greedy", "random")
    prep = GAME.prepare(content, 4, seats, GAME.resolve_rules([]))
    rows = np.zeros((6, len(GAME.row_columns)), np.int64)
    GAME.run_chunk(prep, 2, 0, 6, GAME.new_aggregates(prep), rows)
    for i in range(6):
        h = GAME.handle(prep, 2, i)
        h.play_out()
        assert list(h.row().values()) == rows[i].tolist()
        text = "\n".join(e.detail for e in h.log())
        assert "Bushido" in text and "Medicine" not in text


def test_every_unused_copy_is_discarded_before_the_final_battle(tmp_path):
    """Ten copies of every battle card per clan: many are left when the Clan Conflict
    ends (more of a kind than one per clan), and every one of them is discarded (counted
    unused); none reaches the Final Battle."""
    text = copies_text(dict.fromkeys(COPIES, 10))
    content = content_with(tmp_path, "many", text)
    prep = GAME.prepare(content, 2, ("greedy",) * 2, GAME.resolve_rules([]))
    copies = np.array(content.data.battle)
    for playout in range(3):
        h = GAME.handle(prep, 4, playout)
        while h.phase() not in ("final declare", "over"):
            h.step()
        st = h.st
        disc = st.disc[:st.disc_n[0]]
        assert [(disc == -1 - b).sum() for b in Battle] == (2 * copies).tolist()
        unused = st.aggs.battle[:, BattleStat.UNUSED_AT_END]
        assert (unused > 2).all()  # more copies of each kind than one per clan
        for p in range(2):
            assert (st.hand[p, :st.hand_n[p]] >= 0).all() and st.deck_n[p] == 0


def test_ronin_once_a_round_and_medicine_once_a_player_with_several_copies(tmp_path):
    """Three Medicine and two Ronin per clan: once a Ronin is played no one is offered
    another that round, and a seat that played Medicine is not offered it again that round
    while it still holds a copy (a second copy would save nothing)."""
    content = content_with(tmp_path, "limits",
                           copies_text({"ronin": 2, "medicine": 3, "bushido": 0}))
    prep = GAME.prepare(content, 3, ("random",) * 3, GAME.resolve_rules([]))
    ronin, medicine = {}, {}  # (playout, round) -> plays; (playout, round, seat) -> plays
    refused = {"ronin": 0, "medicine": 0}  # offers where a held copy was rightly withheld
    for playout in range(12):
        h = GAME.handle(prep, 4, playout)
        st = h.st
        while not h.is_over():
            if h.phase() != "offer":
                h.step()
                continue
            rnd, p = (playout, int(st.rnd[0])), int(st.actor[0])
            hand = st.hand[p, :st.hand_n[p]]
            legal = h.legal_actions()
            if ronin.get(rnd) and -1 - Battle.RONIN in hand:
                assert KR.PLAY_RONIN not in legal
                refused["ronin"] += 1
            if medicine.get((*rnd, p)) and -1 - Battle.MEDICINE in hand:
                assert KR.PLAY_MEDICINE not in legal
                refused["medicine"] += 1
            a = h.choose()
            if a == KR.PLAY_RONIN:
                ronin[rnd] = ronin.get(rnd, 0) + 1
            if a == KR.PLAY_MEDICINE:
                medicine[(*rnd, p)] = medicine.get((*rnd, p), 0) + 1
            h.apply(a)
    assert max(ronin.values()) == 1 and max(medicine.values()) == 1
    assert refused["ronin"] > 0 and refused["medicine"] > 0  # the limits were tested
