"""The trace protocol: how a transform sees the primitives called on its values.

A transform wraps the values it follows in *boxes* of its own trace. When a
primitive is called, the innermost trace among its arguments (the one with the
highest ``level``) *processes* the call: reverse mode records a graph node,
forward mode pushes a tangent, vmap rewrites the call for a whole batch, jit
stages it. Each computes what it needs one level down by calling primitives on
the unwrapped values, so outer traces process their part of the same call in
turn. Nesting transforms is nothing more than this recursion.

A trace is four things:

- ``level``: later traces nest inside earlier ones (:func:`new_level`);
- ``box_type``: the class of its values; :meth:`Trace.owns` says whether a
  value is one of its own, :meth:`Trace.unbox` unwraps it if so;
- ``opaque`` and ``batch_axes``: whether its values stand for one concrete
  value one level down (a rule may then read that value as a constant), and
  how many leading axes of the value underneath the traced function does not
  see (vmap's batch);
- ``differentiates``: whether it follows derivatives (reverse and forward
  mode), so that ``fg.stop_gradient`` removes its boxes instead of asking it;
- :meth:`Trace.process`: what a primitive call on its values becomes.

The traces are :class:`funcgrad.dag.node.ReverseTrace`,
:class:`funcgrad.transforms.forward.ForwardTrace`, :class:`funcgrad.transforms.batching.BatchTrace`
and :class:`funcgrad.jit.staging.StagingTrace`; each module also holds its box
and the transforms the user calls.
"""

import itertools
import threading
from contextlib import contextmanager

__all__ = [
    "Box",
    "Trace",
    "new_level",
    "note_cut",
    "recording_cuts",
    "one_example_at_a_time",
    "by_example",
]

_levels = itertools.count(1)


def new_level():
    """A new trace's level: larger than every earlier one, so a later transform's trace
    sits above (inside) an earlier one's (atomic under the GIL).

    >>> from funcgrad import extend
    >>> extend.new_level() < extend.new_level()
    True
    """
    return next(_levels)


class Box:
    """Base class of traced values: ``_value`` one level down, ``_trace`` the owner.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> seen = []
    >>> fg.grad(lambda x: seen.append(isinstance(x, extend.Box)) or x * x)(2.0)
    np.float64(4.0)
    >>> seen
    [True]
    """

    __slots__ = ()


class Trace:
    """One transform's view of the primitives called on its values; see the module docstring.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import extend
    >>> seen = []
    >>> fg.grad(lambda x: seen.append(isinstance(x._trace, extend.Trace)) or x * x)(2.0)
    np.float64(4.0)
    >>> seen
    [True]
    """

    __slots__ = ("level",)
    box_type: type = Box
    opaque = False
    batch_axes = 0
    differentiates = False  # grad's and jvp's traces: fg.stop_gradient steps over them
    makes_constants = False  # whether constant() gives a box (see core/namespaces.joined)

    def __init__(self, level):
        self.level = level

    def owns(self, x):
        """Whether ``x`` is a value of this trace (not of an outer or inner one)."""
        return type(x) is self.box_type and x._trace is self

    def unbox(self, x):
        """``x`` one level down if it is this trace's value, else ``x`` unchanged."""
        return x._value if type(x) is self.box_type and x._trace is self else x

    def process(self, prim, args, params):
        """The result of ``prim(*args, **params)``, some of whose ``args`` are this trace's."""
        raise NotImplementedError(f"{type(self).__name__} does not process primitives")

    def binary(self, prim, a, b):
        """:meth:`process` of a call of two operands and no parameters, where ``a`` and
        ``b`` are this trace's boxes, or one of them a Python float (an operator's call); a
        trace may take it a shorter way."""
        return self.process(prim, (a, b), {})

    def constant(self, value):
        """``value`` as a constant of this trace (a box that follows nothing), where the
        trace makes them (:attr:`makes_constants`); None elsewhere."""
        return

    def numpy_answer(self, box, convert, fresh=True):
        """``box``, this trace's answer to a user's call whose value is a Python number, as
        NumPy answers that call: ``convert(box)``, a step of its own (``convert`` is
        :func:`funcgrad.core.primitive.strong`). A trace whose graph is folded but
        never replayed may give a ``fresh`` box (made by this call, seen by no one yet)
        NumPy's value where it is made instead."""
        return convert(box)

    def __repr__(self):
        return f"<{type(self).__name__} {self.level}>"


class _Log(threading.local):
    """This thread's log of cuts while ``recording_cuts`` runs (None otherwise); a class
    default, as reading a missing thread-local attribute raises and catches an exception."""

    log = None


_cuts = _Log()


def note_cut(kind, x):
    """Tell a running :func:`recording_cuts` that ``x``'s derivative was cut here
    (``fg.stop_gradient``, a cast to integers): ``fg.explain`` names such cuts."""
    log = _cuts.log
    if log is not None and isinstance(x, Box):
        log.append((kind, x))


@contextmanager
def recording_cuts():
    """Collect ``(kind, value)`` for every cut made in the block, on this thread."""
    outer = _cuts.log
    _cuts.log = []
    try:
        yield _cuts.log
    finally:
        _cuts.log = outer


class _Examples(threading.local):
    depth = 0  # how many one_example_at_a_time blocks this thread is in


_examples = _Examples()


@contextmanager
def one_example_at_a_time():
    """The block runs a primitive on one example of a vmap's batch at a time (the batch rule
    of a primitive without one, a custom rule's function): a collective over the batch's
    axis (``psum``) cannot see the other examples there, and asks :func:`by_example`."""
    _examples.depth += 1
    try:
        yield
    finally:
        _examples.depth -= 1


def by_example():
    """Whether this thread runs inside :func:`one_example_at_a_time`."""
    return _examples.depth > 0
