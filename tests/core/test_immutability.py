"""Values held by a graph, a gradient map or a jit plan cannot be changed from outside.

fg.var kept the caller's array (changing it later made the graph's value and
its gradients disagree) and node.value[0] = 7 was accepted. Leaves and the
constants of graphs that outlive their call keep read-only copies; every
array a node computes, and every gradient in a backprop map, is read-only;
the caller's own arrays are never frozen.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp


def test_the_callers_array_changing_later_changes_nothing():
    a = np.array([1.0, 2.0])
    W = np.array([3.0, -1.0])
    x = fg.var(a)
    f = fnp.sum(x * W)
    a[:] = 100.0
    W[:] = 100.0
    assert np.array_equal(x.value, [1.0, 2.0]) and f.value == 1.0
    np.testing.assert_array_equal(fg.backprop(f)[x], [3.0, -1.0])
    assert a.flags.writeable and W.flags.writeable  # the caller's arrays stay theirs


@pytest.mark.parametrize("which", ["var", "const", "op", "view", "gradient"])
def test_writing_into_a_held_value_raises(which):
    x = fg.var(np.array([1.0, 2.0, 3.0]))
    y = fnp.exp(x)
    held = {
        "var": x.value,
        "const": fg.const(np.ones(2)).value,
        "op": y.value,
        "view": x[1:].value,
        "gradient": fg.backprop(fnp.sum(y))[x],
    }[which]
    with pytest.raises(ValueError, match="read-only"):
        held[0] = 7.0


def test_vjp_keeps_what_it_was_handed():
    w = np.array([1.0, 2.0])
    W = np.array([3.0, 4.0])
    out, f_vjp = fg.vjp(lambda v: v * W, w)
    w[:] = 0.0
    W[:] = 0.0
    np.testing.assert_array_equal(f_vjp(np.ones(2))[0], [3.0, 4.0])
    np.testing.assert_array_equal(out, [3.0, 8.0])


def test_a_jit_plan_keeps_its_constants():
    A = np.array([[1.0, 2.0], [3.0, 4.0]])
    f = fg.jit(lambda v: fnp.sum(A @ v))
    assert f(np.ones(2)) == 10.0
    A[:] = 0.0  # as in JAX: the trace captured A's value
    assert f(np.ones(2)) == 10.0


def test_transforms_never_freeze_the_callers_arrays():
    w = np.array([1.0, 2.0])
    seed = np.array([1.0, 1.0])
    g = fg.grad(lambda v: fnp.sum(v * v))(w)
    x = fg.var(w)
    fg.backprop(x * 2.0, seed=seed)
    jac = fg.jacfwd(lambda v: v * 2.0)(w)
    assert w.flags.writeable and seed.flags.writeable
    g[0] = 5.0  # what a transform returns is the caller's to change
    jac[0, 0] = 1.0


def test_loaded_graphs_are_read_only_too():
    x = fg.var(np.array([1.0, 2.0]))
    y = fg.loads(fg.dumps(x * 2.0))
    with pytest.raises(ValueError, match="read-only"):
        y.value[0] = 7.0
