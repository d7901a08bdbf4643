"""Functional updates: ``fg.at(x)[idx].set(v)`` instead of ``x[idx] = v``.

Traced values are immutable, so item assignment is refused; ``at`` builds the
updated array as a new value instead, differentiable in both ``x`` and ``v``
and batchable under ``vmap``. On plain arrays it is NumPy's own assignment on
a copy (``x`` is never changed).

Any NumPy index works: ints, slices, ``None``, ``...``, integer arrays and
boolean masks. The update is written through the flat positions the index
selects (``arange(x.size).reshape(x.shape)[idx]``), so repeated positions
follow NumPy: ``set`` keeps the last value written, ``add`` and ``multiply``
accumulate every value, like ``np.add.at`` and ``np.multiply.at``.
"""

from typing import Any

import numpy as np

from .arraylike import ArrayLike, TracedIndex
from .arraylike import index_param
from .rules import arrays, gather
from .rules.elementwise import where
from .traces import Box
from .values import shape_of

__all__ = ["at"]


class _Ref:
    """``at(x)[index]``: the positions to read or update."""

    __slots__ = ("x", "index")

    def __init__(self, x, index):
        self.x = x
        self.index = index

    def __repr__(self):
        return f"<at[{self.index!r}] of an array of shape {shape_of(self.x)}>"

    def get(self):
        """``x[index]``."""
        if type(self.index) is TracedIndex:
            template, operands = self.index
            return gather.gather(_operand(self.x), *operands, template=template, mode="raise")
        return self.x[self.index]

    def set(self, v):
        """``x`` with ``x[index]`` replaced by ``v`` (broadcast to the indexed shape)."""
        return self._update(v, "set")

    def add(self, v):
        """``x`` with ``v`` added at ``index`` (repeated positions add up)."""
        return self._update(v, "add")

    def multiply(self, v):
        """``x`` with ``x[index]`` multiplied by ``v`` (repeated positions multiply up)."""
        return self._update(v, "multiply")

    def _update(self, v, how):
        x, index = self.x, self.index
        if type(index) is TracedIndex:
            return _traced_index_update(_operand(x), index, v, how)
        if not isinstance(x, Box) and not isinstance(v, Box):
            out = np.array(x, copy=True)
            if how == "set":
                out[index] = v
            elif how == "add":
                np.add.at(out, index, v)
            else:
                np.multiply.at(out, index, v)
            return out
        return _traced_update(_operand(x), index, v, how)


def _operand(x):
    return x if isinstance(x, Box) else np.asarray(x, dtype=np.result_type(x, np.float64))


def _traced_update(x, index, v, how):
    shape = shape_of(x)
    size = int(np.prod(shape, dtype=np.int64))
    targets = np.arange(size).reshape(shape)[index]     # the flat position of each selected item
    sel_shape = np.shape(targets)
    vshape = shape_of(v)
    try:
        if np.broadcast_shapes(vshape, sel_shape) != sel_shape:
            raise ValueError
    except ValueError:
        raise ValueError(
            f"at(x)[index].{how}(v): v of shape {vshape} cannot be broadcast to the indexed "
            f"shape {sel_shape}; give v that shape or one that broadcasts to it") from None
    flat_t = targets.ravel()
    if isinstance(v, Box) and vshape == ():
        flat_v = arrays.broadcast_to(v, shape=(flat_t.size,))
    elif isinstance(v, Box):
        if vshape != sel_shape:
            v = arrays.broadcast_to(v, shape=sel_shape)
        flat_v = arrays.reshape(v, shape=(flat_t.size,))
    else:
        flat_v = np.broadcast_to(np.asarray(v, dtype=np.float64), sel_shape).ravel()
    flat_x = arrays.reshape(x, shape=(size,)) if shape != (size,) else x
    if how == "set":
        last = np.full(size, -1)
        last[flat_t] = np.arange(flat_t.size)   # NumPy assignment: the last write wins
        dest = np.flatnonzero(last >= 0)
        touched = last >= 0
        new = arrays.untake(arrays.getitem(flat_v, index=last[dest]), index=dest, shape=(size,))
        out = where(touched, new, flat_x)
    else:
        # One round per repeat of a position, in order, as np.add.at / np.multiply.at do.
        out = flat_x
        remaining = np.arange(flat_t.size)
        while remaining.size:
            _, first = np.unique(flat_t[remaining], return_index=True)
            now = remaining[first]
            touched = np.zeros(size, dtype=bool)
            touched[flat_t[now]] = True
            spread = arrays.untake(arrays.getitem(flat_v, index=now), index=flat_t[now],
                                   shape=(size,))
            out = where(touched, out + spread if how == "add" else out * spread, out)
            remaining = np.setdiff1d(remaining, now)
    return arrays.reshape(out, shape=shape) if shape != (size,) else out


def _traced_index_update(x, index, v, how):
    """An update at an index that jit or vmap traces: one scatter primitive."""
    template, operands = index
    if how == "set":
        return gather.scatter_set(x, v, *operands, template=template, mode="raise")
    if how == "add":
        return gather.scatter_add(x, v, *operands, template=template, mode="raise")
    raise NotImplementedError(
        "at(x)[index].multiply(v) with an index computed under jit or vmap is not supported; "
        "multiply by fg.at(fnp.ones_like(x))[index].set(v) instead, or index with plain values")


class _At:
    __slots__ = ("x",)

    def __init__(self, x):
        self.x = x

    def __getitem__(self, index):
        return _Ref(self.x, index_param(index))

    def __repr__(self):
        return f"<at of an array of shape {shape_of(self.x)}>"


def at(x: Any) -> Any:
    """Functional indexed update of ``x``: ``at(x)[idx].set(v)``, ``.add(v)``,
    ``.multiply(v)`` or ``.get()``. ``x`` itself never changes.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> x = np.zeros(4)
    >>> fg.at(x)[1:3].set(5.0)
    array([0., 5., 5., 0.])
    >>> fg.at(x)[[0, 0]].add(1.0)
    array([2., 0., 0., 0.])
    >>> gx, gv = fg.grad(lambda x, v: fnp.sum(fg.at(x)[0].set(v) ** 2), argnums=(0, 1))(np.ones(2), 3.0)
    >>> gx, float(gv)
    (array([0., 2.]), 6.0)
    """
    return _At(x)


setattr(ArrayLike, "at", property(at, doc="``x.at[idx].set(v)``: the same as ``fg.at(x)[idx].set(v)``."))
