"""``funcgrad.scipy.special``: SciPy's special functions, differentiable.

SciPy's names and signatures: the log-domain functions ``logsumexp`` (with
``axis``, ``keepdims`` and positive weights ``b``), ``softmax`` and
``log_softmax`` (``axis`` an int, a tuple or ``None`` for the whole array),
``expit`` and ``logit``; the gamma family ``gammaln``, ``digamma`` (``psi``),
``polygamma``, ``gamma``, ``multigammaln``, ``betaln``, ``beta``; the error
functions ``erf``, ``erfc``, ``erfinv``, ``erfcinv`` and the normal's ``ndtr``,
``log_ndtr``, ``ndtri``; ``xlogy``, ``xlog1py``, ``entr``; the Bessel functions
``i0``, ``i1``, ``i0e``, ``i1e``, ``j0``, ``j1``, ``y0``, ``y1``, ``jv``/``jn``,
``yv``/``yn``, ``iv``, ``ive`` (differentiable in x, not the order); ``gammasgn``,
``rgamma``; and the regularized incomplete ``gammainc``,
``gammaincc``, ``betainc`` (differentiable in ``x``; their shape parameters
raise MissingRuleError). Values are SciPy's (the log-domain ones agree to
rounding); derivatives are exact to any order in both modes.

>>> import numpy as np
>>> import funcgrad as fg
>>> fg.grad(lambda x: logsumexp(x))(np.zeros(4))
array([0.25, 0.25, 0.25, 0.25])
"""

import sys as _sys

import numpy as _np

from ..core.errors import ArgumentError
from ..core.values import normalize_axes as _normalize_axes
from ..core.values import raw as _raw
from ..core.values import shape_of as _shape_of
from ..rules import arrays as _arrays
from ..rules import nn as _nn
from ..rules.elementwise import log as _log
from ..rules.elementwise import sigmoid as expit
from ..rules.special import (  # noqa: F401
    beta,
    betainc,
    betaln,
    digamma,
    entr,
    erfc,
    erfcinv,
    erfinv,
    gamma,
    gammainc,
    gammaincc,
    gammaln,
    gammasgn,
    i0,
    i0e,
    i1,
    i1e,
    iv,
    ive,
    j0,
    j1,
    jv,
    log_ndtr,
    ndtr,
    ndtri,
    polygamma,
    rgamma,
    xlog1py,
    xlogy,
    y0,
    y1,
    yv,
)
from ..rules.ufuncs import erf, logit  # noqa: F401
from . import _pages

__all__ = [
    "logsumexp", "softmax", "log_softmax", "expit", "logit",
    "gammaln", "digamma", "psi", "polygamma", "gamma", "multigammaln", "betaln", "beta",
    "erf", "erfc", "erfinv", "erfcinv", "ndtr", "log_ndtr", "ndtri",
    "xlogy", "xlog1py", "entr", "i0", "i1", "i0e", "i1e", "gammainc", "gammaincc", "betainc",
    "j0", "j1", "y0", "y1", "jv", "jn", "yv", "yn", "iv", "ive", "gammasgn", "rgamma",
]

psi = digamma
jn = jv      # SciPy's integer-order names for the same functions
yn = yv


def multigammaln(a, d):
    """``scipy.special.multigammaln``: the log of the multivariate gamma function of
    dimension ``d``, ``d (d - 1) / 4 log(pi) + sum_j gammaln(a - j / 2)``.

    >>> import numpy as np, scipy.special
    >>> bool(np.isclose(multigammaln(3.5, 3), scipy.special.multigammaln(3.5, 3)))
    True
    """
    d = int(d)
    if d < 1:
        raise ArgumentError(f"funcgrad.scipy.special.multigammaln: d must be a positive integer; got {d}")
    total = 0.25 * d * (d - 1) * _np.log(_np.pi)
    for j in range(d):
        total = total + gammaln(a - 0.5 * j)
    return total


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``scipy.special.logsumexp``: ``log(sum(b * exp(a)))`` without overflow.

    >>> import numpy as np
    >>> logsumexp(np.array([[1000.0, 1000.0], [0.0, 0.0]]), axis=1).round(4).tolist()
    [1000.6931, 0.6931]
    >>> float(logsumexp(np.array([0.0, 0.0]), b=np.array([1.0, 3.0])))  # log 4
    1.3862943611198906
    """
    if return_sign:
        raise NotImplementedError(
            "funcgrad.scipy.special.logsumexp: return_sign=True is not supported; "
            "split positive and negative weights into two logsumexp calls")
    if isinstance(axis, list):
        axis = tuple(axis)
    if b is not None:
        if _np.any(_np.asarray(_raw(b)) <= 0):
            raise ArgumentError(
                "funcgrad.scipy.special.logsumexp: weights b must be positive (their log "
                "is taken); drop the zero-weight elements before the call")
        a = a + _log(b)
    return _nn.logsumexp(a, axis=axis, keepdims=keepdims)


def _over_axes(fun, x, axis):
    """``fun(y, axis=-1)`` applied as if the axes ``axis`` of ``x`` were one last axis."""
    shape = _shape_of(x)
    if not shape:
        return _scalar(fun, x)
    axes = _normalize_axes(axis, len(shape))
    if len(axes) == 1:
        return fun(x, axis=axes[0])
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    perm = kept + axes
    moved = _arrays.transpose(x, axes=perm)
    flat = _arrays.reshape(moved, shape=tuple(shape[i] for i in kept) + (-1,))
    out = _arrays.reshape(fun(flat, axis=-1), shape=_shape_of(moved))
    return _arrays.transpose(out, axes=tuple(int(i) for i in _np.argsort(perm)))


def _scalar(fun, x):
    return _arrays.reshape(fun(_arrays.reshape(x, shape=(1,)), axis=-1), shape=())


def softmax(x, axis=None):
    """``scipy.special.softmax``: ``exp(x) / sum(exp(x))`` over ``axis`` (None: all of x).

    >>> import numpy as np
    >>> softmax(np.array([[0.0, 0.0], [0.0, np.log(3.0)]]), axis=1)
    array([[0.5 , 0.5 ],
           [0.25, 0.75]])
    """
    return _over_axes(_nn.softmax, x, axis)


def log_softmax(x, axis=None):
    """``scipy.special.log_softmax``: ``x - logsumexp(x)`` over ``axis`` (None: all of x).

    >>> import numpy as np
    >>> np.exp(log_softmax(np.array([0.0, np.log(3.0)])))
    array([0.25, 0.75])
    """
    return _over_axes(_nn.log_softmax, x, axis)


# help() pages for the functions that are primitives (objects, not Python functions).
_pages.write(_sys.modules[__name__])
