"""Pooling: the maximum or the mean of every window, with convolutions' options.

``max_pool`` and ``avg_pool`` have flax's signatures (``window_shape``,
``strides``, ``padding``, the input channels-last: batch, spatial..., features)
and take ``data_format`` for other layouts (``"NCHW"``, ``"NCW"``,
``"NCDHW"``, or any string naming N, C and the spatial axes). Padding is
``"VALID"``, ``"SAME"`` or ``(low, high)`` pairs; ``dilation`` spaces a window's
elements. A max pool pads with -inf, so padding never wins; an average pool
pads with zeros and divides by the whole window unless
``count_include_pad=False``, which divides by the elements that are inside.

Each is the gather of every window (:mod:`funcgrad.rules.windows`) followed by
a reduction over the window's axes, so both differentiate (a max pool's
gradient goes to the window's first maximum, as JAX's and PyTorch's do:
:mod:`funcgrad.rules.window_extrema`), batch and nest like any other function.

>>> import numpy as np
>>> import funcgrad as fg
>>> x = np.arange(16.0).reshape(1, 4, 4, 1)               # N, H, W, C
>>> fg.nn.max_pool(x, (2, 2), strides=(2, 2))[0, :, :, 0]
array([[ 5.,  7.],
       [13., 15.]])
>>> float(fg.nn.avg_pool(x, (2, 2), strides=(1, 1), padding="SAME")[0, 3, 3, 0])   # 15 / 4
3.75
"""

import numpy as np

from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.values import dtype_of, shape_of
from ..numpy import pad, reshape, sum
from ..rules.window_extrema import window_max
from ..rules.windows import window_counts, windows
from .convolution import _tuple, padding_pairs

__all__ = ["max_pool", "avg_pool", "pool_axes"]


def pool_axes(ndim, k, data_format, who):
    """The spatial axes of a pooled input of ``ndim`` axes with ``k`` window axes: channels
    last by default (flax), or as ``data_format`` names them ("NCHW", "NHWC", ...)."""
    if data_format is None:
        if ndim < k + 1:
            raise ArgumentError(
                f"{who}: a window of {k} axes needs an input of at least {k + 1} "
                f"axes (batch or features, then spatial); got {ndim}"
            )
        return tuple(range(ndim - 1 - k, ndim - 1))  # features last, batch axes first
    spec = str(data_format).upper()
    spatial = [i for i, c in enumerate(spec) if c not in "NC"]
    if len(spec) != ndim or len(spatial) != k or len(set(spec)) != len(spec):
        raise ArgumentError(
            f"{who}: data_format {data_format!r} does not name the {ndim} axes "
            f"of the input with {k} spatial ones, e.g. 'NHWC' or 'NCHW'"
        )
    return tuple(spatial)


def _setup(x, window_shape, strides, padding, dilation, data_format, who):
    try:
        window = tuple(int(k) for k in window_shape)
    except (TypeError, ValueError):
        raise ArgumentTypeError(
            f"{who}: window_shape must be a sequence of ints, one per spatial "
            f"axis, e.g. (2, 2); got {window_shape!r}"
        ) from None
    if not window or any(k < 1 for k in window):
        raise ArgumentError(
            f"{who}: window_shape needs one size of at least 1 per spatial axis; "
            f"got {window_shape!r}"
        )
    k = len(window)
    shape = shape_of(x)
    axes = pool_axes(len(shape), k, data_format, who)
    strides = _tuple(strides, k, who, "strides")
    dilation = _tuple(dilation, k, who, "dilation")
    ones = (1,) * k
    pads = padding_pairs(padding, [shape[a] for a in axes], window, strides, ones, dilation, who)
    params = {
        "axes": axes,
        "window": window,
        "strides": strides,
        "lhs_dilation": ones,
        "rhs_dilation": dilation,
    }
    window_counts(shape, axes, window, strides, pads, ones, dilation, who)
    return params, pads, tuple(range(len(shape), len(shape) + k))


def _padded(x, axes, pads, value):
    widths = [(0, 0)] * len(shape_of(x))
    for a, p in zip(axes, pads):
        widths[a] = p
    return pad(x, widths, constant_values=value)


def _tiles(x, params, pads):
    """Where windows tile the input (stride = window, no padding, no dilation): ``x`` cropped
    to whole tiles and reshaped so each tile has axes of its own, and those axes; else None.
    A view, where the windows would be a copy: the common 2x2 pool is four times cheaper."""
    window, axes = params["window"], params["axes"]
    if (
        params["strides"] != window
        or any(d != 1 for d in params["rhs_dilation"])
        or any(p != (0, 0) for p in pads)
    ):
        return None
    shape = shape_of(x)
    crop = tuple(
        slice(0, shape[a] // window[axes.index(a)] * window[axes.index(a)])
        if a in axes
        else slice(None)
        for a in range(len(shape))
    )
    if any(shape[a] % window[j] for j, a in enumerate(axes)):
        x = x[crop]
    split, tile_axes = [], []
    for a, n in enumerate(shape):
        if a in axes:
            k = window[axes.index(a)]
            split += [n // k, k]
            tile_axes.append(len(split) - 1)
        else:
            split.append(n)
    return reshape(x, tuple(split)), tuple(tile_axes)


def max_pool(inputs, window_shape, strides=None, padding="VALID", dilation=None, data_format=None):
    """The maximum of every window (flax's ``nn.max_pool``); see the module docstring.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> x = np.array([[1.0, 3.0, 2.0, 5.0]])[..., None]         # N, W, C
    >>> fg.nn.max_pool(x, (2,), strides=(1,))[..., 0]
    array([[3., 3., 5.]])
    >>> fg.grad(lambda v: fg.nn.max_pool(v, (2,), strides=(2,)).sum())(x)[..., 0]
    array([[0., 1., 0., 1.]])
    """
    params, pads, window_axes = _setup(
        inputs, window_shape, strides, padding, dilation, data_format, "max_pool"
    )
    tiles = _tiles(inputs, params, pads)
    if tiles is not None:
        return window_max(tiles[0], axis=tiles[1])
    x = inputs
    if any(p != (0, 0) for p in pads):  # padding that never wins: the dtype's least
        kind = dtype_of(x)
        lowest = (
            -np.inf if kind.kind in "fc" else np.iinfo(kind).min if kind.kind in "iu" else False
        )
        x = _padded(x, params["axes"], pads, lowest)
    patches = windows(x, padding=((0, 0),) * len(pads), **params)
    return window_max(patches, axis=window_axes)


def avg_pool(
    inputs,
    window_shape,
    strides=None,
    padding="VALID",
    dilation=None,
    count_include_pad=True,
    data_format=None,
):
    """The mean of every window (flax's ``nn.avg_pool``); see the module docstring.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> x = np.array([[1.0, 3.0, 2.0, 6.0]])[..., None]         # N, W, C
    >>> fg.nn.avg_pool(x, (2,), strides=(2,))[..., 0]
    array([[2., 4.]])
    >>> fg.nn.avg_pool(x, (3,), strides=(1,), padding="SAME", count_include_pad=False)[..., 0]
    array([[2.        , 2.        , 3.66666667, 4.        ]])
    """
    params, pads, window_axes = _setup(
        inputs, window_shape, strides, padding, dilation, data_format, "avg_pool"
    )
    tiles = _tiles(inputs, params, pads)
    if tiles is not None:
        return sum(tiles[0], axis=tiles[1]) / float(np.prod(params["window"]))
    totals = sum(windows(inputs, padding=pads, **params), axis=window_axes)
    if count_include_pad or all(p == (0, 0) for p in pads):
        return totals / float(np.prod(params["window"]))
    inside = windows(np.ones(shape_of(inputs)), padding=pads, **params)  # a constant
    return totals / sum(inside, axis=window_axes)
