"""SciPy's matrix functions with their rules: triangular solves, the Sylvester equation,
the matrix square root and exponential. Values come from ``scipy.linalg`` (so this
table needs SciPy); every rule is written with these primitives again, so they
differentiate to any order. ``^T`` is the plain transpose (cotangents pair by
``Re(c * dz)``, so no conjugation):

    primitive          value                          reverse rule, g the output's cotangent
    ----------------   ----------------------------   --------------------------------------------
    solve_triangular   x = op(A)^-1 b, A triangular   b: y = op(A)^-T g; A: -y x^T (op = transpose:
                       (op(A) = A or A^T)             -x y^T), kept to the triangle A is read from
    solve_sylvester    X: A X + X B = Q               Q: Y = sylv(A^T, B^T, g); A: -Y X^T; B: -X^T Y
    sqrtm              X = A^(1/2), X X = A           A: sylv(X^T, X^T, g)
    expm               e^A                            A: L(A^T, g), L the Frechet derivative, the
                                                      top right block of e^[[A, E], [0, A]]
    lu_packed          L - I + U, A[perm] = L U       forward: F = L^-1 dA[perm] U^-1,
                       (L unit lower, U upper)        dLU = L tril(F, -1) + triu(F) U
                       (A m x n: L and U made square  (k = min(m, n))
                       with the identity's last m - k
                       columns, n - k rows)
    lu_perm            perm (no derivative)           none: piecewise constant
    qr_perm            pivoted QR's column order      none: piecewise constant

Forward rules: forward mode transposes the reverse rules (each is linear in g),
except expm's, ``L(A, dA)`` itself.

>>> import numpy as np
>>> import funcgrad as fg
>>> a = np.array([[2.0, 0.0], [1.0, 1.0]])
>>> fg.grad(lambda b: solve_triangular(a, b, lower=True).sum())(np.ones(2))
array([0., 1.])
"""

import numpy as np
import scipy.linalg as sl

from ..analysis.facts import ALL, declare
from ..core.errors import ShapeError
from ..core.primitive import Primitive
from ..core.values import plain, shape_of
from .arrays import batch_elementwise, concatenate, getitem, reshape
from .diagonals import tril, triu
from .linalg import solve, square_matrices
from .matmul import matmul, mT
from .sorting import take_along

__all__ = [
    "solve_triangular",
    "solve_sylvester",
    "sqrtm",
    "expm",
    "lu_packed",
    "lu_perm",
    "lu_pivots",
    "pivots_to_perm",
    "qr_perm",
    "schur_packed",
]


def _as_matrix(v):
    return reshape(v, shape=shape_of(v) + (1,)) if len(shape_of(v)) == 1 else v


def _triangle(m, lower, unit_diagonal):
    k = -1 if unit_diagonal else 0
    return tril(m, k=k) if lower else triu(m, k=-k)


def _st_impl(a, b, trans=0, lower=False, unit_diagonal=False):
    a, b = _lapack_dtype(a), _lapack_dtype(b)
    return sl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit_diagonal)


# SciPy casts what LAPACK has no routine for to the nearest dtype it has; from 1.18 it warns
# that it will stop: cast here as it did, so every SciPy gives the same dtype and values.
_LAPACK_DTYPES = {"?": np.float32, "e": np.float32, "g": np.float64, "G": np.complex128}


def _lapack_dtype(x):
    """``x`` as an array in a dtype LAPACK has (bools and float16 as float32, long
    doubles as doubles), as SciPy casts it."""
    x = np.asarray(x)
    cast = _LAPACK_DTYPES.get(x.dtype.char)
    return x if cast is None else x.astype(cast)


def _st_vjp_b(g, x, a, b, trans=0, lower=False, unit_diagonal=False):
    return solve_triangular(a, g, trans=1 - trans, lower=lower, unit_diagonal=unit_diagonal)


def _st_vjp_a(g, x, a, b, trans=0, lower=False, unit_diagonal=False):
    y = _as_matrix(
        solve_triangular(a, g, trans=1 - trans, lower=lower, unit_diagonal=unit_diagonal)
    )
    x = _as_matrix(x)
    outer = matmul(y, mT(x)) if trans == 0 else matmul(x, mT(y))
    return -_triangle(outer, lower, unit_diagonal)


solve_triangular = Primitive("solve_triangular", _st_impl, vjp=(_st_vjp_a, _st_vjp_b))


def _sylv_vjp(argnums, g, x, a, b, q):
    y = solve_sylvester(mT(a), mT(b), g)
    parts = {0: lambda: -matmul(y, mT(x)), 1: lambda: -matmul(mT(x), y), 2: lambda: y}
    return [parts[i]() for i in argnums]


solve_sylvester = Primitive("solve_sylvester", sl.solve_sylvester, vjp=_sylv_vjp)


def _sqrtm_impl(a):
    out = sl.sqrtm(a)
    return out.real if np.isrealobj(a) and np.iscomplexobj(out) and not np.any(out.imag) else out


sqrtm = Primitive("sqrtm", _sqrtm_impl, vjp=(lambda g, x, a: solve_sylvester(mT(x), mT(x), g),))


def frechet(a, e):
    """The Frechet derivative of expm at ``a`` along ``e``: the top right block of
    ``expm([[a, e], [0, a]])``."""
    n = shape_of(a)[-1]
    zeros = np.zeros((n, n))
    block = concatenate(concatenate(a, e, axis=1), concatenate(zeros, a, axis=1), axis=0)
    return getitem(expm(block), index=(slice(0, n), slice(n, 2 * n)))


expm = Primitive(
    "expm",
    sl.expm,
    vjp=(lambda g, ans, a: frechet(mT(a), g),),
    jvp=(lambda t, ans, a: frechet(a, t),),
)


def _each_matrix(fun, a, dtype=None):
    """``fun`` on each matrix of a stack (SciPy's LU takes one at a time)."""
    a = np.asarray(a)
    if a.ndim == 2:
        return fun(a)
    first = fun(a.reshape((-1,) + a.shape[-2:])[0]) if a.size else None
    out = np.empty(a.shape[:-2] + np.shape(first), dtype or getattr(first, "dtype", float))
    for i in np.ndindex(a.shape[:-2]):
        out[i] = fun(a[i])
    return out


def _perm_of(a):
    """The rows of ``a`` that LU with partial pivoting puts first: ``a[perm] = L U``."""
    return _pivots_to_perm(sl.lu_factor(a, check_finite=False)[1], a.shape[0])


def _lu_jvp(t, ans, a):
    # For an m x n matrix (k = min(m, n)): L is m x k, U is k x n. Both are made square,
    # L with the identity's last m - k columns and U with its last n - k rows, so that the
    # square rule reads the same: F = L^-1 dA[perm] U^-1, dLU = L tril(F, -1) + triu(F) U.
    m, n = shape_of(a)[-2:]
    k = min(m, n)
    stack = shape_of(ans)[:-2]
    lower = tril(getitem(ans, index=(Ellipsis, slice(None), slice(0, k))), k=-1)
    if m > k:
        lower = concatenate(lower, np.zeros(stack + (m, m - k)), axis=-1)
    lower = lower + np.eye(m)
    upper = triu(getitem(ans, index=(Ellipsis, slice(0, k), slice(None))))
    if n > k:
        upper = concatenate(upper, np.zeros(stack + (n - k, n)), axis=-2)
        upper = upper + np.diag(np.arange(n) >= k).astype(float)
    rows = lu_perm(plain(a))
    moved = take_along(t, np.broadcast_to(rows[..., :, None], rows.shape + (n,)), axis=-2)
    f = _triangular(lower, moved, lower=True)  # L^-1 dA[perm]
    f = mT(_triangular(mT(upper), mT(f), lower=True))  # ... U^-1
    return matmul(lower, tril(f, k=-1)) + matmul(triu(f), upper)


def _triangular(a, b, lower):
    """``a^-1 b`` for a triangular ``a``: SciPy's triangular solve for one matrix, a
    general solve for a stack (the same up to rounding)."""
    if len(shape_of(a)) == 2:
        return solve_triangular(a, b, lower=lower)
    return solve(a, b)


def _matrices(name, fun):
    """``fun`` on stacks of matrices (any m x n), refusing fewer than two axes by name."""

    def impl(a, **params):
        if np.ndim(a) < 2:
            raise ShapeError(f"{name}: needs a matrix or a stack of them; got shape {np.shape(a)}")
        return fun(a, **params)

    impl.__name__ = name
    return impl


lu_packed = Primitive(
    "lu",
    _matrices("lu", lambda a: _each_matrix(lambda m: sl.lu_factor(m, check_finite=False)[0], a)),
    jvp=(_lu_jvp,),
    batch=batch_elementwise,
)
lu_perm = Primitive(
    "lu_perm",
    _matrices("lu", lambda a: _each_matrix(_perm_of, a, np.int32)),
    batch=batch_elementwise,
)
lu_pivots = Primitive(
    "lu_pivots",
    _matrices(
        "lu", lambda a: _each_matrix(lambda m: sl.lu_factor(m, check_finite=False)[1], a, np.int32)
    ),
    batch=batch_elementwise,
)


def _qr_perm_of(a):
    return sl.qr(a, mode="r", pivoting=True, check_finite=False)[1].astype(np.int32)


# The columns a pivoted QR takes first (LAPACK's geqp3): x[:, perm] = Q R, so Q and R are
# the plain QR of the permuted columns; no derivative (piecewise constant)
qr_perm = Primitive(
    "qr_perm",
    _matrices("qr", lambda a: _each_matrix(_qr_perm_of, a, np.int32)),
    batch=batch_elementwise,
)


def _pivots_to_perm(pivots, size):
    pivots = np.asarray(pivots)
    out = np.empty(pivots.shape[:-1] + (size,), np.int32)
    for index in np.ndindex(pivots.shape[:-1]):
        perm = np.arange(size, dtype=np.int32)
        for i, p in enumerate(pivots[index]):
            perm[i], perm[p] = perm[p], perm[i]
        out[index] = perm
    return out


# LAPACK's row interchanges as the permutation they make (rows i and pivots[i] swapped in turn)
pivots_to_perm = Primitive(
    "pivots_to_perm",
    _pivots_to_perm,
    batch=lambda size, prim, values, batched, params: prim(values[0], **params),
)
declare(lu_perm, lu_pivots, pivots_to_perm, qr_perm, flat=ALL)


def _schur_impl(a, output="real"):
    t, z = sl.schur(a, output=output)
    return np.stack([t, z])


# Schur's form with no rule: differentiating it raises MissingRuleError, naming it (the
# quasi-triangular real form has no derivative formula peers implement either).
schur_packed = Primitive("schur", square_matrices("schur", _schur_impl))
