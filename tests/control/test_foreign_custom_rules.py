"""Custom rules, checkpoints and linear maps on other libraries' arrays, on their devices.

The stand-ins for a GPU (CI has none): array-api-strict's second device and PyTorch CPU
tensors whose ``__array__`` refuses. A function with a custom rule runs its body in the
arrays' namespace, as any funcgrad.numpy code does: its value, gradient (by the rule),
tangent, Hessian-vector product and per-example gradients are the library's arrays on
the arguments' device, equal to funcgrad's on NumPy, eagerly and jitted.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.namespaces import library_of
from tests.helpers import device_makers, to_numpy

pytest.importorskip("array_api_strict", reason="the backends extra: pip install -e '.[test]'")
MAKERS = device_makers()
pytestmark = pytest.mark.usefixtures("torch_refuses_numpy")


@fg.custom_vjp
def clipped(x, w):
    """x @ w, its cotangent in x clipped (a gradient clip inside the graph)."""
    return fnp.tanh(x @ w)


def _clipped_fwd(x, w):
    y = fnp.tanh(x @ w)
    return y, (x, w, y)


def _clipped_bwd(res, g):
    # fnp.matmul, not @: array-api-strict's own operators refuse a traced right operand
    x, w, y = res
    d = fnp.multiply(g, 1.0 - y * y)
    return fnp.clip(fnp.matmul(d, fnp.transpose(w)), -0.1, 0.1), fnp.matmul(fnp.transpose(x), d)


clipped.defvjp(_clipped_fwd, _clipped_bwd)


@fg.custom_jvp
def softplus(x):
    return fnp.log1p(fnp.exp(x))


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t / (1.0 + fnp.exp(-x))


FUNCTIONS = {
    "custom_vjp": lambda x, w: fnp.sum(clipped(x, w) ** 2),
    "custom_jvp": lambda x, w: fnp.sum(softplus(x @ w) * fnp.sum(x, axis=0)),
    "checkpoint": lambda x, w: fnp.sum(fg.checkpoint(lambda a: fnp.tanh(a @ w) ** 2)(x)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_a_custom_rule_on_the_device_equals_numpys(name, backend):
    f, make = FUNCTIONS[name], MAKERS[backend]
    rng = np.random.default_rng(4)
    x, w, t = rng.normal(size=(3, 4)), rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(3, 4))
    a, b = make(x), make(w)
    np.testing.assert_allclose(to_numpy(f(a, b)), f(x, w), rtol=1e-12)
    want = fg.grad(f, argnums=(0, 1))(x, w)
    for run in (fg.grad(f, argnums=(0, 1)), fg.jit(fg.grad(f, argnums=(0, 1)))):
        for got, expected in zip(run(a, b), want):
            assert library_of(got) == library_of(a) and got.device == a.device
            np.testing.assert_allclose(to_numpy(got), expected, rtol=1e-11, atol=1e-14)
    tangent = fg.jvp(lambda x: f(x, b), (a,), (make(t),))[1]
    np.testing.assert_allclose(
        to_numpy(tangent), fg.jvp(lambda x: f(x, w), (x,), (t,))[1], rtol=1e-11
    )
    stacked = np.stack([x, x * 0.5])
    per_example = fg.vmap(fg.grad(f), in_axes=(0, None))(make(stacked), b)
    np.testing.assert_allclose(
        to_numpy(per_example), np.stack([fg.grad(f)(v, w) for v in stacked]), rtol=1e-11, atol=1e-14
    )


@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_a_checkpoints_plain_call_runs_on_the_device(backend):
    # nothing traced: the function's value, in the arrays' library (the body's NumPy plan
    # would convert them)
    make = MAKERS[backend]
    x = np.random.default_rng(5).normal(size=(2, 3))
    f = fg.checkpoint(lambda a: fnp.sin(a) * a)
    got = f(make(x))
    assert library_of(got) == library_of(make(x))
    np.testing.assert_array_equal(to_numpy(got), f(x))


@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_a_linearized_map_and_its_transpose_run_on_the_device(backend):
    # the map is a body of staged steps: on the device's plain arrays it runs through the
    # primitives (its plan's impls are NumPy's, which would convert them)
    make = MAKERS[backend]
    rng = np.random.default_rng(6)
    x, t = rng.normal(size=3), rng.normal(size=3)
    f = lambda x: fnp.sin(x) * fnp.sum(x**2)
    _, lin = fg.linearize(f, x)
    _, lin_on = fg.linearize(f, make(x))
    got = lin_on(make(t))
    assert library_of(got) == library_of(make(x))
    np.testing.assert_allclose(to_numpy(got), lin(t), rtol=1e-12)
    transposed = fg.linear_transpose(lin_on, make(x))(make(t))[0]
    np.testing.assert_allclose(to_numpy(transposed), fg.linear_transpose(lin, x)(t)[0], rtol=1e-12)
