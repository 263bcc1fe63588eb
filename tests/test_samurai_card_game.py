"""Samurai: The Card Game: invariants of whole games, agreement with the slow reference on
random positions, determinism, the command line and content files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from kernels.samurai_card_game import play as KPL
from kernels.samurai_card_game import players as KP
from kernels.samurai_card_game import rules as K
from kernels.samurai_card_game.stats import N_END, End, KindStat, Misc, Outcome
from simcli import engine
from simcli.games.handle import fast_path
from simcli.games.samurai_card_game import new_state, no_forbidden
from tests import naive_card_game as N
from tests.cli import invoke
from tests.content_edits import content_error, edited, line_of
from tests.test_samurai_card_game_rules import CONTENT, GAME, KBoard


def prepared(players, seats, rules=(), content=CONTENT):
    return GAME.prepare(content, players, tuple(seats), GAME.resolve_rules(list(rules)))


def play_one(prep, seed, index, aggs):
    """Playout `index` in the fast path; its final state and row."""
    st = new_state(prep, aggs)
    rows = np.zeros((1, KPL.N_ROW), np.int64)
    fast_path(KPL.run, KPL.Call.PLAY, st, no_forbidden(), seed, index, 1, rows)
    return st, rows[0]


def decode(code: int) -> N.Card:
    return N.Card(code & 3, (code >> 2) & 3, (code >> 4) & 15)


def board_of(st, R) -> N.Board:
    """The kernel's final board as the reference's dictionary board."""
    W = 2 * R + 1
    b = N.Board()
    for i in range(st.cnt[0]["nfill"]):
        c = int(st.filled[i])
        x, y = c % W - R, c // W - R
        h = int(st.grid[c])
        if (x + y) % 2 == 0:
            v = st.vill[h - 1]
            b.cells[(x, y)] = N.Village(
                frozenset(s for s in range(3) if v["mask"] >> s & 1), bool(v["scored"]))
        else:
            b.cells[(x, y)] = decode(h - 1)
    return b


SETUPS = [
    (2, ("random", "random"), ()),
    (2, ("greedy", "random"), ("markers-2p=16",)),
    (3, ("random",) * 3, ("tied-marker=discarded",)),
    (3, ("greedy",) * 3, ("villages=see-all", "chain=on")),
    (4, ("greedy",) * 4, ()),
    (4, ("random", "greedy", "random", "greedy"), ("chain=on",)),
]


@pytest.mark.parametrize(("players", "seats", "rules"), SETUPS)
def test_whole_games_keep_every_invariant(players, seats, rules):
    prep = prepared(players, seats, rules)
    aggs = GAME.new_aggregates(prep)
    R = prep.radius
    supply = prep.supply
    set_cards = Counter((int(c) >> 2) & 63 for c in prep.setc)
    deck_masks = Counter(int(m) for m in prep.vmasks)
    games = 40
    for idx in range(games):
        misc_before = aggs["misc"].copy()
        st, row = play_one(prep, 17, idx, aggs)
        c = st.cnt[0]
        seat = st.seat
        b = board_of(st, R)
        # cards conserved: board + hand + draw pile = each player's set
        for q in range(players):
            held = [int(st.hands[q, i]) for i in range(seat[q]["hand_n"])]
            held += [int(st.decks[q, i]) for i in range(seat[q]["deck_n"])]
            on_board = [c for c in b.cells.values() if isinstance(c, N.Card) and c.owner == q]
            mine = Counter((c >> 2) & 63 for c in held)
            mine.update((c.symbol | (c.influence << 2)) for c in on_board)
            assert mine == set_cards
            assert all(c & 3 == q for c in held)
        # every village card placed at most once: the board shows the deck's first cards
        vtop = int(c["vtop"])
        placed = sorted(sum(1 << s for s in v.symbols) for v in b.cells.values()
                        if isinstance(v, N.Village))
        assert placed == sorted(int(m) for m in st.vdeck[:vtop])
        assert Counter(int(m) for m in st.vdeck) == deck_masks
        # no card off the village-adjacent cells; every later village has a creating pair
        for cell, item in b.cells.items():
            if isinstance(item, N.Card):
                assert any(b.village_at(n) for n in b.neighbours(cell)), cell
            elif cell != (0, 0):
                cards = [(n, b.card_at(n)) for n in b.neighbours(cell) if b.card_at(n)]
                assert any(c1.owner != c2.owner and abs(n1[0] - n2[0]) == 1
                           for n1, c1 in cards for n2, c2 in cards), cell
        # scored villages are exactly the surrounded ones, and they paid what the rules say
        expect = np.zeros((players, 3), np.int64)
        for cell, item in b.cells.items():
            if isinstance(item, N.Village):
                assert item.scored == b.surrounded(cell), cell
                if item.scored:
                    for s, w in b.score(cell, players).items():
                        if w is not None:
                            expect[w, s] += 1
        taken = st.taken
        assert (taken[:players] == expect).all()
        # markers conserved: taken + left in supply (+ discarded tied markers) = supply
        disc = aggs["misc"][Misc.DISCARDED] - misc_before[Misc.DISCARDED]
        assert taken[:players].sum() + st.rem.sum() + disc == 3 * supply
        # the game ended by a rule, after at most every card
        end = int(row[KPL.R_END])
        assert end and c["turns"] <= players * len(prep.setc) and c["over"]
        if end & End.MARKERS:
            assert (st.rem <= 0).any()
        if end & End.VILLAGES:
            assert vtop == len(prep.vmasks)
        if end & End.CARDS:
            assert seat["hand_n"][:players].sum() == 0
        # the recorded winner follows the domination rule
        kind, winners = N.winner(taken[:players].tolist())
        assert c["result"] == {"outright": Outcome.OUTRIGHT, "shared": Outcome.SHARED,
                               "nobody": Outcome.NONE}[kind]
        assert row[KPL.R_WINNER] == (next(iter(winners)) if kind == "outright" else -1)
    assert aggs["outcome"].sum() == games == aggs["lengths"].sum()
    assert aggs["kinds"][:, KindStat.PLAYED].sum() == aggs["misc"][Misc.TURNS]
    if "chain=on" not in rules:
        assert aggs["misc"][Misc.OPEN3] == 0  # three cells need chaining


def random_board(rng, players: int) -> N.Board:
    """A random board: villages and cards of random players on a small square."""
    b = N.Board()
    b.cells[(0, 0)] = N.Village(frozenset({0}))
    for x in range(-4, 5):
        for y in range(-4, 5):
            if (x, y) == (0, 0) or rng.random() < 0.4:
                continue
            if (x + y) % 2 == 0:
                syms = frozenset(s for s in range(3) if rng.random() < 0.5) or frozenset({1})
                b.cells[(x, y)] = N.Village(syms)
            else:
                b.cells[(x, y)] = N.Card(int(rng.integers(players)), int(rng.integers(4)),
                                         int(rng.integers(1, 5)))
    return b


def mirror(b: N.Board, players: int, rng, deck: int = 8) -> KBoard:
    """The same board in kernel arrays, villages and cards put down in a random order."""
    kb = KBoard(players=players, deck=[7] * deck, room=len(b.cells))
    items = list(b.cells.items())
    rng.shuffle(items)
    for (x, y), item in items:
        if isinstance(item, N.Village):
            kb.village(x, y, *item.symbols)
        else:
            kb.card(x, y, item.owner, item.symbol, item.influence)
    return kb


def test_kernel_agrees_with_the_reference_on_random_positions():
    rng = np.random.default_rng(11)
    for _ in range(60):
        players = int(rng.integers(2, 5))
        b = random_board(rng, players)
        kb = mirror(b, players, rng)
        assert kb.frontier() == b.legal_cells()
        for x, y in b.legal_cells():
            for owner in range(players):
                assert kb.openings(x, y, owner) == b.openings((x, y), owner), (x, y, owner)
        kv = kb.villages()
        for i in range(kb.counter("nv")):
            cell = kb.xy(kb.st.vill[i]["cell"])
            sums = b.influence(cell, players)
            assert kb.st.vsum[i, :3 * players].tolist() == [v for q in sums for v in q]
            filled = sum(n in b.cells for n in b.neighbours(cell))
            assert kb.st.vsum[i, K.VS_FILL] == filled
        assert set(kv) == {c for c, v in b.cells.items() if isinstance(v, N.Village)}


def test_a_turn_fills_exactly_the_cells_the_reference_opens_and_scores_alike():
    rng = np.random.default_rng(3)
    checked = opened = 0
    for _ in range(150):
        players = int(rng.integers(2, 5))
        b = random_board(rng, players)
        legal = sorted(b.legal_cells())
        if not legal:
            continue
        kb = mirror(b, players, rng)
        x, y = legal[int(rng.integers(len(legal)))]
        card = N.Card(int(rng.integers(players)), int(rng.integers(4)), int(rng.integers(1, 5)))
        expect_open = b.openings((x, y), card.owner)
        b.cells[(x, y)] = card
        kb.play(card.owner, x, y, card.symbol, card.influence)
        kv = kb.villages()
        new = set(kv) - {c for c, v in b.cells.items() if isinstance(v, N.Village)}
        assert new == expect_open
        opened += len(new)
        for cell in new:
            b.cells[cell] = N.Village(frozenset(s for s in range(3) if kv[cell][0] >> s & 1))
        # villages next to the card (old or new) that are now surrounded are scored
        expect = np.zeros((4, 3), np.int64)
        for n in b.neighbours((x, y)):
            v = b.village_at(n)
            if v is not None and b.surrounded(n) and not v.scored:
                assert kv[n][1]
                for s, w in b.score(n, players).items():
                    if w is not None:
                        expect[w, s] += 1
            elif v is not None:
                assert kv[n][1] == v.scored
        assert (kb.taken == expect).all()
        checked += 1
    assert checked > 100 and opened > 20


@pytest.fixture(scope="module")
def det_prep():
    return prepared(3, ("greedy", "random", "greedy"), ("chain=on",))


def aggregates_with(prep, n, chunk, threads, seed=9):
    total = GAME.new_aggregates(prep)

    def work(c: engine.Chunk):
        aggs = GAME.new_aggregates(prep)
        GAME.run_chunk(prep, seed, c.first, c.count, aggs, None)
        return aggs

    engine.run_chunks(engine.plan(n, chunk), work, lambda c, a: engine.merge(total, a),
                      threads)
    return total


def test_same_seed_same_statistics_for_any_threads_and_chunks(det_prep):
    a = aggregates_with(det_prep, 1200, 1200, 1)
    b = aggregates_with(det_prep, 1200, 97, 2)
    c = aggregates_with(det_prep, 1200, 400, 2)
    for key in a:
        assert np.array_equal(a[key], b[key]), key
        assert np.array_equal(a[key], c[key]), key
    d = aggregates_with(det_prep, 1200, 1200, 1, seed=10)
    assert not np.array_equal(a["markers"], d["markers"])


def test_core_stats_match_the_aggregates(det_prep):
    aggs = aggregates_with(det_prep, 500, 250, 1)
    core = GAME.core_stats(aggs, 3)
    assert core.games == 500 == core.seat_wins.sum() + core.shared + core.no_winner
    assert core.completed == 500 and core.length.sum() == 500 and core.length_unit == "turns"


def test_rows_match_the_aggregates(det_prep):
    aggs = GAME.new_aggregates(det_prep)
    rows = np.zeros((300, len(GAME.row_columns)), np.int64)
    GAME.run_chunk(det_prep, 4, 0, 300, aggs, rows)
    wins = Counter(int(w) for w in rows[:, KPL.R_WINNER] if w >= 0)
    assert [wins.get(q, 0) for q in range(3)] == aggs["wins"][:3].tolist()
    assert (rows[:, KPL.R_MARKERS + 9:KPL.R_MARKERS + 12] == -1).all()  # no fourth seat
    assert rows[:, KPL.R_TURNS].sum() == aggs["misc"][Misc.TURNS]
    for s in range(3):
        assert rows[:, KPL.R_MARKERS + s].sum() == aggs["markers"][0, s, 0]


def test_greedy_beats_random():
    prep = prepared(4, ("greedy", "random", "random", "random"))
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 2, 0, 600, aggs, None)
    assert aggs["wins"][0] > 2 * aggs["wins"][1:4].max()


# --- command line and content -------------------------------------------------------------


def test_games_lists_the_game_and_its_options():
    r = invoke("games")
    assert r.exit_code == 0
    for word in ("samurai-card-game", "see-next", "see-all", "markers-2p", "tied-marker",
                 "chain", "even-samurai"):
        assert word in r.stdout


def test_cli_run_writes_a_complete_folder(tmp_path):
    out = tmp_path / "scg"
    r = invoke("run", "samurai-card-game", "--players", 3, "-n", 1500, "--seed", 5,
               "--threads", 2, "--out", out, "--quiet")
    assert r.exit_code == 0, r.output
    for name in ("manifest.json", "aggregates.json", "report.md", "summary.csv",
                 "tables/seats.csv", "tables/outcomes.csv", "tables/cards.csv",
                 "charts/seats.png", "charts/end_reasons.png", "charts/length.png",
                 "charts/village_heatmap.png", "charts/markers.png"):
        assert (out / name).exists(), name
    summary = pl.read_csv(out / "summary.csv").filter(pl.col("section") != "metrics")
    assert summary.height > 50
    inside = summary.filter(pl.col("ci_low").is_not_null())
    assert ((inside["ci_low"] <= inside["value"]) & (inside["value"] <= inside["ci_high"])).all()
    m = json.loads((out / "manifest.json").read_text())
    assert m["rules"] == {"villages": "see-next", "markers-2p": "10", "tied-marker": "stays",
                          "chain": "off"}
    assert m["content"]["assumed"]
    assert "seat 1 win rate" in r.stdout


def test_cli_rule_options_and_json(tmp_path):
    r = invoke("run", "samurai-card-game", "--players", 2, "--rule", "villages=see-all",
               "--rule", "markers-2p=16", "-n", 800, "--json", "--out", tmp_path / "a",
               "--quiet")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["manifest"]["rules"]["markers-2p"] == "16"
    assert len(data["summary"]["seats"]) == 2
    r = invoke("run", "samurai-card-game", "--seats", "greedy,random,random,random", "-n",
               800, "--json", "--out", tmp_path / "b", "--quiet", "--rule",
               "tied-marker=discarded", "--rule", "chain=on", "--content", "even-samurai")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    seats = data["summary"]["seats"]
    assert data["manifest"]["content"]["name"] == "even-samurai"
    assert seats[0]["win_rate"] > max(s["win_rate"] for s in seats[1:])


def test_cli_same_seed_identical_across_threads(tmp_path):
    outs = []
    for i, (threads, chunk) in enumerate(((1, 700), (2, 111))):
        out = tmp_path / f"d{i}"
        r = invoke("run", "samurai-card-game", "-n", 700, "--seed", 3, "--threads", threads,
                   "--chunk-size", chunk, "--out", out, "--quiet", "--save-games")
        assert r.exit_code == 0, r.output
        outs.append(out)
    for name in ("aggregates.json", "summary.csv", "tables/cards.csv"):
        assert (outs[0] / name).read_text() == (outs[1] / name).read_text(), name


@pytest.mark.parametrize(("args", "needle"), [
    (["--players", "5"], "2-4 players"),
    (["--rule", "villages=see-some"], "see-next|see-all"),
    (["--rule", "markers-2p=11"], "10|12|14|16"),
    (["--policy", "clever"], "unknown policy"),
])
def test_cli_bad_options(args, needle, tmp_path):
    r = invoke("run", "samurai-card-game", *args, "--out", tmp_path / "x")
    assert r.exit_code == 2 and needle in r.stderr
    assert not (tmp_path / "x").exists()


STANDARD = GAME.content_path(None)


# Each edit of the standard file gives one wrong type, unknown key or out-of-range value:
# (text replaced, replacement, the text on the line the error must name, words the error
# must hold)
BAD_CONTENT = [
    ('{ symbol = "rice", influence = 3,', '{ symbol = "rice", influence = 0,', "influence = 0",
     "player_set.cards[7].influence': Expected `int` >= 1"),
    ('{ symbol = "rice", influence = 3,', '{ symbol = "rice", influence = 16,',
     "influence = 16", "cards[7].influence': Expected `int` <= 15"),
    ('{ symbol = "rice", influence = 3,', '{ symbol = "rice", influence = "x",',
     'influence = "x"', "Expected `int`, got `str`"),
    ('{ symbol = "buddha", influence = 4,', '{ symbol = "dragon", influence = 4,', "dragon",
     "cards[5].symbol': Invalid enum value 'dragon'"),
    ('{ symbol = "buddha", influence = 4,', '{ symbol = "buddha", power = 1, influence = 4,',
     "power = 1", "cards[5].power': Object contains unknown field"),
    ("count = 3, assumed = true }", "count = 100, assumed = true }", "count = 100",
     "cards[9].count': Expected `int` <= 99"),
    ("count = 3, assumed = true }", 'count = 3, assumed = "yes" }', 'assumed = "yes"',
     "cards[9].assumed"),
    ('{ symbols = ["helmet", "rice"], count = 9', '{ symbols = ["helmet", "samurai"], count = 9',
     '"samurai"], count = 9', "deck[4].symbols[1]': Invalid enum value 'samurai'"),
    ('{ symbols = ["rice"], count = 5', '{ symbols = ["rice"], count = -1', "count = -1",
     "deck[2].count': Expected `int` >= 0"),
    ('{ symbols = ["rice"], count = 5', '{ symbols = [], count = 5', "symbols = []",
     "deck[2].symbols': Expected `array` of length >= 1"),
    ('{ symbols = ["rice"], count = 5', '{ symbols = "rice", count = 5', 'symbols = "rice"',
     "deck[2].symbols': Expected `array`, got `str`"),
    ("hand = 5", "hand = 0", "hand = 0", "rules.hand': Expected `int` >= 1"),
    ("hand = 5", "hand = true", "hand = true", "rules.hand': Expected `int`, got `bool`"),
    ("markers = 16", 'markers = "many"', "markers =", "rules.markers': Expected `int`"),
    ("markers = 16", "markers = 16\nhand_size = 5", "hand_size", "rules.hand_size': Object "
     "contains unknown field"),
    ("version = 1", "version = 1\nauthor = 'me'", "author", "content.author': Object "
     "contains unknown field"),
    ("[villages]", "[village]\ndeck = []\n[villages]", "[village]", "field 'village'"),
    ('{ symbol = "samurai", influence = 2, count = 1, assumed = false }',
     '{ symbol = "samurai", influence = 4, count = 1, assumed = false }', "influence = 4, "
     "count = 1, assumed = false", "remove_4p[1]': the set has no samurai 4 card"),
    ('{ symbol = "samurai", influence = 2, count = 1, assumed = false }',
     '{ symbol = "samurai", influence = 2, count = 3, assumed = false }', "count = 3, "
     "assumed = false", "removes 3 samurai 2 cards but the set has 2"),
    ('{ symbol = "helmet", influence = 3,', '{ symbol = "helmet", influence = 2,',
     'symbol = "helmet", influence = 2, count = 1, assumed = true },\n  { symbol = "helmet", '
     "influence = 2", "cards[1]': helmet 2 is listed twice"),
    ('{ symbols = ["rice"], count = 5', '{ symbols = ["rice", "square"], count = 5',
     '"square"]', "deck[2].symbols': names rice twice"),
    ('{ symbols = ["buddha"], count = 5', '{ symbols = ["rice"], count = 5',
     'symbols = ["rice"], count = 5, assumed = true },\n  { symbols = ["rice"]',
     "deck[2]': the same village is listed twice"),
]


@pytest.mark.parametrize(("old", "new", "on_line", "words"), BAD_CONTENT)
def test_each_bad_value_in_the_content_is_one_line_naming_its_line(tmp_path, old, new,
                                                                   on_line, words):
    path = edited(GAME, tmp_path, old, new)
    msg = content_error(GAME, path)
    text = path.read_text()
    line = text[:text.index(on_line) + len(on_line)].count("\n") + 1
    assert len(msg.splitlines()) == 1
    assert msg.startswith(f"{path} line {line}: "), msg
    assert words in msg, msg


def test_other_content_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[content]\nname = "x"\n[rules\n')
    msg = content_error(GAME, bad)
    assert "malformed TOML" in msg and "line 3" in msg
    other = tmp_path / "other.toml"
    other.write_text('[content]\ngame = "sixteen-samurai"\n')
    assert content_error(GAME, other) == (f"{other} line 2: field 'content.game': content is "
                                          f"for 'sixteen-samurai', not samurai-card-game")
    path = edited(GAME, tmp_path, "[rules]\nhand = 5", "[rules]")
    assert "missing required field `hand`" in content_error(GAME, path)


def test_cli_reports_a_bad_content_file_in_one_line(tmp_path):
    path = edited(GAME, tmp_path, '{ symbol = "rice", influence = 3,',
                  '{ symbol = "rice", influence = "x",')
    r = invoke("run", "samurai-card-game", "--content", path, "--out", tmp_path / "o")
    assert r.exit_code == 2
    text = r.stderr.strip()
    line = line_of(path, 'influence = "x"')
    assert len(text.splitlines()) == 1 and f"line {line}:" in text
    assert "influence'" in text and not (tmp_path / "o").exists()


def test_a_user_content_file_with_a_small_village_deck_plays(tmp_path):
    text = STANDARD.read_text().split("[villages]")[0] + (
        '[villages]\ndeck = [ { symbols = ["helmet", "buddha", "rice"], count = 6, '
        'assumed = false } ]\n')
    path = tmp_path / "small.toml"
    path.write_text(text)
    content = GAME.load_content(path)
    assert not content.data.village_assumed.any() and len(content.data.village_masks) == 6
    prep = prepared(3, ("greedy",) * 3, (), content)
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 1, 0, 200, aggs, None)
    assert aggs["vhist"][0, 6] + aggs["vhist"][0, :6].sum() == 200
    assert aggs["ends"][[m for m in range(N_END) if m & End.VILLAGES]].sum() > 0


def test_shipped_content_loads():
    names = GAME.content_files()
    assert {"standard", "even-samurai"} <= set(names)
    for p in names.values():
        assert GAME.load_content(Path(p)).assumed


def test_influence_kept_for_empty_village_cells_matches_the_grid_and_clears():
    rng = np.random.default_rng(5)
    for _ in range(30):
        players = int(rng.integers(2, 5))
        b = random_board(rng, players)
        kb = mirror(b, players, rng)
        for x in range(-5, 6):
            for y in range(-5, 6):
                if (x + y) % 2 or (x, y) in b.cells:
                    continue
                want = np.zeros(K.N_VS, np.int64)
                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    c = b.cells.get((x + dx, y + dy))
                    if c is None:
                        continue
                    want[K.VS_FILL] += 1
                    for s in range(3):
                        if c.symbol in (s, N.SAMURAI):
                            want[c.owner * 3 + s] += c.influence
                got = kb.st.esum[kb.at(x, y), :K.N_VS].astype(np.int64)
                assert (got[:12] == want[:12]).all() and got[K.VS_FILL] == want[K.VS_FILL]
        K.py_clear_board(kb.st)
        assert not kb.st.grid.any() and not kb.st.esum.any()


def test_greedy_plays_a_move_of_highest_value_by_the_reference():
    rng = np.random.default_rng(8)
    checked = 0
    for _ in range(80):
        players = int(rng.integers(2, 5))
        b = random_board(rng, players)
        legal = b.legal_cells()
        if not legal:
            continue
        deck = [int(rng.integers(1, 8)) for _ in range(4)]
        kb = mirror(b, players, rng, deck=4)
        kb.st.vdeck[:] = deck
        p = int(rng.integers(players))
        hand = [N.Card(p, int(rng.integers(4)), int(rng.integers(1, 5))) for _ in range(5)]
        kb.give(p, *((c.symbol, c.influence) for c in hand))
        kb.set_counter("vtop", int(rng.integers(1, 5)))
        kb.set_counter("cur", p)
        kb.st.fs[:] = rng.uniform(1.0, 3.0, 3)
        pf = kb.st.weights
        hi, cell = KP.py_greedy_move(kb.st, p, np.zeros(len(K.OPTIONS), np.bool_))
        vtop = kb.counter("vtop")

        args = (players, kb.st.fs.tolist(), deck[vtop] if vtop < 4 else 0,
                [float(pf[KP.PF_FREQ + s]) for s in range(3)], 4 - vtop,
                float(pf[KP.PF_INFL]), float(pf[KP.PF_CAP]), float(pf[KP.PF_KEEP]))
        values = {(i, x): N.greedy_value(b, c, x, *args)
                  for i, c in enumerate(hand) for x in legal}
        assert kb.xy(cell) in legal
        assert values[(hi, kb.xy(cell))] == pytest.approx(max(values.values()), abs=1e-9)
        checked += 1
    assert checked > 60
