"""Differences, integrals, convolution and interpolation, with NumPy's signatures.

``diff``, ``ediff1d``, ``gradient`` (uniform or coordinate spacing, edge order 1
or 2), ``trapezoid``, ``cumulative_sum``/``cumulative_prod``, ``convolve``/
``correlate`` (modes full, same, valid), ``interp`` (differentiable in ``x``,
``xp`` and ``fp``) and ``unwrap``. On plain arrays each is NumPy's own call; on
traced values a composition of primitives written as NumPy's code computes,
so values agree with NumPy's to rounding (bit for bit where the order of
operations is the same). Piecewise choices (``interp``'s interval,
``unwrap``'s jumps) are read from the values through primitives, so jit
replays them on new inputs.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> fnp.diff(np.array([1.0, 4.0, 9.0, 16.0]), n=2)
array([2., 2.])
>>> fg.grad(lambda y: fnp.trapezoid(y, dx=0.5))(np.ones(4))
array([0.25, 0.5 , 0.5 , 0.25])
"""

import numpy as _np

from ..core.errors import ArgumentError, ArgumentTypeError, UnsupportedError
from ..core.values import dtype_of as _dtype_of
from ..core.values import in_library_of
from ..core.values import plain as _plain
from ..core.values import shape_of as _shape_of
from ..rules import elementwise as _ew
from ..rules import sorting as _s
from ..rules import ufuncs as _u
from ..rules.convolution import convolve as _convolve
from ._helpers import (
    as_array,
    check_axis,
    in_float_dtype_of,
    is_traced,
    numpys_dtype,
    take_on_axis,
)
from ._joining import concatenate, flip
from ._precision import checked_precision, in_preferred_type
from ._reductions import cumprod, cumsum, sum
from ._shape import broadcast_to, ravel, reshape

__all__ = [
    "diff",
    "ediff1d",
    "gradient",
    "trapezoid",
    "cumulative_sum",
    "cumulative_prod",
    "convolve",
    "correlate",
    "interp",
    "unwrap",
]

_NO_VALUE = _np._NoValue


def _edge_like(x, a, axis):
    """``x`` as an array with ``a``'s shape except 1 along ``axis`` (NumPy's prepend/append)."""
    x = as_array(x)
    if not _shape_of(x):
        shape = list(_shape_of(a))
        shape[axis] = 1
        return broadcast_to(x, tuple(shape))
    return x


def diff(a, n=1, axis=-1, prepend=_NO_VALUE, append=_NO_VALUE):
    """``numpy.diff``: the ``n``-th difference along ``axis``.

    >>> import numpy as np
    >>> from funcgrad.numpy import diff
    >>> diff(np.array([[1.0, 3.0, 6.0]]), prepend=0.0)
    array([[1., 2., 3.]])
    """
    extra = [x for x in (prepend, append) if x is not _NO_VALUE]
    if not is_traced(a, *extra):
        return _np.diff(a, n, axis, prepend, append)
    if n < 0:
        raise ArgumentError(f"diff: order must be non-negative; got n={n}")
    a = as_array(a)
    axis = check_axis(axis, len(_shape_of(a)), "diff")
    parts = [a]
    if prepend is not _NO_VALUE:
        parts.insert(0, _edge_like(prepend, a, axis))
    if append is not _NO_VALUE:
        parts.append(_edge_like(append, a, axis))
    a = concatenate(parts, axis=axis) if len(parts) > 1 else a
    # booleans differ where they are unequal (NumPy's rule: bool has no subtraction)
    step = _ew.not_equal if _dtype_of(a) == _np.bool_ else _ew.subtract
    for _ in range(n):
        a = step(take_on_axis(a, slice(1, None), axis), take_on_axis(a, slice(None, -1), axis))
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """``numpy.ediff1d``: differences of the flattened array, with values before and after.

    >>> import numpy as np
    >>> from funcgrad.numpy import ediff1d
    >>> ediff1d(np.array([1.0, 2.0, 4.0]), to_begin=-1.0, to_end=[8.0, 9.0])
    array([-1.,  1.,  2.,  8.,  9.])
    """
    if not is_traced(ary, to_end, to_begin):
        return _np.ediff1d(ary, to_end, to_begin)
    parts = [diff(ravel(ary))]
    # plain values before and after: on ary's device
    if to_begin is not None:
        parts.insert(0, ravel(in_library_of(as_array(to_begin), parts[0])))
    if to_end is not None:
        parts.append(ravel(in_library_of(as_array(to_end), parts[-1])))
    # NumPy's dtype: the array's own, the values before and after cast to it
    return numpys_dtype(concatenate(parts) if len(parts) > 1 else parts[0], _dtype_of(ary))


def _spacings(varargs, shape, axes):
    """One spacing per axis: a number, or the coordinates (a 1-D array) along it."""
    if not varargs:
        return [1.0] * len(axes)
    if len(varargs) == 1 and _np.ndim(varargs[0]) == 0:
        return [varargs[0]] * len(axes)
    if len(varargs) != len(axes):
        raise ArgumentTypeError(
            f"gradient: give one spacing, or one per axis ({len(axes)}); got {len(varargs)}"
        )
    out = []
    for d, ax in zip(varargs, axes):
        if _np.ndim(d) == 0:
            out.append(d)
            continue
        if _np.ndim(d) != 1 or _shape_of(d)[0] != shape[ax]:
            raise ArgumentError(
                f"gradient: the coordinates along axis {ax} must be 1-D of length "
                f"{shape[ax]}; got shape {_shape_of(d)}"
            )
        dx = diff(as_array(d))
        uniform = not is_traced(d) and _np.all(dx == dx[0])
        out.append(dx[0] if uniform else dx)
    return out


def _along(v, axis, ndim):
    """A 1-D array of coefficients shaped to multiply along ``axis`` of an ndim-array."""
    return reshape(v, (-1,) + (1,) * (ndim - 1 - axis)) if _np.ndim(v) else v


def _gradient_axis(f, axis, h, edge_order):
    n, nd = _shape_of(f)[axis], len(_shape_of(f))
    at = lambda i: take_on_axis(f, i, axis)
    if n < edge_order + 1:
        raise ArgumentError(
            f"gradient: shape {_shape_of(f)} is too small along axis {axis} for "
            f"edge_order={edge_order}; it needs at least {edge_order + 1} points"
        )
    if _np.ndim(h) == 0:
        inner = (at(slice(2, None)) - at(slice(None, -2))) / (2.0 * h)
        if edge_order == 1:
            first = (at(slice(1, 2)) - at(slice(0, 1))) / h
            last = (at(slice(-1, None)) - at(slice(-2, -1))) / h
        else:
            first = (
                (-1.5 / h) * at(slice(0, 1))
                + (2.0 / h) * at(slice(1, 2))
                + (-0.5 / h) * at(slice(2, 3))
            )
            last = (
                (0.5 / h) * at(slice(-3, -2))
                + (-2.0 / h) * at(slice(-2, -1))
                + (1.5 / h) * at(slice(-1, None))
            )
        return concatenate([first, inner, last], axis=axis)
    dx1, dx2 = h[:-1], h[1:]
    a = -dx2 / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    inner = (
        _along(a, axis, nd) * at(slice(None, -2))
        + _along(b, axis, nd) * at(slice(1, -1))
        + _along(c, axis, nd) * at(slice(2, None))
    )
    if edge_order == 1:
        first = (at(slice(1, 2)) - at(slice(0, 1))) / h[0]
        last = (at(slice(-1, None)) - at(slice(-2, -1))) / h[-1]
    else:
        d1, d2 = h[0], h[1]
        first = (
            -(2.0 * d1 + d2) / (d1 * (d1 + d2)) * at(slice(0, 1))
            + (d1 + d2) / (d1 * d2) * at(slice(1, 2))
            - d1 / (d2 * (d1 + d2)) * at(slice(2, 3))
        )
        d1, d2 = h[-2], h[-1]
        last = (
            d2 / (d1 * (d1 + d2)) * at(slice(-3, -2))
            - (d2 + d1) / (d1 * d2) * at(slice(-2, -1))
            + (2.0 * d2 + d1) / (d2 * (d1 + d2)) * at(slice(-1, None))
        )
    return concatenate([first, inner, last], axis=axis)


def gradient(f, *varargs, axis=None, edge_order=1):
    """``numpy.gradient``: central differences inside, one-sided ones at the edges; one
    array per axis (a tuple when there are several).

    >>> import numpy as np
    >>> from funcgrad.numpy import gradient
    >>> gradient(np.array([1.0, 2.0, 4.0, 7.0]), 2.0)
    array([0.5 , 0.75, 1.25, 1.5 ])
    """
    if not is_traced(f, *varargs):
        return _np.gradient(f, *varargs, axis=axis, edge_order=edge_order)
    if edge_order not in (1, 2):
        raise ArgumentError(f"gradient: edge_order must be 1 or 2; got {edge_order}")
    f = as_array(f)
    if _dtype_of(f).kind in "iu":  # NumPy's differences of integers are float64's, not modular
        f = _u.astype(f, dtype=_np.float64)
    shape = _shape_of(f)
    axes = (
        tuple(range(len(shape)))
        if axis is None
        else tuple(
            check_axis(ax, len(shape), "gradient")
            for ax in ((axis,) if isinstance(axis, int) else axis)
        )
    )
    out = tuple(
        in_float_dtype_of(_gradient_axis(f, ax, h, edge_order), f)
        for ax, h in zip(axes, _spacings(varargs, shape, axes))
    )
    return out[0] if len(out) == 1 else out


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """``numpy.trapezoid``: the integral by the trapezoidal rule along ``axis``.

    >>> import numpy as np
    >>> from funcgrad.numpy import trapezoid
    >>> float(trapezoid(np.array([0.0, 1.0, 4.0]), x=np.array([0.0, 1.0, 2.0])))
    3.0
    """
    if not is_traced(y, x, dx):
        return _np.trapezoid(y, x, dx, axis)
    y = as_array(y)
    nd = len(_shape_of(y))
    axis = check_axis(axis, nd, "trapezoid")
    if x is None:
        d = dx
    else:
        d = diff(as_array(x), axis=-1 if _np.ndim(x) == 1 else axis)
        if _np.ndim(x) == 1:
            d = _along(d, axis, nd)
    return sum(
        d * (take_on_axis(y, slice(1, None), axis) + take_on_axis(y, slice(None, -1), axis)) / 2.0,
        axis=axis,
    )


def _cumulative(name, scan, initial, x, axis, dtype, include_initial):
    x = as_array(x)
    nd = len(_shape_of(x))
    if nd == 0:  # NumPy's: a 0-d array is scanned as one element
        if axis is not None:
            check_axis(axis, 1, name)
        x, nd = reshape(x, (1,)), 1
    if axis is None:
        if nd > 1:
            raise ArgumentError(f"{name}: axis is required for arrays of more than one dimension")
        axis = 0
    axis = check_axis(axis, nd, name)
    out = scan(x, axis=axis, dtype=dtype)
    if include_initial:
        out = concatenate(
            [_edge_like(_np.asarray(initial, dtype=_np.result_type(_plain(out))), out, axis), out],
            axis=axis,
        )
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """``numpy.cumulative_sum``: the Array API's running sum (``axis`` needed beyond 1-D).

    >>> import numpy as np
    >>> from funcgrad.numpy import cumulative_sum
    >>> cumulative_sum(np.array([1.0, 2.0, 3.0]), include_initial=True)
    array([0., 1., 3., 6.])
    """
    if not is_traced(x):
        return _np.cumulative_sum(
            x, axis=axis, dtype=dtype, out=out, include_initial=include_initial
        )
    return _cumulative("cumulative_sum", cumsum, 0, x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """``numpy.cumulative_prod``: the Array API's running product.

    >>> import numpy as np
    >>> from funcgrad.numpy import cumulative_prod
    >>> cumulative_prod(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1)
    array([[ 1.,  2.],
           [ 3., 12.]])
    """
    if not is_traced(x):
        return _np.cumulative_prod(
            x, axis=axis, dtype=dtype, out=out, include_initial=include_initial
        )
    return _cumulative("cumulative_prod", cumprod, 1, x, axis, dtype, include_initial)


def _one_d(who, *xs):
    for x in xs:
        if _np.ndim(x) != 1:
            raise ArgumentError(
                f"{who}: both operands must be 1-D (NumPy's rule); got shape {_shape_of(x)}; "
                f"funcgrad.scipy.signal.{who} takes any number of axes"
            )


def _cut(full, n, m, mode, who, correlating=False):
    """The part of a full 1-D convolution that ``mode`` keeps, where NumPy puts it."""
    short, long_ = min(n, m), max(n, m)
    if mode == "full":
        return full
    if mode == "same":
        start = (short - 1) // 2
        if correlating and n < m:
            start = short - 1 - start
        return full[start : start + long_]
    if mode == "valid":
        return full[short - 1 : long_]
    raise ArgumentError(f"{who}: mode must be 'full', 'same' or 'valid'; got {mode!r}")


def _valid(a, v):
    """The valid part of the convolution, the longer operand first as the primitive needs."""
    if _shape_of(a)[0] < _shape_of(v)[0]:
        a, v = v, a
    return _convolve(a, v, mode="valid")


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """``numpy.convolve``: the discrete convolution of two 1-D arrays (JAX's ``precision``
    and ``preferred_element_type``: funcgrad.numpy._precision).

    >>> import numpy as np
    >>> from funcgrad.numpy import convolve
    >>> convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]), mode="same")
    array([1. , 2.5, 4. ])
    """
    checked_precision(precision, "convolve")
    if preferred_element_type is not None:
        return in_preferred_type(lambda a, v: convolve(a, v, mode), (a, v), preferred_element_type)
    if not is_traced(a, v):
        return _np.convolve(a, v, mode)
    a, v = as_array(a), as_array(v)
    _one_d("convolve", a, v)
    if _shape_of(a)[0] == 0 or _shape_of(v)[0] == 0:
        raise ArgumentError("convolve: neither operand can be empty")
    if mode == "valid":  # only the valid part: computed alone (convolution commutes)
        return _valid(a, v)
    return _cut(_convolve(a, v), _shape_of(a)[0], _shape_of(v)[0], mode, "convolve")


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """``numpy.correlate``: ``sum_n a[n + k] conj(v[n])``, the cross-correlation of 1-D arrays
    (JAX's ``precision`` and ``preferred_element_type``: funcgrad.numpy._precision).

    >>> import numpy as np
    >>> from funcgrad.numpy import correlate
    >>> correlate(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0]), mode="full")
    array([1., 2., 3., 0.])
    """
    checked_precision(precision, "correlate")
    if preferred_element_type is not None:
        return in_preferred_type(lambda a, v: correlate(a, v, mode), (a, v), preferred_element_type)
    if not is_traced(a, v):
        return _np.correlate(a, v, mode)
    a, v = as_array(a), as_array(v)
    _one_d("correlate", a, v)
    flipped = flip(v)  # a primitive: PyTorch refuses a negative step
    if _dtype_of(v).kind == "c":
        flipped = _u.conjugate(flipped)  # (a real one as it is: conjugate makes int8 of bool)
    if mode == "valid":
        return _valid(a, flipped)
    return _cut(
        _convolve(a, flipped), _shape_of(a)[0], _shape_of(v)[0], mode, "correlate", correlating=True
    )


def interp(x, xp, fp, left=None, right=None, period=None):
    """``numpy.interp``: the piecewise-linear interpolant through ``(xp, fp)`` at ``x``.

    Differentiable in ``x`` (the slope of the piece; 0 outside ``xp``'s range),
    in ``fp`` and in ``xp``. At a knot the derivative in ``x`` is the right piece's.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import interp
    >>> float(interp(2.5, np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 0.0])))
    1.0
    >>> float(fg.grad(interp)(2.5, np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 0.0])))
    -2.0
    """
    if not is_traced(x, xp, fp, left, right):
        return _np.interp(x, xp, fp, left, right, period)
    if period is not None:
        raise UnsupportedError(
            "interp: period= is not supported on traced values; map x into "
            "one period first (x % period) and extend xp, fp by one period"
        )
    xp, fp = as_array(xp), as_array(fp)
    if _np.ndim(xp) != 1 or _shape_of(xp) != _shape_of(fp) or not _shape_of(xp)[0]:
        raise ArgumentError(
            f"interp: xp and fp must be 1-D of the same non-zero length; got shapes "
            f"{_shape_of(xp)} and {_shape_of(fp)}"
        )
    n = _shape_of(xp)[0]
    x = as_array(x)
    if n == 1:
        return broadcast_to(fp[0], _shape_of(x)) + 0.0 * x
    j = _u.clip(_s.searchsorted(_plain(xp), ravel(_plain(x)), side="right") - 1, 0, n - 2)
    at = lambda v, i: reshape(_s.take_along(v, i, axis=0), _shape_of(x))
    x0, x1, f0, f1 = at(xp, j), at(xp, j + 1), at(fp, j), at(fp, j + 1)
    # primitives: a plain device x refuses a traced x0 in its own - (array-api-strict's)
    slope = _ew.divide(_ew.subtract(f1, f0), _ew.subtract(x1, x0))
    inside = _ew.add(_ew.multiply(slope, _ew.subtract(x, x0)), f0)
    px, lo, hi = _plain(x), _plain(xp)[0], _plain(xp)[-1]
    out = _ew.where(_ew.equal(px, hi), fp[-1], inside)
    out = _ew.where(_ew.greater(px, hi), fp[-1] if right is None else right, out)
    out = _ew.where(_ew.less(px, lo), fp[0] if left is None else left, out)
    return numpys_dtype(out, _np.float64)  # NumPy's interp computes in double


def unwrap(p, discont=None, axis=-1, *, period=2 * _np.pi):
    """``numpy.unwrap``: jumps larger than ``discont`` (period / 2) removed by adding
    multiples of ``period``; the added amounts are piecewise constant, so the derivative
    passes straight through.

    >>> import numpy as np
    >>> from funcgrad.numpy import unwrap
    >>> unwrap(np.array([0.0, 3.0, -3.0, 0.0])).round(4)
    array([0.    , 3.    , 3.2832, 6.2832])
    """
    if not is_traced(p, discont, period):
        return _np.unwrap(p, discont, axis, period=period)
    p = as_array(p)
    axis = check_axis(axis, len(_shape_of(p)), "unwrap")
    discont = period / 2 if discont is None else discont
    half = period / 2
    dd = diff(_plain(p), axis=axis)
    ddmod = _u.mod(dd + half, period) - half
    ddmod = _ew.where(_u.logical_and(ddmod == -half, dd > 0), half, ddmod)
    correct = _ew.where(_ew.abs(dd) < discont, 0.0, ddmod - dd)
    rest = take_on_axis(p, slice(1, None), axis) + cumsum(correct, axis=axis)
    return concatenate([take_on_axis(p, slice(0, 1), axis), rest], axis=axis)
