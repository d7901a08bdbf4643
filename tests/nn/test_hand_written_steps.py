"""benchmarks/numpy_models.py, the models' hand-written NumPy steps (the limit rows of
benchmarks/models.py), compute the step funcgrad differentiates: loss and every gradient
equal ``fg.value_and_grad``'s in float64, fresh and with kept buffers, call after call."""

import numpy as np
import pytest

import funcgrad as fg
from tests.helpers import benchmark_models, benchmark_module


def _workload(name):
    models = benchmark_models()
    rng = np.random.default_rng(3)
    if name == "gpt":
        shape = models.gpt_shape(False)
        return shape, models.gpt_loss(shape), *models.gpt_inputs(shape, rng)
    if name == "cnn":
        return None, models.cnn_loss, *models.cnn_inputs(rng, batch=8)
    params, data = models.conv_inputs(rng)
    params["x"] = params["x"][:2]
    return None, models.conv_loss, params, data


@pytest.mark.parametrize("name", ["gpt", "cnn", "conv"])
@pytest.mark.parametrize("keep", [False, True])
def test_hand_written_step_equals_funcgrad(name, keep):
    shape, loss, params, data = _workload(name)
    want_value, want = fg.value_and_grad(loss)(params, **data)
    step = benchmark_module("numpy_models").STEPS[name](shape, keep)
    for _ in range(2):  # kept buffers: the second call writes over the first's
        value, grads = step(params, **data)
        np.testing.assert_allclose(value, want_value, rtol=1e-12)
        assert fg.tree_util.tree_structure(grads) == fg.tree_util.tree_structure(want)
        for k, (g, w) in enumerate(
            zip(fg.tree_util.tree_leaves(grads), fg.tree_util.tree_leaves(want))
        ):
            np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12, err_msg=f"gradient {k}")


def test_hand_written_cnn_keeps_float32():
    _, _, params, data = _workload("cnn")
    p = fg.tree_util.tree_map(lambda v: v.astype(np.float32) if v.dtype.kind == "f" else v, params)
    d = {**data, "images": data["images"].astype(np.float32)}
    value, grads = benchmark_module("numpy_models").cnn_step(keep=True)(p, **d)
    assert value.dtype == np.float32
    assert {g.dtype for g in fg.tree_util.tree_leaves(grads)} == {np.dtype(np.float32)}


def test_the_products_benchmark_times_the_products_the_gpt_step_makes(monkeypatch):
    # benchmarks/model_products.py times a list of products; the step's gradient must make
    # exactly those (batch axes of a stack times one matrix folded into rows, as the rule
    # folds them): every matmul call of an eager value_and_grad, recorded
    from funcgrad.rules import matmul as matmul_module

    shape = {"V": 12, "D": 16, "H": 2, "T": 8, "B": 3, "L": 2}
    models = benchmark_models()
    params, data = models.gpt_inputs(shape, np.random.default_rng(0))
    calls = []
    impl = matmul_module.matmul.impl

    def recording(a, b, **params):
        a_shape, b_shape = np.shape(a), np.shape(b)
        if len(b_shape) == 2 and len(a_shape) > 2:
            a_shape = (int(np.prod(a_shape[:-1])), a_shape[-1])
        calls.append((tuple(a_shape), tuple(b_shape)))
        return impl(a, b, **params)

    monkeypatch.setattr(matmul_module.matmul, "impl", recording)
    fg.value_and_grad(models.gpt_loss(shape))(params, **data)
    listed = benchmark_module("model_products").products(shape)
    assert sorted(calls) == sorted((a, b) for _, a, b, _ in listed)
