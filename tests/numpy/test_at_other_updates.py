"""fg.at's other updates, JAX's names: ``subtract``, ``mul``, ``min``, ``max`` (NumPy's
``np.subtract.at``, ``np.minimum.at``, ... on a copy: each repeat of a position in turn),
and ``divide`` and ``power`` (JAX's: by, or to, the product of the values written to a
position). Values against NumPy and JAX, under jit, vmap (against a loop) and the
derivatives (central differences, second order)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.numpy.test_at import INDICES

# positive, so that a power of a non-integer is defined; v away from 0 for a division
X = np.random.default_rng(0).uniform(0.5, 2.0, (3, 4))
HOWS = ["subtract", "mul", "min", "max", "divide", "power"]
AT = {"subtract": np.subtract, "mul": np.multiply, "min": np.minimum, "max": np.maximum}


def _v(shape, seed=1):
    v = np.random.default_rng(seed).uniform(0.5, 1.5, shape)
    return float(v) if shape == () else v


def _numpy_update(x, index, v, how):
    """NumPy's own update on a copy, through the flat positions the index selects."""
    out = np.array(x, dtype=np.result_type(x, 1.0) if how == "divide" else x.dtype)
    positions = np.arange(x.size).reshape(x.shape)[index].ravel()
    values = np.broadcast_to(v, np.shape(positions.reshape(np.shape(x[index])))).ravel()
    flat = out.reshape(-1)
    if how in AT:
        AT[how].at(flat, positions, values)
        return out
    product = np.ones(x.size, flat.dtype)
    np.multiply.at(product, positions, values)
    product = product.reshape(x.shape)
    return out / product if how == "divide" else out**product


def _update(x, index, v, how):
    return getattr(fg.at(x)[index], how)(v)


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("name", sorted(INDICES))
def test_values_are_numpys_eagerly_traced_and_jitted(name, how):
    index, vshape = INDICES[name]
    v = _v(vshape)
    want = _numpy_update(X, index, v, how)
    got = _update(X, index, v, how)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    traced = [
        fg.vjp(lambda x, v: _update(x, index, v, how), X, v)[0],
        fg.jvp(lambda x, v: _update(x, index, v, how), (X, v), (X, v))[0],
        fg.jit(lambda x, v: _update(x, index, v, how))(X, v),
    ]
    for got in traced:
        np.testing.assert_allclose(got, want, rtol=1e-15)


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("name", ["int", "slice", "two_arrays", "mask", "repeated"])
def test_vmap_equals_a_loop(name, how):
    index, vshape = INDICES[name]
    xs = np.stack([X, X + 1.0, 2 * X])
    vs = np.stack([_v(vshape, seed) for seed in (1, 2, 3)])
    got = fg.vmap(lambda x, v: _update(x, index, v, how))(xs, vs)
    want = np.stack([_numpy_update(x, index, v, how) for x, v in zip(xs, vs)])
    np.testing.assert_allclose(got, want, rtol=1e-15)


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("name", ["int", "two_arrays", "mask", "repeated", "repeated_rows"])
@settings(max_examples=2, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**16))
def test_second_order_in_x_and_v(name, how, seed):
    index, vshape = INDICES[name]
    x = np.random.default_rng(seed).uniform(0.5, 2.0, X.shape)
    fg.check_grads(
        lambda x, v: _update(x, index, v, how), (x, _v(vshape, seed)), order=2, modes=("fwd", "rev")
    )


def test_the_minimum_sends_the_cotangent_to_the_smaller():
    x = np.array([1.0, 5.0, 3.0])
    loss = lambda x, v: fnp.sum(fg.at(x)[[0, 1, 1]].min(v) * np.array([1.0, 2.0, 3.0]))
    gx, gv = fg.jit(fg.grad(loss, argnums=(0, 1)))(x, np.array([4.0, 2.0, 7.0]))
    # position 0 keeps x (1 < 4); position 1 takes 2.0 (the second value), 7.0 loses to it
    np.testing.assert_array_equal(gx, [1.0, 0.0, 3.0])
    np.testing.assert_array_equal(gv, [0.0, 2.0, 0.0])


@pytest.mark.parametrize("how", ["divide", "power", "subtract", "min", "max", "mul"])
def test_repeated_positions_are_jaxs(how):
    jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
    jax.config.update("jax_enable_x64", True)
    x, index, v = np.array([8.0, 9.0, 10.0]), np.array([0, 0, 1]), np.array([2.0, 0.5, 3.0])
    want = getattr(jax.numpy.asarray(x).at[index], how)(v)
    np.testing.assert_allclose(_update(x, index, v, how), np.asarray(want), rtol=1e-15)
    ints = np.array([8, 9, 10])
    for how_int, w in (("divide", 2), ("power", 2)):
        want = np.asarray(getattr(jax.numpy.asarray(ints).at[index], how_int)(w))
        got = _update(ints, index, w, how_int)
        assert got.dtype == want.dtype  # true division gives floats; a power keeps ints
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("how", HOWS)
def test_a_traced_index_takes_every_update(how):
    # argsort under jit is an index jit traces: one scatter whatever it holds
    x = np.array([3.0, 1.0, 2.0, 0.5])
    v = np.array([1.5, 0.25, 2.0, 0.75])
    f = lambda x: _update(x, fnp.argsort(x)[np.array([0, 1, 1, 3])], v, how)
    want = _numpy_update(x, np.argsort(x)[[0, 1, 1, 3]], v, how)
    np.testing.assert_allclose(fg.jit(f)(x), want, rtol=1e-15)
    np.testing.assert_allclose(f(x), want, rtol=1e-15)


@pytest.mark.parametrize("how", ["set", "add", "subtract", "multiply", "min", "max"])
def test_an_integer_array_written_with_integers_stays_integer_under_jit_and_vmap(how):
    # a traced index or value computes in float64; NumPy's int64 array stays int64
    base = np.array([4, 7, 1, 0], np.int64)
    index, values = np.array([1, 1, 3]), np.array([2, 9, -5])
    want = getattr(fg.at(base)[index], how)(values)
    assert want.dtype == np.int64
    f = lambda i, v: getattr(fg.at(base)[i], how)(v)
    got = [
        fg.jit(lambda v: f(index, v))(values),
        fg.vmap(f, in_axes=(None, 0))(index, np.stack([values, values]))[1],
    ]
    got += [  # a traced index: the scatters
        fg.jit(f)(index, values),
        fg.vmap(f, in_axes=(0, None))(np.stack([index] * 2), values)[0],
    ]
    for out in got:
        assert out.dtype == np.int64
        np.testing.assert_array_equal(out, want)
