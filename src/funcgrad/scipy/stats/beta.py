"""``scipy.stats.beta``: the beta distribution, differentiable in ``x``, ``a``, ``b``,
``loc`` and ``scale`` (its ``cdf`` in ``x``, ``loc`` and ``scale`` only).

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(0.3, 2.0, 3.5), scipy.stats.beta.logpdf(0.3, 2.0, 3.5)))
True
"""

from ... import numpy as fnp
from .. import special
from ._common import log_of, on_support, scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf", "sf", "logcdf", "logsf"]


def logpdf(x, a, b, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.beta.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import beta
    >>> round(beta.logpdf(0.3, 2.0, 3.5), 6)
    np.float64(0.66118)
    >>> round(fg.grad(beta.logpdf)(0.3, 2.0, 3.5), 6)    # d/dx
    np.float64(-0.238095)
    """
    z, log_scale = standardize(x, loc, scale)
    inside = (z >= 0) & (z <= 1)
    return on_support(
        inside,
        z,
        0.5,
        lambda z: (
            special.xlogy(a - 1.0, z)
            + special.xlog1py(b - 1.0, -z)
            - special.betaln(a, b)
            - log_scale
        ),
    )


def pdf(x, a, b, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.beta.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import beta
    >>> round(beta.pdf(0.3, 2.0, 3.5), 6)
    np.float64(1.937077)
    >>> round(fg.grad(beta.pdf)(0.3, 2.0, 3.5), 6)    # d/dx
    np.float64(-0.461209)
    """
    return fnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.beta.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import beta
    >>> round(beta.cdf(0.3, 2.0, 3.5), 6)
    np.float64(0.411703)
    >>> round(fg.grad(beta.cdf)(0.3, 2.0, 3.5), 6)    # d/dx
    np.float64(1.937077)
    """
    z = (x - loc) / scale
    return special.betainc(a, b, fnp.clip(z, 0.0, 1.0))


def sf(x, a, b, loc=0.0, scale=1.0):
    """The survival function at ``x``: ``scipy.stats.beta.sf``'s values, as
    ``betainc(b, a, 1 - z)`` (the mirror image: exact near ``z = 1``).

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import beta
    >>> round(beta.sf(0.3, 2.0, 3.0), 6)
    np.float64(0.6517)
    >>> round(fg.grad(beta.sf)(0.3, 2.0, 3.0), 6)    # d/dx
    np.float64(-1.764)
    """
    z = (x - loc) / scale
    return special.betainc(b, a, 1.0 - fnp.clip(z, 0.0, 1.0))


def logcdf(x, a, b, loc=0.0, scale=1.0):
    """The log of the distribution function: ``scipy.stats.beta.logcdf``'s values.

    >>> from funcgrad.scipy.stats import beta
    >>> round(beta.logcdf(0.3, 2.0, 3.0), 6)
    np.float64(-1.054691)
    """
    return log_of(cdf(x, a, b, loc, scale), sf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0.0, scale=1.0):
    """The log of the survival function: ``scipy.stats.beta.logsf``'s values.

    >>> from funcgrad.scipy.stats import beta
    >>> round(beta.logsf(0.3, 2.0, 3.0), 6)
    np.float64(-0.428171)
    """
    return log_of(sf(x, a, b, loc, scale), cdf(x, a, b, loc, scale))


scipys_results(globals())


def __dir__():
    return list(__all__)
