"""funcgrad.scipy.optimize.minimize: SciPy's BFGS with funcgrad's gradient, under jit and
vmap against the eager call, and its implicit derivative against central differences of
an optimum refined by Newton's method in NumPy."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.scipy.optimize import minimize

RNG = np.random.default_rng(0)
X = RNG.normal(size=(20, 3))
Y = (X @ np.array([1.0, -2.0, 0.5]) > 0).astype(float)


def loss(w, lam, X=X, y=Y):
    z = X @ w
    return fnp.mean(fnp.logaddexp(0.0, z) - y * z) + lam * fnp.sum(w**2)


def newton_optimum(lam, y=Y, X=X):
    """The same minimum in NumPy alone, by Newton's method to machine precision."""
    w = np.zeros(3)
    for _ in range(30):
        p = 1 / (1 + np.exp(-(X @ w)))
        g = X.T @ (p - y) / len(y) + 2 * lam * w
        h = (X.T * (p * (1 - p))) @ X / len(y) + 2 * lam * np.eye(3)
        w = w - np.linalg.solve(h, g)
    return w


def test_the_minimum_and_its_report():
    r = minimize(loss, np.zeros(3), (0.05,), tol=1e-10)
    np.testing.assert_allclose(r.x, newton_optimum(0.05), atol=1e-7)
    assert bool(r.success) and int(r.nit) > 0 and int(r.nfev) >= int(r.nit)
    assert np.isclose(r.fun, loss(newton_optimum(0.05), 0.05))
    np.testing.assert_allclose(r.jac, np.zeros(3), atol=1e-7)
    h = fg.hessian(loss)(r.x, 0.05)
    np.testing.assert_allclose(r.hess_inv, np.linalg.inv(h), rtol=0.2, atol=0.2)  # BFGS's guess


def test_jit_and_vmap_run_the_optimizer_on_each_calls_values():
    eager = minimize(loss, np.zeros(3), (0.05,)).x
    jitted = fg.jit(lambda lam: minimize(loss, np.zeros(3), (lam,)).x)
    np.testing.assert_allclose(jitted(0.05), eager, rtol=1e-12)
    np.testing.assert_allclose(jitted(0.2), minimize(loss, np.zeros(3), (0.2,)).x, rtol=1e-12)
    ys = np.stack([Y, 1 - Y])
    batched = fg.vmap(lambda y: minimize(lambda w: loss(w, 0.05, y=y), np.zeros(3)).x)(ys)
    np.testing.assert_allclose(
        batched, [minimize(lambda w: loss(w, 0.05, y=y), np.zeros(3)).x for y in ys], rtol=1e-12
    )


def test_the_minimum_is_differentiable_implicitly():
    def optimum(lam):
        return minimize(loss, np.zeros(3), (lam,), tol=1e-12).x

    h = 1e-5
    want = (newton_optimum(0.05 + h) - newton_optimum(0.05 - h)) / (2 * h)
    np.testing.assert_allclose(fg.jacobian(optimum)(0.05), want, atol=1e-6)
    np.testing.assert_allclose(fg.jit(fg.jacobian(optimum))(0.05), want, atol=1e-6)
    # through data the objective closes over, under jit
    slope = fg.jit(
        fg.grad(lambda X: fnp.sum(minimize(lambda v: loss(v, 0.05, X=X), np.zeros(3), tol=1e-12).x))
    )(X)
    for i, j in [(0, 0), (7, 2), (19, 1)]:
        e = np.zeros_like(X)
        e[i, j] = h
        want = (newton_optimum(0.05, X=X + e).sum() - newton_optimum(0.05, X=X - e).sum()) / (2 * h)
        assert np.isclose(slope[i, j], want, atol=1e-6)


def test_refusals():
    with pytest.raises(fg.ArgumentError, match="method 'Nelder-Mead' is not offered"):
        minimize(loss, np.zeros(3), (0.1,), method="Nelder-Mead")
    with pytest.raises(fg.ArgumentError, match="x0 must be 1-D"):
        minimize(lambda w: fnp.sum(w**2), np.zeros((2, 2)))
