"""fg.checkpoint and loops with checkpoints=k: the same numbers, less memory held."""

import tracemalloc

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

RNG = np.random.default_rng(0)
W = RNG.normal(size=(3, 3)) * 0.5
XS = RNG.normal(size=(103, 3))
H0 = np.array([0.1, -0.2, 0.3])


def step(h, x):
    h = fnp.tanh(h @ W + x)
    return h, fnp.sum(h**2)


def rnn_loss(h0, checkpoints=None, reverse=False, xs=XS):
    h, ys = fg.scan(step, h0, xs, checkpoints=checkpoints, reverse=reverse)
    return fnp.sum(h) + fnp.sum(ys * np.linspace(0.0, 1.0, len(xs)))


@pytest.mark.parametrize("checkpoints", [14, 20, 40, 102, 103, 500])
@pytest.mark.parametrize("reverse", [False, True])
def test_checkpointed_scan_gives_the_same_value_and_gradients(checkpoints, reverse):
    want = fg.value_and_grad(rnn_loss)(H0, None, reverse)
    got = fg.value_and_grad(rnn_loss)(H0, checkpoints, reverse)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-13)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)


def test_checkpointed_scan_in_every_transform():
    ref = lambda h0: rnn_loss(h0, None)
    ck = lambda h0: rnn_loss(h0, 20)
    np.testing.assert_allclose(fg.jit(fg.grad(ck))(H0), fg.grad(ref)(H0), rtol=1e-12)
    np.testing.assert_allclose(fg.hessian(ck)(H0), fg.hessian(ref)(H0), rtol=1e-10, atol=1e-13)
    t = np.array([1.0, 0.5, -1.0])
    np.testing.assert_allclose(fg.jvp(ck, (H0,), (t,))[1], fg.jvp(ref, (H0,), (t,))[1])
    batch = np.stack([H0, 2 * H0])
    np.testing.assert_allclose(
        fg.vmap(fg.grad(ck))(batch), fg.vmap(fg.grad(ref))(batch), rtol=1e-12
    )
    # The input sequence differentiates too, through the segments' slicing.
    gx = fg.grad(lambda xs: rnn_loss(H0, 20, xs=xs))(XS)
    np.testing.assert_allclose(gx, fg.grad(lambda xs: rnn_loss(H0, None, xs=xs))(XS), rtol=1e-12)
    fg.check_grads(ck, (H0,), order=1)


def test_fori_and_while_loops_take_checkpoints():
    def fori(x, k):
        return fg.fori_loop(0, 200, lambda i, y: y * 0.99 + fnp.sin(x * i), 0.0, checkpoints=k)

    assert fg.grad(fori)(0.3, 30) == pytest.approx(fg.grad(fori)(0.3, None), rel=1e-12)

    def grow(a, k):  # the trip count depends on a: known only at run time
        return fg.while_loop(lambda x: x < 1e6, lambda x: x * a + 1.0, 1.0, checkpoints=k)

    for a in (1.5, 3.0, 11.0):
        want = fg.grad(grow)(a, None)
        assert fg.grad(grow)(a, 4) == pytest.approx(want, rel=1e-12)
        assert fg.jit(fg.grad(grow), static_argnums=1)(a, 4) == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(
        fg.vmap(fg.grad(grow), in_axes=(0, None))(np.array([1.5, 3.0]), 4),
        [fg.grad(grow)(1.5, None), fg.grad(grow)(3.0, None)],
        rtol=1e-12,
    )


def _peak_bytes_of_grad(checkpoints, n=2000, width=1000):
    w = np.full(width, 0.999)
    xs = np.zeros((n, 1))

    def loss(h0):
        h, _ = fg.scan(lambda h, x: (fnp.sin(h * w + x), None), h0, xs, checkpoints=checkpoints)
        return fnp.sum(h)

    tracemalloc.start()
    fg.grad(loss)(np.ones(width))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_a_budget_bounds_the_carries_held():
    carry = 1000 * 8
    without = _peak_bytes_of_grad(None)
    with_budget = _peak_bytes_of_grad(100)
    assert without > 2000 * carry  # one carry per step
    assert with_budget < 4 * fg.checkpoint_plan(2000, 100).held * carry < without / 5


def test_the_plan_prints_both_schedules():
    plan = fg.checkpoint_plan(10**5, checkpoints=1000, carry=np.zeros(100))
    assert plan.held == 1000 and plan.segments == (317,) and plan.nested_held <= 1000
    text = str(plan)
    assert "binomial schedule" in text and "2 levels" in text and "80.0 MB" in text
    assert fg.checkpoint_plan(10**5, 40).held == 40
    assert (
        fg.checkpoint_plan(50, 100).segments == () and fg.checkpoint_plan(50, 100).recomputed == 0
    )
    # the case: 14 carries for 100 steps recompute 1.84 steps a step, 0.87 once the
    # forward run keeps the first sweep's carries (14 nested levels)
    plan = fg.checkpoint_plan(100, 14)
    assert plan.recomputed == 87 and plan.forward_runs < 2 and plan.nested_forward_runs == 14


@pytest.mark.parametrize("checkpoints", [1, 2, 5])
def test_a_budget_below_what_nested_segments_need_works_on_plain_values_and_under_jit(checkpoints):
    want = fg.value_and_grad(rnn_loss)(H0)
    got = fg.value_and_grad(rnn_loss)(H0, checkpoints)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    # under jit the nested schedule holds the fewest carries it can (14 for 103 steps)
    jitted = fg.jit(fg.value_and_grad(rnn_loss), static_argnums=1)(H0, checkpoints)
    np.testing.assert_allclose(jitted[1], want[1], rtol=1e-12)


def test_checkpoint_of_a_function():
    def block(w, x):
        return fnp.tanh(x @ w) * 2.0

    remat = fg.checkpoint(block)
    w = RNG.normal(size=(4, 4))
    x = RNG.normal(size=(2, 4))
    ref = lambda w: fnp.sum(block(w, block(w, x)) ** 2)
    ck = lambda w: fnp.sum(remat(w, remat(w, x)) ** 2)
    np.testing.assert_allclose(ck(w), ref(w))
    for transform in (fg.grad, fg.jacfwd, fg.hessian, lambda f: fg.jit(fg.grad(f))):
        np.testing.assert_allclose(transform(ck)(w), transform(ref)(w), rtol=1e-10, atol=1e-12)
    ws = np.stack([w, -w])
    np.testing.assert_allclose(fg.vmap(fg.grad(ck))(ws), fg.vmap(fg.grad(ref))(ws), rtol=1e-12)
    np.testing.assert_allclose(
        fg.grad(lambda ws: fnp.sum(fg.vmap(ck)(ws)))(ws),
        fg.grad(lambda ws: fnp.sum(fg.vmap(ref)(ws)))(ws),
        rtol=1e-12,
    )
    # The graph keeps the call's result, not its intermediates.
    ops = [n.op for n in fg.toposort(fg.trace(ck, w))]
    assert ops.count("checkpoint") == 2 and "tanh" not in ops
    # Static arguments and closures.
    scaled = fg.checkpoint(lambda x, n: x**n, static_argnums=1)
    assert fg.grad(lambda x: scaled(x, 3))(2.0) == 12.0
    assert fg.grad(lambda a: fg.checkpoint(lambda x: a * x)(3.0))(2.0) == 3.0
