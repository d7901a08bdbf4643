"""``scipy.stats.poisson``: the Poisson distribution, differentiable in the rate ``mu``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpmf(3, 2.5), scipy.stats.poisson.logpmf(3, 2.5)))
True
>>> bool(np.isclose(cdf(3, 2.5), scipy.stats.poisson.cdf(3, 2.5)))
True
"""

from ... import numpy as fnp
from .. import special
from ._common import scipys_results
from ._discrete import on_whole

__all__ = ["logpmf", "pmf", "cdf"]


def logpmf(k, mu, loc=0):
    """The log of the probability of ``k``: ``scipy.stats.poisson.logpmf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import poisson
    >>> round(poisson.logpmf(3, 2.5), 6)
    np.float64(-1.542887)
    >>> round(fg.grad(poisson.logpmf, argnums=1)(3, 2.5), 6)    # d/dmu
    np.float64(0.2)
    """
    return on_whole(
        fnp.subtract(k, loc),
        0.0,
        None,
        lambda k: special.xlogy(k, mu) - special.gammaln(k + 1.0) - mu,
    )


def pmf(k, mu, loc=0):
    """The probability of ``k``: ``scipy.stats.poisson.pmf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import poisson
    >>> round(poisson.pmf(3, 2.5), 6)
    np.float64(0.213763)
    >>> round(fg.grad(poisson.pmf, argnums=1)(3, 2.5), 7)    # d/dmu
    np.float64(0.0427526)
    """
    return fnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """The distribution function at ``k``, P(X <= k): ``scipy.stats.poisson.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import poisson
    >>> round(poisson.cdf(3, 2.5), 6)
    np.float64(0.757576)
    >>> round(fg.grad(poisson.cdf, argnums=1)(3, 2.5), 6)    # d/dmu
    np.float64(-0.213763)
    """
    k = fnp.floor(fnp.subtract(k, loc))  # funcgrad.numpy's: k may be traced (under jit)
    below = fnp.where(fnp.isnan(k), k, 0.0)  # a NaN stays NaN, as SciPy's
    return fnp.where(k >= 0, special.gammaincc(fnp.maximum(k, 0.0) + 1.0, mu), below)


scipys_results(globals())


def __dir__():
    return list(__all__)
