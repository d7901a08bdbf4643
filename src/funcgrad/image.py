"""``fg.image``: JAX's image resizing (``resize``, ``scale_and_translate``).

Every method but ``nearest`` is separable: along each resized axis the output
is a weighted sum of the input, the weights a kernel (``linear``'s triangle,
``cubic``'s Keys kernel with a = -0.5, ``lanczos3`` and ``lanczos5``) read at
each output sample's position in the input, normalized to sum to one, and, when
shrinking with ``antialias``, widened by the shrink factor so that every input
element counts. The weights are a constant matrix per axis, so the result is
one contraction per axis: it differentiates, batches and compiles as any
``funcgrad.numpy`` code. ``nearest`` picks the input element under each
output's centre. The values are JAX's (the same sampling, kernels and
normalization).

>>> import numpy as np
>>> import funcgrad as fg
>>> fg.image.resize(np.array([0.0, 1.0]), (4,), "linear")
array([0.  , 0.25, 0.75, 1.  ])
>>> fg.image.resize(np.arange(4.0), (2,), "nearest")
array([1., 3.])
"""

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import numpy as fnp
from .core.errors import ArgumentError
from .core.values import dtype_of, shape_of

__all__ = ["resize", "scale_and_translate", "ResizeMethod"]


def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _keys_cubic(x):
    x = np.abs(x)
    near = ((1.5 * x - 2.5) * x) * x + 1.0
    far = ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return np.where(x >= 2.0, 0.0, np.where(x >= 1.0, far, near))


def _lanczos(radius):
    def kernel(x):
        y = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius)
        safe = np.where(x == 0.0, 1.0, np.pi * np.pi * x * x)
        return np.where(np.abs(x) >= radius, 0.0, np.where(x == 0.0, 1.0, y / safe))

    return kernel


_KERNELS = {
    "linear": _triangle,
    "bilinear": _triangle,
    "trilinear": _triangle,
    "triangle": _triangle,
    "cubic": _keys_cubic,
    "bicubic": _keys_cubic,
    "tricubic": _keys_cubic,
    "lanczos3": _lanczos(3.0),
    "lanczos5": _lanczos(5.0),
}


class ResizeMethod:
    """The method names (JAX's ``jax.image.ResizeMethod``, as strings).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> fg.image.resize(np.array([0.0, 1.0]), (4,), fg.image.ResizeMethod.LINEAR)
    array([0.  , 0.25, 0.75, 1.  ])
    """

    NEAREST = "nearest"
    LINEAR = "linear"
    CUBIC = "cubic"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"


def _weights(n_in, n_out, scale, translation, kernel, antialias):
    """The (n_in, n_out) matrix taking an axis of ``n_in`` samples to ``n_out``."""
    inv_scale = 1.0 / scale
    widen = max(inv_scale, 1.0) if antialias else 1.0
    sample = (np.arange(n_out) + 0.5) * inv_scale - translation * inv_scale - 0.5
    w = kernel(np.abs(sample[None, :] - np.arange(n_in)[:, None]) / widen)
    total = w.sum(axis=0, keepdims=True)
    w = np.where(
        np.abs(total) > 1000.0 * np.finfo(np.float32).eps, w / np.where(total != 0, total, 1.0), 0.0
    )
    inside = (sample >= -0.5) & (sample <= n_in - 0.5)
    return np.where(inside[None, :], w, 0.0)


def _method(method, who):
    name = str(getattr(method, "value", method)).lower()
    if name != "nearest" and name not in _KERNELS:
        raise ArgumentError(
            f"{who}: unknown method {method!r}; give one of 'nearest', "
            f"'linear', 'cubic', 'lanczos3', 'lanczos5'"
        )
    return name


def _contract(x, weights, dims):
    """``x`` with each axis in ``dims`` replaced by its product with its weight matrix."""
    out = x
    for d, w in zip(dims, weights):
        moved = fnp.moveaxis(out, d, -1)
        out = fnp.moveaxis(fnp.matmul(moved, w.astype(_float(out))), -1, d)
    return out


def _float(x):
    kind = dtype_of(x)
    return kind if kind.kind in "fc" else np.dtype(np.float64)


def _nearest(x, shape):
    out = x
    for d, (m, n) in enumerate(zip(shape_of(x), shape)):
        if m != n:  # JAX's offsets, in float32 as JAX computes them
            offsets = np.floor((np.arange(n, dtype=np.float32) + 0.5) * m / n).astype(np.int64)
            out = fnp.take(out, np.minimum(offsets, m - 1), axis=d)
    return out


def resize(
    image: Any, shape: Sequence[int], method: Any, antialias: bool = True, precision: Any = None
) -> Any:
    """``image`` resampled to ``shape`` (one size per axis) by ``method``; see the module
    docstring.

    >>> from funcgrad.image import resize
    >>> import numpy as np
    >>> resize(np.ones((2, 2)), (3, 3), "cubic")
    array([[1., 1., 1.],
           [1., 1., 1.],
           [1., 1., 1.]])
    """
    shape = tuple(int(s) for s in shape)
    if len(shape) != len(shape_of(image)):
        raise ArgumentError(
            f"image.resize: shape {shape} must have one size per axis of the "
            f"image, which has shape {shape_of(image)}"
        )
    name = _method(method, "image.resize")
    if name == "nearest":
        return _nearest(image, shape)
    dims = [d for d, (m, n) in enumerate(zip(shape_of(image), shape)) if m != n]
    scale = [shape[d] / shape_of(image)[d] for d in dims]
    return scale_and_translate(image, shape, dims, scale, [0.0] * len(dims), name, antialias)


def scale_and_translate(
    image: Any,
    shape: Sequence[int],
    spatial_dims: Sequence[int],
    scale: Any,
    translation: Any,
    method: Any = "linear",
    antialias: bool = True,
    precision: Any = None,
) -> Any:
    """``image`` with the axes ``spatial_dims`` scaled by ``scale`` and moved by
    ``translation`` (numbers, one per axis: an output position ``o`` reads the input at
    ``(o + 0.5 - translation) / scale - 0.5``) into ``shape``.

    >>> from funcgrad.image import scale_and_translate
    >>> import numpy as np
    >>> scale_and_translate(np.array([0.0, 1.0, 2.0, 3.0]), (4,), (0,), [1.0], [1.0])
    array([0., 0., 1., 2.])
    """
    name = _method(method, "image.scale_and_translate")
    if name == "nearest":
        raise ArgumentError(
            "image.scale_and_translate: 'nearest' is not offered (JAX's is "
            "not either); use 'linear' or image.resize"
        )
    try:
        scale = [float(s) for s in np.ravel(scale)]
        translation = [float(t) for t in np.ravel(translation)]
    except (TypeError, ValueError):
        raise ArgumentError(
            "image.scale_and_translate: scale and translation must be plain "
            "numbers (a traced scale has no derivative here)"
        ) from None
    dims = [int(d) % len(shape_of(image)) for d in spatial_dims]
    if not len(dims) == len(scale) == len(translation):
        raise ArgumentError(
            f"image.scale_and_translate: one scale and one translation per "
            f"spatial dim; got {len(dims)} dims, {len(scale)} scales, "
            f"{len(translation)} translations"
        )
    kernel = _KERNELS[name]
    weights = [
        _weights(shape_of(image)[d], int(shape[d]), s, t, kernel, antialias)
        for d, s, t in zip(dims, scale, translation)
    ]
    out = _contract(image, weights, dims)
    if math.prod(shape_of(out)) and tuple(shape_of(out)) != tuple(int(s) for s in shape):
        raise ArgumentError(
            f"image.scale_and_translate: shape {tuple(shape)} differs from "
            f"the image's {shape_of(image)} outside spatial_dims"
        )
    return out


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
