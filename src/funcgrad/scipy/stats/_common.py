"""What the distributions share: standardizing, -inf outside the support, SciPy's results."""

import functools
import inspect

import numpy as np

from ... import numpy as fnp
from ...core.results import numpy_result

__all__ = ["standardize", "on_support", "scipys_results"]


def standardize(x, loc, scale):
    """``(x - loc) / scale`` and ``log(scale)``, the change of variables every density makes."""
    return (x - loc) / scale, fnp.log(scale)


def on_support(inside, z, safe, logp):
    """``logp(z)`` where the mask ``inside`` holds, -inf elsewhere. Outside the support
    ``logp`` is evaluated at ``safe`` instead, so that no NaN reaches the gradient."""
    return fnp.where(inside, logp(fnp.where(inside, z, safe)), -np.inf)


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
