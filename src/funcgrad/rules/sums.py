"""The impl of ``sum``: NumPy's reduction, or where NumPy is slowest, a BLAS product.

A sum over a contiguous float array's first axes (a bias's cotangent) or along its short
last axes (a layer norm's mean, a softmax's normaliser) is one matrix-vector product with
a vector of ones.

>>> import numpy as np
>>> sum_impl(np.ones((100, 3), np.float32), axis=0)
array([100., 100., 100.], dtype=float32)
"""

import functools
import math
import operator

import numpy as np

__all__ = ["sum_impl", "checked_axes"]


def sum_impl(x, axis=None, keepdims=False):
    """NumPy's ``np.sum``, or for a contiguous float array over its first or its short last
    axes, one BLAS product (:func:`_sum_by_blas`)."""
    if type(x) is float:
        return x
    if type(x) is np.ndarray:
        out = _sum_by_blas(x, axis, keepdims)
        if out is not None:
            return out
        return np.add.reduce(x, axis=axis, keepdims=keepdims)  # what np.sum calls
    return np.sum(x, axis=axis, keepdims=keepdims)


_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def checked_axes(axis, ndim):
    """The axes ``axis`` names in an array of ``ndim`` dims, sorted, as NumPy reads them; None
    where NumPy refuses them (out of range, repeated, not integers): a fast path then
    leaves the call, and its error, to NumPy.

    >>> checked_axes(-1, 3), checked_axes((2, 0), 3), checked_axes(3, 3), checked_axes((0, 0), 3)
    ((2,), (0, 2), None, None)
    """
    if axis is None:
        return tuple(range(ndim))
    try:
        axes = [operator.index(a) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]
    except TypeError:
        return None
    if not all(-ndim <= a < ndim for a in axes) or len({a % ndim for a in axes}) != len(axes):
        return None
    return tuple(sorted(a % ndim for a in axes))


# A sum over a contiguous float array's first axes (a bias's cotangent) or along its short
# last axes (a layer norm's mean, a softmax's normaliser) is one BLAS matrix-vector product:
# NumPy adds a row at a time along a leading axis and reduces one short row at a time
# along a trailing one, each several times slower than the BLAS call, which rounds about
# as NumPy does. Rows longer than _SHORT_ROWS keep
# NumPy's pairwise sum, which rounds better there; under 64 rows are not worth the call.
_SHORT_ROWS = 1024


def _sum_by_blas(x, axis, keepdims):
    """The sum of ndarray ``x`` over ``axis`` as ``ones @ rows`` (its first axes) or ``rows
    @ ones`` (its last), where that is worth one BLAS call; else None."""
    if axis is None or x.dtype not in _BLAS_FLOATS or not x.flags.c_contiguous or not x.size:
        return None
    axes = checked_axes(axis, x.ndim)
    if axes is None or len(axes) >= x.ndim:
        return None  # an error NumPy raises, or every axis
    k, kept = len(axes), (1,) * len(axes) if keepdims else ()
    if axes == tuple(range(k)) and math.prod(x.shape[:k]) >= 64:
        rows = x.reshape(math.prod(x.shape[:k]), -1)
        return (_ones(len(rows), x.dtype) @ rows).reshape(kept + x.shape[k:])
    cols = math.prod(x.shape[x.ndim - k :])
    if axes == tuple(range(x.ndim - k, x.ndim)) and cols <= _SHORT_ROWS and 64 * cols <= x.size:
        return (x.reshape(-1, cols) @ _ones(cols, x.dtype)).reshape(x.shape[: x.ndim - k] + kept)
    return None


@functools.lru_cache(maxsize=32)
def _kept_ones(n, dtype):
    ones = np.ones(n, dtype)
    ones.setflags(write=False)
    return ones


def _ones(n, dtype):
    """A vector of ``n`` ones: a read-only one kept for the next call up to ``_KEEP_ONES``
    (a model's sums repeat a few lengths each step), a fresh one beyond."""
    return _kept_ones(n, dtype) if n <= _KEEP_ONES else np.ones(n, dtype)


_KEEP_ONES = 1 << 16
