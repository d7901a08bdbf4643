"""``scipy.stats.geom``: the number of trials up to the first success, differentiable in the
success probability ``p``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpmf(3, 0.3), scipy.stats.geom.logpmf(3, 0.3)))
True
"""

from ... import numpy as fnp
from .. import special
from ._common import scipys_results
from ._discrete import on_whole

__all__ = ["logpmf", "pmf", "cdf"]


def logpmf(k, p, loc=0):
    """The log of the probability of ``k``: ``scipy.stats.geom.logpmf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import geom
    >>> round(geom.logpmf(3, 0.4), 6)
    np.float64(-1.937942)
    >>> round(fg.grad(geom.logpmf, argnums=1)(3, 0.4), 6)    # d/dp
    np.float64(-0.833333)
    """
    return on_whole(
        fnp.subtract(k, loc), 1.0, None, lambda k: special.xlog1py(k - 1.0, -p) + fnp.log(p)
    )


def pmf(k, p, loc=0):
    """The probability of ``k``: ``scipy.stats.geom.pmf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import geom
    >>> geom.pmf(3, 0.4)
    np.float64(0.144)
    >>> fg.grad(geom.pmf, argnums=1)(3, 0.4)    # d/dp
    np.float64(-0.12)
    """
    return fnp.exp(logpmf(k, p, loc))


def cdf(k, p, loc=0):
    """The distribution function at ``k``, P(X <= k): ``scipy.stats.geom.cdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import geom
    >>> geom.cdf(3, 0.4)
    np.float64(0.784)
    >>> round(fg.grad(geom.cdf, argnums=1)(3, 0.4), 6)    # d/dp
    np.float64(1.08)
    """
    k = fnp.floor(fnp.subtract(k, loc))
    below = fnp.where(fnp.isnan(k), k, 0.0)  # a NaN stays NaN, as SciPy's
    return fnp.where(k >= 1, -fnp.expm1(special.xlog1py(fnp.maximum(k, 1.0), -p)), below)


scipys_results(globals())


def __dir__():
    return list(__all__)
