"""funcgrad.scipy.special's newer functions (funcgrad/rules/special_more.py and
funcgrad/scipy/_special_distributions.py) against SciPy: values on grids that reach the
edges of their domains (negative counts, a count past the trials, the poles), eagerly,
under jit and vmap; derivatives against central differences of SciPy's own values."""

import warnings

import numpy as np
import pytest
import scipy.special as ss

import funcgrad as fg
import funcgrad.scipy.special as fs

RNG = np.random.default_rng(4)
N = 40


def _grid(kind):
    return {
        "x": np.concatenate([RNG.uniform(-4, 4, N - 4), [0.0, 1.0, -1.0, 1e-9]]),
        "pos": np.concatenate([RNG.uniform(0.05, 6, N - 2), [1.0, 2.0]]),
        "m": np.concatenate([RNG.uniform(-2, 0.99, N - 2), [0.0, 0.5]]),
        "count": np.concatenate([RNG.integers(-1, 8, N - 2).astype(float), [0.0, 2.5]]),
        "p": RNG.uniform(0.01, 0.99, N),
        "order": RNG.uniform(0.0, 2.5, N),
    }[kind]


# name -> the kinds of its arguments (the last one differentiated below)
FUNCTIONS = {
    "log_expit": ["x"],
    "exp10": ["x"],
    "huber": ["pos", "x"],
    "pseudo_huber": ["pos", "x"],
    "inv_boxcox": ["x", "x"],
    "inv_boxcox1p": ["x", "x"],
    "binom": ["pos", "pos"],
    "k0": ["pos"],
    "k1": ["pos"],
    "k0e": ["pos"],
    "k1e": ["pos"],
    "kv": ["order", "pos"],
    "kve": ["order", "pos"],
    "ellipk": ["m"],
    "ellipe": ["m"],
    "chdtr": ["pos", "pos"],
    "chdtrc": ["pos", "pos"],
    "gdtr": ["pos", "pos", "pos"],
    "gdtrc": ["pos", "pos", "pos"],
    "pdtr": ["count", "pos"],
    "pdtrc": ["count", "pos"],
    "bdtr": ["count", "count", "p"],
    "bdtrc": ["count", "count", "p"],
    "nbdtr": ["count", "count", "p"],
    "nbdtrc": ["count", "count", "p"],
    "fdtr": ["pos", "pos", "pos"],
    "fdtrc": ["pos", "pos", "pos"],
    "stdtr": ["pos", "x"],
}


def _args(name):
    args = [_grid(kind) for kind in FUNCTIONS[name]]
    if name[:3] in ("bdt", "nbd"):  # trials around the count (an integer, as SciPy takes it)
        args[1] = np.maximum(args[0] + RNG.integers(-2, 5, N), 0.0).astype(np.int64)
    return args


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_values_are_scipys_at_the_edges_too(name):
    args = _args(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(ss, name)(*args)
        f = getattr(fs, name)
        for got in (f(*args), fg.jit(f)(*args), fg.vmap(f)(*args)):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-14, equal_nan=True)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_derivatives_against_central_differences(name):
    args = _args(name)
    k = len(args) - 1
    # away from the edges, where a difference of SciPy's values is a derivative
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = getattr(ss, name)(*args)
        eps = 1e-6
        up, down = list(args), list(args)
        up[k], down[k] = args[k] + eps, args[k] - eps
        fd = (getattr(ss, name)(*up) - getattr(ss, name)(*down)) / (2 * eps)
    inside = np.isfinite(value) & np.isfinite(fd) & (np.abs(args[k]) > 1e-3)
    if name == "huber":  # its kink
        inside &= np.abs(np.abs(args[1]) - args[0]) > 1e-3
    grad = fg.vmap(fg.grad(getattr(fs, name), argnums=k))(*args)
    np.testing.assert_allclose(grad[inside], fd[inside], rtol=2e-5, atol=1e-7)


def test_students_t_has_its_density_at_and_near_zero():
    df = np.array([1.0, 2.5, 7.0, 30.0])
    for t in (0.0, 1e-9, -1e-7):
        slope = fg.vmap(fg.grad(fs.stdtr, argnums=1))(df, np.full(4, t))
        density = np.exp(ss.gammaln((df + 1) / 2) - ss.gammaln(df / 2)) / np.sqrt(df * np.pi)
        np.testing.assert_allclose(slope, density, rtol=1e-6)


def test_second_derivatives_hold():
    fg.check_grads(fs.k1, (np.array([0.7, 2.0]),), order=2, modes=("fwd", "rev"))
    fg.check_grads(fs.ellipk, (np.array([-0.5, 0.3]),), order=2, modes=("fwd", "rev"))
    fg.check_grads(
        lambda y, lm: fs.inv_boxcox(y, lm), (np.array([0.4, 1.2]), np.array([0.3, -0.2])), order=2
    )
    fg.check_grads(lambda t: fs.stdtr(3.0, t), (np.array([-2.0, 0.5, 3.0]),), order=2)
