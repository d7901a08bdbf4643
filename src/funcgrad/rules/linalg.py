"""Linear algebra primitives: inverses, determinants, solves, decompositions, norms.

Their rules are written with ``inv``, ``solve`` and ``matmul``, so every rule
can be differentiated again. Matrices are the last two axes; leading axes are
a stack (``^T`` below swaps the last two axes only). Products, contractions,
diagonals and triangles are in :mod:`.products`.

    primitive       value                     reverse rule (per operand)               forward rule
    -------------   -----------------------   --------------------------------------   ------------------------------
    inv             A^-1                      -A^-T g A^-T                              -A^-1 t A^-1
    det             det A                     g det(A) A^-T                             det(A) tr(A^-1 t)
    logabsdet       log|det A|                g A^-T                                    tr(A^-1 t)
    slogdet_sign    sign of det A             zero; complex: -i Re(i g s) A^-T          zero; complex: i s Im tr(A^-1 t)
    solve           A^-1 b                    A: -gb x^T,  b: gb = solve(A^T, g)        solve(A, tb - tA x)
    cholesky        L with L L^H = A          A: L^-T Phi(L^T g) conj(L)^-1, lower      L Phi(L^-1 tA L^-H)
    eigh_packed     [w; V] of A = V w V^H     conj(V) (diag(gw) + F*(V^T gV)) V^T,      [diag(V^H tA V); V (F*(V^H tA V))]
                                              lower part
    pinv            A^+                       the transpose of the forward rule          see _pinv_jvp (constant rank;
                                                                                        hermitian: lower triangle)
    norm            np.linalg.norm            D * g (D: the norm's gradient)            sum(D * t)

For complex matrices ``^H`` is the conjugate transpose and the rules are the
transposes of the forward rules in the pairing of docs/complex.md
(``Re sum(c * dz)``); for real ones ``conj`` is the identity.

``cholesky`` and ``eigh`` read only one triangle of their input (the lower
one, as NumPy does by default), so their derivatives are those of the
function NumPy computes: perturbing the other triangle changes nothing, and
its gradient is zero. To differentiate with respect to a symmetric matrix
parametrised by all its entries, symmetrise first: ``f(0.5 * (a + a.T))``.
``eigh``'s derivative needs distinct eigenvalues (F_ij = 1 / (w_j - w_i));
with a repeated eigenvalue it is infinite or NaN, as the eigenvectors are not
determined there.

Shape errors name the operation and the operands' shapes.
"""

import numpy as np

from ..analysis.facts import ALL, declare
from ..core.errors import (
    LinAlgShapeError,
    MissingRuleError,
    NamespaceError,
    NoDerivativeError,
)
from ..core.namespaces import is_foreign, known_any, library_of
from ..core.primitive import Primitive
from ..core.traces import Box
from ..core.values import float_dtype, in_library_of, is_complex, plain, shape_of
from ..jit import facts as jit_facts
from . import elementwise as ew
from .arrays import (
    batch_elementwise,
    concatenate,
    example_shape,
    getitem,
    lead_axes,
    reshape,
    squeeze,
    unbroadcast,
)
from .arrays import sum as asum

# Streams pickled before the products moved out of this module name them here; keep them
# loadable (.products, .matmul and .diagonals are their homes now).
from .diagonals import diagonal, trace, tril, triu, undiagonal  # noqa: F401
from .matmul import conj, matmul, mH, mT
from .norms import norm
from .products import dot, einsum, inner, kron, outer, tensordot, vdot  # noqa: F401
from .reductions import max as rmax

__all__ = [
    "LinAlgShapeError",
    "inv",
    "det",
    "logabsdet",
    "slogdet_sign",
    "solve",
    "cholesky",
    "eigh_packed",
    "pinv",
    "norm",
    "conj",
    "mH",
    "hermitian_seen",
    "hermitian_seen_T",
    "repeated_pairs",
    "square_matrices",
]


# ---------------------------------------------------------------- helpers


def _check_square(name, a):
    """Refuse anything but a square matrix or a stack of them, naming ``name``."""
    s = tuple(np.shape(a))
    if len(s) < 2 or s[-1] != s[-2]:
        raise LinAlgShapeError(
            f"{name} needs a square matrix or a stack of them, shape (..., n, n); got shape {s}"
        )


def square_matrices(name, fun):
    """``fun`` on stacks of square matrices, refusing other shapes with a clear error."""

    def impl(a, *rest, **params):
        _check_square(name, a)
        return fun(a, *rest, **params)

    impl.__name__ = name
    return impl


def _col(x):
    """A stack of vectors (..., n) as a stack of columns (..., n, 1)."""
    return reshape(x, shape=shape_of(x) + (1,))


def _mat_scalar(s):
    """A stack of scalars (...) as (..., 1, 1), to scale a stack of matrices."""
    return reshape(s, shape=shape_of(s) + (1, 1))


def _eye(x, dtype=float):
    """The identity of the last axis of ``x``, in the library (and on the device) of ``x``."""
    return in_library_of(np.eye(shape_of(x)[-1], dtype=dtype), x)


def _xp_linalg(name, pick=None):
    """The Array API linalg extension's ``name`` on a square matrix (stack), with NumPy's
    error for a singular one, whatever the library calls it."""

    def form(xp, a):
        _check_square(name, a)
        linalg = getattr(xp, "linalg", None)
        if linalg is None or not hasattr(linalg, name):
            raise NamespaceError(f"{name}: {xp.__name__} has no linalg.{name}")
        try:
            out = getattr(linalg, name)(a)
        except Exception as e:
            if "singular" in str(e).lower():
                raise np.linalg.LinAlgError(f"{name}: {e}") from e
            raise
        return out if pick is None else out[pick]

    return form


def _xp_solve(xp, a, b):
    vector = len(tuple(b.shape)) == 1  # NumPy's vector right-hand side, as one column
    if vector:
        b = xp.expand_dims(b, axis=-1)
    stack = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))  # as NumPy
    a = xp.broadcast_to(a, stack + tuple(a.shape[-2:]))  # broadcasts
    b = xp.broadcast_to(b, stack + tuple(b.shape[-2:]))
    x = xp.linalg.solve(a, b)
    return xp.squeeze(x, axis=-1) if vector else x


# inv, det, cholesky, ...: NumPy maps them over leading axes already, so under
# vmap the batch axis is one more leading axis, as for elementwise primitives.
_stacked = batch_elementwise


# ---------------------------------------------------------------- inverse, determinants, solve


def _det_vjp(g, ans, a):
    try:
        return _mat_scalar(g * ans) * mT(inv(a))
    except np.linalg.LinAlgError:  # a singular matrix: the gradient is still the cofactor matrix
        return _mat_scalar(g) * _cofactors(a)


def _cofactors(a):
    """adj(A)^T, the gradient of det at any A (singular ones too), from the SVD
    A = U diag(s) Vh: det(U) det(Vh) U diag(prod_{j != i} s_j) Vh."""
    if isinstance(a, Box):
        raise MissingRuleError(
            "det: second derivatives at a singular matrix are not supported (its inverse does "
            "not exist and the cofactor rule is not differentiated again); move the point off "
            "the singular set, e.g. a + 1e-12 * eye"
        )
    if is_foreign(a):
        raise NamespaceError(
            f"det: the gradient at a singular matrix is computed from NumPy's SVD, and funcgrad "
            f"does not convert {library_of(a)}'s arrays to NumPy; move the point off the "
            f"singular set (a + 1e-12 * eye), or use NumPy arrays here"
        )
    u, s, vh = np.linalg.svd(a)
    n = s.shape[-1]
    others = np.stack(
        [np.prod(np.where(np.arange(n) == i, 1.0, s), axis=-1) for i in range(n)], axis=-1
    )
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return (sign[..., None, None] * u * others[..., None, :]) @ vh


def _det_jvp(t, ans, a):
    try:
        return ans * asum(mT(inv(a)) * t, axis=(-2, -1))
    except np.linalg.LinAlgError:  # singular: the cofactor matrix, as in the reverse rule
        return asum(_cofactors(a) * t, axis=(-2, -1))


def _zero(*_, **__):
    return None


def _solve_impl(a, b):
    sa, sb = np.shape(a), np.shape(b)
    if len(sa) < 2 or sa[-1] != sa[-2]:
        raise LinAlgShapeError(
            f"solve needs a square matrix a, shape (..., n, n); got a of shape "
            f"{sa} (and b of shape {sb})"
        )
    rows = sb[0] if len(sb) == 1 else (sb[-2] if len(sb) >= 2 else None)
    if rows != sa[-1]:
        raise LinAlgShapeError(
            f"solve of shapes {sa} and {sb}: b must be a vector of length {sa[-1]} or a stack of "
            f"matrices with {sa[-1]} rows, shape (..., {sa[-1]}, k)"
        )
    return np.linalg.solve(a, b)


def _solve_vjp_a(g, ans, a, b):
    vec = len(shape_of(b)) == 1
    g2, x2 = (_col(g), _col(ans)) if vec else (g, ans)
    gb = solve(mT(a), g2)
    return unbroadcast(-matmul(gb, mT(x2)), a)


def _solve_vjp_b(g, ans, a, b):
    if len(shape_of(b)) == 1:
        gb = solve(mT(a), _col(g))
        return unbroadcast(reshape(gb, shape=shape_of(gb)[:-1]), b)
    return unbroadcast(solve(mT(a), g), b)


def _solve_jvp_a(t, ans, a, b):
    if len(shape_of(b)) == 1:
        out = solve(a, matmul(t, _col(ans)))
        return -reshape(out, shape=shape_of(out)[:-1])
    return -solve(a, matmul(t, ans))


def _solve_jvp_b(t, ans, a, b):
    return solve(a, t)


def _solve_batch(size, prim, values, batched, params):
    (a, b), (ba, bb) = values, batched
    na, nb = len(example_shape(a, ba)), len(example_shape(b, bb))
    if nb == 1:
        b = reshape(b, shape=shape_of(b) + (1,))
    nd = max(na, nb + (nb == 1))
    a = lead_axes(a, nd) if ba else a
    b = lead_axes(b, nd) if bb else b
    out = solve(a, b)
    return squeeze(out, axis=-1) if nb == 1 else out


inv = Primitive(
    "inv",
    square_matrices("inv", np.linalg.inv),
    vjp=(lambda g, ans, a: -matmul(mT(ans), matmul(g, mT(ans))),),
    jvp=(lambda t, ans, a: -matmul(ans, matmul(t, ans)),),
    batch=_stacked,
    xp=_xp_linalg("inv"),
)
det = Primitive(
    "det",
    square_matrices("det", np.linalg.det),
    vjp=(_det_vjp,),
    jvp=(_det_jvp,),
    batch=_stacked,
    xp=_xp_linalg("det"),
)


def _inv_for_logabsdet(a):
    """inv(a), the derivative of log|det a|; a singular ``a`` (log|det| = -inf) has none."""
    try:
        return inv(a)
    except np.linalg.LinAlgError:
        raise NoDerivativeError(
            f"slogdet: log|det| of a singular matrix (shape {shape_of(a)}) is -inf and has no "
            f"derivative there; differentiate det instead (its gradient at a singular matrix "
            f"is the cofactor matrix), or move off the singular point (a + eps * I)"
        ) from None


logabsdet = Primitive(
    "logabsdet",
    square_matrices("slogdet", lambda a: np.linalg.slogdet(a)[1]),
    vjp=(lambda g, ans, a: _mat_scalar(g) * mT(_inv_for_logabsdet(a)),),
    jvp=(lambda t, ans, a: asum(mT(_inv_for_logabsdet(a)) * t, axis=(-2, -1)),),
    batch=_stacked,
    xp=_xp_linalg("slogdet", pick=1),
)


def _sign_vjp(g, ans, a):
    """The sign of a real determinant is piecewise constant; a complex one is the phase
    s = det/|det|, with ds = i s Im(tr(A^-1 dA)), whose transpose is -i Re(i g s) A^-T."""
    if not is_complex(ans):
        return None
    return _mat_scalar(-1j * ew.real(1j * g * ans)) * mT(inv(a))


def _sign_jvp(t, ans, a):
    if not is_complex(ans):
        return None
    return 1j * ans * ew.imag(asum(mT(inv(a)) * t, axis=(-2, -1)))


slogdet_sign = Primitive(
    "slogdet_sign",
    square_matrices("slogdet", lambda a: np.linalg.slogdet(a)[0]),
    vjp=(_sign_vjp,),
    jvp=(_sign_jvp,),
    batch=_stacked,
    xp=_xp_linalg("slogdet", pick=0),
)
solve = Primitive(
    "solve",
    _solve_impl,
    vjp=(_solve_vjp_a, _solve_vjp_b),
    jvp=(_solve_jvp_a, _solve_jvp_b),
    batch=_solve_batch,
    xp=_xp_solve,
)


# ---------------------------------------------------------------- symmetric decompositions


def hermitian_seen(t, lower):
    """The symmetric (Hermitian) matrix a function reading one triangle of ``t`` sees
    (LAPACK reads only the real part of a complex diagonal)."""
    part = tril(t, k=-1) if lower else triu(t, k=1)
    return part + mH(part) + _real_diagonal(t)


def hermitian_seen_T(c, lower):
    """The transpose of :func:`hermitian_seen`: a cotangent of the symmetric matrix, on one
    triangle (the mirrored triangle is conjugated, as :func:`hermitian_seen` conjugates it)."""
    if lower:
        return tril(c, k=-1) + tril(mH(c), k=-1) + _real_diagonal(c)
    return triu(c, k=1) + triu(mH(c), k=1) + _real_diagonal(c)


def _real_diagonal(x):
    """The diagonal of ``x`` as a matrix (its real part for complex ``x``)."""
    d = x * _eye(x)
    return ew.real(d) if is_complex(d) else d


def _phi(x):
    """The lower triangle of ``x`` with its diagonal halved."""
    return tril(x, k=-1) + 0.5 * (x * _eye(x))


def _cholesky_jvp(t, ans, a):
    low = ans
    x = solve(low, mH(solve(low, hermitian_seen(t, True))))  # L^-1 S L^-H
    return matmul(low, _phi(x))


def _cholesky_vjp(g, ans, a):
    low = ans
    p = _phi(matmul(mT(low), g))
    s = mT(solve(mH(low), mT(solve(mT(low), p))))  # L^-T p conj(L)^-1
    return hermitian_seen_T(s, True)


def _eigh_impl(a, UPLO="L"):
    w, v = np.linalg.eigh(a, UPLO)
    return np.concatenate([w[..., None, :], v], axis=-2)


def _eigh_parts(packed):
    w = getitem(packed, index=(Ellipsis, 0, slice(None)))
    v = getitem(packed, index=(Ellipsis, slice(1, None), slice(None)))
    return w, v


def repeated_pairs(w):
    """A mask (1.0 or 0.0, shape (..., n, n)) of the pairs i != j of numerically equal
    eigenvalues, built with primitives so that jit and vmap record it."""
    w = plain(w)
    n = shape_of(w)[-1]
    eps = float(np.finfo(float_dtype(w)).eps)  # a Python number goes with every library
    scale = reshape(rmax(ew.abs(w), axis=-1, keepdims=True), shape=shape_of(w)[:-1] + (1, 1))
    diff = ew.abs(reshape(w, shape=shape_of(w)[:-1] + (1, n)) - _col(w))
    close = ew.where(ew.less_equal(diff, 8 * n * eps * ew.maximum(scale, 1e-300)), 1.0, 0.0)
    return ew.where(_eye(w, bool), 0.0, close)


def _eigh_gaps(w, repeated, unknown):
    """F_ij = 1 / (w_j - w_i) between distinct eigenvalues, 0 on the diagonal and between
    repeated eigenvalues, NaN at the pairs in ``unknown`` (a 0/1 mask): repeated pairs whose
    eigenvectors the derivative needs, which are not unique and have no derivative there."""
    diff = reshape(w, shape=shape_of(w)[:-1] + (1,) + shape_of(w)[-1:]) - _col(w)
    off = ew.greater(repeated + _eye(w), 0.5)
    gaps = ew.where(off, 0.0, 1.0 / ew.where(off, 1.0, diff))
    return ew.where(ew.greater(unknown, 0.5), np.nan, gaps)


def _eigh_vjp(g, ans, a, UPLO="L"):
    w, v = _eigh_parts(ans)
    gw, gv = _eigh_parts(g)
    n = shape_of(w)[-1]
    inner_ = reshape(gw, shape=shape_of(gw)[:-1] + (1, n)) * _eye(w)
    if isinstance(gv, Box) or known_any(gv) is not False:  # a lazy gv may be nonzero
        # Eigenvectors enter the loss. Those of a repeated eigenvalue are not unique, so a
        # loss that uses one (a nonzero column of gv) has no derivative: raised eagerly,
        # NaN where the values are not known yet (jit, vmap). A loss of the eigenvalues
        # alone has a constant zero gv and skips this.
        repeated = repeated_pairs(w)
        used = ew.where(ew.greater(rmax(ew.abs(plain(gv)), axis=-2, keepdims=True), 0.0), 1.0, 0.0)
        unknown = repeated * ew.maximum(used, mT(used))
        if not isinstance(unknown, Box) and known_any(unknown):  # lazy: NaN marks it
            raise NoDerivativeError(
                f"eigh: the loss uses an eigenvector of a repeated eigenvalue (matrix shape "
                f"{shape_of(a)}); those are not unique, so the loss has no derivative there. "
                f"Use the eigenvalues, or perturb the matrix so that its eigenvalues are distinct"
            )
        inner_ = inner_ + _eigh_gaps(w, repeated, unknown) * matmul(mT(v), gv)
    return hermitian_seen_T(matmul(conj(v), matmul(inner_, mT(v))), UPLO.upper() == "L")


def _eigh_jvp(t, ans, a, UPLO="L"):
    w, v = _eigh_parts(ans)
    m = matmul(mH(v), matmul(hermitian_seen(t, UPLO.upper() == "L"), v))
    dw = diagonal(m, axis1=-2, axis2=-1)
    # The eigenvectors of a repeated eigenvalue have no derivative: NaN marks their
    # tangents; the eigenvalues' tangents stay exact (and are often all that is used).
    repeated = repeated_pairs(w)
    dv = matmul(v, _eigh_gaps(w, repeated, repeated) * m)
    return concatenate(reshape(dw, shape=shape_of(dw)[:-1] + (1,) + shape_of(dw)[-1:]), dv, axis=-2)


def _xp_eigh(xp, a, UPLO="L"):
    if UPLO.upper() != "L":  # the upper triangle of a is the lower one of its conjugate transpose
        a = xp.conj(xp.matrix_transpose(a))
    w, v = _xp_linalg("eigh")(xp, a)
    return xp.concat([xp.expand_dims(w, axis=-2), v], axis=-2)


cholesky = Primitive(
    "cholesky",
    square_matrices("cholesky", np.linalg.cholesky),
    vjp=(_cholesky_vjp,),
    jvp=(_cholesky_jvp,),
    batch=_stacked,
    xp=_xp_linalg("cholesky"),
)
eigh_packed = Primitive(
    "eigh",
    square_matrices("eigh", _eigh_impl),
    vjp=(_eigh_vjp,),
    jvp=(_eigh_jvp,),
    batch=_stacked,
    xp=_xp_eigh,
)


# ---------------------------------------------------------------- pseudo-inverse


def _pinv_impl(a, **params):
    s = np.shape(a)
    if len(s) < 2:
        raise LinAlgShapeError(
            f"pinv needs a matrix or a stack of them, shape (..., m, n); got shape {s}"
        )
    return np.linalg.pinv(a, **params)


def _pinv_jvp(t, ans, a, **params):
    if params.get("hermitian"):  # NumPy reads the lower triangle then
        t = hermitian_seen(t, True)
    # d A+ = -A+ dA A+ + A+ A+^H dA^H (I - A A+) + (I - A+ A) dA^H A+^H A+   (constant rank);
    # reverse mode transposes it
    p, ph, th = ans, mH(ans), mH(t)
    # (the traced operand first: another library's eye would refuse it on its left)
    left = -matmul(a, p) + in_library_of(np.eye(shape_of(a)[-2]), a)
    right = -matmul(p, a) + in_library_of(np.eye(shape_of(a)[-1]), a)
    return (
        -matmul(p, matmul(t, p))
        + matmul(matmul(p, ph), matmul(th, left))
        + matmul(right, matmul(th, matmul(ph, p)))
    )


def _xp_pinv(xp, a, rcond=None, hermitian=False, rtol=None):
    tol = rtol if rtol is not None else rcond
    return xp.linalg.pinv(a) if tol is None else xp.linalg.pinv(a, rtol=tol)


pinv = Primitive("pinv", _pinv_impl, jvp=(_pinv_jvp,), batch=_stacked, xp=_xp_pinv)


# What the analyses read about these primitives (funcgrad/analysis/facts.py).
declare(slogdet_sign, flat=ALL)

# raised where known eigenvalues repeat, NaN where not known (jit, vmap)
jit_facts.declare(eigh_packed, reads_values=True)
