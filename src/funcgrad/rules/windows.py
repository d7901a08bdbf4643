"""Sliding windows and their transpose: the gather beneath convolutions and pooling.

``windows(x, axes=..., window=..., ...)`` lays out every window of ``x`` along
``axes``: the result has ``x``'s axes, those in ``axes`` replaced by the number
of window positions, then one axis per window dimension at the end. Before the
windows are taken, ``x`` may be dilated (``lhs_dilation - 1`` zeros between
neighbours) and padded with zeros (``padding``: a ``(low, high)`` pair per axis;
negative values crop); windows step by ``strides`` and read every
``rhs_dilation``-th element. These are the options of XLA's convolution, so a
convolution is ``windows`` followed by one contraction with the kernel, and a
pooling is ``windows`` followed by a reduction over the window axes.

``windows`` is linear, and its transpose ``unwindows`` adds each window's
cotangent back where the window was read (and drops what fell in the padding
or the dilation's holes); each is the other's derivative, so convolutions and
pooling differentiate to any order through these two and the contraction's
own rules.

Position ``o`` of a window axis, element ``j`` of the window, reads the
padded, dilated input at ``o * stride + j * rhs_dilation``.

>>> import numpy as np
>>> x = np.arange(5.0)
>>> windows(x, axes=(0,), window=(3,), strides=(1,), padding=((0, 0),),
...         lhs_dilation=(1,), rhs_dilation=(1,))
array([[0., 1., 2.],
       [1., 2., 3.],
       [2., 3., 4.]])
>>> windows(x, axes=(0,), window=(2,), strides=(2,), padding=((1, 0),),
...         lhs_dilation=(1,), rhs_dilation=(2,))
array([[0., 1.],
       [1., 3.]])
"""

import itertools
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..analysis.facts import declare
from ..core.primitive import Primitive
from ..core.values import shape_of
from .foreign_windows import unwindows_form, windows_form
from .window_shapes import window_counts, window_positions

# window_positions and window_counts live in rules.window_shapes (the forms on other
# libraries count too); they are imported from here as well
__all__ = ["windows", "unwindows", "window_positions", "window_counts"]


def _dilated_padded(x, axes, padding, lhs_dilation):
    """``x`` with zeros between neighbours along ``axes`` and zeros (or crops) at the ends."""
    if any(d > 1 for d in lhs_dilation):
        shape = list(x.shape)
        for a, d in zip(axes, lhs_dilation):
            shape[a] = (shape[a] - 1) * d + 1
        spread = np.zeros(shape, dtype=x.dtype)
        index = [slice(None)] * x.ndim
        for a, d in zip(axes, lhs_dilation):
            index[a] = slice(None, None, d)
        spread[tuple(index)] = x
        x = spread
    pads = [(0, 0)] * x.ndim
    crop = [slice(None)] * x.ndim
    for a, (lo, hi) in zip(axes, padding):
        pads[a] = (max(lo, 0), max(hi, 0))
        crop[a] = slice(max(-lo, 0), x.shape[a] - max(-hi, 0) + max(lo, 0) + max(hi, 0))
    if any(p != (0, 0) for p in pads):
        x = np.pad(x, pads)
    return x[tuple(crop)]


def _windows(x, axes, window, strides, padding, lhs_dilation, rhs_dilation):
    x = np.asarray(x)
    counts = window_counts(
        x.shape, axes, window, strides, padding, lhs_dilation, rhs_dilation, "windows"
    )
    y = _dilated_padded(x, axes, padding, lhs_dilation)
    reach = [(k - 1) * d + 1 for k, d in zip(window, rhs_dilation)]
    view = sliding_window_view(y, reach, axis=axes)
    index = [slice(None)] * view.ndim
    for a, s, n in zip(axes, strides, counts):
        index[a] = slice(0, (n - 1) * s + 1, s)
    for i, d in enumerate(rhs_dilation):
        index[x.ndim + i] = slice(None, None, d)
    return _copy_in_reading_order(view[tuple(index)], x.ndim, max(axes))


def _copy_in_reading_order(view, ndim, last):
    """A copy of the windows whose memory holds each window's elements before the axes
    after the last window axis (a channels-last image's channels): copying runs of
    channels is 7x faster than runs of 3 window taps, and a convolution then reads
    (window, channels) as one contiguous row. The result has the axes the module
    docstring says, as a transposed view of that copy. Where nothing follows (one
    channel), the window's elements come first instead: each copied run is then a row of
    the image, 7x faster again, and a (positions, taps) matrix is still a plain (column
    major) view that BLAS reads as it is."""
    k = view.ndim - ndim
    if math.prod(view.shape[last + 1 : ndim]) == 1:
        order = (*range(ndim, ndim + k), *range(ndim))
    else:
        order = (*range(last + 1), *range(ndim, ndim + k), *range(last + 1, ndim))
    if order == tuple(range(view.ndim)):
        return np.ascontiguousarray(view)
    return np.ascontiguousarray(view.transpose(order)).transpose(np.argsort(order))


def _unwindows(g, shape, axes, window, strides, padding, lhs_dilation, rhs_dilation):
    """The transpose of :func:`_windows`: each window's entries added back into ``shape``."""
    g = np.asarray(g)
    counts = window_counts(
        shape, axes, window, strides, padding, lhs_dilation, rhs_dilation, "unwindows"
    )
    lead = g.ndim - len(shape) - len(window)  # batch axes in front (vmap's)
    full = list(g.shape[:lead]) + list(shape)
    axes_g = [lead + a for a in axes]
    padded = list(full)
    for a, ld, (lo, hi) in zip(axes_g, lhs_dilation, padding):
        padded[a] = (full[a] - 1) * ld + 1 + lo + hi
    acc = np.zeros(padded, dtype=g.dtype)
    for offsets in itertools.product(*map(range, window)):
        index = [slice(None)] * len(padded)
        for a, j, s, n, rd in zip(axes_g, offsets, strides, counts, rhs_dilation):
            index[a] = slice(j * rd, j * rd + (n - 1) * s + 1, s)
        acc[tuple(index)] += g[(Ellipsis,) + offsets]
    # back from padded, dilated coordinates to the input's
    take, put = [slice(None)] * len(full), [slice(None)] * len(full)
    for a, ld, (lo, _) in zip(axes_g, lhs_dilation, padding):
        dilated = (full[a] - 1) * ld + 1
        first = max(-lo, 0)  # first dilated coordinate kept
        last = min(dilated, padded[a] - lo)  # one past the last
        first += (-first) % ld  # on a real element, not a hole
        take[a] = slice(first + lo, last + lo, ld)
        put[a] = slice(first // ld, first // ld + len(range(first, last, ld)))
    if all(len(range(*p.indices(n))) == n for p, n in zip(put, full)):
        return np.ascontiguousarray(acc[tuple(take)])  # every element read: no zeros to keep
    out = np.zeros(full, dtype=g.dtype)
    out[tuple(put)] = acc[tuple(take)]
    return out


def _params(axes, window, strides, padding, lhs_dilation, rhs_dilation):
    return {
        "axes": axes,
        "window": window,
        "strides": strides,
        "padding": padding,
        "lhs_dilation": lhs_dilation,
        "rhs_dilation": rhs_dilation,
    }


def _windows_vjp(g, ans, x, axes, window, strides, padding, lhs_dilation, rhs_dilation):
    return unwindows(
        g, shape=shape_of(x), **_params(axes, window, strides, padding, lhs_dilation, rhs_dilation)
    )


def _unwindows_vjp(g, ans, c, shape, **params):
    return windows(g, **params)


def _shifted(params):
    """The same windows for a value with a batch axis in front."""
    return {**params, "axes": tuple(a + 1 for a in params["axes"])}


windows = Primitive(
    "windows",
    _windows,
    vjp=(_windows_vjp,),
    jvp=(lambda t, ans, x, **params: windows(t, **params),),
    batch=lambda size, prim, values, batched, params: windows(values[0], **_shifted(params)),
    xp=windows_form,
)

unwindows = Primitive(
    "unwindows",
    _unwindows,
    vjp=(_unwindows_vjp,),
    jvp=(lambda t, ans, c, **params: unwindows(t, **params),),
    # a batch axis in front of the cotangent is carried through as a leading axis
    batch=lambda size, prim, values, batched, params: unwindows(values[0], **params),
    xp=unwindows_form,
)

# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(windows, unwindows, structure="moves", linear="each")
