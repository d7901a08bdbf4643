"""The rest of ``jax.nn``'s activations, normalisation and attention, in funcgrad.numpy's
calls (so each differentiates, batches and compiles), with JAX's definitions and defaults.

>>> import numpy as np
>>> import funcgrad as fg
>>> x = np.array([-4.0, -0.5, 0.5, 7.0])
>>> fg.nn.relu6(x), fg.nn.hard_tanh(x)
(array([0. , 0. , 0.5, 6. ]), array([-1. , -0.5,  0.5,  1. ]))
>>> fg.grad(lambda v: fg.numpy.sum(fg.nn.mish(v)))(np.array([0.0]))
array([0.6])
"""

import math
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..core.errors import ArgumentError, ShapeError
from ..core.namespaces import numpy_dtype
from ..core.values import in_library_of, raw, shape_of
from ..rules.elementwise import sigmoid
from ..rules.nn import logsumexp, softmax

__all__ = [
    "relu6",
    "hard_tanh",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "celu",
    "selu",
    "glu",
    "mish",
    "soft_sign",
    "squareplus",
    "sparse_plus",
    "sparse_sigmoid",
    "log1mexp",
    "identity",
    "swish",
    "standardize",
    "logmeanexp",
    "dot_product_attention",
]


def _selected(out):
    """``fnp.where``'s answer as the ufunc-made activations give theirs: NumPy's scalar for
    a number (NumPy's where gives a 0-d array there)."""
    value = raw(out)
    return out[()] if type(value) is np.ndarray and value.ndim == 0 else out


# selu's constants (Klambauer et al. 2017), to the digits JAX and PyTorch use
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def relu6(x: Any) -> Any:
    """``min(max(x, 0), 6)``, of slope 0 at the kinks 0 and 6 (JAX's and PyTorch's).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.nn import relu6
    >>> fg.elementwise_grad(relu6)(np.array([0.0, 3.0, 6.0]))
    array([0., 1., 0.])
    """
    return _selected(fnp.where(x <= 0.0, 0.0, fnp.where(x >= 6.0, 6.0, x)))


def hard_tanh(x: Any) -> Any:
    """``x`` clipped to ``[-1, 1]``.

    >>> import numpy as np
    >>> from funcgrad.nn import hard_tanh
    >>> hard_tanh(np.array([-2.0, 0.3]))
    array([-1. ,  0.3])
    """
    # selected, as JAX writes it: the slope is 1 on [-1, 1], ends included, and an
    # infinite cotangent outside sends 0 (clip's product would send NaN)
    return _selected(fnp.where(x > 1.0, 1.0, fnp.where(x < -1.0, -1.0, x)))


def hard_sigmoid(x: Any) -> Any:
    """``relu6(x + 3) / 6``: 0 below -3, 1 above 3, a line between.

    >>> import numpy as np
    >>> from funcgrad.nn import hard_sigmoid
    >>> hard_sigmoid(np.array([-4.0, 0.0, 4.0]))
    array([0. , 0.5, 1. ])
    """
    return relu6(x + 3.0) / 6.0


def hard_silu(x: Any) -> Any:
    """``x * hard_sigmoid(x)`` (``hard_swish``).

    >>> import numpy as np
    >>> from funcgrad.nn import hard_silu
    >>> hard_silu(np.array([-4.0, 1.0]))
    array([-0.        ,  0.66666667])
    """
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def celu(x: Any, alpha: float = 1.0) -> Any:
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``.

    >>> import numpy as np
    >>> from funcgrad.nn import celu
    >>> celu(np.array([-1.0, 2.0]), alpha=2.0).round(4)
    array([-0.7869,  2.    ])
    """
    return fnp.maximum(x, 0.0) + alpha * fnp.expm1(fnp.minimum(x, 0.0) / alpha)


def selu(x: Any) -> Any:
    """``scale * elu(x, alpha)`` with the self-normalising constants; at 0 the slope is
    the negative side's, as JAX's.

    >>> import numpy as np
    >>> from funcgrad.nn import selu
    >>> selu(np.array([-1.0, 1.0])).round(4)
    array([-1.1113,  1.0507])
    """
    # the negative side's slope at 0 (JAX's), from expm1 of x where x <= 0 only
    return _SELU_SCALE * fnp.where(x > 0.0, x, _SELU_ALPHA * fnp.expm1(fnp.where(x > 0.0, 0.0, x)))


def glu(x: Any, axis: int = -1) -> Any:
    """The gated linear unit: ``x`` halved along ``axis``, the first half times the sigmoid
    of the second.

    >>> import numpy as np
    >>> from funcgrad.nn import glu
    >>> glu(np.array([1.0, 2.0, 0.0, 0.0]))
    array([0.5, 1. ])
    """
    shape = shape_of(x)
    if not shape:
        raise ShapeError("glu: a number has no axis to halve; give an array of even length")
    n = shape[axis]
    if n % 2:
        raise ShapeError(f"glu: axis {axis} has odd length {n}; it is split into two halves")
    a, b = fnp.split(x, 2, axis=axis)
    return a * sigmoid(b)


def mish(x: Any) -> Any:
    """``x * tanh(softplus(x))``.

    >>> import numpy as np
    >>> from funcgrad.nn import mish
    >>> mish(np.array([1.0])).round(4)
    array([0.8651])
    """
    return x * fnp.tanh(fnp.logaddexp(0.0, x))


def soft_sign(x: Any) -> Any:
    """``x / (|x| + 1)``.

    >>> import numpy as np
    >>> from funcgrad.nn import soft_sign
    >>> soft_sign(np.array([-3.0, 1.0]))
    array([-0.75,  0.5 ])
    """
    return x / (fnp.abs(x) + 1.0)


def squareplus(x: Any, b: float = 4.0) -> Any:
    """``(x + sqrt(x**2 + b)) / 2``, a smooth ReLU.

    >>> import numpy as np
    >>> from funcgrad.nn import squareplus
    >>> squareplus(np.array([0.0, 1.5]))
    array([1., 2.])
    """
    return (x + fnp.sqrt(x * x + b)) / 2.0


def sparse_plus(x: Any) -> Any:
    """0 below -1, ``x`` above 1, ``(x + 1)**2 / 4`` between: a smooth ReLU of finite
    support.

    >>> import numpy as np
    >>> from funcgrad.nn import sparse_plus
    >>> sparse_plus(np.array([-2.0, 0.0, 2.0]))
    array([0.  , 0.25, 2.  ])
    """
    middle = (x + 1.0) ** 2 / 4.0
    return _selected(fnp.where(x <= -1.0, 0.0, fnp.where(x >= 1.0, x, middle)))


def sparse_sigmoid(x: Any) -> Any:
    """The slope of :func:`sparse_plus`: 0 below -1, 1 above 1, ``(x + 1) / 2`` between.

    >>> import numpy as np
    >>> from funcgrad.nn import sparse_sigmoid
    >>> sparse_sigmoid(np.array([-2.0, 0.0, 2.0]))
    array([0. , 0.5, 1. ])
    """
    return fnp.clip(x + 1.0, 0.0, 2.0) / 2.0


def log1mexp(x: Any) -> Any:
    """``log(1 - exp(-x))`` for ``x > 0``, accurate near 0 and for large ``x``.

    >>> import numpy as np
    >>> from funcgrad.nn import log1mexp
    >>> float(log1mexp(np.float64(50.0)))
    -1.9287498479639178e-22
    """
    small = fnp.log(-fnp.expm1(-fnp.minimum(x, math.log(2.0))))
    return fnp.where(x > math.log(2.0), fnp.log1p(-fnp.exp(-fnp.maximum(x, math.log(2.0)))), small)


def identity(x: Any) -> Any:
    """``x`` itself.

    >>> from funcgrad.nn import identity
    >>> identity(2.0)
    np.float64(2.0)
    """
    return x


def swish(x: Any) -> Any:
    """``x * sigmoid(x)`` (``silu``).

    >>> import numpy as np
    >>> from funcgrad.nn import swish
    >>> swish(np.array([0.0, 1.0])).round(4)
    array([0.    , 0.7311])
    """
    return x * sigmoid(x)


def standardize(
    x: Any, axis: Any = -1, mean: Any = None, variance: Any = None, epsilon: float = 1e-5
) -> Any:
    """``(x - mean) / sqrt(variance + epsilon)``, mean and variance over ``axis`` unless
    given.

    >>> import numpy as np
    >>> from funcgrad.nn import standardize
    >>> standardize(np.array([1.0, 3.0]), epsilon=0.0)
    array([-1.,  1.])
    """
    if mean is None:
        mean = fnp.mean(x, axis=axis, keepdims=True)
    if variance is None:
        variance = fnp.mean(fnp.square(x), axis=axis, keepdims=True) - fnp.square(mean)
    return (x - mean) / fnp.sqrt(variance + epsilon)


def logmeanexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``log(mean(exp(x)))`` over ``axis``, without overflow.

    >>> import numpy as np
    >>> from funcgrad.nn import logmeanexp
    >>> float(logmeanexp(np.array([1000.0, 1000.0])))
    1000.0
    """
    shape = shape_of(x)
    axes = range(len(shape)) if axis is None else [axis] if isinstance(axis, int) else axis
    n = math.prod(shape[a] for a in axes)
    return logsumexp(x, axis=axis, keepdims=keepdims) - math.log(n)


def dot_product_attention(
    query: Any,
    key: Any,
    value: Any,
    bias: Any = None,
    mask: Any = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
) -> Any:
    """Scaled dot-product attention in JAX's layout: ``query`` is ``(B, T, N, H)``
    (batch, positions, heads, features), ``key`` and ``value`` are ``(B, S, K, H)`` with
    ``K`` dividing ``N`` (grouped heads share a key); without ``B`` too. The logits
    ``q.k * scale`` (``1 / sqrt(H)`` by default) get ``bias`` added, are masked where
    ``mask`` is False (and above the diagonal with ``is_causal``), and weight ``value``
    by their softmax over ``S``.

    >>> import numpy as np
    >>> from funcgrad.nn import dot_product_attention
    >>> q = np.ones((2, 1, 4))
    >>> dot_product_attention(q, q, np.arange(8.0).reshape(2, 1, 4))
    array([[[2., 3., 4., 5.]],
    <BLANKLINE>
           [[2., 3., 4., 5.]]])
    """
    shapes = [shape_of(a) for a in (query, key, value)]
    if not 3 <= len(shapes[0]) <= 4 or any(len(s) != len(shapes[0]) for s in shapes):
        raise ShapeError(
            f"dot_product_attention: query, key and value are (B, T, N, H) or "
            f"(T, N, H) alike; got shapes {shapes}"
        )
    batched = len(shapes[0]) == 4
    if not batched:
        query, key, value = (a[None] for a in (query, key, value))
        bias = None if bias is None else fnp.asarray(bias)[None]
        mask = None if mask is None else fnp.asarray(mask)[None]
    _, t, n, h = shape_of(query)
    _, s, k, _ = shape_of(key)
    if n % k or shape_of(value)[1:3] != (s, k):
        raise ShapeError(
            f"dot_product_attention: {k} key heads must divide {n} query heads, "
            f"and value must have key's positions and heads; got shapes {shapes}"
        )
    if n != k:  # grouped heads: each key head serves n // k query heads
        key, value = (fnp.repeat(a, n // k, axis=2) for a in (key, value))
    logits = fnp.einsum("btnh,bsnh->bnts", query, key) * (
        1.0 / math.sqrt(h) if scale is None else scale
    )
    if bias is not None:
        logits = logits + bias
    keep = None if mask is None else fnp.asarray(mask)
    if is_causal:  # made in the logits' library, on their device
        causal = in_library_of(np.tril(np.ones((t, s), dtype=bool)), logits)
        keep = causal if keep is None else fnp.logical_and(keep, causal)
    if keep is not None:
        if numpy_dtype(keep) != np.bool_:
            raise ArgumentError(
                f"dot_product_attention: mask is boolean (True keeps a "
                f"logit); got dtype {keep.dtype}"
            )
        # half the logits' dtype's lowest number: finite in float32 too, so a row masked
        # whole weighs its values evenly (JAX's rule) where -inf would make it NaN
        low = float(np.finfo(numpy_dtype(logits)).min) / 2
        logits = fnp.where(keep, logits, low)
    out = fnp.einsum("bnts,bsnh->btnh", softmax(logits, axis=-1), value)
    return out if batched else out[0]
