"""Windows and convolutions on other libraries' arrays, on their devices.

The forms of :mod:`funcgrad.rules.windows` and :mod:`funcgrad.rules.conv` in
an Array API namespace. The standard has no padding, no strided assignment and
no convolution, so the windows are strided slices (one per window element)
stacked, the padding and the input dilation are zeros joined on with
``concat``, and a window's transpose places each element's slice back by
interleaving zeros; a convolution is the windows and one ``matmul``. On PyTorch's
tensors its own convolutions run instead where they apply
(:mod:`funcgrad.kernels.torch_forms`).

>>> import numpy as np
>>> import array_api_strict as xs
>>> x = xs.asarray(np.arange(5.0))
>>> p = dict(axes=(0,), window=(3,), strides=(1,), padding=((0, 0),), lhs_dilation=(1,),
...          rhs_dilation=(1,))
>>> np.from_dlpack(windows_form(xs, x, **p))
array([[0., 1., 2.],
       [1., 2., 3.],
       [2., 3., 4.]])
"""

import itertools
import math

from .window_shapes import channels_then_taps, taps_then_channels, window_counts

__all__ = [
    "windows_form",
    "unwindows_form",
    "conv_form",
    "conv_transpose_form",
    "conv_kernel_form",
]


def _zeros(xp, like, shape):
    return xp.zeros(tuple(shape), dtype=like.dtype, device=getattr(like, "device", None))


def _spread(xp, x, axis, step):
    """``x`` with ``step - 1`` zeros between neighbours along ``axis``."""
    if step == 1 or x.shape[axis] == 0:
        return x
    n = x.shape[axis]
    parts = [xp.expand_dims(x, axis=axis + 1)]
    shape = list(parts[0].shape)
    shape[axis + 1] = step - 1
    parts.append(_zeros(xp, x, shape))
    spread = xp.concat(parts, axis=axis + 1)
    merged = list(x.shape)
    merged[axis] = n * step
    spread = xp.reshape(spread, tuple(merged))
    return _cut(spread, axis, 0, (n - 1) * step + 1)


def _cut(x, axis, start, stop, step=1):
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop, step)
    return x[tuple(index)]


def _pad(xp, x, axis, low, high):
    """Zeros joined on before and after along ``axis``; a negative amount crops."""
    x = _cut(x, axis, max(-low, 0), x.shape[axis] - max(-high, 0))
    parts = []
    for amount in (max(low, 0), max(high, 0)):
        shape = list(x.shape)
        shape[axis] = amount
        parts.append(_zeros(xp, x, shape) if amount else None)
    joined = [p for p in (parts[0], x, parts[1]) if p is not None]
    return xp.concat(joined, axis=axis) if len(joined) > 1 else x


def windows_form(xp, x, axes, window, strides, padding, lhs_dilation, rhs_dilation):
    counts = window_counts(
        tuple(x.shape), axes, window, strides, padding, lhs_dilation, rhs_dilation, "windows"
    )
    for a, d, (lo, hi) in zip(axes, lhs_dilation, padding):
        x = _pad(xp, _spread(xp, x, a, d), a, lo, hi)
    taken = []
    for offsets in itertools.product(*map(range, window)):
        part = x
        for a, j, s, n, d in zip(axes, offsets, strides, counts, rhs_dilation):
            part = _cut(part, a, j * d, j * d + (n - 1) * s + 1, s)
        taken.append(part)
    stacked = xp.stack(taken, axis=-1)
    return xp.reshape(stacked, (*stacked.shape[:-1], *window))


def unwindows_form(xp, g, shape, axes, window, strides, padding, lhs_dilation, rhs_dilation):
    counts = window_counts(
        shape, axes, window, strides, padding, lhs_dilation, rhs_dilation, "unwindows"
    )
    lead = g.ndim - len(shape) - len(window)  # batch axes in front (vmap's)
    axes_g = [lead + a for a in axes]
    full = list(g.shape[:lead]) + list(shape)
    padded = list(full)
    for a, ld, (lo, hi) in zip(axes_g, lhs_dilation, padding):
        padded[a] = (full[a] - 1) * ld + 1 + lo + hi
    flat = xp.reshape(g, (*g.shape[: g.ndim - len(window)], math.prod(window)))
    total = None
    for k, offsets in enumerate(itertools.product(*map(range, window))):
        part = flat[..., k]
        for a, j, s, n, d in zip(axes_g, offsets, strides, counts, rhs_dilation):
            part = _spread(xp, part, a, s)  # back to every position of the padded axis
            part = _pad(xp, part, a, j * d, padded[a] - j * d - ((n - 1) * s + 1))
        total = part if total is None else total + part
    # back from padded, dilated coordinates to the input's
    for a, ld, (lo, hi) in zip(axes_g, lhs_dilation, padding):
        total = _pad(xp, total, a, -lo, -hi)
        total = _cut(total, a, 0, total.shape[a], ld)
    return total


# ---------------------------------------------------------------- the convolution's three


def _rows(xp, x, window, options):
    """``x``'s windows as ``(positions, taps * C)`` rows and the positions per axis."""
    k = len(window)
    p = windows_form(xp, x, tuple(range(1, 1 + k)), window, **options)
    p = xp.permute_dims(p, taps_then_channels(k))
    counts = tuple(p.shape[1 : 1 + k])
    return xp.reshape(p, (-1, math.prod(p.shape[1 + k :]))), counts


def conv_form(xp, x, w, **options):
    rows, counts = _rows(xp, x, tuple(w.shape[:-2]), options)
    o = w.shape[-1]
    return xp.reshape(xp.matmul(rows, xp.reshape(w, (-1, o))), (x.shape[0], *counts, o))


def conv_kernel_form(xp, x, g, window, **options):
    rows, _ = _rows(xp, x, tuple(window), options)
    o = g.shape[-1]
    product = xp.matmul(xp.matrix_transpose(rows), xp.reshape(g, (-1, o)))
    return xp.reshape(product, (*window, x.shape[-1], o))


def conv_transpose_form(xp, g, w, shape, **options):
    k = len(shape) - 2
    window, c, o = tuple(w.shape[:-2]), w.shape[-2], w.shape[-1]
    shares = xp.matmul(xp.reshape(g, (-1, o)), xp.matrix_transpose(xp.reshape(w, (-1, o))))
    shares = xp.reshape(shares, (*g.shape[:-1], *window, c))
    shares = xp.permute_dims(shares, channels_then_taps(k))
    return unwindows_form(xp, shares, shape, tuple(range(1, 1 + k)), window, **options)
