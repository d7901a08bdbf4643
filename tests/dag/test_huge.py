"""A chain of 10^6 nodes through every operation: no RecursionError, no crash.

One chain is built for the module (x, then y <- -y a million times, so the
output is x again and every local derivative is -1) and shared by the tests;
the last test frees it and checks that the memory goes back.
"""

import copy
import gc
import itertools
import re
import tracemalloc

import pytest

import funcgrad as fg
from funcgrad.dag.node import Node

pytestmark = pytest.mark.slow  # graphs of 10^6 nodes: minutes

N = 10**6
_CHAIN = {}


def build_chain(n):
    x = fg.var(1.0, name="x")
    y = x
    for _ in range(n):
        y = -y
    return x, y


@pytest.fixture
def chain():
    if not _CHAIN:
        _CHAIN["x"], _CHAIN["y"] = build_chain(N)
    return _CHAIN["x"], _CHAIN["y"]


@pytest.mark.parametrize("method", ["dfs", "kahn"])
def test_toposort(chain, method):
    x, y = chain
    order = fg.toposort(y, method=method)
    assert len(order) == N + 1 and order[0] is x and order[-1] is y
    assert all(b.args[0] is a for a, b in itertools.pairwise(order))


def test_graph(chain):
    x, y = chain
    g = fg.graph(y)
    assert len(g) == N + 1 and g[x.id] is x and g[y.id] is y


def test_backprop(chain):
    x, y = chain
    g = fg.backprop(y)
    # N = 10^6 negations: d y / d x = (-1)^N = 1, and the node k steps below y gets (-1)^k.
    assert len(g) == N + 1 and g[x] == 1.0 and g[y] == 1.0 and g[y.args[0]] == -1.0


def test_sum_product(chain):
    x, y = chain
    counts = fg.sum_product(y, None, fg.semirings.count)
    assert counts[x] == 1 and len(counts) == N + 1


def test_show_is_truncated_with_a_note(chain):
    _x, y = chain
    text = fg.show(y, limit=60)
    lines = text.splitlines()
    assert len(lines) == 61
    assert f"{N + 1 - 60} more nodes not shown" in text
    assert lines[0].startswith("%0") and "x" in lines[0] and lines[-1].startswith(f"%{N}")


def test_to_dot_is_truncated(chain):
    _x, y = chain
    src = fg.to_dot(y, limit=100)
    assert src.startswith("digraph") and src.rstrip().endswith("}")
    # The 100 nodes nearest the output, the 99 edges among them, and a note for the rest.
    assert len(re.findall(r"^  n\d+ -> n\d+", src, re.M)) == 99
    assert f"{N + 1 - 100} earlier nodes not drawn" in src
    assert len(src) < 20_000


def test_repr_hash_eq_copy(chain):
    x, y = chain
    assert len(repr(y)) < 80 and "negative" in repr(y)
    # == compares values (both are 1.0); hashing and dicts go by identity.
    assert hash(y) == hash(y) and y == y and y == x and y == x and y == 1.0
    assert {y: 1, x: 2}[y] == 1 and len({x, y}) == 2
    assert copy.copy(y) is y and copy.deepcopy(y) is y


def test_memory_returns_after_del():
    # Reference counting alone frees a graph (a node points only at older nodes, so
    # there are no cycles); the cyclic collector is off to prove it.
    was_enabled = gc.isenabled()
    gc.disable()
    tracemalloc.start()
    try:
        x, y = build_chain(5 * 10**4)
        grads = fg.backprop(y)
        held, _ = tracemalloc.get_traced_memory()
        del x, y, grads
        left, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        if was_enabled:
            gc.enable()
    assert held > 5 * 10**6  # 5 * 10^4 nodes with their gradients: megabytes
    assert left < held / 50


def test_the_big_chain_is_freed():
    # Last in the module: drop the shared chain and count the nodes still alive.
    def live_nodes():
        return sum(1 for o in gc.get_objects() if type(o) is Node)

    if not _CHAIN:
        _CHAIN["x"], _CHAIN["y"] = build_chain(N)
    before = live_nodes()
    assert before >= N + 1
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        _CHAIN.clear()  # no cycles: freed by reference counting, no RecursionError
        after = live_nodes()
    finally:
        if was_enabled:
            gc.enable()
    assert before - after >= N + 1
