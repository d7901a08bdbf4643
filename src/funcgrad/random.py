"""Random numbers as pure functions of an explicit key, in the shape of ``jax.random``.

There is no hidden state: every function takes a key and returns the same
numbers for the same key, in any process. A key is two uint32 words made by
:func:`key` (``PRNGKey`` is its JAX name); :func:`split` and :func:`fold_in`
make new independent keys from one, and a key should be used once. The
numbers come from NumPy's counter-based Philox generator keyed by the key
(:mod:`funcgrad.rules.random`), so they are not JAX's numbers, only its
discipline.

Everything works under the transforms: under ``jit`` the key is an input and
the numbers are drawn when the plan runs; under ``vmap`` a batch of keys gives
one stream per example; under ``grad`` the samples are constants, and a
location or scale written around them (``mu + sigma * normal(key)``, the
reparameterization) is differentiated as usual.

>>> import numpy as np
>>> import funcgrad as fg
>>> k = fg.random.key(42)
>>> k1, k2 = fg.random.split(k)
>>> x = fg.random.normal(k1, (3,))
>>> bool(np.array_equal(x, fg.random.normal(k1, (3,))))       # same key, same numbers
True
>>> fg.random.uniform(k2, (2,), minval=5.0, maxval=6.0).round(3)
array([5.327, 5.334])
>>> keys = fg.random.split(k, 4)                               # a batch of keys under vmap
>>> fg.vmap(lambda kk: fg.random.normal(kk, ()))(keys).shape
(4,)
>>> fg.grad(lambda mu: fg.numpy.sum(mu + 2.0 * fg.random.normal(k1, (3,))))(1.0)
np.float64(3.0)
"""

from typing import Any

import numpy as np

from . import numpy as fnp
from .core.errors import ArgumentError, ArgumentTypeError, NotDifferentiableError
from .core.values import plain
from .rules import random as prims

__all__ = [
    "key",
    "PRNGKey",
    "split",
    "fold_in",
    "key_data",
    "uniform",
    "normal",
    "truncated_normal",
    "bernoulli",
    "categorical",
    "randint",
    "permutation",
    "choice",
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
    "rademacher",
    "bits",
    "orthogonal",
    "ball",
    "gamma",
    "loggamma",
    "beta",
    "dirichlet",
    "poisson",
    "binomial",
    "multinomial",
    "geometric",
    "chisquare",
    "t",
    "f",
    "wald",
    "generalized_normal",
]


def PRNGKey(seed: int) -> np.ndarray:
    """JAX's older name of :func:`key`: a key from an integer seed.

    >>> import funcgrad as fg
    >>> fg.random.PRNGKey(7)
    array([0, 7], dtype=uint32)
    """
    return prims.key(seed)


def key(seed: int) -> np.ndarray:
    """A key from an integer seed, plain or traced by jit or vmap (two uint32 words).

    >>> import funcgrad as fg
    >>> fg.random.key(7)
    array([0, 7], dtype=uint32)
    """
    return prims.key(seed)


def key_data(k: Any) -> Any:
    """The key's two words as a uint32 array (a key is already one: returned as it is).

    >>> import funcgrad as fg
    >>> fg.random.key_data(fg.random.key(7))
    array([0, 7], dtype=uint32)
    """
    return prims.check_key(k, "fg.random.key_data")


def split(k: Any, num: int = 2) -> Any:
    """``num`` new keys from ``k``, as an array of shape (num, 2); unpack it or index it.

    >>> import funcgrad as fg
    >>> fg.random.split(fg.random.key(0), 3).shape
    (3, 2)
    """
    if isinstance(num, bool) or not isinstance(num, (int, np.integer)) or num < 1:
        raise ArgumentError(f"fg.random.split: num must be a positive int; got {num!r:.40}")
    return prims.split(prims.check_key(k, "fg.random.split"), num=int(num))


def fold_in(k: Any, data: Any) -> Any:
    """A new key from ``k`` and an integer ``data`` (a step number; traced under jit too).

    >>> import funcgrad as fg
    >>> k = fg.random.key(0)
    >>> bool((fg.random.fold_in(k, 1) != fg.random.fold_in(k, 2)).any())
    True
    """
    return prims.fold_in(prims.check_key(k, "fg.random.fold_in"), data)


def _shape(shape, who):
    if shape is None:
        return ()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    try:
        shape = tuple(int(n) for n in shape)
    except TypeError:
        raise ArgumentTypeError(
            f"{who}: shape must be a tuple of ints; got {shape!r:.40}"
        ) from None
    if any(n < 0 for n in shape):
        raise ArgumentError(f"{who}: shape must not be negative; got {shape}")
    return shape


def _float(dtype, who):
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise ArgumentTypeError(f"{who}: dtype must be a float dtype; got {dtype}")
    return dtype.str


def _draw(k, distribution, shape, dtype, *parameters, who):
    return prims.sample(
        prims.check_key(k, who),
        *parameters,
        distribution=distribution,
        shape=_shape(shape, who),
        dtype=dtype,
    )


def _standard(k, distribution, shape, dtype):
    """Numbers of a standard distribution (no parameters but the key), of a float dtype."""
    who = f"fg.random.{distribution}"
    return _draw(k, distribution, shape, _float(dtype, who), who=who)


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
    u = _standard(k, "uniform", shape, dtype)
    if _is(minval, 0.0) and _is(maxval, 1.0):
        return u
    return minval + (maxval - minval) * u


def _is(v, number):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == number


def normal(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard normal numbers (scale and shift them: ``mu + sigma * normal(k)``).

    >>> import funcgrad as fg
    >>> k = fg.random.key(0)
    >>> x = fg.random.normal(k, (10000,))
    >>> x.dtype, bool(abs(x.mean()) < 0.05), bool(abs(x.std() - 1.0) < 0.05)
    (dtype('float64'), True, True)
    """
    return _standard(k, "normal", shape, dtype)


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
    return _draw(k, "truncated_normal", shape, _float(dtype, who), lower, upper, who=who)


def exponential(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Exponential numbers of rate 1.

    >>> import funcgrad as fg
    >>> x = fg.random.exponential(fg.random.key(0), (10000,))
    >>> bool((x >= 0).all()), bool(abs(x.mean() - 1.0) < 0.05)
    (True, True)
    """
    return _standard(k, "exponential", shape, dtype)


def gumbel(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard Gumbel numbers (the noise of the Gumbel-max trick).

    >>> import funcgrad as fg
    >>> fg.random.gumbel(fg.random.key(0), (2, 3)).shape
    (2, 3)
    """
    return _standard(k, "gumbel", shape, dtype)


def laplace(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard Laplace numbers.

    >>> import numpy as np, funcgrad as fg
    >>> x = fg.random.laplace(fg.random.key(0), (10000,))
    >>> bool(abs(np.median(x)) < 0.05)
    True
    """
    return _standard(k, "laplace", shape, dtype)


def logistic(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard logistic numbers.

    >>> import numpy as np, funcgrad as fg
    >>> x = fg.random.logistic(fg.random.key(0), (10000,))
    >>> bool(abs(np.median(x)) < 0.05)
    True
    """
    return _standard(k, "logistic", shape, dtype)


def bernoulli(k: Any, p: Any = 0.5, shape: Any = None) -> Any:
    """Booleans, True with probability ``p`` (shape: ``p``'s by default).

    >>> import numpy as np, funcgrad as fg
    >>> fg.random.bernoulli(fg.random.key(0), np.array([0.0, 1.0, 1.0]))
    array([False,  True,  True])
    """
    who = "fg.random.bernoulli"
    if shape is None:
        shape = np.shape(plain(p))
    return _draw(k, "uniform", shape, "<f8", who=who) < p


def categorical(k: Any, logits: Any, axis: int = -1, shape: Any = None) -> Any:
    """Indices drawn with probabilities ``softmax(logits)`` along ``axis`` (Gumbel-max).

    >>> import numpy as np, funcgrad as fg
    >>> fg.random.categorical(fg.random.key(0), np.array([[-np.inf, 0.0, -np.inf], [-np.inf, -np.inf, 0.0]]))
    array([1, 2])
    """
    who = "fg.random.categorical"
    logits = fnp.moveaxis(logits, axis, -1)
    batch = np.shape(plain(logits))[:-1] if shape is None else _shape(shape, who)
    noise = _draw(k, "gumbel", batch + np.shape(plain(logits))[-1:], "<f8", who=who)
    return fnp.argmax(logits + noise, axis=-1)


def randint(k: Any, shape: Any, minval: int, maxval: int, dtype: Any = int) -> Any:
    """Integers uniform in [minval, maxval).

    >>> import funcgrad as fg
    >>> x = fg.random.randint(fg.random.key(0), (1000,), 3, 7)
    >>> x.dtype, int(x.min()), int(x.max())
    (dtype('int64'), 3, 6)
    """
    who = "fg.random.randint"
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        raise ArgumentTypeError(f"{who}: dtype must be an integer dtype; got {dtype}")
    return _draw(k, "integers", shape, dtype.str, minval, maxval, who=who)


def permutation(k: Any, x: Any, axis: int = 0) -> Any:
    """A random permutation of ``range(x)`` for an int, else of ``x`` along ``axis``.

    >>> import numpy as np, funcgrad as fg
    >>> np.sort(fg.random.permutation(fg.random.key(0), 5))
    array([0, 1, 2, 3, 4])
    """
    who = "fg.random.permutation"
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return _draw(k, "permutation", (int(x),), None, who=who)
    n = np.shape(plain(x))[axis]
    return fnp.take(x, _draw(k, "permutation", (n,), None, who=who), axis=axis)


def choice(
    k: Any, a: Any, shape: Any = (), replace: bool = True, p: Any = None, axis: int = 0
) -> Any:
    """Entries of ``a`` (or of ``range(a)``) along ``axis``, with weights ``p`` if given.

    >>> import numpy as np, funcgrad as fg
    >>> k = fg.random.key(0)
    >>> fg.random.choice(k, 5, (3,), replace=False).shape
    (3,)
    >>> fg.random.choice(k, np.array([1.0, 2.0]), (4,), p=np.array([0.0, 1.0]))
    array([2., 2., 2., 2.])
    """
    who = "fg.random.choice"
    whole = isinstance(a, (int, np.integer)) and not isinstance(a, bool)
    n = int(a) if whole else np.shape(plain(a))[axis]
    kind = "choice" if replace else "choice_without_replacement"
    idx = _draw(k, kind, shape, None, n, p, who=who)
    return idx if whole else fnp.take(a, idx, axis=axis)


def multivariate_normal(k: Any, mean: Any, cov: Any, shape: Any = None) -> Any:
    """Normal vectors of mean ``mean`` and covariance ``cov`` (its Cholesky factor times
    standard normals: differentiable in both).

    >>> import numpy as np, funcgrad as fg
    >>> fg.random.multivariate_normal(fg.random.key(0), np.zeros(2), np.eye(2), (5,)).shape
    (5, 2)
    """
    who = "fg.random.multivariate_normal"
    n = np.shape(plain(mean))[-1]
    batch = np.shape(plain(mean))[:-1] if shape is None else _shape(shape, who)
    z = _draw(k, "normal", batch + (n,), "<f8", who=who)
    return mean + fnp.einsum("...ij,...j->...i", fnp.linalg.cholesky(cov), z)


# -- transformed standard draws: differentiable in their location, scale and shape
# parameters, as the reparameterization makes them


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
        fnp.sum(normal(k, tuple(_shape(shape, "fg.random.maxwell")) + (3,), dtype) ** 2, axis=-1)
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


def rademacher(k: Any, shape: Any = (), dtype: Any = int) -> Any:
    """-1 or 1, each with probability 1/2.

    >>> import funcgrad as fg
    >>> sorted(set(fg.random.rademacher(fg.random.key(0), (50,)).tolist()))
    [-1, 1]
    """
    return fnp.where(uniform(k, shape) < 0.5, -1, 1).astype(dtype)


def bits(k: Any, shape: Any = (), dtype: Any = np.uint32) -> Any:
    """Random unsigned 32-bit words.

    >>> import funcgrad as fg
    >>> fg.random.bits(fg.random.key(0), (2,)).dtype
    dtype('uint32')
    """
    return _draw(k, "bits", shape, np.dtype(dtype).str, who="fg.random.bits")


def orthogonal(k: Any, n: int, shape: Any = (), dtype: Any = float) -> Any:
    """Orthogonal ``n x n`` matrices drawn uniformly (Haar): the Q of a normal matrix's
    QR factorisation, its columns' signs fixed by R's diagonal.

    >>> import numpy as np, funcgrad as fg
    >>> q = fg.random.orthogonal(fg.random.key(0), 3)
    >>> bool(np.allclose(q @ q.T, np.eye(3)))
    True
    """
    z = normal(k, tuple(_shape(shape, "fg.random.orthogonal")) + (n, n), dtype)
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
    shape = tuple(_shape(shape, "fg.random.ball"))
    g = generalized_normal(k1, p, shape + (d,), dtype)
    e = exponential(k2, shape, dtype)
    return g / (fnp.sum(fnp.abs(g) ** p, axis=-1) + e)[..., None] ** (1.0 / p)


# -- NumPy's samplers of these families: the numbers are values of their parameters, not
# functions to differentiate (JAX reparameterizes gamma, beta and dirichlet; funcgrad
# refuses the derivative by name rather than give none)


def _value(v, name, who):
    if plain(v) is not v:
        raise NotDifferentiableError(
            f"{who}: the samples are not differentiable in {name} here (JAX differentiates "
            f"gamma, beta and dirichlet by implicit reparameterization; funcgrad does not): "
            f"wrap {name} in fg.stop_gradient, or sample a reparameterizable family"
        )
    return v


def _family(k, distribution, shape, dtype, who, **parameters):
    values = [_value(v, n, who) for n, v in parameters.items()]
    if shape is None:
        shape = np.broadcast_shapes(*(np.shape(plain(v)) for v in values))
    return _draw(k, distribution, shape, dtype, *values, who=who)


def gamma(k: Any, a: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Gamma numbers of shape ``a`` and scale 1.

    >>> import funcgrad as fg
    >>> round(float(fg.random.gamma(fg.random.key(0), 4.0, (4000,)).mean()), 1)
    4.0
    """
    who = "fg.random.gamma"
    return _family(k, "gamma", shape, _float(dtype, who), who, a=a)


def loggamma(k: Any, a: Any, shape: Any = None, dtype: Any = float) -> Any:
    """The logarithms of :func:`gamma` numbers.

    >>> import funcgrad as fg
    >>> fg.random.loggamma(fg.random.key(0), 2.0, (3,)).shape
    (3,)
    """
    return fnp.log(gamma(k, a, shape, dtype))


def beta(k: Any, a: Any, b: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Beta numbers on ``[0, 1]``.

    >>> import funcgrad as fg
    >>> round(float(fg.random.beta(fg.random.key(0), 2.0, 6.0, (4000,)).mean()), 2)
    0.25
    """
    who = "fg.random.beta"
    return _family(k, "beta", shape, _float(dtype, who), who, a=a, b=b)


def dirichlet(k: Any, alpha: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Dirichlet vectors of concentration ``alpha`` (the last axis; ``shape`` is the
    batch's).

    >>> import numpy as np, funcgrad as fg
    >>> x = fg.random.dirichlet(fg.random.key(0), np.array([1.0, 2.0, 3.0]), (5,))
    >>> x.shape, bool(np.allclose(x.sum(-1), 1.0))
    ((5, 3), True)
    """
    who = "fg.random.dirichlet"
    alpha = _value(alpha, "alpha", who)
    return _draw(k, "dirichlet", () if shape is None else shape, _float(dtype, who), alpha, who=who)


def poisson(k: Any, lam: Any, shape: Any = None, dtype: Any = int) -> Any:
    """Poisson counts of mean ``lam``.

    >>> import funcgrad as fg
    >>> fg.random.poisson(fg.random.key(0), 3.0, (4,)).dtype.kind
    'i'
    """
    return _family(k, "poisson", shape, np.dtype(dtype).str, "fg.random.poisson", lam=lam)


def binomial(k: Any, n: Any, p: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Binomial counts of ``n`` trials of success ``p`` (as floats, as JAX's).

    >>> import funcgrad as fg
    >>> float(fg.random.binomial(fg.random.key(0), 10, 1.0))
    10.0
    """
    return _family(k, "binomial", shape, np.dtype(dtype).str, "fg.random.binomial", n=n, p=p)


def multinomial(k: Any, n: Any, p: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Counts of ``n`` draws over the categories of ``p`` (the last axis; ``shape`` is the
    batch's).

    >>> import numpy as np, funcgrad as fg
    >>> fg.random.multinomial(fg.random.key(0), 5, np.array([0.0, 1.0, 0.0])).tolist()
    [0.0, 5.0, 0.0]
    """
    who = "fg.random.multinomial"
    return _draw(
        k,
        "multinomial",
        () if shape is None else shape,
        np.dtype(dtype).str,
        _value(n, "n", who),
        _value(p, "p", who),
        who=who,
    )


def geometric(k: Any, p: Any, shape: Any = None, dtype: Any = int) -> Any:
    """The number of trials up to the first success of probability ``p`` (from 1).

    >>> import funcgrad as fg
    >>> int(fg.random.geometric(fg.random.key(0), 1.0))
    1
    """
    return _family(k, "geometric", shape, np.dtype(dtype).str, "fg.random.geometric", p=p)


def chisquare(k: Any, df: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Chi-square numbers of ``df`` degrees of freedom.

    >>> import funcgrad as fg
    >>> fg.random.chisquare(fg.random.key(0), 3.0, (2,)).shape
    (2,)
    """
    who = "fg.random.chisquare"
    return _family(k, "chisquare", shape, _float(dtype, who), who, df=df)


def t(k: Any, df: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Student's t numbers of ``df`` degrees of freedom.

    >>> import funcgrad as fg
    >>> fg.random.t(fg.random.key(0), 5.0, (2,)).shape
    (2,)
    """
    who = "fg.random.t"
    return _family(k, "t", shape, _float(dtype, who), who, df=df)


def f(k: Any, dfnum: Any, dfden: Any, shape: Any = None, dtype: Any = float) -> Any:
    """F numbers of ``dfnum`` and ``dfden`` degrees of freedom.

    >>> import funcgrad as fg
    >>> bool((fg.random.f(fg.random.key(0), 3.0, 4.0, (5,)) > 0).all())
    True
    """
    who = "fg.random.f"
    return _family(k, "f", shape, _float(dtype, who), who, dfnum=dfnum, dfden=dfden)


def wald(k: Any, mean: Any, shape: Any = None, dtype: Any = float) -> Any:
    """Wald (inverse Gaussian) numbers of ``mean`` and scale 1.

    >>> import funcgrad as fg
    >>> bool((fg.random.wald(fg.random.key(0), 2.0, (5,)) > 0).all())
    True
    """
    who = "fg.random.wald"
    return _family(k, "wald", shape, _float(dtype, who), who, mean=mean)


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


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
