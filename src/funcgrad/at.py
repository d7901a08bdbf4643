"""Functional updates: ``fg.at(x)[idx].set(v)`` instead of ``x[idx] = v``.

Traced values are immutable, so item assignment is refused; ``at`` builds the
updated array as a new value instead, differentiable in both ``x`` and ``v``
and batchable under ``vmap``. On plain arrays it is NumPy's own assignment on
a copy (``x`` is never changed).

Any NumPy index works: ints, slices, ``None``, ``...``, integer arrays and
boolean masks. The update is written through the flat positions the index
selects (``arange(x.size).reshape(x.shape)[idx]``), so repeated positions
follow NumPy: ``set`` keeps the last value written, ``add``, ``subtract``,
``multiply`` (``mul``), ``min`` and ``max`` combine every value in turn, like
``np.add.at`` and ``np.minimum.at``; ``divide`` and ``power`` are JAX's, by (or to)
the product of the values written to a position. Each update of a traced ``x`` or
``v`` is one scatter primitive however often a position repeats
(:mod:`funcgrad.rules.gather`, :mod:`funcgrad.rules.scatter_combine`), and an index
computed under ``jit`` or ``vmap``, or held in another library's array, is its
operand. Where ``min`` or ``max`` ties, the derivative is shared evenly among ``x``
and the values that tie, as JAX shares it. (On another library's arrays indexed by
NumPy's, the update is made round by round with that library's own functions, and a
tie shares pairwise, in the order written.)

An index out of bounds raises, as in NumPy, unless ``mode`` says otherwise, as
in JAX: ``get(mode="clip")`` or ``get(mode="fill", fill_value=...)``, and
``set``/``add``/``multiply`` with ``mode="clip"`` or ``mode="drop"``.
"""

from typing import Any, NamedTuple

import numpy as np

from .core.errors import ArgumentError
from .core.namespaces import is_foreign
from .core.traces import Box
from .core.values import dtype_of, in_library_of, numeric_kind, raw, shape_of
from .dag.arraylike import ArrayLike, TracedIndex, index_param
from .rules import arrays, elementwise, gather, scatter_combine, ufuncs
from .rules.elementwise import less, where
from .rules.row_sums import ufunc_at

__all__ = ["at"]


class _Ref:
    """``at(x)[index]``: the positions to read or update."""

    __slots__ = ("x", "index")

    def __init__(self, x, index):
        self.x = x
        self.index = index

    def __repr__(self):
        return f"<at[{self.index!r}] of an array of shape {shape_of(self.x)}>"

    def get(self, mode=None, fill_value=None):
        """``x[index]``. ``mode``: None (NumPy's: an index out of bounds raises IndexError),
        ``"clip"`` (each integer index clamped into its axis) or ``"fill"`` (entries read
        out of bounds are ``fill_value``, NaN by default), as JAX's ``.at[].get``."""
        x, index = self.x, self.index
        if mode is not None:
            x, index = _within(
                x if _kept(x) else np.asarray(x),
                index,
                _mode(mode, ("clip", "fill"), "get"),
                np.nan if fill_value is None else fill_value,
            )
        if type(index) is TracedIndex:
            template, operands = index
            return gather.gather(_operand(x), *operands, template=template, mode="raise")
        return x[index]

    def set(self, v, mode=None):
        """``x`` with ``x[index]`` replaced by ``v`` (broadcast to the indexed shape).
        ``mode``: None (NumPy's), ``"clip"`` or ``"drop"`` (writes out of bounds dropped)."""
        return self._update(v, _SET, mode)

    def add(self, v, mode=None):
        """``x`` with ``v`` added at ``index`` (repeated positions add up); ``mode`` as for
        :meth:`set`."""
        return self._update(v, _ADD, mode)

    def multiply(self, v, mode=None):
        """``x`` with ``x[index]`` multiplied by ``v`` (repeated positions multiply up);
        ``mode`` as for :meth:`set`."""
        return self._update(v, _MULTIPLY, mode)

    mul = multiply  # JAX's other name

    def subtract(self, v, mode=None):
        """``x`` with ``v`` subtracted at ``index`` (each repeat subtracts); ``mode`` as for
        :meth:`set`."""
        return self._update(v, _SUBTRACT, mode)

    def min(self, v, mode=None):
        """``x`` with ``x[index]`` replaced by its minimum with ``v`` (``np.minimum.at``:
        repeats taken in order, NaN kept); the derivative goes to the smallest, shared
        evenly at a tie (JAX's rule; on another library's arrays with a NumPy index, pairwise
        in the order written, as ``minimum``'s). ``mode`` as for :meth:`set`."""
        return self._update(v, _MIN, mode)

    def max(self, v, mode=None):
        """``x`` with ``x[index]`` replaced by its maximum with ``v`` (``np.maximum.at``);
        as :meth:`min`."""
        return self._update(v, _MAX, mode)

    def divide(self, v, mode=None):
        """``x`` divided at ``index`` by ``v``, as JAX's: by the product of the values
        written to a repeated position; an integer ``x`` gives floats (true division)."""
        return self._over_product(v, mode, elementwise.divide)

    def power(self, v, mode=None):
        """``x`` raised at ``index`` to ``v``, as JAX's: to the product of the values
        written to a repeated position; ``x`` keeps its dtype."""
        return self._over_product(v, mode, elementwise.power)

    def _over_product(self, v, mode, op):
        """``op(x, p)`` for ``p`` the product of the values at each position (one
        elsewhere): JAX's ``divide`` and ``power``."""
        x = self.x
        dtype = dtype_of(x)
        if numeric_kind(dtype) not in "fc" and op is not elementwise.power:
            dtype = np.dtype(np.float64)  # integers divided truly: floats
        ones = in_library_of(np.ones(shape_of(x), dtype), x)
        return op(x, _Ref(ones, self.index).multiply(v, mode))

    def _update(self, v, how, mode=None):
        if mode is not None:
            mode = _mode(mode, ("clip", "drop"), how.name)
            x = self.x if _kept(self.x) else np.asarray(self.x)
            x, index = _within(x, self.index, mode, 0.0)
            out = _Ref(x, index)._update(v, how)
            out = _unpadded(out, shape_of(self.x)) if mode == "drop" else out
            return _as_written(out, self.x, v)
        x, index = self.x, self.index
        if type(index) is TracedIndex:
            return _as_written(_traced_index_update(_operand(x), index, v, how), x, v)
        if not _kept(x) and not _kept(v):  # NumPy's values: NumPy's own assignment
            out = np.array(x, copy=True)
            if how is _SET:
                out[index] = v
            else:
                ufunc_at(how.ufunc, out, index, v)
            return out
        if how is not _SET and not is_foreign(raw(x)) and not is_foreign(raw(v)):
            # one scatter, however often a position repeats: the index is its template
            template = tuple(index) if isinstance(index, tuple) else (index,)
            _fitting(v, np.broadcast_to(False, shape_of(x))[index].shape, how)
            return _as_written(_traced_index_update(_operand(x), (template, ()), v, how), x, v)
        return _as_written(_traced_update(_operand(x), index, v, how), x, v)


def _mode(mode, allowed, who):
    if mode not in allowed:
        raise ArgumentError(
            f"at[...].{who}: mode must be one of {allowed} or None (NumPy's: "
            f"out of bounds raises); got {mode!r}"
        )
    return mode


def _is_integer_part(p):
    if isinstance(p, (bool, np.bool_)):
        return False
    if isinstance(p, (int, np.integer)):
        return True
    return (isinstance(p, (np.ndarray, Box)) or is_foreign(p)) and dtype_of(p).kind in "iu"


def _within(x, index, mode, fill):
    """``x`` and ``index`` with every integer part of the index brought in bounds: clamped
    (``"clip"``), or sent to one slot past the end of its axis, which ``x`` gains, holding
    ``fill`` (``"fill"``, ``"drop"``: reads there give ``fill``, writes there are cut off
    with the slot). NumPy then places every dimension as it would for ``index``."""
    if type(index) is TracedIndex:
        template, operands = index
        it = iter(operands)
        parts = [next(it) if type(p) is str else p for p in template]
    else:
        parts = list(index) if isinstance(index, tuple) else [index]
    template = tuple(gather.TRACED if _kept(p) else p for p in parts)
    shape = shape_of(x)
    axes = gather.index_axes(template, len(shape))
    padded = []
    for k, p in enumerate(parts):
        if not _is_integer_part(p) or axes[k] is None:
            continue
        # the primitives run NumPy's ufuncs on plain indices and record traced ones
        n = shape[axes[k]]
        wrapped = where(less(p, 0), p + n, p)
        if mode == "clip":
            parts[k] = _index_part(ufuncs.clip(wrapped, 0, n - 1))
        else:
            inside = ufuncs.logical_and(less(-n - 1, p), less(p, n))
            parts[k] = _index_part(where(inside, wrapped, n))
            padded.append(axes[k])
    for axis in sorted(set(padded)):
        slot_shape = list(shape_of(x))
        slot_shape[axis] = 1
        # a read's fill joins x's dtype (fill is weak); a dropped write's slot is cut off
        # again, so it keeps x's dtype (an integer array stays one)
        dtype = dtype_of(x) if mode == "drop" else np.result_type(dtype_of(x), fill)
        slot = (
            np.zeros(slot_shape, dtype=dtype)
            if mode == "drop"
            else np.full(slot_shape, fill, dtype)
        )
        x = arrays.concatenate(x, in_library_of(slot, x), axis=axis)
    new = tuple(parts)
    if any(_kept(p) for p in new):  # traced, or on another library's device
        return x, index_param(new)
    return x, new if isinstance(index, tuple) or len(new) != 1 else new[0]


def _unpadded(out, shape):
    """``out`` without the slots :func:`_within` added past the ends of its axes."""
    extra = tuple(slice(0, n) for n in shape)
    return out[extra] if shape_of(out) != shape else out


def _index_part(p):
    """A plain 0-d result as the Python int an index part is; arrays and traced values as
    they are."""
    return int(p) if not isinstance(p, Box) and np.ndim(p) == 0 else p


def _kept(x):
    """Whether ``x`` is updated by primitives as it is: traced, or another library's array
    (written on its device, never through NumPy)."""
    return isinstance(x, Box) or is_foreign(x)


def _operand(x):
    """A plain ``x`` as the array a traced update writes into: its own float dtype (float32
    stays float32, as NumPy's and JAX's writes keep it), integers and booleans as float64."""
    if _kept(x):
        return x
    x = np.asarray(x)
    return x if x.dtype.kind in "fc" else x.astype(np.float64)


def _as_written(out, x, v):
    """``out`` in the type NumPy gives a plain integer or boolean ``x`` written with
    integers or booleans ``v``: ``x``'s own (a traced update computed in float64 meanwhile:
    :func:`_operand`). A float ``v`` keeps the float64 result, differentiable in ``v``."""
    if _kept(x):
        return out
    kind = np.asarray(x).dtype
    if kind.kind in "biu" and numeric_kind(dtype_of(v)) in "biu" and dtype_of(out) != kind:
        return ufuncs.astype(out, dtype=kind)
    return out


def _in_dtype_of(out, x):
    """The written array in ``x``'s dtype, as NumPy writes it (and JAX's ``at`` casts it):
    float32 ``x`` with a float64 update stays float32, an integer array stays one."""
    return out if dtype_of(out) == dtype_of(x) else ufuncs.astype(out, dtype=dtype_of(x))


class _How(NamedTuple):
    """An update: its method's name, NumPy's ufunc whose ``.at`` makes it on a plain copy,
    the primitive that combines a traced ``x`` with the values written (round by round, on
    another library's arrays with a NumPy index), and the scatter primitive that makes the
    whole update in one call (each repeat of a position in turn)."""

    name: str
    ufunc: Any
    combine: Any
    scatter: Any


_SET = _How("set", None, None, gather.scatter_set)
_ADD = _How("add", np.add, elementwise.add, gather.scatter_add)
_SUBTRACT = _How("subtract", np.subtract, elementwise.subtract, gather.scatter_add)
_MULTIPLY = _How("multiply", np.multiply, elementwise.multiply, scatter_combine.scatter_mul)
_MIN = _How("min", np.minimum, elementwise.minimum, scatter_combine.scatter_min)
_MAX = _How("max", np.maximum, elementwise.maximum, scatter_combine.scatter_max)


def _traced_update(x, index, v, how):
    """An update at a NumPy index through the flat positions it selects: ``set`` (the last
    write kept), and the others on another library's arrays, one round of that library's
    functions per repeat of a position (their scatters need the index on the device)."""
    shape = shape_of(x)
    size = int(np.prod(shape, dtype=np.int64))
    targets = np.arange(size).reshape(shape)[index]  # the flat position of each selected item
    sel_shape = np.shape(targets)
    vshape = _fitting(v, sel_shape, how)
    flat_t = targets.ravel()
    if _kept(v) and vshape == ():
        flat_v = arrays.broadcast_to(v, shape=(flat_t.size,))
    elif _kept(v):
        if vshape != sel_shape:
            v = arrays.broadcast_to(v, shape=sel_shape)
        flat_v = arrays.reshape(v, shape=(flat_t.size,))
    else:
        flat_v = np.broadcast_to(np.asarray(v), sel_shape).ravel()
    flat_x = arrays.reshape(x, shape=(size,)) if shape != (size,) else x
    if how is _SET:
        out = gather.write_flat(flat_x, flat_t, flat_v)  # the last write wins, as NumPy's
    else:
        # One round per repeat of a position, in order, as np.add.at / np.multiply.at do.
        out = flat_x
        remaining = np.arange(flat_t.size)
        while remaining.size:
            _, first = np.unique(flat_t[remaining], return_index=True)
            now = remaining[first]
            touched = np.zeros(size, dtype=bool)
            touched[flat_t[now]] = True
            spread = arrays.untake(
                arrays.getitem(flat_v, index=now), index=flat_t[now], shape=(size,)
            )
            touched = in_library_of(touched, x)  # on the device of a foreign x
            out = where(touched, how.combine(out, spread), out)
            remaining = np.setdiff1d(remaining, now)
    out = _in_dtype_of(out, x)
    return arrays.reshape(out, shape=shape) if shape != (size,) else out


def _fitting(v, indexed, how):
    """The shape of ``v``, which must broadcast to the ``indexed`` shape it is written to."""
    vshape = shape_of(v)
    try:
        if np.broadcast_shapes(vshape, indexed) != indexed:
            raise ValueError
    except ValueError:
        raise ArgumentError(
            f"at(x)[index].{how.name}(v): v of shape {vshape} cannot be broadcast to the indexed "
            f"shape {indexed}; give v that shape or one that broadcasts to it"
        ) from None
    return vshape


def _traced_index_update(x, index, v, how):
    """An update at an index that jit or vmap traces: one scatter primitive."""
    template, operands = index
    if how is _SUBTRACT:
        v = elementwise.negative(v)
    return _in_dtype_of(how.scatter(x, v, *operands, template=template, mode="raise"), x)


class _At:
    __slots__ = ("x",)

    def __init__(self, x):
        self.x = x

    def __getitem__(self, index):
        return _Ref(self.x, index_param(index))

    def __repr__(self):
        return f"<at of an array of shape {shape_of(self.x)}>"


def at(x: Any) -> Any:
    """Functional indexed update of ``x``: ``at(x)[idx].set(v)``, ``.add(v)``,
    ``.subtract(v)``, ``.multiply(v)`` (``.mul``), ``.min(v)``, ``.max(v)``, ``.divide(v)``,
    ``.power(v)`` or ``.get()``, JAX's names. ``x`` itself never changes.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> x = np.zeros(4)
    >>> fg.at(x)[1:3].set(5.0)
    array([0., 5., 5., 0.])
    >>> fg.at(x)[[0, 0]].add(1.0)
    array([2., 0., 0., 0.])
    >>> fg.at(np.array([1.0, 5.0]))[[0, 0, 1]].max(np.array([3.0, 2.0, 4.0]))
    array([3., 5.])
    >>> gx, gv = fg.grad(lambda x, v: fnp.sum(fg.at(x)[0].set(v) ** 2), argnums=(0, 1))(np.ones(2), 3.0)
    >>> gx, float(gv)
    (array([0., 2.]), 6.0)
    """
    return _At(x)


setattr(
    ArrayLike, "at", property(at, doc="``x.at[idx].set(v)``: the same as ``fg.at(x)[idx].set(v)``.")
)
