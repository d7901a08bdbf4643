"""Reductions and scans beyond ``sum``: means, products, extrema, cumulative sums and products.

    primitive   value                    reverse rule
    ---------   ----------------------   ------------------------------------------------
    mean        sum along axes / count    g / count, spread over the group
    prod        product along axes        g * (product of the others in the group)
    max, min    extremum along axes       g shared equally among the elements that tie
    cumsum      running sum along axis    reversed running sum of g
    cumprod     running product           through the doubling scan (exact with zeros)

A float array's mean is one primitive, not a sum and a division: its value is the sum
over the count as NumPy's ``np.mean`` computes it (the same bits), and another library's
call is its own ``mean``, one pass (on a GPU one kernel, where the two were two: a layer
norm takes two means).

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

import itertools
import math

import numpy as np

from ..analysis.facts import declare
from ..core.primitive import Primitive
from ..core.values import filled_like, ndim_of, normalize_axes, plain, shape_of
from .arrays import _sum_vjp as _spread
from .arrays import (
    all_batched,
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
from .elementwise import divide, real_dtype_of
from .library_forms import axis_reduction
from .sums import checked_axes, sum_impl

__all__ = [
    "mean",
    "reduced_count",
    "prod",
    "max",
    "min",
    "cumsum",
    "cumprod",
    "others_product",
    "tie_weights",
    "mask_primitive",
    "batch_axes_shifted",
]


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
    top = restore_reduced_axes(plain(ans), px, axis, keepdims)
    return tie_weights(px, top, axis=normalize_axes(axis, len(shape_of(px))))


def _tie_weights_impl(x, top, axis):
    x = np.asarray(x)
    dtype = real_dtype_of(x)
    ties = np.equal(x, top)
    counts = _reduce_few(np.add, ties, axis, keepdims=True, dtype=dtype)
    if counts is None:
        counts = np.add.reduce(ties, axis=axis, keepdims=True, dtype=dtype)
    if counts.min() == 1 == counts.max():  # no ties (the rule with real data): 0 or 1
        return ties.astype(dtype)
    with np.errstate(invalid="ignore"):  # a group of NaNs ties with nothing: NaN
        return ties / counts


def _xp_tie_weights(xp, x, top, axis):
    ties = xp.astype(x == top, xp.float32 if x.dtype == xp.float32 else xp.float64)
    return ties / xp.sum(ties, axis=tuple(axis), keepdims=True)


def batch_axes_shifted(size, prim, values, batched, params):
    """vmap's rule for a primitive of operands of one shape along ``axis``: every operand
    batched, the axes one further along."""
    return prim(*all_batched(size, values, batched), axis=tuple(a + 1 for a in params["axis"]))


def _no_derivative(*_, **__):
    return None


def mask_primitive(name, impl, xp):
    """A primitive of ``(x, top, axis=axes)`` giving weights that pick elements of each
    group of ``x`` by ``top``, its extremum. They are piecewise constant (their derivative
    is zero) and rules call them on plain values; vmap and jit see the primitive."""
    return Primitive(
        name,
        impl,
        xp=xp,
        vjp=(_no_derivative, _no_derivative),
        jvp=(_no_derivative, _no_derivative),
        batch=batch_axes_shifted,
    )


tie_weights = mask_primitive("tie_weights", _tie_weights_impl, _xp_tie_weights)
"""``tie_weights(x, top, axis=axes)``: 1/k on each of the k elements of ``x`` equal to
``top`` (the extremum of their group along ``axes``, reduced axes kept), else 0."""


def folded(x, axis):
    """Whether :func:`_reduce_few` reduces ``x`` over ``axis`` (a fold over each group's
    few elements) rather than NumPy's reduction: what a kernel that folds the same way
    must match (:mod:`funcgrad.kernels`)."""
    return _folded_axes(x, axis) is not None


def _folded_axes(x, axis):
    """The axes :func:`_reduce_few` folds ``x`` over, or None where NumPy's reduction runs
    (another byte order, a bad axis, groups of more than 16, a small array)."""
    if axis is None or type(x) is not np.ndarray or not x.dtype.isnative:
        return None
    axes = checked_axes(axis, x.ndim)
    if axes is None:
        return None
    few = math.prod(x.shape[a] for a in axes)
    return axes if 2 <= few <= 16 and x.size >= 4096 * few else None


def _reduce_few(ufunc, x, axis, keepdims, dtype=None):
    """``ufunc.reduce(x, axis)`` as a loop over the few elements of each group, each step one
    pass over a strided slice; None where the groups are not few (more than 16) or the
    array small. NumPy's reduce over a middle axis of two or four elements (a 2x2 pooling
    window) calls its inner loop once per group, an order of magnitude slower than a few
    passes over strided slices."""
    axes = _folded_axes(x, axis)
    if axes is None:
        return None
    parts = []
    for offsets in itertools.product(*(range(x.shape[a]) for a in axes)):
        index = [slice(None)] * x.ndim
        for a, o in zip(axes, offsets):
            index[a] = slice(o, o + 1) if keepdims else o
        parts.append(x[tuple(index)])
    out = np.empty(parts[0].shape, dtype or x.dtype)  # the first two combined into it: no copy
    ufunc(parts[0], parts[1], out=out, dtype=out.dtype)
    for part in parts[2:]:
        ufunc(out, part, out=out, dtype=out.dtype)
    return out


def _reducer(fun, ufunc=None):
    def impl(x, axis=None, keepdims=False):
        if type(x) is float:
            return x
        if ufunc is not None:
            out = _reduce_few(ufunc, x, axis, keepdims)
            if out is not None:
                return out
        return fun(x, axis=axis, keepdims=keepdims)

    impl.__name__ = fun.__name__
    return impl


def _xp_reducer(name):
    """The reduction ``name`` of an Array API namespace (axes as a tuple, as it takes them)."""

    def form(xp, x, axis=None, keepdims=False):
        return getattr(xp, name)(
            x, axis=tuple(axis) if isinstance(axis, list) else axis, keepdims=keepdims
        )

    return form


def _xp_scan(name):
    """A cumulative sum or product along ``axis`` in an Array API namespace."""

    def form(xp, x, axis):
        return getattr(xp, name)(x, axis=axis)

    return form


# ---------------------------------------------------------------- the table


def reduced_count(x, axis):
    """How many elements each result of a reduction of ``x`` over ``axis`` (None, an int or
    a tuple of them) combines: NumPy's ``rcount``, a Python int."""
    shape = shape_of(x)
    n = 1
    for ax in range(len(shape)) if axis is None else normalize_axes(axis, len(shape)):
        n *= shape[ax]
    return n


def _mean_impl(x, axis=None, keepdims=False):
    # np.mean's float path: the sum, divided by the count in the sum's dtype
    return sum_impl(x, axis=axis, keepdims=keepdims) / float(reduced_count(x, axis))


mean = Primitive(  # of a float array (funcgrad.numpy.mean computes the others itself)
    "mean",
    _mean_impl,
    xp=axis_reduction("mean"),
    # the division on the reduced cotangent, then spread as the sum's: the bits of the sum
    # and the division this primitive stands for
    vjp=(
        lambda g, ans, x, axis=None, keepdims=False: _spread(
            divide(g, float(reduced_count(x, axis))), ans, x, axis, keepdims
        ),
    ),
    jvp=(lambda t, ans, x, axis=None, keepdims=False: mean(t, axis=axis, keepdims=keepdims),),
    batch=batch_reduction,
)
prod = Primitive(
    "prod",
    _reducer(np.prod),
    xp=_xp_reducer("prod"),
    vjp=(
        lambda g, ans, x, axis=None, keepdims=False: (
            _grow(g, x, axis, keepdims) * others_product(x, axis)
        ),
    ),
    jvp=(
        lambda t, ans, x, axis=None, keepdims=False: sum(
            t * others_product(x, axis), axis=axis, keepdims=keepdims
        ),
    ),
    batch=batch_reduction,
)
max = Primitive(
    "max",
    _reducer(np.max, np.maximum),
    xp=_xp_reducer("max"),
    vjp=(
        lambda g, ans, x, axis=None, keepdims=False: (
            _grow(g, x, axis, keepdims) * _tie_weights(x, ans, axis, keepdims)
        ),
    ),
    jvp=(
        lambda t, ans, x, axis=None, keepdims=False: sum(
            t * _tie_weights(x, ans, axis, keepdims), axis=axis, keepdims=keepdims
        ),
    ),
    batch=batch_reduction,
)
min = Primitive(
    "min",
    _reducer(np.min, np.minimum),
    xp=_xp_reducer("min"),
    vjp=max.vjp,
    jvp=max.jvp,
    batch=batch_reduction,
)
cumsum = Primitive(
    "cumsum",
    lambda x, axis: np.cumsum(x, axis=axis),
    xp=_xp_scan("cumulative_sum"),
    vjp=(
        lambda g, ans, x, axis: _flip(
            cumsum(_flip(g, axis % ndim_of(x)), axis=axis), axis % ndim_of(x)
        ),
    ),
    jvp=(lambda t, ans, x, axis: cumsum(t, axis=axis),),
    batch=batch_along_axis,
)
cumprod = Primitive(
    "cumprod",
    lambda x, axis: np.cumprod(x, axis=axis),
    xp=_xp_scan("cumulative_prod"),
    vjp=(_cumprod_vjp,),
    jvp=(_cumprod_jvp,),
    batch=batch_along_axis,
)


# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(mean, structure="reduction", linear="all")
declare(prod, max, min, structure="reduction")
declare(cumsum, structure="cumulative", linear="all")
declare(cumprod, structure="cumulative")
