"""``scipy.stats.beta``: the beta distribution, differentiable in ``x``, ``a``, ``b``,
``loc`` and ``scale`` (its ``cdf`` in ``x``, ``loc`` and ``scale`` only).

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(0.3, 2.0, 3.5), scipy.stats.beta.logpdf(0.3, 2.0, 3.5)))
True
"""

from ... import numpy as fnp
from .. import special
from ._common import on_support, scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf"]


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


scipys_results(globals())


def __dir__():
    return list(__all__)
