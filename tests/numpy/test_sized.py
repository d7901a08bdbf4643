"""JAX's ``size=`` forms of nonzero, flatnonzero, argwhere, where(condition) and unique:
NumPy's answer cut or padded to ``size``, the same under jit (against the eager call)
and vmap (against a loop), derivatives through the values unique picks."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.helpers import numeric_grad

X = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]])


def _padded(parts, size, fill):
    return tuple(np.concatenate([p, np.full(size, f, p.dtype)])[:size] for p, f in zip(parts, fill))


@pytest.mark.parametrize("size", [0, 2, 3, 5])
@pytest.mark.parametrize("fill", [None, -1, (7, 8)])
def test_nonzero_of_a_size_is_numpys_cut_or_padded(size, fill):
    fills = fill if isinstance(fill, tuple) else (0 if fill is None else fill,) * 2
    want = _padded(np.nonzero(X), size, fills)
    for f in (fnp.nonzero, lambda x, **k: fnp.where(x, **k)):
        got = f(X, size=size, fill_value=fill)
        assert len(got) == 2
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
            assert g.dtype.kind == "i"
        jitted = fg.jit(lambda x: f(x, size=size, fill_value=fill))(X)
        for g, w in zip(jitted, want):
            np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(
        fnp.argwhere(X, size=size, fill_value=fill), np.stack(want, axis=-1)
    )
    flat = _padded((np.flatnonzero(X),), size, (0 if fill is None else -1,))[0]
    if not isinstance(fill, tuple):
        np.testing.assert_array_equal(
            fg.jit(lambda x: fnp.flatnonzero(x, size=size, fill_value=fill))(X), flat
        )


def test_nonzero_of_a_size_under_vmap_is_a_loop():
    batch = np.array([[0.0, 1.0, 2.0, 0.0], [3.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    got = fg.vmap(lambda r: fnp.nonzero(r > 0.5, size=2, fill_value=-1)[0])(batch)
    want = np.stack([_padded(np.nonzero(r > 0.5), 2, (-1,))[0] for r in batch])
    np.testing.assert_array_equal(got, want)

    # the places pick values that differentiate
    def f(x):
        return fnp.sum(fnp.take(x, fnp.flatnonzero(x > 0.5, size=2)) ** 2)

    x = np.array([0.1, 0.7, 0.9, 0.8])
    np.testing.assert_allclose(fg.jit(fg.grad(f))(x), [0.0, 1.4, 1.8, 0.0], rtol=1e-15)
    np.testing.assert_array_equal(
        fg.vmap(fg.grad(f))(np.stack([x, x[::-1]])), np.stack([fg.grad(f)(x), fg.grad(f)(x[::-1])])
    )


@pytest.mark.parametrize("size", [1, 3, 4, 8])
def test_unique_of_a_size_is_numpys_cut_or_padded(size):
    x = np.array([3.0, 1.0, 3.0, np.nan, 2.0, np.nan, 1.0])
    values, index, inverse, counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True
    )
    k = min(size, len(values))
    for f in (fnp.unique, fg.jit(fnp.unique, static_argnums=(1, 2, 3), static_argnames="size")):
        v, i, inv, c = f(x, True, True, True, size=size)
        np.testing.assert_array_equal(v[:k], values[:k])
        np.testing.assert_array_equal(v[k:], np.full(size - k, 1.0))  # the smallest value
        np.testing.assert_array_equal(i, np.concatenate([index, np.zeros(8, int)])[:size])
        np.testing.assert_array_equal(c, np.concatenate([counts, np.zeros(8, int)])[:size])
        np.testing.assert_array_equal(inv, inverse)
    np.testing.assert_array_equal(fnp.unique(x, size=size, fill_value=-9.0)[k:], -9.0)


def test_unique_of_a_size_under_vmap_and_grad():
    batch = np.array([[1.0, 1.0, 2.0], [3.0, 2.0, 1.0], [4.0, 4.0, 4.0]])
    f = lambda r: fnp.unique(r, size=3, fill_value=0.0)
    np.testing.assert_array_equal(fg.vmap(f)(batch), np.stack([f(r) for r in batch]))

    def loss(x):
        return fnp.sum(fnp.unique(x, size=2) * np.array([1.0, 10.0]))

    x = np.array([2.0, 1.0, 3.0, 5.0])
    np.testing.assert_allclose(fg.grad(loss)(x), numeric_grad(loss, [x], 0), atol=1e-9)
    # equal values: the first occurrence carries the derivative, as unique without a size
    tied = np.array([2.0, 1.0, 2.0, 5.0])
    unsized = fg.grad(lambda x: fnp.sum(fnp.unique(x)[:2] * np.array([1.0, 10.0])))(tied)
    np.testing.assert_array_equal(fg.grad(loss)(tied), unsized)
    np.testing.assert_array_equal(unsized, [10.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(fg.jit(fg.grad(loss))(tied), unsized)


def test_sized_forms_refuse_by_name():
    with pytest.raises(fg.ArgumentTypeError, match="size"):
        fnp.nonzero(X, size=-1)
    with pytest.raises(fg.ArgumentError, match="fill_value"):
        fnp.nonzero(X, fill_value=0)
    with pytest.raises(fg.ArgumentError, match="one per axis"):
        fnp.nonzero(X, size=2, fill_value=(1, 2, 3))
    with pytest.raises(fg.ShapeError, match="0-d"):
        fnp.nonzero(np.float64(1.0), size=1)
    with pytest.raises(fg.ArgumentError, match="size and fill_value"):
        fnp.where(X > 0, X, 0.0, size=2)
    with pytest.raises(fg.ArgumentError, match="neither"):
        fnp.where(X > 0, X)
    with pytest.raises(fg.ArgumentError, match="axis"):
        fnp.unique(X, axis=0, size=2)
    with pytest.raises(fg.ConcretizationError, match="nonzero"):
        fg.jit(fnp.nonzero)(X)  # without a size, the shape is the values'
