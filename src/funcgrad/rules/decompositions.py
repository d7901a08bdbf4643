"""Matrix decompositions with derivatives: SVD, QR, the general eigenproblem, least squares.

Each primitive gives its forward rule only; reverse mode transposes it (a
forward rule is linear in the tangent, see :mod:`funcgrad.dag.backprop`), so one
formula serves both modes and every rule differentiates again. Outputs of
different shapes are packed into one array along the second-to-last axis and
unpacked by funcgrad.numpy.linalg. Matrices are the last two axes; ``^H`` is
the conjugate transpose (the transpose for real matrices).

    primitive     value (packed)              forward rule, with dP = U^H dA V or the like
    -----------   -------------------------   ---------------------------------------------------
    svd_packed    [U; s; V], A = U s V^H      ds = Re diag(dP); dU = U (F*(dP S + S dP^H)) + (I - U U^H) dA V / s,
                  (reduced)                   dV = V (F*(S dP + dP^H S)) + (I - V V^H) dA^H U / s, F_ij = 1/(s_j^2 - s_i^2)
    svdvals       s                           Re diag(U^H dA V)
    qr_packed     [Q; R^T], A = Q R           X = Q^H dA R^-1, dO = tril(X, -1) - tril(X, -1)^H:
                                              dQ = Q (dO - X) + dA R^-1, dR = (X - dO) R (wide A: see _qr_jvp)
    eig_packed    [w; V], A V = V diag(w)     dw = diag(V^-1 dA V); dV = V (F*(V^-1 dA V)), F_ij = 1/(w_j - w_i),
                                              less the part that changes the columns' unit norm
    lstsq_x       x = A^+ b (least squares)   A^+ (db - dA x) + (A^H A)^+ dA^H r + (I - A^+ A) dA^H A^+^H x, r = b - A x
    lstsq_resid.. sum |b - A x|^2 per column  2 Re sum(conj(r) (db - dA x))
    lstsq_sing..  lstsq's singular values     as svdvals
    complement    the columns of a full SVD   none: they are not unique (NoDerivativeError when a loss
                  or QR beyond min(m, n)      uses them; NaN under jit and vmap)

The derivatives assume distinct singular values (eigenvalues) and a constant
rank, as every peer's do; a gauge-dependent use of singular vectors or
eigenvectors (their sign or complex phase) has no derivative, and a loss that
does not depend on the gauge gets the right one.
"""

import numpy as np

from ..analysis.facts import ALL, declare
from ..core.errors import LinAlgShapeError, NamespaceError, NoDerivativeError
from ..core.namespaces import known_any
from ..core.primitive import Primitive
from ..core.traces import Box
from ..core.values import in_library_of, is_complex, plain, shape_of
from ..jit import facts as jit_facts
from . import elementwise as ew
from .arrays import batch_elementwise, broadcast_to, concatenate, getitem, reshape
from .arrays import sum as asum
from .diagonals import diagonal, tril
from .linalg import (
    conj,
    eigh_packed,
    hermitian_seen,
    hermitian_seen_T,
    inv,
    mH,
    pinv,
    repeated_pairs,
    solve,
    square_matrices,
)
from .matmul import matmul, mT

__all__ = [
    "svd_packed",
    "svdvals",
    "qr_packed",
    "eig_packed",
    "eigvals",
    "eigvalsh",
    "spectral",
    "lstsq_x",
    "lstsq_residuals",
    "lstsq_rank",
    "lstsq_singular_values",
    "matrix_rank",
    "complement",
]


def _matrix(name):
    def check(a):
        if np.ndim(a) < 2:
            raise LinAlgShapeError(
                f"{name} needs a matrix or a stack of them, shape (..., m, n); "
                f"got shape {tuple(np.shape(a))}"
            )

    return check


def _rows(x, start, stop):
    return getitem(x, index=(Ellipsis, slice(start, stop), slice(None)))


def _row(v):
    """A stack of vectors (..., k) as rows (..., 1, k)."""
    return reshape(v, shape=shape_of(v)[:-1] + (1,) + shape_of(v)[-1:])


def _col(v):
    return reshape(v, shape=shape_of(v) + (1,))


def _real(x):
    return ew.real(x) if is_complex(x) else x


def _gaps(row_minus_col):
    """1 / d off the diagonal, 0 on it (d: a (..., k, k) matrix of differences)."""
    eye = in_library_of(np.eye(shape_of(row_minus_col)[-1], dtype=bool), row_minus_col)
    return ew.where(eye, 0.0, 1.0 / ew.where(eye, 1.0, row_minus_col))


def _safe(s):
    """``s`` with zeros replaced by ones, to divide by."""
    return ew.where(plain(s) == 0, 1.0, s)


# ---------------------------------------------------------------- SVD


def _svd_impl(a, full_matrices=False, hermitian=False):
    _matrix("svd")(a)
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices, hermitian=hermitian)
    k = s.shape[-1]
    v = np.conj(np.swapaxes(vh[..., :k, :], -1, -2))
    return np.concatenate([u[..., :, :k], s[..., None, :].astype(u.dtype), v], axis=-2)


def svd_parts(packed, m):
    """``(U, s, V)`` of a packed SVD of an (m, n) matrix, s real."""
    u = _rows(packed, 0, m)
    s = _real(getitem(packed, index=(Ellipsis, m, slice(None))))
    v = _rows(packed, m + 1, None)
    return u, s, v


def _svd_jvp(t, ans, a, full_matrices=False, hermitian=False):
    if hermitian:  # NumPy reads the lower triangle then, as eigh does
        t = hermitian_seen(t, True)
    m, n = shape_of(a)[-2:]
    u, s, v = svd_parts(ans, m)
    k = shape_of(s)[-1]
    dp = matmul(mH(u), matmul(t, v))
    ds = _real(diagonal(dp, axis1=-2, axis2=-1))
    srow, scol = _row(s), _col(s)
    f = _gaps((srow + scol) * (srow - scol))  # 1 / (s_j^2 - s_i^2)
    dps = dp * srow  # the traced factor first: array-api-strict's operators refuse it second
    sdp = dp * scol
    du = matmul(u, (dps + mH(dps)) * f)
    dv = matmul(v, (sdp + mH(sdp)) * f)
    if is_complex(dp):  # the phase of the pair (u_i, v_i) is free: put its change on u
        du = du + matmul(u, (dp - mH(dp)) * in_library_of(np.eye(k), dp) * 0.5 / _safe(srow))
    if m > n:
        dav = matmul(t, v)
        du = du + (dav - matmul(u, matmul(mH(u), dav))) / _safe(srow)
    if n > m:
        dahu = matmul(mH(t), u)
        dv = dv + (dahu - matmul(v, matmul(mH(v), dahu))) / _safe(srow)
    return concatenate(du, _row(ds), dv, axis=-2)


def _xp_matrix(xp, name, a):
    """The linalg extension's ``name`` of ``a``, refusing a non-matrix as NumPy's impl does."""
    _matrix(name)(a)
    return getattr(xp.linalg, name)


def _xp_svd(xp, a, full_matrices=False, hermitian=False):
    u, s, vh = _xp_matrix(xp, "svd", a)(a, full_matrices=full_matrices)
    k = s.shape[-1]
    v = xp.conj(xp.matrix_transpose(vh[..., :k, :]))
    return xp.concat([u[..., :, :k], xp.astype(xp.expand_dims(s, axis=-2), u.dtype), v], axis=-2)


svd_packed = Primitive("svd", _svd_impl, jvp=(_svd_jvp,), batch=batch_elementwise, xp=_xp_svd)


def _svdvals_impl(a, hermitian=False):
    _matrix("svd")(a)
    return np.linalg.svd(a, compute_uv=False, hermitian=hermitian)


def _svdvals_jvp(t, ans, a, hermitian=False):
    if hermitian:
        t = hermitian_seen(t, True)
    u, _, v = svd_parts(svd_packed(a, hermitian=hermitian), shape_of(a)[-2])
    return _real(diagonal(matmul(mH(u), matmul(t, v)), axis1=-2, axis2=-1))


svdvals = Primitive(
    "svdvals",
    _svdvals_impl,
    jvp=(_svdvals_jvp,),
    batch=batch_elementwise,
    xp=lambda xp, a, hermitian=False: _xp_matrix(xp, "svdvals", a)(a),
)


# ---------------------------------------------------------------- QR


def _qr_impl(a, mode="reduced"):
    _matrix("qr")(a)
    q, r = np.linalg.qr(a, mode=mode)
    k = min(np.shape(a)[-2:])
    return np.concatenate([q[..., :, :k], np.swapaxes(r[..., :k, :], -1, -2)], axis=-2)


def qr_parts(packed, m):
    """``(Q, R)`` of a packed reduced QR of an (m, n) matrix."""
    return _rows(packed, 0, m), mT(_rows(packed, m, None))


def _qr_square_jvp(t, q, r):
    """dQ, dR of A = Q R with R square (A tall or square)."""
    dar = matmul(t, inv(r))
    x = matmul(mH(q), dar)
    low = tril(x, k=-1)
    do = low - mH(low)
    if is_complex(x):  # the diagonal's phase: R keeps a real diagonal
        do = do + (x - ew.real(x)) * in_library_of(np.eye(shape_of(x)[-1]), x)
    return matmul(q, do - x) + dar, matmul(x - do, r)


def _qr_jvp(t, ans, a, mode="reduced"):
    m, n = shape_of(a)[-2:]
    q, r = qr_parts(ans, m)
    if m >= n:
        dq, dr = _qr_square_jvp(t, q, r)
    else:  # A = [X | Y] = Q [R1 | R2]: X's QR gives Q and R1, and R2 = Q^H Y
        cols = lambda x, lo, hi: getitem(x, index=(Ellipsis, slice(None), slice(lo, hi)))
        dq, dr1 = _qr_square_jvp(cols(t, 0, m), q, cols(r, 0, m))
        dr2 = matmul(mH(dq), cols(a, m, None)) + matmul(mH(q), cols(t, m, None))
        dr = concatenate(dr1, dr2, axis=-1)
    return concatenate(dq, mT(dr), axis=-2)


def _xp_qr(xp, a, mode="reduced"):
    q, r = _xp_matrix(xp, "qr", a)(a, mode=mode)
    k = min(a.shape[-2:])
    return xp.concat([q[..., :, :k], xp.matrix_transpose(r[..., :k, :])], axis=-2)


qr_packed = Primitive("qr", _qr_impl, jvp=(_qr_jvp,), batch=batch_elementwise, xp=_xp_qr)


# ---------------------------------------------------------------- eig


def _eig_pack(a):
    w, v = np.linalg.eig(a)
    return np.concatenate([w[..., None, :], v], axis=-2)


def eig_parts(packed):
    return getitem(packed, index=(Ellipsis, 0, slice(None))), _rows(packed, 1, None)


def _eig_jvp(t, ans, a):
    w, v = eig_parts(ans)
    m = solve(v, matmul(t, v))  # V^-1 dA V
    dw = diagonal(m, axis1=-2, axis2=-1)
    dv = matmul(v, _gaps(_row(w) - _col(w)) * m)
    # NumPy's eigenvectors have unit norm: drop the part of dv that would change it
    dv = dv - v * _row(_real(asum(conj(v) * dv, axis=-2)))
    return concatenate(_row(dw), dv, axis=-2)


eig_packed = Primitive(
    "eig", square_matrices("eig", _eig_pack), jvp=(_eig_jvp,), batch=batch_elementwise
)


def _eigvals_jvp(t, ans, a):
    # dw = diag(V^-1 dA V) alone: defined at repeated eigenvalues too (where eig's
    # eigenvector rule is not), as long as the matrix is diagonalizable
    _, v = eig_parts(eig_packed(a))
    return diagonal(solve(v, matmul(t, v)), axis1=-2, axis2=-1)


eigvals = Primitive(
    "eigvals",
    square_matrices("eigvals", np.linalg.eigvals),
    jvp=(_eigvals_jvp,),
    batch=batch_elementwise,
)


def _eigvalsh_jvp(t, ans, a, UPLO="L"):
    v = _rows(eigh_packed(a, UPLO=UPLO), 1, None)
    m = matmul(mH(v), matmul(hermitian_seen(t, UPLO.upper() == "L"), v))
    return _real(diagonal(m, axis1=-2, axis2=-1))


# NumPy's eigvalsh runs a LAPACK routine of its own (no eigenvectors), so its values are
# not eigh's to the last bit: a primitive of its own, with eigh's eigenvalue rule.
def _xp_eigvalsh(xp, a, UPLO="L"):
    if UPLO.upper() != "L":  # the upper triangle of a is the lower one of its conjugate transpose
        a = xp.conj(xp.matrix_transpose(a))
    return xp.linalg.eigvalsh(a)


def _eigvalsh_vjp(g, ans, a, UPLO="L"):
    # conj(V diag(g) V^H) on the triangle read: the transpose of the forward rule, through
    # spectral so that its own derivative is defined at repeated eigenvalues
    return hermitian_seen_T(conj(spectral(a, g, UPLO=UPLO)), UPLO.upper() == "L")


eigvalsh = Primitive(
    "eigvalsh",
    lambda a, UPLO="L": np.linalg.eigvalsh(a, UPLO),
    vjp=(_eigvalsh_vjp,),
    jvp=(_eigvalsh_jvp,),
    batch=batch_elementwise,
    xp=_xp_eigvalsh,
)


# ---------------------------------------------------------------- spectral functions


def _spectral_impl(a, g, UPLO="L"):
    """``V diag(g) V^H`` for the eigenvectors ``V`` of the Hermitian ``a``."""
    _, v = np.linalg.eigh(a, UPLO)
    return (v * np.expand_dims(g, -2)) @ np.conj(np.swapaxes(v, -1, -2))


def _divided_differences(w, g):
    """D_ij = (g_j - g_i) / (w_j - w_i), 0 on the diagonal and where repeated eigenvalues
    carry equal weights (the derivative of V diag(g) V^H exists there: the weights do not
    tell the eigenvectors of a repeated eigenvalue apart); NaN at repeated eigenvalues with
    unequal weights, where none exists (raised when the values are known)."""
    repeated = repeated_pairs(w)
    gdiff = _row(g) - _col(g)
    unequal = ew.where(ew.not_equal(plain(gdiff), 0.0), 1.0, 0.0)
    unknown = repeated * unequal
    if not isinstance(unknown, Box) and known_any(unknown):
        raise NoDerivativeError(
            "eigvalsh: the derivative of its gradient weights two equal eigenvalues unequally "
            "(the matrix has a repeated eigenvalue), so it does not exist there; perturb the "
            "matrix so that its eigenvalues are distinct"
        )
    eye = in_library_of(np.eye(shape_of(w)[-1]), w)
    off = ew.greater(repeated + eye, 0.5)
    d = ew.where(off, 0.0, gdiff / ew.where(off, 1.0, _row(w) - _col(w)))
    return ew.where(ew.greater(unknown, 0.5), np.nan, d)


def _eigen(a, UPLO):
    packed = eigh_packed(a, UPLO=UPLO)
    return getitem(packed, index=(Ellipsis, 0, slice(None))), _rows(packed, 1, None)


def _spectral_jvp_a(t, ans, a, g, UPLO="L"):
    w, v = _eigen(a, UPLO)
    s = matmul(mH(v), matmul(hermitian_seen(t, UPLO.upper() == "L"), v))
    return matmul(v, matmul(_divided_differences(w, g) * s, mH(v)))


def _spectral_vjp_a(c, ans, a, g, UPLO="L"):
    # the transpose of the rule above (D is symmetric), in the pairing Re(sum(c * t))
    w, v = _eigen(a, UPLO)
    inner_ = _divided_differences(w, g) * matmul(mT(v), matmul(c, conj(v)))
    return hermitian_seen_T(matmul(conj(v), matmul(inner_, mT(v))), UPLO.upper() == "L")


def _spectral_vjp_g(c, ans, a, g, UPLO="L"):
    _, v = _eigen(a, UPLO)
    return diagonal(matmul(mT(v), matmul(c, conj(v))), axis1=-2, axis2=-1)


def _xp_spectral(xp, a, g, UPLO="L"):
    if UPLO.upper() != "L":  # the upper triangle of a is the lower one of its conjugate transpose
        a = xp.conj(xp.matrix_transpose(a))
    _, v = xp.linalg.eigh(a)
    return xp.matmul(v * xp.expand_dims(g, axis=-2), xp.conj(xp.matrix_transpose(v)))


def _spectral_batch(size, prim, values, batched, params):
    a, g = (
        v if b else broadcast_to(v, shape=(size,) + shape_of(v)) for v, b in zip(values, batched)
    )
    return prim(a, g, **params)


# The first derivative of a sum of weighted eigenvalues (the gradient of eigvalsh): a
# primitive so that its own derivative is the Daleckii-Krein divided differences, finite
# at repeated eigenvalues of equal weight (the Hessian of sum(eigvalsh(A)) = trace(A) is
# zero, not NaN).
spectral = Primitive(
    "spectral",
    _spectral_impl,
    vjp=(_spectral_vjp_a, _spectral_vjp_g),
    jvp=(_spectral_jvp_a, lambda t, ans, a, g, UPLO="L": spectral(a, t, UPLO=UPLO)),
    batch=_spectral_batch,
    xp=_xp_spectral,
)


# ---------------------------------------------------------------- least squares


def _lstsq(a, b, rcond):
    if np.ndim(a) != 2 or np.ndim(b) not in (1, 2) or np.shape(b)[0] != np.shape(a)[0]:
        raise LinAlgShapeError(
            f"lstsq needs a matrix a of shape (m, n) and b of shape (m,) or (m, k); got "
            f"{np.shape(a)} and {np.shape(b)}"
        )
    return np.linalg.lstsq(a, b, rcond=rcond)


def _lstsq_jvp_a(t, ans, a, b, rcond=None):
    vec = len(shape_of(b)) == 1
    x, b2 = (_col(ans), _col(b)) if vec else (ans, b)
    p = pinv(a)
    r = b2 - matmul(a, x)
    th = mH(t)
    dx = (
        -matmul(p, matmul(t, x))
        + matmul(matmul(p, mH(p)), matmul(th, r))
        + matmul(np.eye(shape_of(a)[-1]) - matmul(p, a), matmul(th, matmul(mH(p), x)))
    )
    return reshape(dx, shape=shape_of(ans)) if vec else dx


def _no_derivative(*_, **__):
    return None


def _residuals_jvp(which):
    """d sum |b - A x|^2 = 2 Re sum(conj(r) (db - dA x)) at the least-squares x (A^H r = 0)."""

    def rule(t, ans, a, b, rcond=None):
        if shape_of(ans) == (0,):  # NumPy gives no residuals (rank-deficient or wide)
            return None
        x = lstsq_x(a, b, rcond=rcond)
        vec = len(shape_of(b)) == 1
        x2, b2 = (_col(x), _col(b)) if vec else (x, b)
        r = b2 - matmul(a, x2)
        moved = -matmul(t, x2) if which == 0 else (_col(t) if vec else t)
        return 2.0 * _real(asum(conj(r) * moved, axis=0))

    return rule


lstsq_x = Primitive(
    "lstsq",
    lambda a, b, rcond=None: _lstsq(a, b, rcond)[0],
    jvp=(_lstsq_jvp_a, lambda t, ans, a, b, rcond=None: matmul(pinv(a), t)),
)
lstsq_residuals = Primitive(
    "lstsq_residuals",
    lambda a, b, rcond=None: _lstsq(a, b, rcond)[1],
    jvp=(_residuals_jvp(0), _residuals_jvp(1)),
)
# Ranks are integers: no derivative (a zero tangent forward; reverse mode transposes it).
lstsq_rank = Primitive(
    "lstsq_rank",
    lambda a, b, rcond=None: np.asarray(_lstsq(a, b, rcond)[2]),
    jvp=(_no_derivative, _no_derivative),
)


def _xp_matrix_rank(xp, a, tol=None, hermitian=False, rtol=None):
    if tol is not None:
        raise NamespaceError(
            "matrix_rank: an absolute tol has no Array API form (the standard "
            "takes rtol, relative to the largest singular value)"
        )
    return xp.linalg.matrix_rank(a) if rtol is None else xp.linalg.matrix_rank(a, rtol=rtol)


matrix_rank = Primitive(
    "matrix_rank",
    lambda a, **params: np.asarray(np.linalg.matrix_rank(a, **params)),
    jvp=(_no_derivative,),
    batch=batch_elementwise,
    xp=_xp_matrix_rank,
)
lstsq_singular_values = Primitive(
    "lstsq_singular_values",
    lambda a, b, rcond=None: _lstsq(a, b, rcond)[3],
    jvp=(
        lambda t, ans, a, b, rcond=None: _svdvals_jvp(t, ans, a),
        lambda t, ans, a, b, rcond=None: None,
    ),
)


# ---------------------------------------------------------------- the undetermined part


def _complement_impl(a, of):
    k = min(np.shape(a)[-2:])
    if of == "svd_u":
        return np.linalg.svd(a, full_matrices=True)[0][..., :, k:]
    if of == "svd_vh":
        return np.linalg.svd(a, full_matrices=True)[2][..., k:, :]
    return np.linalg.qr(a, mode="complete")[0][..., :, k:]


def _complement_vjp(g, ans, a, of):
    used = plain(g)
    known = None if isinstance(used, Box) else known_any(used)
    if known is None:  # jit, vmap, a lazy array: the values are not known yet; NaN marks it
        hit = ew.greater(asum(ew.abs(used)), 0.0)
        return ew.where(hit, np.nan, 0.0) * in_library_of(np.ones(shape_of(a)), a)
    if not known:
        return None
    raise NoDerivativeError(
        f"{of.split('_')[0]}: the loss uses the columns of a full decomposition of a non-square "
        f"matrix (shape {shape_of(a)}) beyond the first min(m, n); they span a complement that "
        f"has no unique basis, so they have no derivative. Pass full_matrices=False (svd) or "
        f"mode='reduced' (qr)"
    )


def _xp_complement(xp, a, of):
    k = min(a.shape[-2:])
    if of == "svd_u":
        return xp.linalg.svd(a, full_matrices=True)[0][..., :, k:]
    if of == "svd_vh":
        return xp.linalg.svd(a, full_matrices=True)[2][..., k:, :]
    return xp.linalg.qr(a, mode="complete")[0][..., :, k:]


complement = Primitive(
    "complement",
    _complement_impl,
    vjp=(_complement_vjp,),
    jvp=(lambda t, ans, a, of: in_library_of(np.full(shape_of(ans), np.nan), ans),),
    batch=batch_elementwise,
    xp=_xp_complement,
)


# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(matrix_rank, flat=ALL)

# raised where known eigenvalues repeat, NaN where not known (jit, vmap)
jit_facts.declare(spectral, complement, reads_values=True)
