"""The rest of scipy.linalg that programs reach for: the structured matrices
(funcgrad/scipy/_structured.py), what is read off a decomposition (_decomposed.py) and the
functions of a matrix (_matrix_functions.py). Each against SciPy itself on plain arrays, on
traced ones (jit, vmap against a loop) and with derivatives against central differences."""

import numpy as np
import pytest
import scipy.linalg as sl

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.linalg as fsl

RNG = np.random.default_rng(8)
A = RNG.normal(size=(3, 3)) * 0.4
SPD = A @ A.T + np.eye(3)
V = RNG.normal(size=3)

# name -> (function of the operands, operands); a real scalar of each is differentiated
CASES = {
    "companion": (lambda a: fsl.companion(a), (np.array([1.5, -3.0, 2.0, 0.5]),)),
    "companion:stack": (lambda a: fsl.companion(a), (RNG.normal(size=(2, 4)) + 2.0,)),
    "leslie": (lambda f, s: fsl.leslie(f, s), (V, np.array([0.6, 0.8]))),
    "fiedler": (lambda a: fsl.fiedler(a), (V,)),
    "convolution_matrix:full": (lambda a: fsl.convolution_matrix(a, 4, "full"), (V,)),
    "convolution_matrix:same": (lambda a: fsl.convolution_matrix(a, 5, "same"), (V,)),
    "convolution_matrix:valid": (lambda a: fsl.convolution_matrix(a, 2, "valid"), (V,)),
    "khatri_rao": (lambda a, b: fsl.khatri_rao(a, b), (A[:2], A)),
    "diagsvd": (lambda s: fsl.diagsvd(s, 3, 5), (V,)),
    "matmul_toeplitz": (lambda c, r, x: fsl.matmul_toeplitz((c, r), x), (V, V[::-1], A)),
    "solve_toeplitz": (lambda c, b: fsl.solve_toeplitz(c, b), (np.array([3.0, 0.5, 0.2]), V)),
    "solve_circulant": (lambda c, b: fsl.solve_circulant(c, b), (np.array([3.0, 0.5, 0.2]), V)),
    "eigvals": (lambda a: fnp.real(fsl.eigvals(a)), (SPD,)),
    "eigvalsh": (lambda a: fsl.eigvalsh(a), (SPD,)),
    "eigvalsh:upper": (lambda a: fsl.eigvalsh(a, lower=False), (SPD,)),
    "svdvals": (lambda a: fsl.svdvals(a), (A,)),
    "norm": (lambda a: fsl.norm(a), (A,)),
    "norm:2": (lambda a: fsl.norm(a, 2), (A,)),
    "pinv": (lambda a: fsl.pinv(a), (A[:2],)),
    "pinv:atol": (lambda a: fsl.pinv(a, atol=1e-3), (A[:2],)),
    "lstsq": (lambda a, b: fsl.lstsq(a, b)[0], (RNG.normal(size=(4, 2)), RNG.normal(size=4))),
    "orthogonal_procrustes": (lambda a, b: fsl.orthogonal_procrustes(a, b)[0], (A, SPD)),
    "sinm": (lambda a: fsl.sinm(a), (A,)),
    "cosm": (lambda a: fsl.cosm(a), (A,)),
    "tanm": (lambda a: fsl.tanm(a), (A,)),
    "sinhm": (lambda a: fsl.sinhm(a), (A,)),
    "coshm": (lambda a: fsl.coshm(a), (A,)),
    "tanhm": (lambda a: fsl.tanhm(a), (A,)),
    "solve_continuous_lyapunov": (
        lambda a, q: fsl.solve_continuous_lyapunov(a, q),
        (A - 2.0 * np.eye(3), SPD),
    ),
    "solve_discrete_lyapunov": (lambda a, q: fsl.solve_discrete_lyapunov(a, q), (A, SPD)),
}


# the functions tested by name below, outside the table
NAMED = {"eig", "hadamard", "hilbert", "invhilbert", "pascal", "invpascal", "helmert", "dft"}
NAMED |= {"issymmetric", "ishermitian", "bandwidth"}


def _scipy(name, *args):
    """SciPy's own answer for the case ``name`` on plain operands."""
    base = name.split(":")[0]
    if base == "matmul_toeplitz":
        return sl.matmul_toeplitz((args[0], args[1]), args[2])
    if base in ("eigvals",):
        return np.real(sl.eigvals(*args))
    if base in ("lstsq", "orthogonal_procrustes"):
        return getattr(sl, base)(*args)[0]
    options = {
        "convolution_matrix:full": (4, "full"),
        "convolution_matrix:same": (5, "same"),
        "convolution_matrix:valid": (2, "valid"),
        "diagsvd": (3, 5),
        "norm:2": (2,),
    }.get(name, ())
    kwargs = {"pinv:atol": {"atol": 1e-3}, "eigvalsh:upper": {"lower": False}}.get(name, {})
    return getattr(sl, base)(*args, *options, **kwargs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_are_scipys_plain_and_traced(name):
    f, args = CASES[name]
    want = _scipy(name, *args)
    np.testing.assert_allclose(f(*args), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fg.jit(f)(*args), want, rtol=1e-10, atol=1e-12)
    traced = fg.vjp(f, *args)[0]
    np.testing.assert_allclose(traced, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_derivatives_against_central_differences(name):
    f, args = CASES[name]
    weights = RNG.normal(size=np.shape(_scipy(name, *args)))
    loss = lambda *a: fnp.sum(fnp.real(f(*a)) * weights)
    grads = fg.grad(loss, argnums=tuple(range(len(args))))(*args)
    eps = 1e-6
    for k, (arg, grad) in enumerate(zip(args, grads)):
        fd = np.zeros_like(arg)
        for i in np.ndindex(arg.shape):
            step = np.zeros_like(arg)
            step[i] = eps
            up = [a + step if j == k else a for j, a in enumerate(args)]
            down = [a - step if j == k else a for j, a in enumerate(args)]
            fd[i] = (
                np.sum(np.real(_scipy(name, *up)) * weights)
                - np.sum(np.real(_scipy(name, *down)) * weights)
            ) / (2 * eps)
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6, err_msg=f"argument {k}")


@pytest.mark.parametrize("name", ["fiedler", "sinhm", "norm", "eigvalsh", "companion"])
def test_vmap_equals_a_loop(name):
    f, args = CASES[name]
    batch = np.stack([args[0], args[0] * 0.5 + 0.1])
    got = fg.vmap(lambda a: f(a, *args[1:]))(batch)
    np.testing.assert_allclose(got, np.stack([f(a, *args[1:]) for a in batch]), rtol=1e-12)


def test_eig_is_complex_as_scipys_and_its_vectors_hold():
    w, v = fsl.eig(fg.jit(lambda a: a)(SPD))
    sw, _ = sl.eig(SPD)
    assert w.dtype == sw.dtype == np.complex128
    np.testing.assert_allclose(np.sort(w.real), np.sort(sw.real), rtol=1e-12)
    np.testing.assert_allclose(SPD @ v, v * w, atol=1e-12)
    traced_w = fg.jit(lambda a: fsl.eig(a, right=False))(SPD)
    np.testing.assert_allclose(traced_w, sl.eig(SPD, right=False), rtol=1e-12)


def test_the_constant_matrices_and_structure_tests_are_scipys():
    for name in ("hadamard", "hilbert", "invhilbert", "pascal", "invpascal", "helmert", "dft"):
        np.testing.assert_array_equal(getattr(fsl, name)(4), getattr(sl, name)(4))
    assert fsl.issymmetric(SPD) and not fsl.issymmetric(A)
    assert fsl.ishermitian(np.array([[1.0, 1j], [-1j, 2.0]]))
    assert fsl.bandwidth(np.triu(A)) == sl.bandwidth(np.triu(A))
    pinv, rank = fsl.pinv(fg.jit(lambda a: a)(A[:2]), return_rank=True)
    np.testing.assert_allclose(pinv, sl.pinv(A[:2]), rtol=1e-12)
    assert rank == 2


def test_what_is_not_offered_on_traced_values_is_named():
    with pytest.raises(fg.ArgumentError, match="generalized"):
        fg.jit(lambda a: fsl.eigvals(a, np.eye(3)))(SPD)
    with pytest.raises(fg.ArgumentError, match="caxis"):
        fg.jit(lambda c: fsl.solve_circulant(c, V, baxis=-1))(V)
    with pytest.raises(fg.ArgumentError, match="two matrices"):
        fg.jit(fsl.khatri_rao)(A, V)


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_operands_give_scipys_type(name):
    f, args = CASES[name]
    args = tuple(a.astype(np.float32) for a in args)
    want = np.asarray(_scipy(name, *args)).dtype
    assert fg.jit(f)(*args).dtype == want  # (SciPy's Toeplitz routines compute in float64)
