"""``scipy.stats.bernoulli``: one trial, differentiable in the success probability ``p``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpmf(1, 0.3), scipy.stats.bernoulli.logpmf(1, 0.3)))
True
"""

import numpy as np

from ... import numpy as fnp
from .. import special
from ._discrete import on_whole

__all__ = ["logpmf", "pmf", "cdf", "ppf"]


def logpmf(k, p, loc=0):
    return on_whole(
        fnp.subtract(k, loc), 0.0, 1.0, lambda k: special.xlogy(k, p) + special.xlog1py(1.0 - k, -p)
    )


def pmf(k, p, loc=0):
    return fnp.exp(logpmf(k, p, loc))


def cdf(k, p, loc=0):
    k = fnp.subtract(k, loc)
    return fnp.where(k < 0, 0.0, fnp.where(k < 1, 1.0 - p, 1.0))


def ppf(q, p, loc=0):
    return fnp.where(fnp.logical_or(q < 0, q > 1), np.nan, fnp.where(q <= 1.0 - p, 0.0, 1.0) + loc)
