"""SciPy's trigonometric and hyperbolic functions of a matrix, and the Lyapunov equations,
differentiable: each is SciPy's own formula in the matrix exponential and a solve
(``sinhm(A) = (expm(A) - expm(-A)) / 2``, ``cosm(A)`` the real part of ``expm(iA)`` for a
real ``A``, ``tanm = cosm^-1 sinm``), ``solve_continuous_lyapunov`` a Sylvester equation
and ``solve_discrete_lyapunov`` SciPy's direct method (a Kronecker system of n^2 unknowns:
for the small matrices it is meant for; SciPy itself turns to a bilinear transformation
past 10 rows).

>>> import numpy as np
>>> from funcgrad.scipy.linalg import coshm, sinhm
>>> a = np.array([[0.5, 0.2], [0.0, -0.3]])
>>> bool(np.allclose(coshm(a) @ coshm(a) - sinhm(a) @ sinhm(a), np.eye(2)))
True
"""

import numpy as np
import scipy.linalg

from ..core.errors import ArgumentError
from ..core.values import dtype_of, shape_of
from ..numpy import linalg as _la
from ..numpy._helpers import as_array, is_traced
from ..rules import scipy_linalg as _s
from ..rules.linalg import mH
from ..rules.ufuncs import imag, real
from ._lapack import lapack_operands

__all__ = [
    "sinm",
    "cosm",
    "tanm",
    "sinhm",
    "coshm",
    "tanhm",
    "solve_continuous_lyapunov",
    "solve_discrete_lyapunov",
]


def _exp_pair(A, scale):
    """``expm(scale A)`` and ``expm(-scale A)``."""
    return _s.expm(scale * A), _s.expm(-scale * A)


def sinm(A):
    """``scipy.linalg.sinm``: the matrix sine.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import sinm
    >>> sinm(np.zeros((2, 2)))
    array([[0., 0.],
           [0., 0.]])
    """
    if not is_traced(A):
        return scipy.linalg.sinm(A)
    A = as_array(A)
    if dtype_of(A).kind != "c":
        return imag(_s.expm(1j * A))
    up, down = _exp_pair(A, 1j)
    return -0.5j * (up - down)


def cosm(A):
    """``scipy.linalg.cosm``: the matrix cosine.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import cosm
    >>> cosm(np.zeros((2, 2)))
    array([[1., 0.],
           [0., 1.]])
    """
    if not is_traced(A):
        return scipy.linalg.cosm(A)
    A = as_array(A)
    if dtype_of(A).kind != "c":
        return real(_s.expm(1j * A))
    up, down = _exp_pair(A, 1j)
    return 0.5 * (up + down)


def tanm(A):
    """``scipy.linalg.tanm``: the matrix tangent, ``cosm(A)^-1 sinm(A)``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import tanm
    >>> tanm(np.zeros((2, 2)))
    array([[0., 0.],
           [0., 0.]])
    """
    if not is_traced(A):
        return scipy.linalg.tanm(A)
    return _la.solve(cosm(A), sinm(A))


def sinhm(A):
    """``scipy.linalg.sinhm``: the matrix hyperbolic sine.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import sinhm
    >>> sinhm(np.zeros((1, 1)))
    array([[0.]])
    """
    if not is_traced(A):
        return scipy.linalg.sinhm(A)
    up, down = _exp_pair(as_array(A), 1.0)
    return 0.5 * (up - down)


def coshm(A):
    """``scipy.linalg.coshm``: the matrix hyperbolic cosine.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import coshm
    >>> coshm(np.zeros((1, 1)))
    array([[1.]])
    """
    if not is_traced(A):
        return scipy.linalg.coshm(A)
    up, down = _exp_pair(as_array(A), 1.0)
    return 0.5 * (up + down)


def tanhm(A):
    """``scipy.linalg.tanhm``: the matrix hyperbolic tangent, ``coshm(A)^-1 sinhm(A)``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import tanhm
    >>> tanhm(np.zeros((1, 1)))
    array([[0.]])
    """
    if not is_traced(A):
        return scipy.linalg.tanhm(A)
    return _la.solve(coshm(A), sinhm(A))


def solve_continuous_lyapunov(a, q):
    """``scipy.linalg.solve_continuous_lyapunov``: ``x`` with ``a x + x a^H = q``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import solve_continuous_lyapunov
    >>> solve_continuous_lyapunov(-np.eye(2), -2.0 * np.eye(2))
    array([[1., 0.],
           [0., 1.]])
    """
    if not is_traced(a, q):
        return scipy.linalg.solve_continuous_lyapunov(a, q)
    a = as_array(a)
    return _s.solve_sylvester(a, mH(a), as_array(q))


def solve_discrete_lyapunov(a, q, method=None):
    """``scipy.linalg.solve_discrete_lyapunov``: ``x`` with ``a x a^H - x + q = 0``, by the
    direct method (``vec(x)`` solves ``(I - a kron conj(a)) vec(x) = vec(q)``).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import solve_discrete_lyapunov
    >>> solve_discrete_lyapunov(0.5 * np.eye(2), 0.75 * np.eye(2))
    array([[1., 0.],
           [0., 1.]])
    """
    if not is_traced(a, q):
        return scipy.linalg.solve_discrete_lyapunov(a, q, method)
    if method not in (None, "direct", "bilinear"):
        raise ArgumentError(
            f"solve_discrete_lyapunov: method is 'direct' or 'bilinear'; got {method!r}"
        )
    a, q = lapack_operands(a, q)
    n = shape_of(a)[0]
    kron = (a[:, None, :, None] * a.conj()[None, :, None, :]).reshape(n * n, n * n)
    x = _la.solve(np.eye(n * n) - kron, q.reshape(n * n))
    return x.reshape(n, n)
