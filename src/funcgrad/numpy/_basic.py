"""The first functions of funcgrad.numpy: the note's operations and the basics."""

import numpy as _np

from ..rules import arrays as _arrays
from ..rules import linalg as _linalg
from ..rules.elementwise import (abs, add, cos, divide, exp, log, maximum, minimum, multiply,
                                 negative, power, sin, sqrt, subtract, tanh, where)

# Constructors and constants: no derivative involved, NumPy's own objects.
from numpy import (arange, array, asarray, e, empty, eye, float32, float64, full, full_like,  # noqa: F401
                   inf, int32, int64, linspace, nan, newaxis, ones, ones_like, pi, random,
                   zeros, zeros_like)

true_divide = divide
absolute = abs
matmul = _linalg.matmul


def dot(a, b):
    """``numpy.dot`` for scalars, vectors and matrices."""
    if _np.ndim(_arrays.raw(a)) == 0 or _np.ndim(_arrays.raw(b)) == 0:
        return multiply(a, b)
    if _np.ndim(_arrays.raw(a)) > 2 or _np.ndim(_arrays.raw(b)) > 2:
        raise NotImplementedError("funcgrad.numpy.dot supports up to 2-D operands; use matmul or einsum")
    return matmul(a, b)


def sum(a, axis=None, keepdims=False):  # noqa: A001
    return _arrays.sum(a, axis=axis, keepdims=keepdims)


def mean(a, axis=None, keepdims=False):
    shape = _np.shape(_arrays.raw(a))
    axes = range(len(shape)) if axis is None else _np.atleast_1d(axis)
    n = 1
    for ax in axes:
        n *= shape[ax]
    return _arrays.sum(a, axis=axis, keepdims=keepdims) / float(n)


def reshape(a, newshape):
    return _arrays.reshape(a, shape=tuple(_np.atleast_1d(newshape)) if not isinstance(newshape, tuple) else newshape)


def transpose(a, axes=None):
    return _arrays.transpose(a, axes=None if axes is None else tuple(axes))


def swapaxes(a, axis1, axis2):
    return _arrays.swapaxes(a, axis1=axis1, axis2=axis2)


def expand_dims(a, axis):
    return _arrays.expand_dims(a, axis=axis)


def squeeze(a, axis=None):
    return _arrays.squeeze(a, axis=axis)


def broadcast_to(a, shape):
    return _arrays.broadcast_to(a, shape=tuple(shape))


def concatenate(arrays, axis=0):
    return _arrays.concatenate(*arrays, axis=axis)


def take(a, indices, axis=None):
    if axis is None:
        return _arrays.getitem(ravel(a), index=_np.asarray(indices))
    return _arrays.getitem(a, index=(slice(None),) * (axis % _np.ndim(_arrays.raw(a))) + (_np.asarray(indices),))


def ravel(a):
    return _arrays.reshape(a, shape=(-1,))


__all__ = [
    "abs",
    "absolute",
    "add",
    "arange",
    "array",
    "asarray",
    "broadcast_to",
    "concatenate",
    "cos",
    "divide",
    "dot",
    "e",
    "empty",
    "exp",
    "expand_dims",
    "eye",
    "float32",
    "float64",
    "full",
    "full_like",
    "inf",
    "int32",
    "int64",
    "linspace",
    "log",
    "matmul",
    "maximum",
    "mean",
    "minimum",
    "multiply",
    "nan",
    "negative",
    "newaxis",
    "ones",
    "ones_like",
    "pi",
    "power",
    "random",
    "ravel",
    "reshape",
    "sin",
    "sqrt",
    "squeeze",
    "subtract",
    "sum",
    "swapaxes",
    "take",
    "tanh",
    "transpose",
    "true_divide",
    "where",
    "zeros",
    "zeros_like",
]
