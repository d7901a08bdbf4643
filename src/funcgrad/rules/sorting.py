"""Primitives whose index is computed from values: sorting, gathering along an axis.

``getitem`` takes a static index. Sorting needs an index that depends on the
values (the permutation), and under ``vmap`` that permutation differs per
example, so it must travel as an operand the batch trace can see. The pair
below gathers and scatter-adds along one axis with such an index operand; the
index itself is never differentiated (it is an integer array).

    primitive       value                                  reverse rule (transpose)
    -------------   ------------------------------------   ----------------------------------
    take_along      np.take_along_axis(x, idx, axis)       put_along(g, idx, axis, x's shape)
    put_along       zeros(shape), g added at idx           take_along(g, idx, axis)

Integer-valued functions of values (``argsort``, ``argmax``, ``argmin``,
``searchsorted``) are primitives too, only so that ``vmap`` can batch them;
callers pass them plain values (``plain``), so no derivative trace
ever records them.

>>> import numpy as np
>>> import funcgrad as fg
>>> x = np.array([[3.0, 1.0, 2.0]])
>>> idx = argsort(x, axis=1, kind="stable")
>>> take_along(x, idx, axis=1)
array([[1., 2., 3.]])
>>> fg.grad(lambda v: take_along(v, idx, axis=1)[0, 0])(x)
array([[0., 1., 0.]])
"""

import numpy as np

from ..analysis.facts import ALL, declare
from ..core.primitive import Primitive
from ..core.values import float_dtype, plain, shape_of
from .arrays import broadcast_to, reshape
from .row_sums import ufunc_at

__all__ = ["take_along", "put_along", "argsort", "argmax", "argmin", "searchsorted"]


# ---------------------------------------------------------------- helpers


def _grids(idx, axis, shape):
    """A full advanced index into an array of ``shape``: ``idx`` along ``axis``,
    the position itself (or 0 on a broadcast size-1 axis) along the others."""
    out_shape = np.broadcast_shapes(
        tuple(n if d != axis else 1 for d, n in enumerate(idx.shape)),
        tuple(n if d != axis else 1 for d, n in enumerate(shape)),
    )
    parts = []
    for d, n in enumerate(shape):
        if d == axis:
            parts.append(idx)
            continue
        view = [1] * len(shape)
        view[d] = out_shape[d]
        parts.append(
            (np.arange(out_shape[d]) if n != 1 else np.zeros(out_shape[d], int)).reshape(view)
        )
    return tuple(parts)


def _put_along_impl(g, idx, axis, shape):
    out = np.zeros(shape, dtype=float_dtype(g))
    idx = np.asarray(idx)
    axis = axis % len(shape)
    if (
        idx.shape[axis] == 1
        and np.shape(g) == idx.shape
        and all(idx.shape[d] == n for d, n in enumerate(shape) if d != axis)
    ):
        # one position per row (a cross-entropy's picked logit): no two writes meet, so
        # writing is adding, without np.add.at's one-element-at-a-time loop
        np.put_along_axis(out, idx, g, axis)
        return out
    ufunc_at(np.add, out, _grids(idx, axis, shape), g)
    return out


def _batched(size, v, b):
    return v if b else broadcast_to(v, shape=(size,) + shape_of(v))


def _take_along_batch(size, prim, values, batched, params):
    x, idx = (_batched(size, v, b) for v, b in zip(values, batched))
    nd = len(shape_of(x)) - 1
    return take_along(x, idx, axis=params["axis"] % nd + 1)


def _put_along_batch(size, prim, values, batched, params):
    g, idx = (_batched(size, v, b) for v, b in zip(values, batched))
    shape = tuple(params["shape"])
    return put_along(g, idx, axis=params["axis"] % len(shape) + 1, shape=(size,) + shape)


# ---------------------------------------------------------------- other libraries' arrays


def _xp_put_along(xp, h, idx, axis, shape):
    """Zeros of ``shape`` with ``h`` added at ``idx`` along ``axis``: a one-hot sum, since
    the standard has no scatter-add (and the indices stay on the arrays' device)."""
    axis = axis % len(shape)
    n = shape[axis]
    idx = xp.where(idx < 0, idx + n, idx)  # NumPy counts a negative index from the end
    hits = xp.expand_dims(idx, axis=-1) == xp.arange(n, device=getattr(idx, "device", None))
    spread = xp.sum(
        xp.where(hits, xp.expand_dims(h, axis=-1), 0.0 * xp.expand_dims(h, axis=-1)), axis=axis
    )
    order = list(range(len(shape) - 1))
    order.insert(axis, len(shape) - 1)
    spread = xp.permute_dims(spread, tuple(order))
    # an axis of x that take_along broadcast (1 in x, more in idx): its cotangents summed
    wide = tuple(d for d, n in enumerate(shape) if n == 1 and spread.shape[d] != 1)
    if wide:
        spread = xp.sum(spread, axis=wide, keepdims=True)
    return xp.broadcast_to(spread, shape)


# ---------------------------------------------------------------- the table

take_along = Primitive(
    "take_along",
    lambda x, idx, axis: np.take_along_axis(x, idx, axis),
    xp=lambda xp, x, idx, axis: xp.take_along_axis(x, idx, axis=axis),
    vjp=(lambda g, ans, x, idx, axis: put_along(g, idx, axis=axis, shape=shape_of(x)), None),
    jvp=(lambda t, ans, x, idx, axis: take_along(t, idx, axis=axis), None),
    batch=_take_along_batch,
)
put_along = Primitive(
    "put_along",
    _put_along_impl,
    xp=_xp_put_along,
    vjp=(lambda g, ans, h, idx, axis, shape: take_along(g, idx, axis=axis), None),
    jvp=(lambda t, ans, h, idx, axis, shape: put_along(t, idx, axis=axis, shape=shape), None),
    batch=_put_along_batch,
)


# ---------------------------------------------------------------- integer-valued


def _arg_batch(size, prim, values, batched, params):
    """argsort/argmax/argmin: the axis moves past the batch axis; None flattens each example."""
    axis = params.get("axis")
    x = plain(values[0])
    nd = len(shape_of(x)) - 1
    if axis is not None:
        return prim(x, **{**params, "axis": axis % nd + 1})
    out = prim(reshape(x, shape=(size, -1)), **{**params, "axis": 1})
    if params.get("keepdims"):
        out = reshape(out, shape=(size,) + (1,) * nd)
    return out


def _argsort_impl(x, axis=-1, kind=None):
    return np.argsort(x, axis=axis, kind=kind)


def _argmax_impl(x, axis=None, keepdims=False):
    return np.argmax(x, axis=axis, keepdims=keepdims)


def _argmin_impl(x, axis=None, keepdims=False):
    return np.argmin(x, axis=axis, keepdims=keepdims)


def _xp_argsort(xp, x, axis=-1, kind=None):
    return xp.argsort(x, axis=-1 if axis is None else axis, stable=kind in ("stable", "mergesort"))


argsort = Primitive("argsort", _argsort_impl, batch=_arg_batch, xp=_xp_argsort)
argmax = Primitive(
    "argmax",
    _argmax_impl,
    batch=_arg_batch,
    xp=lambda xp, x, axis=None, keepdims=False: xp.argmax(x, axis=axis, keepdims=keepdims),
)
argmin = Primitive(
    "argmin",
    _argmin_impl,
    batch=_arg_batch,
    xp=lambda xp, x, axis=None, keepdims=False: xp.argmin(x, axis=axis, keepdims=keepdims),
)
# No batching rule: applied example by example under vmap.
searchsorted = Primitive(
    "searchsorted",
    lambda a, v, side="left": np.searchsorted(a, v, side=side),
    xp=lambda xp, a, v, side="left": xp.searchsorted(a, v, side=side),  # the standard's
)


# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(argsort, argmax, argmin, searchsorted, flat=ALL)
declare(take_along, structure="sort_gather", flat=frozenset({1}), linear=frozenset({0}))
declare(put_along, structure="sort_scatter")
