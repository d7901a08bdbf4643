"""JAX's ``jax.custom_batching``: a function's own vmap rule (:class:`custom_vmap`, with
``def_vmap``) and :func:`sequential_vmap` (batching as a loop over the examples).

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> from funcgrad.custom_batching import custom_vmap
>>> @custom_vmap
... def f(x):
...     return x * 2.0
>>> @f.def_vmap
... def rule(axis_size, in_batched, x):
...     return x * 2.0, in_batched[0]
>>> fg.vmap(f)(np.arange(3.0))
array([0., 2., 4.])
"""

from ..control.custom_batching import custom_vmap, sequential_vmap

__all__ = ["custom_vmap", "sequential_vmap"]


def __dir__():
    return list(__all__)
