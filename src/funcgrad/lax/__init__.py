"""JAX's ``jax.lax`` names over funcgrad's: ``from funcgrad import lax``.

Code written for JAX calls ``lax.scan``, ``lax.dynamic_slice`` or
``lax.rsqrt``; here each is funcgrad's loop, or a few calls of
:mod:`funcgrad.numpy`, with ``lax``'s signature and its meaning where NumPy's
differs: ``dynamic_slice`` clamps its start so the slice stays in bounds,
``dynamic_update_slice`` does too, ``rem`` takes the sign of the dividend
(C's ``fmod``), ``integer_pow`` needs an int power. Start indices may be traced
(a loop's counter under ``jit``), and every function differentiates, batches
and compiles as the calls it is made of.

>>> import numpy as np
>>> from funcgrad import lax
>>> x = np.arange(6.0)
>>> lax.dynamic_slice(x, (4,), (3,))            # the start is clamped to 3
array([3., 4., 5.])
>>> lax.fori_loop(0, 3, lambda i, s: s + lax.dynamic_index_in_dim(x, i, keepdims=False), 0.0)
np.float64(3.0)

The collectives (``psum``, ``pmean``, ``pmax``, ``pmin``, ``all_gather``,
``axis_index``) reduce over the examples of a ``vmap`` given an ``axis_name``
(:mod:`funcgrad.transforms.collectives`).
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..control.branches import cond, switch
from ..control.loops import fori_loop, scan, while_loop
from ..control.roots import custom_linear_solve, custom_root
from ..core.errors import ArgumentError, ArgumentTypeError, ShapeError
from ..core.primitive import publish as _publish
from ..core.values import shape_of
from ..nn import conv, conv_general_dilated, sigmoid
from ..numpy._precision import Precision
from ..transforms.arguments import stop_gradient
from ..transforms.collectives import all_gather, axis_index, axis_size, pmax, pmean, pmin, psum
from ..transforms.exchanges import all_to_all, ppermute, psum_scatter
from . import _convolutions, _gather, _more, _special, linalg
from ._associative import associative_scan
from ._convolutions import *  # noqa: F403 - conv_transpose and the shape helpers: its __all__
from ._gather import *  # noqa: F403 - gather, the scatters, their dimension numbers: _gather.__all__
from ._more import *  # noqa: F403 - the comparisons, bits and the rest: _more.__all__
from ._reductions import (
    argmax,
    argmin,
    batch_matmul,
    cummax,
    cummin,
    cumprod,
    cumsum,
    dot,
    dot_general,
    reduce_max,
    reduce_min,
    reduce_prod,
    reduce_sum,
    sort,
    top_k,
)
from ._shapes import (
    broadcast,
    broadcast_in_dim,
    concatenate,
    convert_element_type,
    dynamic_index_in_dim,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_update_index_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
    expand_dims,
    full,
    full_like,
    index_in_dim,
    iota,
    pad,
    reshape,
    rev,
    slice,
    slice_in_dim,
    squeeze,
    transpose,
)
from ._special import *  # noqa: F403 - the special functions, in the operand's dtype
from ._special import like_operands as _like_operands
from ._windows import reduce_window, reduce_window_shape_tuple

__all__ = (
    [
        "linalg",
        "Precision",
        "scan",
        "fori_loop",
        "while_loop",
        "cond",
        "switch",
        "map",
        "associative_scan",
        "custom_root",
        "custom_linear_solve",
        "stop_gradient",
        "select",
        "abs",
        "add",
        "sub",
        "mul",
        "div",
        "neg",
        "sign",
        "exp",
        "exp2",
        "log",
        "log1p",
        "expm1",
        "sin",
        "cos",
        "tan",
        "tanh",
        "sinh",
        "cosh",
        "asin",
        "acos",
        "atan",
        "atan2",
        "asinh",
        "acosh",
        "atanh",
        "sqrt",
        "rsqrt",
        "cbrt",
        "square",
        "integer_pow",
        "pow",
        "logistic",
        "max",
        "min",
        "clamp",
        "floor",
        "ceil",
        "round",
        "is_finite",
        "rem",
        "reciprocal",
        "conv",
        "conv_general_dilated",
        "psum",
        "ppermute",
        "all_to_all",
        "psum_scatter",
        "pmean",
        "pmax",
        "pmin",
        "all_gather",
        "axis_index",
        "axis_size",
        "reshape",
        "transpose",
        "broadcast",
        "broadcast_in_dim",
        "expand_dims",
        "squeeze",
        "concatenate",
        "pad",
        "rev",
        "slice",
        "slice_in_dim",
        "index_in_dim",
        "dynamic_slice",
        "dynamic_slice_in_dim",
        "dynamic_index_in_dim",
        "dynamic_update_slice",
        "dynamic_update_slice_in_dim",
        "dynamic_update_index_in_dim",
        "convert_element_type",
        "iota",
        "full",
        "full_like",
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
        "reduce_window",
        "reduce_window_shape_tuple",
    ]
    + _more.__all__
    + _special.__all__
    + _convolutions.__all__
    + _gather.__all__
)

# -- control flow ---------------------------------------------------------------------------


def map(f: Callable, xs: Any, *, batch_size: int | None = None) -> Any:
    """``f`` on each slice of ``xs`` along its leading axis, stacked: a ``scan`` without a
    carry. ``batch_size`` (JAX's hint) is checked and changes no result.

    >>> import numpy as np
    >>> from funcgrad import lax
    >>> lax.map(lambda row: row.sum(), np.arange(6.0).reshape(3, 2))
    array([1., 5., 9.])
    """
    if batch_size is not None and (
        isinstance(batch_size, bool)
        or not isinstance(batch_size, (int, np.integer))
        or batch_size < 1
    ):
        raise ArgumentTypeError(
            f"lax.map: batch_size must be a positive int; got {batch_size!r:.40}"
        )
    return scan(lambda carry, x: (carry, f(x)), None, xs)[1]


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """``on_true`` where ``pred``, else ``on_false``; all of one shape (lax's rule).

    >>> import numpy as np
    >>> from funcgrad.lax import select
    >>> select(np.array([True, False]), np.ones(2), np.zeros(2))
    array([1., 0.])
    """
    shapes = {shape_of(pred), shape_of(on_true), shape_of(on_false)}
    if len(shapes) != 1 and shape_of(pred) != ():
        raise ShapeError(
            f"lax.select: pred, on_true and on_false must have one shape (or pred "
            f"a scalar); got {sorted(shapes)}; use funcgrad.numpy.where to "
            f"broadcast"
        )
    return fnp.where(pred, on_true, on_false)


# -- elementwise ----------------------------------------------------------------------------

abs = fnp.abs
add, sub, mul, neg, sign = fnp.add, fnp.subtract, fnp.multiply, fnp.negative, fnp.sign
exp, exp2, log, log1p, expm1 = fnp.exp, fnp.exp2, fnp.log, fnp.log1p, fnp.expm1
sin, cos, tan, tanh, sinh, cosh = fnp.sin, fnp.cos, fnp.tan, fnp.tanh, fnp.sinh, fnp.cosh
asin, acos, atan, atan2 = fnp.arcsin, fnp.arccos, fnp.arctan, fnp.arctan2
asinh, acosh, atanh = fnp.arcsinh, fnp.arccosh, fnp.arctanh
sqrt, cbrt, square, pow = fnp.sqrt, fnp.cbrt, fnp.square, fnp.power
max, min = fnp.maximum, fnp.minimum
floor, ceil, is_finite, reciprocal = fnp.floor, fnp.ceil, fnp.isfinite, fnp.reciprocal


def div(x: Any, y: Any) -> Any:
    """``x / y``; integers divide rounding toward zero (lax's rule, C's).

    >>> import numpy as np
    >>> from funcgrad.lax import div
    >>> div(np.array([7, -7]), 2), div(1.0, 4.0)
    (array([ 3, -3]), np.float64(0.25))
    """
    if fnp.result_type(x, y).kind in "iu":
        return fnp.trunc(fnp.true_divide(x, y)).astype(fnp.result_type(x, y))
    return fnp.true_divide(x, y)


def rem(x: Any, y: Any) -> Any:
    """The remainder of ``x / y`` with the sign of ``x`` (C's ``fmod``, lax's ``rem``).

    >>> import numpy as np
    >>> from funcgrad.lax import rem
    >>> rem(np.array([7.0, -7.0]), 3.0)
    array([ 1., -1.])
    """
    return fnp.fmod(x, y)


def rsqrt(x: Any) -> Any:
    """``1 / sqrt(x)``, in ``x``'s dtype.

    >>> from funcgrad.lax import rsqrt
    >>> rsqrt(4.0)
    np.float64(0.5)
    """
    return _like_operands(1.0 / fnp.sqrt(x), x)


def logistic(x: Any) -> Any:
    """``1 / (1 + exp(-x))``, in ``x``'s dtype, complex too.

    >>> import numpy as np
    >>> from funcgrad.lax import logistic
    >>> logistic(np.array([0.0, 2.8 + 0.5j]))
    array([0.5       +0.j        , 0.94861114+0.02625461j])
    """
    return _like_operands(sigmoid(x), x)


def integer_pow(x: Any, y: int) -> Any:
    """``x ** y`` for a Python int ``y``.

    >>> from funcgrad.lax import integer_pow
    >>> integer_pow(2.0, 3)
    np.float64(8.0)
    """
    if isinstance(y, bool) or not isinstance(y, (int, np.integer)):
        raise ArgumentTypeError(
            f"lax.integer_pow: the power must be an int; got {y!r:.40}; "
            f"use lax.pow for other powers"
        )
    return x ** int(y)


def clamp(min: Any, x: Any, max: Any) -> Any:
    """``x`` clipped to ``[min, max]`` (lax's order of arguments).

    >>> import numpy as np
    >>> from funcgrad.lax import clamp
    >>> clamp(0.0, np.array([-1.0, 0.5, 2.0]), 1.0)
    array([0. , 0.5, 1. ])
    """
    return _like_operands(fnp.clip(x, min, max), x)


def round(x: Any, rounding_method: int = 0) -> Any:
    """``x`` rounded to the nearest integer: halves away from zero (method 0, lax's
    default), or to even (method 1, NumPy's).

    >>> import numpy as np
    >>> from funcgrad import lax
    >>> lax.round(np.array([0.5, 1.5, -0.5])), lax.round(np.array([0.5, 1.5]), 1)
    (array([ 1.,  2., -1.]), array([0., 2.]))
    """
    method = int(rounding_method)
    if method == 1:
        return _like_operands(fnp.round(x), x)
    if method != 0:
        raise ArgumentError(
            f"lax.round: rounding_method is 0 (away from zero) or 1 (to even); "
            f"got {rounding_method!r}"
        )
    return _like_operands(fnp.sign(x) * fnp.floor(fnp.abs(x) + 0.5), x)


# Called from outside funcgrad, a function of Python numbers returns NumPy's scalar types.
_publish(globals(), __all__)


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
