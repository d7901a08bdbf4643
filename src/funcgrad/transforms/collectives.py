"""Collectives over a named ``vmap`` axis: ``psum``, ``pmean``, ``pmax``, ``pmin``,
``all_gather``, ``axis_index`` (JAX's, as :mod:`funcgrad.lax` offers them).

Inside ``fg.vmap(f, axis_name="i")``, ``psum(x, "i")`` is the sum of ``x`` over the
examples, which every example sees. Each collective is a primitive that the batch
trace of that name reduces over its axis (``Collective.over_named_axis``; the
trace of another vmap maps it over its own examples, as any call); a value that
does not vary along the axis is reduced where the call is made (``psum`` of a
constant is ``size`` times it), with the size bound as a parameter, so a jitted
plan needs no vmap around it when it runs. The derivatives are JAX's: ``psum``'s
tangent is the ``psum`` of the tangents and its cotangent the ``psum`` of the
cotangents; inside the vmap (a ``grad`` of each example) ``all_gather``, ``pmax``
and ``pmin`` have none (MissingRuleError). A derivative taken outside the vmap
differentiates the reduction over the whole batch, as for any function (where
JAX refuses ``pmax``/``pmin``, funcgrad gives the maximum's derivative).

>>> import numpy as np
>>> import funcgrad as fg
>>> from funcgrad import lax
>>> fg.vmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(np.array([1.0, 3.0]))
array([0.25, 0.75])
>>> fg.vmap(fg.grad(lambda x: lax.pmean(x ** 2, "i")), axis_name="i")(np.array([1.0, 2.0]))
array([2., 4.])
"""

import math
from typing import Any

import numpy as np

from ..core.errors import ArgumentError, MissingRuleError
from ..core.primitive import Primitive
from ..core.traces import by_example
from ..core.tree import tree_map
from ..core.values import shape_of
from ..rules import arrays as _arrays
from ..rules import reductions as _reductions
from .batching import Batched, named_axis

__all__ = ["psum", "pmean", "pmax", "pmin", "all_gather", "axis_index", "axis_size"]


def _spread(reduce):
    """The reduction over the examples (the batch axis, first), which each example sees."""

    def over(value, size, params):
        shape = shape_of(value)
        return _arrays.broadcast_to(reduce(value, axis=0, keepdims=True), shape=shape)

    return over


def _alone(name, axis_name):
    """Refuse a collective that would see one example of its axis as if it were all of them:
    one made where the batch runs example by example (a primitive without a batch rule, a
    custom rule's function under vmap)."""
    if by_example():
        raise MissingRuleError(
            f"{name}: over axis {axis_name!r} inside a function that vmap runs one example at "
            f"a time (a custom_vjp/custom_jvp function, or a primitive without a batch rule), "
            f"where it cannot see the other examples; call {name} outside that function and "
            f"pass its result in"
        )


class Collective(Primitive):
    """A primitive over a named vmap axis: ``impl`` is its value where the operand does
    not vary along the axis, ``over_named_axis(value, size, params)`` its value on the
    batch of that axis (leading), which the batch trace of that name calls."""

    def __init__(self, name, impl, over_named_axis, doc):
        super().__init__(name, impl)
        self.over_named_axis = over_named_axis
        self.__doc__ = doc


def _collective(name, where_constant, reduce, doc):
    def impl(x, axis_name, size):
        _alone(name, axis_name)
        return where_constant(x, size)

    return Collective(name, impl, _spread(reduce), doc)


psum_p = _collective(
    "psum",
    lambda x, size: x * size,
    _reductions.sum,
    "The sum over a named vmap axis (see funcgrad.transforms.collectives).",
)
pmax_p = _collective(
    "pmax", lambda x, size: x, _reductions.max, "The maximum over a named vmap axis."
)
pmin_p = _collective(
    "pmin", lambda x, size: x, _reductions.min, "The minimum over a named vmap axis."
)
psum_p.jvp = (lambda t, ans, x, axis_name, size: psum_p(t, axis_name=axis_name, size=size),)
psum_p.vjp = (lambda g, ans, x, axis_name, size: psum_p(g, axis_name=axis_name, size=size),)


def _gathered(value, size, params):
    """Every example's value, stacked, in each example."""
    return _arrays.broadcast_to(value[None], shape=(size,) + shape_of(value))


def _gather_constant(x, axis_name, size):
    _alone("all_gather", axis_name)
    return np.broadcast_to(x, (size,) + np.shape(x)).copy()


all_gather_p = Collective(
    "all_gather",
    _gather_constant,
    _gathered,
    "Every example's value over a named vmap axis, stacked.",
)


def _names(axis_name):
    """One name, or JAX's tuple of names (a collective over all of those axes)."""
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _sizes(axis_name, who):
    return [(name, named_axis(name, who).size) for name in _names(axis_name)]


def _size(axis_name, who):
    return math.prod(size for _, size in _sizes(axis_name, who))


def _bind(prim, x, axis_name, who):
    """``prim`` on each leaf of the tree ``x``, over each of the named axes in turn."""
    sizes = _sizes(axis_name, who)

    def over_all(leaf):
        for name, size in sizes:
            leaf = prim(leaf, axis_name=name, size=size)
        return leaf

    return tree_map(over_all, x)


def psum(x: Any, axis_name: Any) -> Any:
    """The sum of ``x`` (a tree of arrays) over the examples of the vmap named
    ``axis_name`` (or of each of a tuple of names).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.lax import psum
    >>> fg.vmap(lambda x: psum(x, "b"), axis_name="b")(np.array([1.0, 2.0]))
    array([3., 3.])
    """
    return _bind(psum_p, x, axis_name, "psum")


def pmean(x: Any, axis_name: Any) -> Any:
    """The mean of ``x`` over the examples of the vmap named ``axis_name``.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.lax import pmean
    >>> fg.vmap(lambda x: pmean(x, "b"), axis_name="b")(np.array([1.0, 2.0]))
    array([1.5, 1.5])
    """
    count = _size(axis_name, "pmean")
    return tree_map(lambda leaf: leaf / count, psum(x, axis_name))


def axis_size(axis_name: Any) -> int:
    """The number of examples of the vmap named ``axis_name`` (the product of the sizes, for
    a tuple of names).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.lax import axis_size
    >>> fg.vmap(lambda x: x * axis_size("b"), axis_name="b")(np.array([1.0, 2.0]))
    array([2., 4.])
    """
    return _size(axis_name, "axis_size")


def pmax(x: Any, axis_name: Any) -> Any:
    """The maximum of ``x`` over the examples (no derivative).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.lax import pmax
    >>> fg.vmap(lambda x: pmax(x, "b"), axis_name="b")(np.array([1.0, 2.0]))
    array([2., 2.])
    """
    return _bind(pmax_p, x, axis_name, "pmax")


def pmin(x: Any, axis_name: Any) -> Any:
    """The minimum of ``x`` over the examples (no derivative).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.lax import pmin
    >>> fg.vmap(lambda x: pmin(x, "b"), axis_name="b")(np.array([1.0, 2.0]))
    array([1., 1.])
    """
    return _bind(pmin_p, x, axis_name, "pmin")


def all_gather(x: Any, axis_name: Any, *, axis: int = 0, tiled: bool = False) -> Any:
    """Every example's ``x``, stacked along a new ``axis`` (joined along ``axis`` with
    ``tiled``), in each example.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.lax import all_gather
    >>> fg.vmap(lambda x: all_gather(x, "b"), axis_name="b")(np.array([1.0, 2.0]))
    array([[1., 2.],
           [1., 2.]])
    """
    if len(_names(axis_name)) != 1:
        raise ArgumentError(
            f"all_gather: gathers over one axis; got the names {axis_name!r}; call it once per name"
        )
    return tree_map(lambda leaf: _gather(leaf, axis_name, axis, tiled), x)


def _gather(x, axis_name, axis, tiled):
    out = _bind(all_gather_p, x, axis_name, "all_gather")
    if axis:
        out = _move(out, axis)
    if tiled:
        shape = shape_of(out)
        a = axis % len(shape)
        out = _arrays.reshape(out, shape=shape[:a] + (shape[a] * shape[a + 1],) + shape[a + 2 :])
    return out


def _move(x, axis):
    """``x`` with its first axis moved to ``axis``."""
    n = len(shape_of(x))
    order = list(range(1, n))
    order.insert(axis % n, 0)
    return _arrays.transpose(x, axes=tuple(order))


def axis_index(axis_name: Any) -> Any:
    """Each example's position along the vmap named ``axis_name``.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.lax import axis_index
    >>> fg.vmap(lambda x: x * axis_index("b"), axis_name="b")(np.array([5.0, 5.0, 5.0]))
    array([ 0.,  5., 10.])
    """
    index: Any = 0
    for name, size in _sizes(axis_name, "axis_index"):  # several names: row-major
        _alone("axis_index", name)
        trace = named_axis(name, "axis_index")
        index = index * size + Batched(np.arange(size, dtype=np.int32), trace)
    return index
