"""``scipy.stats.gamma``: the gamma distribution with shape ``a``, differentiable in ``x``,
``a``, ``loc`` and ``scale`` (its ``cdf`` not in ``a``).

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 2.5, 0.0, 2.0), scipy.stats.gamma.logpdf(1.3, 2.5, 0.0, 2.0)))
True
>>> float(logpdf(-1.0, 2.0))
-inf
"""

from ... import numpy as fnp
from .. import special
from ._common import log_of, on_support, scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf", "sf", "logcdf", "logsf"]


def logpdf(x, a, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.gamma.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gamma
    >>> round(gamma.logpdf(2.0, 3.0), 6)
    np.float64(-1.306853)
    >>> fg.grad(gamma.logpdf)(2.0, 3.0)    # d/dx
    np.float64(0.0)
    """
    z, log_scale = standardize(x, loc, scale)
    return on_support(
        z >= 0, z, 1.0, lambda z: special.xlogy(a - 1.0, z) - z - special.gammaln(a) - log_scale
    )


def pdf(x, a, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.gamma.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gamma
    >>> round(gamma.pdf(2.0, 3.0), 6)
    np.float64(0.270671)
    >>> fg.grad(gamma.pdf)(2.0, 3.0)    # d/dx
    np.float64(0.0)
    """
    return fnp.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.gamma.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gamma
    >>> round(gamma.cdf(2.0, 3.0), 6)
    np.float64(0.323324)
    >>> round(fg.grad(gamma.cdf)(2.0, 3.0), 6)    # d/dx
    np.float64(0.270671)
    """
    z = (x - loc) / scale
    return special.gammainc(a, fnp.maximum(z, 0.0))


def sf(x, a, loc=0.0, scale=1.0):
    """The survival function at ``x``, P(X > x): ``scipy.stats.gamma.sf``'s arguments and
    values (``gammaincc``, not ``1 - cdf``: exact in the upper tail).

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gamma
    >>> round(gamma.sf(2.0, 3.0), 6)
    np.float64(0.676676)
    >>> round(fg.grad(gamma.sf)(2.0, 3.0), 6)    # d/dx
    np.float64(-0.270671)
    """
    z = (x - loc) / scale
    return special.gammaincc(a, fnp.maximum(z, 0.0))


def logcdf(x, a, loc=0.0, scale=1.0):
    """The log of the distribution function: ``scipy.stats.gamma.logcdf``'s values.

    >>> from funcgrad.scipy.stats import gamma
    >>> round(gamma.logcdf(2.0, 3.0), 6)
    np.float64(-1.129102)
    """
    return log_of(cdf(x, a, loc, scale), sf(x, a, loc, scale))


def logsf(x, a, loc=0.0, scale=1.0):
    """The log of the survival function: ``scipy.stats.gamma.logsf``'s values.

    >>> from funcgrad.scipy.stats import gamma
    >>> round(gamma.logsf(2.0, 3.0), 6)
    np.float64(-0.390562)
    """
    return log_of(sf(x, a, loc, scale), cdf(x, a, loc, scale))


scipys_results(globals())


def __dir__():
    return list(__all__)
