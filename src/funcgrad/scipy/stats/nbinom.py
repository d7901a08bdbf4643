"""``scipy.stats.nbinom``: failures before the ``n``-th success, differentiable in ``n`` and
the success probability ``p``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpmf(3, 2.5, 0.3), scipy.stats.nbinom.logpmf(3, 2.5, 0.3)))
True
"""

from ... import numpy as fnp
from .. import special
from ._discrete import on_whole

__all__ = ["logpmf", "pmf"]


def logpmf(k, n, p, loc=0):
    def log_p(k):
        choose = special.gammaln(n + k) - special.gammaln(n) - special.gammaln(k + 1.0)
        return choose + n * fnp.log(p) + special.xlog1py(k, -p)

    return on_whole(fnp.subtract(k, loc), 0.0, None, log_p)


def pmf(k, n, p, loc=0):
    return fnp.exp(logpmf(k, n, p, loc))
