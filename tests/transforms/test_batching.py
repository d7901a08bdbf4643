"""vmap: a batched call equals a loop over examples, for every primitive."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.rules import elementwise
from tests.transforms.test_forward import CASES, EXTRA

BATCH = 3


def _loop(fun, args, axes):
    outs = []
    for b in range(BATCH):
        outs.append(fun(*[a[b] if ax == 0 else a for a, ax in zip(args, axes)]))
    return np.stack([np.asarray(o, dtype=float) for o in outs])


def _batched_args(args, rng):
    return [rng.normal(size=(BATCH,) + np.shape(a)) * 0.5 + np.asarray(a) for a in args]


@pytest.mark.parametrize("name", sorted({**CASES, **EXTRA}))
def test_vmap_equals_a_loop_for_every_primitive(name):
    fun, args = {**CASES, **EXTRA}[name]
    rng = np.random.default_rng(11)
    if name in ("log", "sqrt", "divide", "power"):
        batched = [np.abs(a) + 0.5 for a in _batched_args(args, rng)]
    else:
        batched = _batched_args(args, rng)
    # map every argument, then only the first (the others broadcast unbatched)
    for axes in ([0] * len(args), [0] + [None] * (len(args) - 1)):
        call = [b if ax == 0 else a for a, b, ax in zip(args, batched, axes)]
        expected = _loop(fun, call, axes)
        got = fg.vmap(fun, in_axes=tuple(axes))(*call)
        np.testing.assert_allclose(np.asarray(got, dtype=float), expected, rtol=1e-12, atol=1e-12)


def test_vmap_of_grad_is_per_example_gradients():
    W = np.array([[1.0, -2.0], [0.5, 3.0]])
    loss = lambda x: fnp.sum(fnp.tanh(W @ x) ** 2)
    X = np.random.default_rng(0).normal(size=(4, 2))
    per_example = fg.vmap(fg.grad(loss))(X)
    np.testing.assert_allclose(per_example, np.stack([fg.grad(loss)(x) for x in X]), rtol=1e-12)


def test_nested_vmap():
    X = np.arange(24.0).reshape(2, 3, 4)
    out = fg.vmap(fg.vmap(lambda r: fnp.sum(r * r)))(X)
    np.testing.assert_array_equal(out, (X * X).sum(-1))


def test_in_axes_other_than_zero_and_unmapped_arguments():
    X = np.arange(6.0).reshape(2, 3)  # map over axis 1: three examples of shape (2,)
    w = np.array([10.0, 1.0])
    out = fg.vmap(lambda x, w: fnp.sum(x * w), in_axes=(1, None))(X, w)
    np.testing.assert_array_equal(out, (X * w[:, None]).sum(0))


def test_comparisons_under_vmap_give_batched_masks():
    X = np.array([[-1.0, 2.0], [3.0, -4.0]])
    out = fg.vmap(lambda x: fnp.where(x > 0, x, 0.0 * x))(X)
    np.testing.assert_array_equal(out, np.maximum(X, 0))


def test_python_branching_on_a_batched_value_is_refused_clearly():
    with pytest.raises(TypeError, match=r"no single truth value.*where"):
        fg.vmap(lambda x: x if x > 0 else -x)(np.array([1.0, -1.0]))


def test_mismatched_batch_sizes_are_refused():
    with pytest.raises(fg.ShapeError, match="one size"):
        fg.vmap(lambda a, b: a * b)(np.ones(2), np.ones(3))


def test_a_primitive_without_a_batching_rule_is_applied_example_by_example():
    @fg.primitive
    def cumulative(x):
        return np.cumsum(x)

    X = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(fg.vmap(cumulative)(X), np.cumsum(X, axis=1))


def test_batched_jacobians_match_column_by_column():
    rng = np.random.default_rng(2)
    A = rng.normal(size=(4, 3))
    f = lambda x: fnp.tanh(A @ x) * fnp.sum(x)
    x = rng.normal(size=3)
    J = fg.jacrev(f)(x)
    cols = np.stack([fg.jvp(f, (x,), (e,))[1] for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(J, cols, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fg.jacfwd(f)(x), cols, rtol=1e-12, atol=1e-12)


def test_elementwise_mask_primitives_batch():
    X = np.array([[1.0, 2.0], [2.0, 1.0]])
    Y = np.array([2.0, 1.0])
    np.testing.assert_array_equal(fg.vmap(elementwise.greater, in_axes=(0, None))(X, Y), X > Y)
