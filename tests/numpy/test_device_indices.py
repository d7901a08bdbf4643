"""Indices that live on another library's device (token ids on a GPU), and gathers'
cotangents as scatter-adds there.

CI has no GPU: the stand-ins are array-api-strict's second device, which no NumPy
array shares, and PyTorch CPU tensors whose ``__array__`` refuses, so a conversion
to NumPy or a move between devices fails here as it would on a GPU. The oracle is
the same function on NumPy arrays.
"""

import tracemalloc

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.namespaces import library_of
from funcgrad.rules.foreign_indexing import _sorted_segment_sums, scatter_add_rows
from tests.helpers import benchmark_models, device_makers, to_numpy, torch

xs = pytest.importorskip("array_api_strict", reason="the backends extra: pip install -e '.[test]'")
DEVICE = xs.Device("device1")
RNG = np.random.default_rng(5)
MAKERS = device_makers()
pytestmark = pytest.mark.usefixtures("torch_refuses_numpy")


def _same_place(got, like):
    assert library_of(got) == library_of(like)
    assert getattr(got, "device", None) == like.device


EMBEDDINGS = {
    "rows": lambda w, i: w[i],
    "take": lambda w, i: fnp.take(w, i, axis=0),
    "columns": lambda w, i: w[:, i],
    "two arrays": lambda w, i: w[i, i % 4],
    "clip": lambda w, i: fnp.take(w, i + 3, axis=0, mode="clip"),
    "wrap": lambda w, i: fnp.take(w, i * 3, axis=0, mode="wrap"),
}


@pytest.mark.parametrize("lookup", sorted(EMBEDDINGS))
@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_a_lookup_by_device_ids_and_its_cotangent_stay_on_the_device(lookup, backend):
    make = MAKERS[backend]
    w = RNG.normal(size=(11, 6))
    ids = RNG.integers(-6, 6, size=(3, 4))  # repeats and negative ids, as NumPy reads them
    f = EMBEDDINGS[lookup]

    def loss(w, ids):
        return fnp.sum(fnp.tanh(f(w, ids)) * 1.5 + f(w, ids))

    want_value, want_grad = fg.value_and_grad(loss)(w, ids)
    a, i = make(w), make(ids)
    value, grad = fg.value_and_grad(loss)(a, i)
    _same_place(grad, a)
    np.testing.assert_allclose(to_numpy(value), want_value, rtol=1e-13)
    np.testing.assert_allclose(to_numpy(grad), want_grad, rtol=1e-13, atol=1e-15)
    # forward mode and a vmap over examples' ids, against NumPy's
    t = RNG.normal(size=w.shape)
    tangent = fg.jvp(lambda v: loss(v, i), (a,), (make(t),))[1]
    np.testing.assert_allclose(
        to_numpy(tangent), fg.jvp(lambda v: loss(v, ids), (w,), (t,))[1], rtol=1e-12
    )
    per_example = fg.vmap(fg.grad(loss), in_axes=(None, 0))(a, i)
    np.testing.assert_allclose(
        to_numpy(per_example), np.stack([fg.grad(loss)(w, row) for row in ids]), rtol=1e-12
    )


@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_scatter_adds_at_device_ids(backend):
    make = MAKERS[backend]
    x, v = RNG.normal(size=(7, 3)), RNG.normal(size=(5, 3))
    ids = np.array([2, 6, 2, -1, 0])
    f = lambda x, v, i: fnp.sum(fnp.sin(fg.at(x)[i].add(v * 2.0)))
    want = fg.grad(f, argnums=(0, 1))(x, v, ids)
    got = fg.grad(f, argnums=(0, 1))(make(x), make(v), make(ids))
    for g, w in zip(got, want):
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-13)


TAKEN_ALONG = [  # (x's shape, the indices' shape): the indices broadcast x, or x them
    ((2, 5), (2, 3)),
    ((1, 5), (3, 2)),
    ((3, 5), (1, 4)),
    ((2, 1, 5), (1, 3, 2)),
]


@pytest.mark.parametrize("x_shape, idx_shape", TAKEN_ALONG)
@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_take_along_broadcasts_as_numpy_does(x_shape, idx_shape, backend):
    # an axis of 1 in x and more in the indices: the cotangents along it are summed
    make = MAKERS[backend]
    a, idx = RNG.normal(size=x_shape), RNG.integers(-5, 5, size=idx_shape)

    def loss(i):
        return lambda x: fnp.sum(fnp.take_along_axis(x, i, axis=-1) ** 3)

    want_value, want_grad = fg.value_and_grad(loss(idx))(a)
    step = fg.value_and_grad(loss(make(idx)))
    for run in (step, fg.jit(step)):
        value, grad = run(make(a))
        _same_place(grad, make(a))
        np.testing.assert_allclose(to_numpy(value), want_value, rtol=1e-13)
        np.testing.assert_allclose(to_numpy(grad), want_grad, rtol=1e-13, atol=1e-15)


def test_segment_sums_in_the_standards_functions_equal_np_add_at():
    for n, m in ((0, 4), (1, 4), (9, 3), (64, 5), (257, 17)):
        positions = RNG.integers(0, m, size=n)
        if n == 64:
            positions[:] = 2  # one long run
        rows = RNG.normal(size=(2, n, 3))
        out = RNG.normal(size=(2, m, 3))
        want = out.copy()
        np.add.at(want, (slice(None), positions), rows)
        got = _sorted_segment_sums(
            xs, xs.asarray(out, device=DEVICE), xs.asarray(positions, device=DEVICE),
            xs.asarray(rows, device=DEVICE),
        )  # fmt: skip
        assert got.device == DEVICE
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-13, atol=1e-14)
    if torch is not None:  # PyTorch's own index_add
        got = scatter_add_rows(
            None, torch.asarray(out), torch.asarray(positions), torch.asarray(rows)
        )
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-13)


def test_an_embeddings_cotangent_is_a_scatter_add_not_a_dense_matrix():
    """20,000 positions into 2,000 rows: a one-hot matrix would be 320 MB; the scatter-add
    keeps the step's peak a small multiple of the cotangent itself (0.6 MB)."""
    w = xs.asarray(RNG.normal(size=(2000, 4)), device=DEVICE)
    for ids in (
        xs.asarray(RNG.integers(0, 2000, size=20_000), device=DEVICE),  # on the device
        RNG.integers(0, 2000, size=20_000),  # a NumPy index: a static parameter
    ):
        tracemalloc.start()
        g = fg.grad(lambda w: fnp.sum(w[ids] * 2.0))(w)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 20 * 20_000 * 4 * 8, peak
        want = np.zeros((2000, 4))
        np.add.at(want, to_numpy(ids) if library_of(ids) != "numpy" else ids, 2.0)
        np.testing.assert_allclose(to_numpy(g), want)


OUT_OF_BOUNDS = {  # name -> (rows, columns) of w[rows, cols] on a (4, 5) array
    "a column past the end": ([0, 1], [2, 5]),  # flat position 10: row 2's first, read silently
    "a column before the start": ([0, 1], [2, -6]),
    "a row before the start": ([0, -5], [2, 1]),  # -1 once counted from the end
    "a row past the end": ([4, 0], [0, 1]),
}
INDEXED = {
    "read": lambda w, i, j: w[i, j],
    "add": lambda w, i, j: fg.at(w)[i, j].add(1.5),
    "set": lambda w, i, j: fg.at(w)[i, j].set(1.5),
    "rows": lambda w, i, j: fnp.take(w, i, axis=0),
}


# the rows alone meet only the rows' bounds
REFUSED = [
    (how, where)
    for how in sorted(INDEXED)
    for where in sorted(OUT_OF_BOUNDS)
    if how != "rows" or "row" in where
]


@pytest.mark.parametrize("how, where", REFUSED)
@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_an_index_out_of_bounds_is_refused_as_numpy_refuses_it(how, where, backend):
    # a flat position made of an index past its axis's end would read or write another
    # element: each axis's indices are checked, eagerly, jitted and under grad
    make, f = MAKERS[backend], INDEXED[how]
    w = RNG.normal(size=(4, 5))
    i, j = (np.array(v) for v in OUT_OF_BOUNDS[where])
    loss = lambda w, i, j: fnp.sum(fnp.sin(f(w, i, j)))
    with pytest.raises(IndexError):
        loss(w, i, j)  # NumPy's answer
    for run in (loss, fg.jit(loss), fg.grad(loss)):
        with pytest.raises(IndexError, match="out of"):
            run(make(w), make(i), make(j))


def test_what_a_device_index_cannot_do_is_refused_by_name():
    w = xs.asarray(RNG.normal(size=(4, 5)), device=DEVICE)
    ids = xs.asarray(np.array([0, 2]), device=DEVICE)
    with pytest.raises(fg.NamespaceError, match="gather"):
        fg.grad(lambda w: fnp.sum(w[ids, 1:3]))(w)  # an integer array beside a partial slice
    with pytest.raises(fg.IndexingError, match="integers"):
        fg.grad(lambda w: fnp.sum(w[xs.asarray(np.array([1.0]), device=DEVICE)]))(w)


def _gpt_logits(shape, models, p, tokens, causal):
    """benchmarks/models.py's GPT, its causal mask passed in (made on the device)."""
    _V, D, H, T, B = (shape[k] for k in "VDHTB")
    x = p["emb"][tokens] + p["pos"]
    for lay in p["layers"]:
        h = models._layer_norm(x, lay["g1"], lay["b1"]) @ lay["qkv"]
        q, k, v = (
            fnp.transpose(fnp.reshape(a, (B, T, H, D // H)), (0, 2, 1, 3))
            for a in fnp.split(h, 3, axis=-1)
        )
        s = fnp.where(causal, q @ fnp.swapaxes(k, -1, -2) / float(np.sqrt(D // H)), -1e9)
        a = fg.nn.softmax(s, axis=-1) @ v
        x = x + fnp.reshape(fnp.transpose(a, (0, 2, 1, 3)), (B, T, D)) @ lay["proj"]
        h = models._layer_norm(x, lay["g2"], lay["b2"]) @ lay["fc"]
        mlp = fg.nn.gelu(h, approximate=True)  # the exact one needs erf, not in the standard
        x = x + mlp @ lay["out"]
    return x @ fnp.transpose(p["emb"])


def _gpt_loss(shape, models):
    """benchmarks/models.py's GPT step, its causal mask passed in (made on the device)."""

    def loss(p, tokens, targets, causal):
        logp = fg.nn.log_softmax(_gpt_logits(shape, models, p, tokens, causal), axis=-1)
        return -fnp.mean(fnp.take_along_axis(logp, targets[..., None], axis=-1))

    return loss


@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_a_gpt_step_on_the_device_equals_numpys(backend):
    models = benchmark_models()
    make = MAKERS[backend]
    shape = {"V": 11, "D": 8, "H": 2, "T": 5, "B": 3, "L": 2}
    params, data = models.gpt_inputs(shape, RNG)
    causal = np.tril(np.ones((5, 5), bool))
    loss = _gpt_loss(shape, models)
    want_loss, want = fg.value_and_grad(loss)(params, data["tokens"], data["targets"], causal)
    on_device = fg.tree_util.tree_map(make, params)
    step = fg.value_and_grad(loss)
    for run in (step, fg.jit(step)):  # eager, and a plan of the library's calls
        got_loss, got = run(on_device, make(data["tokens"]), make(data["targets"]), make(causal))
        np.testing.assert_allclose(to_numpy(got_loss), want_loss, rtol=1e-13)
        for g, w, like in zip(
            fg.tree_util.tree_leaves(got),
            fg.tree_util.tree_leaves(want),
            fg.tree_util.tree_leaves(on_device),
        ):
            _same_place(g, like)
            np.testing.assert_allclose(to_numpy(g), w, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("backend", sorted(MAKERS))
@pytest.mark.parametrize("how", ["set", "max", "min", "multiply"])
def test_an_update_at_device_ids_stays_on_the_device(backend, how):
    make = MAKERS[backend]
    x, v = RNG.uniform(0.5, 2.0, (6, 3)), RNG.uniform(0.5, 2.0, (5, 3))
    ids = np.array([1, 4, 1, 0, 4])  # repeats: the last write wins, or they meet in turn

    def f(x, v, i):
        return fnp.sum(fnp.sin(getattr(fg.at(x)[i], how)(v * 2.0)) * fnp.cos(x))

    want_value, want = fg.value_and_grad(f, argnums=(0, 1))(x, v, ids)
    a, b, i = make(x), make(v), make(ids)
    for run in (fg.value_and_grad(f, argnums=(0, 1)), fg.jit(fg.value_and_grad(f, argnums=(0, 1)))):
        value, grads = run(a, b, i)
        np.testing.assert_allclose(to_numpy(value), want_value, rtol=1e-13)
        for got, expected, like in zip(grads, want, (a, b)):
            _same_place(got, like)
            np.testing.assert_allclose(to_numpy(got), expected, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_modes_at_device_ids_stay_on_the_device(backend):
    make = MAKERS[backend]
    x, v = RNG.normal(size=(4, 2)), RNG.normal(size=(5, 2))
    ids = np.array([0, 7, 1, -1, -9])  # past the end, from the end, before the start
    calls = {
        "get clip": lambda x, v, i: fg.at(x)[i].get(mode="clip"),
        "get fill": lambda x, v, i: fg.at(x)[i].get(mode="fill", fill_value=-3.0),
        "add drop": lambda x, v, i: fg.at(x)[i].add(v, mode="drop"),
        "max clip": lambda x, v, i: fg.at(x)[i].max(v, mode="clip"),
        "segment_sum": lambda x, v, i: fg.ops.segment_sum(v, i, num_segments=4),
        "segment_max": lambda x, v, i: fg.ops.segment_max(v, i, num_segments=4),
    }
    for name, call in calls.items():
        got = call(make(x), make(v), make(ids))
        _same_place(got, make(x))
        np.testing.assert_allclose(to_numpy(got), call(x, v, ids), rtol=1e-14, err_msg=name)


def _one_hot_loss(logits_of):
    """A loss in the style of JAX's examples: log-softmax against one-hot targets (the
    cotangent reaching log_softmax is the targets times a constant, a plain device array,
    while its value is traced: issue 75's defect)."""

    def loss(p, x, one_hot):
        logp = fg.nn.log_softmax(logits_of(p, x), axis=-1)
        return -fnp.mean(fnp.sum(logp * one_hot, axis=-1))

    return loss


def _cnn_logits(models, p, images):
    nhwc = ("NHWC", "HWIO", "NHWC")
    h = fg.nn.conv_general_dilated(images, p["c1"], (1, 1), "SAME", dimension_numbers=nhwc)
    h = fg.nn.max_pool(fg.nn.relu(h + p["b1"]), (2, 2), strides=(2, 2))
    h = fg.nn.conv_general_dilated(h, p["c2"], (1, 1), "SAME", dimension_numbers=nhwc)
    h = fg.nn.max_pool(fg.nn.relu(h + p["b2"]), (2, 2), strides=(2, 2))
    return fnp.reshape(h, (h.shape[0], -1)) @ p["d"] + p["b3"]


@pytest.mark.parametrize("backend", sorted(MAKERS))
@pytest.mark.parametrize("model", ["gpt", "cnn"])
@pytest.mark.parametrize("targets", ["passed", "closed over"])
def test_a_jitted_step_with_one_hot_targets_runs_on_the_device(backend, model, targets):
    models = benchmark_models()
    make = MAKERS[backend]
    if model == "gpt":
        shape = {"V": 11, "D": 8, "H": 2, "T": 5, "B": 3, "L": 1}
        params, data = models.gpt_inputs(shape, RNG)
        x = (data["tokens"], np.tril(np.ones((5, 5), bool)))
        labels, classes = data["targets"], 11
        logits_of = lambda p, x: _gpt_logits(shape, models, p, *x)
    else:
        params, data = models.cnn_inputs(RNG, batch=4)
        x, labels, classes = data["images"], data["labels"], 10
        logits_of = lambda p, x: _cnn_logits(models, p, x)
    one_hot = np.eye(classes)[labels]
    loss = _one_hot_loss(logits_of)
    want_loss, want = fg.value_and_grad(loss)(params, x, one_hot)
    on_device = fg.tree_util.tree_map(make, params)
    if targets == "passed":
        step = fg.jit(fg.value_and_grad(loss))
        got_loss, got = step(on_device, fg.tree_util.tree_map(make, x), make(one_hot))
    else:  # a constant of the plan: the cotangent log_softmax gets is a plain device array
        hot = make(one_hot)
        step = fg.jit(fg.value_and_grad(lambda p, x: loss(p, x, hot)))
        got_loss, got = step(on_device, fg.tree_util.tree_map(make, x))
    np.testing.assert_allclose(to_numpy(got_loss), want_loss, rtol=1e-12)
    for g, w, like in zip(
        fg.tree_util.tree_leaves(got),
        fg.tree_util.tree_leaves(want),
        fg.tree_util.tree_leaves(on_device),
    ):
        _same_place(g, like)
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-9, atol=1e-13)
