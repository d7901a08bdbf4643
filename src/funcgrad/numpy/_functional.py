"""NumPy's function-applying helpers on traced values: ``apply_along_axis``,
``vectorize`` and ``piecewise``.

Each calls the user's function on pieces of the traced array (one 1-D slice,
one element, the selected elements) and assembles the results with
differentiable joins, so any function written with funcgrad.numpy works,
Python ``if`` statements on an element's value included (``vectorize`` calls
its function on one element at a time, as NumPy does). They run a Python loop:
fine for small arrays; for large ones write the function with array
operations, or use ``fg.vmap``.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> clipped = fnp.vectorize(lambda v: v * v if v < 1.0 else 2.0 * v - 1.0)
>>> fg.grad(lambda x: fnp.sum(clipped(x)))(np.array([0.5, 3.0]))
array([1., 2.])
"""

import numpy as _np

from ..core.errors import ArgumentError, UnsupportedError
from ..core.traces import Box
from ..core.values import shape_of as _shape_of
from ..rules import arrays as _a
from ._helpers import as_array, check_axis, concrete, in_float_dtype_of, is_traced
from ._joining import stack
from ._shape import broadcast_arrays, moveaxis, ravel, reshape

__all__ = ["apply_along_axis", "vectorize", "piecewise", "apply_over_axes"]


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``numpy.apply_along_axis``: ``func1d`` on every 1-D slice along ``axis``; its
    result's axes take ``axis``'s place.

    >>> import numpy as np
    >>> from funcgrad.numpy import apply_along_axis
    >>> apply_along_axis(lambda v: v[::-1] * 2.0, 1, np.arange(4.0).reshape(2, 2))
    array([[2., 0.],
           [6., 4.]])
    """
    if not is_traced(arr):
        return _np.apply_along_axis(func1d, axis, arr, *args, **kwargs)
    arr = as_array(arr)
    nd = len(_shape_of(arr))
    axis = check_axis(axis, nd, "apply_along_axis")
    moved = moveaxis(arr, axis, -1)
    outer = _shape_of(moved)[:-1]
    results = [as_array(func1d(moved[index], *args, **kwargs)) for index in _np.ndindex(*outer)]
    inner = _shape_of(results[0])
    out = reshape(stack(results), outer + inner)
    for k in range(len(inner)):
        out = moveaxis(out, len(outer) + k, axis + k)
    return out


class vectorize:
    """``numpy.vectorize``: ``pyfunc`` called on every element of its broadcast arguments.

    >>> import numpy as np
    >>> from funcgrad.numpy import vectorize
    >>> vectorize(lambda a, b: a - b if a > b else a + b)(np.array([1.0, 4.0]), 2.0)
    array([3., 2.])
    """

    def __init__(
        self, pyfunc=None, otypes=None, doc=None, excluded=None, cache=False, signature=None
    ):
        if signature is not None:
            raise UnsupportedError(
                "funcgrad.numpy.vectorize: signature= is not supported; "
                "use fg.vmap for functions of whole sub-arrays"
            )
        self.pyfunc, self.otypes, self.excluded = pyfunc, otypes, set(excluded or ())
        self._numpy = _np.vectorize(pyfunc, otypes=otypes, excluded=excluded)
        self.__doc__ = doc or getattr(pyfunc, "__doc__", None)

    def __call__(self, *args, **kwargs):
        if not is_traced(*args, *kwargs.values()):
            return self._numpy(*args, **kwargs)
        mapped = [i for i in range(len(args)) if i not in self.excluded]
        arrays = broadcast_arrays(*[as_array(args[i]) for i in mapped])
        shape = _shape_of(arrays[0])
        flat = [ravel(a) for a in arrays]
        outs = []
        for k in range(int(_np.prod(shape, dtype=_np.int64))):
            call = list(args)
            for i, f in zip(mapped, flat):
                call[i] = f[k]
            outs.append(self.pyfunc(*call, **kwargs))
        if outs and isinstance(outs[0], tuple):
            return tuple(
                reshape(stack([as_array(o[j]) for o in outs]), shape) for j in range(len(outs[0]))
            )
        return reshape(stack([as_array(o) for o in outs]), shape) if outs else _np.zeros(shape)


def piecewise(x, condlist, funclist, *args, **kw):
    """``numpy.piecewise``: ``funclist[i]`` (a function or a constant) where ``condlist[i]``
    holds, on those elements only (so a branch never sees, or differentiates, values outside
    its piece); an extra last function or constant covers what no condition does.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy import piecewise
    >>> f = lambda x: piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2])
    >>> fg.grad(lambda x: f(x).sum())(np.array([-2.0, 3.0]))
    array([-1.,  6.])
    """
    if not is_traced(x):
        return _np.piecewise(x, condlist, funclist, *args, **kw)
    x = as_array(x)
    shape = _shape_of(x)
    conds = [
        _np.broadcast_to(_np.asarray(concrete(c, "piecewise"), dtype=bool), shape)
        for c in (condlist if isinstance(condlist, (list, tuple)) else [condlist])
    ]
    if len(funclist) == len(conds) + 1:
        conds.append(~_np.any(conds, axis=0) if conds else _np.ones(shape, bool))
    elif len(funclist) != len(conds):
        raise ArgumentError(
            f"piecewise: with {len(conds)} condition(s), give {len(conds)} or "
            f"{len(conds) + 1} functions; got {len(funclist)}"
        )
    flat_x = ravel(x)
    taken = _np.zeros(shape, bool)
    pieces, positions = [], []
    for cond, func in reversed(list(zip(conds, funclist))):  # later conditions win, as in NumPy
        mine = cond & ~taken
        taken |= cond
        where = _np.flatnonzero(mine)
        if not where.size:
            continue
        selected = _a.getitem(flat_x, index=where)
        value = func(selected, *args, **kw) if callable(func) else func
        pieces.append(
            as_array(value) * _np.ones(where.size)
            if not isinstance(value, Box) or _shape_of(value) != (where.size,)
            else value
        )
        positions.append(where)
    size = int(_np.prod(shape, dtype=_np.int64))
    out = _np.zeros(size)
    for piece, where in zip(pieces, positions):
        out = out + _a.untake(piece, index=where, shape=(size,))
    return in_float_dtype_of(reshape(out, shape), x)


def apply_over_axes(func, a, axes):
    """``numpy.apply_over_axes``: ``func(a, axis)`` for each axis in turn, its result given
    back the reduced axis (as a length-1 axis) where ``func`` dropped it.

    >>> import numpy as np
    >>> from funcgrad.numpy import apply_over_axes
    >>> apply_over_axes(np.sum, np.ones((2, 3)), [0, 1])
    array([[6.]])
    """
    out = as_array(a)
    for axis in [axes] if isinstance(axes, int) else axes:
        nd = len(_shape_of(out))
        axis = axis % nd
        res = func(out, axis)
        if len(_shape_of(res)) == nd - 1:
            res = reshape(res, _shape_of(res)[:axis] + (1,) + _shape_of(res)[axis:])
        elif len(_shape_of(res)) != nd:
            raise ArgumentError(
                "apply_over_axes: func must keep or drop exactly the axis it is given"
            )
        out = res
    return out
