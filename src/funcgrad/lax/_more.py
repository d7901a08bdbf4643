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

import importlib
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
    "real",
    "imag",
    "conj",
    "complex",
    "lgamma",
    "digamma",
    "erf_inv",
    "igamma",
    "igammac",
    "betainc",
    "polygamma",
    "zeta",
    "bessel_i0e",
    "bessel_i1e",
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
bitwise_not, shift_left, shift_right_arithmetic = fnp.invert, fnp.left_shift, fnp.right_shift
real, imag, conj = fnp.real, fnp.imag, fnp.conj


def shift_right_logical(x: Any, y: Any) -> Any:
    """``x >> y`` filling with zeros (a negative ``x`` read as unsigned).

    >>> import numpy as np
    >>> from funcgrad.lax import shift_right_logical
    >>> shift_right_logical(np.array([-8], dtype=np.int8), 1)
    array([124], dtype=int8)
    """
    kind = dtype_of(x)
    if kind.kind != "i":
        return fnp.right_shift(x, y)
    bits = 8 * kind.itemsize
    # the arithmetic shift, less the copies of the sign bit it brought in
    y = fnp.asarray(y).astype(kind)
    low = fnp.left_shift(np.ones((), kind), fnp.maximum(bits - y, 0)) - np.ones((), kind)
    return fnp.where(y == 0, x, fnp.bitwise_and(fnp.right_shift(x, y), low))


def complex(x: Any, y: Any) -> Any:
    """``x + i y``.

    >>> import numpy as np
    >>> from funcgrad import lax
    >>> lax.complex(np.array([1.0]), np.array([2.0]))
    array([1.+2.j])
    """
    return fnp.add(x, fnp.multiply(y, 1j))


def _special(name):
    """A function of :mod:`funcgrad.scipy.special`, which needs SciPy (loaded on first use:
    the rest of lax works without it)."""
    return getattr(importlib.import_module("funcgrad.scipy.special"), name)


def lgamma(x: Any) -> Any:
    """The log of the absolute value of Gamma(x) (SciPy's ``gammaln``).

    >>> import numpy as np
    >>> from funcgrad.lax import lgamma
    >>> lgamma(np.array([0.5, 4.0]))
    array([0.57236494, 1.79175947])
    >>> import funcgrad as fg
    >>> fg.grad(lgamma)(4.0)    # digamma(4)
    np.float64(1.2561176684318003)
    """
    return _special("gammaln")(x)


def digamma(x: Any) -> Any:
    """The derivative of ``lgamma``.

    >>> import numpy as np
    >>> from funcgrad.lax import digamma
    >>> digamma(np.array([1.0, 4.0]))
    array([-0.57721566,  1.25611767])
    """
    return _special("digamma")(x)


def erf_inv(x: Any) -> Any:
    """The inverse of ``erf``.

    >>> import numpy as np
    >>> from funcgrad.lax import erf_inv
    >>> erf_inv(np.array([0.0, 0.5]))
    array([0.        , 0.47693628])
    """
    return _special("erfinv")(x)


def igamma(a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma function (SciPy's ``gammainc``).

    >>> import numpy as np
    >>> from funcgrad.lax import igamma
    >>> igamma(2.0, np.array([1.0, 3.0]))
    array([0.26424112, 0.80085173])
    """
    return _special("gammainc")(a, x)


def igammac(a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma function (SciPy's ``gammaincc``).

    >>> import numpy as np
    >>> from funcgrad.lax import igammac
    >>> igammac(2.0, np.array([1.0, 3.0]))
    array([0.73575888, 0.19914827])
    """
    return _special("gammaincc")(a, x)


def betainc(a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta function.

    >>> import numpy as np
    >>> from funcgrad.lax import betainc
    >>> betainc(2.0, 3.0, np.array([0.2, 0.5]))
    array([0.1808, 0.6875])
    """
    return _special("betainc")(a, b, x)


def polygamma(m: Any, x: Any) -> Any:
    """The ``m``-th derivative of ``digamma``.

    >>> import numpy as np
    >>> from funcgrad.lax import polygamma
    >>> polygamma(1, np.array([1.0, 2.0]))
    array([1.64493407, 0.64493407])
    """
    return _special("polygamma")(m, x)


def zeta(x: Any, q: Any) -> Any:
    """Hurwitz's zeta function.

    >>> import numpy as np
    >>> from funcgrad.lax import zeta
    >>> zeta(2.0, np.array([1.0, 2.0]))
    array([1.64493407, 0.64493407])
    """
    return _special("zeta")(x, q)


def bessel_i0e(x: Any) -> Any:
    """The exponentially scaled modified Bessel function of order 0.

    >>> import numpy as np
    >>> from funcgrad.lax import bessel_i0e
    >>> bessel_i0e(np.array([0.0, 1.0]))
    array([1.        , 0.46575961])
    """
    return _special("i0e")(x)


def bessel_i1e(x: Any) -> Any:
    """The exponentially scaled modified Bessel function of order 1.

    >>> import numpy as np
    >>> from funcgrad.lax import bessel_i1e
    >>> bessel_i1e(np.array([0.0, 1.0]))
    array([0.        , 0.20791042])
    """
    return _special("i1e")(x)


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
