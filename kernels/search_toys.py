"""Two tiny games in the rules/players shape, to test kernels/search.py on positions whose
best move is known (tests/test_search.py).

They live in the package, not in tests/, because numba's cache index of the search's
functions records every state type they were compiled for: a type defined in tests/ would
make that index unreadable in any process that cannot import `tests` (every `simcli` run).

Nim (perfect information): one heap, take 1-3, whoever takes the last stone wins.
High card (hidden information): each player is dealt one card of 0..9 from a shuffled
deck; seat 0 then bets (1) or folds (0); a bet wins with the higher card. Seat 0 sees its
own card only; seat 1's card is hidden from it.
"""

from collections import namedtuple

import numpy as np

from kernels import search
from kernels.jit import kernel
from kernels.rng import below, seed_lanes, shuffle, stream_states

Nim = namedtuple("Nim", ["heap", "turn", "winner", "rng"])


def new_nim(heap: int) -> Nim:
    return Nim(np.array([heap], np.int64), np.zeros(1, np.int64), np.full(1, -1, np.int64),
               stream_states(0, 2))


@kernel
def nim_legal(st, out):
    n = min(3, st.heap[0])
    for i in range(n):
        out[i] = i + 1
    return n


@kernel
def nim_apply(st, a):
    st.heap[0] -= a
    if st.heap[0] == 0:
        st.winner[0] = st.turn[0]
    st.turn[0] = 1 - st.turn[0]


@kernel
def nim_clone(dst, src):
    search.copy1(dst.heap, src.heap)
    search.copy1(dst.turn, src.turn)
    search.copy1(dst.winner, src.winner)
    search.copy2(dst.rng, src.rng)


@kernel
def nim_to_move(st):
    return -1 if st.winner[0] >= 0 else st.turn[0]


@kernel
def nim_over(st):
    return st.winner[0] >= 0


@kernel
def nim_outcome(st, out):
    out[:] = 0.0
    out[st.winner[0]] = 1.0


@kernel
def nim_rollout(st, policy):
    return 1 + below(st.rng[st.turn[0]], min(3, st.heap[0]))


@kernel
def nim_evaluate(st, out):
    """A heap that is a multiple of 4 is lost for the player to move."""
    mover_wins = 0.0 if st.heap[0] % 4 == 0 else 1.0
    out[st.turn[0]] = mover_wins
    out[1 - st.turn[0]] = 1.0 - mover_wins


@kernel
def nim_determinize(st, player, stream):
    search.reseed(st.rng, stream)


@kernel
def nim_option(st, a):
    return a - 1  # option k: taking k + 1 stones


search.register_hooks(Nim, clone=nim_clone, determinize=nim_determinize, to_move=nim_to_move,
                      legal_actions=nim_legal, apply=nim_apply, is_over=nim_over,
                      outcome=nim_outcome, rollout_action=nim_rollout, option_of=nim_option,
                      evaluate=nim_evaluate)


HighCard = namedtuple("HighCard", ["card", "deck", "bet", "done", "rng"])


def new_high_card() -> HighCard:
    return HighCard(np.zeros(2, np.int64), np.arange(10, dtype=np.int64),
                    np.full(1, -1, np.int64), np.zeros(1, np.bool_),
                    stream_states(0, 3))


@kernel
def high_card_setup(st, seed, playout):
    seed_lanes(st.rng, np.uint64(seed), playout)  # seeds are uint64, as in the games
    for i in range(10):
        st.deck[i] = i
    shuffle(st.rng[2], st.deck, 10)
    st.card[0] = st.deck[0]
    st.card[1] = st.deck[1]
    st.bet[0] = -1
    st.done[0] = False


@kernel
def high_card_determinize(st, player, stream):
    """Seat 0 knows its card: seat 1's card is any other card."""
    search.reseed(st.rng, stream)
    if player == 0:
        k = below(stream, 9)
        other = k if k < st.card[0] else k + 1
        st.card[1] = other


@kernel
def high_card_clone(dst, src):
    search.copy1(dst.card, src.card)
    search.copy1(dst.deck, src.deck)
    search.copy1(dst.bet, src.bet)
    search.copy1(dst.done, src.done)
    search.copy2(dst.rng, src.rng)


@kernel
def high_card_to_move(st):
    return -1 if st.done[0] else 0


@kernel
def high_card_legal(st, out):
    out[0] = 0
    out[1] = 1
    return 2


@kernel
def high_card_apply(st, a):
    st.bet[0] = a
    st.done[0] = True


@kernel
def high_card_over(st):
    return st.done[0]


@kernel
def high_card_outcome(st, out):
    """Folding: seat 1 wins with probability 1/2 (a coin from the table's stream, so the
    expected reward of folding is 0.5); betting: the higher card wins."""
    out[:] = 0.0
    if st.bet[0] == 0:
        out[0] = 0.5
        out[1] = 0.5
    elif st.card[0] > st.card[1]:
        out[0] = 1.0
    else:
        out[1] = 1.0


@kernel
def high_card_rollout(st, policy):
    return below(st.rng[0], 2)


@kernel
def high_card_evaluate(st, out):
    out[:] = 0.5


@kernel
def high_card_option(st, a):
    return a


search.register_hooks(HighCard, clone=high_card_clone, determinize=high_card_determinize,
                      to_move=high_card_to_move, legal_actions=high_card_legal,
                      apply=high_card_apply, is_over=high_card_over,
                      outcome=high_card_outcome, rollout_action=high_card_rollout,
                      option_of=high_card_option, evaluate=high_card_evaluate)
