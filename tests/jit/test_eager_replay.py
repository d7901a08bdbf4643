"""An eager gradient's backward pass replayed as a plan once its graph repeats
(jit/eager_replay.py). Oracle: the fold itself, run by a fresh gradient function (whose
first calls fold) or inside ``fg.disable_jit()``, to the bit; central differences for one
model; the eager semantics a plan must keep (effects, errors, exact paths) checked by
calling past the point where the plan takes over."""

import warnings
import weakref

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import NoDerivativeError, NonFiniteError
from funcgrad.jit import eager_replay
from funcgrad.transforms import reverse
from tests.helpers import device_makers, numeric_grad, requires_torch, to_numpy, torch

CALLS = eager_replay.REPEATS + 3  # folds, the compile, then replays
RNG = np.random.default_rng(3)


def _mlp(params, x, scale=0.5):
    """A small model of more than MIN_NODES nodes: products, tanh, a softmax, a layer norm
    with x ** 2, slicing, a mean."""
    h = x
    for w, b in params["layers"]:
        h = fnp.tanh(h @ w + b) * scale
        mu = fnp.mean(h, axis=-1, keepdims=True)
        h = (h - mu) / fnp.sqrt(fnp.mean((h - mu) ** 2, axis=-1, keepdims=True) + 1e-5)
    logits = h[:, :3] @ params["head"]
    logp = fg.nn.log_softmax(logits, axis=-1)
    return -fnp.mean(logp[:, 0]) + 0.1 * fnp.sum(params["head"] ** 2)


def _params(dtype=np.float64, width=6, depth=4):
    layers = [
        (
            RNG.standard_normal((width, width)).astype(dtype),
            RNG.standard_normal(width).astype(dtype),
        )
        for _ in range(depth)
    ]
    return {"layers": layers, "head": RNG.standard_normal((3, 4)).astype(dtype)}


def _leaves(tree):
    return fg.tree_util.tree_leaves(tree)


def _same_bits(a, b):
    for x, y in zip(_leaves(a), _leaves(b), strict=True):
        assert type(x) is type(y)
        if torch is not None and torch.is_tensor(x):
            assert x.dtype == y.dtype and torch.equal(x, y)
        else:
            x, y = np.asarray(x), np.asarray(y)
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)


@pytest.fixture(autouse=True)
def fresh_replays(monkeypatch):
    """Each test starts with no graph seen: a function's plans are shared by all its
    gradient functions, so the module's models would carry them from test to test."""
    monkeypatch.setattr(eager_replay, "_BY_FUNCTION", weakref.WeakKeyDictionary())


@pytest.fixture
def folds(monkeypatch):
    """How many reverse folds value_and_grad runs (a replayed call runs none)."""
    count = [0]
    fold_back = reverse.fold_back

    def counted(*args, **kwargs):
        count[0] += 1
        return fold_back(*args, **kwargs)

    monkeypatch.setattr(reverse, "fold_back", counted)
    return count


def _folded(fun, *args, **kwargs):
    with fg.disable_jit():
        return fun(*args, **kwargs)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_replays_give_the_folds_bits_on_new_values(dtype, folds):
    f = fg.value_and_grad(_mlp)
    x = RNG.standard_normal((5, 6)).astype(dtype)
    for _ in range(CALLS):
        p = _params(dtype)  # new values each call, the same graph
        got = f(p, x)
        _same_bits(got, _folded(f, p, x))
    # the first calls fold; after the compile, none does (only the disable_jit oracles)
    assert folds[0] == 2 * CALLS - (CALLS - eager_replay.REPEATS)


def test_replayed_gradient_against_central_differences():
    f = fg.grad(lambda w, x: _mlp({"layers": [(w, w[0])] * 3, "head": w[:3, :4]}, x))
    w, x = RNG.standard_normal((6, 6)), RNG.standard_normal((5, 6))
    for _ in range(CALLS):
        g = f(w, x)
    want = numeric_grad(lambda w: _mlp({"layers": [(w, w[0])] * 3, "head": w[:3, :4]}, x), (w,), 0)
    np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-7)


def test_each_shape_and_each_constant_has_its_own_plan():
    f = fg.grad(_mlp)
    p = _params()
    for k in range(3 * CALLS):
        x = RNG.standard_normal((2 + k % 3, 6))  # three shapes, in turns
        scale = 0.5 if k % 2 else 0.25  # a constant written into the graph, by value
        _same_bits(f(p, x, scale), _folded(f, p, x, scale))


def test_gradients_of_earlier_calls_are_not_overwritten():
    f = fg.grad(_mlp)
    x = RNG.standard_normal((5, 6))
    kept = []
    for _ in range(CALLS):
        g = f(_params(), x)
        kept.append((g, fg.tree_util.tree_map(np.copy, g)))
    for g, copy in kept:
        _same_bits(g, copy)


def test_an_unused_variable_gets_zeros_and_argnums_and_aux_hold():
    def loss(p, unused, x):
        return _mlp(p, x), {"note": x.sum()}

    f = fg.value_and_grad(loss, argnums=(0, 1), has_aux=True)
    x = RNG.standard_normal((5, 6))
    for _ in range(CALLS):
        p, u = _params(), RNG.standard_normal(3)
        (value, aux), (gp, gu) = f(p, u, x)
        _same_bits(((value, aux), (gp, gu)), _folded(f, p, u, x))
        np.testing.assert_array_equal(gu, np.zeros(3))


def test_inside_other_transforms_the_fold_runs_traced():
    f = fg.grad(_mlp)
    p, x = _params(), RNG.standard_normal((5, 6))
    for _ in range(CALLS):
        f(p, x)  # the plan exists now
    jitted = fg.jit(f)
    batched = fg.vmap(f, in_axes=(None, 0))
    xs = RNG.standard_normal((3, 5, 6))
    for _ in range(2):
        for a, b in zip(_leaves(jitted(p, x)), _leaves(f(p, x))):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        looped = [f(p, xi) for xi in xs]
        for k, leaf in enumerate(_leaves(batched(p, xs))):
            np.testing.assert_allclose(
                leaf, np.stack([_leaves(g)[k] for g in looped]), rtol=1e-10, atol=1e-12
            )
    # a gradient of the gradient: the inner one sees traced values, every call
    second = fg.grad(lambda w: fnp.sum(f({**p, "head": w}, x)["head"] ** 2))
    for _ in range(CALLS):
        h = second(p["head"])
    want = numeric_grad(
        lambda w: np.sum(_folded(f, {**p, "head": w}, x)["head"] ** 2), (p["head"],), 0
    )
    np.testing.assert_allclose(h, want, rtol=1e-5, atol=1e-7)


def test_a_custom_rule_runs_every_call():
    calls = []

    @fg.custom_vjp
    def scaled(x):
        return x * 2.0

    def bwd(res, g):
        calls.append(1)
        return (g * 2.0,)

    scaled.defvjp(lambda x: (scaled(x), None), bwd)
    f = fg.grad(lambda p, x: _mlp(p, scaled(x)), argnums=(0, 1))
    p, x = _params(), RNG.standard_normal((5, 6))
    for _ in range(CALLS):
        f(p, x)
    assert len(calls) == CALLS


def test_debug_nans_names_the_node_after_replays():
    f = fg.grad(lambda p, x: _mlp(p, x) + fnp.sqrt(x[0, 0]), argnums=(0, 1))
    p, x = _params(), RNG.standard_normal((5, 6)) ** 2 + 0.1
    for _ in range(CALLS):
        f(p, x)
    bad = x.copy()
    bad[0, 0] = 0.0  # sqrt's slope there is infinite
    with np.errstate(all="ignore"):
        replayed = f(p, bad)
        assert np.isinf(replayed[1][0, 0])
        _same_bits(replayed, _folded(f, p, bad))
        with fg.debug_nans(), pytest.raises(NonFiniteError, match="sqrt"):
            f(p, bad)


def test_a_rule_that_reads_values_is_folded_every_call():
    # eigh's derivative at repeated eigenvalues is raised eagerly; a plan would give NaN
    x = RNG.standard_normal((5, 6))

    def loss(p, a):
        _, v = fnp.linalg.eigh(a + a.T)
        return _mlp(p, x) + fnp.sum(v[:, 0] ** 2)

    f = fg.grad(loss, argnums=(0, 1))
    p = _params()
    for _ in range(CALLS):
        f(p, RNG.standard_normal((6, 6)))
    with pytest.raises(NoDerivativeError):
        f(p, np.eye(6) * 0.5)
    # x ** 0 by a zero array: flat, 0 at x = 0 too (a plan's general formula gives 0 * inf)
    g = fg.grad(lambda p, x, e: _mlp(p, x) + fnp.sum(x**e))
    x, e = np.zeros((5, 6)), np.zeros((5, 6))
    for _ in range(CALLS):
        _same_bits(g(p, x, e), _folded(g, p, x, e))


@requires_torch
def test_replays_on_torch_tensors_give_the_folds_bits(folds):
    f = fg.value_and_grad(_mlp)
    x = torch.asarray(RNG.standard_normal((5, 6)), dtype=torch.float32)
    for _ in range(CALLS):
        p = fg.tree_util.tree_map(
            lambda a: torch.asarray(a, dtype=torch.float32), _params(np.float32)
        )
        got = f(p, x)
        _same_bits(got, _folded(f, p, x))
    assert folds[0] == 2 * CALLS - (CALLS - eager_replay.REPEATS)


def _layer(w, x):
    """A layer's loss of between MIN_LIBRARY_NODES and MIN_NODES nodes."""
    h = fnp.tanh(x @ w) * 0.5
    return fnp.sum(h * h / 3.0 + fnp.exp(-h))


@requires_torch
def test_a_small_graph_replays_on_another_librarys_arrays_only(folds):
    w, x = RNG.standard_normal((4, 3)), RNG.standard_normal((5, 4))
    f = fg.value_and_grad(_layer)
    for k in range(CALLS):  # NumPy's arrays: folded every call
        np.testing.assert_allclose(f(w + k, x)[1], _folded(f, w + k, x)[1], rtol=0)
    assert folds[0] == 2 * CALLS
    f, folds[0] = fg.value_and_grad(_layer), 0
    t = torch.asarray(x)
    for k in range(CALLS):  # PyTorch's: a fold's Python costs more a node, so replayed
        _same_bits(f(torch.asarray(w + k), t), _folded(f, torch.asarray(w + k), t))
    assert folds[0] == 2 * CALLS - (CALLS - eager_replay.REPEATS)


def test_small_graphs_and_graphs_that_never_repeat_fold(folds):
    f = fg.grad(lambda x: fnp.sum(fnp.sin(x) * x))  # far fewer than MIN_NODES nodes
    x = np.arange(3.0)
    for _ in range(CALLS):
        np.testing.assert_allclose(f(x), np.sin(x) + x * np.cos(x))
    assert folds[0] == CALLS
    g = fg.grad(_mlp)
    p, x = _params(), RNG.standard_normal((5, 6))
    for k in range(CALLS):
        _same_bits(g(p, x, 0.5 + k), _folded(g, p, x, 0.5 + k))  # a new constant each call
    assert folds[0] == 3 * CALLS


def _embedded(params, tokens, mask):
    """An embedding read by NumPy's integer-array indexing (getitem's parameter, which the
    plan takes as gather's operand), with repeated tokens, a negative one and a mask."""
    h = params["emb"][tokens]  # (5, 6)
    h = h + params["emb"][:, 0][tokens[::-1]][:, None]
    picked = h[mask] if mask is not None else h
    return _mlp(params, h) + fnp.sum(picked**2) * 0.01


def test_integer_array_indices_are_the_plans_inputs(folds):
    f = fg.value_and_grad(_embedded)
    params = {**_params(), "emb": RNG.standard_normal((9, 6))}
    for _ in range(CALLS):
        tokens = RNG.integers(-9, 9, size=5)
        tokens[1] = tokens[0]  # a repeated token: its cotangents add up
        _same_bits(f(params, tokens, None), _folded(f, params, tokens, None))
    assert folds[0] == 2 * CALLS - (CALLS - eager_replay.REPEATS)
    # a boolean mask's result shape depends on its values: folded every call
    before = folds[0]
    for k in range(CALLS):
        tokens, mask = RNG.integers(0, 9, size=5), np.arange(5) % (2 + k % 2) == 0
        _same_bits(f(params, tokens, mask), _folded(f, params, tokens, mask))
    assert folds[0] - before == 2 * CALLS


def test_loops_checkpoints_and_forward_over_reverse_keep_their_answers():
    def loss(p, x):
        h = fg.checkpoint(lambda h: fnp.tanh(h @ p["layers"][0][0]))(x)
        h, _ = fg.lax.scan(
            lambda c, w: (fnp.tanh(c @ w), None), h, fnp.stack([w for w, _ in p["layers"]])
        )
        return _mlp(p, h)

    f = fg.grad(loss)
    p, x = _params(), RNG.standard_normal((5, 6))
    for _ in range(CALLS):
        _same_bits(f(p, x), _folded(f, p, x))
    # jvp of the gradient (forward over reverse): the inner fold sees dual numbers
    g = fg.grad(lambda w, x: _mlp({**p, "head": w}, x))
    w, t = p["head"], RNG.standard_normal(p["head"].shape)
    for _ in range(CALLS):
        _, tangent = fg.jvp(lambda w: g(w, x), (w,), (t,))
    eps = 1e-6
    want = (_folded(g, w + eps * t, x) - _folded(g, w - eps * t, x)) / (2 * eps)
    np.testing.assert_allclose(tangent, want, rtol=1e-5, atol=1e-7)


def test_complex_parameters_replay_with_the_folds_bits(folds):
    def loss(ws, x):
        h = x
        for w in ws:
            h = fnp.tanh(h @ w) * 0.5
        return fnp.sum(fnp.abs(h) ** 2) + fnp.real(fnp.sum(h * fnp.conj(ws[0][0, 0])))

    f = fg.value_and_grad(loss)
    x = RNG.standard_normal((4, 5)) + 1j * RNG.standard_normal((4, 5))
    for _ in range(CALLS):
        ws = [RNG.standard_normal((5, 5)) + 1j * RNG.standard_normal((5, 5)) for _ in range(8)]
        _same_bits(f(ws, x), _folded(f, ws, x))
    assert folds[0] == 2 * CALLS - (CALLS - eager_replay.REPEATS)


@pytest.mark.usefixtures("torch_refuses_numpy")
@pytest.mark.parametrize("device", sorted(device_makers()))
def test_device_arrays_replay_without_a_copy_to_numpy(device, folds):
    """array-api-strict's second device and PyTorch tensors that refuse NumPy (the GPU's
    stand-ins): the plan runs on the library's own calls, as the fold does."""
    put = device_makers()[device]
    f = fg.value_and_grad(lambda w, x: fnp.sum(_chain(w, x) ** 2))
    w0, x0 = RNG.standard_normal((6, 6)) * 0.5, RNG.standard_normal((5, 6))
    for k in range(CALLS):
        w, x = put(w0 + k), put(x0)
        value, g = f(w, x)
        with fg.disable_jit():
            want_value, want = f(w, x)
        np.testing.assert_array_equal(to_numpy(g), to_numpy(want))
        np.testing.assert_array_equal(to_numpy(value), to_numpy(want_value))
    assert folds[0] == 2 * CALLS - (CALLS - eager_replay.REPEATS)


def _chain(w, x):
    h = x
    for _ in range(12):
        h = fnp.tanh(fnp.matmul(h, w)) * 0.5 + h * 0.25
    return h


def _warnings_of(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = call()
    return out, [(str(w.message), w.filename, w.lineno) for w in seen]


def test_floating_point_warnings_are_the_folds(folds):
    """A plan meeting a floating-point error gives way to the fold, whose warnings name the
    rule's operation at the user's line; ``errstate`` still raises or silences."""
    f = fg.grad(lambda w, x: fnp.sum(fnp.log(_chain(w, x) ** 2)), argnums=(0, 1))
    w, bad = np.eye(6) * 0.5, np.ones((5, 6))
    bad[0, 0] = 0.0
    first = _warnings_of(lambda: f(w, bad))
    assert any("divide by zero" in m for m, _, _ in first[1])
    for _ in range(CALLS):
        again = _warnings_of(lambda: f(w, bad))
        _same_bits(again[0], first[0])
        assert again[1] == first[1]
        assert _warnings_of(lambda: f(w, np.ones((5, 6))))[1] == []
    # every call meeting log(0) folded; the clean ones ran the plan (the first of them is
    # the graph's third sighting: the compile)
    assert folds[0] == 1 + CALLS
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        f(w, bad)
    with np.errstate(all="ignore"):
        assert _warnings_of(lambda: f(w, bad))[1] == []


def test_a_gradient_function_made_each_step_replays_too(folds):
    """``fg.grad(loss)(params)`` inside the loop, as JAX's users write it: every gradient
    function of one function shares its plans (and argnums changes the graph's signature,
    since it decides which leaves are variables)."""
    x = RNG.standard_normal((5, 6))
    for _ in range(CALLS):
        p = _params()
        _same_bits(fg.grad(_mlp)(p, x), _folded(fg.grad(_mlp), p, x))
    assert folds[0] == 2 * CALLS - (CALLS - eager_replay.REPEATS)
    for _ in range(CALLS):
        p = _params()
        both = fg.value_and_grad(_mlp, argnums=(0, 1))(p, x)
        _same_bits(both, _folded(fg.value_and_grad(_mlp, argnums=(0, 1)), p, x))


def test_a_gradient_function_pickles_with_its_closure():
    """cloudpickle sends a closure to another process (Dask, joblib): the plans stay here."""
    cloudpickle = pytest.importorskip("cloudpickle")
    g = fg.value_and_grad(lambda p, x: _mlp(p, x))
    p, x = _params(), RNG.standard_normal((5, 6))
    for _ in range(CALLS):
        g(p, x)
    again = cloudpickle.loads(cloudpickle.dumps(g))
    for _ in range(CALLS):
        _same_bits(again(p, x), g(p, x))
