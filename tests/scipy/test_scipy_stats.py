"""funcgrad.scipy.stats: SciPy's values, and gradients checked against finite differences
in both modes to second order, in every parameter that has a derivative."""

import numpy as np
import pytest
import scipy.stats as ss

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.stats as fst
from tests.opinfo.scipy_stats import (  # the rows: tests/opinfo
    CASES,
    X,
)


def _ids(case):
    return f"{case[0]}.{case[1]}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_values_are_scipys(case):
    dist, fun, args, _ = case
    got = getattr(getattr(fst, dist), fun)(*args)
    np.testing.assert_allclose(got, getattr(getattr(ss, dist), fun)(*args), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_gradients_to_second_order(case):
    dist, fun, args, diff = case
    f = getattr(getattr(fst, dist), fun)
    for i in diff:

        def one(v, i=i):
            call = list(args)
            call[i] = v
            return fnp.sum(f(*call))

        fg.check_grads(
            one,
            (np.float64(args[i]) if np.ndim(args[i]) == 0 else args[i],),
            order=2,
            modes=("rev", "fwd"),
        )


def test_outside_the_support_is_minus_inf_with_finite_gradients():
    x = np.array([-1.0, 0.5, 2.0])
    got = fst.gamma.logpdf(x, 2.0)
    np.testing.assert_allclose(got, ss.gamma.logpdf(x, 2.0))
    g = fg.grad(lambda a: fnp.sum(fnp.where(np.isfinite(got), fst.gamma.logpdf(x, a), 0.0)))(2.0)
    assert np.isfinite(g)
    assert fst.beta.logpdf(1.5, 2.0, 2.0) == -np.inf and fst.expon.logpdf(-0.1) == -np.inf


def test_multivariate_normal_matches_scipy_and_differentiates():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 3))
    cov = a @ a.T + 3.0 * np.eye(3)
    mean = rng.normal(size=3)
    x = rng.normal(size=(4, 3))
    np.testing.assert_allclose(
        fst.multivariate_normal.logpdf(x, mean, cov),
        ss.multivariate_normal.logpdf(x, mean, cov),
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        fst.multivariate_normal.logpdf(x[0], mean, 2.0),
        ss.multivariate_normal.logpdf(x[0], mean, 2.0),
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        fst.multivariate_normal.pdf(x, mean, np.diag(cov)),
        ss.multivariate_normal.pdf(x, mean, np.diag(cov)),
        rtol=1e-12,
    )
    fg.check_grads(
        lambda m, c: fnp.sum(fst.multivariate_normal.logpdf(x, m, c @ c.T + np.eye(3))),
        (mean, a),
        order=2,
        modes=("rev", "fwd"),
    )


def test_dirichlet_matches_scipy_and_differentiates():
    x = np.array([[0.2, 0.5], [0.3, 0.25], [0.5, 0.25]])  # two points, components on axis 0
    alpha = np.array([1.5, 2.0, 3.0])
    np.testing.assert_allclose(fst.dirichlet.logpdf(x, alpha), ss.dirichlet.logpdf(x, alpha))
    np.testing.assert_allclose(fst.dirichlet.pdf(x[:, 0], alpha), ss.dirichlet.pdf(x[:, 0], alpha))
    fg.check_grads(
        lambda a: fnp.sum(fst.dirichlet.logpdf(x, a)), (alpha,), order=2, modes=("rev", "fwd")
    )


def test_under_jit_and_vmap():
    f = lambda mu: fnp.sum(fst.norm.logpdf(X, mu, 2.0) + fst.t.logpdf(X, 3.0, mu))
    g = fg.grad(f)
    np.testing.assert_allclose(fg.jit(g)(0.4), g(0.4), rtol=1e-12)
    np.testing.assert_allclose(fg.vmap(g)(np.array([0.4, -1.0])), [g(0.4), g(-1.0)], rtol=1e-12)


SPD = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.5]])


def test_multivariate_normal_entropy_and_singular_covariances():
    mean = np.array([0.1, -0.4, 0.3])
    assert fst.multivariate_normal.entropy(mean, SPD) == pytest.approx(
        ss.multivariate_normal.entropy(mean, SPD)
    )
    fg.check_grads(
        lambda c: fst.multivariate_normal.entropy(mean, 0.5 * (c + c.T)), (SPD,), order=2
    )
    singular = np.diag([1.0, 2.0, 0.0])
    x = np.array([0.3, -0.2, 0.3])
    want = ss.multivariate_normal.logpdf(x, mean, singular, allow_singular=True)
    assert fst.multivariate_normal.logpdf(x, mean, singular, allow_singular=True) == pytest.approx(
        want
    )
    fg.check_grads(
        lambda m: fst.multivariate_normal.logpdf(x, m, singular, allow_singular=True),
        (mean,),
        order=2,
        modes=("rev", "fwd"),
    )
    full = fst.multivariate_normal.logpdf(x, mean, SPD, allow_singular=True)
    assert full == pytest.approx(ss.multivariate_normal.logpdf(x, mean, SPD))
    assert fst.dirichlet.rvs(np.ones(3), size=2, random_state=0).shape == (2, 3)


def test_discrete_distributions_off_their_support():
    for got, want in [
        (
            fst.binom.logpmf(np.array([-1.0, 2.5, 11.0]), 10.0, 0.3),
            ss.binom.logpmf(np.array([-1.0, 2.5, 11.0]), 10.0, 0.3),
        ),
        (fst.geom.logpmf(np.array([0.0, 1.5]), 0.3), ss.geom.logpmf(np.array([0.0, 1.5]), 0.3)),
        (fst.bernoulli.pmf(np.array([2.0, 0.5]), 0.3), ss.bernoulli.pmf(np.array([2.0, 0.5]), 0.3)),
        (
            fst.uniform.logpdf(np.array([-0.5, 3.0]), 0.1, 2.5),
            ss.uniform.logpdf(np.array([-0.5, 3.0]), 0.1, 2.5),
        ),
        (
            fst.truncnorm.logpdf(np.array([-5.0, 5.0]), -1.0, 2.0),
            ss.truncnorm.logpdf(np.array([-5.0, 5.0]), -1.0, 2.0),
        ),
        (fst.bernoulli.ppf(np.array([0.5, 0.8]), 0.3), ss.bernoulli.ppf(np.array([0.5, 0.8]), 0.3)),
    ]:
        np.testing.assert_array_equal(got, want)
    g = fg.grad(lambda p: fnp.sum(fst.binom.logpmf(np.array([0.0, 3.0]), 10.0, p)))(0.3)
    assert np.isclose(g, 3 / 0.3 - 17 / 0.7)
    k = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(
        fg.vmap(lambda k: fst.geom.logpmf(k, 0.3))(k), ss.geom.logpmf(k, 0.3), rtol=1e-12
    )


@pytest.mark.parametrize(
    "dist, fun, params",
    [
        (dist, fun, params)
        for dist, params in (
            ("gamma", (2.5, 0.1, 1.5)),
            ("chi2", (3.5,)),
            ("beta", (2.0, 3.5)),
            ("expon", (0.1, 2.0)),
            ("pareto", (1.5, 0.2, 1.1)),
        )
        for fun in ("cdf", "sf", "logcdf", "logsf", "ppf")
        if hasattr(getattr(fst, dist), fun)
    ],
)
def test_tails_edges_and_nan_are_scipys(dist, fun, params):
    # below, at and beyond the support's ends, far in the tails, NaN; for ppf, q outside [0, 1]
    if fun == "ppf":
        points = np.array([-0.5, 0.0, 1e-12, 0.3, 1.0 - 1e-12, 1.0, 1.5, np.nan])
    else:
        points = np.array([-3.0, 0.0, 1e-9, 0.2, 0.999, 1.0, 1.3, 40.0, np.inf, np.nan])
    with np.errstate(all="ignore"):
        want = getattr(getattr(ss, dist), fun)(points, *params)
        got = getattr(getattr(fst, dist), fun)(points, *params)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-300)


def test_wrapcauchy_and_multinomial_edges_are_scipys():
    points = np.array([-0.1, 0.0, 1.0, 2 * np.pi, 6.4, np.nan])
    np.testing.assert_allclose(
        fst.wrapcauchy.logpdf(points, 0.5, 0.2, 1.1), ss.wrapcauchy.logpdf(points, 0.5, 0.2, 1.1)
    )
    p = np.array([0.2, 0.5, 0.3])
    counts = np.array([[1.0, 2.0, 0.0], [1.0, 1.0, 0.0], [1.5, 1.5, 0.0], [-1.0, 4.0, 0.0]])
    want = ss.multinomial.logpmf(counts, 3, p)  # -inf for counts that are no draw of 3
    np.testing.assert_allclose(fst.multinomial.logpmf(counts, 3, p), want, rtol=1e-13)
    np.testing.assert_allclose(
        fg.jit(lambda p: fst.multinomial.pmf(counts, 3, p))(p), ss.multinomial.pmf(counts, 3, p)
    )
