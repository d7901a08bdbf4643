"""Complex numbers through funcgrad.numpy, linalg and every transform.

The convention (docs/complex.md) is JAX's and autograd's: for a real-valued
f, grad f = df/dx - i df/dy; PyTorch's z.grad is its conjugate. check_grads
pairs cotangents and tangents by Re(sum(c * dz)), so it checks the rules of
complex functions against finite differences in both real directions.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.helpers import requires_torch, torch
from tests.opinfo.complex_inputs import (  # the rows: tests/opinfo
    BINARY,
    COMPLEX_OTHER,
    HOLOMORPHIC,
    REAL_VALUED,
    REDUCTIONS,
    C,
    W,
    Z,
    _cmat,
)


@pytest.mark.parametrize("name", HOLOMORPHIC + REAL_VALUED + COMPLEX_OTHER + REDUCTIONS)
def test_unary_values_and_derivatives(name):
    fun = getattr(fnp, name)
    np.testing.assert_array_equal(fun(Z), getattr(np, name)(Z))
    fg.check_grads(lambda z: fun(z) * C, (Z,), order=2)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("kinds", ["complex-complex", "complex-real", "real-complex"])
def test_binary_values_and_derivatives(name, kinds):
    x = Z if kinds.startswith("complex") else Z.real
    y = W if kinds.endswith("complex") else W.real
    fun = getattr(fnp, name)
    np.testing.assert_array_equal(fun(x, y), getattr(np, name)(x, y))
    fg.check_grads(fun, (x, y), order=2)


@pytest.mark.parametrize("holomorphic", HOLOMORPHIC[:12])
def test_holomorphic_grad_is_the_complex_derivative(holomorphic):
    fun = getattr(fnp, holomorphic)
    z = 0.4 + 0.3j
    h = 1e-6
    numeric = (fun(z + h) - fun(z - h)) / (2 * h)  # the same from every direction
    assert abs(fg.grad(fun, holomorphic=True)(z) - numeric) < 1e-8
    assert abs(fg.grad(lambda z: fnp.real(fun(z)))(z) - numeric) < 1e-8  # Cauchy-Riemann


def test_the_convention_on_the_worked_example():
    g = fg.grad(lambda z: fnp.abs(z) ** 2)(1.0 + 2.0j)
    assert g == 2.0 - 4.0j and isinstance(g, np.complex128)
    assert fg.grad(fnp.angle)(1.0 + 2.0j) == pytest.approx(-0.4 - 0.2j)
    assert fg.grad(fnp.abs)(3.0 + 4.0j) == pytest.approx(0.6 - 0.8j)


def test_gradients_keep_the_input_dtype():
    df = fg.grad(lambda x: fnp.sum(fnp.real(x)))
    assert np.isrealobj(df(2.0)) and np.iscomplexobj(df(1.0j))
    assert df(np.array([1.0j, 2.0])).dtype == np.complex128
    assert df(np.array([1.0j], dtype=np.complex64)).dtype == np.complex64


def test_real_inputs_through_complex_intermediates():
    """A real input receives the real part of its cotangent: the derivative along the
    only direction it can move, checked against finite differences."""

    def f(x):
        z = fnp.exp(1j * x) * (x + 2.0j)
        return fnp.sum(fnp.abs(z) ** 1.5 + fnp.angle(z * z))

    x = np.array([0.3, -1.2, 2.0])
    g = fg.grad(f)(x)
    assert g.dtype == np.float64
    h = 1e-6
    numeric = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(g, numeric, rtol=1e-6)
    fg.check_grads(f, (x,), order=2)


@pytest.mark.parametrize(
    "case",
    [
        "inv",
        "det",
        "solve",
        "slogdet",
        "pinv",
        "cholesky",
        "eigh-values",
        "eigh-vectors",
        "norm-vector",
        "norm-fro",
        "norm-1",
        "norm-inf",
    ],
)
def test_linalg_on_complex_matrices(case):
    a = _cmat(3, 3)
    h = a @ a.conj().T + 3 * np.eye(3)
    b = _cmat(3)
    fun, x = {
        "inv": (lambda a: fnp.linalg.inv(a), a),
        "det": (lambda a: fnp.linalg.det(a), a),
        "solve": (lambda a: fnp.linalg.solve(a, b), a),
        "slogdet": (lambda a: fnp.linalg.slogdet(a)[1] + fnp.linalg.slogdet(a)[0] * C, a),
        "pinv": (lambda a: fnp.linalg.pinv(a), a),
        "cholesky": (lambda a: fnp.linalg.cholesky(a), h),
        "eigh-values": (lambda a: fnp.linalg.eigh(a)[0], h),
        # eigenvectors are unique up to a phase: a loss of |v| does not depend on it
        "eigh-vectors": (lambda a: fnp.abs(fnp.linalg.eigh(a)[1]) ** 2, h),
        "norm-vector": (lambda z: fnp.linalg.norm(z[0], 3), a),
        "norm-fro": (lambda a: fnp.linalg.norm(a), a),
        "norm-1": (lambda a: fnp.linalg.norm(a, 1), a),
        "norm-inf": (lambda a: fnp.linalg.norm(a, np.inf), a),
    }[case]
    fg.check_grads(fun, (x,), order=2)


def test_eigh_of_a_hermitian_matrix_gives_real_eigenvalues():
    a = _cmat(3, 3)
    h = a @ a.conj().T
    w, v = fnp.linalg.eigh(h)
    ref_w, ref_v = np.linalg.eigh(h)
    assert w.dtype == np.float64
    np.testing.assert_array_equal(w, ref_w)
    np.testing.assert_array_equal(v, ref_v)


def test_holomorphic_jacobians_and_hessian():
    z = np.array([1.0 + 2.0j, 0.5 - 1.0j])
    f = lambda z: fnp.sin(z) * z[0]
    expected = np.diag(np.cos(z) * z[0])
    expected[:, 0] += np.sin(z)
    np.testing.assert_allclose(fg.jacrev(f, holomorphic=True)(z), expected, rtol=1e-12)
    np.testing.assert_allclose(fg.jacfwd(f, holomorphic=True)(z), expected, rtol=1e-12)
    hess = fg.hessian(lambda z: fnp.sum(z**3), holomorphic=True)(z)
    np.testing.assert_allclose(hess, np.diag(6 * z), rtol=1e-12)


def test_real_input_complex_output_jacfwd_and_real_output_complex_input_jacrev():
    x = np.array([0.5, 1.5])
    np.testing.assert_allclose(
        fg.jacfwd(lambda x: fnp.exp(1j * x))(x), np.diag(1j * np.exp(1j * x))
    )
    z = np.array([3.0 + 4.0j, 1.0j])
    np.testing.assert_allclose(fg.jacrev(fnp.abs)(z), np.diag(np.conj(z) / np.abs(z)))


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: fg.grad(lambda z: z * z)(1.0j), ["complex", "holomorphic=True", "fnp.real"]),
        (
            lambda: fg.grad(lambda z: z * z, holomorphic=True)(1.0),
            ["complex inputs", "astype(complex)"],
        ),
        (lambda: fg.grad(fnp.abs, holomorphic=True)(1.0j), ["needs a complex output"]),
        (lambda: fg.jacrev(lambda z: z * 2.0)(np.ones(2) * 1j), ["complex", "holomorphic=True"]),
        (lambda: fg.jacfwd(fnp.abs)(np.ones(2) * 1j), ["input is complex", "jacrev"]),
        (lambda: fg.jvp(fnp.sin, (1.0,), (1.0j,)), ["tangent 0 is complex", "primal is real"]),
    ],
)
def test_an_undefined_complex_derivative_is_refused(call, words):
    with pytest.raises(TypeError) as info:
        call()
    for w in words:
        assert w in str(info.value)


def test_vmap_and_jit_agree_with_eager():
    f = lambda z: fnp.sum(fnp.abs(fnp.exp(z) * fnp.conj(z)) ** 2)
    zs = _cmat(4, 3)
    np.testing.assert_allclose(fg.vmap(f)(zs), [f(z) for z in zs], rtol=1e-12)
    np.testing.assert_allclose(fg.vmap(fg.grad(f))(zs), [fg.grad(f)(z) for z in zs], rtol=1e-12)
    np.testing.assert_allclose(fg.jit(fg.grad(f))(zs[0]), fg.grad(f)(zs[0]), rtol=1e-12)
    np.testing.assert_allclose(fg.jit(fg.grad(f))(zs[1]), fg.grad(f)(zs[1]), rtol=1e-12)


def test_hand_built_expressions_take_complex_leaves():
    z = fg.var(1.0 + 2.0j, name="z")
    out = fnp.real(z * z)
    assert fg.backprop(out)[z] == pytest.approx(2.0 + 4.0j)  # d(x^2 - y^2) = 2x - i(-2y)


@pytest.mark.parametrize(
    "name", ["exp", "sin", "tanh", "sqrt", "log", "abs", "real", "imag", "conj", "angle", "sign"]
)
@requires_torch
def test_against_pytorch_which_returns_the_conjugate(name):
    ours = getattr(fnp, name)
    theirs = {"conj": lambda t: t.conj().resolve_conj(), "sign": torch.sgn}.get(
        name, getattr(torch, name, None)
    )

    def loss(f, real, z):
        out = f(z) * C
        return real(out).sum() if name not in REAL_VALUED else (f(z) ** 2).sum()

    z = Z
    g = fg.grad(lambda z: loss(ours, fnp.real, z))(z)
    t = torch.tensor(z, dtype=torch.complex128, requires_grad=True)
    loss(theirs, torch.real, t).backward()
    np.testing.assert_allclose(g, np.conj(t.grad.resolve_conj().numpy()), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    "case",
    [
        "svd-values",
        "svd-tall",
        "svd-wide",
        "qr-tall",
        "qr-wide",
        "eig-values",
        "eig-vectors",
        "lstsq",
        "lstsq-residuals",
        "matrix-power",
        "norm-2",
        "norm-nuc",
        "stack-svd",
    ],
)
def test_decompositions_of_complex_matrices(case):
    """Gauge-free functions (|U|, |V|, eigenvalues) of complex decompositions, checked to
    second order in both modes; values are NumPy's."""
    sq, tall, wide, stack = _cmat(3, 3), _cmat(4, 2), _cmat(2, 4), _cmat(2, 3, 2)
    b = _cmat(4)
    la = fnp.linalg

    def svd_loss(x):
        u, s, vh = la.svd(x, full_matrices=False)
        return fnp.abs(u) ** 2, s, fnp.abs(vh) ** 3

    fun, x = {
        "svd-values": (lambda x: la.svd(x, compute_uv=False), sq),
        "svd-tall": (svd_loss, tall),
        "svd-wide": (svd_loss, wide),
        "qr-tall": (lambda x: la.qr(x), tall),
        "qr-wide": (lambda x: la.qr(x), wide),
        "eig-values": (lambda x: la.eigvals(x), sq),
        "eig-vectors": (lambda x: fnp.abs(la.eig(x)[1]), sq),
        "lstsq": (lambda x: la.lstsq(x, b)[0], tall),
        "lstsq-residuals": (lambda x: la.lstsq(x, b)[1], tall),
        "matrix-power": (lambda x: la.matrix_power(x, 5), sq),
        "norm-2": (lambda x: la.norm(x, 2), sq),
        "norm-nuc": (lambda x: la.norm(x, "nuc"), tall),
        "stack-svd": (svd_loss, stack),
    }[case]
    fg.check_grads(fun, (x,), order=2)


def test_complex_decompositions_give_numpys_values():
    a = _cmat(4, 3)
    for ours, theirs in zip(fnp.linalg.svd(a), np.linalg.svd(a)):
        np.testing.assert_array_equal(ours, theirs)
    for ours, theirs in zip(fnp.linalg.qr(a), np.linalg.qr(a)):
        np.testing.assert_array_equal(ours, theirs)
    sq = _cmat(3, 3)
    for ours, theirs in zip(fnp.linalg.eig(sq), np.linalg.eig(sq)):
        np.testing.assert_array_equal(ours, theirs)
