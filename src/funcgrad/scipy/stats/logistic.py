"""``scipy.stats.logistic``: the logistic distribution, differentiable in ``x``, ``loc``
and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.logistic.logpdf(1.3, 0.2, 2.0)))
True
"""

from ... import numpy as fnp
from ._common import standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def _log_expit(z):
    return -fnp.logaddexp(0.0, -z)


def logpdf(x, loc=0.0, scale=1.0):
    z, log_scale = standardize(x, loc, scale)
    return -z - 2.0 * fnp.logaddexp(0.0, -z) - log_scale


def pdf(x, loc=0.0, scale=1.0):
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    return fnp.exp(logcdf(x, loc, scale))


def logcdf(x, loc=0.0, scale=1.0):
    return _log_expit((x - loc) / scale)


def sf(x, loc=0.0, scale=1.0):
    return fnp.exp(logsf(x, loc, scale))


def logsf(x, loc=0.0, scale=1.0):
    return _log_expit(-(x - loc) / scale)


def ppf(q, loc=0.0, scale=1.0):
    return loc + scale * (fnp.log(q) - fnp.log1p(-q))


def isf(q, loc=0.0, scale=1.0):
    return ppf(1.0 - q, loc, scale)
