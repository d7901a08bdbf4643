"""Linear algebra primitives.

Products and contractions are multilinear, so their forward rule is the
primitive itself with one operand replaced by its tangent, and their reverse
rule for an operand is one ``einsum`` of the cotangent with the other operands
(see :func:`einsum_cotangent`). Decompositions have rules written with
``inv``, ``solve`` and ``matmul``, so every rule can be differentiated again.
Matrices are the last two axes; leading axes are a stack (``^T`` below swaps
the last two axes only).

    primitive       value                     reverse rule (per operand)               forward rule
    -------------   -----------------------   --------------------------------------   ------------------------------
    matmul          x @ y                     g @ y^T,  x^T @ g (stacks summed)         tx @ y + x @ ty
    einsum          np.einsum(subscripts)     einsum of g with the other operands       einsum with t in place
    dot             np.dot (N-D)              as einsum '...a,...ab->...b'              dot(tx, y) + dot(x, ty)
    inner           np.inner                  as einsum '...a,...a->...'                inner(tx, y) + inner(x, ty)
    outer           np.outer (1-D here)       as einsum 'i,j->ij'                       outer(tx, y) + outer(x, ty)
    vdot            np.vdot (1-D here)        as einsum 'i,i->'                         vdot(tx, y) + vdot(x, ty)
    tensordot       np.tensordot(axes)        as einsum of the contraction              tensordot(tx, y) + ...
    kron            np.kron                   g regrouped, contracted with the other    kron(tx, y) + kron(x, ty)
    trace           np.trace                  undiagonal(g broadcast along the diag)    trace(t)
    diagonal        np.diagonal               undiagonal(g)                             diagonal(t)
    undiagonal      zeros with g on a diag    diagonal(g)                               undiagonal(t)
    triu, tril      np.triu, np.tril (k)      triu(g), tril(g)                          triu(t), tril(t)
    inv             A^-1                      -A^-T g A^-T                              -A^-1 t A^-1
    det             det A                     g det(A) A^-T                             det(A) tr(A^-1 t)
    logabsdet       log|det A|                g A^-T                                    tr(A^-1 t)
    slogdet_sign    sign of det A             zero                                      zero
    solve           A^-1 b                    A: -gb x^T,  b: gb = solve(A^T, g)        solve(A, tb - tA x)
    cholesky        L with L L^T = A          A: L^-T Phi(L^T g) L^-1, lower part       L Phi(L^-1 tA L^-T)
    eigh_packed     [w; V] of A = V w V^T     V (diag(gw) + F*(V^T gV)) V^T, lower      [diag(V^T tA V); V (F*(V^T tA V))]
    pinv            A^+                       see _pinv_vjp (constant rank; hermitian:  see _pinv_jvp
                                              lower triangle, as eigh)
    norm            np.linalg.norm            D * g (D: the norm's gradient)            sum(D * t)

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

from collections import Counter
from functools import partial
from string import ascii_letters

import numpy as np

from ..errors import LinAlgShapeError, MissingRuleError, ShapeError
from ..primitive import Primitive
from ..values import plain, shape_of
from . import elementwise as ew
from .arrays import (
    batch_elementwise,
    batch_example_by_example,
    broadcast_to,
    concatenate,
    example_shape,
    getitem,
    lead_axes,
    reshape,
    squeeze,
    swapaxes,
    unbroadcast,
)
from .arrays import sum as asum

__all__ = [
    "LinAlgShapeError", "parse_einsum", "einsum_cotangent",
    "matmul", "einsum", "dot", "inner", "outer", "vdot", "tensordot", "kron",
    "trace", "diagonal", "undiagonal", "triu", "tril",
    "inv", "det", "logabsdet", "slogdet_sign", "solve", "cholesky", "eigh_packed", "pinv", "norm",
]


# ---------------------------------------------------------------- helpers

def _checked(name, fun, hint):
    """``fun`` with NumPy's shape errors re-raised naming ``name`` and every operand's shape."""
    def impl(*args, **params):
        try:
            return fun(*args, **params)
        except np.linalg.LinAlgError:
            raise
        except ValueError as e:
            shapes = " and ".join(str(np.shape(a)) for a in args)
            raise ShapeError(f"{name} of shapes {shapes}: {hint} (NumPy says: {e})") from None
    impl.__name__ = name
    return impl


def _square(name, fun):
    """``fun`` on stacks of square matrices, refusing other shapes with a clear error."""
    def impl(a, *rest, **params):
        s = np.shape(a)
        if len(s) < 2 or s[-1] != s[-2]:
            raise LinAlgShapeError(
                f"{name} needs a square matrix or a stack of them, shape (..., n, n); "
                f"got shape {s}")
        return fun(a, *rest, **params)
    impl.__name__ = name
    return impl


def _T(x):
    return swapaxes(x, axis1=-1, axis2=-2)


def _col(x):
    """A stack of vectors (..., n) as a stack of columns (..., n, 1)."""
    return reshape(x, shape=shape_of(x) + (1,))


def _mat_scalar(s):
    """A stack of scalars (...) as (..., 1, 1), to scale a stack of matrices."""
    return reshape(s, shape=shape_of(s) + (1, 1))


def _eye(x):
    return np.eye(shape_of(x)[-1])


# inv, det, cholesky, ...: NumPy maps them over leading axes already, so under
# vmap the batch axis is one more leading axis, as for elementwise primitives.
_stacked = batch_elementwise


# ---------------------------------------------------------------- einsum

def parse_einsum(subscripts, shapes):
    """Explicit subscripts, one string per operand and the output, ellipses spelled out.

    >>> parse_einsum("ij,jk", [(2, 3), (3, 4)])
    (['ij', 'jk'], 'ik')
    >>> parse_einsum("...ii->...i", [(5, 3, 3)])
    (['Aii'], 'Ai')
    """
    s = subscripts.replace(" ", "")
    ins, arrow, out = s.partition("->")
    terms = ins.split(",")
    if len(terms) != len(shapes):
        raise ShapeError(f"einsum: subscripts {subscripts!r} name {len(terms)} operands, "
                         f"but {len(shapes)} were given")
    fresh = [c for c in ascii_letters[26:] + ascii_letters[:26] if c not in s]
    spans = [len(sh) - (len(t) - 3) for t, sh in zip(terms, shapes) if "..." in t]
    width = max(spans, default=0)
    ell = "".join(fresh[:width])
    terms_x = [t.replace("...", ell[width - (len(sh) - (len(t) - 3)):]) if "..." in t else t
               for t, sh in zip(terms, shapes)]
    if arrow:
        out_x = out.replace("...", ell)
    else:
        counts = Counter(c for t in terms for c in t if c != ".")
        out_x = ell + "".join(sorted(c for c, n in counts.items() if n == 1))
    return terms_x, out_x


def _letter_sizes(terms, shapes):
    sizes = {}
    for t, sh in zip(terms, shapes):
        for c, n in zip(t, sh):
            sizes[c] = max(sizes.get(c, 1), n)
    return sizes


def einsum_cotangent(i, g, operands, terms, out, optimize=False):
    """The cotangent of operand ``i`` of the einsum ``terms -> out``, given the output's ``g``.

    One einsum of ``g`` with the other operands. Letters the operand repeats
    (a diagonal, as in ``'ii'``) get an identity matrix; letters only it has
    (summed away) get a vector of ones; letters it broadcasts (size 1 against
    a larger size) are summed.

    >>> x, y = np.arange(6.0).reshape(2, 3), np.ones(3)
    >>> einsum_cotangent(0, np.ones(2), (x, y), ["ij", "j"], "i")
    array([[1., 1., 1.],
           [1., 1., 1.]])
    """
    shapes = [shape_of(o) for o in operands]
    sizes = _letter_sizes(terms, shapes)
    used = set("".join(terms) + out)
    fresh = iter(c for c in ascii_letters if c not in used)
    others = set(out).union(*(terms[j] for j in range(len(terms)) if j != i))
    target, extra_terms, extra_ops, seen = [], [], [], set()
    for c, n in zip(terms[i], shapes[i]):
        if c in seen:                             # a repeated letter: a diagonal
            f = next(fresh)
            target.append(f)
            extra_terms.append(c + f)
            extra_ops.append(np.eye(n))
        elif n == 1 and sizes[c] > 1:             # broadcast along c: sum over it
            f = next(fresh)
            target.append(f)
            extra_terms.append(f)
            extra_ops.append(np.ones(1))
        else:
            target.append(c)
            if c not in others:                   # summed away by this operand alone
                extra_terms.append(c)
                extra_ops.append(np.ones(n))
        seen.add(c)
    ops = [g] + [operands[j] for j in range(len(operands)) if j != i] + extra_ops
    lhs = [out] + [terms[j] for j in range(len(terms)) if j != i] + extra_terms
    return einsum(*ops, subscripts=",".join(lhs) + "->" + "".join(target), optimize=optimize)


def _batch_einsum(size, values, batched, terms, out):
    """One einsum over a whole batch: a fresh letter for the batch axis."""
    b = next(c for c in ascii_letters if c not in set("".join(terms) + out))
    lhs = [b + t if isb else t for t, isb in zip(terms, batched)]
    return einsum(*values, subscripts=",".join(lhs) + "->" + b + out)


def _einsum_vjp(argnums, g, ans, *ops, subscripts, optimize=False):
    terms, out = parse_einsum(subscripts, [shape_of(o) for o in ops])
    return [einsum_cotangent(i, g, ops, terms, out, optimize=optimize) for i in argnums]


def _einsum_jvp(tangents, ans, *ops, subscripts, optimize=False):
    out = None
    for i, t in enumerate(tangents):
        if t is not None:
            term = einsum(*ops[:i], t, *ops[i + 1:], subscripts=subscripts, optimize=optimize)
            out = term if out is None else out + term
    return out


def _einsum_batch(size, prim, values, batched, params):
    shapes = [example_shape(v, b) for v, b in zip(values, batched)]
    terms, out = parse_einsum(params["subscripts"], shapes)
    return _batch_einsum(size, values, batched, terms, out)


def _einsum_impl(*ops, subscripts, optimize=False):
    try:
        return np.einsum(subscripts, *ops, optimize=optimize)
    except ValueError as e:
        shapes = " and ".join(str(np.shape(a)) for a in ops)
        raise ShapeError(f"einsum {subscripts!r} of shapes {shapes}: the subscripts do not fit "
                         f"the operands' shapes (NumPy says: {e})") from None


# ---------------------------------------------------------------- contractions

def _contraction(name, impl, spec, hint, fast_vjp=None):
    """A bilinear primitive whose value is the einsum ``spec(shape_x, shape_y, **params)``.

    ``fast_vjp(i, g, ans, x, y)`` may give the reverse rule with BLAS-backed
    primitives instead, or ``NotImplemented`` to use the einsum.
    """
    def vjp(i, g, ans, x, y, **params):
        if fast_vjp is not None:
            c = fast_vjp(i, g, ans, x, y)
            if c is not NotImplemented:
                return c
        terms, out = spec(shape_of(x), shape_of(y), **params)
        return einsum_cotangent(i, g, (x, y), terms, out)

    def jvp(i, t, ans, x, y, **params):
        return prim(t, y, **params) if i == 0 else prim(x, t, **params)

    def batch(size, _, values, batched, params):
        shapes = [example_shape(v, b) for v, b in zip(values, batched)]
        terms, out = spec(*shapes, **params)
        return _batch_einsum(size, values, batched, terms, out)

    prim = Primitive(name, _checked(name, impl, hint), vjp=(partial(vjp, 0), partial(vjp, 1)),
                     jvp=(partial(jvp, 0), partial(jvp, 1)), batch=batch)
    return prim


def _letters(n, skip=""):
    return "".join(c for c in ascii_letters if c not in skip)[:n]


def _dot_spec(sa, sb):
    a = _letters(len(sa))
    if len(sb) == 1:
        return [a, a[-1]], a[:-1]
    rest = _letters(len(sb) - 1, skip=a)
    b = rest[:-1] + a[-1] + rest[-1]
    return [a, b], a[:-1] + rest


def _inner_spec(sa, sb):
    a = _letters(len(sa))
    rest = _letters(len(sb) - 1, skip=a)
    return [a, rest + a[-1]], a[:-1] + rest


def _tensordot_spec(sa, sb, axes):
    ia, ib = axes
    a = _letters(len(sa))
    b = list(_letters(len(sb), skip=a))
    for p, q in zip(ia, ib):
        b[q] = a[p]
    b = "".join(b)
    return [a, b], "".join(c for k, c in enumerate(a) if k not in ia) + "".join(
        c for k, c in enumerate(b) if k not in ib)


def _tensordot_impl(a, b, axes):
    return np.tensordot(a, b, axes=axes)


def _kron_parts(sa, sb):
    nd = max(len(sa), len(sb))
    pa = (1,) * (nd - len(sa)) + tuple(sa)
    pb = (1,) * (nd - len(sb)) + tuple(sb)
    a, b = _letters(nd), _letters(nd, skip=_letters(nd))
    inter = tuple(n for pair in zip(pa, pb) for n in pair)
    return pa, pb, a, b, "".join(x + y for x, y in zip(a, b)), inter


def _kron_vjp(i, g, ans, x, y):
    sx, sy = shape_of(x), shape_of(y)
    px, py, a, b, ab, inter = _kron_parts(sx, sy)
    g2 = reshape(g, shape=inter)
    if i == 0:
        out = einsum_cotangent(0, g2, (reshape(x, shape=px), reshape(y, shape=py)), [a, b], ab)
        return reshape(out, shape=sx)
    out = einsum_cotangent(1, g2, (reshape(x, shape=px), reshape(y, shape=py)), [a, b], ab)
    return reshape(out, shape=sy)


einsum = Primitive("einsum", _einsum_impl, vjp=_einsum_vjp, jvp=_einsum_jvp, batch=_einsum_batch)


def _dot_vjp_by_matmul(i, g, ans, x, y):
    """Up to 2-D, ``dot`` is ``matmul``: use its (BLAS) rules rather than an einsum."""
    if len(shape_of(x)) > 2 or len(shape_of(y)) > 2:
        return NotImplemented
    return _matmul_vjp_x(g, ans, x, y) if i == 0 else _matmul_vjp_y(g, ans, x, y)


dot = _contraction("dot", np.dot, _dot_spec,
                   "the last axis of the first operand must equal the second-to-last axis of "
                   "the second (its only axis if 1-D)",
                   fast_vjp=lambda i, g, ans, x, y: _dot_vjp_by_matmul(i, g, ans, x, y))
inner = _contraction("inner", np.inner, _inner_spec,
                     "the last axes of both operands must have the same length")
outer = _contraction("outer", np.outer, lambda sa, sb: (["a", "b"], "ab"), "")
vdot = _contraction("vdot", np.vdot, lambda sa, sb: (["a", "a"], ""),
                    "both operands must have the same number of elements")
tensordot = _contraction("tensordot", _tensordot_impl, _tensordot_spec,
                         "the summed axes of both operands must have the same lengths")
kron = Primitive(
    "kron", np.kron, vjp=(partial(_kron_vjp, 0), partial(_kron_vjp, 1)),
    jvp=(lambda t, ans, x, y: kron(t, y), lambda t, ans, x, y: kron(x, t)),
    batch=batch_example_by_example,
)


# ---------------------------------------------------------------- matmul's reverse rules

def _as_matrices(g, x, y):
    """``x``, ``y`` promoted to at least 2-D, and ``g`` reshaped to match ``x @ y``."""
    xs, ys = shape_of(x), shape_of(y)
    x2 = reshape(x, shape=(1,) + xs) if len(xs) == 1 else x
    y2 = reshape(y, shape=ys + (1,)) if len(ys) == 1 else y
    x2s, y2s = shape_of(x2), shape_of(y2)
    batch = np.broadcast_shapes(x2s[:-2], y2s[:-2])
    shape = batch + (x2s[-2], y2s[-1])
    g2 = g if shape_of(g) == shape else reshape(g, shape=shape)
    return g2, x2, y2


def _matmul_vjp_x(g, ans, x, y):
    g2, x2, y2 = _as_matrices(g, x, y)
    gx = unbroadcast(matmul(g2, _T(y2)), x2)
    return gx if x2 is x else reshape(gx, shape=shape_of(x))


def _matmul_vjp_y(g, ans, x, y):
    g2, x2, y2 = _as_matrices(g, x, y)
    gy = unbroadcast(matmul(_T(x2), g2), y2)
    return gy if y2 is y else reshape(gy, shape=shape_of(y))


def _matmul_batch(size, prim, values, batched, params):
    (x, y), (bx, by) = values, batched
    xs, ys = example_shape(x, bx), example_shape(y, by)
    # Promote 1-D examples to matrices (a row for x, a column for y), as matmul does.
    if len(xs) == 1:
        x = reshape(x, shape=((size,) if bx else ()) + (1,) + xs)
    if len(ys) == 1:
        y = reshape(y, shape=((size,) if by else ()) + ys + (1,))
    x2, y2 = example_shape(x, bx), example_shape(y, by)
    stack = max(len(x2), len(y2)) - 2          # example batch dims of the product
    if bx:
        x = lead_axes(x, stack + 2)
    if by:
        y = lead_axes(y, stack + 2)
    if not bx:   # the unbatched operand broadcasts against the batch axis
        x = reshape(x, shape=(1,) * (stack + 2 - len(x2)) + x2)
    if not by:
        y = reshape(y, shape=(1,) * (stack + 2 - len(y2)) + y2)
    out = matmul(x, y)
    if len(ys) == 1:
        out = squeeze(out, axis=-1)
    if len(xs) == 1:
        out = squeeze(out, axis=-2 if len(ys) != 1 else -1)
    return out


matmul = Primitive(
    "matmul", _checked("matmul", np.matmul, "the last axis of the first operand must equal the "
                       "second-to-last axis of the second (the only axis of a 1-D operand), and "
                       "stack axes must broadcast"),
    vjp=(_matmul_vjp_x, _matmul_vjp_y),
    jvp=(lambda t, ans, x, y: matmul(t, y), lambda t, ans, x, y: matmul(x, t)),
    batch=_matmul_batch,
)


# ---------------------------------------------------------------- diagonals and triangles

def _axes2(nd, axis1, axis2):
    return axis1 % nd, axis2 % nd


def _diag_index(n1, n2, offset):
    """Row and column indices of diagonal ``offset`` of an (n1, n2) matrix."""
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    rows = np.arange(length) + max(-offset, 0)
    return rows, rows - max(-offset, 0) + max(offset, 0)


def _undiagonal_impl(g, offset, axis1, axis2, shape):
    a1, a2 = _axes2(len(shape), axis1, axis2)
    out = np.zeros(shape, dtype=np.result_type(g))
    view = np.moveaxis(out, (a1, a2), (-2, -1))
    rows, cols = _diag_index(shape[a1], shape[a2], offset)
    view[..., rows, cols] = g
    return out


def _trace_vjp(g, ans, x, offset=0, axis1=0, axis2=1):
    s = shape_of(x)
    a1, a2 = _axes2(len(s), axis1, axis2)
    length = len(_diag_index(s[a1], s[a2], offset)[0])
    gd = broadcast_to(reshape(g, shape=shape_of(g) + (1,)), shape=shape_of(g) + (length,))
    return undiagonal(gd, offset=offset, axis1=axis1, axis2=axis2, shape=s)


def _shift_axes(size, prim, values, batched, params):
    """trace, diagonal, undiagonal: axis1 and axis2 move past the batch axis."""
    shape = params.get("shape")
    nd = len(shape) if shape is not None else len(example_shape(values[0], True))
    a1, a2 = _axes2(nd, params.get("axis1", 0), params.get("axis2", 1))
    new = {**params, "axis1": a1 + 1, "axis2": a2 + 1}
    if shape is not None:
        new["shape"] = (size,) + tuple(shape)
    return prim(values[0], **new)


def _triangle_batch(size, prim, values, batched, params):
    if len(example_shape(values[0], True)) >= 2:
        return prim(values[0], **params)
    return batch_example_by_example(size, prim, values, batched, params)


trace = Primitive(
    "trace", lambda x, offset=0, axis1=0, axis2=1: np.trace(x, offset, axis1, axis2),
    vjp=(_trace_vjp,),
    jvp=(lambda t, ans, x, **p: trace(t, **p),), batch=_shift_axes,
)
diagonal = Primitive(
    "diagonal", lambda x, offset=0, axis1=0, axis2=1: np.diagonal(x, offset, axis1, axis2),
    vjp=(lambda g, ans, x, offset=0, axis1=0, axis2=1: undiagonal(
        g, offset=offset, axis1=axis1, axis2=axis2, shape=shape_of(x)),),
    jvp=(lambda t, ans, x, **p: diagonal(t, **p),), batch=_shift_axes,
)
undiagonal = Primitive(
    "undiagonal", _undiagonal_impl,
    vjp=(lambda g, ans, x, offset, axis1, axis2, shape: diagonal(
        g, offset=offset, axis1=axis1, axis2=axis2),),
    jvp=(lambda t, ans, x, **p: undiagonal(t, **p),), batch=_shift_axes,
)
triu = Primitive(
    "triu", lambda x, k=0: np.triu(x, k),
    vjp=(lambda g, ans, x, k=0: unbroadcast(triu(g, k=k), x),),
    jvp=(lambda t, ans, x, k=0: triu(t, k=k),), batch=_triangle_batch,
)
tril = Primitive(
    "tril", lambda x, k=0: np.tril(x, k),
    vjp=(lambda g, ans, x, k=0: unbroadcast(tril(g, k=k), x),),
    jvp=(lambda t, ans, x, k=0: tril(t, k=k),), batch=_triangle_batch,
)


# ---------------------------------------------------------------- inverse, determinants, solve

def _det_vjp(g, ans, a):
    return _mat_scalar(g * ans) * _T(inv(a))


def _det_jvp(t, ans, a):
    return ans * asum(_T(inv(a)) * t, axis=(-2, -1))


def _zero(*_, **__):
    return None


def _solve_impl(a, b):
    sa, sb = np.shape(a), np.shape(b)
    if len(sa) < 2 or sa[-1] != sa[-2]:
        raise LinAlgShapeError(f"solve needs a square matrix a, shape (..., n, n); got a of shape "
                               f"{sa} (and b of shape {sb})")
    rows = sb[0] if len(sb) == 1 else (sb[-2] if len(sb) >= 2 else None)
    if rows != sa[-1]:
        raise LinAlgShapeError(
            f"solve of shapes {sa} and {sb}: b must be a vector of length {sa[-1]} or a stack of "
            f"matrices with {sa[-1]} rows, shape (..., {sa[-1]}, k)")
    return np.linalg.solve(a, b)


def _solve_vjp_a(g, ans, a, b):
    vec = len(shape_of(b)) == 1
    g2, x2 = (_col(g), _col(ans)) if vec else (g, ans)
    gb = solve(_T(a), g2)
    return unbroadcast(-matmul(gb, _T(x2)), a)


def _solve_vjp_b(g, ans, a, b):
    if len(shape_of(b)) == 1:
        gb = solve(_T(a), _col(g))
        return unbroadcast(reshape(gb, shape=shape_of(gb)[:-1]), b)
    return unbroadcast(solve(_T(a), g), b)


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
    "inv", _square("inv", np.linalg.inv),
    vjp=(lambda g, ans, a: -matmul(_T(ans), matmul(g, _T(ans))),),
    jvp=(lambda t, ans, a: -matmul(ans, matmul(t, ans)),), batch=_stacked,
)
det = Primitive("det", _square("det", np.linalg.det), vjp=(_det_vjp,), jvp=(_det_jvp,),
                batch=_stacked)
logabsdet = Primitive(
    "logabsdet", _square("slogdet", lambda a: np.linalg.slogdet(a)[1]),
    vjp=(lambda g, ans, a: _mat_scalar(g) * _T(inv(a)),),
    jvp=(lambda t, ans, a: asum(_T(inv(a)) * t, axis=(-2, -1)),), batch=_stacked,
)
slogdet_sign = Primitive("slogdet_sign", _square("slogdet", lambda a: np.linalg.slogdet(a)[0]),
                         vjp=(_zero,), jvp=(_zero,), batch=_stacked)
solve = Primitive("solve", _solve_impl, vjp=(_solve_vjp_a, _solve_vjp_b),
                  jvp=(_solve_jvp_a, _solve_jvp_b), batch=_solve_batch)


# ---------------------------------------------------------------- symmetric decompositions

def _sym_from(t, lower):
    """The symmetric matrix a function reading one triangle of ``t`` actually sees."""
    if lower:
        return tril(t) + _T(tril(t, k=-1))
    return triu(t) + _T(triu(t, k=1))


def _sym_from_T(c, lower):
    """The transpose of :func:`_sym_from`: a cotangent of the symmetric matrix, on one triangle."""
    if lower:
        return tril(c) + tril(_T(c), k=-1)
    return triu(c) + triu(_T(c), k=1)


def _phi(x):
    """The lower triangle of ``x`` with its diagonal halved."""
    return tril(x, k=-1) + 0.5 * (x * _eye(x))


def _cholesky_jvp(t, ans, a):
    low = ans
    x = solve(low, _T(solve(low, _sym_from(t, True))))
    return matmul(low, _phi(x))


def _cholesky_vjp(g, ans, a):
    low = ans
    p = _phi(matmul(_T(low), g))
    s = _T(solve(_T(low), _T(solve(_T(low), p))))
    return _sym_from_T(s, True)


def _eigh_impl(a, UPLO="L"):  # noqa: N803 - NumPy's name
    w, v = np.linalg.eigh(a, UPLO)
    return np.concatenate([w[..., None, :], v], axis=-2)


def _eigh_parts(packed):
    w = getitem(packed, index=(Ellipsis, 0, slice(None)))
    v = getitem(packed, index=(Ellipsis, slice(1, None), slice(None)))
    return w, v


def _eigh_gaps(w):
    """F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it."""
    eye = np.eye(shape_of(w)[-1])
    diff = reshape(w, shape=shape_of(w)[:-1] + (1,) + shape_of(w)[-1:]) - _col(w)
    return ew.where(eye > 0, 0.0, 1.0 / (diff + eye))


def _eigh_vjp(g, ans, a, UPLO="L"):  # noqa: N803
    w, v = _eigh_parts(ans)
    gw, gv = _eigh_parts(g)
    n = shape_of(w)[-1]
    inner_ = reshape(gw, shape=shape_of(gw)[:-1] + (1, n)) * np.eye(n) + _eigh_gaps(w) * matmul(_T(v), gv)
    return _sym_from_T(matmul(v, matmul(inner_, _T(v))), UPLO.upper() == "L")


def _eigh_jvp(t, ans, a, UPLO="L"):  # noqa: N803
    w, v = _eigh_parts(ans)
    m = matmul(_T(v), matmul(_sym_from(t, UPLO.upper() == "L"), v))
    dw = diagonal(m, axis1=-2, axis2=-1)
    dv = matmul(v, _eigh_gaps(w) * m)
    return concatenate(reshape(dw, shape=shape_of(dw)[:-1] + (1,) + shape_of(dw)[-1:]), dv, axis=-2)


cholesky = Primitive("cholesky", _square("cholesky", np.linalg.cholesky),
                     vjp=(_cholesky_vjp,), jvp=(_cholesky_jvp,), batch=_stacked)
eigh_packed = Primitive("eigh", _square("eigh", _eigh_impl), vjp=(_eigh_vjp,), jvp=(_eigh_jvp,),
                        batch=_stacked)


# ---------------------------------------------------------------- pseudo-inverse

def _pinv_impl(a, **params):
    s = np.shape(a)
    if len(s) < 2:
        raise LinAlgShapeError(f"pinv needs a matrix or a stack of them, shape (..., m, n); got shape {s}")
    return np.linalg.pinv(a, **params)


def _pinv_jvp(t, ans, a, **params):
    if params.get("hermitian"):     # NumPy reads the lower triangle then
        t = _sym_from(t, True)
    # d A+ = -A+ dA A+ + A+ A+^T dA^T (I - A A+) + (I - A+ A) dA^T A+^T A+   (constant rank)
    p, pt, tt = ans, _T(ans), _T(t)
    left = np.eye(shape_of(a)[-2]) - matmul(a, p)
    right = np.eye(shape_of(a)[-1]) - matmul(p, a)
    return (-matmul(p, matmul(t, p)) + matmul(matmul(p, pt), matmul(tt, left))
            + matmul(right, matmul(tt, matmul(pt, p))))


def _pinv_vjp(g, ans, a, **params):
    p, pt, gt = ans, _T(ans), _T(g)
    left = np.eye(shape_of(a)[-2]) - matmul(a, p)
    right = np.eye(shape_of(a)[-1]) - matmul(p, a)
    ct = (-matmul(pt, matmul(g, pt)) + matmul(left, matmul(gt, matmul(p, pt)))
          + matmul(matmul(pt, p), matmul(gt, right)))
    return _sym_from_T(ct, True) if params.get("hermitian") else ct


pinv = Primitive("pinv", _pinv_impl, vjp=(_pinv_vjp,), jvp=(_pinv_jvp,), batch=_stacked)


# ---------------------------------------------------------------- norms

def _norm_kind(nd, ord, axis):  # noqa: A002 - NumPy's name
    """(axes, matrix?) of a norm call, as NumPy reads its arguments."""
    if axis is None:
        if ord is None:
            return tuple(range(nd)), False
        axis = tuple(range(nd))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = tuple(int(a) % nd for a in axes)
    return axes, len(axes) == 2


def _share_of_extremes(values, extreme, axes):
    """1/count where ``values`` equals ``extreme`` along ``axes`` (ties split evenly), else 0."""
    hit = ew.where(ew.equal(plain(values), plain(extreme)), 1.0, 0.0)
    return hit / asum(hit, axis=axes, keepdims=True)


def _norm_direction(x, ans, ord, axis, keepdims):  # noqa: A002
    """D with d norm = sum(D * dx) over the normed axes; shape of ``x``."""
    shape = shape_of(x)
    axes, matrix = _norm_kind(len(shape), ord, axis)
    kept = tuple(1 if i in axes else n for i, n in enumerate(shape))
    ans_k = reshape(ans, shape=kept)
    if ord is None or ord == "fro" or (ord == 2 and not matrix):
        # At x = 0 the 2-norm has no gradient; we return 0 there (a subgradient, as PyTorch does).
        return x / ew.where(plain(ans_k) == 0, 1.0, ans_k)
    if matrix:
        if ord in (1, -1, np.inf, -np.inf):
            summed, along = (axes[0], axes[1]) if ord in (1, -1) else (axes[1], axes[0])
            sums = asum(ew.abs(x), axis=summed, keepdims=True)
            return ew.sign(x) * _share_of_extremes(sums, ans_k, along)
        raise MissingRuleError(
            f"norm: no derivative for the matrix norm ord={ord!r} (it needs a singular value "
            f"decomposition); use ord='fro', 1 or inf, or a vector norm")
    if ord == 0:
        return 0.0 * x
    if ord == 1:
        return ew.sign(x)
    if ord in (np.inf, -np.inf):
        return ew.sign(x) * _share_of_extremes(ew.abs(x), ans_k, axes)
    return ew.sign(x) * ew.abs(x) ** (ord - 1) / ans_k ** (ord - 1)


def _norm_vjp(g, ans, x, ord=None, axis=None, keepdims=False):  # noqa: A002
    shape = shape_of(x)
    axes, _ = _norm_kind(len(shape), ord, axis)
    kept = tuple(1 if i in axes else n for i, n in enumerate(shape))
    return _norm_direction(x, ans, ord, axis, keepdims) * reshape(g, shape=kept)


def _norm_jvp(t, ans, x, ord=None, axis=None, keepdims=False):  # noqa: A002
    axes, _ = _norm_kind(len(shape_of(x)), ord, axis)
    return asum(_norm_direction(x, ans, ord, axis, keepdims) * t, axis=axes, keepdims=keepdims)


def _norm_batch(size, prim, values, batched, params):
    x = values[0]
    shape = example_shape(x, True)
    ord, axis, keepdims = params.get("ord"), params.get("axis"), params.get("keepdims", False)
    if ord is None and axis is None:
        out = prim(reshape(x, shape=(size, -1)), axis=1)
        return reshape(out, shape=(size,) + (1,) * len(shape)) if keepdims else out
    axes, _ = _norm_kind(len(shape), ord, axis)
    return prim(x, ord=ord, axis=tuple(a + 1 for a in axes), keepdims=keepdims)


def _norm_impl(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    return np.linalg.norm(x, ord, axis, keepdims)


norm = Primitive("norm", _checked("norm", _norm_impl, "check ord against the number of axes"),
                 vjp=(_norm_vjp,), jvp=(_norm_jvp,), batch=_norm_batch)
