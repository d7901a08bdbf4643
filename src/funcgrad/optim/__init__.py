"""Optimizers in optax's shape over pytrees, their building blocks, schedules and clipping.

``state = opt.init(params)``; ``updates, state = opt.update(grads, state,
params)``; ``params = apply_updates(params, updates)``: ``update`` returns the
change to make, as optax's does, and nothing is changed in place, so a
training loop is a fold over batches. ``opt.step(grads, state, params)`` makes
both calls at once and returns ``(params, state)``. Unpacking an optimizer
into ``init, update`` is funcgrad 0.1's form, whose ``update`` returned new
parameters where optax returns updates: it gives 0.1's pair (``update`` is
``opt.step``) with a DeprecationWarning naming both forms, until 0.3.

The optimizers (``sgd``, ``momentum``, ``nesterov``, ``adagrad``,
``rmsprop``, ``adam``, ``adamw``) follow PyTorch's formulas and defaults
(``torch.optim``), so a trajectory can be checked step for step; every state
is a NamedTuple whose ``step`` counts the updates made. A learning rate is a
number or a schedule, a function of the step count (0 at the first update):
``exponential_decay``, ``cosine_decay``, ``piecewise_constant``,
``warmup_cosine_decay``. Transformations compose with :func:`chain`, as
optax's do: ``clip_by_global_norm(max_norm)``, ``clip_by_value(low, high)``,
``add_decayed_weights(weight_decay)`` and ``scale(factor)`` are
transformations too (with gradients as well, ``clip_by_global_norm(grads,
max_norm)`` clips them at once).

>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> loss = lambda p: (p["w"] - 3.0) ** 2
>>> opt = fg.optim.adam(0.1)
>>> params = {"w": 1.0}
>>> state = opt.init(params)
>>> updates, state = opt.update(fg.grad(loss)(params), state, params)
>>> fg.optim.apply_updates(params, updates)                 # optax's answer
{'w': np.float64(1.09999999975)}
>>> opt = fg.optim.chain(fg.optim.clip_by_global_norm(1.0),
...                      fg.optim.sgd(fg.optim.exponential_decay(0.2, 0.5, 100)))
>>> params = {"w": 0.0}
>>> state = opt.init(params)
>>> for _ in range(100):
...     params, state = opt.step(fg.grad(loss)(params), state, params)
>>> round(float(params["w"]), 6)
3.0
"""

import math
import operator
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.namespaces import is_foreign, namespace_of
from ..core.traces import Box
from ..core.tree import tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten
from ..core.values import is_complex, raw, zeros_like_value
from ..rules import arrays, elementwise
from .schedules import (
    _rate,
    cosine_decay,
    exponential_decay,
    piecewise_constant,
    warmup_cosine_decay,
)

__all__ = [
    "Optimizer",
    "Transformation",
    "apply_updates",
    "chain",
    "add_decayed_weights",
    "scale",
    "sgd",
    "momentum",
    "nesterov",
    "adagrad",
    "rmsprop",
    "adam",
    "adamw",
    "exponential_decay",
    "cosine_decay",
    "piecewise_constant",
    "warmup_cosine_decay",
    "clip_by_global_norm",
    "clip_by_value",
]


class Transformation(NamedTuple):
    """A gradient transformation in optax's shape: ``state = init(params)`` and
    ``updates, state = update(grads, state, params)``.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> opt = fg.optim.sgd(0.1)
    >>> params = {'w': np.ones(2)}
    >>> state = opt.init(params)
    >>> updates, state = opt.update({'w': np.array([1.0, -2.0])}, state, params)
    >>> updates
    {'w': array([-0.1,  0.2])}
    """

    init: Callable
    update: Callable

    def __repr__(self):
        return f"Transformation(init={_shown(self.init)}, update={_shown(self.update)})"


def _shown(fun):
    """A function as a repr shows it: its qualified name, the same in every run (a
    function's own repr holds its address)."""
    return getattr(fun, "__qualname__", None) or repr(fun)


def _named(who, *funs):
    """``funs`` named as the methods of the optimizer ``who`` makes (``adam.init``)."""
    for fun in funs:
        fun.__qualname__ = f"{who}.{fun.__name__}"
    return funs


_OLD_UNPACKING = (
    "unpacking an optimizer as init, update is funcgrad 0.1's form, where update returned "
    "(params, state); it keeps working until 0.3. fg.optim's optimizers are optax-shaped: "
    "write params, state = opt.step(grads, state, params) (0.1's update), or state = "
    "opt.init(params); updates, state = opt.update(grads, state, params); "
    "params = fg.optim.apply_updates(params, updates)"
)


@dataclass(frozen=True)
class Optimizer:
    """An optimizer: ``init(params)``, ``update(grads, state, params) -> (updates, state)``
    (optax's shape) and ``step(grads, state, params) -> (params, state)`` (both at once).

    >>> import funcgrad as fg
    >>> opt = fg.optim.sgd(0.1)
    >>> opt.update(1.0, opt.init(2.0), 2.0)
    (-0.1, State(step=1, m=(), v=()))
    >>> opt.step(1.0, opt.init(2.0), 2.0)
    (1.9, State(step=1, m=(), v=()))
    >>> opt
    Optimizer(init=sgd.init, update=sgd.update)
    """

    init: Callable
    update: Callable
    step: Callable = field(repr=False)

    def __repr__(self):
        return f"Optimizer(init={_shown(self.init)}, update={_shown(self.update)})"

    def __iter__(self):
        # funcgrad 0.1's (init, update) pair, whose update is today's step: deprecated
        warnings.warn(_OLD_UNPACKING, DeprecationWarning, stacklevel=2)
        return iter((self.init, self.step))

    def transformation(self):
        """The optimizer itself (it has optax's shape); kept for code written before."""
        return Transformation(self.init, self.update)


def _with_step(transformation):
    """An Optimizer from a transformation: ``step`` applies its updates."""

    def step(grads, state, params):
        updates, state = transformation.update(grads, state, params)
        return apply_updates(params, updates), state

    owner = getattr(transformation.update, "__qualname__", "").rpartition(".")[0]
    step.__qualname__ = f"{owner}.step" if owner else "step"
    return Optimizer(transformation.init, transformation.update, step)


def chain(*transformations):
    """The transformations applied in turn, each to the updates the one before gave (optax's
    ``chain``): ``chain(clip_by_global_norm(1.0), adam(1e-3))``.

    >>> import funcgrad as fg
    >>> opt = fg.optim.chain(fg.optim.clip_by_value(-1.0, 1.0), fg.optim.sgd(0.5))
    >>> float(opt.update(4.0, opt.init(0.0), 0.0)[0])
    -0.5
    """
    for t in transformations:
        if not (callable(getattr(t, "init", None)) and callable(getattr(t, "update", None))):
            raise ArgumentTypeError(
                f"chain: every part must be a transformation (init and "
                f"update); got {type(t).__name__} {t!r:.40}"
            )

    def init(params):
        return tuple(t.init(params) for t in transformations)

    def update(grads, state, params):
        if not isinstance(state, tuple) or len(state) != len(transformations):
            raise ArgumentTypeError(
                "chain.update: the state is not what this chain's init made; "
                "pass the state its init (or last update) returned"
            )
        states = []
        for t, s in zip(transformations, state):
            grads, s = t.update(grads, s, params)
            states.append(s)
        return grads, tuple(states)

    return _with_step(Transformation(*_named("chain", init, update)))


def _stateless(who, change):
    """A transformation keeping no state but its step count: ``change(updates, params)``."""

    def update(updates, state, params):
        if not isinstance(state, State):
            raise ArgumentTypeError(
                f"{who}.update: the state is a {type(state).__name__}, not what its init made"
            )
        return change(updates, params), State(state.step + 1)

    def init(params):
        return State(0)

    return _with_step(Transformation(*_named(who, init, update)))


def add_decayed_weights(weight_decay):
    """``updates + weight_decay * params`` (L2 regularization, before the optimizer in a chain).

    >>> import funcgrad as fg
    >>> t = fg.optim.add_decayed_weights(0.1)
    >>> t.update({"w": 1.0}, t.init({"w": 2.0}), {"w": 2.0})[0]
    {'w': 1.2}
    """
    wd = _setting("add_decayed_weights", "weight_decay", weight_decay, 0.0, math.inf)
    return _stateless(
        "add_decayed_weights", lambda u, p: tree_map(lambda ui, pi: ui + wd * pi, u, p)
    )


def scale(factor):
    """``factor * updates``.

    >>> import funcgrad as fg
    >>> t = fg.optim.scale(-0.5)
    >>> t.update([2.0], t.init([0.0]), [0.0])[0]
    [-1.0]
    """
    if isinstance(factor, bool) or not isinstance(factor, (int, float, np.floating)):
        raise ArgumentTypeError(f"scale: factor must be a number; got {factor!r:.40}")
    return _stateless("scale", lambda u, p: tree_map(lambda ui: factor * ui, u))


def apply_updates(params, updates):
    """``params + updates``, leaf by leaf (optax's ``apply_updates``): the same addition an
    optimizer's own ``update`` makes, so both shapes agree bit for bit.

    >>> import numpy as np
    >>> from funcgrad.optim import apply_updates
    >>> apply_updates({"w": np.array([1.0, 2.0])}, {"w": np.array([0.5, -0.5])})
    {'w': array([1.5, 1.5])}
    """
    return tree_map(operator.add, params, updates)


class State(NamedTuple):
    """The state of every optimizer: the update count and up to two running pytrees."""

    step: int
    m: object = ()
    v: object = ()


AdamState = State  # the name earlier versions gave it


# ---------------------------------------------------------------- settings


def _setting(who, name, value, low, high, low_open=False, high_open=True):
    """``value`` as a float inside its interval (a decay in [0, 1), an eps >= 0), else an
    ArgumentError naming it."""
    number = isinstance(value, (int, float, np.floating, np.integer)) and not isinstance(
        value, bool
    )
    if not number:
        raise ArgumentTypeError(
            f"{who}: {name} must be a number; got {type(value).__name__} {value!r:.40}"
        )
    value = float(value)
    above = value > low if low_open else value >= low
    below = value < high if high_open else value <= high
    if not (above and below and math.isfinite(value)):
        interval = f"{'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
        raise ArgumentError(
            f"{who}: {name} must lie in {interval}; got {value!r} (the usual "
            f"values: b1=0.9, b2=0.999, decay=0.99, mass=0.9, eps=1e-8)"
        )
    return value


# ---------------------------------------------------------------- clipping


def clip_by_global_norm(grads, max_norm=None):
    """``grads`` scaled down so that the norm of all their entries together is at most
    ``max_norm``; ``clip_by_global_norm(max_norm)`` alone is that transformation (optax's).

    >>> import numpy as np
    >>> from funcgrad.optim import clip_by_global_norm
    >>> clip_by_global_norm({"a": np.array([3.0]), "b": np.array([4.0])}, 1.0)
    {'a': array([0.6]), 'b': array([0.8])}
    """
    if max_norm is None:
        limit = grads
        clip_by_global_norm(0.0, limit)  # checks the limit now, not at the first update
        return _stateless("clip_by_global_norm", lambda u, p: clip_by_global_norm(u, limit))
    if (
        isinstance(max_norm, bool)
        or not isinstance(max_norm, (int, float, np.floating))
        or not (max_norm > 0)
    ):
        raise ArgumentError(
            f"clip_by_global_norm: max_norm must be a positive number; got {max_norm!r:.40}"
        )
    traced = [g for g in tree_leaves(grads) if isinstance(g, Box)]
    if traced:
        # Under a transform the norm is part of the function: differentiated, batched per
        # example, computed at every jitted call (reading the values would freeze one).
        total = None
        for g in tree_leaves(grads):
            squares = elementwise.real(g * elementwise.conjugate(g)) if is_complex(g) else g * g
            part = arrays.sum(squares)
            total = part if total is None else total + part
        scale = max_norm / elementwise.maximum(elementwise.sqrt(total), float(max_norm))
        return tree_map(lambda g: g * scale, grads)
    leaves = [raw(g) for g in tree_leaves(grads)]
    foreign = [g for g in leaves if is_foreign(g)]
    if foreign:  # the norm in the gradients' own library: lazy for Dask, on the device for GPUs
        xp = namespace_of(foreign)
        total = (
            sum(
                (
                    xp.sum(xp.abs(g) ** 2) if is_foreign(g) else float(np.sum(np.abs(g) ** 2))
                    for g in leaves
                ),
                0.0,
            )
            ** 0.5
        )
        scale = max_norm / xp.maximum(total, max_norm)
        return tree_map(lambda g: g * scale, grads)
    total = math.sqrt(sum(float(np.sum(np.abs(g) ** 2)) for g in leaves))
    if total <= max_norm:
        return grads
    scale = max_norm / total
    return tree_map(lambda g: g * scale, grads)


def clip_by_value(grads, low, high=None):
    """Every gradient entry clipped to ``[low, high]``; ``clip_by_value(low, high)`` alone is
    that transformation (optax's).

    >>> import numpy as np
    >>> from funcgrad.optim import clip_by_value
    >>> clip_by_value([np.array([-3.0, 0.5, 2.0])], -1.0, 1.0)
    [array([-1. ,  0.5,  1. ])]
    """
    if high is None:
        lo, hi = grads, low
        return _stateless("clip_by_value", lambda u, p: clip_by_value(u, lo, hi))
    return tree_map(
        lambda g: namespace_of((g,)).clip(g, low, high) if is_foreign(g) else np.clip(g, low, high),
        grads,
    )


# ---------------------------------------------------------------- optimizers


def _zeros(params):
    """Zero slots like the params: NumPy's, or each param's own library (lazy for Dask)."""
    return tree_map(lambda p: zeros_like_value(p) if np.ndim(p) else 0.0, params)


def _sqrt(v):
    """NumPy's sqrt, or the value's own square root for another library's array."""
    return v**0.5 if is_foreign(v) else np.sqrt(v)


def _check_step(who, grads, params, state, slots=0):
    """grads shaped like params, and the state what init made for them; else a clear error."""
    g_leaves, g_def = tree_flatten(grads)
    p_leaves, p_def = tree_flatten(params)
    if g_def != p_def:
        raise ArgumentError(
            f"{who}: grads have structure {g_def!r}, but params have {p_def!r}; "
            f"pass update(grads, state, params) with grads of the params"
        )
    for k, (g, p) in enumerate(zip(g_leaves, p_leaves)):
        if np.shape(g) != np.shape(p):
            raise ArgumentError(
                f"{who}: gradient {k} has shape {np.shape(g)}, but its parameter "
                f"has shape {np.shape(p)}"
            )
    if not isinstance(state, State):
        raise ArgumentTypeError(
            f"{who}: the state is a {type(state).__name__}, not what this "
            f"optimizer's init made; pass the state its init (or last update) returned"
        )
    for slot in state[1 : 1 + slots]:
        if tree_structure(slot) != p_def:
            raise ArgumentError(
                f"{who}: the state was made for params of structure {tree_structure(slot)!r}, "
                f"but these params have {p_def!r}; make the state with init(params) of these "
                f"params"
            )


def _optimizer(who, learning_rate, slots, step_rule):
    """An optimizer from ``step_rule(lr, step, p, g, *slots) -> (change of p, *slots)`` per leaf."""
    schedule = _rate(learning_rate, who)

    def init(params):
        zeros = _zeros(params)
        return State(0, *([zeros] * slots))

    def move(grads, state, params, apply):
        _check_step(f"{who}.update", grads, params, state, slots)
        lr = schedule(state.step)
        p_leaves, treedef = tree_flatten(params)
        columns = [tree_leaves(grads)] + [tree_leaves(s) for s in state[1 : 1 + slots]]
        rows = [step_rule(lr, state.step + 1, p, *leaf) for p, *leaf in zip(p_leaves, *columns)]
        moved = [p + r[0] if apply else r[0] for p, r in zip(p_leaves, rows)]
        unflatten = lambda k: tree_unflatten(treedef, [r[k] for r in rows])
        return (
            tree_unflatten(treedef, moved),
            State(state.step + 1, *[unflatten(k) for k in range(1, 1 + slots)]),
        )

    def update(grads, state, params=None):
        return move(grads, state, _given(params, "update"), False)

    def step(grads, state, params=None):
        return move(grads, state, _given(params, "step"), True)

    def _given(params, method):
        if params is None:  # optax's update takes no params; a step rule here may read them
            raise ArgumentTypeError(
                f"{who}.{method}(grads, state, params): params is missing; pass the parameters "
                f"the gradients are of as the third argument"
            )
        return params

    return Optimizer(*_named(who, init, update, step))


def sgd(learning_rate):
    """Plain gradient descent: ``p - lr * g``.

    >>> import funcgrad as fg
    >>> opt = fg.optim.sgd(0.5)
    >>> opt.step(2.0, opt.init(1.0), 1.0)[0]
    0.0
    """
    return _optimizer("sgd", learning_rate, 0, lambda lr, t, p, g: (-lr * g,))


def momentum(learning_rate, mass=0.9, nesterov=False):
    """Heavy-ball momentum (``torch.optim.SGD(momentum=mass)``): ``v = mass * v + g``,
    ``p - lr * v``; with ``nesterov=True`` the step is ``g + mass * v``.

    >>> import funcgrad as fg
    >>> opt = fg.optim.momentum(0.05)
    >>> p = 0.0; s = opt.init(p)
    >>> for _ in range(300):
    ...     p, s = opt.step(fg.grad(lambda w: (w - 1.0) ** 2)(p), s, p)
    >>> round(float(p), 6)
    1.0
    """
    mass = _setting("momentum", "mass", mass, 0.0, 1.0)

    def rule(lr, t, p, g, v):
        v = mass * v + g
        return -lr * (g + mass * v if nesterov else v), v

    return _optimizer("nesterov" if nesterov else "momentum", learning_rate, 1, rule)


def nesterov(learning_rate, mass=0.9):
    """Nesterov momentum: ``momentum(learning_rate, mass, nesterov=True)``.

    >>> import funcgrad as fg
    >>> opt = fg.optim.nesterov(0.1)
    >>> round(float(opt.step(1.0, opt.init(0.0), 0.0)[0]), 6)
    -0.19
    """
    return momentum(learning_rate, mass, nesterov=True)


def adagrad(learning_rate=0.01, eps=1e-10):
    """AdaGrad (``torch.optim.Adagrad``): ``s = s + g^2``, ``p - lr * g / (sqrt(s) + eps)``.

    >>> import funcgrad as fg
    >>> opt = fg.optim.adagrad(0.5)
    >>> round(float(opt.step(2.0, opt.init(1.0), 1.0)[0]), 6)
    0.5
    """
    eps = _setting("adagrad", "eps", eps, 0.0, math.inf)

    def rule(lr, t, p, g, s):
        s = s + g * g
        return -lr * g / (_sqrt(s) + eps), s

    return _optimizer("adagrad", learning_rate, 1, rule)


def rmsprop(learning_rate=0.01, decay=0.99, eps=1e-8):
    """RMSProp (``torch.optim.RMSprop(alpha=decay)``): ``v = decay * v + (1 - decay) g^2``,
    ``p - lr * g / (sqrt(v) + eps)``.

    >>> import funcgrad as fg
    >>> opt = fg.optim.rmsprop(0.1, decay=0.75)
    >>> round(float(opt.step(3.0, opt.init(0.0), 0.0)[0]), 6)
    -0.2
    """
    decay = _setting("rmsprop", "decay", decay, 0.0, 1.0)
    eps = _setting("rmsprop", "eps", eps, 0.0, math.inf)

    def rule(lr, t, p, g, v):
        v = decay * v + (1.0 - decay) * g * g
        return -lr * g / (_sqrt(v) + eps), v

    return _optimizer("rmsprop", learning_rate, 1, rule)


def _adam_rule(b1, b2, eps, weight_decay):
    def rule(lr, t, p, g, m, v):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        c1, c2 = 1 - b1**t, 1 - b2**t
        change = -lr * (m / c1) / ((v / c2) ** 0.5 + eps)
        return (change - lr * weight_decay * p if weight_decay else change), m, v

    return rule


def adam(learning_rate=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """Adam with bias correction (Kingma and Ba, 2015; ``torch.optim.Adam``).

    >>> import funcgrad as fg
    >>> opt = fg.optim.adam(0.1)
    >>> p = 5.0; s = opt.init(p)
    >>> for _ in range(500):
    ...     p, s = opt.step(fg.grad(lambda w: (w + 2.0) ** 2)(p), s, p)
    >>> round(float(p), 3)
    -2.0
    """
    who = "adam"
    b1, b2 = _setting(who, "b1", b1, 0.0, 1.0), _setting(who, "b2", b2, 0.0, 1.0)
    eps = _setting(who, "eps", eps, 0.0, math.inf)
    return _optimizer("adam", learning_rate, 2, _adam_rule(b1, b2, eps, 0.0))


def adamw(learning_rate=1e-3, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.01):
    """Adam with decoupled weight decay (Loshchilov and Hutter, 2019; ``torch.optim.AdamW``):
    ``p - lr * weight_decay * p`` before Adam's step.

    >>> import funcgrad as fg
    >>> opt = fg.optim.adamw(0.1, weight_decay=0.5)
    >>> round(float(opt.step(0.0, opt.init(2.0), 2.0)[0]), 6)
    1.9
    """
    who = "adamw"
    b1, b2 = _setting(who, "b1", b1, 0.0, 1.0), _setting(who, "b2", b2, 0.0, 1.0)
    eps = _setting(who, "eps", eps, 0.0, math.inf)
    weight_decay = _setting(who, "weight_decay", weight_decay, 0.0, math.inf)
    return _optimizer("adamw", learning_rate, 2, _adam_rule(b1, b2, eps, weight_decay))


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
