"""funcgrad.scipy.linalg: SciPy's values (on plain and traced arguments) and derivatives
to second order in both modes, against finite differences and PyTorch."""

import numpy as np
import pytest
import scipy.linalg

import funcgrad as fg
import funcgrad.scipy.linalg as fsl
from tests.helpers import requires_torch, torch

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
}


def test_every_function_has_a_case():
    # schur has no derivative: its values and its refusal are in tests/lax/test_lax_linalg.py
    assert set(fsl.__all__) - {"cho_factor", "schur"} == {name.split(":")[0] for name in CASES}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_are_scipys(name):
    call, args, exact = CASES[name]
    want = call(scipy.linalg, *args)
    np.testing.assert_array_equal(call(fsl, *args), want)
    got = fg.vjp(lambda *xs: call(fsl, *xs), *args)[0]
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_order_both_modes(name):
    call, args, _ = CASES[name]
    fg.check_grads(lambda *xs: call(fsl, *xs), args, order=2, modes=("fwd", "rev"))


def test_triangular_functions_read_one_triangle():
    g = fg.grad(lambda a: fsl.solve_triangular(a, B, lower=True).sum())(M)
    assert not np.any(np.triu(g, 1))
    g = fg.grad(lambda a: fsl.cholesky(a).sum())(SPD)
    assert not np.any(np.tril(g, -1))


@requires_torch
def test_expm_and_solve_triangular_match_torch():
    w = R.standard_normal((3, 3))
    ta = torch.tensor(M * 0.3, requires_grad=True)
    (torch.linalg.matrix_exp(ta) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(
        fg.grad(lambda a: (fsl.expm(a) * w).sum())(M * 0.3), ta.grad.numpy(), rtol=1e-9
    )
    ta, tb = torch.tensor(M, requires_grad=True), torch.tensor(B, requires_grad=True)
    (torch.linalg.solve_triangular(ta, tb, upper=True) * torch.tensor(w[:, :2])).sum().backward()
    ga, gb = fg.grad(lambda a, b: (fsl.solve_triangular(a, b) * w[:, :2]).sum(), argnums=(0, 1))(
        M, B
    )
    np.testing.assert_allclose(ga, ta.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(gb, tb.grad.numpy(), rtol=1e-10)


def test_complex_triangular_solve():
    a = np.triu(M + 1j * R.standard_normal((3, 3)))
    b = B + 1j
    for trans in (0, 1, 2):
        got = fg.vjp(lambda a: fsl.solve_triangular(a, b, trans=trans), a)[0]
        np.testing.assert_allclose(
            got, scipy.linalg.solve_triangular(a, b, trans=trans), rtol=1e-12
        )
        fg.check_grads(
            lambda a: fsl.solve_triangular(a, b, trans=trans), (a,), order=1, modes=("rev",)
        )


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="solve_triangular: trans must be"):
        fsl.solve_triangular(fg.var(M), B, trans="X")
    with pytest.raises(ValueError, match="solve_banded: ab must have"):
        fsl.solve_banded((2, 1), fg.var(AB), B)


def test_solve_triangular_of_float16_under_a_transform_is_scipys_float32_solve():
    """SciPy casts a float16 system to float32 for LAPACK, and from 1.18 warns that it will
    stop. A plain call is SciPy's own (its warning too); under a transform, and inside the
    rules that solve triangular systems (LU's tangent of a float16 matrix), funcgrad casts
    first: the same values and dtype from every SciPy, and no warning (the suite turns
    warnings into errors)."""
    a = np.array([[2.0, 0.0], [1.0, 4.0]], np.float16)
    b = np.array([1.0, 3.0], np.float16)
    value, tangent = fg.jvp(lambda b: fsl.solve_triangular(a, b, lower=True), (b,), (b,))
    want = scipy.linalg.solve_triangular(a.astype(np.float32), b.astype(np.float32), lower=True)
    assert value.dtype == np.float32
    np.testing.assert_array_equal(value, want)
    np.testing.assert_array_equal(tangent, want)  # linear in b
