"""``scipy.stats.poisson``: the Poisson distribution, differentiable in the rate ``mu``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpmf(3, 2.5), scipy.stats.poisson.logpmf(3, 2.5)))
True
>>> bool(np.isclose(cdf(3, 2.5), scipy.stats.poisson.cdf(3, 2.5)))
True
"""

import numpy as np

from ... import numpy as fnp
from .. import special
from ._discrete import on_whole

__all__ = ["logpmf", "pmf", "cdf"]


def logpmf(k, mu, loc=0):
    return on_whole(
        fnp.subtract(k, loc),
        0.0,
        None,
        lambda k: special.xlogy(k, mu) - special.gammaln(k + 1.0) - mu,
    )


def pmf(k, mu, loc=0):
    return fnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    k = np.floor(np.asarray(k) - loc)
    return fnp.where(k >= 0, special.gammaincc(np.maximum(k, 0.0) + 1.0, mu), 0.0)
