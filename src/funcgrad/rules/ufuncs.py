"""NumPy's elementwise math beyond the core table, one line per primitive.

Like :mod:`.elementwise`, each function is given by its partial derivatives,
written with funcgrad's own operations so that they differentiate again; the
reverse, forward and batching rules all follow from them. Values are NumPy's
ufuncs, bit for bit, and Python floats in give Python floats out.

Piecewise-constant functions (floor, ceil, rint, trunc, heaviside, ...) have a
zero derivative wherever one exists, as in JAX. Kinked functions (fmax, fmin,
clip at a bound) split the derivative equally at a tie.

Holomorphic functions (exp, log, the trigonometric ones, powers) need nothing more for
complex numbers: their partial is the complex derivative. ``angle`` is not holomorphic;
its partial is written in the convention of docs/complex.md.

>>> import numpy as np
>>> import funcgrad as fg
>>> fg.grad(lambda x: log1p(x) + cbrt(x))(8.0)   # 1/9 + 1/12
np.float64(0.19444444444444442)
"""

import math
import operator

import numpy as np

from ..analysis.facts import ALL, declare
from ..core.namespaces import dtype_in, is_foreign, known_all
from ..core.primitive import Primitive
from ..core.traces import Box
from ..core.values import as_dtype_of, dtype_of, float_dtype, is_complex, plain, raw
from ..jit import facts as jit_facts
from . import bessel_standard, library_forms, special_standard
from .arrays import batch_elementwise
from .elementwise import (
    ZERO,
    conjugate,
    cos,
    elementwise,
    equal,
    exp,
    imag,
    log,
    maximum,
    not_equal,
    real,
    sigmoid,
    sign_constant,
    sqrt,
    tie_share,
    ufunc_impl,
    where,
)
from .elementwise import abs as absolute
from .library_forms import (
    special_form,
    standard_form,
    xp_angle,
    xp_heaviside,
    xp_ldexp,
    xp_nan_ignoring,
    xp_part,
    xp_sinc,
)

__all__ = [
    "packbits",
    "unpackbits",
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
    "sinc",
    "deg2rad",
    "rad2deg",
    "positive",
    "real",
    "imag",
    "conjugate",
    "angle",
    "floor",
    "ceil",
    "rint",
    "trunc",
    "fix",
    "round",
    "floor_divide",
    "heaviside",
    "ldexp",
    "float_power",
    "fmax",
    "fmin",
    "arctan2",
    "hypot",
    "logaddexp",
    "logaddexp2",
    "mod",
    "fmod",
    "copysign",
    "clip",
    "logit",
    "erf",
    "i0",
    "bessel_i1",
    "astype",
    "frexp_exponent",
    "spread_sqrt",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "invert",
    "left_shift",
    "right_shift",
    "bitwise_count",
    "gcd",
    "lcm",
    "nextafter",
    "spacing",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "logical_not",
    "logical_and",
    "logical_or",
    "logical_xor",
]

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_PI = math.pi


_ufunc = ufunc_impl


def _angle_dx(ans, x):
    """d angle(z) = Im(dz / z): the partial -i conj(z) / |z|^2 (0 at 0); 0 on reals."""
    if not is_complex(x):
        return 0.0
    m = absolute(x)
    return -1j * conjugate(x) / where(plain(m) == 0, 1.0, m * m)


def _spread_sqrt_dx(ans, x):
    positive = plain(ans) > 0.0
    return _select(positive, 0.5 / _select(positive, ans, 1.0), 0.0)


def _select(c, a, b):
    """``where(c, a, b)`` for a mask read from plain values (a Python bool stays a branch)."""
    if type(c) is bool or type(c) is np.bool_:
        return a if c else b
    return where(c, a, b)


def _isnan(x):
    x = plain(x)
    return not_equal(x, x)  # NaN is the one value unequal to itself


def _fshare(x, y, beats):
    """fmax/fmin's switch: like maximum's, but a NaN opponent always loses."""
    return _select(_isnan(y), 1.0, tie_share(x, y, beats))


def _erf(x):
    """erf by the C library's (no SciPy in the base install), in SciPy's dtype: float32 in,
    float32 out; anything else float64."""
    if type(x) in (float, int):
        return math.erf(x)
    dtype = np.float32 if np.result_type(x) == np.float32 else np.float64
    x = np.asarray(x, dtype=np.float64)
    if not x.ndim:
        return dtype(math.erf(x))
    return np.frompyfunc(math.erf, 1, 1)(x).astype(dtype)


def _sinc_dx(ans, x):
    """(cos(pi x) - sinc(x)) / x, by its Taylor series near 0 where that cancels badly."""
    p = plain(x)
    small = (
        (p < 0.02) if type(p) is float and p >= 0.0 else (p > -0.02) if type(p) is float else None
    )
    if small is False:
        return (cos(_PI * x) - ans) / x
    x2 = x * x
    series = x * (
        -(_PI**2) / 3.0 + x2 * (_PI**4 / 30.0 + x2 * (-(_PI**6) / 840.0 + x2 * (_PI**8 / 45360.0)))
    )
    if small is True:
        return series
    small = abs(p) < 0.02
    safe = where(small, 1.0, x)
    return where(small, series, (cos(_PI * x) - ans) / safe)


def _float_power_dx(ans, x, y):
    y0 = plain(y)
    if not isinstance(y0, Box) and known_all(y0 == 0):  # a known zero exponent: flat
        return 0.0 * x
    return y * float_power(x, y - 1.0)


def _safe_log(x):
    return log(_select(plain(x) == 0, 1.0, x))


def _mod_dy(ans, x, y):
    """d mod(x, y) / dy = -(x - mod(x, y)) / y, the (integer) quotient, as a constant."""
    return -rint((plain(x) - plain(ans)) / plain(y))


def _clip_switches(x, lo, hi):
    """clip is min(max(x, lo), hi): the tie-splitting switches of its two kinks."""
    m = maximum(plain(x), plain(lo))
    return tie_share(x, lo, operator.gt), tie_share(m, hi, operator.lt)


def _clip_dx(ans, x, lo, hi):
    a, b = _clip_switches(x, lo, hi)
    return a * b


def _clip_dlo(ans, x, lo, hi):
    a, b = _clip_switches(x, lo, hi)
    return (1.0 - a) * b


def _clip_dhi(ans, x, lo, hi):
    _, b = _clip_switches(x, lo, hi)
    return 1.0 - b


def _copysign_dx(ans, x, y):
    return copysign(1.0, plain(x)) * copysign(1.0, plain(y))


_zero1, _zero2, _ = ZERO
_one1 = lambda ans, x: 1.0

# name                                    impl                       d f / d x (, d f / d y, d f / d z)
exp2 = elementwise("exp2", _ufunc(np.exp2), lambda ans, x: ans * _LN2)
expm1 = elementwise("expm1", _ufunc(np.expm1), lambda ans, x: ans + 1.0)
log2 = elementwise("log2", _ufunc(np.log2), lambda ans, x: 1.0 / (x * _LN2))
log10 = elementwise("log10", _ufunc(np.log10), lambda ans, x: 1.0 / (x * _LN10))
log1p = elementwise("log1p", _ufunc(np.log1p), lambda ans, x: 1.0 / (1.0 + x))
cbrt = elementwise("cbrt", _ufunc(np.cbrt), lambda ans, x: 1.0 / (3.0 * ans * ans))
square = elementwise("square", _ufunc(np.square), lambda ans, x: 2.0 * x)
reciprocal = elementwise("reciprocal", _ufunc(np.reciprocal), lambda ans, x: -(ans * ans))
fabs = elementwise("fabs", _ufunc(np.fabs), lambda ans, x: sign_constant(x))
tan = elementwise("tan", _ufunc(np.tan), lambda ans, x: 1.0 + ans * ans)
arcsin = elementwise("arcsin", _ufunc(np.arcsin), lambda ans, x: 1.0 / sqrt(1.0 - x * x))
arccos = elementwise("arccos", _ufunc(np.arccos), lambda ans, x: -1.0 / sqrt(1.0 - x * x))
arctan = elementwise("arctan", _ufunc(np.arctan), lambda ans, x: 1.0 / (1.0 + x * x))
sinh = elementwise("sinh", _ufunc(np.sinh), lambda ans, x: cosh(x))
cosh = elementwise("cosh", _ufunc(np.cosh), lambda ans, x: sinh(x))
arcsinh = elementwise("arcsinh", _ufunc(np.arcsinh), lambda ans, x: 1.0 / sqrt(x * x + 1.0))
arccosh = elementwise(
    "arccosh", _ufunc(np.arccosh), lambda ans, x: 1.0 / (sqrt(x - 1.0) * sqrt(x + 1.0))
)
arctanh = elementwise("arctanh", _ufunc(np.arctanh), lambda ans, x: 1.0 / (1.0 - x * x))
sinc = elementwise("sinc", _ufunc(np.sinc), _sinc_dx)
deg2rad = elementwise("deg2rad", _ufunc(np.deg2rad), lambda ans, x: _PI / 180.0)
rad2deg = elementwise("rad2deg", _ufunc(np.rad2deg), lambda ans, x: 180.0 / _PI)
positive = elementwise("positive", _ufunc(np.positive), _one1)
angle = elementwise("angle", _ufunc(np.angle), _angle_dx)
logit = elementwise(
    "logit",
    _ufunc(lambda p: np.log(np.divide(p, np.subtract(1.0, p)))),
    lambda ans, p: 1.0 / (p * (1.0 - p)),
)


erf = elementwise(
    "erf",
    _erf,
    lambda ans, x: (2.0 / math.sqrt(_PI)) * exp(-(x * x)),
    xp=special_form("erf", standard=special_standard.erf),
)


def _i0(x):
    """NumPy's ``i0`` (no SciPy needed): a Python float for a Python number, else NumPy's
    scalar or array (funcgrad.numpy.i0 gives NumPy's 0-d array for a scalar)."""
    out = np.i0(x)
    if type(x) in (float, int):
        return float(out)
    return out if np.ndim(x) else out[()]


def _bessel_i1(x):
    """The modified Bessel function of order 1 in NumPy's arithmetic (power series and
    asymptotic series: :mod:`funcgrad.rules.bessel_standard`), for ``i0``'s derivative
    without SciPy; within 6e-14 of SciPy's ``i1``."""
    dtype = np.result_type(x) if not isinstance(x, (float, int)) else np.float64
    out = bessel_standard.i1(np, np.asarray(x, dtype=np.float64)).astype(
        dtype if np.dtype(dtype).kind == "f" else np.float64
    )
    if type(x) in (float, int):
        return float(out)
    return out if np.ndim(x) else out[()]


# I0' = I1; I1' = I0 - I1 / x, which tends to 1/2 at x = 0.
i0 = elementwise(
    "i0",
    _i0,
    lambda ans, x: bessel_i1(x),
    xp=special_form("i0", standard=bessel_standard.i0),
)


def i1_slope_near_zero(x):
    """i1's slope i0 - i1 / x by its Taylor series at 0 (1/2 + 3 x^2 / 16 + ...): its value
    at x = 0 is the limit 1/2, and as a polynomial in the traced ``x`` its derivatives there
    are i1's higher ones (a constant 1/2 made i1's third derivative at 0 vanish, not 3/8)."""
    x2 = x * x
    return 0.5 + x2 * (3.0 / 16.0 + x2 * (5.0 / 384.0 + x2 * (7.0 / 18432.0)))


def safe_denominator(x):
    """``x`` with zeros replaced by 1: a denominator for a branch ``where`` discards."""
    return where(plain(x) == 0, 1.0, x)


bessel_i1 = elementwise(
    "bessel_i1",
    _bessel_i1,
    lambda ans, x: where(plain(x) == 0, i1_slope_near_zero(x), i0(x) - ans / safe_denominator(x)),
    xp=special_form("i1", standard=bessel_standard.i1),
)
# The square root of a spread (std of var): a zero derivative where the spread is zero, as
# PyTorch's std has; a spread that is zero for every input (one sample) then gives 0, not NaN.
spread_sqrt = elementwise("spread_sqrt", _ufunc(np.sqrt, "spread_sqrt"), _spread_sqrt_dx)
# Piecewise constant: zero derivative wherever it exists.
floor = elementwise("floor", _ufunc(np.floor), _zero1)
ceil = elementwise("ceil", _ufunc(np.ceil), _zero1)
rint = elementwise("rint", _ufunc(np.rint), _zero1)
trunc = elementwise("trunc", _ufunc(np.trunc), _zero1)
fix = elementwise("fix", _ufunc(np.trunc, "fix"), _zero1)  # NumPy 2.5 deprecates np.fix
floor_divide = elementwise("floor_divide", _ufunc(np.floor_divide), _zero2, _zero2)
heaviside = elementwise("heaviside", _ufunc(np.heaviside), _zero2, _zero2)


# x1 * 2**x2 for integer x2, without forming 2**x2 (which overflows where the product need
# not); d/dx1 = 2**x2, in x1's dtype; the integer exponent has none.
ldexp = elementwise(
    "ldexp", _ufunc(np.ldexp), lambda ans, x1, x2: ldexp(1.0, x2), None, xp=xp_ldexp
)
# Bitwise operations on integers and booleans: no rules (their operands and results are
# never floats, so no derivative reaches them); vmap broadcasts them as any ufunc.
# The standard has the six (a mask's & under jit on a device is one).
bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, right_shift = (
    Primitive(name, _ufunc(getattr(np, name)), batch=batch_elementwise, xp=standard_form(std))
    for name, std in (
        ("bitwise_and", "bitwise_and"),
        ("bitwise_or", "bitwise_or"),
        ("bitwise_xor", "bitwise_xor"),
        ("invert", "bitwise_invert"),
        ("left_shift", "bitwise_left_shift"),
        ("right_shift", "bitwise_right_shift"),
    )
)
bitwise_count = Primitive("bitwise_count", _ufunc(np.bitwise_count), batch=batch_elementwise)
gcd = Primitive("gcd", _ufunc(np.gcd), batch=batch_elementwise)
lcm = Primitive("lcm", _ufunc(np.lcm), batch=batch_elementwise)


def _bits_batch(size, prim, values, batched, params):
    """vmap of packbits/unpackbits: the examples' axis 0 first; an axis of None packs each
    example's flattened bits, so the examples are flattened one by one."""
    x, axis = values[0], params["axis"]
    if axis is None:
        return prim(np.reshape(x, (size, -1)), **{**params, "axis": 1})
    return prim(x, **{**params, "axis": axis % (np.ndim(x) - 1) + 1})


# Bits to bytes and back (uint8): no derivative, as NumPy's.
packbits = Primitive(
    "packbits",
    lambda a, axis=None, bitorder="big": np.packbits(a, axis=axis, bitorder=bitorder),
    batch=_bits_batch,
)
unpackbits = Primitive(
    "unpackbits",
    lambda a, axis=None, count=None, bitorder="big": np.unpackbits(
        a, axis=axis, count=count, bitorder=bitorder
    ),
    batch=_bits_batch,
)
declare(packbits, unpackbits, flat=ALL)
# The float next to x (toward y), and the gap to it: x plus a step below rounding, so
# nextafter moves as x does; the gap is piecewise constant.
nextafter = elementwise("nextafter", _ufunc(np.nextafter), lambda ans, x, y: 1.0, _zero2)
spacing = elementwise("spacing", _ufunc(np.spacing), _zero1)
# Predicates and logic: masks, constant wherever they are defined.
isnan = elementwise("isnan", _ufunc(np.isnan), _zero1)
isinf = elementwise("isinf", _ufunc(np.isinf), _zero1)
isfinite = elementwise("isfinite", _ufunc(np.isfinite), _zero1)
signbit = elementwise("signbit", _ufunc(np.signbit), _zero1)
logical_not = elementwise("logical_not", _ufunc(np.logical_not), _zero1)
logical_and = elementwise("logical_and", _ufunc(np.logical_and), _zero2, _zero2)
logical_or = elementwise("logical_or", _ufunc(np.logical_or), _zero2, _zero2)
logical_xor = elementwise("logical_xor", _ufunc(np.logical_xor), _zero2, _zero2)
# Binary.
float_power = elementwise(
    "float_power", _ufunc(np.float_power), _float_power_dx, lambda ans, x, y: ans * _safe_log(x)
)
jit_facts.declare(float_power, reads_values=(1,))  # x ** 0 known flat (_float_power_dx)
fmax = elementwise(
    "fmax",
    _ufunc(np.fmax),
    lambda ans, x, y: _fshare(x, y, operator.gt),
    lambda ans, x, y: _fshare(y, x, operator.gt),
)
fmin = elementwise(
    "fmin",
    _ufunc(np.fmin),
    lambda ans, x, y: _fshare(x, y, operator.lt),
    lambda ans, x, y: _fshare(y, x, operator.lt),
)
arctan2 = elementwise(
    "arctan2",
    _ufunc(np.arctan2),
    lambda ans, y, x: x / (x * x + y * y),
    lambda ans, y, x: -y / (x * x + y * y),
)
hypot = elementwise("hypot", _ufunc(np.hypot), lambda ans, x, y: x / ans, lambda ans, x, y: y / ans)


def _share(x, y, scale=1.0):
    """d logaddexp(x, y) / dx = e^x / (e^x + e^y) = sigmoid(x - y) (``scale``: ln 2 for
    logaddexp2): 1 where x is +inf and y finite, the limit (``exp(x - ans)`` is inf - inf
    there, a NaN), and 1/2 where the two are the same infinity."""
    d = x - y
    p = plain(d)
    same_infinity = not_equal(p, p) & equal(plain(x), plain(y))
    return sigmoid(where(same_infinity, 0.0, d if scale == 1.0 else d * scale))


logaddexp = elementwise(
    "logaddexp",
    _ufunc(np.logaddexp),
    lambda ans, x, y: _share(x, y),
    lambda ans, x, y: _share(y, x),
)
logaddexp2 = elementwise(
    "logaddexp2",
    _ufunc(np.logaddexp2),
    lambda ans, x, y: _share(x, y, _LN2),
    lambda ans, x, y: _share(y, x, _LN2),
)
mod = elementwise("mod", _ufunc(np.mod), lambda ans, x, y: 1.0, _mod_dy)
fmod = elementwise("fmod", _ufunc(np.fmod), lambda ans, x, y: 1.0, _mod_dy)
copysign = elementwise("copysign", _ufunc(np.copysign), _copysign_dx, _zero2)
clip = elementwise("clip", _ufunc(np.clip), _clip_dx, _clip_dlo, _clip_dhi)


_XP_FORMS = {
    exp2: lambda xp, x: 2.0**x,
    cbrt: lambda xp, x: xp.sign(x) * xp.abs(x) ** (1.0 / 3.0),
    sinc: xp_sinc,
    deg2rad: lambda xp, x: x * (_PI / 180.0),
    rad2deg: lambda xp, x: x * (180.0 / _PI),
    angle: xp_angle,
    logit: lambda xp, p: xp.log(p / (1.0 - p)),
    heaviside: xp_heaviside,
    float_power: lambda xp, x, y: xp.pow(x, y),
    fmax: xp_nan_ignoring("maximum"),
    fmin: xp_nan_ignoring("minimum"),
    logaddexp2: lambda xp, x, y: xp.logaddexp(x * _LN2, y * _LN2) / _LN2,
    fmod: lambda xp, x, y: x - xp.trunc(x / y) * y,
    clip: lambda xp, x, lo, hi: xp.clip(xp.clip(x, min=lo), max=hi),  # lo > hi: NumPy's
    real: xp_part("real"),
    imag: xp_part("imag"),
    # the step to the next float away from zero (NumPy's spacing)
    spacing: lambda xp, x: (
        xp.nextafter(x, xp.where(x < 0, xp.full_like(x, -xp.inf), xp.full_like(x, xp.inf))) - x
    ),
}
for _prim, _form in _XP_FORMS.items():
    _prim.xp = _form


# ------------------------------------------- with a static parameter


def _unary_batch(size, prim, values, batched, params):
    """An elementwise primitive with static parameters: the batch axis rides along."""
    return prim(values[0], **params)


def _round_impl(x, decimals=0):
    out = np.round(x, decimals)
    return float(out) if type(out) is np.float64 and type(x) in (float, int) else out


def _astype_impl(x, dtype):
    if type(x) is float and np.dtype(dtype) == np.float64:
        return x
    return np.asarray(x).astype(dtype)[()]


def _astype_vjp(g, ans, x, dtype):
    back = dtype_of(x)
    if not np.issubdtype(back, np.inexact):
        back = np.dtype(np.float64)
    if is_complex(g) and back.kind != "c":  # a real value cast to complex: its real part acts
        g = real(g)
    return g if dtype_of(g) == back else astype(g, dtype=back)


def _xp_round(xp, x, decimals=0):
    if decimals == 0:
        return xp.round(x)
    scale = 10.0**decimals
    return xp.round(x * scale) / scale


round = Primitive(
    "round",
    _round_impl,
    xp=_xp_round,
    vjp=(lambda g, ans, x, decimals=0: None,),
    jvp=(lambda t, ans, x, decimals=0: None,),
    batch=_unary_batch,
)
# frexp's integer exponent: read from the value, no derivative (frexp's mantissa is x / 2**e)
frexp_exponent = Primitive("frexp_exponent", lambda x: np.frexp(x)[1], batch=_unary_batch)
frexp_exponent.xp = library_forms.xp_frexp_exponent  # the standard has no frexp
astype = Primitive(
    "astype",
    _astype_impl,
    xp=lambda xp, x, dtype: xp.astype(x, dtype_in(xp, dtype, "astype")),
    vjp=(_astype_vjp,),
    jvp=(lambda t, ans, x, dtype: astype(t, dtype=dtype),),
    batch=_unary_batch,
)


def in_dtype_of(g, x):
    """A derivative ``g`` of ``x`` in ``x``'s float dtype, traced or not.

    ``as_dtype_of`` casts plain arrays; a traced ``g`` (under ``jit``, or a derivative
    of a derivative) is cast by the ``astype`` primitive, so the plan computes the
    same dtype the eager call returns (float32 in, float32 out; a real cotangent of a
    complex input made complex). A complex ``g`` of a real ``x`` is left to the rules
    that take its real part.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> x = np.float32([1.0, -1.0])
    >>> fg.jit(fg.grad(lambda x: (fg.numpy.maximum(x, 0.0) * 2.0).sum()))(x).dtype
    dtype('float32')
    """
    v = raw(x)
    if not isinstance(g, Box) and not (is_foreign(g) and is_foreign(v)):
        return as_dtype_of(g, x)  # (another library's is cast below, in its namespace)
    if type(v) in (int, bool):
        return g
    if type(v) is float or type(v) is complex:  # a Python number's derivative: NumPy's 64 bits
        # (a Python number the transform makes NumPy's; another library's, its own promotion)
        if type(raw(g)) in (type(v), complex) or is_foreign(raw(g)):
            return g
        want = np.dtype(np.float64 if type(v) is float else np.complex128)
    else:
        want = float_dtype(x)
    have = dtype_of(g)
    if have != want and (have.kind == "f" or want.kind == "c"):
        return astype(g, dtype=want)
    return g


# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(round, frexp_exponent, flat=ALL)
declare(positive, deg2rad, rad2deg, linear="all")
declare(fmax, fmin, commutative=True)
declare(clip, fmax, fmin, selects=True)
declare(astype, structure="cast", linear="all")
declare(arcsin, arccos, arctanh, hint="keep the argument inside (-1, 1), e.g. clip it to 1 - eps")
declare(reciprocal, hint="keep the argument away from 0")
declare(cbrt, hint="the cube root's derivative is infinite at 0: add eps")
declare(log2, log10, hint="keep the argument positive")
declare(log1p, hint="keep the argument above -1")
declare(arcsin, arccos, arctanh, reciprocal, cbrt, log2, log10, log1p, singular=True)
