"""Primitives without a derivative: ``stop_gradient``, the identity on values and a
constant to every derivative, and ``zeros_like``, a zero computed when a plan runs.

A cut must be invisible to the derivative traces and visible to the others.
Stripping every box off a value (what ``raw`` does) is right under ``grad`` and
``jvp`` but wrong under ``vmap`` and ``jit``: their boxes stand for many values
or for any value, and stripping them keeps one batch or one traced call's
numbers as a constant. So ``stop_gradient`` is a primitive that binds like any
other, except that a trace which differentiates (``Trace.differentiates``) is
stepped over: its box is opened and the call goes one level down. An opaque
trace processes it as the identity it is (vmap batches it, jit stages it), and
a graph staged with it (a loop's body, a jit plan) has rules that give a zero
derivative, so differentiating that graph later cuts there too.

>>> import numpy as np
>>> import funcgrad as fg
>>> fg.grad(lambda x: x * stop_gradient(x))(3.0)
np.float64(3.0)
>>> fg.vmap(lambda v: stop_gradient(v) * 2.0)(np.array([1.0, 2.0]))
array([2., 4.])
"""

import numpy as np

from ..core.primitive import Primitive
from ..core.traces import Box
from .arrays import batch_elementwise

__all__ = ["stop_gradient", "zeros_like"]


def _identity(x):
    # a view, not the array itself: traces mark what a primitive returns read-only, and the
    # caller's own array must keep its flags
    return x.view() if isinstance(x, np.ndarray) else x


def _no_derivative(*_, **__):
    return None  # a zero cotangent or tangent: the fold and jvp skip it


class Cut(Primitive):
    """A primitive that every differentiating trace steps over (see the module docstring)."""

    __slots__ = ()

    def __call__(self, x):
        while isinstance(x, Box) and x._trace.differentiates:
            x = x._value
        if isinstance(x, Box):
            return x._trace.process(self, (x,), {})
        return self.impl(x)


stop_gradient = Cut(
    "stop_gradient",
    _identity,
    vjp=(_no_derivative,),
    jvp=(_no_derivative,),
    batch=batch_elementwise,
    xp=lambda xp, x: x,
)


def _zeros_batch(size, prim, values, batched, params):
    return prim(values[0])


# A zero tangent of a staged value. Most zeros are plain constants of the value's shape; a
# while loop's history has the length of its trip count, which tracing does not know, so
# its zero is computed when the plan runs, from the value itself. No derivative.
zeros_like = Primitive(
    "zeros_like",
    lambda x: np.zeros_like(x, dtype=np.result_type(x, 0.0)),
    vjp=(_no_derivative,),
    jvp=(_no_derivative,),
    batch=_zeros_batch,
    xp=lambda xp, x: xp.zeros_like(x),
)
