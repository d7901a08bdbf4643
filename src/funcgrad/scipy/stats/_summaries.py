"""Summaries of a sample that ``jax.scipy.stats`` has beside its distributions: ``sem``
(differentiable), ``rankdata`` and ``mode`` (integer-valued: no derivative).

The ranks and the mode are read off the sorted sample, so they run under ``jit`` and
``vmap`` as well as eagerly: a run of equal values starts where a value differs from the
one before it, the least rank of a run is the running maximum of those starts' ordinals,
the greatest the running minimum of its ends' from the right; each value takes its run's
ranks back through the inverse of the sort's permutation.

>>> import numpy as np
>>> from funcgrad.scipy import stats
>>> stats.rankdata(np.array([10.0, 30.0, 20.0, 20.0]))
array([1. , 4. , 2.5, 2.5])
>>> stats.mode(np.array([3, 1, 3, 2, 1]))
ModeResult(mode=np.int64(1), count=np.int64(2))
"""

from collections import namedtuple

import numpy as np

from ... import numpy as fnp
from ...core.errors import ArgumentError
from ...lax._reductions import cummax, cummin
from ...transforms.arguments import stop_gradient
from ._common import scipys_results

__all__ = ["sem", "rankdata", "mode", "ModeResult"]

ModeResult = namedtuple("ModeResult", ["mode", "count"])
ModeResult.__doc__ = """What :func:`mode` returns, as SciPy's: the most frequent value and its count.

>>> import numpy as np
>>> from funcgrad.scipy import stats
>>> stats.mode(np.array([4, 4, 7])).count
np.int64(2)
"""
_RANKINGS = ("average", "min", "max", "dense", "ordinal")


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """``scipy.stats.sem``: the standard error of the mean, ``std(a, ddof) / sqrt(n)``;
    ``nan_policy="omit"`` leaves NaN out of both.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.scipy import stats
    >>> round(stats.sem(np.array([1.0, 2.0, 4.0])), 6)
    np.float64(0.881917)
    >>> np.round(fg.grad(stats.sem)(np.array([1.0, 2.0, 4.0])), 6)
    array([-0.251976, -0.062994,  0.31497 ])
    """
    a = fnp.asarray(a)
    if axis is None:
        a, axis = fnp.ravel(a), 0
    if nan_policy == "omit":
        n = fnp.sum(~fnp.isnan(a), axis=axis, keepdims=keepdims)
        return fnp.nanstd(a, axis=axis, ddof=ddof, keepdims=keepdims) / fnp.sqrt(n)
    _policy("sem", nan_policy)
    n = a.shape[axis]
    return fnp.std(a, axis=axis, ddof=ddof, keepdims=keepdims) / np.sqrt(n)


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """``scipy.stats.rankdata``: each value's rank, 1 for the least; ties take the
    ``method``'s rank (the run's average, least, greatest, dense count or order of
    appearance). Floats for ``"average"`` and for a float sample, whose slices holding a
    NaN rank as NaN (``nan_policy="propagate"``), integers otherwise: JAX's rule, a type
    that does not depend on the values (SciPy's turns to floats where a NaN is met).

    >>> import numpy as np
    >>> from funcgrad.scipy import stats
    >>> stats.rankdata(np.array([[3, 1], [1, 1]]), "min", axis=1)
    array([[2, 1],
           [1, 1]])
    """
    if method not in _RANKINGS:
        raise ArgumentError(f"rankdata: method must be one of {_RANKINGS}; got {method!r}")
    _policy("rankdata", nan_policy)
    a = stop_gradient(fnp.asarray(a))
    if axis is None:
        a, axis = fnp.ravel(a), -1
    x = fnp.moveaxis(a, axis, -1)
    least, greatest, dense, order = _runs(x)
    n = x.shape[-1]
    if method == "average":
        ranks = (least + greatest) * 0.5
    elif method == "min":
        ranks = least
    elif method == "max":
        ranks = greatest
    elif method == "dense":
        ranks = dense
    else:
        ranks = fnp.broadcast_to(fnp.arange(1, n + 1), least.shape)
    back = fnp.argsort(order, axis=-1)  # the inverse permutation
    ranks = fnp.take_along_axis(ranks, back, axis=-1)
    if x.dtype.kind in "fc":
        ranks = ranks.astype(np.float64)
        if n:
            ranks = fnp.where(fnp.any(fnp.isnan(x), axis=-1, keepdims=True), np.nan, ranks)
    return fnp.moveaxis(ranks, -1, axis)


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """``scipy.stats.mode``: the most frequent value along ``axis`` (the least of them at
    a tie) and how often it occurs, as a ``ModeResult``.

    >>> import numpy as np
    >>> from funcgrad.scipy import stats
    >>> stats.mode(np.array([[1, 2, 2], [5, 5, 3]]), axis=1)
    ModeResult(mode=array([2, 5]), count=array([2, 2]))
    """
    _policy("mode", nan_policy)
    a = stop_gradient(fnp.asarray(a))
    kept = (1,) * a.ndim  # axis=None with keepdims: every axis kept, of length 1
    if axis is None:
        a, axis = fnp.ravel(a), 0
    else:
        kept = None
    x = fnp.moveaxis(a, axis, -1)
    if x.shape[-1] == 0:
        raise ArgumentError("mode: the sample along axis is empty; give at least one value")
    least, greatest, _, order = _runs(x)
    counts = greatest - least + 1
    at = fnp.argmax(counts, axis=-1, keepdims=True)  # the first: the least value
    sorted_x = fnp.take_along_axis(x, order, axis=-1)
    value = fnp.take_along_axis(sorted_x, at, axis=-1)
    count = fnp.take_along_axis(counts, at, axis=-1)
    if keepdims and kept is not None:
        value, count = fnp.reshape(value, kept), fnp.reshape(count, kept)
    elif keepdims:
        value, count = fnp.moveaxis(value, -1, axis), fnp.moveaxis(count, -1, axis)
    else:
        value, count = value[..., 0], count[..., 0]
    return ModeResult(_scalar(value), _scalar(count))


def _scalar(v):
    """A plain 0-d array as NumPy's scalar, as SciPy returns one."""
    return v[()] if type(v) is np.ndarray and v.ndim == 0 else v


def _runs(x):
    """For the last axis of ``x`` sorted (``order``, the stable sort's permutation): per
    sorted position, the least and greatest rank of its run of equal values and its dense
    rank (integers from 1)."""
    n = x.shape[-1]
    order = fnp.argsort(x, axis=-1, stable=True)
    s = fnp.take_along_axis(x, order, axis=-1)
    ordinal = fnp.arange(1, n + 1) + fnp.zeros(s.shape, dtype=np.int64)
    differs = s[..., 1:] != s[..., :-1]
    starts = fnp.concatenate([fnp.ones(s.shape[:-1] + (1,), bool), differs], axis=-1)
    ends = fnp.concatenate([differs, fnp.ones(s.shape[:-1] + (1,), bool)], axis=-1)
    least = cummax(fnp.where(starts, ordinal, 0), axis=s.ndim - 1)
    greatest = cummin(fnp.where(ends, ordinal, n + 1), axis=s.ndim - 1, reverse=True)
    dense = fnp.cumsum(starts.astype(np.int64), axis=-1)
    return least, greatest, dense, order


def _policy(who, nan_policy):
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ArgumentError(
            f"{who}: nan_policy must be 'propagate', 'omit' or 'raise'; got {nan_policy!r}"
        )
    if nan_policy != "propagate" and who != "sem":
        raise ArgumentError(
            f"{who}: nan_policy={nan_policy!r} is not supported (its result's shape would "
            f"depend on the values); take the NaN out first, or keep 'propagate'"
        )


scipys_results(globals())
