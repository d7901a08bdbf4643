"""NumPy's writing functions as JAX has them: ``fill_diagonal``, ``put``,
``put_along_axis``, ``place``, ``putmask`` and ``copyto`` return a new array where NumPy
writes in place.

On a plain array with NumPy's default (``inplace=True``) they write in place and
return None, as NumPy does; ``inplace=False`` (JAX's required form) returns the
written copy and leaves the argument alone, on plain and traced values alike. A
position written twice keeps the last value, as NumPy's loop does. The copy is
``where(written, values, a)`` with the values scattered to their positions, so
the result is differentiable in ``a`` (where not overwritten) and in the values.

>>> import numpy as np
>>> fill_diagonal(np.zeros((2, 3)), 5.0, inplace=False)
array([[5., 0., 0.],
       [0., 5., 0.]])
"""

import numpy as _np

from ..core.errors import ArgumentError
from ..core.values import dtype_of as _dtype_of
from ..core.values import shape_of as _shape_of
from ..rules import arrays as _a
from ..rules import elementwise as _e
from ..rules import gather as _g
from ..rules import ufuncs as _u
from ._helpers import as_array, concrete, is_traced
from ._shape import ravel, reshape

__all__ = ["fill_diagonal", "put", "put_along_axis", "place", "putmask", "copyto"]


def _written(a, positions, values, who):
    """``a`` (flattened) with ``values`` at the flat ``positions`` (the last of repeats)."""
    positions = _np.asarray(positions, dtype=_np.intp).ravel()
    values = ravel(as_array(values))
    n_values = _shape_of(values)[0]
    if n_values == 0:
        raise ArgumentError(f"{who}: no values to write")
    # NumPy cycles short values over the positions; a repeated position keeps its last write
    values = _a.getitem(values, index=_np.arange(len(positions)) % n_values)
    return reshape(_g.write_flat(ravel(a), positions, values), _shape_of(a))


def _result(a, out, inplace, who):
    if not inplace:
        return out
    if is_traced(a) or not isinstance(a, _np.ndarray):
        raise ArgumentError(
            f"{who}: a traced value cannot be written in place; pass "
            f"inplace=False and use the array it returns (JAX's form)"
        )
    a[...] = out
    return None


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """NumPy's ``fill_diagonal``: ``val`` (cycled) on the main diagonal of ``a``.

    >>> import numpy as np
    >>> from funcgrad.numpy import fill_diagonal
    >>> fill_diagonal(np.zeros((3, 2)), [1.0, 2.0], inplace=False)
    array([[1., 0.],
           [0., 2.],
           [0., 0.]])
    """
    shape = _shape_of(a)
    if len(shape) < 2:
        raise ArgumentError("fill_diagonal: a must have at least 2 dimensions")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ArgumentError(
            f"fill_diagonal: an array of more than 2 dimensions must have "
            f"equal sides; got shape {shape}"
        )
    step = 1 + int(_np.sum(_np.cumprod(shape[:0:-1])))  # NumPy's stride on the flat array
    end = None if wrap or len(shape) > 2 else shape[1] * shape[1]
    positions = _np.arange(int(_np.prod(shape)))[:end:step]
    return _result(a, _written(a, positions, val, "fill_diagonal"), inplace, "fill_diagonal")


def put(a, ind, v, mode="raise", *, inplace=True):
    """NumPy's ``put``: ``v`` (cycled) at the flat indices ``ind`` (``mode`` 'raise', 'wrap'
    or 'clip' for indices out of range).

    >>> import numpy as np
    >>> from funcgrad.numpy import put
    >>> put(np.zeros(4), [1, 3], [7.0, 8.0], inplace=False)
    array([0., 7., 0., 8.])
    """
    size = int(_np.prod(_shape_of(a)))
    ind = _np.asarray(concrete(ind, "put: ind"), dtype=_np.intp).ravel()
    if mode == "wrap":
        ind = ind % size
    elif mode == "clip":
        ind = _np.clip(ind, 0, size - 1)
    else:
        if ((ind < -size) | (ind >= size)).any():
            raise ArgumentError(
                f"put: an index is out of bounds for size {size}; pass mode='wrap' or 'clip'"
            )
        ind = ind % size
    return _result(a, _written(a, ind, v, "put"), inplace, "put")


def put_along_axis(arr, indices, values, axis, *, inplace=True, mode=None):
    """NumPy's ``put_along_axis``: ``values`` where ``take_along_axis`` would read.

    >>> import numpy as np
    >>> from funcgrad.numpy import put_along_axis
    >>> put_along_axis(np.zeros((2, 3)), np.array([[2], [0]]), 1.0, axis=1, inplace=False)
    array([[0., 0., 1.],
           [1., 0., 0.]])
    """
    shape = _shape_of(arr)
    indices = _np.asarray(concrete(indices, "put_along_axis: indices"), dtype=_np.intp)
    if axis is None:
        return put(ravel(arr) if not inplace else arr, indices, values, inplace=inplace)
    axis = axis % len(shape)
    if indices.ndim != len(shape):
        raise ArgumentError(
            f"put_along_axis: indices must have the {len(shape)} dimensions "
            f"of arr; got {indices.ndim}"
        )
    full = _np.broadcast_shapes(
        indices.shape, tuple(1 if i == axis else n for i, n in enumerate(shape))
    )
    grid = list(_np.indices(full, sparse=True))
    grid[axis] = _np.broadcast_to(indices, full) % shape[axis]
    positions = _np.ravel_multi_index(tuple(_np.broadcast_to(g, full) for g in grid), shape)
    vals = _a.broadcast_to(as_array(values), shape=full)
    return _result(arr, _written(arr, positions, vals, "put_along_axis"), inplace, "put_along_axis")


def place(arr, mask, vals, *, inplace=True):
    """NumPy's ``place``: ``vals`` (cycled) where ``mask`` holds, in order.

    >>> import numpy as np
    >>> from funcgrad.numpy import place
    >>> place(np.arange(4.0), np.array([True, False, True, False]), [9.0], inplace=False)
    array([9., 1., 9., 3.])
    """
    mask = _np.asarray(concrete(mask, "place: mask"), dtype=bool).ravel()
    positions = _np.flatnonzero(mask)
    if not len(positions):
        return _result(arr, arr if not inplace else as_array(arr), inplace, "place")
    return _result(arr, _written(arr, positions, vals, "place"), inplace, "place")


def putmask(a, mask, values, *, inplace=True):
    """NumPy's ``putmask``: ``a.flat[n] = values.flat[n % len(values)]`` where ``mask`` holds
    (unlike :func:`place`, a value is chosen by its position, not by the count of earlier
    writes).

    >>> import numpy as np
    >>> from funcgrad.numpy import putmask
    >>> putmask(np.arange(5.0), np.arange(5) > 2, [10.0, 20.0], inplace=False)
    array([ 0.,  1.,  2., 20., 10.])
    """
    mask = _np.asarray(concrete(mask, "putmask: mask"), dtype=bool)
    if mask.shape != _shape_of(a):
        raise ArgumentError(
            f"putmask: mask must have the shape of a, {_shape_of(a)}; got {mask.shape}"
        )
    positions = _np.flatnonzero(mask)
    if not len(positions):
        return _result(a, a if not inplace else as_array(a), inplace, "putmask")
    values = ravel(as_array(values))
    n_values = _shape_of(values)[0]
    if n_values == 0:
        raise ArgumentError("putmask: no values to write")
    chosen = _a.getitem(values, index=positions % n_values)
    return _result(a, _written(a, positions, chosen, "putmask"), inplace, "putmask")


def copyto(dst, src, casting="same_kind", where=True, *, inplace=True):
    """NumPy's ``copyto``: ``src`` (broadcast to ``dst``'s shape, in ``dst``'s dtype) where
    ``where`` holds, ``dst`` elsewhere; ``casting`` as NumPy's.

    >>> import numpy as np
    >>> from funcgrad.numpy import copyto
    >>> copyto(np.zeros(3), 5.0, where=np.array([True, False, True]), inplace=False)
    array([5., 0., 5.])
    """
    dtype = _dtype_of(dst)
    source = _dtype_of(src) if is_traced(src) else _np.result_type(src)
    if not _np.can_cast(source, dtype, casting=casting):
        raise ArgumentError(
            f"copyto: cannot cast {source} to {dtype} under casting={casting!r}; pass "
            f"casting='unsafe', or cast src yourself"
        )
    written = _a.broadcast_to(as_array(src), shape=_shape_of(dst))
    if _dtype_of(written) != dtype:
        written = _u.astype(written, dtype=dtype)
    out = written if where is True else _e.where(as_array(where), written, dst)
    return _result(dst, out, inplace, "copyto")
