"""Floating-point housekeeping, with NumPy's signatures: ``nan_to_num``, ``real_if_close``,
``ldexp``, ``frexp``, ``modf``, ``divmod``, and questions that need no derivative
(``iscomplexobj``, ``isrealobj``, ``shares_memory``, ``may_share_memory``) plus ``copy``.

Replacements and splits keep the derivative where the value passes through
unchanged: ``nan_to_num``'s finite entries, ``modf``'s fractional part,
``frexp``'s mantissa (``x / 2**e``, with the integer exponent read from the
value by a primitive, so jit replays it).

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> fg.grad(lambda x: fnp.sum(fnp.nan_to_num(x * 2.0)))(np.array([1.0, np.inf]))
array([2., 0.])
"""

import numpy as _np

from ..core.errors import ArgumentTypeError
from ..core.traces import Box
from ..core.values import dtype_of as _dtype_of
from ..core.values import is_complex
from ..core.values import plain as _plain
from ..rules import elementwise as _ew
from ..rules import ufuncs as _u
from ._helpers import concrete, is_traced, nan_mask, refuse
from ._logic import isneginf, isposinf

__all__ = [
    "nan_to_num",
    "real_if_close",
    "ldexp",
    "frexp",
    "modf",
    "divmod",
    "iscomplexobj",
    "isrealobj",
    "shares_memory",
    "may_share_memory",
    "copy",
]


def _replace(x, nan, posinf, neginf, big):
    out = _ew.where(nan_mask(x), nan, x)
    out = _ew.where(isposinf(x), big if posinf is None else posinf, out)
    return _ew.where(isneginf(x), -big if neginf is None else neginf, out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``numpy.nan_to_num``: NaN by ``nan``, infinities by the largest finite floats (or
    ``posinf``/``neginf``); real and imaginary parts each. Replaced entries get a zero derivative.

    >>> import numpy as np
    >>> from funcgrad.numpy import nan_to_num
    >>> nan_to_num(np.array([np.nan, -np.inf, 1.5]), neginf=-9.0)
    array([ 0. , -9. ,  1.5])
    """
    if not is_traced(x):
        return _np.nan_to_num(x, copy=copy, nan=nan, posinf=posinf, neginf=neginf)
    if _dtype_of(x).kind not in "fc":  # integers and booleans hold no NaN: x itself
        return x
    big = _np.finfo(_dtype_of(x)).max
    if is_complex(x):
        return _replace(_u.real(x), nan, posinf, neginf, big) + 1j * _replace(
            _u.imag(x), nan, posinf, neginf, big
        )
    return _replace(x, nan, posinf, neginf, big)


def real_if_close(a, tol=100):
    """``numpy.real_if_close``: the real part when every imaginary part is within ``tol``
    machine epsilons of zero (read from the values), else ``a`` unchanged.

    >>> import numpy as np
    >>> from funcgrad.numpy import real_if_close
    >>> real_if_close(np.array([1.0 + 1e-20j, 2.0]))
    array([1., 2.])
    """
    if not is_traced(a):
        return _np.real_if_close(a, tol)
    if not is_complex(a):
        return a
    eps = _np.finfo(_dtype_of(a)).eps
    limit = tol * eps if tol > 1 else tol
    return _u.real(a) if _np.all(_np.abs(_np.imag(concrete(a, "real_if_close"))) < limit) else a


def ldexp(x1, x2, out=None):
    """``numpy.ldexp``: ``x1 * 2**x2`` for integer ``x2`` (traced too, under jit and vmap);
    differentiable in ``x1``. NumPy's values: ``2**x2`` is never formed, so a product
    that fits does even where ``2**x2`` would overflow.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import ldexp
    >>> ldexp(np.array([1.5, 3.0]), np.array([2, -1]))
    array([6. , 1.5])
    >>> fg.jit(ldexp)(np.array([1e-300]), np.array([1100]))
    array([1.35829853e+31])
    """
    refuse("ldexp", out=out)
    if not is_traced(x1, x2):
        return _np.ldexp(x1, x2)
    kind = _dtype_of(x2).kind
    if kind not in "iub":
        raise ArgumentTypeError(
            f"ldexp: the exponent x2 must hold integers, as NumPy's; got {_dtype_of(x2)}: "
            f"use x2.astype(int), or x1 * 2.0 ** x2 for an exponent with a derivative"
        )
    return _u.ldexp(x1, x2)


def frexp(x, out=None):
    """``numpy.frexp``: ``(mantissa, exponent)`` with ``x = mantissa * 2**exponent`` and
    ``0.5 <= |mantissa| < 1``; the mantissa's derivative is ``2**-exponent``.

    >>> import numpy as np
    >>> from funcgrad.numpy import frexp
    >>> frexp(np.array([8.0, 0.75]))
    (array([0.5 , 0.75]), array([4, 0], dtype=int32))
    """
    refuse("frexp", out=out)
    if not is_traced(x):
        return _np.frexp(x)
    dtype = _np.frexp(_np.zeros((), _dtype_of(x)))[0].dtype  # NumPy's loop: float16 for uint8
    if _dtype_of(x) != dtype:
        x = _u.astype(x, dtype=dtype)
    exponent = _u.frexp_exponent(_plain(x))
    # scaled in float64 by two halves of 2**-e (exact: powers of two), and cast back:
    # 2**-e itself overflows float16, and float64 for a subnormal x (e down to -1073)
    e = _u.astype(exponent, dtype=_np.float64)
    half = _u.floor(e * 0.5)
    mantissa = x * _u.exp2(-half) * _u.exp2(half - e)
    return (mantissa if dtype == _np.float64 else _u.astype(mantissa, dtype=dtype)), exponent


def modf(x, out=None):
    """``numpy.modf``: ``(fractional part, integral part)``, both with x's sign; the
    fractional part's derivative is 1, the integral part's 0.

    >>> import numpy as np
    >>> from funcgrad.numpy import modf
    >>> modf(np.array([2.5, -1.25]))
    (array([ 0.5 , -0.25]), array([ 2., -1.]))
    """
    refuse("modf", out=out)
    if not is_traced(x):
        return _np.modf(x)
    dtype = _np.modf(_np.zeros((), _dtype_of(x)))[0].dtype  # NumPy's loop: int32 in float64
    if _dtype_of(x) != dtype:
        x = _u.astype(x, dtype=dtype)
    whole = _u.trunc(x)
    # NumPy's fractional part has x's sign, -0.0 too (modf(-2.0) is (-0.0, -2.0)), and is
    # +-0 at +-inf, where x - whole would be NaN (and warn): the infinities are taken out
    # first. Both branches keep the derivative 1.
    infinite = _u.isinf(x)
    finite = _u.where(infinite, 0.0, x)
    finite_whole = _u.trunc(finite)
    fraction = _u.where(_u.signbit(x), -(finite_whole - finite), finite - finite_whole)
    return _u.where(infinite, _u.copysign(0.0, _plain(x)), fraction), whole


def divmod(x1, x2, out=None):
    """``numpy.divmod``: ``(floor_divide(x1, x2), mod(x1, x2))``.

    >>> import numpy as np
    >>> divmod(np.array([7.0, -7.0]), 2.0)
    (array([ 3., -4.]), array([1., 1.]))
    """
    refuse("divmod", out=out)
    if not is_traced(x1, x2):
        return _np.divmod(x1, x2)
    return _u.floor_divide(x1, x2), _u.mod(x1, x2)


def iscomplexobj(x):
    """``numpy.iscomplexobj``: whether the dtype is complex.

    >>> import funcgrad as fg
    >>> from funcgrad.numpy import iscomplexobj
    >>> iscomplexobj(fg.var(1.0 + 2.0j)), iscomplexobj([1.0])
    (True, False)
    """
    return is_complex(x) if isinstance(x, Box) else _np.iscomplexobj(x)


def isrealobj(x):
    """``numpy.isrealobj``: whether the dtype is not complex.

    >>> import funcgrad as fg
    >>> from funcgrad.numpy import isrealobj
    >>> isrealobj(fg.var(1.0))
    True
    """
    return not iscomplexobj(x)


def shares_memory(a, b, max_work=None):
    """``numpy.shares_memory``; traced values are immutable and share nothing writable.

    >>> import numpy as np
    >>> from funcgrad.numpy import shares_memory
    >>> x = np.ones(3)
    >>> shares_memory(x, x[1:])
    True
    """
    if is_traced(a, b):
        return False
    return _np.shares_memory(a, b, max_work)


def may_share_memory(a, b, max_work=None):
    """``numpy.may_share_memory``; traced values are immutable and share nothing writable.

    >>> import numpy as np
    >>> from funcgrad.numpy import may_share_memory
    >>> may_share_memory(np.ones(2), np.ones(2))
    False
    """
    if is_traced(a, b):
        return False
    return _np.may_share_memory(a, b, max_work)


def copy(a, order="K", subok=False):
    """``numpy.copy``; a traced value is immutable, so it is its own copy.

    >>> import numpy as np
    >>> from funcgrad.numpy import copy
    >>> copy(np.array([1.0, 2.0]))
    array([1., 2.])
    """
    return a if isinstance(a, Box) else _np.copy(a, order=order, subok=subok)
