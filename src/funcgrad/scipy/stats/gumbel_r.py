"""``scipy.stats.gumbel_r``: the right-skewed Gumbel distribution (of maxima),
differentiable in ``x``, ``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.gumbel_r.logpdf(1.3, 0.2, 2.0)))
True
"""

from ... import numpy as fnp
from ._common import log1mexp, scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def logpdf(x, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.gumbel_r.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_r
    >>> round(gumbel_r.logpdf(0.5), 6)
    np.float64(-1.106531)
    >>> round(fg.grad(gumbel_r.logpdf)(0.5), 6)    # d/dx
    np.float64(-0.393469)
    """
    z, log_scale = standardize(x, loc, scale)
    return -z - fnp.exp(-z) - log_scale


def pdf(x, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.gumbel_r.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_r
    >>> round(gumbel_r.pdf(0.5), 6)
    np.float64(0.330704)
    >>> round(fg.grad(gumbel_r.pdf)(0.5), 6)    # d/dx
    np.float64(-0.130122)
    """
    return fnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0.0, scale=1.0):
    """The log of the distribution function at ``x``: ``scipy.stats.gumbel_r.logcdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_r
    >>> round(gumbel_r.logcdf(0.5), 6)
    np.float64(-0.606531)
    >>> round(fg.grad(gumbel_r.logcdf)(0.5), 6)    # d/dx
    np.float64(0.606531)
    """
    return -fnp.exp(-(x - loc) / scale)


def cdf(x, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.gumbel_r.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_r
    >>> round(gumbel_r.cdf(0.5), 6)
    np.float64(0.545239)
    >>> round(fg.grad(gumbel_r.cdf)(0.5), 6)    # d/dx
    np.float64(0.330704)
    """
    return fnp.exp(logcdf(x, loc, scale))


def sf(x, loc=0.0, scale=1.0):
    """The survival function at ``x``, P(X > x) = 1 - cdf(x): ``scipy.stats.gumbel_r.sf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_r
    >>> round(gumbel_r.sf(0.5), 6)
    np.float64(0.454761)
    >>> round(fg.grad(gumbel_r.sf)(0.5), 6)    # d/dx
    np.float64(-0.330704)
    """
    return -fnp.expm1(logcdf(x, loc, scale))


def logsf(x, loc=0.0, scale=1.0):
    """The log of the survival function at ``x``: ``scipy.stats.gumbel_r.logsf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_r
    >>> round(gumbel_r.logsf(0.5), 6)
    np.float64(-0.787984)
    >>> round(fg.grad(gumbel_r.logsf)(0.5), 6)    # d/dx
    np.float64(-0.727205)
    """
    return log1mexp(fnp.exp(-(x - loc) / scale))  # log(1 - exp(-u)), accurate as u grows


def ppf(q, loc=0.0, scale=1.0):
    """The quantile function: the ``x`` with cdf(x) = ``q``: ``scipy.stats.gumbel_r.ppf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gumbel_r
    >>> round(gumbel_r.ppf(0.3), 6)
    np.float64(-0.185627)
    >>> round(fg.grad(gumbel_r.ppf)(0.3), 6)    # d/dq
    np.float64(2.768612)
    """
    return loc - scale * fnp.log(-fnp.log(q))


scipys_results(globals())


def __dir__():
    return list(__all__)
