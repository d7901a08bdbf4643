"""funcgrad.numpy's elementwise math, table-driven: every name in ``_math.__all__`` has a row.

Each row gives the domain of every argument (so finite differences stay away
from poles and jumps) and, where PyTorch has the function, its equivalent.
For every row: derivatives to second order in both modes by ``check_grads``
over shapes drawn by hypothesis (broadcasting and size-1 axes included),
values bit-identical to NumPy (Python floats in, Python floats out), and
``vmap`` bit-identical to a loop. The rows also feed the conformance matrix
(tests/opinfo, where the rows are), which checks them under every transform and their float64
gradients against PyTorch's.
"""

import inspect
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.numpy import _math
from tests.opinfo.numpy_math import (  # the rows: tests/opinfo
    ROWS,
    TABLE,
    call,
    sample,
    shapes_of,
)


def test_every_function_has_a_row():
    missing = set(_math.__all__) - set(TABLE)
    assert not missing, f"add rows to TABLE in tests/opinfo/numpy_math.py for: {sorted(missing)}"


def test_every_name_is_reachable_from_the_namespace():
    for name in _math.__all__:
        assert inspect.unwrap(getattr(fnp, name)) is getattr(_math, name), name


COMPARISONS = {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal"}
UFUNC_NAMES = sorted(
    n for n in ROWS if isinstance(getattr(np, n, None), np.ufunc) and ROWS[n].call is None
)


@pytest.mark.parametrize("name", UFUNC_NAMES)
def test_numpys_own_ufunc_on_a_traced_value_is_funcgrads(name):
    # np.<ufunc>(traced) dispatches to funcgrad.numpy's namesake: same value, and a
    # gradient (not an object array, not a constant).
    args = sample(name, shapes_of(name)[1], np.random.default_rng(5))
    ufunc = getattr(np, name)
    if ufunc.nin != len(args):
        pytest.fail(f"{name}: the row has {len(args)} arguments, numpy.{name} takes {ufunc.nin}")
    want_value = call(name, fnp, *args)
    got = ufunc(*[fg.var(a) for a in args])
    np.testing.assert_array_equal(got.value if isinstance(got, fg.Node) else got, want_value)
    if name in COMPARISONS:  # a mask: no gradient to compare
        return
    want = fg.grad(lambda x: fnp.sum(call(name, fnp, x, *args[1:])))(args[0])
    got = fg.grad(lambda x: fnp.sum(ufunc(x, *args[1:])))(args[0])
    np.testing.assert_array_equal(got, want)


# ------------------------------------------------ derivatives, both modes


@pytest.mark.parametrize("name", sorted(ROWS))
@settings(max_examples=4, deadline=None)
@given(data=st.data())
def test_second_order_both_modes(name, data):
    shapes = data.draw(st.sampled_from(shapes_of(name)), label="shapes")
    args = sample(
        name, shapes, np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed"))
    )
    fg.check_grads(lambda *xs: call(name, fnp, *xs), tuple(args), order=2, modes=("fwd", "rev"))


# ------------------------------------------------ values: NumPy, bit for bit


def _same(got, want, what):
    if type(want) is np.float64:
        assert type(got) in (float, np.float64), f"{what}: {type(got)} for NumPy's {type(want)}"
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (
        what,
        got.dtype,
        got.shape,
        want.dtype,
        want.shape,
    )
    np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_values_are_numpys_bit_for_bit(name):
    rng = np.random.default_rng(3)
    for shapes in shapes_of(name):
        args = sample(name, shapes, rng)
        want = call(name, np, *args)
        _same(call(name, fnp, *args), want, f"{name} plain {shapes}")
        traced, _ = fg.jvp(
            lambda *xs: call(name, fnp, *xs),
            tuple(args),
            tuple(np.ones_like(a) if np.shape(a) else 1.0 for a in args),
        )
        _same(traced, want, f"{name} traced {shapes}")
        if all(type(a) is float for a in args):
            # Python floats in: NumPy's scalar type out, as NumPy gives; on nodes (the
            # expression layer) the value stays a Python float.
            assert type(call(name, fnp, *args)) is type(want), f"{name}: {type(want)}"
            if type(want) is np.float64 and name != "astype":  # astype names NumPy's dtype
                assert type(call(name, fnp, *map(fg.var, args)).value) is float, name


@pytest.mark.parametrize(
    "name, x, y",
    [
        ("floor_divide", np.arange(-4, 5), 3),
        ("mod", np.arange(-4, 5), 3),
        ("fmod", np.arange(-4, 5), 3),
        ("square", np.arange(4), None),
        ("positive", np.arange(3), None),
        ("fabs", np.arange(-2, 2), None),
        ("reciprocal", np.array([1, 2]), None),
        ("heaviside", np.array([-1.0, 0.0, 2.0]), 0.5),
        ("copysign", np.array([1.0, -2.0]), np.array([-0.0, 0.0])),
        ("fmax", np.array([np.nan, 1.0]), 0.5),
        ("fmin", np.array([np.nan, 1.0]), np.nan),
        ("clip", np.arange(6), None),
    ],
)
def test_integer_nan_and_signed_zero_values_are_numpys(name, x, y):
    args = (x,) if y is None else (x, y)
    if name == "clip":
        args = (x, 1, 3)
    _same(getattr(fnp, name)(*args), getattr(np, name)(*args), name)


def test_a_nan_opponent_gives_fmax_its_whole_derivative():
    g = fg.grad(lambda x: fnp.sum(fnp.fmax(x, np.array([np.nan, 0.0, 5.0]))))(
        np.array([1.0, 1.0, 1.0])
    )
    np.testing.assert_array_equal(g, [1.0, 1.0, 0.0])


def test_ties_split_the_derivative():
    assert fg.grad(lambda x: fnp.fmax(x, 1.0))(1.0) == 0.5
    assert fg.grad(lambda x: fnp.clip(x, 0.0, 1.0))(1.0) == 0.5


def test_sinc_derivative_near_zero_is_accurate():
    x = np.array([-1e-3, -1e-6, 0.0, 1e-8, 1e-4, 0.0199, 0.0201])
    p = np.pi
    series = -(p**2) * x / 3 + p**4 * x**3 / 30 - p**6 * x**5 / 840 + p**8 * x**7 / 45360
    np.testing.assert_allclose(
        fg.grad(lambda x: fnp.sum(fnp.sinc(x)))(x), series, rtol=1e-12, atol=0
    )
    second = fg.grad(fg.grad(fnp.sinc))(0.0)
    assert abs(second - (-(p**2) / 3)) < 1e-14


def test_complex_parts_have_their_rules():
    z = np.array([1.0 + 2.0j, -0.5 + 0.25j])
    for name in ("real", "imag", "conj", "angle", "abs", "sign"):
        fun = getattr(fnp, name)
        np.testing.assert_array_equal(fun(z), getattr(np, name)(z))
        fg.check_grads(lambda x: fnp.real(fun(x) * (0.5 + 1.5j)), (z,), order=2)


def test_out_is_refused_clearly():
    with pytest.raises(TypeError, match="out= is not supported"):
        fnp.round(np.ones(2), out=np.ones(2))


# ------------------------------------------------ vmap equals a loop


@pytest.mark.parametrize("name", sorted(ROWS))
def test_vmap_equals_a_loop(name):
    rng = np.random.default_rng(5)
    shapes = shapes_of(name)[3 if len(shapes_of(name)) > 3 else -1]
    examples = [sample(name, shapes, rng) for _ in range(3)]
    batched = [np.stack([np.asarray(e[i]) for e in examples]) for i in range(len(shapes))]
    fun = lambda *xs: call(name, fnp, *xs)
    want = np.stack([np.asarray(fun(*e)) for e in examples])
    np.testing.assert_array_equal(np.asarray(fg.vmap(fun)(*batched)), want)
    # and per-example gradients of the sum, against a loop of grads
    if len(shapes) == 1 and ROWS[name].torch is not None:
        g = fg.vmap(fg.grad(lambda x: fnp.sum(fun(x))))(batched[0])
        loop = np.stack([fg.grad(lambda x: fnp.sum(fun(x)))(e[0]) for e in examples])
        np.testing.assert_allclose(g, loop, rtol=1e-13, atol=1e-15)


def test_logaddexps_derivative_at_an_infinity_is_the_limit():
    # d/dx logaddexp(x, y) = sigmoid(x - y): 1 where x is +inf and y finite (exp(x - ans)
    # is inf - inf there), 1/2 each where both are the same infinity
    for f in (fnp.logaddexp, fnp.logaddexp2):
        cases = [
            ((np.inf, 1.0), (1.0, 0.0)),
            ((1.0, np.inf), (0.0, 1.0)),
            ((-np.inf, 1.0), (0.0, 1.0)),
            ((np.inf, np.inf), (0.5, 0.5)),
            ((-np.inf, -np.inf), (0.5, 0.5)),
        ]
        for args, want in cases:
            assert fg.grad(f, argnums=(0, 1))(*args) == want
            assert fg.jit(fg.grad(f, argnums=(0, 1)))(*args) == want
        x = np.array([np.inf, 0.3, -2.0])
        np.testing.assert_array_equal(fg.vmap(fg.grad(lambda a: f(a, 1.0)))(x)[:1], [1.0])
    # finite arguments: the derivative and the Hessian (also where x == y) as before
    h = fg.hessian(lambda v: fnp.logaddexp(v[0], v[1]))(np.array([0.3, 0.3]))
    np.testing.assert_allclose(h, [[0.25, -0.25], [-0.25, 0.25]], rtol=1e-15)


def test_i0_angle_in_degrees_and_wofz():
    x = np.array([-2.0, 0.0, 0.5, 3.0])
    np.testing.assert_array_equal(fnp.i0(x), np.i0(x))
    assert type(fnp.i0(0.5)) is type(np.i0(0.5))  # NumPy's 0-d array for a number
    h = 1e-6
    np.testing.assert_allclose(
        fg.elementwise_grad(fnp.i0)(x), (np.i0(x + h) - np.i0(x - h)) / (2 * h), rtol=1e-8
    )
    np.testing.assert_allclose(fg.hessian(fnp.i0)(0.0), 0.5, rtol=1e-15)  # I0'' = I1' -> 1/2
    z = np.array([1j, -1.0, 1.0 + 1.0j])
    np.testing.assert_array_equal(fnp.angle(z, deg=True), np.angle(z, deg=True))
    np.testing.assert_array_equal(
        fg.jit(lambda v: fnp.angle(v, deg=True))(z), np.angle(z, deg=True)
    )
    scipy_special = pytest.importorskip("scipy.special")
    import funcgrad.scipy.special as fsp

    w = np.array([0.5 + 0.3j, -1.0 + 2.0j])
    np.testing.assert_array_equal(fsp.wofz(w), scipy_special.wofz(w))
    for z0 in w:  # holomorphic: the derivative against central differences
        d = fg.grad(fsp.wofz, holomorphic=True)(z0)
        fd = (scipy_special.wofz(z0 + h) - scipy_special.wofz(z0 - h)) / (2 * h)
        np.testing.assert_allclose(d, fd, rtol=1e-7)


# ldexp with a traced integer exponent, and array_equal under jit and vmap (issue 75)
LDEXP_CASES = [
    (np.array([1.5, -2.0, 0.0]), np.array([2, -3, 7])),
    (np.array([1e-300, 3.0], np.float64), np.array([1100, -1080])),  # 2**x2 alone overflows
    (np.float32([1.5, 0.25]), np.int32([3, -2])),
]


@pytest.mark.parametrize("x1, x2", LDEXP_CASES)
def test_ldexp_of_a_traced_exponent_is_numpys_under_every_transform(x1, x2):
    want = np.ldexp(x1, x2)
    for got in (
        fg.jit(fnp.ldexp)(x1, x2),
        fg.vmap(fnp.ldexp)(x1, x2),
        fg.jit(fg.vmap(fnp.ldexp))(x1, x2),
        fg.scan(lambda c, e: (c, fnp.ldexp(c, e)), x1, x2[None])[1][0],  # in a loop's body
    ):
        np.testing.assert_array_equal(got, want)
        assert np.asarray(got).dtype == want.dtype
    # d/dx1 = 2**x2 (inf where it overflows, with NumPy's warning), the exponent traced
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        slope = fg.vmap(fg.grad(fnp.ldexp))(x1.astype(np.float64), x2)
        np.testing.assert_array_equal(slope, np.ldexp(1.0, x2))
        pushed = fg.jvp(lambda v: fnp.ldexp(v, x2), (x1,), (np.ones_like(x1),))[1]
    assert pushed.dtype == x1.dtype


def test_ldexp_refuses_a_float_exponent_as_numpy_does():
    with pytest.raises(fg.ArgumentTypeError, match="astype"):
        fg.jit(fnp.ldexp)(np.ones(2), np.ones(2))
    with pytest.raises(TypeError):
        np.ldexp(np.ones(2), np.ones(2))


ARRAY_EQUAL_CASES = [
    (np.array([1.0, 2.0]), np.array([1.0, 2.0]), False),
    (np.array([1.0, 2.0]), np.array([1.0, 3.0]), False),
    (np.array([1.0, np.nan]), np.array([1.0, np.nan]), False),
    (np.array([1.0, np.nan]), np.array([1.0, np.nan]), True),
    (np.ones(2), np.ones(3), False),
    (np.ones((2, 1)), np.ones(2), False),
]


@pytest.mark.parametrize("a, b, equal_nan", ARRAY_EQUAL_CASES)
def test_array_equal_under_jit_vmap_and_grad_is_numpys(a, b, equal_nan):
    want = np.array_equal(a, b, equal_nan=equal_nan)

    def f(x, y):
        return fnp.array_equal(x, y, equal_nan=equal_nan)

    assert bool(fg.jit(f)(a, b)) is want
    assert f(a, b) is want and f(fg.var(a), b) is want  # values known: a Python bool
    batched = fg.vmap(f, in_axes=(0, None))(np.stack([a, a]), b)
    np.testing.assert_array_equal(batched, [want, want])
    loop = [f(row, b) for row in np.stack([a, a])]  # vmap's oracle: a Python loop
    np.testing.assert_array_equal(batched, loop)


def test_array_equal_steers_a_jitted_branch():
    f = fg.jit(lambda x, y: fg.cond(fnp.array_equal(x, y), lambda v: 2.0 * v, lambda v: v, x))
    np.testing.assert_array_equal(f(np.ones(2), np.ones(2)), [2.0, 2.0])
    np.testing.assert_array_equal(f(np.ones(2), np.zeros(2)), [1.0, 1.0])
