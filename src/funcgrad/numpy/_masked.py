"""NumPy's ``where=`` masks and ``initial=`` values of the reductions, on traced values.

``np.sum(x, where=m, initial=v)`` adds the elements ``m`` selects to ``v``;
``np.max(x, where=m, initial=v)`` takes the largest of them and ``v``. On plain
arrays funcgrad.numpy calls NumPy itself (its bits); on traced values a reduction
with a mask reduces ``where(m, x, fill)``, the fill being the reduction's identity
(0 for a sum, 1 for a product, the initial value for an extremum), so a masked
element gets a zero derivative. The values equal NumPy's to rounding: NumPy adds a
masked or seeded sum in another order than its pairwise sum.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> x, m = np.array([1.0, 5.0, 2.0]), np.array([True, False, True])
>>> fnp.sum(x, where=m, initial=10.0), fnp.max(x, where=m, initial=0.0)
(np.float64(13.0), np.float64(2.0))
>>> fg.grad(lambda x: fnp.max(x, where=m, initial=0.0))(x)
array([0., 0., 1.])
"""

import numpy as _np

from ..core.errors import ArgumentError, ShapeError
from ..core.namespaces import is_foreign as _is_foreign
from ..core.values import dtype_of as _dtype_of
from ..core.values import plain as _plain
from ..core.values import raw as _raw
from ..core.values import shape_of as _shape_of
from ..rules import arrays as _arrays
from ..rules import elementwise as _ew
from ..rules import reductions as _r
from ..rules import ufuncs as _u

__all__ = ["given", "selected", "count", "with_initial", "reduced_shape", "need_initial"]


def given(**options):
    """The options that were given (not None), to pass on to NumPy's own call.

    >>> given(initial=None, where=True)
    {'where': True}
    """
    return {k: v for k, v in options.items() if v is not None}


def _mask(where, a, name):
    """``where`` as a boolean mask (no derivative), checked to broadcast to ``a``'s shape."""
    if isinstance(where, (list, tuple)):
        where = _np.asarray(where)
    shape, mask_shape = _shape_of(a), _shape_of(where)
    try:
        fits = _np.broadcast_shapes(mask_shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ShapeError(
            f"funcgrad.numpy.{name}: where= of shape {mask_shape} does not broadcast to the "
            f"array's shape {shape}; give a mask of that shape (or one that broadcasts to it)"
        )
    mask = _plain(where)
    return mask if _dtype_of(mask) == _np.bool_ else _ew.not_equal(mask, 0)


def selected(a, where, fill, name):
    """``a`` where ``where`` holds and ``fill`` (in ``a``'s dtype) elsewhere; ``a`` itself
    where ``where`` is None or True."""
    if where is None or where is True:
        return a
    fill = _np.asarray(fill).astype(_dtype_of(a))[()]
    return _ew.where(_mask(where, a, name), a, fill)


def count(a, where, axis, keepdims, name):
    """How many elements each result over ``axis`` combines (NumPy's ``rcount``): a Python
    int without a mask, else the counts as float64 (a division by them is NumPy's, and
    strict array libraries divide floats by floats only)."""
    if where is None or where is True:
        return _r.reduced_count(a, axis)
    shape = _shape_of(a)
    ones = _arrays.broadcast_to(_u.astype(_mask(where, a, name), dtype=_np.float64), shape=shape)
    return _arrays.sum(ones, axis=axis, keepdims=keepdims)


def _axes(axis, ndim):
    return tuple([ax % ndim for ax in (axis if isinstance(axis, tuple) else (axis,))])


def reduced_shape(shape, axis, keepdims):
    """The shape of a reduction of ``shape`` over ``axis``."""
    axes = range(len(shape)) if axis is None else _axes(axis, len(shape))
    if keepdims:
        return tuple(1 if k in axes else n for k, n in enumerate(shape))
    return tuple(n for k, n in enumerate(shape) if k not in axes)


def with_initial(result, initial, combine):
    """``combine(result, initial)``, ``initial`` taken in the result's dtype (NumPy casts
    it so: ``np.sum(float32, initial=np.float64(1))`` is float32)."""
    if initial is None:
        return result
    value = _np.asarray(_plain(initial)).astype(_dtype_of(result))[()]
    if _is_foreign(_raw(result)):  # Python's number, exact in the dtype: every library's
        value = value.item()
    return combine(result, value)


def need_initial(name, where, initial):
    """An extremum has no identity: NumPy needs ``initial=`` with a mask, and so does
    funcgrad (the same refusal, naming the fix)."""
    if where is not None and where is not True and initial is None:
        raise ArgumentError(
            f"funcgrad.numpy.{name}: a where= mask needs initial= (the {name} of no element "
            f"has no value), as in NumPy: e.g. {name}(x, where=m, initial=-np.inf)"
        )
