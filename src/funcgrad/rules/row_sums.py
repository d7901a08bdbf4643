"""Values written at integer positions and met there: ``ufunc.at(out, index, v)``, as
``np.add.at(out, rows, g)`` for whole rows (an embedding's cotangent: ``untake`` of an
integer array, a row ``scatter_add``), and ``fg.at``'s updates and the segment
reductions.

NumPy's ``ufunc.at`` has a fast loop only for a one-dimensional operand and index;
on an array of more dimensions it walks NumPy's general indexing element by element
(about 20 ns an element here, 5-7x slower). So a C-contiguous ``out`` is written
through its flat positions instead: the same ufunc, the same values met in the same
order at each position, so the same bits. For whole rows the positions are
``row * width + column``; for any other index they are read from
``arange(out.size).reshape(out.shape)[index]`` where ``out`` is not much larger than
what is written. (Where numba is installed, :mod:`funcgrad.kernels` registers a loop
over the rows in their order in front of ``untake`` and ``scatter_add`` for large
arrays: one pass, the same bits.)

>>> import numpy as np
>>> out = np.zeros((3, 2))
>>> ufunc_at(np.add, out, np.array([2, 0, 2, -1]), np.ones((4, 2)))
>>> out
array([[1., 1.],
       [0., 0.],
       [3., 3.]])
>>> ufunc_at(np.maximum, out, (slice(None), 1), np.array([5.0, -1.0, 0.0]))
>>> out
array([[1., 5.],
       [0., 0.],
       [3., 3.]])
"""

import math

import numpy as np

__all__ = ["whole_rows", "ufunc_at"]

# An index writing fewer than 1/SPARSE of out's elements is left to ufunc.at itself:
# numbering every element of out would cost more than the slow loop saves.
SPARSE = 16


def whole_rows(index, g, out_shape):
    """The integer array of positions where ``index`` (an index of an array of
    ``out_shape``) adds ``g``'s whole rows along the first axis, or None where it does not
    (another index, fewer than two positions, ``g`` not a NumPy array of one row per
    position)."""
    rows = index[0] if type(index) is tuple and len(index) == 1 else index
    if type(rows) is not np.ndarray or rows.dtype.kind not in "iu" or rows.size <= 1:
        return None
    if type(g) is not np.ndarray or g.shape != rows.shape + tuple(out_shape[1:]):
        return None
    return rows


# ufunc.at of these meeting a NaN sets the invalid flag, which the ufunc itself does not
# report (np.maximum(nan, 1.0) is quiet): NumPy's value, without the warning
_QUIET = {np.maximum: {"invalid": "ignore"}, np.minimum: {"invalid": "ignore"}}


def ufunc_at(ufunc, out, index, v):
    """``ufunc.at(out, index, v)``: the same values, in place, through ``out``'s flat
    positions where that is faster (see the module docstring)."""
    positions = _flat_positions(out, index) if out.ndim > 1 else None
    if positions is not None:
        index, v = positions.reshape(-1), np.broadcast_to(v, positions.shape).reshape(-1)
        out = out.reshape(-1)
    with np.errstate(**_QUIET.get(ufunc, {})):
        ufunc.at(out, index, v)


def _flat_positions(out, index):
    """The flat position in ``out`` of each element ``out[index]`` reads, or None where
    ufunc.at is to take the index itself (``out`` not C-contiguous, an index out of
    bounds, whose IndexError NumPy then raises, or few elements written)."""
    if not out.flags.c_contiguous:
        return None
    rows = index[0] if type(index) is tuple and len(index) == 1 else index
    n, width = out.shape[0], math.prod(out.shape[1:])
    if type(rows) is np.ndarray and rows.dtype.kind in "iu":  # whole rows
        if rows.size == 0:
            return None
        lowest, highest = rows.min(), rows.max()
        if lowest < -n or highest >= n:
            return None
        if lowest < 0:  # counted from the end, as NumPy counts them
            rows = np.where(rows < 0, rows + n, rows)
        flat = rows.astype(np.intp, copy=False)[..., None] * width + np.arange(width)
        return flat.reshape(rows.shape + out.shape[1:])
    try:
        written = np.broadcast_to(np.empty((), bool), out.shape)[index].size
    except IndexError:
        return None
    if out.size > SPARSE * written:
        return None
    return np.arange(out.size).reshape(out.shape)[index]
