"""``scipy.stats.gumbel_l``: the left-skewed Gumbel distribution (of minima), the mirror
of :mod:`~funcgrad.scipy.stats.gumbel_r`; differentiable in ``x``, ``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.gumbel_l.logpdf(1.3, 0.2, 2.0)))
True
"""

from . import gumbel_r

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x, loc=0.0, scale=1.0):
    return gumbel_r.logpdf(-x, -loc, scale)


def pdf(x, loc=0.0, scale=1.0):
    return gumbel_r.pdf(-x, -loc, scale)


def cdf(x, loc=0.0, scale=1.0):
    return gumbel_r.sf(-x, -loc, scale)


def logcdf(x, loc=0.0, scale=1.0):
    return gumbel_r.logsf(-x, -loc, scale)


def sf(x, loc=0.0, scale=1.0):
    return gumbel_r.cdf(-x, -loc, scale)


def logsf(x, loc=0.0, scale=1.0):
    return gumbel_r.logcdf(-x, -loc, scale)


def ppf(q, loc=0.0, scale=1.0):
    return -gumbel_r.ppf(1.0 - q, -loc, scale)
