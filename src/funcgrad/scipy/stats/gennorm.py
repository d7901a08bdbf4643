"""``scipy.stats.gennorm``: the generalized normal distribution of shape ``beta`` (1:
Laplace, 2: normal), differentiable in ``x``, ``beta``, ``loc`` and ``scale`` (its cdf in
``x``, ``loc`` and ``scale``).

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(0.7, 1.5, 0.1, 2.0), scipy.stats.gennorm.logpdf(0.7, 1.5, 0.1, 2.0)))
True
"""

import math

from ... import numpy as fnp
from .. import special
from ._common import standardize

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x, beta, loc=0.0, scale=1.0):
    z, log_scale = standardize(x, loc, scale)
    return (
        fnp.log(beta) - math.log(2.0) - special.gammaln(1.0 / beta) - fnp.abs(z) ** beta - log_scale
    )


def pdf(x, beta, loc=0.0, scale=1.0):
    return fnp.exp(logpdf(x, beta, loc, scale))


def cdf(x, beta, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return 0.5 + 0.5 * fnp.sign(z) * special.gammainc(1.0 / beta, fnp.abs(z) ** beta)
