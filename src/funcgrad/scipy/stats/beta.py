"""``scipy.stats.beta``: the beta distribution, differentiable in ``x``, ``a``, ``b``,
``loc`` and ``scale`` (its ``cdf`` in ``x``, ``loc`` and ``scale`` only).

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(0.3, 2.0, 3.5), scipy.stats.beta.logpdf(0.3, 2.0, 3.5)))
True
"""

from ... import numpy as fnp
from .. import special
from ._common import on_support, standardize

__all__ = ["logpdf", "pdf", "cdf"]


def logpdf(x, a, b, loc=0.0, scale=1.0):
    z, log_scale = standardize(x, loc, scale)
    inside = (z >= 0) & (z <= 1)
    return on_support(
        inside,
        z,
        0.5,
        lambda z: (
            special.xlogy(a - 1.0, z)
            + special.xlog1py(b - 1.0, -z)
            - special.betaln(a, b)
            - log_scale
        ),
    )


def pdf(x, a, b, loc=0.0, scale=1.0):
    return fnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return special.betainc(a, b, fnp.clip(z, 0.0, 1.0))
