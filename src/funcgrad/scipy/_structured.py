"""SciPy's structured matrices, differentiable in their entries: ``block_diag``,
``toeplitz``, ``hankel``, ``circulant``, ``companion``, ``leslie``, ``fiedler``,
``convolution_matrix``, ``khatri_rao`` and ``diagsvd`` (each a gather, a product or a
concatenation of its operands), the constant ones (``hadamard``, ``hilbert``,
``invhilbert``, ``pascal``, ``invpascal``, ``helmert``, ``dft``: SciPy's own arrays), and
products and solves with a Toeplitz or circulant matrix (``matmul_toeplitz``,
``solve_toeplitz``, ``solve_circulant``: through the dense matrix, SciPy's values to
rounding; SciPy's Levinson and FFT algorithms are faster on large ones).

>>> import numpy as np
>>> from funcgrad.scipy.linalg import companion, solve_toeplitz, toeplitz
>>> companion(np.array([1.0, -3.0, 2.0]))        # x^2 - 3x + 2: roots 1 and 2
array([[ 3., -2.],
       [ 1.,  0.]])
>>> c, b = np.array([4.0, 1.0, 0.5]), np.ones(3)
>>> bool(np.allclose(toeplitz(c) @ solve_toeplitz(c, b), b))
True
"""

import numpy as np
import scipy.linalg

from .. import numpy as _fnp
from ..core.errors import ArgumentError
from ..core.values import dtype_of, float_dtype, shape_of
from ..numpy import linalg as _la
from ..numpy._helpers import as_array, is_traced
from ..rules.arrays import concatenate, getitem, reshape
from ..rules.linalg import conj
from ._lapack import lapack_operands

__all__ = [
    "block_diag",
    "toeplitz",
    "hankel",
    "circulant",
    "companion",
    "leslie",
    "fiedler",
    "convolution_matrix",
    "khatri_rao",
    "diagsvd",
    "hadamard",
    "hilbert",
    "invhilbert",
    "pascal",
    "invpascal",
    "helmert",
    "dft",
    "matmul_toeplitz",
    "solve_toeplitz",
    "solve_circulant",
]


def block_diag(*arrs):
    """``scipy.linalg.block_diag``: the arrays (scalars, vectors as rows, matrices) on the
    diagonal of one matrix, zeros elsewhere.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import block_diag
    >>> block_diag(np.ones((1, 2)), 2.0)
    array([[1., 1., 0.],
           [0., 0., 2.]])
    """
    if not arrs:
        return np.zeros((1, 0))
    blocks = [
        reshape(as_array(a), shape=(1, -1)) if len(shape_of(a)) < 2 else as_array(a) for a in arrs
    ]
    cols = sum(shape_of(b)[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = shape_of(b)
        pad_left = np.zeros((r, left), dtype=float_dtype(dtype_of(b)))
        pad_right = np.zeros((r, cols - left - c), dtype=float_dtype(dtype_of(b)))
        rows.append(concatenate(pad_left, b, pad_right, axis=1))
        left += c
    return concatenate(*rows, axis=0)


def toeplitz(c, r=None):
    """``scipy.linalg.toeplitz``: first column ``c``, first row ``r`` (``conj(c)`` by
    default; its first element is ``c``'s).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import toeplitz
    >>> toeplitz(np.array([1.0, 2.0, 3.0]), np.array([1.0, 4.0]))
    array([[1., 4.],
           [2., 1.],
           [3., 2.]])
    """
    c = reshape(as_array(c), shape=(-1,))
    r = conj(c) if r is None else reshape(as_array(r), shape=(-1,))
    m, n = shape_of(c)[0], shape_of(r)[0]
    # every diagonal reads one entry of [r reversed (less its first), c]
    values = concatenate(getitem(r, index=slice(n - 1, 0, -1)), c, axis=0)
    index = (np.arange(m)[:, None] - np.arange(n)[None, :]) + (n - 1)
    return getitem(values, index=index)


def hankel(c, r=None):
    """``scipy.linalg.hankel``: first column ``c``, last row ``r`` (zeros by default; its
    first element is ignored).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import hankel
    >>> hankel(np.array([1.0, 2.0, 3.0]))
    array([[1., 2., 3.],
           [2., 3., 0.],
           [3., 0., 0.]])
    """
    c = reshape(as_array(c), shape=(-1,))
    m = shape_of(c)[0]
    r = (
        np.zeros(m, dtype=float_dtype(dtype_of(c)))
        if r is None
        else reshape(as_array(r), shape=(-1,))
    )
    n = shape_of(r)[0]
    values = concatenate(c, getitem(r, index=slice(1, None)), axis=0)
    return getitem(values, index=np.arange(m)[:, None] + np.arange(n)[None, :])


def circulant(c):
    """``scipy.linalg.circulant``: each column ``c`` rolled down one more.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import circulant
    >>> circulant(np.array([1.0, 2.0, 3.0]))
    array([[1., 3., 2.],
           [2., 1., 3.],
           [3., 2., 1.]])
    """
    c = reshape(as_array(c), shape=(-1,))
    n = shape_of(c)[0]
    return getitem(c, index=(np.arange(n)[:, None] - np.arange(n)[None, :]) % n)


def companion(a):
    """``scipy.linalg.companion``: the matrix whose characteristic polynomial has the
    coefficients ``a`` (highest first): ``-a[1:] / a[0]`` on its first row, ones below
    the diagonal; along the last axis of a stack of polynomials.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import companion
    >>> companion(np.array([2.0, 4.0, 6.0]))
    array([[-2., -3.],
           [ 1.,  0.]])
    """
    if not is_traced(a):
        return scipy.linalg.companion(a)
    a = as_array(a)
    n = shape_of(a)[-1]
    if n < 2:
        raise ArgumentError(f"companion: needs at least two coefficients; got {n}")
    first = -getitem(a, index=(..., slice(1, None))) / getitem(a, index=(..., slice(0, 1)))
    stack = shape_of(a)[:-1]
    below = np.broadcast_to(
        np.eye(n - 2, n - 1, dtype=float_dtype(dtype_of(first))), (*stack, n - 2, n - 1)
    )
    return concatenate(reshape(first, shape=(*stack, 1, n - 1)), below, axis=-2)


def leslie(f, s):
    """``scipy.linalg.leslie``: fecundities ``f`` on the first row, survivals ``s`` below
    the diagonal.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import leslie
    >>> leslie(np.array([0.5, 1.0, 0.2]), np.array([0.6, 0.8]))
    array([[0.5, 1. , 0.2],
           [0.6, 0. , 0. ],
           [0. , 0.8, 0. ]])
    """
    if not is_traced(f, s):
        return scipy.linalg.leslie(f, s)
    f, s = as_array(f), as_array(s)
    n = shape_of(f)[0]
    if len(shape_of(f)) != 1 or shape_of(s) != (n - 1,):
        raise ArgumentError(
            f"leslie: f is a vector of n entries and s of n - 1; got shapes {shape_of(f)} "
            f"and {shape_of(s)}"
        )
    kind = np.result_type(dtype_of(f), dtype_of(s))
    below = _fnp.concatenate([_fnp.diag(s), np.zeros((n - 1, 1), kind)], axis=1)
    return _fnp.astype(_fnp.concatenate([reshape(f, shape=(1, n)), below], axis=0), kind)


def fiedler(a):
    """``scipy.linalg.fiedler``: ``|a[i] - a[j]|``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import fiedler
    >>> fiedler(np.array([1.0, 4.0, 2.0]))
    array([[0., 3., 1.],
           [3., 0., 2.],
           [1., 2., 0.]])
    """
    if not is_traced(a):
        return scipy.linalg.fiedler(a)
    a = as_array(a)
    return _fnp.abs(a[..., :, None] - a[..., None, :])


def convolution_matrix(a, n, mode="full"):
    """``scipy.linalg.convolution_matrix``: the matrix ``A`` with ``A @ v`` equal to
    ``numpy.convolve(a, v, mode)`` for ``v`` of length ``n`` (a Toeplitz matrix of ``a``).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import convolution_matrix
    >>> convolution_matrix(np.array([1.0, 2.0]), 3, "valid")
    array([[2., 1., 0.],
           [0., 2., 1.]])
    """
    if not is_traced(a):
        return scipy.linalg.convolution_matrix(a, n, mode)
    a = reshape(as_array(a), shape=(-1,))
    m = shape_of(a)[0]
    if mode not in ("full", "same", "valid") or n < 1 or m < 1:
        raise ArgumentError(
            f"convolution_matrix: mode is 'full', 'same' or 'valid', n >= 1 and a not "
            f"empty; got mode {mode!r}, n {n}, {m} entries"
        )
    zeros = np.zeros(n - 1, dtype_of(a))
    full = toeplitz(concatenate(a, zeros, axis=0), concatenate(a[:1], zeros, axis=0))
    length = {"full": m + n - 1, "same": max(m, n), "valid": max(m, n) - min(m, n) + 1}[mode]
    start = {"full": 0, "same": (min(m, n) - 1) // 2, "valid": min(m, n) - 1}[mode]
    return full[start : start + length]


def khatri_rao(a, b):
    """``scipy.linalg.khatri_rao``: the Kronecker product of each column of ``a`` with the
    same column of ``b``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import khatri_rao
    >>> khatri_rao(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0], [5.0, 6.0]]))
    array([[ 3.,  8.],
           [ 5., 12.]])
    """
    if not is_traced(a, b):
        return scipy.linalg.khatri_rao(a, b)
    a, b = as_array(a), as_array(b)
    if len(shape_of(a)) != 2 or len(shape_of(b)) != 2 or shape_of(a)[1] != shape_of(b)[1]:
        raise ArgumentError(
            f"khatri_rao: two matrices of as many columns; got shapes {shape_of(a)} and "
            f"{shape_of(b)}"
        )
    return reshape(a[:, None, :] * b[None, :, :], shape=(-1, shape_of(a)[1]))


def diagsvd(s, M, N):
    """``scipy.linalg.diagsvd``: the ``M`` x ``N`` matrix with ``s`` on its diagonal.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import diagsvd
    >>> diagsvd(np.array([3.0, 1.0]), 2, 3)
    array([[3., 0., 0.],
           [0., 1., 0.]])
    """
    if not is_traced(s):
        return scipy.linalg.diagsvd(s, M, N)
    k = shape_of(s)[0]
    if k not in (M, N):
        raise ArgumentError(f"diagsvd: s has {k} entries; it needs M ({M}) or N ({N})")
    return _fnp.pad(_fnp.diag(s), ((0, M - k), (0, N - k)))


def hadamard(n, dtype=int):
    """``scipy.linalg.hadamard``: SciPy's own array (a matrix of a size: nothing to
    differentiate), as are :func:`hilbert`, :func:`invhilbert`, :func:`pascal`,
    :func:`invpascal`, :func:`helmert` and :func:`dft`.

    >>> from funcgrad.scipy.linalg import hadamard
    >>> hadamard(2)
    array([[ 1,  1],
           [ 1, -1]])
    """
    return scipy.linalg.hadamard(n, dtype)


def hilbert(n):
    """``scipy.linalg.hilbert``: ``1 / (i + j + 1)`` (SciPy's own array).

    >>> from funcgrad.scipy.linalg import hilbert
    >>> hilbert(2)
    array([[1.        , 0.5       ],
           [0.5       , 0.33333333]])
    """
    return scipy.linalg.hilbert(n)


def invhilbert(n, exact=False):
    """``scipy.linalg.invhilbert``: the Hilbert matrix's inverse (SciPy's own array).

    >>> from funcgrad.scipy.linalg import invhilbert
    >>> invhilbert(2)
    array([[ 4., -6.],
           [-6., 12.]])
    """
    return scipy.linalg.invhilbert(n, exact)


def pascal(n, kind="symmetric", exact=True):
    """``scipy.linalg.pascal``: binomial coefficients (SciPy's own array).

    >>> from funcgrad.scipy.linalg import pascal
    >>> pascal(3, kind="lower")
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 2, 1]], dtype=uint64)
    """
    return scipy.linalg.pascal(n, kind, exact)


def invpascal(n, kind="symmetric", exact=True):
    """``scipy.linalg.invpascal``: the Pascal matrix's inverse (SciPy's own array).

    >>> from funcgrad.scipy.linalg import invpascal
    >>> invpascal(2)
    array([[ 2, -1],
           [-1,  1]])
    """
    return scipy.linalg.invpascal(n, kind, exact)


def dft(n, scale=None):
    """``scipy.linalg.dft``: the discrete Fourier transform's matrix (SciPy's own array).

    >>> from funcgrad.scipy.linalg import dft
    >>> dft(2).real
    array([[ 1.,  1.],
           [ 1., -1.]])
    """
    return scipy.linalg.dft(n, scale)


def helmert(n, full=False):
    """``scipy.linalg.helmert``: the Helmert matrix of order ``n`` (SciPy's own array).

    >>> from funcgrad.scipy.linalg import helmert
    >>> helmert(3).shape, helmert(3, full=True).shape
    ((2, 3), (3, 3))
    """
    return scipy.linalg.helmert(n, full)


def _toeplitz_of(c_or_cr, other):
    """The Toeplitz matrix of ``c_or_cr``, in the type SciPy's Toeplitz products and solves
    compute in with ``other`` (its FFT and Levinson recursion are of float64 at least)."""
    c, r = c_or_cr if isinstance(c_or_cr, tuple) else (c_or_cr, None)
    kinds = [dtype_of(v) for v in (c, r, other) if v is not None]
    return _fnp.astype(toeplitz(c, r), np.result_type(*kinds, np.float64))


def matmul_toeplitz(c_or_cr, x, check_finite=False, workers=None):
    """``scipy.linalg.matmul_toeplitz``: the Toeplitz matrix of ``c`` (first column) and
    ``r`` (first row; ``conj(c)`` by default) times ``x``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import matmul_toeplitz
    >>> matmul_toeplitz((np.array([1.0, 2.0]), np.array([1.0, 3.0])), np.ones(2))
    array([4., 3.])
    """
    if not is_traced(c_or_cr, x):
        return scipy.linalg.matmul_toeplitz(c_or_cr, x, check_finite, workers)
    return _fnp.matmul(_toeplitz_of(c_or_cr, x), as_array(x))


def solve_toeplitz(c_or_cr, b, check_finite=True):
    """``scipy.linalg.solve_toeplitz``: ``x`` with ``T x = b`` for the Toeplitz matrix of
    ``c`` (and ``r``: :func:`matmul_toeplitz`).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import solve_toeplitz
    >>> solve_toeplitz(np.array([2.0, 1.0]), np.array([3.0, 3.0]))
    array([1., 1.])
    """
    if not is_traced(c_or_cr, b):
        return scipy.linalg.solve_toeplitz(c_or_cr, b, check_finite)
    return _la.solve(_toeplitz_of(c_or_cr, b), *lapack_operands(b))


def solve_circulant(c, b, singular="raise", tol=None, caxis=-1, baxis=0, outaxis=0):
    """``scipy.linalg.solve_circulant``: ``x`` with ``C x = b`` for the circulant matrix of
    ``c`` (a vector; ``b`` along its first axis: SciPy's default axes).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import solve_circulant
    >>> solve_circulant(np.array([2.0, 1.0, 0.0]), np.array([3.0, 3.0, 3.0]))
    array([1., 1., 1.])
    """
    if not is_traced(c, b):
        return scipy.linalg.solve_circulant(c, b, singular, tol, caxis, baxis, outaxis)
    if (caxis, baxis, outaxis) != (-1, 0, 0) or len(shape_of(c)) != 1 or singular != "raise":
        raise ArgumentError(
            "solve_circulant: on traced values, c is a vector and b is read along its first "
            "axis (caxis=-1, baxis=0, outaxis=0, singular='raise'); move the axes first"
        )
    c, b = lapack_operands(c, b)
    return _la.solve(circulant(c), b)
