"""einsum and the contractions NumPy names: dot, inner, outer, vdot, vecdot, tensordot, kron.

Contractions are multilinear, so their forward rule is the primitive itself with one
operand replaced by its tangent, and their reverse rule for an operand is one
``einsum`` of the cotangent with the other operands (see :func:`einsum_cotangent`).
The matrix product and its one-BLAS-call rules are :mod:`funcgrad.rules.matmul`;
diagonals and triangles are :mod:`funcgrad.rules.diagonals`.

    primitive       value                     reverse rule (per operand)               forward rule
    -------------   -----------------------   --------------------------------------   ------------------------------
    einsum          np.einsum(subscripts)     einsum of g with the other operands       einsum with t in place
    dot             np.dot (N-D)              as einsum '...a,...ab->...b' (matmul's    dot(tx, y) + dot(x, ty)
                                              rules up to 2-D)
    inner           np.inner                  as einsum '...a,...a->...'                inner(tx, y) + inner(x, ty)
    outer           np.outer (1-D here)       as einsum 'i,j->ij'                       outer(tx, y) + outer(x, ty)
    vdot            sum(x * y) (1-D here)     as einsum 'i,i->'                         vdot(tx, y) + vdot(x, ty)
    vecdot          np.vecdot(axis)           the forward rules transposed              sum(conj(tx) y) + ...
    tensordot       np.tensordot(axes)        as einsum of the contraction              tensordot(tx, y) + ...
    kron            np.kron                   g regrouped, contracted with the other    kron(tx, y) + kron(x, ty)

Shape errors name the operation and the operands' shapes.
"""

from collections import Counter
from functools import partial
from string import ascii_letters

import numpy as np

from ..analysis.facts import declare
from ..core.errors import ArgumentError, NamespaceError, ShapeError
from ..core.primitive import Primitive
from ..core.values import in_library_of, shape_of
from .arrays import batch_example_by_example, example_shape, lead_axes, reshape
from .arrays import sum as _sum

# Streams and files written before matmul, the diagonals and the triangles moved to
# modules of their own name them here; keep them loadable.
from .diagonals import diagonal, trace, tril, triu, undiagonal  # noqa: F401
from .elementwise import conjugate, multiply
from .matmul import _matmul_vjp_x, _matmul_vjp_y, checked_impl, matmul  # noqa: F401

__all__ = [
    "parse_einsum",
    "einsum_cotangent",
    "einsum",
    "dot",
    "inner",
    "outer",
    "vdot",
    "vecdot",
    "tensordot",
    "kron",
]


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
        raise ShapeError(
            f"einsum: subscripts {subscripts!r} name {len(terms)} operands, "
            f"but {len(shapes)} were given"
        )
    fresh = [c for c in ascii_letters[26:] + ascii_letters[:26] if c not in s]
    spans = [len(sh) - (len(t) - 3) for t, sh in zip(terms, shapes) if "..." in t]
    width = max(spans, default=0)
    ell = "".join(fresh[:width])
    terms_x = [
        t.replace("...", ell[width - (len(sh) - (len(t) - 3)) :]) if "..." in t else t
        for t, sh in zip(terms, shapes)
    ]
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
        if c in seen:  # a repeated letter: a diagonal
            f = next(fresh)
            target.append(f)
            extra_terms.append(c + f)
            extra_ops.append(in_library_of(np.eye(n), g))
        elif n == 1 and sizes[c] > 1:  # broadcast along c: sum over it
            f = next(fresh)
            target.append(f)
            extra_terms.append(f)
            extra_ops.append(in_library_of(np.ones(1), g))
        else:
            target.append(c)
            if c not in others:  # summed away by this operand alone
                extra_terms.append(c)
                extra_ops.append(in_library_of(np.ones(n), g))
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
            term = einsum(*ops[:i], t, *ops[i + 1 :], subscripts=subscripts, optimize=optimize)
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
        raise ShapeError(
            f"einsum {subscripts!r} of shapes {shapes}: the subscripts do not fit "
            f"the operands' shapes (NumPy says: {e})"
        ) from None


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

    def xp_form(xp, x, y, **params):
        terms, out = spec(tuple(x.shape), tuple(y.shape), **params)
        return _xp_einsum(xp, ",".join(terms) + "->" + out, x, y)

    prim = Primitive(
        name,
        checked_impl(name, impl, hint),
        vjp=(partial(vjp, 0), partial(vjp, 1)),
        jvp=(partial(jvp, 0), partial(jvp, 1)),
        batch=batch,
        xp=xp_form,
    )
    return prim


def _xp_einsum(xp, subscripts, *ops, optimize=False):
    """einsum in another library's namespace (PyTorch's, Dask's, CuPy's have one; the
    standard does not)."""
    fun = getattr(xp, "einsum", None)
    if fun is None:
        raise NamespaceError(
            f"einsum {subscripts!r}: {xp.__name__} has no einsum; use "
            f"matmul or tensordot, which the Array API standard has"
        )
    return fun(subscripts, *ops)


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
        c for k, c in enumerate(b) if k not in ib
    )


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


einsum = Primitive(
    "einsum",
    _einsum_impl,
    vjp=_einsum_vjp,
    jvp=_einsum_jvp,
    batch=_einsum_batch,
    xp=lambda xp, *ops, subscripts, optimize=False: _xp_einsum(xp, subscripts, *ops),
)


def _dot_vjp_by_matmul(i, g, ans, x, y):
    """Up to 2-D, ``dot`` is ``matmul``: use its (BLAS) rules rather than an einsum."""
    if len(shape_of(x)) > 2 or len(shape_of(y)) > 2:
        return NotImplemented
    return _matmul_vjp_x(g, ans, x, y) if i == 0 else _matmul_vjp_y(g, ans, x, y)


dot = _contraction(
    "dot",
    np.dot,
    _dot_spec,
    "the last axis of the first operand must equal the second-to-last axis of "
    "the second (its only axis if 1-D)",
    fast_vjp=lambda i, g, ans, x, y: _dot_vjp_by_matmul(i, g, ans, x, y),
)
inner = _contraction(
    "inner", np.inner, _inner_spec, "the last axes of both operands must have the same length"
)
outer = _contraction("outer", np.outer, lambda sa, sb: (["a", "b"], "ab"), "")


def _vdot_impl(a, b):
    """The sum of products, not conjugating: funcgrad.numpy.vdot conjugates ``a`` itself,
    with its own rule, so this primitive stays bilinear."""
    if np.shape(a) != np.shape(b):
        raise ArgumentError("cannot reshape")  # NumPy's vdot refuses operands of different sizes
    return np.dot(a, b)


vdot = _contraction(
    "vdot",
    _vdot_impl,
    lambda sa, sb: (["a", "a"], ""),
    "both operands must have the same number of elements",
)
tensordot = _contraction(
    "tensordot",
    _tensordot_impl,
    _tensordot_spec,
    "the summed axes of both operands must have the same lengths",
)
tensordot.xp = lambda xp, x, y, axes: xp.tensordot(x, y, axes=axes)  # in the standard itself


def _xp_kron(xp, a, b):
    nd = max(a.ndim, b.ndim)
    a = xp.reshape(a, (1,) * (nd - a.ndim) + tuple(a.shape))
    b = xp.reshape(b, (1,) * (nd - b.ndim) + tuple(b.shape))
    wide_a = xp.reshape(a, tuple(n for d in a.shape for n in (d, 1)))
    wide_b = xp.reshape(b, tuple(n for d in b.shape for n in (1, d)))
    return xp.reshape(wide_a * wide_b, tuple(p * q for p, q in zip(a.shape, b.shape)))


kron = Primitive(
    "kron",
    np.kron,
    vjp=(partial(_kron_vjp, 0), partial(_kron_vjp, 1)),
    jvp=(lambda t, ans, x, y: kron(t, y), lambda t, ans, x, y: kron(x, t)),
    batch=batch_example_by_example,
    xp=_xp_kron,
)


# ---------------------------------------------------------------- vecdot


def _vecdot_batch(size, prim, values, batched, params):
    """The axis counted from the end, the same for both operands, is past the batch axis."""
    ndims = [len(example_shape(v, b)) for v, b in zip(values, batched)]
    ends = {params["axis"] % n - n for n in ndims}
    if len(ends) != 1:
        return batch_example_by_example(size, prim, values, batched, params)
    nd = max(ndims)
    aligned = [lead_axes(v, nd) if b else v for v, b in zip(values, batched)]
    return vecdot(*aligned, axis=ends.pop())


# NumPy's own call for the value (a sum of products through the elementwise primitives
# rounds differently wherever NumPy's vecdot uses wider vector units, AVX-512 for one);
# reverse mode transposes the forward rules.
vecdot = Primitive(
    "vecdot",
    lambda x1, x2, axis=-1: np.vecdot(x1, x2, axis=axis),  # type: ignore[call-overload]
    jvp=(
        lambda t, ans, x1, x2, axis=-1: _sum(multiply(conjugate(t), x2), axis=axis),
        lambda t, ans, x1, x2, axis=-1: _sum(multiply(conjugate(x1), t), axis=axis),
    ),
    batch=_vecdot_batch,
    xp=lambda xp, x1, x2, axis=-1: xp.vecdot(  # the standard counts the axis from the end
        x1, x2, axis=axis if axis < 0 else axis - max(x1.ndim, x2.ndim)
    ),
)


# What the analyses read about these primitives (funcgrad/analysis/facts.py). A contraction's
# spec is its einsum: the index letters of each operand (an operand of one letter is read
# raveled) and of the output, or None where an operand is 0-d (a scaling).
declare(dot, inner, outer, vdot, tensordot, einsum, kron, linear="each")
declare(dot, inner, outer, vdot, tensordot, einsum, structure="contraction")
declare(einsum, spec=lambda shapes, params: parse_einsum(params["subscripts"], shapes))
declare(dot, spec=lambda shapes, params: _dot_spec(*shapes) if all(shapes) else None)
declare(inner, spec=lambda shapes, params: _inner_spec(*shapes) if all(shapes) else None)
declare(outer, spec=lambda shapes, params: (["a", "b"], "ab"))
declare(vdot, spec=lambda shapes, params: (["a", "a"], ""))
declare(tensordot, spec=lambda shapes, params: _tensordot_spec(*shapes, **params))
