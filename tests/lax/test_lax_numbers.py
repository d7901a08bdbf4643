"""funcgrad.lax's numbers and dtypes are JAX's lax's: elementwise functions keep their
operand's dtype (float16 and bfloat16 included), complex operands stay complex, the
bit counts and ``mulhi`` are exact, and a window's shape is the one ``reduce_window``
gives. Eagerly, under jit and under vmap.
"""

import numpy as np
import pytest

import funcgrad as fg
from funcgrad import lax

ml_dtypes = pytest.importorskip("ml_dtypes")

FLOATS = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
UNARY = [
    "exp", "log", "sin", "tanh", "sqrt", "rsqrt", "logistic", "erf", "erfc", "erf_inv",
    "lgamma", "digamma", "bessel_i0e", "bessel_i1e", "round", "floor", "abs",
]  # fmt: skip
BINARY = [
    "add",
    "mul",
    "div",
    "pow",
    "max",
    "atan2",
    "rem",
    "igamma",
    "igammac",
    "zeta",
    "nextafter",
]


def _arguments(name, dtype, n):
    x = (np.linspace(0.2, 0.8, 3)).astype(dtype)
    return [x] * n


@pytest.mark.parametrize("name", UNARY + BINARY + ["betainc", "clamp"])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_elementwise_functions_keep_the_operands_dtype(name, dtype):
    n = 1 if name in UNARY else 2 if name in BINARY else 3
    args = _arguments(name, dtype, n)
    f = getattr(lax, name)
    for got in (f(*args), fg.jit(f)(*args), fg.vmap(f)(*[np.stack([a, a]) for a in args])):
        assert np.asarray(got).dtype == np.dtype(dtype), (name, np.asarray(got).dtype)


@pytest.mark.parametrize("name", UNARY + BINARY + ["betainc"])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_dtypes_and_values_are_jaxs(name, dtype):
    jax = pytest.importorskip("jax", reason="JAX is the reference (the jax extra)")
    jax.config.update("jax_enable_x64", True)
    n = 1 if name in UNARY else 2 if name in BINARY else 3
    args = _arguments(name, dtype, n)
    want = np.asarray(getattr(jax.lax, name)(*args))
    got = np.asarray(getattr(lax, name)(*args))
    assert got.dtype == want.dtype
    tol = {np.dtype(np.float64): 1e-12, np.dtype(np.float32): 1e-5}.get(got.dtype, 1e-2)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol)


def test_logistic_and_conj_of_complex_numbers():
    z = np.array([2.8 + 0.5j, -1.0 - 2.0j, -800.0 + 1j])
    want = 1.0 / (1.0 + np.exp(-z[:2]))
    np.testing.assert_allclose(lax.logistic(z)[:2], want, rtol=1e-15)
    assert lax.logistic(z)[2] == 0  # no overflow on the way
    primal, tangent = fg.jvp(lax.logistic, (z[:1],), (np.ones(1, complex),))
    np.testing.assert_allclose(primal, want[:1], rtol=1e-15)
    np.testing.assert_allclose(tangent, want[:1] * (1 - want[:1]), rtol=1e-14)
    assert fg.jit(lax.logistic)(z).dtype == np.complex128
    for dtype, out in ((np.float32, np.complex64), (np.float64, np.complex128)):
        x = np.array([1.0, -2.0], dtype)
        assert lax.conj(x).dtype == out and fg.jit(lax.conj)(x).dtype == out
        np.testing.assert_array_equal(lax.conj(x), x)
    assert fg.grad(lambda x: fg.numpy.real(lax.conj(x)) * 3.0)(2.0) == 3.0


INTEGERS = [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64]


def _truth(x, y, bits, signed):
    """Population counts, leading zeros and high product halves by Python's integers."""
    mask = (1 << bits) - 1
    pop = [bin(a & mask).count("1") for a in x]
    lead = [bits - (a & mask).bit_length() for a in x]
    high = []
    for a, b in zip(x, y):
        p = ((a * b) >> bits) & mask
        high.append(p - (1 << bits) if signed and p >= 1 << (bits - 1) else p)
    return pop, lead, high


@pytest.mark.parametrize("dtype", INTEGERS, ids=lambda d: np.dtype(d).name)
def test_bit_counts_and_mulhi_are_exact(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(1)
    x = rng.integers(info.min, info.max, 64, dtype=dtype, endpoint=True)
    y = rng.integers(info.min, info.max, 64, dtype=dtype, endpoint=True)
    x[:3] = [0, info.max, info.min]
    pop, lead, high = _truth(x.tolist(), y.tolist(), info.bits, info.min < 0)
    for transform in (lambda f: f, fg.jit, fg.vmap):
        assert transform(lax.population_count)(x).tolist() == pop
        assert transform(lax.clz)(x).tolist() == lead
        assert transform(lax.mulhi)(x, y).tolist() == high
    assert lax.clz(x).dtype == lax.mulhi(x, y).dtype == lax.population_count(x).dtype == dtype
    with pytest.raises(fg.ArgumentError, match="integers"):
        lax.clz(np.ones(2))


def test_a_windows_shape_is_what_reduce_window_gives():
    x = np.ones((2, 9, 7, 3))
    for window, strides, padding in (
        ((1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
        ((1, 3, 3, 1), (1, 2, 1, 1), "SAME"),
        ((1, 3, 2, 1), (1, 1, 3, 1), ((0, 0), (1, 2), (0, 1), (0, 0))),
    ):
        pads = (
            padding
            if not isinstance(padding, str)
            else lax.padtype_to_pads(x.shape, window, strides, padding)
        )
        shape = lax.reduce_window_shape_tuple(x.shape, window, strides, pads, (1,) * 4, (1,) * 4)
        assert shape == lax.reduce_window(x, 0.0, lax.add, window, strides, pads).shape
    assert lax.reduce_window_shape_tuple((5,), (3,), (1,), [(1, 1)], (2,), (2,)) == (7,)
    with pytest.raises(fg.ArgumentError, match="one per axis"):
        lax.reduce_window_shape_tuple((5, 5), (3,), (1, 1), [(0, 0)] * 2)


def test_window_shapes_are_jaxs():
    jax = pytest.importorskip("jax", reason="JAX is the reference (the jax extra)")
    for args in (
        ((1, 28, 28, 3), (1, 2, 2, 1), (1, 2, 2, 1), [(0, 0)] * 4, (1,) * 4, (1,) * 4),
        ((5,), (3,), (1,), [(1, 1)], (2,), (2,)),
        ((10, 4), (3, 2), (2, 1), [(1, 0), (0, 2)], (1, 2), (3, 1)),
    ):
        assert lax.reduce_window_shape_tuple(*args) == tuple(
            jax.lax.reduce_window_shape_tuple(*args)
        )
