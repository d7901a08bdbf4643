"""SciPy's common special functions in the Array API standard's arithmetic only.

The standard has no special functions, so on a library without its own (array-api-strict,
or any other standard namespace; PyTorch, CuPy and JAX use theirs) these forms compute them
from ``exp``, ``log``, ``where`` and the four operations, with no data-dependent branch:
each is a fixed sequence of array steps, so it runs on the arrays' device and traces.

- ``erf``/``erfc``/``ndtr``: below 2 the Taylor series of erf (40 terms); from 2 on erfc's
  continued fraction (80 levels, evaluated from the bottom), which also gives ``log_ndtr``'s
  far left tail as a logarithm without underflow.
- ``gammaln``: Lanczos's approximation (g = 7, nine terms), reflected below 1/2.
- ``erfinv``, ``erfcinv``, ``ndtri``: Newton's method on erf (near 0) or on the logarithm of
  erfc (elsewhere, so a tail of 1e-300 keeps its digits), twelve steps from a first guess.
- ``digamma``: ten steps of the recurrence, then the asymptotic series to x^-14, reflected
  below 1/2; ``polygamma(n, x)``, n >= 1: twenty steps, then its asymptotic series (x > -9.5,
  NaN below: no data-dependent number of steps).
- ``erfcx``: ``exp(x^2) erfc(x)`` from the same pieces (the continued fraction's form
  needs no exponential at all).
- The Bessel functions are :mod:`funcgrad.rules.bessel_standard`'s.
- ``gammainc``, ``gammaincc``: the series of P below x = a + 1 (300 terms), the continued
  fraction of Q above (120 levels): for a and x up to about 150.
- ``zeta(x, q)``: twelve terms, then Euler-Maclaurin's tail with seven Bernoulli terms (q > -10).
- ``xlogy``, ``xlog1py``, ``entr``, ``rel_entr``, ``kl_div``: their definitions, 0 where x is 0
  (``kl_div``: y), infinite outside their domains as SciPy's.
- ``boxcox``, ``boxcox1p``: ``expm1(l log x) / l`` (``log1p`` for boxcox1p), ``log x`` where
  ``|l| < 1e-19``, as SciPy computes them.

They cost what their fixed sequences are: erf a few hundred array operations, an inverse
by Newton's method about 1,500, the incomplete gammas about 2,000 (each one step of a
jit plan, which calls it). Each is within 1e-13 of SciPy's in float64 (relative, or 1e-14
absolute near a zero; gammaln, digamma and polygamma 2e-12, their reflections subtracting
logarithms of growing size, and near a pole within what x's last digit allows) over the
ranges tests/numpy/test_device_special.py samples, and infinite without a warning where
SciPy's overflows.

>>> import numpy as np                             # NumPy 2's namespace is a standard one too
>>> from funcgrad.rules.special_standard import gammaln
>>> float(gammaln(np, np.asarray(4.0)))        # log(3!)
1.791759469228055
"""

import math

__all__ = [
    "erf",
    "erfc",
    "ndtr",
    "log_ndtr",
    "erfinv",
    "erfcinv",
    "ndtri",
    "gammaln",
    "digamma",
    "polygamma",
    "erfcx",
    "gammainc",
    "gammaincc",
    "zeta",
    "xlogy",
    "xlog1py",
    "entr",
    "rel_entr",
    "kl_div",
    "boxcox",
    "boxcox1p",
]

_SQRT_PI = math.sqrt(math.pi)


def _erf_series(xp, a):
    """erf(a) for 0 <= a < 2 (elsewhere a is taken as 0): the Taylor series."""
    small = xp.where(a < 2.0, a, xp.zeros_like(a))
    square, term, series = small * small, small, small
    for k in range(1, 40):
        term = term * -square / k
        series = series + term / (2 * k + 1)
    return series * (2.0 / _SQRT_PI)


def _fraction(xp, a):
    """``(a', d)`` with ``erfc(a') = exp(-a'^2) / sqrt(pi) / d`` for a' = max(a, 2): erfc's
    continued fraction, evaluated from the bottom."""
    large = xp.where(a < 2.0, xp.full_like(a, 2.0), a)
    tail = xp.zeros_like(a)
    for k in range(80, 0, -1):
        tail = (k / 2.0) / (large + tail)
    return large, large + tail


def _erfc_of_nonnegative(xp, a):
    large, denominator = _fraction(xp, a)
    return xp.where(
        a < 2.0, 1.0 - _erf_series(xp, a), xp.exp(-large * large) / _SQRT_PI / denominator
    )


def erf(xp, x):
    a = xp.abs(x)
    value = 1.0 - _erfc_of_nonnegative(xp, a)
    value = xp.where(a < 2.0, _erf_series(xp, a), value)
    return xp.where(xp.signbit(x), -value, value)  # odd, -0.0 included


def erfc(xp, x):
    a = xp.abs(x)
    tail = _erfc_of_nonnegative(xp, a)
    return xp.where(x < 0.0, 2.0 - tail, tail)


def ndtr(xp, x):
    return 0.5 * erfc(xp, -x / math.sqrt(2.0))


def log_ndtr(xp, x):
    a = -x / math.sqrt(2.0)  # ndtr(x) = erfc(a) / 2
    large, denominator = _fraction(xp, a)
    far_left = math.log(0.5) - large * large - math.log(_SQRT_PI) - xp.log(denominator)
    # on the right ndtr is near 1: log1p of minus the small left tail
    right = xp.log1p(-0.5 * erfc(xp, xp.where(a < 0.0, -a, xp.zeros_like(a))))
    middle = xp.log(0.5 * erfc(xp, xp.where(a < 2.0, a, xp.zeros_like(a))))
    return xp.where(a >= 2.0, far_left, xp.where(a < 0.0, right, middle))


def _log_erfc_and_ratio(xp, a):
    """For a >= 0: ``log erfc(a)`` and ``exp(-a^2) / erfc(a)``, both without underflow."""
    large, denominator = _fraction(xp, a)
    far = -large * large - math.log(_SQRT_PI) - xp.log(denominator)
    near = 1.0 - _erf_series(xp, a)
    log_erfc = xp.where(a < 2.0, xp.log(near), far)
    ratio = xp.where(a < 2.0, xp.exp(-a * a) / near, _SQRT_PI * denominator)
    return log_erfc, ratio


def _erfcinv_of_at_most_one(xp, q):
    """erfcinv(q) for 0 < q <= 1 (x >= 0): Newton's method on log erfc(x) = log q."""
    target = xp.log(q)
    x = xp.sqrt(-target)
    for _ in range(12):
        log_erfc, ratio = _log_erfc_and_ratio(xp, xp.where(x > 0.0, x, xp.zeros_like(x)))
        x = x + (log_erfc - target) / ((2.0 / _SQRT_PI) * ratio)
    return x


def erfcinv(xp, q):
    low = q <= 1.0
    safe = xp.where(low, q, 2.0 - q)
    inside = (safe > 0.0) & (safe <= 1.0)
    x = _erfcinv_of_at_most_one(xp, xp.where(inside, safe, xp.ones_like(safe)))
    x = xp.where(low, x, -x)
    x = xp.where(q == 0.0, xp.full_like(q, math.inf), x)
    x = xp.where(q == 2.0, xp.full_like(q, -math.inf), x)
    return xp.where((q < 0.0) | (q > 2.0) | xp.isnan(q), xp.full_like(q, math.nan), x)


def erfinv(xp, y):
    a = xp.abs(y)
    # near 0: Newton on erf itself (1 - y would lose y's digits); elsewhere that branch
    # runs on 0.25, whose result is not used
    a_near = xp.where(a < 0.5, a, xp.full_like(a, 0.25))
    x = a_near * (_SQRT_PI / 2.0)
    for _ in range(8):
        x = x - (erf(xp, x) - a_near) / ((2.0 / _SQRT_PI) * xp.exp(-x * x))
    far = erfcinv(xp, 1.0 - xp.where(a < 0.5, xp.full_like(a, 0.5), a))
    value = xp.where(a < 0.5, x, far)
    return xp.where(xp.signbit(y), -value, value)


def ndtri(xp, p):
    return -math.sqrt(2.0) * erfcinv(xp, 2.0 * p)


_LANCZOS = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)


def _non_positive_integer(xp, x):
    return (x <= 0.0) & (x == xp.floor(x))


def gammaln(xp, x):
    reflect = x < 0.5
    z = xp.where(reflect, 1.0 - x, x) - 1.0
    total = xp.full_like(z, _LANCZOS[0])
    for k, c in enumerate(_LANCZOS[1:], start=1):
        total = total + c / (z + k)
    t = z + 7.5
    value = 0.5 * math.log(2 * math.pi) + (z + 0.5) * xp.log(t) - t + xp.log(total)
    # log |Gamma(x)| = log(pi / |sin(pi x)|) - log Gamma(1 - x)
    pole = _non_positive_integer(xp, x)
    safe = xp.where(reflect & ~pole, x, xp.full_like(x, 0.5))  # sin(pi x) = 0 at a pole
    reflected = math.log(math.pi) - xp.log(xp.abs(xp.sin(math.pi * safe))) - value
    value = xp.where(reflect, reflected, value)
    return xp.where(pole, xp.full_like(x, math.inf), value)


_STEPS = 10  # recurrence steps before the asymptotic series (x + 10 >= 10.5)
# the asymptotic series' coefficients B_2k / (2k), k = 1..7
_BERNOULLI = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def digamma(xp, x):
    reflect = x < 0.5
    y = xp.where(reflect, 1.0 - x, x)
    shifts = xp.zeros_like(y)
    for k in range(_STEPS):
        shifts = shifts + 1.0 / (y + k)
    z = y + _STEPS
    inverse_square = 1.0 / (z * z)
    series = xp.zeros_like(z)
    for c in reversed(_BERNOULLI):
        series = (series + c) * inverse_square
    psi = xp.log(z) - 0.5 / z - series - shifts
    # psi(x) = psi(1 - x) - pi / tan(pi x)
    at_pole = _non_positive_integer(xp, x)
    angle = math.pi * xp.where(reflect & ~at_pole, x, xp.full_like(x, 0.25))
    psi = xp.where(reflect, psi - math.pi * xp.cos(angle) / xp.sin(angle), psi)
    pole = xp.where(x == 0.0, xp.full_like(x, -math.inf), xp.full_like(x, math.nan))
    return xp.where(at_pole, pole, psi)


# B_2k, k = 1..7
_B2K = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)
_POLYGAMMA_STEPS = 20


def polygamma(xp, n, x):
    n = xp.astype(n, x.dtype) if hasattr(n, "dtype") else xp.full_like(x, float(n))
    digamma_here = n == 0.0
    n = xp.where(digamma_here, xp.ones_like(n), n)  # n = 0 is digamma's, below
    sign = xp.where(n % 2.0 == 0.0, -xp.ones_like(n), xp.ones_like(n))  # (-1)^(n + 1)
    n_factorial = xp.exp(gammaln(xp, n + 1.0))
    shifts = xp.zeros_like(x * n)
    for k in range(_POLYGAMMA_STEPS):
        shifts = shifts + xp.pow(x + k, -(n + 1.0))
    z = x + _POLYGAMMA_STEPS
    inside = z > 10.0
    z = xp.where(inside, z, xp.full_like(z, 11.0))
    # (n-1)!/z^n + n!/(2 z^(n+1)) + sum_k B_2k (2k+n-1)!/(2k)! / z^(2k+n)
    series = n_factorial / n * xp.pow(z, -n) + n_factorial / 2.0 * xp.pow(z, -(n + 1.0))
    for k, b in enumerate(_B2K, start=1):
        ratio = xp.exp(gammaln(xp, 2.0 * k + n) - math.lgamma(2 * k + 1))
        series = series + b * ratio * xp.pow(z, -(2.0 * k + n))
    value = sign * (series + n_factorial * shifts)
    value = xp.where(inside, value, xp.full_like(value, math.nan))
    return xp.where(digamma_here, digamma(xp, x), value)


def erfcx(xp, x):
    a = xp.abs(x)
    _, denominator = _fraction(xp, a)
    near = xp.where(a < 2.0, a, xp.zeros_like(a))
    of_nonnegative = xp.where(
        a < 2.0, xp.exp(near * near) * (1.0 - _erf_series(xp, a)), 1.0 / (_SQRT_PI * denominator)
    )
    # erfcx(-a) = 2 exp(a^2) - erfcx(a), infinite where SciPy's is
    left = xp.where(x < 0.0, a, xp.zeros_like(a))
    return xp.where(
        x < 0.0, _exp_or_inf(xp, left * left + math.log(2.0)) - of_nonnegative, of_nonnegative
    )


def _exp_or_inf(xp, t):
    """``exp(t)``, infinite past the dtype's largest number without an overflow warning."""
    inside = t <= math.log(float(xp.finfo(t.dtype).max))
    value = xp.exp(xp.where(inside, t, xp.zeros_like(t)))
    return xp.where(inside, value, xp.full_like(t, math.inf))


def _regularized_gammas(xp, a, x):
    """``(P(a, x), Q(a, x))``: P's series where x < a + 1, Q's continued fraction beyond,
    each the other's complement; ``a`` and ``x`` positive and finite here."""
    series_side = x < a + 1.0
    log_front = -x + a * xp.log(x) - gammaln(xp, a)
    # P = exp(log_front) / a * (1 + x / (a + 1) + x^2 / ((a + 1)(a + 2)) + ...)
    xs = xp.where(series_side, x, xp.zeros_like(x))
    term, total = xp.ones_like(x), xp.ones_like(x)
    for n in range(1, 300):
        term = term * xs / (a + n)
        total = total + term
    p = xp.exp(log_front) * total / a
    # Q = exp(log_front) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (...)))
    xf = xp.where(series_side, a + 1.0, x)
    tail = xp.zeros_like(x)
    for k in range(120, 0, -1):
        tail = k * (k - a) / (xf + 2 * k + 1 - a - tail)
    q = xp.exp(-xf + a * xp.log(xf) - gammaln(xp, a)) / (xf + 1.0 - a - tail)
    return xp.where(series_side, p, 1.0 - q), xp.where(series_side, 1.0 - p, q)


def _gamma_edges(xp, a, x, value, at_zero, at_infinity):
    """SciPy's values off the interior: x = 0, x = inf, a = 0 (the limit), NaN elsewhere."""
    value = xp.where(x == 0.0, xp.full_like(value, at_zero), value)
    value = xp.where(xp.isinf(x), xp.full_like(value, at_infinity), value)
    value = xp.where((a == 0.0) & (x > 0.0), xp.full_like(value, at_infinity), value)
    invalid = (a < 0.0) | (x < 0.0) | xp.isnan(a) | xp.isnan(x) | ((a == 0.0) & (x == 0.0))
    return xp.where(invalid, xp.full_like(value, math.nan), value)


def _interior(xp, a, x):
    inside = (a > 0.0) & (x > 0.0) & xp.isfinite(x)
    return xp.where(inside, a, xp.ones_like(a)), xp.where(inside, x, xp.ones_like(x))


def gammainc(xp, a, x):
    a, x = xp.broadcast_arrays(*_as_float_pair(xp, a, x))
    p, _ = _regularized_gammas(xp, *_interior(xp, a, x))
    return _gamma_edges(xp, a, x, p, 0.0, 1.0)


def gammaincc(xp, a, x):
    a, x = xp.broadcast_arrays(*_as_float_pair(xp, a, x))
    _, q = _regularized_gammas(xp, *_interior(xp, a, x))
    return _gamma_edges(xp, a, x, q, 1.0, 0.0)


def _as_float_pair(xp, a, x):
    """Two operands (one maybe a Python number) as arrays of one floating dtype."""
    like = a if hasattr(a, "dtype") else x
    a = a if hasattr(a, "dtype") else xp.full_like(like, float(a))
    x = x if hasattr(x, "dtype") else xp.full_like(like, float(x))
    dtype = xp.result_type(a, x)
    return xp.astype(a, dtype), xp.astype(x, dtype)


_ZETA_TERMS = 12
# B_2j / (2j)!, j = 1..7
_B2J_OVER_FACTORIAL = tuple(b / math.factorial(2 * j) for j, b in enumerate(_B2K, start=1))


def zeta(xp, x, q):
    """Hurwitz's zeta(x, q) = sum_k (q + k)^-x, x > 1 (Riemann's at q = 1)."""
    x, q = xp.broadcast_arrays(*_as_float_pair(xp, x, q))
    valid = (x > 1.0) & (q > -_ZETA_TERMS + 2.0) & ~((q <= 0.0) & (q == xp.floor(q)))
    s = xp.where(valid, x, xp.full_like(x, 2.0))
    base = xp.where(valid, q, xp.ones_like(q))
    total = xp.zeros_like(s)
    for k in range(_ZETA_TERMS):
        total = total + xp.pow(base + k, -s)
    end = base + _ZETA_TERMS
    total = total + xp.pow(end, 1.0 - s) / (s - 1.0) + 0.5 * xp.pow(end, -s)
    rising = s  # s (s + 1) ... (s + 2j - 2)
    for j, c in enumerate(_B2J_OVER_FACTORIAL, start=1):
        total = total + c * rising * xp.pow(end, -s - 2 * j + 1)
        rising = rising * (s + 2 * j - 1) * (s + 2 * j)
    pole = (x == 1.0) | ((q <= 0.0) & (q == xp.floor(q)) & (x > 1.0))
    value = xp.where(valid, total, xp.full_like(total, math.nan))
    return xp.where(pole, xp.full_like(total, math.inf), value)


def xlogy(xp, x, y):
    return xp.where(x == 0.0, xp.zeros_like(x * y), x * xp.log(y))


def xlog1py(xp, x, y):
    return xp.where(x == 0.0, xp.zeros_like(x * y), x * xp.log1p(y))


def entr(xp, x):
    inside = xp.where(x > 0.0, x, xp.ones_like(x))
    value = xp.where(x > 0.0, -inside * xp.log(inside), xp.full_like(x, -math.inf))
    return xp.where(x == 0.0, xp.zeros_like(x), value)


def _relative_entropy(xp, x, y, at_zero):
    """``x log(x / y)`` for positive x and y, ``at_zero`` (0, or y) where x is 0 and y >= 0,
    inf elsewhere and NaN where either is NaN: rel_entr's cases, shared by kl_div."""
    x, y = xp.broadcast_arrays(*_as_float_pair(xp, x, y))
    positive = (x > 0.0) & (y > 0.0)
    finite = positive & (x < math.inf) & (y < math.inf)
    ones = xp.ones_like(x)
    x1, y1 = xp.where(finite, x, ones), xp.where(finite, y, ones)
    # log(x / y) as SciPy takes it, but where x / y would overflow or underflow, the
    # difference of the logarithms (then as exact as the ratio's logarithm)
    apart = xp.log(x1) - xp.log(y1)
    near = xp.abs(apart) < 700.0
    log_ratio = xp.where(near, xp.log(xp.where(near, x1, ones) / xp.where(near, y1, ones)), apart)
    infinite = xp.where(
        x == math.inf,
        xp.where(y == math.inf, xp.full_like(x, math.nan), xp.full_like(x, math.inf)),
        xp.full_like(x, -math.inf),
    )  # inf log(inf / y), x log(x / inf), inf log(inf / inf)
    inside = xp.where(finite, x1 * log_ratio, infinite)
    inside = xp.where(positive, inside, xp.full_like(x, math.inf))
    zero = xp.zeros_like(x) if at_zero is None else y
    value = xp.where((x == 0.0) & (y >= 0.0), zero, inside)
    value = xp.where(xp.isnan(x) | xp.isnan(y), xp.full_like(x, math.nan), value)
    return value, finite, x1, y1, positive


def rel_entr(xp, x, y):
    return _relative_entropy(xp, x, y, None)[0]


def kl_div(xp, x, y):
    value, finite, x1, y1, positive = _relative_entropy(xp, x, y, "y")
    # x log(x / y) - x + y; NaN where x or y is infinite (inf - inf)
    nan = xp.full_like(value, math.nan)
    return xp.where(positive, xp.where(finite, value - x1 + y1, nan), value)


def _boxcox_of_log(xp, log_x, lmbda):
    log_x, lmbda = xp.broadcast_arrays(*_as_float_pair(xp, log_x, lmbda))
    tiny = xp.abs(lmbda) < 1e-19
    safe = xp.where(tiny, xp.ones_like(lmbda), lmbda)
    t = safe * log_x
    big = t > math.log(float(xp.finfo(t.dtype).max))  # expm1 overflows there (NaN stays)
    grown = xp.where(big, xp.full_like(t, math.inf), xp.expm1(xp.where(big, xp.zeros_like(t), t)))
    return xp.where(tiny, log_x, grown / safe)


def boxcox(xp, x, lmbda):
    # log x without a warning: -inf at 0, NaN below
    inside = xp.where(x > 0.0, x, xp.ones_like(x))
    edge = xp.where(x == 0.0, xp.full_like(x, -math.inf), xp.full_like(x, math.nan))
    return _boxcox_of_log(xp, xp.where(x > 0.0, xp.log(inside), edge), lmbda)


def boxcox1p(xp, x, lmbda):
    inside = xp.where(x > -1.0, x, xp.zeros_like(x))
    edge = xp.where(x == -1.0, xp.full_like(x, -math.inf), xp.full_like(x, math.nan))
    return _boxcox_of_log(xp, xp.where(x > -1.0, xp.log1p(inside), edge), lmbda)
