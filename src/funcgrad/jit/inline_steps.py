"""Steps a plan writes as Python's own code, and the steps numba types.

An addition, a product or a pick of numbers is one Python operator in a plan's text,
not a call of its primitive's impl: the same value, without the call (on a number the
call costs more than the arithmetic). :func:`scalar_template` gives that text where it
is exactly the impl's value; :func:`typable` says which steps of a table numba compiles.
"""

import numpy as np

from ..core.primitive import strong
from ..rules import elementwise
from ..rules.elementwise_impls import FLOAT_SCALARS
from .steptable import ufunc_of

__all__ = ["INLINE", "scalar_template", "typable"]

INLINE = {  # primitives whose impl is exactly a Python operator
    elementwise.add: "{} + {}",
    elementwise.subtract: "{} - {}",
    elementwise.multiply: "{} * {}",
    elementwise.negative: "-{}",
}

_COMPARISONS = {
    elementwise.less: "<",
    elementwise.less_equal: "<=",
    elementwise.greater: ">",
    elementwise.greater_equal: ">=",
    elementwise.equal: "==",
    elementwise.not_equal: "!=",
}
_SAME_KIND = ({int}, {float})


def scalar_template(n, prim, names, native=False):
    """Python's own code for step ``n``, exactly the impl's value without its call, or
    None. Such steps: a ``where`` that picked a Python float; a ``where_positive`` of two
    numbers (:func:`_number_gate`); a comparison of two Python floats or two ints (NumPy's
    bool, chosen by Python's comparison, which agrees with NumPy's there; an int against a
    float may not, past 2**53); a Python float made NumPy's float64 (``strong``; in numba's
    code every float is a float64 already)."""
    if prim is strong and type(n._args[0]._value) is float:
        return "{}" if native else names.type(np.float64) + "({})"
    if prim is elementwise.where and type(n._value) is float:
        return "({1} if {0} else {2})"
    if prim is elementwise.where_positive and _number_gate(n, native):
        zero = "0.0" if native or type(n._value) is float else names.constant(type(n._value)(0.0))
        return f"({{1}} if {{0}} > 0.0 else {zero})"
    op = _COMPARISONS.get(prim)
    if (
        op is not None
        and type(n._value) is np.bool_
        and len(n._args) == 2
        and {type(a._value) for a in n._args} in _SAME_KIND
    ):
        return f"({names.constant(np.True_)} if {{}} {op} {{}} else {names.constant(np.False_)})"
    return None


def _number_gate(n, native):
    """Whether step ``n`` is a ``where_positive`` of two numbers (a while loop's reverse
    step gating its cotangent), which the impl computes as ``g if x > 0.0 else zero``; in
    numba's code only where that zero is a float64, as numba's own would be."""
    x, g = n._args
    if type(x._value) not in FLOAT_SCALARS or type(g._value) not in FLOAT_SCALARS:
        return False
    return not native or type(n._value) in (float, np.float64)


def typable(table, unlike):
    """Per step, whether numba can type it: an operator, a ufunc (but those whose names
    are in ``unlike``, which numba computes otherwise than NumPy) or a pick among numbers
    (``where``, ``where_positive``), called without parameters."""
    inline = np.fromiter(
        (prim in INLINE or prim is strong for prim in table.prim_of),
        bool,
        len(table.prim_of),
    )
    other = np.fromiter(
        (getattr(ufunc_of(prim), "__name__", None) in unlike for prim in table.prim_of),
        bool,
        len(table.prim_of),
    )
    picks = (
        np.fromiter(
            (prim is elementwise.where for prim in table.prim_of), bool, len(table.prim_of)
        )[table.prims]
        & table.is_float[table.n_inputs :]
    )
    gate = table.prim_of.get(elementwise.where_positive)
    if gate is not None:  # only where a gate is: the steps are not read one by one otherwise
        for i in np.flatnonzero(table.prims == gate).tolist():
            picks[i] = _number_gate(table.steps[i], True)
    return table.plain & ((table.has_ufunc & ~other[table.prims]) | inline[table.prims] | picks)
