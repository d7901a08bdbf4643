"""``scipy.stats.laplace``: the Laplace distribution, differentiable in ``x``, ``loc`` and
``scale`` (at ``x = loc`` the derivative in ``x`` is split, as for abs).

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.laplace.logpdf(1.3, 0.2, 2.0)))
True
"""

import math

from ... import numpy as fnp
from ._common import scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf"]


def logpdf(x, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.laplace.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import laplace
    >>> round(laplace.logpdf(0.5), 6)
    np.float64(-1.193147)
    >>> fg.grad(laplace.logpdf)(0.5)    # d/dx
    np.float64(-1.0)
    """
    z, log_scale = standardize(x, loc, scale)
    return -fnp.abs(z) - math.log(2.0) - log_scale


def pdf(x, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.laplace.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import laplace
    >>> round(laplace.pdf(0.5), 6)
    np.float64(0.303265)
    >>> round(fg.grad(laplace.pdf)(0.5), 6)    # d/dx
    np.float64(-0.303265)
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.laplace.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import laplace
    >>> round(laplace.cdf(0.5), 6)
    np.float64(0.696735)
    >>> round(fg.grad(laplace.cdf)(0.5), 6)    # d/dx
    np.float64(0.303265)
    """
    z = (x - loc) / scale
    return fnp.where(
        z < 0, 0.5 * fnp.exp(fnp.minimum(z, 0.0)), 1.0 - 0.5 * fnp.exp(-fnp.maximum(z, 0.0))
    )


def logcdf(x, loc=0.0, scale=1.0):
    """The log of the distribution function at ``x``: ``scipy.stats.laplace.logcdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import laplace
    >>> round(laplace.logcdf(0.5), 6)
    np.float64(-0.361351)
    >>> round(fg.grad(laplace.logcdf)(0.5), 6)    # d/dx
    np.float64(0.435267)
    """
    z = (x - loc) / scale
    return fnp.where(
        z < 0, fnp.minimum(z, 0.0) - math.log(2.0), fnp.log1p(-0.5 * fnp.exp(-fnp.maximum(z, 0.0)))
    )


scipys_results(globals())


def __dir__():
    return list(__all__)
