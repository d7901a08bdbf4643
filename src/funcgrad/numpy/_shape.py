"""Shapes with NumPy's signatures: reshape, transpose, broadcast, at least n-D.

On plain arrays every function here is NumPy's own call, so values, dtypes
and views are NumPy's. On traced values each is a composition of the
structural primitives of :mod:`funcgrad.rules.arrays` (``reshape``,
``transpose``, ``broadcast_to``, ...), so it is differentiable in both modes,
to any order, and batches under ``vmap`` with no rule of its own. The other
modules of the NumPy layer's array functions: :mod:`._joining` (joining,
splitting, rearranging, sorting) and :mod:`._indexing` (indexing,
integer-valued functions, constructors).
"""

import operator
from functools import reduce

import numpy as _np

from ..core.errors import ArgumentError, ArgumentTypeError, ShapeError, UnsupportedError
from ..core.values import shape_of as _shape_of
from ..rules import arrays as _a
from ._helpers import as_array, check_axes, check_axis, fmt_shape, is_traced

__all__ = [
    "reshape",
    "ravel",
    "squeeze",
    "expand_dims",
    "transpose",
    "swapaxes",
    "moveaxis",
    "broadcast_to",
    "broadcast_arrays",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "rollaxis",
    "permute_dims",
    "matrix_transpose",
]


# ---------------------------------------------------------------- shapes


def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    """``numpy.reshape``: one ``-1`` allowed, ``order`` 'C' or 'F'.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sum(fnp.reshape(x, (2, -1))[0]))(fnp.arange(4.0))
    array([1., 1., 0., 0.])
    """
    if shape is None:
        shape = newshape
    if shape is None:
        raise ArgumentTypeError("reshape: missing the new shape, e.g. reshape(a, (2, 3))")
    if not is_traced(a):
        return _np.reshape(a, shape, order=order)
    shape = (shape,) if isinstance(shape, (int, _np.integer)) else tuple(map(int, shape))
    old = _shape_of(a)
    size = reduce(operator.mul, old, 1)
    known = reduce(operator.mul, [n for n in shape if n != -1] if -1 in shape else shape, 1)
    if (
        shape.count(-1) > 1
        or (-1 in shape and (known == 0 or size % known))
        or (-1 not in shape and known != size)
    ):
        raise ShapeError(
            f"reshape: cannot reshape an array of shape {fmt_shape(old)} ({size} elements) "
            f"into shape {fmt_shape(shape)}; the sizes must match"
        )
    if -1 in shape:
        shape = tuple(size // known if n == -1 else n for n in shape)
    if order == "F":
        return transpose(_a.reshape(transpose(a), shape=shape[::-1]))
    if order not in ("C", "A"):
        raise UnsupportedError(f"reshape: order={order!r} is not supported; use 'C' or 'F'")
    return a if shape == old else _a.reshape(a, shape=shape)


def ravel(a, order="C"):
    """``numpy.ravel``: a flat view (C or F order).

    >>> import funcgrad.numpy as fnp
    >>> fnp.ravel(fnp.eye(2))
    array([1., 0., 0., 1.])
    """
    if not is_traced(a):
        return _np.ravel(a, order=order)
    return reshape(a, (-1,), order=order)


def squeeze(a, axis=None):
    """``numpy.squeeze``: drop size-1 axes (all of them, or those in ``axis``).

    >>> import funcgrad.numpy as fnp
    >>> fnp.squeeze(fnp.zeros((1, 3, 1)), axis=0).shape
    (3, 1)
    """
    if not is_traced(a):
        return _np.squeeze(a, axis=axis)
    shape = _shape_of(a)
    if axis is None:
        axis = tuple(i for i, n in enumerate(shape) if n == 1)
    if not shape and isinstance(axis, (int, _np.integer)):
        check_axes(axis, 1, "squeeze")  # NumPy lets a 0-d array's squeeze name axis 0 or -1
        return a
    axis = check_axes(axis, len(shape), "squeeze")
    for ax in axis:
        if shape[ax] != 1:
            raise ShapeError(
                f"squeeze: axis {ax} of shape {fmt_shape(shape)} has size {shape[ax]}, "
                f"not 1; only size-1 axes can be squeezed"
            )
    return _a.squeeze(a, axis=axis) if axis else a


def expand_dims(a, axis):
    """``numpy.expand_dims``: insert size-1 axes (an int or a tuple of them).

    >>> import funcgrad.numpy as fnp
    >>> fnp.expand_dims(fnp.ones(3), (0, 2)).shape
    (1, 3, 1)
    """
    if not is_traced(a):
        return _np.expand_dims(a, axis)
    count = 1 if isinstance(axis, (int, _np.integer)) else len(tuple(axis))
    axis = check_axes(axis, len(_shape_of(a)) + count, "expand_dims")
    return _a.expand_dims(a, axis=axis)


def transpose(a, axes=None):
    """``numpy.transpose``: reverse the axes, or permute them by ``axes``.

    >>> import funcgrad.numpy as fnp
    >>> fnp.transpose(fnp.zeros((1, 2, 3)), (2, 0, 1)).shape
    (3, 1, 2)
    """
    if not is_traced(a):
        return _np.transpose(a, axes)
    nd = len(_shape_of(a))
    if axes is None:
        return a if nd < 2 else _a.transpose(a)
    axes = check_axes(axes, nd, "transpose")
    if len(axes) != nd:
        raise ArgumentError(
            f"transpose: axes {tuple(axes)} don't match an array of dimension {nd}; "
            f"give one entry per axis"
        )
    return a if axes == tuple(range(nd)) else _a.transpose(a, axes=axes)


def swapaxes(a, axis1, axis2):
    """``numpy.swapaxes``.

    >>> import funcgrad.numpy as fnp
    >>> fnp.swapaxes(fnp.zeros((1, 2, 3)), 0, -1).shape
    (3, 2, 1)
    """
    if not is_traced(a):
        return _np.swapaxes(a, axis1, axis2)
    nd = len(_shape_of(a))
    return _a.swapaxes(
        a, axis1=check_axis(axis1, nd, "swapaxes"), axis2=check_axis(axis2, nd, "swapaxes")
    )


def moveaxis(a, source, destination):
    """``numpy.moveaxis``: move axes to new positions, keeping the others in order.

    >>> import funcgrad.numpy as fnp
    >>> fnp.moveaxis(fnp.zeros((1, 2, 3)), 0, -1).shape
    (2, 3, 1)
    """
    if not is_traced(a):
        return _np.moveaxis(a, source, destination)
    nd = len(_shape_of(a))
    source = check_axes(source, nd, "moveaxis")
    destination = check_axes(destination, nd, "moveaxis")
    if len(source) != len(destination):
        raise ArgumentError(
            "moveaxis: `source` and `destination` must have the same number of axes"
        )
    order = [n for n in range(nd) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return transpose(a, order)


def broadcast_to(array, shape, subok=False):
    """``numpy.broadcast_to``; the gradient sums over the broadcast axes.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sum(fnp.broadcast_to(x, (4, 2))))(fnp.ones(2))
    array([4., 4.])
    """
    shape = (int(shape),) if isinstance(shape, (int, _np.integer)) else tuple(int(n) for n in shape)
    old = _shape_of(array)
    try:
        _np.broadcast_shapes(old, shape)
        ok = len(old) <= len(shape) and _np.broadcast_shapes(old, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ShapeError(
            f"broadcast_to: cannot broadcast an array of shape {fmt_shape(old)} to shape "
            f"{fmt_shape(shape)}; each axis must match or have size 1"
        )
    if not is_traced(array):
        return _np.broadcast_to(array, shape, subok=subok)
    return array if old == shape else _a.broadcast_to(array, shape=shape)


def broadcast_arrays(*args, subok=False):
    """``numpy.broadcast_arrays``: a tuple of the arguments broadcast to one shape.

    >>> import funcgrad.numpy as fnp
    >>> [x.shape for x in fnp.broadcast_arrays(fnp.ones((2, 1)), fnp.ones(3))]
    [(2, 3), (2, 3)]
    """
    if not is_traced(*args):
        return _np.broadcast_arrays(*args, subok=subok)
    shapes = [_shape_of(x) for x in args]
    try:
        shape = _np.broadcast_shapes(*shapes)
    except ValueError:
        raise ShapeError(
            f"broadcast_arrays: shapes {', '.join(map(fmt_shape, shapes))} do not "
            f"broadcast together; each axis must match or have size 1"
        ) from None
    return tuple(broadcast_to(as_array(x), shape) for x in args)


def at_least_ndim(x, nd):
    x = as_array(x)
    shape = _shape_of(x)
    if len(shape) >= nd:
        return x
    if nd == 3 and len(shape) == 2:
        new = shape + (1,)
    elif nd == 3 and len(shape) == 1:
        new = (1,) + shape + (1,)
    else:
        new = (1,) * (nd - len(shape)) + shape
    return _a.reshape(x, shape=new)


def _atleast_n(nd, name, arys):
    if not is_traced(*arys):
        return getattr(_np, name)(*arys)
    out = tuple(at_least_ndim(x, nd) for x in arys)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """``numpy.atleast_1d``.

    >>> import funcgrad.numpy as fnp
    >>> fnp.atleast_1d(2.0)
    array([2.])
    """
    return _atleast_n(1, "atleast_1d", arys)


def atleast_2d(*arys):
    """``numpy.atleast_2d``: a 1-D array becomes a row.

    >>> import funcgrad.numpy as fnp
    >>> fnp.atleast_2d(fnp.ones(3)).shape
    (1, 3)
    """
    return _atleast_n(2, "atleast_2d", arys)


def atleast_3d(*arys):
    """``numpy.atleast_3d``: (n,) becomes (1, n, 1), (m, n) becomes (m, n, 1).

    >>> import funcgrad.numpy as fnp
    >>> fnp.atleast_3d(fnp.ones((2, 3))).shape
    (2, 3, 1)
    """
    return _atleast_n(3, "atleast_3d", arys)


def rollaxis(a, axis, start=0):
    """``numpy.rollaxis``: ``axis`` moved to sit before ``start`` (the older moveaxis).

    >>> import numpy as np
    >>> from funcgrad.numpy import rollaxis
    >>> rollaxis(np.ones((2, 3, 4)), 2).shape
    (4, 2, 3)
    """
    if not is_traced(a):
        return _np.rollaxis(a, axis, start)
    nd = len(_shape_of(a))
    axis = check_axis(axis, nd, "rollaxis")
    if not -nd <= start <= nd:
        raise _np.exceptions.AxisError(
            f"rollaxis: start {start} is out of bounds for {nd} dimensions"
        )
    start = start % (nd + 1) if start < 0 else start
    if axis < start:
        start -= 1
    return a if axis == start else moveaxis(a, axis, start)


def permute_dims(a, /, axes=None):
    """``numpy.permute_dims``: the Array API's name for transpose.

    >>> import numpy as np
    >>> from funcgrad.numpy import permute_dims
    >>> permute_dims(np.ones((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    return transpose(a, axes)


def matrix_transpose(x, /):
    """``numpy.matrix_transpose``: the last two axes swapped.

    >>> import numpy as np
    >>> from funcgrad.numpy import matrix_transpose
    >>> matrix_transpose(np.ones((5, 2, 3))).shape
    (5, 3, 2)
    """
    if len(_shape_of(x)) < 2:
        raise ArgumentError(
            f"matrix_transpose: needs at least 2 dimensions; got shape {_shape_of(x)}"
        )
    return swapaxes(x, -1, -2)
