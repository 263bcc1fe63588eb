"""Samurai Sword whole games: invariants, seats and rotations, determinism, content files,
statistics and the command line."""

import json

import numpy as np
import polars as pl
import pytest

from kernels.samurai_sword import play as KP
from kernels.samurai_sword import rules as K
from kernels.samurai_sword.stats import End, Misc, Ratio, Square, Team, TeamCount
from simcli.errors import UserError
from simcli.games.handle import fast_path
from simcli.games.samurai_sword import ROLES, SamuraiSword
from simcli.run import RunConfig, play
from tests.cli import invoke
from tests.content_edits import content_error, edited

GAME = SamuraiSword()
CONTENT = GAME.load_content(GAME.content_path(None))
C = CONTENT.data
DEFAULT_RULES = GAME.resolve_rules([])


def prepared(P, seats, rules=()):
    return GAME.prepare(CONTENT, P, tuple(seats), GAME.resolve_rules(list(rules)))


def play_one(prep, seed, index, aggs, rotation=0):
    """Play one game in the fast path; its final state and row."""
    st = GAME.state(prep, aggs, rotation=rotation)
    row = np.zeros((1, KP.N_ROW), np.int64)
    fast_path(KP.run, KP.Call.PLAY, st, np.zeros((7, K.N_OPTIONS), np.bool_), seed, index, 1, row)
    return st, row[0]


SETUPS = [
    (3, ("random",) * 3, ("swordmaster-3p=none", "bushido-timing=after-recover")),
    (3, ("heuristic",) * 3, ()),
    (4, ("heuristic", "random", "heuristic", "random"), ("reshuffle=when-empty",)),
    (5, ("heuristic",) * 5, ()),
    (5, ("random",) * 5, ("geisha-self=no", "bushido-self=no", "ushiwaka=dealt")),
    (6, ("random", "heuristic") * 3, ("teammate-swordmaster=continue",)),
    (7, ("heuristic",) * 7, ("swordmaster-vs-honor=honor",)),
    (7, ("random",) * 7, ("bushido-timing=after-recover",)),
]


@pytest.mark.parametrize(("P", "seats", "rules"), SETUPS)
def test_invariants_on_random_games(P, seats, rules):
    prep = prepared(P, seats, rules)
    aggs = GAME.new_aggregates(prep)
    start_honor = sum(C.setups[P].honor[r] for r in C.setups[P].roles)
    T = len(C.copies)
    games = 300
    squares = np.zeros((len(Ratio), len(Square)), np.int64)
    for idx in range(games):
        before = aggs["misc"].copy()
        st, row = play_one(prep, 21, idx, aggs)
        m = aggs["misc"] - before  # this game's counts
        for k, y, x in ((Ratio.PARRIED, m[Misc.PARRIED], m[Misc.ATTACKS]),
                        (Ratio.BATTLE_CRY_PARRIED, m[Misc.BATTLE_CRY_PARRIES],
                         m[Misc.BATTLE_CRY_PARRIES] + m[Misc.BATTLE_CRY_WOUNDS]),
                        (Ratio.TEAMMATE_DEFEATS, m[Misc.TEAMMATE_DEFEATS], m[Misc.DEFEATS]),
                        (Ratio.BUSHIDO_HONOR, m[Misc.BUSHIDO_HONOR],
                         m[Misc.BUSHIDO_HONOR] + m[Misc.BUSHIDO_WEAPONS])):
            squares[k] += (y * y, x * x, x * y)
        g = st.game[0]
        seats = st.seats[:P]
        res, honor, hand, props = seats["res"], seats["honor"], seats["hand"], seats["props"]
        # every one of the 90 cards is in exactly one place
        held = np.bincount(g["deck"][:g["deck_n"]], minlength=T)
        held += np.bincount(g["disc"][:g["disc_n"]], minlength=T)
        held += hand[:, :T].sum(axis=0) + props[:, :T].sum(axis=0)
        assert np.array_equal(held, C.copies) and held.sum() == 90
        assert (hand.sum(axis=1) == seats["hand_n"]).all()
        assert (honor >= 0).all() and (res >= 0).all()
        assert (res <= seats["max_res"]).all()
        # Honor only leaves the table through reshuffles and Bushido
        lost = P * g["reshuffles"] + (aggs["misc"] - before)[Misc.BUSHIDO_HONOR]
        assert honor.sum() == start_honor - lost
        # properties and Bushido agree
        for e in range(K.N_PROP):
            eff = props[:, :T] * (C.effects == K.FOCUS + e)
            assert (eff.sum(axis=1) == seats["prop_n"][:, e]).all()
        bush = [s for s in range(P) if seats["prop_n"][s, K.BUSHIDO - K.FOCUS]]
        assert len(bush) <= 1 and (g["bushido"] == (bush[0] if bush else -1))
        # the game ended by the rules, for the reason recorded
        end, win = g["end"], g["win"]
        assert end not in (End.NONE, End.CAP) and 0 <= win < K.N_TEAM
        assert g["phase"] == K.PH_OVER and g["to_act"] == -1
        if end in (End.HONOR_DEFEAT, End.HONOR_DECK, End.HONOR_BUSHIDO):
            assert (honor == 0).any()
        if end == End.SWORDMASTER:
            assert (res > 0).sum() == 1 and (P > 3 or win == Team.SHOGUN)
            assert "swordmaster-3p=none" not in rules or P > 3
            assert seats["team"][int(np.argmax(res > 0))] == win
        if end == End.TEAMMATE:
            assert (res > 0).sum() == 1 and g["deadly"] >= 0
        assert row[KP.R_TEAM] == win and row[KP.R_END] == end
        mask = sum(1 << s for s in range(P) if seats["team"][s] == win)
        assert row[KP.R_MASK] == mask
        assert row[KP.R_WINNER] == (int(np.log2(mask)) if bin(mask).count("1") == 1 else -1)
        assert seats["role"][0] == 0  # the Shogun
    assert aggs["ends"].sum() == games and aggs["ends"][End.CAP] == 0
    assert np.array_equal(aggs["clustered"], squares)  # the per-game sums of squares
    assert aggs["turns"].sum() == games and aggs["team"][:, 0].sum() >= 2 * games
    assert aggs["seat"][:P, :, 0].sum() == games * P == aggs["chars"][:, :, 0].sum()
    assert aggs["seat"][0, 0, 0] == games  # seat 1 is the Shogun


def test_rotations_keep_the_deal_and_move_the_players():
    seats = ("heuristic", "random", "random", "heuristic", "random")
    prep = prepared(5, seats)
    moved = 0
    for idx in range(30):
        games = [play_one(prep, 4, idx, GAME.new_aggregates(prep), rotation=r)
                 for r in range(6)]
        rows = [g[1] for g in games]
        for row in rows:  # roles and characters come from the shared stream
            assert np.array_equal(row[KP.R_ROLE:KP.R_ROLE + 7], rows[0][KP.R_ROLE:KP.R_ROLE + 7])
            assert np.array_equal(row[KP.R_CHAR:KP.R_CHAR + 7], rows[0][KP.R_CHAR:KP.R_CHAR + 7])
        pols = [g[0].seats["policy"][:5].tolist() for g in games]
        assert pols[1] == [seats[(s - 1) % 5] == "heuristic" for s in range(5)]
        assert np.array_equal(rows[5], rows[0])  # rotation 5 = rotation 0 with 5 players
        moved += not np.array_equal(rows[1], rows[0])
    assert moved > 0


def config(tmp_path, **kw):
    base = dict(game="samurai-sword", players=5, seats=("heuristic", "random") * 2
                + ("heuristic",), n=1500, seed=42, threads=1, rules=DEFAULT_RULES,
                content=None, out=tmp_path / "run")
    base.update(kw)
    return RunConfig(**base)


def aggregates(cfg):
    prep = GAME.prepare(CONTENT, cfg.players, cfg.seats, cfg.rules)
    return play(GAME, prep, cfg, None, None)[0]


def test_same_seed_same_statistics_for_any_threads_and_chunks(tmp_path):
    a = aggregates(config(tmp_path, threads=1, chunk_size=1500))
    b = aggregates(config(tmp_path, threads=2, chunk_size=211))
    c = aggregates(config(tmp_path, threads=2, chunk_size=500))
    for key in a:
        assert np.array_equal(a[key], b[key]), key
        assert np.array_equal(a[key], c[key]), key
    d = aggregates(config(tmp_path, seed=43))
    assert not np.array_equal(a["turns"], d["turns"])


def test_core_stats_and_own_metrics(tmp_path):
    aggs = aggregates(config(tmp_path, n=1000))
    core = GAME.core_stats(aggs, 5)
    team_wins = aggs["team"][:, 1] + aggs["team"][:, 2]
    assert core.games == 1000 == team_wins.sum() and core.completed == 1000
    assert core.seat_wins[0] == team_wins[Team.SHOGUN]  # seat 1 is the Shogun
    assert core.shared == 1000 - team_wins[Team.RONIN]  # only the Ronin wins alone at 5p
    assert core.length.sum() == 1000 and core.margin.sum() + aggs["ends"][
        End.SWORDMASTER] == 1000
    own = GAME.own_metrics(aggs, 5)
    assert tuple(m[0] for m in own) == GAME.own_metric_names
    by = {m[0]: m[1] for m in own}
    assert sum(by[f"team_win.{t}"].value for t in ("shogun", "ninja", "ronin")) == \
        pytest.approx(1.0)
    for e in by.values():
        assert e.lo <= e.value <= e.hi


def test_rates_over_events_within_a_game_have_clustered_intervals(tmp_path):
    """The report's per-attack and per-defeat rates use the per-game sums (ratio
    estimator), not a binomial over events."""
    from reports import samurai_sword as R
    from reports.stats import rate, ratio_rate
    from simcli.games.samurai_sword import named_stats
    aggs = aggregates(config(tmp_path, n=1000))
    table = R.other_table(named_stats(aggs, C, 5), R.LongTable())
    row = table.filter(table["figure"] == "Weapon attacks parried").row(0, named=True)
    m = aggs["misc"]
    want = ratio_rate(m[Misc.PARRIED], m[Misc.ATTACKS], *aggs["clustered"][Ratio.PARRIED],
                      1000)
    plain = rate(int(m[Misc.PARRIED]), int(m[Misc.ATTACKS]))
    assert (row["value"], row["ci_low"], row["ci_high"]) == pytest.approx(
        (want.value, want.lo, want.hi))
    assert row["ci_high"] - row["ci_low"] != pytest.approx(plain.hi - plain.lo)
    assert aggs["clustered"][Ratio.PARRIED, Square.XX] > m[Misc.ATTACKS]  # several a game


def test_heuristic_ninjas_beat_random_ninjas():
    wins = {}
    for seats in (("random",) * 3, ("random", "heuristic", "heuristic")):
        prep = prepared(3, seats)
        aggs = GAME.new_aggregates(prep)
        GAME.run_chunk(prep, 7, 0, 1500, aggs, None)
        wins[seats[1]] = (aggs["team"][Team.NINJA, 1:].sum()) / 1500
    assert wins["heuristic"] > wins["random"] + 0.15


@pytest.mark.parametrize("rule", ["shogun-immune", "none"])
def test_three_player_games_and_the_swordmaster(rule):
    """shogun-immune: only the Shogun ever wins by the Swordmaster; none: nobody does."""
    prep = prepared(3, ("heuristic",) * 3, (f"swordmaster-3p={rule}",))
    aggs = GAME.new_aggregates(prep)
    GAME.run_chunk(prep, 3, 0, 1500, aggs, None)
    sword = aggs["team"][:, TeamCount.SWORD_WINS]
    assert sword[Team.NINJA] == 0 and aggs["team"][Team.RONIN, 0] == 0
    if rule == "none":
        assert aggs["ends"][End.SWORDMASTER] == 0 and aggs["ends"][End.TEAMMATE] == 0
    else:
        assert sword[Team.SHOGUN] == aggs["ends"][End.SWORDMASTER] > 0


# --- content ------------------------------------------------------------------------------

def test_standard_content_is_the_printed_game():
    kinds = {"weapon": 0, "property": 0, "action": 0}
    for e, n in zip(C.effects, C.copies, strict=True):
        kinds["weapon" if e == K.WEAPON else "property" if e >= K.FOCUS else "action"] += n
    assert kinds == {"weapon": 32, "property": 15, "action": 43} and C.deck_size == 90
    assert len(C.char_names) == 12 and int(C.resilience.sum()) == 55
    table = {P: {r: C.setups[P].multiplier[r] for r in set(C.setups[P].roles)}
             for P in range(3, 8)}
    assert table == {3: {"shogun": 2, "ninja": 1},
                     4: {"shogun": 1, "samurai": 2, "ninja": 1},
                     5: {"shogun": 1, "samurai": 1, "ninja": 1, "ronin": 2},
                     6: {"shogun": 1, "samurai": 2, "ninja": 1, "ronin": 3},
                     7: {"shogun": 1, "samurai": 1, "ninja": 1, "ronin": 3}}
    assert C.setups[4].ninja_most_stars == 2 and C.hands == (4, 5, 5, 6, 6, 7, 7)
    three = C.setups[3]
    assert (three.honor, three.shogun_extra_draw, three.shogun_extra_weapons,
            three.shogun_bushido_honor, three.swordmaster) == (
        {"shogun": 6, "ninja": 3}, 1, 1, False, True)  # 3 players: rule swordmaster-3p
    assert {P: sorted(C.setups[P].roles) for P in (4, 7)} == {
        4: ["ninja", "ninja", "samurai", "shogun"],
        7: ["ninja", "ninja", "ninja", "ronin", "samurai", "samurai", "shogun"]}
    assert not CONTENT.assumed and set(ROLES) == {"shogun", "samurai", "ninja", "ronin"}


# Transcribed from the printed rulebook and cards (shared/games/samurai-sword.md):
# name: (Difficulty, damage, copies) for Weapons, copies for the others.
PRINTED_WEAPONS = {
    "Bokken": (1, 1, 6), "Kiseru": (1, 2, 5), "Wakizashi": (1, 3, 1), "Bo": (2, 1, 5),
    "Kusarigama": (2, 2, 4), "Katana": (2, 3, 1), "Shuriken": (3, 1, 3), "Kanabo": (3, 2, 1),
    "Nodachi": (3, 3, 1), "Naginata": (4, 1, 2), "Nagayari": (4, 2, 1),
    "Tanegashima": (5, 1, 1), "Daikyu": (5, 2, 1),
}
PRINTED_OTHERS = {
    "Focus": ("focus", 6), "Armor": ("armor", 4), "Fast Draw": ("fast_draw", 3),
    "Bushido": ("bushido", 2), "Parry": ("parry", 15), "Geisha": ("geisha", 6),
    "Diversion": ("diversion", 5), "Battle Cry": ("battle_cry", 4),
    "Tea Ceremony": ("tea_ceremony", 4), "Jujutsu": ("jujutsu", 3),
    "Breathing": ("breathing", 3), "Daimyo": ("daimyo", 3),
}
PRINTED_CHARACTERS = {
    "Benkei": 5, "Chiyome": 4, "Goemon": 5, "Ginchiyo": 4, "Hanzo": 4, "Hideyoshi": 4,
    "Ieyasu": 5, "Kojiro": 5, "Musashi": 5, "Nobunaga": 5, "Tomoe": 5, "Ushiwaka": 4,
}
# "Honor: Shogun 5, others 4 (3 with 4 or 5 players)"; 3 players: Shogun 6, Ninjas 3.
PRINTED_HONOR = {3: {"shogun": 6, "ninja": 3},
                 4: {"shogun": 5, "samurai": 3, "ninja": 3},
                 5: {"shogun": 5, "samurai": 3, "ronin": 3, "ninja": 3},
                 6: {"shogun": 5, "samurai": 4, "ronin": 4, "ninja": 4},
                 7: {"shogun": 5, "samurai": 4, "ronin": 4, "ninja": 4}}


def test_every_card_character_and_honor_is_the_printed_one():
    """Per card kind: copies, and each Weapon's Difficulty and damage; per character: its
    resilience and ability; per player count: each role's starting Honor."""
    from simcli.games.samurai_sword import ABILITIES, EFFECTS
    cards = {}
    for i, name in enumerate(C.card_names):
        if C.effects[i] == K.WEAPON:
            cards[name] = (int(C.difficulty[i]), int(C.damage[i]), int(C.copies[i]))
        else:
            effect = next(k for k, v in EFFECTS.items() if v == C.effects[i])
            cards[name] = (effect, int(C.copies[i]))
    assert cards == {**PRINTED_WEAPONS, **PRINTED_OTHERS}
    chars = {n: (int(C.resilience[i]), int(C.abilities[i]))
             for i, n in enumerate(C.char_names)}
    assert chars == {n: (r, ABILITIES[n.lower()]) for n, r in PRINTED_CHARACTERS.items()}
    assert {P: C.setups[P].honor for P in range(3, 8)} == PRINTED_HONOR
    roles = {P: sorted(C.setups[P].roles) for P in range(3, 8)}
    assert roles == {3: ["ninja", "ninja", "shogun"],
                     4: ["ninja", "ninja", "samurai", "shogun"],
                     5: ["ninja", "ninja", "ronin", "samurai", "shogun"],
                     6: ["ninja", "ninja", "ninja", "ronin", "samurai", "shogun"],
                     7: ["ninja", "ninja", "ninja", "ronin", "samurai", "samurai", "shogun"]}
    assert (C.draw, C.hand_limit, C.weapons_per_turn, C.daimyo_honor, C.deadly_strike) == (
        2, 7, 1, 1, 3)


STANDARD = GAME.content_path(None)


# (old text, new text, the field the error names): each must give one line naming the
# line of the new text and the field, from the schema (types, ranges, unknown keys) or the
# checks across fields.
BAD_CONTENT = [
    ('"Nodachi", effect = "weapon", difficulty = 3', '"Nodachi", effect = "weapon", '
     'difficulty = 0', "deck.cards[8].difficulty"),
    ('"Nodachi", effect = "weapon", difficulty = 3', '"Nodachi", effect = "weapon", '
     'difficulty = "far"', "deck.cards[8].difficulty"),
    ('"Kanabo", effect = "weapon", difficulty = 3, damage = 2',
     '"Kanabo", effect = "weapon", difficulty = 3', "deck.cards[7]"),
    ('"Geisha", effect = "geisha"', '"Geisha", effect = "singer"', "deck.cards[18].effect"),
    ('"Parry", effect = "parry", copies = 15', '"Parry", effect = "parry", copies = 15, '
     'damage = 2', "deck.cards[17].damage"),
    ('"Parry", effect = "parry", copies = 15', '"Parry", effect = "parry", copies = 0',
     "deck.cards[17].copies"),
    ('"Parry", effect = "parry", copies = 15', '"Parry", effect = "parry", copies = 1.5',
     "deck.cards[17].copies"),
    ('"Bo", effect', '"Bokken", effect', "deck.cards[3].name"),
    ('"Bo", effect', '"", effect', "deck.cards[3].name"),
    ('ability = "tomoe"', 'ability = "archer"', "characters.list[10].ability"),
    ('resilience = 5, ability = "musashi"', 'resilience = 5, ability = "musashi", colour = 1',
     "characters.list[8].colour"),
    ('name = "Hanzo", resilience = 4', 'name = "Hanzo", resilience = 10',
     "characters.list[4].resilience"),
    ('name = "Hanzo", resilience = 4', 'name = "Benkei", resilience = 4',
     "characters.list[4].name"),
    ('roles = ["shogun", "samurai", "ronin", "ninja", "ninja"]',
     'roles = ["shogun", "samurai", "ronin", "ninja"]', "players.5.roles"),
    ('roles = ["shogun", "samurai", "ronin", "ninja", "ninja"]',
     'roles = ["shogun", "samurai", "ronin", "ninja", "daimyo"]', "players.5.roles[4]"),
    ('roles = ["shogun", "samurai", "ronin", "ninja", "ninja"]',
     'roles = ["shogun", "shogun", "ronin", "ninja", "ninja"]', "players.5.roles"),
    ("honor = { shogun = 5, samurai = 3, ronin = 3, ninja = 3 }",
     "honor = { shogun = 5, samurai = 3, ninja = 3, ronin = 0 }", "players.5.honor.ronin"),
    ("honor = { shogun = 5, samurai = 3, ronin = 3, ninja = 3 }",
     "honor = { shogun = 5, samurai = 3, ninja = 3 }", "players.5.honor"),
    ("honor = { shogun = 5, samurai = 3, ronin = 3, ninja = 3 }",
     "honor = { shogun = 5, samurai = 3, ronin = 3, ninja = 3, daimyo = 1 }",
     "players.5.honor.daimyo"),
    ("shogun_bushido_honor = false", "shogun_bushido_honor = 0",
     "players.3.shogun_bushido_honor"),
    ("shogun_extra_draw = 1", "shogun_extra_draw = -1", "players.3.shogun_extra_draw"),
    ("[players.7]", "[players.9]", "players.9"),
    ("hand_limit = 7", "hand_limit = 0", "rules.hand_limit"),
    ("hand_limit = 7", "hand_limit = true", "rules.hand_limit"),
    ("hand_limit = 7", "hand_size = 5\nhand_limit = 7", "rules.hand_size"),
    ("hands = [4, 5, 5, 6, 6, 7, 7]", "hands = [4, 5, 5]", "rules.hands"),
    ("hands = [4, 5, 5, 6, 6, 7, 7]", "hands = [4, 5, 5, 6, 6, 7, 70]", "rules.hands[6]"),
    ("hands = [4, 5, 5, 6, 6, 7, 7]", "hands = [20, 20, 20, 20, 20, 20, 20]", "rules.hands"),
    ('description = "Base game', 'colour = "red"\ndescription = "Base game',
     "content.colour"),
    ('game = "samurai-sword"', 'game = "samsara"', "content.game"),
]


@pytest.mark.parametrize(("old", "new", "field"), BAD_CONTENT)
def test_each_bad_content_value_is_one_line_naming_line_and_field(tmp_path, old, new, field):
    path = edited(GAME, tmp_path, old, new)
    msg = content_error(GAME, path)
    pairs = zip(STANDARD.read_text().splitlines(), path.read_text().splitlines(), strict=False)
    changed = next(i for i, (a, b) in enumerate(pairs, 1) if a != b)  # the edited line
    assert "\n" not in msg and str(path) in msg
    assert f"line {changed}:" in msg, msg
    assert f"field '{field}'" in msg, msg


def test_malformed_toml_and_missing_setup(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[content]\nname = "x"\n[rules\n')
    assert "malformed TOML" in content_error(GAME, path)
    text = STANDARD.read_text()
    cut = text[: text.index("[players.6]")] + text[text.index("[players.7]"):]
    path = tmp_path / "five.toml"
    path.write_text(cut)
    content = GAME.load_content(path)
    with pytest.raises(UserError, match=r"no \[players.6\]"):
        GAME.prepare(content, 6, ("random",) * 6, DEFAULT_RULES)


# --- command line -------------------------------------------------------------------------


def test_cli_run_json_report_and_saved_games(tmp_path):
    out = tmp_path / "r5"
    r = invoke("run", "samurai-sword", "--players", 5, "-n", 3000, "--seed", 3, "--json",
               "--save-games", "--chunk-size", 1000, "--out", out, "--quiet")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    teams = {t["team"]: t for t in data["summary"]["teams"]}
    assert set(teams) == {"Shogun & Samurai", "Ninjas", "Ronin"}
    assert sum(t["wins"] for t in teams.values()) == 3000
    for t in teams.values():
        assert t["ci_low"] <= t["win_rate"] <= t["ci_high"]
    for name in ("report.md", "tables/teams.csv", "tables/characters.csv",
                 "tables/seat_roles.csv", "charts/team_win_rates.png",
                 "charts/character_win_rates.png", "charts/seat_roles.png"):
        assert (out / name).exists(), name
    games = pl.read_parquet(out / "games" / "*.parquet")
    assert games.height == 3000
    assert (games["team"] >= 0).all() and (games["win_mask"] > 0).all()
    ronin = games.filter(pl.col("team") == 2)
    assert (ronin["winner"] >= 2).all() and (games.filter(pl.col("team") != 2)["winner"]
                                             == -1).all()  # seats from 1: never the Shogun
    summary = pl.read_parquet(out / "summary.parquet")
    assert (summary["ci_low"] <= summary["value"] + 1e-12).all()
    assert "Team win rates" in (out / "report.md").read_text()


def test_cli_seven_players_heuristic_json_and_a_sweep(tmp_path):
    r = invoke("run", "samurai-sword", "--players", 7, "--policy", "heuristic", "-n", 1000,
               "--json", "--out", tmp_path / "r7", "--quiet")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["manifest"]["players"] == 7
    r = invoke("sweep", "samurai-sword", "--vary", "players=3,4", "-n", 800, "--out",
               tmp_path / "sw", "--quiet")
    assert r.exit_code == 0, r.output
    table = pl.read_csv(tmp_path / "sw" / "sweep.csv")
    ronin = table.filter(pl.col("metric") == "team_win.ronin")
    assert ronin.height == 2 and (ronin["value"] == 0).all()
    assert table.filter(pl.col("metric") == "win_rate.seat1").height == 2


def test_cli_rejects_bad_options(tmp_path):
    r = invoke("run", "samurai-sword", "--players", 8, "-n", 10, "--out", tmp_path / "x")
    assert r.exit_code != 0 and "3-7" in r.output
    r = invoke("run", "samurai-sword", "--rule", "reshuffle=never", "-n", 10, "--out",
               tmp_path / "y")
    assert r.exit_code != 0 and "when-needed" in r.output


def test_mirror_counts_team_wins(tmp_path):
    import polars as pl

    r = invoke("run", "samurai-sword", "--mirror", "-n", 300, "--players", 4, "--out",
               tmp_path / "z", "-q")
    assert r.exit_code == 0, r.output
    mirror = pl.read_csv(tmp_path / "z" / "tables" / "mirror.csv")
    seats = mirror.filter(pl.col("kind") == "seat")
    assert seats.height == 4 and (seats["games"] == 1200).all()
    # team wins: several seats win the same game, so seat rates sum to more than 1
    assert seats["win_rate"].sum() > 1.0


def test_content_beyond_the_kernels_capacities_is_refused(tmp_path):
    text = STANDARD.read_text()
    many = "".join(f'  {{ name = "Stick {i}", effect = "weapon", difficulty = 1, damage = 1, '
                   f'copies = 1 }},\n' for i in range(10))
    path = tmp_path / "many.toml"
    path.write_text(text.replace("cards = [\n", "cards = [\n" + many, 1))
    msg = content_error(GAME, path)
    assert "field 'deck.cards'" in msg and "length <= 32" in msg
    path.write_text(text.replace('"Parry", effect = "parry", copies = 15',
                                 '"Parry", effect = "parry", copies = 99')
                    .replace('"Geisha", effect = "geisha", copies = 6',
                             '"Geisha", effect = "geisha", copies = 99'))
    assert "256 cards" in content_error(GAME, path)
    no_parry = text.replace('"Parry", effect = "parry"', '"Parry", effect = "geisha"')
    path.write_text(no_parry)
    assert "at least one card with effect 'parry'" in content_error(GAME, path)
