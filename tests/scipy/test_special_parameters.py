"""The derivatives of gammainc, gammaincc, zeta, hyp1f1 and hyp2f1 in their shape
parameters (funcgrad/rules/special_parameters.py): against mpmath at 30 digits over the
ranges each series takes (and where it switches), against JAX's, under jit, vmap and
jvp as eagerly, and their cross derivatives against differences."""

import mpmath
import numpy as np
import pytest

import funcgrad as fg
import funcgrad.scipy.special as sp
from funcgrad.rules import special_parameters


def _d(f, at):
    with mpmath.workdps(80):  # a derivative of 1e-72 keeps its digits through the differences
        return float(mpmath.diff(f, at))


# (function, argnum, points, mpmath's derivative at a point), on both sides of each switch
# of series (gammainc at x = a + 1, hyp1f1 at x = 0, hyp2f1 at x = -1/2)
CASES = {
    "gammainc a": (
        sp.gammainc,
        0,
        [(a, x) for a in (0.05, 0.5, 2.5, 10.0, 80.0) for x in (1e-3, 0.7, 1.5, 9.0, 12.0, 95.0)],
        lambda a, x: _d(lambda s: mpmath.gammainc(s, 0, x, regularized=True), a),
    ),
    "gammaincc a": (
        sp.gammaincc,
        0,
        [(a, x) for a in (0.3, 4.0, 30.0) for x in (0.2, 4.5, 40.0)],
        lambda a, x: _d(lambda s: mpmath.gammainc(s, x, mpmath.inf, regularized=True), a),
    ),
    "zeta x": (
        sp.zeta,
        0,
        [(s, q) for s in (1.1, 2.5, 7.0, 25.0) for q in (0.05, 1.0, 3.5, 200.0)],
        lambda s, q: _d(lambda t: mpmath.zeta(t, q), s),
    ),
    "hyp1f1 a": (
        sp.hyp1f1,
        0,
        [(a, b, x) for a in (-2.0, 0.5, 3.0) for b in (0.5, 4.0) for x in (-25.0, -1.0, 0.7, 20.0)],
        lambda a, b, x: _d(lambda s: mpmath.hyp1f1(s, b, x), a),
    ),
    "hyp1f1 b": (
        sp.hyp1f1,
        1,
        [(a, b, x) for a in (-2.0, 0.5, 3.0) for b in (0.5, 4.0) for x in (-25.0, -1.0, 0.7, 20.0)],
        lambda a, b, x: _d(lambda s: mpmath.hyp1f1(a, s, x), b),
    ),
    "hyp2f1 a": (
        sp.hyp2f1,
        0,
        [
            (a, 1.5, c, x)
            for a in (-1.0, 0.5, 2.0)
            for c in (0.7, 4.0)
            for x in (-6.0, -0.4, 0.5, 0.95)
        ],
        lambda a, b, c, x: _d(lambda s: mpmath.hyp2f1(s, b, c, x), a),
    ),
    "hyp2f1 b": (
        sp.hyp2f1,
        1,
        [(0.5, b, 2.0, x) for b in (-1.0, 1.5) for x in (-6.0, -0.4, 0.5, 0.95)],
        lambda a, b, c, x: _d(lambda s: mpmath.hyp2f1(a, s, c, x), b),
    ),
    "hyp2f1 c": (
        sp.hyp2f1,
        2,
        [(0.5, 1.5, c, x) for c in (0.7, 4.0) for x in (-6.0, -0.4, 0.5, 0.95)],
        lambda a, b, c, x: _d(lambda s: mpmath.hyp2f1(a, b, s, x), c),
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_a_parameters_derivative_is_mpmaths(name):
    fun, argnum, points, want = CASES[name]
    grad = fg.grad(fun, argnums=argnum)
    for point in points:
        got = grad(*point)
        assert np.isclose(got, want(*point), rtol=1e-11, atol=1e-300), (name, point, got)


@pytest.mark.parametrize("name", CASES)
def test_a_parameters_derivative_is_the_same_under_every_transform(name):
    fun, argnum, points, _ = CASES[name]
    columns = [np.array(c) for c in zip(*points)]
    eager = np.array([fg.grad(fun, argnums=argnum)(*p) for p in points])
    per_entry = fg.vmap(fg.grad(fun, argnums=argnum))(*columns)
    jitted = fg.jit(fg.vmap(fg.grad(fun, argnums=argnum)))(*columns)
    tangents = [np.ones_like(c) if i == argnum else np.zeros_like(c) for i, c in enumerate(columns)]
    _, pushed = fg.jvp(fun, tuple(columns), tuple(tangents))
    for got in (per_entry, jitted, pushed):
        np.testing.assert_allclose(got, eager, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("name", CASES)
def test_a_parameters_derivative_is_jaxs(name):
    jax = pytest.importorskip("jax", reason="JAX is the reference (the jax extra)")
    jax.config.update("jax_enable_x64", True)
    import jax.scipy.special as js

    fun, argnum, points, _ = CASES[name]
    theirs = jax.grad(getattr(js, fun.__name__), argnums=argnum)
    for point in points:
        if not _jax_answers(fun, point):
            continue
        want = float(theirs(*point))
        assert np.isclose(fg.grad(fun, argnums=argnum)(*point), want, rtol=1e-9), point


def _jax_answers(fun, point):
    """Where JAX's series give its derivatives to 1e-9: hyp1f1 within |x| <= 5, hyp2f1 on
    [-1, 0.9] (no Pfaff transformation below, too few terms above), and neither at a
    non-positive integer parameter (NaN; mpmath and funcgrad agree there)."""
    if fun is sp.hyp1f1:
        return abs(point[2]) <= 5 and point[0] > 0
    if fun is sp.hyp2f1:
        return -1 <= point[3] <= 0.9 and min(point[:3]) > 0
    return True


CROSS = {  # d/dx of a parameter's derivative: the rule of its own primitive
    "gammainc": (sp.gammainc, (2.5, 1.5)),
    "zeta": (sp.zeta, (2.5, 1.5)),
    "hyp1f1": (sp.hyp1f1, (0.5, 1.5, -0.7)),
    "hyp2f1": (sp.hyp2f1, (0.5, 1.5, 2.0, -0.3)),
}


@pytest.mark.parametrize("name", CROSS)
def test_the_cross_derivatives_match_differences(name):
    fun, point = CROSS[name]
    last = len(point) - 1
    for argnum in range(last):
        mixed = fg.grad(fg.grad(fun, argnums=argnum), argnums=last)(*point)
        h = 1e-5

        def slope(x, argnum=argnum):
            moved = list(point)
            moved[last] = x
            return fg.grad(fun, argnums=argnum)(*moved)

        want = (slope(point[last] + h) - slope(point[last] - h)) / (2 * h)
        assert np.isclose(mixed, want, rtol=1e-6), (name, argnum, mixed, want)


def test_a_second_derivative_in_a_parameter_is_refused_by_name():
    with pytest.raises(fg.MissingRuleError, match="gammainc_da"):
        fg.grad(fg.grad(sp.gammainc))(2.5, 1.5)


def test_dtypes_follow_the_value():
    a32, x32 = np.float32([2.5, 0.5]), np.float32([1.5, 3.0])
    assert fg.grad(lambda a: sp.gammainc(a, x32).sum())(a32).dtype == np.float32
    assert type(fg.grad(sp.zeta)(2.5, 1.5)) is np.float64
    assert sp.gammainc(a32, x32).dtype == fg.vmap(fg.grad(sp.gammainc))(a32, x32).dtype


def test_outside_the_domain_or_unsettled_is_nan_never_a_number():
    assert np.isnan(fg.grad(sp.gammainc)(-1.0, 1.5))
    assert np.isnan(fg.grad(sp.zeta)(0.5, 1.0))
    # Gauss's series at x = 0.9999 needs more than MOST_TERMS terms
    assert np.isnan(special_parameters.hyp2f1_da(0.5, 1.5, 0.7, 1.0 - 1e-9))
    assert np.isnan(special_parameters.hyp2f1_da(0.5, 1.5, 2.0, 1.5))
    # at x = 0 the incomplete gamma is 0 for every a
    assert fg.grad(sp.gammainc)(2.0, 0.0) == 0.0


def test_a_gamma_distributions_shape_is_fitted_by_its_cdf():
    # the use JAX users have for it: a gamma CDF's shape parameter, by gradient steps
    from funcgrad.scipy.stats import gamma

    data = np.array([0.4, 1.1, 1.9, 2.6, 3.8])
    target = np.linspace(0.1, 0.9, 5)

    def loss(k):
        return fg.numpy.sum((gamma.cdf(data, k) - target) ** 2)

    k = 1.0
    for _ in range(200):
        k = k - 0.5 * fg.grad(loss)(k)
    h = 1e-6
    assert abs((loss(k + h) - loss(k - h)) / (2 * h)) < 1e-6
    assert loss(k) < loss(1.0)
