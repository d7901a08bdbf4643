"""JAX's ``jax.lax.linalg``: the decompositions and solves with lax's signatures and
result orders, over funcgrad's differentiable ones.

``eigh`` returns ``(v, w)`` (eigenvectors first) and ``lu`` ``(lu, pivots,
permutation)``, as JAX's do; ``cholesky`` and ``eigh`` symmetrize their input by
default (``(x + x^H) / 2``), so a gradient is symmetric as JAX's is. Stacks of
matrices (leading axes) work throughout.

>>> import numpy as np
>>> import funcgrad as fg
>>> from funcgrad.lax import linalg
>>> a = np.array([[4.0, 1.0], [1.0, 3.0]])
>>> v, w = linalg.eigh(a)
>>> bool(np.allclose(v @ np.diag(w) @ v.T, a))
True
>>> fg.grad(lambda m: linalg.cholesky(m)[1, 1])(a).round(6)
array([[ 0.018844, -0.075378],
       [-0.075378,  0.301511]])
"""

from typing import Any

import numpy as np

from .. import numpy as fnp
from ..core.errors import ArgumentError, ShapeError
from ..core.values import shape_of
from ..numpy import linalg as _la
from ._scipy import scipy_part

__all__ = [
    "cholesky",
    "eigh",
    "lu",
    "lu_pivots_to_permutation",
    "qr",
    "svd",
    "triangular_solve",
    "tridiagonal_solve",
]


def _symmetrized(x):
    return (x + fnp.conj(fnp.swapaxes(x, -1, -2))) / 2.0


def cholesky(x: Any, *, symmetrize_input: bool = True) -> Any:
    """The lower Cholesky factor ``L`` with ``x = L L^H``.

    >>> import numpy as np
    >>> from funcgrad.lax import linalg
    >>> linalg.cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]))
    array([[2., 0.],
           [1., 2.]])
    """
    return _la.cholesky(_symmetrized(x) if symmetrize_input else x)


def eigh(
    x: Any,
    *,
    lower: bool = True,
    symmetrize_input: bool = True,
    sort_eigenvalues: bool = True,
    subset_by_index: Any = None,
) -> tuple:
    """``(v, w)``: the eigenvectors (columns) and ascending eigenvalues of a Hermitian
    matrix (``lower`` says which triangle is read when not symmetrizing).

    >>> import numpy as np
    >>> from funcgrad.lax import linalg
    >>> linalg.eigh(np.array([[2.0, 0.0], [0.0, 1.0]]))[1]
    array([1., 2.])
    """
    w, v = _la.eigh(_symmetrized(x) if symmetrize_input else x, UPLO="L" if lower else "U")
    if subset_by_index is None:
        return v, w
    lo, hi = _subset("eigh", subset_by_index, shape_of(w)[-1])
    return v[..., lo:hi], w[..., lo:hi]


def _subset(who, subset_by_index, n):
    """``(lo, hi)``: JAX's ``subset_by_index``, the eigen- or singular values kept by their
    place in the sorted order (``lo`` included, ``hi`` not)."""
    try:
        lo, hi = (int(i) for i in subset_by_index)
    except (TypeError, ValueError):
        lo, hi = -1, -1
    if not 0 <= lo <= hi <= n:
        raise ArgumentError(
            f"lax.linalg.{who}: subset_by_index must be (lo, hi) with 0 <= lo <= hi <= {n}; "
            f"got {subset_by_index!r}"
        )
    return lo, hi


def lu_pivots_to_permutation(pivots: Any, permutation_size: int) -> Any:
    """The permutation that LAPACK's row interchanges ``pivots`` make of
    ``range(permutation_size)`` (row ``i`` swapped with ``pivots[i]`` in turn).

    >>> import numpy as np
    >>> from funcgrad.lax import linalg
    >>> linalg.lu_pivots_to_permutation(np.array([2, 2, 2], dtype=np.int32), 4)
    array([2, 0, 1, 3], dtype=int32)
    """
    return _scipy_rules().pivots_to_perm(pivots, size=permutation_size)


def lu(x: Any) -> tuple:
    """``(lu, pivots, permutation)`` of m x n matrices: ``L - I + U`` in one matrix,
    LAPACK's row interchanges and the rows they put first (``x[permutation] = L U``);
    differentiable in ``x`` (the factor; the pivots are integers).

    >>> import numpy as np
    >>> from funcgrad.lax import linalg
    >>> packed, pivots, perm = linalg.lu(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> perm, packed
    (array([1, 0], dtype=int32), array([[3.        , 4.        ],
           [0.33333333, 0.66666667]]))
    """
    rules = _scipy_rules()
    return rules.lu_packed(x), rules.lu_pivots(x), rules.lu_perm(x)


def _scipy_rules():
    """The LU primitives, which call SciPy: loaded on first use (with funcgrad.scipy's
    message where SciPy is missing), so the rest of lax.linalg works without it."""
    return scipy_part().linalg.lu_rules


def qr(x: Any, *, pivoting: bool = False, full_matrices: bool = True) -> tuple:
    """``(q, r)`` with ``x = q r``; ``full_matrices=False`` for the reduced form;
    ``pivoting=True``: ``(q, r, p)`` with ``x[..., p] = q r`` (LAPACK's column order, the
    largest remaining norm first; SciPy's, loaded on first use).

    >>> import numpy as np
    >>> from funcgrad.lax import linalg
    >>> q, r = linalg.qr(np.array([[3.0], [4.0]]))
    >>> q.shape, r.shape
    ((2, 2), (2, 1))
    >>> linalg.qr(np.array([[1.0, 10.0], [0.0, 1.0]]), pivoting=True)[2]
    array([1, 0], dtype=int32)
    """
    mode = "complete" if full_matrices else "reduced"
    if not pivoting:
        return _la.qr(x, mode=mode)
    perm = _scipy_rules().qr_perm(x)
    q, r = _la.qr(fnp.take_along_axis(x, fnp.expand_dims(perm, -2), axis=-1), mode=mode)
    return q, r, perm


def svd(
    x: Any, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index: Any = None
) -> Any:
    """``(u, s, vh)`` with ``x = u diag(s) vh``, or ``s`` alone.

    >>> import numpy as np
    >>> from funcgrad.lax import linalg
    >>> linalg.svd(np.diag([3.0, 4.0]), compute_uv=False)
    array([4., 3.])
    """
    if subset_by_index is None:
        return _la.svd(x, full_matrices=full_matrices, compute_uv=compute_uv)
    if full_matrices and compute_uv:
        raise ArgumentError(
            "lax.linalg.svd: full_matrices and subset_by_index cannot both be set (as in "
            "JAX); pass full_matrices=False"
        )
    lo, hi = _subset("svd", subset_by_index, min(shape_of(x)[-2:]))
    if not compute_uv:
        return _la.svd(x, compute_uv=False)[..., lo:hi]
    u, s, vh = _la.svd(x, full_matrices=False)
    return u[..., lo:hi], s[..., lo:hi], vh[..., lo:hi, :]


def triangular_solve(
    a: Any,
    b: Any,
    *,
    left_side: bool = False,
    lower: bool = False,
    transpose_a: bool = False,
    conjugate_a: bool = False,
    unit_diagonal: bool = False,
) -> Any:
    """``x`` with ``op(a) x = b`` (``left_side=True``) or ``x op(a) = b``, ``a``
    triangular (read from its ``lower`` or upper triangle), ``op`` a transpose and/or
    conjugate as asked.

    >>> import numpy as np
    >>> from funcgrad.lax import linalg
    >>> a = np.array([[2.0, 0.0], [1.0, 1.0]])
    >>> linalg.triangular_solve(a, np.array([[2.0], [3.0]]), left_side=True, lower=True)
    array([[1.],
           [2.]])
    """
    n = shape_of(a)[-1]
    eye = np.eye(n)
    tri = fnp.tril(a) if lower else fnp.triu(a)
    if unit_diagonal:
        tri = tri * (1.0 - eye) + eye
    if conjugate_a:
        tri = fnp.conj(tri)
    if transpose_a:
        tri = fnp.swapaxes(tri, -1, -2)
    if left_side:
        return _la.solve(tri, b)
    # x op(a) = b  <=>  op(a)^T x^T = b^T
    return fnp.swapaxes(_la.solve(fnp.swapaxes(tri, -1, -2), fnp.swapaxes(b, -1, -2)), -1, -2)


def tridiagonal_solve(dl: Any, d: Any, du: Any, b: Any) -> Any:
    """``x`` with ``A x = b``, ``A`` tridiagonal: ``d`` its diagonal, ``dl`` the one below
    (``dl[0]`` unused, 0 by JAX's convention), ``du`` the one above (``du[-1]`` unused);
    ``b`` of shape ``(..., m, k)``. Differentiable in all four.

    >>> import numpy as np
    >>> from funcgrad.lax import linalg
    >>> dl, d, du = np.array([0.0, 1.0, 1.0]), np.array([2.0, 2.0, 2.0]), np.array([1.0, 1.0, 0.0])
    >>> linalg.tridiagonal_solve(dl, d, du, np.array([[3.0], [4.0], [3.0]]))
    array([[1.],
           [1.],
           [1.]])
    """
    m = shape_of(d)[-1]
    if shape_of(dl)[-1] != m or shape_of(du)[-1] != m or shape_of(b)[-2] != m:
        raise ShapeError(
            f"lax.linalg.tridiagonal_solve: dl, d, du must have the length of b's rows ({m}); "
            f"got {shape_of(dl)}, {shape_of(d)}, {shape_of(du)} and b {shape_of(b)}"
        )
    below = np.eye(m, k=-1)
    above = np.eye(m, k=1)
    # A[i, i-1] = dl[i], A[i, i] = d[i], A[i, i+1] = du[i]
    matrix = (
        fnp.expand_dims(d, -1) * np.eye(m)
        + fnp.expand_dims(dl, -1) * below
        + fnp.expand_dims(du, -1) * above
    )
    return _la.solve(matrix, b)


def __dir__():
    return list(__all__)
