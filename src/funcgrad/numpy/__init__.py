"""A differentiable NumPy: import ``funcgrad.numpy as fnp`` and keep your code.

Functions take NumPy's names and signatures. On plain arrays they return
exactly what NumPy returns; on traced values they record the call so it can be
differentiated. Constructors (``zeros``, ``arange``, ...) and ``random`` pass
through untouched. A NumPy function funcgrad has no derivative rule for raises
an error naming it, rather than giving a silently wrong gradient.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> x = fg.var(np.array([0.0, 1.0]))
>>> y = fnp.sum(fnp.exp(x) * 2.0)
>>> fg.backprop(y)[x]
array([2.        , 5.43656366])
"""

import numpy as _np

from ..rules import arrays as _arrays
from ..rules import linalg as _linalg
from ..rules.elementwise import (abs, add, cos, divide, exp, log, maximum, minimum, multiply,
                                 negative, power, sin, sqrt, subtract, tanh, where)

# Constructors and constants: no derivative involved, NumPy's own objects.
from numpy import (arange, array, asarray, e, empty, eye, float32, float64, full, full_like,
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
