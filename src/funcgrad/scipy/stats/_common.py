"""What the distributions share: standardizing, -inf outside the support, SciPy's results."""

import functools
import inspect
import math

import numpy as np

from ... import numpy as fnp
from ...core.results import numpy_result

__all__ = ["standardize", "on_support", "log1mexp", "log_of", "scipys_results"]


def standardize(x, loc, scale):
    """``(x - loc) / scale`` and ``log(scale)``, the change of variables every density makes."""
    return (x - loc) / scale, fnp.log(scale)


def on_support(inside, z, safe, logp):
    """``logp(z)`` where the mask ``inside`` holds, -inf elsewhere, and NaN where ``z`` is
    NaN (as SciPy's: a NaN is no point outside the support). Outside the support ``logp``
    is evaluated at ``safe`` instead, so that no NaN reaches the gradient."""
    outside = fnp.where(fnp.isnan(z), z, -np.inf)  # (in z's dtype: float32 stays)
    return fnp.where(inside, logp(fnp.where(inside, z, safe)), outside)


def log1mexp(t):
    """``log(1 - exp(-t))`` for ``t > 0``, accurate at both ends (Maechler's split at
    log 2: ``log(-expm1(-t))`` below, ``log1p(-exp(-t))`` above, where 1 - exp(-t) rounds
    to 1 and its log to 0)."""
    small = t <= math.log(2.0)  # (a Python number: every library takes one)
    return fnp.where(
        small,
        fnp.log(-fnp.expm1(-fnp.where(small, t, 1.0))),
        fnp.log1p(-fnp.exp(-fnp.where(small, 1.0, t))),
    )


def log_of(p, q):
    """``log(p)`` for a probability ``p`` whose complement ``q = 1 - p`` is computed apart:
    ``log1p(-q)`` where ``p`` is over a half (a cdf near 1 has lost the digits its
    complement holds, as SciPy's logcdf and logsf keep them)."""
    large = p > 0.5
    return fnp.where(large, fnp.log1p(-fnp.where(large, q, 0.0)), fnp.log(fnp.where(large, 1.0, p)))


def scipys_results(namespace):
    """Wrap the functions a distribution's module defines so that a call from outside
    funcgrad gets what SciPy returns: a 0-d result as a NumPy scalar (``norm.cdf(0.3)`` is
    an ``np.float64``, never a Python float or a 0-d array). Traced values pass through."""
    for name in namespace["__all__"]:
        fun = namespace[name]
        if inspect.isfunction(fun) and fun.__module__ == namespace["__name__"]:
            namespace[name] = _as_scipy(fun)


def _as_scipy(fun):
    @functools.wraps(fun)
    def public(*args, **kwargs):
        out = fun(*args, **kwargs)
        if type(out) is np.ndarray and out.ndim == 0:
            return out[()]
        return numpy_result(out) if type(out) is float else out

    return public
