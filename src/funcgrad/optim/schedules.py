"""Learning-rate schedules: functions of the step count (0 at the first update) that an
optimizer of :mod:`funcgrad.optim` takes wherever it takes a learning rate. A step count
may be traced (under jit, vmap or a loop), so the schedules' arithmetic and their choices
between pieces are primitives there and Python's on a plain count.

>>> from funcgrad.optim import cosine_decay
>>> cosine_decay(1.0, 10)(5)
0.5
"""

import math

import numpy as np

from ..core.errors import ArgumentError
from ..core.traces import Box
from ..rules import elementwise

__all__ = ["exponential_decay", "cosine_decay", "piecewise_constant", "warmup_cosine_decay"]


def _rate(learning_rate, who):
    """A schedule ``step -> rate``: a positive number stays constant."""
    if callable(learning_rate):
        return learning_rate
    if not (
        isinstance(learning_rate, (int, float))
        and not isinstance(learning_rate, bool)
        and learning_rate > 0
    ):
        raise ArgumentError(
            f"{who}: learning_rate must be a positive number or a schedule "
            f"(a function of the step count); got {learning_rate!r}"
        )
    value = float(learning_rate)
    return lambda step: value


def _min(a, b):
    """``min`` of a step count that jit, vmap or a loop may trace, and a number."""
    return elementwise.minimum(a, b) if isinstance(a, Box) else min(a, b)


def _cos(x):
    return elementwise.cos(x) if isinstance(x, Box) else math.cos(x)


def exponential_decay(init_value, decay_rate, decay_steps, staircase=False):
    """``init_value * decay_rate ** (step / decay_steps)`` (the exponent floored if staircase).

    >>> from funcgrad.optim import exponential_decay
    >>> [round(exponential_decay(1.0, 0.5, 2)(s), 4) for s in range(4)]
    [1.0, 0.7071, 0.5, 0.3536]
    """

    def schedule(step):
        exponent = step // decay_steps if staircase else step / decay_steps
        return init_value * decay_rate**exponent

    return schedule


def cosine_decay(init_value, decay_steps, alpha=0.0):
    """From ``init_value`` down a half cosine to ``alpha * init_value`` at ``decay_steps``, then flat.

    >>> from funcgrad.optim import cosine_decay
    >>> [round(cosine_decay(1.0, 4)(s), 4) for s in (0, 2, 4, 9)]
    [1.0, 0.5, 0.0, 0.0]
    """

    def schedule(step):
        t = _min(step, decay_steps) / decay_steps
        return init_value * ((1.0 - alpha) * 0.5 * (1.0 + _cos(math.pi * t)) + alpha)

    return schedule


def piecewise_constant(boundaries, values):
    """``values[i]`` for steps in ``[boundaries[i-1], boundaries[i])``: one more value than boundaries.

    >>> from funcgrad.optim import piecewise_constant
    >>> [piecewise_constant([2, 4], [1.0, 0.1, 0.01])(s) for s in (0, 2, 5)]
    [1.0, 0.1, 0.01]
    """
    if len(values) != len(boundaries) + 1:
        raise ArgumentError(
            f"piecewise_constant: give one more value than boundaries; got "
            f"{len(boundaries)} boundaries and {len(values)} values"
        )

    def schedule(step):
        if isinstance(step, Box):  # a traced step count: each boundary passed selects
            value = values[0]
            for boundary, after in zip(boundaries, values[1:]):
                value = elementwise.where(step >= boundary, after, value)
            return value
        return values[int(np.searchsorted(boundaries, step, side="right"))]

    return schedule


def warmup_cosine_decay(peak_value, warmup_steps, decay_steps, end_value=0.0):
    """A linear rise from 0 to ``peak_value`` over ``warmup_steps``, then a cosine decay to
    ``end_value`` at ``decay_steps`` (counted from the start).

    >>> from funcgrad.optim import warmup_cosine_decay
    >>> [round(warmup_cosine_decay(1.0, 2, 6)(s), 3) for s in (0, 1, 2, 4, 6)]
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """

    def schedule(step):
        rise = peak_value * step / max(warmup_steps, 1)
        t = _min(step - warmup_steps, decay_steps - warmup_steps) / max(
            decay_steps - warmup_steps, 1
        )
        decay = end_value + (peak_value - end_value) * 0.5 * (1.0 + _cos(math.pi * t))
        if isinstance(step, Box):  # a traced step count: both, and the one that applies
            return elementwise.where(step < warmup_steps, rise, decay)
        return rise if step < warmup_steps else decay

    return schedule
