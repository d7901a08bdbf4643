"""``np.where(c, x, y)`` as one numba loop, for a mask repeated over leading axes.

An attention step selects with a causal mask of ``(T, T)`` over scores of
``(B, H, T, T)``, forward (``where(mask, s, -1e9)``) and in its cotangent
(``where(mask, g, 0.0)``). NumPy's ``where`` broadcasts the mask element by element and
branches on each: about three times one pass over the scores (benchmarks/selections.py).
Here the mask is one row of ``inner`` numbers, the array operand a run of them that each
row takes afresh (or the same row repeated), the other operand a number, and the loop
over a row is a select LLVM vectorises, with no branch. A select copies bits, so the
result is ``np.where``'s to the bit: NaNs, signed zeros and all.

>>> import numpy as np
>>> c = np.tril(np.ones((3, 3), bool))
>>> where_kernel(c, np.arange(18.0).reshape(2, 3, 3), -1.0)[1]
array([[ 9., -1., -1.],
       [12., 13., -1.],
       [15., 16., 17.]])
"""

import math

import numba
import numpy as np

__all__ = ["where_kernel"]

_FLOATS = frozenset(map(np.dtype, ("float32", "float64")))


def where_kernel(c, x, y):
    """``np.where(c, x, y)`` by one of the select loops below, or None where they do not
    apply: ``c`` not a bool NumPy array repeated over leading axes, neither or both of
    ``x`` and ``y`` a Python number, a result dtype other than float32 or float64, an
    array operand of another dtype or not C-contiguous, or one that is neither the
    result's shape nor its trailing axes."""
    if type(c) is not np.ndarray or c.dtype != np.bool_:
        return None
    numbers = [type(v) in (float, int) for v in (x, y)]
    if sum(numbers) != 1:
        return None
    array = y if numbers[0] else x
    if type(array) is not np.ndarray:
        return None
    dtype = np.result_type(x, y)  # NEP 50: a Python number takes the array's dtype
    if dtype not in _FLOATS or array.dtype != dtype:
        return None
    if not (c.flags.c_contiguous and array.flags.c_contiguous):
        return None
    shape = np.broadcast_shapes(c.shape, array.shape)
    inner, size = _row_length(shape, (c, array)), math.prod(shape)
    if not inner or c.size == size:  # a whole mask: NumPy's where, or where by bits
        return None
    number = _number(x if numbers[0] else y, dtype)
    if number is None:
        return None
    out = np.empty(shape, dtype)
    outer, flat, mask = size // inner, out.reshape(-1), c.reshape(-1).view(np.uint8)
    if numbers[0]:
        _select_number_array(mask, number, *_as_rows(y, shape, inner), flat, outer, inner)
    else:
        _select_array_number(mask, *_as_rows(x, shape, inner), number, flat, outer, inner)
    return out


def _row_length(shape, arrays):
    """The length of a row: that of the trailing axes the repeated operands have (all the
    same), or the whole size where every array operand has the result's shape; None for
    any other case."""
    lengths = set()
    for v in arrays:
        trailing = v.shape[next((k for k, n in enumerate(v.shape) if n != 1), v.ndim) :]
        if not trailing:
            return None  # one number in an array: NumPy's where
        if trailing != tuple(shape):
            if trailing != tuple(shape[len(shape) - len(trailing) :]):
                return None  # repeated over some middle axis: NumPy's where
            lengths.add(math.prod(trailing))
    if len(lengths) > 1:
        return None
    return lengths.pop() if lengths else math.prod(shape)


def _number(v, dtype):
    """A Python number as ``dtype``'s, or None where the cast overflows (NumPy's cast warns)."""
    try:
        with np.errstate(all="ignore"):
            held = dtype.type(v)
    except OverflowError:  # a Python int beyond any float
        return None
    return held if np.isfinite(held) or not math.isfinite(v) else None


def _as_rows(v, shape, inner):
    """``v`` flat, with the step between its rows: ``inner`` for an array of the whole
    shape, 0 for one row repeated."""
    return v.reshape(-1), (inner if v.size == math.prod(shape) else 0)


# Each loop reads a view of each row, indexed by the loop's own counter: numba then knows
# no index is negative (x[i * xs + j] it checks for wrapping around, and LLVM vectorises
# nothing). The number is a value of its own, not a row read beside the others (2.5x
# faster); with two arrays (and a whole mask) LLVM's select was slower than NumPy's where
# by bits (benchmarks/selections.py), which those are left to.


@numba.njit(cache=True, nogil=True)
def _select_array_number(c, x, xs, y, out, outer, inner):
    """``out[i, j] = x[i, j] if c[j] else y``, row ``i`` of ``x`` starting at ``i * xs``."""
    for i in range(outer):
        xr, row = x[i * xs : i * xs + inner], out[i * inner : (i + 1) * inner]
        for j in range(row.size):
            row[j] = xr[j] if c[j] != 0 else y


@numba.njit(cache=True, nogil=True)
def _select_number_array(c, x, y, ys, out, outer, inner):
    """``out[i, j] = x if c[j] else y[i, j]``, row ``i`` of ``y`` starting at ``i * ys``."""
    for i in range(outer):
        yr, row = y[i * ys : i * ys + inner], out[i * inner : (i + 1) * inner]
        for j in range(row.size):
            row[j] = x if c[j] != 0 else yr[j]
