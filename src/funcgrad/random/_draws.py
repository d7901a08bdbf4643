"""What every sampler of :mod:`funcgrad.random` shares: shapes and dtypes checked, a
primitive draw from the key, and the refusal to differentiate a family's parameters."""

import numpy as np

from ..core.errors import ArgumentError, ArgumentTypeError, NotDifferentiableError
from ..core.values import plain
from ..rules import random as prims

__all__ = ["checked_shape", "float_dtype", "draw", "standard", "is_number", "untraced", "family"]


def checked_shape(shape, who):
    if shape is None:
        return ()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    try:
        shape = tuple(int(n) for n in shape)
    except TypeError:
        raise ArgumentTypeError(
            f"{who}: shape must be a tuple of ints; got {shape!r:.40}"
        ) from None
    if any(n < 0 for n in shape):
        raise ArgumentError(f"{who}: shape must not be negative; got {shape}")
    return shape


def float_dtype(dtype, who):
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise ArgumentTypeError(f"{who}: dtype must be a float dtype; got {dtype}")
    return dtype.str


def draw(k, distribution, shape, dtype, *parameters, who):
    return prims.sample(
        prims.check_key(k, who),
        *parameters,
        distribution=distribution,
        shape=checked_shape(shape, who),
        dtype=dtype,
    )


def standard(k, distribution, shape, dtype):
    """Numbers of a standard distribution (no parameters but the key), of a float dtype."""
    who = f"fg.random.{distribution}"
    return draw(k, distribution, shape, float_dtype(dtype, who), who=who)


def is_number(v, number):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == number


def untraced(v, name, who):
    if plain(v) is not v:
        raise NotDifferentiableError(
            f"{who}: the samples are not differentiable in {name} here (JAX differentiates "
            f"gamma, beta and dirichlet by implicit reparameterization; funcgrad does not): "
            f"wrap {name} in fg.stop_gradient, or sample a reparameterizable family"
        )
    return v


def family(k, distribution, shape, dtype, who, **parameters):
    values = [untraced(v, n, who) for n, v in parameters.items()]
    if shape is None:
        shape = np.broadcast_shapes(*(np.shape(plain(v)) for v in values))
    return draw(k, distribution, shape, dtype, *values, who=who)
