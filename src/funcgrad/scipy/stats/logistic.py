"""``scipy.stats.logistic``: the logistic distribution, differentiable in ``x``, ``loc``
and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.logistic.logpdf(1.3, 0.2, 2.0)))
True
"""

from ... import numpy as fnp
from ._common import scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def _log_expit(z):
    return -fnp.logaddexp(0.0, -z)


def logpdf(x, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.logistic.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import logistic
    >>> round(logistic.logpdf(0.5), 6)
    np.float64(-1.448154)
    >>> round(fg.grad(logistic.logpdf)(0.5), 6)    # d/dx
    np.float64(-0.244919)
    """
    z, log_scale = standardize(x, loc, scale)
    t = fnp.abs(z)  # the density is symmetric: no inf - inf at z = -inf
    return -t - 2.0 * fnp.log1p(fnp.exp(-t)) - log_scale


def pdf(x, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.logistic.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import logistic
    >>> round(logistic.pdf(0.5), 6)
    np.float64(0.235004)
    >>> round(fg.grad(logistic.pdf)(0.5), 7)    # d/dx
    np.float64(-0.0575568)
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.logistic.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import logistic
    >>> round(logistic.cdf(0.5), 6)
    np.float64(0.622459)
    >>> round(fg.grad(logistic.cdf)(0.5), 6)    # d/dx
    np.float64(0.235004)
    """
    return fnp.exp(logcdf(x, loc, scale))


def logcdf(x, loc=0.0, scale=1.0):
    """The log of the distribution function at ``x``: ``scipy.stats.logistic.logcdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import logistic
    >>> round(logistic.logcdf(0.5), 6)
    np.float64(-0.474077)
    >>> round(fg.grad(logistic.logcdf)(0.5), 6)    # d/dx
    np.float64(0.377541)
    """
    return _log_expit((x - loc) / scale)


def sf(x, loc=0.0, scale=1.0):
    """The survival function at ``x``, P(X > x) = 1 - cdf(x): ``scipy.stats.logistic.sf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import logistic
    >>> round(logistic.sf(0.5), 6)
    np.float64(0.377541)
    >>> round(fg.grad(logistic.sf)(0.5), 6)    # d/dx
    np.float64(-0.235004)
    """
    return fnp.exp(logsf(x, loc, scale))


def logsf(x, loc=0.0, scale=1.0):
    """The log of the survival function at ``x``: ``scipy.stats.logistic.logsf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import logistic
    >>> round(logistic.logsf(0.5), 6)
    np.float64(-0.974077)
    >>> round(fg.grad(logistic.logsf)(0.5), 6)    # d/dx
    np.float64(-0.622459)
    """
    return _log_expit(-(x - loc) / scale)


def ppf(q, loc=0.0, scale=1.0):
    """The quantile function: the ``x`` with cdf(x) = ``q``: ``scipy.stats.logistic.ppf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import logistic
    >>> round(logistic.ppf(0.3), 6)
    np.float64(-0.847298)
    >>> round(fg.grad(logistic.ppf)(0.3), 6)    # d/dq
    np.float64(4.761905)
    """
    return loc + scale * (fnp.log(q) - fnp.log1p(-q))


def isf(q, loc=0.0, scale=1.0):
    """The inverse survival function: the ``x`` with sf(x) = ``q``: ``scipy.stats.logistic.isf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import logistic
    >>> round(logistic.isf(0.3), 6)
    np.float64(0.847298)
    >>> round(fg.grad(logistic.isf)(0.3), 6)    # d/dq
    np.float64(-4.761905)
    """
    return ppf(1.0 - q, loc, scale)


scipys_results(globals())


def __dir__():
    return list(__all__)
