"""Constructors, with NumPy's signatures: arrays from data (``array``, ``asarray``,
``full``, which take traced values), the ``*_like`` ones (which take a traced prototype),
ranges whose ends may be traced (``linspace``, ``logspace``, ``geomspace``) and
``meshgrid``; NumPy's own for the rest (``zeros``, ``arange``, ``eye``, ...).
"""

import operator

import numpy as _np
from numpy import (
    arange,
    empty,
    eye,
    identity,
    indices,
    ones,
    random,
    tri,
    zeros,
)

from ..core.errors import (
    ArgumentError,
)
from ..core.namespaces import as_numpy_dtype
from ..core.namespaces import is_foreign as _is_foreign
from ..core.traces import Box
from ..core.values import dtype_of as _dtype_of
from ..core.values import filled_like as _filled_like
from ..core.values import float_dtype as _float_dtype
from ..core.values import in_library_of as _in_library_of
from ..core.values import plain as _plain
from ..core.values import raw as _raw
from ..core.values import shape_of as _shape_of
from ..rules import arrays as _a
from ..rules.elementwise import power as _power
from ..rules.elementwise import sign as _sign
from ..rules.elementwise import subtract as _subtract
from ..rules.ufuncs import astype as _astype
from ..rules.ufuncs import log10 as _log10
from ._helpers import (
    as_array,
    holds_traced,
    is_traced,
    numpys_dtype,
    result_part,
    stacked,
    weak,
)
from ._shape import broadcast_to
from ._shape import moveaxis as _shape_moveaxis

__all__ = [
    "array",
    "asarray",
    "asanyarray",
    "ascontiguousarray",
    "asfortranarray",
    "require",
    "zeros",
    "ones",
    "empty",
    "full",
    "eye",
    "identity",
    "arange",
    "linspace",
    "logspace",
    "tri",
    "meshgrid",
    "indices",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "random",
    "geomspace",
]


# ---------------------------------------------------------------- constructors of traced values


def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    """``numpy.array``; nested lists holding traced values are stacked into one traced
    array (NumPy would make an array of objects that no derivative reaches).

    >>> import funcgrad as fg
    >>> from funcgrad.numpy import array
    >>> fg.grad(lambda x: array([[x, 2.0], [x * x, 1.0]]).sum())(3.0)
    np.float64(7.0)
    """
    if not holds_traced(object):
        return _np.array(
            object, dtype=dtype, copy=copy, order=order, subok=subok, ndmin=ndmin, like=like
        )
    out = stacked(object)
    if dtype is not None:
        out = out.astype(dtype)
    for _ in range(ndmin - len(_shape_of(out))):
        out = out[None]
    return out


def asarray(a, dtype=None, order=None, *, like=None, **kwargs):
    """``numpy.asarray``; a traced value is returned as it is, nested lists holding
    traced values are stacked, as in :func:`array`.

    >>> import funcgrad as fg
    >>> from funcgrad.numpy import asarray
    >>> asarray([fg.var(1.0), 2.0]).shape
    (2,)
    """
    if isinstance(a, Box):
        return a if dtype is None else a.astype(dtype)
    if _is_foreign(a) and not kwargs and like is None:  # already an array, on its device
        return a if dtype is None else _astype(a, dtype=as_numpy_dtype(dtype))
    if holds_traced(a):
        return array(a, dtype=dtype)
    return _np.asarray(a, dtype=dtype, order=order, like=like, **kwargs)


def asanyarray(a, dtype=None, order=None, *, like=None, **kwargs):
    """``numpy.asanyarray``: :func:`asarray` (funcgrad's values are no subclass of
    ndarray to keep).

    >>> from funcgrad.numpy import asanyarray
    >>> asanyarray([1.0, 2.0])
    array([1., 2.])
    """
    if is_traced(a) or holds_traced(a):
        return asarray(a, dtype=dtype)
    return _np.asanyarray(a, dtype=dtype, order=order, like=like, **kwargs)


def _laid_out(a, dtype, numpys, **kwargs):
    """``numpys(a, ...)`` on plain values; a traced value as it is (a layout in memory is
    NumPy's business, not a value's), at least one dimension, as NumPy's result has."""
    if not (is_traced(a) or holds_traced(a)):
        return numpys(a, dtype=dtype, **kwargs)
    out = asarray(a, dtype=dtype)
    return _a.reshape(out, shape=(1,)) if len(_shape_of(out)) == 0 else out


def ascontiguousarray(a, dtype=None, *, like=None):
    """``numpy.ascontiguousarray``; a traced value as it is (at least one dimension, as
    NumPy's).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import ascontiguousarray
    >>> ascontiguousarray(np.ones((2, 3))[:, ::2]).flags.c_contiguous
    True
    >>> fg.grad(lambda x: ascontiguousarray(x * x).sum())(3.0)
    np.float64(6.0)
    """
    return _laid_out(a, dtype, _np.ascontiguousarray, like=like)


def asfortranarray(a, dtype=None, *, like=None):
    """``numpy.asfortranarray``; a traced value as it is (at least one dimension).

    >>> import numpy as np
    >>> from funcgrad.numpy import asfortranarray
    >>> asfortranarray(np.ones((2, 3))).flags.f_contiguous
    True
    """
    return _laid_out(a, dtype, _np.asfortranarray, like=like)


def require(a, dtype=None, requirements=None, *, like=None):
    """``numpy.require``; a traced value in ``dtype`` (its memory's flags are NumPy's
    business: a plan or a derivative owns its arrays).

    >>> import numpy as np
    >>> from funcgrad.numpy import require
    >>> require(np.arange(3), np.float32, ["C", "W"]).dtype
    dtype('float32')
    """
    if not (is_traced(a) or holds_traced(a)):
        return _np.require(a, dtype=dtype, requirements=requirements, like=like)
    return asarray(a, dtype=dtype)


def full(shape, fill_value, dtype=None, order="C", *, like=None):
    """``numpy.full``; a traced fill value gives a traced array (broadcast to ``shape``).

    >>> import funcgrad as fg
    >>> from funcgrad.numpy import full
    >>> fg.grad(lambda x: full((2, 3), x).sum())(1.0)
    np.float64(6.0)
    """
    if not isinstance(fill_value, Box):
        return _np.full(shape, fill_value, dtype=dtype, order=order, like=like)
    shape = (shape,) if isinstance(shape, (int, _np.integer)) else tuple(shape)
    out = broadcast_to(fill_value, shape)
    return out if dtype is None else out.astype(dtype)


# ---------------------------------------------------------------- constructors


def _like(a, dtype, shape):
    """Shape and dtype for a ``*_like`` constructor given a traced value."""
    if dtype is None:
        dtype = _dtype_of(a)  # NumPy's: an integer array's is an integer one
    return _shape_of(a) if shape is None else shape, dtype


def _filled(a, fill, dtype, shape):
    """``fill`` in the shape and dtype a ``*_like`` constructor of a traced value or another
    library's array gives: NumPy's array, or one of the value's library on its device."""
    shape, dtype = _like(a, dtype, shape)
    return _filled_like(a, fill, shape=shape, dtype=dtype)


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """``numpy.zeros_like``; a traced value gives plain zeros of its shape.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.zeros_like(fg.var(fnp.ones(2)))
    array([0., 0.])
    """
    if not is_traced(a):
        return _np.zeros_like(a, dtype=dtype, order=order, subok=subok, shape=shape)
    return _filled(a, 0, dtype, shape)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """``numpy.ones_like``; a traced value gives plain ones of its shape.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.ones_like(fg.var(fnp.zeros(2)))
    array([1., 1.])
    """
    if not is_traced(a):
        return _np.ones_like(a, dtype=dtype, order=order, subok=subok, shape=shape)
    return _filled(a, 1, dtype, shape)


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """``numpy.empty_like``; a traced value gives a plain uninitialised array of its shape.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.empty_like(fg.var(fnp.zeros((2, 3)))).shape
    (2, 3)
    """
    if not is_traced(prototype):
        return _np.empty_like(prototype, dtype=dtype, order=order, subok=subok, shape=shape)
    if not _is_foreign(_raw(prototype)):
        return _np.empty(*_like(prototype, dtype, shape))
    return _filled(prototype, 0, dtype, shape)  # the standard's empty has no fill; zeros do


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """``numpy.full_like``; a traced value gives a plain array of its shape.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.full_like(fg.var(fnp.zeros(2)), 7.0)
    array([7., 7.])
    """
    if not is_traced(a):
        return _np.full_like(a, fill_value, dtype=dtype, order=order, subok=subok, shape=shape)
    return _filled(a, _raw(fill_value), dtype, shape)


# ---------------------------------------------------------------- ranges with traced ends


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """``numpy.linspace``; with traced ``start``/``stop`` each point is
    ``start + k * step`` as in NumPy's code (the last one ``stop`` itself).

    >>> import funcgrad as fg
    >>> from funcgrad.numpy import linspace
    >>> float(fg.grad(lambda a: linspace(a, 1.0, 5)[1])(0.0))     # 1 - k / (num - 1) at k = 1
    0.75
    """
    if not is_traced(start, stop):
        return _np.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    num = operator.index(num)
    if num < 0:
        raise ArgumentError(f"linspace: number of samples, {num}, must be non-negative")
    # NumPy computes in result_type(start, stop, float(num)), Python numbers weak: a float32
    # start with a stop of 2.5 or of uint8s stays float32
    kind = _np.result_type(result_part(start), result_part(stop), float(num))
    start, stop = (
        x if weak(x) or _dtype_of(x) == kind else _astype(x, dtype=kind) for x in (start, stop)
    )
    start, stop = start * 1.0, stop * 1.0
    div = (num - 1) if endpoint else num
    delta = _subtract(stop, start)  # the primitive: a plain array of another library may lead
    extra = _np.broadcast_shapes(_shape_of(start), _shape_of(stop))
    ramp = _in_library_of(
        _np.arange(0, num, dtype=_float_dtype(delta)).reshape(  # float32 stays
            (-1,) + (1,) * len(extra)
        ),
        delta,
    )
    step = delta / div if div > 0 else _np.nan * delta
    y = step * ramp + start if div > 0 else delta * ramp + start  # the traced side first
    if endpoint and num > 1:
        if _is_foreign(_raw(delta)) and not isinstance(stop, Box) and not _is_foreign(stop):
            stop = _in_library_of(_np.asarray(stop, dtype=float), delta)  # a plain end, in theirs
        if weak(stop):  # (a traced one is cast by the primitive)
            stop = _astype(stop, dtype=kind) if isinstance(stop, Box) else _np.asarray(stop, kind)
        last = _a.reshape(
            _a.broadcast_to(stop, shape=extra) if _shape_of(stop) != extra else stop,
            shape=(1,) + extra,
        )
        y = _a.concatenate(_a.getitem(y, index=slice(0, num - 1)), last, axis=0)
    if axis != 0:
        y = _shape_moveaxis(y, 0, axis)
    if dtype is not None:
        y = _astype(y, dtype=dtype)
    return (y, step) if retstep else y


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """``numpy.meshgrid``: coordinate arrays from coordinate vectors, differentiable in them.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import meshgrid
    >>> x, y = meshgrid(np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0]))
    >>> x.shape, float(fg.grad(lambda v: (meshgrid(v, np.ones(2))[0] ** 2).sum())(2.0))
    ((2, 3), 8.0)
    """
    if not is_traced(*xi):
        return _np.meshgrid(*xi, copy=copy, sparse=sparse, indexing=indexing)
    if indexing not in ("xy", "ij"):
        raise ArgumentError(f"meshgrid: indexing must be 'xy' or 'ij'; got {indexing!r}")
    n = len(xi)
    grids = []
    for i, x in enumerate(xi):
        shape = [1] * n
        shape[i] = -1
        if indexing == "xy" and n > 1 and i < 2:  # the first two axes swapped, as in NumPy
            shape[0], shape[1] = shape[1], shape[0]
        grids.append(_a.reshape(as_array(x), shape=tuple(shape)))
    if not sparse:
        full = _np.broadcast_shapes(*[_shape_of(g) for g in grids])
        grids = [_a.broadcast_to(g, shape=full) for g in grids]
    return tuple(grids)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``numpy.logspace``: ``base ** linspace(start, stop)``.

    >>> from funcgrad.numpy import logspace
    >>> logspace(0.0, 2.0, 3)
    array([  1.,  10., 100.])
    """
    if not is_traced(start, stop, base):
        return _np.logspace(start, stop, num, endpoint, base, dtype, axis)
    y = _power(base, linspace(start, stop, num, endpoint, axis=axis))  # in linspace's type
    return y if dtype is None else _astype(y, dtype=dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``numpy.geomspace``: a geometric progression from ``start`` to ``stop`` (real, of one
    sign), its ends exactly ``start`` and ``stop``, computed as NumPy computes it.

    >>> from funcgrad.numpy import geomspace
    >>> geomspace(1.0, 1000.0, 4)
    array([   1.,   10.,  100., 1000.])
    """
    if not is_traced(start, stop):
        return _np.geomspace(start, stop, num, endpoint, dtype, axis)
    # NumPy computes in result_type(start, stop, float64) from the start: float16 ends'
    # logarithms are float64's, not float16's cast up
    kind = _np.result_type(_float_dtype(start), _float_dtype(stop), _np.float64)
    start, stop = (x if _dtype_of(x) == kind else _astype(x, dtype=kind) for x in (start, stop))
    sign = _sign(_plain(start))  # NumPy rotates start to the positive reals
    start, stop = start / sign, stop / sign
    y = _power(10.0, linspace(_log10(start), _log10(stop), num, endpoint))
    extra = _shape_of(y)[1:]
    as_row = lambda v: _a.reshape(broadcast_to(v * 1.0, extra), shape=(1,) + extra)
    closed = endpoint and num > 1
    pieces = [as_row(start), _a.getitem(y, index=slice(1, num - 1 if closed else num))]
    if closed:
        pieces.append(as_row(stop))
    y = (_a.concatenate(*pieces, axis=0) if num > 1 else y) * sign
    if axis != 0:
        y = _shape_moveaxis(y, 0, axis)
    y = numpys_dtype(y, kind)
    return y if dtype is None else _astype(y, dtype=dtype)
