"""Convolutions of other libraries' arrays (the ``convolve`` primitive's Array API form):
``funcgrad.numpy.convolve``/``correlate`` in every mode, the n-dimensional primitive, and
``poly`` built on them, eagerly, under jit and under grad, on the stand-ins for a GPU
(array-api-strict's second device, PyTorch tensors refusing NumPy conversion). The oracle
is the same call on NumPy arrays."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.namespaces import library_of
from funcgrad.rules.convolution import convolve
from tests.helpers import device_makers, to_numpy

pytest.importorskip("array_api_strict", reason="the backends extra: pip install -e '.[test]'")
MAKERS = device_makers()
RNG = np.random.default_rng(17)
pytestmark = pytest.mark.usefixtures("torch_refuses_numpy")
SIZES = [(5, 3), (3, 5), (1, 1), (6, 6), (4, 1)]


def _close(got, want, like):
    assert library_of(got) == library_of(like)
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("n, m", SIZES)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_convolve_and_correlate_with_gradients(maker, n, m, mode, name):
    make = MAKERS[maker]
    a, v = RNG.standard_normal(n), RNG.standard_normal(m)
    ours, numpys = getattr(fnp, name), getattr(np, name)
    want = numpys(a, v, mode)
    weights = np.linspace(-1.0, 2.0, len(want))
    _close(ours(make(a), make(v), mode), want, make(a))
    _close(fg.jit(lambda p, q: ours(p, q, mode))(make(a), make(v)), want, make(a))

    def loss(w):
        return lambda p, q: fnp.sum(ours(p, q, mode) * w)

    expected = fg.grad(loss(weights), argnums=(0, 1))(a, v)
    for f in (fg.grad, lambda h, argnums: fg.jit(fg.grad(h, argnums=argnums))):
        got = f(loss(make(weights)), argnums=(0, 1))(make(a), make(v))
        for g, e in zip(got, expected):
            _close(g, e, make(a))


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("mode", ["full", "valid"])
def test_the_n_dimensional_primitive(maker, mode):
    make = MAKERS[maker]
    a, v = RNG.standard_normal((4, 5)), RNG.standard_normal((2, 3))
    _close(convolve(make(a), make(v), mode=mode), convolve(a, v, mode=mode), make(a))


@pytest.mark.parametrize("maker", sorted(MAKERS))
def test_poly_of_roots(maker):
    make = MAKERS[maker]
    roots = np.array([1.0, 2.0, -0.5])
    _close(fnp.poly(make(roots)), np.poly(roots), make(roots))
    expected = fg.grad(lambda r: fnp.sum(fnp.poly(r)))(roots)
    _close(fg.grad(lambda r: fnp.sum(fnp.poly(r)))(make(roots)), expected, make(roots))


@pytest.mark.parametrize("maker", sorted(MAKERS))
def test_shape_errors_are_numpys(maker):
    make = MAKERS[maker]
    with pytest.raises(fg.errors.ArgumentError, match="same number of axes"):
        convolve(make(np.ones((2, 2))), make(np.ones(2)))
    with pytest.raises(fg.errors.ArgumentError, match="at least as large"):
        convolve(make(np.ones(2)), make(np.ones(3)), mode="valid")


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("name", ["polyadd", "polysub", "polydiv"])
@pytest.mark.parametrize("number", [2.5, np.float32(2.0)], ids=repr)
def test_polynomial_arithmetic_with_a_number(maker, name, number):
    # a number beside another library's coefficients is made there, in their dtype
    make = MAKERS[maker]
    p = np.array([1.5, -2.0, 0.25], np.float32)
    want = getattr(np, name)(p, np.float32(number))
    got = getattr(fnp, name)(make(p), number)
    for g, w in zip(got if name == "polydiv" else [got], want if name == "polydiv" else [want]):
        assert library_of(g) == library_of(make(p))
        assert to_numpy(g).dtype == np.float32
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-6)
