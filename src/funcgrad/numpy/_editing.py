"""Adding, removing, selecting and reordering elements, with NumPy's signatures.

``append``, ``insert``, ``delete``, ``resize``, ``trim_zeros``, ``compress``,
``extract``, ``unique``, ``partition``/``argpartition``, ``block``,
``row_stack`` and ``concat``. Each places elements without computing new
ones, so on traced values it is a gather: NumPy's own function run on the
positions of the elements says where each one goes, which keeps NumPy's
semantics exactly (scalar or list ``obj``, broadcasting ``values``, axis
``None``), and the derivative follows each element to its place.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> fnp.insert(np.array([1.0, 2.0, 3.0]), 1, [9.0, 8.0])
array([1., 9., 8., 2., 3.])
>>> fg.grad(lambda x: fnp.sum(fnp.delete(x, [0, 2]) * 10.0))(np.ones(4))
array([ 0., 10.,  0., 10.])
"""

from collections import namedtuple as _namedtuple

import numpy as _np

from ..core.errors import ArgumentError, ArgumentTypeError, ShapeError, UnsupportedError
from ..core.traces import Box
from ..core.values import dtype_of as _dtype_of
from ..core.values import in_library_of
from ..core.values import plain as _plain
from ..core.values import shape_of as _shape_of
from ..rules import arrays as _a
from ..rules import sorting as _s
from ..rules.elementwise import where as _where
from ._helpers import as_array, check_axis, concrete, is_traced, numpys_dtype
from ._indexing import argsort, take
from ._joining import concatenate, sort, vstack
from ._logic import isnan
from ._reductions import cumsum
from ._shape import ravel, reshape

__all__ = [
    "append",
    "insert",
    "delete",
    "resize",
    "trim_zeros",
    "compress",
    "extract",
    "unique",
    "unique_values",
    "unique_counts",
    "unique_inverse",
    "unique_all",
    "union1d",
    "intersect1d",
    "setdiff1d",
    "setxor1d",
    "partition",
    "argpartition",
    "block",
    "row_stack",
    "concat",
    "r_",
    "c_",
]

UniqueAllResult = _namedtuple("UniqueAllResult", "values indices inverse_indices counts")
UniqueCountsResult = _namedtuple("UniqueCountsResult", "values counts")
UniqueInverseResult = _namedtuple("UniqueInverseResult", "values inverse_indices")


def _gather(sources, positions):
    """Elements of the flattened ``sources`` (joined in order) at integer ``positions``."""
    flat = (
        concatenate([ravel(as_array(s)) for s in sources])
        if len(sources) > 1
        else ravel(sources[0])
    )
    return _a.getitem(flat, index=_np.asarray(positions, dtype=_np.intp))


def _labels(x, start=0):
    """The flat positions of ``x``'s elements, shaped like ``x``: NumPy moves these for us."""
    shape = _shape_of(x)
    return _np.arange(start, start + int(_np.prod(shape, dtype=_np.int64))).reshape(shape)


def append(arr, values, axis=None):
    """``numpy.append``: ``values`` joined after ``arr`` (both flattened if ``axis`` is None).

    >>> import numpy as np
    >>> from funcgrad.numpy import append
    >>> append(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]), axis=0)
    array([[1., 2.],
           [3., 4.]])
    """
    if not is_traced(arr, values):
        return _np.append(arr, values, axis)
    if axis is None:
        return concatenate([ravel(as_array(arr)), ravel(as_array(values))])
    return concatenate([as_array(arr), as_array(values)], axis=axis)


def insert(arr, obj, values, axis=None):
    """``numpy.insert``: ``values`` inserted before the index or indices ``obj``.

    >>> import numpy as np
    >>> from funcgrad.numpy import insert
    >>> insert(np.zeros((2, 2)), 1, 5.0, axis=1)
    array([[0., 5., 0.],
           [0., 5., 0.]])
    """
    if not is_traced(arr, values):
        return _np.insert(arr, obj, values, axis)
    obj = concrete(obj, "insert")
    arr = as_array(arr)
    values = in_library_of(as_array(values), arr)  # plain values: on arr's device
    here = _labels(arr)
    there = _labels(values, start=here.size)
    positions = _np.insert(here, obj, there, axis)
    out = reshape(_gather([arr, values], positions.ravel()), positions.shape)
    return numpys_dtype(out, _dtype_of(arr))  # values take arr's type


def delete(arr, obj, axis=None):
    """``numpy.delete``: ``arr`` without the entries ``obj`` (indices, a slice or a mask).

    >>> import numpy as np
    >>> from funcgrad.numpy import delete
    >>> delete(np.arange(6.0).reshape(2, 3), 1, axis=1)
    array([[0., 2.],
           [3., 5.]])
    """
    if not is_traced(arr):
        return _np.delete(arr, obj, axis)
    arr = as_array(arr)
    positions = _np.delete(_labels(arr), concrete(obj, "delete"), axis)
    return reshape(_gather([arr], positions.ravel()), positions.shape)


def resize(a, new_shape):
    """``numpy.resize``: ``a`` repeated (or cut) to fill ``new_shape``.

    >>> import numpy as np
    >>> from funcgrad.numpy import resize
    >>> resize(np.array([1.0, 2.0, 3.0]), (2, 2))
    array([[1., 2.],
           [3., 1.]])
    """
    if not is_traced(a):
        return _np.resize(a, new_shape)
    a = as_array(a)
    positions = _np.resize(_labels(a), new_shape)
    return reshape(_gather([a], positions.ravel()), positions.shape)


def trim_zeros(filt, trim="fb", axis=None):
    """``numpy.trim_zeros``: leading and/or trailing zeros cut from a 1-D array. The cut
    depends on the values, so it is read from them (eagerly, not under jit).

    >>> import numpy as np
    >>> from funcgrad.numpy import trim_zeros
    >>> trim_zeros(np.array([0.0, 1.0, 0.0, 2.0, 0.0]))
    array([1., 0., 2.])
    """
    if not is_traced(filt):
        return _np.trim_zeros(filt, trim)
    nonzero = _np.flatnonzero(concrete(filt, "trim_zeros"))
    n = _shape_of(filt)[0]
    if not nonzero.size:
        return _a.getitem(filt, index=slice(0, 0))
    start = int(nonzero[0]) if "f" in trim.lower() else 0
    stop = int(nonzero[-1]) + 1 if "b" in trim.lower() else n
    return _a.getitem(filt, index=slice(start, stop))


def compress(condition, a, axis=None, out=None):
    """``numpy.compress``: the slices of ``a`` along ``axis`` where ``condition`` is true.

    >>> import numpy as np
    >>> from funcgrad.numpy import compress
    >>> compress([False, True, True], np.arange(6.0).reshape(2, 3), axis=1)
    array([[1., 2.],
           [4., 5.]])
    """
    if not is_traced(a):
        return _np.compress(condition, a, axis, out)
    a = as_array(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = check_axis(axis, len(_shape_of(a)), "compress")
    index = _np.flatnonzero(concrete(condition, "compress"))
    return _a.getitem(a, index=(slice(None),) * axis + (index,))


def extract(condition, arr):
    """``numpy.extract``: the elements of ``arr`` where ``condition`` is true, flattened.

    >>> import numpy as np
    >>> from funcgrad.numpy import extract
    >>> extract(np.array([[True, False], [False, True]]), np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([1., 4.])
    """
    if not is_traced(arr):
        return _np.extract(condition, arr)
    return _gather([arr], _np.flatnonzero(concrete(condition, "extract")))


def unique(
    ar,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    *,
    equal_nan=True,
    sorted=True,
    size=None,
    fill_value=None,
):
    """``numpy.unique``: the sorted distinct values (each one's first occurrence carries the
    derivative); the indices and counts are integers. Read from the values, eagerly.

    With ``size`` (JAX's), the first ``size`` distinct values, padded with
    ``fill_value`` (the smallest value by default; index 0 and count 0 in the
    other results): a result of a shape known in advance, so it works under
    ``jit`` and ``vmap`` too.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import unique
    >>> unique(np.array([3.0, 1.0, 3.0, 2.0]), return_counts=True)
    (array([1., 2., 3.]), array([1, 1, 2]))
    >>> fg.jit(lambda x: unique(x, size=4, fill_value=0.0))(np.array([3.0, 1.0, 3.0]))
    array([1., 3., 0., 0.])
    """
    if size is not None:
        if axis is not None:
            raise ArgumentError(
                "unique: size= lists the distinct values of the flattened array; leave axis=None"
            )
        return _unique_sized(
            ar, size, fill_value, return_index, return_inverse, return_counts, equal_nan
        )
    if fill_value is not None:
        raise ArgumentError("unique: fill_value pads a result of a given size; give size= too")
    if not is_traced(ar):
        return _np.unique(
            concrete(ar, "unique"),
            return_index,
            return_inverse,
            return_counts,
            axis,
            equal_nan=equal_nan,
        )
    if axis is not None:
        raise ArgumentError(
            "unique: axis= is not supported on traced values; use axis=None "
            "(the flattened array), or call it on plain arrays"
        )
    _values, first, inverse, counts = _np.unique(
        concrete(ar, "unique"), True, True, True, equal_nan=equal_nan
    )
    out = (_gather([ar], first),)
    out += (first,) * return_index + (inverse,) * return_inverse
    out += (counts,) * return_counts
    return out if len(out) > 1 else out[0]


def unique_values(x, /, *, size=None, fill_value=None):
    """``numpy.unique_values`` (the Array API's): the sorted distinct values (``size`` and
    ``fill_value``, JAX's: as :func:`unique`'s).

    >>> import numpy as np
    >>> from funcgrad.numpy import unique_values
    >>> unique_values(np.array([3.0, 1.0, 3.0]))
    array([1., 3.])
    """
    return unique(x, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size=None, fill_value=None):
    """``numpy.unique_counts``: ``(values, counts)`` (``size``, ``fill_value``: :func:`unique`'s).

    >>> import numpy as np
    >>> from funcgrad.numpy import unique_counts
    >>> unique_counts(np.array([3.0, 1.0, 3.0])).counts
    array([1, 2])
    """
    return UniqueCountsResult(*unique(x, return_counts=True, size=size, fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    """``numpy.unique_inverse``: ``(values, inverse_indices)``, the indices in ``x``'s shape
    (``size``, ``fill_value``: :func:`unique`'s).

    >>> import numpy as np
    >>> from funcgrad.numpy import unique_inverse
    >>> unique_inverse(np.array([[3.0, 1.0], [3.0, 3.0]])).inverse_indices
    array([[1, 0],
           [1, 1]])
    """
    values, inverse = unique(x, return_inverse=True, size=size, fill_value=fill_value)
    return UniqueInverseResult(values, _reshaped(inverse, _shape_of(x)))


def unique_all(x, /, *, size=None, fill_value=None):
    """``numpy.unique_all``: ``(values, indices, inverse_indices, counts)`` (``size``,
    ``fill_value``: :func:`unique`'s).

    >>> import numpy as np
    >>> from funcgrad.numpy import unique_all
    >>> unique_all(np.array([3.0, 1.0, 3.0])).indices
    array([1, 0])
    """
    values, index, inverse, counts = unique(x, True, True, True, size=size, fill_value=fill_value)
    return UniqueAllResult(values, index, _reshaped(inverse, _shape_of(x)), counts)


def _reshaped(indices, shape):
    """Integer ``indices`` (traced where ``unique`` ran with ``size`` under jit) in ``shape``."""
    return _np.reshape(indices, shape) if not is_traced(indices) else reshape(indices, shape)


def _members(a, keep, who):
    """The sorted distinct values of ``a`` that ``keep`` (a test on ``a``'s plain values)
    accepts, each carrying the derivative of its first occurrence in ``a``."""
    flat = ravel(a)
    plain_values = concrete(flat, who)
    values, first = _np.unique(plain_values, return_index=True)
    picked = first[keep(values)]
    return _gather([flat], picked) if is_traced(flat) else plain_values[picked]


def union1d(ar1, ar2):
    """``numpy.union1d``: the sorted distinct values of both (read from the values, eagerly
    and under ``grad``).

    >>> import numpy as np
    >>> from funcgrad.numpy import union1d
    >>> union1d(np.array([3.0, 1.0]), np.array([2.0, 1.0]))
    array([1., 2., 3.])
    """
    return unique(concatenate([ar1, ar2], axis=None))  # a Python number weak, as NumPy's


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """``numpy.intersect1d``: the sorted values in both, each carrying the derivative of
    its first occurrence in ``ar1``.

    >>> import numpy as np
    >>> from funcgrad.numpy import intersect1d
    >>> intersect1d(np.array([3.0, 1.0, 2.0]), np.array([2.0, 3.0, 5.0]))
    array([2., 3.])
    """
    if return_indices:
        values, i1, i2 = _np.intersect1d(
            concrete(ar1, "intersect1d"),
            concrete(ar2, "intersect1d"),
            assume_unique=assume_unique,
            return_indices=True,
        )
        return _gather([ar1], i1) if is_traced(ar1) else values, i1, i2
    other = concrete(ar2, "intersect1d")
    common = _members(ar1, lambda v: _np.isin(v, other), "intersect1d")
    # NumPy's type is both operands' (its values come from joining them; numbers strong)
    return numpys_dtype(common, _np.result_type(_dtype_of(ar1), _np.asarray(other).dtype))


def setdiff1d(ar1, ar2, assume_unique=False):
    """``numpy.setdiff1d``: the sorted distinct values of ``ar1`` not in ``ar2``.

    >>> import numpy as np
    >>> from funcgrad.numpy import setdiff1d
    >>> setdiff1d(np.array([3.0, 1.0, 2.0]), np.array([2.0]))
    array([1., 3.])
    """
    other = concrete(ar2, "setdiff1d")
    return _members(ar1, lambda v: ~_np.isin(v, other), "setdiff1d")


def setxor1d(ar1, ar2, assume_unique=False):
    """``numpy.setxor1d``: the sorted values in exactly one of the two.

    >>> import numpy as np
    >>> from funcgrad.numpy import setxor1d
    >>> setxor1d(np.array([3.0, 1.0]), np.array([2.0, 1.0]))
    array([2., 3.])
    """
    return unique(concatenate([setdiff1d(ar1, ar2), setdiff1d(ar2, ar1)]))


def _unique_sized(ar, size, fill_value, return_index, return_inverse, return_counts, equal_nan):
    """:func:`unique` with ``size``: sort, mark the first of each run of equal values, and
    move the marked places to the front by a stable sort of the marks."""
    if isinstance(size, bool) or not isinstance(size, (int, _np.integer)) or size < 1:
        raise ArgumentTypeError(f"unique: size must be a positive int; got {size!r:.40}")
    flat = ravel(ar)
    n = _shape_of(flat)[0]
    if n == 0:
        raise ShapeError("unique: size= needs a non-empty array (its smallest value pads)")
    order = argsort(_plain(flat), kind="stable")
    ordered = take(flat, order)
    p = _plain(ordered)
    same = p[1:] == p[:-1]
    if equal_nan:
        same = same | (isnan(p[1:]) & isnan(p[:-1]))
    first = concatenate([_np.ones(1, dtype=bool), ~same])
    # the first place of each run, in order, then the others
    starts = argsort(_where(first, 0, 1), kind="stable")
    if size > n:
        starts = concatenate([starts, _np.zeros(size - n, dtype=starts.dtype)])
    count = _where(first, 1, 0).sum()
    slot = _np.arange(size)
    valid = slot < count
    # each run ends where the next begins (the last at n), read before the list is cut
    ends = _where(
        slot + 1 < count, concatenate([starts[1:], _np.full(1, n, starts.dtype)])[:size], n
    )
    starts = starts[:size]
    fill = ordered[0] if fill_value is None else fill_value
    out = (_where(valid, take(ordered, starts), fill),)
    if return_index:
        out += (_where(valid, take(order, starts), 0),)
    if return_inverse:
        run = cumsum(_where(first, 1, 0)) - 1  # each sorted place's distinct value
        out += (reshape(take(run, argsort(order, kind="stable")), _shape_of(ar)),)
    if return_counts:
        out += (_where(valid, ends - starts, 0),)
    return out if len(out) > 1 else out[0]


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """``numpy.partition``: every element at position ``kth`` is where sorting would put it,
    smaller ones before, larger after. funcgrad returns the sorted array, one such
    arrangement (NumPy leaves the order within each side unspecified).

    >>> import numpy as np
    >>> from funcgrad.numpy import partition
    >>> float(partition(np.array([3.0, 1.0, 4.0, 1.5]), 2)[2])
    3.0
    """
    if not is_traced(a):
        return _np.partition(a, kth, axis, kind, order)
    return sort(a, axis=axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """``numpy.argpartition``: indices that partition ``a`` (here: that sort it); no derivative.

    >>> import numpy as np
    >>> from funcgrad.numpy import argpartition
    >>> int(argpartition(np.array([3.0, 1.0, 4.0]), 0)[0])
    1
    """
    if not is_traced(a):
        return _np.argpartition(a, kth, axis, kind, order)
    if axis is None:
        a, axis = ravel(a), 0
    return _s.argsort(_plain(a), axis=axis, kind="stable")


def block(arrays):
    """``numpy.block``: an array assembled from nested lists of blocks, the innermost
    list joined along the last axis.

    >>> import numpy as np
    >>> from funcgrad.numpy import block
    >>> block([[np.eye(2), np.zeros((2, 1))], [np.ones((1, 2)), np.full((1, 1), 5.0)]])
    array([[1., 0., 0.],
           [0., 1., 0.],
           [1., 1., 5.]])
    """
    if not is_traced(*_leaves(arrays)):
        return _np.block(arrays)
    depth = _depth(arrays)
    ndim = max(depth, *(len(_shape_of(x)) for x in _leaves(arrays)))

    def join(item, level):
        if not isinstance(item, list):
            x = as_array(item)
            return reshape(x, (1,) * (ndim - len(_shape_of(x))) + _shape_of(x))
        return concatenate([join(i, level + 1) for i in item], axis=ndim - depth + level)

    return join(arrays, 0)


def _leaves(arrays):
    return [y for x in arrays for y in _leaves(x)] if isinstance(arrays, list) else [arrays]


def _depth(arrays):
    return 1 + _depth(arrays[0]) if isinstance(arrays, list) else 0


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """``numpy.row_stack``: the old name of vstack.

    >>> import numpy as np
    >>> from funcgrad.numpy import row_stack
    >>> row_stack([np.ones(2), np.zeros(2)])
    array([[1., 1.],
           [0., 0.]])
    """
    return vstack(tup, dtype=dtype, casting=casting)


def concat(arrays, /, *, axis=0):
    """``numpy.concat``: the Array API's name for concatenate.

    >>> import numpy as np
    >>> from funcgrad.numpy import concat
    >>> concat([np.ones(1), np.zeros(2)])
    array([1., 0., 0.])
    """
    return concatenate(arrays, axis=axis)


class _Joiner:
    """``np.r_`` and ``np.c_``: ``r_[a, b, 1:4]`` joins along the first axis, ``c_[...]``
    along the last with 1-D pieces as columns; traced pieces stay traced."""

    def __init__(self, columns):
        self.columns = columns

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        plain_items = not any(isinstance(i, Box) for i in items)
        if plain_items:
            return (_np.c_ if self.columns else _np.r_)[key]
        if any(isinstance(i, str) for i in items):
            raise UnsupportedError(
                "r_/c_: string directives are not supported on traced values; "
                "use concatenate or stack"
            )
        pieces = [as_array(_np.r_[i] if isinstance(i, slice) else i) for i in items]
        if not self.columns:
            return concatenate([reshape(p, (1,)) if not _shape_of(p) else p for p in pieces])
        pieces = [reshape(p, (-1, 1)) if len(_shape_of(p)) < 2 else p for p in pieces]
        return concatenate(pieces, axis=-1)


r_ = _Joiner(columns=False)
r_.__doc__ = """``numpy.r_``: pieces (arrays, scalars, slices as ranges) joined along the first axis.

>>> import numpy as np
>>> import funcgrad as fg
>>> from funcgrad.numpy import r_
>>> fg.grad(lambda x: (r_[x, 0.5, x] * np.arange(5.0)).sum())(np.ones(2))
array([3., 5.])
"""
c_ = _Joiner(columns=True)
c_.__doc__ = """``numpy.c_``: pieces joined along the last axis, 1-D ones as columns.

>>> import numpy as np
>>> from funcgrad.numpy import c_
>>> c_[np.ones(2), np.zeros(2)]
array([[1., 0.],
       [1., 0.]])
"""
