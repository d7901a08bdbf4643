"""What SciPy reads off a decomposition, with SciPy's signatures: eigenvalues (``eig``,
``eigvals``, complex as SciPy gives them; ``eigvalsh``), singular values (``svdvals``),
``norm``, ``pinv`` (SciPy's ``atol``/``rtol`` cutoff), ``lstsq`` and
``orthogonal_procrustes``, differentiable through funcgrad.numpy.linalg's rules; and the
tests of a matrix's structure (``issymmetric``, ``ishermitian``, ``bandwidth``), which read
its values.

>>> import numpy as np
>>> import funcgrad as fg
>>> from funcgrad.scipy.linalg import eigvals, pinv
>>> eigvals(np.array([[2.0, 0.0], [0.0, 3.0]]))
array([2.+0.j, 3.+0.j])
>>> fg.grad(lambda a: pinv(a)[0, 0])(np.array([[2.0, 0.0], [0.0, 4.0]]))
array([[-0.25,  0.  ],
       [ 0.  ,  0.  ]])
"""

import numpy as np
import scipy.linalg

from .. import numpy as _fnp
from ..core.errors import ArgumentError
from ..core.values import dtype_of, float_dtype, shape_of
from ..numpy import linalg as _la
from ..numpy._helpers import as_array, concrete, is_traced
from ..rules.linalg import mH
from ..rules.ufuncs import astype
from ._lapack import lapack_operands

__all__ = [
    "eig",
    "eigvals",
    "eigvalsh",
    "svdvals",
    "norm",
    "pinv",
    "lstsq",
    "orthogonal_procrustes",
    "issymmetric",
    "ishermitian",
    "bandwidth",
]


def _complex(w):
    """Eigenvalues as SciPy gives them: complex, whether or not they are real."""
    kind = dtype_of(w)
    return w if kind.kind == "c" else astype(w, dtype=np.result_type(kind, np.complex64))


def _no_b(b, who):
    if b is not None:
        raise ArgumentError(
            f"scipy.linalg.{who}: the generalized problem (b=) is not offered; reduce it to "
            f"a standard one (solve(b, a))"
        )


def eig(
    a,
    b=None,
    left=False,
    right=True,
    overwrite_a=False,
    overwrite_b=False,
    check_finite=True,
    homogeneous_eigvals=False,
):
    """``scipy.linalg.eig``: the eigenvalues (complex) and the right eigenvectors.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import eig
    >>> eig(np.diag([1.0, 2.0]))[0]
    array([1.+0.j, 2.+0.j])
    """
    if not is_traced(a, b):
        return scipy.linalg.eig(
            a, b, left, right, overwrite_a, overwrite_b, check_finite, homogeneous_eigvals
        )
    _no_b(b, "eig")
    if left or homogeneous_eigvals:
        raise ArgumentError(
            "scipy.linalg.eig: left eigenvectors and homogeneous eigenvalues are not "
            "offered on traced values; the left ones are eig(a.conj().T)'s right ones"
        )
    w, v = _la.eig(*lapack_operands(a))
    return (_complex(w), v) if right else _complex(w)


def eigvals(a, b=None, overwrite_a=False, check_finite=True, homogeneous_eigvals=False):
    """``scipy.linalg.eigvals``: the eigenvalues, complex.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import eigvals
    >>> eigvals(np.array([[0.0, -1.0], [1.0, 0.0]]))
    array([0.+1.j, 0.-1.j])
    """
    if not is_traced(a, b):
        return scipy.linalg.eigvals(a, b, overwrite_a, check_finite, homogeneous_eigvals)
    return eig(a, b, right=False, homogeneous_eigvals=homogeneous_eigvals)


def eigvalsh(
    a,
    b=None,
    *,
    lower=True,
    overwrite_a=False,
    overwrite_b=False,
    type=1,
    check_finite=True,
    subset_by_index=None,
    subset_by_value=None,
    driver=None,
):
    """``scipy.linalg.eigvalsh``: the eigenvalues of a symmetric (Hermitian) matrix,
    ascending, reading its ``lower`` triangle.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import eigvalsh
    >>> eigvalsh(np.array([[2.0, 1.0], [1.0, 2.0]]))
    array([1., 3.])
    """
    if not is_traced(a, b):
        return scipy.linalg.eigvalsh(
            a,
            b,
            lower=lower,
            overwrite_a=overwrite_a,
            overwrite_b=overwrite_b,
            type=type,
            check_finite=check_finite,
            subset_by_index=subset_by_index,
            subset_by_value=subset_by_value,
            driver=driver,
        )
    _no_b(b, "eigvalsh")
    if subset_by_index is not None or subset_by_value is not None:
        raise ArgumentError(
            "scipy.linalg.eigvalsh: subset_by_index/subset_by_value are not offered on traced "
            "values; slice the sorted eigenvalues instead"
        )
    return _la.eigvalsh(*lapack_operands(a), UPLO="L" if lower else "U")


def svdvals(a, overwrite_a=False, check_finite=True):
    """``scipy.linalg.svdvals``: the singular values, descending.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import svdvals
    >>> svdvals(np.diag([1.0, 3.0]))
    array([3., 1.])
    """
    if not is_traced(a):
        return scipy.linalg.svdvals(a, overwrite_a, check_finite)
    return _la.svdvals(*lapack_operands(a))


def norm(a, ord=None, axis=None, keepdims=False, check_finite=True):
    """``scipy.linalg.norm``: NumPy's vector and matrix norms.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import norm
    >>> float(norm(np.array([3.0, 4.0])))
    5.0
    """
    if not is_traced(a):
        return scipy.linalg.norm(a, ord, axis, keepdims, check_finite)
    return _la.norm(as_array(a), ord, axis, keepdims)  # (float16 stays float16, as SciPy's)


def pinv(a, *, atol=None, rtol=None, return_rank=False, check_finite=True):
    """``scipy.linalg.pinv``: the pseudo-inverse, singular values up to ``atol + rtol *
    max(s)`` counted as zero (``rtol`` by default ``max(M, N)`` machine epsilons).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import pinv
    >>> pinv(np.array([[2.0, 0.0], [0.0, 0.0]]))
    array([[0.5, 0. ],
           [0. , 0. ]])
    """
    if not is_traced(a):
        return scipy.linalg.pinv(
            a, atol=atol, rtol=rtol, return_rank=return_rank, check_finite=check_finite
        )
    (a,) = lapack_operands(a)
    m, n = shape_of(a)[-2:]
    if rtol is None:
        rtol = 0.0 if atol else max(m, n) * np.finfo(float_dtype(dtype_of(a))).eps
    if not atol:
        out = _la.pinv(a, rtol=rtol)  # NumPy's cutoff is rtol * max(s) then
    else:
        u, s, vh = _la.svd(a, full_matrices=False)
        kept = s > atol + rtol * _fnp.max(s, axis=-1, keepdims=True)
        inverse = _fnp.where(kept, 1.0 / _fnp.where(kept, s, 1.0), 0.0)
        out = mH(vh) @ (inverse[..., :, None] * mH(u))
    if not return_rank:
        return out
    s = np.linalg.svd(concrete(a, "pinv"), compute_uv=False)
    cutoff = (atol or 0.0) + rtol * s.max(axis=-1, keepdims=True)
    return out, np.count_nonzero(s > cutoff, axis=-1)


def lstsq(
    a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True, lapack_driver=None
):
    """``scipy.linalg.lstsq``: ``(x, residues, rank, s)``, ``x`` minimising ``|b - a x|``.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import lstsq
    >>> lstsq(np.array([[1.0], [1.0]]), np.array([1.0, 3.0]))[0]
    array([2.])
    """
    if not is_traced(a, b):
        return scipy.linalg.lstsq(a, b, cond, overwrite_a, overwrite_b, check_finite, lapack_driver)
    return _la.lstsq(*lapack_operands(a, b), rcond=cond)


def orthogonal_procrustes(A, B, check_finite=True):
    """``scipy.linalg.orthogonal_procrustes``: the orthogonal ``R`` nearest to mapping
    ``A`` onto ``B`` (``|A R - B|`` least), and the sum of the singular values.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import orthogonal_procrustes
    >>> R, scale = orthogonal_procrustes(np.eye(2), np.array([[0.0, 1.0], [-1.0, 0.0]]))
    >>> R
    array([[ 0.,  1.],
           [-1.,  0.]])
    """
    if not is_traced(A, B):
        return scipy.linalg.orthogonal_procrustes(A, B, check_finite)
    A, B = lapack_operands(A, B)
    if len(shape_of(A)) != 2 or shape_of(A) != shape_of(B):
        raise ArgumentError(
            f"orthogonal_procrustes: two matrices of one shape; got {shape_of(A)} and {shape_of(B)}"
        )
    u, w, vt = _la.svd(mH(mH(B) @ A), full_matrices=False)
    return u @ vt, _fnp.sum(w)


def issymmetric(a, atol=None, rtol=None):
    """``scipy.linalg.issymmetric`` of the values (a bool; read from them, so not under jit).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import issymmetric
    >>> issymmetric(np.array([[1.0, 2.0], [2.0, 1.0]]))
    True
    """
    return scipy.linalg.issymmetric(concrete(a, "issymmetric"), atol, rtol)


def ishermitian(a, atol=None, rtol=None):
    """``scipy.linalg.ishermitian`` of the values (a bool).

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import ishermitian
    >>> ishermitian(np.array([[1.0, 1j], [-1j, 1.0]]))
    True
    """
    return scipy.linalg.ishermitian(concrete(a, "ishermitian"), atol, rtol)


def bandwidth(a):
    """``scipy.linalg.bandwidth`` of the values: the lower and upper bandwidths.

    >>> import numpy as np
    >>> from funcgrad.scipy.linalg import bandwidth
    >>> bandwidth(np.triu(np.ones((3, 3))))
    (0, 2)
    """
    return scipy.linalg.bandwidth(concrete(a, "bandwidth"))
