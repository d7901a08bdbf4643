"""``scipy.stats.chi2``: the chi-squared distribution, a gamma of shape df / 2 and scale 2.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 3.0), scipy.stats.chi2.logpdf(1.3, 3.0)))
True
"""

from . import gamma
from ._common import scipys_results

__all__ = ["logpdf", "pdf", "cdf", "sf", "logcdf", "logsf"]


def logpdf(x, df, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.chi2.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import chi2
    >>> round(chi2.logpdf(2.0, 3.0), 6)
    np.float64(-1.572365)
    >>> fg.grad(chi2.logpdf)(2.0, 3.0)    # d/dx
    np.float64(-0.25)
    """
    return gamma.logpdf(x, 0.5 * df, loc, 2.0 * scale)


def pdf(x, df, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.chi2.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import chi2
    >>> round(chi2.pdf(2.0, 3.0), 6)
    np.float64(0.207554)
    >>> round(fg.grad(chi2.pdf)(2.0, 3.0), 7)    # d/dx
    np.float64(-0.0518884)
    """
    return gamma.pdf(x, 0.5 * df, loc, 2.0 * scale)


def cdf(x, df, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.chi2.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import chi2
    >>> round(chi2.cdf(2.0, 3.0), 6)
    np.float64(0.427593)
    >>> round(fg.grad(chi2.cdf)(2.0, 3.0), 6)    # d/dx
    np.float64(0.207554)
    """
    return gamma.cdf(x, 0.5 * df, loc, 2.0 * scale)


def sf(x, df, loc=0.0, scale=1.0):
    """The survival function at ``x``: ``scipy.stats.chi2.sf``'s arguments and values (the
    gamma distribution's, shape ``df / 2``, scale ``2 scale``).

    >>> from funcgrad.scipy.stats import chi2
    >>> round(chi2.sf(2.0, 3.0), 6)
    np.float64(0.572407)
    """
    return gamma.sf(x, 0.5 * df, loc, 2.0 * scale)


def logcdf(x, df, loc=0.0, scale=1.0):
    """The log of the distribution function: ``scipy.stats.chi2.logcdf``'s values.

    >>> from funcgrad.scipy.stats import chi2
    >>> round(chi2.logcdf(2.0, 3.0), 6)
    np.float64(-0.849583)
    """
    return gamma.logcdf(x, 0.5 * df, loc, 2.0 * scale)


def logsf(x, df, loc=0.0, scale=1.0):
    """The log of the survival function: ``scipy.stats.chi2.logsf``'s values.

    >>> from funcgrad.scipy.stats import chi2
    >>> round(chi2.logsf(2.0, 3.0), 6)
    np.float64(-0.557906)
    """
    return gamma.logsf(x, 0.5 * df, loc, 2.0 * scale)


scipys_results(globals())


def __dir__():
    return list(__all__)
