"""sum_product: the note's 729-path DAG, semirings against brute-force path enumeration."""

import math
import operator
from functools import reduce

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.dag.nodemap import NodeMap
from funcgrad.rules import elementwise as ew

S = fg.semirings


def notes_dag():
    """A source, six fully connected layers of three nodes, a sink (note, Appendix F)."""
    source = fg.var(0.1, name="s")
    layers = [[fnp.sin(source), fnp.cos(source), fnp.exp(source)]]  # one unary edge each
    for _ in range(5):
        prev = layers[-1]
        layers.append([fg.add_n(*prev) for _ in range(3)])  # three distinct nodes
    sink = fg.add_n(*layers[-1])
    return source, layers, sink


def test_notes_dag_has_729_paths_in_51_edges():
    source, layers, sink = notes_dag()
    order = fg.toposort(sink)
    edges = sum(len(n.args) for n in order)
    assert (len(order), edges) == (20, 51)  # 1 + 6*3 + 1 nodes; 3 + 5*9 + 3 edges
    counts = fg.sum_product(sink, None, S.count)
    assert isinstance(counts, NodeMap)
    # Paths from layer k (1..6) to the sink: 3 choices at each of the 6 - k later layers.
    for k, layer in enumerate(layers, start=1):
        assert [counts[n] for n in layer] == [3 ** (6 - k)] * 3
    assert counts[source] == 3 * 3**5 == 729
    assert counts[sink] == 1 and type(counts[source]) is int


def test_boolean_reachability():
    source, layers, sink = notes_dag()
    other = fg.var(2.0)
    reach = fg.sum_product(sink, None, S.boolean)
    assert set(reach) == set(fg.toposort(sink)) and all(v is True for v in reach.values())
    assert other not in reach
    # With weights that cut every edge out of layer 3, nothing below it reaches the sink.
    cut = set(layers[2])
    reach = fg.sum_product(sink, lambda p, c: p not in cut, S.boolean)
    assert all(reach[n] for n in layers[3]) and not any(reach[n] for n in layers[2])
    assert reach[source] is False


def test_repeated_parent_counts_two_paths():
    x = fg.var(1.0)
    assert fg.sum_product(x * x, None, S.count)[x] == 2
    y = fnp.sin(x)
    f = y * y + y  # three edges from y, one from x to y
    assert fg.sum_product(f, None, S.count)[x] == 3


def test_log_semiring_is_the_log_of_real():
    _source, _layers, sink = notes_dag()
    w = {}
    rng = np.random.default_rng(0)

    def weight(p, c):
        return w.setdefault((p.id, c.id), float(rng.uniform(0.2, 1.0)))

    real = fg.sum_product(sink, weight, S.real)
    logs = fg.sum_product(sink, lambda p, c: math.log(weight(p, c)), S.log)
    for n in real:
        assert logs[n] == pytest.approx(math.log(real[n]), rel=1e-12, abs=1e-12)


def test_argument_errors():
    x = fg.var(1.0)
    with pytest.raises(TypeError, match="Semiring"):
        fg.sum_product(x * 2.0, None, "count")
    with pytest.raises(TypeError, match="weight"):
        fg.sum_product(x * 2.0, 3.0, S.count)
    with pytest.raises(TypeError, match=r"fg.var"):
        fg.sum_product(2.0, None, S.count)
    with pytest.raises(TypeError):
        fg.semirings()


# ---------------------------------------- random DAGs against all-paths brute force


@st.composite
def weighted_dags(draw, max_nodes=9):
    """A DAG of add_n nodes over 1-2 sources with a weight per edge (no repeated parents)."""
    n_src = draw(st.integers(1, 2))
    nodes = [fg.var(float(i)) for i in range(n_src)]
    for _ in range(draw(st.integers(1, max_nodes))):
        k = draw(st.integers(1, min(3, len(nodes))))
        picks = draw(st.lists(st.integers(0, len(nodes) - 1), min_size=k, max_size=k, unique=True))
        nodes.append(fg.add_n(*(nodes[i] for i in picks)))
    sink = nodes[-1]
    weights = {}
    for n in fg.toposort(sink):
        for p in n.args:
            weights[p.id, n.id] = draw(st.floats(0.05, 1.0))
    return sink, weights


def all_paths(node, sink):
    """Every path node -> sink as a list of (parent, child) edges, by plain recursion."""
    if node is sink:
        return [[]]
    paths = []
    for child in [c for c in fg.toposort(sink) if any(a is node for a in c.args)]:
        for rest in all_paths(child, sink):
            paths.append([(node.id, child.id)] + rest)
    return paths


def brute(sink, weights, plus, times, one):
    out = {}
    for n in fg.toposort(sink):
        values = [reduce(times, (weights[e] for e in path), one) for path in all_paths(n, sink)]
        out[n] = reduce(plus, values)
    return out


@settings(max_examples=40, deadline=None)
@given(weighted_dags())
def test_semirings_match_brute_force(dag):
    sink, weights = dag

    def weight(p, c):
        return weights[p.id, c.id]

    cases = [
        (S.min_plus, min, operator.add),
        (S.max_product, max, operator.mul),
        (S.max_plus, max, operator.add),
        (S.real, operator.add, operator.mul),
    ]
    for semiring, plus, times in cases:
        got = fg.sum_product(sink, weight, semiring)
        want = brute(sink, weights, plus, times, semiring.one)
        assert set(got) == set(want)
        for n in want:
            assert got[n] == pytest.approx(want[n], rel=1e-12), semiring.name
    counts = fg.sum_product(sink, None, S.count)
    assert all(counts[n] == len(all_paths(n, sink)) for n in counts)


# ------------------------------------------------ backprop is the real instance


def local_partial(parent, child):
    """The scalar d child / d parent from the rule table (add_n: 1 for each argument)."""
    if child.op == "add_n":
        return 1.0
    prim = getattr(ew, child.op)
    i = next(i for i, a in enumerate(child.args) if a is parent)
    return prim.partials[i](child.value, *(a.value for a in child.args))


def test_backprop_is_real_sum_product_on_an_example():
    x, y = fg.var(0.4), fg.var(-1.1)
    a = fnp.sin(x) * y
    b = fnp.exp(a) - x
    out = fg.add_n(a, b, fnp.tanh(b) / y)
    g = fg.backprop(out)
    sp = fg.sum_product(out, local_partial, S.real)
    assert set(sp) == set(g) | {n for n in fg.toposort(out) if n.kind == "const"}
    for n in g:
        assert sp[n] == pytest.approx(g[n], rel=1e-12)
