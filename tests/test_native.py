"""jit's numba backend: blocks compiled natively where numba can, Python elsewhere,
agreeing with eager to 1e-12."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

numba = pytest.importorskip("numba", reason="the numba backend needs the native extra")


def chain(x, depth=60):
    for _ in range(depth):
        x = fnp.tanh(x) * 0.5 + x * 0.5
    return x


def close(got, want):
    for g, w in zip(fg.tree_flatten(got)[0], fg.tree_flatten(want)[0], strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-300)


def test_a_scalar_chain_runs_natively_and_agrees_with_eager():
    f = fg.value_and_grad(lambda x: chain(x) * fnp.exp(-x) / (1.0 + x * x))
    jitted = fg.jit(f, backend="numba")
    for x in (0.3, -1.7, 2.5):
        close(jitted(x), f(x))
    plan = jitted.plan(0.3)
    assert plan.backend == "numba" and plan.native_blocks() == list(plan.block_names)


def test_blocks_numba_cannot_compile_stay_python_and_still_agree():
    # sort and a gather are Python code in their rules: those blocks fall back.
    def f(x):
        return fnp.sum(fnp.sort(fnp.tanh(x))[::2] * fnp.arange(3.0)) + fnp.sum(chain(x, 5))
    g = fg.grad(f)
    jitted = fg.jit(g, backend="numba")
    x = np.array([0.3, -1.2, 2.0, 0.1, 0.7])
    close(jitted(x), g(x))
    close(jitted(x[::-1].copy()), g(x[::-1].copy()))
    plan = jitted.plan(x)
    native = plan.native_blocks()
    assert len(native) < len(plan.block_names)


def test_arrays_and_two_outputs_agree():
    def f(w, x):
        h = fnp.tanh(x * w + 0.1)
        return fnp.sum(h * h), fnp.exp(-h)
    jitted = fg.jit(f, backend="numba")
    w, x = np.linspace(-1.0, 1.0, 4), np.linspace(0.5, 2.0, 4)
    close(jitted(w, x), f(w, x))
    np.testing.assert_array_equal(w, np.linspace(-1.0, 1.0, 4))   # inputs never written into


def test_division_by_zero_follows_numpy_not_python():
    jitted = fg.jit(lambda x, y: x / y + x * y, backend="numba")
    with np.errstate(divide="ignore"):
        assert jitted(1.0, 0.0) == np.inf


def test_an_unknown_backend_is_refused_by_name():
    with pytest.raises(ValueError, match="backend='llvm'.*'python'.*'numba'"):
        fg.jit(lambda x: x, backend="llvm")
