"""funcgrad.numpy's linear algebra, table-driven: every function of the namespace has
cases below (``test_every_function_has_a_case`` fails otherwise), and every case is
checked for NumPy's exact values, derivatives to second order in both modes,
vmap against a loop, and float64 gradients against PyTorch where it has the function.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.numpy.linalg as fla
from funcgrad.core.tree import tree_flatten, tree_unflatten
from funcgrad.numpy import _products
from tests.helpers import needs_torch, requires_torch, torch

rng = np.random.default_rng(42)


def a(*shape):
    return rng.normal(size=shape)


def spd(*shape):
    """Well-conditioned symmetric positive definite matrices of shape (..., n, n)."""
    m = rng.normal(size=shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def wellcond(*shape):
    """Square matrices well away from singular (for inv, det, solve)."""
    return rng.normal(size=shape) * 0.3 + np.eye(shape[-1]) * 2.0


def sym(x, lib=np):
    return 0.5 * (x + lib.swapaxes(x, -1, -2))


class Case:
    """``f(*args)`` written with funcgrad.numpy, ``ref`` the same with NumPy, ``tf`` with torch."""

    def __init__(self, f, ref, args, tf=None, vmap=True, label="", symmetric=False):
        self.f, self.ref, self.args, self.tf, self.vmap, self.label = f, ref, args, tf, vmap, label
        # Functions that read one triangle: PyTorch's gradient is the symmetric one, so
        # both sides are compared on a symmetrised input.
        self.symmetric = symmetric


def call(name, **kw):
    """The funcgrad.numpy and NumPy versions of ``name`` (e.g. 'linalg.inv') with ``kw``."""

    def get(mod):
        for part in name.split("."):
            mod = getattr(mod, part)
        return mod

    f, ref = get(fnp), get(np)
    if "subscripts" in kw:  # einsum takes its subscripts first
        s = kw.pop("subscripts")
        return (lambda *xs: f(s, *xs, **kw)), (lambda *xs: ref(s, *xs, **kw))
    return (lambda *xs: f(*xs, **kw)), (lambda *xs: ref(*xs, **kw))


def case(name, args, tf=None, label="", vmap=True, symmetric=False, **kw):
    f, ref = call(name, **kw)
    return Case(
        f, ref, args, tf, vmap, label or ",".join(str(np.shape(x)) for x in args), symmetric
    )


def eigh_parts(lib, la):
    """Sign-free functions of eigh's outputs: eigenvalues, V*V, and V diag(w^2) V^T."""

    def f(x):
        w, v = la.eigh(x)
        return w, v * v, (v * (w**2)[..., None, :]) @ lib.swapaxes(v, -1, -2)

    return f


def svd_parts(la, **kw):
    """Sign-free functions of the SVD: s, U*U, Vh*Vh and the reconstruction."""

    def f(x):
        u, s, vh = la.svd(x, **kw)
        k = s.shape[-1]
        return s, u * u, vh * vh, (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]

    return f


def eig_parts(la):
    """Sign-free functions of eig's outputs, for matrices with real eigenvalues."""

    def f(x):
        w, v = la.eig(x)
        return w, v * v

    return f


def real_eigenvalues(n):
    """A non-symmetric matrix with distinct real eigenvalues 1, 3, 5, ..."""
    s = wellcond(n, n)
    return s @ np.diag(np.arange(1.0, 2 * n, 2)) @ np.linalg.inv(s)


class _NoTorch:
    """Stands in for torch in the tables below when PyTorch is not installed (``T.linalg.inv``
    is a stand-in too); the tests that would call them are skipped."""

    def __getattr__(self, name):
        return self


T = torch if torch is not None else _NoTorch()


def tnorm(ord=None, axis=None, keepdims=False):
    return lambda x: T.linalg.norm(x, ord=ord, dim=axis, keepdim=keepdims)


CASES = {
    "dot": [
        case("dot", (a(3), a(3)), T.dot),
        case("dot", (a(2, 3), a(3, 4)), T.matmul),
        case("dot", (a(2, 3), a(3)), T.matmul),
        case("dot", (a(3), a(3, 4)), T.matmul),
        case("dot", (a(2, 2, 3), a(4, 3, 2)), lambda x, y: T.tensordot(x, y, dims=([2], [1]))),
        case("dot", (a(2, 3, 4), a(4)), T.matmul),
        case("dot", (2.5, a(2, 3)), T.mul),
    ],
    "vdot": [case("vdot", (a(4), a(4)), T.vdot), case("vdot", (a(2, 3), a(6)))],
    "inner": [
        case("inner", (a(3), a(3)), T.inner),
        case("inner", (a(2, 3), a(4, 3)), T.inner),
        case("inner", (a(2, 2, 3), a(3)), T.inner),
        case("inner", (a(3), 1.5)),
    ],
    "outer": [case("outer", (a(3), a(4)), T.outer), case("outer", (a(2, 2), a(3)))],
    "matmul": [
        case("matmul", (a(2, 3), a(3, 4)), T.matmul),
        case("matmul", (a(3), a(3, 4)), T.matmul),
        case("matmul", (a(2, 3), a(3)), T.matmul),
        case("matmul", (a(3), a(3)), T.matmul),
        case("matmul", (a(2, 2, 3), a(3, 4)), T.matmul),
        case("matmul", (a(2, 1, 2, 3), a(3, 3, 2)), T.matmul),
    ],
    "tensordot": [
        case("tensordot", (a(2, 3, 4), a(3, 4, 2)), lambda x, y: T.tensordot(x, y, dims=2)),
        case("tensordot", (a(2, 3), a(3, 4)), lambda x, y: T.tensordot(x, y, dims=1), axes=1),
        case("tensordot", (a(2, 3), a(4, 5)), lambda x, y: T.tensordot(x, y, dims=0), axes=0),
        case(
            "tensordot",
            (a(2, 3, 4), a(4, 3)),
            lambda x, y: T.tensordot(x, y, dims=([1, 2], [1, 0])),
            axes=([1, 2], [1, 0]),
        ),
        case(
            "tensordot",
            (a(3, 2), a(3, 4)),
            lambda x, y: T.tensordot(x, y, dims=([0], [0])),
            axes=(0, 0),
        ),
    ],
    "einsum": [
        case(
            "einsum",
            (a(2, 3), a(3, 4)),
            lambda x, y: T.einsum("ij,jk->ik", x, y),
            subscripts="ij,jk->ik",
        ),
        case(
            "einsum", (a(2, 3), a(3, 4)), lambda x, y: T.einsum("ij,jk", x, y), subscripts="ij,jk"
        ),
        case("einsum", (a(3, 3),), lambda x: T.einsum("ii->i", x), subscripts="ii->i"),
        case("einsum", (a(3, 3),), lambda x: T.einsum("ii", x), subscripts="ii"),
        case("einsum", (a(2, 3),), lambda x: T.einsum("ij->", x), subscripts="ij->"),
        case("einsum", (a(2, 3),), lambda x: T.einsum("ij->ji", x), subscripts="ij->ji"),
        case(
            "einsum",
            (a(2, 3), a(2, 3)),
            lambda x, y: T.einsum("ij,ij->i", x, y),
            subscripts="ij,ij->i",
        ),
        case(
            "einsum",
            (a(5, 2, 3), a(3, 4)),
            lambda x, y: T.einsum("...ij,jk->...ik", x, y),
            subscripts="...ij,jk->...ik",
        ),
        case(
            "einsum",
            (a(5, 2, 3), a(5, 3, 4)),
            lambda x, y: T.einsum("...ij,...jk", x, y),
            subscripts="...ij,...jk",
        ),
        case("einsum", (a(2, 3, 3),), lambda x: T.einsum("bii->b", x), subscripts="bii->b"),
        case(
            "einsum",
            (a(3), a(4), a(3, 4)),
            lambda x, y, z: T.einsum("i,j,ij->", x, y, z),
            subscripts="i,j,ij->",
        ),
        case("einsum", (a(1, 3), a(4, 3)), subscripts="ij,ij->ij", label="size-1 broadcast"),
        case("einsum", (a(2, 3), a(3, 4)), subscripts="ij,jk->ik", optimize=True, label="optimize"),
        case("einsum", (a(2, 2, 2),), subscripts="iii->i", label="iii"),
    ],
    "cross": [
        case("cross", (a(3), a(3)), lambda x, y: T.linalg.cross(x, y)),
        case("cross", (a(4, 3), a(3)), lambda x, y: T.linalg.cross(x, y.expand(4, 3))),
        # 2-vectors where the installed NumPy takes them (before 2.5: test_cross_of_2_vectors)
        *(
            [
                case("cross", (a(2, 2), a(2, 3)), label="2-vectors"),
                case("cross", (a(2), a(2)), label="z only"),
            ]
            if _products._CROSS_TAKES_2_VECTORS
            else []
        ),
        case("cross", (a(3, 2), a(2, 3)), label="axes", axisa=0, axisc=0),
    ],
    "vecdot": [
        case("vecdot", (a(2, 3), a(3)), lambda x, y: T.linalg.vecdot(x, y)),
        case("vecdot", (a(3, 2), a(3, 2)), lambda x, y: T.linalg.vecdot(x, y, dim=0), axis=0),
    ],
    "diagflat": [case("diagflat", (a(2, 2),)), case("diagflat", (a(3),), k=-1)],
    "kron": [
        case("kron", (a(2, 2), a(3, 2)), T.kron),
        case("kron", (a(2), a(2, 3)), T.kron),
        case("kron", (a(3), a(2)), T.kron),
    ],
    "trace": [
        case("trace", (a(3, 3),), T.trace),
        case("trace", (a(3, 4),), lambda x: T.diagonal(x, 1).sum(-1), offset=1),
        case("trace", (a(4, 3),), lambda x: T.diagonal(x, -2).sum(-1), offset=-2),
        case("trace", (a(2, 3, 3),), lambda x: T.diagonal(x, 0, 1, 2).sum(-1), axis1=1, axis2=2),
    ],
    "diag": [
        case("diag", (a(3),), T.diag),
        case("diag", (a(3),), lambda x: T.diag(x, 1), k=1),
        case("diag", (a(3),), lambda x: T.diag(x, -2), k=-2),
        case("diag", (a(3, 4),), T.diag),
        case("diag", (a(3, 4),), lambda x: T.diag(x, 1), k=1),
        case("diag", (a(4, 3),), lambda x: T.diag(x, -1), k=-1),
    ],
    "diagonal": [
        case("diagonal", (a(3, 4),), T.diagonal),
        case("diagonal", (a(3, 4),), lambda x: T.diagonal(x, 2), offset=2),
        case(
            "diagonal",
            (a(2, 3, 4),),
            lambda x: T.diagonal(x, -1, -1, 0),
            offset=-1,
            axis1=-1,
            axis2=0,
        ),
        case("diagonal", (a(2, 3, 3),), lambda x: T.diagonal(x, 0, 1, 2), axis1=1, axis2=2),
    ],
    "triu": [
        case("triu", (a(3, 4),), T.triu),
        case("triu", (a(3, 4),), lambda x: T.triu(x, 1), k=1),
        case("triu", (a(2, 3, 3),), lambda x: T.triu(x, -1), k=-1),
        case("triu", (a(3),), label="1-D"),
    ],
    "tril": [
        case("tril", (a(3, 4),), T.tril),
        case("tril", (a(4, 3),), lambda x: T.tril(x, -1), k=-1),
        case("tril", (a(2, 3, 3),), lambda x: T.tril(x, 1), k=1),
    ],
    "linalg.inv": [
        case("linalg.inv", (wellcond(3, 3),), T.linalg.inv),
        case("linalg.inv", (wellcond(2, 3, 3),), T.linalg.inv),
        case("linalg.inv", (wellcond(1, 1),), T.linalg.inv),
    ],
    "linalg.det": [
        case("linalg.det", (wellcond(3, 3),), T.linalg.det),
        case("linalg.det", (wellcond(2, 3, 3),), T.linalg.det),
        case("linalg.det", (a(2, 2),), T.linalg.det),
    ],
    "linalg.slogdet": [
        case("linalg.slogdet", (a(3, 3),), lambda x: tuple(T.linalg.slogdet(x))),
        case("linalg.slogdet", (wellcond(2, 3, 3),), lambda x: tuple(T.linalg.slogdet(x))),
    ],
    "linalg.solve": [
        case("linalg.solve", (wellcond(3, 3), a(3)), T.linalg.solve),
        case("linalg.solve", (wellcond(3, 3), a(3, 2)), T.linalg.solve),
        case("linalg.solve", (wellcond(2, 3, 3), a(2, 3, 2)), T.linalg.solve),
        case("linalg.solve", (wellcond(2, 3, 3), a(3)), T.linalg.solve),
        case("linalg.solve", (wellcond(3, 3), a(2, 3, 4)), T.linalg.solve),
        case("linalg.solve", (wellcond(2, 1, 3, 3), a(4, 3, 1)), T.linalg.solve),
    ],
    "linalg.cholesky": [
        case("linalg.cholesky", (spd(3, 3),), T.linalg.cholesky, symmetric=True),
        case("linalg.cholesky", (spd(2, 3, 3),), T.linalg.cholesky, symmetric=True),
        case(
            "linalg.cholesky",
            (spd(3, 3),),
            lambda x: T.linalg.cholesky(x, upper=True),
            upper=True,
            symmetric=True,
        ),
    ],
    "linalg.norm": [
        case("linalg.norm", (a(4),), tnorm()),
        case("linalg.norm", (a(2, 3),), lambda x: T.linalg.norm(x.reshape(-1))),
        case("linalg.norm", (a(2, 3, 2),), lambda x: T.linalg.norm(x.reshape(-1))),
        case("linalg.norm", (a(2, 3),), tnorm(2, 1), ord=2, axis=1),
        case("linalg.norm", (a(2, 3),), tnorm(None, 0, True), axis=0, keepdims=True),
        case("linalg.norm", (a(4),), tnorm(1), ord=1),
        case("linalg.norm", (a(4),), tnorm(np.inf), ord=np.inf),
        case("linalg.norm", (a(4),), tnorm(-np.inf), ord=-np.inf),
        case("linalg.norm", (a(4),), tnorm(3), ord=3),
        case("linalg.norm", (a(4),), tnorm(0.5), ord=0.5),
        case("linalg.norm", (a(4),), ord=0, label="ord 0"),
        case("linalg.norm", (a(3, 3),), tnorm("fro"), ord="fro"),
        case("linalg.norm", (a(3, 3),), tnorm(1), ord=1),
        case("linalg.norm", (a(3, 3),), tnorm(np.inf), ord=np.inf),
        case("linalg.norm", (a(3, 3),), tnorm(-1), ord=-1),
        case("linalg.norm", (a(3, 3),), tnorm(-np.inf), ord=-np.inf),
        case("linalg.norm", (a(2, 3, 4),), tnorm("fro", (2, 0)), ord="fro", axis=(2, 0)),
        case(
            "linalg.norm", (a(2, 3, 4),), tnorm(1, (0, 2), True), ord=1, axis=(0, 2), keepdims=True
        ),
        case("linalg.norm", (a(2, 3, 4),), tnorm(np.inf, (1, 2)), ord=np.inf, axis=(1, 2)),
    ],
    "linalg.eigh": [
        Case(
            eigh_parts(fnp, fla),
            eigh_parts(np, np.linalg),
            (spd(3, 3),),
            eigh_parts(T, T.linalg),
            label="(3,3)",
            symmetric=True,
        ),
        Case(
            eigh_parts(fnp, fla),
            eigh_parts(np, np.linalg),
            (spd(2, 4, 4),),
            eigh_parts(T, T.linalg),
            label="(2,4,4)",
            symmetric=True,
        ),
        Case(
            lambda x: fla.eigh(x, UPLO="U")[0],
            lambda x: np.linalg.eigh(x, UPLO="U")[0],
            (spd(3, 3),),
            label="UPLO=U",
        ),
        Case(
            lambda x: fla.eigh(x)[1],
            lambda x: np.linalg.eigh(x)[1],
            (spd(3, 3),),
            label="eigenvectors",
        ),
    ],
    "linalg.pinv": [
        case("linalg.pinv", (a(3, 2),), T.linalg.pinv),
        case("linalg.pinv", (a(2, 3),), T.linalg.pinv),
        case("linalg.pinv", (a(2, 3, 3),), T.linalg.pinv),
        case("linalg.pinv", (spd(3, 3),), hermitian=True, label="hermitian"),
    ],
}

CASES.update(
    {
        "linalg.svd": [
            Case(
                svd_parts(fla, full_matrices=False),
                svd_parts(np.linalg, full_matrices=False),
                (a(3, 2),),
                svd_parts(T.linalg, full_matrices=False),
                label="tall",
            ),
            Case(
                svd_parts(fla, full_matrices=False),
                svd_parts(np.linalg, full_matrices=False),
                (a(2, 3),),
                svd_parts(T.linalg, full_matrices=False),
                label="wide",
            ),
            Case(
                svd_parts(fla),
                svd_parts(np.linalg),
                (a(2, 3, 3),),
                svd_parts(T.linalg),
                label="stack, full",
            ),
            Case(
                lambda x: fla.svd(x)[0][:, :2],
                lambda x: np.linalg.svd(x)[0][:, :2],
                (a(4, 2),),
                label="full, the determined columns",
            ),
            Case(
                lambda x: fla.svd(x, hermitian=True)[1],
                lambda x: np.linalg.svd(x, hermitian=True)[1],
                (spd(3, 3),),
                label="hermitian",
                symmetric=True,
            ),
        ],
        "linalg.svdvals": [
            case("linalg.svdvals", (a(3, 2),), T.linalg.svdvals),
            case("linalg.svdvals", (a(2, 2, 3),), T.linalg.svdvals),
        ],
        "linalg.qr": [
            case("linalg.qr", (a(3, 2),), lambda x: tuple(T.linalg.qr(x))),
            case("linalg.qr", (a(2, 3),), lambda x: tuple(T.linalg.qr(x)), label="wide"),
            case("linalg.qr", (a(2, 3, 3),), lambda x: tuple(T.linalg.qr(x)), label="stack"),
            case(
                "linalg.qr", (a(3, 2),), mode="r", label="r"
            ),  # torch has no derivative of mode='r'
            case(
                "linalg.qr",
                (a(2, 3),),
                lambda x: tuple(T.linalg.qr(x, mode="complete")),
                mode="complete",
            ),
        ],
        "linalg.eig": [
            Case(
                eig_parts(fla),
                eig_parts(np.linalg),
                (real_eigenvalues(3),),
                label="real eigenvalues",
            )
        ],
        "linalg.eigvals": [case("linalg.eigvals", (real_eigenvalues(3),))],
        "linalg.eigvalsh": [
            case("linalg.eigvalsh", (spd(3, 3),), T.linalg.eigvalsh, symmetric=True)
        ],
        "linalg.lstsq": [
            Case(
                lambda a, b: fla.lstsq(a, b)[0],
                lambda a, b: np.linalg.lstsq(a, b)[0],
                (a(5, 2), a(5, 3)),
                lambda a, b: T.linalg.lstsq(a, b, driver="gelsd").solution,
                label="tall",
                vmap=False,
            ),
            Case(
                lambda a, b: fla.lstsq(a, b)[0],
                lambda a, b: np.linalg.lstsq(a, b)[0],
                (a(2, 4), a(2)),
                label="wide",
                vmap=False,
            ),
            Case(
                lambda a, b: fla.lstsq(a, b)[1],
                lambda a, b: np.linalg.lstsq(a, b)[1],
                (a(5, 2), a(5)),
                label="residuals",
                vmap=False,
            ),
            Case(
                lambda a, b: fla.lstsq(a, b)[3],
                lambda a, b: np.linalg.lstsq(a, b)[3],
                (a(5, 2), a(5)),
                label="singular values",
                vmap=False,
            ),
        ],
        "linalg.matrix_power": [
            case("linalg.matrix_power", (a(3, 3),), lambda x: T.linalg.matrix_power(x, 3), n=3),
            case("linalg.matrix_power", (a(2, 3, 3),), lambda x: T.linalg.matrix_power(x, 6), n=6),
            case(
                "linalg.matrix_power",
                (wellcond(3, 3),),
                lambda x: T.linalg.matrix_power(x, -2),
                n=-2,
            ),
            case("linalg.matrix_power", (a(3, 3),), n=1, label="1"),
        ],
        "linalg.cond": [
            case("linalg.cond", (wellcond(3, 3),), T.linalg.cond),
            case("linalg.cond", (wellcond(3, 3),), p="fro", label="fro"),
        ],
        "linalg.matrix_rank": [case("linalg.matrix_rank", (a(3, 3),))],
        "linalg.matrix_transpose": [case("linalg.matrix_transpose", (a(2, 3, 4),), lambda x: x.mT)],
        "linalg.vector_norm": [
            case("linalg.vector_norm", (a(2, 3),), T.linalg.vector_norm),
            case("linalg.vector_norm", (a(2, 3),), ord=1, axis=1, label="axis 1"),
        ],
        "linalg.matrix_norm": [
            case("linalg.matrix_norm", (a(2, 3),), T.linalg.matrix_norm),
            case("linalg.matrix_norm", (a(2, 3, 3),), lambda x: T.linalg.matrix_norm(x, 2), ord=2),
        ],
        "linalg.multi_dot": [
            Case(
                lambda *xs: fla.multi_dot(xs),
                lambda *xs: np.linalg.multi_dot(xs),
                (a(2, 3), a(3, 5), a(5, 2)),
                lambda *xs: T.linalg.multi_dot(xs),
                label="three",
            ),
            Case(
                lambda *xs: fla.multi_dot(xs),
                lambda *xs: np.linalg.multi_dot(xs),
                (a(3), a(3, 4), a(4, 2), a(2)),
                label="1-D ends",
                vmap=False,
            ),
        ],
    }
)
CASES["linalg.norm"] += [
    case("linalg.norm", (a(3, 2),), tnorm(2), ord=2),
    case("linalg.norm", (a(3, 2),), tnorm(-2), ord=-2),
    case("linalg.norm", (a(3, 2),), tnorm("nuc"), ord="nuc"),
    case("linalg.norm", (a(2, 3, 4),), tnorm(2, (2, 0), True), ord=2, axis=(2, 0), keepdims=True),
]

# drawn last, so the cases above keep their random inputs
CASES.update(
    {
        "matvec": [case("matvec", (a(2, 3), a(3)), T.mv), case("matvec", (a(4, 2, 3), a(4, 3)))],
        "vecmat": [case("vecmat", (a(2), a(2, 3))), case("vecmat", (a(4, 2), a(2, 3)))],
        # NumPy 2's linalg names: the last two axes where the main namespace takes the first two
        "linalg.matmul": [case("linalg.matmul", (a(2, 2, 3), a(3, 4)), T.matmul)],
        "linalg.tensordot": [
            case(
                "linalg.tensordot", (a(2, 3, 4), a(3, 4, 2)), lambda x, y: T.tensordot(x, y, dims=2)
            )
        ],
        "linalg.vecdot": [
            case("linalg.vecdot", (a(2, 3), a(3)), lambda x, y: T.linalg.vecdot(x, y))
        ],
        "linalg.outer": [case("linalg.outer", (a(3), a(2)), T.outer)],
        "linalg.cross": [
            case("linalg.cross", (a(4, 3), a(4, 3)), lambda x, y: T.linalg.cross(x, y))
        ],
        "linalg.diagonal": [
            case("linalg.diagonal", (a(2, 3, 3),), lambda x: T.diagonal(x, dim1=-2, dim2=-1)),
            case("linalg.diagonal", (a(3, 4),), offset=1),
        ],
        "linalg.trace": [
            case("linalg.trace", (a(2, 3, 3),), lambda x: T.diagonal(x, dim1=-2, dim2=-1).sum(-1)),
            case("linalg.trace", (a(2, 4, 3),), offset=-1),
        ],
        "linalg.tensorinv": [case("linalg.tensorinv", (wellcond(6, 6).reshape(6, 2, 3),), ind=1)],
        "linalg.tensorsolve": [
            case("linalg.tensorsolve", (wellcond(6, 6).reshape(6, 2, 3), a(6)), vmap=False),
            case(
                "linalg.tensorsolve", (wellcond(6, 6).reshape(2, 6, 3), a(6)), axes=(0,), vmap=False
            ),
        ],
    }
)

NOT_FUNCTIONS = {
    "linalg",
    "LinAlgError",
    "SlogdetResult",
    "EighResult",
    "SVDResult",
    "QRResult",
    "EigResult",
}


def all_cases():
    return [
        pytest.param(c, id=f"{name}-{c.label or i}")
        for name, cases in CASES.items()
        for i, c in enumerate(cases)
    ]


def test_every_function_has_a_case():
    names = [n for n in _products.__all__ if n not in NOT_FUNCTIONS]
    names += ["linalg." + n for n in fla.__all__ if n not in NOT_FUNCTIONS]
    missing = [n for n in names if not CASES.get(n)]
    assert not missing, f"add cases to CASES in tests/numpy/test_numpy_linalg.py for: {missing}"


def test_the_linalg_submodule_is_the_namespaces():
    assert fnp.linalg is fla
    assert fnp.linalg.inv is fla.inv


# ----------------------------------------------------------------- values


def _leaves(x):
    return tree_flatten(tuple(x) if isinstance(x, tuple) else x)[0]


@pytest.mark.parametrize("c", all_cases())
def test_values_are_numpys_bit_for_bit(c):
    want = _leaves(c.ref(*c.args))
    for got in (_leaves(c.f(*c.args)), _leaves(fg.jvp(c.f, c.args, c.args)[0])):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g = np.asarray(g)
            w = np.asarray(w)
            assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
            np.testing.assert_array_equal(g, w)


# ----------------------------------------------------------------- derivatives


@pytest.mark.parametrize("c", all_cases())
def test_second_order_both_modes(c):
    fg.check_grads(c.f, c.args, order=2, modes=("fwd", "rev"), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("c", [p for p in all_cases() if p.values[0].tf is not None])
@requires_torch
def test_gradients_match_torch_float64(c):
    args = c.args
    f, tf = c.f, c.tf
    if c.symmetric:
        f, tf = (lambda x: c.f(sym(x, fnp))), (lambda x: c.tf(sym(x, T)))
    out, pullback = fg.vjp(f, *args)
    r = np.random.default_rng(0)
    outs, treedef = tree_flatten(out)
    seeds = [r.normal(size=np.shape(o)) for o in outs]
    grads = pullback(tree_unflatten(treedef, seeds))
    grads = grads if isinstance(grads, tuple) else (grads,)
    targs = [T.tensor(np.asarray(x, dtype=np.float64), requires_grad=True) for x in args]
    tout = tf(*targs)
    touts = list(tout) if isinstance(tout, tuple) else [tout]
    for o, to in zip(outs, touts):
        np.testing.assert_allclose(
            np.asarray(o, dtype=float), to.detach().numpy(), rtol=1e-10, atol=1e-12
        )
    total = sum((to * T.tensor(s)).sum() for to, s in zip(touts, seeds) if to.requires_grad)
    total.backward()
    for g, ta in zip(grads, targs):
        np.testing.assert_allclose(
            np.asarray(g, dtype=float), ta.grad.numpy(), rtol=1e-8, atol=1e-10
        )


def test_cross_of_2_vectors_does_as_the_installed_numpy():
    """NumPy 2.0 deprecated 2-vectors in ``cross`` and 2.5 refuses them: funcgrad's cross,
    plain and traced, takes them exactly where the installed NumPy does."""
    x, y = np.array([1.0, 2.0]), np.array([3.0, 5.0])
    if _products._CROSS_TAKES_2_VECTORS:
        assert fnp.cross(x, y) == np.cross(x, y) == -1.0
        np.testing.assert_allclose(fg.grad(lambda x: fnp.cross(x, y))(x), [5.0, -3.0])
        return
    with pytest.raises(ValueError, match="3-dimensional"):
        fnp.cross(x, y)  # NumPy's own refusal
    with pytest.raises(fg.errors.ArgumentError, match=r"cross: NumPy .* takes 3-vectors only"):
        fg.grad(lambda x: fnp.cross(x, y))(x)
    with pytest.raises(fg.errors.ArgumentError, match="append a zero"):
        fg.jit(fg.grad(lambda x: fnp.sum(fnp.cross(x, np.ones(3)))))(x)


# ----------------------------------------------------------------- vmap

BATCH = 3


def _batched(x, r):
    """BATCH examples near ``x`` (SPD stays SPD: a small symmetric change)."""
    x = np.asarray(x, dtype=float)
    d = r.normal(size=(BATCH,) + x.shape) * 0.05
    if x.ndim >= 2 and x.shape[-1] == x.shape[-2]:
        d = sym(d)
    return x + d


def _numbers(v):
    """``v`` as a float array, or a complex one where it is complex (NumPy 2.5's eig and
    eigvals give complex eigenvalues even where all are real)."""
    a = np.asarray(v)
    return a if a.dtype.kind == "c" else a.astype(float)


@pytest.mark.parametrize("c", [p for p in all_cases() if np.ndim(p.values[0].args[0]) > 0])
def test_vmap_equals_a_loop(c):
    r = np.random.default_rng(1)
    batched = [_batched(x, r) for x in c.args]
    for axes in ([0] * len(c.args), [0] + [None] * (len(c.args) - 1)):
        call_args = [b if ax == 0 else x for x, b, ax in zip(c.args, batched, axes)]
        got = _leaves(fg.vmap(c.f, in_axes=tuple(axes))(*call_args))
        loop = [
            _leaves(c.ref(*[x[i] if ax == 0 else x for x, ax in zip(call_args, axes)]))
            for i in range(BATCH)
        ]
        for k, g in enumerate(got):
            want = np.stack([_numbers(example[k]) for example in loop])
            np.testing.assert_allclose(_numbers(g), want, rtol=1e-10, atol=1e-12)


def test_hessian_of_logdet_uses_batched_rules_and_agrees_both_ways():
    x = spd(3, 3)
    f = lambda m: fla.slogdet(m)[1]
    h1 = fg.jacfwd(fg.grad(f))(x)
    h2 = fg.jacrev(fg.grad(f))(x)
    want = -np.einsum("jk,li->ijkl", np.linalg.inv(x), np.linalg.inv(x))  # d(A^-T)/dA
    np.testing.assert_allclose(h1, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h2, want, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------- documented conventions


def test_norm_gradient_at_zero_is_zero():
    for f in (fla.norm, lambda x: fla.norm(x, ord="fro"), lambda x: fla.norm(x, axis=1)):
        np.testing.assert_array_equal(
            fg.grad(lambda x: fnp.sum(f(x)))(np.zeros((2, 2))), np.zeros((2, 2))
        )


def test_cholesky_and_eigh_read_the_lower_triangle_only():
    x = spd(3, 3)
    for f in (lambda m: fnp.sum(fla.cholesky(m) ** 2), lambda m: fnp.sum(fla.eigh(m)[0] ** 3)):
        g = fg.grad(f)(x)
        np.testing.assert_array_equal(np.triu(g, 1), 0.0)
        # symmetrised, the gradient is the symmetric one (PyTorch's convention)
        gs = fg.grad(lambda m: f(0.5 * (m + m.T)))(x)
        np.testing.assert_allclose(gs, gs.T, rtol=1e-12)
        np.testing.assert_allclose(gs, 0.5 * (g + g.T), rtol=1e-12)


def test_eigh_gradient_is_for_distinct_eigenvalues():
    # w = (1, 3): d w / d A is v v^T for each eigenvector (on the lower triangle)
    x = np.array([[2.0, 1.0], [1.0, 2.0]])
    g = fg.grad(lambda m: fla.eigh(m)[0][1])(x)
    np.testing.assert_allclose(g, np.array([[0.5, 0.0], [1.0, 0.5]]), atol=1e-12)


def test_matrix_two_norm_gradient_is_the_top_singular_pair():
    x = a(3, 3)
    u, _s, vh = np.linalg.svd(x)
    np.testing.assert_allclose(
        fg.grad(lambda m: fla.norm(m, ord=2))(x), np.outer(u[:, 0], vh[0]), rtol=1e-10
    )
    np.testing.assert_allclose(fg.grad(lambda m: fla.norm(m, ord="nuc"))(x), u @ vh, rtol=1e-10)


# ----------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "fun, args, words",
    [
        (fnp.matmul, (np.ones((2, 3)), np.ones((4, 5))), ["matmul", "(2, 3)", "(4, 5)"]),
        (
            lambda x, y: fg.var(x) @ y,
            (np.ones((2, 3)), np.ones((4, 5))),
            ["matmul", "(2, 3)", "(4, 5)"],
        ),
        (fnp.dot, (np.ones((2, 3)), np.ones((4, 5))), ["dot", "(2, 3)", "(4, 5)"]),
        (fnp.inner, (np.ones((2, 3)), np.ones((4,))), ["inner", "(2, 3)", "(4,)"]),
        (fnp.vdot, (np.ones(3), np.ones(4)), ["vdot", "(3,)", "(4,)"]),
        (
            lambda x, y: fnp.einsum("ij,jk->ik", x, y),
            (np.ones((2, 3)), np.ones((4, 5))),
            ["einsum", "(2, 3)", "(4, 5)"],
        ),
        (
            lambda x, y: fnp.tensordot(x, y, axes=([0], [0])),
            (np.ones((2, 3)), np.ones((4, 5))),
            ["tensordot", "(2, 3)", "(4, 5)"],
        ),
        (
            lambda x, y: fnp.tensordot(x, y, axes=([0, 1], [0])),
            (np.ones((2, 3)), np.ones((4, 5))),
            ["tensordot", "same length"],
        ),
        (fla.solve, (np.eye(3), np.ones(4)), ["solve", "(3, 3)", "(4,)"]),
        (fla.solve, (np.ones((2, 3)), np.ones(3)), ["solve", "square", "(2, 3)"]),
        (fla.inv, (np.ones((2, 3)),), ["inv", "square", "(2, 3)"]),
        (fla.det, (np.ones(3),), ["det", "square", "(3,)"]),
        (fla.cholesky, (np.ones((2, 3)),), ["cholesky", "square"]),
        (fla.eigh, (np.ones((2, 3)),), ["eigh", "square"]),
        (fnp.diag, (np.ones((2, 2, 2)),), ["diag", "(2, 2, 2)"]),
    ],
)
def test_shape_errors_name_the_op_and_the_shapes(fun, args, words):
    with pytest.raises(ValueError) as info:
        fun(*args)
    assert isinstance(info.value, fg.core.errors.ShapeError)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_linalg_shape_errors_are_also_numpys_linalg_errors():
    with pytest.raises(np.linalg.LinAlgError):
        fla.inv(np.ones((2, 3)))


def test_other_functions_and_forms_are_refused_clearly():
    # every numpy.linalg name is funcgrad's now (but numpy.linalg.linalg, NumPy 2.2's
    # deprecated alias of its private module); NumPy's others without a rule are refused
    public = [n for n in dir(np.linalg) if not n.startswith("_") and n not in ("test", "linalg")]
    assert not [n for n in public if not hasattr(fla, n)]
    with pytest.raises(fg.core.errors.NoRuleError, match=r"numpy.putmask"):
        fnp.putmask  # noqa: B018 (the lookup itself must raise)
    with pytest.raises(ValueError, match="einsum: a sublist holds axis numbers"):
        fnp.einsum(np.ones(2), [60], np.ones(2), [60])
    with pytest.raises(TypeError, match="out="):
        fnp.dot(np.ones(2), np.ones(2), out=np.empty(()))


@pytest.mark.parametrize(
    "f, tf",
    [
        (
            lambda m: fnp.sum(fnp.linalg.cholesky(m) ** 2 * np.arange(1.0, 10.0).reshape(3, 3)),
            lambda t, m: (
                t.linalg.cholesky(m) ** 2 * t.arange(1.0, 10.0, dtype=t.float64).reshape(3, 3)
            ).sum(),
        ),
        (
            lambda m: fnp.sum(fnp.linalg.eigvalsh(m) ** 3),
            lambda t, m: (t.linalg.eigvalsh(m) ** 3).sum(),
        ),
    ],
    ids=["cholesky", "eigvalsh"],
)
def test_the_symmetrised_gradient_is_the_ecosystems(f, tf):
    # docs/numpy.md: funcgrad's gradient lies in the triangle read; its average with its
    # transpose is JAX's, PyTorch's and autograd's gradient of a symmetric input
    torch = needs_torch()
    r = np.random.default_rng(3).normal(size=(3, 3))
    a = r @ r.T + 3.0 * np.eye(3)
    g = fg.grad(f)(a)
    assert np.all(np.triu(g, 1) == 0.0)
    t = torch.tensor(a, requires_grad=True)
    tf(torch, t).backward()
    np.testing.assert_allclose(0.5 * (g + g.T), t.grad.numpy(), rtol=1e-10, atol=1e-12)
