"""Joining, splitting, rearranging and sorting, with NumPy's signatures.

As in :mod:`._shape`: NumPy's own call on plain arrays, a composition of
structural primitives (``concatenate``, ``getitem``, ...) on traced values.
Sorting alone needs more (:mod:`funcgrad.rules.sorting`): its index depends on
the values.
"""

import itertools

import numpy as _np

from ..core.errors import ArgumentError, ArgumentTypeError, ShapeError, UnsupportedError
from ..core.values import dtype_of as _dtype_of
from ..core.values import in_library_of as _in_library_of
from ..core.values import plain as _plain
from ..core.values import shape_of as _shape_of
from ..rules import arrays as _a
from ..rules import sorting as _s
from ..rules.ufuncs import astype as _astype
from ._helpers import (
    PYTHON_NUMBERS,
    as_array,
    check_axes,
    check_axis,
    fmt_shape,
    is_traced,
    result_part,
    take_on_axis,
    weak,
)
from ._shape import at_least_ndim, ravel, reshape, transpose

__all__ = [
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "dstack",
    "column_stack",
    "split",
    "array_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "tile",
    "flip",
    "fliplr",
    "flipud",
    "roll",
    "rot90",
    "pad",
    "sort",
    "unstack",
    "sort_complex",
]


# ---------------------------------------------------------------- joining


def _check_join(who, shapes, axis):
    """Same number of dimensions, and equal sizes off ``axis`` (None: equal shapes)."""
    first = shapes[0]
    for s in shapes[1:]:
        if len(s) != len(first) or any(
            m != n for d, (m, n) in enumerate(zip(first, s)) if d != axis
        ):
            along = "" if axis is None else f" along axis {axis}"
            rule = (
                "all arrays must have the same shape"
                if axis is None
                else "all sizes must match except along the joining axis"
            )
            raise ShapeError(
                f"{who}: cannot join arrays of shapes {fmt_shape(first)} and {fmt_shape(s)}"
                f"{along}; {rule}"
            )


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
    if axis is None and any(map(weak, arrays)):
        # NumPy's: a Python number is weak here (a traced one too), made in the dtype the
        # others give it
        kind = _np.result_type(*map(result_part, arrays))
        arrays = [_number_in(x, kind) if weak(x) else x for x in arrays]
    arrays = [as_array(x) for x in arrays]
    if not arrays:
        raise ArgumentError("concatenate: need at least one array to concatenate")
    if axis is None:
        arrays = [ravel(x) for x in arrays]
        axis = 0
    shapes = [_shape_of(x) for x in arrays]
    if not shapes[0]:
        raise ArgumentError(
            "concatenate: zero-dimensional arrays cannot be concatenated; "
            "use stack, or atleast_1d first"
        )
    axis = check_axis(axis, len(shapes[0]), "concatenate")
    _check_join("concatenate", shapes, axis)
    if not is_traced(*arrays):
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
    arrays = [as_array(x) for x in arrays]
    if not arrays:
        raise ArgumentError("stack: need at least one array to stack")
    shapes = [_shape_of(x) for x in arrays]
    _check_join("stack", shapes, None)
    if not is_traced(*arrays):
        return _np.stack(arrays, axis=axis, out=out, dtype=dtype, casting=casting)
    axis = check_axis(axis, len(shapes[0]) + 1, "stack")
    return concatenate([_a.expand_dims(x, axis=axis) for x in arrays], axis=axis)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """``numpy.hstack``: along axis 1 (axis 0 for 1-D arrays).

    >>> import funcgrad.numpy as fnp
    >>> fnp.hstack([fnp.zeros(2), fnp.ones(3)]).shape
    (5,)
    """
    if not is_traced(*tup):
        return _np.hstack(tup, dtype=dtype, casting=casting)
    arrays = [at_least_ndim(x, 1) for x in tup]
    return concatenate(arrays, axis=0 if len(_shape_of(arrays[0])) == 1 else 1)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """``numpy.vstack``: 1-D arrays become rows, joined along axis 0.

    >>> import funcgrad.numpy as fnp
    >>> fnp.vstack([fnp.zeros(3), fnp.ones((2, 3))]).shape
    (3, 3)
    """
    if not is_traced(*tup):
        return _np.vstack(tup, dtype=dtype, casting=casting)
    return concatenate([at_least_ndim(x, 2) for x in tup], axis=0)


def dstack(tup):
    """``numpy.dstack``: along the third axis.

    >>> import funcgrad.numpy as fnp
    >>> fnp.dstack([fnp.zeros((2, 3)), fnp.ones((2, 3))]).shape
    (2, 3, 2)
    """
    if not is_traced(*tup):
        return _np.dstack(tup)
    return concatenate([at_least_ndim(x, 3) for x in tup], axis=2)


def column_stack(tup):
    """``numpy.column_stack``: 1-D arrays become columns.

    >>> import funcgrad.numpy as fnp
    >>> fnp.column_stack([fnp.zeros(3), fnp.ones((3, 2))]).shape
    (3, 3)
    """
    if not is_traced(*tup):
        return _np.column_stack(tup)
    cols = []
    for x in tup:
        x = as_array(x)
        s = _shape_of(x)
        cols.append(_a.reshape(x, shape=(s[0], 1)) if len(s) == 1 else at_least_ndim(x, 2))
    return concatenate(cols, axis=1)


# ---------------------------------------------------------------- splitting


def _split(ary, indices_or_sections, axis, equal, who):
    ary = as_array(ary)
    shape = _shape_of(ary)
    axis = check_axis(axis, len(shape), who)
    n = shape[axis]
    if isinstance(indices_or_sections, (int, _np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ArgumentError(
                f"{who}: the number of sections must be larger than 0; got {sections}"
            )
        if equal and n % sections:
            raise ShapeError(
                f"{who}: axis {axis} of shape {fmt_shape(shape)} has size {n}, which "
                f"{sections} sections cannot divide equally; use array_split"
            )
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [n]
    return [
        take_on_axis(ary, slice(start, stop), axis) for start, stop in itertools.pairwise(bounds)
    ]


def split(ary, indices_or_sections, axis=0):
    """``numpy.split``: equal sections, or split points along ``axis``.

    >>> import funcgrad.numpy as fnp
    >>> [p.shape for p in fnp.split(fnp.zeros((2, 6)), [1, 4], axis=1)]
    [(2, 1), (2, 3), (2, 2)]
    """
    if not is_traced(ary):
        return _np.split(ary, indices_or_sections, axis=axis)
    return _split(ary, indices_or_sections, axis, True, "split")


def array_split(ary, indices_or_sections, axis=0):
    """``numpy.array_split``: like split, but sections need not be equal.

    >>> import funcgrad.numpy as fnp
    >>> [p.shape for p in fnp.array_split(fnp.zeros(5), 3)]
    [(2,), (2,), (1,)]
    """
    if not is_traced(ary):
        return _np.array_split(ary, indices_or_sections, axis=axis)
    return _split(ary, indices_or_sections, axis, False, "array_split")


def hsplit(ary, indices_or_sections):
    """``numpy.hsplit``: split along axis 1 (axis 0 for 1-D arrays).

    >>> import funcgrad.numpy as fnp
    >>> [p.shape for p in fnp.hsplit(fnp.zeros((2, 4)), 2)]
    [(2, 2), (2, 2)]
    """
    if not is_traced(ary):
        return _np.hsplit(ary, indices_or_sections)
    nd = len(_shape_of(ary))
    if nd == 0:
        raise ArgumentError("hsplit only works on arrays of 1 or more dimensions")
    return _split(ary, indices_or_sections, 1 if nd > 1 else 0, True, "hsplit")


def vsplit(ary, indices_or_sections):
    """``numpy.vsplit``: split along axis 0 of an array of 2 or more dimensions.

    >>> import funcgrad.numpy as fnp
    >>> [p.shape for p in fnp.vsplit(fnp.zeros((4, 2)), [1])]
    [(1, 2), (3, 2)]
    """
    if not is_traced(ary):
        return _np.vsplit(ary, indices_or_sections)
    if len(_shape_of(ary)) < 2:
        raise ArgumentError("vsplit only works on arrays of 2 or more dimensions")
    return _split(ary, indices_or_sections, 0, True, "vsplit")


def dsplit(ary, indices_or_sections):
    """``numpy.dsplit``: split along axis 2 of an array of 3 or more dimensions.

    >>> import funcgrad.numpy as fnp
    >>> [p.shape for p in fnp.dsplit(fnp.zeros((1, 1, 4)), 2)]
    [(1, 1, 2), (1, 1, 2)]
    """
    if not is_traced(ary):
        return _np.dsplit(ary, indices_or_sections)
    if len(_shape_of(ary)) < 3:
        raise ArgumentError("dsplit only works on arrays of 3 or more dimensions")
    return _split(ary, indices_or_sections, 2, True, "dsplit")


# ---------------------------------------------------------------- rearranging


def tile(A, reps):
    """``numpy.tile``: repeat the whole array ``reps`` times along each axis.

    >>> import funcgrad.numpy as fnp
    >>> fnp.tile(fnp.arange(2.0), (2, 2))
    array([[0., 1., 0., 1.],
           [0., 1., 0., 1.]])
    """
    if not is_traced(A):
        return _np.tile(A, reps)
    reps = (int(reps),) if isinstance(reps, (int, _np.integer)) else tuple(int(r) for r in reps)
    shape = _shape_of(A)
    nd = max(len(shape), len(reps))
    shape = (1,) * (nd - len(shape)) + shape
    reps = (1,) * (nd - len(reps)) + reps
    if all(r == 1 for r in reps):
        return _a.reshape(A, shape=shape) if shape != _shape_of(A) else A
    spread = tuple(n for pair in zip((1,) * nd, shape) for n in pair)
    big = tuple(n for pair in zip(reps, shape) for n in pair)
    x = _a.broadcast_to(_a.reshape(A, shape=spread), shape=big)
    return _a.reshape(x, shape=tuple(r * n for r, n in zip(reps, shape)))


def unstack(x, /, *, axis=0):
    """``numpy.unstack``: the slices along ``axis``, as a tuple (``stack`` undone).

    >>> import numpy as np
    >>> from funcgrad.numpy import unstack
    >>> [a.tolist() for a in unstack(np.arange(4.0).reshape(2, 2), axis=1)]
    [[0.0, 2.0], [1.0, 3.0]]
    """
    shape = _shape_of(x)
    if not shape:
        raise ShapeError("unstack: a 0-d array has no axis to unstack")
    axis = check_axis(axis, len(shape), "unstack")
    index = (slice(None),) * axis
    return tuple(x[index + (k,)] for k in range(shape[axis]))


def flip(m, axis=None):
    """``numpy.flip``: reverse the order along ``axis`` (all axes for None).

    >>> import funcgrad.numpy as fnp
    >>> fnp.flip(fnp.arange(3.0))
    array([2., 1., 0.])
    """
    if not is_traced(m):
        return _np.flip(m, axis)
    nd = len(_shape_of(m))
    axes = range(nd) if axis is None else check_axes(axis, nd, "flip")
    index = tuple(slice(None, None, -1) if d in axes else slice(None) for d in range(nd))
    return _a.getitem(m, index=index) if axes else m


def fliplr(m):
    """``numpy.fliplr``: reverse the columns (axis 1).

    >>> import funcgrad.numpy as fnp
    >>> fnp.fliplr(fnp.eye(2))
    array([[0., 1.],
           [1., 0.]])
    """
    if not is_traced(m):
        return _np.fliplr(m)
    if len(_shape_of(m)) < 2:
        raise ArgumentError("fliplr: input must be >= 2-d")
    return flip(m, 1)


def flipud(m):
    """``numpy.flipud``: reverse the rows (axis 0).

    >>> import funcgrad.numpy as fnp
    >>> fnp.flipud(fnp.arange(2.0))
    array([1., 0.])
    """
    if not is_traced(m):
        return _np.flipud(m)
    if len(_shape_of(m)) < 1:
        raise ArgumentError("flipud: input must be >= 1-d")
    return flip(m, 0)


def roll(a, shift, axis=None):
    """``numpy.roll``: shift elements cyclically (shifts and axes may be tuples).

    >>> import funcgrad.numpy as fnp
    >>> fnp.roll(fnp.arange(4.0), 1)
    array([3., 0., 1., 2.])
    """
    if not is_traced(a):
        return _np.roll(a, shift, axis=axis)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), _shape_of(a))
    shape = _shape_of(a)
    total = {}
    for s, ax in _np.broadcast(shift, axis):
        ax = check_axis(int(ax), len(shape), "roll")
        total[ax] = total.get(ax, 0) + int(s)
    for ax, s in sorted(total.items()):
        n = shape[ax]
        if n and s % n:
            a = take_on_axis(a, (_np.arange(n) - s) % n, ax)
    return a


def rot90(m, k=1, axes=(0, 1)):
    """``numpy.rot90``: rotate by 90 degrees ``k`` times in the plane of ``axes``.

    >>> import funcgrad.numpy as fnp
    >>> fnp.rot90(fnp.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[2., 4.],
           [1., 3.]])
    """
    if not is_traced(m):
        return _np.rot90(m, k, axes)
    axes = tuple(axes)
    nd = len(_shape_of(m))
    if len(axes) != 2:
        raise ArgumentError("rot90: len(axes) must be 2")
    a0, a1 = check_axis(axes[0], nd, "rot90"), check_axis(axes[1], nd, "rot90")
    if a0 == a1:
        raise ArgumentError("rot90: axes must be different")
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
        raise ArgumentError(
            f"{who}: {what} {value!r} does not fit an array of dimension {nd}; give "
            f"one (before, after) pair per axis, one pair, or one number"
        ) from None


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
    if not is_traced(array):
        return _np.pad(array, pad_width, mode=mode, **kwargs)
    shape = _shape_of(array)
    nd = len(shape)
    widths = _pairs(pad_width, nd, "pad", "pad_width").astype(int)
    if (widths < 0).any():
        raise ArgumentError(f"pad: pad_width must be non-negative; got {pad_width!r}")
    x = array
    if mode == "constant":
        unknown = set(kwargs) - {"constant_values"}
        if unknown:
            raise ArgumentTypeError(
                f"pad: unsupported keyword arguments for mode 'constant': {sorted(unknown)}"
            )
        values = _pairs(kwargs.get("constant_values", 0), nd, "pad", "constant_values")
        dtype = _dtype_of(array)
        for ax in range(nd):
            parts = []
            cur = _shape_of(x)
            for side in (0, 1):
                w = widths[ax, side]
                if w:
                    block = _np.full(cur[:ax] + (w,) + cur[ax + 1 :], values[ax, side], dtype=dtype)
                    parts.append(_in_library_of(block, array))  # a foreign array's own
                if side == 0:
                    parts.append(x)
            if len(parts) > 1:
                x = _a.concatenate(*parts, axis=ax)
        return x
    if mode in _INDEX_MODES:
        if kwargs.get("reflect_type", "even") != "even":
            raise UnsupportedError("pad: reflect_type='odd' is not supported; use 'even'")
        unknown = set(kwargs) - {"reflect_type"}
        if unknown:
            raise ArgumentTypeError(
                f"pad: unsupported keyword arguments for mode {mode!r}: {sorted(unknown)}"
            )
        for ax in range(nd):
            before, after = widths[ax]
            if before or after:
                # the source of every output position: the same padding applied to the positions
                source = _np.pad(_np.arange(shape[ax]), (before, after), mode=mode)
                x = take_on_axis(x, source, ax)
        return x
    raise UnsupportedError(
        f"pad: mode {mode!r} has no derivative rule in funcgrad.numpy; use one of "
        f"'constant', {', '.join(repr(m) for m in _INDEX_MODES)}"
    )


def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """``numpy.sort``; the gradient follows each element to where it was sorted.
    ``descending`` (JAX's): largest first, NaN first, equal values in their order
    (the ascending stable sort of the values reversed, reversed).

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sort(x)[0])(fnp.array([3.0, 1.0, 2.0]))
    array([0., 1., 0.])
    >>> fnp.sort(fnp.array([3.0, 1.0, 2.0]), descending=True)
    array([3., 2., 1.])
    """
    if descending:
        if axis is None:
            a, axis = ravel(a), 0
        return flip(sort(flip(a, axis), axis, kind, order, stable=True), axis)
    if not is_traced(a):
        return _np.sort(a, axis=axis, kind=kind, order=order, stable=stable)
    if order is not None:
        raise UnsupportedError("sort: order= sorts structured arrays, which carry no gradient")
    if axis is None:
        a, axis = ravel(a), 0
    nd = len(_shape_of(a))
    if nd == 0:
        raise _np.exceptions.AxisError("sort: a 0-d array has no axis to sort along")
    axis = check_axis(axis, nd, "sort")
    index = _s.argsort(_plain(a), axis=axis, kind="stable")
    return _s.take_along(a, index, axis=axis)


def sort_complex(a):
    """``numpy.sort_complex``: sorted by real part, then imaginary part, as complex numbers.

    >>> import numpy as np
    >>> from funcgrad.numpy import sort_complex
    >>> sort_complex(np.array([3.0, 1.0, 2.0]))
    array([1.+0.j, 2.+0.j, 3.+0.j])
    """
    out = sort(a)  # NumPy orders complex numbers so: real part, then imaginary
    kind = _dtype_of(out)
    if kind.kind == "c":
        return out
    # NumPy's choice: complex64 for the small integers only (float32 becomes complex128)
    wide = _np.clongdouble if kind.char == "g" else _np.complex128
    return out.astype(_np.complex64 if kind.char in "bhBH" else wide)


def _number_in(x, kind):
    """The Python number ``x`` (or a traced one) as an array of ``kind``."""
    return _np.asarray(x, kind) if type(x) in PYTHON_NUMBERS else _astype(x, dtype=kind)
