"""Reductions of funcgrad.numpy: sums, products, extrema, statistics, running sums.

NumPy's signatures (``axis`` as an int, a tuple or ``None``; ``keepdims``;
``ddof``; ``weights``) and NumPy's values bit for bit: ``mean``, ``var``,
``std``, ``ptp``, ``average`` and the NaN-skipping sums are built from the
same operations in the same order as NumPy's own code. ``max``/``min`` share
the derivative equally among tied elements, as JAX does; ``prod`` and
``cumprod`` are exact when the input holds zeros. ``out=``, ``initial=`` and
``where=`` are refused with an error (funcgrad arrays are immutable).

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> x = np.array([[1.0, 2.0, 3.0], [4.0, 4.0, 0.0]])
>>> fnp.var(x, axis=1, ddof=1)
array([1.        , 5.33333333])
>>> fg.grad(lambda x: fnp.sum(fnp.max(x, axis=1)))(x)
array([[0. , 0. , 1. ],
       [0.5, 0.5, 0. ]])
"""

import builtins

import numpy as _np

from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.namespaces import known_all as _known_all
from ..core.values import dtype_of as _dtype_of
from ..core.values import is_complex
from ..core.values import raw as _raw
from ..core.values import shape_of as _shape_of
from ..rules import arrays as _arrays
from ..rules import elementwise as _ew
from ..rules import reductions as _r
from ..rules import ufuncs as _u
from ..rules.elementwise import where as _where
from ._helpers import as_array, axis_param, is_traced, nan_mask, refuse

__all__ = [
    "sum",
    "mean",
    "prod",
    "max",
    "min",
    "amax",
    "amin",
    "ptp",
    "var",
    "std",
    "cumsum",
    "cumprod",
    "average",
    "nansum",
    "nanmean",
]


def _count(a, axis):
    """How many elements each result of a reduction over ``axis`` combines."""
    shape = _shape_of(a)
    axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
    n = 1
    for ax in axes:
        n *= shape[ax]
    return n


def _cast(a, dtype):
    """``a`` as ``dtype`` (None: unchanged; integers summed as float64 where NumPy does);
    a list holding traced values stacked into one traced array first."""
    if isinstance(a, (list, tuple)):
        a = as_array(a)
    if dtype is None:
        return a
    if _dtype_of(a) == _np.dtype(dtype):
        return a
    return _u.astype(a, dtype=dtype)


def _float_input(a):
    """``a`` cast to float64 if it holds integers or bools, as mean and var do."""
    if isinstance(a, (list, tuple)):
        a = as_array(a)  # lists of traced scalars stack into one traced array
    dt = _dtype_of(a)
    return a if _np.issubdtype(dt, _np.inexact) else _cast(a, _np.float64)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.sum``.

    >>> import numpy as np
    >>> import funcgrad.numpy as fnp
    >>> fnp.sum(np.arange(6.0).reshape(2, 3), axis=(0, 1)), fnp.sum(np.ones((2, 3)), axis=0, keepdims=True)
    (np.float64(15.0), array([[2., 2., 2.]]))
    """
    refuse("sum", out=out, initial=initial, where=where)
    if dtype is not None and not is_traced(a):
        return _np.sum(a, axis=axis_param(axis), dtype=dtype, keepdims=keepdims)
    return _arrays.sum(_cast(a, dtype), axis=axis_param(axis), keepdims=keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """``numpy.mean``: the sum divided by the count, as NumPy computes it.

    >>> import numpy as np
    >>> from funcgrad.numpy import mean
    >>> mean(np.array([[1.0, 2.0], [3.0, 5.0]]), axis=0)
    array([2. , 3.5])
    """
    refuse("mean", out=out, where=where)
    axis = axis_param(axis)
    a = _float_input(a) if dtype is None else _cast(a, dtype)
    return _arrays.sum(a, axis=axis, keepdims=keepdims) / float(_count(a, axis))


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.prod``; its derivative is exact when ``a`` holds zeros.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import prod
    >>> fg.grad(lambda x: prod(x))(np.array([2.0, 0.0, 5.0]))
    array([ 0., 10.,  0.])
    """
    refuse("prod", out=out, initial=initial, where=where)
    if dtype is not None and not is_traced(a):
        return _np.prod(a, axis=axis_param(axis), dtype=dtype, keepdims=keepdims)
    return _r.prod(_cast(a, dtype), axis=axis_param(axis), keepdims=keepdims)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.max``; tied maxima share the derivative equally.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> import funcgrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.max(x))(np.array([3.0, 1.0, 3.0]))
    array([0.5, 0. , 0.5])
    """
    refuse("max", out=out, initial=initial, where=where)
    return _r.max(_cast(a, None), axis=axis_param(axis), keepdims=keepdims)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.min``; tied minima share the derivative equally.

    >>> import numpy as np
    >>> import funcgrad.numpy as fnp
    >>> fnp.min(np.array([[3.0, 1.0], [0.0, 2.0]]), axis=1)
    array([1., 0.])
    """
    refuse("min", out=out, initial=initial, where=where)
    return _r.min(_cast(a, None), axis=axis_param(axis), keepdims=keepdims)


def amax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.amax``, the same as :func:`max`.

    >>> from funcgrad.numpy import amax
    >>> amax(2.0)
    np.float64(2.0)
    """
    return max(a, axis, out, keepdims, initial, where)


def amin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.amin``, the same as :func:`min`.

    >>> import numpy as np
    >>> from funcgrad.numpy import amin
    >>> amin(np.array([2.0, -1.0]))
    np.float64(-1.0)
    """
    return min(a, axis, out, keepdims, initial, where)


def ptp(a, axis=None, out=None, keepdims=False):
    """``numpy.ptp``: the range, max minus min.

    >>> import numpy as np
    >>> from funcgrad.numpy import ptp
    >>> ptp(np.array([[1.0, 4.0], [2.0, 2.0]]), axis=1)
    array([3., 0.])
    """
    refuse("ptp", out=out)
    return max(a, axis, keepdims=keepdims) - min(a, axis, keepdims=keepdims)


def var(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof=0,
    keepdims=False,
    *,
    where=None,
    mean=None,
    correction=None,
):
    """``numpy.var`` with ``ddof`` (or its other name, ``correction``).

    >>> import numpy as np
    >>> from funcgrad.numpy import var
    >>> var(np.array([1.0, 2.0, 4.0])), var(np.array([1.0, 2.0, 4.0]), ddof=1)
    (np.float64(1.5555555555555554), np.float64(2.333333333333333))
    """
    refuse("var", out=out, where=where, mean=mean)
    if correction is not None:
        if ddof != 0:
            raise ArgumentError("var: give ddof or correction, not both (they are the same thing)")
        ddof = correction
    axis = axis_param(axis)
    a = _float_input(a) if dtype is None else _cast(a, dtype)
    n = _count(a, axis)
    centered = a - _arrays.sum(a, axis=axis, keepdims=True) / float(n)
    squares = (
        _ew.real(centered * _ew.conjugate(centered))
        if is_complex(centered)
        else centered * centered
    )
    return _arrays.sum(squares, axis=axis, keepdims=keepdims) / float(builtins.max(n - ddof, 0))


def std(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof=0,
    keepdims=False,
    *,
    where=None,
    mean=None,
    correction=None,
):
    """``numpy.std``: the square root of :func:`var`.

    >>> import numpy as np
    >>> from funcgrad.numpy import std
    >>> std(np.array([[1.0, 3.0], [2.0, 2.0]]), axis=1)
    array([1., 0.])
    """
    return _u.spread_sqrt(
        var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction)
    )


def _scan(name, numpy_fun, prim, a, axis, dtype, out):
    """A running reduction (cumsum, cumprod): NumPy's for a plain value with a
    dtype, else the primitive, over the flattened array when ``axis`` is None."""
    refuse(name, out=out)
    if dtype is not None and not is_traced(a):
        return numpy_fun(a, axis=axis, dtype=dtype)
    a = _cast(a, dtype)
    if axis is None:
        return prim(_arrays.reshape(a, shape=(-1,)), axis=0)
    return prim(a, axis=axis)


def cumsum(a, axis=None, dtype=None, out=None):
    """``numpy.cumsum``; ``axis=None`` runs over the flattened array.

    >>> import numpy as np
    >>> from funcgrad.numpy import cumsum
    >>> cumsum(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([ 1.,  3.,  6., 10.])
    """
    return _scan("cumsum", _np.cumsum, _r.cumsum, a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    """``numpy.cumprod``; derivatives are exact at zeros.

    >>> import numpy as np
    >>> from funcgrad.numpy import cumprod
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sum(cumprod(x)))(np.array([2.0, 0.0, 3.0]))
    array([1., 8., 0.])
    """
    return _scan("cumprod", _np.cumprod, _r.cumprod, a, axis, dtype, out)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """``numpy.average``, differentiable in ``a`` and in ``weights``.

    ``weights`` has the shape of ``a``, or the shape of ``a`` along ``axis``.
    With ``returned=True`` the sum of the weights comes too.

    >>> import numpy as np
    >>> from funcgrad.numpy import average
    >>> average(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1, weights=np.array([3.0, 1.0]))
    array([1.25, 3.25])
    >>> average(np.array([1.0, 3.0]), returned=True)
    (np.float64(2.0), np.float64(2.0))
    """
    shape = _shape_of(a)
    nd = len(shape)
    if axis is not None:
        axis = tuple(x % nd for x in axis) if isinstance(axis, (tuple, list)) else (axis % nd,)
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        scl = _np.float64(_size(shape) / _size(_shape_of(avg)))
    else:
        wshape = _shape_of(weights)
        w = weights
        if wshape != shape:
            if axis is None:
                raise ArgumentTypeError(
                    "average: give axis when weights and a differ in shape "
                    f"(a has shape {shape}, weights {wshape})"
                )
            if wshape != tuple(shape[x] for x in axis):
                raise ArgumentError(
                    f"average: weights of shape {wshape} do not match a's shape "
                    f"{shape} along axis {axis}"
                )
            w = _arrays.transpose(w, axes=tuple(int(i) for i in _np.argsort(axis)))
            w = _arrays.reshape(w, shape=tuple(s if x in axis else 1 for x, s in enumerate(shape)))
        scl = _arrays.sum(w, axis=axis, keepdims=keepdims)
        if _known_all(_raw(scl) != 0.0) is False:  # None for a lazy array, never computed
            raise ZeroDivisionError(
                "average: the weights sum to zero along an axis, so they cannot be normalized"
            )
        avg = _arrays.sum(_float_input(a) * w, axis=axis, keepdims=keepdims) / scl
    if returned:
        if _shape_of(scl) != _shape_of(avg):
            scl = _arrays.broadcast_to(scl, shape=_shape_of(avg))
        return avg, scl
    return avg


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _is_float(a):
    return _np.issubdtype(_dtype_of(a), _np.inexact)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.nansum``: NaNs count as zero (and get a zero derivative).

    >>> import numpy as np
    >>> from funcgrad.numpy import nansum
    >>> nansum(np.array([1.0, np.nan, 2.0]))
    np.float64(3.0)
    """
    refuse("nansum", out=out, initial=initial, where=where)
    if _is_float(a):
        mask = nan_mask(a)
        a = (0.0 if mask else a) if type(mask) is bool else _where(mask, 0.0, a)
    return sum(a, axis, dtype, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """``numpy.nanmean``: the mean of the elements that are not NaN.

    >>> import numpy as np
    >>> from funcgrad.numpy import nanmean
    >>> nanmean(np.array([[1.0, np.nan], [2.0, 4.0]]), axis=1)
    array([1., 3.])
    """
    refuse("nanmean", out=out, where=where)
    if not _is_float(a):
        return mean(a, axis, dtype, keepdims=keepdims)
    axis = axis_param(axis)
    mask = nan_mask(a)
    ones = (0.0 if mask else 1.0) if type(mask) is bool else _where(mask, 0.0, 1.0)
    count = _arrays.sum(ones, axis=axis, keepdims=keepdims)
    return nansum(a, axis, dtype, keepdims=keepdims) / count
