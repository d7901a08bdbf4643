"""Forward mode: values that carry a tangent along with them.

A :class:`Dual` pairs a primal value with its tangent. When a primitive meets
duals of a forward trace, the trace computes the primal result by calling the
primitive on the primal values (so outer traces record their part), and the
tangent of the result from the primitive's forward rules. A primitive with
only reverse rules gets its forward rule by transposition: a reverse rule is
linear in the cotangent, so pulling the tangent back through that linear map
gives the forward rule.
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.errors import ArgumentTypeError, MissingRuleError, ShapeError
from ..core.namespaces import is_foreign, joined
from ..core.primitive import is_joint, numpy_answer, per_argument_rule
from ..core.traces import Box, Trace, new_level
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import (
    format_value,
    in_library_of,
    is_complex,
    raw,
    shape_of,
    zeros_like_value,
)
from ..dag.arraylike import ArrayLike
from ..dag.backprop import add_cotangents, integer_valued, transpose
from ..dag.finite import unwatched, watched
from ..rules.arrays import broadcast_to
from ..rules.cuts import zeros_like
from ..rules.elementwise import real
from ..rules.ufuncs import in_dtype_of
from .arguments import call_user, check_callable, diff_leaf, fun_name, result_of, split_aux

__all__ = ["Dual", "ForwardTrace", "jvp_of", "jvp"]


class Dual(ArrayLike):
    """A primal value with its tangent, belonging to one forward trace."""

    __slots__ = ("_value", "_tangent", "_trace")

    def __init__(self, value, tangent, trace):
        self._value = value
        self._tangent = tangent
        self._trace = trace

    @property
    def tangent(self):
        return self._tangent

    def __repr__(self):
        return f"<Dual {format_value(self._value)} tangent {format_value(self._tangent)}>"


class ForwardTrace(Trace):
    """A forward-mode trace: every primitive call pushes tangents through."""

    __slots__ = ()
    box_type = Dual
    differentiates = True

    def process(self, prim, args, params):
        primals = []
        tangents = []
        numpy_scalars = False
        for a in args:
            if type(a) is Dual and a._trace is self:
                primals.append(a._value)
                tangents.append(a._tangent)
            else:
                primals.append(a)
                tangents.append(None)
                numpy_scalars = numpy_scalars or isinstance(a, np.generic)
        ans = prim(*primals, **params)
        if numpy_scalars and is_foreign(raw(ans)):  # to the rules as Python's numbers, as
            # Primitive.run hands them to the form: every library takes those
            primals = [p.item() if isinstance(p, np.generic) else p for p in primals]
        return Dual(ans, jvp_of(prim, tangents, ans, primals, params), self)

    makes_constants = True

    def constant(self, value):
        """``value`` as a Dual whose tangent is zero (see core/namespaces.joined)."""
        return Dual(value, zeros_like_value(value), self)

    def __repr__(self):
        return f"<forward trace {self.level}>"


def jvp_of(prim, tangents, ans, primals, params):
    """The output tangent of one primitive call, given its argument tangents."""
    if any(t is not None and type(t) is not np.ndarray for t in tangents):
        n = len(tangents)  # traced or another library's: see core/namespaces.joined
        both = joined((*tangents, ans, *primals))
        tangents, ans, primals = list(both[:n]), both[n], list(both[n + 1 :])
    rules = prim.jvp
    if is_joint(rules):
        out = rules(tuple(tangents), ans, *primals, **params)
        if type(raw(ans)) is tuple:  # several results (a loop's): one tangent each
            return out
    else:
        out = None
        for i, t in enumerate(tangents):
            if t is None:
                continue
            rule = per_argument_rule(rules, i)
            if rule is not None:
                c = rule(t, ans, *primals, **params)
            else:
                c = _transposed_vjp(prim, i, t, ans, primals, params)
            if c is not None:  # None: this argument does not move the output
                out = c if out is None else add_cotangents(out, c)
    if out is None:
        if isinstance(ans, Box) and ans._trace.opaque and not ans._trace.batch_axes:
            return zeros_like(ans)  # a staged value's zero, computed when the plan runs
        return zeros_like_value(ans)
    if type(out) is not float and is_complex(out) and not is_complex(ans):
        out = real(out)  # a real output of complex inputs moves along the real axis only
    if shape_of(out) != shape_of(ans):  # (a number's tangent beside a tensor: the tensor's)
        out = broadcast_to(in_library_of(out, ans), shape=shape_of(ans))
    return out


def _reverse_rule(prim, i):
    """The reverse rule of argument ``i`` alone, ``rule(g, ans, *args)``, or None."""
    rules = prim.vjp
    if is_joint(rules):
        return lambda g, ans, *args, **params: rules([i], g, ans, *args, **params)[0]
    return per_argument_rule(rules, i)


def _transposed_vjp(prim, i, t, ans, primals, params):
    """Forward rule for argument ``i`` derived from its reverse rule ``g -> J_i^T g``,
    which is linear: its transpose applied to ``t`` is ``J_i t`` (None: zero)."""
    rule = _reverse_rule(prim, i)
    if rule is None:
        if integer_valued(primals[i], ans):
            return None  # piecewise constant through an integer: a zero tangent
        raise MissingRuleError(
            f"primitive '{prim.name}' has no forward-mode rule and no reverse-mode rule for "
            f"argument {i}; define one with fg.defjvp({prim.name}, ...) or fg.defvjp"
        )
    return transpose(lambda g: rule(g, ans, *primals, **params), ans, t)


# ------------------------------------------------------------------ the transform


def _in_tangent_space(t, p):
    """A tangent in its primal's dtype, the space it lives in: ``np.ones(3)`` along a
    float32 primal is a float32 tangent (the jvp computes in float32 as the primal does),
    a float32 number along a Python float is a Python float (JAX refuses a tangent of
    another dtype; the cast is what it would ask for)."""
    if isinstance(t, Box) or isinstance(p, Box) or is_foreign(t) or is_foreign(p):
        return t
    if type(p) is float or type(p) is complex:
        return type(p)(t) if np.ndim(t) == 0 else t
    dtype = p.dtype
    if t.dtype == dtype if isinstance(t, (np.ndarray, np.generic)) else type(t) is float:
        return t
    cast = np.asarray(t).astype(dtype)
    return cast if isinstance(t, np.ndarray) else cast[()]


def jvp(
    fun: Callable, primals: Sequence, tangents: Sequence, has_aux: bool = False
) -> tuple[Any, ...]:
    """``(out, tangent_out)``: ``fun`` at ``primals`` and its derivative along ``tangents``.

    With ``has_aux=True``, ``fun`` returns ``(out, aux)`` and the result is
    ``(out, tangent_out, aux)``: aux is carried out as a value, not differentiated.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.jvp(fnp.sin, (0.0,), (2.0,))
    (np.float64(0.0), np.float64(2.0))
    >>> fg.jvp(lambda x: (x ** 2, {"x": x}), (3.0,), (1.0,), has_aux=True)
    (np.float64(9.0), np.float64(6.0), {'x': np.float64(3.0)})
    """
    who = f"jvp of {fun_name(check_callable(fun, 'jvp'))}"
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise ArgumentTypeError(
            f"{who}: primals and tangents must be tuples, e.g. jvp(f, (x,), (t,))"
        )
    p_leaves, p_def = tree_flatten(tuple(primals))
    t_leaves, t_def = tree_flatten(tuple(tangents))
    if p_def != t_def:
        raise ShapeError(f"{who}: tangents have structure {t_def!r}, but primals have {p_def!r}")
    for k, (p, t) in enumerate(zip(p_leaves, t_leaves)):
        if shape_of(p) != shape_of(t):
            raise ShapeError(
                f"{who}: tangent {k} has shape {shape_of(t)}, but its primal has {shape_of(p)}"
            )
    pairs = [
        (diff_leaf(p, who, f"primal {k}"), diff_leaf(t, who, f"tangent {k}"))
        for k, (p, t) in enumerate(zip(p_leaves, t_leaves))
    ]
    for k, (p, t) in enumerate(pairs):
        if is_complex(t) and not is_complex(p):
            raise ArgumentTypeError(
                f"{who}: tangent {k} is complex but its primal is real; a real "
                f"input moves along the real axis only: pass the primal as complex"
            )
    pairs = [(p, _in_tangent_space(t, p)) for p, t in pairs]
    pairs, watch = watched(pairs, who)  # inside fg.debug_nans(): check every value
    trace = ForwardTrace(new_level())
    duals = [Dual(p, t, trace) for p, t in pairs]
    out = call_user(fun, tree_unflatten(p_def, duals), None, who)
    if has_aux:
        out, aux = split_aux(out, who)
        aux = unwatched(result_of(trace, aux), watch)
    o_leaves, o_def = tree_flatten(out)
    primal_out = [result_of(trace, o) for o in o_leaves]
    tangent_out = [
        numpy_answer(in_dtype_of(o._tangent, p) if trace.owns(o) else zeros_like_value(o))
        for o, p in zip(o_leaves, primal_out)
    ]
    result = (
        unwatched(tree_unflatten(o_def, primal_out), watch),
        unwatched(tree_unflatten(o_def, tangent_out), watch),
    )
    return result + (aux,) if has_aux else result
