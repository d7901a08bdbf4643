"""funcgrad.scipy.integrate.odeint (adjoint and sensitivity derivatives) and
funcgrad.scipy.signal.convolve/correlate."""

import numpy as np
import pytest
import scipy.integrate
import scipy.linalg
import scipy.signal

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.integrate as fss_integrate
import funcgrad.scipy.signal as fss
from funcgrad.scipy.integrate import odeint
from funcgrad.scipy.signal import convolve, correlate
from tests.helpers import central

TIGHT = {"rtol": 1e-11, "atol": 1e-11}
A = np.array([[-0.3, 1.0], [-0.8, 0.1]])
Y0 = np.array([0.5, -0.2])
T = np.array([0.0, 0.4, 1.1, 2.0])


def _net(y, t, params):
    return fnp.tanh(params["W"] @ y + params["b"]) * fnp.cos(t)


PARAMS = {"W": np.array([[0.2, -1.0], [0.8, 0.1]]), "b": np.array([0.1, -0.3])}


def test_values_are_scipys():
    want = scipy.integrate.odeint(_net, Y0, T, (PARAMS,))
    np.testing.assert_array_equal(odeint(_net, Y0, T, (PARAMS,)), want)
    out, _ = fg.vjp(lambda y0: odeint(_net, y0, T, (PARAMS,)), Y0)
    np.testing.assert_array_equal(out, want)
    grid = odeint(lambda y, t: -y, np.ones((2, 3)), T)  # y0 of any shape
    np.testing.assert_allclose(grid[-1], np.exp(-2.0) * np.ones((2, 3)), rtol=1e-6)


def test_linear_system_gradients_are_the_matrix_exponentials():
    # y(t) = expm(A t) y0, so d y(t)/dA is expm's Frechet derivative: an exact reference
    t = np.array([0.0, 1.5])
    w = np.array([1.0, -2.0])
    loss = lambda a, y0: odeint(lambda y, s, a: a @ y, y0, t, (a,), **TIGHT)[-1] @ w
    g_a, g_y0 = fg.grad(loss, argnums=(0, 1))(A, Y0)
    want_a = np.array(
        [
            [
                scipy.linalg.expm_frechet(
                    A * 1.5, np.eye(2)[:, [i]] @ np.eye(2)[[j]] * 1.5, compute_expm=False
                )
                @ Y0
                @ w
                for j in range(2)
            ]
            for i in range(2)
        ]
    )
    np.testing.assert_allclose(g_a, want_a, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(g_y0, scipy.linalg.expm(A * 1.5).T @ w, rtol=1e-8)


def test_reverse_and_forward_mode_agree_with_differences():
    def loss(y0, t, W, b):
        ys = odeint(_net, y0, t, ({"W": W, "b": b},), **TIGHT)
        return fnp.sum(ys**2 * np.arange(1.0, 9.0).reshape(4, 2))

    args = (Y0, T, PARAMS["W"], PARAMS["b"])
    grads = fg.grad(loss, argnums=(0, 1, 2, 3))(*args)
    for i, g in enumerate(grads):

        def along(x, i=i):
            return loss(*[x if k == i else a for k, a in enumerate(args)])

        np.testing.assert_allclose(g, central(along, args[i], eps=1e-5), rtol=1e-5, atol=1e-7)
        assert np.allclose(fg.jacfwd(along)(args[i]), g, rtol=1e-6, atol=1e-8)


def test_under_jit_and_vmap():
    f = lambda y0: odeint(_net, y0, T, (PARAMS,))
    np.testing.assert_array_equal(fg.jit(f)(Y0), f(Y0))
    batch = np.stack([Y0, -Y0])
    np.testing.assert_array_equal(fg.vmap(f)(batch), np.stack([f(Y0), f(-Y0)]))
    g = fg.jit(fg.grad(lambda y0: fnp.sum(f(y0))))(Y0)
    np.testing.assert_allclose(g, fg.grad(lambda y0: fnp.sum(f(y0)))(Y0), rtol=1e-12)


def test_second_derivatives_are_refused_by_name():
    f = lambda k: odeint(lambda y, t, k: -k * y, Y0, T, (k,))[-1, 0]
    with pytest.raises(fg.MissingRuleError, match="odeint_adjoint"):
        fg.grad(fg.grad(f))(0.5)


def test_bad_times_are_refused():
    with pytest.raises(ValueError, match="odeint: t must be a 1-D array"):
        odeint(lambda y, t: -y, fg.var(Y0), np.zeros((2, 2)))


# ---------------------------------------------------------------- signal

SIGNALS = [((6,), (3,)), ((3,), (5,)), ((4, 5), (2, 3)), ((2, 3), (3, 4)), ((3, 2, 2), (2, 2, 1))]


@pytest.mark.parametrize("shapes", SIGNALS)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_signal_values_and_gradients(name, mode, shapes):
    rng = np.random.default_rng(len(shapes[0]) + shapes[1][0])
    a, v = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    ours = {"convolve": convolve, "correlate": correlate}[name]
    theirs = getattr(scipy.signal, name)
    valid_ok = all(x >= y for x, y in zip(*shapes)) or all(x <= y for x, y in zip(*shapes))
    if mode == "valid" and not valid_ok:
        with pytest.raises(ValueError, match="valid"):
            ours(fg.var(a), v, mode=mode)
        return
    want = theirs(a, v, mode=mode, method="direct")
    out, _ = fg.vjp(lambda a, v: ours(a, v, mode=mode), a, v)
    np.testing.assert_allclose(out, want, rtol=1e-13, atol=1e-13)
    fg.check_grads(lambda a, v: ours(a, v, mode=mode), (a, v), order=2, modes=("fwd", "rev"))
    z = a + 1j * rng.standard_normal(shapes[0])
    np.testing.assert_allclose(
        fg.vjp(lambda z: ours(z, v + 0.5j, mode=mode), z)[0],
        theirs(z, v + 0.5j, mode=mode, method="direct"),
        rtol=1e-13,
        atol=1e-13,
    )


def test_signal_under_vmap():
    a, v = np.arange(12.0).reshape(3, 4), np.array([1.0, -2.0, 0.5])
    got = fg.vmap(lambda row: convolve(row, v, mode="same"))(a)
    np.testing.assert_allclose(got, np.stack([scipy.signal.convolve(r, v, mode="same") for r in a]))


@pytest.mark.parametrize("name", ["convolve2d", "correlate2d", "fftconvolve"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_two_dimensional_signals(name, mode):
    rng = np.random.default_rng(1)
    image, kernel = rng.normal(size=(5, 6)), rng.normal(size=(2, 3))
    ours = getattr(fss, name)
    want = getattr(scipy.signal, name)(image, kernel, mode=mode)
    np.testing.assert_allclose(ours(image, kernel, mode=mode), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        fg.jit(lambda a, k: ours(a, k, mode=mode))(image, kernel), want, rtol=1e-12, atol=1e-12
    )
    fg.check_grads(
        lambda a, k: ours(a, k, mode=mode), (image, kernel), order=2, modes=("rev", "fwd")
    )


def test_two_dimensional_boundaries_other_than_zero_are_refused():
    with pytest.raises(fg.ArgumentError, match="boundary='fill' with fillvalue=0"):
        fss.convolve2d(np.ones((3, 3)), np.ones((2, 2)), boundary="wrap")


def test_trapezoid_against_scipy_and_differences():
    rng = np.random.default_rng(2)
    y, x = rng.normal(size=(3, 7)), np.sort(rng.normal(size=7))
    xs = np.sort(rng.normal(size=(3, 7)), axis=0)
    for args, kwargs in [
        ((y,), {}),
        ((y, x), {}),
        ((y,), {"dx": 0.3, "axis": 0}),
        ((y, xs), {"axis": 0}),
    ]:
        want = scipy.integrate.trapezoid(*args, **kwargs)
        np.testing.assert_allclose(fss_integrate.trapezoid(*args, **kwargs), want, rtol=1e-12)
        traced = fg.jit(lambda *a: fss_integrate.trapezoid(*a, **kwargs))(*args)
        np.testing.assert_allclose(traced, want, rtol=1e-12)
    fg.check_grads(
        lambda y, x: fss_integrate.trapezoid(fnp.sin(y), x), (y, x), order=2, modes=("rev", "fwd")
    )
    fg.check_grads(lambda xs: fss_integrate.trapezoid(y, xs, axis=0), (xs,), order=2)
