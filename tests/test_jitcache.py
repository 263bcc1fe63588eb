"""The content-keyed compile cache (kernels/jitcache.py): what invalidates it, what it
shares, and what it does with a damaged entry."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernels import jitcache

ROOT = Path(__file__).resolve().parent.parent
FILES = [("rules.py", b"def f(): pass\n"), ("play.py", b"x = 1\n")]
VERSIONS = {"python": "3.11.7", "numba": "0.68.1", "llvmlite": "0.50.0", "numpy": "2.4.6"}
CPU = "znver3|+avx2,+sse4.2"


def key(files=FILES, vers=VERSIONS, cpu=CPU) -> str:
    return jitcache.cache_key(files, vers, cpu)


def test_the_same_inputs_give_the_same_key():
    assert key() == key(list(FILES), dict(VERSIONS), CPU)


def test_any_change_to_any_kernel_source_changes_the_key():
    edited = [(FILES[0][0], FILES[0][1] + b"# edit\n"), FILES[1]]
    assert key(edited) != key()
    assert key([FILES[0]]) != key()  # a module removed
    assert key([*FILES, ("more.py", b"")]) != key()  # or added
    assert key([("renamed.py", FILES[0][1]), FILES[1]]) != key()


@pytest.mark.parametrize("name", sorted(VERSIONS))
def test_a_new_python_numba_llvmlite_or_numpy_changes_the_key(name):
    assert key(vers={**VERSIONS, name: VERSIONS[name] + ".post1"}) != key()


def test_another_cpu_changes_the_key():
    assert key(cpu="skylake|+avx2") != key()
    assert key(cpu="znver3|+avx2") != key()  # same name, other features


def test_the_key_covers_every_kernel_module(tmp_path):
    """The sources hashed are every module of the kernels package (a copy here): an edit
    to a module deep in the call graph (the random streams) changes the key."""
    copy = tmp_path / "kernels"
    shutil.copytree(jitcache.ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    names = {n for n, _ in jitcache.sources(copy)}
    assert {"rng.py", "search.py", "samsara/rules.py", "jit.py"} <= names
    before = key(jitcache.sources(copy))
    (copy / "rng.py").write_text((copy / "rng.py").read_text() + "\n# edited\n")
    assert key(jitcache.sources(copy)) != before


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
        f = tmp_path / f"kernels-{i:024d}"
        f.mkdir()
        (f / jitcache.MARKER).touch()
        os.utime(f / jitcache.MARKER, (time.time() + i, time.time() + i))
        made.append(f)
    theirs = tmp_path / "kernels-not-ours"
    theirs.mkdir()
    (theirs / "precious.txt").write_text("keep me")
    gone = jitcache.prune(tmp_path)
    assert sorted(gone) == made[:2]
    assert all(f.is_dir() for f in made[2:]) and (theirs / "precious.txt").is_file()


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
