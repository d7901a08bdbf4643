"""NumPy code as users write it: traced values inside constructors, lists into
reductions, outputs of one element, and NumPy's derivative-free helpers."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.opinfo.numpy_breadth import (  # the rows: tests/opinfo
    _QUIET,
    EAGER_ONLY,
    FP,
    NAN_ROWS,
    NO_DIFFERENCES,
    ROWS,
    TABLE_MODULES,
    XN,
    XP,
    V,
    _base,
)


def test_array_of_traced_values_is_a_traced_array():
    f = lambda x: fnp.sum(fnp.array([[x, x * x], [1.0, fnp.sin(x)]]) ** 2)
    fg.check_grads(f, (0.7,), order=2)
    assert fnp.array([fg.var(1.0), 2.0]).value.tolist() == [1.0, 2.0]
    assert fnp.asarray([fg.var(1.0), 2.0]).shape == (2,)
    np.testing.assert_array_equal(fnp.array([[1, 2]], dtype=float), np.array([[1, 2]], dtype=float))
    assert fnp.array([fg.var(1.0)], ndmin=2).shape == (1, 1)


def test_full_with_a_traced_fill_value():
    fg.check_grads(lambda x: fnp.full((2, 3), x) * np.arange(6.0).reshape(2, 3), (1.5,), order=2)
    np.testing.assert_array_equal(fnp.full(3, 2.0), np.full(3, 2.0))


def test_reductions_take_lists():
    assert fnp.mean([1.0, 2.0]) == np.mean([1.0, 2.0])
    assert fnp.mean([1, 2]) == np.mean([1, 2])
    assert fnp.var([1.0, 3.0]) == np.var([1.0, 3.0])


@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 1, 1)])
def test_grad_of_an_output_with_one_element(shape):
    g = fg.grad(lambda x: fnp.reshape(fnp.sin(x) * x, shape))(0.5)
    assert g == pytest.approx(np.cos(0.5) * 0.5 + np.sin(0.5))
    with pytest.raises(fg.ShapeError, match="scalar output"):
        fg.grad(lambda x: x * np.ones(2))(1.0)


def test_derivative_free_helpers_are_numpys():
    for name in (
        "seterr",
        "errstate",
        "finfo",
        "iinfo",
        "promote_types",
        "can_cast",
        "issubdtype",
        "broadcast_shapes",
        "ndindex",
    ):
        assert getattr(fnp, name) is getattr(np, name)
    x = fg.var(np.array([1.0, 2.0 + 1.0j]))
    assert fnp.result_type(x, np.float32) == np.complex128
    np.testing.assert_array_equal(fnp.iscomplex(x).value, [False, True])
    np.testing.assert_array_equal(fnp.isreal(x).value, [True, False])
    assert fnp.isscalar(fg.var(2.0)) and not fnp.isscalar(x) and fnp.isscalar(2.0)
    with fnp.errstate(divide="ignore"):
        assert fnp.log(0.0) == -np.inf


# ---------------------------------------------------------------- the table of further functions
# Differences, integrals, convolution, interpolation (_calculus) and order statistics,
# NaN-skipping reductions, covariance (_statistics), counting (_counting). Each row: call(m, *xs)
# for m = numpy or funcgrad.numpy, its arguments, whether values are NumPy's bits
# (else to 1e-13), whether it has a derivative, and a PyTorch twin where one exists.


def test_every_table_function_has_a_row_and_an_example():
    covered = {_base(n) for n in ROWS}
    for module in TABLE_MODULES:
        assert not set(module.__all__) - covered, set(module.__all__) - covered
        for name in module.__all__:
            assert ">>>" in (getattr(module, name).__doc__ or ""), f"{name} needs a >>> example"


def _close(got, want, exact, what):
    got = fg.stop_gradient(got)
    if exact:
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14, err_msg=what)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_table_values_are_numpys(name):
    with np.errstate(**_QUIET.get(name, {})):
        _values_are_numpys(name)


def _values_are_numpys(name):
    row = ROWS[name]
    want = row.call(np, *row.args)
    _close(row.call(fnp, *row.args), want, True, "plain arrays: NumPy's own call")
    out, _ = fg.vjp(lambda *xs: row.call(fnp, *xs), *row.args)
    assert np.shape(out) == np.shape(want)
    _close(out, want, row.exact, "traced")
    if name.split(":")[0] not in EAGER_ONLY:
        _close(fg.jit(lambda *xs: row.call(fnp, *xs))(*row.args), want, row.exact, "jit")


def _finite_part(row):
    """The row as a function of the non-NaN entries of its first argument."""
    x = row.args[0]
    keep = ~np.isnan(x)

    def f(v, *rest):
        full = fg.at(np.where(keep, 0.0, np.nan))[keep].set(v)
        return row.call(fnp, full, *rest)

    return f, (x[keep], *row.args[1:])


@pytest.mark.parametrize(
    "name", sorted(n for n, r in ROWS.items() if r.grad and _base(n) not in NO_DIFFERENCES)
)
def test_table_second_order_both_modes(name):
    row = ROWS[name]
    if name in NAN_ROWS:
        f, args = _finite_part(row)
        out = row.call(np, *row.args)
        finite = ~np.isnan(out)
        fg.check_grads(
            lambda *a: f(*a)[finite] if np.ndim(out) else f(*a), args, order=2, modes=("fwd", "rev")
        )
    else:
        fg.check_grads(lambda *xs: row.call(fnp, *xs), row.args, order=2, modes=("fwd", "rev"))


def test_nan_entries_get_zero_gradients():
    for f in (
        fnp.nanmax,
        fnp.nanmin,
        fnp.nansum,
        fnp.nanprod,
        fnp.nanvar,
        fnp.nanstd,
        fnp.nanmedian,
        lambda x: fnp.nanquantile(x, 0.3),
        lambda x: fnp.sum(fnp.nancumsum(x)),
    ):
        g = fg.grad(f)(XN)
        assert np.all(g[np.isnan(XN)] == 0.0) and np.all(np.isfinite(g))
    g = fg.grad(
        lambda x: fnp.sum(fnp.nan_to_num(x + np.array([1.0, np.inf, -np.inf, np.nan, 1.0])))
    )(V)
    np.testing.assert_array_equal(g, [1.0, 0.0, 0.0, 0.0, 1.0])


def test_median_of_data_with_a_nan_is_nan_as_in_numpy():
    assert np.isnan(fnp.median(fg.var(XN)).value)
    np.testing.assert_array_equal(fnp.median(fg.var(XN), axis=1).value, np.median(XN, axis=1))


MEDIANS = {  # name -> data NumPy's median reads as the mean of its middle values
    "an infinite middle value": np.array([[1.0, np.inf, 2.0, np.inf], [-np.inf, 0.5, 3.0, 4.0]]),
    "odd, infinite": np.array([[-np.inf, -np.inf, 1.0], [np.inf, np.inf, np.nan]]),
    "empty": np.ones((3, 0)),
    "float32": np.arange(12.0, dtype=np.float32).reshape(3, 4) ** 1.5,
    "float16": np.linspace(-3.0, 7.0, 12).astype(np.float16).reshape(4, 3),
    "integers": np.array([[3, 1, 2, 8], [5, 7, 0, 6]]),
    "booleans": np.array([[True, False, True, True], [False, False, True, False]]),
    "complex": np.array([[1 + 2j, 3 - 1j, -2j, 4.0], [1j, 2.0, 2 + 1j, -1.0]]),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # both warn of inf - inf, no data
@pytest.mark.parametrize("name", sorted(MEDIANS))
def test_median_under_transforms_is_numpys(name):
    # the middle element, or the mean of the two middle ones: the quantile's
    # interpolation b - (b - a) / 2 gave NaN for an infinite middle value
    x = MEDIANS[name]
    for axis in (None, 0, -1):
        for keepdims in (False, True):
            want = np.median(x, axis=axis, keepdims=keepdims)
            median = lambda a: fnp.median(a, axis=axis, keepdims=keepdims)
            got = fg.jit(median)(x)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
            if axis is not None and x.size:  # vmap over the other axis: a loop over it
                other = 1 - axis % 2
                looped = np.stack([np.median(r) for r in np.moveaxis(x, other, 0)])
                batched = fg.vmap(lambda r: fnp.median(r), in_axes=other)(x)
                np.testing.assert_array_equal(batched, looped)


def test_medians_derivative_is_half_to_each_middle_value():
    x = np.array([[4.0, 1.0, 3.0, 2.0], [0.5, 9.0, -1.0, 7.0]])
    f = lambda a: fnp.sum(fnp.median(a, axis=1) * np.array([1.0, 3.0]))
    np.testing.assert_array_equal(fg.grad(f)(x), [[0.0, 0.0, 0.5, 0.5], [1.5, 0.0, 0.0, 1.5]])
    odd = lambda a: fnp.median(a)
    np.testing.assert_array_equal(fg.grad(odd)(np.array([3.0, 1.0, 2.0])), [0.0, 0.0, 1.0])


def test_diff_of_booleans_and_nan_to_num_of_integers_are_numpys():
    b = np.array([[True, False, False, True], [True, True, False, False]])
    for n in (1, 2):
        np.testing.assert_array_equal(fg.jit(lambda a: fnp.diff(a, n=n))(b), np.diff(b, n=n))
    k = np.array([[3, -1], [0, 7]])
    for x in (k, k > 0):
        got = fg.jit(fnp.nan_to_num)(x)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, np.nan_to_num(x))


def test_interp_derivative_is_the_slope_of_the_piece():
    g = fg.grad(lambda x: fnp.sum(fnp.interp(x, XP, FP)))(np.array([-1.0, 0.5, 2.0, 2.75, 4.0]))
    np.testing.assert_array_equal(g, [0.0, -2.0, 2.0, -3.0, 0.0])


def test_ravel_pytree_round_trips_and_differentiates():
    tree = {"w": np.arange(6.0).reshape(2, 3), "layers": [1.5, (np.ones(2), np.zeros((1, 1)))]}
    flat, unravel = fg.ravel_pytree(tree)
    assert flat.shape == (10,)
    back = unravel(flat)
    assert back["layers"][0] == 1.5 and type(back["layers"][0]) is float
    np.testing.assert_array_equal(back["w"], tree["w"])
    assert back["layers"][1][1].shape == (1, 1)
    loss = lambda v: fnp.sum(unravel(v)["w"] ** 2) * unravel(v)["layers"][0]
    fg.check_grads(loss, (flat,), order=2, modes=("fwd", "rev"))
    g = fg.grad(lambda t: fg.ravel_pytree(t)[0] @ np.arange(10.0))(
        tree
    )  # ravel is differentiable too
    np.testing.assert_array_equal(
        g["w"], np.arange(4.0, 10.0).reshape(2, 3)
    )  # keys sorted: layers first
    with pytest.raises(ValueError, match=r"unravel: expected a vector of shape \(10,\)"):
        unravel(np.ones(9))
    assert fg.ravel_pytree({})[0].shape == (0,)


@pytest.mark.parametrize(
    "args",
    [
        lambda a, b: (a, [0, 1], b, [1, 2], [0, 2]),
        lambda a, b: (a, [0, 1], b, [1, 2]),
        lambda a, b: (a, [Ellipsis, 1], b, [1, 2], [Ellipsis, 2]),
        lambda a, b: (a, [0, 1], [1]),
    ],
)
def test_einsum_sublist_form_is_numpys(args):
    a, b = (
        np.random.default_rng(1).standard_normal((2, 3)),
        np.random.default_rng(2).standard_normal((3, 4)),
    )
    want = np.einsum(*args(a, b))
    np.testing.assert_array_equal(fnp.einsum(*args(a, b)), want)
    np.testing.assert_array_equal(fg.vjp(lambda a, b: fnp.einsum(*args(a, b)), a, b)[0], want)
    fg.check_grads(lambda a, b: fnp.einsum(*args(a, b)), (a, b), order=2, modes=("fwd", "rev"))


def test_value_dependent_shapes_route_the_gradient():
    x = np.array([0.0, 0.0, 1.5, 0.0, -2.0, 0.0])
    np.testing.assert_array_equal(
        fg.grad(lambda v: fnp.sum(fnp.trim_zeros(v) * np.array([1.0, 2.0, 3.0])))(x),
        [0.0, 0.0, 1.0, 2.0, 3.0, 0.0],
    )
    u = np.array([3.0, 1.0, 3.0, 2.0])  # each distinct value's first occurrence carries it
    np.testing.assert_array_equal(
        fg.grad(lambda v: fnp.sum(fnp.unique(v) * np.array([1.0, 2.0, 3.0])))(u),
        [3.0, 1.0, 0.0, 2.0],
    )
    with pytest.raises(fg.ConcretizationError, match="unique reads the values"):
        fg.jit(fnp.unique)(u)
    # the set routines: each value's derivative from its first occurrence in the first array
    a, b = np.array([3.0, 1.0, 2.0, 3.0]), np.array([2.0, 3.0, 5.0])
    np.testing.assert_array_equal(
        fg.grad(lambda v: fnp.sum(fnp.intersect1d(v, b) * np.array([1.0, 10.0])))(a),
        [10.0, 0.0, 1.0, 0.0],
    )
    np.testing.assert_array_equal(
        fg.grad(lambda v: fnp.sum(fnp.union1d(a, v) ** 2))(b), [0.0, 0.0, 10.0]
    )
    np.testing.assert_array_equal(
        fg.grad(lambda v: fnp.sum(fnp.setdiff1d(v, b) * 2.0))(a), [0.0, 2.0, 0.0, 0.0]
    )
    with pytest.raises(fg.ConcretizationError, match="setdiff1d"):
        fg.jit(fnp.setdiff1d)(a, b)


def test_lists_of_traced_values_are_arrays_everywhere():
    g = fg.grad(lambda a, b: fnp.sum(fnp.append(a, b) ** 2), argnums=(0, 1))([1.0, 2.0, 3.0], 4.0)
    assert [float(v) for v in g[0]] == [2.0, 4.0, 6.0] and g[1] == 8.0
    fg.check_grads(lambda x: fnp.max(fnp.array([[x, x], [x, 0.5]]), axis=1), (1.0,), order=2)
    for num in (0, 1, 5):
        for a, b in ((1.2, 3.4), (1.2, -3.4), (1.2, 1.2)):
            fg.check_grads(lambda x, y: fnp.linspace(x, y, num), (a, b), order=2)


@pytest.mark.parametrize(
    "name, f, want",
    [
        ("mean", lambda x: fnp.mean([x, x + 2.0]), 1.0),
        ("std", lambda x: fnp.std([x, x * 2.0]), 0.5),
        ("var", lambda x: fnp.var([x, x * 2.0]), 0.75),
        ("norm", lambda x: fnp.linalg.norm([x, x * 2.0]), 5.0**0.5),
        ("append", lambda x: fnp.sum(fnp.append([x], [x * 2.0])), 3.0),
        ("sum", lambda x: fnp.sum([x, 3.0]), 1.0),
        ("prod", lambda x: fnp.prod([x, 3.0]), 3.0),
        ("max", lambda x: fnp.max([x, 3.0 * x]), 3.0),
        ("min", lambda x: fnp.min([x, 3.0 * x]), 1.0),
        ("cumsum", lambda x: fnp.sum(fnp.cumsum([x, x])), 3.0),
    ],
)
def test_lists_of_traced_scalars_reduce_as_arrays(name, f, want):
    # autograd's own tests write these; they raised ConversionError (NumPy's asarray of nodes)
    assert np.isclose(fg.grad(f)(1.5), want)
    assert np.isclose(fg.jit(fg.grad(f))(1.5), want)
    xs = np.array([1.5, 2.5])
    np.testing.assert_allclose(fg.vmap(fg.grad(f))(xs), [fg.grad(f)(x) for x in xs], rtol=1e-12)
