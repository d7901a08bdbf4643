"""Where lax's semantics are XLA's, not NumPy's, funcgrad.lax gives JAX's answers (found by
a sweep of funcgrad.lax against jax.lax): shifts by a negative amount or by the width or
more, an arithmetic shift of unsigned integers, float-to-integer conversion (saturating,
NaN to 0: NumPy's cast is undefined out of range), ``top_k``'s order (NaN first, 0.0 before
-0.0; unsigned integers were ordered by their wrapped negation), running sums in the
operand's dtype, and ``erfc``'s tail (1 - erf rounded to 0). Eagerly and under jit."""

import numpy as np
import pytest

import funcgrad as fg

jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)
RNG = np.random.default_rng(11)
INTEGERS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _same(got, want):
    want = np.asarray(want)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["shift_left", "shift_right_logical", "shift_right_arithmetic"])
@pytest.mark.parametrize("dtype", INTEGERS, ids=lambda d: np.dtype(d).name)
def test_shifts_are_xlas(name, dtype):
    info, bits = np.iinfo(dtype), 8 * np.dtype(dtype).itemsize
    x = np.concatenate(
        [
            RNG.integers(info.min, info.max, 40, dtype=dtype, endpoint=True),
            np.array([info.min, info.max], dtype),
        ]
    )
    y = RNG.integers(0 if info.min == 0 else -3, bits + 4, 42).astype(dtype)
    want = getattr(jax.lax, name)(jnp.asarray(x), jnp.asarray(y))
    for f in (getattr(fg.lax, name), fg.jit(getattr(fg.lax, name))):
        _same(f(x, y), want)


SPECIAL = np.array(
    [np.nan, np.inf, -np.inf, 3e9, -3e9, 2.7, -2.7, 255.9, 256.0, -0.5, 1e20, -1e20, 9.3e18]
)


@pytest.mark.parametrize("source", [np.float64, np.float32])
@pytest.mark.parametrize("target", [*INTEGERS, np.bool_], ids=lambda d: np.dtype(d).name)
def test_float_to_integer_conversion_saturates_as_xlas(source, target):
    with np.errstate(over="ignore"):
        x = SPECIAL.astype(source)
    want = jax.lax.convert_element_type(jnp.asarray(x), target)
    for f in (fg.lax.convert_element_type, fg.jit(fg.lax.convert_element_type, static_argnums=1)):
        _same(f(x, target), want)


TOP = [
    np.array([1.0, np.nan, 3.0, -np.inf, np.inf]),
    np.array([0.0, -0.0, 1.0, 0.0, -0.0]),
    np.array([True, False, True]),
    np.array([-(2**31), 5, 2**31 - 1], np.int32),
    np.array([0, 1, 3, 7, 100, 200, 255, 2, 5], np.uint8),
    RNG.integers(0, 4, (3, 7)).astype(np.float32),
]


@pytest.mark.parametrize("x", TOP, ids=lambda x: x.dtype.name)
def test_top_k_orders_as_xla(x):
    for k in range(x.shape[-1] + 1):
        want = jax.lax.top_k(jnp.asarray(x), k)
        for f in (fg.lax.top_k, fg.jit(fg.lax.top_k, static_argnums=1)):
            values, positions = f(x, k)
            _same(positions, want[1])
            assert values.dtype == want[0].dtype
            np.testing.assert_array_equal(values, np.asarray(want[0]))
            np.testing.assert_array_equal(np.signbit(values), np.signbit(np.asarray(want[0])))


def test_top_k_sends_the_cotangent_to_the_chosen_entries():
    x = RNG.standard_normal((2, 6))
    weights = np.array([3.0, 2.0, 1.0])
    got = fg.grad(lambda t: fg.numpy.sum(fg.lax.top_k(t, 3)[0] * weights))(x)
    want = jax.grad(lambda t: jnp.sum(jax.lax.top_k(t, 3)[0] * weights))(jnp.asarray(x))
    np.testing.assert_array_equal(got, np.asarray(want))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.int16])
@pytest.mark.parametrize("reverse", [False, True])
def test_running_sums_keep_the_operands_dtype(name, dtype, reverse):
    x = np.array([1, 2, 3, 4], dtype)
    want = getattr(jax.lax, name)(jnp.asarray(x), reverse=reverse)
    for f in (getattr(fg.lax, name), fg.jit(getattr(fg.lax, name), static_argnames="reverse")):
        _same(f(x, reverse=reverse), want)


def test_erfc_keeps_its_tail():
    x = np.array([7.25, 10.0, 25.0, -3.0, 4.2, 0.1])
    want = np.asarray(jax.lax.erfc(jnp.asarray(x)))
    for f in (fg.lax.erfc, fg.jit(fg.lax.erfc)):
        np.testing.assert_allclose(f(x), want, rtol=1e-13)


@pytest.mark.parametrize("name", ["igamma", "igammac", "zeta", "polygamma"])
@pytest.mark.parametrize("number", [0.5, 2])
def test_a_python_number_traced_by_jit_stays_weak(name, number):
    # lax.igamma(2, x32) is float32 (a Python number is weak); jit's traced 2 was float64
    x = np.array([0.3, 1.2, 2.5], np.float32)
    f = getattr(fg.lax, name)
    if name == "polygamma":
        number = 2  # (an order)
    args = (number, x) if name in ("igamma", "igammac", "polygamma") else (x + 1.0, number)
    want = f(*args)
    assert want.dtype == np.float32
    got = fg.jit(f)(*args)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


POLES = np.array([-np.inf, -3.0, -1.0, -0.0, 0.0, np.inf, np.nan, -2.5, 0.5, 4.0])


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_lgamma_and_digamma_at_their_poles_are_xlas(name, dtype):
    # lgamma(-inf) is +inf (SciPy's gammaln: -inf); digamma(+-0) is nan (SciPy's: -+inf)
    x = POLES.astype(dtype)
    want = np.asarray(getattr(jax.lax, name)(jnp.asarray(x)))
    f = getattr(fg.lax, name)
    for got in (f(x), fg.jit(f)(x), fg.vmap(f)(x)):
        assert got.dtype == want.dtype
        # XLA's float32 lgamma is good to a few units in the 6th digit; SciPy's closer
        rtol = 1e-5 if dtype == np.float32 else 1e-13
        np.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True)


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
def test_lgamma_and_digamma_derivatives_are_xlas_away_from_the_poles(name):
    x = np.array([-2.5, -0.5, 0.5, 4.0])
    want = np.asarray(jax.vmap(jax.grad(getattr(jax.lax, name)))(jnp.asarray(x)))
    f = getattr(fg.lax, name)
    for g in (fg.vmap(fg.grad(f)), fg.jit(fg.vmap(fg.grad(f)))):
        np.testing.assert_allclose(g(x), want, rtol=1e-10)
    assert np.isnan(fg.grad(fg.lax.lgamma)(-np.inf))  # XLA's too: digamma(-inf)
    assert fg.grad(fg.lax.digamma)(0.0) == np.inf  # XLA's: polygamma(1, 0)
