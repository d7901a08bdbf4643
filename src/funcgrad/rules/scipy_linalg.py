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

from ..core.primitive import Primitive
from ..core.values import shape_of
from .arrays import concatenate, getitem, reshape
from .products import matmul, mT, tril, triu

__all__ = ["solve_triangular", "solve_sylvester", "sqrtm", "expm"]


def _as_matrix(v):
    return reshape(v, shape=shape_of(v) + (1,)) if len(shape_of(v)) == 1 else v


def _triangle(m, lower, unit_diagonal):
    k = -1 if unit_diagonal else 0
    return tril(m, k=k) if lower else triu(m, k=-k)


def _st_impl(a, b, trans=0, lower=False, unit_diagonal=False):
    return sl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit_diagonal)


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
