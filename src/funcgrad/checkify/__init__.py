"""JAX's ``jax.experimental.checkify``: error checks as values that survive ``jit``,
``vmap`` and ``grad`` (:mod:`funcgrad.checkify.checks`).

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> from funcgrad import checkify
>>> def halve(x):
...     checkify.check(fnp.all(x > 0), "halving a number that is not positive: {}", x)
...     return x / 2.0
>>> err, y = fg.jit(checkify.checkify(halve))(np.array([2.0, 0.0]))
>>> err.get()
'halving a number that is not positive: [2. 0.] (`check` failed)'
>>> err, y = fg.jit(checkify.checkify(halve))(np.array([2.0, 3.0]))
>>> err.get() is None, y
(True, array([1. , 1.5]))
"""

from .checks import (
    Error,
    all_checks,
    automatic_checks,
    check,
    checkify,
    div_checks,
    float_checks,
    index_checks,
    nan_checks,
    user_checks,
)

__all__ = [
    "checkify",
    "check",
    "Error",
    "user_checks",
    "nan_checks",
    "index_checks",
    "div_checks",
    "float_checks",
    "automatic_checks",
    "all_checks",
]


def __dir__():
    return list(__all__)
