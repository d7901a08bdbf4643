"""Orderings: valid, exactly the ancestors, deterministic across processes."""

import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from pyrsistent import PMap

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.dag.node import Node
from funcgrad.dag.order import creation_order
from tests.strategies import programs, run

METHODS = ["dfs", "kahn"]


def ancestors(*outputs):
    """Everything the outputs depend on, found independently of funcgrad (by id)."""
    seen, stack = {}, list(outputs)
    while stack:
        n = stack.pop()
        if n.id not in seen:
            seen[n.id] = n
            stack.extend(n.args)
    return seen


def assert_topological(order, *outputs):
    position = {n.id: i for i, n in enumerate(order)}
    assert len(position) == len(order), "a node appears twice"
    assert set(position) == set(ancestors(*outputs)), "not exactly the ancestors"
    for n in order:
        for p in n.args:
            assert position[p.id] < position[n.id], f"{n!r} comes before its parent {p!r}"


def _example():
    x, y = fg.var(1.0, name="x"), fg.var(2.0, name="y")
    s = x * y  # shared
    a, b = fnp.sin(s), fnp.exp(s)
    return x, y, s, a, b, a * b + s


@pytest.mark.parametrize("method", METHODS)
def test_valid_order_with_shared_subexpressions(method):
    _x, _y, s, _a, _b, out = _example()
    order = fg.toposort(out, method=method)
    assert isinstance(order, tuple)
    assert_topological(order, out)
    assert sum(n is s for n in order) == 1 and order[-1] is out
    # x, y, s, a, b, a*b, out: seven nodes, nothing duplicated.
    assert len(order) == 7


@pytest.mark.parametrize("method", METHODS)
def test_multiple_outputs(method):
    _x, y, s, a, _b, out = _example()
    other = fnp.cos(y) + a
    order = fg.toposort(out, other, method=method)
    assert_topological(order, out, other)
    assert len(order) == 7 + 2
    # Giving an output twice, or an output that is an ancestor of another, adds nothing.
    assert fg.toposort(out, out, method=method) == fg.toposort(out, method=method)
    assert set(fg.toposort(out, s, method=method)) == set(fg.toposort(out, method=method))
    assert_topological(fg.toposort(s, out, method=method), s, out)


@pytest.mark.parametrize("method", METHODS)
def test_leaf_alone(method):
    x = fg.var(1.0)
    assert fg.toposort(x, method=method) == (x,)


def test_same_order_when_called_again():
    *_, out = _example()
    for method in METHODS:
        assert fg.toposort(out, method=method) == fg.toposort(out, method=method)


def test_graph_is_a_pmap_from_id_to_node():
    _x, y, s, _a, _b, out = _example()
    g = fg.graph(out)
    assert isinstance(g, PMap)
    assert dict(g) == ancestors(out)
    assert g[s.id] is s and all(k == n.id for k, n in g.items())
    c = fnp.cos(y)
    assert dict(fg.graph(out, c)) == ancestors(out, c)
    assert len(fg.graph(out, c)) == len(g) + 1


def test_errors():
    x = fg.var(1.0)
    with pytest.raises(ValueError, match="'dfs' or 'kahn'"):
        fg.toposort(x, method="bfs")
    with pytest.raises(TypeError, match="at least one output"):
        fg.toposort()
    with pytest.raises(TypeError, match=r"fg.var"):
        fg.toposort(x, 2.0)


def test_kahn_detects_a_cycle_made_by_hand():
    # Nodes cannot form a cycle through funcgrad's operations; forge one through the slot.
    x = fg.var(1.0)
    a = fnp.sin(x)
    b = fnp.cos(a)
    Node._args.__set__(a, (b,))
    with pytest.raises(fg.CycleError, match="cycle"):
        fg.toposort(b, method="kahn")


@settings(max_examples=60, deadline=None)
@given(programs(max_inputs=4, max_steps=12, arrays=True))
def test_random_dags_both_orderings_valid(program):
    leaves = [fg.var(v) for v in program.inputs]
    values, out = run(program, leaves)
    extra = values[len(leaves) // 2]
    for method in METHODS:
        assert_topological(fg.toposort(out, method=method), out)
        assert_topological(fg.toposort(extra, out, method=method), extra, out)
    # the reverse transforms' order: the same nodes, sorted by creation number
    assert_topological(creation_order((out,)), out)
    assert_topological(creation_order((extra, out)), extra, out)


def test_creation_order_is_the_order_nodes_were_made():
    x, y, s, a, b, out = _example()
    assert creation_order((out,)) == tuple(sorted(ancestors(out).values(), key=lambda n: n.id))
    assert creation_order((b, a)) == (x, y, s, a, b)


SCRIPT = textwrap.dedent("""
    import funcgrad as fg, funcgrad.numpy as fnp
    # names hash differently in every process; the order must not care
    xs = [fg.var(float(i), name="v" + "abcdefgh"[i] * 3) for i in range(8)]
    nodes = list(xs)
    for k in range(40):
        a, b = nodes[(7 * k) % len(nodes)], nodes[(3 * k + 1) % len(nodes)]
        nodes.append(fnp.sin(a) * b if k % 3 else a + fnp.cos(b))
    out = fg.add_n(*nodes[-6:])
    outs = (out, nodes[-9])
    for method in ("dfs", "kahn"):
        order = fg.toposort(*outs, method=method)
        pos = {n: i for i, n in enumerate(order)}
        print(method, [(n.name or n.op, tuple(pos[a] for a in n.args)) for n in order])
    g = fg.backprop(out)
    print([repr(g[n]) for n in fg.toposort(out)])
""")


def test_deterministic_across_hash_seeds():
    outputs = set()
    for seed in ["0", "1", "4242", "random"]:
        env = dict(os.environ, PYTHONHASHSEED=seed)
        res = subprocess.run(
            [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(res.stdout)
    assert len(outputs) == 1
    (text,) = outputs
    assert text.count("\n") == 3 and "kahn" in text and "dfs" in text


@pytest.mark.parametrize("method", ["dfs", "kahn"])
def test_a_cycle_made_by_hand_is_an_error_in_every_walk(method):
    # A forged cycle must never yield an order, nor a gradient map computed from one.
    x = fg.var(1.0)
    a = fnp.sin(x)
    b = fnp.cos(a)
    Node._args.__set__(a, (b,))
    with pytest.raises(fg.CycleError, match="cycle"):
        fg.toposort(b, method=method)
    if method == "dfs":
        with pytest.raises(fg.CycleError):
            fg.backprop(b)
