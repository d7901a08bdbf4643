"""``funcgrad.numpy.linalg``: NumPy's linear algebra, differentiable.

Same names, signatures and values as :mod:`numpy.linalg`; the rules are in
:mod:`funcgrad.rules.linalg`. Matrices are the last two axes and every
function maps over leading (stack) axes as NumPy does. Conventions:

- ``cholesky`` and ``eigh`` read one triangle of their input (the lower one by
  default), like NumPy, and their derivatives are those of that function: the
  other triangle gets a zero gradient. Symmetrise first (``0.5 * (a + a.T)``)
  to differentiate with respect to every entry of a symmetric matrix.
- ``eigh``'s gradient needs distinct eigenvalues; at a repeated eigenvalue the
  eigenvectors are not determined and the gradient is infinite or NaN.
- ``norm``'s gradient at zero (2-norm and Frobenius norm) is 0, a subgradient
  (PyTorch returns the same); ties of ``inf``/``1`` matrix norms and of the
  ``inf`` vector norm share the gradient evenly. The matrix norms ``ord=2,
  -2, 'nuc'`` differentiate through the singular values.
- ``svd``, ``svdvals``, ``qr``, ``eig``/``eigvals``, ``lstsq`` and ``matrix_power``
  are in :mod:`funcgrad.numpy._decompositions`; singular vectors and eigenvectors
  are unique up to sign (phase), so only losses that do not depend on it have
  a derivative.
- ``det``, ``slogdet`` and ``inv`` differentiate through ``inv``: at a
  singular matrix the gradient raises ``LinAlgError``. ``pinv``'s gradient
  holds where the rank is locally constant (e.g. full rank).

Other NumPy linear algebra names raise :class:`funcgrad.errors.NoRuleError`.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> a = np.array([[2.0, 1.0], [1.0, 3.0]])
>>> fg.grad(lambda a: fnp.linalg.det(a))(a)
array([[ 3., -1.],
       [-1.,  2.]])
>>> hasattr(fnp.linalg, "matrix_exp")      # not NumPy's either: an AttributeError
False
"""

from typing import Any as _Any
from typing import NamedTuple as _NamedTuple

import numpy as _np
from numpy.linalg import LinAlgError

from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.errors import NoRuleError as _NoRuleError
from ..core.values import is_complex
from ..core.values import shape_of as _shape_of
from ..rules import decompositions as _dec
from ..rules import linalg as _la
from ..rules.arrays import getitem as _getitem
from ..rules.arrays import reshape as _reshape
from ..rules.arrays import swapaxes as _swapaxes
from ..rules.elementwise import real as _real
from ..rules.matmul import matmul as _matmul
from . import _products
from ._decompositions import (
    EigResult,
    QRResult,
    SVDResult,
    eig,
    eigvals,
    lstsq,
    matrix_power,
    qr,
    svd,
    svd_norm,
    svdvals,
)
from ._helpers import lists_as_arrays
from ._products import matmul, tensordot, vecdot
from ._shape import transpose

__all__ = [
    "LinAlgError",
    "inv",
    "det",
    "slogdet",
    "solve",
    "cholesky",
    "norm",
    "eigh",
    "pinv",
    "eigvalsh",
    "svd",
    "svdvals",
    "qr",
    "eig",
    "eigvals",
    "lstsq",
    "matrix_power",
    "multi_dot",
    "cond",
    "matrix_rank",
    "matrix_transpose",
    "vector_norm",
    "matrix_norm",
    "SlogdetResult",
    "EighResult",
    "SVDResult",
    "QRResult",
    "EigResult",
    "matmul",
    "tensordot",
    "vecdot",
    "outer",
    "cross",
    "diagonal",
    "trace",
    "tensorinv",
    "tensorsolve",
]


class SlogdetResult(_NamedTuple):
    """What :func:`slogdet` returns (NumPy's fields): the sign (a phase for a complex
    matrix) and the log of the absolute determinant.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import slogdet
    >>> slogdet(np.array([[2.0, 0.0], [0.0, -3.0]]))
    SlogdetResult(sign=np.float64(-1.0), logabsdet=np.float64(1.791759469228055))
    """

    sign: _Any
    logabsdet: _Any


class EighResult(_NamedTuple):
    """What :func:`eigh` returns (NumPy's fields): ascending ``eigenvalues`` and the
    ``eigenvectors`` as columns.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import eigh
    >>> eigh(np.array([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
    array([1., 2.])
    """

    eigenvalues: _Any
    eigenvectors: _Any


def inv(a):
    """The inverse of a square matrix (or of each in a stack).

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import inv
    >>> inv(np.array([[2.0, 0.0], [0.0, 4.0]]))
    array([[0.5 , 0.  ],
           [0.  , 0.25]])
    """
    return _la.inv(lists_as_arrays(a))


def det(a):
    """The determinant of a square matrix (or of each in a stack).

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import det
    >>> round(float(det(np.array([[2.0, 1.0], [1.0, 3.0]]))), 6)
    5.0
    """
    return _la.det(lists_as_arrays(a))


def slogdet(a):
    """``(sign, logabsdet)`` of the determinant; ``logabsdet`` is differentiable, the
    sign is piecewise constant (zero derivative).

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import slogdet
    >>> sign, logabsdet = slogdet(np.array([[0.0, 2.0], [1.0, 0.0]]))
    >>> float(sign), round(float(logabsdet), 6)
    (-1.0, 0.693147)
    """
    a = lists_as_arrays(a)
    return SlogdetResult(_la.slogdet_sign(a), _la.logabsdet(a))


def solve(a, b):
    """The solution ``x`` of ``a @ x = b``; ``b`` is a vector if 1-D, else a stack of
    matrices (NumPy 2 semantics).

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import solve
    >>> solve(np.array([[2.0, 0.0], [0.0, 4.0]]), np.array([1.0, 1.0]))
    array([0.5 , 0.25])
    """
    return _la.solve(lists_as_arrays(a), lists_as_arrays(b))


def cholesky(a, /, *, upper=False):
    """The Cholesky factor ``L`` (lower; ``upper=True`` gives ``L^T``) of a symmetric
    positive definite matrix, reading its lower triangle. Its gradient lies in that
    triangle; JAX's and PyTorch's (of a symmetric input) is its average with its
    transpose, ``0.5 * (g + g.T)`` (docs/numpy.md).

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import cholesky
    >>> cholesky(np.array([[4.0, 2.0], [2.0, 2.0]]))
    array([[2., 0.],
           [1., 1.]])
    """
    low = _la.cholesky(lists_as_arrays(a))
    return _swapaxes(low, axis1=-1, axis2=-2) if upper else low


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector norms (``ord`` None/2, 1, inf, -inf, 0, any p) and matrix norms
    (``'fro'``, ``'nuc'``, 1, -1, 2, -2, inf, -inf) along ``axis``, as ``numpy.linalg.norm``.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import norm
    >>> norm(np.array([3.0, 4.0]))
    np.float64(5.0)
    >>> norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=np.inf)
    np.float64(7.0)
    """
    if isinstance(axis, list):
        axis = tuple(axis)
    x = lists_as_arrays(x)
    nd = len(_shape_of(x))
    matrix_axes = (nd - 2, nd - 1) if axis is None and nd == 2 else axis
    if ord in (2, -2, "nuc") and isinstance(matrix_axes, tuple) and len(matrix_axes) == 2:
        row, col = (a % nd for a in matrix_axes)
        return svd_norm(x, ord, row, col, keepdims)
    return _la.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def eigh(a, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix,
    reading its ``UPLO`` triangle.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import eigh
    >>> w, v = eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> w
    array([1., 3.])
    """
    if UPLO not in ("L", "U", "l", "u"):
        raise ArgumentError(f"eigh: UPLO must be 'L' or 'U'; got {UPLO!r}")
    packed = _la.eigh_packed(lists_as_arrays(a), UPLO=UPLO)
    w = _getitem(packed, index=(Ellipsis, 0, slice(None)))
    v = _getitem(packed, index=(Ellipsis, slice(1, None), slice(None)))
    if is_complex(w):  # a Hermitian matrix: its eigenvalues are real, as NumPy returns them
        w = _real(w)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L"):
    """The eigenvalues (ascending) of a symmetric or Hermitian matrix, reading its
    ``UPLO`` triangle.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import eigvalsh
    >>> eigvalsh(np.array([[2.0, 1.0], [1.0, 2.0]]))
    array([1., 3.])
    """
    if UPLO not in ("L", "U", "l", "u"):
        raise ArgumentError(f"eigvalsh: UPLO must be 'L' or 'U'; got {UPLO!r}")
    return _dec.eigvalsh(lists_as_arrays(a), UPLO=UPLO)


def cond(x, p=None):
    """The condition number, from the singular values (``p`` None, 2, -2) or as
    ``norm(x, p) * norm(inv(x), p)`` for the other norms, as NumPy computes it.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import cond
    >>> cond(np.array([[2.0, 0.0], [0.0, 0.5]]))
    np.float64(4.0)
    """
    x = lists_as_arrays(x)
    if p is None or p in (2, -2):
        s = svdvals(x)
        first = _getitem(s, index=(Ellipsis, 0))
        last = _getitem(s, index=(Ellipsis, -1))
        return last / first if p == -2 else first / last
    return norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """``numpy.linalg.matrix_rank`` of the values (an integer: no derivative).

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import matrix_rank
    >>> int(matrix_rank(np.ones((3, 3))))
    1
    """
    params = {k: v for k, v in (("tol", tol), ("rtol", rtol)) if v is not None}
    return _dec.matrix_rank(lists_as_arrays(A), hermitian=hermitian, **params)


def matrix_transpose(x, /):
    """The transpose of the last two axes.

    >>> import numpy as np
    >>> from funcgrad.numpy import matrix_transpose
    >>> matrix_transpose(np.ones((2, 3))).shape
    (3, 2)
    """
    return _swapaxes(lists_as_arrays(x), axis1=-1, axis2=-2)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """``numpy.linalg.vector_norm``: a vector norm over ``axis`` (all axes by default).

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import vector_norm
    >>> vector_norm(np.ones((2, 2)))
    np.float64(2.0)
    """
    x = lists_as_arrays(x)
    if axis is None:
        out = norm(_reshape(x, shape=(-1,)), ord=ord)
        return _reshape(out, shape=(1,) * len(_shape_of(x))) if keepdims else out
    return norm(x, ord=ord, axis=axis, keepdims=keepdims)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """``numpy.linalg.matrix_norm``: a matrix norm over the last two axes.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import matrix_norm
    >>> matrix_norm(np.eye(2), ord=2)
    np.float64(1.0)
    """
    return norm(lists_as_arrays(x), ord=ord, axis=(-2, -1), keepdims=keepdims)


def multi_dot(arrays, *, out=None):
    """A chain of matrix products in NumPy's order (the cheapest one), 1-D ends read as a
    row and a column vector, so the values are NumPy's.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import multi_dot
    >>> multi_dot([np.ones(2), np.eye(2), np.ones(2)])
    np.float64(2.0)
    """
    if out is not None:
        raise ArgumentTypeError(
            "multi_dot: out= is not supported (funcgrad never writes into arrays)"
        )
    arrays = [lists_as_arrays(a) for a in arrays]
    if len(arrays) < 2:
        raise ArgumentError("multi_dot: expecting at least two arrays")
    first_1d, last_1d = len(_shape_of(arrays[0])) == 1, len(_shape_of(arrays[-1])) == 1
    if first_1d:
        arrays[0] = _reshape(arrays[0], shape=(1, -1))
    if last_1d:
        arrays[-1] = _reshape(arrays[-1], shape=(-1, 1))
    result = _chain(arrays, _chain_order([_shape_of(a) for a in arrays]), 0, len(arrays) - 1)
    if first_1d and last_1d:
        return _getitem(result, index=(0, 0))
    if first_1d or last_1d:
        return _reshape(result, shape=(-1,))
    return result


def _chain_order(shapes):
    """``split[i][j]``: where the cheapest product of matrices i..j splits (matrix-chain DP)."""
    dims = [s[0] for s in shapes] + [shapes[-1][1]]
    n = len(shapes)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(arrays, split, i, j):
    if i == j:
        return arrays[i]
    k = split[i][j]
    return _matmul(_chain(arrays, split, i, k), _chain(arrays, split, k + 1, j))


_NO_VALUE = object()


def pinv(a, rcond=None, hermitian=False, *, rtol=_NO_VALUE):
    """The Moore-Penrose pseudo-inverse (via NumPy's SVD); its derivative assumes the
    rank does not change near ``a``.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import pinv
    >>> pinv(np.array([[1.0], [1.0]]))
    array([[0.5, 0.5]])
    """
    params = {}
    if rcond is not None:
        params["rcond"] = rcond
    if hermitian:
        params["hermitian"] = True
    if rtol is not _NO_VALUE:
        params["rtol"] = rtol
    return _la.pinv(lists_as_arrays(a), **params)


def __getattr__(name):
    if hasattr(_np.linalg, name) and not name.startswith("_"):
        raise _NoRuleError(
            f"funcgrad.numpy.linalg has no derivative rule for numpy.linalg.{name}; compute it "
            f"outside the differentiated function, or define it with fg.primitive and fg.defvjp"
        )
    raise AttributeError(f"module 'funcgrad.numpy.linalg' has no attribute {name!r}")


# -- NumPy 2's linalg names for products; their axes are the last ones, where the main
# namespace's diagonal and trace take the first two


def outer(x1, x2, /):
    """``numpy.linalg.outer``: the outer product of two vectors.

    >>> import numpy as np
    >>> from funcgrad.numpy import outer
    >>> outer(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    array([[3., 4.],
           [6., 8.]])
    """
    if len(_shape_of(x1)) != 1 or len(_shape_of(x2)) != 1:
        raise ArgumentError(
            f"linalg.outer: takes two vectors; got shapes {_shape_of(x1)} and "
            f"{_shape_of(x2)} (numpy.outer flattens its arguments)"
        )
    return _products.outer(x1, x2)


def cross(x1, x2, /, *, axis=-1):
    """``numpy.linalg.cross``: the cross product of 3-vectors along ``axis``.

    >>> import numpy as np
    >>> from funcgrad.numpy import cross
    >>> cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
    array([0., 0., 1.])
    """
    if _shape_of(x1)[axis] != 3 or _shape_of(x2)[axis] != 3:
        raise ArgumentError(
            f"linalg.cross: takes 3-vectors along axis {axis}; got shapes "
            f"{_shape_of(x1)} and {_shape_of(x2)}"
        )
    return _products.cross(x1, x2, axis=axis)


def diagonal(x, /, *, offset=0):
    """``numpy.linalg.diagonal``: the diagonals of the last two axes.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import diagonal
    >>> diagonal(np.arange(8.0).reshape(2, 2, 2))
    array([[0., 3.],
           [4., 7.]])
    """
    return _products.diagonal(x, offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset=0, dtype=None):
    """``numpy.linalg.trace``: the traces of the last two axes.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import trace
    >>> trace(np.arange(8.0).reshape(2, 2, 2))
    array([ 3., 11.])
    """
    return _products.trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)


def tensorinv(a, ind=2):
    """``numpy.linalg.tensorinv``: the inverse of ``a`` read as a matrix of its first
    ``ind`` axes by the others.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import tensorinv
    >>> tensorinv(np.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    shape = _shape_of(a)
    rows = int(_np.prod(shape[:ind]))
    if rows != int(_np.prod(shape[ind:])):
        raise ArgumentError(
            f"linalg.tensorinv: the first {ind} axes of shape {shape} must hold "
            f"as many entries as the others"
        )
    return _reshape(inv(_reshape(a, shape=(rows, rows))), shape=shape[ind:] + shape[:ind])


def tensorsolve(a, b, axes=None):
    """``numpy.linalg.tensorsolve``: ``x`` with ``tensordot(a, x, x.ndim) == b``.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import tensorsolve
    >>> a = np.eye(6).reshape(6, 2, 3)
    >>> tensorsolve(a, np.arange(6.0)).shape
    (2, 3)
    """
    if axes is not None:
        n = len(_shape_of(a))
        order = [k for k in range(n) if k not in [x % n for x in axes]] + [x % n for x in axes]
        a = transpose(a, order)
    shape = _shape_of(a)
    rows = int(_np.prod(_shape_of(b)))
    solution = shape[len(_shape_of(b)) :]
    if rows != int(_np.prod(solution)):
        raise ArgumentError(
            f"linalg.tensorsolve: a of shape {shape} is not square for b of shape {_shape_of(b)}"
        )
    x = solve(_reshape(a, shape=(rows, rows)), _reshape(b, shape=(rows,)))
    return _reshape(x, shape=solution)


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
