"""``scipy.stats.chi2``: the chi-squared distribution, a gamma of shape df / 2 and scale 2.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 3.0), scipy.stats.chi2.logpdf(1.3, 3.0)))
True
"""

from . import gamma

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x, df, loc=0.0, scale=1.0):
    return gamma.logpdf(x, 0.5 * df, loc, 2.0 * scale)


def pdf(x, df, loc=0.0, scale=1.0):
    return gamma.pdf(x, 0.5 * df, loc, 2.0 * scale)


def cdf(x, df, loc=0.0, scale=1.0):
    return gamma.cdf(x, 0.5 * df, loc, 2.0 * scale)
