"""Samurai & Katana: blind city draw, purchase, clan activations with card combat,
Emperor and Shogun, taxes (3-6 players).

`rules` holds the state and every rule, `players` the policies, `stats` the statistics
table, `play` the fast path (kernels/README.md); the battle mechanics shared with
`simcli odds` live in kernels/katana_combat.py."""
