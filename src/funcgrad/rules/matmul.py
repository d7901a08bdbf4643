"""The matrix product ``x @ y``, its reverse rules, and the shape errors of products.

Matrices are the last two axes; leading axes are a stack, broadcast between the two
operands (``^T`` below swaps the last two axes only); a 1-D operand is a row on the
left and a column on the right, as NumPy promotes it.

    primitive   value    reverse rule, x                  reverse rule, y              forward rule
    ---------   ------   ------------------------------   --------------------------   -------------
    matmul      x @ y    g @ y^T (summed to x's stack)    x^T @ g (summed likewise)    tx @ y + x @ ty

Where the layout allows, a product is one BLAS call: a stack times one matrix (a
layer's weight under batch axes) is taken as one product of all the stack's rows, and
that weight's cotangent as one product over the rows, not a stack of products summed.

>>> import numpy as np
>>> import funcgrad as fg
>>> x, w = np.ones((2, 3, 4)), np.arange(8.0).reshape(4, 2)
>>> matmul(x, w)[0, 0]
array([12., 16.])
>>> fg.grad(lambda w: fg.numpy.sum(matmul(x, w)))(w)[0]    # six rows of ones, summed
array([6., 6.])
"""

import math

import numpy as np

from ..analysis.facts import declare
from ..core.errors import ShapeError
from ..core.namespaces import own_function
from ..core.primitive import Primitive
from ..core.values import is_complex, shape_of
from ..jit import facts as jit_facts
from . import elementwise as ew
from .arrays import example_shape, lead_axes, reshape, squeeze, swapaxes, unbroadcast
from .library_forms import bindable

__all__ = ["checked_impl", "mT", "mH", "conj", "matmul"]


def checked_impl(name, fun, hint):
    """``fun`` with NumPy's shape errors re-raised naming ``name`` and every operand's shape."""

    def impl(*args, **params):
        try:
            return fun(*args, **params)
        except np.linalg.LinAlgError:
            raise
        except ValueError as e:
            shapes = " and ".join(str(np.shape(a)) for a in args)
            raise ShapeError(f"{name} of shapes {shapes}: {hint} (NumPy says: {e})") from None

    impl.__name__ = name
    return impl


def conj(x):
    """The complex conjugate (``x`` itself when real: no node for the identity)."""
    return ew.conjugate(x) if is_complex(x) else x


def mH(x):
    """The conjugate transpose of the last two axes (the transpose for real ``x``)."""
    return conj(mT(x))


def mT(x):
    """The matrix transpose of a stack of matrices: the last two axes swapped."""
    return swapaxes(x, axis1=-1, axis2=-2)


# ---------------------------------------------------------------- the reverse rules


def _as_matrices(g, x, y):
    """``x``, ``y`` promoted to at least 2-D, and ``g`` reshaped to match ``x @ y``; and the
    shapes of the promoted two (each shape read once: another library's costs a call)."""
    xs, ys = shape_of(x), shape_of(y)
    x2s = (1,) + xs if len(xs) == 1 else xs
    y2s = ys + (1,) if len(ys) == 1 else ys
    x2 = reshape(x, shape=x2s) if x2s is not xs else x
    y2 = reshape(y, shape=y2s) if y2s is not ys else y
    xb, yb = x2s[:-2], y2s[:-2]
    # the stacks' broadcast shape (NumPy's call costs microseconds; a fold makes many)
    batch = xb if xb == yb or not yb else yb if not xb else np.broadcast_shapes(xb, yb)
    shape = batch + (x2s[-2], y2s[-1])
    g2 = g if shape_of(g) == shape else reshape(g, shape=shape)
    return g2, x2, y2, x2s, y2s


def _rows(a, s):
    """A stack of matrices of shape ``s`` as the one matrix of all their rows."""
    return reshape(a, shape=(math.prod(s[:-1]), s[-1]))


def _matmul_vjp_x(g, ans, x, y):
    g2, x2, y2, _, _ = _as_matrices(g, x, y)
    gx = unbroadcast(matmul(g2, mT(y2)), x2)
    return gx if x2 is x else reshape(gx, shape=shape_of(x))


def _matmul_vjp_y(g, ans, x, y):
    g2, x2, y2, x2s, y2s = _as_matrices(g, x, y)
    if len(y2s) == 2 and len(x2s) > 2:
        # One matrix shared by a stack (a layer's weight under batch axes): its cotangent
        # is one product over all the stack's rows, not a stack of products summed.
        gy = matmul(mT(_rows(x2, x2s)), _rows(g2, x2s[:-1] + y2s[-1:]))
    else:
        gy = unbroadcast(matmul(mT(x2), g2), y2)
    return gy if y2 is y else reshape(gy, shape=shape_of(y))


# ---------------------------------------------------------------- the impl and vmap's rule


def _matmul_impl(x, y):
    """``np.matmul``, a stack times one matrix as one product: NumPy calls BLAS once per
    matrix of a stack, and one call over all the rows runs at BLAS's full speed. Only
    where NumPy's own calls are matrix products too (not vector products, which round
    otherwise), so the bits stay NumPy's."""
    if (
        type(x) is np.ndarray
        and type(y) is np.ndarray
        and y.ndim == 2
        and x.ndim > 2
        and x.size
        and y.size
        and x.shape[-2] > 1
        and y.shape[1] > 1
    ):
        k = x.shape[-1]
        if k != y.shape[0]:
            return np.matmul(x, y)  # NumPy's own error
        return np.matmul(x.reshape(-1, k), y).reshape(x.shape[:-1] + (y.shape[1],))
    return np.matmul(x, y)


def _matmul_batch(size, prim, values, batched, params):
    (x, y), (bx, by) = values, batched
    xs, ys = example_shape(x, bx), example_shape(y, by)
    # A batch of vectors and one matrix: the vectors are the rows of one product (one BLAS
    # call), where promoting each to a matrix makes a stack of matrix-vector products.
    if bx and not by and len(xs) == 1 and len(ys) == 2:
        return matmul(x, y)
    if by and not bx and len(ys) == 1 and len(xs) == 2:
        return matmul(y, mT(x))
    # Promote 1-D examples to matrices (a row for x, a column for y), as matmul does.
    if len(xs) == 1:
        x = reshape(x, shape=((size,) if bx else ()) + (1,) + xs)
    if len(ys) == 1:
        y = reshape(y, shape=((size,) if by else ()) + ys + (1,))
    x2, y2 = example_shape(x, bx), example_shape(y, by)
    stack = max(len(x2), len(y2)) - 2  # example batch dims of the product
    if bx:
        x = lead_axes(x, stack + 2)
    if by:
        y = lead_axes(y, stack + 2)
    if not bx:  # the unbatched operand broadcasts against the batch axis
        x = reshape(x, shape=(1,) * (stack + 2 - len(x2)) + x2)
    if not by:
        y = reshape(y, shape=(1,) * (stack + 2 - len(y2)) + y2)
    out = matmul(x, y)
    if len(ys) == 1:
        out = squeeze(out, axis=-1)
    if len(xs) == 1:
        out = squeeze(out, axis=-2 if len(ys) != 1 else -1)
    return out


matmul = Primitive(
    "matmul",
    checked_impl(
        "matmul",
        _matmul_impl,
        "the last axis of the first operand must equal the "
        "second-to-last axis of the second (the only axis of a 1-D operand), and "
        "stack axes must broadcast",
    ),
    vjp=(_matmul_vjp_x, _matmul_vjp_y),
    jvp=(lambda t, ans, x, y: matmul(t, y), lambda t, ans, x, y: matmul(x, t)),
    batch=_matmul_batch,
    xp=bindable(
        # the library's own beneath array-api-compat's wrapper (whose promotion checks cost
        # as much as a small product on PyTorch) where the operands have one dtype, eagerly
        # as in a plan
        lambda xp, x, y: own_function(xp, "matmul", (x, y))(x, y),
        lambda xp, examples: own_function(xp, "matmul", examples),
    ),
)


def _matmul_spec(sa, sb):
    """matmul as an einsum: 1-D operands promoted, stack axes aligned from the right."""
    stack = max(len(sa), len(sb)) - 2 if len(sa) > 1 and len(sb) > 1 else 0
    s = "ABCDEFGHIJ"[: max(stack, len(sa) - 2, len(sb) - 2, 0)]
    a = (s[len(s) - (len(sa) - 2) :] if len(sa) > 2 else "") + ("ik" if len(sa) > 1 else "k")
    b = (s[len(s) - (len(sb) - 2) :] if len(sb) > 2 else "") + ("kj" if len(sb) > 1 else "k")
    out = s + ("i" if len(sa) > 1 else "") + ("j" if len(sb) > 1 else "")
    return [a, b], out


# What the analyses read about matmul (funcgrad/analysis/facts.py): a contraction, linear in
# each operand, whose spec is its einsum.
declare(matmul, linear="each", structure="contraction")
declare(matmul, spec=lambda shapes, params: _matmul_spec(*shapes))
# What jit reads (funcgrad/jit/facts.py): it returns a new array, which a plan may reuse.
jit_facts.declare(matmul, fresh=True)
