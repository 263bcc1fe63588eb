"""Every numba flag the kernels use, in one place."""

# Every kernel: cached to disk, releases the GIL so chunks run on threads.
JIT = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}

# Per-game loops that allocate nothing: without numba's reference-counting runtime the
# arrays they pass to helpers are not counted on every call (a quarter of a game's time).
# Allocation inside such a function is a compile error, which keeps them allocation-free.
NO_ALLOC = {**JIT, "_nrt": False}

# Tiny helpers inlined at numba's IR level (no call, nothing to count).
INLINE = {**NO_ALLOC, "inline": "always"}

# Compile-time note: a literal (0, -1, True, a module constant) passed straight into a
# jitted helper is typed as that literal, so numba compiles the helper once per value.
# Wrap such arguments in np.int64(...) / np.bool_(...) to keep one compiled version, or
# make a helper called with many constants an `overload` (typed with plain types first;
# see kernels/events.emit: 30 calls with constant kinds compile in 2 s instead of 14 s).
