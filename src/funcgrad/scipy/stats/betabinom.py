"""``scipy.stats.betabinom``: successes in ``n`` trials with a Beta(a, b) probability,
differentiable in ``a`` and ``b``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpmf(3, 10, 2.0, 1.5), scipy.stats.betabinom.logpmf(3, 10, 2.0, 1.5)))
True
"""

from ... import numpy as fnp
from .. import special
from ._discrete import log_choose, on_whole

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, a, b, loc=0):
    def log_p(k):
        return log_choose(n, k) + special.betaln(k + a, n - k + b) - special.betaln(a, b)

    return on_whole(fnp.subtract(k, loc), 0.0, n, log_p)


def pmf(k, n, a, b, loc=0):
    return fnp.exp(logpmf(k, n, a, b, loc))
