"""lax's products, orderings and reductions: ``dot_general`` in lax's order of axes,
``top_k``, ``sort`` of several operands, running maxima; see :mod:`funcgrad.lax`.

>>> import numpy as np
>>> from funcgrad import lax
>>> lax.cummax(np.array([1.0, 3.0, 2.0]), reverse=True)
array([3., 3., 2.])
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..control.loops import scan
from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.values import dtype_of, shape_of
from ..numpy._precision import checked_precision, in_preferred_type
from ..rules.cuts import stop_gradient

__all__ = [
    "dot",
    "dot_general",
    "batch_matmul",
    "argmax",
    "argmin",
    "cumsum",
    "cumprod",
    "cummax",
    "cummin",
    "sort",
    "top_k",
    "reduce_sum",
    "reduce_prod",
    "reduce_max",
    "reduce_min",
]


def dot(lhs: Any, rhs: Any, precision: Any = None, preferred_element_type: Any = None) -> Any:
    """The vector, matrix-vector or matrix product (``precision`` checked, every one
    NumPy's full precision; summed in ``preferred_element_type``: funcgrad.numpy._precision).

    >>> import numpy as np
    >>> from funcgrad.lax import dot
    >>> dot(np.ones((2, 3)), np.ones(3))
    array([3., 3.])
    """
    checked_precision(precision, "lax.dot")
    return in_preferred_type(fnp.dot, (lhs, rhs), preferred_element_type)


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def dot_general(
    lhs: Any,
    rhs: Any,
    dimension_numbers: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
    """The general product: ``dimension_numbers = ((lhs_contract, rhs_contract),
    (lhs_batch, rhs_batch))``; the result's axes are the batch axes, then lhs's free
    axes, then rhs's (lax's order).

    >>> import numpy as np
    >>> from funcgrad.lax import dot_general
    >>> a, b = np.ones((4, 2, 3)), np.ones((4, 3, 5))
    >>> dot_general(a, b, (((2,), (1,)), ((0,), (0,)))).shape
    (4, 2, 5)
    """
    try:
        (lc, rc), (lb, rb) = dimension_numbers
        lc, rc, lb, rb = (tuple(int(a) for a in axes) for axes in (lc, rc, lb, rb))
    except (TypeError, ValueError):
        raise ArgumentTypeError(
            f"lax.dot_general: dimension_numbers is ((lhs_contracting, "
            f"rhs_contracting), (lhs_batch, rhs_batch)); got "
            f"{dimension_numbers!r:.60}"
        ) from None
    nl, nr = len(shape_of(lhs)), len(shape_of(rhs))
    if len(lc) != len(rc) or len(lb) != len(rb) or nl + nr > len(_LETTERS):
        raise ArgumentError(
            f"lax.dot_general: contracting and batch axes must pair up; got "
            f"{dimension_numbers!r:.60}"
        )
    left = list(_LETTERS[:nl])
    right = list(_LETTERS[nl : nl + nr])
    for a, b in zip(lc + lb, rc + rb):
        right[b] = left[a]
    batch = [left[a] for a in lb]
    free_l = [left[a] for a in range(nl) if a not in lc and a not in lb]
    free_r = [right[b] for b in range(nr) if b not in rc and b not in rb]
    spec = f"{''.join(left)},{''.join(right)}->{''.join(batch + free_l + free_r)}"
    checked_precision(precision, "lax.dot_general")
    return fnp.einsum(spec, lhs, rhs, preferred_element_type=preferred_element_type)


def batch_matmul(lhs: Any, rhs: Any, precision: Any = None) -> Any:
    """Matrix products over the leading batch axes.

    >>> import numpy as np
    >>> from funcgrad.lax import batch_matmul
    >>> batch_matmul(np.ones((2, 1, 3)), np.ones((2, 3, 1))).shape
    (2, 1, 1)
    """
    return fnp.matmul(lhs, rhs, precision=precision)


def argmax(operand: Any, axis: int, index_dtype: Any) -> Any:
    """The index of the largest entry along ``axis``, as ``index_dtype``.

    >>> import numpy as np
    >>> from funcgrad.lax import argmax
    >>> argmax(np.array([1.0, 3.0, 2.0]), 0, np.int32)
    np.int32(1)
    """
    return _index(fnp.argmax(operand, axis=axis), index_dtype)


def argmin(operand: Any, axis: int, index_dtype: Any) -> Any:
    """The index of the smallest entry along ``axis``, as ``index_dtype``.

    >>> import numpy as np
    >>> from funcgrad.lax import argmin
    >>> argmin(np.array([1.0, 3.0, 0.5]), 0, np.int32)
    np.int32(2)
    """
    return _index(fnp.argmin(operand, axis=axis), index_dtype)


def _index(found, index_dtype):
    """An argmax's or argmin's result as ``index_dtype`` (a NumPy scalar where NumPy's is 0-d,
    as lax's is; another library's array as it is)."""
    out = fnp.astype(found, index_dtype)
    return out[()] if isinstance(out, np.ndarray) else out


def _along(fun, operand, axis, reverse):
    operand = fnp.flip(operand, axis) if reverse else operand
    out = fun(operand, axis)
    return fnp.flip(out, axis) if reverse else out


def cumsum(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running sums along ``axis`` (from the end with ``reverse``).

    >>> import numpy as np
    >>> from funcgrad.lax import cumsum
    >>> cumsum(np.array([1.0, 2.0, 3.0]), reverse=True)
    array([6., 5., 3.])
    """
    # in the operand's dtype, as lax's (NumPy's cumsum widens small integers)
    return _along(
        lambda x, a: fnp.cumsum(x, axis=a, dtype=fnp.result_type(x)), operand, axis, reverse
    )


def cumprod(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running products along ``axis``.

    >>> import numpy as np
    >>> from funcgrad.lax import cumprod
    >>> cumprod(np.array([1.0, 2.0, 3.0]))
    array([1., 2., 6.])
    """
    # in the operand's dtype, as lax's (NumPy's cumprod widens small integers)
    return _along(
        lambda x, a: fnp.cumprod(x, axis=a, dtype=fnp.result_type(x)), operand, axis, reverse
    )


def _running(pick):
    def run(x, axis):
        moved = fnp.moveaxis(x, axis, 0)
        _, ys = scan(lambda best, row: (pick(best, row),) * 2, moved[0], moved)
        return fnp.moveaxis(ys, 0, axis)

    return run


def cummax(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running maxima along ``axis``.

    >>> import numpy as np
    >>> from funcgrad.lax import cummax
    >>> cummax(np.array([1.0, 3.0, 2.0]))
    array([1., 3., 3.])
    """
    return _along(_running(fnp.maximum), operand, axis, reverse)


def cummin(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running minima along ``axis``.

    >>> import numpy as np
    >>> from funcgrad.lax import cummin
    >>> cummin(np.array([3.0, 1.0, 2.0]))
    array([3., 1., 1.])
    """
    return _along(_running(fnp.minimum), operand, axis, reverse)


def sort(operand: Any, dimension: int = -1, is_stable: bool = True, num_keys: int = 1) -> Any:
    """``operand`` sorted along ``dimension``; a tuple of operands is sorted by its first
    ``num_keys`` (the others follow their order).

    >>> import numpy as np
    >>> from funcgrad.lax import sort
    >>> sort(np.array([3.0, 1.0, 2.0]))
    array([1., 2., 3.])
    >>> sort((np.array([2, 1]), np.array([10.0, 20.0])))
    (array([1, 2]), array([20., 10.]))
    """
    if not isinstance(operand, (tuple, list)):
        return fnp.sort(operand, axis=dimension)
    keys = list(operand[:num_keys])
    order = (
        fnp.lexsort(tuple(reversed(keys)), axis=dimension)
        if len(keys) > 1
        else fnp.argsort(keys[0], axis=dimension, kind="stable")
    )
    return tuple(fnp.take_along_axis(x, order, axis=dimension) for x in operand)


def top_k(operand: Any, k: int) -> tuple[Any, Any]:
    """The ``k`` largest entries along the last axis, largest first, and their indices
    (the first of equal entries first).

    >>> import numpy as np
    >>> from funcgrad.lax import top_k
    >>> top_k(np.array([1.0, 4.0, 2.0, 4.0]), 2)
    (array([4., 4.]), array([1, 3], dtype=int32))
    """
    n = shape_of(operand)[-1]
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k <= n:
        raise ArgumentError(f"lax.top_k: k must be an int from 0 to {n}; got {k!r:.40}")
    order = _descending(operand)[..., :k]
    return fnp.take_along_axis(operand, order, axis=-1), fnp.astype(order, np.int32)


def _descending(x):
    """The positions of ``x``'s entries along the last axis in XLA's descending total order,
    the first of equal entries first: NaN above +inf and 0.0 above -0.0 for floats; for
    integers and booleans the bitwise complement's ascending order (negating an unsigned or
    the smallest signed integer wraps)."""
    plain = stop_gradient(x)
    small = np.int8  # the masks' keys as numbers: the Array API sorts no booleans
    if dtype_of(plain).kind == "b":
        return fnp.argsort(fnp.astype(~plain, small), axis=-1, kind="stable")
    if dtype_of(plain).kind not in "fc":
        return fnp.argsort(fnp.bitwise_not(plain), axis=-1, kind="stable")
    order = fnp.argsort(fnp.astype(fnp.signbit(plain), small), axis=-1, kind="stable")
    # 0.0 before -0.0 above; then by value, then NaNs first
    for key in (lambda v: -v, lambda v: fnp.astype(~fnp.isnan(v), small)):
        ranked = fnp.take_along_axis(plain, order, axis=-1)
        order = fnp.take_along_axis(
            order, fnp.argsort(key(ranked), axis=-1, kind="stable"), axis=-1
        )
    return order


def _reduce(fun, name, example):
    def reduce(operand: Any, axes: Sequence[int]) -> Any:
        return fun(operand, axis=tuple(axes))

    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = (
        f"``{fun.__name__}`` over ``axes``.\n\n"
        f">>> import numpy as np\n>>> from funcgrad.lax import {name}\n"
        f">>> {name}(np.array([[1.0, 2.0], [3.0, 4.0]]), (1,))\n{example}\n"
    )
    return reduce


reduce_sum = _reduce(fnp.sum, "reduce_sum", "array([3., 7.])")
reduce_prod = _reduce(fnp.prod, "reduce_prod", "array([ 2., 12.])")
reduce_max = _reduce(fnp.max, "reduce_max", "array([2., 4.])")
reduce_min = _reduce(fnp.min, "reduce_min", "array([1., 3.])")
