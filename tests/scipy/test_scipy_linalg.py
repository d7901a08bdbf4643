"""funcgrad.scipy.linalg: SciPy's values (on plain and traced arguments) and derivatives
to second order in both modes, against finite differences and PyTorch."""

import numpy as np
import pytest
import scipy.linalg

import funcgrad as fg
import funcgrad.scipy.linalg as fsl
from tests.helpers import requires_torch, torch
from tests.opinfo.scipy_linalg import (  # the rows: tests/opinfo
    AB,
    CASES,
    SPD,
    B,
    M,
    R,
)
from tests.scipy.test_linalg_breadth import NAMED


def test_every_function_has_a_case():
    # schur has no derivative: its values and its refusal are in tests/lax/test_lax_linalg.py;
    # the constant matrices and structure tests (NAMED) in tests/scipy/test_linalg_breadth.py
    cases = {name.split(":")[0] for name in CASES} | NAMED
    assert set(fsl.__all__) - {"cho_factor", "schur"} == cases


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
