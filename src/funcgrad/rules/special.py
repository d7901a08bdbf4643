"""SciPy's special functions, one line per primitive: values from ``scipy.special``.

Each is given by its partial derivatives, written with funcgrad's own operations
(often another function of this table: gammaln' = digamma, digamma' =
polygamma(1, .), i0' = i1), so they differentiate again to any order. Integer
orders (``polygamma``'s n), the Bessel functions' orders and the incomplete beta
function's shape parameters have no derivative here (nor in JAX): asking for one raises
MissingRuleError. The shape parameters of ``gammainc``, ``gammaincc``, ``zeta``, ``hyp1f1``
and ``hyp2f1`` have theirs by series (:mod:`funcgrad.rules.special_parameters`).

SciPy is imported here, so this table (and :mod:`funcgrad.scipy`) needs it.

>>> import funcgrad as fg
>>> fg.grad(gammaln)(3.0) == digamma(3.0)
np.True_
>>> round(float(fg.grad(fg.grad(erfinv))(0.5)), 6)       # 2 y y'^2 at y = erfinv(0.5)
1.180746
"""

import math

import numpy as np
import scipy.special as sc

from ..analysis.facts import ALL, declare
from ..core.errors import MissingRuleError
from ..core.values import plain
from . import bessel_standard, special_parameters, special_standard
from .elementwise import (
    cos,
    elementwise,
    exp,
    log,
    power,
    sign,
    sin,
    ufunc_impl,
    where,
)
from .library_forms import special_form
from .ufuncs import i0, i1_slope_near_zero, log1p
from .ufuncs import safe_denominator as _safe

__all__ = [
    "gammaln",
    "digamma",
    "polygamma",
    "gamma",
    "betaln",
    "beta",
    "erfc",
    "erfinv",
    "erfcinv",
    "ndtr",
    "log_ndtr",
    "ndtri",
    "xlogy",
    "xlog1py",
    "i0",
    "i1",
    "i0e",
    "i1e",
    "gammainc",
    "gammaincc",
    "betainc",
    "entr",
    "j0",
    "j1",
    "y0",
    "y1",
    "jv",
    "yv",
    "iv",
    "ive",
    "gammasgn",
    "rgamma",
    "erfcx",
    "dawsn",
    "wofz",
    "exp1",
    "expi",
    "expn",
    "kl_div",
    "rel_entr",
    "loggamma",
    "poch",
    "zeta",
    "spence",
    "si",
    "ci",
    "fresnel_s",
    "fresnel_c",
    "owens_t",
    "hyp1f1",
    "hyp2f1",
    "gammainc_da",
    "zeta_dx",
    "hyp1f1_da",
    "hyp1f1_db",
    "hyp2f1_da",
    "hyp2f1_dc",
    "boxcox",
    "boxcox1p",
]

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_ = None  # no derivative for this argument


def _unless_both_zero(x, y):
    """``y``, with 1 where ``x`` and ``y`` are both 0: the denominator of ``x / y``, which is
    then 0 (and stays ``x / 0``, infinite, where only ``y`` is 0)."""
    return where(plain(x) == 0, where(plain(y) == 0, 1.0, y), y)


def _spence_slope_near_one(u):
    """log(1 + u) / -u, spence's slope at z = 1 + u, by its Taylor series at u = 0."""
    return -1.0 + u * (0.5 + u * (-1.0 / 3.0 + u * (0.25 + u * -0.2)))


def _sinc_near_zero(x):
    """sin(x) / x, si's slope, by its Taylor series at 0."""
    x2 = x * x
    return 1.0 + x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (-1.0 / 5040.0)))


def _gauss(x):
    """The standard normal density."""
    return exp(-0.5 * x * x) / _SQRT_2PI


def _polygamma_impl(n, x):
    if np.iscomplexobj(x):
        raise MissingRuleError(
            "polygamma (digamma's derivative): SciPy has no complex polygamma, so digamma of "
            "a complex argument has no derivative here; differentiate at real arguments"
        )
    if np.asarray(x).dtype == np.float16:  # SciPy's zeta has no float16 loop
        return sc.polygamma(n, np.asarray(x, np.float32)).astype(np.float16)
    out = sc.polygamma(n, x)
    return float(out) if type(x) is float and np.ndim(out) == 0 else out


def _gammainc_dx(ans, a, x):
    """d/dx of the regularized lower incomplete gamma: x^(a-1) e^-x / Gamma(a)."""
    return exp((a - 1.0) * log(x) - x - gammaln(a))


def _betainc_dx(ans, a, b, x):
    """d/dx of the regularized incomplete beta: x^(a-1) (1-x)^(b-1) / B(a, b)."""
    return exp((a - 1.0) * log(x) + (b - 1.0) * log1p(-x) - betaln(a, b))


def _expn_dx(n, x):
    """d/dx E_n(x) = -E_{n-1}(x), with E_0(x) = e^-x / x."""
    n = plain(n)
    return where(n == 0, -exp(-x) * (x + 1.0) / (x * x), -expn(np.maximum(n - 1, 0), x))


def _boxcox_dl(ans, x, lmbda):
    """d/dlambda of (x^l - 1) / l: (x^l log x - ans) / l, and (log x)^2 / 2 at l = 0."""
    lx = log(x)
    l_safe = _safe(lmbda)
    return where(plain(lmbda) == 0, 0.5 * lx * lx, (power(x, lmbda) * lx - ans) / l_safe)


def _first(pair):
    """The first of the two results of SciPy's ``pair`` (sici, fresnel)."""
    return lambda x: pair(x)[0]


def _second(pair):
    return lambda x: pair(x)[1]


def _erf(x):
    return 1.0 - erfc(x)


# name          primitive                          partial derivative(s), one per argument
gammaln = elementwise("gammaln", ufunc_impl(sc.gammaln), lambda ans, x: digamma(x))
digamma = elementwise("digamma", ufunc_impl(sc.digamma), lambda ans, x: polygamma(1, x))
polygamma = elementwise(
    "polygamma", _polygamma_impl, _, lambda ans, n, x: polygamma(plain(n) + 1, x)
)
gamma = elementwise("gamma", ufunc_impl(sc.gamma), lambda ans, x: ans * digamma(x))
betaln = elementwise(
    "betaln",
    ufunc_impl(sc.betaln),
    lambda ans, a, b: digamma(a) - digamma(a + b),
    lambda ans, a, b: digamma(b) - digamma(a + b),
)
beta = elementwise(
    "beta",
    ufunc_impl(sc.beta),
    lambda ans, a, b: ans * (digamma(a) - digamma(a + b)),
    lambda ans, a, b: ans * (digamma(b) - digamma(a + b)),
)
erfc = elementwise("erfc", ufunc_impl(sc.erfc), lambda ans, x: (-2.0 / _SQRT_PI) * exp(-(x * x)))
erfinv = elementwise(
    "erfinv", ufunc_impl(sc.erfinv), lambda ans, x: (_SQRT_PI / 2.0) * exp(ans * ans)
)
erfcinv = elementwise(
    "erfcinv", ufunc_impl(sc.erfcinv), lambda ans, x: (-_SQRT_PI / 2.0) * exp(ans * ans)
)
ndtr = elementwise("ndtr", ufunc_impl(sc.ndtr), lambda ans, x: _gauss(x))
log_ndtr = elementwise(
    "log_ndtr", ufunc_impl(sc.log_ndtr), lambda ans, x: exp(-0.5 * x * x - ans) / _SQRT_2PI
)
ndtri = elementwise("ndtri", ufunc_impl(sc.ndtri), lambda ans, p: _SQRT_2PI * exp(0.5 * ans * ans))
# x log y is 0 at x = 0 whatever y, and its y-partial x / y: 0 at x = y = 0 (not 0 / 0),
# infinite at y = 0 elsewhere. The quotient itself is kept at x = 0 (where y is not 0), so
# that its own derivative in x, 1 / y, is there for the higher derivatives.
xlogy = elementwise(
    "xlogy",
    ufunc_impl(sc.xlogy),
    lambda ans, x, y: log(y),
    lambda ans, x, y: x / _unless_both_zero(x, y),
)
xlog1py = elementwise(
    "xlog1py",
    ufunc_impl(sc.xlog1py),
    lambda ans, x, y: log1p(y),
    lambda ans, x, y: x / _unless_both_zero(x, 1.0 + y),
)
# i0 is NumPy's (funcgrad.rules.ufuncs). i1' = i0 - i1 / x, which tends to 1/2 at x = 0:
# there its Taylor series, so that i1's higher derivatives at 0 are right too.
i1 = elementwise(
    "i1",
    ufunc_impl(sc.i1),
    lambda ans, x: where(plain(x) == 0, i1_slope_near_zero(x), i0(x) - ans / _safe(x)),
)
i0e = elementwise("i0e", ufunc_impl(sc.i0e), lambda ans, x: i1e(x) - sign(x) * ans)
i1e = elementwise(
    "i1e",
    ufunc_impl(sc.i1e),
    lambda ans, x: where(plain(x) == 0, 0.5, i0e(x) - ans * (sign(x) + 1.0 / _safe(x))),
)
# d/da of P(a, x) by its series or Q's continued fraction; its own d/dx is d/da of P's
# d/dx: x^(a-1) e^-x / Gamma(a) (log x - digamma(a)).
gammainc_da = elementwise(
    "gammainc_da",
    special_parameters.gammainc_da,
    _,
    lambda ans, a, x: _gammainc_dx(None, a, x) * (log(x) - digamma(a)),
)
gammainc = elementwise(
    "gammainc", ufunc_impl(sc.gammainc), lambda ans, a, x: gammainc_da(a, x), _gammainc_dx
)
gammaincc = elementwise(
    "gammaincc",
    ufunc_impl(sc.gammaincc),
    lambda ans, a, x: -gammainc_da(a, x),
    lambda ans, a, x: -_gammainc_dx(ans, a, x),
)
betainc = elementwise("betainc", ufunc_impl(sc.betainc), _, _, _betainc_dx)
# entr(x) = -x log x, 0 at x = 0.
entr = elementwise("entr", ufunc_impl(sc.entr), lambda ans, x: -(log(x) + 1.0))

# Bessel functions of the first (j) and second (y) kind and the modified ones (i); the order
# v has no derivative. Recurrences: J_v' = (J_{v-1} - J_{v+1}) / 2, the same for Y;
# I_v' = (I_{v-1} + I_{v+1}) / 2; ive = iv e^-|x|.
# J1' and Y1' are written with J0 and Y0 (J1' = J0 - J1 / x), not with jv and yv, which have
# no form on other libraries; J1 / x below 1 is its power series, so J1 has every
# derivative at 0 too (1/2, 0, -3/8, ...).
_J1_OVER_X = tuple(
    (-1) ** k / (2 * 4**k * math.factorial(k) * math.factorial(k + 1)) for k in range(12)
)


def _j1_over_x(x):
    near = abs(x) < 1.0
    u = x * x
    series = 0.0
    for c in reversed(_J1_OVER_X):
        series = series * u + c
    return where(near, series, j1(x) / where(near, 1.0, x))


j0 = elementwise("j0", ufunc_impl(sc.j0), lambda ans, x: -j1(x))
j1 = elementwise("j1", ufunc_impl(sc.j1), lambda ans, x: j0(x) - _j1_over_x(x))
y0 = elementwise("y0", ufunc_impl(sc.y0), lambda ans, x: -y1(x))
y1 = elementwise("y1", ufunc_impl(sc.y1), lambda ans, x: y0(x) - ans / x)
jv = elementwise(
    "jv",
    ufunc_impl(sc.jv),
    _,
    lambda ans, v, x: 0.5 * (jv(plain(v) - 1.0, x) - jv(plain(v) + 1.0, x)),
)
yv = elementwise(
    "yv",
    ufunc_impl(sc.yv),
    _,
    lambda ans, v, x: 0.5 * (yv(plain(v) - 1.0, x) - yv(plain(v) + 1.0, x)),
)
iv = elementwise(
    "iv",
    ufunc_impl(sc.iv),
    _,
    lambda ans, v, x: 0.5 * (iv(plain(v) - 1.0, x) + iv(plain(v) + 1.0, x)),
)
ive = elementwise(
    "ive",
    ufunc_impl(sc.ive),
    _,
    lambda ans, v, x: 0.5 * (ive(plain(v) - 1.0, x) + ive(plain(v) + 1.0, x)) - sign(x) * ans,
)
# gammasgn is piecewise constant; rgamma = 1 / gamma.
gammasgn = elementwise("gammasgn", ufunc_impl(sc.gammasgn), lambda ans, x: 0.0 * x)
rgamma = elementwise("rgamma", ufunc_impl(sc.rgamma), lambda ans, x: -ans * digamma(x))


# The scaled complementary error function and Dawson's integral: erfcx = exp(x^2) erfc(x),
# dawsn = exp(-x^2) int_0^x exp(t^2) dt.
erfcx = elementwise("erfcx", ufunc_impl(sc.erfcx), lambda ans, x: 2.0 * x * ans - 2.0 / _SQRT_PI)
dawsn = elementwise("dawsn", ufunc_impl(sc.dawsn), lambda ans, x: 1.0 - 2.0 * x * ans)
# Faddeeva's w(z) = exp(-z^2) erfc(-i z), holomorphic: w' = 2i / sqrt(pi) - 2 z w
wofz = elementwise("wofz", ufunc_impl(sc.wofz), lambda ans, z: 2j / _SQRT_PI - 2.0 * z * ans)
# Exponential integrals: E1' = -e^-x / x, Ei' = e^x / x, E_n' = -E_{n-1} (E_0 = e^-x / x).
exp1 = elementwise("exp1", ufunc_impl(sc.exp1), lambda ans, x: -exp(-x) / x)
expi = elementwise("expi", ufunc_impl(sc.expi), lambda ans, x: exp(x) / x)
expn = elementwise("expn", ufunc_impl(sc.expn), _, lambda ans, n, x: _expn_dx(n, x))
# Relative entropies: rel_entr = x log(x / y), kl_div = x log(x / y) - x + y.
rel_entr = elementwise(
    "rel_entr",
    ufunc_impl(sc.rel_entr),
    lambda ans, x, y: log(x) - log(y) + 1.0,
    lambda ans, x, y: -x / y,
)
kl_div = elementwise(
    "kl_div",
    ufunc_impl(sc.kl_div),
    lambda ans, x, y: log(x) - log(y),
    lambda ans, x, y: 1.0 - x / y,
)
# loggamma is gammaln on the positive reals (SciPy's is complex elsewhere).
loggamma = elementwise("loggamma", ufunc_impl(sc.loggamma), lambda ans, x: digamma(x))
# The rising factorial poch(z, m) = gamma(z + m) / gamma(z).
poch = elementwise(
    "poch",
    ufunc_impl(sc.poch),
    lambda ans, z, m: ans * (digamma(z + m) - digamma(z)),
    lambda ans, z, m: ans * digamma(z + m),
)
# Hurwitz's zeta(x, q): d/dq = -x zeta(x + 1, q); d/dx by Euler-Maclaurin's sum, whose
# own d/dq is d/dx of -x zeta(x + 1, q).
zeta_dx = elementwise(
    "zeta_dx",
    special_parameters.zeta_dx,
    _,
    lambda ans, x, q: -zeta(x + 1.0, q) - x * zeta_dx(x + 1.0, q),
)
zeta = elementwise(
    "zeta",
    ufunc_impl(sc.zeta),
    lambda ans, x, q: zeta_dx(x, q),
    lambda ans, x, q: -x * zeta(x + 1.0, q),
)
# SciPy's dilogarithm spence(z) = int_1^z log(t) / (1 - t) dt, whose slope is -1 at z = 1:
# there the slope's Taylor series in z - 1, so that the higher derivatives at 1 are right.
spence = elementwise(
    "spence",
    ufunc_impl(sc.spence),
    lambda ans, z: where(plain(z) == 1, _spence_slope_near_one(z - 1.0), log(z) / _safe(1.0 - z)),
)
# The sine and cosine integrals (sici's two results) and Fresnel's S and C (fresnel's).
si = elementwise(
    "si",
    ufunc_impl(_first(sc.sici), "si"),
    lambda ans, x: where(plain(x) == 0, _sinc_near_zero(x), sin(x) / _safe(x)),
)
ci = elementwise("ci", ufunc_impl(_second(sc.sici), "ci"), lambda ans, x: cos(x) / x)
fresnel_s = elementwise(
    "fresnel_s",
    ufunc_impl(_first(sc.fresnel), "fresnel_s"),
    lambda ans, x: sin((0.5 * math.pi) * x * x),
)
fresnel_c = elementwise(
    "fresnel_c",
    ufunc_impl(_second(sc.fresnel), "fresnel_c"),
    lambda ans, x: cos((0.5 * math.pi) * x * x),
)
# Owen's T(h, a) = (1 / 2 pi) int_0^a exp(-h^2 (1 + t^2) / 2) / (1 + t^2) dt.
owens_t = elementwise(
    "owens_t",
    ufunc_impl(sc.owens_t),
    lambda ans, h, a: -0.5 * _gauss(h) * _erf(a * h / math.sqrt(2.0)),
    lambda ans, h, a: exp(-0.5 * h * h * (1.0 + a * a)) / (2.0 * math.pi * (1.0 + a * a)),
)
# Hypergeometric functions: in x, 1F1' = (a / b) 1F1(a+1; b+1; x) and
# 2F1' = (a b / c) 2F1(a+1, b+1; c+1; x); in the parameters by their series, whose own
# d/dx are the parameters' derivatives of these (2F1's in b is its in a, a and b swapped).
hyp1f1_da = elementwise(
    "hyp1f1_da",
    special_parameters.hyp1f1_da,
    _,
    _,
    lambda ans, a, b, x: (hyp1f1(a + 1.0, b + 1.0, x) + a * hyp1f1_da(a + 1.0, b + 1.0, x)) / b,
)
hyp1f1_db = elementwise(
    "hyp1f1_db",
    special_parameters.hyp1f1_db,
    _,
    _,
    lambda ans, a, b, x: a / b * (hyp1f1_db(a + 1.0, b + 1.0, x) - hyp1f1(a + 1.0, b + 1.0, x) / b),
)
hyp1f1 = elementwise(
    "hyp1f1",
    ufunc_impl(sc.hyp1f1),
    lambda ans, a, b, x: hyp1f1_da(a, b, x),
    lambda ans, a, b, x: hyp1f1_db(a, b, x),
    lambda ans, a, b, x: a / b * hyp1f1(a + 1.0, b + 1.0, x),
)


def _up(a, b, c):
    return a + 1.0, b + 1.0, c + 1.0


hyp2f1_da = elementwise(
    "hyp2f1_da",
    special_parameters.hyp2f1_da,
    _,
    _,
    _,
    lambda ans, a, b, c, x: b / c * (hyp2f1(*_up(a, b, c), x) + a * hyp2f1_da(*_up(a, b, c), x)),
)
hyp2f1_dc = elementwise(
    "hyp2f1_dc",
    special_parameters.hyp2f1_dc,
    _,
    _,
    _,
    lambda ans, a, b, c, x: (
        a * b / c * (hyp2f1_dc(*_up(a, b, c), x) - hyp2f1(*_up(a, b, c), x) / c)
    ),
)
hyp2f1 = elementwise(
    "hyp2f1",
    ufunc_impl(sc.hyp2f1),
    lambda ans, a, b, c, x: hyp2f1_da(a, b, c, x),
    lambda ans, a, b, c, x: hyp2f1_da(b, a, c, x),
    lambda ans, a, b, c, x: hyp2f1_dc(a, b, c, x),
    lambda ans, a, b, c, x: a * b / c * hyp2f1(*_up(a, b, c), x),
)
# Box-Cox: (x^l - 1) / l, log x at l = 0; boxcox1p of 1 + x.
boxcox = elementwise(
    "boxcox",
    ufunc_impl(sc.boxcox),
    lambda ans, x, lmbda: power(x, lmbda - 1.0),
    lambda ans, x, lmbda: _boxcox_dl(ans, x, lmbda),
)
boxcox1p = elementwise(
    "boxcox1p",
    ufunc_impl(sc.boxcox1p),
    lambda ans, x, lmbda: power(1.0 + x, lmbda - 1.0),
    lambda ans, x, lmbda: _boxcox_dl(ans, 1.0 + x, lmbda),
)


# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(gammasgn, flat=ALL)


# Their forms on PyTorch, CuPy and JAX arrays (torch.special, cupyx.scipy.special,
# jax.scipy.special): SciPy's names, PyTorch's Bessel functions named otherwise; on a
# library with none, the common ones in the standard's arithmetic (.special_standard).
gammaln.xp = special_form("gammaln", standard=special_standard.gammaln)
digamma.xp = special_form("digamma", standard=special_standard.digamma)
polygamma.xp = special_form("polygamma", standard=special_standard.polygamma)
erfc.xp = special_form("erfc", standard=special_standard.erfc)
erfinv.xp = special_form("erfinv", standard=special_standard.erfinv)
erfcinv.xp = special_form("erfcinv", standard=special_standard.erfcinv)
ndtr.xp = special_form("ndtr", standard=special_standard.ndtr)
log_ndtr.xp = special_form("log_ndtr", standard=special_standard.log_ndtr)
ndtri.xp = special_form("ndtri", standard=special_standard.ndtri)
xlogy.xp = special_form("xlogy", standard=special_standard.xlogy)
xlog1py.xp = special_form("xlog1py", standard=special_standard.xlog1py)
i1.xp = special_form("i1", standard=bessel_standard.i1)
i0e.xp = special_form("i0e", standard=bessel_standard.i0e)
i1e.xp = special_form("i1e", standard=bessel_standard.i1e)
entr.xp = special_form("entr", standard=special_standard.entr)
erfcx.xp = special_form("erfcx", standard=special_standard.erfcx)
gammainc.xp = special_form("gammainc", standard=special_standard.gammainc)
gammaincc.xp = special_form("gammaincc", standard=special_standard.gammaincc)
zeta.xp = special_form("zeta", standard=special_standard.zeta)
rel_entr.xp = special_form("rel_entr", standard=special_standard.rel_entr)
kl_div.xp = special_form("kl_div", standard=special_standard.kl_div)
boxcox.xp = special_form("boxcox", standard=special_standard.boxcox)
boxcox1p.xp = special_form("boxcox1p", standard=special_standard.boxcox1p)
j0.xp = special_form("j0", "bessel_j0", standard=bessel_standard.j0)
j1.xp = special_form("j1", "bessel_j1", standard=bessel_standard.j1)
y0.xp = special_form("y0", "bessel_y0", standard=bessel_standard.y0)
y1.xp = special_form("y1", "bessel_y1", standard=bessel_standard.y1)
