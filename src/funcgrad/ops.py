"""Segment reductions, JAX's ``jax.ops``: rows of ``data`` reduced by the segment each
belongs to.

``segment_sum(data, segment_ids, num_segments)`` is the array of ``num_segments``
rows whose row ``k`` is the sum of the rows ``data[i]`` with ``segment_ids[i] == k``
(a graph network's messages summed per receiving node); ``segment_prod``,
``segment_max`` and ``segment_min`` likewise. A segment no row reaches holds the
reduction's identity: 0, 1, the dtype's least value (``-inf`` for floats), its
greatest. As in JAX, ids outside ``[0, num_segments)``, negative ones included, are
dropped (``mode="clip"`` clamps them into range instead), ids need not be sorted, and
``indices_are_sorted``, ``unique_indices`` and ``bucket_size`` are hints that change
no value. Each is one scatter (:mod:`funcgrad.rules.scatter_combine`), differentiable
in ``data`` under every transform; under ``jit`` or ``vmap``, whose traced ids have no
largest value to read, ``num_segments`` must be given.

>>> import numpy as np
>>> import funcgrad as fg
>>> data, ids = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 0, 2, 7])
>>> fg.ops.segment_sum(data, ids, num_segments=3)      # id 7 is dropped
array([3., 0., 3.])
>>> fg.ops.segment_max(data, ids, num_segments=3)
array([  2., -inf,   3.])
>>> fg.grad(lambda d: fg.ops.segment_max(d, ids, 3)[0])(data)
array([0., 1., 0., 0.])
"""

import math
import operator

import numpy as np

from .at import at
from .core.errors import ArgumentError
from .core.namespaces import is_foreign
from .core.traces import Box
from .core.values import dtype_of, in_library_of, shape_of
from .rules import ufuncs
from .rules.elementwise import less, where

__all__ = ["segment_sum", "segment_prod", "segment_max", "segment_min"]

_MODES = (None, "drop", "fill", "promise_in_bounds", "clip")


def _reduction(name, how, doc):
    """The public function ``name``, JAX's signature, reducing by ``how`` (``fg.at``'s
    update of that name)."""

    def reduce(
        data,
        segment_ids,
        num_segments=None,
        indices_are_sorted=False,
        unique_indices=False,
        bucket_size=None,
        mode=None,
    ):
        return _segment(name, how, data, segment_ids, num_segments, mode)

    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = doc
    return reduce


segment_sum = _reduction(
    "segment_sum",
    "add",
    """The sum of the rows of ``data`` in each segment (0 where none is); see the module
    docstring.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> fg.ops.segment_sum(np.ones((4, 2)), np.array([1, 0, 1, 1]))
    array([[1., 1.],
           [3., 3.]])
    """,
)
segment_prod = _reduction(
    "segment_prod",
    "multiply",
    """The product of the rows of ``data`` in each segment (1 where none is).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> fg.ops.segment_prod(np.array([2.0, 3.0, 4.0]), np.array([1, 1, 0]), num_segments=3)
    array([4., 6., 1.])
    """,
)
segment_max = _reduction(
    "segment_max",
    "max",
    """The largest row of ``data`` in each segment, element by element (the dtype's least
    value where none is); a tie shares the derivative evenly, as JAX's does.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> ids = np.array([0, 0, 1])
    >>> fg.ops.segment_max(np.array([2.0, 2.0, 5.0]), ids)
    array([2., 5.])
    >>> fg.grad(lambda d: fg.ops.segment_max(d, ids).sum())(np.array([2.0, 2.0, 5.0]))
    array([0.5, 0.5, 1. ])
    """,
)
segment_min = _reduction(
    "segment_min",
    "min",
    """The smallest row of ``data`` in each segment (the dtype's greatest value where none
    is).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> fg.ops.segment_min(np.array([5, 3, 9]), np.array([0, 0, 1]))
    array([3, 9])
    """,
)


def _segment(who, how, data, segment_ids, num_segments, mode):
    if mode not in _MODES:
        raise ArgumentError(
            f"{who}: mode must be one of {_MODES[1:]} or None (ids out of range dropped); "
            f"got {mode!r}"
        )
    if not isinstance(data, Box) and not is_foreign(data):
        data = np.asarray(data)
    if isinstance(segment_ids, list) or not (
        isinstance(segment_ids, Box) or is_foreign(segment_ids)
    ):
        segment_ids = np.asarray(segment_ids)
    ids_dtype = dtype_of(segment_ids)
    if getattr(ids_dtype, "kind", "i") not in "iu":
        raise ArgumentError(
            f"{who}: segment_ids must hold integers; got {ids_dtype}; give an integer array "
            f"(ids.astype(int))"
        )
    ids_shape, data_shape = shape_of(segment_ids), shape_of(data)
    if data_shape[: len(ids_shape)] != ids_shape:
        raise ArgumentError(
            f"{who}: data of shape {data_shape} must begin with the shape of segment_ids, "
            f"{ids_shape}: one id per row"
        )
    n = _number_of_segments(who, segment_ids, num_segments)
    dtype = np.dtype(dtype_of(data))
    start = np.full((n,) + data_shape[len(ids_shape) :], _identity(how, dtype), dtype)
    out = in_library_of(start, data)
    if mode == "clip":
        ids = ufuncs.clip(segment_ids, 0, n - 1)
    else:  # out of range, either end: sent past the end, where the write is dropped
        ids = where(
            ufuncs.logical_or(less(segment_ids, 0), less(n - 1, segment_ids)), n, segment_ids
        )
    return getattr(at(out)[ids], how)(data, mode=None if mode == "clip" else "drop")


def _number_of_segments(who, ids, num_segments):
    """``num_segments`` as a number, or one more than the largest id where it is None."""
    if num_segments is None:
        if isinstance(ids, Box):
            raise ArgumentError(
                f"{who}: segment_ids traced under jit or vmap have no largest value to read; "
                f"give num_segments="
            )
        return int(ids.max()) + 1 if math.prod(shape_of(ids)) else 0
    if isinstance(num_segments, Box):
        raise ArgumentError(
            f"{who}: num_segments must be a number, not a value traced by a transform; "
            f"give it as a static argument (fg.jit(f, static_argnums=...))"
        )
    try:
        n = operator.index(num_segments)
    except TypeError:
        raise ArgumentError(
            f"{who}: num_segments must be an integer; got {num_segments!r}; give int(num_segments)"
        ) from None
    if n < 0:
        raise ArgumentError(f"{who}: num_segments must not be negative; got {n}")
    return n


def _identity(how, dtype):
    """The value a segment no row reaches holds: the reduction's identity in ``dtype``."""
    if how == "add":
        return 0
    if how == "multiply":
        return 1
    least = how == "max"
    if dtype.kind == "b":
        return not least
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if least else info.max
    return -np.inf if least else np.inf


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
