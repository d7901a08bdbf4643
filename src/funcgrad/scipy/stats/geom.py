"""``scipy.stats.geom``: the number of trials up to the first success, differentiable in the
success probability ``p``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpmf(3, 0.3), scipy.stats.geom.logpmf(3, 0.3)))
True
"""

from ... import numpy as fnp
from .. import special
from ._discrete import on_whole

__all__ = ["logpmf", "pmf", "cdf"]


def logpmf(k, p, loc=0):
    return on_whole(
        fnp.subtract(k, loc), 1.0, None, lambda k: special.xlog1py(k - 1.0, -p) + fnp.log(p)
    )


def pmf(k, p, loc=0):
    return fnp.exp(logpmf(k, p, loc))


def cdf(k, p, loc=0):
    k = fnp.floor(fnp.subtract(k, loc))
    return fnp.where(k >= 1, -fnp.expm1(special.xlog1py(fnp.maximum(k, 1.0), -p)), 0.0)
