"""Derivatives where they exist: det at singular matrices, eigenvalue losses at repeated
eigenvalues (they raised "Singular matrix" and gave NaN); and where none exists, an error
or a NaN, never a number (the Hessian of |x| at 0 came out as the identity)."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.helpers import assert_close, numeric_grad

SINGULAR = [
    np.array([[1.0, 2.0], [2.0, 4.0]]),
    np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),
    np.zeros((3, 3)),
    np.array([[[1.0, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 0.0]]]),
]  # a stack


@pytest.mark.parametrize("a", SINGULAR, ids=["rank1", "rank2", "zero", "stack"])
def test_det_has_its_cofactor_gradient_at_singular_matrices(a):
    got = fg.grad(lambda m: fnp.sum(fnp.linalg.det(m)))(a)
    want = numeric_grad(lambda m: np.sum(np.linalg.det(m)), [a], 0)  # det is a polynomial
    assert_close(got, want, rtol=1e-6, atol=1e-8, what="d det")


def test_second_derivatives_at_a_singular_matrix_refuse_clearly():
    with pytest.raises(fg.MissingRuleError, match="det: second derivatives at a singular matrix"):
        fg.hessian(fnp.linalg.det)(SINGULAR[0])


@pytest.mark.parametrize(
    "a", [np.eye(3), 2.0 * np.eye(3), np.diag([1.0, 1.0, 3.0])], ids=["I", "2I", "pair"]
)
def test_eigenvalue_losses_are_finite_at_repeated_eigenvalues(a):
    for loss, want in [
        (lambda w: fnp.sum(w), np.eye(3)),
        (lambda w: fnp.sum(w**2), 2.0 * np.diag(np.diag(a))),
    ]:
        got = fg.grad(lambda m: loss(fnp.linalg.eigh(m)[0]))(a)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_eigenvector_losses_still_need_distinct_eigenvalues():
    a = np.diag([1.0, 2.0, 4.0])
    got = fg.grad(lambda m: fnp.sum(fnp.linalg.eigh(m)[1][:, 0] ** 2))(a)
    assert np.all(np.isfinite(got))


def test_the_norm_at_zero_has_zero_derivatives_of_both_orders():
    # The subgradient 0, as for abs; its derivative is 0 too (x / |x| at 0 gave I).
    for ord in (None, 2, 3):
        f = lambda x: fnp.linalg.norm(x, ord)
        np.testing.assert_array_equal(fg.grad(f)(np.zeros(3)), np.zeros(3))
        np.testing.assert_array_equal(fg.hessian(f)(np.zeros(3)), np.zeros((3, 3)))
    np.testing.assert_array_equal(
        fg.hessian(fnp.linalg.norm)(np.zeros((2, 2))), np.zeros((2, 2, 2, 2))
    )


def test_norm_derivatives_away_from_zero_are_unchanged():
    x = np.array([0.3, -1.2, 2.0])
    for ord in (None, 3):
        f = lambda v: fnp.linalg.norm(v, ord)
        assert_close(
            fg.grad(f)(x),
            numeric_grad(lambda v: np.linalg.norm(v, ord), [x], 0),
            rtol=1e-6,
            atol=1e-9,
            what=f"d norm ord={ord}",
        )


def test_logabsdet_of_a_singular_matrix_has_no_derivative():
    for how in (fg.grad, fg.jacfwd):
        with pytest.raises(fg.NoDerivativeError, match=r"slogdet: log.det. of a singular matrix"):
            how(lambda m: fnp.linalg.slogdet(m)[1])(SINGULAR[0])


def _first_eigenvector_loss(m):
    return fnp.sum(fnp.linalg.eigh(m)[1][:, 0] ** 3)


@pytest.mark.parametrize(
    "a", [np.eye(2), 2.0 * np.eye(3), np.diag([1.0, 1.0, 3.0])], ids=["I", "2I", "pair"]
)
def test_an_eigenvector_of_a_repeated_eigenvalue_has_no_derivative(a):
    # Which eigenvectors eigh returns is arbitrary there (the loss jumps with the direction
    # a perturbation splits the eigenvalues): an error eagerly, NaN under jit and vmap.
    with pytest.raises(
        fg.NoDerivativeError, match="eigh: the loss uses an eigenvector of a repeated"
    ):
        fg.grad(_first_eigenvector_loss)(a)
    with np.errstate(invalid="ignore"):
        assert np.isnan(fg.jit(fg.grad(_first_eigenvector_loss))(a)).any()
        assert np.isnan(fg.vmap(fg.grad(_first_eigenvector_loss))(a[None])).any()


def test_an_eigenvector_of_a_distinct_eigenvalue_beside_a_repeated_one_is_differentiable():
    a = np.array([[1.0, 0.0, 0.1], [0.0, 1.0, 0.0], [0.1, 0.0, 3.0]])  # eigenvalues ~1, 1, ~3
    last = lambda m: fnp.sum(fnp.linalg.eigh(m)[1][:, 2] * np.array([1.0, 2.0, 3.0])) ** 2
    sym = lambda m: np.tril(m) + np.tril(m, -1).T  # eigh reads the lower triangle
    want = numeric_grad(
        lambda m: np.sum(np.linalg.eigh(sym(m))[1][:, 2] * [1.0, 2.0, 3.0]) ** 2, [a], 0
    )
    assert_close(fg.grad(last)(a), want, rtol=1e-6, atol=1e-8, what="d eigenvector")
    _, tangent = fg.jvp(last, (a,), (np.tril(np.ones((3, 3))),))
    assert np.isfinite(tangent)


def test_second_derivatives_of_eigenvalue_losses_away_from_repeats():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    f = lambda m: fnp.sum(fnp.linalg.eigh(m)[0] ** 3)  # a mask inside, traced: accepted
    h = fg.hessian(f)(a)
    for i, j in np.ndindex(2, 2):
        want = numeric_grad(lambda m: fg.grad(f)(m)[i, j], [a], 0)
        assert_close(h[i, j], want, rtol=1e-5, atol=1e-6, what=f"d2 eigenvalues [{i}, {j}]")


def test_xlogy_slope_in_y_is_infinite_at_zero_unless_x_is_zero():
    # d/dy x log y = x / y: the denominator was made safe wherever y = 0, so the slope at
    # y = 0 read x (a finite wrong number) instead of x / 0
    import funcgrad.scipy.special as special

    x = np.array([1.0, -2.0, 0.0, 3.0])
    y = np.array([0.0, 0.0, 0.0, 1.5])
    with np.errstate(divide="ignore", invalid="ignore"):  # the value's sum is -inf + inf
        for f, shift in ((special.xlogy, 0.0), (special.xlog1py, -1.0)):
            got = fg.grad(lambda v: fnp.sum(f(x, v)))(y + shift)
            np.testing.assert_array_equal(got, [np.inf, -np.inf, 0.0, 2.0])  # 0 where x = 0
            assert fg.grad(lambda v: f(1.0, v))(0.0 + shift) == np.inf  # Python floats
            jitted = fg.jit(fg.grad(lambda v: fnp.sum(f(x, v))))(y + shift)
            np.testing.assert_array_equal(jitted, [np.inf, -np.inf, 0.0, 2.0])


def test_higher_derivatives_at_a_removable_point_are_the_functions():
    # A slope written as a constant at its removable point (i1's 1/2 at 0, spence's -1 at
    # 1, si's 1 at 0, xlogy's 0 at x = 0) has no derivative there: the next orders came out
    # 0. The slope's Taylor series (or the quotient kept) there gives them.
    mpmath = pytest.importorskip("mpmath")
    import funcgrad.scipy.special as special
    from funcgrad.rules import special as rules_special

    def derivatives(f, x, n):
        out = []
        for _ in range(n):
            f = fg.grad(f)
            out.append(float(f(x)))
        return out

    cases = [
        (special.i1, 0.0, lambda t: mpmath.besseli(1, t)),
        (special.spence, 1.0, lambda t: mpmath.polylog(2, 1 - t)),
        (rules_special.si, 0.0, mpmath.si),
        (lambda x: special.xlogy(x, 2.0 + x * x), 0.0, lambda t: t * mpmath.log(2 + t * t)),
    ]
    for f, x, reference in cases:
        want = [float(mpmath.diff(reference, x, k)) for k in range(1, 5)]
        np.testing.assert_allclose(derivatives(f, x, 4), want, rtol=1e-12, atol=1e-12)
        jitted = fg.jit(fg.grad(fg.grad(fg.grad(f))))(x)
        np.testing.assert_allclose(jitted, want[2], rtol=1e-12, atol=1e-12)
