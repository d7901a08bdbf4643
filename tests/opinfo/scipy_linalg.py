"""funcgrad.scipy.linalg: one case per function (its call, arguments, and whether its
values are SciPy's bits). tests/scipy/test_scipy_linalg.py tests every case in depth; the
registry (tests/opinfo/__init__.py) makes each an OpInfo for the conformance matrix.
"""

import numpy as np

R = np.random.default_rng(0)
M = R.standard_normal((3, 3)) + 3.0 * np.eye(3)
B = R.standard_normal((3, 2))
SPD = M @ M.T + np.eye(3)
AB = np.array([[0.0, 1.0, 0.5], [3.0, 2.5, 2.0], [0.7, 0.3, 0.0]])  # (1, 1)-banded


def _sym(a):
    return 0.5 * (a + a.T)


# name: (call with a module m, arguments, values exactly SciPy's)
CASES = {
    "solve_triangular:lower": (lambda m, a, b: m.solve_triangular(a, b, lower=True), (M, B), True),
    "solve_triangular:upper_T": (
        lambda m, a, b: m.solve_triangular(a, b, trans="T"),
        (M, B[:, 0]),
        True,
    ),
    "solve_triangular:unit_C": (
        lambda m, a, b: m.solve_triangular(a, b, trans=2, unit_diagonal=True),
        (M, B),
        True,
    ),
    "cholesky": (lambda m, a: m.cholesky(_sym(a)), (SPD,), False),
    "cholesky:lower": (lambda m, a: m.cholesky(_sym(a), lower=True), (SPD,), False),
    "cho_solve": (lambda m, a, b: m.cho_solve(m.cho_factor(_sym(a)), b), (SPD, B), False),
    "cho_solve:lower": (
        lambda m, a, b: m.cho_solve(m.cho_factor(_sym(a), lower=True), b),
        (SPD, B),
        False,
    ),
    "solve_banded": (lambda m, ab, b: m.solve_banded((1, 1), ab, b), (AB, B), False),
    "solve": (lambda m, a, b: m.solve(a, b), (M, B), True),
    "inv": (lambda m, a: m.inv(a), (M,), False),
    "det": (lambda m, a: m.det(a), (M,), False),
    "solve_sylvester": (lambda m, a, b, q: m.solve_sylvester(a, b, q), (M, SPD, B @ B.T), True),
    "sqrtm": (lambda m, a: m.sqrtm(_sym(a)), (SPD,), True),
    "expm": (lambda m, a: m.expm(a * 0.3), (M,), True),
    "eigh": (lambda m, a: m.eigh(_sym(a), eigvals_only=True), (SPD,), False),
    "eigh:vectors": (lambda m, a: abs(m.eigh(_sym(a))[1][:, 0]), (SPD,), False),
    "svd": (lambda m, a: m.svd(a, compute_uv=False), (B,), False),
    "qr": (lambda m, a: abs(m.qr(a, mode="r")[0]), (B.T,), False),
    "qr:economic": (lambda m, a: abs(m.qr(a, mode="economic")[1]), (B,), False),
    "polar": (lambda m, a: m.polar(a)[1], (M,), False),
    "polar:left": (lambda m, a: m.polar(a, side="left")[0], (M,), False),
    "expm_frechet": (
        lambda m, a, e: m.expm_frechet(a * 0.3, e, compute_expm=False),
        (M, SPD),
        False,
    ),
    "block_diag": (lambda m, a, b: m.block_diag(a, b, b[:, 0]), (M, B), True),
    "toeplitz": (lambda m, c, r: m.toeplitz(c, r), (B[:, 0], M[0]), True),
    "hankel": (lambda m, c, r: m.hankel(c, r), (B[:, 0], M[:, 1]), True),
    "circulant": (lambda m, c: m.circulant(c), (M[0],), True),
    "lu": (lambda m, a: m.lu(a)[2], (M,), False),
    "lu:permute_l": (lambda m, a: m.lu(a, permute_l=True)[0], (M,), False),
    "lu_factor": (lambda m, a: m.lu_factor(a)[0], (M,), True),
    "lu_solve": (lambda m, a, b: m.lu_solve(m.lu_factor(a), b), (M, B), False),
    "lu_solve:trans": (lambda m, a, b: m.lu_solve(m.lu_factor(a), b, trans=1), (M, B), False),
    # the structured matrices, eigenvalues and norms, matrix functions (scipy/_structured.py,
    # _decomposed.py, _matrix_functions.py); tests/scipy/test_linalg_breadth.py has more
    "companion": (lambda m, a: m.companion(a), (M[0],), False),
    "leslie": (lambda m, f, s: m.leslie(f, s), (M[0], B[:2, 0]), True),
    "fiedler": (lambda m, a: m.fiedler(a), (M[0],), False),
    "convolution_matrix": (lambda m, a: m.convolution_matrix(a, 4, "same"), (M[0],), True),
    "khatri_rao": (lambda m, a, b: m.khatri_rao(a, b), (B, M[:, :2]), False),
    "diagsvd": (lambda m, s: m.diagsvd(s, 3, 4), (M[0],), True),
    "matmul_toeplitz": (lambda m, c, x: m.matmul_toeplitz(c, x), (M[0], B), False),
    "solve_toeplitz": (lambda m, c, b: m.solve_toeplitz(c, b), (SPD[0], B), False),
    "solve_circulant": (lambda m, c, b: m.solve_circulant(c, b), (SPD[0], B), False),
    "eig": (lambda m, a: m.eig(_sym(a))[0].real, (SPD,), False),
    "eigvals": (lambda m, a: m.eigvals(_sym(a)).real, (SPD,), False),
    "eigvalsh": (lambda m, a: m.eigvalsh(_sym(a)), (SPD,), False),
    "svdvals": (lambda m, a: m.svdvals(a), (B,), False),
    "norm": (lambda m, a: m.norm(a), (M,), False),
    "pinv": (lambda m, a: m.pinv(a), (B,), False),
    "lstsq": (lambda m, a, b: m.lstsq(a, b)[0], (M, B), False),
    "orthogonal_procrustes": (lambda m, a, b: m.orthogonal_procrustes(a, b)[0], (M, SPD), False),
    "sinm": (lambda m, a: m.sinm(a * 0.3), (M,), False),
    "cosm": (lambda m, a: m.cosm(a * 0.3), (M,), False),
    "tanm": (lambda m, a: m.tanm(a * 0.1), (M,), False),
    "sinhm": (lambda m, a: m.sinhm(a * 0.3), (M,), False),
    "coshm": (lambda m, a: m.coshm(a * 0.3), (M,), False),
    "tanhm": (lambda m, a: m.tanhm(a * 0.3), (M,), False),
    "solve_continuous_lyapunov": (
        lambda m, a, q: m.solve_continuous_lyapunov(-a, q),
        (SPD, M @ M.T),
        False,
    ),
    "solve_discrete_lyapunov": (
        lambda m, a, q: m.solve_discrete_lyapunov(a * 0.1, q),
        (M, SPD),
        False,
    ),
}
