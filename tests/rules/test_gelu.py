"""GELU's tanh form as a primitive (rules/gelu.py), against the formula it replaces.

The impls work in place a chunk at a time; the oracles are the formula in one NumPy
expression (float64), PyTorch's gelu and its autograd slope, central differences, a Python
loop for vmap, the eager call for jit and the unrolled loop for a checkpointed fori_loop.
"""

import math

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.rules import gelu
from tests.helpers import assert_a_block_under_transforms, gelu_tanh_formula

RNG = np.random.default_rng(31)
C, A = math.sqrt(2.0 / math.pi), 0.044715


@pytest.mark.parametrize("size", [1, 7, gelu.CHUNK - 1, gelu.CHUNK, gelu.CHUNK + 1, 70_001])
@pytest.mark.parametrize("dtype, tol", [(np.float32, 2e-6), (np.float64, 1e-14)])
def test_value_and_slope_by_chunks_are_the_formulas(size, dtype, tol):
    x = (RNG.normal(size=size) * 3).astype(dtype)
    value, slope = gelu_tanh_formula(x)
    for got, want in ((gelu.gelu_tanh(x), value), (gelu.gelu_tanh_slope(x), slope)):
        assert got.dtype == dtype and got.shape == x.shape
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_views_numbers_integers_and_complex_values_are_the_formulas():
    x = RNG.normal(size=(300, 200)).T[::2]  # a transposed, sliced view
    # (1 + t) cancels where x is below -2: a few values differ by 1e-16 of their terms
    np.testing.assert_allclose(gelu.gelu_tanh(x), gelu_tanh_formula(x)[0], rtol=1e-14, atol=1e-15)
    assert type(gelu.gelu_tanh(np.float32(1.0))) is np.float32
    assert gelu.gelu_tanh(np.array([1, 2])).dtype == np.float64
    np.testing.assert_allclose(gelu.gelu_tanh(np.array([1, 2])), gelu_tanh_formula([1, 2])[0])
    z = np.array([0.3 + 0.2j, -1.0 + 0.5j])
    np.testing.assert_allclose(
        gelu.gelu_tanh(z), 0.5 * z * (1.0 + np.tanh(C * (z + A * z**3))), rtol=1e-14
    )
    assert float(fg.nn.gelu(1.0, approximate=True)) == pytest.approx(
        gelu_tanh_formula(1.0)[0], 1e-15
    )
    for empty in (np.zeros((0, 3), np.float32), np.zeros(0)):
        for f in (gelu.gelu_tanh, gelu.gelu_tanh_slope):
            assert f(empty).shape == empty.shape and f(empty).dtype == empty.dtype


def test_against_pytorch_to_the_third_derivative():
    torch = pytest.importorskip("torch")
    x = np.linspace(-6.0, 6.0, 241)
    t = torch.tensor(x, requires_grad=True)
    y = torch.nn.functional.gelu(t, approximate="tanh")
    (d1,) = torch.autograd.grad(y.sum(), t, create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), t, create_graph=True)
    (d3,) = torch.autograd.grad(d2.sum(), t)
    f = lambda v: fg.nn.gelu(v, approximate=True)
    got = [
        fg.vmap(g)(x) for g in (f, fg.grad(f), fg.grad(fg.grad(f)), fg.grad(fg.grad(fg.grad(f))))
    ]
    # in the tails a derivative is a small sum of larger terms (the third is 3e-7 at x =
    # -5.8, off the exact value by 1.2e-13 here, as it was when gelu was composed of
    # primitives, and by 5e-15 in PyTorch): compared at the terms' scale, atol
    for mine, theirs in zip(got, (y, d1, d2, d3)):
        np.testing.assert_allclose(mine, theirs.detach().numpy(), rtol=1e-11, atol=1e-12)


def test_an_mlp_block_with_it_under_every_transform():
    # a GELU MLP block in grad, jvp, jit, vmap, hessian and a checkpointed fori_loop;
    # oracles: central differences, the eager call, a Python loop, the unrolled loop
    x = RNG.normal(size=(4, 6, 8))
    w1, w2 = RNG.normal(size=(8, 40)) * 0.4, RNG.normal(size=(40, 8)) * 0.3

    def block(h, s):
        return h + fg.nn.gelu((h * s) @ w1, approximate=True) @ w2

    def f(s):
        return fnp.sum(fnp.tanh(block(block(x, s), s)))

    def looped(s):
        out = fg.lax.fori_loop(0, 2, lambda i, h: fg.checkpoint(block)(h, s), x)
        return fnp.sum(fnp.tanh(out))

    s = 1.0 + 0.1 * RNG.normal(size=8)
    t = RNG.normal(size=8)
    hvp = assert_a_block_under_transforms(f, looped, s, t)
    np.testing.assert_allclose(fg.jit(fg.hessian(f))(s) @ t, hvp, rtol=1e-10)


def test_float32_stays_float32_through_grad_and_jit():
    x = RNG.normal(size=(16, 32)).astype(np.float32)
    f = lambda v: fnp.sum(fg.nn.gelu(v, approximate=True) ** 2)
    for g in (fg.grad(f)(x), fg.jit(fg.grad(f))(x)):
        assert g.dtype == np.float32
    np.testing.assert_allclose(
        fg.grad(f)(x), fg.grad(f)(x.astype(np.float64)), rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize("size", [0, 1, gelu.CHUNK + 1, 70_001])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_call_for_value_and_slope_gives_the_two_impls_bits(size, dtype):
    x = (RNG.normal(size=size) * 3).astype(dtype).reshape(-1, 1)
    value, slope = gelu.gelu_tanh.together[1](x)  # with numba's kernel where it applies
    assert value.tobytes() == gelu.gelu_tanh(x).tobytes() and value.shape == x.shape
    assert slope.tobytes() == gelu.gelu_tanh_slope(x).tobytes() and slope.dtype == dtype
    for number in (0.7, np.float32(-1.5)):
        assert gelu._gelu_tanh_with_slope(number) == (
            gelu.gelu_tanh(number),
            gelu.gelu_tanh_slope(number),
        )


def test_a_jitted_gradient_computes_value_and_slope_in_one_call():
    # the plan calls the pair once (Primitive.together) where the gradient needs both;
    # its numbers are eager's to the bit, in a loop's body and under vmap too
    x = RNG.normal(size=(8, 40)).astype(np.float32)
    f = lambda v: fnp.sum(fg.nn.gelu(v) * v)
    jitted = fg.jit(fg.value_and_grad(f))
    source = jitted.plan(x).source
    calls = [line for line in source.splitlines() if "gelu" in line]
    assert len(calls) == 1 and "= gelu_tanh_with_gelu_tanh_slope(" in calls[0]
    for got, want in zip(jitted(x), fg.value_and_grad(f)(x)):
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
    per_row = fg.jit(fg.vmap(fg.grad(f)))(x)
    np.testing.assert_array_equal(per_row, np.stack([fg.grad(f)(row) for row in x]))


def _counted(monkeypatch):
    """Counts of calls of the value-and-slope impl and of the slope's impl."""
    calls = {"together": 0, "slope": 0}
    other, together = gelu.gelu_tanh.together
    slope_impl = gelu.gelu_tanh_slope.impl

    def both(x):
        calls["together"] += 1
        return together(x)

    def slope(x):
        calls["slope"] += 1
        return slope_impl(x)

    monkeypatch.setattr(gelu.gelu_tanh, "together", (other, both))
    monkeypatch.setattr(gelu.gelu_tanh_slope, "impl", slope)
    monkeypatch.setattr(gelu.gelu_tanh_slope, "on_array", slope)
    return calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_an_eager_gradient_keeps_the_slope_made_with_the_value(monkeypatch, dtype):
    # value and slope in one call as the trace records the node; the fold reads the slope
    # kept (ReverseTrace.slopes) instead of calling gelu_tanh_slope: the same bits
    x = (RNG.normal(size=(3, gelu.CHUNK // 2 + 7)) * 3).astype(dtype)
    x[0, :6] = [0.0, -0.0, 30.0, -30.0, 1e-30, -1e-3]
    f = lambda v: fnp.sum(fg.nn.gelu(v * 1.5, approximate=True) * v)
    calls = _counted(monkeypatch)
    kept = fg.value_and_grad(f)(x)
    assert calls == {"together": 1, "slope": 0}
    monkeypatch.setattr(gelu.gelu_tanh, "together", None)  # no joint impl: the slope again
    again = fg.value_and_grad(f)(x)
    assert calls == {"together": 1, "slope": 1}
    for a, b in zip(kept, again):
        assert np.asarray(a).dtype == dtype and np.asarray(a).tobytes() == np.asarray(b).tobytes()


def test_kept_slopes_in_jacobians_nested_transforms_and_graphs_that_persist(monkeypatch):
    x = RNG.normal(size=(5, 4))
    f = lambda v: fg.nn.gelu(v, approximate=True) * v
    want = np.diag((gelu.gelu_tanh_slope(x) * x + gelu.gelu_tanh(x)).ravel())
    # jacrev folds once per output row over one trace: each fold reads the kept slope
    calls = _counted(monkeypatch)
    jac = fg.jacrev(f)(x).reshape(x.size, x.size)
    assert calls["slope"] == 0
    np.testing.assert_allclose(jac, want, rtol=1e-13, atol=1e-15)
    # under an outer transform the operand is traced: nothing kept, the slope's own
    # rule differentiates (a Hessian-vector product against central differences)
    g = fg.grad(lambda v: fnp.sum(f(v)))
    t = RNG.normal(size=x.shape)
    hvp = fg.jvp(g, (x,), (t,))[1]
    h = 1e-5
    np.testing.assert_allclose(hvp, (g(x + h * t) - g(x - h * t)) / (2 * h), rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(fg.vmap(g)(x), np.stack([g(row) for row in x]))
    # a hand-built graph may never be differentiated: its trace keeps no slope
    v = fg.var(x)
    y = fnp.sum(fg.nn.gelu(v, approximate=True))
    assert v._trace.slopes is None
    np.testing.assert_array_equal(fg.backprop(y)[v], gelu.gelu_tanh_slope(x))


def test_a_kept_slope_of_a_zero_dimensional_operand_and_of_python_numbers():
    for x in (np.array(0.7), np.array(-1.2, np.float32)):
        g = fg.grad(lambda v: fg.nn.gelu(v, approximate=True) * 2.0)(x)
        assert g.dtype == x.dtype
        assert np.asarray(g).tobytes() == np.asarray(2.0 * gelu.gelu_tanh_slope(x)).tobytes()
    assert fg.grad(lambda v: fg.nn.gelu(v, approximate=True))(0.7) == gelu.gelu_tanh_slope(0.7)
