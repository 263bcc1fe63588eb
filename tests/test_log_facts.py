"""Game logs carry the facts a rule needs to be checked from the log alone (issue 28):
Samurai & Katana's combat totals, allied samurai, koku moves and the free uprising on a
return; every die Sixteen Samurai rolls; and, in every game, `replay --options` (each
decision's legal actions) and `replay --seen-by SEAT` (that seat's observation at each of
its decisions). Each check reads the log, and fails when its fact is missing or wrong."""

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernels.samurai_katana import rules as K
from simcli.cli import app
from simcli.replay import replay
from simcli.run import build_config
from tests.test_samurai_katana_campaign import World

runner = CliRunner()


def replayed(game, playout=0, seed=1, players=None, policy="random", rules=(), **kw):
    g, cfg = build_config(game, players=players, policy=policy, seats=None, n=1, seed=seed,
                          threads=1, rules=list(rules), content=None, out=Path("unused"),
                          force=False, save_games=False, chunk_size=None)
    return replay(g, cfg, playout, **kw)


def lines(w, kind):
    """(seat, detail) of every event of `kind` in a hand-built Katana game's log."""
    return [(e.player, e.detail) for e in w.h.log() if e.kind == kind]


# --- Samurai & Katana ----------------------------------------------------------------------

TOTAL = re.compile(r"combat points (\d+) = (\d+) from cards \+ (\d+) from samurai \+ (\d+) "
                   r"terrain; (\d+) swords?")


def test_katana_logs_each_sides_combat_total_and_where_it_comes_from():
    w = World()
    w.own("owari", 0, 5)
    w.own("mino", 1, 3)
    w.own("hida", 1, 1)
    w.own("kai", 2, 1)
    w.give(0, "Mounted Samurai", "Hatamoto")  # 4 + 3 = 7 points, 2 swords
    w.give(1, "Ashigaru", "Ashigaru")  # 1 + 1 = 2 points, 2 swords
    assert w.move(0, "owari", "mino", 4)
    assert lines(w, "total") == [
        (1, "combat points 11 = 7 from cards + 4 from samurai + 0 terrain; 2 swords"),
        (2, "combat points 5 = 2 from cards + 3 from samurai + 0 terrain; 2 swords")]


def test_katana_logs_the_samurai_an_alliance_adds_and_the_room_left_for_them():
    w = World()
    w.own("owari", 0, 5)  # 1 attacks, 4 stay land-adjacent to Mino: room for 3 of them
    w.own("mino", 1, 1)
    w.own("hida", 1, 1)
    w.give(0, "Ashigaru", "Ashigaru", "Alliance")
    w.give(1, "Hatamoto", "Ashigaru")
    assert w.move(0, "owari", "mino", 1)
    assert lines(w, "allies") == [
        (1, "Alliance adds 3 samurai (4 of its own in land-adjacent territories, room for 3)")]
    (att, _) = lines(w, "total")
    assert att == (1, "combat points 6 = 5 from cards + 1 from samurai + 0 terrain; 2 swords")


def test_katana_logs_koku_from_harvest_and_wako_pirates():
    w = World(seats=("greedy", "random", "random", "random"))
    w.own("owari", 0, 2)
    w.own("mino", 1, 1)
    w.give(0, "Rice Harvest", "Wako Pirates", "Samurai", "Hatamoto")
    w.play_card(0, "Rice Harvest", 0)
    w.pl[1, K.PL_KOKU] = 2
    w.play_card(0, "Wako Pirates", 1)
    assert lines(w, "koku") == [(1, "koku +3 = 8 (harvest card)"),
                                (2, "koku -2 = 0 (taken by Wako Pirates)"),
                                (1, "koku +2 = 10 (taken with Wako Pirates)")]


def test_katana_logs_the_refund_of_a_cancelled_move():
    w = World()
    w.own("echigo", 0, 5)
    w.own("sado", 1, 1)
    w.own("kai", 1, 1)
    w.give(0, "Samurai", "Samurai")
    w.give(1, "Tsunami", "Ashigaru", "Ashigaru")
    assert not w.move(0, "echigo", "sado", 4)
    assert lines(w, "koku") == [(1, "koku +1 = 5 (cancelled move refunded)")]


def test_katana_logs_the_free_uprising_and_the_koku_of_a_return():
    w = World()
    w.own("owari", 0, 3)
    w.own("mino", 0, 2)
    w.settle()
    w.pl[1, K.PL_KOKU] = 7
    w.st.phase[0] = K.RETURN
    w.st.actor[0] = 1
    w.st.cx[K.CX_ITER] = 1
    (owari,) = [a for a in w.h.legal_actions() if "Owari" in w.h.describe_action(a)]
    w.h.apply(owari)  # into clan 0's Owari: its 3 samurai go back to clan 0's supply
    events = [(e.kind, e.player, e.detail) for e in w.h.log()
              if e.kind in ("uprising", "return", "koku")]
    (up, koku, ret) = events
    assert up == ("uprising", 2, "Owari (Kiyosu) (seat 1) loses 3 samurai to the uprising")
    assert ret == ("return", 2, "returns to Owari (Kiyosu) with 5 samurai (uprising against "
                                "seat 1)")
    assert koku == ("koku", 2, "koku -3 = 4 (returns with its printed koku)")


def test_katana_battles_in_whole_games_follow_their_logged_totals():
    """In replayed games every battle's outcome follows the two logged totals (the
    attacker wins only with more points), and each side commits face down before the
    next decision."""
    battles = 0
    for playout in range(3):
        ev = replayed("samurai-katana", playout)["events"]
        for i, e in enumerate(ev):
            if e["kind"] != "outcome":
                continue
            a, d = (TOTAL.fullmatch(x["detail"]) for x in ev[i - 2:i])
            assert a and d, ev[i - 2:i]
            ta, td = int(a.group(1)), int(d.group(1))
            assert ta == sum(int(a.group(k)) for k in (2, 3, 4))
            assert int(a.group(3)) <= 4 and int(d.group(3)) <= 4
            assert ("attacker wins" in e["detail"]) == (ta > td), (ta, td, e)
            battles += 1
        sides = [e for e in ev if e["kind"] == "side"]
        assert sides and all(s["detail"].startswith("commits face down") for s in sides)
    assert battles > 5


# --- Sixteen Samurai: every die ------------------------------------------------------------

def test_sixteen_samurai_logs_every_die_and_the_top_two_follow_from_them():
    rolls = 0
    for playout in range(3):
        ev = replayed("sixteen-samurai", playout)["events"]
        dice: list[int] = []
        for e in ev:
            if e["kind"] == "die":
                m = re.fullmatch(r"(Bushido reroll, )?die (\d+) of (\d+): (\d+)", e["detail"])
                assert m and int(m.group(2)) == len(dice) + 1, e
                dice.append(int(m.group(4)))
            elif e["kind"] == "roll" and not e["detail"].startswith("Uma"):
                m = re.search(r"(\d+) dic?e?: (?:highest )?(\d+)(?:, second (\d+))?",
                              e["detail"])
                assert m, e
                assert len(dice) == int(m.group(1)), (dice, e)
                top = sorted(dice, reverse=True)
                assert int(m.group(2)) == top[0]
                assert int(m.group(3) or 0) == (top[1] if len(top) > 1 else 0)
                dice = []
                rolls += 1
            else:
                assert not dice, (dice, e)  # the dice come right before their roll
    assert rolls > 20


# --- replay --options and --seen-by, every game --------------------------------------------

GAMES = ("sixteen-samurai", "samurai-card-game", "samsara", "samurai-sword", "samurai-katana")


@pytest.mark.parametrize("game", GAMES)
def test_options_list_every_legal_action_and_the_choice_is_among_them(game):
    doc = replayed(game, options=True)
    plain = replayed(game)
    assert doc["result"] == plain["result"]  # recording changes nothing in the game
    decisions = [e for e in doc["events"] if e["kind"] == "decision"]
    assert decisions
    for e in decisions:
        said, n = re.fullmatch(r"(.*) \(of (\d+) options?\)", e["detail"]).groups()
        if said.startswith("discards") and game == "samurai-katana":
            assert len(e["options"]) == 1  # a mask of the hand, described once
            continue
        assert len(e["options"]) == int(n), e
        assert said in e["options"], e
    assert all("options" not in e for e in plain["events"])


@pytest.mark.parametrize("game", GAMES)
def test_seen_by_gives_that_seats_observation_at_its_decisions_only(game):
    doc = replayed(game, seen_by=2)
    mine = [e for e in doc["events"] if e["kind"] == "decision" and e["player"] == 2]
    others = [e for e in doc["events"] if e.get("player") != 2]
    assert mine and all("seen" in e for e in mine)
    assert not any("seen" in e for e in others)
    seen = mine[0]["seen"]
    seat = seen["you"]["seat"] if "you" in seen else seen["seat"]
    assert seat == 2


def test_card_game_see_all_placements_list_their_options():
    """Under villages=see-all a placement of one village may have several options (which
    village, which cell, or both at once): --options names each of them."""
    doc = replayed("samurai-card-game", rules=["villages=see-all"], options=True)
    several = [e for e in doc["events"] if e["kind"] == "decision"
               and e["detail"].startswith("puts the ") and "(of 1 option)" not in e["detail"]]
    assert several
    for e in several:
        n = int(re.search(r"\(of (\d+) options\)$", e["detail"]).group(1))
        assert len(e["options"]) == n and len(set(e["options"])) == n
        assert all(o.startswith("puts the ") for o in e["options"])


def test_cli_replay_options_and_seen_by():
    res = runner.invoke(app, ["replay", "samsara", "--options", "--seen-by", "1"])
    assert res.exit_code == 0, res.output
    assert "seen by seat 1: {" in res.output
    assert re.search(r"\n {22}- \d-\d: ", res.output)
    bad = runner.invoke(app, ["replay", "samsara", "--seen-by", "3"])
    assert bad.exit_code == 2 and "--seen-by must be a seat from 1 to 2" in bad.output
