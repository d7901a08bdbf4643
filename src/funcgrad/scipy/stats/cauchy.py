"""``scipy.stats.cauchy``: the Cauchy distribution, differentiable in ``x``, ``loc`` and
``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.cauchy.logpdf(1.3, 0.2, 2.0)))
True
"""

import math

import numpy as np

from ... import numpy as fnp
from ._common import scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


def logpdf(x, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.cauchy.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import cauchy
    >>> round(cauchy.logpdf(0.5), 6)
    np.float64(-1.367873)
    >>> fg.grad(cauchy.logpdf)(0.5)    # d/dx
    np.float64(-0.8)
    """
    z, log_scale = standardize(x, loc, scale)
    return -math.log(math.pi) - log_scale - fnp.log1p(z * z)


def pdf(x, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.cauchy.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import cauchy
    >>> round(cauchy.pdf(0.5), 6)
    np.float64(0.254648)
    >>> round(fg.grad(cauchy.pdf)(0.5), 6)    # d/dx
    np.float64(-0.203718)
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.cauchy.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import cauchy
    >>> round(cauchy.cdf(0.5), 6)
    np.float64(0.647584)
    >>> round(fg.grad(cauchy.cdf)(0.5), 6)    # d/dx
    np.float64(0.254648)
    """
    return 0.5 + fnp.arctan((x - loc) / scale) / math.pi


def logcdf(x, loc=0.0, scale=1.0):
    """The log of the distribution function at ``x``: ``scipy.stats.cauchy.logcdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import cauchy
    >>> round(cauchy.logcdf(0.5), 6)
    np.float64(-0.434507)
    >>> round(fg.grad(cauchy.logcdf)(0.5), 6)    # d/dx
    np.float64(0.393228)
    """
    return fnp.log(cdf(x, loc, scale))


def sf(x, loc=0.0, scale=1.0):
    """The survival function at ``x``, P(X > x) = 1 - cdf(x): ``scipy.stats.cauchy.sf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import cauchy
    >>> round(cauchy.sf(0.5), 6)
    np.float64(0.352416)
    >>> round(fg.grad(cauchy.sf)(0.5), 6)    # d/dx
    np.float64(-0.254648)
    """
    return cdf(-x, -loc, scale)


def logsf(x, loc=0.0, scale=1.0):
    """The log of the survival function at ``x``: ``scipy.stats.cauchy.logsf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import cauchy
    >>> round(cauchy.logsf(0.5), 6)
    np.float64(-1.042942)
    >>> round(fg.grad(cauchy.logsf)(0.5), 6)    # d/dx
    np.float64(-0.722577)
    """
    return fnp.log(sf(x, loc, scale))


def ppf(q, loc=0.0, scale=1.0):
    """The quantile function: the ``x`` with cdf(x) = ``q``: ``scipy.stats.cauchy.ppf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import cauchy
    >>> round(cauchy.ppf(0.3), 6)
    np.float64(-0.726543)
    >>> round(fg.grad(cauchy.ppf)(0.3), 6)    # d/dq
    np.float64(4.799926)
    """
    return loc + scale * _tangent(q, -np.inf, np.inf)


def isf(q, loc=0.0, scale=1.0):
    """The inverse survival function: the ``x`` with sf(x) = ``q``: ``scipy.stats.cauchy.isf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import cauchy
    >>> round(cauchy.isf(0.3), 6)
    np.float64(0.726543)
    >>> round(fg.grad(cauchy.isf)(0.3), 6)    # d/dq
    np.float64(-4.799926)
    """
    return loc - scale * _tangent(q, -np.inf, np.inf)


def _tangent(q, at_0, at_1):
    """``tan(pi (q - 1/2))`` inside (0, 1); ``at_0`` and ``at_1`` at the ends (tan gives
    +-1.6e16 there), NaN outside [0, 1], as SciPy's."""
    inside = fnp.logical_and(q > 0.0, q < 1.0)
    ends = fnp.where(q == 0.0, at_0, fnp.where(q == 1.0, at_1, np.nan))
    return fnp.where(inside, fnp.tan(math.pi * (fnp.where(inside, q, 0.5) - 0.5)), ends)


scipys_results(globals())


def __dir__():
    return list(__all__)
