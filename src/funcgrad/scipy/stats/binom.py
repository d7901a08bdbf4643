"""``scipy.stats.binom``: successes in ``n`` trials, differentiable in the probability
``p`` (and in ``n``, through the Gamma function).

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpmf(3, 10, 0.3), scipy.stats.binom.logpmf(3, 10, 0.3)))
True
"""

from ... import numpy as fnp
from .. import special
from ._common import scipys_results
from ._discrete import log_choose, on_whole

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """The log of the probability of ``k``: ``scipy.stats.binom.logpmf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import binom
    >>> round(binom.logpmf(3, 10, 0.4), 6)
    np.float64(-1.53716)
    >>> round(fg.grad(binom.logpmf, argnums=2)(3, 10, 0.4), 6)    # d/dp
    np.float64(-4.166667)
    """

    def log_p(k):
        return log_choose(n, k) + special.xlogy(k, p) + special.xlog1py(n - k, -p)

    return on_whole(fnp.subtract(k, loc), 0.0, n, log_p)


def pmf(k, n, p, loc=0):
    """The probability of ``k``: ``scipy.stats.binom.pmf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import binom
    >>> round(binom.pmf(3, 10, 0.4), 6)
    np.float64(0.214991)
    >>> round(fg.grad(binom.pmf, argnums=2)(3, 10, 0.4), 6)    # d/dp
    np.float64(-0.895795)
    """
    return fnp.exp(logpmf(k, n, p, loc))


scipys_results(globals())


def __dir__():
    return list(__all__)
