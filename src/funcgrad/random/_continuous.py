"""Continuous distributions drawn from a standard one and transformed in funcgrad's
functions, so the numbers are differentiable in their location, scale and shape (the
reparameterization)."""

from typing import Any

import numpy as np

from .. import numpy as fnp
from ..core.values import plain
from ._draws import checked_shape, draw, float_dtype, is_number, standard
from ._families import gamma
from ._keys import split

__all__ = [
    "uniform",
    "normal",
    "truncated_normal",
    "exponential",
    "gumbel",
    "laplace",
    "logistic",
    "multivariate_normal",
    "lognormal",
    "cauchy",
    "pareto",
    "rayleigh",
    "weibull_min",
    "maxwell",
    "double_sided_maxwell",
    "triangular",
    "orthogonal",
    "ball",
    "generalized_normal",
]


def uniform(
    k: Any, shape: Any = (), dtype: Any = float, minval: Any = 0.0, maxval: Any = 1.0
) -> Any:
    """Numbers uniform in [minval, maxval), differentiable in ``minval`` and ``maxval``.

    >>> import funcgrad as fg
    >>> k = fg.random.key(0)
    >>> x = fg.random.uniform(k, (1000,), minval=2.0, maxval=3.0)
    >>> x.shape, bool(((2.0 <= x) & (x < 3.0)).all())
    ((1000,), True)
    >>> d = fg.grad(lambda hi: fg.random.uniform(k, minval=0.0, maxval=hi))(2.0)
    >>> bool(d == fg.random.uniform(k))    # d/dmaxval of maxval * u is u
    True
    """
    u = standard(k, "uniform", shape, dtype)
    if is_number(minval, 0.0) and is_number(maxval, 1.0):
        return u
    return minval + (maxval - minval) * u


def normal(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard normal numbers (scale and shift them: ``mu + sigma * normal(k)``).

    >>> import funcgrad as fg
    >>> k = fg.random.key(0)
    >>> x = fg.random.normal(k, (10000,))
    >>> x.dtype, bool(abs(x.mean()) < 0.05), bool(abs(x.std() - 1.0) < 0.05)
    (dtype('float64'), True, True)
    """
    return standard(k, "normal", shape, dtype)


def truncated_normal(k: Any, lower: Any, upper: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Standard normals conditioned on [lower, upper] (bounds broadcast to ``shape``).

    >>> import funcgrad as fg
    >>> x = fg.random.truncated_normal(fg.random.key(0), -1.0, 2.0, (1000,))
    >>> bool(((-1.0 <= x) & (x <= 2.0)).all())
    True
    """
    who = "fg.random.truncated_normal"
    if shape is None:
        shape = np.broadcast_shapes(np.shape(plain(lower)), np.shape(plain(upper)))
    return draw(k, "truncated_normal", shape, float_dtype(dtype, who), lower, upper, who=who)


def exponential(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Exponential numbers of rate 1.

    >>> import funcgrad as fg
    >>> x = fg.random.exponential(fg.random.key(0), (10000,))
    >>> bool((x >= 0).all()), bool(abs(x.mean() - 1.0) < 0.05)
    (True, True)
    """
    return standard(k, "exponential", shape, dtype)


def gumbel(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard Gumbel numbers (the noise of the Gumbel-max trick).

    >>> import funcgrad as fg
    >>> fg.random.gumbel(fg.random.key(0), (2, 3)).shape
    (2, 3)
    """
    return standard(k, "gumbel", shape, dtype)


def laplace(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard Laplace numbers.

    >>> import numpy as np, funcgrad as fg
    >>> x = fg.random.laplace(fg.random.key(0), (10000,))
    >>> bool(abs(np.median(x)) < 0.05)
    True
    """
    return standard(k, "laplace", shape, dtype)


def logistic(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard logistic numbers.

    >>> import numpy as np, funcgrad as fg
    >>> x = fg.random.logistic(fg.random.key(0), (10000,))
    >>> bool(abs(np.median(x)) < 0.05)
    True
    """
    return standard(k, "logistic", shape, dtype)


def multivariate_normal(k: Any, mean: Any, cov: Any, shape: Any = None) -> Any:
    """Normal vectors of mean ``mean`` and covariance ``cov`` (its Cholesky factor times
    standard normals: differentiable in both).

    >>> import numpy as np, funcgrad as fg
    >>> fg.random.multivariate_normal(fg.random.key(0), np.zeros(2), np.eye(2), (5,)).shape
    (5, 2)
    """
    who = "fg.random.multivariate_normal"
    n = np.shape(plain(mean))[-1]
    batch = np.shape(plain(mean))[:-1] if shape is None else checked_shape(shape, who)
    z = draw(k, "normal", batch + (n,), "<f8", who=who)
    return mean + fnp.einsum("...ij,...j->...i", fnp.linalg.cholesky(cov), z)


def lognormal(k: Any, sigma: Any = 1.0, shape: Any = None, dtype: Any = float) -> Any:
    """``exp(sigma * normal)``: log-normal numbers (differentiable in ``sigma``).

    >>> import funcgrad as fg
    >>> bool((fg.random.lognormal(fg.random.key(0), 0.5, (4,)) > 0).all())
    True
    """
    shape = np.shape(plain(sigma)) if shape is None else shape
    return fnp.exp(sigma * normal(k, shape, dtype))


def cauchy(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard Cauchy numbers (``tan(pi * (u - 1/2))``).

    >>> import funcgrad as fg
    >>> fg.random.cauchy(fg.random.key(0), (3,)).shape
    (3,)
    """
    return fnp.tan(np.pi * (uniform(k, shape, dtype) - 0.5))


def pareto(k: Any, b: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Pareto numbers of shape ``b`` on ``[1, inf)``: ``exp(exponential / b)``
    (differentiable in ``b``).

    >>> import funcgrad as fg
    >>> bool((fg.random.pareto(fg.random.key(0), 3.0, (5,)) >= 1.0).all())
    True
    """
    shape = np.shape(plain(b)) if shape is None else shape
    return fnp.exp(exponential(k, shape, dtype) / b)


def rayleigh(k: Any, scale: Any = 1.0, shape: Any = None, dtype: Any = float) -> Any:
    """Rayleigh numbers: ``scale * sqrt(2 * exponential)``.

    >>> import funcgrad as fg
    >>> fg.random.rayleigh(fg.random.key(0), 2.0, (3,)).shape
    (3,)
    """
    shape = np.shape(plain(scale)) if shape is None else shape
    return scale * fnp.sqrt(2.0 * exponential(k, shape, dtype))


def weibull_min(k: Any, scale: Any, concentration: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Weibull numbers: ``scale * exponential ** (1 / concentration)``.

    >>> import funcgrad as fg
    >>> bool((fg.random.weibull_min(fg.random.key(0), 1.0, 2.0, (4,)) > 0).all())
    True
    """
    return scale * exponential(k, shape, dtype) ** (1.0 / concentration)


def maxwell(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Maxwell numbers: the length of a standard normal 3-vector.

    >>> import funcgrad as fg
    >>> fg.random.maxwell(fg.random.key(0), (2,)).shape
    (2,)
    """
    return fnp.sqrt(
        fnp.sum(
            normal(k, tuple(checked_shape(shape, "fg.random.maxwell")) + (3,), dtype) ** 2, axis=-1
        )
    )


def double_sided_maxwell(k: Any, loc: Any, scale: Any, shape: Any = (), dtype: Any = float) -> Any:
    """``loc + scale * sign * maxwell``, the sign a fair coin.

    >>> import funcgrad as fg
    >>> fg.random.double_sided_maxwell(fg.random.key(0), 0.0, 1.0, (3,)).shape
    (3,)
    """
    k1, k2 = split(k)
    sign = fnp.where(uniform(k2, shape) < 0.5, -1.0, 1.0)
    return loc + scale * sign * maxwell(k1, shape, dtype)


def triangular(
    k: Any, left: Any, mode: Any, right: Any, shape: Any = None, dtype: Any = float
) -> Any:
    """Triangular numbers on ``[left, right]`` peaking at ``mode``, by the inverse of the
    distribution function (differentiable in the three).

    >>> import funcgrad as fg
    >>> x = fg.random.triangular(fg.random.key(0), 0.0, 1.0, 3.0, (100,))
    >>> bool((x >= 0.0).all() and (x <= 3.0).all())
    True
    """
    if shape is None:
        shape = np.broadcast_shapes(*(np.shape(plain(v)) for v in (left, mode, right)))
    u = uniform(k, shape, dtype)
    width = right - left
    cut = (mode - left) / width
    low = left + fnp.sqrt(u * width * (mode - left))
    high = right - fnp.sqrt((1.0 - u) * width * (right - mode))
    return fnp.where(u < cut, low, high)


def orthogonal(k: Any, n: int, shape: Any = (), dtype: Any = float) -> Any:
    """Orthogonal ``n x n`` matrices drawn uniformly (Haar): the Q of a normal matrix's
    QR factorisation, its columns' signs fixed by R's diagonal.

    >>> import numpy as np, funcgrad as fg
    >>> q = fg.random.orthogonal(fg.random.key(0), 3)
    >>> bool(np.allclose(q @ q.T, np.eye(3)))
    True
    """
    z = normal(k, tuple(checked_shape(shape, "fg.random.orthogonal")) + (n, n), dtype)
    q, r = fnp.linalg.qr(z)
    return q * fnp.sign(fnp.diagonal(r, axis1=-2, axis2=-1))[..., None, :]


def ball(k: Any, d: int, p: float = 2, shape: Any = (), dtype: Any = float) -> Any:
    """Points uniform in the unit ``p``-norm ball of ``d`` dimensions.

    >>> import numpy as np, funcgrad as fg
    >>> x = fg.random.ball(fg.random.key(0), 3, shape=(50,))
    >>> x.shape, bool((np.linalg.norm(x, axis=-1) <= 1.0).all())
    ((50, 3), True)
    """
    k1, k2 = split(k)
    shape = tuple(checked_shape(shape, "fg.random.ball"))
    g = generalized_normal(k1, p, shape + (d,), dtype)
    e = exponential(k2, shape, dtype)
    return g / (fnp.sum(fnp.abs(g) ** p, axis=-1) + e)[..., None] ** (1.0 / p)


def generalized_normal(k: Any, p: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Numbers of density proportional to ``exp(-|x|**p)``: a gamma number of shape
    ``1/p`` to the power ``1/p``, with a random sign.

    >>> import funcgrad as fg
    >>> fg.random.generalized_normal(fg.random.key(0), 2.0, (3,)).shape
    (3,)
    """
    k1, k2 = split(k)
    g = gamma(k1, 1.0 / p, shape, dtype)
    return fnp.where(uniform(k2, shape) < 0.5, -1.0, 1.0) * g ** (1.0 / p)
