"""Polynomials as coefficient arrays, highest power first, with NumPy's signatures.

``polyval`` (Horner's rule, in NumPy's order), ``polyadd``, ``polysub``,
``polymul``, ``polyder``, ``polyint``, ``vander``, ``polyfit`` (least squares
through funcgrad.numpy.linalg.lstsq, so the fit differentiates in ``x``, ``y``
and ``w``) and ``roots`` (eigenvalues of the companion matrix, differentiable
where the roots are distinct).

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> fnp.polyval(np.array([1.0, 0.0, -2.0]), 3.0)       # x^2 - 2 at 3
np.float64(7.0)
>>> fg.grad(lambda p: fnp.polyval(p, 3.0))(np.array([1.0, 0.0, -2.0]))
array([9., 3., 1.])
"""

import math

import numpy as _np

from ..core.errors import ArgumentError, UnsupportedError
from ..core.values import dtype_of as _dtype_of
from ..core.values import in_library_of
from ..core.values import shape_of as _shape_of
from ..rules import arrays as _a
from ..rules import elementwise as _ew
from ..rules import ufuncs as _u
from . import _decompositions
from ._calculus import convolve
from ._helpers import (
    as_array,
    concrete,
    in_float_dtype_of,
    in_result_dtype_of,
    is_traced,
    strong_number,
)
from ._joining import concatenate, stack
from ._reductions import cumprod, sum
from ._shape import reshape

__all__ = [
    "polyval",
    "polyadd",
    "polysub",
    "polymul",
    "polyder",
    "polyint",
    "vander",
    "polyfit",
    "roots",
    "poly",
    "polydiv",
]


def polyval(p, x):
    """``numpy.polyval``: ``p[0] x^(n-1) + ... + p[n-1]``, by Horner's rule.

    >>> import numpy as np
    >>> from funcgrad.numpy import polyval
    >>> polyval([1.0, 2.0], np.array([0.0, 1.0]))
    array([2., 3.])
    """
    if not is_traced(p, x):
        return _np.polyval(p, x)
    p, x = strong_number(p, x), strong_number(x, p)  # NumPy's asarray: a traced number too
    p, x = as_array(p), as_array(x)
    y = in_library_of(_np.zeros(_shape_of(x)), x)  # on x's device
    for k in range(_shape_of(p)[0]):  # primitives: a plain device y refuses a traced x in *
        y = _ew.add(_ew.multiply(y, x), p[k])
    return in_result_dtype_of(y, p, x)


def _padded(a, n):
    a = reshape(as_array(a), (-1,))  # a number is a constant polynomial
    extra = n - _shape_of(a)[0]
    return concatenate([in_library_of(_np.zeros(extra), a), a]) if extra > 0 else a


def polyadd(a1, a2):
    """``numpy.polyadd``: the sum, shorter coefficients padded at the high end.

    >>> import numpy as np
    >>> from funcgrad.numpy import polyadd
    >>> polyadd(np.array([1.0, 2.0]), np.array([1.0, 0.0, 3.0]))
    array([1., 1., 5.])
    """
    if not is_traced(a1, a2):
        return _np.polyadd(a1, a2)
    a1, a2 = strong_number(a1, a2), strong_number(a2, a1)
    n = max(math.prod(_shape_of(a1)), math.prod(_shape_of(a2)))  # (a tensor's .size is a method)
    return in_result_dtype_of(_padded(a1, n) + _padded(a2, n), a1, a2)


def polysub(a1, a2):
    """``numpy.polysub``: the difference.

    >>> import numpy as np
    >>> from funcgrad.numpy import polysub
    >>> polysub(np.array([1.0, 2.0]), np.array([1.0, 0.0, 3.0]))
    array([-1.,  1., -1.])
    """
    if not is_traced(a1, a2):
        return _np.polysub(a1, a2)
    a1, a2 = strong_number(a1, a2), strong_number(a2, a1)
    n = max(math.prod(_shape_of(a1)), math.prod(_shape_of(a2)))  # (a tensor's .size is a method)
    return in_result_dtype_of(_padded(a1, n) - _padded(a2, n), a1, a2)


def polymul(a1, a2):
    """``numpy.polymul``: the product (a convolution of the coefficients).

    >>> import numpy as np
    >>> from funcgrad.numpy import polymul
    >>> polymul(np.array([1.0, 1.0]), np.array([1.0, -1.0]))
    array([ 1.,  0., -1.])
    """
    if not is_traced(a1, a2):
        return _np.polymul(a1, a2)
    return convolve(as_array(a1), as_array(a2))


def polyder(p, m=1):
    """``numpy.polyder``: the ``m``-th derivative.

    >>> import numpy as np
    >>> from funcgrad.numpy import polyder
    >>> polyder(np.array([1.0, 1.0, 1.0, 1.0]), 2)
    array([6., 2.])
    """
    if not is_traced(p):
        return _np.polyder(p, m)
    p = q = reshape(as_array(p), (-1,))
    for _ in range(int(m)):  # NumPy's int(m); past the degree, no coefficients are left
        n = _shape_of(q)[0] - 1
        ramp = in_library_of(_np.arange(n, 0, -1.0), q)
        q = _a.getitem(q, index=slice(0, max(n, 0))) * ramp
    return in_result_dtype_of(q, p, _np.arange(1))  # NumPy multiplies by an integer ramp


def polyint(p, m=1, k=None):
    """``numpy.polyint``: the ``m``-th antiderivative, integration constants ``k`` (default 0).

    >>> import numpy as np
    >>> from funcgrad.numpy import polyint
    >>> polyint(np.array([3.0, 2.0]), k=5.0)
    array([1.5, 2. , 5. ])
    """
    if not is_traced(p, k):
        return _np.polyint(p, m, k)
    m = int(m)  # NumPy's
    constants = [0.0] * m if k is None else ([k] * m if _np.ndim(k) == 0 else list(k))
    p = as_array(p)
    for c in constants[:m]:
        n = _shape_of(p)[0]
        c = reshape(as_array(c) * 1.0, (1,))
        p = concatenate([p / in_library_of(_np.arange(n, 0, -1.0), p), in_library_of(c, p)])
    return p


def vander(x, N=None, increasing=False):
    """``numpy.vander``: columns ``x^(N-1), ..., x, 1`` (reversed if ``increasing``).

    >>> import numpy as np
    >>> from funcgrad.numpy import vander
    >>> vander(np.array([2.0, 3.0]), 3)
    array([[4., 2., 1.],
           [9., 3., 1.]])
    """
    if not is_traced(x):
        return _np.vander(x, N, increasing)
    x = as_array(x)
    n = _shape_of(x)[0]
    N = n if N is None else N
    if N == 0:
        return in_library_of(_np.zeros((n, 0)), x)
    columns = reshape(x, (n, 1)) * in_library_of(_np.ones((1, N - 1)), x)
    powers = concatenate([in_library_of(_np.ones((n, 1)), x), cumprod(columns, axis=1)], axis=1)
    powers = in_result_dtype_of(powers, x, _np.arange(1))  # NumPy's: x's type with int's
    return powers if increasing else _a.getitem(powers, index=(slice(None), slice(None, None, -1)))


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """``numpy.polyfit``: least-squares coefficients, highest power first (``full`` and
    ``cov`` are not supported on traced values).

    >>> import numpy as np
    >>> from funcgrad.numpy import polyfit
    >>> polyfit(np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 5.0]), 1).round(12)
    array([2., 1.])
    """
    if not is_traced(x, y, w):
        return _np.polyfit(x, y, deg, rcond, full, w, cov)
    if full or cov:
        raise UnsupportedError("polyfit: full= and cov= are not supported on traced values")
    x, y = as_array(x) * 1.0, as_array(y) * 1.0
    lhs = vander(x, deg + 1)
    rhs = y
    if w is not None:
        lhs = lhs * reshape(as_array(w), (-1, 1))
        rhs = rhs * (as_array(w) if len(_shape_of(y)) == 1 else reshape(as_array(w), (-1, 1)))
    scale = sum(lhs * lhs, axis=0) ** 0.5
    rcond = _shape_of(x)[0] * _np.finfo(float).eps if rcond is None else rcond
    c = _decompositions.lstsq(lhs / scale, rhs, rcond)[0]
    return c / (scale if len(_shape_of(c)) == 1 else reshape(scale, (-1, 1)))


def roots(p):
    """``numpy.roots``: the roots, as the eigenvalues of the companion matrix.

    >>> import numpy as np
    >>> from funcgrad.numpy import roots
    >>> np.sort(roots(np.array([1.0, -3.0, 2.0])))
    array([1., 2.])
    """
    if not is_traced(p):
        return _np.roots(p)
    p = as_array(p)
    nonzero = _np.flatnonzero(concrete(p, "roots"))
    if not nonzero.size:
        return _np.zeros(0)
    trailing = _shape_of(p)[0] - 1 - nonzero[-1]
    p = _a.getitem(p, index=slice(int(nonzero[0]), int(nonzero[-1]) + 1))
    n = _shape_of(p)[0]
    if n < 2:
        found = _np.zeros(0)
    else:
        top = reshape(-_a.getitem(p, index=slice(1, None)) / p[0], (1, n - 1))
        companion = concatenate([top, _np.eye(n - 2, n - 1)], axis=0)
        found = _decompositions.eigvals(companion)
    return in_float_dtype_of(concatenate([found, _np.zeros(trailing)]) if trailing else found, p)


def poly(seq_of_zeros):
    """``numpy.poly``: the monic polynomial with these roots (a square matrix's: of its
    characteristic polynomial), as coefficients from the highest power.

    >>> import numpy as np
    >>> from funcgrad.numpy import poly
    >>> poly(np.array([1.0, 2.0]))
    array([ 1., -3.,  2.])
    """
    if not is_traced(seq_of_zeros):
        return _np.poly(seq_of_zeros)
    zeros = as_array(seq_of_zeros)
    shape = _shape_of(zeros)
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] > 0:
        zeros = _decompositions.eigvals(zeros)
    elif len(shape) > 1:
        raise ArgumentError("poly: give a 1-D sequence of roots or a square matrix")
    if _shape_of(zeros)[0] == 0:
        return 1.0  # NumPy's answer for no roots
    # NumPy's products are in the smallest of its float and complex types that holds the
    # roots' (float32 stays float32; integers and float16 become float64); on their device
    dtype = _np.dtype(_np.mintypecode(_dtype_of(zeros).char))
    if _dtype_of(zeros) != dtype:
        zeros = _u.astype(zeros, dtype=dtype)
    one = in_library_of(_np.ones(1, dtype=dtype), zeros)
    coefficients = one
    for k in range(_shape_of(zeros)[0]):
        coefficients = convolve(coefficients, concatenate([one, -reshape(zeros[k], (1,))]))
    return coefficients


def polydiv(u, v):
    """``numpy.polydiv``: quotient and remainder of ``u / v`` (long division, differentiable
    in both). NumPy keeps the remainder's entries from the first one above 1e-8, a length
    that follows the values; under a transform the remainder has ``len(v) - 1`` entries
    (its degree below ``v``'s; ``len(u)`` for a shorter ``u``), the same where the
    division's rounding stays under 1e-8.

    >>> import numpy as np
    >>> from funcgrad.numpy import polydiv
    >>> polydiv(np.array([1.0, -3.0, 2.0]), np.array([1.0, -1.0]))
    (array([ 1., -2.]), array([0.]))
    """
    u, v = _as_float_polynomial(u, v), _as_float_polynomial(v, u)
    scale = 1.0 / v[0]  # in v's own type, as NumPy takes it (float32's 1 / 1.25 is not 0.8)
    common = _np.result_type(_dtype_of(u), _dtype_of(v))  # NumPy divides in one type
    u, v = (w if _dtype_of(w) == common else _u.astype(w, dtype=common) for w in (u, v))
    m, n = _shape_of(u)[0] - 1, _shape_of(v)[0] - 1
    rest = [u[i] for i in range(m + 1)]
    quotient = []
    for k in range(max(m - n + 1, 0)):
        d = scale * rest[k]
        quotient.append(d)
        for i in range(n + 1):
            rest[k + i] = rest[k + i] - d * v[i]
    q = stack(quotient) if quotient else in_library_of(_np.zeros(1, common), u)
    if is_traced(*rest):  # the remainder's degree, n - 1: its length cannot follow the values
        return q, stack(rest[max(m - n + 1, 0) :] or [u[0] * 0.0])
    # NumPy keeps every entry and drops the leading near-zeros (the divided-out terms'
    # rounding too): allclose(r[0], 0, rtol=1e-14), whose atol is allclose's default 1e-8
    r = stack(rest)
    keep = _np.asarray(concrete(r, "polydiv"))
    nonzero = _np.flatnonzero(~_np.isclose(keep, 0, rtol=1e-14, atol=1e-8))
    return q, r[nonzero[0] :] if len(nonzero) else r[-1:]


def _as_float_polynomial(p, other):
    """``p`` as polydiv's coefficients: a number a constant polynomial (see
    :func:`~funcgrad.numpy._helpers.strong_number`), and integers or booleans float64, as
    NumPy's ``atleast_1d(p) + 0.0``."""
    p = reshape(as_array(strong_number(p, other)), (-1,))
    return _u.astype(p, dtype=_np.float64) if _dtype_of(p).kind in "biu" else p
