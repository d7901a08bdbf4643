"""NumPy's ``where=`` and ``initial=`` of the reductions, eagerly and under every transform.

The oracle is NumPy's own call: plain values get its bits; traced ones (jit, vmap,
grad, jvp, a loop) get its values to rounding and its dtypes, and derivatives
agree with central differences (a masked element has none).
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

RNG = np.random.default_rng(7)
X = RNG.uniform(0.5, 2.0, (3, 4))
MASK = np.array([[True, False, True, True], [False, True, True, False], [True, True, False, True]])
ROW_MASK = np.array([True, False, True, True])  # broadcasts along the rows

# name -> the options it takes (NumPy's signature)
SUMS = ["sum", "prod", "nansum", "nanprod"]
EXTREMA = ["max", "min", "amax", "amin", "nanmax", "nanmin"]
MEANS = ["mean", "var", "std", "nanmean", "nanvar", "nanstd"]


def _cases():
    for name in SUMS:
        for options in (
            {"where": MASK},
            {"initial": 1.5},
            {"where": ROW_MASK, "initial": 0.5},
        ):
            yield name, options
    for name in EXTREMA:
        yield name, {"initial": 1.2}
        yield name, {"where": MASK, "initial": 1.0}
        yield name, {"where": ROW_MASK, "initial": -1.0}
    for name in MEANS:
        yield name, {"where": MASK}
        yield name, {"where": ROW_MASK}


def _empty_slice(name, options, axis):
    """A mean over a column the row mask leaves empty (NaN and NumPy's warning: tested
    apart)."""
    return name in MEANS and options["where"] is ROW_MASK and axis == 0


CASES = [
    pytest.param(name, options, axis, id=f"{name}-{'-'.join(options)}-axis{axis}")
    for name, options in _cases()
    for axis in (None, 0, 1)
    if not _empty_slice(name, options, axis)
]


def _call(module, name, x, options, axis, keepdims=False):
    return getattr(module, name)(x, axis=axis, keepdims=keepdims, **options)


@pytest.mark.parametrize("name, options, axis", CASES)
def test_plain_values_are_numpys(name, options, axis):
    for keepdims in (False, True):
        want = _call(np, name, X, options, axis, keepdims)
        got = _call(fnp, name, X, options, axis, keepdims)
        assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name, options, axis", CASES)
def test_every_transform_gives_numpys_values(name, options, axis):
    want = _call(np, name, X, options, axis)
    f = lambda x: _call(fnp, name, x, options, axis)
    for got in (fg.jit(f)(X), fg.jvp(f, (X,), (np.zeros_like(X),))[0], fg.checkpoint(f)(X)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=1e-13)
    # vmap over a stack of inputs, against the loop over them
    stack = np.stack([X, X * 1.5])
    np.testing.assert_allclose(
        fg.vmap(f)(stack), np.stack([_call(np, name, s, options, axis) for s in stack]), rtol=1e-13
    )


@pytest.mark.parametrize("name, options, axis", CASES)
def test_derivatives_agree_with_central_differences(name, options, axis):
    f = lambda x: fnp.sum(_call(fnp, name, x, options, axis) ** 2)
    g = fg.grad(f)(X)
    h = 1e-6
    fd = np.zeros_like(X)
    for i in np.ndindex(X.shape):
        e = np.zeros_like(X)
        e[i] = h
        fd[i] = (f(X + e) - f(X - e)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(fg.jit(fg.grad(f))(X), g, rtol=1e-12)
    if "where" in options and np.shape(options["where"]) == X.shape:
        assert (g[~options["where"]] == 0).all()  # a masked element has no derivative


def test_nans_and_empty_slices():
    x = X.copy()
    x[0, 0] = np.nan
    for name in ("nansum", "nanmax", "nanmean", "nanvar"):
        options = {"where": MASK}
        if name == "nanmax":
            options["initial"] = 0.0
        want = _call(np, name, x, options, 1)
        np.testing.assert_allclose(fg.jit(lambda v: _call(fnp, name, v, options, 1))(x), want)
    # an empty axis: the initial value alone
    empty = np.ones((2, 0))
    for name in ("max", "min", "sum", "prod"):
        want = getattr(np, name)(empty, axis=1, initial=3.0)
        np.testing.assert_array_equal(
            fg.jit(lambda v: getattr(fnp, name)(v, axis=1, initial=3.0))(empty), want
        )


def test_all_and_any_take_a_mask():
    b = X > 1.0
    for name in ("all", "any"):
        for axis in (None, 0, 1):
            want = getattr(np, name)(b, axis=axis, where=MASK)
            np.testing.assert_array_equal(getattr(fnp, name)(b, axis=axis, where=MASK), want)
            got = fg.jit(lambda v: getattr(fnp, name)(v > 1.0, axis=axis, where=MASK))(X)
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.sum(x, dtype=np.int16, initial=2),
        lambda m, x: m.prod(x, dtype=np.int16, where=[True, False, True]),
        lambda m, x: m.mean(x, where=[True, False, True]),
        lambda m, x: m.max(x, initial=np.int64(2)),
    ],
)
def test_dtypes_follow_numpys(call):
    i = np.array([1, 2, 3], np.int32)
    want = np.asarray(call(np, i)).dtype
    assert np.asarray(call(fnp, i)).dtype == want
    assert np.asarray(fg.jit(lambda x: call(fnp, x))(i)).dtype == want
    assert fg.vmap(lambda x: call(fnp, x))(np.stack([i, i])).dtype == want


def test_a_float64_initial_does_not_widen():
    f32 = np.ones(3, np.float32)
    assert fnp.sum(f32, initial=np.float64(1.0)).dtype == np.sum(f32, initial=np.float64(1.0)).dtype
    assert fg.jit(lambda x: fnp.sum(x, initial=np.float64(1.0)))(f32).dtype == np.float32


def test_mistakes_are_named():
    with pytest.raises(fg.ArgumentError, match="needs initial="):
        fg.jit(lambda x: fnp.max(x, where=MASK))(X)
    with pytest.raises(fg.ShapeError, match="does not broadcast"):
        fg.jit(lambda x: fnp.sum(x, where=np.ones(5, bool)))(X)
