"""lax.custom_root and lax.custom_linear_solve: the solver's answer, differentiated by the
implicit function theorem in what f (or matvec) closes over, under every transform;
checked against closed forms and central differences."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import lax
from tests.helpers import numeric_grad

A = np.array([[3.0, 1.0], [1.0, 2.0]])
B = np.array([[2.0, 0.5], [-0.3, 1.5]])
calls = []


def newton(f, x):
    calls.append(1)
    for _ in range(40):
        x = x - f(x) / fg.grad(f)(x)
    return x


def scalar_solve(g, y):
    return y / g(1.0)


def sqrt(a):
    return lax.custom_root(lambda x: x**2 - a, 1.0, newton, scalar_solve)


def dense(g, y):
    return fnp.linalg.solve(fg.jacobian(g)(y), y)


def vector_root(theta):
    def newton_n(f, x):
        for _ in range(30):
            x = x - dense(lambda v: fg.jvp(f, (x,), (v,))[1], f(x))
        return x

    return lax.custom_root(
        lambda x: fnp.tanh(A @ x) * theta[0] + x * theta[1] - theta, np.zeros(2), newton_n, dense
    )


def test_a_root_and_its_derivatives_in_a_closure():
    a = 2.0
    assert np.isclose(sqrt(a), np.sqrt(a))
    assert np.isclose(fg.grad(sqrt)(a), 0.5 / np.sqrt(a))
    assert np.isclose(fg.grad(fg.grad(sqrt))(a), -0.25 * a**-1.5)
    assert np.isclose(fg.jacfwd(sqrt)(a), 0.5 / np.sqrt(a))
    assert np.isclose(fg.jit(fg.grad(sqrt))(3.0), 0.5 / np.sqrt(3.0))
    xs = np.array([2.0, 5.0, 9.0])
    np.testing.assert_allclose(fg.vmap(fg.grad(sqrt))(xs), 0.5 / np.sqrt(xs))


def test_the_solver_runs_once_and_is_not_differentiated():
    calls.clear()
    fg.grad(sqrt)(2.0)
    assert len(calls) == 1


def test_a_vector_root_against_central_differences():
    theta = np.array([0.3, 1.7])

    def plain(t):  # the same root, found by NumPy alone
        x = np.zeros(2)
        for _ in range(50):
            jac = np.diag(1 - np.tanh(A @ x) ** 2) @ A * t[0] + np.eye(2) * t[1]
            x = x - np.linalg.solve(jac, np.tanh(A @ x) * t[0] + x * t[1] - t)
        return x

    np.testing.assert_allclose(vector_root(theta), plain(theta), rtol=1e-10)
    for k in range(2):
        np.testing.assert_allclose(
            fg.jacrev(vector_root)(theta)[k],
            numeric_grad(lambda t: plain(t)[k], (theta,), 0),
            rtol=1e-6,
        )
    loss = lambda t: fnp.sum(vector_root(t) ** 2)
    h = fg.hessian(loss)(theta)
    for k in range(2):
        want = numeric_grad(lambda t: fg.grad(loss)(t)[k], (theta,), 0)
        np.testing.assert_allclose(h[k], want, rtol=1e-5)


def test_has_aux_gives_the_aux_without_a_derivative():
    def solve(f, x):
        return newton(f, x), 40

    root, steps = lax.custom_root(lambda x: x**2 - 4.0, 1.0, solve, scalar_solve, has_aux=True)
    assert np.isclose(root, 2.0) and steps == 40
    g = fg.grad(
        lambda a: lax.custom_root(lambda x: x**2 - a, 1.0, solve, scalar_solve, has_aux=True)[0]
    )(4.0)
    assert np.isclose(g, 0.25)


def linear(s, b, symmetric):
    M = A if symmetric else B
    return lax.custom_linear_solve(
        lambda x: s * (M @ x) + x * s**2,
        b,
        dense_solve,
        transpose_solve=None if symmetric else dense_solve,
        symmetric=symmetric,
    )


def dense_solve(mv, b):
    return fnp.linalg.solve(fg.jacobian(mv)(b), b)


@pytest.mark.parametrize("symmetric", [True, False])
def test_a_linear_solve_in_b_and_in_the_matrix(symmetric):
    M = A if symmetric else B
    w = np.array([1.0, -2.0])

    def plain(s, b):
        return np.dot(np.linalg.solve(s * M + s**2 * np.eye(2), b), w)

    def loss(s, b):
        return fnp.dot(linear(s, b, symmetric), w)

    s, b = 2.0, np.array([1.0, 0.5])
    assert np.isclose(loss(s, b), plain(s, b))
    gs, gb = fg.grad(loss, argnums=(0, 1))(s, b)
    assert np.isclose(gs, numeric_grad(plain, (s, b), 0), rtol=1e-6)
    np.testing.assert_allclose(gb, numeric_grad(plain, (s, b), 1), rtol=1e-6)
    np.testing.assert_allclose(fg.jit(fg.grad(loss, argnums=1))(s, b), gb, rtol=1e-12)
    ss = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(
        fg.vmap(fg.grad(loss), in_axes=(0, None))(ss, b),
        [numeric_grad(plain, (float(v), b), 0) for v in ss],
        rtol=1e-6,
    )


def test_refusals():
    mv = lambda x: B @ x
    with pytest.raises(fg.MissingRuleError, match="pass transpose_solve="):
        fg.grad(lambda b: fnp.sum(lax.custom_linear_solve(mv, b, dense_solve)))(np.ones(2))
    with pytest.raises(fg.ArgumentError, match="a root needs f\\(x\\) of x's structure"):
        lax.custom_root(lambda x: (x, x), 1.0, newton, scalar_solve)
    with pytest.raises(fg.ArgumentError, match="solve must be a function"):
        lax.custom_root(lambda x: x, 1.0, None, scalar_solve)
