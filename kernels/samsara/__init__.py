"""Samsara in the shape every game follows (kernels/README.md).

- `rules`: the playout's state and every rule (movement, turns, goals, the match);
- `players`: random, greedy and lookahead, each choosing one of the legal turns;
- `stats`: the statistics table and the namedtuple of aggregate arrays;
- `play`: the fast path (`play_chunk`) and a finished playout's row (`game_row`).
"""
