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
  ``inf`` vector norm share the gradient evenly. Matrix norms that need an SVD
  (``ord=2, -2, 'nuc'``) have values but no derivative rule.
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
>>> fnp.linalg.svd
Traceback (most recent call last):
...
funcgrad.errors.NoRuleError: funcgrad.numpy.linalg has no derivative rule for numpy.linalg.svd; compute it outside the differentiated function, or define it with fg.primitive and fg.defvjp
"""

from collections import namedtuple as _namedtuple

import numpy as _np
from numpy.linalg import LinAlgError  # noqa: F401  NumPy's own error class

from ..errors import NoRuleError as _NoRuleError
from ..rules import linalg as _la
from ..rules.arrays import getitem as _getitem
from ..rules.arrays import swapaxes as _swapaxes
from ..rules.elementwise import real as _real
from ..values import is_complex
from ._helpers import lists_as_arrays

__all__ = ["LinAlgError", "inv", "det", "slogdet", "solve", "cholesky", "norm", "eigh", "pinv",
           "SlogdetResult", "EighResult"]

SlogdetResult = _namedtuple("SlogdetResult", "sign logabsdet")
EighResult = _namedtuple("EighResult", "eigenvalues eigenvectors")


def inv(a):
    """The inverse of a square matrix (or of each in a stack).

    >>> import numpy as np
    >>> inv(np.array([[2.0, 0.0], [0.0, 4.0]]))
    array([[0.5 , 0.  ],
           [0.  , 0.25]])
    """
    return _la.inv(lists_as_arrays(a))


def det(a):
    """The determinant of a square matrix (or of each in a stack).

    >>> import numpy as np
    >>> round(float(det(np.array([[2.0, 1.0], [1.0, 3.0]]))), 6)
    5.0
    """
    return _la.det(lists_as_arrays(a))


def slogdet(a):
    """``(sign, logabsdet)`` of the determinant; ``logabsdet`` is differentiable, the
    sign is piecewise constant (zero derivative).

    >>> import numpy as np
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
    >>> solve(np.array([[2.0, 0.0], [0.0, 4.0]]), np.array([1.0, 1.0]))
    array([0.5 , 0.25])
    """
    return _la.solve(lists_as_arrays(a), lists_as_arrays(b))


def cholesky(a, /, *, upper=False):
    """The Cholesky factor ``L`` (lower; ``upper=True`` gives ``L^T``) of a symmetric
    positive definite matrix, reading its lower triangle.

    >>> import numpy as np
    >>> cholesky(np.array([[4.0, 2.0], [2.0, 2.0]]))
    array([[2., 0.],
           [1., 1.]])
    """
    low = _la.cholesky(lists_as_arrays(a))
    return _swapaxes(low, axis1=-1, axis2=-2) if upper else low


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's name
    """Vector norms (``ord`` None/2, 1, inf, -inf, 0, any p) and matrix norms
    (``'fro'``, 1, -1, inf, -inf) along ``axis``, as ``numpy.linalg.norm``.

    >>> import numpy as np
    >>> norm(np.array([3.0, 4.0]))
    np.float64(5.0)
    >>> norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=np.inf)
    np.float64(7.0)
    """
    if isinstance(axis, list):
        axis = tuple(axis)
    return _la.norm(lists_as_arrays(x), ord=ord, axis=axis, keepdims=keepdims)


def eigh(a, UPLO="L"):  # noqa: N803 - NumPy's name
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix,
    reading its ``UPLO`` triangle.

    >>> import numpy as np
    >>> w, v = eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> w
    array([1., 3.])
    """
    if UPLO not in ("L", "U", "l", "u"):
        raise ValueError(f"eigh: UPLO must be 'L' or 'U'; got {UPLO!r}")
    packed = _la.eigh_packed(lists_as_arrays(a), UPLO=UPLO)
    w = _getitem(packed, index=(Ellipsis, 0, slice(None)))
    v = _getitem(packed, index=(Ellipsis, slice(1, None), slice(None)))
    if is_complex(w):   # a Hermitian matrix: its eigenvalues are real, as NumPy returns them
        w = _real(w)
    return EighResult(w, v)


_NO_VALUE = object()


def pinv(a, rcond=None, hermitian=False, *, rtol=_NO_VALUE):
    """The Moore-Penrose pseudo-inverse (via NumPy's SVD); its derivative assumes the
    rank does not change near ``a``.

    >>> import numpy as np
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
            f"outside the differentiated function, or define it with fg.primitive and fg.defvjp")
    raise AttributeError(f"module 'funcgrad.numpy.linalg' has no attribute {name!r}")
