"""What numba compiles for a few array primitives inside a loop compiled whole.

numba types a loop body of ufuncs and operators as it is written
(:mod:`funcgrad.jit.loops`). A recurrent network's body also multiplies
matrices, reshapes, broadcasts, swaps axes and sums over an axis, whose impls
are Python code numba cannot call. Each of those has a *form* here: a function
numba can compile, called with the step's operands and then its parameters, or
no form where numba has no version of the call or its version differs from
NumPy's (a matmul of stacks, a sum over several axes or keeping them).

The forms are module functions, so numba compiles each once per signature and
keeps it in its cache on disk (:func:`funcgrad.jit.backends.numba.native.natively`): compiling
``np.sum`` over an axis or ``np.dot`` takes numba one to three seconds, which a
loop's first call would otherwise pay for every step that uses them.

Results agree with NumPy's to rounding: numba's matrix product calls BLAS as
NumPy's does (through SciPy's: without SciPy a product has no form), and its
sums add in numba's order. This module never imports numba.

>>> import numpy as np
>>> from funcgrad.rules import arrays
>>> fun, extra = form_of(arrays.sum, {"axis": -1}, [np.zeros((2, 3))])
>>> fun.__name__, extra, fun(np.ones((2, 3)), *extra).tolist()
('sum_along', (1,), [3.0, 3.0])
>>> form_of(arrays.sum, {"axis": (0, 1)}, [np.zeros((2, 3))]) is None    # several axes: NumPy's
True
"""

import functools
import importlib.util

import numpy as np

from ....rules import arrays
from ....rules import matmul as matmul_rules

__all__ = ["form_of", "FORMS", "add_outer", "outer"]


def form_of(prim, params, operands):
    """``(function, extra)``: a function numba can compile computing ``prim`` with ``params``
    on operands like ``operands`` (example values) when called as ``function(*operands,
    *extra)``; or None."""
    maker = _MAKERS.get(prim)
    if maker is None or not all(_is_float_array(x) or type(x) in _NUMBERS for x in operands):
        return None
    if prim not in _TAKE_NUMBERS and not all(map(_is_float_array, operands)):
        return None
    return maker(operands, **(params or {}))


_NUMBERS = (float, np.float64)


def _is_float_array(x):
    return type(x) is np.ndarray and x.dtype == np.float64 and x.ndim >= 1


# ---------------------------------------------------------------- the forms


def matmul(a, b):
    return a @ b


def outer(a, b):
    """``a @ b`` for a column ``a`` (n, 1) and a row ``b`` (1, m): each product once, in a
    loop LLVM vectorises, where the BLAS call of a product of inner size 1 (a weight's
    cotangent in a loop's body, one step at a time) costs more than its work. The same
    bits: each element is one product, as the BLAS computes it."""
    n, m = a.shape[0], b.shape[1]
    out = np.empty((n, m))
    for i in range(n):
        ai = a[i, 0]
        for j in range(m):
            out[i, j] = ai * b[0, j]
    return out


def add_outer(acc, a, b):
    """``acc + a @ b`` for a column ``a`` (n, 1) and a row ``b`` (1, m), written into ``acc``:
    a loop's carried sum of outer products (a recurrent weight's cotangent, a step at a time)
    updated in place, one pass over it, where :func:`outer` and an add made a new matrix and
    read both. Only a loop that owns ``acc`` calls it (:func:`funcgrad.jit.loops.scan_loop`
    copies the carry before its first step). The same bits: each element is one product
    and one sum, as the outer product and the add compute them."""
    n, m = acc.shape
    column = np.ascontiguousarray(a).reshape(n)  # rows of unit stride: the loop vectorises
    row = np.ascontiguousarray(b).reshape(m)
    for i in range(n):
        ai = column[i]
        for j in range(m):
            acc[i, j] += ai * row[j]
    return acc


def reshape(x, shape):
    return np.ascontiguousarray(x).reshape(shape)  # numba reshapes contiguous arrays only


def broadcast_to(x, shape):
    return np.broadcast_to(x, shape)


def filled(x, shape):
    """A number reshaped or broadcast: an array of that shape holding it (NumPy gives a
    read-only view, which a plan never writes into; this array is fresh)."""
    return np.full(shape, x)


def transposed(x):
    return x.T


def swapaxes(x, axis1, axis2):
    return np.swapaxes(x, axis1, axis2)


def sum_all(x):
    return np.sum(x)


def sum_along(x, axis):
    return np.sum(x, axis=axis)


FORMS = (
    matmul,
    outer,
    add_outer,
    reshape,
    broadcast_to,
    filled,
    transposed,
    swapaxes,
    sum_all,
    sum_along,
)
"""Every form, for numba to compile (each once per signature, cached on disk)."""


# ---------------------------------------------------------------- which form a step takes


def _matmul(operands):
    if any(x.ndim > 2 for x in operands):
        return None  # stacks of matrices: numba's @ takes 1-d and 2-d only
    a, b = operands
    if a.ndim == 2 and b.ndim == 2 and a.shape[1] == 1 and b.shape[0] == 1:
        return outer, ()
    if not _blas_for_numba():
        return None
    return matmul, ()


@functools.cache
def _blas_for_numba():
    """Whether numba's matrix product can run: it calls BLAS through SciPy's, and without
    SciPy it compiles, then aborts the process on its first call (a fatal error, not an
    exception), so without SciPy a product keeps NumPy's call."""
    return importlib.util.find_spec("scipy") is not None


def _shaped(form):
    def make(operands, shape):
        shape = tuple(int(s) for s in shape)
        return (form if type(operands[0]) is np.ndarray else filled), (shape,)

    return make


def _swapaxes(operands, axis1, axis2):
    nd = operands[0].ndim
    if nd == 2 and axis1 % nd != axis2 % nd:
        return transposed, ()
    return swapaxes, (axis1 % nd, axis2 % nd)


def _sum(operands, axis=None, keepdims=False):
    if keepdims:
        return None
    if isinstance(axis, tuple):
        if len(axis) != 1:
            return None
        (axis,) = axis
    if axis is None:
        return sum_all, ()
    return sum_along, (int(axis) % operands[0].ndim,)


_TAKE_NUMBERS = frozenset({arrays.reshape, arrays.broadcast_to})
_MAKERS = {
    matmul_rules.matmul: _matmul,
    arrays.reshape: _shaped(reshape),
    arrays.broadcast_to: _shaped(broadcast_to),
    arrays.swapaxes: _swapaxes,
    arrays.sum: _sum,
}
