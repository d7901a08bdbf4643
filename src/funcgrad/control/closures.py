"""Closures made arguments: a function's traced values found by tracing it once.

A function that closes over a traced value (``lambda x: x ** 2 - a`` with ``a`` a
variable of an outer ``grad``) cannot be handed to a custom rule, whose
function must be pure; :class:`Closed` traces it once
(:func:`~funcgrad.control.body.trace_body`) and keeps the values it closed over
apart, so the rule takes them as arguments and differentiates in them.
``fg.closure_convert`` is JAX's name for it.

>>> import numpy as np
>>> import funcgrad as fg
>>> def outer(a):
...     f, consts = fg.closure_convert(lambda x: x * a, 2.0)
...     return f(3.0, *consts), len(consts)
>>> fg.grad(lambda a: outer(a)[0])(5.0), outer(5.0)[1]
(np.float64(3.0), 0)
"""

from collections.abc import Callable
from typing import Any

from ..core.tree import tree_flatten, tree_leaves, tree_map, tree_unflatten
from ..core.values import dtype_of
from ..transforms.reverse import vjp
from .body import trace_body

__all__ = ["Closed", "closure_convert", "negated", "pull_captured"]


class Closed:
    """A function of one tree with the traced values it closed over made arguments: its
    body, the tree's structure, and the structure of what it returns."""

    def __init__(self, fun, example, who):
        leaves, self.in_def = tree_flatten(example)
        out_def = []

        def flat(*xs):
            out, tree = tree_flatten(fun(tree_unflatten(self.in_def, list(xs))))
            out_def.append(tree)
            return out

        self.body, self.captured = trace_body(flat, leaves, who)
        self.out_def = out_def[0]
        self.who = who

    def at(self, captured):
        """The function of one tree, with ``captured`` for the values it closed over."""

        def fun(x):
            return tree_unflatten(self.out_def, list(self.body(*tree_leaves(x), *captured)))

        return fun


def negated(tree):
    """``-tree``, leaf by leaf (a None, a cotangent that is not there, stays None)."""
    return tree_map(lambda v: -v, tree)


def _float_only(captured):
    """Which captured values have a derivative (floats and complex numbers)."""
    return [dtype_of(c).kind in "fc" for c in captured]


def pull_captured(output_of, captured, u):
    """``(d output_of(captured) / d captured)^T u``: None for the captured values without a
    derivative (integers, booleans)."""
    wanted = _float_only(captured)
    chosen = [c for c, w in zip(captured, wanted) if w]
    if not chosen:
        return tuple(None for _ in captured)

    def of_chosen(*values):
        it = iter(values)
        return output_of([next(it) if w else c for c, w in zip(captured, wanted)])

    pulled = iter(vjp(of_chosen, *chosen)[1](u))
    return tuple(next(pulled) if w else None for w in wanted)


def closure_convert(fun: Callable, *example_args: Any) -> tuple:
    """``(converted, consts)``: ``converted(*args, *consts)`` is ``fun(*args)``, with
    ``consts`` the traced values ``fun`` closes over (JAX's ``jax.closure_convert``), to
    hand to a ``custom_vjp`` whose function must not close over them.

    >>> import funcgrad as fg
    >>> def scaled(a):
    ...     f, consts = fg.closure_convert(lambda x: x * a, 1.0)
    ...     return len(consts)
    >>> fg.grad(lambda a: scaled(a) * a)(2.0)      # inside grad, a is traced: one const
    np.float64(1.0)
    """
    closed = Closed(lambda args: fun(*args), tuple(example_args), "closure_convert")
    n = len(example_args)

    def converted(*args_and_consts):
        return closed.at(list(args_and_consts[n:]))(tuple(args_and_consts[:n]))

    return converted, list(closed.captured)
