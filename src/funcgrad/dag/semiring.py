"""Semirings, and the sum-product fold over a DAG that backprop is one case of.

For every node ``s`` below an output ``t``, ``sum_product`` computes the
semiring sum, over all paths ``s -> t``, of the semiring product of the edge
weights along the path (taken from ``t`` back to ``s``). Distributivity lets the
reverse fold do this with one step per edge, however many paths there are.
Backprop is the instance over the real numbers whose edge weights are local
derivatives.

A node that uses the same parent twice (``x * x``) has two edges to it, and
each counts as its own path.
"""

import math
import operator
from collections.abc import Callable
from typing import Any, NamedTuple

from ..core.errors import ArgumentTypeError
from .fold import fold_back
from .nodemap import node_map
from .order import check_outputs

__all__ = ["Semiring", "semirings", "sum_product"]


class Semiring(NamedTuple):
    """A set with ``plus`` (commutative, identity ``zero``) and ``times`` (identity ``one``).

    ``times(m, w)`` extends a path value ``m`` (from the output down to a child)
    by the weight ``w`` of the edge from a parent to that child.

    >>> import funcgrad as fg
    >>> paths = fg.Semiring('count', 0, 1, lambda a, b: a + b, lambda m, w: m * w)
    >>> x = fg.var(2.0)
    >>> y = x * x + x
    >>> fg.sum_product(y, lambda parent, child: 1, paths)[x]    # three paths from y to x
    3
    """

    name: str
    zero: Any
    one: Any
    plus: Callable
    times: Callable


def _log_plus(a, b):
    """log(exp(a) + exp(b)) without overflow."""
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    return max(a, b) + math.log1p(math.exp(-abs(a - b)))


class semirings:
    """The standard semirings, as attributes.

    >>> import funcgrad as fg
    >>> fg.semirings.count.plus(2, 3), fg.semirings.min_plus.times(2.0, 3.0)
    (5, 5.0)
    """

    real = Semiring("real", 0.0, 1.0, operator.add, operator.mul)
    count = Semiring("count", 0, 1, operator.add, operator.mul)
    boolean = Semiring("boolean", False, True, operator.or_, operator.and_)
    max_product = Semiring("max_product", 0.0, 1.0, max, operator.mul)
    min_plus = Semiring("min_plus", math.inf, 0.0, min, operator.add)
    max_plus = Semiring("max_plus", -math.inf, 0.0, max, operator.add)
    log = Semiring("log", -math.inf, 0.0, _log_plus, operator.add)

    def __init__(self):
        raise ArgumentTypeError(
            "fg.semirings is a namespace; use fg.semirings.count and its siblings"
        )


def sum_product(output: Any, weight: Any, semiring: Any) -> Any:
    """For every node below ``output``: the sum over its paths to ``output`` of the path products.

    ``weight(parent, child)`` gives the semiring weight of each edge; ``None``
    gives every edge the weight ``semiring.one`` (so ``count`` counts paths).
    Returns a persistent map ``{node: value}``; the output maps to ``semiring.one``.

    >>> import funcgrad as fg
    >>> x = fg.var(1.0, name="x")
    >>> a, b = fg.numpy.sin(x), fg.numpy.cos(x)
    >>> f = a * b + a
    >>> fg.sum_product(f, None, fg.semirings.count)[x]
    3
    """
    (output,) = check_outputs((output,), "sum_product")
    if not isinstance(semiring, Semiring):
        raise ArgumentTypeError(
            f"sum_product: semiring must be a fg.Semiring (e.g. fg.semirings.count); got {semiring!r}"
        )
    if weight is not None and not callable(weight):
        raise ArgumentTypeError(
            f"sum_product: weight must be a function weight(parent, child) or None; got {weight!r}"
        )
    return fold_back(
        {output: semiring.one},
        path_step(semiring, weight),
        semiring.plus,
        check=False,
        finish=lambda values, order: node_map(values),
    )


def path_step(semiring, weight):
    """The step of the sum-product fold: a node's value extended along each edge to its
    arguments by ``times`` with the edge's weight (``weight(parent, child)``; None: one)."""
    times = semiring.times
    if weight is None:
        one = semiring.one
        return lambda node, m: [times(m, one) for _ in node._args]
    return lambda node, m: [times(m, weight(p, node)) for p in node._args]
