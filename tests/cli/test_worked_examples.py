"""The worked examples of issue 2, each gradient reasoned by hand in the test.

Every example is written once, as a function of funcgrad operations that runs
on nodes (for backprop) and on plain numbers (for central differences), and is
checked three ways: the value, the hand-derived gradient, finite differences.
"""

import math

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.helpers import assert_close, needs_torch, numeric_grad


def check_against_differences(f, point, grads, leaves, rtol=1e-6, atol=1e-7):
    for i, leaf in enumerate(leaves):
        want = numeric_grad(f, point, i)
        assert_close(grads[leaf], want, rtol=rtol, atol=atol, what=f"d/d input {i}")


# ------------------------------------------------------------- (x + y) z


def test_add_then_multiply():
    def f(x, y, z):
        return (x + y) * z

    point = [-2.0, 5.0, -4.0]
    x, y, z = (fg.var(v, name=n) for v, n in zip(point, "xyz"))
    q = x + y
    out = q * z
    # Forward: q = -2 + 5 = 3, f = q * z = 3 * -4 = -12.
    assert q.value == 3.0 and out.value == -12.0
    g = fg.backprop(out)
    # Backward: df/df = 1; multiply routes each side the other factor:
    # df/dq = z = -4, df/dz = q = 3. Add passes its gradient unchanged:
    # df/dx = df/dq * 1 = -4, df/dy = df/dq * 1 = -4.
    assert g[out] == 1.0
    assert g[q] == z.value == -4.0
    assert g[z] == q.value == 3.0
    assert g[x] == g[q] * 1.0 == -4.0
    assert g[y] == g[q] * 1.0 == -4.0
    check_against_differences(f, point, g, [x, y, z])


# ------------------------------------- sqrt(x^2 + e^(x^2)) + cos(x^2 + e^(x^2))


@pytest.mark.parametrize("x0", [0.5, -1.3, 2.0])
def test_shared_intermediates(x0):
    def f(x):
        a = x * x
        c = a + fnp.exp(a)
        return fnp.sqrt(c) + fnp.cos(c)

    x = fg.var(x0, name="x")
    a = x * x  # shared by exp and by the sum
    b = fnp.exp(a)
    c = a + b  # shared by sqrt and cos
    s, k = fnp.sqrt(c), fnp.cos(c)
    out = s + k
    # Each intermediate is one node, however many times it is used:
    # x, a, b, c, sqrt, cos, out.
    order = fg.toposort(out)
    assert len(order) == 7 and set(order) == {x, a, b, c, s, k, out}
    g = fg.backprop(out)
    # df/dc collects both uses of c: d sqrt(c)/dc = 1 / (2 sqrt c), d cos(c)/dc = -sin c.
    A, B = x0 * x0, math.exp(x0 * x0)
    C = A + B
    dc = 1.0 / (2.0 * math.sqrt(C)) - math.sin(C)
    assert g[c] == pytest.approx(dc, rel=1e-14)
    # b is used only by c (d c / d b = 1); a is used directly and through b = e^a,
    # so df/da = dc * (1 + e^a).
    assert g[b] == pytest.approx(dc, rel=1e-14)
    assert g[a] == pytest.approx(dc * (1.0 + B), rel=1e-14)
    # a = x * x uses x twice: each edge carries x, so df/dx = df/da * 2x.
    assert g[x] == pytest.approx(dc * (1.0 + B) * 2.0 * x0, rel=1e-13)
    assert out.value == pytest.approx(math.sqrt(C) + math.cos(C), rel=1e-15)
    check_against_differences(f, [x0], g, [x])


# ----------------------------------------------- a, b, c -> d = a*b -> L = d + c


def test_scalar_chain_and_backward_order():
    a, b, c = fg.var(2.0, name="a"), fg.var(-3.0, name="b"), fg.var(10.0, name="c")
    d = a * b
    L = d + c
    # Forward: d = 2 * -3 = -6, L = -6 + 10 = 4.
    assert (d.value, L.value) == (-6.0, 4.0)
    # The forward order visits each node's arguments left to right, parents first:
    # L = add(d, c) and d = multiply(a, b) give a, b, d, c, L. Backward is its reverse.
    for method in ("dfs", "kahn"):
        assert fg.toposort(L, method=method) == (a, b, d, c, L)
        backward = tuple(reversed(fg.toposort(L, method=method)))
        assert backward == (L, c, d, b, a)
    g = fg.backprop(L)
    # dL/dL = 1; add passes it on: dL/dd = dL/dc = 1; multiply swaps the factors:
    # dL/da = dL/dd * b = -3, dL/db = dL/dd * a = 2.
    assert (g[L], g[d], g[c]) == (1.0, 1.0, 1.0)
    assert (g[a], g[b]) == (b.value, a.value) == (-3.0, 2.0)
    check_against_differences(lambda a, b, c: a * b + c, [2.0, -3.0, 10.0], g, [a, b, c])


# --------------------------------------------------- micrograd's "more ops"


def micrograd_expression(a, b):
    """micrograd's test_more_ops, with each `v += w` read as the new node `v = v + w`."""
    relu = fg.nn.relu
    c = a + b
    d = a * b + b**3
    c = c + (c + 1)
    c = c + (1 + c + (-a))
    d = d + (d * 2 + relu(b + a))
    d = d + (3 * d + relu(b - a))
    e = c - d
    f = e**2
    g = f / 2.0
    return g + 10.0 / f


def test_micrograd_expression():
    a, b = fg.var(-4.0, name="a"), fg.var(2.0, name="b")
    out = micrograd_expression(a, b)
    # By hand, with A = -4, B = 2:
    #   c = a + b; c1 = c + (c + 1) = 2c + 1; c2 = c1 + (1 + c1 - a) = 4c + 3 - a = 3a + 4b + 3
    #   d = ab + b^3; d1 = 3d + relu(a + b); d2 = 4 d1 + relu(b - a) = 12d + 4 relu(a+b) + relu(b-a)
    # At (A, B): a + b = -2 (relu 0, slope 0), b - a = 6 (relu 6, slope 1), d = -8 + 8 = 0,
    #   c2 = -12 + 8 + 3 = -1, d2 = 0 + 0 + 6 = 6, e = c2 - d2 = -7, f = e^2 = 49,
    #   g = f / 2 + 10 / f = 24.5 + 10/49.
    A, B = -4.0, 2.0
    e, f = -7.0, 49.0
    assert out.value == pytest.approx(f / 2 + 10 / f, rel=1e-15)
    # dg/df = 1/2 - 10/f^2, df/de = 2e,
    # de/da = 3 - (12 B + 0 - 1) = -20,  de/db = 4 - (12 (A + 3B^2) + 0 + 1) = -93.
    dg_de = (0.5 - 10.0 / f**2) * 2.0 * e
    de_da = 3.0 - (12.0 * B - 1.0)
    de_db = 4.0 - (12.0 * (A + 3.0 * B**2) + 1.0)
    assert (de_da, de_db) == (-20.0, -93.0)
    grads = fg.backprop(out)
    assert grads[a] == pytest.approx(dg_de * de_da, rel=1e-13)  # 138.8338...
    assert grads[b] == pytest.approx(dg_de * de_db, rel=1e-13)  # 645.5772...
    check_against_differences(micrograd_expression, [A, B], grads, [a, b], rtol=1e-5)


def test_micrograd_expression_matches_torch():
    torch = needs_torch()
    a = torch.tensor(-4.0, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    c = a + b
    d = a * b + b**3
    c = c + (c + 1)
    c = c + (1 + c + (-a))
    d = d + (d * 2 + (b + a).relu())
    d = d + (3 * d + (b - a).relu())
    g = (c - d) ** 2 / 2.0 + 10.0 / (c - d) ** 2
    g.backward()
    x, y = fg.var(-4.0), fg.var(2.0)
    out = micrograd_expression(x, y)
    grads = fg.backprop(out)
    assert out.value == pytest.approx(g.item(), rel=1e-15)
    assert grads[x] == pytest.approx(a.grad.item(), rel=1e-13)
    assert grads[y] == pytest.approx(b.grad.item(), rel=1e-13)


# -------------------------------------------- a tiny vector network, the note's way


def network(x, W1, b1, W2, label):
    h = fnp.tanh(W1 @ x + b1)
    logits = W2 @ h
    return fg.nn.pnls(logits, label)


def test_tiny_network_with_the_notes_closed_forms():
    rng = np.random.default_rng(0)
    x0, W10, b10, W20 = (
        rng.normal(size=3),
        rng.normal(size=(4, 3)),
        rng.normal(size=4),
        rng.normal(size=(3, 4)),
    )
    label = 1
    x, W1, b1, W2 = (fg.var(v) for v in (x0, W10, b10, W20))
    pre = W1 @ x + b1
    h = fnp.tanh(pre)
    logits = W2 @ h
    p = fg.nn.softmax(logits)
    loss = fg.nn.pnls(logits, label)
    # pnls(z, l) = log sum exp z - z_l = -log softmax(z)_l.
    assert float(loss.value) == pytest.approx(-math.log(p.value[label]), rel=1e-12)
    g = fg.backprop(loss)
    # The note's closed forms, applied by hand in NumPy from the output back:
    #   pnls:  J g = g (sm(z) - e_l)          -> d loss / d logits
    #   mult:  J^U g = g V^T, J^V g = U^T g   -> d W2 = outer(dz, h), dh = W2^T dz
    #   tanh:  (1 - tanh^2) * g               -> d pre
    #   add:   g to both sides                -> d b1 = d pre
    #   mult:  d W1 = outer(d pre, x), d x = W1^T d pre
    H = np.tanh(W10 @ x0 + b10)
    z = W20 @ H
    sm = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    dz = sm - np.eye(3)[label]
    dh = W20.T @ dz
    dpre = (1.0 - H**2) * dh
    assert_close(g[logits], dz, rtol=1e-12, atol=1e-14)
    assert p not in g  # p sits beside the loss, not below it: it has no gradient entry
    assert_close(g[W2], np.outer(dz, H), rtol=1e-12, atol=1e-14)
    assert_close(g[h], dh, rtol=1e-12, atol=1e-14)
    assert_close(g[pre], dpre, rtol=1e-12, atol=1e-14)
    assert_close(g[b1], dpre, rtol=1e-12, atol=1e-14)
    assert_close(g[W1], np.outer(dpre, x0), rtol=1e-12, atol=1e-14)
    assert_close(g[x], W10.T @ dpre, rtol=1e-12, atol=1e-14)
    # Gradient entries of the logits sum to zero: softmax sums to one, e_l too.
    assert abs(g[logits].sum()) < 1e-12
    check_against_differences(
        lambda *a: network(*a, label), [x0, W10, b10, W20], g, [x, W1, b1, W2]
    )


def test_softmax_then_pick_equals_pnls():
    # -log(softmax(z)[l]) built from softmax, getitem and log has pnls's value and gradient.
    rng = np.random.default_rng(1)
    z0 = rng.normal(size=5)
    z1, z2 = fg.var(z0), fg.var(z0)
    composed = -fnp.log(fg.nn.softmax(z1)[3])
    fused = fg.nn.pnls(z2, 3)
    assert float(composed.value) == pytest.approx(float(fused.value), rel=1e-12)
    assert_close(fg.backprop(composed)[z1], fg.backprop(fused)[z2], rtol=1e-10, atol=1e-12)


def test_tiny_network_matches_torch():
    torch = needs_torch()
    rng = np.random.default_rng(2)
    vals = [
        rng.normal(size=3),
        rng.normal(size=(4, 3)),
        rng.normal(size=4),
        rng.normal(size=(3, 4)),
    ]
    leaves = [fg.var(v) for v in vals]
    g = fg.backprop(network(*leaves, 2))
    t = [torch.tensor(v, requires_grad=True) for v in vals]
    logits = t[3] @ torch.tanh(t[1] @ t[0] + t[2])
    torch.nn.functional.cross_entropy(logits[None], torch.tensor([2])).backward()
    for leaf, tv in zip(leaves, t):
        assert_close(g[leaf], tv.grad.numpy(), rtol=1e-10, atol=1e-13)


def test_the_demo_numbers_each_node_once_per_order():
    # At x = 1, x**2 = 1.0 = x: numbering nodes with list.index (which asks ==) gave x's
    # number to x**2 (dfs order: %0 %1 %0 %3 ...).
    from funcgrad.cli import demo

    text = demo.section("shared")
    assert "x = 1 ==" in text.splitlines()[0]
    for line in text.splitlines():
        if line.startswith(("dfs order:", "kahn order:")):
            numbers = line.split(":", 1)[1].split("(")[0].split()
            assert sorted(numbers, key=lambda n: int(n[1:])) == [
                f"%{i}" for i in range(len(numbers))
            ], line
