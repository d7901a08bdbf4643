"""``scipy.stats.dirichlet``: the Dirichlet distribution, differentiable in ``x`` and
``alpha``. As in SciPy, the components run along the first axis of ``x``: shape (k,) for
one point, (k, n) for n points.

>>> import numpy as np, scipy.stats
>>> x, alpha = np.array([0.2, 0.3, 0.5]), np.array([1.5, 2.0, 3.0])
>>> bool(np.isclose(logpdf(x, alpha), scipy.stats.dirichlet.logpdf(x, alpha)))
True
"""

import scipy.stats

from ... import numpy as fnp
from .. import special
from ._common import scipys_results

__all__ = ["logpdf", "pdf", "rvs"]


def logpdf(x, alpha):
    """The log of the density at ``x``: ``scipy.stats.dirichlet.logpdf``'s arguments and values.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import dirichlet
    >>> round(dirichlet.logpdf(np.array([0.2, 0.3, 0.5]), np.array([1.0, 2.0, 3.0])), 6)
    np.float64(1.504077)
    >>> fg.grad(dirichlet.logpdf)(np.array([0.2, 0.3, 0.5]), np.array([1.0, 2.0, 3.0]))    # d/dx
    array([0.        , 3.33333333, 4.        ])
    """
    alpha_ = fnp.reshape(alpha, fnp.shape(alpha) + (1,) * (fnp.ndim(x) - 1))
    norm = fnp.sum(special.gammaln(alpha)) - special.gammaln(fnp.sum(alpha))
    return fnp.sum(special.xlogy(alpha_ - 1.0, x), axis=0) - norm


def pdf(x, alpha):
    """The density at ``x``: ``scipy.stats.dirichlet.pdf``'s arguments and values.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import dirichlet
    >>> round(dirichlet.pdf(np.array([0.2, 0.3, 0.5]), np.array([1.0, 2.0, 3.0])), 6)
    np.float64(4.5)
    >>> fg.grad(dirichlet.pdf)(np.array([0.2, 0.3, 0.5]), np.array([1.0, 2.0, 3.0]))    # d/dx
    array([ 0., 15., 18.])
    """
    return fnp.exp(logpdf(x, alpha))


rvs = scipy.stats.dirichlet.rvs  # sampling has no derivative: SciPy's own


scipys_results(globals())


def __dir__():
    return list(__all__)
