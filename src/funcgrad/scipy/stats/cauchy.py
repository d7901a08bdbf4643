"""``scipy.stats.cauchy``: the Cauchy distribution, differentiable in ``x``, ``loc`` and
``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.cauchy.logpdf(1.3, 0.2, 2.0)))
True
"""

import math

from ... import numpy as fnp
from ._common import standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def logpdf(x, loc=0.0, scale=1.0):
    z, log_scale = standardize(x, loc, scale)
    return -math.log(math.pi) - log_scale - fnp.log1p(z * z)


def pdf(x, loc=0.0, scale=1.0):
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    return 0.5 + fnp.arctan((x - loc) / scale) / math.pi


def logcdf(x, loc=0.0, scale=1.0):
    return fnp.log(cdf(x, loc, scale))


def sf(x, loc=0.0, scale=1.0):
    return cdf(-x, -loc, scale)


def logsf(x, loc=0.0, scale=1.0):
    return fnp.log(sf(x, loc, scale))


def ppf(q, loc=0.0, scale=1.0):
    return loc + scale * fnp.tan(math.pi * (q - 0.5))


def isf(q, loc=0.0, scale=1.0):
    return loc - scale * fnp.tan(math.pi * (q - 0.5))
