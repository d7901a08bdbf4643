"""``scipy.stats.truncnorm``: the normal distribution cut to ``[a, b]`` (in standard units),
differentiable in ``x``, ``a``, ``b``, ``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(0.3, -1.0, 2.0, 0.1, 1.5),
...                 scipy.stats.truncnorm.logpdf(0.3, -1.0, 2.0, 0.1, 1.5)))
True
"""

from ... import numpy as fnp
from .. import special
from . import norm
from ._common import on_support, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _mass(a, b):
    """Phi(b) - Phi(a), from the tail where it is small (a > 0: the upper one)."""
    upper = fnp.greater(a, 0.0)
    return fnp.where(upper, special.ndtr(-a) - special.ndtr(-b), special.ndtr(b) - special.ndtr(a))


def logpdf(x, a, b, loc=0.0, scale=1.0):
    z, log_scale = standardize(x, loc, scale)
    inside = fnp.logical_and(z >= a, z <= b)
    middle = (fnp.maximum(a, -1e300) + fnp.minimum(b, 1e300)) / 2.0
    return on_support(
        inside, z, middle, lambda z: norm.logpdf(z) - fnp.log(_mass(a, b)) - log_scale
    )


def pdf(x, a, b, loc=0.0, scale=1.0):
    return fnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0.0, scale=1.0):
    z = fnp.clip((x - loc) / scale, a, b)
    upper = fnp.greater(a, 0.0)
    below = fnp.where(upper, special.ndtr(-a) - special.ndtr(-z), special.ndtr(z) - special.ndtr(a))
    return fnp.clip(below / _mass(a, b), 0.0, 1.0)


def logcdf(x, a, b, loc=0.0, scale=1.0):
    return fnp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0.0, scale=1.0):
    return cdf(-x, -b, -a, -loc, scale)


def logsf(x, a, b, loc=0.0, scale=1.0):
    return fnp.log(sf(x, a, b, loc, scale))
