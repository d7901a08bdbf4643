"""fg.backprop: the full adjoint map, purity, seeds, errors, and path explosion."""

import math

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.dag.nodemap import NodeMap
from tests.helpers import assert_close, numeric_grad


def _example():
    x, y = fg.var(0.7, name="x"), fg.var(-1.2, name="y")
    a = fnp.sin(x * y)
    b = a * x + fnp.exp(y)
    out = b * a - 3.0
    return x, y, a, b, out


def test_returns_a_pmap_over_every_non_constant_node():
    _x, _y, a, b, out = _example()
    g = fg.backprop(out)
    assert isinstance(g, NodeMap)
    order = fg.toposort(out)
    consts = {n for n in order if n.kind == "const"}
    assert len(consts) == 1 and next(iter(consts)).value == 3.0
    # Every variable and every intermediate has an entry; constants do not.
    assert set(g.keys()) == set(order) - consts
    assert g[out] == 1.0
    # Intermediates carry d out / d node: out = b*a - 3 gives d out / d b = a.
    assert g[b] == pytest.approx(a.value, rel=1e-15)


def test_intermediate_adjoints_match_differences():
    # d out / d a, treating a as an input: out = (a x + e^y) a - 3 -> 2 a x + e^y.
    x, y, a, _b, out = _example()
    g = fg.backprop(out)
    assert g[a] == pytest.approx(2 * a.value * x.value + math.exp(y.value), rel=1e-13)

    def f(x, y):
        a = fnp.sin(x * y)
        return (a * x + fnp.exp(y)) * a - 3.0

    for leaf, i in ((x, 0), (y, 1)):
        assert g[leaf] == pytest.approx(numeric_grad(f, [0.7, -1.2], i), rel=1e-7)


def test_idempotent_nothing_accumulates():
    x, y, a, _b, out = _example()
    snapshot = [(n.value, n.args, n.name, n.op) for n in fg.toposort(out)]
    g1 = fg.backprop(out)
    g2 = fg.backprop(out)
    assert g1 == g2 and g1 is not g2
    # A second output over the same nodes gets its own gradients, not a sum.
    other = a * 2.0
    g3 = fg.backprop(other)
    assert g3[a] == 2.0 and g3[x] == pytest.approx(2.0 * math.cos(x.value * y.value) * y.value)
    assert fg.backprop(out) == g1
    # And the nodes themselves are untouched.
    assert [(n.value, n.args, n.name, n.op) for n in fg.toposort(out)] == snapshot


def test_both_orderings_give_the_same_gradients():
    _x, _y, _a, _b, out = _example()
    dfs, kahn = fg.backprop(out, method="dfs"), fg.backprop(out, method="kahn")
    assert set(dfs) == set(kahn)
    for n in dfs:
        assert dfs[n] == pytest.approx(kahn[n], rel=1e-15)


def test_leaf_output_and_unused_leaves():
    x, z = fg.var(2.0), fg.var(5.0)
    assert dict(fg.backprop(x)) == {x: 1.0}
    g = fg.backprop(x * 3.0)
    assert z not in g and g[x] == 3.0  # only what the output depends on


def test_gradient_of_a_node_used_twice_adds_both_edges():
    # f = x * x: each edge carries the other factor x, so df/dx = x + x.
    x = fg.var(3.0)
    assert fg.backprop(x * x)[x] == 6.0
    # f = x + x + x: three edges of weight 1.
    assert fg.backprop(fg.add_n(x, x, x))[x] == 3.0


def test_seed_for_a_non_scalar_output():
    x0 = np.array([1.0, -2.0, 0.5])
    w = np.array([0.3, 1.0, -2.0])
    x = fg.var(x0)
    y = x * x
    g = fg.backprop(y, seed=w)
    # y_i = x_i^2 is elementwise: the VJP is w * 2x.
    assert_close(g[x], w * 2.0 * x0, rtol=0, atol=0)
    assert_close(g[y], w, rtol=0, atol=0)
    # A scalar seed scales everything linearly.
    s = fnp.sum(y)
    assert_close(fg.backprop(s, seed=2.5)[x], 2.5 * 2.0 * x0, rtol=0, atol=0)


def test_matrix_seed():
    A0 = np.arange(6.0).reshape(2, 3)
    B0 = np.arange(12.0).reshape(3, 4) / 10.0
    w = np.ones((2, 4))
    A, B = fg.var(A0), fg.var(B0)
    g = fg.backprop(A @ B, seed=w)
    # The note's mult rule: J^A g = g B^T, J^B g = A^T g.
    assert_close(g[A], w @ B0.T, rtol=1e-15)
    assert_close(g[B], A0.T @ w, rtol=1e-15)


def test_non_scalar_output_without_seed_is_an_error():
    x = fg.var(np.ones(3))
    with pytest.raises(ValueError) as info:
        fg.backprop(x * 2.0)
    msg = str(info.value)
    assert isinstance(info.value, fg.ShapeError)
    assert "(3,)" in msg and "seed" in msg


def test_wrong_seed_shape_is_an_error():
    x = fg.var(np.ones(3))
    with pytest.raises(fg.ShapeError) as info:
        fg.backprop(x * 2.0, seed=np.ones(2))
    msg = str(info.value)
    assert "(2,)" in msg and "(3,)" in msg and "seed" in msg
    with pytest.raises(fg.ShapeError):
        fg.backprop(fg.var(1.0) * 2.0, seed=np.ones(3))


@pytest.mark.parametrize("output", [3.0, np.ones(2), "x", None])
def test_non_node_output_is_an_error(output):
    with pytest.raises(TypeError) as info:
        fg.backprop(output)
    msg = str(info.value)
    assert "backprop" in msg and type(output).__name__ in msg


def test_missing_rule_names_the_primitive():
    @fg.primitive
    def mystery(x):
        return x * 2.0

    x = fg.var(1.0)
    with pytest.raises(NotImplementedError) as info:
        fg.backprop(mystery(x))
    assert "mystery" in str(info.value) and isinstance(info.value, fg.MissingRuleError)


def test_constants_are_not_differentiated():
    x, c = fg.var(2.0), fg.const(5.0)
    g = fg.backprop(x * c)
    assert c not in g and g[x] == 5.0


def test_a_thousand_diamonds():
    # Each level splits y into two halves and joins them: y' = y*0.5 + y*0.5 = y.
    # Between x and the output there are 2^1000 paths, each of weight 0.5^1000;
    # their sum is exactly 1 (the fold adds 0.5 + 0.5 at every join, exactly).
    x = fg.var(1.25)
    y = x
    for _ in range(1000):
        y = y * 0.5 + y * 0.5
    assert y.value == 1.25
    g = fg.backprop(y)
    assert g[x] == 1.0
    assert fg.sum_product(y, None, fg.semirings.count)[x] == 2**1000  # an exact int


def test_diamonds_with_nonlinear_branches_match_differences():
    # y' = sin(y) + cos(y): dy'/dy = cos y - sin y, multiplied along 8 levels.
    def f(x):
        y = x
        for _ in range(8):
            y = fnp.sin(y) + fnp.cos(y)
        return y

    x = fg.var(0.3)
    out = f(x)
    g = fg.backprop(out)
    assert g[x] == pytest.approx(numeric_grad(f, [0.3], 0), rel=1e-6)
    # By hand: the product of the local derivatives along the chain.
    y, d = 0.3, 1.0
    for _ in range(8):
        d *= math.cos(y) - math.sin(y)
        y = math.sin(y) + math.cos(y)
    assert g[x] == pytest.approx(d, rel=1e-12)


def test_the_elementwise_shortcut_gives_the_rules_bits():
    # vjp_step takes elementwise nodes through their partials (one argument or two);
    # the same fold through the rules alone (general_vjp_step) gives the same gradients,
    # bit for bit, on a graph of elementwise, structural and constant one-argument nodes.
    from funcgrad.dag.backprop import add_cotangents, general_vjp_step, vjp_step
    from funcgrad.dag.fold import reverse_fold
    from funcgrad.dag.order import dfs_order

    x = fg.var(np.linspace(-1.0, 1.0, 6).reshape(2, 3), name="x")
    c = fg.const(np.arange(6.0).reshape(2, 3))
    h = fnp.tanh(x) * fnp.exp(-x) + fnp.sin(c)  # sin of a constant: no cotangent
    out = fnp.sum(fnp.transpose(h) ** 2.0) + fnp.sum(fnp.abs(x) * 0.5) + fnp.mean(x)
    order = dfs_order((out,))
    with_edges = reverse_fold(order, {out: 1.0}, vjp_step, add_cotangents)
    without = reverse_fold(order, {out: 1.0}, general_vjp_step, add_cotangents)
    assert with_edges.keys() == without.keys() and c not in with_edges
    for n, g in without.items():
        assert type(with_edges[n]) is type(g) and np.array_equal(with_edges[n], g)
    assert_close(
        with_edges[x],
        numeric_grad(
            lambda v: float(
                np.sum((np.tanh(v) * np.exp(-v) + np.sin(c.value)).T ** 2)
                + np.sum(np.abs(v) * 0.5)
                + np.mean(v)
            ),
            [x.value],
            0,
        ),
    )


def test_only_a_large_fold_pauses_the_collector():
    # The pause is for the whole process (every thread); a fold of 10^5 nodes runs 1.6x
    # slower without it, a small fold gains nothing from it.
    import gc

    from funcgrad.dag import fold
    from funcgrad.dag.backprop import vjp_step

    seen = []

    def step(node, g):
        seen.append(gc.isenabled())
        return vjp_step(node, g)

    def chain(n):
        x = fg.var(0.5)
        y = x
        for _ in range(n):
            y = y * 1.0001
        return y

    assert gc.isenabled()
    fold.fold_back({chain(100): 1.0}, step, lambda a, b: a + b)
    assert seen and all(seen)  # a small fold: the collector stays on
    seen.clear()
    fold.fold_back({chain(fold.PAUSE_ABOVE + 10): 1.0}, step, lambda a, b: a + b)
    assert seen and not any(seen)  # a large one: paused while it folds
    assert gc.isenabled()
