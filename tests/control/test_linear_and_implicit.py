"""fg.linearize, fg.linear_transpose and fg.fixed_point against the transforms they stand for."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

RNG = np.random.default_rng(3)
A = RNG.normal(size=(3, 4))


def model(x, p):
    return {"a": fnp.tanh(A @ x) * p["s"], "b": fnp.sum(x**2) * fnp.exp(p["s"])}


X = RNG.normal(size=4)
P = {"s": 1.5}


def _close(a, b, rtol=1e-12):
    for u, v in zip(fg.tree_leaves(a), fg.tree_leaves(b)):
        np.testing.assert_allclose(u, v, rtol=rtol, atol=1e-14)


def test_linearize_is_jvp_without_running_f_again():
    calls = []

    def counted(x, p):
        calls.append(1)
        return model(x, p)

    out, f_jvp = fg.linearize(counted, X, P)
    _close(out, model(X, P))
    assert len(calls) == 1
    for _ in range(3):
        t = (RNG.normal(size=4), {"s": RNG.normal()})
        _close(f_jvp(*t), fg.jvp(model, (X, P), t)[1])
    assert len(calls) == 1  # the tangent map never calls f
    # It is linear: a sum of tangents maps to the sum of their images.
    t1, t2 = (np.ones(4), {"s": 0.5}), (np.arange(4.0), {"s": -1.0})
    t12 = (t1[0] + t2[0], {"s": 0.5 - 1.0})
    _close(f_jvp(*t12), fg.tree_map(lambda a, b: a + b, f_jvp(*t1), f_jvp(*t2)))


def test_vjp_is_linearize_then_transpose():
    _, f_jvp = fg.linearize(model, X, P)
    f_t = fg.linear_transpose(f_jvp, X, P)
    ct = {"a": RNG.normal(size=3), "b": 0.7}
    _, pull = fg.vjp(model, X, P)
    _close(f_t(ct), pull(ct))
    # The transposed graph holds only the backward steps: no tanh or exp to recompute.
    ops = [n.op for n in f_t.body.order]
    assert "tanh" not in ops and "exp" not in ops
    text = fg.show(f_t)
    assert text.startswith("transpose of linear map of model: 2 inputs, 2 outputs")


def test_linear_transpose_of_matrices_and_its_refusal():
    M = RNG.normal(size=(2, 5))
    t = fg.linear_transpose(lambda x: M @ x, np.zeros(5))
    y = RNG.normal(size=2)
    np.testing.assert_allclose(t(y)[0], M.T @ y)
    both = fg.linear_transpose(lambda x, y: 2.0 * x - fnp.sum(y), 1.0, np.zeros(3))
    assert [np.asarray(v).tolist() for v in both(1.0)] == [2.0, [-1.0, -1.0, -1.0]]
    with pytest.raises(
        TypeError, match="not linear in its inputs: sin is applied to a value that depends on them"
    ):
        fg.linear_transpose(fnp.sin, 1.0)
    with pytest.raises(TypeError, match="multiply is applied to values that depend on them"):
        fg.linear_transpose(lambda x: x * x, 1.0)


def test_linearize_under_outer_transforms_and_jit():
    inner = lambda s: fg.linearize(lambda x: fnp.sin(s * x), 0.3)[1](1.0)
    assert fg.grad(inner)(2.0) == pytest.approx(np.cos(0.6) - 0.6 * np.sin(0.6))
    _, f_jvp = fg.linearize(model, X, P)
    jitted = fg.jit(lambda t: f_jvp(t, {"s": 0.0})["b"])
    assert jitted(np.ones(4)) == pytest.approx(
        fg.jvp(model, (X, P), (np.ones(4), {"s": 0.0}))[1]["b"]
    )


def test_fixed_point_gradients_by_the_implicit_function_theorem():
    f = lambda p, x: fnp.tanh(p["W"] @ x + p["b"])
    p = {"W": np.array([[0.3, -0.2], [0.1, 0.4]]), "b": np.array([0.5, -0.1])}
    loss = lambda p: fnp.sum(fg.fixed_point(f, p, np.zeros(2)) ** 2)

    def unrolled(p):  # the iterations, differentiated step by step
        x = np.zeros(2)
        for _ in range(200):
            x = f(p, x)
        return fnp.sum(x**2)

    got, want = fg.grad(loss)(p), fg.grad(unrolled)(p)
    _close(got, want, rtol=1e-8)  # both stop within tol=1e-10 of the limit
    _close(fg.jit(fg.grad(loss))(p), got)
    fg.check_grads(lambda b: loss({"W": p["W"], "b": b}), (p["b"],), order=2, modes=("rev",))

    sqrt = lambda a: fg.fixed_point(lambda a, x: 0.5 * (x + a / x), a, 1.0)
    assert fg.grad(fg.grad(sqrt))(2.0) == pytest.approx(-0.25 * 2**-1.5, rel=1e-12)
    assert fg.jvp(sqrt, (2.0,), (1.0,))[1] == pytest.approx(0.5 / np.sqrt(2.0), rel=1e-12)
    np.testing.assert_allclose(
        fg.vmap(fg.grad(sqrt))(np.array([2.0, 9.0])), 0.5 / np.sqrt([2.0, 9.0]), rtol=1e-12
    )


def test_fixed_point_that_does_not_settle_is_named():
    with pytest.raises(
        fg.NoConvergenceError,
        match=r"fixed_point of <lambda>: the forward iteration still moves by .* after 50 steps",
    ):
        fg.fixed_point(lambda a, x: a * x + 1.0, 2.0, 1.0, max_iter=50)
