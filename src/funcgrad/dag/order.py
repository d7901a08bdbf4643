"""Topological orderings of an expression DAG, each a fold over the outputs.

Each ordering is a pure function of the outputs: it touches no node and
returns a fresh tuple. Inside, it is a fold (``toolz.reduce`` over the outputs)
whose accumulator, the set of nodes seen and the order so far, is private to
the one run and grows in place, as backprop's gradient map does (a transient:
see :mod:`funcgrad.dag.fold`). Both orderings are iterative (a graph of any
depth works: there is no recursion anywhere), deterministic (they follow each
node's argument order and never the iteration order of a hash set, so every
process gives the same order), and linear in nodes plus edges.

- ``dfs``: depth-first post-order, the order of the classic recursive
  ``build_topo``, produced with an explicit stack.
- ``kahn``: the child-count ordering. Count each node's children, then emit
  from the outputs backwards, releasing a parent once its last child is out.

The reverse transforms use a third, :func:`creation_order`: the nodes in the
order they were made, which is topological because a node is made after its
parents; collecting them and sorting by creation number costs a third of the
depth-first walk.
"""

import operator
from typing import Any

from pyrsistent import pmap
from toolz import reduce, unique

from ..core.errors import ArgumentError, ArgumentTypeError, CycleError
from .node import Node

__all__ = [
    "toposort",
    "graph",
    "dfs_order",
    "kahn_order",
    "creation_order",
    "ordering",
    "check_outputs",
    "children",
]


def check_outputs(outputs, who):
    """The outputs as a tuple of nodes, or a clear error about the odd one out."""
    if not outputs:
        raise ArgumentTypeError(f"{who} needs at least one output node")
    for out in outputs:
        if type(out) is not Node:
            hint = " (make a leaf with fg.var)" if not hasattr(out, "_trace") else ""
            raise ArgumentTypeError(
                f"{who} takes graph nodes; got {type(out).__name__} {out!r}{hint}"
            )
    return outputs


_OPEN, _DONE = 1, 2


def _postorder_from(state, root):
    """One fold step: append to ``order`` every unseen node below ``root``, parents first.

    ``seen`` marks a node open while it is on the walk's stack and done once
    emitted; meeting an open node again means the graph has a cycle.
    """
    seen, order = state
    if root in seen:
        return state
    seen[root] = _OPEN
    stack = [(root, iter(root._args))]
    push, pop = stack.append, stack.pop
    while stack:
        node, parents = stack[-1]
        for p in parents:
            mark = seen.get(p)
            if mark is None:
                seen[p] = _OPEN
                push((p, iter(p._args)))
                break
            if mark is _OPEN:
                raise _cycle_error(len(stack))
        else:
            pop()
            seen[node] = _DONE
            order.append(node)
    return state


def _cycle_error(waiting):
    return CycleError(
        f"the graph has a cycle: {waiting} nodes wait on each other; expressions built "
        f"with funcgrad's operations cannot form one, so a node was altered by hand"
    )


def dfs_order(outputs):
    """Depth-first post-order of everything ``outputs`` depend on, inputs first."""
    _, order = reduce(_postorder_from, outputs, ({}, []))
    return tuple(order)


def creation_order(outputs):
    """Everything ``outputs`` depend on, in the order it was made (inputs first).

    Nodes made by funcgrad's operations cannot form a cycle (each is made after its
    parents), so none is looked for: use :func:`dfs_order` on a graph from elsewhere.
    """
    seen = set(outputs)
    stack = list(seen)
    pop, push, add = stack.pop, stack.append, seen.add
    while stack:
        for p in pop()._args:
            if p not in seen:
                add(p)
                push(p)
    return tuple(sorted(seen, key=_creation_number))


_creation_number = operator.attrgetter("_id")


def children(order):
    """``{node: [the nodes that use it, in order]}`` over a topological ``order``; a node
    that uses a parent twice is listed twice (two edges)."""
    kids = {}
    for n in order:
        for p in n._args:
            kids.setdefault(p, []).append(n)
    return kids


def _count_children(outputs):
    """How many edges lead out of each node, over the graph below ``outputs``."""
    counts = dict.fromkeys(unique(outputs), 0)
    stack = list(counts)
    while stack:
        for p in stack.pop()._args:
            if p in counts:
                counts[p] += 1
            else:
                counts[p] = 1
                stack.append(p)
    return counts


def kahn_order(outputs):
    """The child-count (Kahn) ordering, inputs first."""
    counts = _count_children(outputs)
    ready = [out for out in reversed(tuple(unique(outputs))) if counts[out] == 0]
    emitted = []
    while ready:
        node = ready.pop()
        emitted.append(node)
        for p in node._args:
            left = counts[p] - 1
            counts[p] = left
            if left == 0:
                ready.append(p)
    if len(emitted) != len(counts):
        raise _cycle_error(len(counts) - len(emitted))
    emitted.reverse()
    return tuple(emitted)


_ORDERINGS = {"dfs": dfs_order, "kahn": kahn_order}


def ordering(method):
    """The ordering named ``method`` (``"dfs"`` or ``"kahn"``): a function of a tuple of outputs."""
    try:
        return _ORDERINGS[method]
    except (KeyError, TypeError):
        raise ArgumentError(f"toposort: method must be 'dfs' or 'kahn'; got {method!r}") from None


def toposort(*outputs: Any, method: str = "dfs") -> tuple:
    """Every node the outputs depend on, each after all of its parents.

    >>> import funcgrad as fg
    >>> x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
    >>> f = (x + y) * x
    >>> [n.name or n.op for n in fg.toposort(f)]
    ['x', 'y', 'add', 'multiply']
    >>> [n.name or n.op for n in fg.toposort(f, method="kahn")]
    ['x', 'y', 'add', 'multiply']
    """
    return ordering(method)(check_outputs(outputs, "toposort"))


def graph(*outputs: Any) -> Any:
    """The DAG below ``outputs`` as a persistent map from node id to node.

    A node's id is its own for life (a process-wide count), so it is not the ``%k`` a
    listing prints: :func:`~funcgrad.io.show.show` numbers nodes by their position in
    :func:`toposort`, and ``fg.toposort(*outputs)[k]`` is the node shown as ``%k``.

    >>> import funcgrad as fg
    >>> x = fg.var(1.0, name="x")
    >>> y = x * x + x
    >>> g = fg.graph(y)
    >>> len(g), g[x.id] is x
    (3, True)
    >>> fg.show(y).splitlines()[1], fg.toposort(y)[1]
    ('%1     multiply(%0, %0)  -->  1.0', <Node multiply(x, x) = 1.0>)
    """
    return pmap({n._id: n for n in toposort(*outputs)})
