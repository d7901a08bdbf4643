"""The reverse fold that backprop and every semiring fold share.

Walk a topological order backwards, threading a map from node to accumulated value. At
each node, ``step(node, value)`` gives one contribution per argument (``None`` for none),
and each meets the parent's entry in :func:`accumulate`. Because the order is reversed, a
node's entry is complete before the node is reached, so the work is one step per edge,
however many paths there are.

:func:`reference_fold` is that sentence as code: ``toolz.reduce`` over the reversed order,
threading a persistent :class:`~funcgrad.dag.nodemap.NodeMap`, each step returning a new
map. :func:`reverse_fold` is the same fold, and the one every transform runs: the same
step and the same additions, threading a *transient* instead, as functional programs do
where they need speed (Clojure's transients, pyrsistent's evolvers): a map changed in
place inside one reduction, never seen outside it, and frozen into a NodeMap at the end.
Its transient is a plain dict, which finds a node by identity before it asks ``==``: on a
10^5-node chain 18 times faster than the persistent reduce (``python
benchmarks/folds.py``). A test checks that both give the same map, entry for entry, on
every graph of the conformance matrix.

The one place an array is changed in place is :func:`accumulate`, and only an array the
fold made itself: the sum of two contributions, which nothing else has seen. A
contribution a rule returned is never written (a rule may hand one array to two
parents, or hand back its cotangent), so ownership holds by construction.

:func:`fold_back` is the whole reverse pass that backprop, the reverse transforms and
``sum_product`` share: order the graph, check its values for NaNs if asked, pause the
cyclic garbage collector (for large graphs), fold.
"""

import contextlib

import numpy as np
from toolz import reduce

from ..core.collector import gc_paused
from .finite import check_values, checked, checking
from .nodemap import node_map
from .order import ordering

__all__ = ["fold_back", "reference_fold", "reverse_fold", "accumulate", "added"]


PAUSE_ABOVE = 10_000
"""Folds over graphs of more nodes than this pause the cyclic collector (see fold_back)."""
_NO_PAUSE = contextlib.nullcontext()


def fold_back(seeds, step, plus, keep=None, method="dfs", check=None, finish=None, owned=None):
    """The reverse pass from ``seeds`` (``{output: seed}``): ``(values, order)``.

    ``method`` names an ordering (:func:`funcgrad.dag.order.ordering`) or is one.
    ``check=True`` raises at the first node whose value, or whose pullback of a finite
    value, is not finite; ``None`` checks inside ``fg.debug_nans()`` only; ``False`` never
    (folds over other semirings, where infinities are ordinary values). ``finish(values,
    order)``, if given, runs inside the fold's pause of the collector, if it has one
    (building the result map allocates as much as the fold), and its result is returned
    instead. ``keep`` and ``owned`` are as in :func:`reverse_fold`.
    """
    if check is None:
        check = checking()
    with gc_paused():  # a walk of the graph: short for a small one
        order = (method if callable(method) else ordering(method))(tuple(seeds))
    # Only a large fold keeps the collector paused, which is off for the whole process
    # (every thread) meanwhile: a fold of 10^5 nodes runs 1.6-2.3x slower with it on
    # (benchmarks/gc_pause.py); a small one allocates too little for a collection to cost
    # anything.
    with gc_paused() if len(order) > PAUSE_ABOVE else _NO_PAUSE:
        if check:
            check_values(order)
            step = checked(step)  # every step checked
        values = reverse_fold(order, seeds, step, plus, keep, owned)
        return (values, order) if finish is None else finish(values, order)


def reverse_fold(order, seeds, step, plus, keep=None, owned=None):
    """Fold ``order`` (inputs first) back from ``seeds`` (``{output: seed}``); return
    ``{node: value}``.

    ``keep(node)`` says which nodes' final values to return (all by default); a value that
    is not kept is dropped as soon as it has been passed on to the node's parents, so
    memory follows the frontier of the walk, not the graph. ``owned``, a set, lets
    :func:`accumulate` add into arrays the fold made (backprop's real semiring); other
    semirings leave it None.
    """
    acc = dict(seeds)
    done = acc if keep is None else {}
    for node in reversed(order):
        value = acc.get(node) if keep is None else acc.pop(node, None)
        if value is None:
            continue
        if keep is not None and keep(node):
            done[node] = value
        if node._args:
            for parent, c in zip(node._args, step(node, value)):
                if c is not None:
                    prev = acc.get(parent)
                    if prev is None:  # the first contribution: nothing to meet yet
                        acc[parent] = c
                    else:
                        accumulate(acc, parent, c, plus, owned, prev)
                        # the entry it replaced: freed now, not held until the next meeting
                        del prev
    return done


def accumulate(acc, parent, c, plus, owned=None, prev=None):
    """Where contributions meet: ``c`` added into ``parent``'s entry of ``acc`` (``prev``,
    where the caller has read it).

    With ``owned`` (the parents whose entry is an array this fold made), an entry the fold
    made takes ``c`` in place (``np.add(prev, c, out=prev)``: the bits of ``prev + c``);
    a sum the fold makes becomes such an entry. Nothing else is written.
    """
    if prev is None:
        prev = acc.get(parent)
    if prev is None:
        acc[parent] = c
    elif (
        type(c) is np.ndarray
        and owned is not None
        and type(prev) is np.ndarray  # (a sum the fold made may have met a traced one since)
        and parent in owned
        and c.shape == prev.shape
        and c.dtype == prev.dtype
    ):
        np.add(prev, c, out=prev)
    else:
        total = acc[parent] = plus(prev, c)
        if owned is not None and type(total) is np.ndarray:
            owned.add(parent)


def added(m, parent, c, plus):
    """:func:`accumulate` for a persistent map: the new map (``m`` where ``c`` is None)."""
    if c is None:
        return m
    prev = m.get(parent)
    return m.set(parent, c if prev is None else plus(prev, c))


def reference_fold(order, seeds, step, plus):
    """The fold as a pure reduction: :func:`reverse_fold` (every node kept) written with
    ``toolz.reduce`` over a persistent NodeMap, each step a new map (:func:`added`). The
    definition the running fold is tested against; about 18 times slower.

    >>> import funcgrad as fg
    >>> from funcgrad.dag.backprop import add_cotangents, vjp_step
    >>> from funcgrad.dag.order import dfs_order
    >>> x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
    >>> f = (x + y) * x
    >>> g = reference_fold(dfs_order((f,)), {f: 1.0}, vjp_step, add_cotangents)
    >>> g[x], g[y]
    (1.0, 2.0)
    """

    def visit(m, node):
        value = m.get(node)
        if value is None or not node._args:
            return m
        edges = zip(node._args, step(node, value))
        return reduce(lambda m, edge: added(m, *edge, plus), edges, m)

    return reduce(visit, reversed(order), node_map(seeds))
