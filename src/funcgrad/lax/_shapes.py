"""lax's shapes and slices: reshape, broadcast, pad, static and dynamic slices, and the
arrays it makes (``iota``, ``full``); see :mod:`funcgrad.lax`.

>>> import numpy as np
>>> from funcgrad import lax
>>> lax.dynamic_update_slice(np.zeros(4), np.ones(2), (-1,))   # from the end, clamped
array([0., 0., 1., 1.])
"""

import builtins  # slice is lax's name here
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..at import at
from ..core.errors import ArgumentError, ShapeError
from ..core.values import filled_like, shape_of

__all__ = [
    "reshape",
    "transpose",
    "broadcast",
    "broadcast_in_dim",
    "expand_dims",
    "squeeze",
    "concatenate",
    "pad",
    "rev",
    "slice",
    "slice_in_dim",
    "index_in_dim",
    "dynamic_slice",
    "dynamic_slice_in_dim",
    "dynamic_index_in_dim",
    "dynamic_update_slice",
    "dynamic_update_slice_in_dim",
    "dynamic_update_index_in_dim",
    "convert_element_type",
    "iota",
    "full",
    "full_like",
]


def reshape(operand: Any, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None) -> Any:
    """``operand`` transposed by ``dimensions`` (if given), then reshaped in C order.

    >>> import numpy as np
    >>> from funcgrad.lax import reshape
    >>> reshape(np.arange(6.0), (2, 3)).shape
    (2, 3)
    """
    if dimensions is not None:
        operand = fnp.transpose(operand, tuple(dimensions))
    return fnp.reshape(operand, tuple(new_sizes))


def transpose(operand: Any, permutation: Sequence[int]) -> Any:
    """``operand``'s axes in the order ``permutation``.

    >>> import numpy as np
    >>> from funcgrad.lax import transpose
    >>> transpose(np.zeros((2, 3)), (1, 0)).shape
    (3, 2)
    """
    return fnp.transpose(operand, tuple(permutation))


def broadcast(operand: Any, sizes: Sequence[int]) -> Any:
    """``operand`` with new leading axes of ``sizes``.

    >>> import numpy as np
    >>> from funcgrad.lax import broadcast
    >>> broadcast(np.ones(3), (2,)).shape
    (2, 3)
    """
    return fnp.broadcast_to(operand, tuple(sizes) + shape_of(operand))


def broadcast_in_dim(
    operand: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]
) -> Any:
    """``operand`` broadcast to ``shape``, its axis ``i`` becoming axis
    ``broadcast_dimensions[i]`` of the result.

    >>> import numpy as np
    >>> from funcgrad.lax import broadcast_in_dim
    >>> broadcast_in_dim(np.array([1.0, 2.0]), (2, 3), (0,))
    array([[1., 1., 1.],
           [2., 2., 2.]])
    """
    shape, dims = tuple(shape), tuple(broadcast_dimensions)
    if len(dims) != len(shape_of(operand)) or sorted(dims) != list(dims):
        raise ArgumentError(
            f"lax.broadcast_in_dim: broadcast_dimensions {dims} must give one "
            f"increasing axis per axis of the operand (shape "
            f"{shape_of(operand)})"
        )
    placed = [1] * len(shape)
    for axis, size in zip(dims, shape_of(operand)):
        placed[axis] = size
    return fnp.broadcast_to(fnp.reshape(operand, tuple(placed)), shape)


def expand_dims(array: Any, dimensions: Sequence[int]) -> Any:
    """``array`` with axes of size 1 inserted at ``dimensions``.

    >>> import numpy as np
    >>> from funcgrad.lax import expand_dims
    >>> expand_dims(np.ones(3), (0, 2)).shape
    (1, 3, 1)
    """
    return fnp.expand_dims(array, tuple(dimensions))


def squeeze(array: Any, dimensions: Sequence[int]) -> Any:
    """``array`` without the axes ``dimensions`` (each of size 1).

    >>> import numpy as np
    >>> from funcgrad.lax import squeeze
    >>> squeeze(np.ones((1, 3, 1)), (0, 2)).shape
    (3,)
    """
    return fnp.squeeze(array, axis=tuple(dimensions))


def concatenate(operands: Sequence[Any], dimension: int) -> Any:
    """``operands`` joined along ``dimension``.

    >>> import numpy as np
    >>> from funcgrad.lax import concatenate
    >>> concatenate([np.ones(2), np.zeros(1)], 0)
    array([1., 1., 0.])
    """
    return fnp.concatenate(list(operands), axis=dimension)


def pad(operand: Any, padding_value: Any, padding_config: Sequence[tuple[int, int, int]]) -> Any:
    """``operand`` padded with ``padding_value``: ``(low, high, interior)`` per axis, where
    a negative low or high cuts that many elements off and interior puts that many
    between neighbours.

    >>> import numpy as np
    >>> from funcgrad.lax import pad
    >>> pad(np.array([1.0, 2.0]), 0.0, [(1, 2, 1)])
    array([0., 1., 0., 2., 0., 0.])
    >>> pad(np.arange(4.0), -1.0, [(-1, 1, 0)])
    array([ 1.,  2.,  3., -1.])
    """
    config = [tuple(int(v) for v in c) for c in padding_config]
    shape = shape_of(operand)
    if len(config) != len(shape) or any(len(c) != 3 or c[2] < 0 for c in config):
        raise ArgumentError(
            f"lax.pad: padding_config needs one (low, high, interior >= 0) per "
            f"axis of the operand (shape {shape}); got {padding_config!r:.60}"
        )
    # the interior: the operand written at every (interior + 1)-th place of a filled array
    spread = tuple((n - 1) * (k + 1) + 1 if n else 0 for n, (_, _, k) in zip(shape, config))
    if spread != shape:
        dtype = fnp.result_type(operand, padding_value)
        grid = filled_like(operand, padding_value, shape=spread, dtype=dtype)
        places = tuple(builtins.slice(None, None, k + 1) for _, _, k in config)
        operand = at(grid)[places].set(operand)
    widths = [(builtins.max(lo, 0), builtins.max(hi, 0)) for lo, hi, _ in config]
    out = (
        fnp.pad(operand, widths, constant_values=padding_value)
        if any(lo or hi for lo, hi in widths)
        else operand
    )
    cuts = tuple(
        builtins.slice(-builtins.min(lo, 0), out.shape[a] + builtins.min(hi, 0))
        for a, (lo, hi, _) in enumerate(config)
    )
    return out[cuts]


def rev(operand: Any, dimensions: Sequence[int]) -> Any:
    """``operand`` reversed along ``dimensions``.

    >>> import numpy as np
    >>> from funcgrad.lax import rev
    >>> rev(np.arange(3.0), (0,))
    array([2., 1., 0.])
    """
    return fnp.flip(operand, axis=tuple(dimensions)) if len(dimensions) else operand


def slice(
    operand: Any,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> Any:
    """``operand[start:limit:stride]`` on every axis, with static bounds.

    >>> import numpy as np
    >>> from funcgrad import lax
    >>> lax.slice(np.arange(10.0), (1,), (8,), (3,))
    array([1., 4., 7.])
    """
    strides = strides or (1,) * len(start_indices)
    return operand[
        tuple(
            builtins.slice(int(a), int(b), int(s))
            for a, b, s in zip(start_indices, limit_indices, strides)
        )
    ]


def slice_in_dim(
    operand: Any, start_index: int | None, limit_index: int | None, stride: int = 1, axis: int = 0
) -> Any:
    """:func:`slice` on one axis.

    >>> import numpy as np
    >>> from funcgrad.lax import slice_in_dim
    >>> slice_in_dim(np.arange(6.0).reshape(2, 3), 1, 3, axis=1)
    array([[1., 2.],
           [4., 5.]])
    """
    index = [builtins.slice(None)] * len(shape_of(operand))
    index[axis] = builtins.slice(start_index, limit_index, stride)
    return operand[tuple(index)]


def index_in_dim(operand: Any, index: int, axis: int = 0, keepdims: bool = True) -> Any:
    """The ``index``-th slice along ``axis`` (with that axis kept, of size 1, by default).

    >>> import numpy as np
    >>> from funcgrad.lax import index_in_dim
    >>> index_in_dim(np.arange(6.0).reshape(2, 3), 1, axis=1).shape
    (2, 1)
    """
    out = slice_in_dim(operand, index, index + 1 if index != -1 else None, 1, axis)
    return fnp.squeeze(out, axis=axis) if not keepdims else out


def _starts(operand, start_indices, sizes, who):
    shape = shape_of(operand)
    starts = list(start_indices)
    if len(starts) != len(shape) or len(sizes) != len(shape):
        raise ArgumentError(
            f"lax.{who}: give one start index and one size per axis of the "
            f"operand (shape {shape}); got {len(starts)} and {len(sizes)}"
        )
    if any(int(s) > n or int(s) < 0 for s, n in zip(sizes, shape)):
        raise ShapeError(
            f"lax.{who}: the sizes {tuple(sizes)} do not fit in the operand's shape {shape}"
        )
    # a negative start counts from the end, then every start is clamped so the slice stays
    # in bounds (JAX's rule); a start may be traced
    return [
        fnp.clip(fnp.where(s < 0, s + n, s), 0, n - int(k)) for s, n, k in zip(starts, shape, sizes)
    ]


def _mesh(starts, sizes):
    """Index arrays picking the block of ``sizes`` at ``starts``, axis by axis."""
    n = len(sizes)
    return tuple(
        fnp.reshape(s + np.arange(int(k)), (-1,) + (1,) * (n - 1 - a))
        for a, (s, k) in enumerate(zip(starts, sizes))
    )


def dynamic_slice(operand: Any, start_indices: Sequence[Any], slice_sizes: Sequence[int]) -> Any:
    """The block of ``slice_sizes`` at ``start_indices`` (which may be traced; a negative
    one counts from the end), each start clamped so the block stays inside the operand.

    >>> import numpy as np
    >>> from funcgrad.lax import dynamic_slice
    >>> dynamic_slice(np.arange(12.0).reshape(3, 4), (1, 3), (2, 2))
    array([[ 6.,  7.],
           [10., 11.]])
    """
    sizes = [int(k) for k in slice_sizes]
    if not shape_of(operand):
        return operand
    starts = _starts(operand, start_indices, sizes, "dynamic_slice")
    return at(operand)[_mesh(starts, sizes)].get()


def dynamic_slice_in_dim(operand: Any, start_index: Any, slice_size: int, axis: int = 0) -> Any:
    """:func:`dynamic_slice` along one axis.

    >>> import numpy as np
    >>> from funcgrad.lax import dynamic_slice_in_dim
    >>> dynamic_slice_in_dim(np.arange(5.0), 3, 3)
    array([2., 3., 4.])
    """
    shape = shape_of(operand)
    axis = axis % len(shape)
    starts = [0] * len(shape)
    sizes = list(shape)
    starts[axis], sizes[axis] = start_index, slice_size
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand: Any, index: Any, axis: int = 0, keepdims: bool = True) -> Any:
    """The slice at ``index`` (which may be traced) along ``axis``.

    >>> import numpy as np
    >>> from funcgrad.lax import dynamic_index_in_dim
    >>> dynamic_index_in_dim(np.arange(6.0).reshape(3, 2), 2, keepdims=False)
    array([4., 5.])
    """
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return fnp.squeeze(out, axis=axis) if not keepdims else out


def dynamic_update_slice(operand: Any, update: Any, start_indices: Sequence[Any]) -> Any:
    """``operand`` with the block at ``start_indices`` (clamped as in
    :func:`dynamic_slice`) replaced by ``update``: a new array.

    >>> import numpy as np
    >>> from funcgrad.lax import dynamic_update_slice
    >>> dynamic_update_slice(np.zeros(5), np.ones(2), (4,))
    array([0., 0., 0., 1., 1.])
    """
    sizes = list(shape_of(update))
    if not sizes:
        return update
    starts = _starts(operand, start_indices, sizes, "dynamic_update_slice")
    return at(operand)[_mesh(starts, sizes)].set(update)


def dynamic_update_slice_in_dim(operand: Any, update: Any, start_index: Any, axis: int) -> Any:
    """:func:`dynamic_update_slice` along one axis.

    >>> import numpy as np
    >>> from funcgrad.lax import dynamic_update_slice_in_dim
    >>> dynamic_update_slice_in_dim(np.zeros((2, 3)), np.ones((2, 1)), 1, axis=1)
    array([[0., 1., 0.],
           [0., 1., 0.]])
    """
    starts = [0] * len(shape_of(operand))
    starts[axis % len(starts)] = start_index
    return dynamic_update_slice(operand, update, starts)


def dynamic_update_index_in_dim(operand: Any, update: Any, index: Any, axis: int) -> Any:
    """:func:`dynamic_update_slice_in_dim` of one slice (``update`` may lack that axis).

    >>> import numpy as np
    >>> from funcgrad.lax import dynamic_update_index_in_dim
    >>> dynamic_update_index_in_dim(np.zeros((3, 2)), np.ones(2), 1, 0)
    array([[0., 0.],
           [1., 1.],
           [0., 0.]])
    """
    axis = axis % len(shape_of(operand))
    if len(shape_of(update)) == len(shape_of(operand)) - 1:
        update = fnp.expand_dims(update, axis)
    return dynamic_update_slice_in_dim(operand, update, index, axis)


def convert_element_type(operand: Any, new_dtype: Any) -> Any:
    """``operand`` as ``new_dtype``.

    >>> import numpy as np
    >>> from funcgrad.lax import convert_element_type
    >>> convert_element_type(np.array([1.7, -1.7]), np.int32)
    array([ 1, -1], dtype=int32)
    """
    operand = fnp.asarray(operand)  # a foreign array's on its device
    target = np.dtype(new_dtype)
    if fnp.result_type(operand).kind == "f" and target.kind in "iu":
        return _saturated(operand, target)
    return fnp.astype(operand, target)


def _saturated(x, target):
    """Floats as the integers ``target`` holds, as XLA converts them (NumPy's cast is
    undefined out of range): truncated toward zero, clamped to the type's range, NaN 0."""
    info = np.iinfo(target)
    high, low, nan = x >= float(info.max), x <= float(info.min), fnp.isnan(x)
    inside = fnp.astype(fnp.where(high | low | nan, 0.0, x), target)
    return fnp.where(high, info.max, fnp.where(low, info.min, fnp.where(nan, 0, inside)))


def iota(dtype: Any, size: int) -> Any:
    """``0, 1, ..., size - 1`` of ``dtype``.

    >>> import numpy as np
    >>> from funcgrad.lax import iota
    >>> iota(np.int32, 3)
    array([0, 1, 2], dtype=int32)
    """
    return np.arange(size, dtype=dtype)


def full(shape: Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
    """An array of ``shape`` filled with ``fill_value``.

    >>> from funcgrad.lax import full
    >>> full((2,), 3.0)
    array([3., 3.])
    """
    return fnp.full(tuple(shape), fill_value, dtype=dtype)


def full_like(
    x: Any, fill_value: Any, dtype: Any = None, shape: Sequence[int] | None = None
) -> Any:
    """An array like ``x`` (or of ``shape``) filled with ``fill_value``.

    >>> import numpy as np
    >>> from funcgrad.lax import full_like
    >>> full_like(np.zeros(2, np.float32), 1.0)
    array([1., 1.], dtype=float32)
    """
    return fnp.full(
        shape_of(x) if shape is None else tuple(shape),
        fill_value,
        dtype=fnp.result_type(x) if dtype is None else dtype,
    )
