"""``scipy.stats.multivariate_normal``: the multivariate normal, differentiable in ``x``,
``mean`` and ``cov`` (through its Cholesky factor). Points run along the last axis of
``x``; ``cov`` may be a matrix, a vector (its diagonal) or a number (times the identity),
as in SciPy.

>>> import numpy as np, scipy.stats
>>> x, mean = np.array([0.3, -1.0]), np.array([0.0, 0.5])
>>> cov = np.array([[2.0, 0.3], [0.3, 1.0]])
>>> bool(np.isclose(logpdf(x, mean, cov), scipy.stats.multivariate_normal.logpdf(x, mean, cov)))
True
"""

import math

import numpy as np

from ... import numpy as fnp

__all__ = ["logpdf", "pdf"]


def _as_matrix(cov, d):
    ndim = fnp.ndim(cov)
    if ndim == 0:
        return cov * np.eye(d)
    if ndim == 1:
        return fnp.diag(cov)
    return cov


def logpdf(x, mean=None, cov=1.0, allow_singular=False):
    if allow_singular:
        raise NotImplementedError(
            "funcgrad.scipy.stats.multivariate_normal.logpdf: allow_singular=True is not "
            "supported; add a small multiple of the identity to cov instead")
    d = fnp.shape(x)[-1]
    diff = x if mean is None else x - mean
    chol = fnp.linalg.cholesky(_as_matrix(cov, d))
    # Solve L y = diff for every point at once: y = L^-1 diff^T.
    flat = fnp.reshape(diff, (-1, d))
    y = fnp.linalg.solve(chol, fnp.transpose(flat))
    maha = fnp.reshape(fnp.sum(y * y, axis=0), fnp.shape(diff)[:-1])
    log_det = 2.0 * fnp.sum(fnp.log(fnp.diagonal(chol)))
    return -0.5 * (maha + log_det + d * math.log(2.0 * math.pi))


def pdf(x, mean=None, cov=1.0, allow_singular=False):
    return fnp.exp(logpdf(x, mean, cov, allow_singular))
