"""The Bessel functions ``i0``, ``i1``, ``i0e``, ``i1e``, ``j0``, ``j1``, ``y0``, ``y1`` in
the Array API standard's arithmetic only (see :mod:`funcgrad.rules.special_standard`: no
data-dependent branch, so they stay on the arrays' device and trace).

- ``i0``, ``i1``, ``i0e``, ``i1e``: the power series up to 15 (all its terms positive), the
  asymptotic series of ``exp(-x) I(x)`` beyond.
- ``j0``, ``j1``, ``y0``, ``y1``: below 2 their power series; from 2 to 25 Miller's
  backward recurrence from order 80 (rescaled every 8 orders, so float32 does not overflow),
  normalised by ``J0 + 2 (J2 + J4 + ...) = 1``, with Neumann's series giving Y0 and its
  derivative Y1 from the same orders; from 25 Hankel's asymptotic series. Within 5e-16 of
  the true values (absolute) below 25 and within 1e-14 of SciPy's to 10^5; beyond, SciPy's
  phase loses digits that these keep (``y1(1e300)`` is 7.86e-151; SciPy says -6.53e-151).
  SciPy's values at the edges: NaN at infinities and, for Y, below 0; ``y0(0)`` and
  ``y1`` of 0 and of subnormal numbers -inf.

>>> import numpy as np
>>> from funcgrad.rules.bessel_standard import j0, y1
>>> j0(np, np.asarray([0.0, 1.0, 30.0]))
array([ 1.        ,  0.76519769, -0.08636798])
>>> float(y1(np, np.asarray(1.0)))
-0.7812128213002887
"""

import math

from .special_standard import _exp_or_inf

__all__ = ["i0", "i1", "i0e", "i1e", "j0", "j1", "y0", "y1"]

_BESSEL_SWITCH = 15.0


def _bessel_i_scaled(xp, order, x):
    """``exp(-|x|) I_order(|x|)`` for order 0 or 1."""
    a = xp.abs(x)
    # the power series: sum_k (a/2)^(2k + order) / (k! (k + order)!), all terms positive
    small = xp.where(a <= _BESSEL_SWITCH, a, xp.zeros_like(a))
    quarter = small * small / 4.0
    term = xp.ones_like(a) if order == 0 else small / 2.0
    series = term
    for k in range(1, 60):
        term = term * quarter / (k * (k + order))
        series = series + term
    series = series * xp.exp(-small)
    # the asymptotic series: 1 / sqrt(2 pi a) sum_k (-1)^k prod_j (4 order^2 - (2j-1)^2)
    # / (k! (8 a)^k)
    big = xp.where(a > _BESSEL_SWITCH, a, xp.full_like(a, 2 * _BESSEL_SWITCH))
    term = xp.ones_like(a)
    tail = term
    for k in range(1, 30):
        term = term * -(4 * order * order - (2 * k - 1) ** 2) / (k * 8.0 * big)
        tail = tail + term
    tail = tail / xp.sqrt(2.0 * math.pi * big)
    return xp.where(a <= _BESSEL_SWITCH, series, tail)


def i0e(xp, x):
    return _bessel_i_scaled(xp, 0, x)


def i1e(xp, x):
    value = _bessel_i_scaled(xp, 1, x)
    return xp.where(x < 0.0, -value, value)  # odd


def i0(xp, x):
    return _exp_or_inf(xp, xp.abs(x) + xp.log(i0e(xp, x)))


def i1(xp, x):
    scaled = i1e(xp, x)
    size = _exp_or_inf(xp, xp.abs(x) + xp.log(xp.where(x == 0.0, xp.ones_like(x), xp.abs(scaled))))
    return xp.where(x == 0.0, xp.zeros_like(x), xp.where(x < 0.0, -size, size))


_GAMMA = 0.5772156649015329  # Euler's constant
_SERIES_BELOW = 2.0  # the power series below, Miller's recurrence from here
_HANKEL_FROM = 25.0  # Hankel's asymptotic series from here
_MILLER_START = 80  # the order the backward recurrence starts from (even)
_RESCALE_EVERY = 8


def _jy_series(xp, a):
    """J0, J1, Y0, Y1 of 0 < a < 2 by their power series (elsewhere a is taken as 1)."""
    a = xp.where(a < _SERIES_BELOW, a, xp.ones_like(a))
    tiny = xp.finfo(a.dtype).smallest_normal  # below it 2 / (pi a) overflows: y1 is -inf
    safe = xp.where(a >= tiny, a, xp.ones_like(a))
    positive = xp.where(a > 0.0, a, xp.ones_like(a))
    q = -a * a / 4.0
    term0 = xp.ones_like(a)  # (-a^2/4)^k / (k!)^2
    term1 = xp.ones_like(a)  # (-a^2/4)^k / (k! (k+1)!)
    j0, j1, y0_sum = term0, term1, xp.zeros_like(a)
    harmonic = 0.0
    y1_sum = term1 * (1.0 - 2.0 * _GAMMA)  # psi(1) + psi(2) = 1 - 2 gamma
    for k in range(1, 24):
        term0 = term0 * q / (k * k)
        term1 = term1 * q / (k * (k + 1))
        harmonic += 1.0 / k
        j0 = j0 + term0
        j1 = j1 + term1
        y0_sum = y0_sum - harmonic * term0
        y1_sum = y1_sum + (2.0 * harmonic + 1.0 / (k + 1) - 2.0 * _GAMMA) * term1
    j1 = j1 * a / 2.0
    log_half = xp.log(positive / 2.0)
    y0 = (2.0 / math.pi) * ((log_half + _GAMMA) * j0 + y0_sum)
    y1 = -2.0 / (math.pi * safe) + (2.0 / math.pi) * log_half * j1 - a / (2.0 * math.pi) * y1_sum
    return j0, j1, y0, y1


def _jy_miller(xp, a):
    """J0, J1, Y0, Y1 of 2 <= a < 25 (elsewhere a is taken as 2): Miller's backward
    recurrence from order 80, normalised by J0 + 2 (J2 + J4 + ...) = 1, Neumann's
    series for Y0 and its derivative for Y1 from the same orders."""
    a = xp.where((a >= _SERIES_BELOW) & (a < _HANKEL_FROM), a, xp.full_like(a, 2.0))
    upper = xp.zeros_like(a)  # J_{k+1}, unnormalised
    j = xp.full_like(a, 1e-10)  # J_k
    norm = xp.zeros_like(a)  # J0 + 2 (J2 + J4 + ...) so far
    s0 = xp.zeros_like(a)  # sum_{m>=1} (-1)^m J_2m / m
    s1 = xp.zeros_like(a)  # sum_{m>=1} (-1)^m (J_{2m-1} - J_{2m+1}) / m
    odd_above = xp.zeros_like(a)  # J_{2m+1} for the m whose J_2m comes next
    for k in range(_MILLER_START, 0, -1):
        if k % 2 == 0:
            m = k // 2
            norm = norm + 2.0 * j
            s0 = s0 + (-1.0) ** m * j / m
            odd_above = upper  # J_{k+1}
        else:  # k = 2m - 1 with m = (k + 1) / 2: J_{2m-1} - J_{2m+1}
            m = (k + 1) // 2
            s1 = s1 + (-1.0) ** m * (j - odd_above) / m
        upper, j = j, (2.0 * k / a) * j - upper  # J_{k-1}
        if k % _RESCALE_EVERY == 0:
            scale = 1.0 / (xp.abs(j) + xp.abs(upper))
            upper, j, norm, s0, s1, odd_above = (
                v * scale for v in (upper, j, norm, s0, s1, odd_above)
            )
    norm = norm + j
    j0, j1 = j / norm, upper / norm
    s0, s1 = s0 / norm, s1 / norm
    log_half = xp.log(a / 2.0) + _GAMMA
    y0 = (2.0 / math.pi) * (log_half * j0 - 2.0 * s0)
    y1 = (2.0 / math.pi) * (log_half * j1 - j0 / a + s1)
    return j0, j1, y0, y1


def _jy_hankel(xp, a):
    """J0, J1, Y0, Y1 of a >= 25 (elsewhere a is taken as 25): Hankel's asymptotic series."""
    a = xp.where(a >= _HANKEL_FROM, a, xp.full_like(a, _HANKEL_FROM))
    a = xp.where(xp.isinf(a), xp.full_like(a, _HANKEL_FROM), a)
    out = []
    for nu in (0, 1):
        mu = 4.0 * nu * nu
        term = xp.ones_like(a)
        p, q = term, xp.zeros_like(a)
        for k in range(1, 28):
            term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * a)
            if k % 2:
                q = q + (-1.0) ** ((k - 1) // 2) * term
            else:
                p = p + (-1.0) ** (k // 2) * term
        out.append((p, q))
    # the phases a - pi/4 and a - 3 pi/4 by the sums of cos a and sin a: subtracting
    # pi/4 from a large a would lose its last digits
    c, s = xp.cos(a), xp.sin(a)
    r = xp.sqrt(1.0 / (math.pi * a))  # sqrt(2 / (pi a)) / sqrt(2)
    (p0, q0), (p1, q1) = out
    cos0, sin0 = c + s, s - c
    cos1, sin1 = s - c, -(c + s)
    j0 = r * (p0 * cos0 - q0 * sin0)
    y0 = r * (p0 * sin0 + q0 * cos0)
    j1 = r * (p1 * cos1 - q1 * sin1)
    y1 = r * (p1 * sin1 + q1 * cos1)
    return j0, j1, y0, y1


def _jy(xp, x):
    a = xp.abs(x)
    parts = [_jy_series(xp, a), _jy_miller(xp, a), _jy_hankel(xp, a)]
    in_series = a < _SERIES_BELOW
    in_miller = a < _HANKEL_FROM
    picked = [xp.where(in_series, s, xp.where(in_miller, m, h)) for s, m, h in zip(*parts)]
    return picked, a


def _edges(xp, x, value, at_zero, below=0.0):
    """SciPy's values where the series end: NaN at infinities (and, for Y, below 0), and
    ``at_zero`` where ``|x|`` is at most ``below`` (0, or where 2 / (pi x) overflows)."""
    value = xp.where(xp.abs(x) <= below, xp.full_like(x, at_zero), value)
    return xp.where(xp.isinf(x) | xp.isnan(x), xp.full_like(x, math.nan), value)


def j0(xp, x):
    return _edges(xp, x, _jy(xp, x)[0][0], 1.0)


def j1(xp, x):
    value = _edges(xp, x, _jy(xp, x)[0][1], 0.0)
    return xp.where(x == 0.0, x, xp.where(x < 0.0, -value, value))  # odd, -0 kept


def y0(xp, x):
    value = _edges(xp, x, _jy(xp, x)[0][2], -math.inf)
    return xp.where(x < 0.0, xp.full_like(x, math.nan), value)


def y1(xp, x):
    tiny = xp.finfo(x.dtype).smallest_normal
    value = _edges(xp, x, _jy(xp, x)[0][3], -math.inf, below=tiny)
    return xp.where(x < 0.0, xp.full_like(x, math.nan), value)
