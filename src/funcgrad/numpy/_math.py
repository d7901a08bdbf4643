"""Elementwise math of funcgrad.numpy: NumPy's ufuncs with their derivatives.

Every name is NumPy's, with NumPy's values bit for bit (Python floats in give
Python floats out). Most are the primitives themselves, called positionally
like ufuncs; ``round``/``around`` (``decimals``) and ``clip`` (``None``
bounds) are thin wrappers with NumPy's signatures. Piecewise-constant
functions (floor, ceil, round, rint, trunc, fix, sign, heaviside, the
comparisons) have a zero derivative; kinks (abs, maximum, fmax, clip at a
bound) split the derivative equally at a tie, like JAX.

Complex numbers work throughout, with the gradient convention of
docs/complex.md (JAX's and autograd's): holomorphic functions need nothing
special, and ``real``, ``imag``, ``conj``, ``abs`` and ``angle`` have rules of
their own.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> bool(fnp.log1p(1e-10) == np.log1p(1e-10)), type(fnp.expm1(0.5))
(True, <class 'numpy.float64'>)
>>> fg.grad(lambda x: fnp.arctan2(x, 1.0) + fnp.hypot(x, 4.0))(3.0)   # 1/10 + 3/5
np.float64(0.7)
>>> fg.grad(lambda x: fnp.sum(fnp.floor(x) * x))(np.array([1.5, -0.5]))
array([ 1., -1.])
>>> fg.grad(lambda z: fnp.real(z * z))(3.0 + 4.0j)     # d/dx - i d/dy of x^2 - y^2
np.complex128(6+8j)
"""

import numpy as _np

from ..core.errors import ArgumentTypeError
from ..core.namespaces import as_numpy_dtype
from ..core.traces import note_cut as _note_cut
from ..core.values import is_complex
from ..core.values import plain as _plain
from ..rules import ufuncs as _u
from ..rules.elementwise import (  # noqa: F401
    abs,
    add,
    cos,
    divide,
    exp,
    log,
    maximum,
    minimum,
    multiply,
    negative,
    power,
    sin,
    sqrt,
    subtract,
    tanh,
)
from ..rules.elementwise import sign as _sign
from ..rules.elementwise import unit as _unit
from ..rules.ufuncs import angle as _angle
from ..rules.ufuncs import (  # noqa: F401
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    cbrt,
    ceil,
    conjugate,
    copysign,
    cosh,
    deg2rad,
    exp2,
    expm1,
    fabs,
    fix,
    float_power,
    floor,
    floor_divide,
    fmax,
    fmin,
    fmod,
    heaviside,
    hypot,
    imag,
    log1p,
    log2,
    log10,
    logaddexp,
    logaddexp2,
    mod,
    nextafter,
    positive,
    rad2deg,
    real,
    reciprocal,
    rint,
    sinc,
    sinh,
    spacing,
    square,
    tan,
    trunc,
)
from ..rules.ufuncs import i0 as _i0
from ._helpers import in_dtype_of_call, refuse

# NumPy's other names for the same functions.
absolute = abs
true_divide = divide
pow = power
conj = conjugate
remainder = mod
acos, asin, atan, atan2 = arccos, arcsin, arctan, arctan2
acosh, asinh, atanh = arccosh, arcsinh, arctanh


def degrees(x, /):
    """``numpy.degrees``: radians to degrees, elementwise, as ``rad2deg`` (in NumPy's dtype
    for ``degrees``: its float32 for bfloat16, where ``rad2deg`` keeps bfloat16).

    >>> from funcgrad.numpy import degrees
    >>> float(degrees(3.141592653589793))
    180.0
    """
    return in_dtype_of_call(rad2deg(x), _np.degrees, x)


def radians(x, /):
    """``numpy.radians``: degrees to radians, elementwise, as ``deg2rad`` (in NumPy's dtype
    for ``radians``).

    >>> from funcgrad.numpy import radians
    >>> round(float(radians(180.0)), 12)
    3.14159265359
    """
    return in_dtype_of_call(deg2rad(x), _np.radians, x)


def i0(x):
    """``numpy.i0``: the modified Bessel function of the first kind of order 0 (NumPy's
    values, no SciPy needed), a 0-d array for a number as NumPy gives it; its derivative
    is the function of order 1.

    >>> import funcgrad as fg
    >>> from funcgrad.numpy import i0
    >>> i0(1.0), fg.grad(i0)(1.0)
    (array(1.26606588), np.float64(0.565159103992485))
    """
    out = _i0(x)
    return _np.asarray(out) if type(out) in (float, _np.float64) else out


def angle(z, deg=False):
    """``numpy.angle``: the argument of ``z`` in radians, or in degrees with ``deg=True``
    (NumPy's bits: the radians times ``180 / pi``).

    >>> import numpy as np
    >>> from funcgrad.numpy import angle
    >>> angle(np.array([1j, -1.0])), angle(1j, deg=True)
    (array([1.57079633, 3.14159265]), np.float64(90.0))
    """
    a = _angle(z)
    return a * (180 / _np.pi) if deg else a


def sign(x, /):
    """``numpy.sign``: piecewise constant on reals (zero derivative); ``z / |z|`` on
    complex numbers, which has a derivative.

    >>> import numpy as np
    >>> from funcgrad.numpy import sign
    >>> sign(-2.0), sign(np.array([3j]))
    (np.float64(-1.0), array([0.+1.j]))
    """
    return _unit(x) if is_complex(x) else _sign(x)


def round(a, decimals=0, out=None):
    """``numpy.round``: zero derivative (piecewise constant), NumPy's values.

    >>> import funcgrad.numpy as fnp
    >>> fnp.round(2.675, decimals=2), fnp.round(-0.5)
    (np.float64(2.68), np.float64(-0.0))
    """
    refuse("round", out=out)
    return _u.round(a, decimals=decimals)


def around(a, decimals=0, out=None):
    """``numpy.around``, the same as :func:`round`.

    >>> import numpy as np
    >>> from funcgrad.numpy import around
    >>> around(np.array([0.5, 1.5, 2.5]))
    array([0., 2., 2.])
    """
    refuse("around", out=out)
    return _u.round(a, decimals=decimals)


def clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None):
    """``numpy.clip``: ``minimum(maximum(a, a_min), a_max)``; a ``None`` bound is left open.

    The derivative goes to ``a`` inside the bounds and to the bound that is
    hit outside them (shared equally at a tie). With ``a_min > a_max`` every
    value is ``a_max``, as in NumPy.

    >>> import numpy as np
    >>> from funcgrad.numpy import clip
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> clip(np.array([-2.0, 0.5, 3.0]), -1.0, 1.0)
    array([-1. ,  0.5,  1. ])
    >>> fg.grad(lambda x: fnp.sum(clip(x, None, 1.0)))(np.array([0.5, 3.0]))
    array([1., 0.])
    """
    refuse("clip", out=out)
    if min is not None:
        if a_min is not None:
            raise ArgumentTypeError("clip: give the lower bound once, as a_min or as min, not both")
        a_min = min
    if max is not None:
        if a_max is not None:
            raise ArgumentTypeError("clip: give the upper bound once, as a_max or as max, not both")
        a_max = max
    if a_min is None and a_max is None:
        return positive(a)
    if a_min is None:
        return minimum(a, a_max)  # what NumPy itself computes for an open lower bound
    if a_max is None:
        return maximum(a, a_min)
    return _u.clip(a, a_min, a_max)


def astype(x, dtype, /, *, copy=True, device=None):
    """``numpy.astype``: a cast; the cotangent is cast back to the input's float type.
    A cast to an integer or boolean type gives that array with no derivative, as in
    NumPy code (``x.astype(int)`` as an index): the integers carry no gradient.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import astype
    >>> astype(np.array([1.5, 2.5]), np.float32)
    array([1.5, 2.5], dtype=float32)
    >>> fg.grad(lambda x: x[astype(x, int)[0]] * 2.0)(np.array([1.5, 0.0]))
    array([0., 2.])
    """
    dtype = as_numpy_dtype(dtype)  # torch.float32 is float32
    if not _np.issubdtype(dtype, _np.inexact):
        _note_cut(f"astype({dtype.name})", x)
        return _u.astype(_plain(x), dtype=dtype)
    return _u.astype(x, dtype=dtype)


_UFUNCS = [
    # the core table, re-exported with every NumPy name
    "abs",
    "absolute",
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "power",
    "pow",
    "negative",
    "maximum",
    "minimum",
    "exp",
    "log",
    "sqrt",
    "sin",
    "cos",
    "tanh",
    "sign",
    # unary
    "exp2",
    "expm1",
    "log2",
    "log10",
    "log1p",
    "cbrt",
    "square",
    "reciprocal",
    "fabs",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "acos",
    "asin",
    "atan",
    "acosh",
    "asinh",
    "atanh",
    "sinc",
    "i0",
    "deg2rad",
    "rad2deg",
    "degrees",
    "radians",
    "positive",
    "real",
    "imag",
    "conj",
    "conjugate",
    "angle",
    "floor",
    "ceil",
    "rint",
    "trunc",
    "fix",
    # binary
    "float_power",
    "fmax",
    "fmin",
    "arctan2",
    "atan2",
    "hypot",
    "logaddexp",
    "logaddexp2",
    "mod",
    "remainder",
    "fmod",
    "copysign",
    "heaviside",
    "floor_divide",
    "nextafter",
    "spacing",
]
__all__ = [  # noqa: PLE0604 (the ufuncs listed above)
    *_UFUNCS,
    "round",
    "around",
    "clip",
    "astype",
]
