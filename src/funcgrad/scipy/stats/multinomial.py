"""``scipy.stats.multinomial``: counts ``x`` (the last axis) of ``n`` draws with the
probabilities ``p``, differentiable in ``p``.

>>> import numpy as np, scipy.stats
>>> x, p = np.array([1.0, 2.0, 0.0]), np.array([0.2, 0.5, 0.3])
>>> bool(np.isclose(logpmf(x, 3, p), scipy.stats.multinomial.logpmf(x, 3, p)))
True
"""

import numpy as np

from ... import numpy as fnp
from .. import special
from ._common import scipys_results

__all__ = ["logpmf", "pmf"]


def logpmf(x, n, p):
    """The log of the probability of the counts ``x``: ``scipy.stats.multinomial.logpmf``'s
    arguments and values, ``log n! - sum log x_i! + sum x_i log p_i``; -inf where the
    counts are no non-negative integers summing to ``n``.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import multinomial
    >>> x, p = np.array([1.0, 2.0, 0.0]), np.array([0.2, 0.5, 0.3])
    >>> round(multinomial.logpmf(x, 3, p), 6)
    np.float64(-1.89712)
    >>> fg.grad(multinomial.logpmf, argnums=2)(x, 3, p)    # x / p
    array([5., 4., 0.])
    """
    x = fnp.asarray(x)
    counts = (x >= 0) & (fnp.floor(x) == x)
    valid = fnp.all(counts, axis=-1) & (fnp.sum(x, axis=-1) == n)
    safe = fnp.where(counts, x, 0.0)
    terms = special.xlogy(safe, p) - special.gammaln(safe + 1.0)
    value = special.gammaln(n + 1.0) + fnp.sum(terms, axis=-1)
    return fnp.where(valid, value, -np.inf)


def pmf(x, n, p):
    """The probability of the counts ``x``: ``scipy.stats.multinomial.pmf``'s values.

    >>> import numpy as np
    >>> from funcgrad.scipy.stats import multinomial
    >>> round(multinomial.pmf(np.array([1.0, 2.0, 0.0]), 3, np.array([0.2, 0.5, 0.3])), 6)
    np.float64(0.15)
    """
    return fnp.exp(logpmf(x, n, p))


scipys_results(globals())


def __dir__():
    return list(__all__)
