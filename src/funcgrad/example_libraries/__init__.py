"""JAX's ``example_libraries``: :mod:`~funcgrad.example_libraries.stax` (networks as
``(init_fun, apply_fun)`` pairs) and :mod:`~funcgrad.example_libraries.optimizers`
(optimizers as ``(init_fun, update_fun, get_params)`` triples), with JAX's names and
signatures, so programs and tutorials written on them run on funcgrad.

>>> import numpy as np
>>> import funcgrad as fg
>>> from funcgrad.example_libraries import optimizers, stax
>>> init, apply = stax.serial(stax.Dense(1))
>>> _, params = init(fg.random.key(0), (-1, 2))
>>> opt_init, opt_update, get_params = optimizers.sgd(0.1)
>>> state = opt_init(params)
>>> loss = lambda p: fg.numpy.sum((apply(p, np.ones((1, 2))) - 3.0) ** 2)
>>> for i in range(50):
...     state = opt_update(i, fg.grad(loss)(get_params(state)), state)
>>> round(float(loss(get_params(state))), 8)
0.0
"""

from . import optimizers, stax

__all__ = ["optimizers", "stax"]


def __dir__():
    return list(__all__)
