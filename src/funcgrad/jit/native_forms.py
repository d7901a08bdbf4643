"""What numba compiles for a few array primitives inside a loop compiled whole.

numba types a loop body of ufuncs and operators as it is written
(:mod:`funcgrad.jit.loops`). A recurrent network's body also multiplies
matrices, reshapes, broadcasts, swaps axes and sums over an axis, whose impls
are Python code numba cannot call. Each of those has a *form* here: a small
function numba can compile, made for one step's parameters and operands, or
None where numba has no version of the call or its version differs from
NumPy's (a matmul of stacks, a sum over several axes or keeping them).

Results agree with NumPy's to rounding: numba's matrix product calls BLAS as
NumPy's does, and its sums add in numba's order. This module never imports
numba; :func:`funcgrad.jit.native.natively` compiles the forms with the loop.

>>> import numpy as np
>>> from funcgrad.rules import arrays
>>> f = form_of(arrays.swapaxes, {"axis1": 0, "axis2": 1}, [np.zeros((2, 3))])
>>> f(np.arange(6.0).reshape(2, 3)).shape
(3, 2)
>>> form_of(arrays.sum, {"axis": (0, 1)}, [np.zeros((2, 3))]) is None   # several axes: NumPy's
True
"""

import numpy as np

from ..rules import arrays, products

__all__ = ["form_of"]


def form_of(prim, params, operands):
    """A function numba can compile computing ``prim`` with ``params`` on operands like
    ``operands`` (example values), or None."""
    maker = _FORMS.get(prim)
    if maker is None or not all(_is_float_array(x) or type(x) in _NUMBERS for x in operands):
        return None
    if prim not in _TAKE_NUMBERS and not all(map(_is_float_array, operands)):
        return None
    return maker(operands, **(params or {}))


_NUMBERS = (float, np.float64)


def _is_float_array(x):
    return type(x) is np.ndarray and x.dtype == np.float64 and x.ndim >= 1


def _matmul(operands):
    if any(x.ndim > 2 for x in operands):
        return None                      # stacks of matrices: numba's @ takes 1-d and 2-d only

    def matmul(a, b):
        return a @ b
    return matmul


def _reshape(operands, shape):
    shape = tuple(int(s) for s in shape)
    if type(operands[0]) is not np.ndarray:
        return _filled(shape)

    def reshape(x):                      # numba reshapes contiguous arrays only
        return np.ascontiguousarray(x).reshape(shape)
    return reshape


def _broadcast_to(operands, shape):
    shape = tuple(int(s) for s in shape)
    if type(operands[0]) is not np.ndarray:
        return _filled(shape)

    def broadcast_to(x):
        return np.broadcast_to(x, shape)
    return broadcast_to


def _filled(shape):
    """A number reshaped or broadcast: an array of that shape holding it (NumPy gives a
    read-only view, which a plan never writes into; numba's array is fresh)."""
    def filled(x):
        return np.full(shape, x)
    return filled


def _swapaxes(operands, axis1, axis2):
    def swapaxes(x):
        return np.swapaxes(x, axis1, axis2)
    return swapaxes


def _sum(operands, axis=None, keepdims=False):
    if keepdims:
        return None
    if isinstance(axis, tuple):
        if len(axis) != 1:
            return None
        (axis,) = axis
    if axis is None:
        def total(x):
            return np.sum(x)
        return total
    axis = int(axis) % operands[0].ndim

    def along(x):
        return np.sum(x, axis=axis)
    return along


_TAKE_NUMBERS = frozenset({arrays.reshape, arrays.broadcast_to})
_FORMS = {
    products.matmul: _matmul,
    arrays.reshape: _reshape,
    arrays.broadcast_to: _broadcast_to,
    arrays.swapaxes: _swapaxes,
    arrays.sum: _sum,
}
