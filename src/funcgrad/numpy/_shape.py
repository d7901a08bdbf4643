"""Shapes, joining, splitting, indexing and sorting, with NumPy's signatures.

On plain arrays every function here is NumPy's own call, so values, dtypes
and views are NumPy's. On traced values each is a composition of the
structural primitives of :mod:`funcgrad.rules.arrays` (``reshape``,
``getitem``, ``concatenate``, ...), so it is differentiable in both modes, to
any order, and batches under ``vmap`` with no rule of its own. Only sorting
needs more (:mod:`funcgrad.rules.shape`): its index depends on the values.

Integer-valued functions (``argsort``, ``argmax``, ``nonzero``, ...) read the
values underneath and return plain integer arrays; they carry no gradient.
Constructors are NumPy's; the ``*_like`` ones also accept traced values.
"""

import operator
from functools import reduce

import numpy as _np
from numpy import (  # noqa: F401
    arange,
    empty,
    eye,
    full,
    identity,
    indices,
    linspace,
    logspace,
    meshgrid,
    ones,
    random,
    tri,
    zeros,
)

from ..errors import ShapeError
from ..rules import arrays as _a
from ..rules import shape as _s
from ..rules.elementwise import where as _where
from ..traces import Box
from ..values import plain as _plain
from ..values import raw as _raw
from ..values import shape_of as _shape_of

__all__ = [
    # shapes
    "reshape", "ravel", "squeeze", "expand_dims", "transpose", "swapaxes", "moveaxis",
    "broadcast_to", "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d",
    # joining and splitting
    "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
    "split", "array_split", "hsplit", "vsplit", "dsplit",
    # rearranging
    "tile", "repeat", "flip", "fliplr", "flipud", "roll", "rot90", "pad", "sort",
    # indexing
    "take", "take_along_axis", "choose", "select",
    # integer-valued (no gradient)
    "argsort", "argmax", "argmin", "nonzero", "searchsorted",
    # constructors
    "zeros", "ones", "empty", "full", "eye", "identity", "arange", "linspace", "logspace",
    "tri", "meshgrid", "indices", "zeros_like", "ones_like", "empty_like", "full_like",
    "random",
]


# ---------------------------------------------------------------- helpers

def _traced(*xs):
    return any(isinstance(x, Box) for x in xs)


def _shape(x):
    return _shape_of(x)


def _operand(x):
    """A traced value as it is; anything else as a NumPy array (lists, numbers)."""
    return x if isinstance(x, Box) else _np.asarray(x)


def _axis(axis, ndim, who):
    """``axis`` made non-negative, or a NumPy-style AxisError naming ``who``."""
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(
            f"{who}: axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim


def _axes(axis, ndim, who):
    axis = (axis,) if isinstance(axis, (int, _np.integer)) else tuple(axis)
    out = tuple(_axis(int(a), ndim, who) for a in axis)
    if len(set(out)) != len(out):
        raise ValueError(f"{who}: repeated axis in {axis}")
    return out


def _take1(x, index, axis):
    """``x`` indexed by ``index`` (int, slice or int array) along one axis."""
    return _a.getitem(x, index=(slice(None),) * axis + (index,))


def _fmt(shape):
    return str(tuple(shape))


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
        raise TypeError("reshape: missing the new shape, e.g. reshape(a, (2, 3))")
    if not _traced(a):
        return _np.reshape(a, shape, order=order)
    shape = (shape,) if isinstance(shape, (int, _np.integer)) else tuple(int(n) for n in shape)
    old = _shape(a)
    size = reduce(operator.mul, old, 1)
    known = reduce(operator.mul, (n for n in shape if n != -1), 1)
    if shape.count(-1) > 1 or (-1 in shape and (known == 0 or size % known)) or \
            (-1 not in shape and known != size):
        raise ShapeError(f"reshape: cannot reshape an array of shape {_fmt(old)} ({size} elements) "
                         f"into shape {_fmt(shape)}; the sizes must match")
    if -1 in shape:
        shape = tuple(size // known if n == -1 else n for n in shape)
    if order == "F":
        return transpose(_a.reshape(transpose(a), shape=shape[::-1]))
    if order not in ("C", "A"):
        raise NotImplementedError(f"reshape: order={order!r} is not supported; use 'C' or 'F'")
    return a if shape == old else _a.reshape(a, shape=shape)


def ravel(a, order="C"):
    """``numpy.ravel``: a flat view (C or F order).

    >>> import funcgrad.numpy as fnp
    >>> fnp.ravel(fnp.eye(2))
    array([1., 0., 0., 1.])
    """
    if not _traced(a):
        return _np.ravel(a, order=order)
    return reshape(a, (-1,), order=order)


def squeeze(a, axis=None):
    """``numpy.squeeze``: drop size-1 axes (all of them, or those in ``axis``).

    >>> import funcgrad.numpy as fnp
    >>> fnp.squeeze(fnp.zeros((1, 3, 1)), axis=0).shape
    (3, 1)
    """
    if not _traced(a):
        return _np.squeeze(a, axis=axis)
    shape = _shape(a)
    if axis is None:
        axis = tuple(i for i, n in enumerate(shape) if n == 1)
    axis = _axes(axis, len(shape), "squeeze")
    for ax in axis:
        if shape[ax] != 1:
            raise ShapeError(f"squeeze: axis {ax} of shape {_fmt(shape)} has size {shape[ax]}, "
                             f"not 1; only size-1 axes can be squeezed")
    return _a.squeeze(a, axis=axis) if axis else a


def expand_dims(a, axis):
    """``numpy.expand_dims``: insert size-1 axes (an int or a tuple of them).

    >>> import funcgrad.numpy as fnp
    >>> fnp.expand_dims(fnp.ones(3), (0, 2)).shape
    (1, 3, 1)
    """
    if not _traced(a):
        return _np.expand_dims(a, axis)
    count = 1 if isinstance(axis, (int, _np.integer)) else len(tuple(axis))
    axis = _axes(axis, len(_shape(a)) + count, "expand_dims")
    return _a.expand_dims(a, axis=axis)


def transpose(a, axes=None):
    """``numpy.transpose``: reverse the axes, or permute them by ``axes``.

    >>> import funcgrad.numpy as fnp
    >>> fnp.transpose(fnp.zeros((1, 2, 3)), (2, 0, 1)).shape
    (3, 1, 2)
    """
    if not _traced(a):
        return _np.transpose(a, axes)
    nd = len(_shape(a))
    if axes is None:
        return a if nd < 2 else _a.transpose(a)
    axes = _axes(axes, nd, "transpose")
    if len(axes) != nd:
        raise ValueError(f"transpose: axes {tuple(axes)} don't match an array of dimension {nd}; "
                         f"give one entry per axis")
    return a if axes == tuple(range(nd)) else _a.transpose(a, axes=axes)


def swapaxes(a, axis1, axis2):
    """``numpy.swapaxes``.

    >>> import funcgrad.numpy as fnp
    >>> fnp.swapaxes(fnp.zeros((1, 2, 3)), 0, -1).shape
    (3, 2, 1)
    """
    if not _traced(a):
        return _np.swapaxes(a, axis1, axis2)
    nd = len(_shape(a))
    return _a.swapaxes(a, axis1=_axis(axis1, nd, "swapaxes"), axis2=_axis(axis2, nd, "swapaxes"))


def moveaxis(a, source, destination):
    """``numpy.moveaxis``: move axes to new positions, keeping the others in order.

    >>> import funcgrad.numpy as fnp
    >>> fnp.moveaxis(fnp.zeros((1, 2, 3)), 0, -1).shape
    (2, 3, 1)
    """
    if not _traced(a):
        return _np.moveaxis(a, source, destination)
    nd = len(_shape(a))
    source = _axes(source, nd, "moveaxis")
    destination = _axes(destination, nd, "moveaxis")
    if len(source) != len(destination):
        raise ValueError("moveaxis: `source` and `destination` must have the same number of axes")
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
    old = _shape(array)
    try:
        _np.broadcast_shapes(old, shape)
        ok = len(old) <= len(shape) and _np.broadcast_shapes(old, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ShapeError(f"broadcast_to: cannot broadcast an array of shape {_fmt(old)} to shape "
                         f"{_fmt(shape)}; each axis must match or have size 1")
    if not _traced(array):
        return _np.broadcast_to(array, shape, subok=subok)
    return array if old == shape else _a.broadcast_to(array, shape=shape)


def broadcast_arrays(*args, subok=False):
    """``numpy.broadcast_arrays``: a tuple of the arguments broadcast to one shape.

    >>> import funcgrad.numpy as fnp
    >>> [x.shape for x in fnp.broadcast_arrays(fnp.ones((2, 1)), fnp.ones(3))]
    [(2, 3), (2, 3)]
    """
    if not _traced(*args):
        return _np.broadcast_arrays(*args, subok=subok)
    shapes = [_shape(x) for x in args]
    try:
        shape = _np.broadcast_shapes(*shapes)
    except ValueError:
        raise ShapeError(f"broadcast_arrays: shapes {', '.join(map(_fmt, shapes))} do not "
                         f"broadcast together; each axis must match or have size 1") from None
    return tuple(broadcast_to(_operand(x), shape) for x in args)


def _atleast(x, nd):
    x = _operand(x)
    shape = _shape(x)
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
    if not _traced(*arys):
        return getattr(_np, name)(*arys)
    out = tuple(_atleast(x, nd) for x in arys)
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


# ---------------------------------------------------------------- joining

def _check_join(who, shapes, axis):
    """Same number of dimensions, and equal sizes off ``axis`` (None: equal shapes)."""
    first = shapes[0]
    for s in shapes[1:]:
        if len(s) != len(first) or any(m != n for d, (m, n) in enumerate(zip(first, s))
                                       if d != axis):
            along = "" if axis is None else f" along axis {axis}"
            rule = ("all arrays must have the same shape" if axis is None else
                    "all sizes must match except along the joining axis")
            raise ShapeError(f"{who}: cannot join arrays of shapes {_fmt(first)} and {_fmt(s)}"
                             f"{along}; {rule}")


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """``numpy.concatenate``; ``axis=None`` flattens every array first.

    >>> import funcgrad.numpy as fnp
    >>> fnp.concatenate([fnp.zeros((2, 3)), fnp.ones((2, 4))], axis=1).shape
    (2, 7)
    >>> fnp.concatenate([fnp.zeros((2, 3)), fnp.ones((2, 4))], axis=0)
    Traceback (most recent call last):
    ...
    funcgrad.errors.ShapeError: concatenate: cannot join arrays of shapes (2, 3) and (2, 4) along axis 0; all sizes must match except along the joining axis
    """
    arrays = [_operand(x) for x in arrays]
    if not arrays:
        raise ValueError("concatenate: need at least one array to concatenate")
    if axis is None:
        arrays = [ravel(x) for x in arrays]
        axis = 0
    shapes = [_shape(x) for x in arrays]
    if not shapes[0]:
        raise ValueError("concatenate: zero-dimensional arrays cannot be concatenated; "
                         "use stack, or atleast_1d first")
    axis = _axis(axis, len(shapes[0]), "concatenate")
    _check_join("concatenate", shapes, axis)
    if not _traced(*arrays):
        return _np.concatenate(arrays, axis=axis, out=out, dtype=dtype, casting=casting)
    if len(arrays) == 1:
        return arrays[0]
    return _a.concatenate(*arrays, axis=axis)


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """``numpy.stack``: join equal-shaped arrays along a new axis.

    >>> import funcgrad.numpy as fnp
    >>> fnp.stack([fnp.zeros(3), fnp.ones(3)], axis=1).shape
    (3, 2)
    """
    arrays = [_operand(x) for x in arrays]
    if not arrays:
        raise ValueError("stack: need at least one array to stack")
    shapes = [_shape(x) for x in arrays]
    _check_join("stack", shapes, None)
    if not _traced(*arrays):
        return _np.stack(arrays, axis=axis, out=out, dtype=dtype, casting=casting)
    axis = _axis(axis, len(shapes[0]) + 1, "stack")
    return concatenate([_a.expand_dims(x, axis=axis) for x in arrays], axis=axis)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """``numpy.hstack``: along axis 1 (axis 0 for 1-D arrays).

    >>> import funcgrad.numpy as fnp
    >>> fnp.hstack([fnp.zeros(2), fnp.ones(3)]).shape
    (5,)
    """
    if not _traced(*tup):
        return _np.hstack(tup, dtype=dtype, casting=casting)
    arrays = [_atleast(x, 1) for x in tup]
    return concatenate(arrays, axis=0 if len(_shape(arrays[0])) == 1 else 1)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """``numpy.vstack``: 1-D arrays become rows, joined along axis 0.

    >>> import funcgrad.numpy as fnp
    >>> fnp.vstack([fnp.zeros(3), fnp.ones((2, 3))]).shape
    (3, 3)
    """
    if not _traced(*tup):
        return _np.vstack(tup, dtype=dtype, casting=casting)
    return concatenate([_atleast(x, 2) for x in tup], axis=0)


def dstack(tup):
    """``numpy.dstack``: along the third axis.

    >>> import funcgrad.numpy as fnp
    >>> fnp.dstack([fnp.zeros((2, 3)), fnp.ones((2, 3))]).shape
    (2, 3, 2)
    """
    if not _traced(*tup):
        return _np.dstack(tup)
    return concatenate([_atleast(x, 3) for x in tup], axis=2)


def column_stack(tup):
    """``numpy.column_stack``: 1-D arrays become columns.

    >>> import funcgrad.numpy as fnp
    >>> fnp.column_stack([fnp.zeros(3), fnp.ones((3, 2))]).shape
    (3, 3)
    """
    if not _traced(*tup):
        return _np.column_stack(tup)
    cols = []
    for x in tup:
        x = _operand(x)
        s = _shape(x)
        cols.append(_a.reshape(x, shape=(s[0], 1)) if len(s) == 1 else _atleast(x, 2))
    return concatenate(cols, axis=1)


# ---------------------------------------------------------------- splitting

def _split(ary, indices_or_sections, axis, equal, who):
    ary = _operand(ary)
    shape = _shape(ary)
    axis = _axis(axis, len(shape), who)
    n = shape[axis]
    if isinstance(indices_or_sections, (int, _np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError(f"{who}: the number of sections must be larger than 0; got {sections}")
        if equal and n % sections:
            raise ShapeError(f"{who}: axis {axis} of shape {_fmt(shape)} has size {n}, which "
                             f"{sections} sections cannot divide equally; use array_split")
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [n]
    return [_take1(ary, slice(start, stop), axis) for start, stop in zip(bounds[:-1], bounds[1:])]


def split(ary, indices_or_sections, axis=0):
    """``numpy.split``: equal sections, or split points along ``axis``.

    >>> import funcgrad.numpy as fnp
    >>> [p.shape for p in fnp.split(fnp.zeros((2, 6)), [1, 4], axis=1)]
    [(2, 1), (2, 3), (2, 2)]
    """
    if not _traced(ary):
        return _np.split(ary, indices_or_sections, axis=axis)
    return _split(ary, indices_or_sections, axis, True, "split")


def array_split(ary, indices_or_sections, axis=0):
    """``numpy.array_split``: like split, but sections need not be equal.

    >>> import funcgrad.numpy as fnp
    >>> [p.shape for p in fnp.array_split(fnp.zeros(5), 3)]
    [(2,), (2,), (1,)]
    """
    if not _traced(ary):
        return _np.array_split(ary, indices_or_sections, axis=axis)
    return _split(ary, indices_or_sections, axis, False, "array_split")


def hsplit(ary, indices_or_sections):
    """``numpy.hsplit``: split along axis 1 (axis 0 for 1-D arrays).

    >>> import funcgrad.numpy as fnp
    >>> [p.shape for p in fnp.hsplit(fnp.zeros((2, 4)), 2)]
    [(2, 2), (2, 2)]
    """
    if not _traced(ary):
        return _np.hsplit(ary, indices_or_sections)
    nd = len(_shape(ary))
    if nd == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return _split(ary, indices_or_sections, 1 if nd > 1 else 0, True, "hsplit")


def vsplit(ary, indices_or_sections):
    """``numpy.vsplit``: split along axis 0 of an array of 2 or more dimensions.

    >>> import funcgrad.numpy as fnp
    >>> [p.shape for p in fnp.vsplit(fnp.zeros((4, 2)), [1])]
    [(1, 2), (3, 2)]
    """
    if not _traced(ary):
        return _np.vsplit(ary, indices_or_sections)
    if len(_shape(ary)) < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return _split(ary, indices_or_sections, 0, True, "vsplit")


def dsplit(ary, indices_or_sections):
    """``numpy.dsplit``: split along axis 2 of an array of 3 or more dimensions.

    >>> import funcgrad.numpy as fnp
    >>> [p.shape for p in fnp.dsplit(fnp.zeros((1, 1, 4)), 2)]
    [(1, 1, 2), (1, 1, 2)]
    """
    if not _traced(ary):
        return _np.dsplit(ary, indices_or_sections)
    if len(_shape(ary)) < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return _split(ary, indices_or_sections, 2, True, "dsplit")


# ---------------------------------------------------------------- rearranging

def tile(A, reps):
    """``numpy.tile``: repeat the whole array ``reps`` times along each axis.

    >>> import funcgrad.numpy as fnp
    >>> fnp.tile(fnp.arange(2.0), (2, 2))
    array([[0., 1., 0., 1.],
           [0., 1., 0., 1.]])
    """
    if not _traced(A):
        return _np.tile(A, reps)
    reps = (int(reps),) if isinstance(reps, (int, _np.integer)) else tuple(int(r) for r in reps)
    shape = _shape(A)
    nd = max(len(shape), len(reps))
    shape = (1,) * (nd - len(shape)) + shape
    reps = (1,) * (nd - len(reps)) + reps
    if all(r == 1 for r in reps):
        return _a.reshape(A, shape=shape) if shape != _shape(A) else A
    spread = tuple(n for pair in zip((1,) * nd, shape) for n in pair)
    big = tuple(n for pair in zip(reps, shape) for n in pair)
    x = _a.broadcast_to(_a.reshape(A, shape=spread), shape=big)
    return _a.reshape(x, shape=tuple(r * n for r, n in zip(reps, shape)))


def repeat(a, repeats, axis=None):
    """``numpy.repeat``: repeat each element (``repeats`` a scalar or one count each).

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sum(fnp.repeat(x, [1, 3])))(fnp.ones(2))
    array([1., 3.])
    """
    if not _traced(a):
        return _np.repeat(a, repeats, axis=axis)
    if axis is None:
        a, axis = ravel(a), 0
    shape = _shape(a)
    axis = _axis(axis, len(shape), "repeat")
    counts = _np.asarray(repeats)
    if counts.ndim > 1 or (counts.ndim == 1 and counts.size not in (1, shape[axis])):
        raise ShapeError(f"repeat: repeats of shape {_fmt(counts.shape)} do not fit axis {axis} of "
                         f"shape {_fmt(shape)}; give one count, or one per element")
    return _take1(a, _np.repeat(_np.arange(shape[axis]), counts), axis)


def flip(m, axis=None):
    """``numpy.flip``: reverse the order along ``axis`` (all axes for None).

    >>> import funcgrad.numpy as fnp
    >>> fnp.flip(fnp.arange(3.0))
    array([2., 1., 0.])
    """
    if not _traced(m):
        return _np.flip(m, axis)
    nd = len(_shape(m))
    axes = range(nd) if axis is None else _axes(axis, nd, "flip")
    index = tuple(slice(None, None, -1) if d in axes else slice(None) for d in range(nd))
    return _a.getitem(m, index=index) if axes else m


def fliplr(m):
    """``numpy.fliplr``: reverse the columns (axis 1).

    >>> import funcgrad.numpy as fnp
    >>> fnp.fliplr(fnp.eye(2))
    array([[0., 1.],
           [1., 0.]])
    """
    if not _traced(m):
        return _np.fliplr(m)
    if len(_shape(m)) < 2:
        raise ValueError("fliplr: input must be >= 2-d")
    return flip(m, 1)


def flipud(m):
    """``numpy.flipud``: reverse the rows (axis 0).

    >>> import funcgrad.numpy as fnp
    >>> fnp.flipud(fnp.arange(2.0))
    array([1., 0.])
    """
    if not _traced(m):
        return _np.flipud(m)
    if len(_shape(m)) < 1:
        raise ValueError("flipud: input must be >= 1-d")
    return flip(m, 0)


def roll(a, shift, axis=None):
    """``numpy.roll``: shift elements cyclically (shifts and axes may be tuples).

    >>> import funcgrad.numpy as fnp
    >>> fnp.roll(fnp.arange(4.0), 1)
    array([3., 0., 1., 2.])
    """
    if not _traced(a):
        return _np.roll(a, shift, axis=axis)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), _shape(a))
    shape = _shape(a)
    total = {}
    for s, ax in _np.broadcast(shift, axis):
        ax = _axis(int(ax), len(shape), "roll")
        total[ax] = total.get(ax, 0) + int(s)
    for ax, s in sorted(total.items()):
        n = shape[ax]
        if n and s % n:
            a = _take1(a, (_np.arange(n) - s) % n, ax)
    return a


def rot90(m, k=1, axes=(0, 1)):
    """``numpy.rot90``: rotate by 90 degrees ``k`` times in the plane of ``axes``.

    >>> import funcgrad.numpy as fnp
    >>> fnp.rot90(fnp.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[2., 4.],
           [1., 3.]])
    """
    if not _traced(m):
        return _np.rot90(m, k, axes)
    axes = tuple(axes)
    nd = len(_shape(m))
    if len(axes) != 2:
        raise ValueError("rot90: len(axes) must be 2")
    a0, a1 = _axis(axes[0], nd, "rot90"), _axis(axes[1], nd, "rot90")
    if a0 == a1:
        raise ValueError("rot90: axes must be different")
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    perm = list(range(nd))
    perm[a0], perm[a1] = a1, a0
    if k == 1:
        return transpose(flip(m, a1), perm)
    return flip(transpose(m, perm), a1)


def _pairs(value, nd, who, what):
    try:
        return _np.broadcast_to(_np.asarray(value), (nd, 2))
    except ValueError:
        raise ValueError(f"{who}: {what} {value!r} does not fit an array of dimension {nd}; give "
                         f"one (before, after) pair per axis, one pair, or one number") from None


_INDEX_MODES = ("edge", "reflect", "symmetric", "wrap")


def pad(array, pad_width, mode="constant", **kwargs):
    """``numpy.pad`` in the modes 'constant' (``constant_values``), 'edge', 'reflect',
    'symmetric' and 'wrap'. The gradient of a padded value flows back to the
    element it was copied from.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.pad(fnp.array([1.0, 2.0]), (1, 2), mode="edge")
    array([1., 1., 2., 2., 2.])
    >>> fg.grad(lambda x: fnp.sum(fnp.pad(x, 1, mode="reflect")))(fnp.ones(3))
    array([1., 3., 1.])
    """
    if not _traced(array):
        return _np.pad(array, pad_width, mode=mode, **kwargs)
    shape = _shape(array)
    nd = len(shape)
    widths = _pairs(pad_width, nd, "pad", "pad_width").astype(int)
    if (widths < 0).any():
        raise ValueError(f"pad: pad_width must be non-negative; got {pad_width!r}")
    x = array
    if mode == "constant":
        unknown = set(kwargs) - {"constant_values"}
        if unknown:
            raise TypeError(f"pad: unsupported keyword arguments for mode 'constant': {sorted(unknown)}")
        values = _pairs(kwargs.get("constant_values", 0), nd, "pad", "constant_values")
        dtype = _np.result_type(_raw(array))
        for ax in range(nd):
            parts = []
            cur = _shape(x)
            for side in (0, 1):
                w = widths[ax, side]
                if w:
                    block = _np.full(cur[:ax] + (w,) + cur[ax + 1:], values[ax, side], dtype=dtype)
                    parts.append(block)
                if side == 0:
                    parts.append(x)
            if len(parts) > 1:
                x = _a.concatenate(*parts, axis=ax)
        return x
    if mode in _INDEX_MODES:
        if kwargs.get("reflect_type", "even") != "even":
            raise NotImplementedError("pad: reflect_type='odd' is not supported; use 'even'")
        unknown = set(kwargs) - {"reflect_type"}
        if unknown:
            raise TypeError(f"pad: unsupported keyword arguments for mode {mode!r}: {sorted(unknown)}")
        for ax in range(nd):
            before, after = widths[ax]
            if before or after:
                # the source of every output position: the same padding applied to the positions
                source = _np.pad(_np.arange(shape[ax]), (before, after), mode=mode)
                x = _take1(x, source, ax)
        return x
    raise NotImplementedError(
        f"pad: mode {mode!r} has no derivative rule in funcgrad.numpy; use one of "
        f"'constant', {', '.join(repr(m) for m in _INDEX_MODES)}")


def sort(a, axis=-1, kind=None, order=None):
    """``numpy.sort``; the gradient follows each element to where it was sorted.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sort(x)[0])(fnp.array([3.0, 1.0, 2.0]))
    array([0., 1., 0.])
    """
    if not _traced(a):
        return _np.sort(a, axis=axis, kind=kind, order=order)
    if order is not None:
        raise NotImplementedError("sort: order= sorts structured arrays, which carry no gradient")
    if axis is None:
        a, axis = ravel(a), 0
    nd = len(_shape(a))
    if nd == 0:
        raise _np.exceptions.AxisError("sort: a 0-d array has no axis to sort along")
    axis = _axis(axis, nd, "sort")
    index = _s.argsort(_plain(a), axis=axis, kind="stable")
    return _s.take_along(a, index, axis=axis)


# ---------------------------------------------------------------- indexing

def _index_mode(indices, n, mode, who):
    indices = _np.asarray(indices)
    if mode == "wrap":
        return indices % n
    if mode == "clip":
        return _np.clip(indices, 0, n - 1)
    if mode != "raise":
        raise ValueError(f"{who}: mode must be 'raise', 'wrap' or 'clip'; got {mode!r}")
    return indices


def take(a, indices, axis=None, out=None, mode="raise"):
    """``numpy.take``: elements at ``indices`` along ``axis`` (of the flat array for None).
    Repeated indices add their gradients.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sum(fnp.take(x, [0, 0, 2])))(fnp.ones(3))
    array([2., 0., 1.])
    """
    if not _traced(a):
        return _np.take(a, indices, axis=axis, out=out, mode=mode)
    if axis is None:
        a, axis = ravel(a), 0
    shape = _shape(a)
    axis = _axis(axis, len(shape), "take")
    idx = _index_mode(indices, shape[axis], mode, "take")
    return _take1(a, int(idx) if idx.ndim == 0 else idx, axis)


def take_along_axis(arr, indices, axis=-1):
    """``numpy.take_along_axis``, e.g. with indices from argsort or argmax.

    >>> import funcgrad.numpy as fnp
    >>> x = fnp.array([[3.0, 1.0], [0.0, 2.0]])
    >>> fnp.take_along_axis(x, fnp.argsort(x, axis=1), axis=1)
    array([[1., 3.],
           [0., 2.]])
    """
    if not _traced(arr, indices):
        return _np.take_along_axis(arr, indices, axis=axis)
    indices = _plain(indices)
    if not isinstance(indices, Box):
        indices = _np.asarray(indices)
        if not _np.issubdtype(indices.dtype, _np.integer):
            raise IndexError(f"take_along_axis: indices must be integers; got dtype {indices.dtype}")
    if axis is None:
        arr, axis = ravel(arr), 0
    shape, ishape = _shape(arr), _shape(indices)
    if len(shape) != len(ishape):
        raise ShapeError(f"take_along_axis: indices of shape {_fmt(ishape)} need as many dimensions "
                         f"as the array, of shape {_fmt(shape)}")
    return _s.take_along(arr, indices, axis=_axis(axis, len(shape), "take_along_axis"))


def choose(a, choices, out=None, mode="raise"):
    """``numpy.choose``: ``out[i] = choices[a[i]][i]``, everything broadcast together.

    >>> import funcgrad.numpy as fnp
    >>> fnp.choose([1, 0, 1], [fnp.zeros(3), fnp.arange(3.0)])
    array([0., 0., 2.])
    """
    if not _traced(a, *choices):
        return _np.choose(a, choices, out=out, mode=mode)
    if isinstance(a, Box):
        raise TypeError("choose: the index array `a` must be a plain integer array, not a traced "
                        "value; use fg.stop_gradient on it")
    choices = [_operand(c) for c in choices]
    a = _index_mode(a, len(choices), mode, "choose")
    shapes = [a.shape] + [_shape(c) for c in choices]
    try:
        shape = _np.broadcast_shapes(*shapes)
    except ValueError:
        raise ShapeError(f"choose: shapes {', '.join(map(_fmt, shapes))} do not broadcast "
                         f"together") from None
    if a.size and (a.min() < 0 or a.max() >= len(choices)):
        raise ValueError(f"choose: invalid entry in the index array: entries must lie in "
                         f"[0, {len(choices)}), or use mode='wrap' or 'clip'")
    stacked = stack([broadcast_to(c, shape) for c in choices])
    grids = _np.indices(shape, sparse=True)
    return _a.getitem(stacked, index=(_np.broadcast_to(a, shape),) + tuple(grids))


def select(condlist, choicelist, default=0):
    """``numpy.select``: where the first true condition picks its choice, else ``default``.

    >>> import funcgrad.numpy as fnp
    >>> x = fnp.arange(4.0)
    >>> fnp.select([x < 1, x > 2], [x, -x], default=9.0)
    array([ 0.,  9.,  9., -3.])
    """
    if len(condlist) != len(choicelist):
        raise ValueError(f"select: condlist and choicelist must have the same length; got "
                         f"{len(condlist)} conditions and {len(choicelist)} choices")
    if not _traced(default, *condlist, *choicelist):
        return _np.select(condlist, choicelist, default)
    if not condlist:
        raise ValueError("select: select with an empty condition list is not possible")
    shapes = [_shape(c) for c in condlist] + [_shape(c) for c in choicelist] + [_shape(default)]
    try:
        shape = _np.broadcast_shapes(*shapes)
    except ValueError:
        raise ShapeError(f"select: shapes {', '.join(map(_fmt, shapes))} do not broadcast "
                         f"together") from None
    result = default
    for cond, choice in zip(reversed(condlist), reversed(choicelist)):
        cond = _plain(cond)
        if not isinstance(cond, Box) and _np.asarray(cond).dtype != bool:
            raise TypeError(f"select: invalid entry in condlist: should be boolean ndarray; got "
                            f"dtype {_np.asarray(cond).dtype}")
        result = _where(cond, choice, result)
    return broadcast_to(result, shape) if _shape(result) != shape else result


# ---------------------------------------------------------------- integer-valued

def _no_batch(x, who):
    p = _plain(x)
    if isinstance(p, Box):
        raise TypeError(f"{who}: the result's shape depends on the values, so it cannot be "
                        f"computed under vmap or jit; call it outside the transformed function")
    return p


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """``numpy.argsort`` of the values (an integer array; no gradient).

    >>> import funcgrad.numpy as fnp
    >>> fnp.argsort(fnp.array([3.0, 1.0, 2.0]))
    array([1, 2, 0])
    """
    p = _plain(a)
    if not isinstance(p, Box):
        return _np.argsort(p, axis=axis, kind=kind, order=order, stable=stable)
    if stable:
        kind = "stable"
    return _s.argsort(p, axis=axis, kind=kind)


def argmax(a, axis=None, out=None, *, keepdims=False):
    """``numpy.argmax`` of the values (an integer; no gradient).

    >>> import funcgrad.numpy as fnp
    >>> int(fnp.argmax(fnp.array([3.0, 1.0, 4.0])))
    2
    """
    p = _plain(a)
    if not isinstance(p, Box):
        return _np.argmax(p, axis=axis, out=out, keepdims=keepdims)
    return _s.argmax(p, axis=axis, keepdims=keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    """``numpy.argmin`` of the values (an integer; no gradient).

    >>> import funcgrad.numpy as fnp
    >>> fnp.argmin(fnp.array([[3.0, 1.0], [0.0, 2.0]]), axis=1)
    array([1, 0])
    """
    p = _plain(a)
    if not isinstance(p, Box):
        return _np.argmin(p, axis=axis, out=out, keepdims=keepdims)
    return _s.argmin(p, axis=axis, keepdims=keepdims)


def nonzero(a):
    """``numpy.nonzero`` of the values (a tuple of index arrays; no gradient).

    >>> import funcgrad.numpy as fnp
    >>> fnp.nonzero(fnp.array([0.0, 2.0, 3.0]))
    (array([1, 2]),)
    """
    return _np.nonzero(_no_batch(a, "nonzero"))


def searchsorted(a, v, side="left", sorter=None):
    """``numpy.searchsorted`` of the values (integer positions; no gradient).

    >>> import funcgrad.numpy as fnp
    >>> fnp.searchsorted(fnp.array([1.0, 2.0, 3.0]), [2.5, 0.0])
    array([2, 0])
    """
    pa, pv = _plain(a), _plain(v)
    if not isinstance(pa, Box) and not isinstance(pv, Box):
        return _np.searchsorted(pa, pv, side=side, sorter=sorter)
    if sorter is not None:
        pa = take_along_axis(pa, _plain(sorter), axis=0)
    return _s.searchsorted(pa, pv if isinstance(pv, Box) else _np.asarray(pv), side=side)


# ---------------------------------------------------------------- constructors

def _like(a, dtype, shape):
    """Shape and dtype for a ``*_like`` constructor given a traced value."""
    if dtype is None:
        dtype = _np.result_type(_raw(a))
        if not _np.issubdtype(dtype, _np.inexact):
            dtype = _np.float64
    return _shape(a) if shape is None else shape, dtype


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """``numpy.zeros_like``; a traced value gives plain zeros of its shape.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.zeros_like(fg.var(fnp.ones(2)))
    array([0., 0.])
    """
    if not isinstance(a, Box):
        return _np.zeros_like(a, dtype=dtype, order=order, subok=subok, shape=shape)
    return _np.zeros(*_like(a, dtype, shape))


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """``numpy.ones_like``; a traced value gives plain ones of its shape.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.ones_like(fg.var(fnp.zeros(2)))
    array([1., 1.])
    """
    if not isinstance(a, Box):
        return _np.ones_like(a, dtype=dtype, order=order, subok=subok, shape=shape)
    return _np.ones(*_like(a, dtype, shape))


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """``numpy.empty_like``; a traced value gives a plain uninitialised array of its shape.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.empty_like(fg.var(fnp.zeros((2, 3)))).shape
    (2, 3)
    """
    if not isinstance(prototype, Box):
        return _np.empty_like(prototype, dtype=dtype, order=order, subok=subok, shape=shape)
    return _np.empty(*_like(prototype, dtype, shape))


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """``numpy.full_like``; a traced value gives a plain array of its shape.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.full_like(fg.var(fnp.zeros(2)), 7.0)
    array([7., 7.])
    """
    if not isinstance(a, Box):
        return _np.full_like(a, fill_value, dtype=dtype, order=order, subok=subok, shape=shape)
    shape, dtype = _like(a, dtype, shape)
    return _np.full(shape, _raw(fill_value), dtype=dtype)
