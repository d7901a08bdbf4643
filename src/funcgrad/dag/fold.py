"""The reverse fold that backprop and every semiring fold share.

Walk a topological order backwards, threading a map from node to accumulated
value. At each node, ``node_step(node, m)`` gives one contribution per argument
(``None`` for none), and each is added into that parent's entry with ``plus``.
Because the order is reversed, a node's entry is complete before the node is
reached, so the work is one step per edge, however many paths there are.

:func:`reference_fold` is that sentence as code: ``toolz.reduce`` over the
reversed order, threading a persistent :class:`~funcgrad.dag.nodemap.NodeMap`,
each step returning a new map. :func:`reverse_fold_seeds` is the fold every
transform runs, and it threads a *transient* instead, as functional programs
do where they need speed (Clojure's transients, pyrsistent's evolvers): a map
changed in place inside one reduction, never seen outside it, and frozen into
a NodeMap at the end. Its transient is a plain dict, which finds a node by
identity before it asks ``==``: on a 10^5-node chain the dict fold takes
0.24 s, pyrsistent's evolver 4.4 s and the persistent reduce 4.5 s
(``python benchmarks/folds.py``). A test checks that both folds give the same
map, entry for entry, on every graph of the conformance matrix.

:func:`fold_back` is the whole reverse pass that backprop, the reverse
transforms and ``sum_product`` share: order the graph, check its values for
NaNs if asked, pause the cyclic garbage collector (for large graphs), fold.
"""

import contextlib

import numpy as np
from toolz import reduce

from ..core.collector import gc_paused
from .finite import check_values, checked, checking
from .nodemap import node_map
from .order import ordering

__all__ = ["fold_back", "reference_fold", "reverse_fold", "reverse_fold_seeds"]


PAUSE_ABOVE = 10_000
"""Folds over graphs of more nodes than this pause the cyclic collector (see fold_back)."""
_NO_PAUSE = contextlib.nullcontext()


def fold_back(
    seeds,
    node_step,
    plus,
    keep=None,
    method="dfs",
    check=None,
    finish=None,
    edge_step=None,
    into=None,
):
    """The reverse pass from ``seeds`` (``{output: seed}``): ``(values, order)``.

    ``method`` names an ordering (:func:`funcgrad.dag.order.ordering`) or is one.

    ``check=True`` raises at the first node whose value, or whose pullback of
    a finite value, is not finite; ``None`` checks inside ``fg.debug_nans()``
    only; ``False`` never (folds over other semirings, where infinities are
    ordinary values). ``finish(values, order)``, if given, runs inside the
    fold's pause of the collector, if it has one (building the result map
    allocates as much as the fold), and its result is returned instead. ``edge_step`` and
    ``into`` are as in :func:`reverse_fold_seeds`.
    """
    if check is None:
        check = checking()
    with gc_paused():  # a walk of the graph: short for a small one
        order = (method if callable(method) else ordering(method))(tuple(seeds))
    # Only a large fold keeps the collector paused, which is off for the whole process
    # (every thread) meanwhile: a fold of 10^5 nodes runs 1.6-2.3x slower with it on
    # (benchmarks/gc_pause.py), a small
    # one allocates too little for a collection to cost anything.
    with gc_paused() if len(order) > PAUSE_ABOVE else _NO_PAUSE:
        if check:
            check_values(order)
            node_step, edge_step = checked(node_step), None  # every step checked
        values = reverse_fold_seeds(order, seeds, node_step, plus, keep, edge_step, into)
        return (values, order) if finish is None else finish(values, order)


def reverse_fold(order, output, seed, node_step, plus, keep=None, edge_step=None):
    """Fold ``order`` (inputs first) from ``output`` back; return ``{node: value}``.

    ``keep(node)`` says which nodes' final values to return (all by default); a
    value that is not kept is dropped as soon as it has been passed on to the
    node's parents, so memory follows the frontier of the walk, not the graph.
    """
    return reverse_fold_seeds(order, {output: seed}, node_step, plus, keep, edge_step)


def reverse_fold_seeds(order, seeds, node_step, plus, keep=None, edge_step=None, into=None):
    """The same fold started from several outputs at once: ``seeds`` maps each to its seed.

    ``edge_step(node, m)``, if given, is ``node_step(node, m)[0]`` for a node of one
    argument, without the tuple and its unpacking (with the rest of ``vjp_edge``, the
    per-primitive overhead of an eager grad on small arrays: 2.03 -> 1.85 us).
    ``into(prev, node, m)``, if given with it, is called instead where such a node's
    argument already holds a NumPy array ``prev``: it returns the argument's new entry,
    which may be ``prev`` itself with the node's share added in place (a transient inside
    the fold, as the map is: see :func:`funcgrad.dag.backprop.add_into`).
    """
    acc = dict(seeds)
    done = acc if keep is None else {}
    get = acc.get
    pop = acc.pop
    keeping = keep is not None
    one = edge_step is not None
    for node in reversed(order):
        m = pop(node, None) if keeping else get(node)
        if m is None:
            continue
        if keeping and keep(node):
            done[node] = m
        args = node._args
        if not args:
            continue
        if one and len(args) == 1:
            parent = args[0]
            prev = get(parent)
            if into is not None and type(prev) is np.ndarray:
                acc[parent] = into(prev, node, m)
                continue
            c = edge_step(node, m)
            if c is not None:
                acc[parent] = c if prev is None else plus(prev, c)
                c = None  # the map's entry alone holds it (into counts references)
            continue
        for parent, c in zip(args, node_step(node, m)):
            if c is not None:
                prev = get(parent)
                acc[parent] = c if prev is None else plus(prev, c)
        c = prev = None
    return done


def reference_fold(order, seeds, node_step, plus):
    """The fold as a pure reduction: :func:`reverse_fold_seeds` (every node kept) written with
    ``toolz.reduce`` over a persistent NodeMap, each step a new map. The definition the fast
    fold is tested against; about 19 times slower.

    >>> import funcgrad as fg
    >>> from funcgrad.dag.backprop import add_cotangents, vjp_step
    >>> from funcgrad.dag.order import dfs_order
    >>> x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
    >>> f = (x + y) * x
    >>> g = reference_fold(dfs_order((f,)), {f: 1.0}, vjp_step, add_cotangents)
    >>> g[x], g[y]
    (1.0, 2.0)
    """

    def add(m, edge):
        parent, c = edge
        if c is None:
            return m
        prev = m.get(parent)
        return m.set(parent, c if prev is None else plus(prev, c))

    def visit(m, node):
        value = m.get(node)
        if value is None or not node._args:
            return m
        return reduce(add, zip(node._args, node_step(node, value)), m)

    return reduce(visit, reversed(order), node_map(seeds))
