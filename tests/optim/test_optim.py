"""Optimizers train a small model to a known loss."""

import dataclasses

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.helpers import needs_torch


def _data():
    # y = 2 x0 - 3 x1 + 0.5, exactly: least squares can reach zero loss
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 2))
    return X, X @ np.array([2.0, -3.0]) + 0.5


def _loss(params, X, y):
    pred = X @ params["w"] + params["b"]
    return fnp.mean((pred - y) ** 2)


@pytest.mark.parametrize(
    "make, steps",
    [
        (lambda: fg.optim.sgd(0.1), 300),
        (lambda: fg.optim.nesterov(0.05), 300),
        (lambda: fg.optim.rmsprop(fg.optim.exponential_decay(0.02, 0.001, 1500)), 1500),
        (lambda: fg.optim.adagrad(0.5), 1500),
        (lambda: fg.optim.adamw(0.05, weight_decay=0.0), 600),
        (lambda: fg.optim.sgd(fg.optim.cosine_decay(0.2, 300, alpha=0.1)), 300),
        (lambda: fg.optim.momentum(0.05, mass=0.9), 300),
        (lambda: fg.optim.adam(0.05), 600),
    ],
)
def test_linear_regression_reaches_zero_loss(make, steps):
    X, y = _data()
    _opt = make()
    init, update = _opt.init, _opt.step
    params = {"w": np.zeros(2), "b": 0.0}
    state = init(params)
    start = _loss(params, X, y)
    step = fg.value_and_grad(_loss)
    for _ in range(steps):
        _value, grads = step(params, X, y)
        params, state = update(grads, state, params)
    assert _loss(params, X, y) < 1e-6 < start
    np.testing.assert_allclose(params["w"], [2.0, -3.0], atol=1e-3)
    assert params["b"] == pytest.approx(0.5, abs=1e-3)


@pytest.mark.parametrize(
    "name", ["sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam", "adamw"]
)
def test_optax_shape_follows_the_same_trajectory(name):
    # update(grads, state, params) -> (updates, state), then apply_updates, as in optax.
    make = getattr(fg.optim, name)
    X, y = _data()
    _opt = make(0.05)
    init, update = _opt.init, _opt.step
    tx = make(0.05).transformation()
    params = optax_params = {"w": np.zeros(2), "b": 0.0}
    state, tx_state = init(params), tx.init(params)
    for _ in range(20):
        params, state = update(fg.grad(_loss)(params, X, y), state, params)
        updates, tx_state = tx.update(fg.grad(_loss)(optax_params, X, y), tx_state, optax_params)
        optax_params = fg.optim.apply_updates(optax_params, updates)
    np.testing.assert_array_equal(optax_params["w"], params["w"])
    assert optax_params["b"] == params["b"] and tx_state.step == state.step == 20


def test_optimizers_step_a_registered_dataclass():
    @fg.register_dataclass
    @dataclasses.dataclass
    class Model:
        w: np.ndarray
        b: float
        activation: str = dataclasses.field(default="linear", metadata={"static": True})

    X, y = _data()
    loss = lambda m: fnp.mean((X @ m.w + m.b - y) ** 2)
    _opt = fg.optim.adam(0.05)
    init, update = _opt.init, _opt.step
    model = Model(np.zeros(2), 0.0)
    state = init(model)
    for _ in range(600):
        model, state = update(fg.grad(loss)(model), state, model)
    assert isinstance(model, Model) and model.activation == "linear"
    np.testing.assert_allclose(model.w, [2.0, -3.0], atol=1e-3)


def test_update_is_pure():
    _opt = fg.optim.adam(0.1)
    init, update = _opt.init, _opt.step
    params = {"w": np.ones(3)}
    state = init(params)
    grads = {"w": np.full(3, 0.5)}
    new1, s1 = update(grads, state, params)
    new2, _s2 = update(grads, state, params)
    np.testing.assert_array_equal(new1["w"], new2["w"])
    np.testing.assert_array_equal(params["w"], np.ones(3))  # the input is untouched
    assert state.step == 0 and s1.step == 1


def test_bad_learning_rate_is_refused():
    with pytest.raises(ValueError, match="learning_rate"):
        fg.optim.sgd(-1.0)


# (funcgrad optimizer, torch.optim class and keywords): the same formulas and defaults
TORCH_TWINS = {
    "sgd": (lambda: fg.optim.sgd(0.1), "SGD", {"lr": 0.1}),
    "momentum": (lambda: fg.optim.momentum(0.1, mass=0.8), "SGD", {"lr": 0.1, "momentum": 0.8}),
    "nesterov": (
        lambda: fg.optim.nesterov(0.1),
        "SGD",
        {"lr": 0.1, "momentum": 0.9, "nesterov": True},
    ),
    "adagrad": (lambda: fg.optim.adagrad(0.1), "Adagrad", {"lr": 0.1}),
    "rmsprop": (lambda: fg.optim.rmsprop(0.01), "RMSprop", {"lr": 0.01}),
    "adam": (lambda: fg.optim.adam(0.05), "Adam", {"lr": 0.05}),
    "adamw": (
        lambda: fg.optim.adamw(0.05, weight_decay=0.1),
        "AdamW",
        {"lr": 0.05, "weight_decay": 0.1},
    ),
}


@pytest.mark.parametrize("name", sorted(TORCH_TWINS))
def test_trajectory_equals_torch_optim(name):
    torch = needs_torch()
    make, cls, kw = TORCH_TWINS[name]
    X, y = _data()
    params = {"w": np.array([0.3, -0.2]), "b": 0.1}
    tw = torch.tensor(params["w"], requires_grad=True)
    tb = torch.tensor(params["b"], requires_grad=True, dtype=torch.float64)
    opt = getattr(torch.optim, cls)([tw, tb], **kw)
    _opt = make()
    init, update = _opt.init, _opt.step
    state = init(params)
    for _ in range(8):
        params, state = update(fg.grad(_loss)(params, X, y), state, params)
        opt.zero_grad()
        ((torch.tensor(X) @ tw + tb - torch.tensor(y)) ** 2).mean().backward()
        opt.step()
    np.testing.assert_allclose(params["w"], tw.detach().numpy(), rtol=1e-12)
    assert params["b"] == pytest.approx(tb.item(), rel=1e-12)


def test_schedules_follow_the_step_count():
    seen = []
    _opt = fg.optim.sgd(lambda step: seen.append(step) or 0.1)
    init, update = _opt.init, _opt.step
    p, s = 0.0, init(0.0)
    for _ in range(3):
        p, s = update(1.0, s, p)
    assert seen == [0, 1, 2] and s.step == 3 and p == pytest.approx(-0.3)
    sched = fg.optim.exponential_decay(1.0, 0.1, 10, staircase=True)
    assert [sched(k) for k in (0, 9, 10, 25)] == pytest.approx([1.0, 1.0, 0.1, 0.01])
    warm = fg.optim.warmup_cosine_decay(2.0, 4, 12, end_value=0.5)
    assert (
        warm(2) == pytest.approx(1.0)
        and warm(4) == pytest.approx(2.0)
        and warm(12) == pytest.approx(0.5)
    )


def test_clipping():
    g = {"a": np.array([3.0, 0.0]), "b": 4.0}
    c = fg.optim.clip_by_global_norm(g, 2.5)
    np.testing.assert_allclose(c["a"], [1.5, 0.0])
    assert c["b"] == pytest.approx(2.0)
    assert fg.optim.clip_by_global_norm(g, 10.0) is g
    np.testing.assert_array_equal(fg.optim.clip_by_value(g, -1.0, 1.0)["a"], [1.0, 0.0])
    with pytest.raises(ValueError, match="max_norm"):
        fg.optim.clip_by_global_norm(g, 0.0)


def test_wrong_state_is_refused():
    _opt = fg.optim.adam()
    update = _opt.step
    with pytest.raises(TypeError, match="state"):
        update(1.0, {"m": 0.0}, 1.0)


# ---------------------------------------------------------------- funcgrad.nn against torch

NN_TWINS = {
    "softplus": (lambda x: fg.nn.softplus(x), lambda t, x: t.nn.functional.softplus(x)),
    "log_sigmoid": (lambda x: fg.nn.log_sigmoid(x), lambda t, x: t.nn.functional.logsigmoid(x)),
    "gelu": (lambda x: fg.nn.gelu(x, approximate=False), lambda t, x: t.nn.functional.gelu(x)),
    "gelu_tanh": (
        lambda x: fg.nn.gelu(x, approximate=True),
        lambda t, x: t.nn.functional.gelu(x, approximate="tanh"),
    ),
    "silu": (lambda x: fg.nn.silu(x), lambda t, x: t.nn.functional.silu(x)),
    "elu": (lambda x: fg.nn.elu(x, 0.7), lambda t, x: t.nn.functional.elu(x, 0.7)),
    "leaky_relu": (
        lambda x: fg.nn.leaky_relu(x, 0.1),
        lambda t, x: t.nn.functional.leaky_relu(x, 0.1),
    ),
    "cross_entropy": (
        lambda x: fg.nn.cross_entropy(x, np.array([0, 2, 1])),
        lambda t, x: t.nn.functional.cross_entropy(x, t.tensor([0, 2, 1])),
    ),
    "cross_entropy_probs": (
        lambda x: fg.nn.cross_entropy(x, np.full((3, 3), 1 / 3), reduction="sum"),
        lambda t, x: t.nn.functional.cross_entropy(
            x, t.full((3, 3), 1 / 3, dtype=t.float64), reduction="sum"
        ),
    ),
    "bce_logits": (
        lambda x: fg.nn.binary_cross_entropy_with_logits(x, np.eye(3)),
        lambda t, x: t.nn.functional.binary_cross_entropy_with_logits(x, t.eye(3, dtype=t.float64)),
    ),
    "mse_loss": (
        lambda x: fg.nn.mse_loss(x, np.eye(3)),
        lambda t, x: t.nn.functional.mse_loss(x, t.eye(3, dtype=t.float64)),
    ),
}


@pytest.mark.parametrize("name", sorted(NN_TWINS))
def test_nn_functions_match_torch(name):
    torch = needs_torch()
    ours, theirs = NN_TWINS[name]
    x = np.random.default_rng(1).normal(size=(3, 3)) * 3.0
    w = np.random.default_rng(2).normal(size=np.shape(ours(x)))
    t = torch.tensor(x, requires_grad=True)
    out = theirs(torch, t)
    np.testing.assert_allclose(ours(x), out.detach().numpy(), rtol=1e-12, atol=1e-14)
    (out * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(
        fg.grad(lambda x: fnp.sum(ours(x) * w))(x), t.grad.numpy(), rtol=1e-10, atol=1e-14
    )
    fg.check_grads(ours, (x,), order=2, modes=("fwd", "rev"))


def test_one_hot_and_its_errors():
    np.testing.assert_array_equal(
        fg.nn.one_hot(np.array([[1], [0]]), 2), [[[0.0, 1.0]], [[1.0, 0.0]]]
    )
    with pytest.raises(ValueError, match=r"one_hot: labels must lie in \[0, 2\)"):
        fg.nn.one_hot(np.array([2]), 2)
    with pytest.raises(TypeError, match="integers"):
        fg.nn.one_hot(np.array([0.5]), 2)


# ---------------------------------------------------------------- optax's shape


def test_update_returns_updates_as_optax_does():
    # the example: optax's code, with adam(0.1), moves w from 1.0 to 1.1, not 1.9
    opt = fg.optim.adam(0.1)
    params = {"w": 1.0}
    state = opt.init(params)
    updates, state = opt.update(fg.grad(lambda p: (p["w"] - 3.0) ** 2)(params), state, params)
    assert updates["w"] == pytest.approx(0.1)
    assert fg.optim.apply_updates(params, updates)["w"] == pytest.approx(1.1)


@pytest.mark.parametrize("make", [fg.optim.sgd, fg.optim.adam, fg.optim.rmsprop])
def test_unpacking_an_optimizer_is_0_1s_pair_with_a_deprecation_warning(make):
    opt = make(0.1)
    with pytest.warns(DeprecationWarning, match="opt.step.*opt.update.*apply_updates") as seen:
        init, update = opt
    assert seen[0].filename == __file__  # the warning points at the unpacking
    params = {"w": np.array([1.0, -2.0])}
    grads = {"w": np.array([0.5, 0.25])}
    new, _state = update(grads, init(params), params)  # 0.1's update: new parameters
    want, _ = opt.step(grads, opt.init(params), params)
    np.testing.assert_array_equal(new["w"], want["w"])
    assert not np.array_equal(new["w"], params["w"])


def test_step_is_update_then_apply_updates_bit_for_bit():
    opt = fg.optim.adamw(0.05, weight_decay=0.1)
    p1 = p2 = {"w": np.array([1.0, -2.0]), "b": 0.5}
    s1 = s2 = opt.init(p1)
    loss = lambda p: fnp.sum(fnp.sin(p["w"]) * p["b"]) + p["b"] ** 2
    for _ in range(5):
        p1, s1 = opt.step(fg.grad(loss)(p1), s1, p1)
        updates, s2 = opt.update(fg.grad(loss)(p2), s2, p2)
        p2 = fg.optim.apply_updates(p2, updates)
    np.testing.assert_array_equal(p1["w"], p2["w"])
    assert p1["b"] == p2["b"]


def test_chain_clips_then_steps():
    g = {"w": np.array([3.0, 4.0])}
    p = {"w": np.zeros(2)}
    opt = fg.optim.chain(fg.optim.clip_by_global_norm(1.0), fg.optim.sgd(0.5))
    updates, state = opt.update(g, opt.init(p), p)
    np.testing.assert_allclose(updates["w"], -0.5 * np.array([0.6, 0.8]))
    assert len(state) == 2 and state[1].step == 1
    by_hand = fg.optim.sgd(0.5).update(
        fg.optim.clip_by_global_norm(g, 1.0), fg.optim.sgd(0.5).init(p), p
    )
    np.testing.assert_array_equal(updates["w"], by_hand[0]["w"])


def test_decayed_weights_then_sgd_is_torchs_weight_decay():
    torch = needs_torch()
    w0 = np.array([1.0, -0.5, 2.0])
    target = np.array([0.3, 0.1, -0.2])
    opt = fg.optim.chain(fg.optim.add_decayed_weights(0.1), fg.optim.sgd(0.05))
    p = {"w": w0}
    state = opt.init(p)
    t = torch.tensor(w0, requires_grad=True)
    torch_opt = torch.optim.SGD([t], lr=0.05, weight_decay=0.1)
    for _ in range(10):
        p, state = opt.step(fg.grad(lambda q: fnp.sum((q["w"] - target) ** 2))(p), state, p)
        torch_opt.zero_grad()
        ((t - torch.tensor(target)) ** 2).sum().backward()
        torch_opt.step()
    np.testing.assert_allclose(p["w"], t.detach().numpy(), rtol=1e-13)


def test_transformations_refuse_a_state_from_elsewhere():
    opt = fg.optim.chain(fg.optim.scale(-0.1))
    with pytest.raises(TypeError, match="not what this chain's init made"):
        opt.update(1.0, fg.optim.sgd(0.1).init(1.0), 1.0)
    with pytest.raises(TypeError, match="every part must be a transformation"):
        fg.optim.chain(lambda g: g)


SCHEDULES = {
    "cosine_decay": fg.optim.cosine_decay(0.1, 10, alpha=0.1),
    "warmup_cosine_decay": fg.optim.warmup_cosine_decay(0.1, 3, 10, end_value=0.01),
    "warmup of 0 steps": fg.optim.warmup_cosine_decay(0.1, 0, 10),
    "exponential_decay": fg.optim.exponential_decay(0.1, 0.5, 5),
    "staircase": fg.optim.exponential_decay(0.1, 0.5, 5, staircase=True),
    "piecewise_constant": fg.optim.piecewise_constant([3, 6], [0.1, 0.05, 0.01]),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedules_trace_under_jit_and_vmap(name):
    """The step count is traced when the update is jitted (optax's pattern) or a
    schedule is mapped over steps: each gives the eager call's rates."""
    schedule = SCHEDULES[name]
    eager = np.array([schedule(k) for k in range(14)])
    np.testing.assert_allclose(fg.vmap(schedule)(np.arange(14)), eager, rtol=1e-14)
    np.testing.assert_allclose([fg.jit(schedule)(k) for k in range(14)], eager, rtol=1e-14)
    params = {"w": np.linspace(-1.0, 1.0, 6).reshape(3, 2)}
    opt = fg.optim.adam(schedule)
    jitted, plain = opt.init(params), opt.init(params)
    update = fg.jit(opt.update)
    for _ in range(14):
        got, jitted = update(params, jitted, params)
        want, plain = opt.update(params, plain, params)
        np.testing.assert_allclose(got["w"], want["w"], rtol=1e-13)
