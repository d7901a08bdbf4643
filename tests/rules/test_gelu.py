"""GELU's tanh form as a primitive (rules/gelu.py), against the formula it replaces.

The impls work in place a chunk at a time; the oracles are the formula in one NumPy
expression (float64), PyTorch's gelu and its autograd slope, central differences, a Python
loop for vmap, the eager call for jit and the unrolled loop for a checkpointed fori_loop.
"""

import math

import numpy as np
import pytest
from helpers import assert_a_block_under_transforms, gelu_tanh_formula

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.rules import gelu

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
    value, slope = gelu._gelu_tanh_with_slope(x)
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
