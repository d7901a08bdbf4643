"""Property tests on random expression DAGs (strategies in tests/strategies.py).

Gradients against central differences and PyTorch float64, backprop against the
real-semiring sum_product, the two orderings against each other, and operands
unchanged by building.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings

import funcgrad as fg
from funcgrad.rules import elementwise as ew
from tests.helpers import needs_torch, numeric_grad
from tests.strategies import programs, run, torch_ops

# Random programs overflow (exp of exp of exp) and make inf - inf: NumPy's warnings about
# that say nothing about backprop; the tests that need finite values assume them.
pytestmark = [
    pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning"),
]

SETTINGS = settings(max_examples=100, deadline=None)


def _build(program):
    leaves = [fg.var(v) for v in program.inputs]
    values, out = run(program, leaves)
    # Keep to well-scaled examples: finite differences lose precision past this.
    assume(all(np.all(np.abs(v.value) < 1e3) for v in values))
    return leaves, values, out


@SETTINGS
@given(programs(arrays=True))
def test_gradients_match_central_differences(program):
    leaves, _values, out = _build(program)
    g = fg.backprop(out)

    def f(*xs):
        return run(program, xs)[1]

    scale = max(1.0, abs(float(out.value)))
    for i, leaf in enumerate(leaves):
        want = numeric_grad(f, list(program.inputs), i)
        np.testing.assert_allclose(g[leaf], want, rtol=1e-5, atol=1e-6 * scale)
        assert np.shape(g[leaf]) == np.shape(program.inputs[i])


@SETTINGS
@given(programs(arrays=True))
def test_gradients_match_torch(program):
    torch = needs_torch()
    leaves, _values, out = _build(program)
    g = fg.backprop(out)
    tleaves = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in program.inputs]
    _, tout = run(
        program,
        tleaves,
        ops=torch_ops(torch),
        add_n=lambda *xs: sum(xs[1:], xs[0]),
        total=torch.sum,
    )
    np.testing.assert_allclose(float(out.value), tout.item(), rtol=1e-12, atol=1e-12)
    grads = torch.autograd.grad(tout, tleaves, allow_unused=True)
    for leaf, tg in zip(leaves, grads):
        want = np.zeros(np.shape(leaf.value)) if tg is None else tg.numpy()
        np.testing.assert_allclose(g[leaf], want, rtol=1e-10, atol=1e-12)


def _local_partial(parent, child):
    if child.op == "add_n":
        return 1.0
    prim = getattr(ew, child.op)
    (i,) = [i for i, a in enumerate(child.args) if a is parent]  # no repeated parents
    return prim.partials[i](child.value, *(a.value for a in child.args))


@SETTINGS
@given(programs(max_steps=10, repeated_parents=False))
def test_backprop_is_the_real_sum_product_of_local_partials(program):
    _leaves, _values, out = _build(program)
    g = fg.backprop(out)
    sp = fg.sum_product(out, _local_partial, fg.semirings.real)
    assert set(sp) == set(g)
    for n in g:
        assert sp[n] == pytest.approx(g[n], rel=1e-12, abs=1e-300)


@SETTINGS
@given(programs(arrays=True, max_steps=10))
def test_orderings_agree_and_calls_repeat(program):
    _leaves, _values, out = _build(program)
    dfs = fg.backprop(out, method="dfs")
    kahn = fg.backprop(out, method="kahn")
    again = fg.backprop(out, method="dfs")
    assert set(dfs) == set(kahn) == set(again)
    for n in dfs:
        np.testing.assert_array_equal(dfs[n], again[n])  # same order, same bits
        np.testing.assert_allclose(dfs[n], kahn[n], rtol=1e-12, atol=1e-300)


@SETTINGS
@given(programs(arrays=True, max_steps=10))
def test_building_never_changes_operands(program):
    leaves = [fg.var(v) for v in program.inputs]
    half = len(program.steps) // 2
    first = program._replace(steps=program.steps[:half]) if half else None
    built = run(first, leaves)[0] if first else list(leaves)
    snapshot = [(n, np.array(n.value, copy=True), n.args, n.name, n.op, n.id) for n in built]
    _values, out = run(program, leaves)  # builds everything again on the same leaves
    fg.backprop(out)
    for n, value, args, name, op, id_ in snapshot:
        np.testing.assert_array_equal(n.value, value)
        assert n.args is args and (n.name, n.op, n.id) == (name, op, id_)
