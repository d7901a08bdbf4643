"""gaussian_kde against SciPy's and JAX's values, central differences in the data, the
weights and the points, and under jit and vmap (the estimate as a pytree argument)."""

import numpy as np
import pytest
import scipy.stats as ss

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.scipy.stats import gaussian_kde
from tests.helpers import central

RNG = np.random.default_rng(3)
DATA = RNG.normal(size=(2, 25))
WEIGHTS = RNG.uniform(0.2, 1.0, size=25)
POINTS = RNG.normal(size=(2, 6))


@pytest.mark.parametrize("bw", [None, "silverman", 0.35, lambda kde: 0.5 * kde.scotts_factor()])
@pytest.mark.parametrize("weighted", [False, True])
def test_scipys_values(bw, weighted):
    w = WEIGHTS if weighted else None
    ours, theirs = gaussian_kde(DATA, bw, w), ss.gaussian_kde(DATA, bw, w)
    np.testing.assert_allclose(ours.factor, theirs.factor, rtol=1e-13)
    np.testing.assert_allclose(ours.covariance, theirs.covariance, rtol=1e-12)
    np.testing.assert_allclose(ours.evaluate(POINTS), theirs.evaluate(POINTS), rtol=1e-12)
    np.testing.assert_allclose(ours.logpdf(POINTS), theirs.logpdf(POINTS), rtol=1e-12)
    np.testing.assert_allclose(ours(POINTS[:, 0]), theirs(POINTS[:, 0]), rtol=1e-12)
    cov = np.array([[1.0, 0.3], [0.3, 0.5]])
    np.testing.assert_allclose(
        ours.integrate_gaussian(np.array([0.2, -0.1]), cov),
        theirs.integrate_gaussian(np.array([0.2, -0.1]), cov),
        rtol=1e-12,
    )
    other = gaussian_kde(DATA[:, :7] + 1.0)
    np.testing.assert_allclose(
        ours.integrate_kde(other),
        theirs.integrate_kde(ss.gaussian_kde(DATA[:, :7] + 1.0)),
        rtol=1e-12,
    )


def test_one_dimension_and_its_box_integral():
    data = RNG.normal(size=30)
    ours, theirs = gaussian_kde(data), ss.gaussian_kde(data)
    np.testing.assert_allclose(
        ours.pdf(np.linspace(-2, 2, 5)), theirs.pdf(np.linspace(-2, 2, 5)), rtol=1e-12
    )
    np.testing.assert_allclose(
        ours.integrate_box_1d(-0.4, 1.3), theirs.integrate_box_1d(-0.4, 1.3), rtol=1e-12
    )
    np.testing.assert_allclose(ours.integrate_box_1d(-np.inf, np.inf), 1.0, rtol=1e-14)


def test_derivatives_in_the_data_weights_and_points():
    f = lambda data, w, pts: fnp.sum(gaussian_kde(data, None, w).logpdf(pts))
    plain = lambda data, w, pts: float(np.sum(ss.gaussian_kde(data, None, w).logpdf(pts)))
    gd, gw, gp = fg.grad(f, argnums=(0, 1, 2))(DATA, WEIGHTS, POINTS)
    np.testing.assert_allclose(
        gd, central(lambda d: plain(d, WEIGHTS, POINTS), DATA), rtol=1e-6, atol=1e-7
    )
    np.testing.assert_allclose(
        gw, central(lambda w: plain(DATA, w, POINTS), WEIGHTS), rtol=1e-6, atol=1e-7
    )
    np.testing.assert_allclose(
        gp, central(lambda p: plain(DATA, WEIGHTS, p), POINTS), rtol=1e-6, atol=1e-7
    )
    h = fg.hessian(lambda p: fnp.sum(gaussian_kde(DATA).pdf(p)))(POINTS[:, :1])
    assert h.shape == (2, 1, 2, 1)


def test_the_estimate_crosses_jit_and_vmap_as_a_pytree():
    kde = gaussian_kde(DATA, None, WEIGHTS)
    np.testing.assert_allclose(
        fg.jit(lambda k, p: k.logpdf(p))(kde, POINTS), kde.logpdf(POINTS), rtol=1e-13
    )
    per_point = fg.vmap(lambda p: kde.pdf(p[:, None])[0], in_axes=1)(POINTS)
    np.testing.assert_allclose(per_point, kde.pdf(POINTS), rtol=1e-13)
    datasets = np.stack([DATA, DATA * 1.5])
    batched = fg.vmap(lambda d: gaussian_kde(d).pdf(POINTS))(datasets)
    np.testing.assert_allclose(batched[1], gaussian_kde(DATA * 1.5).pdf(POINTS), rtol=1e-12)


def test_resample_draws_from_the_estimate():
    kde = gaussian_kde(DATA, None, WEIGHTS)
    draws = kde.resample(fg.random.key(0), (4000,))
    assert draws.shape == (2, 4000)
    mean = (DATA * WEIGHTS / WEIGHTS.sum()).sum(axis=1)
    np.testing.assert_allclose(draws.mean(axis=1), mean, atol=0.08)
    assert np.array_equal(draws, kde.resample(fg.random.key(0), (4000,)))


def test_wrong_shapes_are_named():
    with pytest.raises(fg.errors.ShapeError, match="n > 1 points"):
        gaussian_kde(np.ones((2, 1)))
    with pytest.raises(fg.errors.ShapeError, match="points have dimension 3"):
        gaussian_kde(DATA).pdf(np.ones((3, 2)))
    with pytest.raises(fg.errors.ShapeError, match="integrates one-dimensional"):
        gaussian_kde(DATA).integrate_box_1d(0.0, 1.0)
    with pytest.raises(fg.errors.ArgumentError, match="'scott' or 'silverman'"):
        gaussian_kde(DATA, "scot")


def test_jaxs_values():
    jax = pytest.importorskip("jax", reason="JAX is the reference (the jax extra)")
    jax.config.update("jax_enable_x64", True)
    theirs = jax.scipy.stats.gaussian_kde(
        jax.numpy.asarray(DATA), weights=jax.numpy.asarray(WEIGHTS)
    )
    ours = gaussian_kde(DATA, None, WEIGHTS)
    np.testing.assert_allclose(ours.logpdf(POINTS), np.asarray(theirs.logpdf(POINTS)), rtol=1e-12)
    grad = jax.grad(lambda p: theirs.logpdf(p).sum())(jax.numpy.asarray(POINTS))
    np.testing.assert_allclose(
        fg.grad(lambda p: fnp.sum(ours.logpdf(p)))(POINTS), np.asarray(grad), rtol=1e-11
    )
