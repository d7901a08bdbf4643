"""``scipy.stats.truncnorm``: the normal distribution cut to ``[a, b]`` (in standard units),
differentiable in ``x``, ``a``, ``b``, ``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(0.3, -1.0, 2.0, 0.1, 1.5),
...                 scipy.stats.truncnorm.logpdf(0.3, -1.0, 2.0, 0.1, 1.5)))
True
"""

import math

from ... import numpy as fnp
from .. import special
from . import norm
from ._common import on_support, scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _mass(a, b):
    """Phi(b) - Phi(a), from the tail where it is small (a > 0: the upper one)."""
    upper = fnp.greater(a, 0.0)
    return fnp.where(upper, special.ndtr(-a) - special.ndtr(-b), special.ndtr(b) - special.ndtr(a))


def logpdf(x, a, b, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.truncnorm.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import truncnorm
    >>> round(truncnorm.logpdf(0.3, -1.0, 2.0), 6)
    np.float64(-0.763772)
    >>> fg.grad(truncnorm.logpdf)(0.3, -1.0, 2.0)    # d/dx
    np.float64(-0.3)
    """
    z, log_scale = standardize(x, loc, scale)
    inside = fnp.logical_and(z >= a, z <= b)
    middle = (fnp.maximum(a, -1e300) + fnp.minimum(b, 1e300)) / 2.0
    return on_support(
        inside, z, middle, lambda z: norm.logpdf(z) - fnp.log(_mass(a, b)) - log_scale
    )


def pdf(x, a, b, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.truncnorm.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import truncnorm
    >>> round(truncnorm.pdf(0.3, -1.0, 2.0), 6)
    np.float64(0.465906)
    >>> round(fg.grad(truncnorm.pdf)(0.3, -1.0, 2.0), 6)    # d/dx
    np.float64(-0.139772)
    """
    return fnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.truncnorm.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import truncnorm
    >>> round(truncnorm.cdf(0.3, -1.0, 2.0), 6)
    np.float64(0.56103)
    >>> round(fg.grad(truncnorm.cdf)(0.3, -1.0, 2.0), 6)    # d/dx
    np.float64(0.465906)
    """
    z = fnp.clip((x - loc) / scale, a, b)
    upper = fnp.greater(a, 0.0)
    below = fnp.where(upper, special.ndtr(-a) - special.ndtr(-z), special.ndtr(z) - special.ndtr(a))
    # 1 exactly from b up (the two masses may round apart, as float32 and float64)
    return fnp.where(z >= b, 1.0, fnp.clip(below / _mass(a, b), 0.0, 1.0))


def logcdf(x, a, b, loc=0.0, scale=1.0):
    """The log of the distribution function at ``x``: ``scipy.stats.truncnorm.logcdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import truncnorm
    >>> round(truncnorm.logcdf(0.3, -1.0, 2.0), 6)
    np.float64(-0.577981)
    >>> round(fg.grad(truncnorm.logcdf)(0.3, -1.0, 2.0), 6)    # d/dx
    np.float64(0.830447)
    """
    return _log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0.0, scale=1.0):
    """The survival function at ``x``, P(X > x) = 1 - cdf(x): ``scipy.stats.truncnorm.sf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import truncnorm
    >>> round(truncnorm.sf(0.3, -1.0, 2.0), 6)
    np.float64(0.43897)
    >>> round(fg.grad(truncnorm.sf)(0.3, -1.0, 2.0), 6)    # d/dx
    np.float64(-0.465906)
    """
    return cdf(-x, -b, -a, -loc, scale)


def logsf(x, a, b, loc=0.0, scale=1.0):
    """The log of the survival function at ``x``: ``scipy.stats.truncnorm.logsf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import truncnorm
    >>> round(truncnorm.logsf(0.3, -1.0, 2.0), 6)
    np.float64(-0.823324)
    >>> round(fg.grad(truncnorm.logsf)(0.3, -1.0, 2.0), 6)    # d/dx
    np.float64(-1.061361)
    """
    return _log(sf(x, a, b, loc, scale))


def _log(p):
    """``log(p)``, -inf at 0 without a warning (outside the support), as SciPy's."""
    positive = p > 0.0
    return fnp.where(
        positive, fnp.log(fnp.where(positive, p, 1.0)), fnp.where(fnp.isnan(p), p, -math.inf)
    )


scipys_results(globals())


def __dir__():
    return list(__all__)
