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
from .core.errors import ArgumentError, ArgumentTypeError
from .core.values import plain
from .rules import random as prims

__all__ = ["key", "PRNGKey", "split", "fold_in", "key_data", "uniform", "normal",
           "truncated_normal", "bernoulli", "categorical", "randint", "permutation", "choice",
           "exponential", "gumbel", "laplace", "logistic", "multivariate_normal"]

PRNGKey = prims.key


def key(seed: int) -> np.ndarray:
    """A key from an integer seed (two uint32 words).

    >>> import funcgrad as fg
    >>> fg.random.key(7)
    array([0, 7], dtype=uint32)
    """
    return prims.key(seed)


def key_data(k: Any) -> Any:
    """The key's two words as a uint32 array (a key is already one: returned as it is)."""
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
        raise ArgumentTypeError(f"{who}: shape must be a tuple of ints; got {shape!r:.40}") from None
    if any(n < 0 for n in shape):
        raise ArgumentError(f"{who}: shape must not be negative; got {shape}")
    return shape


def _float(dtype, who):
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise ArgumentTypeError(f"{who}: dtype must be a float dtype; got {dtype}")
    return dtype.str


def _draw(k, distribution, shape, dtype, *parameters, who):
    return prims.sample(prims.check_key(k, who), *parameters, distribution=distribution,
                        shape=_shape(shape, who), dtype=dtype)


def _standard(k, distribution, shape, dtype):
    """Numbers of a standard distribution (no parameters but the key), of a float dtype."""
    who = f"fg.random.{distribution}"
    return _draw(k, distribution, shape, _float(dtype, who), who=who)


def uniform(k: Any, shape: Any = (), dtype: Any = float, minval: Any = 0.0,
            maxval: Any = 1.0) -> Any:
    """Numbers uniform in [minval, maxval), differentiable in ``minval`` and ``maxval``."""
    u = _standard(k, "uniform", shape, dtype)
    if _is(minval, 0.0) and _is(maxval, 1.0):
        return u
    return minval + (maxval - minval) * u


def _is(v, number):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == number


def normal(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard normal numbers (scale and shift them: ``mu + sigma * normal(k)``)."""
    return _standard(k, "normal", shape, dtype)


def truncated_normal(k: Any, lower: Any, upper: Any, shape: Any = None,
                     dtype: Any = float) -> Any:
    """Standard normals conditioned on [lower, upper] (bounds broadcast to ``shape``)."""
    who = "fg.random.truncated_normal"
    if shape is None:
        shape = np.broadcast_shapes(np.shape(plain(lower)), np.shape(plain(upper)))
    return _draw(k, "truncated_normal", shape, _float(dtype, who), lower, upper, who=who)


def exponential(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Exponential numbers of rate 1."""
    return _standard(k, "exponential", shape, dtype)


def gumbel(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard Gumbel numbers (the noise of the Gumbel-max trick)."""
    return _standard(k, "gumbel", shape, dtype)


def laplace(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard Laplace numbers."""
    return _standard(k, "laplace", shape, dtype)


def logistic(k: Any, shape: Any = (), dtype: Any = float) -> Any:
    """Standard logistic numbers."""
    return _standard(k, "logistic", shape, dtype)


def bernoulli(k: Any, p: Any = 0.5, shape: Any = None) -> Any:
    """Booleans, True with probability ``p`` (shape: ``p``'s by default)."""
    who = "fg.random.bernoulli"
    if shape is None:
        shape = np.shape(plain(p))
    return _draw(k, "uniform", shape, "<f8", who=who) < p


def categorical(k: Any, logits: Any, axis: int = -1, shape: Any = None) -> Any:
    """Indices drawn with probabilities ``softmax(logits)`` along ``axis`` (Gumbel-max)."""
    who = "fg.random.categorical"
    logits = fnp.moveaxis(logits, axis, -1)
    batch = np.shape(plain(logits))[:-1] if shape is None else _shape(shape, who)
    noise = _draw(k, "gumbel", batch + np.shape(plain(logits))[-1:], "<f8", who=who)
    return fnp.argmax(logits + noise, axis=-1)


def randint(k: Any, shape: Any, minval: int, maxval: int, dtype: Any = int) -> Any:
    """Integers uniform in [minval, maxval)."""
    who = "fg.random.randint"
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        raise ArgumentTypeError(f"{who}: dtype must be an integer dtype; got {dtype}")
    return _draw(k, "integers", shape, dtype.str, minval, maxval, who=who)


def permutation(k: Any, x: Any, axis: int = 0) -> Any:
    """A random permutation of ``range(x)`` for an int, else of ``x`` along ``axis``."""
    who = "fg.random.permutation"
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return _draw(k, "permutation", (int(x),), None, who=who)
    n = np.shape(plain(x))[axis]
    return fnp.take(x, _draw(k, "permutation", (n,), None, who=who), axis=axis)


def choice(k: Any, a: Any, shape: Any = (), replace: bool = True, p: Any = None,
           axis: int = 0) -> Any:
    """Entries of ``a`` (or of ``range(a)``) along ``axis``, with weights ``p`` if given."""
    who = "fg.random.choice"
    whole = isinstance(a, (int, np.integer)) and not isinstance(a, bool)
    n = int(a) if whole else np.shape(plain(a))[axis]
    kind = "choice" if replace else "choice_without_replacement"
    idx = _draw(k, kind, shape, None, n, p, who=who)
    return idx if whole else fnp.take(a, idx, axis=axis)


def multivariate_normal(k: Any, mean: Any, cov: Any, shape: Any = None) -> Any:
    """Normal vectors of mean ``mean`` and covariance ``cov`` (its Cholesky factor times
    standard normals: differentiable in both)."""
    who = "fg.random.multivariate_normal"
    n = np.shape(plain(mean))[-1]
    batch = np.shape(plain(mean))[:-1] if shape is None else _shape(shape, who)
    z = _draw(k, "normal", batch + (n,), "<f8", who=who)
    return mean + fnp.einsum("...ij,...j->...i", fnp.linalg.cholesky(cov), z)
