"""``funcgrad.scipy.linalg``: SciPy's linear algebra, differentiable.

SciPy's names and signatures: ``solve_triangular`` (``trans`` 0/1/2 or N/T/C,
``lower``, ``unit_diagonal``), ``cholesky`` (upper by default, as in SciPy),
``cho_factor``/``cho_solve``, ``solve_banded``, ``solve``, ``inv``, ``det``,
``solve_sylvester``, ``sqrtm``, ``expm`` and ``expm_frechet``, ``eigh``, ``svd``,
``qr`` (pivoting too) and ``polar``, ``lu``/``lu_factor`` (any m x n), ``lu_solve``, ``schur``
(no derivative); the structured matrices (:mod:`funcgrad.scipy._structured`), what is
read off a decomposition (``eig``, ``norm``, ``pinv``, ...: :mod:`funcgrad.scipy._decomposed`)
and the functions of a matrix (``sinm``, ..., the Lyapunov equations:
:mod:`funcgrad.scipy._matrix_functions`). The rules are in
:mod:`funcgrad.rules.scipy_linalg` (and funcgrad.numpy.linalg's for the rest);
triangular functions read only their triangle, and their derivative is that
function's (the other triangle gets zero).

>>> import numpy as np
>>> import funcgrad as fg
>>> a = np.array([[4.0, 1.0], [1.0, 3.0]])
>>> x = cho_solve(cho_factor(a), np.array([1.0, 2.0]))
>>> bool(np.allclose(a @ x, [1.0, 2.0]))
True
>>> fg.grad(lambda t: expm(t * a)[0, 1])(0.0)     # d/dt e^(tA) at 0 is A
np.float64(1.0)
"""

import numpy as np
import scipy.linalg

from .. import numpy as _fnp
from ..core.errors import ArgumentError
from ..core.values import dtype_of, float_dtype, shape_of
from ..numpy import linalg as _la
from ..numpy._helpers import as_array, concrete, is_traced, numpys_dtype
from ..rules import scipy_linalg as _s
from ..rules.arrays import concatenate, getitem, reshape
from ..rules.diagonals import tril as _tril
from ..rules.diagonals import triu as _triu
from ..rules.linalg import conj, mH
from . import _decomposed, _matrix_functions, _structured
from ._decomposed import *  # noqa: F403 - eig, norm, pinv, ...: _decomposed.__all__
from ._lapack import lapack_operands as _lapack
from ._matrix_functions import *  # noqa: F403 - sinm, ..., the Lyapunov solvers
from ._structured import *  # noqa: F403 - toeplitz, companion, ...: _structured.__all__

__all__ = [
    "solve_triangular",
    "cholesky",
    "cho_factor",
    "cho_solve",
    "solve_banded",
    "solve",
    "inv",
    "det",
    "solve_sylvester",
    "sqrtm",
    "expm",
    "eigh",
    "svd",
    "qr",
    "polar",
    "expm_frechet",
    "lu",
    "lu_factor",
    "lu_solve",
    "schur",
]

__all__ += _decomposed.__all__ + _matrix_functions.__all__ + _structured.__all__

lu_rules = _s  # the LU primitives' module, which funcgrad.lax.linalg reaches through here

_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}


def solve(a, b, **options):
    """``scipy.linalg.solve``; traced, funcgrad.numpy.linalg.solve (``options`` such as
    ``assume_a`` only speed SciPy up: the answer is the same).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import solve
    >>> solve(np.eye(2) * 2.0, np.ones(2))
    array([0.5, 0.5])
    """
    return _la.solve(*_lapack(a, b)) if is_traced(a, b) else scipy.linalg.solve(a, b, **options)


def inv(a, overwrite_a=False, check_finite=True):
    """``scipy.linalg.inv``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import inv
    >>> inv(np.eye(2) * 2.0)
    array([[0.5, 0. ],
           [0. , 0.5]])
    """
    return (
        _la.inv(_lapack(a)[0]) if is_traced(a) else scipy.linalg.inv(a, overwrite_a, check_finite)
    )


def det(a, overwrite_a=False, check_finite=True):
    """``scipy.linalg.det``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import det
    >>> float(det(np.eye(2) * 2.0))
    4.0
    """
    if not is_traced(a):
        return scipy.linalg.det(a, overwrite_a, check_finite)
    # SciPy's own result type for this input type (its LAPACK call may widen float32)
    return numpys_dtype(
        _la.det(_lapack(a)[0]), scipy.linalg.det(np.eye(1, dtype=dtype_of(a))).dtype
    )


def solve_triangular(
    a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True
):
    """``scipy.linalg.solve_triangular``: ``x`` with ``op(a) x = b``, reading one triangle of ``a``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import solve_triangular
    >>> solve_triangular(np.array([[2.0, 0.0], [1.0, 1.0]]), np.array([2.0, 3.0]), lower=True)
    array([1., 2.])
    """
    if trans not in _TRANS:
        raise ArgumentError(
            f"solve_triangular: trans must be 0, 1, 2 or 'N', 'T', 'C'; got {trans!r}"
        )
    if not is_traced(a, b):
        return scipy.linalg.solve_triangular(
            a, b, trans, lower, unit_diagonal, overwrite_b, check_finite=check_finite
        )
    a, b = as_array(a), as_array(b)
    if (
        len(shape_of(a)) != 2
        or shape_of(a)[0] != shape_of(a)[1]
        or shape_of(b)[0] != shape_of(a)[0]
    ):
        raise ArgumentError(
            f"solve_triangular: a must be square and b's first axis as long as a's; "
            f"got shapes {shape_of(a)} and {shape_of(b)}"
        )
    mode = _TRANS[trans]
    if mode == 2:  # the conjugate transpose: solve with conj(a) transposed
        a, mode = conj(a), 1
    return _s.solve_triangular(
        a, b, trans=mode, lower=bool(lower), unit_diagonal=bool(unit_diagonal)
    )


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """``scipy.linalg.cholesky``: ``U`` with ``a = U^H U`` (``lower=True``: ``L``, ``a = L L^H``),
    reading that triangle of ``a``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import cholesky
    >>> cholesky(np.array([[4.0, 2.0], [2.0, 2.0]]))
    array([[2., 1.],
           [0., 1.]])
    """
    if not is_traced(a):
        return scipy.linalg.cholesky(a, lower, overwrite_a, check_finite)
    (a,) = _lapack(a)
    return _la.cholesky(a) if lower else mH(_la.cholesky(mH(a)))


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """``scipy.linalg.cho_factor``: ``(c, lower)`` for cho_solve; ``c``'s other triangle is zero
    here (SciPy leaves whatever was there; cho_solve never reads it).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import cho_factor
    >>> c, low = cho_factor(np.array([[4.0, 2.0], [2.0, 2.0]]), lower=True)
    >>> c, low
    (array([[2., 0.],
           [1., 1.]]), True)
    """
    if not is_traced(a):
        c = cholesky(a, lower, overwrite_a, check_finite)
        return c, lower
    return cholesky(a, lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """``scipy.linalg.cho_solve``: ``x`` with ``a x = b`` from cho_factor's ``(c, lower)``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import cho_solve
    >>> cho_solve((np.array([[2.0, 0.0], [1.0, 1.0]]), True), np.array([4.0, 2.0]))
    array([1., 0.])
    """
    c, lower = c_and_lower
    if not is_traced(c, b):
        return scipy.linalg.cho_solve((c, lower), b, overwrite_b, check_finite)
    c, b = _lapack(c, b)
    if lower:
        y = solve_triangular(c, b, lower=True)
        return solve_triangular(c, y, trans="C", lower=True)
    y = solve_triangular(c, b, trans="C", lower=False)
    return solve_triangular(c, y, lower=False)


def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """``scipy.linalg.solve_banded``: ``a x = b`` for ``a`` given by its diagonals ``ab``
    (``ab[u + i - j, j] = a[i, j]``); traced, the band is unpacked and solved densely.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import solve_banded
    >>> ab = np.array([[0.0, 1.0, 1.0], [2.0, 2.0, 2.0], [1.0, 1.0, 0.0]])   # tridiagonal
    >>> solve_banded((1, 1), ab, np.array([3.0, 4.0, 3.0]))
    array([1., 1., 1.])
    """
    if not is_traced(ab, b):
        return scipy.linalg.solve_banded(l_and_u, ab, b, overwrite_ab, overwrite_b, check_finite)
    low, up = (int(v) for v in concrete(l_and_u, "scipy.linalg.solve_banded"))
    ab, b = _lapack(ab, b)
    rows, n = shape_of(ab)
    if rows != low + up + 1:
        raise ArgumentError(
            f"solve_banded: ab must have l + u + 1 = {low + up + 1} rows; got {rows}"
        )
    i, j = np.indices((n, n))
    band = (j - i <= up) & (i - j <= low)
    index = np.where(band, (up + i - j) * n + j, rows * n)  # rows * n: a zero
    flat = concatenate(reshape(ab, shape=(-1,)), np.zeros(1, dtype=float_dtype(ab)), axis=0)
    return _la.solve(getitem(flat, index=index), b)


def solve_sylvester(a, b, q):
    """``scipy.linalg.solve_sylvester``: ``x`` with ``a x + x b = q``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import solve_sylvester
    >>> solve_sylvester(np.eye(2), np.eye(2), np.ones((2, 2)))
    array([[0.5, 0.5],
           [0.5, 0.5]])
    """
    if not is_traced(a, b, q):
        return scipy.linalg.solve_sylvester(a, b, q)
    return _s.solve_sylvester(as_array(a), as_array(b), as_array(q))


def sqrtm(A, disp=True, blocksize=64):
    """``scipy.linalg.sqrtm``: the principal square root ``X``, ``X X = A``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import sqrtm
    >>> sqrtm(np.array([[4.0, 0.0], [0.0, 9.0]]))
    array([[2., 0.],
           [0., 3.]])
    """
    if not is_traced(A):
        return scipy.linalg.sqrtm(A)
    return _s.sqrtm(as_array(A))


def expm(A):
    """``scipy.linalg.expm``: the matrix exponential.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import expm
    >>> expm(np.zeros((2, 2)))
    array([[1., 0.],
           [0., 1.]])
    """
    if not is_traced(A):
        return scipy.linalg.expm(A)
    return _s.expm(as_array(A))


# -- decompositions with SciPy's signatures, and the structured matrices --------------------


def eigh(a, b=None, lower=True, eigvals_only=False, **options):
    """``scipy.linalg.eigh`` of a symmetric (Hermitian) matrix, reading the ``lower``
    triangle: eigenvalues ascending and eigenvectors, or the eigenvalues alone.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import eigh
    >>> eigh(np.array([[2.0, 1.0], [1.0, 2.0]]), eigvals_only=True)
    array([1., 3.])
    """
    if b is not None:
        raise ArgumentError(
            "scipy.linalg.eigh: the generalized problem (b=) is not offered; "
            "reduce it with the Cholesky factor of b (eigh of L^-1 a L^-T)"
        )
    if not is_traced(a):
        return scipy.linalg.eigh(a, lower=lower, eigvals_only=eigvals_only, **options)
    (a,) = _lapack(a)
    uplo = "L" if lower else "U"
    if eigvals_only:
        return _la.eigvalsh(a, UPLO=uplo)
    return _la.eigh(a, UPLO=uplo)


def svd(a, full_matrices=True, compute_uv=True, **options):
    """``scipy.linalg.svd``: ``(u, s, vh)``, or ``s`` alone.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import svd
    >>> svd(np.diag([3.0, 4.0]), compute_uv=False)
    array([4., 3.])
    """
    if not is_traced(a):
        return scipy.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv, **options)
    return _la.svd(_lapack(a)[0], full_matrices=full_matrices, compute_uv=compute_uv)


_QR_MODES = {"full": "complete", "economic": "reduced", "r": "complete"}


def qr(a, mode="full", pivoting=False, **options):
    """``scipy.linalg.qr``: ``(q, r)`` for ``mode`` 'full' or 'economic', ``(r,)`` for 'r';
    with ``pivoting=True`` the column order ``p`` too (``a[:, p] = q r``, LAPACK's choice:
    the columns of largest remaining norm first), ``(q, r, p)`` or ``(r, p)``.
    Differentiable in ``a`` (``p`` is piecewise constant: Q and R are then the QR of the
    permuted columns).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import qr
    >>> [m.shape for m in qr(np.ones((3, 2)), mode="economic")]
    [(3, 2), (2, 2)]
    >>> qr(np.array([[1.0, 10.0], [0.0, 1.0]]), pivoting=True)[2]
    array([1, 0], dtype=int32)
    """
    if mode not in _QR_MODES:
        raise ArgumentError(
            f"scipy.linalg.qr: mode must be 'full', 'economic' or 'r'; got {mode!r}"
        )
    if not is_traced(a):
        out = scipy.linalg.qr(a, mode=mode, pivoting=pivoting, **options)
        return out if not pivoting else (*out[:-1], out[-1].astype(np.int32))
    (a,) = _lapack(a)
    perm = None
    if pivoting:
        perm = _s.qr_perm(a)
        a = _fnp.take_along_axis(a, _fnp.expand_dims(perm, -2), axis=-1)
    if mode == "r":  # SciPy's R has a's shape (NumPy's mode 'r' is the reduced one)
        out = (_la.qr(a, mode="complete")[1],)
    else:
        out = tuple(_la.qr(a, mode=_QR_MODES[mode]))
    return out if perm is None else (*out, perm)


def polar(a, side="right"):
    """``scipy.linalg.polar``: ``(u, p)`` with ``a = u p`` (``side='right'``) or ``a = p u``,
    ``u`` unitary and ``p`` positive semidefinite, from the SVD.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import polar
    >>> u, p = polar(np.array([[0.0, 2.0], [3.0, 0.0]]))
    >>> u, p
    (array([[0., 1.],
           [1., 0.]]), array([[3., 0.],
           [0., 2.]]))
    """
    if side not in ("right", "left"):
        raise ArgumentError(f"scipy.linalg.polar: side must be 'right' or 'left'; got {side!r}")
    if not is_traced(a):
        return scipy.linalg.polar(a, side=side)
    w, s, vh = _la.svd(_lapack(a)[0], full_matrices=False)
    u = w @ vh
    if side == "right":
        return u, mH(vh) @ (s[..., :, None] * vh)
    return u, w @ (s[..., :, None] * mH(w))


def expm_frechet(A, E, method=None, compute_expm=True):
    """``scipy.linalg.expm_frechet``: the derivative of ``expm`` at ``A`` in the direction
    ``E`` (and ``expm(A)``), read off the exponential of the block matrix
    ``[[A, E], [0, A]]``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import expm_frechet
    >>> expm_frechet(np.zeros((2, 2)), np.eye(2), compute_expm=False)
    array([[1., 0.],
           [0., 1.]])
    """
    if not is_traced(A, E):
        return scipy.linalg.expm_frechet(A, E, compute_expm=compute_expm)
    n = shape_of(A)[-1]
    zero = np.zeros(shape_of(A))
    block = concatenate(concatenate(A, E, axis=-1), concatenate(zero, A, axis=-1), axis=-2)
    big = expm(block)
    frechet = big[..., :n, n:]
    return (big[..., :n, :n], frechet) if compute_expm else frechet


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """``scipy.linalg.lu`` of an m x n matrix (or a stack): ``(p, l, u)`` with
    ``a = p @ l @ u``, ``l`` m x k unit lower and ``u`` k x n upper, ``k = min(m, n)``
    (``p_indices=True``: ``p`` as row indices, ``a = l[p] @ u``; ``permute_l=True``:
    ``(p @ l, u)``). Differentiable in ``a`` (forward rule ``F = L^-1 P^T dA U^-1``,
    ``dL = L tril(F, -1)``, ``dU = triu(F) U``, with L and U made square; reverse mode
    transposes it), under ``jit`` and ``vmap``.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.scipy.linalg import lu
    >>> a = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> p, l, u = lu(a)
    >>> bool(np.allclose(p @ l @ u, a)), u
    (True, array([[3.        , 4.        ],
           [0.        , 0.66666667]]))
    >>> fg.grad(lambda m: lu(m)[2][1, 1])(a)    # rows swapped: u_22 = a_12 - a_22 a_11 / a_21
    array([[-1.33333333,  1.        ],
           [ 0.44444444, -0.33333333]])
    >>> [m.shape for m in lu(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]]))]
    [(2, 2), (2, 2), (2, 3)]
    """
    a = as_array(a)
    packed, perm = _s.lu_packed(a), _s.lu_perm(a)
    m, n = shape_of(packed)[-2:]
    k = min(m, n)
    dtype = float_dtype(dtype_of(packed))
    lower = _tril(getitem(packed, index=(Ellipsis, slice(None), slice(0, k))), k=-1)
    lower = lower + np.eye(m, k, dtype=dtype)
    upper = _triu(getitem(packed, index=(Ellipsis, slice(0, k), slice(None))))
    rows = _fnp.argsort(perm, axis=-1)  # row i of a is row rows[i] of L U
    if permute_l:
        return _fnp.take_along_axis(lower, _fnp.expand_dims(rows, -1), axis=-2), upper
    if p_indices:
        return rows, lower, upper
    # p[perm[j], j] = 1, for each matrix of a stack
    return _fnp.swapaxes(_fnp.take(np.eye(m, dtype=dtype), perm, axis=0), -1, -2), lower, upper


def lu_factor(a, overwrite_a=False, check_finite=True):
    """``scipy.linalg.lu_factor``: ``(lu, piv)``, ``L - I + U`` in one matrix and LAPACK's
    row interchanges (row ``i`` swapped with ``piv[i]``); differentiable in ``a``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import lu_factor
    >>> lu, piv = lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> piv
    array([1, 1], dtype=int32)
    """
    a = as_array(a)
    return _s.lu_packed(a), _s.lu_pivots(a)


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """``scipy.linalg.lu_solve``: ``x`` with ``a x = b`` (``trans`` 1 or 2: ``a^T x = b``,
    ``a^H x = b``) from :func:`lu_factor`'s ``(lu, piv)``; differentiable in ``lu`` and ``b``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import lu_factor, lu_solve
    >>> a = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> lu_solve(lu_factor(a), np.array([5.0, 6.0]))
    array([-4. ,  4.5])
    """
    packed, piv = lu_and_piv
    if trans not in _TRANS:
        raise ArgumentError(f"lu_solve: trans must be 0, 1, 2 or 'N', 'T', 'C'; got {trans!r}")
    mode = _TRANS[trans]
    packed, b = as_array(packed), as_array(b)
    if mode == 2:
        packed, mode = conj(packed), 1
    perm = _s.pivots_to_perm(piv, size=shape_of(packed)[-1])
    if mode == 0:
        y = solve_triangular(packed, _fnp.take(b, perm, axis=0), lower=True, unit_diagonal=True)
        return solve_triangular(packed, y, lower=False)
    y = solve_triangular(packed, b, trans=1, lower=False)
    y = solve_triangular(packed, y, trans=1, lower=True, unit_diagonal=True)
    return _fnp.take(y, _fnp.argsort(perm), axis=0)


def schur(a, output="real", lwork=None, overwrite_a=False, sort=None, check_finite=True):
    """``scipy.linalg.schur``: ``(T, Z)`` with ``a = Z T Z^H``, ``T`` (quasi-)upper
    triangular; SciPy's values, under ``jit`` and ``vmap``, and no derivative (a loss
    through it raises ``MissingRuleError`` naming ``schur``).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import schur
    >>> t, z = schur(np.array([[1.0, 2.0], [0.0, 3.0]]))
    >>> t
    array([[1., 2.],
           [0., 3.]])
    """
    if output not in ("real", "complex", "r", "c"):
        raise ArgumentError(f"schur: output must be 'real' or 'complex'; got {output!r}")
    if sort is not None:
        raise ArgumentError("schur: sort is not supported; sort the eigenvalues of T yourself")
    packed = _s.schur_packed(
        as_array(a), output="complex" if output in ("complex", "c") else "real"
    )
    return getitem(packed, index=(0,)), getitem(packed, index=(1,))


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
