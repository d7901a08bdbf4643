"""The leaves of a hand-built graph: ``fg.var``, a value to differentiate with respect to,
and ``fg.const``, one to hold fixed. Each is a node of the expression trace
(:data:`funcgrad.dag.node.EXPRESSIONS`) that holds a read-only copy of its value, so that
nothing the caller does to the array later changes the graph.

>>> x = var(2.0, name="x")
>>> x, const(0.5)
(<Node var x = 2.0>, <Node const = 0.5>)
"""

from numbers import Number
from typing import Any

import numpy as np

from ..core.errors import ArgumentTypeError, NotDifferentiableError
from ..core.namespaces import dtype_kind, is_foreign, library_of
from ..core.values import frozen_copy
from .arraylike import ArrayLike
from .node import CONST, EXPRESSIONS, VAR, Node

__all__ = ["var", "const"]


def _leaf_value(value, who):
    if isinstance(value, ArrayLike):
        raise ArgumentTypeError(
            f"{who} takes a plain number or array; got a traced value ({value!r})"
        )
    if isinstance(value, (bool, np.bool_)):
        raise NotDifferentiableError(f"{who} takes a number or array; got the bool {value!r}")
    if isinstance(value, int):
        return float(value)
    if isinstance(value, (float, complex)):
        return value
    if isinstance(value, (np.generic, np.ndarray)):
        arr = value
    elif isinstance(value, (list, tuple)):
        try:
            arr = np.asarray(value)
        except ValueError:  # a ragged list
            raise NotDifferentiableError(
                f"{who} takes a number or an array; got a list whose "
                f"rows have different lengths: {value!r:.60}"
            ) from None
    elif isinstance(value, Number):
        arr = np.asarray(value)
    elif is_foreign(
        value
    ):  # another library's array stays that library's (funcgrad.core.namespaces)
        if dtype_kind(value) not in "fc":
            raise NotDifferentiableError(
                f"{who} got a {library_of(value)} array of dtype {value.dtype}; gradients need "
                f"floats: convert it to a floating dtype first"
            )
        return value
    else:
        raise NotDifferentiableError(
            f"{who} takes a number or a NumPy array; got {type(value).__name__} {value!r}"
        )
    if arr.dtype.kind in "iub":
        raise NotDifferentiableError(
            f"{who} got an integer array ({arr.dtype}); gradients need floats: "
            f"pass it as x.astype(float)"
        )
    if arr.dtype.kind not in "fc":
        raise NotDifferentiableError(f"{who} takes numbers; got an array of dtype {arr.dtype}")
    return arr


def var(value: Any, name: str | None = None) -> "Node":
    """A leaf to differentiate with respect to.

    ``value`` is a Python number (ints become floats) or a float NumPy array.
    The node keeps a read-only copy of an array: changing yours later changes
    nothing in the graph, and the node's value cannot be written.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> x = fg.var(3, name="x")
    >>> x.value, x.name, x.op, x.args
    (3.0, 'x', None, ())
    >>> a = np.array([1.0, 2.0])
    >>> v = fg.var(a)
    >>> a[0] = 7.0
    >>> v.value
    array([1., 2.])
    >>> v.value[0] = 7.0
    Traceback (most recent call last):
    ...
    ValueError: assignment destination is read-only
    """
    if name is not None and not isinstance(name, str):
        raise ArgumentTypeError(f"var: name must be a string; got {type(name).__name__}")
    return Node(frozen_copy(_leaf_value(value, "fg.var")), VAR, (), None, name, EXPRESSIONS)


def const(value: Any, name: str | None = None) -> "Node":
    """A leaf that is never differentiated (backprop gives it no gradient).

    >>> import funcgrad as fg
    >>> x = fg.var(2.0)
    >>> g = fg.backprop(x * fg.const(5.0))
    >>> g[x]
    5.0
    """
    if isinstance(value, ArrayLike):
        raise ArgumentTypeError("const takes a plain number or array; got a traced value")
    if isinstance(value, (list, tuple)):
        value = np.asarray(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    return Node(frozen_copy(value), CONST, (), None, name, EXPRESSIONS)
