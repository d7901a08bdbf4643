"""Checkpointed loops that keep carries as they run forward: a scan keeps its schedule's first
sweep, a while loop keeps carries online. Checked under every transform against the loop
without checkpoints, a Python loop, central differences and, where installed, PyTorch."""

import importlib.util

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.helpers import assert_close, numeric_grad, torch

RNG = np.random.default_rng(11)
W = RNG.normal(size=(4, 4)) * 0.4
H0 = RNG.normal(size=4) * 0.01


def loop(w, h, k, limit=2.0):
    """A while loop whose trip count depends on the values: it grows ``h`` until its norm
    passes ``limit`` (or 500 steps), through a weight it closes over."""

    def step(c):
        i, h = c
        return i + 1, 0.1 * fnp.tanh(h @ w) + 1.02 * h

    _, h = fg.while_loop(
        lambda c: (fnp.sum(c[1] * c[1]) < limit * limit) & (c[0] < 500), step, (0, h), checkpoints=k
    )
    return fnp.sum(h * fnp.arange(1.0, 5.0))


def python_loop(w, h, limit=2.0):
    """The same loop in plain NumPy, for its trip count and value."""
    i = 0
    while np.sum(h * h) < limit * limit and i < 500:
        i, h = i + 1, 0.1 * np.tanh(h @ w) + 1.02 * h
    return i, float(np.sum(h * np.arange(1.0, 5.0)))


def test_the_loop_runs_long_enough_to_need_its_checkpoints():
    steps, value = python_loop(W, H0)
    assert steps > 20
    assert loop(W, H0, 3) == pytest.approx(value, rel=1e-13)


@pytest.mark.parametrize("k", [1, 2, 3, 7, 1000])
def test_gradients_match_the_loop_without_checkpoints_and_central_differences(k):
    want = fg.grad(loop, (0, 1))(W, H0, None)
    got = fg.grad(loop, (0, 1))(W, H0, k)
    for a, b in zip(got, want):
        assert_close(a, b, rtol=1e-12, atol=1e-13)
    assert_close(got[0], numeric_grad(lambda w: python_loop(w, H0)[1], (W,), 0), rtol=1e-5)
    assert_close(got[1], numeric_grad(lambda h: python_loop(W, h)[1], (H0,), 0), rtol=1e-5)


def test_a_budget_the_loop_fits_in_differentiates_under_every_transform():
    # more checkpoints than steps: every carry kept, which is the loop's history
    steps, _ = python_loop(W, H0)
    k = steps + 5
    want = fg.grad(loop)(W, H0, None)
    assert_close(fg.grad(loop)(W, H0, k), want, rtol=1e-13)
    value, g = fg.value_and_grad(loop)(W, H0, k)
    assert value == pytest.approx(python_loop(W, H0)[1], rel=1e-13)
    assert_close(g, want, rtol=1e-13)
    assert_close(fg.jit(fg.grad(loop), static_argnums=2)(W, H0, k), want, rtol=1e-12)
    ws = np.stack([W, 0.5 * W])
    batched = fg.vmap(fg.grad(loop), in_axes=(0, None, None))(ws, H0, k)
    for b, w in zip(batched, ws):
        assert_close(b, fg.grad(loop)(w, H0, None), rtol=1e-12)


def test_under_vjp_the_kept_graph_pulls_back_twice():
    _out, pull = fg.vjp(lambda w: loop(w, H0, 3), W)
    want = fg.grad(loop)(W, H0, None)
    assert_close(pull(1.0)[0], want, rtol=1e-12)
    assert_close(pull(2.0)[0], 2 * want, rtol=1e-12)


def test_transforms_that_cannot_keep_carries_online_still_agree():
    want_h = fg.hessian(lambda h: loop(W, h, None))(H0)
    # a derivative of a derivative counts the steps and runs segments instead
    assert_close(fg.hessian(lambda h: loop(W, h, 3))(H0), want_h, rtol=1e-10, atol=1e-12)
    assert_close(fg.jacfwd(lambda h: loop(W, h, 3))(H0), fg.grad(loop, 1)(W, H0, None), rtol=1e-12)
    assert_close(
        fg.jit(fg.grad(loop), static_argnums=2)(W, H0, 3), fg.grad(loop)(W, H0, None), rtol=1e-12
    )
    # examples stopping at different steps, batched inside and outside the gradient
    hs = np.stack([H0, 0.3 * H0, 2.0 * H0])
    got = fg.vmap(fg.grad(loop, 1), in_axes=(None, 0, None))(W, hs, 3)
    for g, h in zip(got, hs):
        assert_close(g, fg.grad(loop, 1)(W, h, None), rtol=1e-12, atol=1e-14)
    total = fg.grad(lambda w: fnp.sum(fg.vmap(lambda h: loop(w, h, 3))(hs)))(W)
    assert_close(total, sum(fg.grad(loop)(W, h, None) for h in hs), rtol=1e-12)


def test_inside_a_checkpoint_and_around_a_custom_rule():
    @fg.custom_vjp
    def soft(x):
        return fnp.tanh(x)

    soft.defvjp(lambda x: (fnp.tanh(x), x), lambda x, g: (g * (1 - fnp.tanh(x) ** 2),))

    def custom(w, k):
        _, h = fg.while_loop(
            lambda c: c[0] < 40,
            lambda c: (c[0] + 1, soft(c[1] @ w) + c[1]),
            (0, H0 * 0.1),
            checkpoints=k,
        )
        return fnp.sum(h)

    want = fg.grad(lambda w: custom(w, None))(W * 0.1)
    assert_close(fg.grad(lambda w: custom(w, 4))(W * 0.1), want, rtol=1e-12)
    assert_close(fg.grad(fg.checkpoint(lambda w: custom(w, 4)))(W * 0.1), want, rtol=1e-12)


def test_against_pytorch_in_float64():
    if torch is None:
        pytest.skip("a cross-check against PyTorch, which is not installed")
    w = torch.tensor(W, requires_grad=True)
    h = torch.tensor(H0)
    i = 0
    while float((h * h).sum().detach()) < 4.0 and i < 500:
        i, h = i + 1, 0.1 * torch.tanh(h @ w) + 1.02 * h
    (h * torch.arange(1.0, 5.0, dtype=torch.float64)).sum().backward()
    assert_close(fg.grad(loop)(W, H0, 3), w.grad.numpy(), rtol=1e-12)


XS = RNG.normal(size=(30, 4))


def scan_loss(w, k, reverse=False):
    def step(h, x):
        h = fnp.tanh(h @ w + x)
        return h, fnp.sum(h * x)

    h, ys = fg.scan(step, np.zeros(4), XS, checkpoints=k, reverse=reverse)
    return fnp.stack([fnp.sum(h**2), fnp.sum(ys)])


@pytest.mark.parametrize("k", [2, 5])
@pytest.mark.parametrize("reverse", [False, True])
def test_a_scan_keeping_its_first_sweep_under_vjp_jacrev_linearize_and_both_backends(k, reverse):
    want = fg.jacrev(lambda w: scan_loss(w, None, reverse))(W)
    assert_close(fg.jacrev(lambda w: scan_loss(w, k, reverse))(W), want, rtol=1e-12, atol=1e-14)
    _, pull = fg.vjp(lambda w: scan_loss(w, k, reverse), W)  # a graph kept for later
    assert_close(pull(np.array([1.0, 0.0]))[0], want[0], rtol=1e-12, atol=1e-14)
    assert_close(pull(np.array([0.0, 1.0]))[0], want[1], rtol=1e-12, atol=1e-14)
    _, lin = fg.linearize(lambda w: scan_loss(w, k, reverse), W)
    assert_close(lin(W), np.tensordot(want, W, 2), rtol=1e-12, atol=1e-14)
    for backend in ["python"] + (["numba"] if importlib.util.find_spec("numba") else []):
        got = fg.jit(fg.grad(lambda w: scan_loss(w, k, reverse)[1]), backend=backend)(W)
        assert_close(got, want[1], rtol=1e-12, atol=1e-14)


def test_a_jitted_reverse_step_traced_once_reads_each_calls_constants():
    jitted = fg.jit(fg.grad(lambda w: scan_loss(w, 3)[1]))
    for scale in (1.0, -2.0, 0.5):  # the weight is a constant of the scan's body
        assert_close(
            jitted(scale * W),
            fg.grad(lambda w: scan_loss(w, None)[1])(scale * W),
            rtol=1e-12,
            atol=1e-14,
        )
