"""A namedtuple passed by reference inside compiled code: `ref(st)`.

A game state is a namedtuple of dozens of arrays. Passed by value, every call of a compiled
helper carries every field of every array (hundreds of machine words), numba types and
lowers that at every call site and LLVM optimises it again in every function, which is most
of a cold compile. `ref(st)` (called once, in an entry point) stores the tuple in the entry
point's stack frame and returns a `Ref`: one pointer. Helpers take the Ref where they took
the tuple and read it the same way: `st.key[0]`, `st.aggs.wins[s] += 1`; a field that is
itself a namedtuple (`st.aggs`, `ss.st`) reads as a Ref too, so nothing is copied.

A Ref is valid while the entry point that made it runs, and only inside compiled code; the
kernels never return one or keep one in an array. The tuple's fields (array headers: data
pointers, shapes) never change after `ref`, only the arrays' contents. So a compiled
function's Ref parameters are marked `noalias` (nothing else writes what they point at:
nothing writes it at all), which lets LLVM keep array headers read through a Ref in
registers across stores into the arrays' contents.
"""

from __future__ import annotations

import hashlib

from numba.core import callconv, cgutils, types
from numba.core.imputils import impl_ret_borrowed, lower_getattr_generic
from numba.core.typing.templates import AttributeTemplate
from numba.extending import infer_getattr, intrinsic, models, register_model


class Ref(types.Type):
    """numba type: a pointer to a namedtuple value of type `inner` (read only)."""

    def __init__(self, inner: types.BaseNamedTuple) -> None:
        self.inner = inner
        self.dtype = inner  # PointerModel reads the pointee type here
        # the name enters mangled symbol names: unique per inner type, short for messages
        digest = hashlib.sha1(str(inner).encode()).hexdigest()[:10]
        super().__init__(name=f"Ref[{inner.instance_class.__name__}.{digest}]")

    @property
    def key(self):
        return self.inner

    def field_type(self, attr: str):
        """numba type of field `attr` as read through the Ref (a Ref for a namedtuple)."""
        t = self.inner.types[self.inner.fields.index(attr)]
        return Ref(t) if isinstance(t, types.BaseNamedTuple) else t


@register_model(Ref)
class _RefModel(models.PointerModel):
    pass


@intrinsic
def ref(typingctx, tup):
    """A Ref to namedtuple `tup` (compiled code only)."""
    if not isinstance(tup, types.BaseNamedTuple):
        return None

    return Ref(tup)(tup), _store


@infer_getattr
class _RefAttributes(AttributeTemplate):
    key = Ref

    def generic_resolve(self, typ, attr):
        if attr in typ.inner.fields:
            return typ.field_type(attr)
        return None


@lower_getattr_generic(Ref)
def _ref_getattr(context, builder, typ, value, attr):
    i = typ.inner.fields.index(attr)
    ptr = cgutils.gep_inbounds(builder, value, 0, i)
    field = typ.inner.types[i]
    if isinstance(field, types.BaseNamedTuple):
        return ptr  # a Ref to the nested tuple
    dm = context.data_model_manager[field]
    out = dm.load_from_data_pointer(builder, ptr)
    return impl_ret_borrowed(context, builder, field, out)


@intrinsic
def as_ref(typingctx, x):
    """`ref(x)` for a namedtuple, `x` itself for anything else (compiled code only): how
    a kernel's Python entry passes its arguments on."""
    if isinstance(x, types.BaseNamedTuple):
        return Ref(x)(x), _store

    def same(context, builder, sig, args):
        return impl_ret_borrowed(context, builder, sig.return_type, args[0])

    return x(x), same


def _store(context, builder, sig, args):
    dm = context.data_model_manager[sig.args[0]]
    slot = cgutils.alloca_once(builder, dm.get_data_type())
    builder.store(dm.as_data(builder, args[0]), slot)
    return slot


@intrinsic
def deref(typingctx, r):
    """The namedtuple a Ref points to, as a value (compiled code only): to build another
    namedtuple around a state (a search's root) of the same type as one made in Python."""
    if not isinstance(r, Ref):
        return None

    def codegen(context, builder, sig, args):
        dm = context.data_model_manager[r.inner]
        value = dm.load_from_data_pointer(builder, args[0])
        return impl_ret_borrowed(context, builder, r.inner, value)

    return r.inner(r), codegen


def _mark_noalias() -> bool:
    """Mark every Ref parameter of compiled functions `noalias` (module docstring); False,
    changing nothing, where this numba lacks the calling-convention parts it uses."""
    conv = callconv.CPUCallConv
    if getattr(conv, "_ref_noalias", False):
        return True
    if not (hasattr(conv, "decorate_function") and hasattr(conv, "_get_arg_packer")):
        return False
    plain = conv.decorate_function

    def decorate_function(self, fn, args, fe_argtypes, noalias=False):
        plain(self, fn, args, fe_argtypes, noalias)
        if any(isinstance(t, Ref) for t in fe_argtypes):
            unflattener = getattr(self._get_arg_packer(fe_argtypes), "_unflattener", None)
            if unflattener is None:
                return
            grouped = list(unflattener.unflatten(self.get_arguments(fn)))
            if len(grouped) != len(fe_argtypes):
                return
            for t, arg in zip(fe_argtypes, grouped, strict=True):
                if isinstance(t, Ref):
                    arg.add_attribute("noalias")

    conv.decorate_function = decorate_function
    conv._ref_noalias = True
    return True


_mark_noalias()
