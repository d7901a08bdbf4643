"""Optimizers as triples of pure functions, in the shape of JAX's
``example_libraries.optimizers``.

An optimizer is ``(init_fun, update_fun, get_params)``: ``init_fun(params)`` makes a
state, ``update_fun(step, grads, state)`` returns the next state and
``get_params(state)`` reads the params back. ``params`` and ``grads`` are pytrees; the
state is an :class:`OptimizerState`, itself a pytree, so a step runs under ``fg.jit``
with the step number traced. Step sizes are numbers or schedules (functions of the
step). Each rule is written for one array and lifted to trees by :func:`optimizer`, as
in JAX; the updates are JAX's formulas. (``funcgrad.optim`` is funcgrad's own library in
optax's shape; this module is for programs written on JAX's example library.)

>>> import numpy as np
>>> import funcgrad as fg
>>> from funcgrad.example_libraries import optimizers
>>> opt_init, opt_update, get_params = optimizers.adam(0.1)
>>> loss = lambda p: (p["w"] - 3.0) ** 2
>>> @fg.jit
... def step(i, state):
...     return opt_update(i, fg.grad(loss)(get_params(state)), state)
>>> state = opt_init({"w": 0.0})
>>> for i in range(300):
...     state = step(i, state)
>>> round(float(get_params(state)["w"]), 4)
3.0
"""

import functools
from collections import namedtuple
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .. import numpy as fnp
from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.tree import register_pytree_node, tree_flatten, tree_leaves, tree_map, tree_unflatten

__all__ = [
    "Optimizer",
    "OptimizerState",
    "optimizer",
    "sgd",
    "momentum",
    "nesterov",
    "adagrad",
    "rmsprop",
    "rmsprop_momentum",
    "adam",
    "adamax",
    "sm3",
    "constant",
    "exponential_decay",
    "inverse_time_decay",
    "polynomial_decay",
    "piecewise_constant",
    "make_schedule",
    "l2_norm",
    "clip_grads",
    "JoinPoint",
    "unpack_optimizer_state",
    "pack_optimizer_state",
]

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
OptimizerState.__doc__ = """An optimizer's state: each parameter's own state, flattened
(``packed_state``), and the structures that rebuild the trees (``tree_def``,
``subtree_defs``). A pytree whose only leaves are in ``packed_state``.

>>> import funcgrad as fg
>>> from funcgrad.example_libraries import optimizers
>>> state = optimizers.momentum(0.1, 0.9)[0]({"a": 1.0, "b": 2.0})
>>> len(fg.tree_util.tree_leaves(state))   # each parameter and its velocity
4
"""
register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], *aux),
)


class Optimizer(NamedTuple):
    """What an optimizer is: ``(init_fun, update_fun, get_params)``.

    >>> from funcgrad.example_libraries import optimizers
    >>> opt_init, opt_update, get_params = optimizers.sgd(0.5)
    >>> get_params(opt_update(0, 2.0, opt_init(1.0)))
    0.0
    """

    init_fn: Callable
    update_fn: Callable
    params_fn: Callable


def optimizer(opt_maker):
    """Lift an optimizer of one array to one of pytrees: ``opt_maker(*args)`` returns
    ``(init, update, get_params)`` for a single array; the result takes trees, keeping
    one state per leaf (a decorator, as in JAX).

    >>> from funcgrad.example_libraries.optimizers import optimizer
    >>> @optimizer
    ... def halve():
    ...     return (lambda x: x), (lambda i, g, x: x / 2), (lambda x: x)
    >>> init, update, get = halve()
    >>> get(update(0, {"a": 0.0, "b": [0.0]}, init({"a": 4.0, "b": [8.0]})))
    {'a': 2.0, 'b': [4.0]}
    """

    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            x0_flat, tree = tree_flatten(x0_tree)
            flats = [tree_flatten(init(x0)) for x0 in x0_flat]
            states_flat = [s for s, _ in flats]
            return OptimizerState(states_flat, tree, tuple(d for _, d in flats))

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = _unpacked(opt_state, "update_fun")
            grad_flat, grad_tree_def = tree_flatten(grad_tree)
            if grad_tree_def != tree:
                raise ArgumentError(
                    f"optimizer update_fun: the gradient has structure {grad_tree_def!r}, but "
                    f"the params the state was made for have {tree!r}; pass the gradient of "
                    f"get_params(opt_state)"
                )
            states = [tree_unflatten(d, s) for d, s in zip(subtrees, states_flat)]
            flats = [tree_flatten(update(i, g, s)) for g, s in zip(grad_flat, states)]
            return OptimizerState([s for s, _ in flats], tree, tuple(d for _, d in flats))

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = _unpacked(opt_state, "get_params")
            states = [tree_unflatten(d, s) for d, s in zip(subtrees, states_flat)]
            return tree_unflatten(tree, [get_params(s) for s in states])

        return Optimizer(tree_init, tree_update, tree_get_params)

    return tree_opt_maker


def _unpacked(opt_state, who):
    if not isinstance(opt_state, OptimizerState):
        raise ArgumentTypeError(
            f"optimizer {who}: the state is a {type(opt_state).__name__}, not an OptimizerState; "
            f"pass what init_fun (or the last update_fun) returned"
        )
    return opt_state


# ---------------------------------------------------------------- the rules, per array


def _zeros(x):
    return fnp.zeros_like(x)


@optimizer
def sgd(step_size):
    """Gradient descent: ``x - step_size(i) * g``.

    >>> from funcgrad.example_libraries import optimizers
    >>> init, update, get_params = optimizers.sgd(0.1)
    >>> get_params(update(0, 2.0, init(1.0)))
    0.8
    """
    step_size = make_schedule(step_size)
    return (lambda x0: x0), (lambda i, g, x: x - step_size(i) * g), (lambda x: x)


@optimizer
def momentum(step_size, mass):
    """Heavy-ball momentum: ``v = mass * v + g``, ``x - step_size(i) * v``.

    >>> from funcgrad.example_libraries import optimizers
    >>> init, update, get_params = optimizers.momentum(0.1, 0.9)
    >>> state = update(1, 1.0, update(0, 1.0, init(0.0)))
    >>> round(float(get_params(state)), 10)
    -0.29
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity

    return (lambda x0: (x0, _zeros(x0))), update, (lambda state: state[0])


@optimizer
def nesterov(step_size, mass):
    """Nesterov's momentum: ``v = mass * v + g``, ``x - step_size(i) * (mass * v + g)``.

    >>> from funcgrad.example_libraries import optimizers
    >>> init, update, get_params = optimizers.nesterov(0.1, 0.9)
    >>> round(float(get_params(update(0, 1.0, init(0.0)))), 10)
    -0.19
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g), velocity

    return (lambda x0: (x0, _zeros(x0))), update, (lambda state: state[0])


def _inverse_sqrt(s):
    """``1 / sqrt(s)`` where ``s > 0``, else 0 (a parameter whose gradient was 0 so far)."""
    safe = fnp.where(s > 0, s, 1.0)
    return fnp.where(s > 0, 1.0 / fnp.sqrt(safe), 0.0)


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad with momentum: ``g`` over the root of the summed squares of all gradients
    so far, averaged with ``momentum``.

    >>> from funcgrad.example_libraries import optimizers
    >>> init, update, get_params = optimizers.adagrad(1.0, momentum=0.0)
    >>> float(get_params(update(0, 4.0, init(0.0))))
    -1.0
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + g**2
        m = (1.0 - momentum) * (g * _inverse_sqrt(g_sq)) + momentum * m
        return x - step_size(i) * m, g_sq, m

    return (lambda x0: (x0, _zeros(x0), _zeros(x0))), update, (lambda state: state[0])


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp: ``g / sqrt(avg + eps)``, ``avg`` the moving mean of ``g ** 2``.

    >>> from funcgrad.example_libraries import optimizers
    >>> init, update, get_params = optimizers.rmsprop(0.1, gamma=0.0)
    >>> round(float(get_params(update(0, 2.0, init(1.0)))), 6)
    0.9
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + g**2 * (1.0 - gamma)
        return x - step_size(i) * g / fnp.sqrt(avg_sq_grad + eps), avg_sq_grad

    return (lambda x0: (x0, _zeros(x0))), update, (lambda state: state[0])


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp whose steps gather momentum: ``mom = momentum * mom + step_size(i) * g /
    sqrt(avg + eps)``, ``x - mom``.

    >>> from funcgrad.example_libraries import optimizers
    >>> init, update, get_params = optimizers.rmsprop_momentum(0.1, gamma=0.0)
    >>> round(float(get_params(update(0, 2.0, init(1.0)))), 6)
    0.9
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + g**2 * (1.0 - gamma)
        mom = momentum * mom + step_size(i) * g / fnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    return (lambda x0: (x0, _zeros(x0), _zeros(x0))), update, (lambda state: state[0])


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam: the moving means of ``g`` and ``g ** 2``, corrected for their start at zero,
    ``x - step_size(i) * m_hat / (sqrt(v_hat) + eps)``.

    >>> from funcgrad.example_libraries import optimizers
    >>> init, update, get_params = optimizers.adam(0.1)
    >>> round(float(get_params(update(0, 5.0, init(1.0)))), 6)
    0.9
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g**2 + b2 * v
        m_hat = m / (1 - b1 ** (i + 1))
        v_hat = v / (1 - b2 ** (i + 1))
        return x - step_size(i) * m_hat / (fnp.sqrt(v_hat) + eps), m, v

    return (lambda x0: (x0, _zeros(x0), _zeros(x0))), update, (lambda state: state[0])


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adamax: Adam with the infinity norm, ``u = max(b2 * u, |g|)``.

    >>> from funcgrad.example_libraries import optimizers
    >>> init, update, get_params = optimizers.adamax(0.1)
    >>> round(float(get_params(update(0, 5.0, init(1.0)))), 6)
    0.9
    """
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = fnp.maximum(b2 * u, fnp.abs(g))
        return x - (step_size(i) / (1 - b1 ** (i + 1))) * m / (u + eps), m, u

    return (lambda x0: (x0, _zeros(x0), _zeros(x0))), update, (lambda state: state[0])


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3 (memory-efficient adaptive steps): one accumulator per index of each axis, the
    smallest that covers an entry standing for its summed squared gradients.

    >>> import numpy as np
    >>> from funcgrad.example_libraries import optimizers
    >>> init, update, get_params = optimizers.sm3(1.0, momentum=0.0)
    >>> get_params(update(0, np.array([[3.0, 4.0]]), init(np.zeros((1, 2)))))
    array([[-1., -1.]])
    """
    step_size = make_schedule(step_size)

    def init(x0):
        shape = _Static(np.shape(x0))  # not a leaf: jit and loops keep it a tuple of ints
        x0 = fnp.atleast_1d(x0)
        return x0, _zeros(x0), [fnp.zeros(n, dtype=x0.dtype) for n in np.shape(x0)], shape

    def update(i, g, state):
        x, m, vs, shape = state
        g = fnp.reshape(g, np.shape(x))
        ndim = len(np.shape(x))
        spread = [
            fnp.reshape(v, [-1 if k == j else 1 for k in range(ndim)]) for j, v in enumerate(vs)
        ]
        accum = functools.reduce(fnp.minimum, spread) + g**2
        m = (1.0 - momentum) * (g * _inverse_sqrt(accum)) + momentum * m
        x = x - step_size(i) * m
        vs = [fnp.max(accum, axis=tuple(k for k in range(ndim) if k != j)) for j in range(ndim)]
        return x, m, vs, shape

    return init, update, (lambda state: fnp.reshape(state[0], state[3].value))


class _Static:
    """A value a state carries as structure, not as a leaf (sm3's parameter shape)."""

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, _Static) and self.value == other.value

    def __hash__(self):
        return hash(self.value)


register_pytree_node(_Static, lambda s: ((), s.value), lambda value, _: _Static(value))


# ---------------------------------------------------------------- schedules


def constant(step_size):
    """The same step size at every step.

    >>> from funcgrad.example_libraries.optimizers import constant
    >>> constant(0.1)(1000)
    0.1
    """

    def schedule(i):
        return step_size

    return schedule


def exponential_decay(step_size, decay_steps, decay_rate):
    """``step_size * decay_rate ** (i / decay_steps)``.

    >>> from funcgrad.example_libraries.optimizers import exponential_decay
    >>> float(exponential_decay(1.0, 10, 0.5)(20))
    0.25
    """

    def schedule(i):
        return step_size * decay_rate ** (i / decay_steps)

    return schedule


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    """``step_size / (1 + decay_rate * i / decay_steps)``; whole periods with ``staircase``.

    >>> from funcgrad.example_libraries.optimizers import inverse_time_decay
    >>> float(inverse_time_decay(1.0, 10, 1.0)(15)), float(inverse_time_decay(1.0, 10, 1.0, True)(15))
    (0.4, 0.5)
    """

    def schedule(i):
        ratio = fnp.floor(i / decay_steps) if staircase else i / decay_steps
        return step_size / (1 + decay_rate * ratio)

    return schedule


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    """From ``step_size`` to ``final_step_size`` over ``decay_steps`` along
    ``(1 - i / decay_steps) ** power``, then constant.

    >>> from funcgrad.example_libraries.optimizers import polynomial_decay
    >>> [float(polynomial_decay(1.0, 10, 0.0)(i)) for i in (0, 5, 10, 20)]
    [1.0, 0.5, 0.0, 0.0]
    """

    def schedule(i):
        i = fnp.minimum(i, decay_steps)
        return (step_size - final_step_size) * (1 - i / decay_steps) ** power + final_step_size

    return schedule


def piecewise_constant(boundaries, values):
    """``values[k]`` for steps past ``k`` of the ``boundaries`` (one value more than
    boundaries).

    >>> from funcgrad.example_libraries.optimizers import piecewise_constant
    >>> [float(piecewise_constant([10, 20], [1.0, 0.5, 0.1])(i)) for i in (0, 10, 11, 25)]
    [1.0, 1.0, 0.5, 0.1]
    """
    boundaries, values = np.array(boundaries), np.array(values)
    if values.ndim != 1 or boundaries.ndim != 1 or len(values) != len(boundaries) + 1:
        raise ArgumentError(
            f"piecewise_constant: needs one value more than boundaries, both 1-D; got "
            f"{len(np.atleast_1d(values))} values for {len(np.atleast_1d(boundaries))} boundaries"
        )

    def schedule(i):
        return fnp.take(values, fnp.sum(i > boundaries))

    return schedule


def make_schedule(scalar_or_schedule):
    """A schedule from a number (:func:`constant`) or a schedule itself.

    >>> from funcgrad.example_libraries.optimizers import make_schedule
    >>> make_schedule(0.3)(7), make_schedule(lambda i: i / 10)(7)
    (0.3, 0.7)
    """
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if np.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise ArgumentTypeError(
        f"make_schedule: a step size is a number or a function of the step; got "
        f"{type(scalar_or_schedule).__name__} of shape {np.shape(scalar_or_schedule)}"
    )


# ---------------------------------------------------------------- utilities


def l2_norm(tree):
    """The Euclidean norm of all the leaves of ``tree`` together.

    >>> from funcgrad.example_libraries.optimizers import l2_norm
    >>> float(l2_norm({"a": 3.0, "b": [4.0]}))
    5.0
    """
    leaves = tree_leaves(tree)
    return fnp.sqrt(sum(fnp.vdot(x, x) for x in leaves)) if leaves else fnp.sqrt(0.0)


def clip_grads(grad_tree, max_norm):
    """The gradients scaled down to norm ``max_norm`` where their :func:`l2_norm` is
    larger, unchanged otherwise.

    >>> from funcgrad.example_libraries.optimizers import clip_grads
    >>> clip_grads({"a": 3.0, "b": 4.0}, 1.0)
    {'a': array(0.6), 'b': array(0.8)}
    """
    norm = l2_norm(grad_tree)
    return tree_map(lambda g: fnp.where(norm < max_norm, g, g * (max_norm / norm)), grad_tree)


class JoinPoint:
    """A marker of one parameter's state in an unpacked optimizer state: it holds that
    state (a pytree) as ``subtree`` and is itself a leaf.

    >>> from funcgrad.example_libraries import optimizers
    >>> state = optimizers.sgd(0.1)[0]({"w": 2.0})
    >>> optimizers.unpack_optimizer_state(state)["w"].subtree
    2.0
    """

    def __init__(self, subtree: Any):
        self.subtree = subtree

    def __iter__(self):
        yield self.subtree

    def __repr__(self):
        return f"JoinPoint({self.subtree!r})"


def unpack_optimizer_state(opt_state):
    """The state as a tree shaped like the params, each leaf a :class:`JoinPoint` holding
    that parameter's state (to save, inspect or edit it).

    >>> from funcgrad.example_libraries import optimizers
    >>> state = optimizers.momentum(0.1, 0.9)[0]({"w": 2.0})
    >>> optimizers.unpack_optimizer_state(state)
    {'w': JoinPoint((2.0, array(0.)))}
    """
    states_flat, tree, subtrees = _unpacked(opt_state, "unpack_optimizer_state")
    joins = [JoinPoint(tree_unflatten(d, s)) for d, s in zip(subtrees, states_flat)]
    return tree_unflatten(tree, joins)


def pack_optimizer_state(marked_pytree):
    """The :class:`OptimizerState` back from :func:`unpack_optimizer_state`'s tree.

    >>> from funcgrad.example_libraries import optimizers
    >>> init, update, get_params = optimizers.momentum(0.1, 0.9)
    >>> state = init({"w": 2.0})
    >>> again = optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(state))
    >>> get_params(update(0, {"w": 1.0}, again)) == get_params(update(0, {"w": 1.0}, state))
    True
    """
    joins, tree = tree_flatten(marked_pytree, is_leaf=lambda x: isinstance(x, JoinPoint))
    if not all(isinstance(j, JoinPoint) for j in joins):
        raise ArgumentTypeError(
            "pack_optimizer_state: every leaf must be a JoinPoint, as unpack_optimizer_state "
            "makes them"
        )
    flats = [tree_flatten(j.subtree) for j in joins]
    return OptimizerState([s for s, _ in flats], tree, tuple(d for _, d in flats))


def __dir__():
    return list(__all__)
