"""Numba kernels: one module per game plus shared pieces (rng, dice). No I/O, no printing."""
