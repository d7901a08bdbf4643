"""GELU's tanh form as one primitive, and its slope as another.

    primitive         value                                     derivative in x
    ----------------  ----------------------------------------  --------------------------
    gelu_tanh         x (1 + t) / 2                              gelu_tanh_slope(x)
    gelu_tanh_slope   (1 + t) / 2 + x (1 - t^2) u' / 2           written with tanh, for the
                                                                 second order and beyond

with ``u = c (x + a x^3)``, ``t = tanh(u)``, ``u' = c (1 + 3 a x^2)``, ``c = sqrt(2 /
pi)`` and ``a = 0.044715`` (the transformer's approximation, ``jax.nn.gelu(x,
approximate=True)``, PyTorch's ``gelu(x, approximate="tanh")``).

The formula is written once, as three functions of numbers or arrays
(:func:`tanh_argument`, :func:`value_from_tanh`, :func:`slope_from_tanh`): the impls
call them on NumPy arrays a chunk at a time (:data:`CHUNK`), the forms on another
library's arrays and on Python's and NumPy's numbers, and numba's kernels compile the same
functions for one element (:mod:`funcgrad.kernels`), so the kernels give the impls' bits
(in float32 but for the tanh where NumPy's has no AVX-512 build to run: theirs is then
one numba vectorises, within a unit of the last place of NumPy's,
:mod:`funcgrad.kernels.float32_tanh`).
Their constants come in as arguments (:func:`constants`), numbers of the operand's dtype
where the operand has one, so that a float32 array is computed in float32 everywhere.

Composed of nine elementwise primitives, the activation and its cotangent take about
thirty passes over the activation, each into a fresh array: each primitive's result, each
edge's ``g * d``, each sum of two cotangents. As two primitives the cotangent is ``g *
slope``, and each pass runs over a chunk that stays in the cache. The slope's own
derivative, which only Hessians and ``jet`` take, is written with ``tanh`` and products, so
``gelu_tanh`` differentiates to any order. A jitted gradient, which needs the value and
the slope of the same activation, makes both in one call (``together``): one ``tanh``
instead of two, the slope kept from the forward pass to the backward.
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

__all__ = ["gelu_tanh", "gelu_tanh_slope", "tanh_argument", "value_from_tanh", "slope_from_tanh"]

# u's constants, c and a above
C = math.sqrt(2.0 / math.pi)
A = 0.044715


def constants(kind=float):
    """The formula's constants ``(a, c, 3a, c / 2, 1 / 2, 1)`` as numbers of ``kind`` (a
    NumPy scalar type for numba's kernels, which would otherwise compute float32 operands
    in float64; Python's floats elsewhere, which NumPy and other libraries take at the
    operand's precision)."""
    return tuple(kind(v) for v in (A, C, 3.0 * A, 0.5 * C, 0.5, 1.0))


def tanh_argument(x, k):
    """``u = c (x + a x^3)``, computed as ``((x x a + 1) x) c``; ``k``: :func:`constants`."""
    return ((x * x * k[0] + k[5]) * x) * k[1]


def value_from_tanh(x, t, k):
    """GELU's value ``(t + 1) x / 2`` from ``x`` and ``t = tanh(u)``."""
    return ((t + k[5]) * x) * k[4]


def slope_from_tanh(x, t, k):
    """GELU's slope ``(t + 1) / 2 + (1 - t^2) x u' / 2`` from ``x`` and ``t = tanh(u)``."""
    q = ((x * x * k[2] + k[5]) * x) * k[3]  # x u' / 2
    return (t + k[5]) * k[4] + (k[5] - t * t) * q


_K = constants()


def _as_float(x):
    """``x`` as an array of a floating (or complex) dtype: integers as float64, as the
    composed formula's ``0.5 * x`` gives them."""
    x = np.asarray(x)
    return x if x.dtype.kind in "fc" else x.astype(np.float64)


# Elements a pass takes at a time: the formula's temporaries are then arrays of 128 KiB
# (float32) that stay in the cache, not arrays the size of the activation.
CHUNK = 1 << 15


def _by_chunks(x, *results):
    """Each of ``results(x, t)`` (``t = tanh(u)``) over ``x`` a chunk of :data:`CHUNK`
    elements at a time, into new arrays (a tuple where there are several)."""
    x = _as_float(x)
    flat = x.reshape(-1)
    outs = [np.empty(flat.shape, x.dtype) for _ in results]
    for lo in range(0, flat.size, CHUNK):
        chunk = flat[lo : lo + CHUNK]
        t = np.tanh(tanh_argument(chunk, _K))
        for out, result in zip(outs, results):
            out[lo : lo + CHUNK] = result(chunk, t, _K)
    shaped = tuple(o.reshape(x.shape) for o in outs)
    return shaped if len(results) > 1 else shaped[0]


def _gelu_tanh_form(xp, x):
    """The value in a namespace's ``tanh``: another library's, NumPy's for its numbers,
    ``math``'s for Python's floats."""
    return value_from_tanh(x, xp.tanh(tanh_argument(x, _K)), _K)


def _gelu_tanh_slope_form(xp, x):
    return slope_from_tanh(x, xp.tanh(tanh_argument(x, _K)), _K)


def _on_numbers(form, x):
    """``form`` on a Python float (``math``) or a NumPy number (NumPy's, a number back)."""
    return form(math, x) if type(x) is float else form(np, _as_float(x)[()])


def _gelu_tanh_impl(x):
    if type(x) is float or np.ndim(x) == 0:
        return _on_numbers(_gelu_tanh_form, x)
    return _by_chunks(x, value_from_tanh)


def _gelu_tanh_slope_impl(x):
    if type(x) is float or np.ndim(x) == 0:
        return _on_numbers(_gelu_tanh_slope_form, x)
    return _by_chunks(x, slope_from_tanh)


def _gelu_tanh_with_slope(x):
    """``(gelu_tanh(x), gelu_tanh_slope(x))`` in one call, from one ``tanh``: jit's plan of
    a gradient calls it once for both (``together``)."""
    if type(x) is float or np.ndim(x) == 0:
        return _gelu_tanh_impl(x), _gelu_tanh_slope_impl(x)
    return _by_chunks(x, value_from_tanh, slope_from_tanh)


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
    # an eager gradient makes the slope with the value (one tanh) and keeps it
    together=(gelu_tanh_slope, _gelu_tanh_with_slope),
)
