"""More of SciPy's special functions, one line per primitive as in :mod:`.special`:
``log_expit``, ``exp10``, the Huber losses ``huber`` and ``pseudo_huber``, the inverse
Box-Cox transforms ``inv_boxcox`` and ``inv_boxcox1p``, ``binom``, the modified Bessel
functions of the second kind ``k0``, ``k1``, ``k0e``, ``k1e``, ``kv``, ``kve``
(differentiable in x, not the order, as ``iv``), and the complete elliptic integrals
``ellipk`` and ``ellipe`` (each other's derivative). Values are SciPy's.

>>> import funcgrad as fg
>>> float(fg.grad(k0)(1.0)) == -float(k1(1.0))
True
"""

import math

import scipy.special as sc

from ..core.values import plain
from .elementwise import abs as _abs
from .elementwise import elementwise, sigmoid, sign, sqrt, ufunc_impl, where
from .special import digamma
from .ufuncs import log1p

__all__ = [
    "log_expit",
    "exp10",
    "huber",
    "pseudo_huber",
    "inv_boxcox",
    "inv_boxcox1p",
    "binom",
    "k0",
    "k1",
    "k0e",
    "k1e",
    "kv",
    "kve",
    "ellipk",
    "ellipe",
]

_ = None  # no derivative (an order)
_LN10 = math.log(10.0)
_PI_8 = math.pi / 8.0

log_expit = elementwise("log_expit", ufunc_impl(sc.log_expit), lambda ans, x: sigmoid(-x))
exp10 = elementwise("exp10", ufunc_impl(sc.exp10), lambda ans, x: ans * _LN10)


# huber(d, r): r^2 / 2 within |r| <= d, d (|r| - d / 2) beyond (inf for d < 0)
def _huber_dd(ans, delta, r):
    return where(_abs(r) <= delta, 0.0, _abs(r) - delta)


def _huber_dr(ans, delta, r):
    return where(_abs(r) <= delta, r, delta * sign(r))


huber = elementwise("huber", ufunc_impl(sc.huber), _huber_dd, _huber_dr)


# pseudo_huber(d, r) = d^2 (s - 1), s = sqrt(1 + (r / d)^2)
def _pseudo_huber_dd(ans, delta, r):
    s = sqrt(1.0 + (r / delta) ** 2)
    return 2.0 * delta * (s - 1.0) - r**2 / (delta * s)


def _pseudo_huber_dr(ans, delta, r):
    return r / sqrt(1.0 + (r / delta) ** 2)


pseudo_huber = elementwise(
    "pseudo_huber", ufunc_impl(sc.pseudo_huber), _pseudo_huber_dd, _pseudo_huber_dr
)


# inv_boxcox(y, l) = (1 + l y)^(1 / l), exp(y) at l = 0; inv_boxcox1p is that less 1
def _inv_boxcox_dy(x, y, lmbda):
    return x / (1.0 + lmbda * y)


def _inv_boxcox_dl(x, y, lmbda):
    """d x / d l = x (y / (l (1 + l y)) - log1p(l y) / l^2); -x y^2 / 2 at l = 0."""
    zero = lmbda == 0.0
    safe = where(zero, 1.0, lmbda)
    inside = safe * y > -1.0  # where not, x is NaN already: no warning from the log
    general = y / (safe * (1.0 + safe * y)) - log1p(where(inside, safe * y, 0.0)) / safe**2
    return x * where(zero, -0.5 * y * y, general)


inv_boxcox = elementwise(
    "inv_boxcox",
    ufunc_impl(sc.inv_boxcox),
    lambda ans, y, lmbda: _inv_boxcox_dy(ans, y, lmbda),
    lambda ans, y, lmbda: _inv_boxcox_dl(ans, y, lmbda),
)
inv_boxcox1p = elementwise(
    "inv_boxcox1p",
    ufunc_impl(sc.inv_boxcox1p),
    lambda ans, y, lmbda: _inv_boxcox_dy(ans + 1.0, y, lmbda),
    lambda ans, y, lmbda: _inv_boxcox_dl(ans + 1.0, y, lmbda),
)
# binom(n, k) = Gamma(n + 1) / (Gamma(k + 1) Gamma(n - k + 1))
binom = elementwise(
    "binom",
    ufunc_impl(sc.binom),
    lambda ans, n, k: ans * (digamma(n + 1.0) - digamma(n - k + 1.0)),
    lambda ans, n, k: ans * (digamma(n - k + 1.0) - digamma(k + 1.0)),
)

# K_0' = -K_1, K_1' = -K_0 - K_1 / x, K_v' = -(K_{v-1} + K_{v+1}) / 2; the scaled
# K_ve = e^x K_v: K_ve' = K_ve - (K_{v-1}e + K_{v+1}e) / 2
k0 = elementwise("k0", ufunc_impl(sc.k0), lambda ans, x: -k1(x))
k1 = elementwise("k1", ufunc_impl(sc.k1), lambda ans, x: -k0(x) - ans / x)
k0e = elementwise("k0e", ufunc_impl(sc.k0e), lambda ans, x: ans - k1e(x))
k1e = elementwise("k1e", ufunc_impl(sc.k1e), lambda ans, x: ans - k0e(x) - ans / x)
kv = elementwise(
    "kv",
    ufunc_impl(sc.kv),
    _,
    lambda ans, v, x: -0.5 * (kv(plain(v) - 1.0, x) + kv(plain(v) + 1.0, x)),
)
kve = elementwise(
    "kve",
    ufunc_impl(sc.kve),
    _,
    lambda ans, v, x: ans - 0.5 * (kve(plain(v) - 1.0, x) + kve(plain(v) + 1.0, x)),
)


# K'(m) = (E - (1 - m) K) / (2 m (1 - m)), E'(m) = (E - K) / (2 m); pi / 8 and -pi / 8 at 0
def _ellipk_dm(ans, m):
    zero = m == 0.0
    safe = where(zero, 0.5, m)
    return where(zero, _PI_8, (ellipe(safe) - (1.0 - safe) * ans) / (2.0 * safe * (1.0 - safe)))


def _ellipe_dm(ans, m):
    zero = m == 0.0
    safe = where(zero, 0.5, m)
    return where(zero, -_PI_8, (ans - ellipk(safe)) / (2.0 * safe))


ellipk = elementwise("ellipk", ufunc_impl(sc.ellipk), _ellipk_dm)
ellipe = elementwise("ellipe", ufunc_impl(sc.ellipe), _ellipe_dm)
