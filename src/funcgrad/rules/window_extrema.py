"""A window's maximum and minimum, whose derivative goes to the window's first extremum.

    primitive                  value                     reverse rule
    -------------------------  ------------------------  -----------------------------------
    window_max, window_min     extremum along the axes   g to the first element (in C order
                               of each window            over the axes) equal to the extremum
    first_extremum(x, top)     1 there, 0 elsewhere      none: piecewise constant
    window_cotangent(g, x, t)  g there, 0 elsewhere      g: the window sums of h at the same
                               (the reverse rule above)  places; x, t: none

Pooling and ``lax.reduce_window`` reduce each window with these. Their values are
``fnp.max``'s and ``fnp.min``'s; only ties differ: ``fnp.max`` shares the cotangent
equally between the elements that tie (as ``jnp.max`` does), while a window's goes to
its first one, as XLA's ``select_and_scatter`` gives JAX's ``reduce_window`` and as
PyTorch's ``max_pool2d`` does (a window of zeros after a ReLU is common). A window
whose extremum is NaN gives it to its first NaN (the libraries differ there). It is also
less work: over a pooling window's few elements the mask is a pass per element.

>>> import numpy as np
>>> import funcgrad as fg
>>> from funcgrad.rules.window_extrema import window_max
>>> x = np.zeros((2, 2))                                  # two windows of two tied zeros
>>> fg.grad(lambda v: window_max(v, axis=(1,)).sum())(x)
array([[1., 0.],
       [1., 0.]])
"""

import itertools
import math

import numpy as np

from ..analysis.facts import ALL, declare
from ..core.primitive import Primitive
from ..core.values import normalize_axes, plain, shape_of
from ..jit import facts as jit_facts
from .arrays import batch_reduction, restore_reduced_axes, sum
from .elementwise import real_dtype_of
from .reductions import _reducer, _xp_reducer, batch_axes_shifted, mask_primitive

__all__ = ["window_max", "window_min", "first_extremum", "window_cotangent"]

_FEW = 16  # windows of up to this many elements take a pass per element


def _each_first(x, top, axis):
    """For a window of few elements: each element's index and whether it is its window's
    first extremum, one element at a time (a pass over a slice of ``x`` each). Each mask
    is read before the next is asked for: the masks share their arrays."""
    found = None
    nan_top = _nan_windows(x, top)
    elements = list(itertools.product(*(range(x.shape[a]) for a in axis)))
    for k, offsets in enumerate(elements):
        index = [slice(None)] * x.ndim
        for a, o in zip(axis, offsets):
            index[a] = slice(o, o + 1)
        index = tuple(index)
        hit = np.equal(x[index], top)
        if nan_top is not None:
            hit |= np.isnan(x[index]) & nan_top
        if found is None:
            found = hit
            yield index, hit
            continue
        np.greater(hit, found, out=hit)  # a hit in a window none before it hit
        yield index, hit
        if k + 1 < len(elements):
            found |= hit  # found is the first mask, which its caller has read by now


def _nan_windows(x, top):
    """Where a window's extremum is NaN (its first NaN then takes the cotangent, as the
    extremum NumPy reports is that NaN), or None where there is none."""
    if np.asarray(x).dtype.kind not in "fc":
        return None
    nan_top = np.isnan(top)
    return nan_top if nan_top.any() else None


def _first_extremum_impl(x, top, axis):
    x = np.asarray(x)
    dtype = real_dtype_of(x)
    if math.prod(x.shape[a] for a in axis) <= _FEW:
        out = np.empty(x.shape, dtype)
        for index, first in _each_first(x, top, axis):
            out[index] = first
        return out
    hits = np.equal(x, top)  # top keeps the reduced axes
    nan_top = _nan_windows(x, top)
    if nan_top is not None:
        hits |= np.isnan(x) & nan_top
    # many elements per window: the window's axes last, the first hit found by argmax
    kept = [a for a in range(x.ndim) if a not in axis]
    moved = hits.transpose(kept + list(axis)).reshape([x.shape[a] for a in kept] + [-1])
    first = np.argmax(moved, axis=-1)[..., None]
    mask = np.zeros(moved.shape, dtype)
    np.put_along_axis(mask, first, np.take_along_axis(moved, first, axis=-1), axis=-1)
    mask = mask.reshape([x.shape[a] for a in kept] + [x.shape[a] for a in axis])
    return mask.transpose(np.argsort(kept + list(axis)))


def _xp_first_extremum(xp, x, top, axis):
    """The mask in the Array API's functions: the window's axes last, flattened, and a 1
    where the first hit's index (argmax of the hits: every window has one) is."""
    nd = x.ndim
    kept = [a for a in range(nd) if a not in axis]
    same = x == top
    if xp.isdtype(x.dtype, "real floating"):  # a NaN window: its first NaN
        same = same | (xp.isnan(x) & xp.isnan(top))
    hits = xp.permute_dims(same, tuple(kept + list(axis)))
    shape = hits.shape
    flat = xp.reshape(hits, (*shape[: len(kept)], -1))
    first = xp.argmax(xp.astype(flat, xp.int8), axis=-1, keepdims=True)
    where = xp.arange(flat.shape[-1], device=x.device) == first
    mask = xp.astype(where, xp.float32 if x.dtype == xp.float32 else xp.float64)
    back = [0] * nd
    for position, a in enumerate(kept + list(axis)):
        back[a] = position
    return xp.permute_dims(xp.reshape(mask, shape), tuple(back))


first_extremum = mask_primitive("first_extremum", _first_extremum_impl, _xp_first_extremum)
"""``first_extremum(x, top, axis=axes)``: 1 at the first element (in C order over
``axes``) of each group of ``x`` equal to ``top`` (the group's extremum, reduced axes
kept), 0 elsewhere."""


def _window_cotangent_impl(g, x, top, axis):
    x, g = np.asarray(x), np.asarray(g)
    dtype = np.result_type(g, real_dtype_of(x))
    if math.prod(x.shape[a] for a in axis) <= _FEW:  # g at each window's first extremum
        out = np.empty(x.shape, dtype)
        for index, first in _each_first(x, top, axis):
            np.multiply(g, first, out=out[index])
        return out
    return np.multiply(g, _first_extremum_impl(x, top, axis), dtype=dtype)


def _window_cotangent_vjp(h, ans, g, x, top, axis):
    return sum(h * first_extremum(x, top, axis=axis), axis=axis, keepdims=True)


window_cotangent = Primitive(
    "window_cotangent",
    _window_cotangent_impl,
    xp=lambda xp, g, x, top, axis: g * _xp_first_extremum(xp, x, top, axis),
    vjp=(_window_cotangent_vjp, None, None),
    jvp=(lambda t, ans, g, x, top, axis: window_cotangent(t, x, top, axis=axis), None, None),
    batch=batch_axes_shifted,
)
"""``window_cotangent(g, x, top, axis=axes)``: ``g`` (a window's cotangent, reduced axes
kept) at each window's first element equal to ``top``, zeros elsewhere: a window
extremum's reverse rule in one pass per window element."""


def _top(x, ans, axis, keepdims):
    px = plain(x)
    axes = tuple(normalize_axes(axis, len(shape_of(px))))
    return px, restore_reduced_axes(plain(ans), px, axis, keepdims), axes


def _mask(x, ans, axis, keepdims):
    px, top, axes = _top(x, ans, axis, keepdims)
    return first_extremum(px, top, axis=axes)


def _vjp(g, ans, x, axis=None, keepdims=False):
    px, top, axes = _top(x, ans, axis, keepdims)
    return window_cotangent(restore_reduced_axes(g, x, axis, keepdims), px, top, axis=axes)


def _jvp(t, ans, x, axis=None, keepdims=False):
    return sum(t * _mask(x, ans, axis, keepdims), axis=axis, keepdims=keepdims)


window_max = Primitive(
    "window_max",
    _reducer(np.max, np.maximum),
    xp=_xp_reducer("max"),
    vjp=(_vjp,),
    jvp=(_jvp,),
    batch=batch_reduction,
)
window_min = Primitive(
    "window_min",
    _reducer(np.min, np.minimum),
    xp=_xp_reducer("min"),
    vjp=(_vjp,),
    jvp=(_jvp,),
    batch=batch_reduction,
)
declare(window_max, window_min, structure="reduction")
declare(first_extremum, flat=ALL)
declare(window_cotangent, flat=(1, 2))
# each returns a new array (never a view of an operand): a plan may write into it (out=)
jit_facts.declare(window_max, window_min, window_cotangent, first_extremum, fresh=True)
