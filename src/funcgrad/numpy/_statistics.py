"""Order statistics, NaN-skipping reductions and covariance, NumPy's signatures.

``median``, ``percentile``, ``quantile`` and their NaN-skipping versions sort
along the axes and interpolate between neighbours exactly as NumPy's code
does (methods ``linear``, ``lower``, ``higher``, ``nearest``, ``midpoint``),
so the gradient goes to the one or two elements each result is made of.
``nanmax``, ``nanmin``, ``nanprod``, ``nanvar``, ``nanstd``, ``nancumsum`` and
``nancumprod`` give NaNs a zero derivative; ``cov`` and ``corrcoef`` take
NumPy's weights. Counting and binning are in :mod:`funcgrad.numpy._counting`.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> fg.grad(lambda x: fnp.median(x))(np.array([3.0, 1.0, 4.0, 2.0]))
array([0.5, 0. , 0. , 0.5])
>>> fnp.nanmax(np.array([1.0, np.nan, 3.0]))
np.float64(3.0)
"""

import math
import warnings

import numpy as _np

from ..core.errors import ArgumentError, UnsupportedError
from ..core.values import dtype_of as _dtype_of
from ..core.values import float_dtype, in_library_of
from ..core.values import plain as _plain
from ..core.values import shape_of as _shape_of
from ..rules import elementwise as _ew
from ..rules import sorting as _s
from ..rules import ufuncs as _u
from ._helpers import (
    as_array,
    check_axes,
    dtype_of_call,
    is_traced,
    nan_mask,
    numpys_dtype,
    refuse,
)
from ._joining import concatenate, sort
from ._masked import given
from ._products import dot
from ._reductions import average, cumprod, cumsum, max, min, prod, sum, var
from ._shape import moveaxis, reshape, transpose

__all__ = [
    "median",
    "percentile",
    "quantile",
    "nanmedian",
    "nanpercentile",
    "nanquantile",
    "nanmax",
    "nanmin",
    "nanargmax",
    "nanargmin",
    "nanprod",
    "nanvar",
    "nanstd",
    "nancumsum",
    "nancumprod",
    "cov",
    "corrcoef",
]

_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _last_axis(a, axis):
    """``a`` with the axes ``axis`` (None: all) merged into one last axis, and the
    shape keepdims gives the result."""
    shape = _shape_of(a)
    axes = tuple(range(len(shape))) if axis is None else check_axes(axis, len(shape), "quantile")
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    moved = transpose(a, kept + axes)
    # the merged length written out: -1 is ambiguous beside a kept axis of length 0
    merged = reshape(moved, tuple(shape[i] for i in kept) + (math.prod(shape[i] for i in axes),))
    keep_shape = tuple(1 if i in axes else n for i, n in enumerate(shape))
    return merged, tuple(shape[i] for i in kept), keep_shape


def _indexes(virtual, count, method):
    """NumPy's neighbouring indexes and weight of the upper one, from plain values."""
    if method == "lower":
        virtual = _u.floor(virtual)
    elif method == "higher":
        virtual = _u.ceil(virtual)
    elif method == "nearest":
        virtual = _u.rint(virtual)
    below = _u.floor(virtual)
    last = count - 1.0
    above = virtual >= last
    lo = _ew.where(above, last, _ew.where(virtual < 0, 0.0, below))
    hi = _ew.where(above, last, _ew.where(virtual < 0, 0.0, below + 1.0))
    gamma = virtual - lo
    if method == "midpoint":
        gamma = _ew.where(gamma == 0, 0.0, 0.5)
    to_int = lambda i: _u.astype(_ew.maximum(i, 0.0), dtype=_np.intp)
    return to_int(lo), to_int(hi), gamma


def _lerp(a, b, t):
    d = b - a
    return _ew.where(t >= 0.5, b - d * (1.0 - t), a + d * t)


def _quantile(who, a, q, axis, method, keepdims, skip_nan, given_q=None):
    """NumPy's ``who`` (quantile, nanquantile, percentile, nanpercentile, nanmedian) of
    ``a`` at ``q`` in [0, 1]; ``given_q``: the q the caller was given (a percentage)."""
    if is_traced(q):
        raise UnsupportedError(
            f"{who}: a traced q is not supported; the derivative with "
            f"respect to the data is; pass q as a plain number or array"
        )
    if method not in _METHODS:
        raise UnsupportedError(f"{who}: method={method!r} is not supported; use one of {_METHODS}")
    # NumPy's type for the result is asked of NumPy's own function (it changes between
    # versions: 2.3 lets a float64 q widen float32 data, 2.2 kept the data's type for a
    # scalar q), with a q of the given one's type: a number, a NumPy scalar or an array
    given = q if given_q is None else given_q
    probe_q = (
        given
        if type(given) in (float, int) or isinstance(given, _np.generic)
        else (_np.zeros((1,) * _np.ndim(given), _np.asarray(given).dtype))
    )
    q = _np.asarray(q, dtype=float)
    if _np.any((q < 0) | (q > 1)):
        raise ArgumentError(
            f"{who}: quantiles must be in the range [0, 1] (percentiles in [0, 100]); got {q}"
        )
    skip_nan = skip_nan and not _holds_no_nan(a)  # NumPy's nanquantile of integers: quantile
    merged, rest, keep_shape = _last_axis(as_array(a), axis)
    n = _shape_of(merged)[-1]
    if skip_nan and n * math.prod(rest) == 0:
        # NumPy's nanquantile of no elements is their nanmean: NaN per slice, q's axes dropped
        nans = in_library_of(_np.full(keep_shape if keepdims else rest, _np.nan), merged)
        return numpys_dtype(nans, float_dtype(a))
    ordered = sort(merged, axis=-1)  # NaNs sort last
    nan = nan_mask(ordered)
    count = (
        sum(_ew.where(nan, 0.0, 1.0), axis=-1, keepdims=True)
        if skip_nan
        else in_library_of(_np.full(rest + (1,), float(n)), merged)
    )
    qs = in_library_of(q.reshape(-1), merged)  # constants on the values' device
    virtual = count * qs + (1.0 + qs * -1.0) - 1.0  # NumPy's formula, alpha = beta = 1
    lo, hi, gamma = _indexes(virtual, count, method)
    out = _lerp(_s.take_along(ordered, lo, axis=-1), _s.take_along(ordered, hi, axis=-1), gamma)
    if not skip_nan:
        has_nan = _s.take_along(nan, in_library_of(_np.full(rest + (1,), n - 1), merged), axis=-1)
        out = _ew.where(has_nan, _np.nan, out)
    out = moveaxis(out, -1, 0)  # q's axes lead, as in NumPy
    out_shape = keep_shape if keepdims else rest
    out = reshape(out, q.shape + out_shape)
    # NumPy's type, asked of NumPy itself (it changes between versions): a picked integer
    # stays an integer, float32 data with a Python number q stays float32, ...
    reference = getattr(_np, who)
    if who == "nanmedian":
        return numpys_dtype(out, dtype_of_call(reference, a))
    return numpys_dtype(out, dtype_of_call(reference, a, probe_q, method=method))


def quantile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
):
    """``numpy.quantile``: the q-th quantiles (q in [0, 1]) along ``axis``.

    >>> import numpy as np
    >>> from funcgrad.numpy import quantile
    >>> quantile(np.array([[1.0, 2.0, 3.0, 4.0]]), [0.25, 0.5], axis=1)
    array([[1.75],
           [2.5 ]])
    """
    refuse("quantile", out=out, weights=weights)
    if not is_traced(a):
        return _np.quantile(a, q, axis=axis, method=method, keepdims=keepdims)
    return _quantile("quantile", a, q, axis, method, keepdims, skip_nan=False)


def percentile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
):
    """``numpy.percentile``: quantile with q in percent.

    >>> import numpy as np
    >>> from funcgrad.numpy import percentile
    >>> float(percentile(np.array([1.0, 2.0, 3.0, 4.0]), 50))
    2.5
    """
    refuse("percentile", out=out, weights=weights)
    if not is_traced(a):
        return _np.percentile(a, q, axis=axis, method=method, keepdims=keepdims)
    return _quantile(
        "percentile",
        a,
        _np.true_divide(q, 100),
        axis,
        method,
        keepdims,
        skip_nan=False,
        given_q=q,
    )


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``numpy.median``: the middle value, or the mean of the two middle values.

    >>> import numpy as np
    >>> from funcgrad.numpy import median
    >>> median(np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]]), axis=1)
    array([2., 3.])
    """
    refuse("median", out=out)
    if not is_traced(a):
        return _np.median(a, axis=axis, keepdims=keepdims)
    return _median(a, axis, keepdims)


def _median(a, axis, keepdims):
    """NumPy's median: the middle element, or the mean of the two middle ones, of each
    sorted slice (the slice's length is its shape's, known here); NaN where the slice
    holds one (NaNs sort last), and for an empty slice. Not the quantile's interpolation,
    ``b - (b - a) / 2``, which is NaN for an infinite middle value where NumPy's mean is
    that infinity."""
    merged, rest, keep_shape = _last_axis(as_array(a), axis)
    shape = keep_shape if keepdims else rest
    dtype = float_dtype(a)
    n = _shape_of(merged)[-1]
    if n == 0:
        return in_library_of(_np.full(shape, _np.nan, dtype=dtype), merged)
    # float16's mean is taken in float32, as NumPy's is, and rounded back at the end
    ordered = numpys_dtype(sort(merged, axis=-1), _np.float32 if dtype == _np.float16 else dtype)
    upper = ordered[..., n // 2]
    out = upper if n % 2 else _ew.divide(_ew.add(ordered[..., n // 2 - 1], upper), 2.0)
    out = _ew.where(_u.isnan(ordered[..., n - 1]), _np.nan, out)
    return numpys_dtype(reshape(out, shape), dtype)


def nanquantile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
):
    """``numpy.nanquantile``: quantile of the elements that are not NaN.

    >>> import numpy as np
    >>> from funcgrad.numpy import nanquantile
    >>> float(nanquantile(np.array([1.0, np.nan, 3.0]), 0.5))
    2.0
    """
    refuse("nanquantile", out=out, weights=weights)
    if not is_traced(a):
        return _np.nanquantile(a, q, axis=axis, method=method, keepdims=keepdims)
    return _quantile("nanquantile", a, q, axis, method, keepdims, skip_nan=True)


def nanpercentile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
):
    """``numpy.nanpercentile``: percentile of the elements that are not NaN.

    >>> import numpy as np
    >>> from funcgrad.numpy import nanpercentile
    >>> float(nanpercentile(np.array([1.0, np.nan, 3.0]), 100))
    3.0
    """
    refuse("nanpercentile", out=out, weights=weights)
    if not is_traced(a):
        return _np.nanpercentile(a, q, axis=axis, method=method, keepdims=keepdims)
    return _quantile(
        "nanpercentile",
        a,
        _np.true_divide(q, 100),
        axis,
        method,
        keepdims,
        skip_nan=True,
        given_q=q,
    )


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``numpy.nanmedian``: median of the elements that are not NaN.

    >>> import numpy as np
    >>> from funcgrad.numpy import nanmedian
    >>> float(nanmedian(np.array([1.0, np.nan, 3.0, 10.0])))
    3.0
    """
    refuse("nanmedian", out=out)
    if not is_traced(a):
        return _np.nanmedian(a, axis=axis, keepdims=keepdims)
    if _holds_no_nan(a):  # NumPy's nanmedian of integers and booleans: their median
        return median(a, axis=axis, keepdims=keepdims)
    return _quantile("nanmedian", a, 0.5, axis, "linear", keepdims, skip_nan=True)


def _replace_nan(a, value):
    a = as_array(a)
    return _ew.where(nan_mask(a), value, a)


def _all_nan(a, axis, keepdims):
    return _ew.equal(sum(_ew.where(nan_mask(a), 0.0, 1.0), axis=axis, keepdims=keepdims), 0.0)


def _holds_no_nan(a):
    """Integers and booleans: NumPy's nan-functions are then the plain ones (same dtype)."""
    return _dtype_of(a).kind in "biu"


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.nanmax``: the maximum ignoring NaNs (NaN where every element is NaN).

    >>> from funcgrad.numpy import nanmax
    >>> import numpy as np, warnings
    >>> with warnings.catch_warnings():      # NumPy warns of the all-NaN row, as here
    ...     warnings.simplefilter("ignore", RuntimeWarning)
    ...     nanmax(np.array([[np.nan, 2.0], [np.nan, np.nan]]), axis=1)
    array([ 2., nan])
    """
    refuse("nanmax", out=out)
    return _nan_extremum(_np.nanmax, max, -_np.inf, a, axis, keepdims, initial, where)


def _nan_extremum(numpy_fun, extremum, fill, a, axis, keepdims, initial, where):
    """``nanmax`` or ``nanmin``: NumPy's for plain values; else the extremum of the
    elements that are not NaN (and the mask selects) and ``initial``, NaN where none is."""
    if not is_traced(a, where, initial):
        return numpy_fun(a, axis=axis, keepdims=keepdims, **given(initial=initial, where=where))
    if _holds_no_nan(a):
        return extremum(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    best = extremum(
        _replace_nan(a, fill), axis=axis, keepdims=keepdims, initial=initial, where=where
    )
    if initial is not None:  # initial is an element of every slice: never all NaN
        return best
    return _ew.where(_all_nan(a, axis, keepdims), _np.nan, best)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """``numpy.nanargmax``: where the maximum is, NaNs left out (no derivative). A slice
    of NaNs alone has no answer: NumPy raises there, and so does funcgrad on plain
    values; on traced ones, whose values it cannot read, that slice gives 0.

    >>> import numpy as np
    >>> from funcgrad.numpy import nanargmax
    >>> nanargmax(np.array([[np.nan, 2.0], [3.0, np.nan]]), axis=1)
    array([1, 0])
    """
    refuse("nanargmax", out=out)
    if not is_traced(a):
        return _np.nanargmax(a, axis=axis, keepdims=keepdims)
    return _s.argmax(_plain(_replace_nan(a, -_np.inf)), axis=axis, keepdims=keepdims)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """``numpy.nanargmin``: where the minimum is, NaNs left out (as :func:`nanargmax`).

    >>> import numpy as np
    >>> from funcgrad.numpy import nanargmin
    >>> int(nanargmin(np.array([np.nan, 2.0, -1.0])))
    2
    """
    refuse("nanargmin", out=out)
    if not is_traced(a):
        return _np.nanargmin(a, axis=axis, keepdims=keepdims)
    return _s.argmin(_plain(_replace_nan(a, _np.inf)), axis=axis, keepdims=keepdims)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.nanmin``: the minimum ignoring NaNs (NaN where every element is NaN).

    >>> import numpy as np
    >>> from funcgrad.numpy import nanmin
    >>> float(nanmin(np.array([np.nan, 2.0, -1.0])))
    -1.0
    """
    refuse("nanmin", out=out)
    return _nan_extremum(_np.nanmin, min, _np.inf, a, axis, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``numpy.nanprod``: NaNs count as one.

    >>> import numpy as np
    >>> from funcgrad.numpy import nanprod
    >>> float(nanprod(np.array([2.0, np.nan, 3.0])))
    6.0
    """
    refuse("nanprod", out=out)
    options = given(initial=initial, where=where)
    if not is_traced(a, where, initial):
        return _np.nanprod(a, axis=axis, dtype=dtype, keepdims=keepdims, **options)
    ones = a if _holds_no_nan(a) else _replace_nan(a, 1.0)
    return prod(ones, axis=axis, dtype=dtype, keepdims=keepdims, **options)


def nancumsum(a, axis=None, dtype=None, out=None):
    """``numpy.nancumsum``: the running sum with NaNs as zero.

    >>> import numpy as np
    >>> from funcgrad.numpy import nancumsum
    >>> nancumsum(np.array([1.0, np.nan, 2.0]))
    array([1., 1., 3.])
    """
    refuse("nancumsum", out=out)
    if not is_traced(a):
        return _np.nancumsum(a, axis=axis, dtype=dtype)
    return cumsum(a if _holds_no_nan(a) else _replace_nan(a, 0.0), axis=axis, dtype=dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    """``numpy.nancumprod``: the running product with NaNs as one.

    >>> import numpy as np
    >>> from funcgrad.numpy import nancumprod
    >>> nancumprod(np.array([2.0, np.nan, 3.0]))
    array([2., 2., 6.])
    """
    refuse("nancumprod", out=out)
    if not is_traced(a):
        return _np.nancumprod(a, axis=axis, dtype=dtype)
    return cumprod(a if _holds_no_nan(a) else _replace_nan(a, 1.0), axis=axis, dtype=dtype)


def nanvar(
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
    """``numpy.nanvar``: the variance of the elements that are not NaN, with ``ddof`` (or
    ``correction``), ``where=`` and a ``mean=`` known already.

    >>> import numpy as np
    >>> from funcgrad.numpy import nanvar
    >>> float(nanvar(np.array([1.0, np.nan, 3.0])))
    1.0
    """
    refuse("nanvar", out=out)
    if correction is not None:
        if ddof != 0:
            raise ArgumentError("nanvar: give ddof or correction, not both (the same thing)")
        ddof = correction
    options = given(where=where, mean=mean)
    if not is_traced(a, where, mean):
        return _np.nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, **options)
    if _holds_no_nan(a):
        return var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, **options)
    valid = _ew.where(nan_mask(a), 0.0, 1.0)
    count = sum(valid, axis=axis, keepdims=True, where=where)
    zeroed = _replace_nan(a, 0.0)
    if mean is None:
        mean = sum(zeroed, axis=axis, dtype=dtype, keepdims=True, where=where) / count
    centred = zeroed - mean
    squares = _ew.where(nan_mask(a), 0.0, _u.real(centred * _u.conjugate(centred)))
    total = sum(squares, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    dof = sum(valid, axis=axis, keepdims=keepdims, where=where) - ddof
    real = _ew.real_dtype_of(a if dtype is None else _np.empty(0, dtype))
    return numpys_dtype(total / dof, real)


def nanstd(
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
    """``numpy.nanstd``: the standard deviation of the elements that are not NaN.

    >>> import numpy as np
    >>> from funcgrad.numpy import nanstd
    >>> float(nanstd(np.array([1.0, np.nan, 3.0])))
    1.0
    """
    refuse("nanstd", out=out)
    options = given(where=where, mean=mean, correction=correction)
    if not is_traced(a, where, mean):
        return _np.nanstd(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, **options)
    return _u.spread_sqrt(
        nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, **options)
    )


def _as_rows(x, rowvar):
    x = as_array(x)
    nd = len(_shape_of(x))
    if nd > 2:
        raise ArgumentError(f"cov: m has more than 2 dimensions (shape {_shape_of(x)})")
    x = reshape(x, (1, -1)) if nd < 2 else x
    return x if rowvar or nd < 2 else transpose(x)  # NumPy never transposes a 1-D input


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """``numpy.cov``: the covariance matrix of the variables (rows, or columns if
    ``rowvar=False``), with frequency and reliability weights.

    >>> import numpy as np
    >>> from funcgrad.numpy import cov
    >>> cov(np.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    if not is_traced(m, y, fweights, aweights):
        return _np.cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype=dtype)
    x = _as_rows(m, rowvar)
    if y is not None:
        x = concatenate([x, _as_rows(y, rowvar)], axis=0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    w = None
    if fweights is not None:
        w = as_array(fweights)
    if aweights is not None:
        w = as_array(aweights) if w is None else w * as_array(aweights)
    if w is None:
        avg = average(x, axis=1)
        w_sum = float(_shape_of(x)[1])
        fact = _np.float64(w_sum - ddof)  # NumPy: inf, not an exception, at fact = 0
        if fact <= 0:  # NumPy's warning, and its 0 for fewer observations than ddof
            warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
            fact = _np.float64(0.0)
    else:
        avg, w_sum = average(x, axis=1, weights=w, returned=True)
        w_sum = w_sum[0]
        fact = (
            w_sum - ddof if aweights is None else w_sum - ddof * sum(w * as_array(aweights)) / w_sum
        )
    x = x - reshape(avg, (-1, 1))
    xt = transpose(x if w is None else x * w)
    c = dot(x, _u.conjugate(xt)) * (1.0 / fact)
    return reshape(c, ()) if _shape_of(c) == (1, 1) else c


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """``numpy.corrcoef``: the correlation coefficients, cov / (std_i std_j), clipped to [-1, 1].

    >>> import numpy as np
    >>> from funcgrad.numpy import corrcoef
    >>> corrcoef(np.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]])).round(4)
    array([[ 1.   , -0.982],
           [-0.982,  1.   ]])
    """
    if not is_traced(x, y):
        return _np.corrcoef(x, y, rowvar, dtype=dtype)
    c = cov(x, y, rowvar)
    if not _shape_of(c):
        return c / c
    d = _np.arange(_shape_of(c)[0])
    std = _ew.sqrt(_u.real(c[d, d]))
    c = c / reshape(std, (-1, 1))
    c = c / reshape(std, (1, -1))
    return _u.clip(c, -1.0, 1.0)
