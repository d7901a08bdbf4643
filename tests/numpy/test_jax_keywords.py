"""JAX's keywords on funcgrad.numpy's functions, so JAX code runs as written: ``sort`` and
``argsort`` with ``descending`` (and NumPy 2's ``stable``), ``take`` and
``take_along_axis`` with ``mode="fill"``/``"clip"`` and ``fill_value``, ``repeat`` with
``total_repeat_length`` (its counts traced), ``convolve``/``correlate``/``vecdot`` with
``preferred_element_type``, and ``method=`` of ``searchsorted``, ``digitize``, ``isin``.
Each raised TypeError before. Against JAX where installed, and against NumPy-built
oracles, eagerly and under jit, vmap and grad."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

RNG = np.random.default_rng(3)
TIES = RNG.integers(0, 4, (4, 6)).astype(float)
NANS = np.array([1.0, np.nan, 3.0, 1.0, np.nan, -0.0, 0.0])


def _jnp():
    jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
    jax.config.update("jax_enable_x64", True)
    return jax.numpy


def _descending_oracle(x, axis):
    """The stable descending order by NumPy: the ascending stable sort of the reversed."""
    n = x.shape[axis]
    backwards = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - backwards, axis)


@pytest.mark.parametrize("x", [TIES, NANS, TIES.astype(np.uint8), TIES > 1], ids=str)
@pytest.mark.parametrize("axis", [-1, 0])
def test_descending_sorts_are_the_stable_reversed_order(x, axis):
    if x.ndim == 1 and axis == 0:
        axis = -1
    order = _descending_oracle(x, axis)
    for argsort in (fnp.argsort, fg.jit(fnp.argsort, static_argnames=("axis", "descending"))):
        np.testing.assert_array_equal(argsort(x, axis=axis, descending=True), order)
    want = np.take_along_axis(x, order, axis=axis)
    for sort in (fnp.sort, fg.jit(fnp.sort, static_argnames=("axis", "descending"))):
        got = sort(x, axis=axis, descending=True)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, want)
    if x.dtype.kind == "f" and x.ndim == 2:
        rows = fg.vmap(lambda r: fnp.sort(r, descending=True))(x)
        np.testing.assert_array_equal(rows, np.stack([fnp.sort(r, descending=True) for r in x]))


def test_descending_sorts_are_jaxs_and_differentiate():
    jnp = _jnp()
    for x in (TIES, NANS):
        np.testing.assert_array_equal(
            fnp.argsort(x, descending=True), jnp.argsort(x, descending=True)
        )
        np.testing.assert_array_equal(fnp.sort(x, descending=True), jnp.sort(x, descending=True))
    x = RNG.normal(size=(3, 5))  # no ties: one derivative
    w = np.arange(5.0)
    grad = fg.grad(lambda v: fnp.sum(fnp.sort(v, descending=True) * w))(x)
    import jax

    np.testing.assert_allclose(
        grad, jax.grad(lambda v: jnp.sum(jnp.sort(v, descending=True) * w))(x)
    )
    assert fnp.argsort(x, dtype=np.int32).dtype == np.int32
    np.testing.assert_array_equal(fnp.sort(TIES, stable=True), np.sort(TIES, stable=True))


X = np.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize("array", [X, X.astype(np.int32), X.astype(np.uint8), X > 5], ids=str)
@pytest.mark.parametrize(
    "indices, axis", [(np.array([-1, 4, -5, 2]), 1), (np.array([[0, 3], [-4, 5]]), 0), (3, 1)]
)
def test_take_fills_outside_the_axis(array, indices, axis):
    n = array.shape[axis]
    inside = (np.asarray(indices) >= -n) & (np.asarray(indices) < n)
    kind = array.dtype.kind
    default = np.nan if kind == "f" else True if kind == "b" else np.iinfo(array.dtype).min
    if kind == "u":
        default = np.iinfo(array.dtype).max
    for fill in (None, 7):
        read = np.take(array, np.where(inside, indices, 0), axis=axis)
        shape = np.shape(indices) + (1,) * (array.ndim - axis - 1)
        want = np.where(np.reshape(inside, shape), read, default if fill is None else fill)
        want = want.astype(array.dtype)
        f = lambda a, i: fnp.take(a, i, axis=axis, mode="fill", fill_value=fill)
        for got in (f(array, indices), fg.jit(f)(array, np.asarray(indices))):
            assert got.dtype == array.dtype
            np.testing.assert_array_equal(got, want)


def test_take_along_axis_clips_and_fills_as_jax():
    jnp = _jnp()
    idx = np.array([[0, -1, 5, -4], [3, -5, 1, 2], [9, 0, 0, -2]])
    for mode in ("clip", "fill"):
        want = np.asarray(jnp.take_along_axis(X, idx, axis=1, mode=mode))
        f = lambda a, i: fnp.take_along_axis(a, i, axis=1, mode=mode)
        np.testing.assert_array_equal(f(X, idx), want)
        np.testing.assert_array_equal(fg.jit(f)(X, idx), want)
        import jax

        loss = lambda a: fnp.sum(
            fnp.take_along_axis(a, idx, axis=1, mode=mode, fill_value=0.0) ** 2
        )
        jloss = lambda a: jnp.sum(
            jnp.take_along_axis(a, idx, axis=1, mode=mode, fill_value=0.0) ** 2
        )
        np.testing.assert_allclose(fg.grad(loss)(X), jax.grad(jloss)(X))
    with pytest.raises(fg.ArgumentError, match="take_along_axis: mode"):
        fnp.take_along_axis(X, idx, axis=1, mode="wrap")


@pytest.mark.parametrize(
    "repeats, axis, length",
    [
        ([1, 2, 0, 1, 1, 3, 0, 0, 1, 2, 1, 1], None, 10),
        ([2, 0, 1], 0, 2),
        (2, 1, 5),
        ([1, 2, 3], 0, 9),
    ],
)
def test_repeat_to_a_length_with_traced_counts(repeats, axis, length):
    a = X if axis is not None else X.ravel()
    full = np.repeat(a, repeats, axis=0 if axis is None else axis)
    ax = 0 if axis is None else axis
    end = full.shape[ax]
    last = np.take(full, [end - 1], axis=ax)
    want = np.concatenate([full] + [last] * max(0, length - end), axis=ax)
    want = np.take(want, np.arange(length), axis=ax)
    f = lambda x, r: fnp.repeat(x, r, axis=axis, total_repeat_length=length)
    np.testing.assert_array_equal(f(X, repeats), want)
    np.testing.assert_array_equal(fg.jit(f)(X, np.asarray(repeats)), want)  # counts traced
    weights = RNG.normal(size=want.shape)
    grad = fg.grad(lambda x: fnp.sum(f(x, repeats) * weights))(X)
    eps = 1e-6
    fd = [
        (np.sum(f(X + eps * e, repeats) * weights) - np.sum(f(X - eps * e, repeats) * weights))
        / (2 * eps)
        for e in np.eye(X.size).reshape(-1, *X.shape)
    ]
    np.testing.assert_allclose(grad, np.reshape(fd, X.shape), atol=1e-7)


def test_repeat_counts_batched_by_vmap_and_a_wrong_count_named():
    counts = np.array([[1, 1, 2], [0, 3, 1]])
    f = lambda r: fnp.repeat(np.array([1.0, 2.0, 3.0]), r, total_repeat_length=4)
    np.testing.assert_array_equal(fg.vmap(f)(counts), [[1, 2, 3, 3], [2, 2, 2, 3]])
    with pytest.raises(fg.ShapeError, match="repeats of shape"):
        fnp.repeat(X, [1, 2], total_repeat_length=3)


def test_convolutions_and_vecdot_sum_in_the_preferred_type():
    a = np.full(64, 100, np.int8)
    exact = int(a.astype(np.int64) @ a.astype(np.int64))
    for f in (fnp.convolve, fnp.correlate):
        for run in (f, fg.jit(f, static_argnames="preferred_element_type")):
            out = run(a, a, preferred_element_type=np.int32)
            assert out.dtype == np.int32 and exact in out.tolist()
    assert int(fnp.vecdot(a, a, preferred_element_type=np.int64)) == exact


def test_jax_methods_are_taken_and_give_numpys_values():
    a, v = np.arange(10.0), np.array([2.5, -1.0, 9.0])
    for method in ("scan", "scan_unrolled", "sort", "compare_all"):
        np.testing.assert_array_equal(fnp.searchsorted(a, v, method=method), np.searchsorted(a, v))
        np.testing.assert_array_equal(fnp.digitize(v, a, method=method), np.digitize(v, a))
    for method in ("auto", "compare_all", "binary_search", "sort"):
        np.testing.assert_array_equal(fnp.isin(a, v, method=method), np.isin(a, v))
    with pytest.raises(fg.ArgumentError, match="searchsorted: method"):
        fnp.searchsorted(a, v, method="fast")


@pytest.mark.parametrize("name", ["unique_values", "unique_counts", "unique_inverse", "unique_all"])
def test_the_array_apis_uniques_take_a_size(name):
    x = np.array([[3.0, 1.0], [3.0, 5.0]])
    f = getattr(fnp, name)
    want = f(x)
    want = want if isinstance(want, tuple) else (want,)
    for run in (f, fg.jit(f, static_argnames=("size", "fill_value"))):
        got = run(x, size=5, fill_value=-1.0)
        got = got if isinstance(got, tuple) else (got,)
        np.testing.assert_array_equal(got[0], [1.0, 3.0, 5.0, -1.0, -1.0])
        if name == "unique_counts":
            np.testing.assert_array_equal(got[1], [1, 2, 1, 0, 0])
        if name in ("unique_inverse", "unique_all"):
            np.testing.assert_array_equal(
                got[-1 if name == "unique_inverse" else 2],
                want[-1 if name == "unique_inverse" else 2],
            )


def test_bincount_into_a_given_length_under_jit_and_vmap():
    x, w = np.array([0, 2, 2, 7, 1, -1]), np.array([0.5, 1.0, 2.0, 3.0, 4.0, 9.0])
    for length in (3, 9):
        inside = (x >= 0) & (x < length)
        counts = np.bincount(x[inside], minlength=length)[:length]
        sums = np.bincount(x[inside], w[inside], minlength=length)[:length]
        f = lambda a, b: fnp.bincount(a, b, length=length)
        for run in (f, fg.jit(f)):
            np.testing.assert_array_equal(run(x, None), counts)
            assert run(x, None).dtype == counts.dtype
            np.testing.assert_array_equal(run(x, w), sums)
        grad = fg.grad(lambda b: fnp.sum(f(x, b) ** 2))(w)
        np.testing.assert_allclose(grad, np.where(inside, 2 * sums[np.clip(x, 0, length - 1)], 0))
    rows = fg.vmap(lambda a: fnp.bincount(a, length=3))(np.array([[0, 1, 1], [2, 2, 0]]))
    np.testing.assert_array_equal(rows, [[1, 2, 0], [1, 0, 2]])
    assert rows.dtype == np.intp
