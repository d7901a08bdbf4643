"""``scipy.stats.binom``: successes in ``n`` trials, differentiable in the probability
``p`` (and in ``n``, through the Gamma function).

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpmf(3, 10, 0.3), scipy.stats.binom.logpmf(3, 10, 0.3)))
True
"""

from ... import numpy as fnp
from .. import special
from ._discrete import log_choose, on_whole

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    def log_p(k):
        return log_choose(n, k) + special.xlogy(k, p) + special.xlog1py(n - k, -p)

    return on_whole(fnp.subtract(k, loc), 0.0, n, log_p)


def pmf(k, n, p, loc=0):
    return fnp.exp(logpmf(k, n, p, loc))
