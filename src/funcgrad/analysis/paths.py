"""Best paths through a graph: the semiring fold with back-pointers.

Over a *selective* semiring, one whose ``plus`` picks one of its two
arguments (``max_plus``, ``min_plus``, ``max_product``), the fold's value at a
node is the score of one best path from it to the output. Carrying, beside
each score, the child it came through (a back-pointer) turns the score into
the path: Viterbi's algorithm, on any DAG, in one pass over its edges. The
k best paths take the same fold with the top ``k`` (score, path) pairs at
each node, merged by ``plus``'s preference.

>>> import funcgrad as fg
>>> s = fg.var(1.0, name="s")
>>> a, b = fg.numpy.sin(s), fg.numpy.cos(s)
>>> t = a * b + a
>>> weight = lambda parent, child: {"sin": 2.0, "cos": 5.0}.get(parent.op, 1.0)
>>> score, nodes = fg.best_path(t, s, weight)
>>> score, [n.op or n.name for n in nodes]
(7.0, ['s', 'cos', 'multiply', 'add'])
"""

import functools
from typing import Any

from ..core.errors import ArgumentError, ArgumentTypeError
from ..dag.fold import fold_back
from ..dag.node import Node
from ..dag.order import check_outputs
from ..dag.semiring import Semiring, semirings

__all__ = ["best_path", "k_best_paths"]


def _check(output, source, weight, semiring, who):
    (output,) = check_outputs((output,), who)
    if not isinstance(source, Node):
        raise ArgumentTypeError(
            f"{who}: source must be a node below the output; got {type(source).__name__}"
        )
    if not isinstance(semiring, Semiring):
        raise ArgumentTypeError(
            f"{who}: semiring must be a fg.Semiring (e.g. fg.semirings.max_plus); got {semiring!r}"
        )
    if not callable(weight):
        raise ArgumentTypeError(
            f"{who}: weight must be a function weight(parent, child); got {weight!r}"
        )
    return output


def _prefer(semiring, who):
    """``first(a, b)``: whether score ``a`` is at least as good as ``b`` under ``plus``."""

    def first(a, b):
        chosen = semiring.plus(a, b)
        if chosen == a:
            return True
        if chosen == b:
            return False
        raise ArgumentError(
            f"{who}: the semiring {semiring.name!r} is not selective: plus({a!r}, {b!r}) = "
            f"{chosen!r} is neither argument, so no single path has that score; use "
            f"max_plus, min_plus or max_product (fg.sum_product gives {semiring.name}'s totals)"
        )

    return first


def _unreached(who, source):
    return ValueError(
        f"{who}: the output does not depend on source {source!r}; pass a node "
        f"below the output (fg.toposort(output) lists them)"
    )


def best_path_fold(weight, semiring, who):
    """The step and plus of the best-path fold: each node's value is ``(score, next)``, its
    best score to the output and the child that score goes through (its back-pointer)."""
    first = _prefer(semiring, who)
    times = semiring.times

    def step(node, value):
        score = value[0]
        return [(times(score, weight(p, node)), node) for p in node._args]

    def plus(a, b):
        return a if first(a[0], b[0]) else b

    return step, plus


def best_path(
    output: Any, source: Any, weight: Any, semiring: Semiring = semirings.max_plus
) -> tuple:
    """The best path from ``source`` to ``output`` and its score: ``(score, nodes)``.

    ``weight(parent, child)`` gives each edge's weight; the score is the
    semiring product of the weights along the path, best by the semiring's
    ``plus`` (largest for ``max_plus`` and ``max_product``, smallest for
    ``min_plus``). ``nodes`` runs from ``source`` to ``output``. Ties go to the
    path met first in the graph's order.

    >>> import funcgrad as fg
    >>> x = fg.var(1.0, name="x")
    >>> y = (x * 2.0 + 1.0) * x
    >>> score, nodes = fg.best_path(y, x, lambda p, c: 1.0, fg.semirings.min_plus)
    >>> score, [n.op or n.name for n in nodes]
    (1.0, ['x', 'multiply'])
    """
    who = "best_path"
    output = _check(output, source, weight, semiring, who)
    step, plus = best_path_fold(weight, semiring, who)
    values, _ = fold_back({output: (semiring.one, None)}, step, plus, check=False)
    if source not in values:
        raise _unreached(who, source)
    score, node = values[source][0], source
    nodes = [source]
    while node is not output:
        node = values[node][1]
        nodes.append(node)
    return score, nodes


def k_best_paths(
    output: Any, source: Any, weight: Any, k: int, semiring: Semiring = semirings.max_plus
) -> list:
    """The ``k`` best paths from ``source`` to ``output``, best first: a list of ``(score, nodes)``.

    Each node keeps its ``k`` best (score, path) pairs; a parent merges what its
    children send and keeps the best ``k`` again, so the work is ``k`` times a
    best path's (times the sort of each merge).

    >>> import funcgrad as fg
    >>> x = fg.var(1.0, name="x")
    >>> y = fg.numpy.sin(x) + fg.numpy.cos(x) * x
    >>> [(s, [n.op or n.name for n in p]) for s, p in fg.k_best_paths(y, x, lambda p, c: 1.0, 3)]
    [(3.0, ['x', 'cos', 'multiply', 'add']), (2.0, ['x', 'multiply', 'add']), (2.0, ['x', 'sin', 'add'])]
    """
    who = "k_best_paths"
    output = _check(output, source, weight, semiring, who)
    if not isinstance(k, int) or k < 1:
        raise ArgumentError(f"{who}: k must be a positive int; got {k!r}")
    first = _prefer(semiring, who)
    times = semiring.times

    def compare(a: tuple, b: tuple) -> int:  # (score, path) pairs, best score first
        return 0 if a[0] == b[0] else (-1 if first(a[0], b[0]) else 1)

    order_key = functools.cmp_to_key(compare)

    def step(node, value):
        return [
            tuple((times(score, w), (node, tail)) for score, tail in value)
            for w in (weight(p, node) for p in node._args)
        ]

    def plus(a, b):
        return tuple(sorted(a + b, key=order_key)[:k])  # a stable sort: earlier paths first

    values, _ = fold_back({output: ((semiring.one, None),)}, step, plus, check=False)
    if source not in values:
        raise _unreached(who, source)
    found = []
    for score, tail in values[source]:
        nodes = [source]
        while tail is not None:
            node, tail = tail
            nodes.append(node)
        found.append((score, nodes))
    return found
