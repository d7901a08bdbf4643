"""Gathers and scatters whose integer index is itself traced (under ``jit`` or ``vmap``).

``getitem`` takes its index as a parameter: a constant of the graph. Under
``jit`` an index computed from the inputs (``x[fnp.argsort(x)]``) stands for
every call's index, and under ``vmap`` for one index per example, so it must
be an operand the trace can see. These primitives take the traced parts of an
index as operands and the rest of it (ints, slices, ``None``, ``...``, plain
arrays) as a *template*, with the string ``"traced"`` where an operand goes.

    primitive     value                                 reverse rule
    -----------   -----------------------------------   ------------------------------------
    gather        x[index]                              scatter_add(zeros, g) at index
    scatter_add   x with v added at index (np.add.at)   g; gather(g) summed to v's shape
    scatter_set   x with x[index] = v (last write wins) g zeroed at index; gather(g) where v won

The indices follow NumPy for in-bounds values. ``mode`` says what an
out-of-bounds index does, as for ``numpy.take``: ``"raise"`` (NumPy's
IndexError when the value is computed), ``"clip"`` (into ``[0, n - 1]``, so a
negative index reads the first element, as NumPy's take does) or ``"wrap"``.
The index operands have no derivative.

>>> import numpy as np
>>> x, i = np.array([3.0, 1.0, 2.0]), np.array([1, 2, 0])
>>> gather(x, i, template=("traced",), mode="raise")
array([1., 2., 3.])
>>> scatter_add(np.zeros(3), np.ones(2), np.array([2, 2]), template=("traced",), mode="raise")
array([0., 0., 2.])
"""

import math

import numpy as np

from ..core.errors import IndexingError, NamespaceError
from ..core.namespaces import is_foreign, known_any, library_of
from ..core.primitive import Primitive
from ..core.values import filled_like, in_library_of, shape_of
from ..jit import facts as jit_facts
from .arrays import (
    batch_example_by_example,
    broadcast_to,
    getitem,
    reshape,
    unbroadcast,
    untake,
)
from .elementwise import where
from .foreign_indexing import scatter_add_rows
from .row_sums import ufunc_at

__all__ = [
    "TRACED",
    "index_of",
    "gather",
    "scatter_add",
    "scatter_set",
    "last_writes",
    "index_axes",
    "write_flat",
    "batch_scatter",
]

TRACED = "traced"  # where a template holds an operand (no index part is a string)
MODES = ("raise", "clip", "wrap")


def index_axes(template, ndim):
    """The axis of the array each part of an index reads (None for ``None``, ``...``)."""
    consumed = sum(
        np.ndim(p) if _is_mask(p) else 1 for p in template if p is not None and p is not Ellipsis
    )
    axes, d = [], 0
    for p in template:
        if p is None:
            axes.append(None)
        elif p is Ellipsis:
            axes.append(None)
            d += ndim - consumed
        else:
            axes.append(d)
            d += np.ndim(p) if _is_mask(p) else 1
    return axes


def _is_mask(p):
    return isinstance(p, np.ndarray) and p.dtype == bool


def index_of(template, idx, shape, mode):
    """The NumPy index: the template with the operands in, brought in bounds by ``mode``."""
    it = iter(idx)
    parts = [next(it) if type(p) is str else p for p in template]
    if mode != "raise":
        axes = index_axes(template, len(shape))
        for k, p in enumerate(template):
            if type(p) is str:
                n = shape[axes[k]]
                parts[k] = np.clip(parts[k], 0, n - 1) if mode == "clip" else np.mod(parts[k], n)
    return tuple(parts)


def _gather_impl(x, *idx, template, mode):
    return np.asarray(x)[index_of(template, idx, np.shape(x), mode)]


def _scatter_add_impl(x, v, *idx, template, mode):
    out = np.array(x, dtype=np.result_type(x, v), copy=True)
    index = index_of(template, idx, out.shape, mode)
    ufunc_at(np.add, out, index, v)
    return out


def _scatter_set_impl(x, v, *idx, template, mode):
    out = np.array(x, dtype=np.result_type(x, v), copy=True)
    out[index_of(template, idx, out.shape, mode)] = v
    return out


def _last_writes_impl(*idx, template, mode, shape):
    """A mask of the indexed shape: True where an assignment's value is the one kept
    (NumPy's assignment keeps the last write to a repeated position)."""
    index = index_of(template, idx, shape, mode)
    size = int(np.prod(shape, dtype=np.int64))
    targets = np.arange(size).reshape(shape)[index].ravel()
    last = np.full(size, -1)
    last[targets] = np.arange(targets.size)
    won = np.zeros(targets.size, dtype=bool)
    won[last[last >= 0]] = True
    return won.reshape(np.shape(np.arange(size).reshape(shape)[index]))


def _zeros_of(x):
    """Zeros of ``x``'s shape and float dtype, in its library, on its device."""
    return filled_like(x, 0.0)


def _gather_vjp(argnums, g, ans, x, *idx, template, mode):
    return [
        scatter_add(_zeros_of(x), g, *idx, template=template, mode=mode) if i == 0 else None
        for i in argnums
    ]


def _gather_jvp(tangents, ans, x, *idx, template, mode):
    t = tangents[0]
    return None if t is None else gather(t, *idx, template=template, mode=mode)


def _selected(g, v, idx, template, mode, won=None):
    """The cotangent of the values written at ``index`` (those that ``won`` where a write
    can be overwritten), summed to ``v``'s shape."""
    picked = gather(g, *idx, template=template, mode=mode)
    if won is not None:  # a lost write has no influence: 0, even where g is NaN
        picked = where(won, picked, 0.0)
    return unbroadcast(picked, v) if shape_of(picked) != shape_of(v) else picked


def _scatter_add_vjp(argnums, g, ans, x, v, *idx, template, mode):
    out = {0: g, 1: None}
    if 1 in argnums:
        out[1] = _selected(g, v, idx, template, mode)
    return [out.get(i) for i in argnums]


def _scatter_set_vjp(argnums, g, ans, x, v, *idx, template, mode):
    out = {}
    if 0 in argnums:
        out[0] = scatter_set(g, 0.0, *idx, template=template, mode=mode)
    if 1 in argnums:
        won = last_writes(*idx, template=template, mode=mode, shape=shape_of(x))
        if type(won) is np.ndarray:  # NumPy's indices into another library's array
            won = in_library_of(won, g)
        out[1] = _selected(g, v, idx, template, mode, won)
    return [out.get(i) for i in argnums]


def _scatter_jvp(prim):
    """A scatter is linear in ``x`` and ``v`` together: its tangent is the same scatter of
    their tangents (a zero ``v`` tangent writes zeros)."""

    def jvp(tangents, ans, x, v, *idx, template, mode):
        tx, tv = tangents[0], tangents[1]
        if tx is None and tv is None:
            return None
        tx = _zeros_of(ans) if tx is None else broadcast_to(tx, shape=shape_of(ans))
        return prim(tx, 0.0 if tv is None else tv, *idx, template=template, mode=mode)

    return jvp


def _rows_in_front(size, template, x, idx, x_batched, idx_batched):
    """The batch put in front of an index of integer parts (traced or not, arrays or
    numbers), all advanced indices side by side: ``x`` and the index operands with the
    batch's axis, the template with the batch's rows first, and the index's dimensions
    (rows included); None for any other index, which goes example by example."""
    if not all(
        type(p) is str or type(p) is int or (isinstance(p, np.ndarray) and p.dtype.kind in "iu")
        for p in template
    ):
        return None
    if not x_batched:
        x = broadcast_to(x, shape=(size,) + shape_of(x))
    idx = [
        i if b else broadcast_to(i, shape=(size,) + shape_of(i)) for i, b in zip(idx, idx_batched)
    ]
    ndim = max([len(shape_of(i)) for i in idx] + [np.ndim(p) + 1 for p in template])
    rows = np.arange(size).reshape((size,) + (1,) * (ndim - 1))
    return x, idx, (rows, *template), ndim


def _gather_batch(size, prim, values, batched, params):
    """``x[i, ...]`` with every index part an integer: one fancy index with the batch's
    rows in front (a vmap of a vmap adds rows again); any other index, example by example."""
    x, *idx = values
    front = _rows_in_front(size, params["template"], x, idx, batched[0], batched[1:])
    if front is None:
        return batch_example_by_example(size, prim, values, batched, params)
    x, idx, template, _ = front
    return gather(x, *idx, template=template, mode=params["mode"])


def batch_scatter(size, prim, values, batched, params):
    """The batching rule of a scatter ``prim(x, v, *idx, template, mode)``: with every index
    part an integer, the batch's rows put in front of the index, as gather's rule does, so
    the whole batch is one scatter; any other index, example by example."""
    (x, v, *idx), (x_batched, v_batched, *idx_batched) = values, batched
    template = params["template"]
    front = _rows_in_front(size, template, x, idx, x_batched, idx_batched)
    if front is None:
        return batch_example_by_example(size, prim, values, batched, params)
    x, idx, rows_first, ndim = front
    if v_batched:  # an example's v lines up with the trailing axes of what it is written to
        indexed = ndim - 1 + len(shape_of(x)) - 1 - len(template)
        v_shape = shape_of(v)
        v = reshape(v, shape=(size,) + (1,) * (indexed - len(v_shape) + 1) + v_shape[1:])
    return prim(x, v, *idx, template=rows_first, mode=params["mode"])


def _place(x):
    """The shape, device and library of another library's array."""
    return tuple(x.shape), getattr(x, "device", None), library_of(x)


def _flat_positions(xp, x_shape, device, library, idx, template, mode, who):
    """For ``library``'s array ``x`` of ``x_shape`` on ``device`` (:func:`_place`): the index as
    ``(P, M, Q)`` rows of ``x`` and the positions among the ``M`` rows it reads, a 1-D array
    of that library, with the shape those positions take. The index's integer parts
    (operands, NumPy arrays, ints) must be adjacent, every other part a whole axis: the
    indexing of token ids and of ``vmap``'s rows. Negative positions count from the end, as NumPy's do, unless ``mode``
    clips or wraps them."""
    it = iter(idx)
    parts = [next(it) if type(p) is str else p for p in template]
    while parts and parts[-1] is Ellipsis:
        parts.pop()
    ints = [k for k, p in enumerate(parts) if not isinstance(p, slice)]
    if (
        not ints
        or ints != list(range(ints[0], ints[-1] + 1))
        or any(p != slice(None) for p in parts if isinstance(p, slice))
        or any(p is None or p is Ellipsis or _is_mask(p) for p in parts)
    ):
        raise NamespaceError(
            f"{who}: on {library} arrays an index with a device array takes adjacent "
            f"integer arrays among whole axes (x[ids], x[:, ids]); got the index "
            f"{tuple(type(p).__name__ for p in parts)}; index in two steps instead"
        )
    a, b = ints[0], ints[-1] + 1
    shape = tuple(x_shape)
    arrays = []
    for k in range(a, b):
        n = shape[k]
        i = parts[k] if is_foreign(parts[k]) else xp.asarray(np.asarray(parts[k]), device=device)
        if mode == "clip":
            i = xp.clip(i, 0, n - 1)
        elif mode == "wrap":
            i = i % n
        else:
            _refuse_outside(i, n, k, who)
            i = xp.where(i < 0, i + n, i)
        arrays.append(i)
    if len(arrays) > 1:  # one index (token ids) is its own shape: PyTorch's call is Python
        arrays = xp.broadcast_arrays(*arrays)
    flat = arrays[0]
    for k, i in zip(range(a + 1, b), arrays[1:]):
        flat = flat * shape[k] + i
    # math.prod, not np.prod: PyTorch's compiler reads a shape's product as a number
    rows = (math.prod(shape[:a]), math.prod(shape[a:b]), math.prod(shape[b:]))
    return rows, xp.reshape(flat, (-1,)), (*shape[:a], *arrays[0].shape, *shape[b:])


def _refuse_outside(i, n, axis, who):
    """Refuse an index past either end of an axis of ``n``, as NumPy does: the flat
    position made of it would read or write another element (a column past the end is
    the next row's first), and a library's own take may wrap it (CuPy's) or count it from
    the end again (array-api-strict's). One bool read off the device; PyTorch's embedding
    (kernels/torch_forms.py) indexes by its own call instead, which checks for itself."""
    if known_any((i < -n) | (i >= n)):
        raise IndexingError(
            f"{who}: an index is out of bounds for axis {axis} with size {n}; give indices "
            f"in [-{n}, {n}), or mode='clip' or 'wrap' to fnp.take"
        )


def _xp_gather(xp, x, *idx, template, mode):
    rows, positions, shape = _flat_positions(xp, *_place(x), idx, template, mode, "gather")
    return xp.reshape(xp.take(xp.reshape(x, rows), positions, axis=1), shape)


def _xp_scatter_add(xp, x, v, *idx, template, mode):
    rows, positions, shape = _flat_positions(xp, *_place(x), idx, template, mode, "scatter_add")
    if not hasattr(v, "shape"):  # a number: an array on x's device (not the default one)
        v = xp.full((), v, dtype=x.dtype, device=getattr(x, "device", None))
    values = xp.broadcast_to(v, shape)
    values = xp.reshape(values, (rows[0], positions.shape[0], rows[2]))
    out = scatter_add_rows(xp, xp.reshape(x, rows), positions, values)
    return xp.reshape(out, tuple(x.shape))


def _last_of_each_position(xp, positions):
    """For each write (a 1-D array of positions), whether no later write goes to its
    position: the last of its run once the positions are sorted stably."""
    order = xp.argsort(positions, stable=True)
    keys = xp.take(positions, order)
    end = xp.ones((1,), dtype=xp.bool, device=getattr(positions, "device", None))
    last_of_run = xp.concat([keys[1:] != keys[:-1], end])
    return xp.take(last_of_run, xp.argsort(order))  # back in the writes' order


def _xp_scatter_set(xp, x, v, *idx, template, mode):
    """NumPy's assignment on the device: of the writes to one position only the last is
    kept; the kept values are scatter-added into zeros (one per position, so the sum is
    that value) and a count of them says where ``x`` is replaced."""
    rows, positions, shape = _flat_positions(xp, *_place(x), idx, template, mode, "scatter_set")
    device = getattr(x, "device", None)
    v = v if hasattr(v, "shape") else xp.asarray(v, device=device)
    dtype = xp.result_type(x, v)
    values = xp.reshape(xp.broadcast_to(xp.astype(v, dtype), shape), (rows[0], -1, rows[2]))
    base = xp.astype(xp.reshape(x, rows), dtype)
    if positions.shape[0] == 0:
        return xp.reshape(base, tuple(x.shape))
    kept = xp.reshape(_last_of_each_position(xp, positions), (1, -1, 1))
    chosen = xp.where(kept, values, xp.zeros_like(values))  # where, not *: a NaN lost is lost
    written = scatter_add_rows(xp, xp.zeros_like(base), positions, chosen)
    count = xp.zeros((1, rows[1], 1), dtype=dtype, device=device)
    count = scatter_add_rows(xp, count, positions, xp.astype(kept, dtype))
    return xp.reshape(xp.where(count > 0, written, base), tuple(x.shape))


def _xp_last_writes(xp, *idx, template, mode, shape):
    on = next(i for i in idx if is_foreign(i))  # x itself is not an operand: its shape is
    where = (shape, *_place(on)[1:])
    rows, positions, indexed = _flat_positions(xp, *where, idx, template, mode, "last_writes")
    kept = xp.reshape(_last_of_each_position(xp, positions), (1, -1, 1))
    return xp.reshape(xp.broadcast_to(kept, (rows[0], positions.shape[0], rows[2])), indexed)


gather = Primitive(
    "gather", _gather_impl, vjp=_gather_vjp, jvp=_gather_jvp, batch=_gather_batch, xp=_xp_gather
)
scatter_add = Primitive(
    "scatter_add", _scatter_add_impl, vjp=_scatter_add_vjp, batch=batch_scatter, xp=_xp_scatter_add
)
scatter_set = Primitive(
    "scatter_set", _scatter_set_impl, vjp=_scatter_set_vjp, batch=batch_scatter, xp=_xp_scatter_set
)
# What jit reads (funcgrad/jit/facts.py): each returns a new array, which a plan may reuse.
jit_facts.declare(scatter_add, scatter_set, fresh=True)
scatter_add.jvp = _scatter_jvp(scatter_add)
scatter_set.jvp = _scatter_jvp(scatter_set)
# Integer-valued (a mask): a primitive only so that jit stages it and vmap batches it.
last_writes = Primitive("last_writes", _last_writes_impl, xp=_xp_last_writes)


def write_flat(flat_x, positions, flat_v):
    """``flat_x`` (1-D) with ``flat_v[k]`` written at the plain position ``positions[k]``,
    the last write winning where a position repeats (NumPy's assignment): the values that
    won scattered to their places, the rest of ``flat_x`` kept. Differentiable in both."""
    size = shape_of(flat_x)[0]
    last = np.full(size, -1)
    last[positions] = np.arange(len(positions))
    dest = np.flatnonzero(last >= 0)
    new = untake(getitem(flat_v, index=last[dest]), index=dest, shape=(size,))
    return where(in_library_of(last >= 0, flat_x), new, flat_x)
