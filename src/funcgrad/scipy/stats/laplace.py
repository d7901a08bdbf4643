"""``scipy.stats.laplace``: the Laplace distribution, differentiable in ``x``, ``loc`` and
``scale`` (at ``x = loc`` the derivative in ``x`` is split, as for abs).

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.laplace.logpdf(1.3, 0.2, 2.0)))
True
"""

import math

from ... import numpy as fnp
from ._common import standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf"]


def logpdf(x, loc=0.0, scale=1.0):
    z, log_scale = standardize(x, loc, scale)
    return -fnp.abs(z) - math.log(2.0) - log_scale


def pdf(x, loc=0.0, scale=1.0):
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return fnp.where(
        z < 0, 0.5 * fnp.exp(fnp.minimum(z, 0.0)), 1.0 - 0.5 * fnp.exp(-fnp.maximum(z, 0.0))
    )


def logcdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return fnp.where(
        z < 0, fnp.minimum(z, 0.0) - math.log(2.0), fnp.log1p(-0.5 * fnp.exp(-fnp.maximum(z, 0.0)))
    )
