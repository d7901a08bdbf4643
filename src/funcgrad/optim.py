"""Optimizers as pure ``(init, update)`` pairs over pytrees.

``state = init(params)`` and ``params, state = update(grads, state, params)``:
nothing is changed in place, so a training loop is a fold over batches.

>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> loss = lambda p: (p["w"] - 3.0) ** 2
>>> init, update = fg.optim.sgd(0.1)
>>> params = {"w": 0.0}
>>> state = init(params)
>>> for _ in range(100):
...     params, state = update(fg.grad(loss)(params), state, params)
>>> round(params["w"], 6)
3.0
"""

from typing import Callable, NamedTuple

import numpy as np

from .tree import tree_map

__all__ = ["Optimizer", "sgd", "momentum", "adam"]


class Optimizer(NamedTuple):
    init: Callable
    update: Callable


def _check_rate(learning_rate, who):
    if not (isinstance(learning_rate, (int, float)) and learning_rate > 0):
        raise ValueError(f"{who}: learning_rate must be a positive number; got {learning_rate!r}")
    return float(learning_rate)


def sgd(learning_rate):
    """Plain gradient descent: ``p - learning_rate * g``."""
    lr = _check_rate(learning_rate, "sgd")

    def init(params):
        return ()

    def update(grads, state, params):
        return tree_map(lambda p, g: p - lr * g, params, grads), state

    return Optimizer(init, update)


def momentum(learning_rate, mass=0.9):
    """Heavy-ball momentum: ``v = mass * v + g``; ``p - learning_rate * v``.

    >>> import funcgrad as fg
    >>> init, update = fg.optim.momentum(0.05)
    >>> p = 0.0; s = init(p)
    >>> for _ in range(300):
    ...     p, s = update(fg.grad(lambda w: (w - 1.0) ** 2)(p), s, p)
    >>> round(p, 6)
    1.0
    """
    lr = _check_rate(learning_rate, "momentum")

    def init(params):
        return tree_map(lambda p: 0.0 * np.asarray(p) if np.ndim(p) else 0.0, params)

    def update(grads, velocity, params):
        velocity = tree_map(lambda v, g: mass * v + g, velocity, grads)
        return tree_map(lambda p, v: p - lr * v, params, velocity), velocity

    return Optimizer(init, update)


class AdamState(NamedTuple):
    step: int
    m: object
    v: object


def adam(learning_rate=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """Adam with bias correction (Kingma and Ba, 2015).

    >>> import funcgrad as fg
    >>> init, update = fg.optim.adam(0.1)
    >>> p = 5.0; s = init(p)
    >>> for _ in range(500):
    ...     p, s = update(fg.grad(lambda w: (w + 2.0) ** 2)(p), s, p)
    >>> round(p, 3)
    -2.0
    """
    lr = _check_rate(learning_rate, "adam")

    def init(params):
        zeros = tree_map(lambda p: np.zeros_like(p, dtype=np.float64) if np.ndim(p) else 0.0, params)
        return AdamState(0, zeros, zeros)

    def update(grads, state, params):
        step = state.step + 1
        m = tree_map(lambda m, g: b1 * m + (1 - b1) * g, state.m, grads)
        v = tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state.v, grads)
        c1, c2 = 1 - b1 ** step, 1 - b2 ** step
        new = tree_map(lambda p, m, v: p - lr * (m / c1) / ((v / c2) ** 0.5 + eps), params, m, v)
        return new, AdamState(step, m, v)

    return Optimizer(init, update)
