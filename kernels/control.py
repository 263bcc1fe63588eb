"""Stopping compiled code from Python: a flag the kernels read between games and between
a search's simulations.

Chunks run compiled code on worker threads that Python cannot interrupt. The engine sets
`STOP[0] = 1` (Ctrl-C, SIGTERM, a refused estimate) and every running chunk returns at
its next check, within one game of the fast path or one simulation of a search; the
chunk's partial results are then thrown away. Kernels receive the flag as an argument
(a global array would be frozen into the compiled code as a constant).
"""

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

STOP = np.zeros(1, np.int64)  # this process's flag, passed to every chunk


def request_stop() -> None:
    """Ask every running chunk to return at its next check."""
    STOP[0] = 1


def clear() -> None:
    """Let chunks run again (before a new run)."""
    STOP[0] = 0


@intrinsic
def stopped(typingctx, flag):
    """Whether flag[0] is set (compiled code only): an atomic read, so that the compiler
    never keeps the value from an earlier iteration."""
    if not (isinstance(flag, types.Array) and flag.dtype == types.int64):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        value = builder.load_atomic(ary.data, "monotonic", 8)
        return builder.icmp_signed("!=", value, ir.Constant(ir.IntType(64), 0))

    return types.boolean(flag), codegen
