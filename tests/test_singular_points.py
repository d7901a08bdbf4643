"""Derivatives where they exist: det at singular matrices, eigenvalue losses at repeated
eigenvalues (they raised "Singular matrix" and gave NaN)."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

from helpers import assert_close, numeric_grad

SINGULAR = [np.array([[1.0, 2.0], [2.0, 4.0]]),
            np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),
            np.zeros((3, 3)),
            np.array([[[1.0, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 0.0]]])]   # a stack


@pytest.mark.parametrize("a", SINGULAR, ids=["rank1", "rank2", "zero", "stack"])
def test_det_has_its_cofactor_gradient_at_singular_matrices(a):
    got = fg.grad(lambda m: fnp.sum(fnp.linalg.det(m)))(a)
    want = numeric_grad(lambda m: np.sum(np.linalg.det(m)), [a], 0)   # det is a polynomial
    assert_close(got, want, rtol=1e-6, atol=1e-8, what="d det")


def test_second_derivatives_at_a_singular_matrix_refuse_clearly():
    with pytest.raises(fg.MissingRuleError, match="det: second derivatives at a singular matrix"):
        fg.hessian(fnp.linalg.det)(SINGULAR[0])


@pytest.mark.parametrize("a", [np.eye(3), 2.0 * np.eye(3), np.diag([1.0, 1.0, 3.0])],
                         ids=["I", "2I", "pair"])
def test_eigenvalue_losses_are_finite_at_repeated_eigenvalues(a):
    for loss, want in [(lambda w: fnp.sum(w), np.eye(3)),
                       (lambda w: fnp.sum(w ** 2), 2.0 * np.diag(np.diag(a)))]:
        got = fg.grad(lambda m: loss(fnp.linalg.eigh(m)[0]))(a)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_eigenvector_losses_still_need_distinct_eigenvalues():
    a = np.diag([1.0, 2.0, 4.0])
    got = fg.grad(lambda m: fnp.sum(fnp.linalg.eigh(m)[1][:, 0] ** 2))(a)
    assert np.all(np.isfinite(got))
