"""``reduce_window``: a reduction over every window of an array (lax's pooling).

The windows are gathered as pooling gathers them (:mod:`funcgrad.rules.windows`),
over every axis (a window of 1 leaves an axis as it is), after padding (with
what changes nothing: JAX's answer), and reduced by :func:`funcgrad.lax.reduce`
(sums, products and extrema at once, another ``computation`` element by
element). So it differentiates, batches and compiles as ``fg.nn.max_pool`` does.

>>> import numpy as np
>>> from funcgrad import lax
>>> x = np.arange(16.0).reshape(1, 4, 4, 1)
>>> lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")[0, :, :, 0]
array([[ 5.,  7.],
       [13., 15.]])
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.values import dtype_of, shape_of
from ..nn.convolution import padding_pairs
from ..rules.window_extrema import window_max, window_min
from ..rules.windows import window_counts, windows
from ._more import reduce

__all__ = ["reduce_window", "reduce_window_shape_tuple"]

# the computations whose padding counts for nothing (JAX pads them with their identity)
_NEUTRAL = (fnp.add, fnp.multiply, fnp.maximum, fnp.minimum)
_WINDOW_EXTREMA = {fnp.maximum: window_max, fnp.minimum: window_min}
_WHO = "lax.reduce_window"


def _identity(computation, dtype):
    """The element that changes nothing in a known fold, in ``dtype``."""
    if computation is fnp.add:
        return 0
    if computation is fnp.multiply:
        return 1
    low = computation is fnp.maximum
    if dtype.kind in "iu":
        return np.iinfo(dtype).min if low else np.iinfo(dtype).max
    if dtype.kind == "b":
        return not low
    return -np.inf if low else np.inf


def _ints(values, n, name, default=None):
    if values is None and default is not None:
        return (default,) * n
    try:
        out = tuple(int(v) for v in values)
    except (TypeError, ValueError):
        raise ArgumentTypeError(
            f"{_WHO}: {name} must be a sequence of ints, one per axis; got {values!r:.60}"
        ) from None
    if len(out) != n or any(v < 1 for v in out):
        raise ArgumentError(
            f"{_WHO}: {name} needs {n} positive ints, one per axis of the "
            f"operand; got {values!r:.60}"
        )
    return out


def reduce_window(
    operand: Any,
    init_value: Any,
    computation: Callable,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Any:
    """``computation`` over every window of ``operand`` (one size per axis), from
    ``init_value``; ``padding`` is ``"VALID"``, ``"SAME"`` or
    ``(low, high)`` pairs.

    >>> import numpy as np
    >>> import funcgrad.numpy as fnp
    >>> from funcgrad.lax import reduce_window
    >>> reduce_window(np.arange(5.0), 0.0, fnp.add, (2,), (1,), "VALID")
    array([1., 3., 5., 7.])
    """
    if isinstance(operand, (tuple, list)):
        raise ArgumentTypeError(f"{_WHO}: reduces one operand; call it once per array")
    shape = shape_of(operand)
    n = len(shape)
    window = _ints(window_dimensions, n, "window_dimensions")
    strides = _ints(window_strides, n, "window_strides")
    dilation = _ints(window_dilation, n, "window_dilation", 1)
    if _ints(base_dilation, n, "base_dilation", 1) != (1,) * n:
        raise ArgumentError(
            f"{_WHO}: base_dilation other than 1 is not offered; dilate the "
            f"operand yourself (fg.lax.pad with interior padding)"
        )
    ones = (1,) * n
    pads = padding_pairs(padding, shape, window, strides, ones, dilation, _WHO)
    x = operand
    if any(p != (0, 0) for p in pads):
        if any(lo < 0 or hi < 0 for lo, hi in pads):
            raise ArgumentError(f"{_WHO}: negative padding {pads}; crop the operand first")
        # a padded element counts for nothing in the known folds (JAX's answer: init_value
        # once per window); another computation sees init_value there
        filler = (
            _identity(computation, dtype_of(operand)) if computation in _NEUTRAL else init_value
        )
        x = fnp.pad(x, pads, constant_values=filler)
    axes = tuple(range(n))
    zero = ((0, 0),) * n
    window_counts(shape_of(x), axes, window, strides, zero, ones, dilation, _WHO)
    patches = windows(
        x,
        axes=axes,
        window=window,
        strides=strides,
        padding=zero,
        lhs_dilation=ones,
        rhs_dilation=dilation,
    )
    extremum = _WINDOW_EXTREMA.get(computation)
    if extremum is not None:  # its derivative goes to each window's first extremum, as XLA's
        return computation(init_value, extremum(patches, axis=tuple(range(n, 2 * n))))
    return reduce(patches, init_value, computation, tuple(range(n, 2 * n)))


def reduce_window_shape_tuple(
    operand_shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """The shape :func:`reduce_window` gives an operand of ``operand_shape``: per axis,
    the dilated operand padded by ``(low, high)``, less the dilated window, over the
    stride, plus one (what JAX's ``example_libraries.stax`` pooling layers ask at init).

    >>> from funcgrad import lax
    >>> lax.reduce_window_shape_tuple((1, 28, 28, 3), (1, 2, 2, 1), (1, 2, 2, 1), [(0, 0)] * 4)
    (1, 14, 14, 3)
    >>> lax.reduce_window_shape_tuple((5,), (3,), (1,), [(1, 1)], (2,), (2,))
    (7,)
    """
    n = len(operand_shape)
    for name, value in (
        ("window_dimensions", window_dimensions),
        ("window_strides", window_strides),
        ("padding", padding),
        ("base_dilation", base_dilation),
        ("window_dilation", window_dilation),
    ):
        if value is not None and len(value) != n:
            raise ArgumentError(
                f"lax.reduce_window_shape_tuple: {name} has {len(value)} entries for an "
                f"operand of {n} axes; give one per axis"
            )
    base = base_dilation or (1,) * n
    dilation = window_dilation or (1,) * n
    out = []
    for size, window, stride, (low, high), b, d in zip(
        operand_shape, window_dimensions, window_strides, padding, base, dilation
    ):
        dilated = 0 if size == 0 else 1 + b * (size - 1)
        reach = 0 if window == 0 else 1 + d * (window - 1)
        out.append(max(0, (dilated + low + high - reach) // stride + 1))
    return tuple(int(k) for k in out)
