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
from ._common import scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf", "rvs"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def logpdf(x, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.norm.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import norm
    >>> round(norm.logpdf(0.3, 1.0, 2.0), 6)
    np.float64(-1.673336)
    >>> fg.grad(norm.logpdf)(0.3, 1.0, 2.0)    # d/dx
    np.float64(0.175)
    """
    z, log_scale = standardize(x, loc, scale)
    return -0.5 * z * z - _LOG_SQRT_2PI - log_scale


def pdf(x, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.norm.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import norm
    >>> round(norm.pdf(0.3, 1.0, 2.0), 6)
    np.float64(0.18762)
    >>> round(fg.grad(norm.pdf)(0.3, 1.0, 2.0), 7)    # d/dx
    np.float64(0.0328335)
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.norm.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import norm
    >>> round(norm.cdf(0.3, 1.0, 2.0), 6)
    np.float64(0.363169)
    >>> round(fg.grad(norm.cdf)(0.3, 1.0, 2.0), 6)    # d/dx
    np.float64(0.18762)
    """
    return special.ndtr((x - loc) / scale)


def logcdf(x, loc=0.0, scale=1.0):
    """The log of the distribution function at ``x``: ``scipy.stats.norm.logcdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import norm
    >>> round(norm.logcdf(0.3, 1.0, 2.0), 6)
    np.float64(-1.012886)
    >>> round(fg.grad(norm.logcdf)(0.3, 1.0, 2.0), 6)    # d/dx
    np.float64(0.516619)
    """
    return special.log_ndtr((x - loc) / scale)


def sf(x, loc=0.0, scale=1.0):
    """The survival function at ``x``, P(X > x) = 1 - cdf(x): ``scipy.stats.norm.sf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import norm
    >>> round(norm.sf(0.3, 1.0, 2.0), 6)
    np.float64(0.636831)
    >>> round(fg.grad(norm.sf)(0.3, 1.0, 2.0), 6)    # d/dx
    np.float64(-0.18762)
    """
    return special.ndtr(-(x - loc) / scale)


def logsf(x, loc=0.0, scale=1.0):
    """The log of the survival function at ``x``: ``scipy.stats.norm.logsf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import norm
    >>> round(norm.logsf(0.3, 1.0, 2.0), 6)
    np.float64(-0.451252)
    >>> round(fg.grad(norm.logsf)(0.3, 1.0, 2.0), 6)    # d/dx
    np.float64(-0.294615)
    """
    return special.log_ndtr(-(x - loc) / scale)


def ppf(q, loc=0.0, scale=1.0):
    """The quantile function: the ``x`` with cdf(x) = ``q``: ``scipy.stats.norm.ppf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import norm
    >>> round(norm.ppf(0.3, 1.0, 2.0), 6)
    np.float64(-0.048801)
    >>> round(fg.grad(norm.ppf)(0.3, 1.0, 2.0), 6)    # d/dq
    np.float64(5.752207)
    """
    return loc + scale * special.ndtri(q)


def isf(q, loc=0.0, scale=1.0):
    """The inverse survival function: the ``x`` with sf(x) = ``q``: ``scipy.stats.norm.isf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import norm
    >>> round(norm.isf(0.3, 1.0, 2.0), 6)
    np.float64(2.048801)
    >>> round(fg.grad(norm.isf)(0.3, 1.0, 2.0), 6)    # d/dq
    np.float64(-5.752207)
    """
    return loc - scale * special.ndtri(q)


rvs = scipy.stats.norm.rvs  # sampling has no derivative: SciPy's own


scipys_results(globals())


def __dir__():
    return list(__all__)
