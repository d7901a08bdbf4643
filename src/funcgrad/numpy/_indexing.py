"""Indexing and integer-valued functions, with NumPy's signatures (constructors:
:mod:`._constructors`).

``take``, ``take_along_axis``, ``choose`` and ``select`` are compositions of
structural primitives on traced values. Integer-valued functions
(``argsort``, ``argmax``, ``nonzero``, ...) read the values underneath and
return plain integer arrays; they carry no gradient.
"""

import numpy as _np

from ..core.errors import (
    ArgumentError,
    ArgumentTypeError,
    ShapeError,
)
from ..core.namespaces import as_numpy_dtype
from ..core.namespaces import is_foreign as _is_foreign
from ..core.traces import Box
from ..core.values import dtype_of as _dtype_of
from ..core.values import in_library_of as _in_library_of
from ..core.values import plain as _plain
from ..core.values import shape_of as _shape_of
from ..dag.arraylike import TracedIndex, index_param
from ..rules import arrays as _a
from ..rules import sorting as _s
from ..rules.elementwise import minimum as _minimum
from ..rules.elementwise import where as _where
from ..rules.gather import gather
from ..rules.ufuncs import astype as _astype
from ._helpers import (
    as_array,
    check_axis,
    concrete,
    fmt_shape,
    is_traced,
    jax_method,
    refuse,
    take_on_axis,
)
from ._joining import concatenate, flip, stack
from ._reductions import cumsum
from ._shape import broadcast_to, ravel

SEARCH_METHODS = ("scan", "scan_unrolled", "sort", "compare_all")  # jnp.searchsorted's

__all__ = [
    "repeat",
    "take",
    "take_along_axis",
    "choose",
    "select",
    "argsort",
    "argmax",
    "argmin",
    "nonzero",
    "flatnonzero",
    "argwhere",
    "searchsorted",
    "lexsort",
]


# ---------------------------------------------------------------- indexing


def _index_mode(indices, n, mode, who):
    indices = _np.asarray(indices)
    if mode == "wrap":
        return indices % n
    if mode == "clip":
        return _np.clip(indices, 0, n - 1)
    if mode != "raise":
        raise ArgumentError(f"{who}: mode must be 'raise', 'wrap' or 'clip'; got {mode!r}")
    return indices


def _filled(read, indices, n, fill_value, after):
    """``read`` at ``indices`` (those in ``[-n, 0)`` counted from the end), and
    ``fill_value`` where an index is outside ``[-n, n)``: JAX's ``"fill"`` mode. The fill
    is by default NaN for floats, True for bools, the most negative integer of a signed
    type and the largest of an unsigned one (JAX's). ``after``: the result's axes after
    the index's."""
    indices = indices if is_traced(indices) or _is_foreign(indices) else _np.asarray(indices)
    valid = (indices >= -n) & (indices < n)
    out = read(_where(valid, _where(indices < 0, indices + n, indices), 0))
    if fill_value is None:
        kind = _dtype_of(out)
        if kind.kind in "fc":
            fill_value = _np.nan
        elif kind.kind == "b":
            fill_value = True
        else:
            info = _np.iinfo(kind)
            fill_value = info.min if kind.kind == "i" else info.max
    if after:
        valid = _a.reshape(valid, shape=(*_shape_of(valid), *(1,) * after))
    fill = _np.asarray(fill_value, dtype=_dtype_of(out))  # in the result's type, as JAX's
    return _where(valid, out, _in_library_of(fill, out))


def take(
    a,
    indices,
    axis=None,
    out=None,
    mode="raise",
    unique_indices=False,
    indices_are_sorted=False,
    fill_value=None,
):
    """``numpy.take``: elements at ``indices`` along ``axis`` (of the flat array for None).
    Repeated indices add their gradients. ``mode="fill"`` (JAX's): an index outside
    ``[-n, n)`` reads ``fill_value`` (NaN, or the type's extreme: :func:`_filled`);
    ``unique_indices`` and ``indices_are_sorted`` are promises JAX may use, read here as
    nothing more.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sum(fnp.take(x, [0, 0, 2])))(fnp.ones(3))
    array([2., 0., 1.])
    >>> fnp.take(fnp.arange(3.0), [-1, 3], mode="fill")
    array([ 2., nan])
    """
    if mode == "fill":
        refuse("take", out=out)
        if axis is None:
            a, axis = ravel(a), 0
        axis = check_axis(axis, len(_shape_of(a)), "take")
        after = len(_shape_of(a)) - axis - 1
        return _filled(
            lambda safe: take(a, safe, axis), indices, _shape_of(a)[axis], fill_value, after
        )
    # computed from traced values (an argmax, a key's choice), or another library's array
    if is_traced(indices) or _is_foreign(indices):
        if axis is None:
            a, axis = ravel(a), 0
        shape = _shape_of(a)
        axis = check_axis(axis, len(shape), "take")
        if mode not in ("raise", "wrap", "clip"):
            raise ArgumentError(f"take: mode must be 'raise', 'wrap' or 'clip'; got {mode!r}")
        index = index_param((slice(None),) * axis + (indices,))
        if type(index) is TracedIndex:
            template, operands = index
            return gather(a, *operands, template=template, mode=mode)
        indices = index[axis]  # an index a derivative trace held: its plain value
    if not is_traced(a):
        return _np.take(a, indices, axis=axis, out=out, mode=mode)
    if axis is None:
        a, axis = ravel(a), 0
    shape = _shape_of(a)
    axis = check_axis(axis, len(shape), "take")
    idx = _index_mode(indices, shape[axis], mode, "take")
    return take_on_axis(a, int(idx) if idx.ndim == 0 else idx, axis)


def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None):
    """``numpy.take_along_axis``, e.g. with indices from argsort or argmax. ``mode``
    (JAX's): None (NumPy's: an index out of bounds raises), ``"clip"`` (each index
    clamped into the axis), ``"fill"`` (an index outside ``[-n, n)`` reads ``fill_value``,
    as :func:`take`'s) or ``"promise_in_bounds"`` (NumPy's).

    >>> import funcgrad.numpy as fnp
    >>> x = fnp.array([[3.0, 1.0], [0.0, 2.0]])
    >>> fnp.take_along_axis(x, fnp.argsort(x, axis=1), axis=1)
    array([[1., 3.],
           [0., 2.]])
    """
    if mode in ("clip", "fill"):
        if axis is None:
            arr, axis = ravel(arr), 0
        n = _shape_of(arr)[check_axis(axis, len(_shape_of(arr)), "take_along_axis")]
        if mode == "clip":
            if not (is_traced(indices) or _is_foreign(indices)):
                indices = _np.asarray(indices)
            wrapped = _where(indices < 0, indices + n, indices)
            inside = _where(wrapped < 0, 0, _where(wrapped >= n, n - 1, wrapped))
            return take_along_axis(arr, inside, axis)
        return _filled(lambda safe: take_along_axis(arr, safe, axis), indices, n, fill_value, 0)
    if mode not in (None, "raise", "promise_in_bounds"):
        raise ArgumentError(
            f"take_along_axis: mode must be None, 'clip', 'fill' or 'promise_in_bounds'; got "
            f"{mode!r}"
        )
    if not is_traced(arr, indices):
        return _np.take_along_axis(arr, indices, axis=axis)
    indices = _plain(indices)
    if not isinstance(indices, Box):
        indices = indices if _is_foreign(indices) else _np.asarray(indices)
        if _dtype_of(indices).kind not in "iu":
            raise IndexError(
                f"take_along_axis: indices must be integers; got dtype {indices.dtype}"
            )
        indices = _in_library_of(indices, arr)  # NumPy's indices into another library's array
    if axis is None:
        arr, axis = ravel(arr), 0
    shape, ishape = _shape_of(arr), _shape_of(indices)
    if len(shape) != len(ishape):
        raise ShapeError(
            f"take_along_axis: indices of shape {fmt_shape(ishape)} need as many dimensions "
            f"as the array, of shape {fmt_shape(shape)}"
        )
    return _s.take_along(arr, indices, axis=check_axis(axis, len(shape), "take_along_axis"))


def choose(a, choices, out=None, mode="raise"):
    """``numpy.choose``: ``out[i] = choices[a[i]][i]``, everything broadcast together.

    >>> import funcgrad.numpy as fnp
    >>> fnp.choose([1, 0, 1], [fnp.zeros(3), fnp.arange(3.0)])
    array([0., 0., 2.])
    """
    if not is_traced(a, *choices):
        return _np.choose(a, choices, out=out, mode=mode)
    if isinstance(a, Box):
        raise ArgumentTypeError(
            "choose: the index array `a` must be a plain integer array, not a traced "
            "value; use fg.stop_gradient on it"
        )
    choices = [as_array(c) for c in choices]
    a = _index_mode(a, len(choices), mode, "choose")
    shapes = [a.shape] + [_shape_of(c) for c in choices]
    try:
        shape = _np.broadcast_shapes(*shapes)
    except ValueError:
        raise ShapeError(
            f"choose: shapes {', '.join(map(fmt_shape, shapes))} do not broadcast together"
        ) from None
    if a.size and (a.min() < 0 or a.max() >= len(choices)):
        raise ArgumentError(
            f"choose: invalid entry in the index array: entries must lie in "
            f"[0, {len(choices)}), or use mode='wrap' or 'clip'"
        )
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
        raise ArgumentError(
            f"select: condlist and choicelist must have the same length; got "
            f"{len(condlist)} conditions and {len(choicelist)} choices"
        )
    if not is_traced(default, *condlist, *choicelist):
        return _np.select(condlist, choicelist, default)
    if not condlist:
        raise ArgumentError("select: select with an empty condition list is not possible")
    shapes = (
        [_shape_of(c) for c in condlist] + [_shape_of(c) for c in choicelist] + [_shape_of(default)]
    )
    try:
        shape = _np.broadcast_shapes(*shapes)
    except ValueError:
        raise ShapeError(
            f"select: shapes {', '.join(map(fmt_shape, shapes))} do not broadcast together"
        ) from None
    result = default
    for cond, choice in zip(reversed(condlist), reversed(choicelist)):
        cond = _plain(cond)
        if not isinstance(cond, Box) and _dtype_of(cond) != _np.dtype(bool):
            raise ArgumentTypeError(
                f"select: invalid entry in condlist: should be boolean ndarray; got "
                f"dtype {_dtype_of(cond)}"
            )
        result = _where(cond, choice, result)
    return broadcast_to(result, shape) if _shape_of(result) != shape else result


# ---------------------------------------------------------------- integer-valued


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False, dtype=None):
    """``numpy.argsort`` of the values (an integer array; no gradient). ``descending``
    (JAX's): the places of the largest first, equal values in their order; ``dtype``
    (JAX's): the indices' integer type.

    >>> import funcgrad.numpy as fnp
    >>> fnp.argsort(fnp.array([3.0, 1.0, 2.0]))
    array([1, 2, 0])
    >>> fnp.argsort(fnp.array([1.0, 3.0, 1.0]), descending=True)
    array([1, 0, 2])
    """
    if dtype is not None:
        out = argsort(a, axis, kind, order, stable=stable, descending=descending)
        return _astype(out, dtype=as_numpy_dtype(dtype))
    p = _plain(a)
    if descending:
        if axis is None:
            p, axis = ravel(p), 0
        n = _shape_of(p)[axis]
        backwards = argsort(flip(p, axis), axis, kind, order, stable=True)
        return flip(n - 1 - backwards, axis)
    if not is_traced(p):
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
    if not is_traced(p):
        return _np.argmax(p, axis=axis, out=out, keepdims=keepdims)
    return _s.argmax(p, axis=axis, keepdims=keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    """``numpy.argmin`` of the values (an integer; no gradient).

    >>> import funcgrad.numpy as fnp
    >>> fnp.argmin(fnp.array([[3.0, 1.0], [0.0, 2.0]]), axis=1)
    array([1, 0])
    """
    p = _plain(a)
    if not is_traced(p):
        return _np.argmin(p, axis=axis, out=out, keepdims=keepdims)
    return _s.argmin(p, axis=axis, keepdims=keepdims)


def nonzero(a, *, size=None, fill_value=None):
    """``numpy.nonzero`` of the values (a tuple of index arrays; no gradient).

    With ``size`` (JAX's), the first ``size`` places, padded with ``fill_value``
    (0, or one per axis): a result whose shape is known before the values are,
    so it works under ``jit`` and ``vmap`` too.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.nonzero(fnp.array([0.0, 2.0, 3.0]))
    (array([1, 2]),)
    >>> fg.jit(lambda x: fnp.nonzero(x, size=3, fill_value=-1))(fnp.array([0.0, 2.0, 3.0]))
    (array([ 1,  2, -1]),)
    """
    if size is None:
        if fill_value is not None:
            raise ArgumentError("nonzero: fill_value pads a result of a given size; give size= too")
        return _np.nonzero(concrete(a, "nonzero"))
    return _nonzero_sized(a, size, fill_value, "nonzero")


def flatnonzero(a, *, size=None, fill_value=None):
    """``numpy.flatnonzero``: the nonzero places of the flattened values; ``size`` and
    ``fill_value`` as for :func:`nonzero`.

    >>> import funcgrad.numpy as fnp
    >>> fnp.flatnonzero(fnp.array([[0.0, 1.0], [2.0, 0.0]])), fnp.flatnonzero([1, 0], size=2)
    (array([1, 2]), array([0, 0]))
    """
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """``numpy.argwhere``: the nonzero places, one row each; ``size`` and ``fill_value``
    as for :func:`nonzero`.

    >>> import funcgrad.numpy as fnp
    >>> fnp.argwhere(fnp.array([[0.0, 1.0], [2.0, 0.0]]), size=3, fill_value=9)
    array([[0, 1],
           [1, 0],
           [9, 9]])
    """
    if size is None and fill_value is None:
        return _np.argwhere(concrete(a, "argwhere"))
    return stack(nonzero(a, size=size, fill_value=fill_value), axis=-1)


def _nonzero_sized(a, size, fill_value, who):
    """The first ``size`` nonzero places of ``a``, as NumPy orders them (row by row), per
    axis; slots past the last place hold ``fill_value``."""
    if isinstance(size, bool) or not isinstance(size, (int, _np.integer)) or size < 0:
        raise ArgumentTypeError(f"{who}: size must be a non-negative int; got {size!r:.40}")
    p = _plain(a)
    if not is_traced(p):
        p = _np.asarray(p)
    shape = _shape_of(p)
    if not shape:
        raise ShapeError(
            f"{who}: a 0-d array has no places to list (NumPy refuses it too); "
            f"pass fnp.atleast_1d(a)"
        )
    fills = fill_value if isinstance(fill_value, (tuple, list)) else [fill_value] * len(shape)
    if len(fills) != len(shape):
        raise ArgumentError(
            f"{who}: fill_value gives {len(fills)} values for an array of "
            f"{len(shape)} axes; give one, or one per axis"
        )
    flat = ravel(p != 0)
    # the nonzero places first, each group in its order: a stable sort of "is zero"
    order = argsort(_where(flat, 0, 1), kind="stable")
    n = flat.shape[0]
    if size > n:
        order = concatenate([order, _np.zeros(size - n, dtype=_np.int64)])
    order = order[:size]
    hit = take(flat, order) if n else _np.zeros(size, dtype=bool)
    if size > n:
        hit = _where(_np.arange(size) < n, hit, False)
    out, stride = [], 1
    for k in range(len(shape) - 1, -1, -1):
        place = order // stride % shape[k]
        out.append(_where(hit, place, 0 if fills[k] is None else fills[k]))
        stride *= shape[k]
    return tuple(reversed(out))


def searchsorted(a, v, side="left", sorter=None, *, method=None):
    """``numpy.searchsorted`` of the values (integer positions; no gradient); JAX's
    ``method`` (its algorithm) is taken, and every one gives NumPy's positions.

    >>> import funcgrad.numpy as fnp
    >>> fnp.searchsorted(fnp.array([1.0, 2.0, 3.0]), [2.5, 0.0])
    array([2, 0])
    """
    jax_method(method, SEARCH_METHODS, "searchsorted")
    pa, pv = _plain(a), _plain(v)
    if not is_traced(pa, pv):
        return _np.searchsorted(pa, pv, side=side, sorter=sorter)
    if sorter is not None:
        pa = take_along_axis(pa, _plain(sorter), axis=0)
    return _s.searchsorted(pa, pv if is_traced(pv) else _np.asarray(pv), side=side)


def lexsort(keys, axis=-1):
    """``numpy.lexsort``: indices sorting by the last key, then the one before, ...; no
    derivative. Read from the values (eagerly, not under jit).

    >>> import numpy as np
    >>> from funcgrad.numpy import lexsort
    >>> lexsort((np.array([1.0, 0.0, 2.0]), np.array([0.0, 1.0, 0.0])))
    array([0, 2, 1])
    """
    if not any(isinstance(k, Box) for k in keys):
        return _np.lexsort(keys, axis)
    return _np.lexsort([concrete(k, "lexsort") for k in keys], axis)


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """``numpy.repeat``: repeat each element (``repeats`` a scalar or one count each).
    ``total_repeat_length`` (JAX's): the result's length along the axis, known before the
    counts are (which may then be traced): a longer repeat is cut there, a shorter one
    continued with the last element.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(lambda x: fnp.sum(fnp.repeat(x, [1, 3])))(fnp.ones(2))
    array([1., 3.])
    >>> fnp.repeat(fnp.array([1.0, 2.0]), [1, 2], total_repeat_length=5)
    array([1., 2., 2., 2., 2.])
    """
    if total_repeat_length is not None:
        return _repeat_to(a, repeats, axis, int(total_repeat_length))
    if not is_traced(a):
        return _np.repeat(a, repeats, axis=axis)
    if axis is None:
        a, axis = ravel(a), 0
    shape = _shape_of(a)
    axis = check_axis(axis, len(shape), "repeat")
    counts = _np.asarray(repeats)
    if counts.ndim > 1 or (counts.ndim == 1 and counts.size not in (1, shape[axis])):
        raise ShapeError(
            f"repeat: repeats of shape {fmt_shape(counts.shape)} do not fit axis {axis} of "
            f"shape {fmt_shape(shape)}; give one count, or one per element"
        )
    return take_on_axis(a, _np.repeat(_np.arange(shape[axis]), counts), axis)


def _repeat_to(a, repeats, axis, length):
    """:func:`repeat` to ``length`` along the axis: element ``k`` of the result is the
    element whose run of copies covers ``k`` (the last past the runs' end)."""
    if axis is None:
        a, axis = ravel(a), 0
    n = _shape_of(a)[check_axis(axis, len(_shape_of(a)), "repeat")]
    counts = repeats if is_traced(repeats) else _np.asarray(repeats)
    if len(_shape_of(counts)) == 0:
        counts = _a.broadcast_to(counts, shape=(n,))
    if _shape_of(counts) != (n,):
        raise ShapeError(
            f"repeat: repeats of shape {fmt_shape(_shape_of(counts))} do not fit an axis of "
            f"{n} elements; give one count, or one per element"
        )
    ends = cumsum(counts)
    source = searchsorted(ends, _np.arange(length), side="right")
    return take(a, _minimum(source, n - 1), axis)
