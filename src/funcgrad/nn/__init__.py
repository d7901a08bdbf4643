"""Neural-network functions: activations, one-hot encoding, losses, convolutions and
pooling; all differentiable.

Activations follow PyTorch's definitions and defaults (``gelu`` is the exact,
erf-based one unless ``approximate=True``, which is JAX's default); the rest of
``jax.nn`` (``relu6``, ``selu``, ``glu``, ``mish``, ``dot_product_attention``, ...)
follows JAX's (:mod:`funcgrad.nn.activations`), and :mod:`funcgrad.nn.initializers`
has its weight initializers;
``cross_entropy`` takes integer labels or class probabilities and averages
over the batch, as ``torch.nn.functional.cross_entropy`` does.

>>> import numpy as np
>>> import funcgrad as fg
>>> x = fg.var(np.array([1.0, 2.0, 3.0]))
>>> loss = fg.nn.pnls(x, 2)            # log(sum(exp(x))) - x[2]
>>> round(float(loss.value), 4)
0.4076
>>> fg.backprop(loss)[x].round(4)      # softmax(x) - e_2
array([ 0.09  ,  0.2447, -0.3348])
"""

import math
import sys

import numpy as np

from ..core.errors import ArgumentError, NotDifferentiableError
from ..core.namespaces import is_foreign
from ..core.pages import Page, write_pages
from ..core.primitive import publish as _publish
from ..core.traces import Box
from ..core.values import dtype_of, plain, shape_of
from ..rules import arrays as _arrays
from ..rules.elementwise import abs as _abs
from ..rules.elementwise import exp, maximum, relu, sigmoid, tanh, where
from ..rules.gelu import gelu_tanh
from ..rules.nn import log_softmax, logsumexp, pnls, softmax
from ..rules.nn import one_hot as _one_hot
from ..rules.ufuncs import erf, expm1, log1p, logaddexp
from . import initializers
from .activations import (
    celu,
    dot_product_attention,
    glu,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    identity,
    log1mexp,
    logmeanexp,
    mish,
    relu6,
    selu,
    soft_sign,
    sparse_plus,
    sparse_sigmoid,
    squareplus,
    standardize,
    swish,
)
from .convolution import conv, conv_general_dilated
from .pooling import avg_pool, max_pool

__all__ = [
    "relu",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "logsumexp",
    "pnls",
    "softplus",
    "log_sigmoid",
    "gelu",
    "silu",
    "elu",
    "leaky_relu",
    "one_hot",
    "cross_entropy",
    "binary_cross_entropy_with_logits",
    "mse_loss",
    "conv_general_dilated",
    "conv",
    "max_pool",
    "avg_pool",
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
    "initializers",
]


def softplus(x):
    """``log(1 + exp(x))``, without overflow.

    >>> import numpy as np
    >>> from funcgrad.nn import softplus
    >>> softplus(np.array([-1000.0, 0.0, 1000.0])).tolist()
    [0.0, 0.6931471805599453, 1000.0]
    """
    return logaddexp(0.0, x)


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``, without overflow.

    >>> from funcgrad.nn import log_sigmoid
    >>> round(float(log_sigmoid(0.0)), 6)
    -0.693147
    """
    return -logaddexp(0.0, -x)


def gelu(x, approximate=True):
    """The tanh form ``x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2`` by default, as
    ``jax.nn.gelu``'s; ``approximate=False``: ``x * Phi(x)`` (Phi the standard normal CDF),
    PyTorch's default.

    >>> from funcgrad.nn import gelu
    >>> round(float(gelu(1.0)), 6), round(float(gelu(1.0, approximate=False)), 6)
    (0.841192, 0.841345)
    """
    if approximate:  # one primitive, and its slope another: half the passes (rules/gelu.py)
        return gelu_tanh(x)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def silu(x):
    """``x * sigmoid(x)`` (swish).

    >>> from funcgrad.nn import silu
    >>> round(float(silu(1.0)), 6)
    0.731059
    """
    return x * sigmoid(x)


def elu(x, alpha=1.0):
    """``x`` for x > 0, ``alpha * (exp(x) - 1)`` otherwise.

    >>> import numpy as np
    >>> from funcgrad.nn import elu
    >>> elu(np.array([-1.0, 2.0])).round(4)
    array([-0.6321,  2.    ])
    """
    # at 0 the negative side's slope, alpha (JAX's and PyTorch's): expm1 of x where x <= 0
    # only, not of minimum(x, 0), whose tie at 0 would give half of it
    positive = plain(x) > 0
    return where(positive, x, alpha * expm1(where(positive, 0.0, x)))


def leaky_relu(x, negative_slope=0.01):
    """``x`` for x >= 0, ``negative_slope * x`` otherwise.

    >>> import numpy as np
    >>> from funcgrad.nn import leaky_relu
    >>> leaky_relu(np.array([-2.0, 3.0]))
    array([-0.02,  3.  ])
    """
    return where(plain(x) >= 0, x, negative_slope * x)


def one_hot(labels, num_classes):
    """Rows of the identity: ``one_hot(labels, n)[..., k] = (labels == k)``; no derivative.

    >>> import numpy as np
    >>> from funcgrad.nn import one_hot
    >>> one_hot(np.array([0, 2]), 3)
    array([[1., 0., 0.],
           [0., 0., 1.]])
    """
    labels = plain(labels)  # no derivative; jit's and vmap's labels stay traced
    if not isinstance(labels, Box) and not is_foreign(labels):
        try:
            labels = np.asarray(labels)
        except ValueError:
            raise ArgumentError(
                f"one_hot: labels must be an array of class numbers; got a list "
                f"whose rows have different lengths: {labels!r:.60}"
            ) from None
    if dtype_of(labels).kind not in "iu":
        raise NotDifferentiableError(
            f"one_hot: labels must be integers; got dtype {dtype_of(labels)}: pass class "
            f"numbers, e.g. labels.astype(int)"
        )
    return _one_hot(labels, depth=int(num_classes))


def _reduce(losses, reduction, who):
    if reduction == "mean":
        n = int(np.prod(shape_of(losses), dtype=np.int64))
        return _arrays.sum(losses) / max(n, 1)
    if reduction == "sum":
        return _arrays.sum(losses)
    if reduction == "none":
        return losses
    raise ArgumentError(f"{who}: reduction must be 'mean', 'sum' or 'none'; got {reduction!r}")


def cross_entropy(logits, labels, reduction="mean"):
    """The cross-entropy of ``softmax(logits)`` (classes on the last axis) against integer
    ``labels`` or class probabilities shaped like ``logits``.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.nn import cross_entropy
    >>> logits = np.array([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    >>> round(float(cross_entropy(logits, np.array([0, 1]))), 4)
    0.6691
    >>> fg.grad(cross_entropy)(logits, np.array([0, 1])).round(3)
    array([[-0.107,  0.053,  0.053],
           [ 0.167, -0.333,  0.167]])
    """
    if not isinstance(labels, Box) and not is_foreign(labels):
        labels = np.asarray(labels)
    if np.issubdtype(dtype_of(labels), np.integer):  # traced labels too (jit, vmap)
        losses = pnls(logits, labels)
    else:
        if shape_of(labels) != shape_of(logits):
            raise ArgumentError(
                f"cross_entropy: probability labels must be shaped like the logits "
                f"{shape_of(logits)}; got {shape_of(labels)} (integer labels: an "
                f"integer array of the batch shape)"
            )
        losses = -_arrays.sum(labels * log_softmax(logits), axis=-1)
    return _reduce(losses, reduction, "cross_entropy")


def binary_cross_entropy_with_logits(logits, targets, reduction="mean"):
    """``-(t log sigmoid(z) + (1 - t) log(1 - sigmoid(z)))``, computed without overflow.

    >>> import numpy as np
    >>> from funcgrad.nn import binary_cross_entropy_with_logits
    >>> round(float(binary_cross_entropy_with_logits(np.array([0.0, 100.0]), np.array([1.0, 1.0]))), 6)
    0.346574
    """
    losses = maximum(logits, 0.0) - logits * targets + log1p(exp(-_abs(logits)))
    return _reduce(losses, reduction, "binary_cross_entropy_with_logits")


def mse_loss(predictions, targets, reduction="mean"):
    """The mean (or sum) of squared differences.

    >>> import numpy as np
    >>> from funcgrad.nn import mse_loss
    >>> float(mse_loss(np.array([1.0, 2.0]), np.array([0.0, 0.0])))
    2.5
    """
    d = predictions - targets
    return _reduce(d * d, reduction, "mse_loss")


# help() pages of the functions here that are primitives (objects, not Python functions);
# tanh's is funcgrad.numpy's.
_PAGES = {
    "relu": Page(
        "x, /",
        "The rectifier max(x, 0), elementwise.",
        "1 where x > 0, else 0 (0 at the kink, like PyTorch and JAX)",
        (
            ("fnn.relu(np.array([-1.0, 2.0]))", "array([0., 2.])"),
            ("fg.grad(lambda x: fnn.relu(x).sum())(np.array([-1.0, 2.0]))", "array([0., 1.])"),
        ),
    ),
    "sigmoid": Page(
        "x, /",
        "The logistic sigmoid 1 / (1 + exp(-x)), elementwise (``funcgrad.scipy.special.expit``).",
        "sigmoid(x) (1 - sigmoid(x))",
        (
            ("fnn.sigmoid(0.0)", "np.float64(0.5)"),
            ("fg.grad(fnn.sigmoid)(0.0)", "np.float64(0.25)"),
        ),
    ),
    "softmax": Page(
        "x, axis=-1",
        "exp(x) / sum(exp(x)) along ``axis``, without overflow.",
        "the vector-Jacobian product s * (g - sum(s * g)), s the softmax",
        (
            ("fnn.softmax(np.log(np.array([1.0, 3.0])))", "array([0.25, 0.75])"),
            (
                "fg.grad(lambda x: fnn.softmax(x)[1])(np.log(np.array([1.0, 3.0])))",
                "array([-0.1875,  0.1875])",
            ),
        ),
    ),
    "log_softmax": Page(
        "x, axis=-1",
        "x - logsumexp(x) along ``axis``: log-probabilities from logits.",
        "g - softmax(x) * sum(g)",
        (("np.exp(fnn.log_softmax(np.log(np.array([1.0, 3.0]))))", "array([0.25, 0.75])"),),
    ),
    "logsumexp": Page(
        "x, axis=None, keepdims=False",
        "log(sum(exp(x))) over ``axis``, without overflow.",
        "softmax(x) over the same axes",
        (
            ("fnn.logsumexp(np.zeros(4))", "np.float64(1.3862943611198906)"),
            ("fg.grad(fnn.logsumexp)(np.zeros(4))", "array([0.25, 0.25, 0.25, 0.25])"),
        ),
    ),
    "pnls": Page(
        "x, label",
        "Cross-entropy of logits ``x`` (last axis) against the integer class "
        "``label``: logsumexp(x) - x[label].",
        "softmax(x) - one_hot(label) in x; none in the integer label",
        (
            ("fnn.pnls(np.zeros(4), 1)", "np.float64(1.3862943611198906)"),
            ("fg.grad(fnn.pnls)(np.zeros(4), 1)", "array([ 0.25, -0.75,  0.25,  0.25])"),
        ),
    ),
}
write_pages(
    sys.modules[__name__],
    "funcgrad.nn",
    _PAGES,
    "import numpy as np, funcgrad as fg, funcgrad.nn as fnn",
    None,
)


# Called from outside funcgrad, a function of Python numbers returns NumPy's scalar types.
_publish(globals(), __all__)


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
