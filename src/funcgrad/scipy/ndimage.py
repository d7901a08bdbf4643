"""``funcgrad.scipy.ndimage.map_coordinates``: an array read at fractional coordinates.

``map_coordinates(input, coordinates, order, mode, cval)`` reads ``input`` at
the points ``coordinates`` (one array per axis of ``input``) by nearest
neighbour (``order=0``) or linear interpolation (``order=1``), as SciPy's and
JAX's do, with the boundary modes ``nearest``, ``mirror`` and ``reflect`` (SciPy's),
``wrap`` (SciPy's ``grid-wrap``) and ``constant`` (``cval`` outside the grid, SciPy's
``grid-constant``: JAX's meaning of both names). Every value read is a gather of ``input`` at whole
indices, weighted by the distances to the point, so the result differentiates
in ``input`` and (for ``order=1``) in the coordinates, and runs under ``jit``
and ``vmap``.

>>> import numpy as np
>>> image = np.arange(12.0).reshape(4, 3)
>>> map_coordinates(image, [np.array([0.5, 2.0]), np.array([0.5, 1.0])], order=1)
array([2., 7.])
"""

import functools
import itertools
import operator

import numpy as np

from .. import numpy as fnp
from ..core.errors import ArgumentError
from ..core.values import dtype_of, shape_of

__all__ = ["map_coordinates"]


def _mirror(index, size):
    s = size - 1
    return fnp.abs((index + s) % (2 * s) - s) if s else 0 * index


_FIXERS = {
    "constant": lambda index, size: fnp.clip(index, 0, size - 1),
    "nearest": lambda index, size: fnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": lambda index, size: fnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2),
}


def _half_away(x):
    return fnp.sign(x) * fnp.floor(fnp.abs(x) + 0.5)


def _points(coordinate, order):
    """(integer index, weight) pairs reading one axis at ``coordinate``."""
    if order == 0:
        return [(fnp.astype(_half_away(coordinate), np.int64), 1.0)]
    lower = fnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = fnp.astype(lower, np.int64)
    return [(index, 1.0 - upper_weight), (index + 1, upper_weight)]


def map_coordinates(input, coordinates, order, mode="constant", cval=0.0):
    """``input`` read at ``coordinates`` (see the module docstring); ``order`` 0 or 1.

    >>> import numpy as np
    >>> from funcgrad.scipy.ndimage import map_coordinates
    >>> map_coordinates(np.arange(4.0), [np.array([-0.5, 3.5])], order=1, mode="wrap")
    array([1.5, 1.5])
    """
    if order not in (0, 1):
        raise ArgumentError(
            f"scipy.ndimage.map_coordinates: order must be 0 or 1 (JAX's too); got {order!r}"
        )
    if mode not in _FIXERS:
        raise ArgumentError(
            f"scipy.ndimage.map_coordinates: mode must be one of {sorted(_FIXERS)}; got {mode!r}"
        )
    coordinates = list(coordinates)
    shape = shape_of(input)
    if len(coordinates) != len(shape):
        raise ArgumentError(
            f"scipy.ndimage.map_coordinates: one coordinate array per axis of "
            f"the input ({len(shape)}); got {len(coordinates)}"
        )
    fix = _FIXERS[mode]
    per_axis = []
    for c, size in zip(coordinates, shape):
        points = []
        for index, weight in _points(fnp.asarray(c, dtype=np.float64), order):
            valid = fnp.logical_and(index >= 0, index < size) if mode == "constant" else None
            points.append((fix(index, size), valid, weight))
        per_axis.append(points)
    strides = [int(np.prod(shape[k + 1 :])) for k in range(len(shape))]
    flat = fnp.ravel(input)  # read by flat position: a plain input takes traced indices
    total = 0.0
    for corner in itertools.product(*per_axis):
        indices, valids, weights = zip(*corner)
        value = fnp.take(
            flat, functools.reduce(operator.add, [i * n for i, n in zip(indices, strides)])
        )
        checks = [v for v in valids if v is not None]
        if checks:
            value = fnp.where(functools.reduce(fnp.logical_and, checks), value, cval)
        total = total + functools.reduce(operator.mul, weights) * value
    if dtype_of(input).kind in "iu":
        return fnp.astype(_half_away(total), dtype_of(input))
    return fnp.astype(total, dtype_of(input)) if dtype_of(input).kind == "f" else total


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
