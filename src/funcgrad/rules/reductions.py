"""Reductions and scans beyond ``sum``: products, extrema, cumulative sums and products.

    primitive   value                    reverse rule
    ---------   ----------------------   ------------------------------------------------
    prod        product along axes        g * (product of the others in the group)
    max, min    extremum along axes       g shared equally among the elements that tie
    cumsum      running sum along axis    reversed running sum of g
    cumprod     running product           through the doubling scan (exact with zeros)

"The product of the others" is an exclusive running product from the left
times one from the right, so it is exact when the group holds zeros (no
division by x). The running product's own derivative goes through the
doubling (Hillis-Steele) scan ``y <- y * shift(y, s)`` for s = 1, 2, 4, ...:
each round is a product, so its forward and reverse rules are sums of
products, exact at zeros and differentiable again. Values come from NumPy.

>>> import numpy as np
>>> import funcgrad as fg
>>> fg.grad(lambda x: prod(x, axis=None))(np.array([2.0, 0.0, 3.0]))
array([0., 6., 0.])
"""

import numpy as np

from ..core.facts import declare
from ..core.primitive import Primitive
from ..core.values import filled_like, ndim_of, normalize_axes, plain, shape_of
from .arrays import (
    batch_along_axis,
    batch_reduction,
    broadcast_to,
    concatenate,
    getitem,
    reshape,
    restore_reduced_axes,
    sum,
    transpose,
)
from .elementwise import equal, real_dtype_of, weights_where, where

__all__ = ["prod", "max", "min", "cumsum", "cumprod", "others_product"]


# ---------------------------------------------------------------- helpers

def _slice(x, start, stop, axis):
    return getitem(x, index=(slice(None),) * axis + (slice(start, stop),))


def _flip(x, axis):
    return getitem(x, index=(slice(None),) * axis + (slice(None, None, -1),))


def _fill(like, axis, count, value):
    """``value`` in the shape of ``like`` but ``count`` long along ``axis``, in its library."""
    s = list(shape_of(like))
    s[axis] = count
    return filled_like(like, value, shape=tuple(s))


def _shift_in(y, s, axis, fill):
    """``y`` moved ``s`` places along ``axis`` (towards the end), ``fill`` coming in."""
    shape = shape_of(y)
    return concatenate(_fill(y, axis, s, fill), _slice(y, 0, shape[axis] - s, axis), axis=axis)


def _shift_out(g, s, axis):
    """The transpose of ``_shift_in(., s, axis, 0.0)``: ``g`` moved back, zeros coming in."""
    shape = shape_of(g)
    return concatenate(_slice(g, s, shape[axis], axis), _fill(g, axis, s, 0.0), axis=axis)


def _scan_rounds(x, axis):
    """The doubling scan's intermediate values: [(y, s)] per round, y before the round."""
    n = shape_of(x)[axis]
    rounds, y, s = [], x, 1
    while s < n:
        rounds.append((y, s))
        y = y * _shift_in(y, s, axis, 1.0)
        s *= 2
    return rounds


def _cumprod_jvp(t, ans, x, axis):
    axis = axis % ndim_of(x)
    for y, s in _scan_rounds(x, axis):
        t = t * _shift_in(y, s, axis, 1.0) + y * _shift_in(t, s, axis, 0.0)
    return t


def _cumprod_vjp(g, ans, x, axis):
    axis = axis % ndim_of(x)
    for y, s in reversed(_scan_rounds(x, axis)):
        g = g * _shift_in(y, s, axis, 1.0) + _shift_out(g * y, s, axis)
    return g


def _others_along(x, axis):
    """For each element, the product of the other elements along ``axis``."""
    shape = shape_of(x)
    n = shape[axis]
    if n == 1:
        return np.ones(shape)
    left = _shift_in(cumprod(x, axis=axis), 1, axis, 1.0)
    right = _flip(_shift_in(cumprod(_flip(x, axis), axis=axis), 1, axis, 1.0), axis)
    return left * right


def others_product(x, axis=None):
    """For each element of ``x``, the product of the others reduced with it along ``axis``.

    This is the derivative of ``prod``; it never divides, so zeros are exact.

    >>> others_product(np.array([2.0, 0.0, 3.0]))
    array([0., 6., 0.])
    """
    shape = shape_of(x)
    if not shape:
        return 1.0
    axes = normalize_axes(axis, len(shape))
    if len(axes) == 1:
        return _others_along(x, axes[0])
    kept = tuple(a for a in range(len(shape)) if a not in axes)
    perm = kept + axes
    moved = transpose(x, axes=perm)
    flat = reshape(moved, shape=tuple(shape[a] for a in kept) + (-1,))
    out = reshape(_others_along(flat, len(kept)), shape=shape_of(moved))
    return transpose(out, axes=tuple(np.argsort(perm)))


def _grow(g, x, axis, keepdims):
    """A reduced cotangent broadcast back to the shape of ``x``."""
    g = restore_reduced_axes(g, x, axis, keepdims)
    shape = shape_of(x)
    return broadcast_to(g, shape=shape) if shape_of(g) != shape else g


def _tie_weights(x, ans, axis, keepdims):
    """1/k on each of the k elements equal to the extremum of their group, else 0."""
    px = plain(x)
    if not shape_of(px):
        return 1.0
    mask = weights_where(equal(px, restore_reduced_axes(plain(ans), px, axis, keepdims)), 1.0, 0.0,
                         real_dtype_of(px))
    return mask / sum(mask, axis=axis, keepdims=True)


def _reducer(fun):
    def impl(x, axis=None, keepdims=False):
        if type(x) is float:
            return x
        return fun(x, axis=axis, keepdims=keepdims)
    impl.__name__ = fun.__name__
    return impl


def _xp_reducer(name):
    """The reduction ``name`` of an Array API namespace (axes as a tuple, as it takes them)."""
    def form(xp, x, axis=None, keepdims=False):
        return getattr(xp, name)(x, axis=tuple(axis) if isinstance(axis, list) else axis,
                                 keepdims=keepdims)
    return form


def _xp_scan(name):
    """A cumulative sum or product along ``axis`` in an Array API namespace."""
    def form(xp, x, axis):
        return getattr(xp, name)(x, axis=axis)
    return form


# ---------------------------------------------------------------- the table

prod = Primitive(
    "prod", _reducer(np.prod), xp=_xp_reducer("prod"),
    vjp=(lambda g, ans, x, axis=None, keepdims=False:
          _grow(g, x, axis, keepdims) * others_product(x, axis),),
    jvp=(lambda t, ans, x, axis=None, keepdims=False:
          sum(t * others_product(x, axis), axis=axis, keepdims=keepdims),),
    batch=batch_reduction,
)
max = Primitive(  # noqa: A001 - NumPy's name, on purpose
    "max", _reducer(np.max), xp=_xp_reducer("max"),
    vjp=(lambda g, ans, x, axis=None, keepdims=False:
          _grow(g, x, axis, keepdims) * _tie_weights(x, ans, axis, keepdims),),
    jvp=(lambda t, ans, x, axis=None, keepdims=False:
          sum(t * _tie_weights(x, ans, axis, keepdims), axis=axis, keepdims=keepdims),),
    batch=batch_reduction,
)
min = Primitive(  # noqa: A001 - NumPy's name, on purpose
    "min", _reducer(np.min), xp=_xp_reducer("min"),
    vjp=max.vjp,
    jvp=max.jvp,
    batch=batch_reduction,
)
cumsum = Primitive(
    "cumsum", lambda x, axis: np.cumsum(x, axis=axis), xp=_xp_scan("cumulative_sum"),
    vjp=(lambda g, ans, x, axis: _flip(cumsum(_flip(g, axis % ndim_of(x)), axis=axis), axis % ndim_of(x)),),
    jvp=(lambda t, ans, x, axis: cumsum(t, axis=axis),),
    batch=batch_along_axis,
)
cumprod = Primitive(
    "cumprod", lambda x, axis: np.cumprod(x, axis=axis), xp=_xp_scan("cumulative_prod"),
    vjp=(_cumprod_vjp,),
    jvp=(_cumprod_jvp,),
    batch=batch_along_axis,
)


# What the analyses read about these primitives (funcgrad/core/facts.py).
declare(prod, max, min, structure="reduction")
declare(cumsum, structure="cumulative", linear="all")
declare(cumprod, structure="cumulative")
