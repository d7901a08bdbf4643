"""``scipy.stats.gumbel_l``: the left-skewed Gumbel distribution (of minima), the mirror
of :mod:`~funcgrad.scipy.stats.gumbel_r`; differentiable in ``x``, ``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.gumbel_l.logpdf(1.3, 0.2, 2.0)))
True
"""

from . import gumbel_r
from ._common import scipys_results

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.gumbel_l.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_l
    >>> round(gumbel_l.logpdf(0.5), 6)
    np.float64(-1.148721)
    >>> round(fg.grad(gumbel_l.logpdf)(0.5), 6)    # d/dx
    np.float64(-0.648721)
    """
    return gumbel_r.logpdf(-x, -loc, scale)


def pdf(x, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.gumbel_l.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_l
    >>> round(gumbel_l.pdf(0.5), 6)
    np.float64(0.317042)
    >>> round(fg.grad(gumbel_l.pdf)(0.5), 6)    # d/dx
    np.float64(-0.205672)
    """
    return gumbel_r.pdf(-x, -loc, scale)


def cdf(x, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.gumbel_l.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_l
    >>> round(gumbel_l.cdf(0.5), 6)
    np.float64(0.807704)
    >>> round(fg.grad(gumbel_l.cdf)(0.5), 6)    # d/dx
    np.float64(0.317042)
    """
    return gumbel_r.sf(-x, -loc, scale)


def logcdf(x, loc=0.0, scale=1.0):
    """The log of the distribution function at ``x``: ``scipy.stats.gumbel_l.logcdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_l
    >>> round(gumbel_l.logcdf(0.5), 6)
    np.float64(-0.213559)
    >>> round(fg.grad(gumbel_l.logcdf)(0.5), 6)    # d/dx
    np.float64(0.392522)
    """
    return gumbel_r.logsf(-x, -loc, scale)


def sf(x, loc=0.0, scale=1.0):
    """The survival function at ``x``, P(X > x) = 1 - cdf(x): ``scipy.stats.gumbel_l.sf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_l
    >>> round(gumbel_l.sf(0.5), 6)
    np.float64(0.192296)
    >>> round(fg.grad(gumbel_l.sf)(0.5), 6)    # d/dx
    np.float64(-0.317042)
    """
    return gumbel_r.cdf(-x, -loc, scale)


def logsf(x, loc=0.0, scale=1.0):
    """The log of the survival function at ``x``: ``scipy.stats.gumbel_l.logsf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_l
    >>> round(gumbel_l.logsf(0.5), 6)
    np.float64(-1.648721)
    >>> round(fg.grad(gumbel_l.logsf)(0.5), 6)    # d/dx
    np.float64(-1.648721)
    """
    return gumbel_r.logcdf(-x, -loc, scale)


def ppf(q, loc=0.0, scale=1.0):
    """The quantile function: the ``x`` with cdf(x) = ``q``: ``scipy.stats.gumbel_l.ppf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_l
    >>> round(gumbel_l.ppf(0.3), 6)
    np.float64(-1.03093)
    >>> round(fg.grad(gumbel_l.ppf)(0.3), 6)    # d/dq
    np.float64(4.005248)
    """
    return -gumbel_r.ppf(1.0 - q, -loc, scale)


scipys_results(globals())


def __dir__():
    return list(__all__)
