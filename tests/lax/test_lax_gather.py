"""lax.gather and the scatters against JAX's in float64 (values and gradients in the
operand and the updates, every mode), central differences, jit and vmap."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import lax

RNG = np.random.default_rng(2)
X = RNG.normal(size=(4, 5, 3))


def _jax():
    jax = pytest.importorskip("jax", reason="JAX is the reference (the jax extra)")
    jax.config.update("jax_enable_x64", True)
    return jax


# (dimension numbers as fields, start indices, slice sizes)
GATHERS = {
    "rows": (
        {"offset_dims": (1, 2), "collapsed_slice_dims": (0,), "start_index_map": (0,)},
        np.array([[3], [0], [3]]),
        (1, 5, 3),
    ),
    "points": (
        {"offset_dims": (), "collapsed_slice_dims": (0, 1, 2), "start_index_map": (0, 1, 2)},
        np.array([[1, 2, 0], [3, 4, 2]]),
        (1, 1, 1),
    ),
    "windows": (
        {"offset_dims": (1, 2), "collapsed_slice_dims": (2,), "start_index_map": (0, 1)},
        np.array([[1, 1], [3, 4], [0, 2]]),
        (2, 3, 1),
    ),
    "batched indices": (
        {"offset_dims": (2,), "collapsed_slice_dims": (0, 1), "start_index_map": (1, 0)},
        np.array([[[1, 2], [4, 3]], [[0, 0], [2, 1]]]),
        (1, 1, 3),
    ),
    "out of bounds": (
        {"offset_dims": (1,), "collapsed_slice_dims": (0, 2), "start_index_map": (0, 1, 2)},
        np.array([[1, 3, 0], [5, 0, 1], [2, -1, 2]]),
        (1, 3, 1),
    ),
    "batching dims": (
        {
            "offset_dims": (1,),
            "collapsed_slice_dims": (1,),
            "start_index_map": (1,),
            "operand_batching_dims": (0,),
            "start_indices_batching_dims": (0,),
        },
        np.array([[2], [0], [4], [1]]),
        (1, 1, 3),
    ),
}


@pytest.mark.parametrize("mode", ["clip", "fill", "promise_in_bounds"])
@pytest.mark.parametrize("name", sorted(GATHERS))
def test_gather_is_jaxs(name, mode):
    jax = _jax()
    fields, idx, sizes = GATHERS[name]
    if mode == "promise_in_bounds" and name in ("out of bounds", "windows"):
        return  # windows out of bounds: undefined there, in JAX too
    ours = lax.gather(X, idx, lax.GatherDimensionNumbers(**fields), sizes, mode=mode)
    jdn = jax.lax.GatherDimensionNumbers(**fields)
    theirs = jax.lax.gather(jax.numpy.asarray(X), idx, jdn, sizes, mode=mode)
    np.testing.assert_array_equal(ours, np.asarray(theirs))
    w = RNG.normal(size=np.shape(ours))
    loss = lambda x: fnp.sum(
        fnp.where(
            fnp.isnan(lax.gather(x, idx, lax.GatherDimensionNumbers(**fields), sizes, mode=mode)),
            0.0,
            lax.gather(x, idx, lax.GatherDimensionNumbers(**fields), sizes, mode=mode),
        )
        * w
    )
    jloss = lambda x: jax.numpy.sum(
        jax.numpy.nan_to_num(jax.lax.gather(x, idx, jdn, sizes, mode=mode)) * w
    )
    np.testing.assert_allclose(
        fg.grad(loss)(X), np.asarray(jax.grad(jloss)(jax.numpy.asarray(X))), rtol=1e-13
    )


def test_gather_under_jit_and_vmap_with_traced_indices():
    fields, idx, sizes = GATHERS["windows"]
    dn = lax.GatherDimensionNumbers(**fields)
    f = lambda x, i: lax.gather(x, i, dn, sizes, mode="clip")
    np.testing.assert_array_equal(fg.jit(f)(X, idx), f(X, idx))
    many = np.stack([idx, idx[::-1], idx + 1])
    np.testing.assert_array_equal(
        fg.vmap(f, in_axes=(None, 0))(X, many), np.stack([f(X, i) for i in many])
    )
    xs = np.stack([X, 2 * X])
    np.testing.assert_array_equal(
        fg.vmap(f, in_axes=(0, None))(xs, idx), np.stack([f(x, idx) for x in xs])
    )
    fg.check_grads(lambda x: f(x, idx), (X,), order=2, modes=("rev", "fwd"))


# (dimension numbers, scatter indices, updates)
SCATTERS = {
    "points": (
        {
            "update_window_dims": (),
            "inserted_window_dims": (0, 1, 2),
            "scatter_dims_to_operand_dims": (0, 1, 2),
        },
        np.array([[1, 2, 0], [3, 4, 2], [1, 2, 0]]),
        RNG.normal(size=3),
    ),
    "rows": (
        {
            "update_window_dims": (1, 2),
            "inserted_window_dims": (0,),
            "scatter_dims_to_operand_dims": (0,),
        },
        np.array([[3], [0], [3]]),
        RNG.normal(size=(3, 5, 3)),
    ),
    "windows": (
        {
            "update_window_dims": (1, 2),
            "inserted_window_dims": (2,),
            "scatter_dims_to_operand_dims": (0, 1),
        },
        np.array([[1, 1], [2, 3]]),
        RNG.normal(size=(2, 2, 2)),
    ),
    "out of bounds": (
        {
            "update_window_dims": (1,),
            "inserted_window_dims": (0, 2),
            "scatter_dims_to_operand_dims": (0, 1, 2),
        },
        np.array([[1, 3, 0], [5, 0, 1], [2, 4, 2]]),
        RNG.normal(size=(3, 2)),
    ),
}
KINDS = {
    "scatter": "scatter",
    "add": "scatter_add",
    "mul": "scatter_mul",
    "sub": "scatter_sub",
    "min": "scatter_min",
    "max": "scatter_max",
}


@pytest.mark.parametrize("mode", ["clip", "drop"])
@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("name", sorted(SCATTERS))
def test_scatters_are_jaxs(name, kind, mode):
    jax = _jax()
    fields, idx, upd = SCATTERS[name]
    if kind == "scatter" and name == "points":
        idx = idx[:2]  # repeated positions: which update wins is unspecified
        upd = upd[:2]
    dn, jdn = lax.ScatterDimensionNumbers(**fields), jax.lax.ScatterDimensionNumbers(**fields)
    ours_f = lambda x, u: getattr(lax, KINDS[kind])(x, idx, u, dn, mode=mode)
    theirs_f = lambda x, u: getattr(jax.lax, KINDS[kind])(x, idx, u, jdn, mode=mode)
    jx, ju = jax.numpy.asarray(X), jax.numpy.asarray(upd)
    np.testing.assert_allclose(ours_f(X, upd), np.asarray(theirs_f(jx, ju)), rtol=1e-14)
    if kind in ("min", "max", "scatter", "mul"):
        return  # ties and overwrites: JAX's conventions differ, and it refuses mul's with
        # repeated positions; central differences below
    w = RNG.normal(size=X.shape)
    ga = fg.grad(lambda x, u: fnp.sum(ours_f(x, u) * w), argnums=(0, 1))(X, upd)
    gj = jax.grad(lambda x, u: jax.numpy.sum(theirs_f(x, u) * w), argnums=(0, 1))(jx, ju)
    for a, b in zip(ga, gj):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_scatter_derivatives_against_central_differences(kind):
    fields, idx, upd = SCATTERS["windows"]
    dn = lax.ScatterDimensionNumbers(**fields)
    f = lambda x, u: getattr(lax, KINDS[kind])(x, idx, u, dn, mode="clip")
    fg.check_grads(f, (X, upd), order=1, modes=("rev", "fwd"))
    xs = np.stack([X, X + 1.0])
    np.testing.assert_allclose(
        fg.vmap(f, in_axes=(0, None))(xs, upd), np.stack([f(x, upd) for x in xs])
    )
    np.testing.assert_allclose(fg.jit(f)(X, upd), f(X, upd))


def test_wrong_dimension_numbers_are_named():
    dn = lax.GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    with pytest.raises(fg.errors.ShapeError, match="slice_sizes"):
        lax.gather(np.ones((3, 4)), np.array([[0]]), dn, (1, 5))
    with pytest.raises(fg.errors.ShapeError, match="slice size 1"):
        lax.gather(np.ones((3, 4)), np.array([[0]]), dn, (2, 4))
    with pytest.raises(fg.errors.ArgumentError, match="mode must be"):
        lax.gather(np.ones((3, 4)), np.array([[0]]), dn, (1, 4), mode="wrap")


@pytest.mark.parametrize("kind", ["min", "max"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8])
def test_scatter_min_max_agree_with_one_update_at_a_time(kind, dtype):
    # many updates to few positions, repeats, ties, and one index out of bounds
    dn = lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    rng = np.random.default_rng(3)
    x = rng.integers(0, 20, size=6).astype(dtype)
    idx = rng.integers(0, 7, size=(200, 1))
    upd = rng.integers(0, 20, size=200).astype(dtype)
    pick = np.minimum if kind == "min" else np.maximum
    want = x.copy()
    for (i,), u in zip(idx, upd):  # the oracle: XLA's meaning, one update at a time
        if i < x.shape[0]:
            want[i] = pick(want[i], u)
    f = lambda x, u: getattr(lax, KINDS[kind])(x, idx, u, dn, mode="drop")
    for got in (f(x, upd), fg.jit(f)(x, upd)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    batch = np.stack([upd, upd[::-1]])
    np.testing.assert_array_equal(
        fg.vmap(f, in_axes=(None, 0))(x, batch), np.stack([f(x, u) for u in batch])
    )
    if dtype is np.float64:  # a NaN update goes through, as XLA's min and max let it
        nan_upd = upd.copy()
        nan_upd[5] = np.nan
        assert np.isnan(f(x, nan_upd)[idx[5, 0]]) or idx[5, 0] >= x.shape[0]
