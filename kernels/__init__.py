"""Numba kernels: one package per game plus shared pieces (rng, dice, search). No I/O, no
printing. How they compile, run from Python and are cached: `kernels/jit.py`."""

# Called as listener(module, None) when a kernel's Python entry starts compiling (a cache
# miss) and listener(module, seconds) when it is done (kernels.jit). Here, not in
# kernels.jit, so that a command can listen without loading numba.
COMPILE_LISTENERS: list = []
