"""The content-keyed compile cache (kernels/jitcache.py): what invalidates it, what it
shares, and what it does with a damaged entry."""

import ast
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

import kernels.samsara.rules
from kernels import cachedeps, events, jitcache, rng

IMPORTED = (kernels.samsara.rules, events, rng)  # module_of names imported modules only

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = {"python": "3.11.7", "numba": "0.68.1", "llvmlite": "0.50.0", "numpy": "2.4.6",
            "numba-settings": "OPT=3 BOUNDSCHECK=None"}
CPU = "znver3|+avx2,+sse4.2"


def key(vers=VERSIONS, cpu=CPU) -> str:
    return jitcache.env_key(vers, cpu)


def test_the_same_inputs_give_the_same_key():
    assert key() == key(dict(VERSIONS), CPU)


@pytest.mark.parametrize("name", sorted(VERSIONS))
def test_a_new_python_numba_llvmlite_or_numpy_or_numba_setting_changes_the_key(name):
    assert key(vers={**VERSIONS, name: VERSIONS[name] + ".post1"}) != key()


def test_numba_code_settings_from_the_environment_are_part_of_the_key():
    code = "from kernels import jitcache; print(jitcache.versions()['numba-settings'])"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    got = [subprocess.run([sys.executable, "-c", code], env={**environ, **extra}, cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout
           for extra in ({}, {"NUMBA_OPT": "1"}, {"NUMBA_BOUNDSCHECK": "1"})]
    assert len(set(got)) == 3, got


def test_another_cpu_changes_the_key():
    assert key(cpu="skylake|+avx2") != key()
    assert key(cpu="znver3|+avx2") != key()  # same name, other features


def kernels_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "kernels"
    shutil.copytree(jitcache.cachedeps.ROOT, copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def edit(path: Path, text: str = "\n# edited\n") -> None:
    path.write_text(path.read_text() + text)


SAMSARA = ("kernels.rng", "kernels.samsara.play", "kernels.samsara.rules")


def test_an_entry_is_keyed_by_every_shared_module_and_its_whole_game_package(tmp_path):
    """An edit to a shared module deep in the call graph (the random streams), or to any
    file of the entry's game package, even one with no compiled function in the call
    graph (the statistics' column numbers), changes the digest; an edit to another
    game's package does not."""
    copy = kernels_copy(tmp_path)
    files = cachedeps.source_files(SAMSARA, copy)
    assert {"rng.py", "jit.py", "config.py", "search.py", "samsara/stats.py"} <= set(files)
    assert not any(f.startswith("samurai_") for f in files)

    def digest() -> str:
        return cachedeps.sources_digest(SAMSARA, copy, fresh=True)

    before = digest()
    edit(copy / "samurai_sword" / "rules.py")
    assert digest() == before
    for changed in (copy / "samsara" / "stats.py", copy / "rng.py", copy / "config.py"):
        was = digest()
        edit(changed)
        assert digest() != was, changed
    was = digest()
    (copy / "samsara" / "extra.py").write_text("X = 1\n")  # a module added
    assert digest() != was
    was = digest()
    (copy / "samsara" / "stats.py").rename(copy / "samsara" / "stats2.py")  # renamed
    assert digest() != was


def test_a_module_outside_the_kernels_package_is_keyed_by_its_own_file():
    digest = cachedeps.sources_digest((*SAMSARA, __name__))
    assert __name__ in cachedeps.source_files((*SAMSARA, __name__))
    assert digest != cachedeps.sources_digest(SAMSARA)
    assert "numba.core.typing" not in cachedeps.source_files(("numba.core.typing",))
    sys.modules["simcli_no_source"] = type(sys)("simcli_no_source")
    try:
        with pytest.raises(cachedeps.Untraceable):
            cachedeps.source_files(("simcli_no_source",))
    finally:
        del sys.modules["simcli_no_source"]


@pytest.mark.parametrize(("name", "module"), [
    ("_ZN7kernels7samsara5rules5applyB2v1B42c8tJTIeFIjxB2IKSgI4CrvQClUYkACQB1EAFSIA_3dEx",
     "kernels.samsara.rules"),
    ("_ZN7cpython7kernels3rng8die_bits5entryB2v1B42c8tJTIeFIjxEx", "kernels.rng"),
    ("_ZN7kernels6events5_emit12_3clocals_3e4implB2v3Ex", "kernels.events"),
    ("_ZN5numba7cpython8builtins6ol_minEx", "numba.cpython.builtins"),
    ("NRT_incref", None),
    ("_ZN9no_module4funcEx", None),
])
def test_a_compiled_function_names_its_module(name, module):
    assert cachedeps.module_of(name) == module


def library(*names, links=()):
    functions = [SimpleNamespace(name=n, is_declaration=False) for n in names]
    return SimpleNamespace(_final_module=SimpleNamespace(functions=functions),
                           _linking_libraries=list(links))


def test_the_call_graph_is_every_linked_librarys_functions_and_unknown_ones_refuse():
    rules = library("_ZN7kernels7samsara5rules5applyB2v1Ex", "NRT_incref")
    entry = library("_ZN7cpython7kernels3rng3dieEx",
                    "cfunc._ZN5numba7cpython8builtins6ol_minEx", links=[rules, rules])
    assert cachedeps.call_graph_modules(entry) == {
        "kernels.rng", "kernels.samsara.rules", "numba.cpython.builtins"}
    with pytest.raises(cachedeps.Untraceable):
        cachedeps.call_graph_modules(library("_ZN9no_module4funcEx", links=[rules]))


def test_no_game_package_reads_another_game_package():
    """Entries are keyed by the game packages their code reaches (whole packages, for the
    constants a rule reads from a sibling module): a constant read from another game's
    package would not be covered, so no game package imports from another."""
    root = cachedeps.ROOT
    games = {p.name for p in root.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    for game in games:
        for path in (root / game).rglob("*.py"):
            here = ["kernels", *path.relative_to(root).with_suffix("").parts]
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):  # relative ones resolved
                    base = ".".join([*here[:len(here) - node.level], node.module or ""]
                                    if node.level else [node.module or ""]).strip(".")
                    names = [base] + [f"{base}.{a.name}" for a in node.names]
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    names = [node.value]  # importlib.import_module("kernels.<game>...")
                else:
                    names = []
                for name in names:
                    parts = name.split(".")
                    if parts[0] == "kernels" and len(parts) > 1 and parts[1] in games:
                        assert parts[1] == game, f"{path}: imports {name}"


PROBE = r"""
import json, sys
from kernels import jitcache, rng
if len(sys.argv) > 1:  # pretend another numba
    real = jitcache.versions
    jitcache.versions = lambda: {**real(), "numba": sys.argv[1]}
out = rng.die_bits(8)
stats = rng.die_bits.python_entry().stats
print(json.dumps({"out": out, "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values()),
                  "folder": str(jitcache.folder())}))
"""


def probe(cache: Path, *args: str, **env: str) -> dict:
    """Call a kernel from Python in a fresh process using cache folder `cache`."""
    environ = {k: v for k, v in os.environ.items() if k != "SIMCLI_NO_CACHE"}
    environ.update(SIMCLI_CACHE_DIR=str(cache), **env)
    done = subprocess.run([sys.executable, "-c", PROBE, *args], env=environ, cwd=ROOT,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_what_the_first_compiled(tmp_path):
    first = probe(tmp_path)
    second = probe(tmp_path)
    assert (first["misses"], second["misses"], second["hits"]) == (1, 0, 1)
    assert first["out"] == second["out"] == 3
    assert (Path(first["folder"]) / jitcache.MARKER).is_file()


def test_another_numba_version_compiles_again_in_its_own_folder(tmp_path):
    probe(tmp_path)
    other = probe(tmp_path, "0.99.0")
    assert other["misses"] == 1 and other["folder"] != probe(tmp_path)["folder"]


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "index"])
def test_a_damaged_entry_is_compiled_again_never_loaded(tmp_path, damage):
    folder = Path(probe(tmp_path)["folder"])
    (data,) = folder.glob("*die_bits*.nbc")
    (index,) = folder.glob("*die_bits*.nbi")
    raw = data.read_bytes()
    if damage == "flip":  # inside the machine code: the pickle around it still loads
        mid = len(raw) // 2
        data.write_bytes(raw[:mid] + bytes(b ^ 0xFF for b in raw[mid:mid + 8]) + raw[mid + 8:])
    elif damage == "truncate":
        data.write_bytes(raw[: len(raw) // 2])
    elif damage == "empty":
        data.write_bytes(b"")
    else:
        index.write_bytes(index.read_bytes()[:10])
    again = probe(tmp_path)
    assert again["misses"] == 1 and again["out"] == 3
    assert probe(tmp_path)["hits"] == 1  # the entry was written afresh


def test_no_cache_reads_and_writes_nothing(tmp_path):
    out = probe(tmp_path, SIMCLI_NO_CACHE="1")
    assert out["out"] == 3 and out["misses"] == 1
    assert not any(tmp_path.iterdir())


def test_only_the_newest_marked_folders_are_kept(tmp_path):
    made = []
    for i in range(jitcache.KEEP + 2):
        f = tmp_path / f"{jitcache.PREFIX}{i:024d}"
        f.mkdir()
        (f / jitcache.MARKER).touch()
        os.utime(f / jitcache.MARKER, (time.time() + i, time.time() + i))
        made.append(f)
    legacy = tmp_path / f"{jitcache.LEGACY}{0:024d}"  # the earlier format's, all removed
    legacy.mkdir()
    (legacy / jitcache.MARKER).touch()
    theirs = [tmp_path / f"{jitcache.PREFIX}not-ours", tmp_path / f"{jitcache.LEGACY}not-ours"]
    for f in theirs:
        f.mkdir()
        (f / "precious.txt").write_text("keep me")
    gone = jitcache.prune(tmp_path)
    assert sorted(gone) == sorted([legacy, *made[:2]])
    assert all(f.is_dir() for f in made[2:])
    assert all((f / "precious.txt").is_file() for f in theirs)


TOYS = {
    "toy_a/__init__.py": "",
    "toy_a/consts.py": "K = 1\n",
    "toy_a/rules.py": ("from kernels.jit import kernel\n"
                       "from kernels.toy_a.consts import K\n"
                       "from kernels.toy_b import rules as B\n\n\n"
                       "@kernel\ndef f(x):\n    return x + K\n\n\n"
                       "@kernel\ndef g(x):\n    return B.h(x) * 2\n"),
    "toy_b/__init__.py": "",
    "toy_b/rules.py": "from kernels.jit import kernel\n\n\n@kernel\ndef h(x):\n    return x + 10\n",
}

TOY_PROBE = r"""
import json, pathlib, sys
from kernels.toy_a import rules
if len(sys.argv) > 2:  # an edit while this process runs, after it imported the kernels
    pathlib.Path(rules.__file__).with_name("consts.py").write_text(sys.argv[2])
name, _, arg = sys.argv[1].partition(":")  # f or f:1.5 (another signature)
fn = getattr(rules, name)
out = fn(float(arg) if arg else 1)
stats = fn.python_entry().stats
print(json.dumps({"out": int(out), "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values())}))
"""


def toy_tree(tmp_path: Path):
    """A copy of the kernels package with the toy packages; a function running TOY_PROBE in
    it: (result, hit or miss)."""
    copy = kernels_copy(tmp_path)
    for name, text in TOYS.items():
        (copy / name).parent.mkdir(exist_ok=True)
        (copy / name).write_text(text)
    environ = {k: v for k, v in os.environ.items() if k != "SIMCLI_NO_CACHE"}
    environ.update(SIMCLI_CACHE_DIR=str(tmp_path / "cache"))

    def run(fn: str, *edit_meanwhile: str) -> tuple[int, str]:
        done = subprocess.run([sys.executable, "-c", TOY_PROBE, fn, *edit_meanwhile],
                              env=environ, cwd=tmp_path, capture_output=True, text=True,
                              check=True)
        got = json.loads(done.stdout.strip().splitlines()[-1])
        return got["out"], "hit" if (got["hits"], got["misses"]) == (1, 0) else "miss"

    return run


def test_an_edit_compiles_again_only_the_entries_whose_call_graph_it_touches(tmp_path):
    """Two toy game packages in a copy of the kernels package: toy_a's f reads a constant
    from a sibling module, its g calls toy_b. An edit to toy_b compiles g again, not f;
    an edit to f's constant compiles f again (with the new value), and undoing it loads
    the earlier version; an edit to a shared module compiles f again."""
    run = toy_tree(tmp_path)
    copy = tmp_path / "kernels"
    assert run("f") == (2, "miss")
    assert run("f") == (2, "hit")
    assert run("g") == (22, "miss")
    edit(copy / "toy_b" / "rules.py")
    assert run("f") == (2, "hit")
    assert run("g") == (22, "miss")
    (copy / "toy_a" / "consts.py").write_text("K = 2\n")
    assert run("f") == (3, "miss")
    (copy / "toy_a" / "consts.py").write_text("K = 1\n")
    assert run("f") == (2, "hit")  # the earlier version, kept
    edit(copy / "rng.py")
    assert run("f") == (2, "miss")


def test_an_edit_while_a_process_runs_is_not_taken_for_what_it_compiled(tmp_path):
    """A process keys what it loads and saves by the sources as it imported them: one that
    imported K = 1 loads K = 1's code even after the file says K = 9, and one that
    compiled K = 4 while the file changed to K = 8 keeps nothing (it cannot tell which it
    compiled), so later processes compile K = 8 and K = 4 afresh."""
    run = toy_tree(tmp_path)
    consts = tmp_path / "kernels" / "toy_a" / "consts.py"
    assert run("f") == (2, "miss")
    assert run("f", "K = 9\n") == (2, "hit")
    assert run("f") == (10, "miss")
    consts.write_text("K = 4\n")
    assert run("f", "K = 8\n") == (5, "miss")
    assert run("f") == (9, "miss")
    consts.write_text("K = 4\n")
    assert run("f") == (5, "miss")  # was not kept under either digest
    assert run("f") == (5, "hit")


def test_an_entry_whose_bytes_changed_is_refused_even_when_it_still_unpickles(tmp_path):
    """The check behind the damage test: a flipped byte inside the payload (here in a
    bytes blob, as compiled code is) still unpickles, and is refused by its digest."""
    f = jitcache._CheckedFile(str(tmp_path), "probe", "stamp")
    f.save("k", {"code": b"\x90" * 256})
    (data,) = tmp_path.glob("probe.*.nbc")
    raw = bytearray(data.read_bytes())
    raw[raw.index(b"\x90" * 256) + 100] = 0xC3
    data.write_bytes(bytes(raw))
    assert f.load("k") is None  # refused (a miss), not {"code": b"...\xc3..."}


def test_a_signature_whose_index_is_unreadable_leaves_the_others_loadable(tmp_path):
    """Each signature of an entry has its own index: one that cannot be read (damaged, or
    of types another checkout cannot load) is compiled again alone, and the other
    signatures' compiled code stays and loads."""
    run = toy_tree(tmp_path)
    assert run("f") == (2, "miss")
    folder = next((tmp_path / "cache").iterdir())
    (int_index,) = folder.glob("*.f.entry-*.nbi")
    assert run("f:1.5") == (2, "miss")  # 2.5, read back as an int
    assert len(list(folder.glob("*.f.entry-*.nbi"))) == 2
    int_index.write_bytes(b"not an index")
    assert run("f:1.5") == (2, "hit")
    assert run("f") == (2, "miss")
    assert run("f:1.5") == (2, "hit") and run("f") == (2, "hit")
    assert len(list(folder.glob("*.f.entry-*.nbc"))) == 2
