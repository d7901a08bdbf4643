"""``scipy.stats.norm``: the normal distribution, differentiable in ``x``, ``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> import funcgrad as fg
>>> bool(np.isclose(logpdf(0.3, 1.0, 2.0), scipy.stats.norm.logpdf(0.3, 1.0, 2.0)))
True
>>> float(fg.grad(logpdf)(1.5))    # d/dx log N(x; 0, 1) = -x
-1.5
"""

import math

import scipy.stats

from ... import numpy as fnp
from .. import special
from ._common import standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf", "rvs"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def logpdf(x, loc=0.0, scale=1.0):
    z, log_scale = standardize(x, loc, scale)
    return -0.5 * z * z - _LOG_SQRT_2PI - log_scale


def pdf(x, loc=0.0, scale=1.0):
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    return special.ndtr((x - loc) / scale)


def logcdf(x, loc=0.0, scale=1.0):
    return special.log_ndtr((x - loc) / scale)


def sf(x, loc=0.0, scale=1.0):
    return special.ndtr(-(x - loc) / scale)


def logsf(x, loc=0.0, scale=1.0):
    return special.log_ndtr(-(x - loc) / scale)


def ppf(q, loc=0.0, scale=1.0):
    return loc + scale * special.ndtri(q)


def isf(q, loc=0.0, scale=1.0):
    return loc - scale * special.ndtri(q)


rvs = scipy.stats.norm.rvs  # sampling has no derivative: SciPy's own
