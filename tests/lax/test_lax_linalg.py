"""lax.linalg and scipy.linalg's lu, lu_factor, lu_solve and schur: SciPy's and JAX's values
and orders, derivatives against central differences and JAX in float64, jit and vmap."""

import numpy as np
import pytest
import scipy.linalg as sl

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.lax import linalg
from funcgrad.scipy import linalg as fsl
from tests.helpers import central

RNG = np.random.default_rng(11)
A = RNG.normal(size=(4, 4))
SPD = A @ A.T + 4 * np.eye(4)
B = RNG.normal(size=(4, 2))
STACK = RNG.normal(size=(3, 4, 4))


def test_scipys_lu_forms_and_their_derivative():
    for kw in ({}, {"permute_l": True}, {"p_indices": True}):
        for ours, theirs in zip(fsl.lu(A, **kw), sl.lu(A, **kw)):
            np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-14)
    loss = lambda m: fnp.sum(fnp.sin(fsl.lu(m)[1]) + fsl.lu(m)[2] ** 2)
    plain = lambda m: float(np.sum(np.sin(sl.lu(m)[1]) + sl.lu(m)[2] ** 2))
    np.testing.assert_allclose(fg.grad(loss)(A), central(plain, A), rtol=1e-6, atol=1e-7)
    fg.check_grads(lambda m: fsl.lu(m)[2], (A,), order=2, modes=("fwd", "rev"))


def test_lu_factor_and_lu_solve_with_their_derivatives():
    lu, piv = fsl.lu_factor(A)
    ref = sl.lu_factor(A)
    np.testing.assert_allclose(lu, ref[0], rtol=1e-13)
    assert np.array_equal(piv, ref[1]) and piv.dtype == ref[1].dtype
    for trans in (0, 1, 2):
        np.testing.assert_allclose(
            fsl.lu_solve((lu, piv), B, trans=trans), sl.lu_solve(ref, B, trans=trans), rtol=1e-12
        )
    solve = lambda m, b: fnp.sum(fsl.lu_solve(fsl.lu_factor(m), b) ** 2)
    ga, gb = fg.grad(solve, argnums=(0, 1))(A, B)
    np.testing.assert_allclose(
        ga, central(lambda m: np.sum(np.linalg.solve(m, B) ** 2), A), rtol=1e-6, atol=1e-7
    )
    np.testing.assert_allclose(
        gb, central(lambda b: np.sum(np.linalg.solve(A, b) ** 2), B), rtol=1e-6, atol=1e-7
    )


def test_lu_under_jit_and_vmap():
    jitted = fg.jit(lambda m, b: fsl.lu_solve(fsl.lu_factor(m), b))(A, B)
    np.testing.assert_allclose(jitted, np.linalg.solve(A, B), rtol=1e-12)
    np.testing.assert_allclose(fg.jit(lambda m: fsl.lu(m)[0])(A), sl.lu(A)[0])
    batched = fg.vmap(lambda m: linalg.lu(m)[0])(STACK)
    np.testing.assert_allclose(batched, [sl.lu_factor(m)[0] for m in STACK], rtol=1e-13)
    perms = fg.vmap(lambda m: linalg.lu(m)[2])(STACK)
    for m, perm, packed in zip(STACK, perms, batched):
        np.testing.assert_allclose(
            m[perm], (np.tril(packed, -1) + np.eye(4)) @ np.triu(packed), rtol=1e-12
        )
    grads = fg.vmap(fg.grad(lambda m: fnp.sum(linalg.lu(m)[0] ** 2)))(STACK)
    looped = [fg.grad(lambda m: fnp.sum(linalg.lu(m)[0] ** 2))(m) for m in STACK]
    np.testing.assert_allclose(grads, looped, rtol=1e-12)


def test_schur_values_and_no_derivative():
    for output in ("real", "complex"):
        for ours, theirs in zip(fsl.schur(A, output=output), sl.schur(A, output=output)):
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    with pytest.raises(fg.errors.MissingRuleError, match="schur"):
        fg.grad(lambda m: fnp.sum(fsl.schur(m)[0]))(A)


def test_lax_linalg_decompositions_against_numpy():
    v, w = linalg.eigh(SPD)
    np.testing.assert_allclose(v @ np.diag(w) @ v.T, SPD, rtol=1e-12)
    np.testing.assert_allclose(linalg.cholesky(SPD), np.linalg.cholesky(SPD), rtol=1e-13)
    q, r = linalg.qr(A[:, :3])
    assert q.shape == (4, 4) and r.shape == (4, 3)
    np.testing.assert_allclose(q @ r, A[:, :3], atol=1e-13)
    u, s, vh = linalg.svd(A, full_matrices=False)
    np.testing.assert_allclose((u * s) @ vh, A, atol=1e-13)
    packed, pivots = sl.lu_factor(A)
    perm = linalg.lu_pivots_to_permutation(pivots, 4)
    np.testing.assert_allclose(
        A[perm], (np.tril(packed, -1) + np.eye(4)) @ np.triu(packed), rtol=1e-12
    )


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", [True, False])
def test_triangular_solve_solves_and_differentiates(left_side, lower, transpose_a):
    a = np.tril(A) + 3 * np.eye(4) if lower else np.triu(A) + 3 * np.eye(4)
    b = B if left_side else B.T
    x = linalg.triangular_solve(a, b, left_side=left_side, lower=lower, transpose_a=transpose_a)
    op = a.T if transpose_a else a
    np.testing.assert_allclose(op @ x if left_side else x @ op, b, atol=1e-12)
    f = lambda m: fnp.sum(
        linalg.triangular_solve(m, b, left_side=left_side, lower=lower, transpose_a=transpose_a)
        ** 2
    )
    fg.check_grads(f, (a,), order=1, modes=("rev", "fwd"))


def test_tridiagonal_solve_and_its_derivative():
    d, dl, du = 4.0 + RNG.uniform(size=5), RNG.normal(size=5), RNG.normal(size=5)
    dl[0], du[-1] = 0.0, 0.0
    b = RNG.normal(size=(5, 2))
    dense = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
    np.testing.assert_allclose(
        linalg.tridiagonal_solve(dl, d, du, b), np.linalg.solve(dense, b), rtol=1e-12
    )
    fg.check_grads(
        lambda *xs: linalg.tridiagonal_solve(*xs), (dl, d, du, b), order=1, modes=("rev",)
    )
    np.testing.assert_allclose(
        fg.vmap(lambda bb: linalg.tridiagonal_solve(dl, d, du, bb))(np.stack([b, 2 * b])),
        np.stack([np.linalg.solve(dense, b), np.linalg.solve(dense, 2 * b)]),
        rtol=1e-12,
    )


def test_jaxs_values_orders_and_gradients():
    jax = pytest.importorskip("jax", reason="JAX is the reference (the jax extra)")
    jax.config.update("jax_enable_x64", True)
    jl = jax.lax.linalg
    ja = jax.numpy.asarray(A)
    packed, pivots, perm = linalg.lu(A)
    jpacked, jpivots, jperm = jl.lu(ja)
    np.testing.assert_allclose(packed, np.asarray(jpacked), rtol=1e-13)
    assert np.array_equal(pivots, np.asarray(jpivots)) and np.array_equal(perm, np.asarray(jperm))
    cases = [
        (lambda m: fnp.sum(linalg.lu(m)[0] ** 3), lambda m: jax.numpy.sum(jl.lu(m)[0] ** 3), A),
        (lambda m: linalg.cholesky(m)[2, 1], lambda m: jl.cholesky(m)[2, 1], SPD),
        (
            lambda m: fnp.sum(linalg.eigh(m)[1] ** 2),
            lambda m: jax.numpy.sum(jl.eigh(m)[1] ** 2),
            SPD,
        ),
        (
            lambda m: fnp.sum(linalg.triangular_solve(m, B, left_side=True, lower=True)),
            lambda m: jax.numpy.sum(
                jl.triangular_solve(m, jax.numpy.asarray(B), left_side=True, lower=True)
            ),
            np.tril(A) + 3 * np.eye(4),
        ),
    ]
    for ours, theirs, x in cases:
        np.testing.assert_allclose(ours(x), float(theirs(jax.numpy.asarray(x))), rtol=1e-12)
        np.testing.assert_allclose(
            fg.grad(ours)(x),
            np.asarray(jax.grad(theirs)(jax.numpy.asarray(x))),
            rtol=1e-10,
            atol=1e-12,
        )


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (2, 4, 3)])
def test_lu_of_rectangular_matrices(shape):
    a = RNG.normal(size=shape)
    p, lower, upper = fsl.lu(a)
    np.testing.assert_allclose(p @ lower @ upper, a, atol=1e-13)
    for ours, theirs in zip((p, lower, upper), sl.lu(a)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(
        fsl.lu_factor(a)[0],
        sl.lu_factor(a)[0] if a.ndim == 2 else [sl.lu_factor(m)[0] for m in a],
        rtol=1e-13,
    )
    w = RNG.normal(size=upper.shape)
    loss = lambda m: fnp.sum(fsl.lu(m)[2] * w) + fnp.sum(fnp.sin(fsl.lu(m)[1]))
    plain = lambda m: float(np.sum(sl.lu(m)[2] * w) + np.sum(np.sin(sl.lu(m)[1])))
    np.testing.assert_allclose(fg.grad(loss)(a), central(plain, a), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(a), fg.grad(loss)(a), rtol=1e-12)
    fg.check_grads(lambda m: linalg.lu(m)[0], (a,), order=2, modes=("fwd", "rev"))
    if a.ndim == 3:
        np.testing.assert_allclose(
            fg.vmap(lambda m: linalg.lu(m)[0])(a), [linalg.lu(m)[0] for m in a], rtol=1e-13
        )


def test_pivoted_qr_and_subsets():
    a = RNG.normal(size=(5, 3)) * np.array([1.0, 10.0, 3.0])
    for mode in ("full", "economic"):
        for ours, theirs in zip(
            fsl.qr(a, mode=mode, pivoting=True), sl.qr(a, mode=mode, pivoting=True)
        ):
            np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)
    q, r, p = linalg.qr(a, pivoting=True, full_matrices=False)
    assert p.dtype == np.int32 and list(p) == [1, 2, 0]
    np.testing.assert_allclose(q @ r, a[:, p], atol=1e-13)
    # the permutation is piecewise constant: the derivative is the QR's of the permuted columns
    loss = lambda m: fnp.sum(fnp.sin(linalg.qr(m, pivoting=True, full_matrices=False)[1]))
    plain = lambda m: float(np.sum(np.sin(sl.qr(m, mode="economic", pivoting=True)[1])))
    np.testing.assert_allclose(fg.grad(loss)(a), central(plain, a), rtol=1e-6, atol=1e-6)
    stack = np.stack([a, a[:, ::-1]])
    np.testing.assert_allclose(fg.vmap(loss)(stack), [loss(m) for m in stack], rtol=1e-13)
    np.testing.assert_allclose(fg.jit(loss)(a), loss(a), rtol=1e-13)
    # subset_by_index keeps the values by their place in the sorted order (JAX's CPU has none)
    v, w = linalg.eigh(SPD, subset_by_index=(1, 3))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(SPD)[1:3], rtol=1e-13)
    np.testing.assert_allclose(SPD @ v, v * w, atol=1e-12)
    u, s, vh = linalg.svd(A, full_matrices=False, subset_by_index=(0, 2))
    np.testing.assert_allclose(s, np.linalg.svd(A, compute_uv=False)[:2], rtol=1e-13)
    np.testing.assert_allclose(A @ vh.T, u * s, atol=1e-12)
    with pytest.raises(fg.errors.ArgumentError, match="subset_by_index must be"):
        linalg.eigh(SPD, subset_by_index=(3, 9))
    with pytest.raises(fg.errors.ArgumentError, match="full_matrices and subset_by_index"):
        linalg.svd(A, subset_by_index=(0, 2))


def test_jaxs_rectangular_lu_and_pivoted_qr():
    jax = pytest.importorskip("jax", reason="JAX is the reference (the jax extra)")
    jax.config.update("jax_enable_x64", True)
    jl = jax.lax.linalg
    for shape in ((3, 5), (5, 3)):
        a = RNG.normal(size=shape)
        for ours, theirs in zip(linalg.lu(a), jl.lu(jax.numpy.asarray(a))):
            np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-13, atol=1e-14)
        w = RNG.normal(size=shape)
        g = fg.grad(lambda m: fnp.sum(linalg.lu(m)[0] * w))(a)
        gj = jax.grad(lambda m: jax.numpy.sum(jl.lu(m)[0] * w))(jax.numpy.asarray(a))
        np.testing.assert_allclose(g, np.asarray(gj), rtol=1e-10, atol=1e-12)
    a = RNG.normal(size=(5, 3))
    for ours, theirs in zip(
        linalg.qr(a, pivoting=True), jl.qr(jax.numpy.asarray(a), pivoting=True)
    ):
        np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-12, atol=1e-13)
