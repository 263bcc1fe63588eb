"""Samurai: The Card Game in numba: `rules` (state and every rule), `players` (random and
greedy), `stats` (the statistics table) and `play` (the fast path)."""
