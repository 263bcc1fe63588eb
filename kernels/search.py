"""Monte Carlo tree search for any game in the rules/players shape (kernels/README.md).

Single-observer information-set MCTS (SO-ISMCTS; Cowling, Powley and Whitehouse 2012):
each simulation starts from a determinization of the real state, sampled consistently with
what the searching player can see (the other players' hands, the deck order, hidden
roles), with every chance stream reseeded from the search's own stream, so the search
never reads hidden information and never knows a future die roll. It descends a tree of
action sequences, choosing by UCB1 among the children that are legal in this
determinization (availability counts), expands one untried action, plays the rest of the
game with a rollout policy and backs every player's reward up the path; each node holds
the rewards of the player who chose it. With perfect information and dice (Samsara) the
determinization only reseeds chance: open-loop MCTS with chance by sampling. The decision
is the root child with the most visits.

Games plug in through the hook functions below: `kernels/<game>/search_hooks.py` calls
`register_hooks(ItsSearchState, clone=..., ...)` once, and numba picks the game's
implementation at compile time from the state's namedtuple class, so this loop is compiled
once per game and cached.
The tree is a set of preallocated arrays (one node per simulation at most), the scratch
state is allocated once per chunk: no allocation and no Python object in the loop.
"""

import importlib
import inspect
from collections import namedtuple

import numpy as np
from numba import types
from numba.extending import overload

from kernels import control
from kernels.config import OVERLOAD
from kernels.control import stopped
from kernels.jit import Kernel, kernel
from kernels.ref import Ref
from kernels.rng import below, next_u64, seed_lane, seed_lanes, stream_states

# the calls of a game's search entry (search_entry) beyond its play.Call ones
PLAY_SEARCHING = 100  # play_chunk_search from playout a, count playouts
SEARCH_DECISION = 101  # the search's action for the seat to act, in playout a (decision count)


def search_entry(module: str, play_chunk_search, decide, run) -> Kernel:
    """A game's search path's one compiled entry from Python, `run_search(st, ws, forbid,
    call, seed, a, count, rows, out, fout, budget, c, rollout, max_rollout)` of `module`
    (its search_play): play_chunk_search from playout a (call PLAY_SEARCHING), the
    search's action for the seat to act in playout a after count decisions
    (SEARCH_DECISION: decide(st, ws, forbid, seed, a, count, budget, c, rollout,
    max_rollout)), or any other call of play.run. So a run with search seats and `simcli
    replay` of it run (and cache) one library, and a replayed search decision is the fast
    path's own."""

    def run_search(st, ws, forbid, call, seed, a, count, rows, out, fout, budget, c,
                   rollout, max_rollout):
        if call == PLAY_SEARCHING:
            return play_chunk_search(st, ws, forbid, seed, a, count, rows, budget, c,
                                     rollout, max_rollout)
        if call == SEARCH_DECISION:
            return decide(st, ws, forbid, seed, a, count, budget, c, rollout, max_rollout)
        return run(st, forbid, ws.stop, call, seed, a, count, rows, out, fout)

    run_search.__module__ = module  # (cached and named as the game's own)
    run_search.__qualname__ = "run_search"
    return kernel(run_search)

# --- hooks: each game overloads these for its state type (kernels/<game>/search_hooks.py)


def clone(dst, src):
    """Copy every mutable field of game state `src` into `dst`."""
    raise NotImplementedError


def determinize(st, player, stream):
    """Resample in `st` everything `player` cannot see (consistently with what it can) and
    reseed every chance stream of `st` from `stream`."""
    raise NotImplementedError


def to_move(st):
    """Seat to act, -1 when over."""
    raise NotImplementedError


def legal_actions(st, out):
    """Fill out with the legal actions of the seat to act; return how many."""
    raise NotImplementedError


def apply(st, action):
    """Apply the action of the seat to act."""
    raise NotImplementedError


def is_over(st):
    """Whether the game has ended."""
    raise NotImplementedError


def outcome(st, out):
    """out[s] = 1.0 for every winning seat (teams and shared wins included), else 0."""
    raise NotImplementedError


def rollout_action(st, policy):
    """The action the seat to act takes under rollout policy code `policy` (the game's
    own policy codes: random, greedy ...), drawing from the seat's stream in `st`."""
    raise NotImplementedError


def option_of(st, action):
    """The forbiddable option an action uses (-1 for none)."""
    raise NotImplementedError


def evaluate(st, out):
    """out[s] = each seat's estimated chance of winning from a position that is not over
    (used when a rollout is cut short: `mcts_choose(..., max_rollout > 0)`)."""
    raise NotImplementedError


HOOKS = (clone, determinize, to_move, legal_actions, apply, is_over, outcome,
         rollout_action, option_of, evaluate)


_FIXED_ROOT: set = set()  # state classes registered with fixed_root=True


RULES_HOOKS = ("to_move", "legal_actions", "apply", "is_over", "outcome", "option_of")
"""Hooks that may be left to the game's rules module: the search state's game state
(field `st`) passed to the rules' function of the same name."""


def register_hooks(state_class: type, *, rules=None, fixed_root: bool = False,
                   **impls) -> None:
    """Make the search use `impls` (one compiled function per hook of HOOKS, keyed by the
    hook's name, each taking the same arguments as the hook) for game states whose numba
    type is the namedtuple class `state_class`. A hook of RULES_HOOKS not in `impls` is
    `rules.<hook>(state.st, ...)` (rules: the game's rules module). fixed_root: the
    searcher's actions at the root (`legal_actions`, less the forbidden ones) are the same
    in every determinization as in the real state, so a decision lists them once instead
    of once per simulation (the same decisions, faster)."""
    names = {h.__name__ for h in HOOKS}
    given = set(impls)
    if rules is not None:
        given |= {n for n in RULES_HOOKS if hasattr(rules, n)}
    if given != names:  # given covers impls, so an unknown hook also differs
        missing, unknown = sorted(names - given), sorted(set(impls) - names)
        raise TypeError(f"register_hooks: missing hooks {missing}, unknown hooks {unknown}")

    def mine(t) -> bool:
        return _state_class(t) is state_class

    if fixed_root:
        _FIXED_ROOT.add(state_class)
    for hook in HOOKS:
        arity = len(inspect.signature(hook).parameters)
        if hook.__name__ in impls:
            _overload_for(hook, arity, mine, impls[hook.__name__])
        else:
            _overload_for(hook, arity, mine, getattr(rules, hook.__name__), on_st=True)


def root_fixed(st):
    """Whether the game of state `st` registered its hooks with fixed_root=True (a
    compile-time constant)."""
    raise NotImplementedError


def _state_class(t):
    """The namedtuple class of a search state's numba type (a Ref or the tuple itself)."""
    if isinstance(t, Ref):
        t = t.inner
    return t.instance_class if isinstance(t, types.BaseNamedTuple) else None


@overload(root_fixed, jit_options={**OVERLOAD, "forceinline": True})
def _root_fixed(st):
    if _state_class(st) in _FIXED_ROOT:
        return lambda st: True
    return lambda st: False


# The dispatch from a hook to a game's implementation is a one-line call: inlined (LLVM).
_DISPATCH = {**OVERLOAD, "forceinline": True}


def _overload_for(hook, arity: int, mine, impl, on_st: bool = False) -> None:
    """Overload `hook` (1-3 arguments, the first a search state) with `impl` for `mine`;
    on_st: impl takes the search state's game state (field `st`) in its place."""
    if arity == 1:
        @overload(hook, jit_options=_DISPATCH)
        def _one(a):
            if not mine(a):
                return None
            return (lambda a: impl(a.st)) if on_st else (lambda a: impl(a))
    elif arity == 2:
        @overload(hook, jit_options=_DISPATCH)
        def _two(a, b):
            if not mine(a):
                return None
            return (lambda a, b: impl(a.st, b)) if on_st else (lambda a, b: impl(a, b))
    else:
        @overload(hook, jit_options=_DISPATCH)
        def _three(a, b, c):
            return (lambda a, b, c: impl(a, b, c)) if mine(a) else None


# --- the search

Tree = namedtuple("Tree", ["action", "player", "parent", "child", "sibling", "visits",
                           "avail", "reward", "used"])
"""Preallocated tree of N nodes. action, player, parent, child (first), sibling (next):
(N,) int64 (-1 for none); visits, avail: (N,) int64; reward: (N,) float64, the summed
rewards of `player`, who chose the action leading to the node; used: (1,) int64 nodes."""

Workspace = namedtuple("Workspace", ["tree", "scratch", "stream", "acts", "order",
                                     "marks", "rewards", "moves", "root", "stop"])
"""A search's memory, made once per chunk: tree, scratch game state (same type as the
real one), stream (1, STATE_SIZE) uint64 the search's own random stream, acts and order
(max actions,) int64 buffers, marks (max actions,) bool, rewards (max players,) float64,
moves (1,) int64: actions applied in simulations so far (for `simcli bench`), root (max
actions,) int64 the root's actions, sorted (games registered with fixed_root); stop (1,)
int64 the stop flag (kernels.control): a search checks it before every simulation."""

SEARCH_LANE = 64  # the search of seat s draws from lane SEARCH_LANE + s of the playout


def new_tree(capacity: int) -> Tree:
    """An empty tree with room for `capacity` nodes."""
    z = np.zeros
    return Tree(z(capacity, np.int64), z(capacity, np.int64), z(capacity, np.int64),
                z(capacity, np.int64), z(capacity, np.int64), z(capacity, np.int64),
                z(capacity, np.int64), z(capacity, np.float64), z(1, np.int64))


def new_workspace(budget: int, scratch, max_actions: int, max_players: int,
                  stop: np.ndarray = control.STOP) -> Workspace:
    """Memory for searches of up to `budget` simulations on states like `scratch`, stopped
    early when stop[0] is set."""
    return Workspace(new_tree(budget + 2), scratch, stream_states(0, 1),
                     np.zeros(max_actions, np.int64), np.zeros(max_actions, np.int64),
                     np.zeros(max_actions, np.bool_), np.zeros(max_players, np.float64),
                     np.zeros(1, np.int64), np.zeros(max_actions, np.int64), stop)


@kernel
def seed_search(ws, seed, playout, seat):
    """Key the search's stream to (seed, playout, lane SEARCH_LANE + seat): the same
    decisions for the same seed on any thread."""
    seed_lane(ws.stream[0], seed, playout, SEARCH_LANE + seat)


@kernel
def copy1(dst, src):
    """dst[i] = src[i] over a 1-d src, element by element: the search loop runs without
    numba's reference counting, which an array-to-array slice assignment needs."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@kernel
def copy2(dst, src):
    """dst[i, j] = src[i, j] over a 2-d src, element by element (see copy1)."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@kernel
def reseed(rng_rows, stream):
    """Key every chance stream of a determinization afresh from the search's stream, so a
    simulation never replays the real game's future dice and draws."""
    seed_lanes(rng_rows, next_u64(stream), np.int64(0))


@kernel
def sort_head(a, n):
    """Sort a[:n] in place (insertion sort: a few dozen cards at most). Determinizations
    sort the pooled hidden cards before shuffling them, so a deal depends only on what the
    searcher sees and the stream."""
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@kernel
def _new_node(tree, parent, action, player):
    i = tree.used[0]
    tree.used[0] = i + 1
    tree.action[i] = action
    tree.player[i] = player
    tree.parent[i] = parent
    tree.child[i] = -1
    tree.sibling[i] = -1
    tree.visits[i] = 0
    tree.avail[i] = 0
    tree.reward[i] = 0.0
    if parent >= 0:
        tree.sibling[i] = tree.child[parent]
        tree.child[parent] = i
    return i


@kernel
def _find(sorted_acts, n, action):
    """Position of `action` in sorted_acts[:n], or -1."""
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_acts[mid] < action:
            lo = mid + 1
        else:
            hi = mid
    if lo < n and sorted_acts[lo] == action:
        return lo
    return -1


@kernel
def _allowed(st, acts, n, forbid, player):
    """Drop the actions whose option is forbidden to `player` (keeping at least one)."""
    if forbid.shape[1] == 0:
        return n
    m = 0
    for i in range(n):
        o = option_of(st, acts[i])
        if o < 0 or not forbid[player, o]:
            acts[m] = acts[i]
            m += 1
    return m if m > 0 else n


@kernel
def _descend(ws, node, c, forbid, n_known):
    """One step down from `node` in the scratch state: expand an untried legal action
    (returning (child, True)) or follow the UCB1 choice among the legal children
    (returning (child, False)); the legal children's availability counts go up.
    n_known > 0: the allowed actions here are ws.root[:n_known] (sorted), not listed."""
    st = ws.scratch
    tree = ws.tree
    acts = ws.order
    p = to_move(st)
    if n_known > 0:
        n = n_known
        for i in range(n):
            acts[i] = ws.root[i]
    else:
        n = _allowed(st, acts, legal_actions(st, acts), forbid, p)
        sort_head(acts, n)
    marks = ws.marks
    marks[:n] = False
    tried = 0
    best = -1
    best_score = -1.0
    ch = tree.child[node]
    while ch >= 0:
        pos = _find(acts, n, tree.action[ch])
        if pos >= 0:
            marks[pos] = True
            tried += 1
            tree.avail[ch] += 1
            if tree.visits[ch] > 0:
                score = tree.reward[ch] / tree.visits[ch] + c * np.sqrt(
                    np.log(tree.avail[ch]) / tree.visits[ch])
            else:
                score = 1e300
            if score > best_score:
                best_score = score
                best = ch
        ch = tree.sibling[ch]
    if tried < n and tree.used[0] < tree.action.shape[0]:
        k = below(ws.stream[0], n - tried)
        for i in range(n):
            if not marks[i]:
                if k == 0:
                    child = _new_node(tree, node, acts[i], p)
                    tree.avail[child] = 1
                    apply(st, acts[i])
                    return child, True
                k -= 1
    if best < 0:  # the tree is full and nothing here was tried: play on without it
        return -1, True
    apply(st, tree.action[best])
    return best, False


@kernel
def mcts_choose(st, ws, forbid, budget, c, rollout_policy, max_rollout):
    """The action the seat to act in `st` chooses after `budget` simulations (forbid:
    (players, options) bool, the options each player may never use). Rollouts play to the
    end, or `max_rollout` actions when it is positive and then take the game's
    `evaluate` estimate."""
    tree = ws.tree
    tree.used[0] = 0
    root = _new_node(tree, -1, -1, -1)
    me = to_move(st)
    n_root = _allowed(st, ws.acts, legal_actions(st, ws.acts), forbid, me)
    if n_root == 1:
        return ws.acts[0]
    n_known = 0  # the root's actions, listed once when every determinization has the same
    if root_fixed(st):
        for i in range(n_root):
            ws.root[i] = ws.acts[i]
        sort_head(ws.root, n_root)
        n_known = n_root
    for _ in range(budget):
        if stopped(ws.stop):  # the run is being stopped: decide on what is known
            break
        clone(ws.scratch, st)
        determinize(ws.scratch, me, ws.stream[0])
        node = root
        path_end = root
        expanded = False
        depth = 0
        while not expanded and not is_over(ws.scratch):
            node, expanded = _descend(ws, node, c, forbid, n_known if node == root else 0)
            depth += 1
            if node < 0:
                break
            path_end = node
        steps = 0
        while not is_over(ws.scratch) and (max_rollout <= 0 or steps < max_rollout):
            apply(ws.scratch, rollout_action(ws.scratch, rollout_policy))
            steps += 1
        ws.moves[0] += depth + steps
        if is_over(ws.scratch):
            outcome(ws.scratch, ws.rewards)
        else:
            evaluate(ws.scratch, ws.rewards)
        node = path_end
        while node > 0:
            tree.visits[node] += 1
            tree.reward[node] += ws.rewards[tree.player[node]]
            node = tree.parent[node]
        tree.visits[root] += 1
    best = -1
    best_visits = -1
    ch = tree.child[root]
    while ch >= 0:
        if tree.visits[ch] > best_visits and _in(ws.acts, n_root, tree.action[ch]):
            best_visits = tree.visits[ch]
            best = ch
        ch = tree.sibling[ch]
    if best < 0:
        return ws.acts[below(ws.stream[0], n_root)]
    return tree.action[best]


@kernel
def _in(acts, n, action):
    for i in range(n):  # noqa: SIM110 (a generator in any() does not compile in numba)
        if acts[i] == action:
            return True
    return False


# Every module that registers hooks is imported with the search, before anything compiles:
# numba's cache index of a search function names every state type it was compiled for and
# imports that type's module when it loads the index; a module registering its overloads
# in the middle of a compile makes numba fail ("Cannot unify Function(clone) and ...").
HOOK_MODULES = ("kernels.search_toys", "kernels.samsara.search_hooks",
                "kernels.samurai_card_game.search_hooks", "kernels.samurai_katana.search_hooks",
                "kernels.samurai_sword.search_hooks", "kernels.sixteen_samurai.search_hooks")
for _module in HOOK_MODULES:
    importlib.import_module(_module)
