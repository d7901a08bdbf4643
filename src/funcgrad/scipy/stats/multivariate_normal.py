"""``scipy.stats.multivariate_normal``: the multivariate normal, differentiable in ``x``,
``mean`` and ``cov`` (through its Cholesky factor). Points run along the last axis of
``x``; ``cov`` may be a matrix, a vector (its diagonal) or a number (times the identity),
as in SciPy. ``allow_singular=True`` uses the pseudo-inverse and pseudo-determinant over
the eigenvalues SciPy keeps (a singular ``cov`` is differentiable where its nonzero
eigenvalues are distinct); ``entropy`` is ``(d log(2 pi e) + log det cov) / 2``.

>>> import numpy as np, scipy.stats
>>> x, mean = np.array([0.3, -1.0]), np.array([0.0, 0.5])
>>> cov = np.array([[2.0, 0.3], [0.3, 1.0]])
>>> bool(np.isclose(logpdf(x, mean, cov), scipy.stats.multivariate_normal.logpdf(x, mean, cov)))
True
"""

import math

import numpy as np
import scipy.stats

from ... import numpy as fnp
from ...core.values import plain as fg_plain
from ._common import scipys_results

__all__ = ["logpdf", "pdf", "entropy", "rvs"]


def _as_matrix(cov, d):
    ndim = fnp.ndim(cov)
    if ndim == 0:
        return cov * np.eye(d)
    if ndim == 1:
        return fnp.diag(cov)
    return cov


def _singular_logpdf(diff, cov):
    """SciPy's allow_singular density: eigenvalues below its cutoff count as zero."""
    w, v = fnp.linalg.eigh(cov)
    plain = np.asarray(fg_plain(w))
    keep = plain > _cutoff(plain)
    safe = fnp.where(keep, w, 1.0)
    scaled = v * fnp.where(keep, 1.0 / fnp.sqrt(safe), 0.0)
    maha = fnp.sum(fnp.matmul(diff, scaled) ** 2, axis=-1)
    log_pdet = fnp.sum(fnp.where(keep, fnp.log(safe), 0.0))
    rank = int(np.sum(keep))
    return -0.5 * (rank * math.log(2.0 * math.pi) + log_pdet + maha)


def _cutoff(w):
    """SciPy's: eigenvalues at most 1e6 * eps * max|w| are treated as zero (float64)."""
    return 1e6 * np.finfo(np.float64).eps * np.max(np.abs(w))


def logpdf(x, mean=None, cov=1.0, allow_singular=False):
    """The log of the density at ``x``: ``scipy.stats.multivariate_normal.logpdf``'s arguments and values.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import multivariate_normal
    >>> round(multivariate_normal.logpdf(np.array([0.5, -0.2]), np.zeros(2), np.array([[2.0, 0.3], [0.3, 1.0]])), 6)
    np.float64(-2.263523)
    >>> fg.grad(multivariate_normal.logpdf)(np.array([0.5, -0.2]), np.zeros(2), np.array([[2.0, 0.3], [0.3, 1.0]]))    # d/dx
    array([-0.29319372,  0.28795812])
    """
    d = fnp.shape(x)[-1]
    if allow_singular:
        return _singular_logpdf(x if mean is None else x - mean, _as_matrix(cov, d))
    diff = x if mean is None else x - mean
    chol = fnp.linalg.cholesky(_as_matrix(cov, d))
    # Solve L y = diff for every point at once: y = L^-1 diff^T.
    flat = fnp.reshape(diff, (-1, d))
    y = fnp.linalg.solve(chol, fnp.transpose(flat))
    maha = fnp.reshape(fnp.sum(y * y, axis=0), fnp.shape(diff)[:-1])
    log_det = 2.0 * fnp.sum(fnp.log(fnp.diagonal(chol)))
    return -0.5 * (maha + log_det + d * math.log(2.0 * math.pi))


def pdf(x, mean=None, cov=1.0, allow_singular=False):
    """The density at ``x``: ``scipy.stats.multivariate_normal.pdf``'s arguments and values.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import multivariate_normal
    >>> round(multivariate_normal.pdf(np.array([0.5, -0.2]), np.zeros(2), np.array([[2.0, 0.3], [0.3, 1.0]])), 6)
    np.float64(0.103984)
    >>> fg.grad(multivariate_normal.pdf)(np.array([0.5, -0.2]), np.zeros(2), np.array([[2.0, 0.3], [0.3, 1.0]]))    # d/dx
    array([-0.03048731,  0.0299429 ])
    """
    return fnp.exp(logpdf(x, mean, cov, allow_singular))


def entropy(mean=None, cov=1.0):
    """The differential entropy: ``scipy.stats.multivariate_normal.entropy``'s arguments and values.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import multivariate_normal
    >>> round(multivariate_normal.entropy(np.zeros(2), np.array([[2.0, 0.3], [0.3, 1.0]])), 6)
    np.float64(3.161429)
    """
    d = (
        fnp.shape(mean)[-1]
        if mean is not None and fnp.ndim(mean)
        else (fnp.shape(cov)[-1] if fnp.ndim(cov) else 1)
    )
    _, log_det = fnp.linalg.slogdet(_as_matrix(cov, d))
    return 0.5 * (d * math.log(2.0 * math.pi * math.e) + log_det)


rvs = scipy.stats.multivariate_normal.rvs  # sampling has no derivative: SciPy's own


scipys_results(globals())


def __dir__():
    return list(__all__)
