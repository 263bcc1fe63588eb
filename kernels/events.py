"""Game logs: events a game's rules write into a fixed buffer while a game is replayed.

An event is one int64 row (turn, player, kind, a, b, c, d); what a..d mean depends on the
game's event kind, which the game's Python declaration turns into words. Kind 0 is the same
in every game: a player's decision (a = number of legal actions, b = the action chosen),
written by the Python handle before the action is applied, so a log reads in order.

The fast path passes a buffer of shape (0, N_COLS): `emit` then only counts, so logging
costs one comparison per event. A buffer that fills up keeps counting, so a reader can tell
the log was cut (`log_n[0] > log.shape[0]`).
"""

import numpy as np
from numba.extending import overload

from kernels.config import OVERLOAD

TURN = 0
PLAYER = 1
KIND = 2
A = 3
B = 4
C = 5
D = 6
N_COLS = 7

DECISION = 0  # the event kind every game shares


def new_log(capacity: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty event buffer of `capacity` rows and its counter (log, log_n)."""
    return np.zeros((capacity, N_COLS), np.int64), np.zeros(1, np.int64)


def emit(log, log_n, turn, player, kind, a, b, c, d):
    """Append one event (counted, and stored while the buffer has room)."""
    i = log_n[0]
    if i < log.shape[0]:
        log[i] = (turn, player, kind, a, b, c, d)
    log_n[0] = i + 1


@overload(emit, jit_options=OVERLOAD)
def _emit(log, log_n, turn, player, kind, a, b, c, d):
    """emit inside compiled code. An overload is typed with its arguments' plain types
    first, so calls with constant event kinds share one compiled version (a plain njit
    function is compiled again for every combination of literal arguments)."""
    def impl(log, log_n, turn, player, kind, a, b, c, d):
        i = log_n[0]
        if i < log.shape[0]:
            log[i, TURN] = turn
            log[i, PLAYER] = player
            log[i, KIND] = kind
            log[i, A] = a
            log[i, B] = b
            log[i, C] = c
            log[i, D] = d
        log_n[0] = i + 1
    return impl
