"""Loops and branches on other libraries' arrays, on their devices.

The stand-ins for a GPU (CI has none): array-api-strict's second device and PyTorch CPU
tensors whose ``__array__`` refuses. Each loop's value, gradient, tangent and Hessian
must be the library's arrays on the arguments' device, equal to funcgrad's on NumPy.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.namespaces import library_of
from tests.helpers import device_makers, to_numpy

xs = pytest.importorskip("array_api_strict", reason="the backends extra: pip install -e '.[test]'")
DEVICE = xs.Device("device1")
MAKERS = device_makers()
pytestmark = pytest.mark.usefixtures("torch_refuses_numpy")


def _scan(v):
    def step(c, x):
        return c * 0.9 + fnp.tanh(x * c), c * x

    carry, ys = fg.scan(step, v[0] * 0.0 + 0.5, v)
    return fnp.sum(carry) + fnp.sum(ys**2)


LOOPS = {
    "scan": _scan,
    "scan, reversed": lambda v: fnp.sum(
        fg.scan(lambda c, x: (fnp.sin(c + x), c), v[0], v, reverse=True)[1]
    ),
    "fori_loop": lambda v: fnp.sum(fg.fori_loop(0, 4, lambda i, c: fnp.sin(c) * 1.1 + v, v)),
    "while_loop": lambda v: fnp.sum(
        fg.while_loop(
            lambda c: fnp.sum(c[1]) < 8.0, lambda c: (c[0] + 1, c[1] * 1.5 + 0.1), (0, v * v)
        )[1]
    ),
    "while_loop, counted": lambda v: fnp.sum(  # its trip count and counter not batched
        fg.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, fnp.sin(c[1]) * 1.2), (0, v))[1]
    ),
    "cond": lambda v: fnp.sum(
        fg.cond(fnp.sum(v) > 0, lambda a: a * fnp.exp(a), lambda a: fnp.sin(a), v)
    ),
    "switch": lambda v: fnp.sum(
        fg.switch(2, [lambda a: a, lambda a: a * 2.0, lambda a: fnp.cos(a) * a], v)
    ),
    "checkpointed scan": lambda v: fnp.sum(
        fg.checkpoint(lambda w: fg.scan(lambda c, x: (fnp.tanh(c * x), c), w[0], w)[1])(v)
    ),
}


@pytest.mark.parametrize("name", sorted(LOOPS))
@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_loops_on_the_device_equal_numpys(name, backend):
    f, make = LOOPS[name], MAKERS[backend]
    x = np.array([[0.3, -0.8], [1.2, 0.4], [0.5, 0.9]])
    a = make(x)
    want_value, want_grad = fg.value_and_grad(f)(x)
    for run in (fg.value_and_grad(f), fg.jit(fg.value_and_grad(f))):
        value, grad = run(a)
        assert library_of(grad) == library_of(a) and grad.device == a.device
        np.testing.assert_allclose(to_numpy(value), want_value, rtol=1e-12)
        np.testing.assert_allclose(to_numpy(grad), want_grad, rtol=1e-11, atol=1e-14)
    t = np.ones_like(x) * 0.5
    tangent = fg.jvp(f, (a,), (make(t),))[1]
    np.testing.assert_allclose(to_numpy(tangent), fg.jvp(f, (x,), (t,))[1], rtol=1e-11)


@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_a_hessian_and_a_vmap_through_a_scan_on_the_device(backend):
    make = MAKERS[backend]
    x = np.array([[0.3, -0.8], [1.2, 0.4], [0.5, 0.9]])
    hessian = fg.hessian(_scan)(make(x))
    np.testing.assert_allclose(to_numpy(hessian), fg.hessian(_scan)(x), rtol=1e-10, atol=1e-13)
    stacked = np.stack([x, x * 0.5])
    per_example = fg.vmap(fg.grad(_scan))(make(stacked))
    np.testing.assert_allclose(
        to_numpy(per_example), np.stack([fg.grad(_scan)(v) for v in stacked]), rtol=1e-11
    )


def _counted(v):
    # a checkpointed fori loop: its reverse pass reads the stacked loop counter, plain
    # numbers the loop's form stacks in the operands' library
    body = fg.checkpoint(lambda i, h: fnp.tanh(h * v[0]) * 1.1)
    return fnp.sum(fg.fori_loop(0, 3, body, v) ** 2)


@pytest.mark.parametrize(
    "name", ["fori_loop, checkpointed", "while_loop", "while_loop, counted", "scan"]
)
@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_jit_of_vmap_of_grad_of_a_loop_equals_a_python_loop(name, backend):
    # a staged loop's value is what its form returns at replay: a stack of plain numbers is
    # the operands' library's array (it was NumPy's, and a step bound to NumPy then
    # converted the device's array, which a GPU's refuses)
    f = _counted if name == "fori_loop, checkpointed" else _scan if name == "scan" else LOOPS[name]
    make = MAKERS[backend]
    stacked = np.array([[[0.3, -0.8], [1.2, 0.4]], [[0.5, 0.9], [-0.2, 0.7]]])
    want = np.stack([fg.grad(f)(v) for v in stacked])
    for run in (fg.vmap(fg.grad(f)), fg.jit(fg.vmap(fg.grad(f)))):
        got = run(make(stacked))
        assert library_of(got) == library_of(make(stacked))
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-11, atol=1e-14)


@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_a_scans_stacked_numbers_are_the_devices_arrays_under_jit_as_eagerly(backend):
    a = MAKERS[backend](np.array([0.5, 1.5, 2.0]))
    f = lambda v: fg.scan(lambda c, x: (c + x, 7), 0.0, v)[1]
    eager, jitted = f(a), fg.jit(f)(a)
    assert library_of(jitted) == library_of(eager) == library_of(a)
    assert jitted.device == a.device
    np.testing.assert_array_equal(to_numpy(jitted), [7, 7, 7])


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_a_loops_counter_is_made_on_the_device(backend, reverse):
    # a counter's rows are made by the library's arange (no copy from the host a row),
    # with the dtype its asarray gives a Python int
    a = MAKERS[backend](np.array([0.5, 1.5, 2.0, 4.0]))
    f = lambda v: fg.scan(lambda c, x: (c + 2, c), 1, v, reverse=reverse)[1]
    for got in (f(a), fg.jit(f)(a)):
        assert library_of(got) == library_of(a) and got.device == a.device
        assert str(got.dtype).endswith("int64")
        np.testing.assert_array_equal(to_numpy(got), [7, 5, 3, 1] if reverse else [1, 3, 5, 7])


C = np.array([0.5, -1.25, 2.0], np.float32)
OF_A_NUMBER = {  # bodies of a number that read an array they closed over (c); the eager
    # call with NumPy's c is the oracle, central differences the tangent's
    "checkpoint": lambda a, c: fg.checkpoint(lambda a: fnp.sin(a * c))(a),
    "cond": lambda a, c: fg.lax.cond(a > 0, lambda: a * c, lambda: fnp.subtract(c, a)),
    "fori_loop": lambda a, c: fg.fori_loop(0, 3, lambda i, v: fnp.sin(v) * c + a, c),
    "scan": lambda a, c: fg.scan(lambda v, x: (v + x * a, v * x), 0.0 * c[0], c)[1],
    "subtract": lambda a, c: fnp.subtract(c, a),  # (array-api-strict's c - a refuses a)
}


@pytest.mark.parametrize("backend", sorted(MAKERS))
@pytest.mark.parametrize("name", sorted(OF_A_NUMBER))
def test_a_body_of_a_number_runs_on_the_library_of_the_array_it_reads(name, backend):
    # checkpoint's body ran a NumPy plan on the device array, and a number's tangent
    # broadcast beside a tensor was a NumPy array (cond's jvp then mixed the two)
    c = MAKERS[backend](C)
    f = lambda a: OF_A_NUMBER[name](a, c)
    want = OF_A_NUMBER[name](0.75, C)
    dwant = (
        OF_A_NUMBER[name](0.75 + 1e-6, C.astype(float))
        - OF_A_NUMBER[name](0.75 - 1e-6, C.astype(float))
    ) / 2e-6
    for value, tangent in (
        fg.jvp(f, (0.75,), (1.0,)),
        fg.jit(lambda a: fg.jvp(f, (a,), (1.0,)))(0.75),
    ):
        assert library_of(value) == library_of(tangent) == library_of(c)
        np.testing.assert_allclose(to_numpy(value), want, rtol=1e-6)
        np.testing.assert_allclose(to_numpy(tangent), dwant, rtol=1e-5, atol=1e-6)
    loss = lambda a: fnp.sum(f(a) * c)
    for grad in (fg.grad(loss)(0.75), fg.jit(fg.grad(loss))(0.75)):
        assert float(to_numpy(grad)) == pytest.approx(float(np.sum(dwant * C)), rel=1e-5, abs=1e-6)
