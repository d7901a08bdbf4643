"""The scatters that combine (funcgrad/rules/scatter_combine.py): ``fg.at(x)[i].max(v)``,
``.min``, ``.multiply`` (and ``.divide``, ``.power`` through it) with an index jit or
vmap traces, or another library's index, as one primitive however often a position
repeats. Values against NumPy's ``ufunc.at`` (the eager call with a plain index),
derivatives against central differences, the plain index's path and JAX (ties shared
evenly, as JAX shares them), vmap against a loop, jit against eager, and PyTorch's and
array-api-strict's arrays against NumPy's."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

HOWS = ["max", "min", "multiply", "divide", "power", "add", "subtract", "set"]
RNG = np.random.default_rng(7)
X = RNG.uniform(0.5, 2.0, (5, 3))
INDEX = np.array([4, 0, 4, 2, 4, 0])  # repeats: 4 thrice, 0 twice
V = RNG.uniform(0.5, 1.5, (6, 3))


def _update(x, i, v, how):
    return getattr(fg.at(x)[i], how)(v)


def _traced(how):
    """The update with its index an argument jit traces."""
    return fg.jit(lambda x, i, v: _update(x, i, v, how))


@pytest.mark.parametrize("how", HOWS)
def test_a_traced_index_gives_the_plain_index_values(how):
    want = _update(X, INDEX, V, how)  # NumPy's ufunc.at on a copy
    np.testing.assert_allclose(_traced(how)(X, INDEX, V), want, rtol=1e-15)
    # v broadcast along the rows, and a number
    np.testing.assert_allclose(
        _traced(how)(X, INDEX, V[0]), _update(X, INDEX, V[0], how), rtol=1e-15
    )
    np.testing.assert_allclose(_traced(how)(X, INDEX, 1.25), _update(X, INDEX, 1.25, how))


@pytest.mark.parametrize("how", HOWS)
def test_derivatives_of_a_traced_index_update(how):
    f = lambda x, v: fg.jit(lambda x, i, v: _update(x, i, v, how))(x, INDEX, v)
    fg.check_grads(f, (X, V), order=2, modes=("fwd", "rev"))
    # the same derivatives as the plain index's path (no ties here)
    loss = lambda x, v, i: fnp.sum(fnp.sin(_update(x, i, v, how)))
    eager = fg.grad(loss, argnums=(0, 1))(X, V, INDEX)
    jitted = fg.jit(fg.grad(loss, argnums=(0, 1)))(X, V, INDEX)
    for a, b in zip(eager, jitted):
        np.testing.assert_allclose(a, b, rtol=1e-13)


@pytest.mark.parametrize("how", ["max", "min"])
def test_a_tie_shares_the_derivative_evenly_as_jaxs(how):
    jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
    jax.config.update("jax_enable_x64", True)
    x = np.array([2.0, 5.0, 1.0])
    i = np.array([0, 0, 1, 2, 0])
    v = np.array([2.0, 2.0, 3.0, 1.0, 1.0])  # position 0: x and two values tie at 2
    w = np.array([1.0, 10.0, 100.0])

    def jax_loss(x, v):
        return jax.numpy.sum(getattr(jax.numpy.asarray(x).at[i], how)(v) * w)

    want = jax.grad(jax_loss, argnums=(0, 1))(x, v)
    loss = lambda x, v, i: fnp.sum(_update(x, i, v, how) * w)
    for got in (
        fg.grad(loss, argnums=(0, 1))(x, v, i),  # the plain index
        fg.jit(fg.grad(loss, argnums=(0, 1)))(x, v, i),  # the index jit traces
    ):
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, np.asarray(b), rtol=1e-15)


def test_a_product_with_zeros_among_the_values_differentiates_as_written_out():
    # position 0 gets 0.0 and 3.0; position 1 gets two zeros; position 2 one value
    x = np.array([1.5, 2.0, -0.5])
    i = np.array([0, 1, 0, 1, 2])
    v = np.array([0.0, 0.0, 3.0, 0.0, 4.0])

    def written_out(x, v):
        return fnp.stack([x[0] * v[0] * v[2], x[1] * v[1] * v[3], x[2] * v[4]])

    w = np.array([1.0, 10.0, 100.0])
    want = fg.grad(lambda x, v: fnp.sum(written_out(x, v) * w), argnums=(0, 1))(x, v)
    loss = lambda x, v, i: fnp.sum(fg.at(x)[i].multiply(v) * w)
    for got in (
        fg.grad(loss, argnums=(0, 1))(x, v, i),
        fg.jit(fg.grad(loss, argnums=(0, 1)))(x, v, i),
    ):
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-15)
    tangent = fg.jvp(lambda v: fg.jit(lambda v, i: fg.at(x)[i].multiply(v))(v, i), (v,), (w[i],))
    np.testing.assert_allclose(tangent[1], fg.jvp(lambda v: written_out(x, v), (v,), (w[i],))[1])


@pytest.mark.parametrize("how", ["max", "min", "multiply", "add", "set"])
@pytest.mark.parametrize(
    "in_axes", [(0, 0, 0), (None, 0, 0), (0, 0, None), (None, 0, None), (0, None, 0)]
)
@pytest.mark.parametrize("v_shape", [(6, 3), (3,), (1, 3), ()])
def test_vmap_equals_a_loop(how, in_axes, v_shape):
    xs = RNG.uniform(0.5, 2.0, (4, 5, 3))
    index = np.stack([RNG.integers(0, 5, 6) for _ in range(4)])
    vs = RNG.uniform(0.5, 1.5, (4,) + v_shape)
    args = [a if ax == 0 else a[0] for a, ax in zip((xs, index, vs), in_axes)]
    got = fg.vmap(lambda x, i, v: _update(x, i, v, how), in_axes=in_axes)(*args)
    want = np.stack(
        [_update(*[a[k] if ax == 0 else a for a, ax in zip(args, in_axes)], how) for k in range(4)]
    )
    np.testing.assert_allclose(got, want, rtol=1e-15)


@pytest.mark.parametrize("how", ["max", "min", "multiply"])
def test_per_example_gradients_under_vmap_equal_a_loop(how):
    index = np.stack([RNG.integers(0, 5, 6) for _ in range(3)])
    loss = lambda x, i: fnp.sum(fnp.tanh(_update(x, i, V, how)))
    got = fg.vmap(fg.grad(loss), in_axes=(None, 0))(X, index)
    want = np.stack([fg.grad(loss)(X, i) for i in index])
    np.testing.assert_allclose(got, want, rtol=1e-13)


@pytest.mark.parametrize("how", ["max", "min", "multiply", "divide"])
@pytest.mark.parametrize("library", ["torch", "array_api_strict"])
def test_another_librarys_index_and_values(how, library):
    xp = pytest.importorskip(library)
    x = np.array([0.5, 1.0, 2.0, 3.0, np.nan])
    i = np.array([0, 2, 2, 4, 0])
    v = np.array([4.0, -1.0, 3.0, 1.0, 0.25])
    as_library = (lambda a: xp.tensor(a)) if library == "torch" else xp.asarray
    got = _update(as_library(x), as_library(i), as_library(v), how)
    assert type(got) is type(as_library(x))
    np.testing.assert_allclose(np.asarray(got), _update(x, i, v, how), rtol=1e-15)
