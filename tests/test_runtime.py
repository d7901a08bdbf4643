"""JAX's runtime names on one CPU device: what they return, and the switches
(disable_jit, clear_caches, config flags) changing what jit and the NaN check do."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp


def test_devices_and_device_put():
    assert [d.platform for d in fg.devices()] == ["cpu"]
    assert repr(fg.devices()) == "[CpuDevice(id=0)]"
    assert fg.device_count() == fg.local_device_count() == 1 and fg.default_backend() == "cpu"
    out = fg.device_put({"w": 1.0, "b": (2, np.float32(3))})
    assert isinstance(out["w"], np.ndarray) and out["w"].dtype == np.float64
    assert out["b"][0].dtype.kind == "i" and out["b"][1].dtype == np.float32
    x = np.ones(3)
    np.testing.assert_array_equal(fg.device_put(x, fg.devices()[0]), x)
    # a traced value passes through, so device_put inside a transform is the identity
    assert fg.grad(lambda v: fnp.sum(fg.device_put(v) ** 2))(2.0) == 4.0
    with pytest.raises(fg.ArgumentError, match="only device is the CPU"):
        fg.device_put(x, "gpu:0")
    with pytest.raises(fg.ArgumentError, match="no 'gpu' backend"):
        fg.devices("gpu")


def test_array_is_what_isinstance_expects():
    assert isinstance(np.ones(2), fg.Array) and isinstance(np.float64(1.0), fg.Array)
    assert not isinstance(1.0, fg.Array) and not isinstance([1.0], fg.Array)
    seen = []
    fg.grad(lambda x: seen.append(isinstance(x, fg.Array)) or x * x)(1.0)
    fg.jit(lambda x: seen.append(isinstance(x, fg.Array)) or x)(np.ones(2))
    assert seen == [True, True]


def test_scopes_change_no_result():
    def f(x):
        with fg.named_scope("layer"), fg.ensure_compile_time_eval():
            return fg.named_call(fnp.sin, name="s")(x) * 2

    assert f(0.5) == fg.jit(f)(0.5) == 2 * np.sin(0.5)


def test_disable_jit_runs_the_python_function():
    calls = []
    f = fg.jit(lambda x: calls.append(x) or x * 2)
    f(1.0), f(2.0)
    assert len(calls) == 1  # traced once, then replayed
    with fg.disable_jit():
        assert f(3.0) == 6.0 and f(4.0) == 8.0
    assert calls[1:] == [3.0, 4.0]  # the values themselves, each call
    f(5.0)
    assert len(calls) == 3
    fg.config.update("jax_disable_jit", True)
    try:
        f(6.0)
        assert fg.config.jax_disable_jit and calls[-1] == 6.0
    finally:
        fg.config.update("jax_disable_jit", False)
    f(7.0)
    assert len(calls) == 4


def test_clear_caches_makes_jit_trace_again():
    f = fg.jit(lambda x: x + 1.0)
    f(1.0)
    assert f.cache_size() == 1
    fg.clear_caches()
    assert f.cache_size() == 0 and f(1.0) == 2.0 and f.cache_size() == 1


def test_config_flags():
    fg.config.update("jax_enable_x64", True)
    assert fg.config.jax_enable_x64 is True
    with pytest.raises(fg.ArgumentError, match="float32 inputs"):
        fg.config.update("jax_enable_x64", False)
    fg.config.update("jax_debug_nans", True)
    try:
        with pytest.raises(fg.NonFiniteError), np.errstate(invalid="ignore"):
            fg.grad(lambda x: fnp.sum(fnp.log(x)))(np.array([-1.0]))
    finally:
        fg.config.update("jax_debug_nans", False)
    with np.errstate(invalid="ignore"):
        assert np.isnan(fg.grad(lambda x: fnp.log(x) * 0.0 + fnp.sqrt(x))(-1.0))
    fg.config.update("jax_platform_name", "cpu")
    with pytest.raises(fg.ArgumentError, match="CPU only"):
        fg.config.update("jax_platforms", "cuda")
    with pytest.raises(fg.ArgumentError, match="no flag 'jax_numpy_rank_promotion'"):
        fg.config.update("jax_numpy_rank_promotion", "raise")


def test_pmap_is_a_jitted_vmap_with_collectives():
    from funcgrad import lax

    xs = np.array([1.0, 2.0, 4.0])
    f = fg.pmap(lambda x, n: x**n + lax.pmean(x, "i"), axis_name="i", static_broadcasted_argnums=1)
    for n in (2, 3):
        np.testing.assert_allclose(f(xs, n), xs**n + xs.mean())
    np.testing.assert_allclose(fg.pmap(lambda x, y: x + y, in_axes=(0, None))(xs, 10.0), xs + 10.0)
    # a derivative through it, against the closed form: d/dw sum(w x) = sum(x)
    assert fg.grad(lambda w: fnp.sum(fg.pmap(lambda x: x * w)(xs)))(2.0) == xs.sum()
    with pytest.raises(fg.ArgumentError, match="no 'gpu' backend"):
        fg.pmap(lambda x: x, backend="gpu")


def test_typeof_answers_with_the_examples_shape_under_every_transform():
    seen = []

    def f(v):
        seen.append(fg.typeof(v))
        return fnp.sum(v * v)

    x = np.ones((3, 2), np.float32)
    fg.grad(f)(x[0])
    fg.jit(f)(x[0])
    fg.vmap(f)(x)  # vmap's function sees one example
    assert [(s.shape, s.dtype) for s in seen] == [((2,), np.float32)] * 3
