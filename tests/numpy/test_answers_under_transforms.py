"""NumPy's answers of ``frexp``, ``modf``, ``gradient``, ``sort_complex`` and ``poly``
under jit and vmap, not only eagerly: their dtypes (NumPy's loops pick float16 for small
integers), the sign of a zero fractional part, ``modf`` at infinities, and integer
differences that do not wrap. Each case was found by a sweep of funcgrad.numpy against
NumPy under jit and failed there before it was fixed (eager calls NumPy itself)."""

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.helpers import device_makers, to_numpy

pytest.importorskip("array_api_strict", reason="the backends extra: pip install -e '.[test]'")
MAKERS = device_makers()

FREXP_INPUTS = [
    np.array([0.5, 2.0, -1.0, 1e-7, 3e38], np.float32),
    np.array([6e-8, 3.0, -0.0, 65504.0], np.float16),
    np.array([8.0, 0.75, -1e-310, 1e300]),
    np.array([1, 200, 3], np.uint8),
    np.array([True, False]),
    np.array([3, 5, -7]),
]


def _same(got, want):
    assert type(got) is type(want) and len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        assert np.array_equal(g, w, equal_nan=True)
        assert np.array_equal(np.signbit(g), np.signbit(w))


@pytest.mark.parametrize("x", FREXP_INPUTS, ids=lambda x: x.dtype.name)
def test_frexp_is_numpys_under_jit_and_vmap(x):
    want = np.frexp(x)
    _same(fg.jit(fnp.frexp)(x), want)
    _same(fg.vmap(fnp.frexp)(x), want)


def test_frexps_mantissa_derivative_keeps_the_inputs_dtype():
    x = np.array([8.0, 0.75, -3.0], np.float32)
    g = fg.grad(lambda v: fnp.sum(fnp.frexp(v)[0]))(x)
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g, 2.0 ** -np.frexp(x)[1].astype(np.float32))


MODF_SPECIAL = np.array([1.0, np.nan, -np.inf, np.inf, 2.0, -2.0, -0.0, 0.0, -2.5, 2.5, 1e300])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_modf_keeps_numpys_signs_and_infinities_under_jit_and_vmap(dtype):
    with np.errstate(over="ignore"):  # 1e300 is inf in the smaller dtypes
        x = MODF_SPECIAL.astype(dtype)
    want = np.modf(x)
    _same(fg.jit(fnp.modf)(x), want)
    _same(fg.vmap(fnp.modf)(x), want)


def test_modfs_fractional_part_has_derivative_one_at_integers_too():
    x = np.array([-2.0, 2.0, -2.5, 0.3, 0.0, -0.0])
    for f in (fg.grad, lambda h: fg.jit(fg.grad(h))):
        np.testing.assert_array_equal(f(lambda v: fnp.sum(fnp.modf(v)[0]))(x), np.ones(6))
    # and 0 at infinities, where the fractional part is a constant zero
    g = fg.grad(lambda v: fnp.sum(fnp.modf(v)[0] * 3.0))(np.array([np.inf, -np.inf, 0.5]))
    np.testing.assert_array_equal(g, [0.0, 0.0, 3.0])


@pytest.mark.parametrize(
    "f",
    [
        np.array([1, 200, 3, 0], np.uint8),
        np.array([1, 5, -3, 100], np.int8),
        np.array([[1, 70000], [-5, 3]], np.int32),
    ],
    ids=lambda f: f.dtype.name,
)
def test_gradient_of_integers_is_float64_differences_under_jit_and_vmap(f):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        want = np.gradient(f, axis=0)
        got = fg.jit(lambda v: fnp.gradient(v, axis=0))(f)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_array_equal(got, want)
    batch = np.stack([f, f[::-1]])
    looped = np.stack([np.gradient(b, axis=0) for b in batch])
    np.testing.assert_array_equal(fg.vmap(lambda v: fnp.gradient(v, axis=0))(batch), looped)


FREXP_WIDE = np.concatenate(
    [
        np.random.default_rng(3).standard_normal(500) * 10.0 ** np.arange(-250, 250),
        [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -1e-310, 1.7976931348623157e308],
        [2.0**-1022, 1.0 - 2.0**-53, 0.5, 1.0, 2.0**1023, -(2.0**-1074)],
    ]
)


# array-api-strict has no float16
ON_DEVICES = [(m, d) for m in sorted(MAKERS) for d in (np.float64, np.float32, np.float16)]
ON_DEVICES = [(m, d) for m, d in ON_DEVICES if not (m == "device1" and d == np.float16)]


@pytest.mark.usefixtures("torch_refuses_numpy")
@pytest.mark.parametrize("maker, dtype", ON_DEVICES, ids=str)
def test_frexp_on_other_libraries_arrays_is_numpys(maker, dtype):
    with np.errstate(over="ignore", under="ignore"):
        x = FREXP_WIDE.astype(dtype)
    want = np.frexp(x)
    for f in (fnp.frexp, fg.jit(fnp.frexp)):
        mantissa, exponent = f(MAKERS[maker](x))
        np.testing.assert_array_equal(to_numpy(exponent), want[1])
        assert to_numpy(exponent).dtype == np.int32
        got = to_numpy(mantissa)
        assert got.dtype == want[0].dtype
        np.testing.assert_array_equal(got, want[0])
    grad = fg.grad(lambda v: fnp.sum(fnp.frexp(v)[0]))
    finite = x[np.isfinite(x)][:50]
    np.testing.assert_array_equal(to_numpy(grad(MAKERS[maker](finite))), grad(finite))


@pytest.mark.parametrize(
    "x",
    [
        np.array([3.0, 1.0, 2.0], np.float32),
        np.array([3.0, 1.0], np.float16),
        np.array([True, False]),
        np.array([3, 1], np.uint8),
        np.array([3, 1], np.int16),
        np.array([3, 1]),
        np.array([1 + 2j, 1 - 1j], np.complex64),
    ],
    ids=lambda x: x.dtype.name,
)
def test_sort_complex_takes_numpys_dtype(x):
    want = np.sort_complex(x)
    for f in (fnp.sort_complex, fg.jit(fnp.sort_complex)):
        got = f(x)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.float16, np.complex64])
def test_poly_computes_in_numpys_dtype(dtype):
    roots = np.array([1, 2, -3 + 1j] if dtype == np.complex64 else [1, 2, -3], dtype)
    want = np.poly(roots)
    for f in (fnp.poly, fg.jit(fnp.poly)):
        got = f(roots)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want)


SCANS = ["cumsum", "cumprod", "nancumsum", "nancumprod", "cumulative_sum", "cumulative_prod"]


@pytest.mark.parametrize("name", SCANS)
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_a_scan_of_a_0d_array_is_one_elements(name, axis):
    x = np.array(1.5)
    want = getattr(np, name)(x, axis=axis)

    def f(v):
        return getattr(fnp, name)(v, axis=axis)

    for got in (f(fg.var(1.5)).value, fg.jit(f)(x)):
        assert np.shape(got) == want.shape == (1,)
        np.testing.assert_array_equal(got, want)
    for g in (fg.grad, lambda h: fg.jit(fg.grad(h))):
        assert g(lambda v: fnp.sum(f(v)))(x) == 1.0
    with pytest.raises(np.exceptions.AxisError, match="axis 1"):
        fg.jit(lambda v: getattr(fnp, name)(v, axis=1))(x)


NAN_STATISTICS = [
    ("nanmedian", {}),
    ("nanquantile", {"q": 0.3}),
    ("nanpercentile", {"q": 30.0}),
    ("nanquantile", {"q": np.array([0.3, 0.5])}),
]


@pytest.mark.parametrize("name, extra", NAN_STATISTICS, ids=lambda v: str(v)[:12])
@pytest.mark.parametrize(
    "x, kw",
    [
        (np.array([3, 1, 2, 8]), {}),
        (np.zeros((0, 3)), {}),
        (np.zeros((0, 3)), {"axis": 0}),
        (np.zeros((0, 3)), {"axis": 0, "keepdims": True}),
        (np.zeros((0, 3), np.float32), {"axis": 0}),
        (np.zeros((2, 0)), {"axis": 1}),
        (np.array([[1.0, np.nan], [np.nan, np.nan]]), {"axis": 1}),
    ],
    ids=lambda v: str(getattr(v, "shape", v)),
)
def test_nan_statistics_of_integers_and_of_nothing_are_numpys(name, extra, x, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "All-NaN slice"
        want = getattr(np, name)(x, **extra, **kw)

        def f(v):
            return getattr(fnp, name)(v, **extra, **kw)

        for got in (fg.jit(f)(x), fg.vmap(f)(np.stack([x, x]))[1]):
            assert np.shape(got) == np.shape(want)
            assert np.asarray(got).dtype == np.asarray(want).dtype
            np.testing.assert_array_equal(got, want)


def test_nanmedian_of_booleans_is_their_median():
    x = np.array([True, False, True])
    assert fg.jit(fnp.nanmedian)(x) == np.nanmedian(x) == 1.0


@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (3, 1), (2, 3)])
@pytest.mark.parametrize("name", ["cov", "corrcoef"])
def test_cov_and_corrcoef_with_too_few_observations_are_numpys(name, shape):
    x = np.arange(float(np.prod(shape))).reshape(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "Degrees of freedom <= 0"
        want = getattr(np, name)(x)
        for got in (fg.jit(getattr(fnp, name))(x), fg.vmap(getattr(fnp, name))(np.stack([x]))[0]):
            assert np.shape(got) == want.shape
            np.testing.assert_array_equal(got, want)
    if shape[1] < 2:
        with warnings.catch_warnings():  # the division's warnings, pytest.warns passes on
            warnings.filterwarnings("ignore", "(invalid value|divide by zero)", RuntimeWarning)
            with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
                fg.jit(fnp.cov)(x)


@pytest.mark.parametrize("x", [np.zeros((0, 3)), np.zeros(0, np.float32)], ids=str)
def test_histogram_bin_edges_of_no_data_span_zero_to_one(x):
    want = np.histogram_bin_edges(x)
    got = fg.jit(fnp.histogram_bin_edges)(x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("axis", [None, 0, -1, ()])
def test_squeeze_of_a_0d_array_takes_numpys_axes(axis):
    x = np.array(1.5)
    np.testing.assert_array_equal(
        fg.jit(lambda v: fnp.squeeze(v, axis=axis))(x), np.squeeze(x, axis)
    )
    assert fg.grad(lambda v: fnp.squeeze(v, axis=axis))(x) == 1.0
    for bad in (1, (0,)):
        with pytest.raises(np.exceptions.AxisError):
            np.squeeze(x, bad)
        with pytest.raises(np.exceptions.AxisError):
            fg.jit(lambda v, bad=bad: fnp.squeeze(v, axis=bad))(x)


F32 = np.array([0.5, 3.0, -1.5], np.float32)
NUMBERS = [2.5, 3, True, 1.5j, np.float64(2.0), np.float32(2.0), np.int32(2)]


@pytest.mark.parametrize("b", NUMBERS, ids=repr)
@pytest.mark.parametrize("name", ["dot", "inner"])
def test_dot_and_inner_take_a_python_number_as_numpy_does(name, b):
    want = getattr(np, name)(F32, b)  # a float32 array times 2.5 is float64 here
    f = getattr(fnp, name)
    for got in (
        f(F32, b),
        fg.jit(lambda x: f(x, b))(F32),
        fg.jit(f)(F32, b),  # the number traced: jit's argument is weak, NumPy's asarray not
        fg.jit(f)(b, F32),
        fg.vmap(lambda n: f(F32, n))(np.array([b]))[0],
    ):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    if not isinstance(b, (int, np.integer)):  # (a bool is an int) a derivative by the number
        value, tangent = fg.jvp(lambda n: f(F32, n), (b,), (b,))
        assert value.dtype == tangent.dtype == want.dtype
        np.testing.assert_array_equal(tangent, want)
    assert type(getattr(fnp, name)(3, 4)) is type(getattr(np, name)(3, 4))


@pytest.mark.parametrize("b", NUMBERS + [[1.0, 2.0], np.array([1.0])], ids=repr)
def test_concatenate_with_no_axis_takes_python_numbers_weakly(b):
    want = np.concatenate((F32, b), axis=None)
    for got in (
        fnp.concatenate((F32, b), axis=None),
        fg.jit(lambda x: fnp.concatenate((x, b), axis=None))(F32),
    ):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("b", NUMBERS + [np.array([0.5, 7.0])], ids=repr)
@pytest.mark.parametrize("name", ["union1d", "intersect1d", "setdiff1d", "setxor1d"])
def test_set_operations_take_numpys_dtype(name, b):
    want = getattr(np, name)(F32, b)
    got = getattr(fnp, name)(F32, b)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    under_grad = fg.grad(lambda x: fnp.sum(fnp.real(getattr(fnp, name)(x, b) * 1.0)))(F32)
    assert under_grad.dtype == np.float32


@pytest.mark.parametrize(
    "u, v",
    [
        (np.array([1.5, -2.0, 0.25]), 2.5),
        (2.5, np.array([1.5, -2.0, 0.25])),
        (np.array([1, 7, 3], np.uint8), np.array([0.5, 3.0], np.float32)),
        (np.array([0.5, 3.0, -1.5], np.float32), np.array([1, 7], np.int32)),
        (np.array([1.0, -3.0, 2.0], np.float16), np.array([True, True])),
        (np.float32(2.0), np.array([1.0, 2.0], np.float32)),
    ],
    ids=str,
)
def test_polydiv_takes_numbers_and_numpys_dtypes(u, v):
    want = np.polydiv(u, v)
    traced = [a for a in (u, v) if isinstance(a, np.ndarray)]
    first = isinstance(u, np.ndarray)

    def f(x):
        return fnp.polydiv(x, v) if first else fnp.polydiv(u, x)

    for got in (fnp.polydiv(u, v), fg.jit(f)(traced[0])):
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-12)


P = np.array([1.5, -2.0, 0.25])


@pytest.mark.parametrize("name", ["polyadd", "polysub"])
@pytest.mark.parametrize(
    "a, b",
    [(P, 2.5), (2.5, P), (F32, 2.5), (F32, np.float64(2.0)), (F32, 3), (P, np.array(2.0))],
    ids=str,
)
def test_polyadd_and_polysub_take_numbers_as_numpy_does(name, a, b):
    want = getattr(np, name)(a, b)
    first = isinstance(a, np.ndarray) and a.ndim

    def f(t):
        return getattr(fnp, name)(t, b) if first else getattr(fnp, name)(a, t)

    for got in (fg.jit(f)(a if first else b), fg.jit(getattr(fnp, name))(a, b)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("m", [0, 1, 2, 3, 4, 2.5])
def test_polyder_past_the_degree_leaves_no_coefficients(m):
    want = np.polyder(P, m)
    for got in (fg.jit(lambda t: fnp.polyder(t, m))(P), fnp.polyder(fg.var(P), m).value):
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    expected = [0.0, 0.0, 0.0] if int(m) >= 3 else None
    if expected is not None:
        np.testing.assert_array_equal(fg.grad(lambda t: fnp.sum(fnp.polyder(t, m)))(P), expected)


@pytest.mark.parametrize("q", [np.float64(0.5), 0.5, np.array(0.5), np.float32(0.5)], ids=repr)
@pytest.mark.parametrize("name, scale", [("quantile", 1), ("nanquantile", 1), ("percentile", 100)])
def test_quantiles_take_q_as_numpy_does(name, scale, q):
    # a NumPy float64 scalar is strong (it is a Python float's subclass, but not weak)
    want = getattr(np, name)(F32, q * scale)
    got = fg.jit(lambda t: getattr(fnp, name)(t, q * scale))(F32)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


SPACES = [
    np.array([0.5, 3.0, -1.5], np.float32),
    np.array([1, 7, 3], np.uint8),
    np.array([True, False, True]),
    np.array([0.5, 2.0, -1.0], np.float16),
    2.5,
    3,
    np.float64(0.75),
    np.float32(1.25),
]


@pytest.mark.parametrize("b", SPACES, ids=lambda v: f"{type(v).__name__}-{getattr(v, 'dtype', '')}")
@pytest.mark.parametrize("name", ["linspace", "logspace"])
def test_spaces_of_a_float32_start_take_numpys_type(name, b):
    for a, stop in ((F32, b), (b, F32)):
        want = getattr(np, name)(a, stop, num=5)
        traced_first = a is F32

        def f(t, a=a, stop=stop, traced_first=traced_first):
            return (
                getattr(fnp, name)(t, stop, num=5)
                if traced_first
                else getattr(fnp, name)(a, t, num=5)
            )

        got = fg.jit(f)(F32)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=2e-3)


CLOSE = [
    np.array([True, False, True]),
    np.array([1, 7, 3], np.uint8),
    np.array([1.0, 7.0, 3.00001], np.float32),
    np.array([1, 7, 3]),
]


@pytest.mark.parametrize("b", [*CLOSE, True, 3, 3.0], ids=repr)
@pytest.mark.parametrize("a", CLOSE, ids=lambda a: a.dtype.name)
def test_isclose_of_booleans_and_integers_is_numpys(a, b):
    want = np.isclose(a, b)
    np.testing.assert_array_equal(fg.jit(lambda t: fnp.isclose(t, b))(a), want)
    np.testing.assert_array_equal(fg.vmap(lambda t: fnp.isclose(t, b))(np.stack([a, a]))[1], want)


def test_polyint_takes_int_of_m_as_numpy():
    want = np.polyint(P, 2.5)
    np.testing.assert_allclose(fg.jit(lambda t: fnp.polyint(t, 2.5))(P), want)


CORRELATED = [
    np.array([1, 7, 3], np.uint8),
    np.array([True, False, True]),
    np.array([1.5, -2.0, 0.25], np.float32),
    np.array([1 + 1j, 2, -1j]),
]


@pytest.mark.parametrize("b", CORRELATED, ids=lambda v: v.dtype.name)
@pytest.mark.parametrize("a", CORRELATED, ids=lambda v: v.dtype.name)
def test_correlate_under_jit_keeps_numpys_dtype(a, b):
    # conjugating a real operand made booleans int8 under jit
    for mode in ("valid", "same", "full"):
        want = np.correlate(a, b, mode)
        got = fg.jit(lambda x, y, mode=mode: fnp.correlate(x, y, mode))(a, b)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want)


WEAK = [2.5, 3, True, 1.5 - 0.5j]  # jit traces a Python number as a weak one, as NEP 50 reads it


@pytest.mark.parametrize("b", WEAK, ids=repr)
@pytest.mark.parametrize("name", ["linspace", "logspace"])
def test_a_traced_python_number_stays_weak_in_numpys_dtype_rules(name, b):
    # linspace(float32 start, 2.5) is float32 in NumPy; the number traced by jit was read as
    # a float64 array and widened it
    f = getattr(fnp, name)
    want = getattr(np, name)(F32, b, 5)
    for got in (fg.jit(lambda s: f(F32, s, 5))(b), fg.jit(lambda s: f(s, F32, 5))(b)[::-1]):
        assert got.dtype == want.dtype
    np.testing.assert_allclose(fg.jit(lambda s: f(F32, s, 5))(b), want, rtol=1e-6)
    joined = np.concatenate((F32, b), axis=None)
    got = fg.jit(lambda s: fnp.concatenate((F32, s), axis=None))(b)
    assert got.dtype == joined.dtype
    np.testing.assert_array_equal(got, joined)


@pytest.mark.parametrize("b", WEAK, ids=repr)
@pytest.mark.parametrize("a", [F32, np.array([3, -1, 2]), np.array([1, 7, 3], np.uint8)], ids=str)
def test_functions_that_take_numbers_through_asarray_read_a_traced_one_strongly(a, b):
    # np.polyval and np.polyadd call asarray on their arguments: a number is an array of its
    # own type there, traced by jit or not
    for name in ("polyval", "polyadd"):
        want = getattr(np, name)(a, b)
        got = fg.jit(getattr(fnp, name))(a, b)
        assert got.dtype == want.dtype, name
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_geomspace_of_narrow_ends_computes_in_float64_as_numpy_does(dtype):
    # (its logarithms were taken in float16 and cast up: 3 digits where NumPy has 16)
    a = np.array([0.5, 2.0, 3.0], dtype)
    want = np.geomspace(a, 2.5, 7)
    for got in (
        fg.jit(lambda s: fnp.geomspace(s, 2.5, 7))(a),
        fg.jit(fnp.geomspace, static_argnums=2)(a, 2.5, 7),
    ):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-14)


@pytest.mark.parametrize(
    "u, v",
    [
        (np.array([1.5, -2.0, 0.25]), np.float32(1.25)),  # scale in float32, as NumPy's
        (np.array([1.0, 3.0, 2.0 + 3e-9, 5.0]), np.array([1.0, 3.0, 2.0])),  # x term under 1e-8
        (np.array([2.0, 0.1, -0.3, 0.7]), np.array([0.3, 1.0])),
    ],
    ids=str,
)
def test_polydiv_of_plain_coefficients_is_numpys_bit_for_bit(u, v):
    # NumPy divides by 1 / v[0] in v's own type and keeps the remainder's every entry but
    # the leading ones within allclose's 1e-8 of zero
    for got, want in zip(fnp.polydiv(u, v), np.polydiv(u, v)):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
