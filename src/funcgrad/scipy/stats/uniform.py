"""``scipy.stats.uniform``: the uniform distribution on ``[loc, loc + scale]``,
differentiable in ``x``, ``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.uniform.logpdf(1.3, 0.2, 2.0)))
True
"""

from ... import numpy as fnp
from ._common import on_support, scipys_results, standardize

__all__ = ["logpdf", "pdf", "cdf", "ppf"]


def logpdf(x, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.uniform.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import uniform
    >>> round(uniform.logpdf(0.3, 0.0, 2.0), 6)
    np.float64(-0.693147)
    >>> fg.grad(uniform.logpdf)(0.3, 0.0, 2.0)    # d/dx
    np.float64(0.0)
    """
    z, log_scale = standardize(x, loc, scale)
    return on_support((z >= 0) & (z <= 1), z, 0.5, lambda z: 0.0 * z - log_scale)


def pdf(x, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.uniform.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import uniform
    >>> uniform.pdf(0.3, 0.0, 2.0)
    np.float64(0.5)
    >>> fg.grad(uniform.pdf)(0.3, 0.0, 2.0)    # d/dx
    np.float64(0.0)
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """The distribution function at ``x``, P(X <= x): ``scipy.stats.uniform.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import uniform
    >>> uniform.cdf(0.3, 0.0, 2.0)
    np.float64(0.15)
    >>> fg.grad(uniform.cdf)(0.3, 0.0, 2.0)    # d/dx
    np.float64(0.5)
    """
    return fnp.clip((x - loc) / scale, 0.0, 1.0)


def ppf(q, loc=0.0, scale=1.0):
    """The quantile function: the ``x`` with cdf(x) = ``q``: ``scipy.stats.uniform.ppf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import uniform
    >>> uniform.ppf(0.3, 0.0, 2.0)
    np.float64(0.6)
    >>> fg.grad(uniform.ppf)(0.3, 0.0, 2.0)    # d/dq
    np.float64(2.0)
    """
    return fnp.where((q >= 0) & (q <= 1), loc + q * scale, fnp.nan)


scipys_results(globals())


def __dir__():
    return list(__all__)
