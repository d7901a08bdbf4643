"""Full discrete convolution of two arrays with the same number of axes.

``convolve(a, v)[k] = sum_j a[j] v[k - j]`` over every axis, the output ``n + m - 1``
long on each. It is bilinear, and each partial map's transpose is a convolution
again: with ``v`` flipped on every axis, the full convolution of the cotangent
``g`` cut to ``[m - 1, m - 1 + n)`` on each axis is ``a``'s cotangent (and the same
with the roles swapped). So the rules use this primitive itself and differentiate
to any order. funcgrad.numpy.convolve/correlate and funcgrad.scipy.signal cut
the full result to the mode asked for.

One-dimensional values are ``numpy.convolve``'s; more axes sum one shifted
product per element of the smaller operand.

>>> import numpy as np
>>> convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
array([0. , 1. , 2.5, 4. , 1.5])
"""

import numpy as np

from ..primitive import Primitive
from ..values import shape_of
from .arrays import getitem

__all__ = ["convolve"]


def _impl(a, v):
    a, v = np.asarray(a), np.asarray(v)
    if a.ndim != v.ndim:
        raise ValueError(f"convolve: the operands need the same number of axes; got shapes "
                         f"{a.shape} and {v.shape}")
    if a.ndim == 1:
        return np.convolve(a, v)
    if a.size < v.size:
        a, v = v, a
    out = np.zeros(tuple(n + m - 1 for n, m in zip(a.shape, v.shape)), dtype=np.result_type(a, v))
    for index in np.ndindex(*v.shape):
        window = tuple(slice(i, i + n) for i, n in zip(index, a.shape))
        out[window] += v[index] * a
    return out


def _transpose(g, other, like):
    """The cotangent of one operand: g convolved with the other flipped, cut to its shape."""
    flipped = getitem(other, index=(slice(None, None, -1),) * len(shape_of(other)))
    full = convolve(g, flipped)
    return getitem(full, index=tuple(slice(m - 1, m - 1 + n)
                                     for n, m in zip(shape_of(like), shape_of(other))))


convolve = Primitive(
    "convolve", _impl,
    vjp=(lambda g, ans, a, v: _transpose(g, v, a), lambda g, ans, a, v: _transpose(g, a, v)),
    jvp=(lambda t, ans, a, v: convolve(t, v), lambda t, ans, a, v: convolve(a, t)),
)
