"""Linear algebra primitives.

    primitive   value      reverse rules (x, y)                      forward rule
    ---------   --------   ---------------------------------------   -------------------------
    matmul      x @ y      g @ y^T,  x^T @ g (batch axes summed)      tx @ y + x @ ty

One-dimensional operands are promoted to matrices the way NumPy does (a row
for ``x``, a column for ``y``), the rule is applied, and the extra axis dropped.
"""

import numpy as np

from ..primitive import Primitive
from .arrays import reshape, shape_of, swapaxes, unbroadcast

__all__ = ["matmul"]


def _as_matrices(g, x, y):
    """``x``, ``y`` promoted to at least 2-D, and ``g`` reshaped to match ``x @ y``."""
    xs, ys = shape_of(x), shape_of(y)
    x2 = reshape(x, shape=(1,) + xs) if len(xs) == 1 else x
    y2 = reshape(y, shape=ys + (1,)) if len(ys) == 1 else y
    x2s, y2s = shape_of(x2), shape_of(y2)
    batch = np.broadcast_shapes(x2s[:-2], y2s[:-2])
    shape = batch + (x2s[-2], y2s[-1])
    g2 = g if shape_of(g) == shape else reshape(g, shape=shape)
    return g2, x2, y2


def _matmul_vjp_x(g, ans, x, y):
    g2, x2, y2 = _as_matrices(g, x, y)
    gx = unbroadcast(matmul(g2, swapaxes(y2, axis1=-1, axis2=-2)), x2)
    return gx if x2 is x else reshape(gx, shape=shape_of(x))


def _matmul_vjp_y(g, ans, x, y):
    g2, x2, y2 = _as_matrices(g, x, y)
    gy = unbroadcast(matmul(swapaxes(x2, axis1=-1, axis2=-2), g2), y2)
    return gy if y2 is y else reshape(gy, shape=shape_of(y))


matmul = Primitive(
    "matmul", np.matmul,
    vjps=(_matmul_vjp_x, _matmul_vjp_y),
    jvps=(lambda t, ans, x, y: matmul(t, y), lambda t, ans, x, y: matmul(x, t)),
)
