"""kernels/search.py on toy games whose best moves are known: it finds them, never
reads hidden information, honours forbidden options and is deterministic."""

import subprocess
import sys
from collections import namedtuple
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from kernels import jitcache, search
from kernels import search_toys as T

NO_FORBID = np.zeros((2, 0), np.bool_)


def nim_choice(heap, budget=400, seed=1, forbid=NO_FORBID, c=1.0, max_rollout=0):
    st = T.new_nim(heap)
    ws = search.new_workspace(budget, T.new_nim(heap), 8, 2)
    search.seed_search(ws, np.uint64(seed), 0, 0)
    return int(search.mcts_choose(st, ws, forbid, budget, c, 0, max_rollout))


@pytest.mark.parametrize(("heap", "best"), [(5, 1), (6, 2), (7, 3), (9, 1), (10, 2)])
def test_mcts_finds_the_winning_nim_move(heap, best):
    """Leaving a multiple of 4 wins; with 400 simulations it finds it."""
    assert nim_choice(heap) == best


@pytest.mark.parametrize(("heap", "best"), [(9, 1), (10, 2), (11, 3)])
def test_cut_rollouts_use_the_games_evaluation(heap, best):
    """Rollouts cut after one move and scored by the game's evaluation still find the
    winning move, with far fewer simulated moves."""
    st = T.new_nim(heap)
    ws = search.new_workspace(400, T.new_nim(heap), 8, 2)
    search.seed_search(ws, np.uint64(1), 0, 0)
    assert search.mcts_choose(st, ws, NO_FORBID, 400, 1.0, 0, 1) == best
    assert ws.moves[0] < 400 * 6


def test_simulated_moves_are_counted():
    st = T.new_nim(9)
    ws = search.new_workspace(50, T.new_nim(9), 8, 2)
    search.seed_search(ws, np.uint64(1), 0, 0)
    search.mcts_choose(st, ws, NO_FORBID, 50, 1.0, 0, 0)
    assert 50 * 3 <= ws.moves[0] <= 50 * 9


def test_mcts_is_deterministic_for_a_seed_and_varies_with_it():
    choices = [nim_choice(8, budget=20, seed=s) for s in range(12)]  # a lost position
    assert choices == [nim_choice(8, budget=20, seed=s) for s in range(12)]
    assert len(set(choices)) > 1


def test_forbidden_option_is_never_chosen():
    forbid = np.zeros((2, 3), np.bool_)
    forbid[0, 0] = True  # seat 0 may never take exactly one stone
    for seed in range(5):
        assert nim_choice(5, seed=seed, forbid=forbid) != 1


def hc_choices(card0, card1, seeds=range(40), budget=200):
    out = []
    for seed in seeds:
        st = T.new_high_card()
        T.high_card_setup(st, 5, 0)
        st.card[0], st.card[1] = card0, card1
        ws = search.new_workspace(budget, T.new_high_card(), 4, 2)
        search.seed_search(ws, np.uint64(seed), 0, 0)
        out.append(int(search.mcts_choose(st, ws, NO_FORBID, budget, 0.7, 0, 0)))
    return out


def test_ismcts_never_reads_the_hidden_card():
    """Seat 0's choices depend on its own card only: swapping seat 1's hidden card leaves
    every decision the same for the same search seed."""
    assert hc_choices(6, 1) == hc_choices(6, 9) == hc_choices(6, 0)
    assert hc_choices(2, 9) == hc_choices(2, 0)


def test_ismcts_bets_high_cards_and_folds_low_ones():
    assert sum(hc_choices(9, 3)) >= 36  # a 9 wins every bet
    assert sum(hc_choices(0, 5)) <= 4  # a 0 loses every bet: folding is worth 1/2


def test_register_hooks_names_missing_and_unknown_hooks():
    Other = namedtuple("Other", ["x"])
    with pytest.raises(TypeError, match=r"missing hooks \['apply'.*unknown hooks \['aply'\]"):
        search.register_hooks(Other, aply=None)
    # a rules module gives the hooks of RULES_HOOKS it has (called on the state's `st`)
    rules = SimpleNamespace(to_move=None, apply=None, evaluate=None)
    with pytest.raises(TypeError) as e:
        search.register_hooks(Other, rules=rules, clone=None)
    missing = str(e.value).split("missing hooks ")[1].split("]")[0]
    for name in ("to_move", "apply", "clone"):
        assert f"'{name}'" not in missing
    for name in ("evaluate", "determinize", "legal_actions", "outcome"):
        assert f"'{name}'" in missing  # evaluate is never the rules' to give


def test_the_search_cache_index_loads_where_tests_cannot_be_imported(tmp_path):
    """The compile cache's index of mcts_choose records every state type it was compiled
    for, the toy games' of these tests included (kernels/search_toys.py, not `tests`): it
    must load in a process that cannot import `tests` (every `simcli` run)."""
    nim_choice(5, budget=20)
    if not jitcache.enabled():
        pytest.skip("compile cache disabled")
    folder = jitcache.folder()
    indexes = sorted(folder.glob("*.mcts_choose.entry-kernels.search.*.nbi"))
    assert indexes
    reader = jitcache._CheckedFile(str(folder), "probe", jitcache.FORMAT)
    assert all(len(reader._read_index(str(i))) >= 1 for i in indexes)
    code = ("import sys\nfrom kernels import jitcache\n"
            "f = jitcache._CheckedFile(sys.argv[1], 'probe', jitcache.FORMAT)\n"
            "print(min(len(f._read_index(i)) for i in sys.argv[2:]), 'tests' in sys.modules)\n")
    r = subprocess.run([sys.executable, "-I", "-c", code, str(folder), *map(str, indexes)],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr.strip().splitlines()[-1]
    count, tests_imported = r.stdout.split()
    assert int(count) >= 1 and tests_imported == "False"


def test_every_module_registering_hooks_is_imported_with_the_search():
    """A module that registers hooks but is imported only later can be imported by numba
    in the middle of a compile (loading a cache index), which fails: every such module
    must be in search.HOOK_MODULES, and importing the search imports them all."""
    root = Path(search.__file__).parent
    registering = {".".join(("kernels", *p.relative_to(root).with_suffix("").parts))
                   for p in root.rglob("*.py")
                   if "register_hooks(" in p.read_text(encoding="utf-8") and p.name != "search.py"}
    assert registering == set(search.HOOK_MODULES)
    code = ("import sys\nimport kernels.search as s\n"
            "print(all(m in sys.modules for m in s.HOOK_MODULES))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, cwd=root.parent)
    assert r.stdout.strip() == "True", r.stderr
