"""kernels.numba_speedups: numba's compile flags compare and hash as numba's own code
does, only faster, and typing errors read as plain text."""

import numba
import pytest
from numba.core import compiler, errors

import kernels.jit  # noqa: F401  (installs the speedups)
from kernels import numba_speedups


def flag_sets():
    a = compiler.Flags()
    b = compiler.Flags()
    b.nrt = True
    c = compiler.Flags()
    c.nrt = False  # set explicitly to its default: equal to a
    d = compiler.Flags()
    d.nrt, d.error_model, d.fastmath = True, "numpy", False
    e = d.copy()
    return [a, b, c, d, e]


def test_installed_on_this_numba():
    assert numba_speedups.install()
    assert numba_speedups.ORIGINAL


def test_flags_values_hash_and_equality_match_numbas_own():
    orig = numba_speedups.ORIGINAL
    flags = flag_sets()
    for x in flags:
        assert x.values() == orig["values"](x)
        assert hash(x) == orig["hash"](x)
        for y in flags:
            assert (x == y) == orig["eq"](x, y), (x, y)
    assert flags[0] == flags[2] and flags[3] == flags[4] and flags[0] != flags[1]
    assert len({flags[0]: 1, flags[2]: 2}) == 1  # equal flags: one cache entry


def test_a_typing_error_reads_as_plain_text():
    @numba.njit
    def bad(x):
        return x + "a"

    with pytest.raises(errors.TypingError) as info:
        bad(1)
    assert "\x1b[" not in str(info.value)
