"""Derivatives of SciPy's special functions in their shape parameters, summed as series.

SciPy computes ``gammainc(a, x)``, ``zeta(x, q)``, ``hyp1f1(a, b, x)`` and
``hyp2f1(a, b, c, x)`` but not their derivatives in ``a``, ``x`` (zeta's exponent), ``b``
or ``c``, which JAX has. Each is here a primitive that sums the parameter's derivative of
the function's own series, term by term in forward mode: a series ``sum t_n`` with
``t_n = t_(n-1) r_n`` has the derivative ``sum dt_n`` with ``dt_n = dt_(n-1) r_n +
t_(n-1) dr_n``, which holds where a factor is zero too (``a`` a non-positive integer).

- ``gammainc_da``: below ``x = max(a + 1, 1.1)`` the series of P, whose terms share one
  sign; above it Legendre's continued fraction of Q, evaluated from the bottom with its
  derivative, at depths doubled until two agree (as Cephes splits the two).
- ``zeta_dx``: Euler-Maclaurin's sum, as SciPy's ``zeta`` computes the value (twenty
  terms, then the tail with twelve Bernoulli numbers), each term differentiated in ``x``.
- ``hyp1f1_da``, ``hyp1f1_db``: Kummer's series, for ``x < 0`` after Kummer's
  transformation ``M(a, b, x) = e^x M(b - a, b, -x)``, whose terms do not cancel.
- ``hyp2f1_da``, ``hyp2f1_dc`` (``b``'s is ``a``'s with the two swapped): Gauss's series for
  ``-1/2 <= x < 1``, and below after Pfaff's transformation to ``x / (x - 1)``.

These are the impls; :mod:`funcgrad.rules.special` makes them primitives, with their
derivatives in ``x`` (and ``q``), so a Hessian in ``(a, x)`` has its cross terms. Sums run in float64 until each entry's next terms are below 1e-17 of its sum; an entry
whose series has not settled after :data:`MOST_TERMS` terms (a hypergeometric function
near ``x = 1``, or of a huge argument), or whose parameters lie outside the function's
domain, is NaN rather than a wrong number. Results take the dtype SciPy gives the value.

>>> import numpy as np
>>> round(float(gammainc_da(2.5, 1.5)), 12), round(float(zeta_dx(2.5, 1.5)), 12)
(-0.252175400424, -0.464812348139)
"""

import math

import numpy as np
import scipy.special as sc

__all__ = [
    "MOST_TERMS",
    "gammainc_da",
    "zeta_dx",
    "hyp1f1_da",
    "hyp1f1_db",
    "hyp2f1_da",
    "hyp2f1_dc",
]

MOST_TERMS = 20_000  # a series not settled by then gives NaN
_TINY = 1e-17  # a term this small against its sum ends the sum


def _operands(*args):
    """The operands broadcast as float64 arrays, and the dtype the result takes."""
    arrays = [np.asarray(a) for a in args]
    dtype = np.result_type(*arrays, np.float16)  # an integer operand gives SciPy's float64
    if dtype.kind not in "fc" or dtype.itemsize < 4:
        dtype = np.result_type(dtype, np.float32) if dtype.kind == "f" else np.float64
    floats = np.broadcast_arrays(*(a.astype(np.float64) for a in arrays))
    return [np.array(f, dtype=np.float64) for f in floats], dtype


def _answer(out, dtype, args):
    """``out`` in ``dtype``; a Python float where every operand was a Python number."""
    if all(type(a) in (float, int) for a in args):
        return float(out)
    out = np.asarray(out).astype(dtype, copy=False)
    return out[()] if out.ndim == 0 else out


def _series(step, value, slope):
    """Sum ``value`` and ``slope`` (arrays of first terms) over ``step(n, t, dt, idx) ->
    (t_n, dt_n)``, ``idx`` the entries still summing; NaN where it has not settled."""
    total, dtotal = value.copy(), slope.copy()
    idx = np.arange(value.size)
    t, dt = value.ravel().copy(), slope.ravel().copy()
    flat, dflat = total.reshape(-1), dtotal.reshape(-1)
    for n in range(1, MOST_TERMS + 1):
        if not idx.size:
            break
        t, dt = step(n, t, dt, idx)
        flat[idx] += t
        dflat[idx] += dt
        small = (np.abs(t) <= _TINY * np.abs(flat[idx])) & (
            np.abs(dt) <= _TINY * np.abs(dflat[idx])
        )
        going = ~(small | ((t == 0) & (dt == 0)))  # a zero term ends a terminating series
        idx, t, dt = idx[going], t[going], dt[going]
    dflat[idx] = np.nan
    return total, dtotal


# --------------------------------------------------------------------------- gammainc


def _gammainc_da(a, x):
    a, x = (np.asarray(v, np.float64) for v in (a, x))
    out = np.full(a.shape, np.nan)
    out[(x == 0) & (a > 0)] = 0.0
    out[np.isposinf(x) & (a > 0)] = 0.0
    inside = (a > 0) & (x > 0) & np.isfinite(x)
    series = inside & (x < np.maximum(a + 1.0, 1.1))
    fraction = inside & ~series
    if series.any():
        out[series] = _lower_series(a[series], x[series])
    if fraction.any():
        out[fraction] = -_upper_fraction(a[fraction], x[fraction])
    return out


def _lower_series(a, x):
    """dP/da from P = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n))."""

    def step(n, t, dt, idx):
        r = x[idx] / (a[idx] + n)
        return t * r, dt * r - t * r / (a[idx] + n)

    total, dtotal = _series(step, np.ones_like(a), np.zeros_like(a))
    log_front = a * np.log(x) - x - sc.gammaln(a + 1.0)
    front = np.exp(log_front)
    return front * (dtotal + (np.log(x) - sc.digamma(a + 1.0)) * total)


def _upper_fraction(a, x):
    """dQ/da from Q = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...))."""
    depth = 32
    value, slope = _fraction(a, x, depth)
    unsettled = np.ones(a.shape, bool)
    while unsettled.any() and depth < MOST_TERMS:
        depth *= 2
        v2, s2 = _fraction(a[unsettled], x[unsettled], depth)
        same = (np.abs(v2 - value[unsettled]) <= 1e-16 * np.abs(v2)) & (
            np.abs(s2 - slope[unsettled]) <= 1e-15 * np.abs(s2) + 1e-300
        )
        value[unsettled], slope[unsettled] = v2, s2
        unsettled[np.flatnonzero(unsettled)[same]] = False
    slope[unsettled] = np.nan
    front = np.exp(a * np.log(x) - x - sc.gammaln(a))
    return front * (slope + (np.log(x) - sc.digamma(a)) * value)


def _fraction(a, x, depth):
    """The continued fraction K = 1 / f_0 and dK/da, from f_depth upwards."""
    f = x + 2.0 * depth + 1.0 - a
    df = -np.ones_like(a)
    for k in range(depth - 1, -1, -1):
        alpha, dalpha = (k + 1.0) * (k + 1.0 - a), -(k + 1.0)
        f, df = (
            x + 2.0 * k + 1.0 - a - alpha / f,
            -1.0 - (dalpha * f - alpha * df) / (f * f),
        )
    return 1.0 / f, -df / (f * f)


# --------------------------------------------------------------------------- zeta

_EULER_MACLAURIN_TERMS = 20
_BERNOULLI = [float(sc.bernoulli(2 * k)[-1]) / math.factorial(2 * k) for k in range(1, 13)]


def _zeta_dx(s, q):
    """d/ds of Hurwitz's zeta(s, q) = sum_n (n + q)^-s, by Euler-Maclaurin's sum."""
    s, q = (np.asarray(v, np.float64) for v in (s, q))
    out = np.zeros(s.shape)
    for n in range(_EULER_MACLAURIN_TERMS):
        w = q + n
        out -= np.log(w) * w**-s
    w = q + _EULER_MACLAURIN_TERMS
    log_w = np.log(w)
    out += w ** (1.0 - s) * (-log_w / (s - 1.0) - 1.0 / (s - 1.0) ** 2)
    out -= 0.5 * log_w * w**-s
    rising, drising = np.ones_like(s), np.zeros_like(s)  # s (s + 1) ... (s + 2k - 2)
    for k, b in enumerate(_BERNOULLI, start=1):
        for j in (0,) if k == 1 else (2 * k - 3, 2 * k - 2):
            drising, rising = drising * (s + j) + rising, rising * (s + j)
        out += b * w ** (-s - 2 * k + 1) * (drising - log_w * rising)
    out[~((s > 1) & (q > 0))] = np.nan
    return out


# --------------------------------------------------------------------------- hyp1f1


def _kummer_parts(a, b, x):
    """M(a, b, x) and its derivatives in a and b by the series, for x >= 0."""
    ones, zeros = np.ones_like(a), np.zeros_like(a)

    def in_a(n, t, dt, i):
        r = (a[i] + n - 1) / (b[i] + n - 1) * x[i] / n
        return t * r, dt * r + t * x[i] / ((b[i] + n - 1) * n)

    def in_b(n, t, dt, i):
        r = (a[i] + n - 1) / (b[i] + n - 1) * x[i] / n
        return t * r, (dt - t / (b[i] + n - 1)) * r

    value, da = _series(in_a, ones, zeros)
    _, db = _series(in_b, ones, zeros)
    return value, da, db


def _hyp1f1_parts(a, b, x):
    a, b, x = (np.asarray(v, np.float64) for v in (a, b, x))
    da, db = np.full(a.shape, np.nan), np.full(a.shape, np.nan)
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(x) & ~((b <= 0) & (b == np.round(b)))
    right, left = ok & (x >= 0), ok & (x < 0)
    if right.any():
        _, da[right], db[right] = _kummer_parts(a[right], b[right], x[right])
    if left.any():  # M(a, b, x) = e^x M(b - a, b, -x)
        al, bl, xl = a[left], b[left], x[left]
        _, d1, d2 = _kummer_parts(bl - al, bl, -xl)
        da[left], db[left] = -np.exp(xl) * d1, np.exp(xl) * (d1 + d2)
    return da, db


# --------------------------------------------------------------------------- hyp2f1


def _gauss_parts(a, b, c, x):
    """2F1(a, b; c; x) and its derivatives in a and c by Gauss's series, for |x| < 1."""
    ones, zeros = np.ones_like(a), np.zeros_like(a)

    def ratio(n, i):
        return (a[i] + n - 1) * (b[i] + n - 1) / ((c[i] + n - 1) * n) * x[i]

    def in_a(n, t, dt, i):
        return t * ratio(n, i), dt * ratio(n, i) + t * (b[i] + n - 1) / ((c[i] + n - 1) * n) * x[i]

    def in_b(n, t, dt, i):
        return t * ratio(n, i), dt * ratio(n, i) + t * (a[i] + n - 1) / ((c[i] + n - 1) * n) * x[i]

    def in_c(n, t, dt, i):
        r = ratio(n, i)
        return t * r, (dt - t / (c[i] + n - 1)) * r

    value, da = _series(in_a, ones, zeros)
    _, db = _series(in_b, ones, zeros)
    _, dc = _series(in_c, ones, zeros)
    return value, da, db, dc


def _hyp2f1_parts(a, b, c, x):
    a, b, c, x = (np.asarray(v, np.float64) for v in (a, b, c, x))
    da, dc = np.full(a.shape, np.nan), np.full(a.shape, np.nan)
    ok = np.isfinite(a + b + c + x) & (x < 1) & ~((c <= 0) & (c == np.round(c)))
    near, far = ok & (x >= -0.5), ok & (x < -0.5)
    if near.any():
        _, da[near], _, dc[near] = _gauss_parts(a[near], b[near], c[near], x[near])
    if far.any():  # Pfaff: 2F1(a, b; c; x) = (1 - x)^-a 2F1(a, c - b; c; x / (x - 1))
        af, bf, cf, xf = a[far], b[far], c[far], x[far]
        value, d1, d2, d3 = _gauss_parts(af, cf - bf, cf, xf / (xf - 1.0))
        front = (1.0 - xf) ** -af
        da[far] = front * (d1 - np.log1p(-xf) * value)
        dc[far] = front * (d2 + d3)
    return da, dc


# --------------------------------------------------------------------------- the impls


def _impl(name, compute, pick=None):
    def impl(*args):
        floats, dtype = _operands(*args)
        out = compute(*floats)
        return _answer(out if pick is None else out[pick], dtype, args)

    impl.__name__ = name
    return impl


gammainc_da = _impl("gammainc_da", _gammainc_da)
zeta_dx = _impl("zeta_dx", _zeta_dx)
hyp1f1_da = _impl("hyp1f1_da", _hyp1f1_parts, 0)
hyp1f1_db = _impl("hyp1f1_db", _hyp1f1_parts, 1)
hyp2f1_da = _impl("hyp2f1_da", _hyp2f1_parts, 0)
hyp2f1_dc = _impl("hyp2f1_dc", _hyp2f1_parts, 1)
