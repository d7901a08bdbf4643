"""``scipy.stats.t``: Student's t distribution, differentiable in ``x``, ``df``, ``loc``,
``scale`` (its ``cdf`` in ``x``, ``loc`` and ``scale`` only).

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(0.3, 4.0, 1.0, 2.0), scipy.stats.t.logpdf(0.3, 4.0, 1.0, 2.0)))
True
>>> bool(np.isclose(cdf(-0.7, 3.0), scipy.stats.t.cdf(-0.7, 3.0)))
True
"""

import math

from ... import numpy as fnp
from .. import special
from ._common import standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf"]


def logpdf(x, df, loc=0.0, scale=1.0):
    z, log_scale = standardize(x, loc, scale)
    return (
        special.gammaln(0.5 * (df + 1.0))
        - special.gammaln(0.5 * df)
        - 0.5 * fnp.log(df * math.pi)
        - log_scale
        - 0.5 * (df + 1.0) * fnp.log1p(z * z / df)
    )


def pdf(x, df, loc=0.0, scale=1.0):
    return fnp.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    tail = 0.5 * special.betainc(0.5 * df, 0.5, df / (df + z * z))  # P(T < -|z|)
    return fnp.where(z < 0, tail, 1.0 - tail)


def logcdf(x, df, loc=0.0, scale=1.0):
    return fnp.log(cdf(x, df, loc, scale))
