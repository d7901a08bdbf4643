"""Reductions of funcgrad.numpy: sums, products, extrema, statistics, running sums.

NumPy's signatures (``axis`` as an int, a tuple or ``None``; ``keepdims``;
``ddof``; ``weights``) and NumPy's values bit for bit: ``mean``, ``var``,
``std``, ``ptp``, ``average`` and the NaN-skipping sums are built from the
same operations in the same order as NumPy's own code. ``max``/``min`` share
the derivative equally among tied elements, as JAX does; ``prod`` and
``cumprod`` are exact when the input holds zeros. ``where=`` and ``initial=`` are
NumPy's (:mod:`funcgrad.numpy._masked`); ``out=`` is refused with an error
(funcgrad arrays are immutable).

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
from ..core.values import is_complex, numeric_kind
from ..core.values import plain as _plain
from ..core.values import raw as _raw
from ..core.values import shape_of as _shape_of
from ..rules import arrays as _arrays
from ..rules import elementwise as _ew
from ..rules import reductions as _r
from ..rules import ufuncs as _u
from ..rules.elementwise import where as _where
from ._helpers import (
    as_array,
    axis_param,
    check_axis,
    in_dtype_of_call,
    is_traced,
    nan_mask,
    refuse,
)
from ._masked import count, given, need_initial, reduced_shape, selected, with_initial

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
    return a if numeric_kind(_dtype_of(a)) in "fc" else _cast(a, _np.float64)


def _in(out, dtype):
    """``out`` as ``dtype`` (NumPy's ``ret.dtype.type(ret / n)``: a division keeps the
    sum's dtype, an integer one truncated)."""
    return out if dtype is None or _dtype_of(out) == _np.dtype(dtype) else _cast(out, dtype)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.sum``, with ``where=`` and ``initial=`` (see :mod:`funcgrad.numpy._masked`).

    >>> import numpy as np
    >>> import funcgrad.numpy as fnp
    >>> fnp.sum(np.arange(6.0).reshape(2, 3), axis=(0, 1)), fnp.sum(np.ones((2, 3)), axis=0, keepdims=True)
    (np.float64(15.0), array([[2., 2., 2.]]))
    >>> fnp.sum(np.array([1, 2, 3], np.int8), dtype=np.int8, initial=1, where=[True, False, True])
    np.int8(5)
    """
    refuse("sum", out=out)
    axis = axis_param(axis)
    options = given(initial=initial, where=where)
    if (dtype is not None or options) and not is_traced(a, where, initial):
        return _np.sum(a, axis=axis, dtype=dtype, keepdims=keepdims, **options)
    a = _cast(a, dtype)
    total = _arrays.sum(selected(a, where, 0, "sum"), axis=axis, keepdims=keepdims)
    return with_initial(_in(total, dtype), initial, _ew.add)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """``numpy.mean``: the sum divided by the count, as NumPy computes it (integers in
    float64, float16 in float32; ``dtype=``'s type out, an integer one truncated), with
    ``where=``.

    >>> import numpy as np
    >>> from funcgrad.numpy import mean
    >>> mean(np.array([[1.0, 2.0], [3.0, 5.0]]), axis=0)
    array([2. , 3.5])
    >>> mean(np.array([6, 5], np.uint64), dtype=np.int32), mean([1.0, 9.0], where=[True, False])
    (np.int32(5), np.float64(1.0))
    """
    refuse("mean", out=out)
    axis = axis_param(axis)
    a = as_array(a) if isinstance(a, (list, tuple)) else a
    kind, result = _dtype_of(a), dtype
    if dtype is None and where is None and kind.kind in "fc" and kind != _np.float16:
        # the commonest call (a layer norm's): the sum over the count, in the sum's dtype,
        # one primitive (another library's mean is one call)
        return _r.mean(a, axis=axis, keepdims=keepdims)
    if dtype is None and numeric_kind(kind) in "biu":
        dtype = result = _np.float64
    elif dtype is None and kind == _np.float16:
        dtype, result = _np.float32, _np.float16  # NumPy sums float16 in float32
    if where is not None and not is_traced(a, where):
        return _np.mean(a, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    summed = _arrays.sum(selected(_cast(a, dtype), where, 0, "mean"), axis=axis, keepdims=keepdims)
    total = _in(summed, dtype)
    n = count(a, where, axis, keepdims, "mean")
    return _in(total / (float(n) if type(n) is int else n), result or _dtype_of(total))


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.prod``, with ``where=`` and ``initial=``; its derivative is exact when
    ``a`` holds zeros.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import prod
    >>> fg.grad(lambda x: prod(x))(np.array([2.0, 0.0, 5.0]))
    array([ 0., 10.,  0.])
    """
    refuse("prod", out=out)
    axis = axis_param(axis)
    options = given(initial=initial, where=where)
    if (dtype is not None or options) and not is_traced(a, where, initial):
        return _np.prod(a, axis=axis, dtype=dtype, keepdims=keepdims, **options)
    a = _cast(a, dtype)
    total = _r.prod(selected(a, where, 1, "prod"), axis=axis, keepdims=keepdims)
    return with_initial(_in(total, dtype), initial, _ew.multiply)


def _extremum(name, numpy_fun, prim, pick, a, axis, keepdims, initial, where):
    """``max`` or ``min`` with NumPy's ``initial=`` and ``where=``: the extremum of the
    elements the mask selects and ``initial``."""
    axis = axis_param(axis)
    if (initial is not None or where is not None) and not is_traced(a, where, initial):
        return numpy_fun(a, axis=axis, keepdims=keepdims, **given(initial=initial, where=where))
    a = _cast(a, None)
    need_initial(name, where, initial)
    if initial is None:
        return prim(a, axis=axis, keepdims=keepdims)
    shape = _shape_of(a)
    if any(shape[k] == 0 for k in _reduced_axes(axis, len(shape))):  # no element: initial
        fill = _np.asarray(_plain(initial)).astype(_dtype_of(a))
        return _arrays.broadcast_to(fill, shape=reduced_shape(shape, axis, keepdims))
    best = prim(selected(a, where, _plain(initial), name), axis=axis, keepdims=keepdims)
    return with_initial(best, initial, pick)


def _reduced_axes(axis, ndim):
    if axis is None:
        return range(ndim)
    return [k % ndim for k in (axis if isinstance(axis, tuple) else (axis,))]


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.max``, with ``initial=`` and ``where=`` (which needs ``initial``); tied maxima
    share the derivative equally.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> import funcgrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.max(x))(np.array([3.0, 1.0, 3.0]))
    array([0.5, 0. , 0.5])
    """
    refuse("max", out=out)
    return _extremum("max", _np.max, _r.max, _ew.maximum, a, axis, keepdims, initial, where)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.min``, with ``initial=`` and ``where=`` (which needs ``initial``); tied
    minima share the derivative equally.

    >>> import numpy as np
    >>> import funcgrad.numpy as fnp
    >>> fnp.min(np.array([[3.0, 1.0], [0.0, 2.0]]), axis=1)
    array([1., 0.])
    """
    refuse("min", out=out)
    return _extremum("min", _np.min, _r.min, _ew.minimum, a, axis, keepdims, initial, where)


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
    """``numpy.var`` with ``ddof`` (or its other name, ``correction``), ``where=`` and a
    ``mean=`` known already (shaped as with ``keepdims=True``).

    >>> import numpy as np
    >>> from funcgrad.numpy import var
    >>> var(np.array([1.0, 2.0, 4.0])), var(np.array([1.0, 2.0, 4.0]), ddof=1)
    (np.float64(1.5555555555555554), np.float64(2.333333333333333))
    >>> var(np.array([1.0, 2.0, 4.0]), where=[True, True, False])
    np.float64(0.25)
    """
    refuse("var", out=out)
    if correction is not None:
        if ddof != 0:
            raise ArgumentError("var: give ddof or correction, not both (they are the same thing)")
        ddof = correction
    axis = axis_param(axis)
    if (where is not None or mean is not None) and not is_traced(a, where, mean):
        return _np.var(
            a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, **given(where=where, mean=mean)
        )
    a = _float_input(a) if dtype is None else _cast(a, dtype)
    n = count(a, where, axis, True, "var")
    if mean is None:
        total = _arrays.sum(selected(a, where, 0, "var"), axis=axis, keepdims=True)
        mean = _in(total / (float(n) if type(n) is int else n), _dtype_of(total))
    centered = a - mean
    squares = (
        _ew.real(centered * _ew.conjugate(centered))
        if is_complex(centered)
        else centered * centered
    )
    total = _arrays.sum(selected(squares, where, 0, "var"), axis=axis, keepdims=keepdims)
    if type(n) is int:
        return _in(total / float(builtins.max(n - ddof, 0)), _dtype_of(total))
    n = count(a, where, axis, keepdims, "var")
    return _in(total / _ew.maximum(n - ddof, 0), _dtype_of(total))


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
    """``numpy.std``: the square root of :func:`var` (its options too).

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
    if axis is None or not _shape_of(a):  # NumPy runs a 0-d array's scan as one element's
        if axis is not None:
            check_axis(axis, 1, name)
        return _in(prim(_arrays.reshape(a, shape=(-1,)), axis=0), dtype)
    return _in(prim(a, axis=axis), dtype)


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
        # the number of elements each average takes (counted: no 0/0 where none are left)
        scl = _np.float64(_size(shape) if axis is None else _size([shape[x] for x in axis]))
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
    return numeric_kind(_dtype_of(a)) in "fc"


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.nansum``: NaNs count as zero (and get a zero derivative); ``initial=`` and
    ``where=`` as :func:`sum`'s.

    >>> import numpy as np
    >>> from funcgrad.numpy import nansum
    >>> nansum(np.array([1.0, np.nan, 2.0]))
    np.float64(3.0)
    """
    refuse("nansum", out=out)
    axis = axis_param(axis)
    if (initial is not None or where is not None) and not is_traced(a, where, initial):
        return _np.nansum(
            a, axis=axis, dtype=dtype, keepdims=keepdims, **given(initial=initial, where=where)
        )
    original = a
    if _is_float(a):
        mask = nan_mask(a)
        a = (0.0 if mask else a) if type(mask) is bool else _where(mask, 0.0, a)
    out = sum(a, axis, dtype, keepdims=keepdims, initial=initial, where=where)
    return in_dtype_of_call(out, _np.nansum, original, axis=axis, dtype=dtype)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """``numpy.nanmean``: the mean of the elements that are not NaN (in the dtype of their
    sum, ``dtype=``'s where given), with ``where=``.

    >>> import numpy as np
    >>> from funcgrad.numpy import nanmean
    >>> nanmean(np.array([[1.0, np.nan], [2.0, 4.0]]), axis=1)
    array([1., 3.])
    >>> nanmean(np.ones(3, np.float32), dtype=np.float16)
    np.float16(1.0)
    """
    refuse("nanmean", out=out)
    if not _is_float(a):
        return mean(a, axis, dtype, keepdims=keepdims, where=where)
    axis = axis_param(axis)
    if not is_traced(a, where):
        return _np.nanmean(a, axis=axis, dtype=dtype, keepdims=keepdims, **given(where=where))
    mask = nan_mask(a)
    ones = (0.0 if mask else 1.0) if type(mask) is bool else _where(mask, 0.0, 1.0)
    ones = _arrays.broadcast_to(ones, shape=_shape_of(a))
    valid = sum(ones, axis, keepdims=keepdims, where=where)
    total = nansum(a, axis, dtype, keepdims=keepdims, where=where)
    return in_dtype_of_call(total / valid, _np.nanmean, a, axis=axis, dtype=dtype)
