"""Fused chains of elementwise steps in numba plans (funcgrad/jit/backends/numba/fusion.py): the numba plan
against the Python plan to the bit (to the number for maximum's zeros) on layer norms,
masks, ReLU, comparisons, division by zero and NaN, both float dtypes, broadcasting and
views; which steps a chain takes and leaves; the NumPy fallback; the kernels kept on disk;
and fused plans under grad, vmap, hessian, loops and checkpoint against eager."""

import os
import subprocess
import sys

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.jit.backends.numba import fusion

numba = pytest.importorskip("numba", reason="the numba backend needs the native extra")
chains = pytest.importorskip("funcgrad.jit.backends.numba.chains")


@pytest.fixture(autouse=True)
def _kernels_in(tmp_path_factory, monkeypatch):
    """Kernels' files in a folder of the session's (one for all tests: they share kernels)."""
    folder = tmp_path_factory.getbasetemp() / "kernels"
    monkeypatch.setenv("FUNCGRAD_CACHE_DIR", str(folder))


def _both(f, *args, **kwargs):
    """``f`` jitted on each backend: the Python plan's result, the numba plan's, its source."""
    python = fg.jit(f, **kwargs)(*args)
    jitted = fg.jit(f, backend="numba", **kwargs)
    return python, jitted(*args), jitted.plan(*args).source


def _bits(a, b):
    for x, y in zip(fg.tree_util.tree_leaves(a), fg.tree_util.tree_leaves(b)):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype == y.dtype
        assert x.tobytes() == y.tobytes()


def _layer_norm(x, g, b):
    m = fnp.mean(x, -1, keepdims=True)
    v = fnp.mean((x - m) ** 2, -1, keepdims=True)
    return (x - m) / fnp.sqrt(v + 1e-5) * g + b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 96), (4, 32, 48), (2, 3, 24, 40)])
def test_a_layer_norm_and_its_gradient_are_the_python_plans_to_the_bit(dtype, shape):
    rng = np.random.default_rng(len(shape))
    x = rng.normal(size=shape).astype(dtype)
    g, b = (rng.normal(size=shape[-1]).astype(dtype) for _ in range(2))
    loss = lambda x, g, b: fnp.sum(fnp.tanh(_layer_norm(x, g, b)))
    python, numba_, source = _both(fg.value_and_grad(loss, argnums=(0, 1, 2)), x, g, b)
    assert "fused" in source
    _bits(python, numba_)
    assert numba_[1][0].dtype == dtype and numba_[0].dtype == dtype


def test_views_and_broadcasts_read_where_they_are():
    rng = np.random.default_rng(1)
    base = rng.normal(size=(96, 80)).astype(np.float32)
    x = base.T  # a transposed view: strides the kernel reads as they are
    y = rng.normal(size=(80, 1)).astype(np.float32)
    z = rng.normal(size=(96,)).astype(np.float32)[::-1]  # a reversed row
    f = lambda x, y, z: (x - y) * z / (y * y + 1.0) + 2 * x
    python, numba_, source = _both(f, x, y, z)
    assert "fused" in source
    _bits(python, numba_)
    # the same plan on other views of the same shape
    again = fg.jit(f, backend="numba")
    _bits(f(base[:, ::-1].T.copy(), y, z), again(base[:, ::-1].T.copy(), y, z))


def test_masks_relu_comparisons_and_special_values():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(64, 72)).astype(np.float32)
    x[0, :6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45]
    mask = np.tril(np.ones((64, 72), bool))

    def f(x, y):
        s = fnp.where(mask, x / 3.0, -1e9)
        r = fg.nn.relu(s - y) * (x > y) + fnp.maximum(x, y) - fnp.minimum(x, 0.5)
        return r / (y - y), x >= 0.25, fnp.square(r) - r**2

    y = rng.normal(size=(72,)).astype(np.float32)
    y[3] = 0.0
    with np.errstate(all="ignore"):
        python, numba_, source = _both(f, x, y)
    assert "fused" in source
    for a, b in zip(python, numba_):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)  # NaN where NaN is; maximum's zeros may differ in sign


def test_numbers_are_cast_as_numpy_casts_them():
    """A Python number meets a float32 array as a float32 (NumPy's weak scalars): 0.1 and
    1/3 are rounded to float32 first, as NumPy rounds them."""
    x = np.linspace(-3, 3, 64 * 80, dtype=np.float32).reshape(64, 80)
    f = lambda x: (x * 0.1 + 1 / 3) / 0.7 - 3
    python, numba_, source = _both(f, x)
    assert "fused" in source and numba_.dtype == np.float32
    _bits(python, numba_)


def test_what_a_chain_leaves_out():
    x = np.ones((64, 80))
    small = np.ones((8, 8))
    # too few elements, a lone step, exp (numba's differs from NumPy's), integers
    for f, arg in [
        (lambda x: x * 2.0 + 1.0, small),
        (lambda x: fnp.sum(x * 2.0), x),
        (lambda x: fnp.exp(x) * 2.0, x),
        (lambda x: (x + 1) * 3, np.ones((64, 80), np.int64)),
    ]:
        assert "fused" not in fg.jit(f, backend="numba").plan(arg).source
    # a step on both float dtypes at once is left to NumPy
    mixed = lambda x, y: (x + y) * 2.0
    assert "fused" not in fg.jit(mixed, backend="numba").plan(x, x.astype(np.float32)).source
    assert "fused" in fg.jit(mixed, backend="numba").plan(x, x).source


def test_a_chain_of_many_steps_is_cut():
    x = np.linspace(0, 1, 64 * 80).reshape(64, 80)

    def f(x):
        for _ in range(fusion.MAX_STEPS + 10):
            x = x * 1.0001 + 0.5
        return x

    python, numba_, source = _both(f, x)
    assert source.count("= fused") >= 3
    _bits(python, numba_)


def test_the_numpy_calls_stand_in_where_numba_fails(monkeypatch):
    x = np.linspace(-1, 1, 64 * 80).reshape(64, 80)
    f = lambda x: (x - 0.5) * (x + 2.0) / 3.0
    want = fg.jit(f)(x)

    class Refusing:
        signatures = ()

        def __call__(self, *args):
            raise numba.core.errors.TypingError("refused")

    monkeypatch.setattr(chains, "_KERNELS", {})
    monkeypatch.setattr(chains, "_compiled", lambda text, cached=True: Refusing())
    jitted = fg.jit(f, backend="numba")
    _bits(want, jitted(x))
    run = jitted.plan(x).run.__globals__["fused"]
    assert not run.compiled()
    _bits(want, jitted(x))


def test_kernels_are_kept_on_disk_and_loaded_by_the_next_process(tmp_path):
    folder = tmp_path / "cache"
    script = (
        "import numpy as np, funcgrad as fg\n"
        "f = fg.jit(lambda x: (x - 0.25) * (x + 0.75) / 1.5, backend='numba')\n"
        "x = np.linspace(0, 1, 64 * 70).reshape(64, 70)\n"
        "assert np.array_equal(f(x), fg.jit(lambda x: (x - 0.25) * (x + 0.75) / 1.5)(x))\n"
        "print(f.plan(x).run.__globals__['fused'].compiled())\n"
    )
    env = dict(os.environ, FUNCGRAD_CACHE_DIR=str(folder))
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        assert out.stdout.strip() == "True"
    files = list((folder / "kernels").glob("kernel_*.py"))
    assert len(files) == 1
    assert list((folder / "kernels" / "__pycache__").glob("*.nbi"))  # numba's index


def test_an_unwritable_folder_compiles_in_memory(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("FUNCGRAD_CACHE_DIR", str(blocked))
    monkeypatch.setattr(chains, "_KERNELS", {})
    x = np.linspace(-1, 1, 64 * 66).reshape(64, 66)
    f = lambda x: (x - 0.125) * (x + 3.0)
    python, numba_, source = _both(f, x)
    assert "fused" in source
    _bits(python, numba_)


# ---------------------------------------------------------------- under transforms


def _mlp_loss(p, x):
    h = fg.nn.relu(_layer_norm(x @ p["w"], p["g"], p["b"]))
    return fnp.mean((h - 0.5) ** 2)


def _params(rng, dtype=np.float64):
    return {
        "w": rng.normal(size=(24, 96)).astype(dtype) * 0.3,
        "g": (1 + 0.1 * rng.normal(size=96)).astype(dtype),
        "b": (0.1 * rng.normal(size=96)).astype(dtype),
    }


def test_fused_gradients_against_eager_and_central_differences():
    rng = np.random.default_rng(5)
    p, x = _params(rng), rng.normal(size=(64, 24))
    step = fg.jit(fg.value_and_grad(_mlp_loss), backend="numba")
    assert "fused" in step.plan(p, x).source
    value, grads = step(p, x)
    want_value, want = fg.value_and_grad(_mlp_loss)(p, x)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    for k in p:
        np.testing.assert_allclose(grads[k], want[k], rtol=1e-9, atol=1e-12)
    e = np.zeros_like(p["g"])
    e[7] = 1e-6
    shifted = lambda s: _mlp_loss({**p, "g": p["g"] + s * e}, x)
    np.testing.assert_allclose(grads["g"][7], (shifted(1) - shifted(-1)) / 2e-6, rtol=1e-5)


def test_fused_plans_under_vmap_and_inside_it():
    rng = np.random.default_rng(6)
    p, xs = _params(rng), rng.normal(size=(3, 64, 24))
    per_example = fg.vmap(fg.jit(fg.grad(_mlp_loss), backend="numba"), in_axes=(None, 0))(p, xs)
    outer = fg.jit(fg.vmap(fg.grad(_mlp_loss), in_axes=(None, 0)), backend="numba")
    assert "fused" in outer.plan(p, xs).source
    batched = outer(p, xs)
    for k in p:
        loop = np.stack([fg.grad(_mlp_loss)(p, x)[k] for x in xs])
        np.testing.assert_allclose(per_example[k], loop, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(batched[k], loop, rtol=1e-9, atol=1e-12)


def test_a_fused_hessian_vector_product_against_eager():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(64, 80))
    v = rng.normal(size=(64, 80))
    f = lambda x: fnp.sum(_layer_norm(x, 1.5, 0.25) ** 2 * fg.nn.relu(x))
    hvp = lambda x, v: fg.jvp(fg.grad(f), (x,), (v,))[1]
    jitted = fg.jit(hvp, backend="numba")
    assert "fused" in jitted.plan(x, v).source
    np.testing.assert_allclose(jitted(x, v), hvp(x, v), rtol=1e-9, atol=1e-12)


def test_fused_chains_inside_a_loop_and_a_checkpoint():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(64, 80))
    g = 1 + 0.1 * rng.normal(size=80)

    def f(x):
        body = fg.checkpoint(lambda i, h: _layer_norm(h * 1.1 + 0.1, g, 0.0) * 0.9)
        return fnp.sum(fg.lax.fori_loop(0, 3, body, x) ** 2)

    jitted = fg.jit(fg.value_and_grad(f), backend="numba")
    assert "fused" in jitted.plan(x).source
    value, grad = jitted(x)
    want_value, want = fg.value_and_grad(f)(x)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(grad, want, rtol=1e-9, atol=1e-12)
