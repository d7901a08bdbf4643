"""``scipy.stats.t``: Student's t distribution, differentiable in ``x``, ``df``, ``loc``,
``scale`` (its ``cdf`` in ``x``, ``loc`` and ``scale`` only).

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(0.3, 4.0, 1.0, 2.0), scipy.stats.t.logpdf(0.3, 4.0, 1.0, 2.0)))
True
>>> bool(np.isclose(cdf(-0.7, 3.0), scipy.stats.t.cdf(-0.7, 3.0)))
True
"""

import math

from ... import numpy as fnp
from .. import special
from ._common import scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf"]


def logpdf(x, df, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.t.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import t
    >>> round(t.logpdf(0.5, 3.0), 6)
    np.float64(-1.160974)
    >>> round(fg.grad(t.logpdf)(0.5, 3.0), 6)    # d/dx
    np.float64(-0.615385)
    """
    z, log_scale = standardize(x, loc, scale)
    return (
        special.gammaln(0.5 * (df + 1.0))
        - special.gammaln(0.5 * df)
        - 0.5 * fnp.log(df * math.pi)
        - log_scale
        - 0.5 * (df + 1.0) * fnp.log1p(z * z / df)
    )


def pdf(x, df, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.t.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import t
    >>> round(t.pdf(0.5, 3.0), 6)
    np.float64(0.313181)
    >>> round(fg.grad(t.pdf)(0.5, 3.0), 6)    # d/dx
    np.float64(-0.192727)
    """
    return fnp.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.t.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import t
    >>> round(t.cdf(0.5, 3.0), 6)
    np.float64(0.674276)
    >>> round(fg.grad(t.cdf)(0.5, 3.0), 6)    # d/dx
    np.float64(0.313181)
    """
    z = (x - loc) / scale
    tail = 0.5 * special.betainc(0.5 * df, 0.5, df / (df + z * z))  # P(T < -|z|)
    return fnp.where(z < 0, tail, 1.0 - tail)


def logcdf(x, df, loc=0.0, scale=1.0):
    """The log of the distribution function at ``x``: ``scipy.stats.t.logcdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import t
    >>> round(t.logcdf(0.5, 3.0), 6)
    np.float64(-0.394116)
    >>> round(fg.grad(t.logcdf)(0.5, 3.0), 6)    # d/dx
    np.float64(0.46447)
    """
    # above loc, log1p of minus the upper tail (the cdf rounds to 1 there), by symmetry
    upper = fnp.subtract(x, loc) > 0
    return fnp.where(
        upper,
        fnp.log1p(-cdf(2.0 * loc - x, df, loc, scale)),
        fnp.log(cdf(x, df, loc, scale)),
    )


scipys_results(globals())


def __dir__():
    return list(__all__)
