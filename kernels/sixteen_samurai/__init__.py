"""Sixteen Samurai: draft, Clan Conflict with battle cards, Final Battle (2-4 players).

`rules` holds the state and every rule, `players` the policies, `stats` the statistics
table, `play` the fast path (kernels/README.md)."""
