"""Samurai Sword (hidden roles, characters, card combat, 3-7 players) in the shape of
kernels/README.md: `rules` (state and every rule), `players` (random, heuristic), `stats`
(the statistics table) and `play` (the fast path)."""
