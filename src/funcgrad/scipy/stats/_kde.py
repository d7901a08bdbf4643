"""``gaussian_kde``: a kernel density estimate with Gaussian kernels, SciPy's and JAX's class.

The estimate is a weighted sum of Gaussians, one on each point of the dataset, with the
data's weighted covariance scaled by the bandwidth factor squared. It is written with
funcgrad.numpy, so it is differentiable in the dataset, the weights and the points where
it is evaluated; the object is a pytree (its dataset and weights the leaves), so it
crosses ``jit`` and ``vmap`` as an argument.
"""

import math

import numpy as np

from ... import numpy as fnp
from ... import random
from ...core.errors import ArgumentError, ShapeError
from ...core.tree import register_pytree_node
from ..special import logsumexp, ndtr

__all__ = ["gaussian_kde"]

_LOG_2PI = math.log(2.0 * math.pi)


class gaussian_kde:
    """``scipy.stats.gaussian_kde(dataset, bw_method=None, weights=None)``: ``dataset`` of
    shape ``(d, n)`` (or ``(n,)`` for one dimension), ``bw_method`` ``"scott"`` (the
    default), ``"silverman"``, a number or a function of the estimate, ``weights`` one
    per point (normalized). ``evaluate``/``pdf``/``logpdf`` at points of shape
    ``(d, m)``, ``integrate_gaussian``, ``integrate_box_1d``, ``integrate_kde`` and
    ``resample(key, shape)`` as in JAX.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.scipy.stats import gaussian_kde
    >>> data = np.array([-1.0, 0.0, 0.5, 2.0])
    >>> kde = gaussian_kde(data)
    >>> kde.pdf(np.array([0.0, 1.0])).round(6)
    array([0.26852 , 0.223548])
    >>> float(kde.integrate_box_1d(-np.inf, np.inf))
    1.0
    >>> fg.grad(lambda d: gaussian_kde(d).logpdf(0.3)[0])(data).round(4)   # in the data
    array([ 0.341 ,  0.158 , -0.0971, -0.2882])
    """

    def __init__(self, dataset, bw_method=None, weights=None):
        dataset = fnp.atleast_2d(dataset)
        if fnp.ndim(dataset) != 2 or np.shape(dataset)[1] < 2:
            raise ShapeError(
                f"gaussian_kde: the dataset must be (d, n) with n > 1 points; got shape "
                f"{np.shape(dataset)}"
            )
        self.d, self.n = np.shape(dataset)
        if weights is None:
            weights = fnp.full(self.n, 1.0 / self.n)
        else:
            weights = fnp.atleast_1d(fnp.asarray(weights))
            if np.shape(weights) != (self.n,):
                raise ShapeError(
                    f"gaussian_kde: weights must be one per point, shape ({self.n},); got "
                    f"{np.shape(weights)}"
                )
            weights = weights / fnp.sum(weights)
        self.dataset, self.weights = dataset, weights
        self.bw_method = bw_method
        self._settle()

    def _settle(self):
        """The bandwidth and the kernels' covariance, from the data and the weights."""
        self.neff = 1.0 / fnp.sum(self.weights**2)
        self.factor = self._factor()
        mean = fnp.sum(self.dataset * self.weights, axis=1, keepdims=True)
        centred = self.dataset - mean
        data_cov = (centred * self.weights) @ centred.T / (1.0 - fnp.sum(self.weights**2))
        self.covariance = data_cov * self.factor**2
        self.inv_cov = fnp.linalg.inv(self.covariance)
        self._log_norm = -0.5 * (self.d * _LOG_2PI + fnp.linalg.slogdet(self.covariance)[1])

    def _factor(self):
        method, d = self.bw_method, self.d
        if method is None or method == "scott":
            return self.neff ** (-1.0 / (d + 4))
        if method == "silverman":
            return (self.neff * (d + 2) / 4.0) ** (-1.0 / (d + 4))
        if callable(method):
            return method(self)
        if isinstance(method, str):
            raise ArgumentError(
                f"gaussian_kde: bw_method {method!r} is not 'scott' or 'silverman'; give one "
                f"of those, a number or a function of the estimate"
            )
        return fnp.asarray(method)

    def scotts_factor(self):
        """Scott's factor, ``neff ** (-1 / (d + 4))``."""
        return self.neff ** (-1.0 / (self.d + 4))

    def silverman_factor(self):
        """Silverman's factor, ``(neff (d + 2) / 4) ** (-1 / (d + 4))``."""
        return (self.neff * (self.d + 2) / 4.0) ** (-1.0 / (self.d + 4))

    covariance_factor = scotts_factor

    def _points(self, points):
        points = fnp.atleast_2d(points)
        d, m = np.shape(points)
        if d != self.d:
            if d == 1 and m == self.d:  # one point given as a vector
                return fnp.reshape(points, (self.d, 1))
            raise ShapeError(
                f"gaussian_kde: points have dimension {d}, the dataset {self.d}; give them as "
                f"({self.d}, m)"
            )
        return points

    def _log_kernels(self, points, inv_cov, log_norm, centres):
        """``log N(points_j; centres_i, cov)`` for each pair, shape (n, m)."""
        diff = centres[:, :, None] - points[:, None, :]
        return log_norm - 0.5 * fnp.einsum("inm,ij,jnm->nm", diff, inv_cov, diff)

    def logpdf(self, points):
        """The log density at each point, without underflow."""
        points = self._points(points)
        logs = self._log_kernels(points, self.inv_cov, self._log_norm, self.dataset)
        return logsumexp(logs + fnp.log(self.weights)[:, None], axis=0)

    def evaluate(self, points):
        """The density at each point (``(d, m)`` points: ``m`` values)."""
        points = self._points(points)
        kernels = fnp.exp(self._log_kernels(points, self.inv_cov, self._log_norm, self.dataset))
        return fnp.sum(kernels * self.weights[:, None], axis=0)

    __call__ = pdf = evaluate

    def integrate_gaussian(self, mean, cov):
        """The integral of the estimate times the Gaussian ``N(mean, cov)``."""
        mean, cov = fnp.atleast_1d(mean), fnp.atleast_2d(cov)
        if np.shape(mean) != (self.d,) or np.shape(cov) != (self.d, self.d):
            raise ShapeError(
                f"gaussian_kde.integrate_gaussian: mean must be ({self.d},) and cov "
                f"({self.d}, {self.d}); got {np.shape(mean)} and {np.shape(cov)}"
            )
        total = self.covariance + cov
        log_norm = -0.5 * (self.d * _LOG_2PI + fnp.linalg.slogdet(total)[1])
        logs = self._log_kernels(
            fnp.reshape(mean, (self.d, 1)), fnp.linalg.inv(total), log_norm, self.dataset
        )
        return fnp.sum(fnp.exp(logs[:, 0]) * self.weights)

    def integrate_box_1d(self, low, high):
        """The mass between ``low`` and ``high`` (one-dimensional estimates only)."""
        if self.d != 1:
            raise ShapeError(
                f"gaussian_kde.integrate_box_1d: the estimate has {self.d} dimensions; it "
                f"integrates one-dimensional ones"
            )
        stdev = fnp.sqrt(self.covariance[0, 0])
        upper = ndtr((high - self.dataset[0]) / stdev)
        lower = ndtr((low - self.dataset[0]) / stdev)
        return fnp.sum(self.weights * (upper - lower))

    def integrate_kde(self, other):
        """The integral of the product of this estimate and ``other``."""
        if other.d != self.d:
            raise ShapeError(
                f"gaussian_kde.integrate_kde: the estimates have {self.d} and {other.d} "
                f"dimensions; they must have the same"
            )
        total = self.covariance + other.covariance
        log_norm = -0.5 * (self.d * _LOG_2PI + fnp.linalg.slogdet(total)[1])
        logs = self._log_kernels(other.dataset, fnp.linalg.inv(total), log_norm, self.dataset)
        return fnp.sum(fnp.exp(logs) * self.weights[:, None] * other.weights[None, :])

    def resample(self, key, shape=()):
        """``shape`` new points drawn from the estimate: an array of shape ``(d, *shape)``."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        k1, k2 = random.split(key)
        picks = random.choice(k1, self.n, shape, p=self.weights)
        noise = random.multivariate_normal(k2, fnp.zeros(self.d), self.covariance, shape)
        return fnp.moveaxis(noise, -1, 0) + fnp.take(self.dataset, picks, axis=1)

    def __repr__(self):
        return f"gaussian_kde(d={self.d}, n={self.n})"


_LEAVES = ("dataset", "weights", "neff", "factor", "covariance", "inv_cov", "_log_norm")


def _flatten(kde):
    # every derived value is a leaf too, so unflattening computes nothing (vmap and jit
    # unflatten with placeholders and axis numbers)
    return tuple(getattr(kde, name) for name in _LEAVES), (kde.d, kde.n, kde.bw_method)


def _unflatten(aux, children):
    kde = object.__new__(gaussian_kde)
    kde.d, kde.n, kde.bw_method = aux
    for name, value in zip(_LEAVES, children):
        setattr(kde, name, value)
    return kde


register_pytree_node(gaussian_kde, _flatten, _unflatten)
