"""``norm``: NumPy's ``np.linalg.norm`` as one primitive, every ``ord`` and ``axis`` it takes,
with its derivative the norm's gradient (a vector norm's ``x |x|^(p-2) / |x|_p^(p-1)``,
a max norm's share among its extremes, a matrix norm's through the vector norm of its
entries or its singular values, as NumPy computes it).

>>> import numpy as np
>>> float(norm(np.array([3.0, 4.0])))
5.0
"""

import numpy as np

from ..analysis.facts import declare
from ..core.errors import (
    MissingRuleError,
)
from ..core.primitive import Primitive
from ..core.values import is_complex, plain, shape_of
from . import elementwise as ew
from .arrays import (
    example_shape,
    reshape,
)
from .arrays import sum as asum

# Streams pickled before the products moved out of this module name them here; keep them
# loadable (.products, .matmul and .diagonals are their homes now).
from .diagonals import diagonal, trace, tril, triu, undiagonal  # noqa: F401
from .matmul import checked_impl, conj
from .products import dot, einsum, inner, kron, outer, tensordot, vdot  # noqa: F401

__all__ = ["norm"]


def _norm_kind(nd, ord, axis):
    """(axes, matrix?) of a norm call, as NumPy reads its arguments."""
    if axis is None:
        if ord is None:
            return tuple(range(nd)), False
        axis = tuple(range(nd))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = tuple(int(a) % nd for a in axes)
    return axes, len(axes) == 2


def _share_of_extremes(values, extreme, axes):
    """1/count where ``values`` equals ``extreme`` along ``axes`` (ties split evenly), else 0."""
    hit = ew.weights_where(
        ew.equal(plain(values), plain(extreme)), 1.0, 0.0, ew.real_dtype_of(values)
    )
    return hit / asum(hit, axis=axes, keepdims=True)


def _phase(x):
    """d|x|/dx as a cotangent: sign(x) on reals, conj(x)/|x| on complex numbers."""
    return ew.conjugate(ew.unit(x)) if is_complex(x) else ew.sign(x)


def _norm_direction(x, ans, ord, axis, keepdims):
    """D with d norm = sum(D * dx) over the normed axes; shape of ``x``."""
    shape = shape_of(x)
    axes, matrix = _norm_kind(len(shape), ord, axis)
    kept = tuple(1 if i in axes else n for i, n in enumerate(shape))
    ans_k = reshape(ans, shape=kept)
    if ord is None or ord == "fro" or (ord == 2 and not matrix):
        # At x = 0 the 2-norm has no gradient; we return 0 there (a subgradient, as PyTorch
        # does), and 0 is also its derivative there, as for abs (x itself would give I).
        zero = plain(ans_k) == 0
        return ew.where(zero, 0.0, conj(x)) / ew.where(zero, 1.0, ans_k)
    if matrix:
        if ord in (1, -1, np.inf, -np.inf):
            summed, along = (axes[0], axes[1]) if ord in (1, -1) else (axes[1], axes[0])
            sums = asum(ew.abs(x), axis=summed, keepdims=True)
            return _phase(x) * _share_of_extremes(sums, ans_k, along)
        raise MissingRuleError(
            f"norm: no derivative for the matrix norm ord={ord!r} (it needs a singular value "
            f"decomposition); use ord='fro', 1 or inf, or a vector norm"
        )
    if ord == 0:
        return 0.0 * x
    if ord == 1:
        return _phase(x)
    if ord in (np.inf, -np.inf):
        return _phase(x) * _share_of_extremes(ew.abs(x), ans_k, axes)
    zero = plain(ans_k) == 0  # all of x is 0: the subgradient 0, as for ord=2
    return ew.where(zero, 0.0, _phase(x) * ew.abs(x) ** (ord - 1)) / ew.where(zero, 1.0, ans_k) ** (
        ord - 1
    )


def _norm_vjp(g, ans, x, ord=None, axis=None, keepdims=False):
    shape = shape_of(x)
    axes, _ = _norm_kind(len(shape), ord, axis)
    kept = tuple(1 if i in axes else n for i, n in enumerate(shape))
    return _norm_direction(x, ans, ord, axis, keepdims) * reshape(g, shape=kept)


def _norm_jvp(t, ans, x, ord=None, axis=None, keepdims=False):
    axes, _ = _norm_kind(len(shape_of(x)), ord, axis)
    return asum(_norm_direction(x, ans, ord, axis, keepdims) * t, axis=axes, keepdims=keepdims)


def _norm_batch(size, prim, values, batched, params):
    x = values[0]
    shape = example_shape(x, True)
    ord, axis, keepdims = params.get("ord"), params.get("axis"), params.get("keepdims", False)
    if ord is None and axis is None:
        out = prim(reshape(x, shape=(size, -1)), axis=1)
        return reshape(out, shape=(size,) + (1,) * len(shape)) if keepdims else out
    axes, _ = _norm_kind(len(shape), ord, axis)
    return prim(x, ord=ord, axis=tuple(a + 1 for a in axes), keepdims=keepdims)


def _norm_impl(x, ord=None, axis=None, keepdims=False):
    return np.linalg.norm(x, ord, axis, keepdims)


def _xp_norm(xp, x, ord=None, axis=None, keepdims=False):
    """NumPy's norm from the standard's vector_norm and matrix_norm (whose matrix axes
    are the last two)."""
    nd = x.ndim
    axes, matrix = _norm_kind(nd, ord, axis)
    if not matrix:
        flat = ord is None and axis is None
        return xp.linalg.vector_norm(
            x, axis=None if flat else axes, keepdims=keepdims, ord=2 if ord is None else ord
        )
    rest = tuple(i for i in range(nd) if i not in axes)
    out = xp.linalg.matrix_norm(xp.permute_dims(x, rest + axes), ord="fro" if ord is None else ord)
    if keepdims:
        for a in sorted(axes):
            out = xp.expand_dims(out, axis=a)
    return out


norm = Primitive(
    "norm",
    checked_impl("norm", _norm_impl, "check ord against the number of axes"),
    vjp=(_norm_vjp,),
    jvp=(_norm_jvp,),
    batch=_norm_batch,
    xp=_xp_norm,
)


# What the analyses read about it (funcgrad/analysis/facts.py).
declare(norm, structure="reduction")
