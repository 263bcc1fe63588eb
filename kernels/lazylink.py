"""Machine code only where it runs: a helper's compiled library is optimised and turned
into machine code only when Python calls it, never on its own when another compiled
function merely links it.

numba finalises (LLVM O3, then machine code) the library of every function it compiles,
and again the library of each caller, which links the callee's optimised IR and optimises
and generates it all once more. A kernel call tree several levels deep is thus optimised
and generated once per level: most of a cold compile's LLVM time (measured in
docs/performance.md). With `install()`, a library is finalised on first use of its code (a
Python wrapper's address, the cache's object code); a caller that only links it takes its
IR as it is and optimises it once, with everything else, in its own finalisation. Results
are the same code: every function still goes through the same O3 pipeline, in the module
of the entry point that runs it.

This reaches into numba's code library (`numba.core.codegen`), so it is applied only to
the numba versions it was checked on; elsewhere `install()` does nothing and compiles are
slower, never different.
"""

from __future__ import annotations

import ctypes

import numba

CHECKED = ((0, 61), (0, 62), (0, 63), (0, 64), (0, 65), (0, 66), (0, 67), (0, 68))
_installed = False


def checked_numba() -> bool:
    """Whether this numba's version is one the patches into its internals (this module's
    and kernels.numba_speedups') were checked on."""
    major, minor = numba.__version__.split(".")[:2]
    return (int(major), int(minor)) in CHECKED


def supported() -> bool:
    """Whether this numba is one the patch was checked on, with the parts it changes."""
    from numba.core import codegen as cg

    needed = [(cg.CPUCodeLibrary, "_get_module_for_linking"),
              (cg.CPUCodeLibrary, "add_linking_library"),
              (cg.CPUCodeLibrary, "_finalize_final_module"),
              (cg.JITCodeLibrary, "get_pointer_to_function"),
              (cg.JITCPUCodegen, "set_env")]
    return checked_numba() and all(hasattr(c, n) for c, n in needed)


def install() -> bool:
    """Apply lazy finalisation (once per process); False where this numba is unchecked."""
    global _installed
    if _installed:
        return True
    if not supported():
        return False
    import llvmlite.binding as ll
    from numba.core import codegen as cg

    finalized_module = cg.CPUCodeLibrary._get_module_for_linking
    pointer_to = cg.JITCodeLibrary.get_pointer_to_function
    finalize_final = cg.CPUCodeLibrary._finalize_final_module
    pending: dict[str, list] = {}  # env global name -> (codegen, env) not yet placed

    def add_linking_library(self, library):
        self._linking_libraries.append(library)

    def get_module_for_linking(self):
        if self._finalized:
            return finalized_module(self)
        if self._shared_module is not None:
            return self._shared_module
        mod = self._final_module.clone()
        seen = set()
        for lib in self._linking_libraries:
            if lib not in seen:
                seen.add(lib)
                self._reload_init.update(lib._reload_init)
                mod.link_in(lib._get_module_for_linking(), preserve=True)
        for fn in mod.functions:
            if not fn.is_declaration and fn.linkage == ll.Linkage.external:
                fn.linkage = "linkonce_odr"
        self._shared_module = mod
        return mod

    def get_pointer_to_function(self, name):
        if not self._finalized:
            try:
                self._final_module.get_function(name)
            except NameError:  # no such function (a helper without a Python wrapper)
                return 0
        return pointer_to(self, name)

    def place(codegen, name, env) -> bool:
        address = codegen._engine.get_global_value_address(name)
        if address:
            (ctypes.c_void_p * 1).from_address(address)[0] = ctypes.c_void_p(id(env))
        return bool(address)

    def set_env(self, env_name, env):
        if not place(self, env_name, env):  # its code is not generated yet
            pending[env_name] = [self, env]

    def finalize_final_module(self):
        finalize_final(self)
        names = {g.name for g in self._final_module.global_variables}
        for name in names & pending.keys():
            codegen, env = pending[name]
            place(codegen, name, env)

    cg.CPUCodeLibrary.add_linking_library = add_linking_library
    cg.CPUCodeLibrary._get_module_for_linking = get_module_for_linking
    cg.CPUCodeLibrary._finalize_final_module = finalize_final_module
    cg.JITCodeLibrary.get_pointer_to_function = get_pointer_to_function
    cg.JITCPUCodegen.set_env = set_env
    _installed = True
    return True
