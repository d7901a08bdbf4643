"""The numba backend's vectorised tanh (funcgrad/jit/backends/numba/vector_math.py) against
mpmath's, to within one unit in the last place as NumPy's is, at its special values and in
the loops compiled whole that call it."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.helpers import scan_loops

pytest.importorskip("numba", reason="the numba backend needs the native extra")
mpmath = pytest.importorskip("mpmath")
vector_math = pytest.importorskip("funcgrad.jit.backends.numba.vector_math")


def _ulps(got, exact):
    return np.abs(got - exact) / np.spacing(np.abs(exact))


def test_within_one_unit_in_the_last_place_over_the_range():
    rng = np.random.default_rng(11)
    x = np.concatenate(
        [rng.normal(size=3000) * scale for scale in (1e-300, 1e-8, 0.05, 0.3, 0.55, 1.0, 3.0, 10.0)]
        + [np.linspace(-20.0, 20.0, 4001), np.nextafter(0.55, [0.0, 1.0]), [0.55, -0.55]]
    )
    x = x[x != 0]
    mpmath.mp.dps = 40
    exact = np.array([float(mpmath.tanh(mpmath.mpf(float(v)))) for v in x])
    assert _ulps(vector_math.tanh(x), exact).max() <= 1.0
    assert _ulps(np.tanh(x), exact).max() <= 1.0  # NumPy's, for the record


def test_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 19.5, -19.5, 710.0, 5e-324, -5e-324])
    with np.errstate(invalid="ignore"):  # numba's ufunc checks the flags a NaN raises
        got = vector_math.tanh(x)
    np.testing.assert_array_equal(got, np.tanh(x))
    assert np.signbit(got[1]) and not np.signbit(got[0])


def test_float32_is_computed_in_float64_and_rounded_once():
    x = np.random.default_rng(5).normal(size=5000).astype(np.float32) * 3
    got = vector_math.tanh(x)
    assert got.dtype == np.float32
    exact = np.tanh(x.astype(np.float64))
    assert (np.abs(got - exact) <= np.spacing(np.abs(exact).astype(np.float32))).all()


def test_a_compiled_loop_calls_it_and_agrees_with_the_python_loop():
    rng = np.random.default_rng(2)
    W, xs, h0 = rng.normal(size=(8, 8)) * 0.5, rng.normal(size=(40, 8)), rng.normal(size=8)

    def loss(W):
        h, _ = fg.scan(lambda h, x: (fnp.tanh(W @ h + x), 0.0), h0, xs)
        return fnp.sum(h)

    numba_step = fg.jit(fg.value_and_grad(loss), backend="numba")
    value, grad = numba_step(W)
    want_value, want_grad = fg.jit(fg.value_and_grad(loss))(W)
    assert value == pytest.approx(want_value, rel=1e-13)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12, atol=1e-15)
    (loop,) = scan_loops(numba_step, W, reverse=False)
    assert "tanh_vectorised(" in loop.source and loop.run.compiled()


def test_a_loop_of_numbers_keeps_the_c_librarys_tanh():
    # on one number at a time the vectorised form (its series or exp, branch by branch) is
    # slower than the C library's tanh: a float recurrence keeps np.tanh
    from funcgrad.jit.backends import backend_named
    from funcgrad.jit.loops import _Names

    names = _Names(backend_named("numba").machine_code(), native=True)
    assert names.ufunc(np.tanh, scalar=True) == "np_tanh"
    assert names.ufunc(np.tanh) == "tanh_vectorised"
    assert names.env["tanh_vectorised"] is vector_math.tanh
    assert _Names(None).ufunc(np.tanh) == "np_tanh"  # the Python loop's text: NumPy's
