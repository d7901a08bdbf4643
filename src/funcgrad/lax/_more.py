"""lax's comparisons, bit operations, complex parts, special functions and the rest of
its everyday names, each a few calls of :mod:`funcgrad.numpy` (so each differentiates,
batches and compiles); see :mod:`funcgrad.lax`.

>>> import numpy as np
>>> from funcgrad import lax
>>> lax.select_n(np.array([0, 2, 1]), np.zeros(3), np.ones(3), np.full(3, 2.0))
array([0., 2., 1.])
>>> lax.cumlogsumexp(np.log(np.array([1.0, 2.0, 3.0])))
array([0.        , 1.09861229, 1.79175947])
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..core.errors import ArgumentError
from ..core.tree import tree_map
from ..core.values import dtype_of, shape_of
from ._associative import associative_scan

__all__ = [
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
    "population_count",
    "clz",
    "mulhi",
    "nextafter",
    "real",
    "imag",
    "conj",
    "complex",
    "cumlogsumexp",
    "select_n",
    "sort_key_val",
    "reduce",
    "reduce_and",
    "reduce_or",
    "reduce_xor",
    "tile",
    "split",
    "collapse",
    "broadcasted_iota",
    "broadcast_to_rank",
    "optimization_barrier",
]

eq, ne, lt, le, gt, ge = (
    fnp.equal,
    fnp.not_equal,
    fnp.less,
    fnp.less_equal,
    fnp.greater,
    fnp.greater_equal,
)
bitwise_and, bitwise_or, bitwise_xor = fnp.bitwise_and, fnp.bitwise_or, fnp.bitwise_xor
bitwise_not = fnp.invert
real, imag = fnp.real, fnp.imag


def conj(x: Any) -> Any:
    """The complex conjugate: complex for a real ``x`` too, as lax gives it (float32 in,
    complex64 out).

    >>> import numpy as np
    >>> from funcgrad.lax import conj
    >>> conj(np.array([1.0, 2.0], np.float32)), conj(np.array([1 + 2j]))
    (array([1.-0.j, 2.-0.j], dtype=complex64), array([1.-2.j]))
    """
    dtype = dtype_of(x)
    if dtype.kind in "biuf":
        x = fnp.astype(x, np.result_type(dtype, np.complex64))
    return fnp.conj(x)


def _shift_amount(x, y):
    """``x``'s dtype and width in bits, ``y`` in that dtype, and where ``y`` is outside
    ``[0, bits)``, where XLA's shifts give 0 (or the sign, shifting right arithmetically)
    and NumPy's follow the machine's instruction."""
    kind = dtype_of(x)
    bits = 8 * kind.itemsize
    y = fnp.asarray(y)
    outside = fnp.logical_or(y < 0, y >= bits) if dtype_of(y).kind == "i" else y >= bits
    return kind, bits, fnp.where(outside, 0, y).astype(kind), outside


def shift_left(x: Any, y: Any) -> Any:
    """``x << y``; 0 where ``y`` is negative or at least ``x``'s width, as XLA's.

    >>> import numpy as np
    >>> from funcgrad.lax import shift_left
    >>> shift_left(np.array([1, 3], np.int8), np.array([2, 8], np.int8))
    array([4, 0], dtype=int8)
    """
    kind, _, amount, outside = _shift_amount(x, y)
    return fnp.where(outside, np.zeros((), kind), fnp.left_shift(x, amount))


def shift_right_arithmetic(x: Any, y: Any) -> Any:
    """``x >> y`` filling with copies of the top bit (an unsigned ``x`` read as signed);
    the sign's fill where ``y`` is negative or at least ``x``'s width, as XLA's.

    >>> import numpy as np
    >>> from funcgrad.lax import shift_right_arithmetic
    >>> shift_right_arithmetic(np.array([-8, 200], np.int16), np.array([2, 20], np.int16))
    array([-2,  0], dtype=int16)
    >>> shift_right_arithmetic(np.array([200], np.uint8), np.array([2], np.uint8))
    array([242], dtype=uint8)
    """
    kind, _, amount, outside = _shift_amount(x, y)
    signed = np.dtype(f"i{kind.itemsize}")
    s = x if kind == signed else fnp.astype(x, signed)  # (modular: the same bits)
    fill = fnp.where(s < 0, np.full((), -1, signed), np.zeros((), signed))
    out = fnp.where(outside, fill, fnp.right_shift(s, fnp.astype(amount, signed)))
    return out if kind == signed else fnp.astype(out, kind)


def shift_right_logical(x: Any, y: Any) -> Any:
    """``x >> y`` filling with zeros (a negative ``x`` read as unsigned); 0 where ``y`` is
    negative or at least ``x``'s width, as XLA's.

    >>> import numpy as np
    >>> from funcgrad.lax import shift_right_logical
    >>> shift_right_logical(np.array([-8], dtype=np.int8), 1)
    array([124], dtype=int8)
    """
    kind, bits, y, outside = _shift_amount(x, y)
    zero = np.zeros((), kind)
    if kind.kind != "i":
        return fnp.where(outside, zero, fnp.right_shift(x, y))
    # the arithmetic shift, less the copies of the sign bit it brought in
    low = fnp.left_shift(np.ones((), kind), fnp.maximum(bits - y, 0)) - np.ones((), kind)
    shifted = fnp.where(y == 0, x, fnp.bitwise_and(fnp.right_shift(x, y), low))
    return fnp.where(outside, zero, shifted)


nextafter = fnp.nextafter


def _bits_of(x):
    """``x``'s integer dtype, its width in bits, and ``x`` as the unsigned integers of its
    bits (a negative ``x`` read in two's complement)."""
    dtype = dtype_of(x)
    if dtype.kind not in "iu":
        raise ArgumentError(f"lax bit counts take integers; got {dtype}: cast first (astype)")
    unsigned = np.dtype(f"u{dtype.itemsize}")
    return dtype, 8 * dtype.itemsize, fnp.astype(x, unsigned)


def population_count(x: Any) -> Any:
    """The number of bits set in each element, in ``x``'s dtype.

    >>> import numpy as np
    >>> from funcgrad.lax import population_count
    >>> population_count(np.array([1, 0, -1, 255], np.int32))
    array([ 1,  0, 32,  8], dtype=int32)
    """
    dtype, bits, u = _bits_of(x)
    one = np.ones((), u.dtype if isinstance(u, np.ndarray) else dtype_of(u))
    count = fnp.zeros_like(u)
    for k in range(bits):
        count = count + fnp.bitwise_and(fnp.right_shift(u, k), one)
    return fnp.astype(count, dtype)


def clz(x: Any) -> Any:
    """The number of leading zero bits of each element, in ``x``'s dtype (its width for 0).

    >>> import numpy as np
    >>> from funcgrad.lax import clz
    >>> clz(np.array([1, 0, -1, 255], np.int32)), clz(np.array([1, 0], np.uint8))
    (array([31, 32,  0, 24], dtype=int32), array([7, 8], dtype=uint8))
    """
    dtype, bits, u = _bits_of(x)
    count = fnp.zeros_like(u)
    step = bits // 2
    while step:  # halve the part left to look at: are its top `step` bits all zero?
        empty = fnp.right_shift(u, bits - step) == 0
        count = count + fnp.where(empty, step, 0).astype(dtype_of(count))
        u = fnp.where(empty, fnp.left_shift(u, step), u)
        step //= 2
    count = count + (fnp.right_shift(u, bits - 1) == 0).astype(dtype_of(count))
    return fnp.astype(count, dtype)


def mulhi(x: Any, y: Any) -> Any:
    """The high half of the double-width product of two integers of one dtype: for int32,
    the top 32 bits of their 64-bit product.

    >>> import numpy as np
    >>> from funcgrad.lax import mulhi
    >>> mulhi(np.array([2**31 - 1, -5], np.int32), np.array([3, 7], np.int32))
    array([ 1, -1], dtype=int32)
    >>> mulhi(np.array([2**63 - 1], np.int64), np.array([3], np.int64))
    array([1])
    """
    dtype, bits, ux = _bits_of(x)
    if dtype_of(y) != dtype:
        raise ArgumentError(
            f"lax.mulhi: both operands need one dtype; got {dtype} and {dtype_of(y)}"
        )
    _, _, uy = _bits_of(y)
    if bits <= 32:  # the whole product fits a 64-bit integer
        wide = np.int64 if dtype.kind == "i" else np.uint64
        product = fnp.astype(x, wide) * fnp.astype(y, wide)
        return fnp.astype(fnp.right_shift(product, bits), dtype)
    # 64 bits: the unsigned product from 32-bit halves, then the signed correction
    half, low_mask = np.uint64(32), np.uint64(2**32 - 1)
    xl, xh = fnp.bitwise_and(ux, low_mask), fnp.right_shift(ux, half)
    yl, yh = fnp.bitwise_and(uy, low_mask), fnp.right_shift(uy, half)
    cross = xh * yl + fnp.right_shift(xl * yl, half)
    rest = xl * yh + fnp.bitwise_and(cross, low_mask)
    high = xh * yh + fnp.right_shift(cross, half) + fnp.right_shift(rest, half)
    if dtype.kind == "i":  # two's complement: less y where x < 0, less x where y < 0
        zero = np.uint64(0)
        high = high - fnp.where(x < 0, uy, zero) - fnp.where(y < 0, ux, zero)
    return fnp.astype(high, dtype)


def complex(x: Any, y: Any) -> Any:
    """``x + i y``.

    >>> import numpy as np
    >>> from funcgrad import lax
    >>> lax.complex(np.array([1.0]), np.array([2.0]))
    array([1.+2.j])
    """
    return fnp.add(x, fnp.multiply(y, 1j))


def cumlogsumexp(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running ``log(sum(exp(.)))`` along ``axis``, without overflow (``logaddexp`` in
    log depth: :func:`~funcgrad.lax.associative_scan`).

    >>> import numpy as np
    >>> from funcgrad.lax import cumlogsumexp
    >>> np.exp(cumlogsumexp(np.log(np.array([1.0, 2.0, 3.0]))))
    array([1., 3., 6.])
    """
    return associative_scan(fnp.logaddexp, operand, reverse=reverse, axis=axis)


def select_n(which: Any, *cases: Any) -> Any:
    """``cases[which]`` elementwise: ``which`` a bool (two cases) or an int array.

    >>> import numpy as np
    >>> from funcgrad.lax import select_n
    >>> select_n(np.array([True, False]), np.zeros(2), np.ones(2))
    array([1., 0.])
    """
    if not cases:
        raise ArgumentError("lax.select_n: give at least one case")
    if dtype_of(which).kind == "b":
        if len(cases) != 2:
            raise ArgumentError(
                f"lax.select_n: a bool which picks one of two cases; got {len(cases)}"
            )
        return fnp.where(which, cases[1], cases[0])
    out = cases[-1]
    for k in range(len(cases) - 2, -1, -1):
        out = fnp.where(fnp.equal(which, k), cases[k], out)
    return out


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True) -> Any:
    """``keys`` sorted along ``dimension``, and ``values`` in the same order.

    >>> import numpy as np
    >>> from funcgrad.lax import sort_key_val
    >>> sort_key_val(np.array([3.0, 1.0, 2.0]), np.array([30.0, 10.0, 20.0]))
    (array([1., 2., 3.]), array([10., 20., 30.]))
    """
    order = fnp.argsort(keys, axis=dimension, kind="stable")
    return (
        fnp.take_along_axis(keys, order, axis=dimension),
        fnp.take_along_axis(values, order, axis=dimension),
    )


_KNOWN: dict[Any, Callable] = {  # a computation, and the reduction that folds it
    fnp.add: fnp.sum,
    fnp.multiply: fnp.prod,
    fnp.maximum: fnp.max,
    fnp.minimum: fnp.min,
    fnp.logical_and: fnp.all,
    fnp.logical_or: fnp.any,
}


def reduce(
    operands: Any, init_values: Any, computation: Callable, dimensions: Sequence[int]
) -> Any:
    """``computation`` folded over ``dimensions`` of ``operands``, from ``init_values``
    (sums, products, extrema and logical folds directly; another function over the
    slices in turn, first to last: JAX leaves the order to its compiler, so give it an
    associative ``computation``).

    >>> import numpy as np
    >>> import funcgrad.numpy as fnp
    >>> from funcgrad.lax import reduce
    >>> reduce(np.arange(6.0).reshape(2, 3), 0.0, fnp.add, (1,))
    array([ 3., 12.])
    """
    dims = tuple(int(d) for d in dimensions)
    known = _KNOWN.get(computation)
    if known is not None and not isinstance(operands, (tuple, list)):
        return computation(init_values, known(operands, axis=dims))
    single = not isinstance(operands, (tuple, list))
    ops = [operands] if single else list(operands)
    inits = [init_values] if single else list(init_values)
    if len(ops) != len(inits):
        raise ArgumentError(f"lax.reduce: {len(ops)} operands but {len(inits)} init values")
    nd = len(shape_of(ops[0]))
    keep = [d for d in range(nd) if d not in [d % nd for d in dims]]
    # the reduced axes last, flattened into one, folded over slice by slice
    moved = [
        fnp.reshape(
            fnp.transpose(o, keep + [d % nd for d in dims]),
            tuple(shape_of(o)[d] for d in keep) + (-1,),
        )
        for o in ops
    ]
    acc = [fnp.broadcast_to(i, shape_of(m)[:-1]) for i, m in zip(inits, moved)]
    for k in range(shape_of(moved[0])[-1]):
        step = computation(
            acc[0] if single else tuple(acc),
            moved[0][..., k] if single else tuple(m[..., k] for m in moved),
        )
        acc = [step] if single else list(step)
    return acc[0] if single else tuple(acc)


def reduce_and(operand: Any, axes: Sequence[int]) -> Any:
    """Whether all are true (the bitwise and, on integers) over ``axes``.

    >>> import numpy as np
    >>> from funcgrad.lax import reduce_and
    >>> reduce_and(np.array([[True, False], [True, True]]), (1,))
    array([False,  True])
    """
    if dtype_of(operand).kind == "b":
        return fnp.all(operand, axis=tuple(axes))
    return reduce(operand, np.array(-1, dtype_of(operand)), fnp.bitwise_and, axes)


def reduce_or(operand: Any, axes: Sequence[int]) -> Any:
    """Whether any is true (the bitwise or, on integers) over ``axes``.

    >>> import numpy as np
    >>> from funcgrad.lax import reduce_or
    >>> reduce_or(np.array([[True, False], [False, False]]), (1,))
    array([ True, False])
    """
    if dtype_of(operand).kind == "b":
        return fnp.any(operand, axis=tuple(axes))
    return reduce(operand, np.array(0, dtype_of(operand)), fnp.bitwise_or, axes)


def reduce_xor(operand: Any, axes: Sequence[int]) -> Any:
    """The exclusive or over ``axes``.

    >>> import numpy as np
    >>> from funcgrad.lax import reduce_xor
    >>> reduce_xor(np.array([[1, 3], [4, 4]]), (1,))
    array([2, 0])
    """
    zero = np.array(False) if dtype_of(operand).kind == "b" else np.array(0, dtype_of(operand))
    return reduce(operand, zero, fnp.bitwise_xor, axes)


def tile(operand: Any, reps: Sequence[int]) -> Any:
    """``operand`` repeated ``reps`` times along each axis.

    >>> import numpy as np
    >>> from funcgrad.lax import tile
    >>> tile(np.array([1.0, 2.0]), (2,))
    array([1., 2., 1., 2.])
    """
    return fnp.tile(operand, tuple(reps))


def split(operand: Any, sizes: Sequence[int], axis: int = 0) -> list:
    """``operand`` cut along ``axis`` into pieces of the given ``sizes`` (they must add up).

    >>> import numpy as np
    >>> from funcgrad.lax import split
    >>> [p.tolist() for p in split(np.arange(5.0), (2, 3))]
    [[0.0, 1.0], [2.0, 3.0, 4.0]]
    """
    sizes = [int(s) for s in sizes]
    if sum(sizes) != shape_of(operand)[axis]:
        raise ArgumentError(
            f"lax.split: sizes {sizes} add up to {sum(sizes)}, not the "
            f"length {shape_of(operand)[axis]} of axis {axis}"
        )
    return list(fnp.split(operand, list(np.cumsum(sizes)[:-1]), axis=axis))


def collapse(operand: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
    """The axes ``start_dimension`` up to ``stop_dimension`` (exclusive) merged into one.

    >>> import numpy as np
    >>> from funcgrad.lax import collapse
    >>> collapse(np.ones((2, 3, 4)), 1).shape
    (2, 12)
    """
    shape = shape_of(operand)
    stop = len(shape) if stop_dimension is None else stop_dimension % (len(shape) + 1)
    start = start_dimension % max(len(shape), 1)
    return fnp.reshape(operand, shape[:start] + (-1,) + shape[stop:])


def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int) -> np.ndarray:
    """Each element's index along ``dimension``, in an array of ``shape``.

    >>> import numpy as np
    >>> from funcgrad.lax import broadcasted_iota
    >>> broadcasted_iota(np.int32, (2, 3), 1)
    array([[0, 1, 2],
           [0, 1, 2]], dtype=int32)
    """
    shape = tuple(int(s) for s in shape)
    along = np.arange(shape[dimension], dtype=dtype)
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    return np.broadcast_to(along.reshape(view), shape).copy()


def broadcast_to_rank(x: Any, rank: int) -> Any:
    """``x`` with leading axes of 1 up to ``rank`` axes.

    >>> import numpy as np
    >>> from funcgrad.lax import broadcast_to_rank
    >>> broadcast_to_rank(np.ones(3), 3).shape
    (1, 1, 3)
    """
    shape = shape_of(x)
    if rank < len(shape):
        raise ArgumentError(
            f"lax.broadcast_to_rank: rank {rank} is below the {len(shape)} axes of x"
        )
    return fnp.reshape(x, (1,) * (rank - len(shape)) + shape)


def optimization_barrier(operand: Any) -> Any:
    """``operand`` itself (JAX's barrier to its compiler's reordering; funcgrad's plans
    keep the program's order).

    >>> import numpy as np
    >>> from funcgrad.lax import optimization_barrier
    >>> optimization_barrier((1.0, np.ones(2)))
    (np.float64(1.0), array([1., 1.]))
    """
    return tree_map(lambda leaf: leaf, operand)
