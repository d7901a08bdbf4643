"""funcgrad.numpy's linear algebra and products: cases for every name.

A case is a function of arrays written with funcgrad's names, NumPy's reference, the
arguments, and PyTorch's twin where it has one (with whether it batches and whether the
input is read as symmetric). tests/numpy/test_numpy_linalg.py tests every case in depth;
the registry (tests/opinfo/__init__.py) makes the first two of each an OpInfo for the
conformance matrix.
"""

import numpy as np
import pytest

import funcgrad.numpy as fnp
import funcgrad.numpy.linalg as fla
from funcgrad.numpy import _products
from tests.helpers import torch

rng = np.random.default_rng(42)  # the cases' arrays, drawn in order, then the tests'


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
