"""NumPy's constants, dtypes and array constructors, passed through unchanged, and the
shape queries ``shape``, ``ndim``, ``size``, which also read traced values.

Everything differentiable lives in the domain modules (_math, _reductions,
_products, _shape, _joining, _indexing); these names carry no derivative
and need none.
"""

import math

import numpy as _np
from numpy import (  # noqa: F401
           array,
           asarray,
           e,
           float32,
           float64,
           inf,
           int32,
           int64,
           nan,
           newaxis,
           pi,
)

from ..traces import Box
from ..values import ndim_of, shape_of

__all__ = ["array", "asarray", "e", "float32", "float64", "inf", "int32", "int64", "nan",
           "newaxis", "pi", "shape", "ndim", "size"]


def shape(a):
    """``numpy.shape``, of plain and traced values alike.

    >>> import funcgrad as fg
    >>> shape(fg.var([[1.0, 2.0]])), ndim(fg.var(1.0)), size(fg.var([[1.0, 2.0]]))
    ((1, 2), 0, 2)
    """
    return shape_of(a) if isinstance(a, Box) else _np.shape(a)


def ndim(a):
    """``numpy.ndim``, of plain and traced values alike."""
    return ndim_of(a) if isinstance(a, Box) else _np.ndim(a)


def size(a, axis=None):
    """``numpy.size``, of plain and traced values alike."""
    s = shape(a)
    return s[axis] if axis is not None else math.prod(s)
