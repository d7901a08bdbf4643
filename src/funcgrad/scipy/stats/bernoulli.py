"""``scipy.stats.bernoulli``: one trial, differentiable in the success probability ``p``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpmf(1, 0.3), scipy.stats.bernoulli.logpmf(1, 0.3)))
True
"""

import numpy as np

from ... import numpy as fnp
from .. import special
from ._common import scipys_results
from ._discrete import on_whole

__all__ = ["logpmf", "pmf", "cdf", "ppf"]


def logpmf(k, p, loc=0):
    """The log of the probability of ``k``: ``scipy.stats.bernoulli.logpmf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import bernoulli
    >>> round(bernoulli.logpmf(1, 0.3), 6)
    np.float64(-1.203973)
    >>> round(fg.grad(bernoulli.logpmf, argnums=1)(1, 0.3), 6)    # d/dp
    np.float64(3.333333)
    """
    return on_whole(
        fnp.subtract(k, loc), 0.0, 1.0, lambda k: special.xlogy(k, p) + special.xlog1py(1.0 - k, -p)
    )


def pmf(k, p, loc=0):
    """The probability of ``k``: ``scipy.stats.bernoulli.pmf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import bernoulli
    >>> bernoulli.pmf(1, 0.3)
    np.float64(0.3)
    >>> fg.grad(bernoulli.pmf, argnums=1)(1, 0.3)    # d/dp
    np.float64(1.0)
    """
    return fnp.exp(logpmf(k, p, loc))


def cdf(k, p, loc=0):
    """The distribution function at ``k``, P(X <= k): ``scipy.stats.bernoulli.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import bernoulli
    >>> bernoulli.cdf(1, 0.3)
    np.float64(1.0)
    >>> fg.grad(bernoulli.cdf, argnums=1)(1, 0.3)    # d/dp
    np.float64(-0.0)
    """
    k = fnp.subtract(k, loc)
    value = fnp.where(k < 0, 0.0, fnp.where(k < 1, 1.0 - p, 1.0))
    return fnp.where(fnp.isnan(k), k, value)  # a NaN stays NaN, as SciPy's


def ppf(q, p, loc=0):
    """The quantile function: the ``x`` with cdf(x) = ``q``: ``scipy.stats.bernoulli.ppf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import bernoulli
    >>> bernoulli.ppf(0.3, 0.3)
    np.float64(0.0)
    >>> fg.grad(bernoulli.ppf)(0.3, 0.3)    # d/dq
    np.float64(0.0)
    """
    # SciPy's: one below the support at q = 0, NaN outside [0, 1] and for a NaN
    value = fnp.where(q == 0, -1.0, fnp.where(q <= 1.0 - p, 0.0, 1.0)) + loc
    return fnp.where(fnp.logical_and(q >= 0, q <= 1), value, np.nan)


scipys_results(globals())


def __dir__():
    return list(__all__)
