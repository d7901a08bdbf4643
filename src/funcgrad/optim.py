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
np.float64(3.0)
"""

from typing import Callable, NamedTuple

import numpy as np

from .tree import tree_flatten, tree_map
from .values import float_dtype

__all__ = ["Optimizer", "sgd", "momentum", "adam"]


class Optimizer(NamedTuple):
    init: Callable
    update: Callable


def _check_rate(learning_rate, who):
    if not (isinstance(learning_rate, (int, float)) and learning_rate > 0):
        raise ValueError(f"{who}: learning_rate must be a positive number; got {learning_rate!r}")
    return float(learning_rate)


def _check_step(who, grads, params, state=None, state_like=None):
    """grads shaped like params (and the state like what init made), else a clear error."""
    g_leaves, g_def = tree_flatten(grads)
    p_leaves, p_def = tree_flatten(params)
    if g_def != p_def:
        raise ValueError(f"{who}: grads have structure {g_def!r}, but params have {p_def!r}; "
                         f"pass update(grads, state, params) with grads of the params")
    for k, (g, p) in enumerate(zip(g_leaves, p_leaves)):
        if np.shape(g) != np.shape(p):
            raise ValueError(f"{who}: gradient {k} has shape {np.shape(g)}, but its parameter "
                             f"has shape {np.shape(p)}")
    if state_like is not None and not state_like(state):
        raise TypeError(f"{who}: the state is a {type(state).__name__}, not what this "
                        f"optimizer's init made; pass the state its init (or last update) returned")


def sgd(learning_rate):
    """Plain gradient descent: ``p - learning_rate * g``."""
    lr = _check_rate(learning_rate, "sgd")

    def init(params):
        return ()

    def update(grads, state, params):
        _check_step("sgd.update", grads, params)
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
    np.float64(1.0)
    """
    lr = _check_rate(learning_rate, "momentum")

    def init(params):
        return tree_map(lambda p: 0.0 * np.asarray(p) if np.ndim(p) else 0.0, params)

    def update(grads, velocity, params):
        _check_step("momentum.update", grads, params, velocity,
                    lambda v: tree_flatten(v)[1] == tree_flatten(params)[1])
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
    np.float64(-2.0)
    """
    lr = _check_rate(learning_rate, "adam")

    def init(params):
        zeros = tree_map(lambda p: np.zeros_like(p, dtype=float_dtype(p)) if np.ndim(p) else 0.0, params)
        return AdamState(0, zeros, zeros)

    def update(grads, state, params):
        _check_step("adam.update", grads, params, state, lambda s: isinstance(s, AdamState))
        step = state.step + 1
        m = tree_map(lambda m, g: b1 * m + (1 - b1) * g, state.m, grads)
        v = tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state.v, grads)
        c1, c2 = 1 - b1 ** step, 1 - b2 ** step
        new = tree_map(lambda p, m, v: p - lr * (m / c1) / ((v / c2) ** 0.5 + eps), params, m, v)
        return new, AdamState(step, m, v)

    return Optimizer(init, update)
