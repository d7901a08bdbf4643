"""``scipy.stats.expon``: the exponential distribution, differentiable in ``x``, ``loc``
and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.expon.logpdf(1.3, 0.2, 2.0)))
True
"""

from ... import numpy as fnp
from ._common import log1mexp, on_support, scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.expon.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import expon
    >>> expon.logpdf(0.5)
    np.float64(-0.5)
    >>> fg.grad(expon.logpdf)(0.5)    # d/dx
    np.float64(-1.0)
    """
    z, log_scale = standardize(x, loc, scale)
    return on_support(z >= 0, z, 0.0, lambda z: -z - log_scale)


def pdf(x, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.expon.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import expon
    >>> round(expon.pdf(0.5), 6)
    np.float64(0.606531)
    >>> round(fg.grad(expon.pdf)(0.5), 6)    # d/dx
    np.float64(-0.606531)
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.expon.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import expon
    >>> round(expon.cdf(0.5), 6)
    np.float64(0.393469)
    >>> round(fg.grad(expon.cdf)(0.5), 6)    # d/dx
    np.float64(0.606531)
    """
    z = (x - loc) / scale
    return -fnp.expm1(-fnp.maximum(z, 0.0))


def logcdf(x, loc=0.0, scale=1.0):
    """The log of the distribution function at ``x``: ``scipy.stats.expon.logcdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import expon
    >>> round(expon.logcdf(0.5), 6)
    np.float64(-0.932752)
    >>> round(fg.grad(expon.logcdf)(0.5), 6)    # d/dx
    np.float64(1.541494)
    """
    z = (x - loc) / scale
    return on_support(z > 0, z, 1.0, log1mexp)


def sf(x, loc=0.0, scale=1.0):
    """The survival function at ``x``, P(X > x): ``scipy.stats.expon.sf``'s values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import expon
    >>> round(expon.sf(0.5), 6)
    np.float64(0.606531)
    >>> round(fg.grad(expon.sf)(0.5), 6)    # d/dx
    np.float64(-0.606531)
    """
    return fnp.exp(logsf(x, loc, scale))


def logsf(x, loc=0.0, scale=1.0):
    """The log of the survival function: ``scipy.stats.expon.logsf``'s values (``-z`` on
    the support, 0 below it).

    >>> from funcgrad.scipy.stats import expon
    >>> expon.logsf(0.5), expon.logsf(-1.0)
    (np.float64(-0.5), np.float64(0.0))
    """
    z = (x - loc) / scale
    return 0.0 - fnp.maximum(z, 0.0)  # (0.0 - : no -0.0 below the support)


def ppf(q, loc=0.0, scale=1.0):
    """The quantile function, the inverse of ``cdf``: ``scipy.stats.expon.ppf``'s values
    (NaN outside ``[0, 1]``).

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import expon
    >>> round(expon.ppf(0.5), 6)
    np.float64(0.693147)
    >>> fg.grad(expon.ppf)(0.5)    # 1 / (1 - q)
    np.float64(2.0)
    """
    inside = (q >= 0) & (q <= 1)
    z = -fnp.log1p(-fnp.where(inside, q, 0.5))
    return fnp.where(inside, z * scale + loc, fnp.nan)


scipys_results(globals())


def __dir__():
    return list(__all__)
