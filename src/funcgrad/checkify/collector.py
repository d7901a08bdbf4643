"""The running ``checkify`` calls, and ``check_p``: a user's check as a step of the graph.

Each ``checkify`` call has a :class:`Collector`: its checks in program order, each a
flag (``True``: failed), a message and the numbers the message prints. A
:func:`~funcgrad.checkify.check` on traced values binds :data:`check_p` (see
:func:`bind_check`), which the ``checkify`` call's trace records; so a check inside
a loop's body is a step of that body, whose flags :mod:`funcgrad.checkify.bodies`
threads through the loop's carries. Run on plain values (a body's plan, beneath
every trace), ``check_p`` records into the innermost running ``checkify``, or raises
:class:`~funcgrad.errors.CheckError` where none runs and the check failed.

>>> import numpy as np
>>> from funcgrad.checkify.collector import Collector, bind_check
>>> with Collector({"user"}, None) as collector:
...     bind_check(np.array(True), "x is {}", [2.5], {})
>>> [(bool(flag), message, args) for flag, message, args, _ in collector.records]
[(True, 'x is {} (`check` failed)', (2.5,))]
>>> bind_check(np.array(True), "x is {}", [2.5], {})
Traceback (most recent call last):
...
funcgrad.errors.CheckError: x is 2.5 (`check` failed)
"""

import threading

import numpy as np

from ..analysis.facts import ALL, declare
from ..core.errors import CheckError
from ..core.primitive import Primitive
from ..core.traces import Box
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import shape_of
from ..jit import facts as jit_facts
from ..rules.arrays import broadcast_to

__all__ = [
    "Collector",
    "running",
    "check_p",
    "bind_check",
    "record_check",
    "message_args",
    "FAILED",
]


class _Stack(threading.local):
    """This thread's running checkify calls, innermost last (a class default: no
    exception on the first read)."""

    collectors: tuple = ()


_stack = _Stack()


def running():
    """The innermost running checkify call's collector, or None."""
    collectors = _stack.collectors
    return collectors[-1] if collectors else None


class Collector:
    """One checkify call's checks, in program order: (flag, message, args, kwargs).
    ``with collector:`` makes it the running one."""

    def __init__(self, errors, trace):
        self.errors, self.trace, self.records = errors, trace, []

    def add(self, flag, message, args=(), kwargs=None):
        self.records.append((flag, message, tuple(args), dict(kwargs or {})))

    def __enter__(self):
        _stack.collectors = _stack.collectors + (self,)
        return self

    def __exit__(self, *exc):
        _stack.collectors = _stack.collectors[:-1]


# ---------------------------------------------------------------- a user's check as a step


def message_args(leaves, params):
    """The ``(args, kwargs)`` a check's message prints: its traced leaves put back
    among the ones it kept as parameters (strings, None)."""
    it = iter(leaves)
    full = [next(it) if s is _TRACED else s for s in params["layout"]]
    return tree_unflatten(params["tree"], full)


class _Traced:
    """The place of an operand among the leaves a check's message prints."""

    def __repr__(self):
        return "traced"


_TRACED = _Traced()


FAILED = " (`check` failed)"
"""What a user check's message ends with when it failed, as JAX's does."""


def record_check(collector, failed, leaves, params):
    """Add a user check (``check_p``'s operands and parameters) to ``collector``."""
    if "user" in collector.errors:
        args, kwargs = message_args(leaves, params)
        collector.add(failed, params["message"] + FAILED, args, kwargs)


def _check_impl(failed, *leaves, message, tree, layout):
    params = {"message": message, "tree": tree, "layout": layout}
    collector = running()
    if collector is not None:
        record_check(collector, failed, leaves, params)
    elif bool(np.any(failed)):
        args, kwargs = message_args([np.asarray(v) for v in leaves], params)
        raise CheckError(message.format(*args, **kwargs) + FAILED)
    return failed


def _check_batch(size, prim, values, batched, params):
    # every number the message prints carries the batch, so err.get() can pick one example
    values = [
        v if b else broadcast_to(v, shape=(size,) + shape_of(v)) for v, b in zip(values, batched)
    ]
    return check_p(*values, **params)


check_p = Primitive(
    "check",
    _check_impl,
    vjp=lambda argnums, g, ans, *leaves, **params: [None for _ in argnums],
    jvp=lambda tangents, ans, *leaves, **params: None,
    batch=_check_batch,
)
declare(check_p, flat=ALL)
jit_facts.declare(check_p, effect=True, abstract=lambda failed, *leaves, **params: failed)


def bind_check(failed, message, args, kwargs):
    """Bind :data:`check_p`: ``failed`` and the numbers ``message`` prints as operands,
    anything else it prints (a string) as a parameter."""
    leaves, tree = tree_flatten((list(args), dict(kwargs)))
    numbers = [v for v in leaves if _is_number(v)]
    layout = tuple(_TRACED if _is_number(v) else v for v in leaves)
    check_p(failed, *numbers, message=message, tree=tree, layout=layout)


def _is_number(v):
    return isinstance(v, (Box, bool, int, float, complex, np.ndarray, np.generic))
