"""``fg.ops``: JAX's segment reductions. Values against JAX's ``jax.ops`` and against a
loop over the segments in NumPy, derivatives against JAX, central differences and a
loop, under jit (ids traced), vmap (against a loop) and grad; the identities of empty
segments per dtype, ids out of range, PyTorch's tensors, and the errors."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

NAMES = ["segment_sum", "segment_prod", "segment_max", "segment_min"]
REDUCE = {
    "segment_sum": np.sum,
    "segment_prod": np.prod,
    "segment_max": np.max,
    "segment_min": np.min,
}
RNG = np.random.default_rng(3)
DATA = RNG.uniform(-2.0, 2.0, (40, 3))
IDS = RNG.integers(-2, 9, 40)  # some negative, some past 6 segments: dropped
N = 6


def _by_loop(name, data, ids, n, identity):
    rows = []
    for k in range(n):
        members = data[ids == k]
        rows.append(
            REDUCE[name](members, axis=0) if len(members) else np.full(data.shape[1:], identity)
        )
    return np.array(rows, dtype=data.dtype)


IDENTITY = {"segment_sum": 0.0, "segment_prod": 1.0, "segment_max": -np.inf, "segment_min": np.inf}


@pytest.mark.parametrize("name", NAMES)
def test_values_are_a_loops_over_the_segments_eager_and_jitted(name):
    f = getattr(fg.ops, name)
    want = _by_loop(name, DATA, IDS, N, IDENTITY[name])
    np.testing.assert_allclose(f(DATA, IDS, N), want, rtol=1e-14)
    jitted = fg.jit(lambda d, i: f(d, i, num_segments=N))(DATA, IDS)  # ids traced
    np.testing.assert_allclose(jitted, want, rtol=1e-14)
    # without num_segments: one more than the largest id
    np.testing.assert_allclose(
        f(DATA, IDS), _by_loop(name, DATA, IDS, IDS.max() + 1, IDENTITY[name]), rtol=1e-14
    )


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("mode", [None, "clip"])
def test_values_are_jaxs(name, mode):
    jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
    jax.config.update("jax_enable_x64", True)
    want = getattr(jax.ops, name)(DATA, IDS, N, mode=mode)
    np.testing.assert_allclose(getattr(fg.ops, name)(DATA, IDS, N, mode=mode), want, rtol=1e-14)
    ints = RNG.integers(-5, 5, (40, 2))
    want = getattr(jax.ops, name)(ints, IDS, N)
    got = getattr(fg.ops, name)(ints, IDS, N)
    assert got.dtype == np.asarray(want).dtype  # an empty segment holds the dtype's identity
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["segment_sum", "segment_max", "segment_min"])
def test_gradients_are_jaxs(name):
    jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
    jax.config.update("jax_enable_x64", True)
    w = RNG.normal(size=(N, 3))

    def jax_loss(d):
        return jax.numpy.sum(
            jax.numpy.where(jax.numpy.isfinite(out := getattr(jax.ops, name)(d, IDS, N)), out, 0.0)
            * w
        )

    want = jax.grad(jax_loss)(DATA)
    f = getattr(fg.ops, name)
    loss = lambda d, i: fnp.sum(fnp.where(fnp.isfinite(out := f(d, i, N)), out, 0.0) * w)
    np.testing.assert_allclose(fg.grad(loss)(DATA, IDS), want, rtol=1e-14)
    np.testing.assert_allclose(fg.jit(fg.grad(loss))(DATA, IDS), want, rtol=1e-14)


@pytest.mark.parametrize("name", NAMES)
def test_derivatives_against_central_differences(name):
    # the ids within range: every segment reached, so every value is finite
    ids = RNG.integers(0, N, 40)
    ids[:N] = np.arange(N)
    f = getattr(fg.ops, name)
    fg.check_grads(lambda d: f(d, ids, N), (DATA,), order=2, modes=("fwd", "rev"))
    fg.check_grads(
        lambda d: fg.jit(lambda d, i: f(d, i, N))(d, ids), (DATA,), order=1, modes=("fwd", "rev")
    )


@pytest.mark.parametrize("name", NAMES)
def test_vmap_over_data_and_ids_equals_a_loop(name):
    f = getattr(fg.ops, name)
    data = RNG.uniform(0.5, 1.5, (3, 20, 2))
    ids = RNG.integers(0, N, (3, 20))
    ids[:, :N] = np.arange(N)  # every segment reached: no -inf for sin to warn about
    got = fg.vmap(lambda d, i: f(d, i, N))(data, ids)
    want = np.stack([f(d, i, N) for d, i in zip(data, ids)])
    np.testing.assert_allclose(got, want, rtol=1e-14)
    # per-example gradients
    loss = lambda d, i: fnp.sum(fnp.sin(f(d, i, N)))
    got = fg.vmap(fg.grad(loss))(data, ids)
    want = np.stack([fg.grad(loss)(d, i) for d, i in zip(data, ids)])
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_a_graph_networks_message_passing_step():
    # messages along edges summed and maxed per receiving node, under jit and grad
    senders, receivers = RNG.integers(0, 5, 30), RNG.integers(0, 5, 30)
    nodes = RNG.normal(size=(5, 4))

    def step(w, nodes, senders, receivers):
        messages = fnp.tanh(nodes[senders] @ w)
        pooled = fg.ops.segment_sum(messages, receivers, 5) + fg.ops.segment_max(
            messages, receivers, 5
        )
        return fnp.sum(fnp.where(fnp.isfinite(pooled), pooled, 0.0) ** 2)

    w = RNG.normal(size=(4, 4))
    eager = fg.value_and_grad(step)(w, nodes, senders, receivers)
    jitted = fg.jit(fg.value_and_grad(step))(w, nodes, senders, receivers)
    np.testing.assert_allclose(jitted[0], eager[0], rtol=1e-13)
    np.testing.assert_allclose(jitted[1], eager[1], rtol=1e-13)
    fg.check_grads(lambda w: step(w, nodes, senders, receivers), (w,), order=1, modes=("rev",))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
@pytest.mark.parametrize("name", ["segment_max", "segment_min"])
def test_an_empty_segment_holds_the_dtypes_identity(name, dtype):
    got = getattr(fg.ops, name)(np.ones(2, dtype), np.array([0, 0]), num_segments=2)
    assert got.dtype == dtype
    if dtype is np.float32:
        want = -np.inf if name == "segment_max" else np.inf
    elif dtype is np.int32:
        info = np.iinfo(np.int32)
        want = info.min if name == "segment_max" else info.max
    else:
        want = name == "segment_min"
    assert got[1] == want


def test_two_dimensional_ids_and_no_segments():
    data = RNG.normal(size=(2, 3, 4))
    ids = np.array([[0, 1, 1], [2, 0, 9]])
    got = fg.ops.segment_sum(data, ids, num_segments=3)
    want = np.stack([data[ids == k].sum(axis=0) for k in range(3)])
    np.testing.assert_allclose(got, want)
    assert fg.ops.segment_sum(data, ids, num_segments=0).shape == (0, 4)
    assert fg.ops.segment_max(np.zeros((0, 2)), np.zeros(0, int)).shape == (0, 2)


def test_pytorch_tensors_stay_tensors():
    torch = pytest.importorskip("torch")
    for name in NAMES:
        got = getattr(fg.ops, name)(torch.tensor(DATA), torch.tensor(IDS), N)
        assert isinstance(got, torch.Tensor)
        np.testing.assert_allclose(got.numpy(), getattr(fg.ops, name)(DATA, IDS, N), rtol=1e-14)


def test_errors_name_the_operation_and_a_fix():
    with pytest.raises(fg.FuncgradError, match=r"segment_sum: segment_ids traced .* num_segments="):
        fg.jit(lambda d, i: fg.ops.segment_sum(d, i))(DATA, IDS)
    with pytest.raises(fg.FuncgradError, match=r"segment_max: segment_ids must hold integers"):
        fg.ops.segment_max(DATA, IDS.astype(float), N)
    with pytest.raises(fg.FuncgradError, match=r"must begin with the shape of segment_ids"):
        fg.ops.segment_min(DATA, IDS[:5], N)
    with pytest.raises(fg.FuncgradError, match=r"mode must be one of"):
        fg.ops.segment_prod(DATA, IDS, N, mode="wrap")
    with pytest.raises(fg.FuncgradError, match=r"num_segments must be an integer; got 2.5"):
        fg.ops.segment_sum(DATA, IDS, 2.5)
    with pytest.raises(fg.FuncgradError, match=r"num_segments must not be negative"):
        fg.ops.segment_sum(DATA, IDS, -1)
    with pytest.raises(fg.FuncgradError, match=r"num_segments must be a number"):
        fg.jit(lambda d, n: fg.ops.segment_sum(d, IDS, n))(DATA, 3)
