"""``scipy.stats.pareto``: the Pareto distribution, differentiable in ``x``, the shape ``b``,
``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(2.3, 1.5, 0.2, 1.1), scipy.stats.pareto.logpdf(2.3, 1.5, 0.2, 1.1)))
True
"""

from ... import numpy as fnp
from ._common import log1mexp, on_support, scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf", "sf", "logcdf", "logsf", "ppf"]


def logpdf(x, b, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.pareto.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import pareto
    >>> round(pareto.logpdf(2.0, 3.0), 6)
    np.float64(-1.673976)
    >>> fg.grad(pareto.logpdf)(2.0, 3.0)    # d/dx
    np.float64(-2.0)
    """
    z, log_scale = standardize(x, loc, scale)
    return on_support(z >= 1, z, 2.0, lambda z: fnp.log(b) - (b + 1) * fnp.log(z) - log_scale)


def pdf(x, b, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.pareto.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import pareto
    >>> round(pareto.pdf(2.0, 3.0), 6)
    np.float64(0.1875)
    >>> round(fg.grad(pareto.pdf)(2.0, 3.0), 6)    # d/dx
    np.float64(-0.375)
    """
    return fnp.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.pareto.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import pareto
    >>> pareto.cdf(2.0, 3.0)
    np.float64(0.875)
    >>> fg.grad(pareto.cdf)(2.0, 3.0)    # d/dx
    np.float64(0.1875)
    """
    z = (x - loc) / scale
    below = fnp.where(fnp.isnan(z), z, 0.0)  # a NaN stays NaN, as SciPy's
    return fnp.where(z >= 1, 1.0 - fnp.maximum(z, 1.0) ** -b, below)


def sf(x, b, loc=0.0, scale=1.0):
    """The survival function at ``x``: ``scipy.stats.pareto.sf``'s values (``z ** -b``
    on the support, 1 below it).

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import pareto
    >>> pareto.sf(2.0, 3.0)
    np.float64(0.125)
    >>> fg.grad(pareto.sf)(2.0, 3.0)    # d/dx
    np.float64(-0.1875)
    """
    z = (x - loc) / scale
    return fnp.maximum(z, 1.0) ** -b


def logsf(x, b, loc=0.0, scale=1.0):
    """The log of the survival function: ``scipy.stats.pareto.logsf``'s values.

    >>> from funcgrad.scipy.stats import pareto
    >>> round(pareto.logsf(2.0, 3.0), 6), pareto.logsf(0.5, 3.0)
    (np.float64(-2.079442), np.float64(0.0))
    """
    z = (x - loc) / scale
    return 0.0 - b * fnp.log(fnp.maximum(z, 1.0))  # (0.0 - : no -0.0 below the support)


def logcdf(x, b, loc=0.0, scale=1.0):
    """The log of the distribution function: ``scipy.stats.pareto.logcdf``'s values
    (``log(1 - z ** -b)``, -inf below the support).

    >>> from funcgrad.scipy.stats import pareto
    >>> round(pareto.logcdf(2.0, 3.0), 6)
    np.float64(-0.133531)
    """
    z = (x - loc) / scale
    return on_support(z > 1, z, 2.0, lambda z: log1mexp(b * fnp.log(z)))


def ppf(q, b, loc=0.0, scale=1.0):
    """The quantile function: ``scipy.stats.pareto.ppf``'s values (NaN outside ``[0, 1]``).

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import pareto
    >>> round(pareto.ppf(0.5, 2.0), 6)
    np.float64(1.414214)
    """
    inside = (q >= 0) & (q <= 1)
    z = (1.0 - fnp.where(inside, q, 0.5)) ** (-1.0 / b)
    return fnp.where(inside, z * scale + loc, fnp.nan)


scipys_results(globals())


def __dir__():
    return list(__all__)
