"""A namedtuple passed to kernels by reference (kernels.ref): fields read and written
through it as through the tuple, and its parameters marked noalias for LLVM."""

from collections import namedtuple

import numpy as np
from numba import typeof

from kernels.jit import kernel
from kernels.ref import Ref

Pair = namedtuple("Pair", ["a", "b", "n"])


@kernel
def _bump(st, k):
    for i in range(st.n[0]):
        st.b[i] = st.a[i] * k + st.b[i]
    return st.b[st.n[0] - 1]


@kernel
def _twice(st, k):
    _bump(st, k)
    return _bump(st, k)


def test_fields_read_and_written_through_a_ref_are_the_tuples():
    st = Pair(np.arange(5, dtype=np.int64), np.ones(5, np.int64), np.array([4], np.int64))
    assert _twice(st, np.int64(3)) == 1 + 2 * 3 * 3
    assert st.b.tolist() == [1, 7, 13, 19, 1]


def test_a_ref_parameter_is_marked_noalias():
    st = Pair(np.zeros(2, np.int64), np.zeros(2, np.int64), np.array([2], np.int64))
    _twice(st, np.int64(1))
    _bump.compile((Ref(typeof(st)), typeof(np.int64(1))))  # (the entry may come from the cache)
    [(sig, cres)] = list(_bump.overloads.items())
    assert isinstance(sig[0], Ref)
    ir = str(cres.library._final_module)
    header = next(line for line in ir.splitlines()
                  if line.startswith("define") and cres.fndesc.mangled_name in line)
    assert 'noalias %"arg.st"' in header or "noalias %arg.st" in header, header
