"""``scipy.stats.uniform``: the uniform distribution on ``[loc, loc + scale]``,
differentiable in ``x``, ``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.2, 2.0), scipy.stats.uniform.logpdf(1.3, 0.2, 2.0)))
True
"""

from ... import numpy as fnp
from ._common import on_support, standardize

__all__ = ["logpdf", "pdf", "cdf", "ppf"]


def logpdf(x, loc=0.0, scale=1.0):
    z, log_scale = standardize(x, loc, scale)
    return on_support((z >= 0) & (z <= 1), z, 0.5, lambda z: 0.0 * z - log_scale)


def pdf(x, loc=0.0, scale=1.0):
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    return fnp.clip((x - loc) / scale, 0.0, 1.0)


def ppf(q, loc=0.0, scale=1.0):
    return fnp.where((q >= 0) & (q <= 1), loc + q * scale, fnp.nan)
