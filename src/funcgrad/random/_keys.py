"""Keys: made from a seed, split, folded with data; two uint32 words each."""

from typing import Any

import numpy as np

from ..core.errors import ArgumentError
from ..rules import random as prims

__all__ = ["PRNGKey", "key", "key_data", "split", "fold_in"]


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
