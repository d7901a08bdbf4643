"""Indexing on other libraries' arrays: ``x[index]`` and its transpose in an Array API namespace.

An index is a static parameter of funcgrad's ``getitem`` and ``untake``
primitives, so it stays NumPy's and the positions it reads can be worked out
in NumPy. The Array API standard's own indexing is narrower than NumPy's (no
negative steps in PyTorch, no integer arrays beside slices in
array-api-strict) and has no scatter-add, so these forms read and write
through ``take``, which every library has:

>>> import numpy as np
>>> import array_api_strict as xs
>>> x = xs.reshape(xs.arange(6.0), (2, 3))
>>> np.from_dlpack(getitem_form(xs, x, (slice(None), np.array([2, 0]))))
array([[2., 0.],
       [5., 3.]])
>>> np.from_dlpack(untake_form(xs, xs.ones(3), np.array([0, 2, 0]), (4,)))
array([2., 0., 1., 0.])
"""

import numpy as np

__all__ = ["index_for", "getitem_form", "gather_form", "untake_form"]


def index_for(xp, index, like):
    """An index for another library's array: its integer and boolean arrays in that library,
    and the trailing ``...`` NumPy leaves implicit, which the standard asks for."""

    def part(p):
        if isinstance(p, (np.ndarray, list)):  # a writable copy: PyTorch warns on read-only
            return xp.asarray(np.array(p), device=getattr(like, "device", None))
        return p

    parts = index if isinstance(index, tuple) else (index,)
    covered = 0  # the axes the index names (a boolean mask names as many as it has)
    for p in parts:
        if p is not None and p is not Ellipsis:
            mask = isinstance(p, (np.ndarray, list)) and np.asarray(p).dtype == bool
            covered += np.ndim(p) if mask else 1
    if not any(p is Ellipsis for p in parts) and covered < like.ndim:
        parts = parts + (Ellipsis,)
    return tuple(part(p) for p in parts)


def getitem_form(xp, x, index):
    """``x[index]``: slices by the library's own indexing (a negative step, which PyTorch
    refuses, reads the flipped axis forwards), one integer array among whole axes by
    ``take``, any other advanced index by one gather (:func:`gather_form`)."""
    parts = index if isinstance(index, tuple) else (index,)
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
    """Zeros of ``shape`` with ``g`` added at ``index``, by gathers only (the standard has no
    scatter-add): the positions ``index`` reads are worked out in NumPy, repeated positions
    summed by one matrix product."""
    size = int(np.prod(shape, dtype=np.int64))
    positions = np.arange(size).reshape(shape)[index].ravel()
    flat = xp.reshape(g if hasattr(g, "shape") else xp.asarray(g), (-1,))
    flat = xp.broadcast_to(flat, positions.shape) if flat.shape != positions.shape else flat
    unique, inverse = np.unique(positions, return_inverse=True)
    device = getattr(flat, "device", None)
    if unique.size != positions.size:  # repeats: sum each position's entries, in order
        onehot = (inverse[None, :] == np.arange(unique.size)[:, None]).astype(np.float64)
        flat = xp.matmul(xp.astype(xp.asarray(onehot, device=device), flat.dtype), flat)
        positions = unique
    source = np.full(size, positions.size)  # where each output element reads from; the end: 0
    source[positions] = np.arange(positions.size)
    padded = xp.concat([flat, xp.zeros((1,), dtype=flat.dtype, device=device)])
    return xp.reshape(xp.take(padded, xp.asarray(source, device=device)), shape)
