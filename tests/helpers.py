"""Finite differences and comparisons shared by the tests."""

import numpy as np

EPS = 1e-6


def _perturbed(x, index, delta):
    if type(x) is float:
        return x + delta
    y = np.array(x, dtype=np.float64, copy=True)
    y[index] += delta
    return y


def numeric_grad(f, args, argnum, eps=EPS):
    """Central differences of the scalar ``f(*args)`` with respect to ``args[argnum]``.

    ``args`` are plain values (Python floats or float64 arrays); the result has
    the shape of ``args[argnum]`` (a Python float for a Python float).
    """
    x = args[argnum]

    def at(x_new):
        new = list(args)
        new[argnum] = x_new
        return float(f(*new))

    if type(x) is float:
        return (at(x + eps) - at(x - eps)) / (2 * eps)
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros(x.shape)
    for index in np.ndindex(*x.shape):
        out[index] = (at(_perturbed(x, index, eps)) - at(_perturbed(x, index, -eps))) / (2 * eps)
    return out


def assert_close(got, want, rtol=1e-5, atol=1e-6, what=""):
    """``got`` equals ``want`` within tolerance, with the same shape."""
    assert np.shape(got) == np.shape(want), f"{what}: shape {np.shape(got)} != {np.shape(want)}"
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64),
                               rtol=rtol, atol=atol, err_msg=what)
