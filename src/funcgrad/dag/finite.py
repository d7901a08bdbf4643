"""Finding where a NaN or an infinity first appears.

A non-finite number spreads through everything computed from it, so the
useful answer is the *first* node that made one. Values are checked in
topological order (the first op whose value is not finite although all its
inputs are), cotangents as the reverse fold makes them (the first edge whose
pullback is not finite although the cotangent it pulled back was).

``fg.backprop(output, check=True)`` checks one backprop; ``with
fg.debug_nans():`` checks every backprop and transform in the block, on this
thread. The reverse folds check their values and cotangents as they go;
forward mode, vmap and jit watch their inputs with a :class:`FiniteTrace`,
a trace of its own that checks the value of every primitive computed from
them (jit runs its plan, and only if the result is not finite runs the
function again, primitive by primitive, to name the first culprit).

>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> x = fg.var(0.0, name="x")
>>> f = fnp.sqrt(x) * 2.0
>>> fg.backprop(f, check=True)
Traceback (most recent call last):
...
funcgrad.errors.NonFiniteError: backprop: the cotangent that sqrt(x) sends to its argument 0 (var x) is not finite: inf; the node's inputs: 0.0
"""

import threading
from contextlib import contextmanager

import numpy as np

from ..core.errors import NonFiniteError
from ..core.traces import Trace, new_level
from ..core.tree import tree_flatten, tree_map, tree_unflatten
from ..core.values import format_value, raw
from .arraylike import ArrayLike
from .node import CONST, Leaf, arg_list

__all__ = [
    "debug_nans",
    "checking",
    "check_values",
    "checked",
    "FiniteTrace",
    "watched",
    "unwatched",
    "all_finite",
]


class _Depth(threading.local):
    """How many ``fg.debug_nans()`` blocks this thread is in (a class default: reading a
    missing thread-local attribute raises and catches an exception, on every call)."""

    depth = 0


_local = _Depth()
EVERYWHERE = {"on": False}  # fg.config.update("jax_debug_nans", True): every thread, always


def checking():
    """Whether this thread is inside ``fg.debug_nans()`` (or the check is on everywhere)."""
    return EVERYWHERE["on"] or _local.depth > 0


@contextmanager
def debug_nans():
    """Check every backprop and transform in the block for the first non-finite value.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> with fg.debug_nans(), np.errstate(invalid="ignore"):
    ...     fg.grad(lambda x: fnp.sum(fnp.log(x)))(np.array([1.0, -1.0]))
    Traceback (most recent call last):
    ...
    funcgrad.errors.NonFiniteError: the value of log(var) is not finite: [ 0., nan]; its inputs are finite: [ 1., -1.]
    """
    _local.depth += 1
    try:
        yield
    finally:
        _local.depth -= 1


def _finite(v):
    v = raw(v)
    if isinstance(v, tuple):  # a primitive's several results, or their cotangents
        return all(p is None or _finite(p) for p in v)
    if type(v) is float:
        return v - v == 0.0  # False for nan and +-inf
    try:
        return bool(np.all(np.isfinite(v)))
    except TypeError:  # not numbers (e.g. a bool mask): nothing to check
        return True


def _describe(node):
    prim = node._prim
    if type(prim) is Leaf:
        return f"{prim.name}{' ' + node._name if node._name else ''}"
    return f"{node._name + ' = ' if node._name else ''}{prim.name}({arg_list(node._args)})"


def check_values(order):
    """Raise at the first node (in ``order``) whose value is not finite while its inputs are."""
    for node in order:
        if not _finite(node._value) and all(_finite(a._value) for a in node._args):
            if type(node._prim) is Leaf:
                raise NonFiniteError(
                    f"the value of {_describe(node)} is not finite: {format_value(node._value)}"
                )
            inputs = ", ".join(format_value(a._value) for a in node._args)
            raise NonFiniteError(
                f"the value of {_describe(node)} is not finite: {format_value(node._value)}; "
                f"its inputs are finite: {inputs}"
            )


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
                        f"inputs: {inputs}"
                    )
        return out

    return checked_step


# -- watching the values of forward mode, vmap and jit --------------------------


class Watched(ArrayLike):
    """A value whose every primitive result is checked for NaN and infinity."""

    __slots__ = ("_value", "_trace")

    def __init__(self, value, trace):
        self._value = value
        self._trace = trace

    def __repr__(self):
        return f"<Watched {format_value(self._value)}>"


class FiniteTrace(Trace):
    """Checks the value of every primitive computed from its values; changes nothing else."""

    __slots__ = ("who",)
    box_type = Watched

    def __init__(self, level, who):
        super().__init__(level)
        self.who = who

    def process(self, prim, args, params):
        values = [self.unbox(a) for a in args]
        out = prim(*values, **params)
        if not _finite(out) and all(_finite(v) for v in values):
            inputs = ", ".join(format_value(v) for v in values)
            raise NonFiniteError(
                f"{self.who}: the value of {prim.name} is not finite: {format_value(out)}; its "
                f"inputs are finite: {inputs}"
            )
        return Watched(out, self)


def watched(tree, who):
    """``(tree with its number leaves watched, the trace)``, or ``(tree, None)`` outside
    ``fg.debug_nans()``."""
    if not checking():
        return tree, None
    trace = FiniteTrace(new_level(), who)
    leaves, treedef = tree_flatten(tree)
    return tree_unflatten(
        treedef, [Watched(v, trace) if _is_number(v) else v for v in leaves]
    ), trace


def unwatched(tree, trace):
    """``tree`` with ``trace``'s boxes opened (``trace`` None: as it is)."""
    return tree if trace is None else tree_map(trace.unbox, tree)


def all_finite(tree):
    """Whether every number in a pytree of results is finite."""
    kind = type(tree)
    if kind is float:  # the common cases first: no pytree walk
        return tree - tree == 0.0
    if kind is np.ndarray and tree.dtype.kind in "fc":
        return bool(np.isfinite(tree).all())
    return all(_finite(v) for v in tree_flatten(tree)[0])


def _is_number(v):
    return isinstance(v, (float, int, np.ndarray, np.generic)) and not isinstance(v, bool)
