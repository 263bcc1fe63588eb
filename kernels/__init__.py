"""Numba kernels: one package per game plus shared pieces (rng, dice, search). No I/O, no
printing. How they compile, run from Python and are cached: `kernels/jit.py`."""
