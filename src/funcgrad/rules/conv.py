"""A convolution layer's product and its two transposes, each a primitive.

In one layout, an input ``x`` of shape ``(N, spatial..., C)`` and a kernel ``w`` of
shape ``(window..., C, O)``, with XLA's options (``strides``, ``padding`` as
``(low, high)`` pairs, ``lhs_dilation``, ``rhs_dilation``; see
:mod:`funcgrad.rules.windows`):

    conv(x, w)                   y = windows(x) @ w, shape (N, positions..., O)
    conv_transpose(g, w, shape)  the transpose of conv in x: x-shaped
    conv_kernel(x, g, window)    the transpose of conv in w: w-shaped

``conv`` is bilinear and so are its transposes; the derivative of each is one of
the three again (``<conv(x, w), g> = <x, conv_transpose(g, w)> = <w,
conv_kernel(x, g)>``), so convolutions differentiate to any order and each
derivative costs about what the forward product costs:

    primitive        cotangent of its first operand   of its second
    ---------------  -------------------------------  ------------------------
    conv             conv_transpose(g, w)             conv_kernel(x, g)
    conv_transpose   conv(h, w)                       conv_kernel(h, g)
    conv_kernel      conv_transpose(g, H)             conv(x, H)

Written as ``windows`` and a product, the input's cotangent would be the product
``g @ w.T`` followed by a scatter-add of every window back into place (a strided
add per window element, over runs of C numbers: a large part of a small CNN's step).
:func:`conv_transpose`'s impl instead computes the product on the padded input's
grid, transposed, so that each window element's share is one contiguous slice of
rows, added in one pass (stride 1, no dilation; any other case takes the scatter).
``conv_kernel`` recomputes the windows of ``x`` (a copy, about a third of the
product's time) rather than keep them alive from the forward pass. All three take
their products a block of about :data:`BLOCK_BYTES` at a time, so the windows they
copy are read back from the cache (a mutable buffer each fills, inside the impl: never
seen outside it).

>>> import numpy as np
>>> x, w = np.arange(5.0).reshape(1, 5, 1), np.array([[[1.0]], [[-1.0]]])
>>> p = dict(strides=(1,), padding=((0, 0),), lhs_dilation=(1,), rhs_dilation=(1,))
>>> conv(x, w, **p)[0, :, 0]
array([-1., -1., -1., -1.])
>>> conv_transpose(np.ones((1, 4, 1)), w, shape=(1, 5, 1), **p)[0, :, 0]
array([ 1.,  0.,  0.,  0., -1.])
"""

import math

import numpy as np

from ..analysis.facts import declare
from ..core.primitive import Primitive
from ..core.values import shape_of
from ..jit import facts as jit_facts
from .arrays import reshape, transpose
from .foreign_windows import conv_form, conv_kernel_form, conv_transpose_form
from .matmul import _matmul_impl, matmul, mT
from .window_shapes import channels_then_taps, taps_then_channels, window_positions
from .windows import _dilated_padded, _unwindows, _windows, unwindows, windows

__all__ = ["conv", "conv_transpose", "conv_kernel", "BLOCK_BYTES"]


def _patch_rows(x, window, strides, padding, lhs_dilation, rhs_dilation):
    """The windows of ``x`` as a ``(positions, taps * C)`` matrix (a view of one copy),
    and the window positions along each axis."""
    k = len(window)
    axes = tuple(range(1, 1 + k))
    patches = _windows(x, axes, window, strides, padding, lhs_dilation, rhs_dilation)
    patches = patches.transpose(taps_then_channels(k))
    return patches.reshape(-1, math.prod(patches.shape[1 + k :])), patches.shape[1 : 1 + k]


# A convolution's windows are copied into a (positions, taps * C) matrix, which BLAS then
# multiplies. Copied whole, that matrix (tens of MB) leaves the cache before the product reads
# it; copied and multiplied a few images at a time, each block of about this many bytes is
# read back from the cache: 20-30% faster for a 16-channel 3x3 layer, and a smaller peak.
BLOCK_BYTES = 2 << 20


def _images_per_block(x, window):
    """How many images of ``x`` one block of windows holds (all of them for a small layer)."""
    per_image = math.prod(x.shape[1:]) * math.prod(window) * x.itemsize
    return max(1, BLOCK_BYTES // max(per_image, 1))


def _blocks(x, window, options):
    """``x``'s images a block at a time, each ``(start, stop, rows, counts)`` with the
    block's window rows (:func:`_patch_rows`); an empty batch is one block of no rows. The
    whole batch is padded (and dilated) once, so each block only takes its windows. The
    rows may be a buffer the next block overwrites: each is used before the next is asked
    for."""
    n, per = x.shape[0], _images_per_block(x, window)
    k = len(window)
    padded = _dilated_padded(
        np.asarray(x), tuple(range(1, 1 + k)), options["padding"], options["lhs_dilation"]
    )
    view = _runs_of_rows(padded, window, options["strides"], options["rhs_dilation"])
    taps = _one_channels_taps(padded, window, options["strides"], options["rhs_dilation"])
    if taps is not None:
        counts, where = taps
        per_image = len(where) * math.prod(counts)
        flat = np.empty(per_image * min(per, n), padded.dtype)

        def take(start, stop):  # the rows transposed: a tap's row is a slice of images
            block = flat[: per_image * (stop - start)].reshape(len(where), stop - start, *counts)
            for row, index in zip(block, where):
                np.copyto(row, padded[(slice(start, stop),) + index + (0,)])
            return block.reshape(len(where), -1).T, counts

    elif view is None:
        ready = {**options, "padding": ((0, 0),) * k, "lhs_dilation": (1,) * k}

        def take(start, stop):
            return _patch_rows(padded[start:stop], window, **ready)

    else:
        counts, columns = view.shape[1 : 1 + k], math.prod(view.shape[1 + k :])
        buffer = np.empty((min(per, n), *view.shape[1:]), padded.dtype)

        def take(start, stop):
            block = buffer[: stop - start]
            np.copyto(block, view[start:stop])
            return block.reshape(-1, columns), counts

    for start in range(0, max(n, 1), per):
        stop = min(n, start + per)
        yield (start, stop, *take(start, stop))


def _runs_of_rows(padded, window, strides, rhs_dilation):
    """The windows of a padded (and dilated) channels-last batch as a strided view
    ``(N, positions..., window[:-1]..., window[-1] * C)``: along the last window axis a
    window reads neighbouring pixels, whose channels lie one after another, so each of
    its rows is one run of ``window[-1] * C`` numbers. Copied, the view's rows are the
    ``(positions, taps * C)`` matrix in the kernel's order, and copying runs of 48
    numbers (a 3-wide window over 16 channels) is faster than copying runs of 16. None
    where that run is not contiguous (a dilated last window axis, an input whose pixels
    are not packed) or where one channel makes the image rows the longer runs
    (:func:`_one_channels_taps`)."""
    c, item = padded.shape[-1], padded.itemsize
    if c < 2 or rhs_dilation[-1] != 1 or padded.strides[-2:] != (c * item, item):
        return None
    k = len(window)
    counts = _positions(padded, window, strides, rhs_dilation)
    if counts is None:
        return None
    steps = padded.strides[1 : 1 + k]
    shape = (padded.shape[0], *counts, *window[:-1], window[-1] * c)
    view_strides = (
        padded.strides[0],
        *(s * st for s, st in zip(steps, strides)),
        *(s * d for s, d in zip(steps[:-1], rhs_dilation[:-1])),
        item,
    )
    return np.lib.stride_tricks.as_strided(padded, shape, view_strides, writeable=False)


def _positions(padded, window, strides, rhs_dilation):
    """The window positions along each spatial axis of a padded batch, or None where the
    window does not fit (the windows' own error then says so)."""
    counts = tuple(
        window_positions(s, w, st, (0, 0), 1, d)
        for s, w, st, d in zip(padded.shape[1:-1], window, strides, rhs_dilation)
    )
    return None if min(counts, default=1) < 1 else counts


def _one_channels_taps(padded, window, strides, rhs_dilation):
    """For a padded batch of one channel: the window positions along each axis and, per
    tap (in C order over the window), the spatial slices of the values it reads; or None
    for more channels. With one channel a window row is a run of a few numbers (3 for a
    3x3 window), but a tap's values over an image row are a run of a whole row: the rows'
    matrix is copied transposed, a slice of the batch per tap (faster for the MNIST CNN's
    first layer, and its kernel's cotangent a product of contiguous rows)."""
    counts = None if padded.shape[-1] != 1 else _positions(padded, window, strides, rhs_dilation)
    if counts is None:
        return None
    where = [
        tuple(
            slice(t * d, t * d + (m - 1) * st + 1, st)
            for t, d, m, st in zip(tap, rhs_dilation, counts, strides)
        )
        for tap in np.ndindex(*window)
    ]
    return counts, where


def _conv_impl(x, w, **options):
    x, w = np.asarray(x), np.asarray(w)
    window, o = w.shape[:-2], w.shape[-1]
    matrix = w.reshape(-1, o)
    n = x.shape[0]
    out = None
    for start, stop, rows, counts in _blocks(x, window, options):  # images are independent
        if stop - start == n:
            return _matmul_impl(rows, matrix).reshape(n, *counts, o)
        if out is None:
            out = np.empty((n, *counts, o), np.result_type(rows, matrix))
        np.matmul(rows, matrix, out=out[start:stop].reshape(-1, o))
    return out


def _conv_kernel_impl(x, g, window, **options):
    x, g = np.asarray(x), np.asarray(g)
    o = g.shape[-1]
    total = None
    for start, stop, rows, _ in _blocks(x, window, options):  # a sum over the positions
        part = rows.T @ g[start:stop].reshape(-1, o)
        total = part if total is None else np.add(total, part, out=total)
    return total.reshape(*window, x.shape[-1], o)


def _conv_transpose_impl(g, w, shape, strides, padding, lhs_dilation, rhs_dilation):
    g, w = np.asarray(g), np.asarray(w)
    k = len(shape) - 2
    window, c, o = w.shape[:-2], w.shape[-2], w.shape[-1]
    if (
        set(strides) | set(lhs_dilation) | set(rhs_dilation) == {1}
        and min(min(pair) for pair in padding) >= 0
        and type(g) is np.ndarray
        and type(w) is np.ndarray
    ):
        return _transpose_on_the_grid(g, w, shape, padding)
    dp = g.reshape(-1, o) @ w.reshape(-1, o).T
    dp = dp.reshape(*g.shape[:-1], *window, c)
    dp = dp.transpose(channels_then_taps(k))
    axes = tuple(range(1, 1 + k))
    return _unwindows(dp, shape, axes, window, strides, padding, lhs_dilation, rhs_dilation)


def _transpose_on_the_grid(g, w, shape, padding):
    """conv_transpose at stride 1: on the padded input's grid (``R`` rows, one per padded
    position, ``g`` at the first positions of each axis and zeros after), window element
    ``j`` sends row ``r``'s share to row ``r + offset(j)``, so each element's shares are
    one contiguous slice. The product is taken transposed, ``(taps * C, R)``, so each
    slice is a run of rows per channel: nine adds for a 3x3 window instead of a strided
    add per window element and position. Rows are taken a block at a time (the block's
    shares stay in the cache while they are added)."""
    n, *sizes, c = shape
    window, o = w.shape[:-2], w.shape[-1]
    grid = [_grid_size(s, m, pad) for s, m, pad in zip(sizes, g.shape[1:-1], padding)]
    rows = n * math.prod(grid)
    spread = np.zeros((n, *grid, o), dtype=g.dtype)
    spread[(slice(None),) + tuple(slice(0, m) for m in g.shape[1:-1])] = g
    spread = spread.reshape(rows, o)
    matrix = w.reshape(-1, o)
    dtype = np.result_type(matrix, spread)
    acc = np.zeros((c, rows), dtype=dtype)
    steps = [math.prod(grid[d + 1 :]) for d in range(len(grid))]
    offsets = [sum(j * step for j, step in zip(taps, steps)) for taps in np.ndindex(*window)]
    block = max(1, BLOCK_BYTES // (matrix.shape[0] * dtype.itemsize))
    for start in range(0, rows, block):
        end = min(rows, start + block)
        shares = (matrix @ spread[start:end].T).reshape(len(offsets), c, end - start)
        for share, offset in zip(shares, offsets):
            stop = min(end + offset, rows)  # shares sent past the grid's last row are padding
            if stop > start + offset:
                acc[:, start + offset : stop] += share[:, : stop - start - offset]
    inside = tuple(slice(lo, lo + s) for s, (lo, _) in zip(sizes, padding))
    acc = acc.reshape(c, n, *grid)[(slice(None), slice(None)) + inside]
    return np.ascontiguousarray(np.moveaxis(acc, 0, -1))


def _grid_size(size, positions, padding):
    """The grid's length along an axis of ``size`` with ``positions`` window positions:
    the padded length would do, but neighbouring lines may share their padding (a share
    sent past the end of a line lands on the next line's low padding, and the high
    padding's shares land past the line's last value), which leaves fewer rows to multiply
    (15 instead of 16 per axis for a 14-wide "SAME" 3x3 layer)."""
    lo, hi = padding
    return max(size + max(lo, hi), positions)


# ---------------------------------------------------------------- the rules


def _window(w):
    return shape_of(w)[:-2]


def _conv_vjp_x(g, ans, x, w, **p):
    return conv_transpose(g, w, shape=shape_of(x), **p)


def _conv_vjp_w(g, ans, x, w, **p):
    return conv_kernel(x, g, window=_window(w), **p)


def _transpose_vjp_g(h, ans, g, w, shape, **p):
    return conv(h, w, **p)


def _transpose_vjp_w(h, ans, g, w, shape, **p):
    return conv_kernel(h, g, window=_window(w), **p)


def _kernel_vjp_x(h, ans, x, g, window, **p):
    return conv_transpose(g, h, shape=shape_of(x), **p)


def _kernel_vjp_g(h, ans, x, g, window, **p):
    return conv(x, h, **p)


# ---------------------------------------------------------------- under vmap


def _rows(x, batched, window, p):
    """``windows(x)`` as ``([B,] positions, taps * C)`` rows, a batch axis kept in front,
    and the window positions along each axis."""
    k = len(window)
    lead = 1 if batched else 0
    patches = windows(x, axes=tuple(range(1 + lead, 1 + lead + k)), window=tuple(window), **p)
    s = shape_of(patches)  # ([B,] N, positions..., C, window...)
    rows = (*s[:lead], math.prod(s[lead : lead + 1 + k]), math.prod(s[lead + 1 + k :]))
    order = taps_then_channels(k, lead)
    return reshape(transpose(patches, axes=order), shape=rows), s[lead + 1 : lead + 1 + k]


def _matrix(w, batched):
    """A kernel ``([B,] window..., C, O)`` as its ``([B,] taps * C, O)`` matrix."""
    s = shape_of(w)
    lead = s[:1] if batched else ()
    return reshape(w, shape=(*lead, math.prod(s[len(lead) : -1]), s[-1]))


def _fold(v):
    """A batch of examples' leading axes folded into one: (B, N, ...) -> (B * N, ...)."""
    s = shape_of(v)
    return reshape(v, shape=(s[0] * s[1], *s[2:]))


def _conv_batch(size, prim, values, batched, params):
    (x, w), (bx, bw) = values, batched
    if not bw:  # examples of x are more images: one convolution
        out = conv(_fold(x), w, **params)
        return reshape(out, shape=(size, shape_of(x)[1], *shape_of(out)[1:]))
    rows, counts = _rows(x, bx, _window(w)[1:], params)
    n = shape_of(x)[1 if bx else 0]
    out = matmul(rows, _matrix(w, True))
    return reshape(out, shape=(size, n, *counts, shape_of(w)[-1]))


def _conv_transpose_batch(size, prim, values, batched, params):
    (g, w), (bg, bw) = values, batched
    shape = params["shape"]
    options = {name: v for name, v in params.items() if name != "shape"}
    if not bw:  # examples of g are more images' cotangents: one transpose
        out = conv_transpose(_fold(g), w, shape=(size * shape[0], *shape[1:]), **options)
        return reshape(out, shape=(size, *shape))
    # a kernel per example: the product per example, then the windows' scatter-add
    window, (c, o) = _window(w)[1:], shape_of(w)[-2:]
    k = len(window)
    counts = shape_of(g)[2 if bg else 1 : -1]
    positions = shape[0] * math.prod(counts)
    gs = reshape(g, shape=(size, positions, o) if bg else (positions, o))
    shares = matmul(gs, mT(_matrix(w, True)))  # (B, positions, taps * C)
    shares = reshape(shares, shape=(size, shape[0], *counts, *window, c))
    return unwindows(
        transpose(shares, axes=channels_then_taps(k, lead=1)),
        shape=shape,
        axes=tuple(range(1, 1 + k)),
        window=window,
        **options,
    )


def _conv_kernel_batch(size, prim, values, batched, params):
    (x, g), (bx, bg) = values, batched
    options = {name: v for name, v in params.items() if name != "window"}
    rows, counts = _rows(x, bx, params["window"], options)
    o = shape_of(g)[-1]
    positions = shape_of(x)[1 if bx else 0] * math.prod(counts)
    gs = reshape(g, shape=(size, positions, o) if bg else (positions, o))
    out = matmul(mT(rows), gs)
    return reshape(out, shape=(size, *params["window"], shape_of(x)[-1], o))


conv = Primitive(
    "conv",
    _conv_impl,
    vjp=(_conv_vjp_x, _conv_vjp_w),
    jvp=(
        lambda t, ans, x, w, **p: conv(t, w, **p),
        lambda t, ans, x, w, **p: conv(x, t, **p),
    ),
    batch=_conv_batch,
    xp=conv_form,
)

conv_transpose = Primitive(
    "conv_transpose",
    _conv_transpose_impl,
    vjp=(_transpose_vjp_g, _transpose_vjp_w),
    jvp=(
        lambda t, ans, g, w, shape, **p: conv_transpose(t, w, shape=shape, **p),
        lambda t, ans, g, w, shape, **p: conv_transpose(g, t, shape=shape, **p),
    ),
    batch=_conv_transpose_batch,
    xp=conv_transpose_form,
)

conv_kernel = Primitive(
    "conv_kernel",
    _conv_kernel_impl,
    vjp=(_kernel_vjp_x, _kernel_vjp_g),
    jvp=(
        lambda t, ans, x, g, window, **p: conv_kernel(t, g, window=window, **p),
        lambda t, ans, x, g, window, **p: conv_kernel(x, t, window=window, **p),
    ),
    batch=_conv_kernel_batch,
    xp=conv_kernel_form,
)

# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(conv, conv_transpose, conv_kernel, linear="each", structure="convolution")
# What jit reads (funcgrad/jit/facts.py): each returns a new array, which a plan may reuse.
jit_facts.declare(conv, conv_transpose, conv_kernel, fresh=True)
