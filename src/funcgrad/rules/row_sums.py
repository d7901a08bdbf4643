"""Rows added at integer positions: ``np.add.at(out, rows, g)`` for whole rows, an
embedding's cotangent (``untake`` of an integer array, a row ``scatter_add``).

np.add.at adds one share at a time through NumPy's indexing, its slowest path. Here in
rounds, the k-th share of every row in round k: a row appears once a round, so
``out[rows] += shares`` adds each in one vectorised call, with np.add.at's values to the
bit. A row repeated more than :data:`ROUNDS` times takes np.add.at itself. (Where numba
is installed, :mod:`funcgrad.kernels` registers a loop over the rows in their order in
front of ``untake`` and ``scatter_add`` for large arrays: one pass, the same bits.)

>>> import numpy as np
>>> out = np.zeros((3, 2))
>>> add_rows(out, np.array([2, 0, 2, -1]), np.ones((4, 2)))
>>> out
array([[1., 1.],
       [0., 0.],
       [3., 3.]])
"""

import numpy as np

__all__ = ["add_rows", "whole_rows", "ROUNDS"]

# A row repeated this many times makes as many rounds; np.add.at is faster beyond.
ROUNDS = 64


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


def add_rows(out, rows, g):
    """Adds ``g``'s rows (one per position of the integer array ``rows``, negative ones
    counted from the end) into ``out`` at those positions along its first axis, in place,
    with np.add.at's values; a position out of bounds raises NumPy's IndexError."""
    flat, n = rows.ravel(), out.shape[0]
    per_row = g.reshape((flat.size,) + out.shape[1:])
    lowest = flat.min()
    if lowest < -n or flat.max() >= n:
        np.add.at(out, flat, per_row)  # NumPy's IndexError
        return
    if lowest < 0:  # counted from the end: one name a row
        flat = np.where(flat < 0, flat + n, flat)
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    rank = np.arange(flat.size) - np.repeat(starts, np.diff(np.append(starts, flat.size)))
    if rank.max() >= ROUNDS:
        np.add.at(out, flat, per_row)
        return
    by_round = order[np.argsort(rank, kind="stable")]  # round 0's shares, then round 1's, ...
    ends = np.cumsum(np.bincount(rank))
    for lo, hi in zip(np.concatenate(([0], ends[:-1])), ends):
        picked = by_round[lo:hi]
        out[flat[picked]] += per_row[picked]  # distinct rows: each share added once
