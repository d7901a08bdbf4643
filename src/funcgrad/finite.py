"""Finding where a NaN or an infinity first appears.

A non-finite number spreads through everything computed from it, so the
useful answer is the *first* node that made one. Values are checked in
topological order (the first op whose value is not finite although all its
inputs are), cotangents as the reverse fold makes them (the first edge whose
pullback is not finite although the cotangent it pulled back was).

``fg.backprop(output, check=True)`` checks one backprop; ``with
fg.debug_nans():`` checks every backprop and transform in the block, on this
thread.

>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> x = fg.var(0.0, name="x")
>>> f = fnp.sqrt(x) * 2.0
>>> fg.backprop(f, check=True)
Traceback (most recent call last):
...
funcgrad.errors.NonFiniteError: backprop: the cotangent that sqrt node #... sends to its argument 0 (var x #...) is not finite: inf; the node's inputs: 0.0
"""

import threading
from contextlib import contextmanager

import numpy as np

from .errors import NonFiniteError
from .node import CONST, Leaf
from .values import format_value, raw

__all__ = ["debug_nans", "checking", "check_values", "checked"]

_local = threading.local()


def checking():
    """Whether this thread is inside ``fg.debug_nans()``."""
    return getattr(_local, "depth", 0) > 0


@contextmanager
def debug_nans():
    """Check every backprop and transform in the block for the first non-finite value.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> with fg.debug_nans(), np.errstate(invalid="ignore"):
    ...     fg.grad(lambda x: fnp.sum(fnp.log(x)))(np.array([1.0, -1.0]))
    Traceback (most recent call last):
    ...
    funcgrad.errors.NonFiniteError: the value of log node #... is not finite: [ 0., nan]; its inputs are finite: [ 1., -1.]
    """
    _local.depth = getattr(_local, "depth", 0) + 1
    try:
        yield
    finally:
        _local.depth -= 1


def _finite(v):
    v = raw(v)
    if type(v) is float:
        return v - v == 0.0          # False for nan and +-inf
    try:
        return bool(np.all(np.isfinite(v)))
    except TypeError:                # not numbers (e.g. a bool mask): nothing to check
        return True


def _describe(node):
    prim = node._prim
    if type(prim) is Leaf:
        return f"{prim.name}{' ' + node._name if node._name else ''} #{node._id}"
    return f"{prim.name} node #{node._id}"


def check_values(order):
    """Raise at the first node (in ``order``) whose value is not finite while its inputs are."""
    for node in order:
        if not _finite(node._value) and all(_finite(a._value) for a in node._args):
            if type(node._prim) is Leaf:
                raise NonFiniteError(f"the value of {_describe(node)} is not finite: "
                                     f"{format_value(node._value)}")
            inputs = ", ".join(format_value(a._value) for a in node._args)
            raise NonFiniteError(
                f"the value of {_describe(node)} is not finite: {format_value(node._value)}; "
                f"its inputs are finite: {inputs}")


def checked(node_step):
    """``node_step`` of a reverse fold, raising at the first pullback that turns a
    finite cotangent non-finite."""
    def checked_step(node, g):
        out = node_step(node, g)
        if _finite(g):
            for i, (a, c) in enumerate(zip(node._args, out)):
                if c is not None and a._prim is not CONST and not _finite(c):
                    inputs = ", ".join(format_value(x._value) for x in node._args)
                    raise NonFiniteError(
                        f"backprop: the cotangent that {_describe(node)} sends to its argument "
                        f"{i} ({_describe(a)}) is not finite: {format_value(c)}; the node's "
                        f"inputs: {inputs}")
        return out
    return checked_step
