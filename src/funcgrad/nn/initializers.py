"""Weight initializers in the shape of ``jax.nn.initializers``: each maker returns
``init(key, shape, dtype=float64)``, an array drawn from :mod:`funcgrad.random` with
the key, so the same key gives the same weights in any process.

The variance-scaling family sets the weights' variance to ``scale / n``, where
``n`` is the fan in, the fan out or their mean (``mode``), counted as JAX counts
them: a kernel's ``in_axis`` (-2) and ``out_axis`` (-1) times the size of the
other axes (a convolution's window).

>>> import funcgrad as fg
>>> init = fg.nn.initializers.glorot_uniform()
>>> w = init(fg.random.key(0), (64, 32))
>>> w.shape, bool(abs(w).max() <= (6 / (64 + 32)) ** 0.5)
((64, 32), True)
"""

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import numpy as fnp
from .. import random
from ..core.errors import ArgumentError, ShapeError

__all__ = [
    "zeros",
    "ones",
    "constant",
    "uniform",
    "normal",
    "truncated_normal",
    "variance_scaling",
    "glorot_uniform",
    "glorot_normal",
    "xavier_uniform",
    "xavier_normal",
    "lecun_uniform",
    "lecun_normal",
    "he_uniform",
    "he_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
]

Initializer = Callable[..., Any]

# the standard deviation of a unit normal truncated to [-2, 2], which truncated_normal
# divides by so that the truncated draws have the variance asked for
_TRUNCATED_STD = 0.87962566103423978


def zeros(key: Any, shape: Any, dtype: Any = np.float64) -> Any:
    """Zeros (an initializer itself, as JAX's).

    >>> from funcgrad.nn.initializers import zeros
    >>> zeros(None, (2,))
    array([0., 0.])
    """
    return np.zeros(shape, dtype)


def ones(key: Any, shape: Any, dtype: Any = np.float64) -> Any:
    """Ones (an initializer itself, as JAX's).

    >>> import numpy as np
    >>> from funcgrad.nn.initializers import ones
    >>> ones(None, (2,), np.float32)
    array([1., 1.], dtype=float32)
    """
    return np.ones(shape, dtype)


def constant(value: Any, dtype: Any = np.float64) -> Initializer:
    """An initializer filling with ``value``.

    >>> from funcgrad.nn.initializers import constant
    >>> constant(0.5)(None, (2,))
    array([0.5, 0.5])
    """

    def init(key, shape, dtype=dtype):
        return np.full(shape, value, dtype)

    return init


def uniform(scale: float = 1e-2, dtype: Any = np.float64) -> Initializer:
    """Uniform on ``[0, scale)``.

    >>> import funcgrad as fg
    >>> from funcgrad.nn.initializers import uniform
    >>> bool(uniform(2.0)(fg.random.key(1), (100,)).max() < 2.0)
    True
    """

    def init(key, shape, dtype=dtype):
        return random.uniform(key, shape, dtype, 0.0, scale)

    return init


def normal(stddev: float = 1e-2, dtype: Any = np.float64) -> Initializer:
    """Normal with mean 0 and ``stddev``.

    >>> import funcgrad as fg
    >>> from funcgrad.nn.initializers import normal
    >>> normal(3.0)(fg.random.key(1), (2, 2)).shape
    (2, 2)
    """

    def init(key, shape, dtype=dtype):
        return stddev * random.normal(key, shape, dtype)

    return init


def truncated_normal(
    stddev: float = 1e-2, dtype: Any = np.float64, lower: float = -2.0, upper: float = 2.0
) -> Initializer:
    """A unit normal truncated to ``[lower, upper]``, times ``stddev``.

    >>> import funcgrad as fg
    >>> from funcgrad.nn.initializers import truncated_normal
    >>> bool(abs(truncated_normal(1.0)(fg.random.key(1), (1000,))).max() <= 2.0)
    True
    """

    def init(key, shape, dtype=dtype):
        return stddev * random.truncated_normal(key, lower, upper, shape, dtype)

    return init


def _fans(shape, in_axis, out_axis):
    if len(shape) < 2:
        raise ShapeError(
            f"variance_scaling: a kernel of at least 2 axes has a fan in and a fan "
            f"out; got shape {tuple(shape)}"
        )
    n = len(shape)
    ins, outs = _axes(in_axis, n), _axes(out_axis, n)
    window = math.prod(d for a, d in enumerate(shape) if a not in ins and a not in outs)
    return (math.prod(shape[a] for a in ins) * window, math.prod(shape[a] for a in outs) * window)


def _axes(axis, n):
    return {a % n for a in (axis if isinstance(axis, (tuple, list)) else (axis,))}


def variance_scaling(
    scale: float,
    mode: str,
    distribution: str,
    in_axis: Any = -2,
    out_axis: Any = -1,
    dtype: Any = np.float64,
) -> Initializer:
    """Weights of variance ``scale / n``: ``n`` is the fan in, the fan out or their mean
    (``mode``: ``"fan_in"``, ``"fan_out"``, ``"fan_avg"``), drawn from a
    ``"truncated_normal"``, ``"normal"`` or ``"uniform"`` distribution.

    >>> import funcgrad as fg
    >>> from funcgrad.nn.initializers import variance_scaling
    >>> w = variance_scaling(2.0, "fan_in", "normal")(fg.random.key(3), (400, 300))
    >>> round(float(w.var() * 400), 1)
    2.0
    """
    if mode not in ("fan_in", "fan_out", "fan_avg"):
        raise ArgumentError(
            f"variance_scaling: mode is 'fan_in', 'fan_out' or 'fan_avg'; got {mode!r}"
        )
    if distribution not in ("truncated_normal", "normal", "uniform"):
        raise ArgumentError(
            f"variance_scaling: distribution is 'truncated_normal', 'normal' or "
            f"'uniform'; got {distribution!r}"
        )

    def init(key, shape, dtype=dtype):
        fan_in, fan_out = _fans(tuple(shape), in_axis, out_axis)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
        variance = scale / n
        if distribution == "truncated_normal":
            return truncated_normal(math.sqrt(variance) / _TRUNCATED_STD, dtype)(key, shape)
        if distribution == "normal":
            return normal(math.sqrt(variance), dtype)(key, shape)
        bound = math.sqrt(3.0 * variance)
        return random.uniform(key, shape, dtype, -bound, bound)

    return init


def _preset(name, scale, mode, distribution, who):
    """JAX's named member of the variance-scaling family."""

    def make(in_axis: Any = -2, out_axis: Any = -1, dtype: Any = np.float64) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, dtype)

    make.__name__ = make.__qualname__ = name
    fan = {"fan_in": 400, "fan_out": 300, "fan_avg": 350}[mode]  # of the example's shape
    make.__doc__ = (
        f"{who}: ``variance_scaling({scale}, {mode!r}, {distribution!r})``.\n\n"
        f">>> import funcgrad as fg\n"
        f">>> w = fg.nn.initializers.{name}()(fg.random.key(0), (400, 300))\n"
        f">>> w.shape, bool(abs(w.var() * {fan} / {scale} - 1.0) < 0.05)    # variance "
        f"{scale} / {mode}\n((400, 300), True)\n"
    )
    return make


glorot_uniform = _preset("glorot_uniform", 1.0, "fan_avg", "uniform", "Glorot (Xavier) uniform")
glorot_normal = _preset(
    "glorot_normal", 1.0, "fan_avg", "truncated_normal", "Glorot (Xavier) normal"
)
lecun_uniform = _preset("lecun_uniform", 1.0, "fan_in", "uniform", "LeCun uniform")
lecun_normal = _preset("lecun_normal", 1.0, "fan_in", "truncated_normal", "LeCun normal")
he_uniform = _preset("he_uniform", 2.0, "fan_in", "uniform", "He (Kaiming) uniform")
he_normal = _preset("he_normal", 2.0, "fan_in", "truncated_normal", "He (Kaiming) normal")

xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale: float = 1.0, column_axis: int = -1, dtype: Any = np.float64) -> Initializer:
    """A (semi-)orthogonal matrix times ``scale``: the Q of a normal matrix's QR
    factorisation, signs fixed by R's diagonal; the axes other than ``column_axis`` are
    its rows, flattened.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.nn.initializers import orthogonal
    >>> q = orthogonal()(fg.random.key(0), (4, 3))
    >>> bool(np.allclose(q.T @ q, np.eye(3)))
    True
    """

    def init(key, shape, dtype=dtype):
        shape = tuple(shape)
        if len(shape) < 2:
            raise ShapeError(f"orthogonal: needs at least 2 axes; got shape {shape}")
        axis = column_axis % len(shape)
        cols = shape[axis]
        rows = math.prod(shape) // cols
        q, r = fnp.linalg.qr(random.normal(key, (max(rows, cols), min(rows, cols)), dtype))
        q = q * fnp.sign(fnp.diagonal(r))
        if rows < cols:
            q = q.T  # rows x cols, orthonormal rows
        others = shape[:axis] + shape[axis + 1 :]
        return scale * fnp.moveaxis(fnp.reshape(q, others + (cols,)), -1, axis)

    return init


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
