"""Indexing on other libraries' arrays: ``x[index]`` and its transpose in an Array API namespace.

A NumPy index is a static parameter of funcgrad's ``getitem`` and ``untake``
primitives, so the positions it reads can be worked out in NumPy. (An index
array of the values' own library, token ids on a GPU, is an operand of
:mod:`funcgrad.rules.gather` instead, whose forms use :func:`scatter_add_rows`.)
The Array API standard's own indexing is narrower than NumPy's (no negative
steps in PyTorch, no integer arrays beside slices in array-api-strict) and has
no scatter-add, so these forms read through ``take``, which every library has,
and add repeated positions by the library's own scatter-add or, where it has
none, by sorted segment sums in the standard's functions:

>>> import numpy as np
>>> import array_api_strict as xs
>>> x = xs.reshape(xs.arange(6.0), (2, 3))
>>> np.from_dlpack(getitem_form(xs, x, (slice(None), np.array([2, 0]))))
array([[2., 0.],
       [5., 3.]])
>>> np.from_dlpack(untake_form(xs, xs.ones(3), np.array([0, 2, 0]), (4,)))
array([2., 0., 1., 0.])
"""

import importlib

import numpy as np

from ..core.namespaces import library_of
from .library_forms import bindable

__all__ = [
    "index_for",
    "getitem_form",
    "gather_form",
    "untake_form",
    "scatter_add_rows",
    "combine_rows",
]


def index_for(xp, index, like):
    """An index for another library's array: its integer and boolean arrays in that library,
    and the trailing ``...`` NumPy leaves implicit, which the standard asks for."""

    def part(p):
        if isinstance(p, (np.ndarray, list)):  # a writable copy: PyTorch warns on read-only
            return xp.asarray(np.array(p), device=getattr(like, "device", None))
        return p

    parts = index if isinstance(index, tuple) else (index,)
    covered = 0  # the axes the index names (a boolean mask names as many as it has)
    arrays = ellipsis = False
    for p in parts:
        if p is Ellipsis:
            ellipsis = True
        elif p is not None:
            array = isinstance(p, (np.ndarray, list))
            covered += np.ndim(p) if array and np.asarray(p).dtype == bool else 1
            arrays = arrays or array
    if not ellipsis and covered < like.ndim:
        parts = parts + (Ellipsis,)
    return tuple([part(p) for p in parts]) if arrays else parts


def getitem_form(xp, x, index):
    """``x[index]``: slices by the library's own indexing (a negative step, which PyTorch
    refuses, reads the flipped axis forwards), one integer array among whole axes by
    ``take``, any other advanced index by one gather (:func:`gather_form`)."""
    parts = index if isinstance(index, tuple) else (index,)
    if _own_indexing(parts):
        return x[index_for(xp, index, x)]
    backwards = any(isinstance(p, slice) and p.step is not None and p.step < 0 for p in parts)
    if backwards and not all(isinstance(p, slice) for p in parts):
        return gather_form(xp, x, index)
    if backwards:
        forward = []
        for axis, p in enumerate(parts):
            if p.step is not None and p.step < 0:
                n = x.shape[axis]
                at = np.arange(n)[p]
                x = xp.flip(x, axis=axis)
                p = slice(n - 1 - at[0], n - at[-1], -p.step) if at.size else slice(0, 0)
            forward.append(p)
        index = tuple(forward)
    arrays = [i for i, p in enumerate(parts) if isinstance(p, (np.ndarray, list))]
    if (
        len(arrays) == 1
        and np.ndim(parts[arrays[0]]) == 1
        and all(p == slice(None) for i, p in enumerate(parts) if i != arrays[0])
    ):
        # one integer array among whole axes: take, which every library has (array-api-strict
        # refuses to mix an integer array with slices)
        at = np.asarray(parts[arrays[0]])
        if at.dtype != bool:
            n = x.shape[arrays[0]]
            at = xp.asarray(np.where(at < 0, at + n, at), device=getattr(x, "device", None))
            return xp.take(x, at, axis=arrays[0])
    if arrays:  # any other advanced index: a gather of the positions it reads
        return gather_form(xp, x, index)
    return x[index_for(xp, index, x)]


def _own_indexing(parts):
    """Whether the index of these ``parts`` is the library's own to read: no integer or
    boolean array, no backward step (slices with forward steps, integers, ``None``,
    ``...``)."""
    for p in parts:  # a loop: no generator to resume (every index of a library's array)
        if isinstance(p, (np.ndarray, list)) or (
            isinstance(p, slice) and p.step is not None and p.step < 0
        ):
            return False
    return True


def _bound_getitem(xp, examples, index):
    """The step a plan binds an index :func:`getitem_form` reads by the library's own
    indexing to, the index made once; None for any other index, which it works out at
    each call."""
    if not _own_indexing(index if isinstance(index, tuple) else (index,)):
        return None
    at = index_for(xp, index, examples[0])
    return lambda x: x[at]


bindable(getitem_form, _bound_getitem)


def gather_form(xp, x, index):
    """``x[index]`` for any NumPy index, as one ``take`` from the flattened array: the index
    is static, so the positions it reads are worked out in NumPy (the standard's own
    integer-array indexing is narrower than NumPy's)."""
    positions = np.arange(int(np.prod(x.shape, dtype=np.int64))).reshape(x.shape)[index]
    flat = xp.take(
        xp.reshape(x, (-1,)),
        xp.asarray(np.array(positions.ravel()), device=getattr(x, "device", None)),
        axis=0,
    )
    return xp.reshape(flat, positions.shape)


def untake_form(xp, g, index, shape):
    """Zeros of ``shape`` with ``g`` added at ``index``. A basic index (slices with forward
    steps, integers, ``...``) reads each position once: ``g`` is written into new
    zeros by the library's own assignment (into an array this call made, which nothing
    else holds). Any other: the positions ``index`` reads are worked out in NumPy; without
    repeats each output element takes its entry (a gather), with repeats they are added by
    :func:`scatter_add_rows`."""
    if _basic_forward(index):
        values = g if hasattr(g, "shape") else xp.asarray(g)
        out = xp.zeros(tuple(shape), dtype=values.dtype, device=getattr(values, "device", None))
        at = index_for(xp, index, out)
        out[at] = xp.broadcast_to(values, tuple(out[at].shape))
        return out
    size = int(np.prod(shape, dtype=np.int64))
    positions = np.arange(size).reshape(shape)[index].ravel()
    flat = xp.reshape(g if hasattr(g, "shape") else xp.asarray(g), (-1,))
    flat = xp.broadcast_to(flat, positions.shape) if flat.shape != positions.shape else flat
    device = getattr(flat, "device", None)
    if np.unique(positions).size != positions.size:
        zeros = xp.zeros((1, size, 1), dtype=flat.dtype, device=device)
        at = xp.asarray(positions, device=device)
        summed = scatter_add_rows(xp, zeros, at, xp.reshape(flat, (1, -1, 1)))
        return xp.reshape(summed, shape)
    source = np.full(size, positions.size)  # where each output element reads from; the end: 0
    source[positions] = np.arange(positions.size)
    padded = xp.concat([flat, xp.zeros((1,), dtype=flat.dtype, device=device)])
    return xp.reshape(xp.take(padded, xp.asarray(source, device=device)), shape)


def _basic_forward(index):
    """Whether ``index`` is basic indexing with no backward step (which PyTorch refuses) and
    no new axis (which array-api-strict refuses in an assignment)."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(
        p is Ellipsis
        or (isinstance(p, (int, np.integer)) and not isinstance(p, (bool, np.bool_)))
        or (isinstance(p, slice) and (p.step is None or p.step > 0))
        for p in parts
    )


def scatter_add_rows(xp, out, positions, rows):
    """``out`` (``(P, M, Q)``) with ``rows[:, k, :]`` added at ``out[:, positions[k], :]``,
    ``positions`` a 1-D integer array of ``out``'s library on its device, repeats summed. By
    the library's own scatter-add where it has one (PyTorch's ``index_add``, CuPy's
    ``add.at``, JAX's ``.at[].add``), else by :func:`_sorted_segment_sums` in the
    standard's functions; never a dense matrix, never a trip to the host."""
    library = library_of(out)
    if library == "torch":
        return out.index_add(1, positions.long(), rows.to(out.dtype))
    if library == "cupy":
        result, at = out.copy(), (slice(None), positions)
        try:  # cupy.add.at where CuPy has it: CuPy 14 warns cupyx.scatter_add is deprecated
            importlib.import_module("cupy").add.at(result, at, rows)
        except (AttributeError, NotImplementedError):  # an older CuPy, before any write
            importlib.import_module("cupyx").scatter_add(result, at, rows)
        return result
    if library == "jax":
        return out.at[:, positions].add(rows)
    return _sorted_segment_sums(xp, out, positions, rows)


# each library's own name for the reduction named by the standard's function
_TORCH_REDUCE = {"maximum": "amax", "minimum": "amin", "multiply": "prod"}
_JAX_UPDATE = {"maximum": "max", "minimum": "min", "multiply": "multiply"}


def combine_rows(xp, out, positions, rows, how):
    """:func:`scatter_add_rows` for a minimum, a maximum or a product: ``how`` names the
    standard's function (``"maximum"``, ``"minimum"``, ``"multiply"``) that meets each row
    written to a position with the row there. By PyTorch's ``scatter_reduce`` or JAX's
    ``.at[].max`` where the library has them, else by sorted segment scans."""
    library = library_of(out)
    if library == "torch":
        rows = rows.to(out.dtype)
        at = positions.long().reshape(1, -1, 1).expand(rows.shape)
        return out.scatter_reduce(1, at, rows, _TORCH_REDUCE[how], include_self=True)
    if library == "jax":
        return getattr(out.at[:, positions], _JAX_UPDATE[how])(rows)
    return _sorted_segment_scan(xp, out, positions, rows, getattr(xp, how))


def _sorted_segment_sums(xp, out, positions, rows):
    return _sorted_segment_scan(xp, out, positions, rows, xp.add)


def _sorted_segment_scan(xp, out, positions, rows, op):
    """A scatter that meets repeats by ``op`` (an associative function of the standard:
    add, maximum, minimum, multiply), in the standard's functions: the rows sorted by
    position, each run of one position reduced by a segmented scan (log2(n) rounds, each
    meeting a row with the one ``shift`` before it within its run), then every output row
    meets its run's total, found through ``searchsorted``. No identity is filled in (a
    maximum of integers has none to hand): a row outside a run keeps its value."""
    n, m = positions.shape[0], out.shape[1]
    if n == 0:
        return out
    device = getattr(out, "device", None)
    order = xp.argsort(positions, stable=True)
    keys = xp.take(positions, order)
    sums = xp.astype(xp.take(rows, order, axis=1), out.dtype)
    shift = 1
    while shift < n:
        before = xp.concat([xp.full((shift,), -1, dtype=keys.dtype, device=device), keys[:-shift]])
        earlier = xp.concat([sums[:, :shift, :], sums[:, :-shift, :]], axis=1)
        same_run = xp.reshape(before == keys, (1, n, 1))
        sums = xp.where(same_run, op(sums, earlier), sums)
        shift *= 2
    targets = xp.arange(m, dtype=keys.dtype, device=device)
    last = xp.searchsorted(keys, targets, side="right") - 1  # each position's run ends there
    last = xp.clip(last, 0, n - 1)
    found = xp.reshape(xp.take(keys, last) == targets, (1, m, 1))
    totals = xp.take(sums, last, axis=1)
    return xp.where(found, op(out, totals), out)
