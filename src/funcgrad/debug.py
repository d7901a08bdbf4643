"""Seeing values inside transforms: ``fg.debug.print`` and ``fg.debug.callback``.

A Python ``print`` inside a transformed function shows tracers, and inside
``fg.jit`` it runs once, when the function is traced. These run with the
values of each call: eagerly at once; under ``grad`` and ``jvp`` with the
primal values; under ``vmap`` once per example; under ``jit`` each time the
plan runs; inside a loop's body at every iteration.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> def f(x):
...     fg.debug.print("x is {}", x)
...     return fnp.sum(x * x)
>>> g = fg.jit(fg.grad(f))
>>> _ = g(np.array([1.0, 2.0]))
x is [1. 2.]
>>> _ = g(np.array([3.0, 4.0]))
x is [3. 4.]
>>> _ = fg.vmap(f)(np.array([[1.0], [2.0]]))
x is [1.]
x is [2.]
"""

import builtins
from collections.abc import Callable
from typing import Any

from .core.errors import ArgumentTypeError
from .core.traces import Box
from .core.tree import tree_flatten, tree_unflatten
from .rules.debug import debug_callback

__all__ = ["callback", "print"]


class _Call:
    """The user's function, called on the leaves put back in their structure."""

    __slots__ = ("fun", "treedef")

    def __init__(self, fun, treedef):
        self.fun, self.treedef = fun, treedef

    def __call__(self, *leaves):
        args, kwargs = tree_unflatten(self.treedef, list(leaves))
        self.fun(*args, **kwargs)


def callback(fun: Callable, *args: Any, **kwargs: Any) -> None:
    """Call ``fun(*args, **kwargs)`` with the runtime values of ``args`` (any pytrees).

    >>> import funcgrad as fg
    >>> seen = []
    >>> _ = fg.grad(lambda x: (fg.debug.callback(seen.append, x), x * x)[1])(3.0)
    >>> seen
    [3.0]
    """
    if not callable(fun):
        raise ArgumentTypeError(
            f"fg.debug.callback needs a function; got {type(fun).__name__} {fun!r:.40}"
        )
    leaves, treedef = tree_flatten((args, kwargs))
    if not any(isinstance(leaf, Box) for leaf in leaves):
        fun(*args, **kwargs)  # nothing traced: now, as a plain call
        return
    debug_callback(*leaves, callback=_Call(fun, treedef))


def print(fmt: str, *args: Any, **kwargs: Any) -> None:
    """``print(fmt.format(*args, **kwargs))`` with the runtime values of the arguments.

    >>> import funcgrad as fg
    >>> import funcgrad.numpy as fnp
    >>> def f(x):
    ...     fg.debug.print("x = {x}", x=x)
    ...     return fnp.sin(x)
    >>> fg.grad(f)(0.0)
    x = 0.0
    np.float64(1.0)
    """
    if not isinstance(fmt, str):
        raise ArgumentTypeError(
            f"fg.debug.print: the format must be a string; got {type(fmt).__name__}"
        )
    callback(lambda *a, **k: builtins.print(fmt.format(*a, **k)), *args, **kwargs)


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
