"""custom_vmap: its rule runs wherever a vmap meets the function (inside grad, jit,
loops, another vmap), checked by a rule whose answer differs from the function's, and
against a Python loop, central differences and JAX's custom_vmap."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.custom_batching import custom_vmap, sequential_vmap
from tests.helpers import central

X = np.array([[0.3, -1.2, 0.5], [1.1, 0.4, -0.7]])
W = np.array([0.5, -2.0, 1.5])
CALLS = []


@custom_vmap
def f(x, w):
    return fnp.sin(x) * w


@f.def_vmap
def f_rule(axis_size, in_batched, x, w):
    """Visibly not f: cos where f has sin, so a result says which ran."""
    CALLS.append((axis_size, tuple(in_batched)))
    return fnp.cos(x) * w, in_batched[0] or in_batched[1]


def rule_by_hand(x, w):
    return np.cos(x) * w


@pytest.fixture(autouse=True)
def _fresh_calls():
    CALLS.clear()


def test_outside_vmap_the_function_runs_and_inside_the_rule():
    np.testing.assert_allclose(f(X[0], W), np.sin(X[0]) * W)
    got = fg.vmap(f, in_axes=(0, None))(X, W)
    np.testing.assert_allclose(got, rule_by_hand(X, W))
    assert CALLS == [(2, (True, False))]


def test_in_batched_follows_in_axes_and_trees():
    @custom_vmap
    def g(tree):
        return tree["a"] + tree["b"]

    seen = []

    @g.def_vmap
    def g_rule(axis_size, in_batched, tree):
        seen.append(in_batched)
        return tree["a"] - tree["b"], True

    out = fg.vmap(g, in_axes=({"a": 0, "b": None},))({"a": X[:, 0], "b": 1.0})
    np.testing.assert_allclose(out, X[:, 0] - 1.0)
    assert seen == [[{"a": True, "b": False}]]


def test_an_unbatched_output_is_broadcast_over_the_batch():
    @custom_vmap
    def h(x):
        return fnp.sum(x), 2.0 * fnp.ones(2)

    @h.def_vmap
    def h_rule(axis_size, in_batched, x):
        return (fnp.sum(x, axis=1), fnp.ones(2)), (True, False)

    total, const = fg.vmap(h)(X)
    np.testing.assert_allclose(total, X.sum(axis=1))
    np.testing.assert_allclose(const, np.ones((2, 2)))


def test_grad_outside_vmap_differentiates_the_rule():
    loss = lambda x: fnp.sum(fg.vmap(f, in_axes=(0, None))(x, W) ** 2)
    got = fg.grad(loss)(X)
    want = central(lambda x: np.sum(rule_by_hand(x, W) ** 2), X)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8)
    hess = fg.hessian(lambda x: fnp.sum(fg.vmap(f, in_axes=(0, None))(x, W)))(X[0:1])
    np.testing.assert_allclose(np.diagonal(hess.reshape(3, 3)), -np.cos(X[0]) * W, rtol=1e-12)
    _, tangent = fg.jvp(lambda x: fg.vmap(f, in_axes=(0, None))(x, W), (X,), (np.ones_like(X),))
    np.testing.assert_allclose(tangent, -np.sin(X) * W, rtol=1e-12)


def test_vmap_of_grad_is_a_loop_of_grads():
    per_example = fg.vmap(fg.grad(lambda x: fnp.sum(f(x, W))))(X)
    looped = np.stack([fg.grad(lambda x: fnp.sum(f(x, W)))(row) for row in X])
    np.testing.assert_allclose(per_example, looped, rtol=1e-12)


def test_jit_and_vmap_in_either_order_use_the_rule():
    want = rule_by_hand(X, W)
    np.testing.assert_allclose(fg.jit(fg.vmap(f, in_axes=(0, None)))(X, W), want)
    np.testing.assert_allclose(fg.vmap(fg.jit(f), in_axes=(0, None))(X, W), want)
    assert len(CALLS) >= 2


def test_a_loop_body_under_vmap_uses_the_rule():
    def run(x):
        return fg.lax.scan(lambda c, xi: (c + f(xi, W[0]), None), 0.0, x)[0]

    got = fg.vmap(run)(X)
    want = np.cos(X).sum(axis=1) * W[0]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    looped = fg.vmap(lambda x: fg.lax.fori_loop(0, 3, lambda i, c: c + f(x[i], 1.0), 0.0))(X)
    np.testing.assert_allclose(looped, np.cos(X).sum(axis=1), rtol=1e-12)


def test_vmap_of_vmap_and_checkpoint():
    got = fg.vmap(fg.vmap(f, in_axes=(0, None)), in_axes=(0, None))(X[None], W)
    np.testing.assert_allclose(got, rule_by_hand(X, W)[None])
    got = fg.vmap(fg.checkpoint(lambda x: f(x, W)))(X)
    np.testing.assert_allclose(got, rule_by_hand(X, W))


def test_sequential_vmap_is_a_loop_with_trees():
    g = sequential_vmap(lambda x: {"s": fnp.sum(x), "m": fnp.max(x)})
    got = fg.vmap(g)(X)
    np.testing.assert_allclose(got["s"], X.sum(axis=1))
    np.testing.assert_allclose(got["m"], X.max(axis=1))
    grad = fg.grad(lambda x: fnp.sum(fg.vmap(g)(x)["s"]))(X)
    np.testing.assert_allclose(grad, np.ones_like(X))


@pytest.mark.parametrize(
    "rule, error, message",
    [
        (None, TypeError, "has no vmap rule: define one with @k.def_vmap"),
        (lambda n, b, x: x, TypeError, "must return a pair"),
        (lambda n, b, x: (x, [True, False]), TypeError, "out_batched must be bools"),
        (lambda n, b, x: (x[0], True), ValueError, "does not start with the batch size 2"),
    ],
)
def test_a_wrong_rule_is_named(rule, error, message):
    @custom_vmap
    def k(x):
        return x

    if rule is not None:
        k.def_vmap(rule)
    with pytest.raises(fg.FuncgradError, match=message) as info:
        fg.vmap(k)(X)
    assert isinstance(info.value, error)


def test_the_same_numbers_as_jaxs_custom_vmap():
    jax = pytest.importorskip("jax", reason="JAX is the reference (the jax extra)")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    @jax.custom_batching.custom_vmap
    def jf(x, w):
        return jnp.sin(x) * w

    @jf.def_vmap
    def jf_rule(axis_size, in_batched, x, w):
        return jnp.cos(x) * w, in_batched[0] or in_batched[1]

    ours = fg.value_and_grad(lambda x: fnp.sum(fg.vmap(f, in_axes=(0, None))(x, W) ** 3))(X)
    theirs = jax.value_and_grad(lambda x: jnp.sum(jax.vmap(jf, in_axes=(0, None))(x, W) ** 3))(
        jnp.asarray(X)
    )
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-13)
    np.testing.assert_allclose(ours[1], np.asarray(theirs[1]), rtol=1e-13)
