"""``scipy.stats.wrapcauchy``: the wrapped Cauchy distribution on ``[0, 2 pi]`` with shape
``c`` in ``(0, 1)``, differentiable in ``x``, ``c``, ``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(1.3, 0.4, 0.2), scipy.stats.wrapcauchy.logpdf(1.3, 0.4, 0.2)))
True
"""

import math

from ... import numpy as fnp
from ._common import on_support, scipys_results, standardize

__all__ = ["logpdf", "pdf"]


def logpdf(x, c, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.wrapcauchy.logpdf``'s arguments and
    values, ``log((1 - c^2) / (2 pi (1 + c^2 - 2 c cos z)))`` on ``[0, 2 pi]``.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import wrapcauchy
    >>> round(wrapcauchy.logpdf(1.0, 0.5), 6)
    np.float64(-1.782643)
    >>> round(fg.grad(wrapcauchy.logpdf)(1.0, 0.5), 6)    # d/dx
    np.float64(-1.185675)
    """
    z, log_scale = standardize(x, loc, scale)
    inside = (z >= 0) & (z <= 2.0 * math.pi)
    return on_support(
        inside,
        z,
        1.0,
        lambda z: (
            fnp.log1p(-c * c)
            - math.log(2.0 * math.pi)
            - fnp.log1p(c * c - 2.0 * c * fnp.cos(z))
            - log_scale
        ),
    )


def pdf(x, c, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.wrapcauchy.pdf``'s arguments and values.

    >>> from funcgrad.scipy.stats import wrapcauchy
    >>> round(wrapcauchy.pdf(1.0, 0.5), 6)
    np.float64(0.168193)
    """
    return fnp.exp(logpdf(x, c, loc, scale))


scipys_results(globals())


def __dir__():
    return list(__all__)
