"""``scipy.stats.gumbel_r``: the right-skewed Gumbel distribution (of maxima),
differentiable in ``x``, ``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.gumbel_r.logpdf(1.3, 0.2, 2.0)))
True
"""

from ... import numpy as fnp
from ._common import standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x, loc=0.0, scale=1.0):
    z, log_scale = standardize(x, loc, scale)
    return -z - fnp.exp(-z) - log_scale


def pdf(x, loc=0.0, scale=1.0):
    return fnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0.0, scale=1.0):
    return -fnp.exp(-(x - loc) / scale)


def cdf(x, loc=0.0, scale=1.0):
    return fnp.exp(logcdf(x, loc, scale))


def sf(x, loc=0.0, scale=1.0):
    return -fnp.expm1(logcdf(x, loc, scale))


def logsf(x, loc=0.0, scale=1.0):
    return fnp.log(sf(x, loc, scale))


def ppf(q, loc=0.0, scale=1.0):
    return loc - scale * fnp.log(-fnp.log(q))
