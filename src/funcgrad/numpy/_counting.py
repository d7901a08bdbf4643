"""Counting and binning, NumPy's signatures: ``count_nonzero``, ``any``, ``all``,
``digitize`` and ``histogram``'s counts have no derivative; ``histogram``'s and
``bincount``'s ``weights`` do, and ``histogram_bin_edges`` spans the data, so it is
differentiable in the extremes.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> fg.grad(lambda w: fnp.sum(fnp.bincount(np.array([1, 1, 3]), w) ** 2))(np.ones(3))
array([4., 4., 2.])
"""

import builtins

import numpy as _np

from ..at import at
from ..core.errors import ArgumentTypeError
from ..core.values import dtype_of as _dtype_of
from ..core.values import float_dtype, in_library_of
from ..core.values import plain as _plain
from ..core.values import shape_of as _shape_of
from ..rules import elementwise as _ew
from ..rules import sorting as _s
from ..rules import ufuncs as _u
from ._helpers import concrete, is_traced, jax_method, numpys_dtype, refuse
from ._indexing import SEARCH_METHODS
from ._joining import concatenate
from ._masked import given, selected
from ._reductions import max, min, sum
from ._shape import ravel, reshape

__all__ = [
    "count_nonzero",
    "any",
    "all",
    "digitize",
    "bincount",
    "histogram",
    "histogram_bin_edges",
    "histogram2d",
    "histogramdd",
]


def count_nonzero(a, axis=None, *, keepdims=False):
    """``numpy.count_nonzero``: how many elements are not zero (an integer, no derivative).

    >>> import numpy as np
    >>> from funcgrad.numpy import count_nonzero
    >>> int(count_nonzero(np.array([0.0, 1.5, -2.0])))
    2
    """
    if not is_traced(a):
        return _np.count_nonzero(a, axis=axis, keepdims=keepdims)
    ones = _ew.where(_nonzero(a), 1, 0)
    return _u.astype(sum(ones, axis=axis, keepdims=keepdims), dtype=_np.intp)


def _nonzero(a):
    """Where ``a`` is not zero (a mask): a boolean array as it is, as the Array API compares
    no bool with a number."""
    p = _plain(a)
    return p if _dtype_of(p) == _np.bool_ else _ew.not_equal(p, 0)


def any(a, axis=None, out=None, keepdims=False, *, where=None):
    """``numpy.any``: whether any element is true (not zero); no derivative.

    >>> import numpy as np
    >>> import funcgrad.numpy as fnp
    >>> fnp.any(np.array([[0.0, 1.0], [0.0, 0.0]]), axis=1)
    array([ True, False])
    """
    refuse("any", out=out)
    if not is_traced(a, where):
        return _np.any(a, axis=axis, keepdims=keepdims, **given(where=where))
    if where is not None:  # the elements left out count as false
        return any(selected(_nonzero(a), where, False, "any"), axis=axis, keepdims=keepdims)
    return _ew.greater(count_nonzero(a, axis=axis, keepdims=keepdims), 0)


def all(a, axis=None, out=None, keepdims=False, *, where=None):
    """``numpy.all``: whether every element is true (not zero); no derivative.

    >>> import numpy as np
    >>> bool(all(np.array([1.0, 2.0])))
    True
    """
    refuse("all", out=out)
    if not is_traced(a, where):
        return _np.all(a, axis=axis, keepdims=keepdims, **given(where=where))
    zeros = sum(_ew.where(_nonzero(a), 0, 1), axis=axis, keepdims=keepdims, where=where)
    return _ew.equal(zeros, 0)


def digitize(x, bins, right=False, *, method=None):
    """``numpy.digitize``: the index of the bin each value falls in (an integer, no derivative);
    JAX's ``method`` is :func:`searchsorted`'s.

    >>> import numpy as np
    >>> from funcgrad.numpy import digitize
    >>> digitize(np.array([0.5, 1.5, 3.0]), np.array([0.0, 1.0, 2.0]))
    array([1, 2, 3])
    """
    jax_method(method, SEARCH_METHODS, "digitize")
    if not is_traced(x, bins):
        return _np.digitize(x, bins, right)
    bins = concrete(bins, "digitize")
    side = "left" if right else "right"
    if bins[-1] >= bins[0]:
        return _s.searchsorted(bins, _plain(x), side=side)
    return len(bins) - _s.searchsorted(bins[::-1], _plain(x), side=side)


def bincount(x, /, weights=None, minlength=0, *, length=None):
    """``numpy.bincount``: how often each non-negative integer occurs, or the sum of its
    ``weights`` (differentiable in the weights). ``length`` (JAX's): exactly that many
    bins, known before the values are (which may then be traced); values outside them are
    not counted.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import bincount
    >>> fg.grad(lambda w: bincount(np.array([0, 2, 2]), w)[2])(np.array([1.0, 2.0, 3.0]))
    array([0., 1., 1.])
    >>> fg.jit(lambda x: bincount(x, length=4))(np.array([0, 2, 2, 7]))
    array([1, 0, 2, 0])
    """
    if length is not None:
        return _bincount_to(x, weights, int(length))
    if not is_traced(x, weights):
        return _np.bincount(x, weights, minlength)
    x = _np.asarray(concrete(x, "bincount"))
    length = builtins.max(int(x.max()) + 1 if x.size else 0, minlength)
    counts = _s.put_along(ravel(weights) * 1.0, x.ravel(), axis=0, shape=(length,))
    return numpys_dtype(counts, _np.result_type(float_dtype(weights), _np.float64))  # NumPy's


def _bincount_to(x, weights, length):
    """:func:`bincount` into ``length`` bins: one scatter-add, the values outside the bins
    sent past the end, where it drops them."""
    x = ravel(x if is_traced(x) else _np.asarray(x))
    if _dtype_of(x).kind not in "iu":
        raise ArgumentTypeError(f"bincount: x must be integers; got {_dtype_of(x)}")
    inside = (x >= 0) & (x < length)
    if weights is None:
        counts, added = _np.zeros(length, _np.intp), 1
    else:
        kind = _np.result_type(float_dtype(weights), _np.float64)  # NumPy's, as above
        counts, added = _np.zeros(length, kind), ravel(weights)
    return at(counts)[_ew.where(inside, x, length)].add(added, mode="drop")


def histogram(a, bins=10, range=None, density=None, weights=None):
    """``numpy.histogram``: counts per bin and the bin edges. The counts have no derivative
    with respect to ``a``; with ``weights`` they are sums, differentiable in the weights.

    >>> import numpy as np
    >>> from funcgrad.numpy import histogram
    >>> counts, edges = histogram(np.array([0.1, 0.4, 0.6]), bins=2, range=(0.0, 1.0))
    >>> counts, edges
    (array([2, 1]), array([0. , 0.5, 1. ]))
    """
    values = concrete(a, "histogram")
    if not is_traced(weights):
        return _np.histogram(values, bins, range, density, weights)
    values = _np.ravel(values)
    edges = _np.histogram_bin_edges(values, bins, range)
    index, inside = _bins_of(values, edges)
    w = ravel(weights)[_np.flatnonzero(inside)]
    counts = _s.put_along(w * 1.0, index[inside], axis=0, shape=(len(edges) - 1,))
    if density:
        return counts / (sum(counts) * _np.diff(edges)), edges
    return numpys_dtype(counts, _dtype_of(weights)), edges  # NumPy's: the weights' type


def _bins_of(values, edges):
    """Each value's bin among ``edges`` (the last bin closed, as NumPy's), and whether it
    falls in one."""
    index = _np.searchsorted(edges, values, side="right") - 1
    index[values == edges[-1]] = len(edges) - 2
    return index, (index >= 0) & (index < len(edges) - 1)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """``numpy.histogram_bin_edges``; with a number of bins and no ``range`` the edges span
    the data, so they are differentiable in it (the extremes move them).

    >>> import numpy as np
    >>> from funcgrad.numpy import histogram_bin_edges
    >>> histogram_bin_edges(np.array([0.0, 1.0, 4.0]), bins=4)
    array([0., 1., 2., 3., 4.])
    """
    if not is_traced(a) or range is not None or not isinstance(bins, int):
        return _np.histogram_bin_edges(
            concrete(a, "histogram_bin_edges"),
            bins,
            range,
            None if weights is None else concrete(weights, "w"),
        )
    if 0 in _shape_of(a):  # no data: NumPy's edges span (0, 1), in a's float dtype
        return in_library_of(
            _np.histogram_bin_edges(_np.zeros(0, float_dtype(_dtype_of(a))), bins), a
        )
    low, high = min(a), max(a)
    same = _ew.equal(low, high)
    low, high = _ew.where(same, low - 0.5, low), _ew.where(same, high + 0.5, high)
    # NumPy's linspace: k * step + low, the last edge high itself
    counts = _np.arange(bins).astype(float_dtype(_dtype_of(a)))
    inner = counts * ((high - low) / bins) + low
    return concatenate([inner, reshape(high, (1,))])


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """``numpy.histogramdd``: counts per cell of a grid of bins over ``sample``'s ``D``
    columns, and each axis's edges. As :func:`histogram`: no derivative in the sample; with
    ``weights`` the counts are sums, differentiable in the weights.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import histogramdd
    >>> points = np.array([[0.1, 0.1], [0.2, 0.9], [0.8, 0.7]])
    >>> histogramdd(points, bins=2, range=[(0, 1), (0, 1)])[0]
    array([[1., 1.],
           [0., 1.]])
    >>> fg.grad(lambda w: histogramdd(points, 2, [(0, 1), (0, 1)], weights=w)[0][0, 1])(np.ones(3))
    array([0., 1., 0.])
    """
    values = concrete(sample, "histogramdd")
    if not is_traced(weights):
        return _np.histogramdd(values, bins, range, density, weights)
    values = _np.asarray(values)
    values = values[:, None] if values.ndim == 1 else values
    edges = _np.histogramdd(values, bins, range)[1]
    cells = tuple(len(e) - 1 for e in edges)
    places, within = zip(*map(_bins_of, values.T, edges))
    inside = _np.logical_and.reduce(within)
    flat = _np.ravel_multi_index(tuple(p[inside] for p in places), cells)
    w = ravel(weights)[_np.flatnonzero(inside)]
    counts = reshape(_s.put_along(w * 1.0, flat, axis=0, shape=(int(_np.prod(cells)),)), cells)
    counts = numpys_dtype(counts, _np.float64)  # NumPy's counts are float64, whatever w's
    if density:  # NumPy's order: each axis's widths in turn, then the total
        total = sum(counts)
        for k, e in enumerate(edges):
            counts = counts / _np.diff(e).reshape((1,) * k + (-1,) + (1,) * (len(cells) - k - 1))
        return counts / total, edges
    return counts, edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """``numpy.histogram2d``: :func:`histogramdd` of the points ``(x, y)``; the counts and
    the two axes' edges.

    >>> import numpy as np
    >>> from funcgrad.numpy import histogram2d
    >>> histogram2d(np.array([0.1, 0.2, 0.8]), np.array([0.1, 0.9, 0.7]), bins=2)[0]
    array([[1., 1.],
           [0., 1.]])
    """
    if not is_traced(weights):
        return _np.histogram2d(
            concrete(x, "histogram2d"), concrete(y, "histogram2d"), bins, range, density, weights
        )
    points = _np.stack(
        [_np.ravel(concrete(x, "histogram2d")), _np.ravel(concrete(y, "histogram2d"))], 1
    )
    counts, edges = histogramdd(points, bins, range, density, weights)
    return counts, edges[0], edges[1]
