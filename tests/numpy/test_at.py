"""fg.at: functional indexed updates, equal to NumPy's in-place ones on a copy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.numpy as fnp

X = np.random.default_rng(0).standard_normal((3, 4))

# index name -> (index, shape of v that broadcasts to x[index])
INDICES = {
    "int": (1, (4,)),
    "negative_int": (-1, ()),
    "slice": ((slice(None), slice(1, 3)), (3, 1)),
    "step": ((slice(None, None, -2), 0), (2,)),
    "ellipsis_none": ((Ellipsis, None, 2), (1,)),
    "int_array": ((np.array([2, 0]),), (2, 4)),
    "two_arrays": ((np.array([0, 2, 1]), np.array([3, 3, 0])), (3,)),
    "list": ([0, 2], (4,)),
    "mask": (X > 0, ()),
    "row_mask": (np.array([True, False, True]), (2, 4)),
    "repeated": ((np.array([1, 1, 0, 1]), 2), (4,)),
    "repeated_rows": ((np.array([2, 2]),), (2, 1)),
}


def _v(shape, seed=1):
    rng = np.random.default_rng(seed)
    return float(rng.standard_normal()) if shape == () else rng.standard_normal(shape)


def _numpy_update(x, index, v, how):
    out = np.array(x, copy=True)
    if how == "set":
        out[index] = v
    elif how == "add":
        np.add.at(out, index, v)
    else:
        np.multiply.at(out, index, v)
    return out


def _update(x, index, v, how):
    return getattr(fg.at(x)[index], how)(v)


@pytest.mark.parametrize("how", ["set", "add", "multiply"])
@pytest.mark.parametrize("name", sorted(INDICES))
def test_values_are_numpys(name, how):
    index, vshape = INDICES[name]
    v = _v(vshape)
    want = _numpy_update(X, index, v, how)
    np.testing.assert_array_equal(_update(X, index, v, how), want)
    traced = [
        fg.vjp(lambda x, v: _update(x, index, v, how), X, v)[0],
        fg.jvp(lambda x, v: _update(x, index, v, how), (X, v), (X, v))[0],
        fg.vjp(lambda x: _update(x, index, v, how), X)[0],
    ]
    for got in traced:
        if how == "set" or "repeated" not in name:
            np.testing.assert_array_equal(got, want)
        else:  # repeated positions accumulate in order, as np.add.at does
            np.testing.assert_allclose(got, want, rtol=1e-15)


@pytest.mark.parametrize("how", ["set", "add", "multiply"])
@pytest.mark.parametrize("name", sorted(INDICES))
@settings(max_examples=2, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**16))
def test_second_order_in_x_and_v(name, how, seed):
    index, vshape = INDICES[name]
    x = np.random.default_rng(seed).standard_normal(X.shape)
    fg.check_grads(
        lambda x, v: _update(x, index, v, how), (x, _v(vshape, seed)), order=2, modes=("fwd", "rev")
    )


def test_set_gradients_by_hand():
    g = fg.grad(
        lambda x, v: fnp.sum(fg.at(x)[np.array([0, 0])].set(v) * np.arange(1.0, 4.0)),
        argnums=(0, 1),
    )(np.ones(3), np.array([5.0, 7.0]))
    # position 0 is overwritten (no gradient to x there); the last write (7.0) wins
    np.testing.assert_array_equal(g[0], [0.0, 2.0, 3.0])
    np.testing.assert_array_equal(g[1], [0.0, 1.0])
    g = fg.grad(lambda v: fnp.sum(fg.at(np.zeros(3))[[1, 1, 2]].add(v)))(np.ones(3))
    np.testing.assert_array_equal(g, [1.0, 1.0, 1.0])


@pytest.mark.parametrize("how", ["set", "add", "multiply"])
@pytest.mark.parametrize("name", ["int", "slice", "two_arrays", "mask", "repeated"])
def test_vmap_equals_a_loop(name, how):
    index, vshape = INDICES[name]
    xs = np.stack([X, -X, 2 * X])
    vs = np.stack([np.full(vshape, k) for k in (1.5, -2.0, 0.5)])
    got = fg.vmap(lambda x, v: _update(x, index, v, how))(xs, vs)
    want = np.stack([_numpy_update(x, index, v, how) for x, v in zip(xs, vs)])
    np.testing.assert_allclose(got, want, rtol=1e-15)
    got = fg.vmap(lambda x: _update(x, index, 3.0, how))(xs)  # v not batched
    np.testing.assert_allclose(
        got, np.stack([_numpy_update(x, index, 3.0, how) for x in xs]), rtol=1e-15
    )


def test_get_is_indexing():
    np.testing.assert_array_equal(fg.at(X)[1:, [0, 2]].get(), X[1:, [0, 2]])
    g = fg.grad(lambda x: fnp.sum(fg.at(x)[[0, 0]].get()))(np.ones(2))
    np.testing.assert_array_equal(g, [2.0, 0.0])


def test_x_is_never_changed_and_the_method_form_matches():
    x = X.copy()
    fg.at(x)[0].set(100.0)
    fg.at(x)[0].add(100.0)
    np.testing.assert_array_equal(x, X)
    v = fg.var(X)
    np.testing.assert_array_equal(
        fg.stop_gradient(v.at[0, 1].set(9.0)), fg.stop_gradient(fg.at(v)[0, 1].set(9.0))
    )


def test_plain_update_keeps_numpys_dtype():
    out = fg.at(np.arange(4))[1].set(7)
    assert out.dtype == np.arange(4).dtype and out.tolist() == [0, 7, 2, 3]


def test_errors():
    with pytest.raises(ValueError, match=r"set\(v\).*\(3,\).*\(2,\)"):
        fg.at(fg.var(np.zeros(4)))[:2].set(np.ones(3))
    with pytest.raises(IndexError, match="integers or booleans; got a traced float64"):
        fg.at(np.zeros(3))[fg.var(1.0)]


V3 = np.array([1.0, 2.0, 3.0])
OUT = np.array([0, 5, -1, -7])  # in bounds, past the end, negative in bounds, before the start


def test_get_with_fill_and_clip_modes():
    for x in (V3, fg.var(V3)):
        np.testing.assert_array_equal(
            fg.stop_gradient(fg.at(x)[OUT].get(mode="fill", fill_value=-9.0)),
            [1.0, -9.0, 3.0, -9.0],
        )
        np.testing.assert_array_equal(
            fg.stop_gradient(fg.at(x)[OUT].get(mode="clip")), [1.0, 3.0, 3.0, 1.0]
        )
    assert np.isnan(fg.at(V3)[7].get(mode="fill"))
    M = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(
        fg.at(M)[:, np.array([0, 3])].get(mode="fill", fill_value=0.0), [[0.0, 0.0], [3.0, 0.0]]
    )
    weights = np.arange(4.0)
    g = fg.grad(lambda x: fnp.sum(fg.at(x)[OUT].get(mode="fill", fill_value=0.0) * weights))(V3)
    np.testing.assert_array_equal(g, [0.0, 0.0, 2.0])


def test_updates_with_drop_and_clip_modes():
    np.testing.assert_array_equal(fg.at(V3)[OUT].add(10.0, mode="drop"), [11.0, 2.0, 13.0])
    np.testing.assert_array_equal(fg.at(V3)[OUT].set(10.0, mode="clip"), [10.0, 2.0, 10.0])
    np.testing.assert_array_equal(fg.at(V3)[OUT].multiply(2.0, mode="drop"), [2.0, 2.0, 6.0])
    g = fg.grad(lambda x: fnp.sum(fg.at(x)[OUT].set(5.0, mode="drop") ** 2))(V3)
    np.testing.assert_array_equal(g, [0.0, 4.0, 0.0])
    with pytest.raises(fg.ArgumentError, match="mode must be one of"):
        fg.at(V3)[0].add(1.0, mode="fill")


@pytest.mark.parametrize(
    "f",
    [
        lambda x: fg.at(x)[fnp.argsort(x) + 2].get(mode="fill", fill_value=0.0) * x,
        lambda x: fg.at(x)[fnp.argsort(x) + 2].get(mode="clip") * x,
        lambda x: fg.at(x)[fnp.argsort(x) + 1].add(x * 10.0, mode="drop"),
        lambda x: fg.at(x)[fnp.argsort(x) - 4].set(x[0], mode="clip"),
    ],
    ids=["fill", "clip", "add-drop", "set-clip"],
)
def test_modes_with_traced_indices_under_every_transform(f):
    xs = np.array([[3.0, 1.0, 2.0], [0.5, -1.0, 4.0]])
    want = np.stack([f(x) for x in xs])
    np.testing.assert_array_equal(fg.jit(f)(xs[0]), want[0])
    np.testing.assert_array_equal(fg.vmap(f)(xs), want)
    loss = lambda x: fnp.sum(f(x) * np.array([1.0, 2.0, 3.0]))
    grads = np.stack([fg.grad(loss)(x) for x in xs])
    np.testing.assert_allclose(fg.jit(fg.vmap(fg.grad(loss)))(xs), grads, rtol=1e-12)
    eps = 1e-6
    fd = [(loss(xs[0] + eps * e) - loss(xs[0] - eps * e)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(grads[0], fd, rtol=1e-6, atol=1e-8)


def test_a_dropped_write_keeps_an_integer_arrays_dtype():
    # the slot a dropped write goes to is cut off again: it must not turn ints into floats
    x = np.arange(3)
    for f in (
        lambda x, i: fg.at(x)[i].set(7, mode="drop"),
        lambda x, i: fg.at(x)[i].add(7, mode="drop"),
    ):
        for run in (f, fg.jit(f)):
            out = run(x, np.array([5, 1]))
            assert out.dtype == x.dtype
            np.testing.assert_array_equal(out, f(x.astype(float), np.array([5, 1])))


@pytest.mark.parametrize("how", ["set", "add", "multiply"])
def test_a_traced_write_into_a_plain_float32_array_stays_float32(how):
    # a NumPy float32 base took float64 under jit, vmap and grad (the eager write kept it)
    t = np.array([1.0, 2.0, 3.0], np.float32)
    grid = np.ones(5, np.float32)

    def f(x):
        return getattr(fg.at(grid)[::2], how)(x)

    want = getattr(fg.at(grid)[::2], how)(t)
    assert want.dtype == np.float32
    for got in (fg.jit(f)(t), fg.vmap(f)(np.stack([t, t]))[1]):
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want)
    assert fg.grad(lambda x: fnp.sum(f(x)))(t).dtype == np.float32
    padded = fg.jit(lambda x: fg.lax.pad(x, np.float32(0), [(1, -2, 1)]))(t)
    assert padded.dtype == np.float32
    np.testing.assert_array_equal(padded, fg.lax.pad(t, np.float32(0), [(1, -2, 1)]))
