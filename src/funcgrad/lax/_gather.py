"""XLA's general gather and scatter, as ``jax.lax`` spells them: ``gather``, ``scatter``,
``scatter_add``, ``scatter_sub``, ``scatter_mul``, ``scatter_min``, ``scatter_max`` with
``GatherDimensionNumbers`` / ``ScatterDimensionNumbers``, ``slice_sizes`` and the modes
(``clip``, ``fill``/``drop``, ``promise_in_bounds``).

Each call works out, from the dimension numbers (static) and the start indices (which
may be traced), the operand position of every output (or update) element, and is then
one NumPy-style gather (``operand[i0, i1, ...]``) or one ``fg.at`` update: so it
differentiates in the operand and the updates to any order, batches under ``vmap`` and
compiles under ``jit`` as those do (``scatter_min``/``scatter_max``/``scatter_mul``
through :mod:`funcgrad.rules.scatter_combine`'s primitives: a tie shares the derivative
evenly, as JAX's does).

>>> import numpy as np
>>> from funcgrad import lax
>>> x = np.arange(12.0).reshape(3, 4)
>>> dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
...                                 start_index_map=(0,))
>>> lax.gather(x, np.array([[2], [0]]), dn, slice_sizes=(1, 4))   # rows 2 and 0
array([[ 8.,  9., 10., 11.],
       [ 0.,  1.,  2.,  3.]])
"""

import enum
from typing import Any, NamedTuple

import numpy as np

from .. import numpy as fnp
from ..at import at
from ..core.errors import ArgumentError, NamespaceError, ShapeError
from ..core.namespaces import is_foreign, library_of
from ..core.values import dtype_of, in_library_of, raw, shape_of

__all__ = [
    "GatherDimensionNumbers",
    "ScatterDimensionNumbers",
    "GatherScatterMode",
    "gather",
    "scatter",
    "scatter_add",
    "scatter_sub",
    "scatter_mul",
    "scatter_min",
    "scatter_max",
]


class GatherDimensionNumbers(NamedTuple):
    """How ``gather``'s output dimensions map onto the operand's (XLA's and JAX's fields).

    >>> from funcgrad.lax import GatherDimensionNumbers
    >>> GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
    """

    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


class ScatterDimensionNumbers(NamedTuple):
    """How ``scatter``'s update dimensions map onto the operand's (XLA's and JAX's fields).

    >>> from funcgrad.lax import ScatterDimensionNumbers
    >>> ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                         scatter_dims_to_operand_dims=(0,)).inserted_window_dims
    (0,)
    """

    update_window_dims: tuple
    inserted_window_dims: tuple
    scatter_dims_to_operand_dims: tuple
    operand_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()


class GatherScatterMode(enum.Enum):
    """What an index out of bounds does: ``CLIP`` moves the window back in bounds,
    ``FILL_OR_DROP`` fills a gathered window (drops a scattered one),
    ``PROMISE_IN_BOUNDS`` says it never happens (clipped, here).

    >>> from funcgrad.lax import GatherScatterMode
    >>> GatherScatterMode.from_any("clip"), GatherScatterMode.from_any(None)
    (<GatherScatterMode.CLIP: 1>, <GatherScatterMode.FILL_OR_DROP: 2>)
    """

    CLIP = 1
    FILL_OR_DROP = 2
    PROMISE_IN_BOUNDS = 3

    @staticmethod
    def from_any(mode):
        if isinstance(mode, GatherScatterMode):
            return mode
        if mode is None or mode in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if mode == "clip":
            return GatherScatterMode.CLIP
        if mode == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ArgumentError(
            f"gather/scatter: mode must be 'clip', 'fill', 'drop', 'promise_in_bounds' or a "
            f"GatherScatterMode; got {mode!r}"
        )


def _placed(values, position, rank):
    """``values`` (1-D, or of the batch's shape) laid along ``position`` of a rank-``rank``
    grid (other axes of length 1)."""
    shape = [1] * rank
    for p, n in zip(position, shape_of(values)):
        shape[p] = n
    return fnp.reshape(values, tuple(shape))


def _ramp(n, like):
    """``0, 1, ..., n - 1`` in the library (and on the device) of ``like``."""
    return in_library_of(np.arange(n), like)


def _indices_like(indices, operand):
    """NumPy's (or a list's) indices into another library's operand, as its arrays: constants
    of the call, as NumPy indices into its arrays are elsewhere."""
    if isinstance(indices, (np.ndarray, list, tuple)):
        return in_library_of(np.asarray(indices), operand)
    return indices


def _positions(
    shape,
    indices,
    index_map,
    window,
    window_positions,
    batch_positions,
    operand_batching,
    indices_batching,
    rank,
):
    """Each operand dimension's index into it, on the output's (or the update's) grid, and
    whether each window lies in bounds (None where nothing is out of bounds)."""
    batch_shape = shape_of(indices)[:-1]
    valid = None
    out = []
    like = indices  # the positions' constants are made in the indices' library
    for d, n in enumerate(shape):
        start: Any = 0
        if d in index_map:
            start = fnp.asarray(indices)[..., index_map.index(d)]
            upper = n - window[d]
            inside = (start >= 0) & (start <= upper)
            valid = inside if valid is None else valid & inside
            start = fnp.clip(start, 0, max(upper, 0))
            start = _placed(start, batch_positions, rank)
        elif d in operand_batching:
            e = indices_batching[operand_batching.index(d)]
            start = _placed(_ramp(batch_shape[e], like), [batch_positions[e]], rank)
        if d in window_positions:
            offset = _placed(_ramp(window[d], like), [window_positions[d]], rank)
            out.append(start + offset)
        else:
            out.append(start + in_library_of(np.zeros((1,) * rank, dtype=int), like))
    if valid is not None:
        valid = _placed(valid, batch_positions, rank)
    return out, valid


def _fill_of(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return np.nan
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).max if dtype.kind == "u" else np.iinfo(dtype).min


def gather(
    operand: Any,
    start_indices: Any,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Any,
    *,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    mode: Any = None,
    fill_value: Any = None,
) -> Any:
    """XLA's gather: for each index vector (the last axis of ``start_indices``), the
    ``slice_sizes`` window of ``operand`` starting there, its ``collapsed_slice_dims``
    dropped, the windows' dimensions at ``offset_dims`` of the output. Differentiable in
    ``operand``; ``unique_indices`` and ``indices_are_sorted`` are hints, unused.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import lax
    >>> dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0, 1),
    ...                                 start_index_map=(0, 1))
    >>> x = np.arange(6.0).reshape(2, 3)
    >>> lax.gather(x, np.array([[1, 2], [0, 0], [5, 5]]), dn, (1, 1), mode="fill")
    array([ 5.,  0., nan])
    >>> fg.grad(lambda x: lax.gather(x, np.array([[1, 2], [1, 2]]), dn, (1, 1)).sum())(x)
    array([[0., 0., 0.],
           [0., 0., 2.]])
    """
    dn = dimension_numbers
    shape = shape_of(operand)
    sizes = tuple(int(s) for s in slice_sizes)
    if len(sizes) != len(shape) or any(not 0 <= s <= n for s, n in zip(sizes, shape)):
        raise ShapeError(
            f"gather: slice_sizes {sizes} must give a size within each of the operand's {shape}"
        )
    if len(dn.start_index_map) != shape_of(start_indices)[-1]:
        raise ShapeError(
            f"gather: start_indices' last axis ({shape_of(start_indices)[-1]}) must be as long as "
            f"start_index_map {tuple(dn.start_index_map)}"
        )
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    if any(sizes[d] != 1 for d in dropped):
        raise ShapeError(
            f"gather: collapsed and batching dimensions {sorted(dropped)} must have slice size 1"
        )
    window_dims = [d for d in range(len(shape)) if d not in dropped]
    rank = len(shape_of(start_indices)) - 1 + len(window_dims)
    window_positions = dict(zip(window_dims, dn.offset_dims))
    batch_positions = [p for p in range(rank) if p not in dn.offset_dims]
    mode = GatherScatterMode.from_any(mode)
    start_indices = _indices_like(start_indices, operand)
    index, valid = _positions(
        shape,
        start_indices,
        tuple(dn.start_index_map),
        sizes,
        window_positions,
        batch_positions,
        tuple(dn.operand_batching_dims),
        tuple(dn.start_indices_batching_dims),
        rank,
    )
    dims = [0] * rank
    for p, n in zip(batch_positions, shape_of(start_indices)[:-1]):
        dims[p] = n
    for d, p in window_positions.items():
        dims[p] = sizes[d]
    out_shape = tuple(dims)
    index = tuple(fnp.broadcast_to(i, out_shape) for i in index)
    gathered = at(fnp.asarray(operand))[index].get()  # a plain operand, traced indices too
    if mode is GatherScatterMode.FILL_OR_DROP and valid is not None:
        fill = _fill_of(dtype_of(operand)) if fill_value is None else fill_value
        gathered = fnp.where(fnp.broadcast_to(valid, out_shape), gathered, fill)
    return gathered


def _scatter_positions(operand, scatter_indices, updates, dn, mode):
    shape = shape_of(operand)
    u_shape = shape_of(updates)
    inserted = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_dims = [d for d in range(len(shape)) if d not in inserted]
    if len(window_dims) != len(dn.update_window_dims):
        raise ShapeError(
            f"scatter: update_window_dims {tuple(dn.update_window_dims)} must name one update "
            f"dimension for each operand dimension not inserted ({window_dims})"
        )
    window = [1] * len(shape)
    for d, p in zip(window_dims, dn.update_window_dims):
        window[d] = u_shape[p]
    rank = len(u_shape)
    window_positions = dict(zip(window_dims, dn.update_window_dims))
    batch_positions = [p for p in range(rank) if p not in dn.update_window_dims]
    scatter_indices = _indices_like(scatter_indices, operand)
    index, valid = _positions(
        shape,
        scatter_indices,
        tuple(dn.scatter_dims_to_operand_dims),
        window,
        window_positions,
        batch_positions,
        tuple(dn.operand_batching_dims),
        tuple(dn.scatter_indices_batching_dims),
        rank,
    )
    index = [fnp.broadcast_to(i, u_shape) for i in index]
    if GatherScatterMode.from_any(mode) is GatherScatterMode.FILL_OR_DROP and valid is not None:
        # a window out of bounds goes nowhere: its first position moves past the end
        valid = fnp.broadcast_to(valid, u_shape)
        index[0] = fnp.where(valid, index[0], shape[0])
    return tuple(index)


def _scatter_with(kind, name, doc):
    def scatter_fn(
        operand: Any,
        scatter_indices: Any,
        updates: Any,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Any = None,
    ) -> Any:
        foreign = [raw(v) for v in (operand, scatter_indices, updates) if is_foreign(raw(v))]
        if foreign:
            raise NamespaceError(
                f"lax.{name}: XLA's general scatter runs on NumPy's arrays only (its windows "
                f"out of bounds are placed on the host); got {library_of(foreign[0])}'s. "
                f"Write it as fg.at(x)[ids].set(v) or .add(v) with integer index arrays, "
                f"which run on the device"
            )
        index = _scatter_positions(operand, scatter_indices, updates, dimension_numbers, mode)
        return getattr(at(fnp.asarray(operand))[index], kind)(updates, mode="drop")

    scatter_fn.__name__ = scatter_fn.__qualname__ = name
    scatter_fn.__doc__ = doc
    return scatter_fn


scatter = _scatter_with(
    "set",
    "scatter",
    """XLA's scatter: ``operand`` with each window of ``updates`` written at the
position its index vector (the last axis of ``scatter_indices``) gives. Differentiable in
``operand`` and ``updates``; which of two updates to one position wins is unspecified.

>>> import numpy as np
>>> from funcgrad import lax
>>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
...                                  scatter_dims_to_operand_dims=(0,))
>>> lax.scatter(np.zeros(4), np.array([[1], [3]]), np.array([5.0, 7.0]), dn)
array([0., 5., 0., 7.])
""",
)
scatter_add = _scatter_with(
    "add",
    "scatter_add",
    """XLA's scatter that adds: repeated positions sum their updates.

>>> import numpy as np
>>> import funcgrad as fg
>>> from funcgrad import lax
>>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
...                                  scatter_dims_to_operand_dims=(0,))
>>> lax.scatter_add(np.zeros(3), np.array([[1], [1], [9]]), np.array([1.0, 2.0, 4.0]), dn)
array([0., 3., 0.])
>>> fg.grad(lambda u: lax.scatter_add(np.ones(3), np.array([[0], [2]]), u, dn).sum())(np.ones(2))
array([1., 1.])
""",
)
scatter_sub = _scatter_with(
    "subtract",
    "scatter_sub",
    """XLA's scatter that subtracts: repeated positions subtract each update.

>>> import numpy as np
>>> from funcgrad import lax
>>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
...                                  scatter_dims_to_operand_dims=(0,))
>>> lax.scatter_sub(np.zeros(3), np.array([[1], [1], [9]]), np.array([1.0, 2.0, 4.0]), dn)
array([ 0., -3.,  0.])
""",
)
scatter_mul = _scatter_with(
    "multiply",
    "scatter_mul",
    """XLA's scatter that multiplies: repeated positions multiply in turn.

>>> import numpy as np
>>> from funcgrad import lax
>>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
...                                  scatter_dims_to_operand_dims=(0,))
>>> lax.scatter_mul(np.full(3, 2.0), np.array([[1], [1]]), np.array([3.0, 5.0]), dn)
array([ 2., 30.,  2.])
""",
)
scatter_min = _scatter_with(
    "min",
    "scatter_min",
    """XLA's scatter that keeps the smaller of the operand and each update.

>>> import numpy as np
>>> from funcgrad import lax
>>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
...                                  scatter_dims_to_operand_dims=(0,))
>>> lax.scatter_min(np.full(3, 2.0), np.array([[1], [1], [2]]), np.array([3.0, 1.0, 5.0]), dn)
array([2., 1., 2.])
""",
)
scatter_max = _scatter_with(
    "max",
    "scatter_max",
    """XLA's scatter that keeps the larger of the operand and each update.

>>> import numpy as np
>>> from funcgrad import lax
>>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
...                                  scatter_dims_to_operand_dims=(0,))
>>> lax.scatter_max(np.full(3, 2.0), np.array([[1], [1], [2]]), np.array([3.0, 1.0, 5.0]), dn)
array([2., 3., 5.])
""",
)
