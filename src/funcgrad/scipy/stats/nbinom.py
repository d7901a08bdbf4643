"""``scipy.stats.nbinom``: failures before the ``n``-th success, differentiable in ``n`` and
the success probability ``p``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpmf(3, 2.5, 0.3), scipy.stats.nbinom.logpmf(3, 2.5, 0.3)))
True
"""

from ... import numpy as fnp
from .. import special
from ._common import scipys_results
from ._discrete import on_whole

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    """The log of the probability of ``k``: ``scipy.stats.nbinom.logpmf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import nbinom
    >>> round(nbinom.logpmf(3, 5, 0.4), 6)
    np.float64(-2.558582)
    >>> fg.grad(nbinom.logpmf, argnums=2)(3, 5, 0.4)    # d/dp
    np.float64(7.5)
    """

    def log_p(k):
        choose = special.gammaln(n + k) - special.gammaln(n) - special.gammaln(k + 1.0)
        return choose + n * fnp.log(p) + special.xlog1py(k, -p)

    return on_whole(fnp.subtract(k, loc), 0.0, None, log_p)


def pmf(k, n, p, loc=0):
    """The probability of ``k``: ``scipy.stats.nbinom.pmf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import nbinom
    >>> round(nbinom.pmf(3, 5, 0.4), 7)
    np.float64(0.0774144)
    >>> round(fg.grad(nbinom.pmf, argnums=2)(3, 5, 0.4), 6)    # d/dp
    np.float64(0.580608)
    """
    return fnp.exp(logpmf(k, n, p, loc))


scipys_results(globals())


def __dir__():
    return list(__all__)
