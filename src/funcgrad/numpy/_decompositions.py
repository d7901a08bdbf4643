"""Decompositions of funcgrad.numpy.linalg: svd, svdvals, qr, eig, eigvals, lstsq,
matrix_power, and the SVD-based matrix norms, with NumPy's signatures and values.

The rules are in :mod:`funcgrad.rules.decompositions`. Singular vectors and
eigenvectors are unique only up to sign (a complex phase), so only losses that
do not depend on that choice have a derivative; so are the columns of a full
SVD or complete QR of a non-square matrix beyond the first min(m, n), which
raise :class:`~funcgrad.errors.NoDerivativeError` when a loss uses them.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> a = np.array([[3.0, 0.0], [4.0, 5.0]])
>>> fg.grad(lambda a: fnp.linalg.svd(a, compute_uv=False)[0])(a)   # u_1 v_1^T
array([[0.2236068 , 0.2236068 ],
       [0.67082039, 0.67082039]])
"""

from typing import Any as _Any
from typing import NamedTuple as _NamedTuple

import numpy as _np

from ..core.errors import ArgumentTypeError, UnsupportedError
from ..core.values import dtype_of, in_library_of, shape_of
from ..rules import decompositions as _d
from ..rules import reductions as _r
from ..rules.arrays import concatenate as _concatenate
from ..rules.arrays import reshape as _reshape
from ..rules.arrays import sum as _sum
from ..rules.arrays import transpose as _transpose
from ..rules.linalg import inv as _inv
from ..rules.linalg import mH
from ..rules.matmul import matmul as _matmul
from ._helpers import lists_as_arrays

__all__ = [
    "svd",
    "svdvals",
    "qr",
    "eig",
    "eigvals",
    "lstsq",
    "matrix_power",
    "svd_norm",
    "SVDResult",
    "QRResult",
    "EigResult",
]


class SVDResult(_NamedTuple):
    """What ``svd`` returns (NumPy's fields): ``U``, the singular values ``S`` and ``Vh``.

    >>> import numpy as np
    >>> import funcgrad.numpy as fnp
    >>> fnp.linalg.svd(np.diag([3.0, 2.0])).S
    array([3., 2.])
    """

    U: _Any
    S: _Any
    Vh: _Any


class QRResult(_NamedTuple):
    """What ``qr`` returns (NumPy's fields): ``Q`` and ``R``.

    >>> import numpy as np
    >>> import funcgrad.numpy as fnp
    >>> q, r = fnp.linalg.qr(np.array([[3.0, 0.0], [4.0, 5.0]]))
    >>> bool(np.allclose(q @ r, [[3.0, 0.0], [4.0, 5.0]]))
    True
    """

    Q: _Any
    R: _Any


class EigResult(_NamedTuple):
    """What ``eig`` returns (NumPy's fields): ``eigenvalues`` and ``eigenvectors``.

    >>> import numpy as np
    >>> import funcgrad.numpy as fnp
    >>> fnp.linalg.eig(np.diag([2.0, 1.0])).eigenvalues.real    # complex from NumPy 2.5 on
    array([2., 1.])
    """

    eigenvalues: _Any
    eigenvectors: _Any


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """``numpy.linalg.svd``: ``(U, S, Vh)`` with ``a = U @ diag(S) @ Vh``, or ``S`` alone.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import svd
    >>> u, s, vh = svd(np.array([[3.0, 0.0], [4.0, 5.0]]))
    >>> s
    array([6.70820393, 2.23606798])
    """
    a = lists_as_arrays(a)
    if not compute_uv:
        return _d.svdvals(a, hermitian=hermitian)
    m, n = shape_of(a)[-2:]
    packed = _d.svd_packed(a, full_matrices=bool(full_matrices), hermitian=hermitian)
    u, s, v = _d.svd_parts(packed, m)
    vh = mH(v)
    if full_matrices and m > n:
        u = _concatenate(u, _d.complement(a, of="svd_u"), axis=-1)
    if full_matrices and n > m:
        vh = _concatenate(vh, _d.complement(a, of="svd_vh"), axis=-2)
    return SVDResult(u, s, vh)


def svdvals(x, /):
    """``numpy.linalg.svdvals``: the singular values, descending.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import svdvals
    >>> svdvals(np.array([[3.0, 0.0], [4.0, 5.0]]))
    array([6.70820393, 2.23606798])
    """
    return _d.svdvals(lists_as_arrays(x))


def qr(a, mode="reduced"):
    """``numpy.linalg.qr`` in modes ``'reduced'``, ``'complete'`` and ``'r'``.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import qr
    >>> q, r = qr(np.array([[3.0, 1.0], [4.0, 2.0]]))
    >>> r
    array([[-5. , -2.2],
           [ 0. ,  0.4]])
    """
    a = lists_as_arrays(a)
    if mode not in ("reduced", "complete", "r"):
        raise UnsupportedError(
            f"qr: mode={mode!r} has no derivative rule; use 'reduced', 'complete' or 'r'"
        )
    m, n = shape_of(a)[-2:]
    q, r = _d.qr_parts(_d.qr_packed(a, mode="complete" if mode == "complete" else "reduced"), m)
    if mode == "complete" and m > n:
        q = _concatenate(q, _d.complement(a, of="qr_q"), axis=-1)
        zeros = in_library_of(_np.zeros(shape_of(a)[:-2] + (m - n, n), dtype=dtype_of(r)), r)
        r = _concatenate(r, zeros, axis=-2)
    return r if mode == "r" else QRResult(q, r)


def eig(a):
    """``numpy.linalg.eig``: eigenvalues and unit-norm eigenvectors (complex where NumPy's are).

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import eig
    >>> w, v = eig(np.array([[0.0, -1.0], [1.0, 0.0]]))
    >>> w
    array([0.+1.j, 0.-1.j])
    """
    w, v = _d.eig_parts(_d.eig_packed(lists_as_arrays(a)))
    return EigResult(w, v)


def eigvals(a):
    """``numpy.linalg.eigvals``: the eigenvalues of a general square matrix. Their derivative
    needs no eigenvector derivative, so it exists at repeated eigenvalues too (of a
    diagonalizable matrix): the gradient of ``sum(eigvals(a))`` is the identity everywhere.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.numpy.linalg import eigvals
    >>> eigvals(np.array([[2.0, 1.0], [0.0, 3.0]])).real     # complex from NumPy 2.5 on
    array([2., 3.])
    >>> fg.grad(lambda a: eigvals(a).real.sum())(np.eye(2))
    array([[1., 0.],
           [0., 1.]])
    """
    return _d.eigvals(lists_as_arrays(a))


def lstsq(a, b, rcond=None):
    """``numpy.linalg.lstsq``: ``(x, residuals, rank, s)``; ``x``, the residuals and ``s``
    are differentiable (where the rank is locally constant), ``rank`` is an integer.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import lstsq
    >>> x, res, rank, s = lstsq(np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]), np.array([1.0, 2.0, 2.0]))
    >>> x, int(rank)
    (array([1.16666667, 0.5       ]), 2)
    """
    a, b = lists_as_arrays(a), lists_as_arrays(b)
    return (
        _d.lstsq_x(a, b, rcond=rcond),
        _d.lstsq_residuals(a, b, rcond=rcond),
        _d.lstsq_rank(a, b, rcond=rcond),
        _d.lstsq_singular_values(a, b, rcond=rcond),
    )


def matrix_power(a, n):
    """``numpy.linalg.matrix_power``: ``a`` to an integer power, by NumPy's own sequence of
    squarings (so the values are NumPy's); negative powers invert first.

    >>> import numpy as np
    >>> from funcgrad.numpy.linalg import matrix_power
    >>> matrix_power(np.array([[1.0, 1.0], [0.0, 1.0]]), 3)
    array([[1., 3.],
           [0., 1.]])
    """
    a = lists_as_arrays(a)
    if not isinstance(n, (int, _np.integer)) or isinstance(n, bool):
        raise ArgumentTypeError(f"matrix_power: the exponent must be an integer; got {n!r}")
    shape = shape_of(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise _np.linalg.LinAlgError(
            f"matrix_power needs a square matrix (or a stack); got shape {shape}"
        )
    if n == 0:
        return _np.broadcast_to(_np.eye(shape[-1], dtype=dtype_of(a)), shape).copy()
    if n < 0:
        a, n = _inv(a), -n
    if n == 1:
        return a
    if n == 2:
        return _matmul(a, a)
    if n == 3:
        return _matmul(_matmul(a, a), a)
    z = result = None
    while n > 0:
        z = a if z is None else _matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else _matmul(result, z)
    return result


def svd_norm(x, ord, row_axis, col_axis, keepdims):
    """The matrix norms ``ord=2, -2, 'nuc'``: the largest, smallest or summed singular
    value, as NumPy computes them."""
    nd = len(shape_of(x))
    rest = [i for i in range(nd) if i not in (row_axis, col_axis)]
    y = _transpose(x, axes=tuple(rest) + (row_axis, col_axis))
    s = _d.svdvals(y)
    out = _r.max(s, axis=-1) if ord == 2 else _r.min(s, axis=-1) if ord == -2 else _sum(s, axis=-1)
    if keepdims:
        shape = list(shape_of(x))
        shape[row_axis] = shape[col_axis] = 1
        out = _reshape(out, shape=tuple(shape))
    return out
