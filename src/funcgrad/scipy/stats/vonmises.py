"""``scipy.stats.vonmises``: the von Mises distribution on the circle, differentiable in
``x``, the concentration ``kappa``, ``loc`` and ``scale``.

>>> import numpy as np, scipy.stats
>>> bool(np.isclose(logpdf(0.7, 2.5, 0.1), scipy.stats.vonmises.logpdf(0.7, 2.5, 0.1)))
True
"""

import math

from ... import numpy as fnp
from .. import special
from ._common import scipys_results, standardize

__all__ = ["logpdf", "pdf"]


def logpdf(x, kappa, loc=0.0, scale=1.0):
    """The log of the density at ``x``: ``scipy.stats.vonmises.logpdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import vonmises
    >>> round(vonmises.logpdf(0.5, 2.0), 6)
    np.float64(-0.906705)
    >>> round(fg.grad(vonmises.logpdf)(0.5, 2.0), 6)    # d/dx
    np.float64(-0.958851)
    """
    z, log_scale = standardize(x, loc, scale)
    # log I0(kappa) = log i0e(kappa) + kappa, without overflow at large kappa
    return (
        kappa * (fnp.cos(z) - 1.0)
        - math.log(2.0 * math.pi)
        - fnp.log(special.i0e(kappa))
        - log_scale
    )


def pdf(x, kappa, loc=0.0, scale=1.0):
    """The density at ``x``: ``scipy.stats.vonmises.pdf``'s arguments and values.

    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import vonmises
    >>> round(vonmises.pdf(0.5, 2.0), 6)
    np.float64(0.403853)
    >>> round(fg.grad(vonmises.pdf)(0.5, 2.0), 6)    # d/dx
    np.float64(-0.387234)
    """
    return fnp.exp(logpdf(x, kappa, loc, scale))


scipys_results(globals())


def __dir__():
    return list(__all__)
