"""``scipy.stats.gennorm``: the generalized normal distribution of shape ``beta`` (1:
Laplace, 2: normal), differentiable in ``x``, ``beta``, ``loc`` and ``scale`` (its cdf in
``x``, ``loc`` and ``scale``).

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(0.7, 1.5, 0.1, 2.0), scipy.stats.gennorm.logpdf(0.7, 1.5, 0.1, 2.0)))
True
"""

import math

from ... import numpy as fnp
from .. import special
from ._common import scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x, beta, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.gennorm.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gennorm
    >>> round(gennorm.logpdf(0.5, 1.5), 6)
    np.float64(-0.944386)
    >>> round(fg.grad(gennorm.logpdf)(0.5, 1.5), 6)    # d/dx
    np.float64(-1.06066)
    """
    z, log_scale = standardize(x, loc, scale)
    return (
        fnp.log(beta) - math.log(2.0) - special.gammaln(1.0 / beta) - fnp.abs(z) ** beta - log_scale
    )


def pdf(x, beta, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.gennorm.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gennorm
    >>> round(gennorm.pdf(0.5, 1.5), 6)
    np.float64(0.388918)
    >>> round(fg.grad(gennorm.pdf)(0.5, 1.5), 6)    # d/dx
    np.float64(-0.41251)
    """
    return fnp.exp(logpdf(x, beta, loc, scale))


def cdf(x, beta, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.gennorm.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gennorm
    >>> round(gennorm.cdf(0.5, 1.5), 6)
    np.float64(0.741749)
    >>> round(fg.grad(gennorm.cdf)(0.5, 1.5), 6)    # d/dx
    np.float64(0.388918)
    """
    z = (x - loc) / scale
    return 0.5 + 0.5 * fnp.sign(z) * special.gammainc(1.0 / beta, fnp.abs(z) ** beta)


scipys_results(globals())


def __dir__():
    return list(__all__)
