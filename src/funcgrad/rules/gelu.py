"""GELU's tanh form as one primitive, and its slope as another.

    primitive         value                                     derivative in x
    ----------------  ----------------------------------------  --------------------------
    gelu_tanh         x (1 + t) / 2                              gelu_tanh_slope(x)
    gelu_tanh_slope   (1 + t) / 2 + x (1 - t^2) u' / 2           written with tanh, for the
                                                                 second order and beyond

with ``u = c (x + a x^3)``, ``t = tanh(u)``, ``u' = c (1 + 3 a x^2)``, ``c = sqrt(2 /
pi)`` and ``a = 0.044715`` (the transformer's approximation, ``jax.nn.gelu(x,
approximate=True)``, PyTorch's ``gelu(x, approximate="tanh")``).

Composed of nine elementwise primitives, the activation and its cotangent take about
thirty passes over the activation, each into a fresh array: each primitive's result, each
edge's ``g * d``, each sum of two cotangents. As two primitives, the value is nine passes
and the cotangent ``g * slope`` sixteen and one, each pass over a chunk that stays in
the cache (:data:`CHUNK`): 9.1 -> 3.1 ms for a GPT's 16 x 64 x 512 float32 activation,
value and cotangent. The slope's own derivative, which only Hessians and ``jet`` take, is
written with ``tanh`` and products, so ``gelu_tanh`` differentiates to any order. A
jitted gradient, which needs the value and the slope of the same activation, makes both
in one call (``together``): one ``tanh`` and one read of ``x`` instead of two, the slope
kept from the forward pass to the backward.
Both are elementwise, so vmap broadcasts them, and on another library's arrays each is
the same formula in its namespace.

>>> import numpy as np
>>> x = np.array([-1.0, 0.0, 2.0])
>>> gelu_tanh(x).round(6)
array([-0.158808,  0.      ,  1.954598])
>>> gelu_tanh_slope(x).round(6)
array([-0.082964,  0.5     ,  1.086099])
"""

import math

import numpy as np

from .elementwise import elementwise, tanh

__all__ = ["gelu_tanh", "gelu_tanh_slope"]

# u's constants, c and a above (numba plans' GELU kernels read them too)
C = math.sqrt(2.0 / math.pi)
A = 0.044715


def _as_float(x):
    """``x`` as an array of a floating (or complex) dtype: integers as float64, as the
    composed formula's ``0.5 * x`` gives them."""
    x = np.asarray(x)
    return x if x.dtype.kind in "fc" else x.astype(np.float64)


# Elements a kernel takes at a time: its passes then run over a few arrays of 128 KiB
# (float32) that stay in the cache, instead of over the whole activation from memory
# (a GPT's 2 MiB activation: the slope 2.1 -> 1.4 ms, the value 1.2 -> 0.85 ms).
CHUNK = 1 << 15


def _by_chunks(kernel, x, scratch, results=1):
    """``kernel(x, *outs, *buffers)`` over ``x`` a chunk of :data:`CHUNK` elements at a
    time, with ``scratch`` buffers of a chunk each, reused from chunk to chunk (mutable
    buffers inside the impl, never seen outside it); the result in a new array (``results``
    of them, in a tuple, where there are more)."""
    x = _as_float(x)
    flat = x.reshape(-1)
    outs = [np.empty(flat.shape, x.dtype) for _ in range(results)]
    n = max(1, min(CHUNK, flat.size))  # an empty array: no chunk
    buffers = [np.empty(n, x.dtype) for _ in range(scratch)]
    for lo in range(0, flat.size, n):
        hi = min(flat.size, lo + n)
        kernel(flat[lo:hi], *(o[lo:hi] for o in outs), *(b[: hi - lo] for b in buffers))
    shaped = tuple(o.reshape(x.shape) for o in outs)
    return shaped if results > 1 else shaped[0]


def _tanh_of_u(x, t, x2):
    """``t = tanh(c (x + a x^3))``, from ``x`` and ``x2 = x * x``."""
    np.multiply(x2, A, out=t)
    t += 1.0
    t *= x
    t *= C
    np.tanh(t, out=t)


def _value_from_t(x, y):
    """The value ``x (1 + t) / 2`` in place of ``y = t``."""
    y += 1.0
    y *= x
    y *= 0.5


def _slope_from_t(x, t, q, slope, s):
    """The slope ``(1 + t) / 2 + (1 - t^2) x u' / 2`` into ``slope`` (which may be ``t``)
    from ``t`` and ``q = x * x``; ``q`` and ``s`` are spent."""
    q *= 3.0 * A  # q becomes x u' / 2
    q += 1.0
    q *= x
    q *= 0.5 * C
    np.multiply(t, t, out=s)  # s becomes (1 - t^2) x u' / 2
    np.subtract(1.0, s, out=s)
    s *= q
    np.add(t, 1.0, out=slope)
    slope *= 0.5
    slope += s


def _gelu_tanh_kernel(x, y, x2):
    np.multiply(x, x, out=x2)
    _tanh_of_u(x, y, x2)
    _value_from_t(x, y)


def _gelu_tanh_slope_kernel(x, t, q, s):
    np.multiply(x, x, out=q)
    _tanh_of_u(x, t, q)
    _slope_from_t(x, t, q, t, s)


def _gelu_tanh_with_slope_kernel(x, y, slope, q, s):
    """The value into ``y`` and the slope into ``slope`` from one ``tanh``: the two
    kernels' operations, in the same order (the same bits)."""
    np.multiply(x, x, out=q)
    _tanh_of_u(x, y, q)
    _slope_from_t(x, y, q, slope, s)
    _value_from_t(x, y)


def _gelu_tanh_with_slope(x):
    """``(gelu_tanh(x), gelu_tanh_slope(x))`` in one call: jit's plan of a gradient calls
    it once for both (``together``), which saves the slope's ``tanh`` and its passes."""
    if type(x) is float or np.ndim(x) == 0:
        return _gelu_tanh_impl(x), _gelu_tanh_slope_impl(x)
    return _by_chunks(_gelu_tanh_with_slope_kernel, x, 2, results=2)


def _gelu_tanh_impl(x):
    if type(x) is float:
        return _gelu_tanh_form(math, x)
    if np.ndim(x) == 0:  # a NumPy number stays one, as the formula's operators give it
        return _gelu_tanh_form(np, _as_float(x)[()])
    return _by_chunks(_gelu_tanh_kernel, x, 1)


def _gelu_tanh_slope_impl(x):
    if type(x) is float:
        return _gelu_tanh_slope_form(math, x)
    if np.ndim(x) == 0:
        return _gelu_tanh_slope_form(np, _as_float(x)[()])
    return _by_chunks(_gelu_tanh_slope_kernel, x, 2)


def _gelu_tanh_form(xp, x):
    """The value in a namespace's ``tanh``: another library's, NumPy's for its numbers,
    ``math``'s for Python's floats."""
    return 0.5 * x * (1.0 + xp.tanh(C * (x + A * x * x * x)))


def _gelu_tanh_slope_form(xp, x):
    t = xp.tanh(C * (x + A * x * x * x))
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * C * (1.0 + 3.0 * A * x * x)


def _second(ans, x):
    """d slope / dx = (1 - t^2) (u' + x (u'' / 2 - t u'^2)), u'' = 6 a c x; in primitives,
    so it differentiates again."""
    t = tanh(C * (x + A * x * x * x))
    du = C * (1.0 + 3.0 * A * x * x)
    return (1.0 - t * t) * (du + x * (3.0 * A * C * x - t * du * du))


gelu_tanh_slope = elementwise(
    "gelu_tanh_slope", _gelu_tanh_slope_impl, _second, xp=_gelu_tanh_slope_form
)
gelu_tanh = elementwise(
    "gelu_tanh",
    _gelu_tanh_impl,
    lambda ans, x: gelu_tanh_slope(x),
    xp=_gelu_tanh_form,
    together=(gelu_tanh_slope, _gelu_tanh_with_slope),
    keeps_slope=True,  # an eager gradient makes the slope with the value (one tanh)
)
