"""``scipy.stats.expon``: the exponential distribution, differentiable in ``x``, ``loc``
and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.expon.logpdf(1.3, 0.2, 2.0)))
True
"""

from ... import numpy as fnp
from ._common import on_support, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf"]


def logpdf(x, loc=0.0, scale=1.0):
    z, log_scale = standardize(x, loc, scale)
    return on_support(z >= 0, z, 0.0, lambda z: -z - log_scale)


def pdf(x, loc=0.0, scale=1.0):
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -fnp.expm1(-fnp.maximum(z, 0.0))


def logcdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return on_support(z > 0, z, 1.0, lambda z: fnp.log(-fnp.expm1(-z)))
