"""Discrete draws: booleans, indices, integers, permutations, choices, signs and bits."""

from typing import Any

import numpy as np

from .. import numpy as fnp
from ..core.errors import ArgumentTypeError
from ..core.values import plain
from ._continuous import uniform
from ._draws import checked_shape, draw

__all__ = ["bernoulli", "categorical", "randint", "permutation", "choice", "rademacher", "bits"]


def bernoulli(k: Any, p: Any = 0.5, shape: Any = None) -> Any:
    """Booleans, True with probability ``p`` (shape: ``p``'s by default).

    >>> import numpy as np, funcgrad as fg
    >>> fg.random.bernoulli(fg.random.key(0), np.array([0.0, 1.0, 1.0]))
    array([False,  True,  True])
    """
    who = "fg.random.bernoulli"
    if shape is None:
        shape = np.shape(plain(p))
    return draw(k, "uniform", shape, "<f8", who=who) < p


def categorical(k: Any, logits: Any, axis: int = -1, shape: Any = None) -> Any:
    """Indices drawn with probabilities ``softmax(logits)`` along ``axis`` (Gumbel-max).

    >>> import numpy as np, funcgrad as fg
    >>> fg.random.categorical(fg.random.key(0), np.array([[-np.inf, 0.0, -np.inf], [-np.inf, -np.inf, 0.0]]))
    array([1, 2])
    """
    who = "fg.random.categorical"
    logits = fnp.moveaxis(logits, axis, -1)
    batch = np.shape(plain(logits))[:-1] if shape is None else checked_shape(shape, who)
    noise = draw(k, "gumbel", batch + np.shape(plain(logits))[-1:], "<f8", who=who)
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
    return draw(k, "integers", shape, dtype.str, minval, maxval, who=who)


def permutation(k: Any, x: Any, axis: int = 0) -> Any:
    """A random permutation of ``range(x)`` for an int, else of ``x`` along ``axis``.

    >>> import numpy as np, funcgrad as fg
    >>> np.sort(fg.random.permutation(fg.random.key(0), 5))
    array([0, 1, 2, 3, 4])
    """
    who = "fg.random.permutation"
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return draw(k, "permutation", (int(x),), None, who=who)
    n = np.shape(plain(x))[axis]
    return fnp.take(x, draw(k, "permutation", (n,), None, who=who), axis=axis)


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
    idx = draw(k, kind, shape, None, n, p, who=who)
    return idx if whole else fnp.take(a, idx, axis=axis)


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
    return draw(k, "bits", shape, np.dtype(dtype).str, who="fg.random.bits")
