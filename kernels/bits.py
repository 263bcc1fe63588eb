"""Bit helpers for board kernels.

trailing_zeros is LLVM's count-trailing-zeros intrinsic, which numba exposes only from an
internal module; if a numba release moves it, a portable loop takes over (slower, same
results).
"""


from kernels.jit import kernel

try:  # pragma: no cover - which branch runs depends on the numba release
    from numba.cpython.unsafe.numbers import trailing_zeros
except ImportError:  # pragma: no cover
    @kernel
    def trailing_zeros(x):
        """Index of the lowest set bit of x > 0."""
        n = 0
        while not (x >> n) & 1:
            n += 1
        return n
