"""``scipy.stats.pareto``: the Pareto distribution, differentiable in ``x``, the shape ``b``,
``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(2.3, 1.5, 0.2, 1.1), scipy.stats.pareto.logpdf(2.3, 1.5, 0.2, 1.1)))
True
"""

from ... import numpy as fnp
from ._common import on_support, standardize

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x, b, loc=0.0, scale=1.0):
    z, log_scale = standardize(x, loc, scale)
    return on_support(z >= 1, z, 2.0, lambda z: fnp.log(b) - (b + 1) * fnp.log(z) - log_scale)


def pdf(x, b, loc=0.0, scale=1.0):
    return fnp.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return fnp.where(z >= 1, 1.0 - fnp.maximum(z, 1.0) ** -b, 0.0)
