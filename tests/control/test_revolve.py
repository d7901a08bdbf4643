"""The binomial schedule: optimal against every schedule, within its budget of carries, and
what a checkpointed scan actually runs."""

import weakref
from functools import lru_cache

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import extend
from funcgrad.control.revolve import (
    OnlineCheckpoints,
    cheapest_kept,
    first_sweep,
    forward_steps,
    kept_cost,
    reverse_loop,
)
from tests.helpers import assert_close

P = fg.checkpoint_policies


@lru_cache(None)
def fewest(n, free):
    """The fewest forward steps any schedule needs to reverse ``n`` steps with ``free``
    carries besides the first: an exhaustive search over where the next carry is kept."""
    if n <= 1:
        return 0
    if free == 0:
        return n * (n - 1) // 2
    return min(m + fewest(n - m, free - 1) + fewest(m, free) for m in range(1, n))


def run(n, k):
    advanced, reversed_ = [], []
    kept = []

    def advance(c, i, j):
        assert c == i  # the carry advanced is the one before step i
        advanced.append(j - i)
        kept.append(j)
        return j

    def back(i, c):
        assert c == i
        reversed_.append(i)

    reverse_loop(n, k, 0, advance, back)
    return sum(advanced), reversed_


@pytest.mark.parametrize("k", range(1, 9))
def test_the_schedule_is_the_fewest_recomputation_and_reverses_every_step(k):
    for n in range(1, 100):
        steps, order = run(n, k)
        assert order == list(range(n - 1, -1, -1))
        assert steps == forward_steps(n, k) == fewest(n, k - 1), (n, k)


class Carry:
    def __init__(self, step):
        self.step = step


def test_the_schedule_holds_at_most_its_budget_of_carries():
    for n, k in [(100, 3), (1000, 10), (5000, 2), (777, 50), (60, 1)]:
        live, peak = weakref.WeakSet(), [0]

        def made(step):
            c = Carry(step)
            live.add(c)
            return c

        def advance(c, i, j):
            assert c.step == i
            return made(j)

        def back(i, c):
            assert c.step == i
            # the kept carries, and the one whose step is being reversed
            peak[0] = max(peak[0], len(live))

        reverse_loop(n, k, made(0), advance, back)
        assert peak[0] <= k + 1, (n, k, peak[0])


def test_the_issues_case_recomputes_under_two_runs_per_step():
    assert forward_steps(100, 14) == 184  # 1.84 a step; 14 nested levels before
    # the forward pass keeps the first sweep's carries: 1.87 forward runs a step in all
    assert 100 + kept_cost(100, 14, first_sweep(100, 14)) == 187


def run_from(n, k, steps):
    """Forward steps and the order of reversal of ``reverse_loop`` given the carries before
    ``steps``, checking it never holds more than ``k`` carries."""
    advanced, reversed_, live = [], [], set(steps) | {0}
    peak = [len(live)]

    def advance(c, i, j):
        assert c == i
        advanced.append(j - i)
        live.add(j)
        peak[0] = max(peak[0], len(live))
        return j

    def back(i, c):
        assert c == i
        reversed_.append(i)
        if i:
            live.discard(i)  # a carry is dropped once the step it comes before is reversed

    reverse_loop(n, k, 0, advance, back, [(s, s) for s in steps])
    assert peak[0] <= k + 1
    return sum(advanced), reversed_


@pytest.mark.parametrize("k", [2, 3, 5, 14])
def test_from_kept_carries_the_schedule_costs_what_kept_cost_says(k):
    rng = np.random.default_rng(k)
    for n in [2, 3, 10, 57, 100, 333]:
        choices = [first_sweep(n, k), [], sorted(set(rng.integers(1, n, size=k - 1).tolist()))]
        for steps in choices:
            cost, order = run_from(n, k, steps)
            assert order == list(range(n - 1, -1, -1))
            assert cost == kept_cost(n, k, steps), (n, k, steps)
        # the first sweep's carries spare exactly that sweep
        sweep = first_sweep(n, k)
        assert kept_cost(n, k, sweep) == forward_steps(n, k) - (sweep or [0])[-1]


def test_online_carries_stay_equally_spaced_within_their_slots():
    for slots in (1, 3, 8, 13):
        kept = OnlineCheckpoints(slots)
        for step in range(1, 5000):
            if kept.wants(step):
                kept.keep(step, step)
            assert len(kept.steps) <= slots
            assert kept.steps == kept.carries
            d = kept.spacing
            assert kept.steps == list(range(d, d * len(kept.steps) + 1, d))
            assert d * (len(kept.steps) + 1) > step  # the latest one is not far behind
    assert OnlineCheckpoints(0).wants(1) is False


@pytest.mark.parametrize("k", [2, 3, 10, 100])
def test_online_carries_never_cost_more_than_the_schedule_from_the_start(k):
    for n in [k + 1, 50, 1000, 12345]:
        if n <= k:
            continue
        steps = online_steps(n, k)
        assert kept_cost(n, k, steps) <= forward_steps(n, k)
    # and usually much less: a 10^4-step loop with 100 carries
    assert kept_cost(10**4, 100, online_steps(10**4, 100)) < 0.7 * forward_steps(10**4, 100)


RUNS = []
counted = extend.Primitive(
    "counted_step", lambda x: RUNS.append(1) or np.sin(x), vjp=(lambda g, ans, x: g * fnp.cos(x),)
)


@pytest.mark.parametrize("n,k", [(100, 14), (100, 3), (1000, 10), (37, 1)])
def test_a_checkpointed_loop_runs_the_body_as_the_schedule_says(n, k):
    f = lambda v: fg.fori_loop(0, n, lambda i, c: counted(c) * 0.9 + v, v, checkpoints=k)
    RUNS.clear()
    g = fg.grad(f)(0.5)
    # the forward pass (keeping the carries of the schedule's first sweep), the rest of the
    # schedule, three traces of the body (np.sin answers a strong float64 for the Python
    # float carry, which is traced again as one: control/body.strong_carries)
    assert len(RUNS) == n + forward_steps(n, k) - (first_sweep(n, k) or [0])[-1] + 3
    plain = lambda v: fg.fori_loop(0, n, lambda i, c: fnp.sin(c) * 0.9 + v, v)
    assert g == fg.grad(plain)(0.5)


@pytest.mark.parametrize("n,k", [(100, 14), (1000, 10)])
@pytest.mark.parametrize("transform", [fg.grad, fg.value_and_grad])
def test_under_jit_alone_the_plan_runs_the_binomial_schedule(n, k, transform):
    f = lambda v: fg.fori_loop(0, n, lambda i, c: counted(c) * 0.9 + v, v, checkpoints=k)
    jitted = fg.jit(transform(f))
    jitted(0.5)
    RUNS.clear()
    got = jitted(0.5)
    # a replay: the forward pass keeping the carries of the schedule's first sweep and the
    # rest of the schedule (the reverse step was traced once, at the first call)
    assert len(RUNS) == n + kept_cost(n, k, first_sweep(n, k))
    assert got == transform(f)(0.5)
    # traced further (a second derivative through jit), the nested segments take over
    second = fg.grad(fg.jit(fg.grad(f)))(0.5)
    plain = lambda v: fg.fori_loop(0, n, lambda i, c: fnp.sin(c) * 0.9 + v, v)
    assert second == pytest.approx(fg.grad(fg.grad(plain))(0.5), rel=1e-10)


RNG = np.random.default_rng(3)
W = RNG.normal(size=(3, 3)) * 0.5
XS = RNG.normal(size=(23, 3))


def loss(w, xs, k, reverse=False):
    def step(h, x):
        h = fnp.tanh(h @ w + x)
        return h, fnp.sum(h * x)

    h, ys = fg.scan(step, np.zeros(3), xs, checkpoints=k, reverse=reverse)
    return fnp.sum(h**2) + fnp.sum(ys * np.arange(len(xs)))


@pytest.mark.parametrize("k", [1, 2, 4, 22])
@pytest.mark.parametrize("reverse", [False, True])
def test_gradients_in_every_argument_are_the_loops_bit_for_bit(k, reverse):
    want = fg.grad(loss, (0, 1))(W, XS, None, reverse)
    got = fg.grad(loss, (0, 1))(W, XS, k, reverse)
    for a, b in zip(got, want):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("k", [1, 4])
def test_under_transforms_the_nested_schedule_gives_the_same_derivatives(k):
    want = fg.grad(loss)(W, XS, None)
    assert_close(fg.jit(fg.grad(loss), static_argnums=2)(W, XS, k), want, rtol=1e-12)
    batched = fg.vmap(fg.grad(loss), in_axes=(0, None, None))(np.stack([W, 2 * W]), XS, k)
    assert_close(batched[1], fg.grad(loss)(2 * W, XS, None), rtol=1e-12)
    assert_close(fg.hessian(loss)(W, XS, k), fg.hessian(loss)(W, XS, None), rtol=1e-10, atol=1e-12)
    v = RNG.normal(size=W.shape)
    assert np.isclose(fg.jvp(lambda w: loss(w, XS, k), (W,), (v,))[1], np.sum(want * v))


def online_steps(n, k):
    """The steps whose carries a checkpointed while loop of ``n`` steps keeps for its
    reverse pass: those it keeps online, thinned to the cheapest subset once it stops."""
    kept = OnlineCheckpoints(k - 1)
    for step in range(1, n):  # the carry before each step the loop goes on to
        if kept.wants(step):
            kept.keep(step, None)
    return cheapest_kept(n, k, kept.steps)


def test_a_checkpointed_while_loop_keeps_carries_online_then_follows_the_schedule():
    def loop(a, k):
        return fg.while_loop(
            lambda c: c[0] < 60,
            lambda c: (c[0] + 1, counted(c[1]) * a + 0.1),
            (0, 0.5),
            checkpoints=k,
        )[1]

    want = fg.grad(lambda a: loop(a, None))(0.9)
    for k in (1, 4, 20):
        RUNS.clear()
        assert fg.grad(lambda a: loop(a, k))(0.9) == want
        # the run keeping carries online (whose results the scan's node records: no second
        # forward pass), the schedule from them, each reverse step (the product's derivative
        # in a reads the sine's value), and the traces (one more for the Python float
        # carry that np.sin makes a strong float64: control/body.strong_carries)
        assert len(RUNS) == 60 + kept_cost(60, k, online_steps(60, k)) + 60 + 4
    assert_close(fg.jit(fg.grad(lambda a: loop(a, 4)))(0.9), want, rtol=1e-12)
    assert_close(fg.vmap(fg.grad(lambda a: loop(a, 4)))(np.array([0.9, 0.7]))[0], want, rtol=1e-12)


def test_a_checkpointed_while_loop_holds_its_budget_not_its_history():
    import tracemalloc

    big = np.linspace(0.0, 1.0, 100_000)  # 800 kB a carry, 40 MB for 50 of them

    def loss(a, k):
        _, x = fg.while_loop(
            lambda c: c[0] < 50, lambda c: (c[0] + 1, fnp.sin(c[1]) * a), (0, big), checkpoints=k
        )
        return fnp.sum(x)

    want = fg.grad(lambda a: loss(a, None))(0.9)
    tracemalloc.start()
    try:
        got = fg.grad(lambda a: loss(a, 3))(0.9)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == want
    assert peak < 15e6, peak  # a few carries and temporaries; all 50 would be 40 MB


CW = RNG.normal(size=(3, 1, 2)) * 0.5  # a kernel: 3 outputs, 1 input, width 2
CXS = RNG.normal(size=(5, 1, 1, 6))  # per step: N, C, W


def conv_step(c, x, w):
    y = fg.nn.conv(x + c, w, (1,), "SAME")
    y = fg.nn.max_pool(fnp.tanh(y), (2,), (1,), "SAME", data_format="NCW")
    return fnp.sum(y, axis=1, keepdims=True) * 0.3, fnp.sum(y)


def conv_loop(w, k=None):
    c, ys = fg.scan(lambda c, x: conv_step(c, x, w), np.zeros((1, 1, 6)), CXS, checkpoints=k)
    return fnp.sum(c) + fnp.sum(ys)


def conv_unrolled(w):
    c, total = np.zeros((1, 1, 6)), 0.0
    for x in CXS:
        c, y = conv_step(c, x, w)
        total = total + y
    return fnp.sum(c) + total


def test_convolutions_in_a_checkpointed_scan_in_a_checkpoint_under_every_transform():
    want = fg.grad(conv_unrolled)(CW)
    assert np.array_equal(fg.grad(lambda w: conv_loop(w, 2))(CW), want)
    assert_close(fg.jit(fg.grad(lambda w: conv_loop(w, 2)))(CW), want, rtol=1e-12)
    kept = fg.checkpoint(lambda w: conv_loop(w, 2), policy=P.dots_saveable)
    assert_close(fg.grad(kept)(CW), want, rtol=1e-12)
    assert_close(
        fg.vmap(fg.grad(lambda w: conv_loop(w, 2)))(np.stack([CW, CW]))[1], want, rtol=1e-12
    )
    v = RNG.normal(size=CW.shape)
    h = 1e-6
    fd = (conv_unrolled(CW + h * v) - conv_unrolled(CW - h * v)) / (2 * h)
    assert np.isclose(fg.jvp(lambda w: conv_loop(w, 2), (CW,), (v,))[1], fd, rtol=1e-7)


def test_checkpointed_scans_nest():
    def nested(a):
        def outer(c, _):
            inner, _ = fg.scan(
                lambda d, _: (fnp.sin(d) * a, None), c, None, length=7, checkpoints=2
            )
            return inner, None

        return fg.scan(outer, 0.3, None, length=5, checkpoints=2)[0]

    def unrolled(a):
        c = 0.3
        for _ in range(35):
            c = fnp.sin(c) * a
        return c

    assert fg.grad(nested)(0.9) == fg.grad(unrolled)(0.9)
