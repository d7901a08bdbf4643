"""``scipy.stats.betabinom``: successes in ``n`` trials with a Beta(a, b) probability,
differentiable in ``a`` and ``b``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpmf(3, 10, 2.0, 1.5), scipy.stats.betabinom.logpmf(3, 10, 2.0, 1.5)))
True
"""

from ... import numpy as fnp
from .. import special
from ._common import scipys_results
from ._discrete import log_choose, on_whole

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, a, b, loc=0):
    """The log of the probability of ``k``: ``scipy.stats.betabinom.logpmf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import betabinom
    >>> round(betabinom.logpmf(3, 10, 2.0, 3.0), 6)
    np.float64(-1.938941)
    >>> round(fg.grad(betabinom.logpmf, argnums=2)(3, 10, 2.0, 3.0), 7)    # d/da
    np.float64(-0.0848957)
    """

    def log_p(k):
        return log_choose(n, k) + special.betaln(k + a, n - k + b) - special.betaln(a, b)

    return on_whole(fnp.subtract(k, loc), 0.0, n, log_p)


def pmf(k, n, a, b, loc=0):
    """The probability of ``k``: ``scipy.stats.betabinom.pmf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import betabinom
    >>> round(betabinom.pmf(3, 10, 2.0, 3.0), 6)
    np.float64(0.143856)
    >>> round(fg.grad(betabinom.pmf, argnums=2)(3, 10, 2.0, 3.0), 7)    # d/da
    np.float64(-0.0122128)
    """
    return fnp.exp(logpmf(k, n, a, b, loc))


scipys_results(globals())


def __dir__():
    return list(__all__)
