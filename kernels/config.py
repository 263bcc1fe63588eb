"""Every numba flag the kernels use, in one place (applied by `kernels.jit.kernel`)."""

# A kernel function: releases the GIL (chunks run on threads), no fast-math (results are
# bit-identical everywhere), numpy's error model (no Python exception checks on division),
# and no numba reference counting: kernels allocate nothing once a game is set up, so
# arrays passed between them need no counting (`alloc=True` turns it on where a kernel
# allocates). Only compiled callers call it: no Python or C wrapper, not cached on its own.
KERNEL = {"nopython": True, "nogil": True, "fastmath": False, "error_model": "numpy",
          "_nrt": False, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}

# A kernel's Python entry (kernels.jit): the one compiled function Python calls, with a
# Python wrapper, cached by content (kernels.jitcache).
ENTRY = {"nopython": True, "nogil": True, "fastmath": False, "error_model": "numpy",
         "no_cfunc_wrapper": True}

# Options of the numba overloads the kernels define (search hooks, events.emit): compiled
# inside their callers like kernel functions.
OVERLOAD = {"nogil": True, "fastmath": False, "error_model": "numpy", "_nrt": False,
            "no_cfunc_wrapper": True}

# Compile-time note: a literal (0, -1, True, a module constant) passed straight into a
# kernel function is typed as that literal, so numba compiles the function once per
# value. Wrap such arguments in np.int64(...) / np.bool_(...) to keep one compiled
# version, or make a helper called with many constants an `overload` (typed with plain
# types first; see kernels/events.emit).
